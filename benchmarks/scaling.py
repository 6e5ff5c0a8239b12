"""Scaling on the paper-shaped workloads: whole streams, peak memory, threads, MOA beside.

Each run is ``boostbench run`` in a fresh process (so its peak RSS is its own), on the
paper-shaped stand-ins (``configs/dataset/*_like.yaml``): every online booster that applies,
with one thread and with every core (``n_threads``), after an untimed short run that fills the
data and kernel caches. MOA's OzaBoost (capymoa, MOA's Java
evaluation loop, when ``make bench-moa-setup`` made .venv-moa) runs on the same stream in the
same order. Writes ``scaling.csv`` and prints the table.

    python benchmarks/scaling.py                        # every workload, whole streams (hours)
    python benchmarks/scaling.py --workloads movement_like --algorithms adaboost_olm --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MOA_PYTHON = ROOT / ".venv-moa" / "bin" / "python"
MULTILABEL = ("ada_olmr", "online_bmr")
WORKLOADS = {
    "movement_like": ("adaboost_olm", "online_boosting", "online_mbbm", "best_vfdt"),
    "covertype_like": ("adaboost_olm", "online_boosting"),
    "isolet_like": ("adaboost_olm", "online_boosting", "online_mbbm", "best_vfdt"),
    "mediamill_like": MULTILABEL,
}


def run_boostbench(workload: str, algorithm: str, threads: int, seed: int, max_examples: int | None) -> dict:
    """One ``boostbench run`` in a fresh process; its record's numbers."""
    with tempfile.TemporaryDirectory(prefix="boostbench-scaling-") as tmp:
        overrides = [
            f"dataset={workload}",
            f"algorithm={algorithm}",
            f"n_threads={threads}",
            f"seed={seed}",
            f"results_dir={tmp}",
            "progress=false",
        ]
        if max_examples:
            overrides.append(f"protocol.max_examples={max_examples}")
        done = subprocess.run([sys.executable, "-m", "boostbench", "run", *overrides], capture_output=True, text=True)
        if done.returncode:
            return {"error": (done.stderr or done.stdout).strip().splitlines()[-1]}
        (path,) = Path(tmp, "runs").glob("*.json")
        m = json.loads(path.read_text())["metrics"]
    return {
        "seconds": m["runtime_s"],
        "us_per_example": m["us_per_example"],
        "n_examples": m["n_examples"],
        "peak_rss_mib": m["peak_rss_bytes"] / 2**20,
        "pool_mib": m.get("pool_bytes", 0) / 2**20,
        "enforcements": m.get("budget_enforcements", 0),
        "quality": m.get("final_accuracy", m.get("test_rank_loss")),
        "cumulative": m.get("cumulative_accuracy"),
    }


def run_moa(workload: str, seed: int, max_examples: int | None, n_learners: int = 100) -> dict:
    """MOA's OzaBoost on the stream the runner makes for ``seed`` (same order), Java loop."""
    from boostbench.data import load_dataset, stream_order
    from boostbench.runner.config import compose_config
    from boostbench.seeding import run_generators

    cfg = compose_config([f"dataset={workload}", f"seed={seed}"])
    data = load_dataset(cfg.dataset)
    order = stream_order(data.n_examples, run_generators(seed).stream, True)[: max_examples or None]
    with tempfile.TemporaryDirectory(prefix="boostbench-moa-") as tmp:
        path = Path(tmp) / "stream.npz"
        np.savez(path, X=data.X[order], y=data.y[order])
        done = subprocess.run(
            [
                str(MOA_PYTHON),
                str(ROOT / "benchmarks" / "moa_ozaboost.py"),
                "--data",
                str(path),
                "--n-learners",
                str(n_learners),
                "--seed",
                str(seed),
            ],
            capture_output=True,
            text=True,
        )
    if done.returncode:
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1]}
    r = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "seconds": r["us_per_example"] * len(order) / 1e6,
        "us_per_example": r["us_per_example"],
        "n_examples": len(order),
        "peak_rss_mib": r["peak_rss_mib"],
        "cumulative": r["quality"],
    }


def main() -> None:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    cores = len(os.sched_getaffinity(0))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    parser.add_argument("--algorithms", nargs="+", help="default: every online booster that applies")
    parser.add_argument("--threads", type=int, nargs="+", default=sorted({1, cores}))
    parser.add_argument("--max-examples", type=int, help="a prefix of each stream (default: whole streams)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-moa", action="store_true")
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    rows = []
    for workload in args.workloads:
        for algorithm in [a for a in WORKLOADS[workload] if not args.algorithms or a in args.algorithms]:
            # untimed: generates the data set into the disk cache and compiles the kernels, which
            # a timed run would otherwise count in its peak RSS
            run_boostbench(workload, algorithm, max(args.threads), args.seed, 50)
            for threads in args.threads:
                r = run_boostbench(workload, algorithm, threads, args.seed, args.max_examples)
                rows.append({"workload": workload, "candidate": f"boostbench {algorithm}", "threads": threads, **r})
                print(json.dumps(rows[-1]), flush=True)
        if not args.no_moa and MOA_PYTHON.exists() and workload != "mediamill_like":
            rows.append(
                {
                    "workload": workload,
                    "candidate": "MOA OzaBoost (capymoa, Java loop)",
                    "threads": 1,
                    **run_moa(workload, args.seed, args.max_examples),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    prefix = f"first {args.max_examples:,} examples" if args.max_examples else "whole streams"
    table = Table(title=f"Paper-shaped workloads, N = 100, seed {args.seed}, {prefix}, default memory budget")
    columns = (
        "workload",
        "candidate",
        "threads",
        "examples",
        "seconds",
        "µs / example",
        "peak RSS MiB",
        "pool MiB",
        "budget hits",
        "final-20% acc / rank loss",
        "cumulative acc",
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("workload", "candidate") else "right")
    for r in rows:
        if "error" in r:
            table.add_row(r["workload"], r["candidate"], str(r["threads"]), r["error"][:60], *[""] * 7)
            continue
        fmt = lambda key, spec, r=r: "" if r.get(key) is None else format(r[key], spec)  # noqa: E731
        table.add_row(
            r["workload"],
            r["candidate"],
            str(r["threads"]),
            f"{r['n_examples']:,}",
            fmt("seconds", ",.1f"),
            fmt("us_per_example", ",.0f"),
            fmt("peak_rss_mib", ",.0f"),
            fmt("pool_mib", ",.0f"),
            fmt("enforcements", "d"),
            fmt("quality", ".4f"),
            fmt("cumulative", ".4f"),
        )
    Console(width=200).print(table)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "scaling.csv", index=False)
    print(f"wrote {out / 'scaling.csv'}")


if __name__ == "__main__":
    main()
