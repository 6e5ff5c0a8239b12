"""Scaling of Adaboost.OLM on the compiled pool: stream length and number of learners.

A seeded river RandomRBF stream (5 classes, 10 numeric features) is generated in chunks, so the
stream itself takes no growing memory. Reports examples per second and resident memory
(current RSS from /proc, in MiB) along the way; writes a CSV and a PNG.

    python benchmarks/scaling.py --lengths 10000 100000 1000000 --learners 10 100 1000
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def rss_mib() -> float:
    """Current resident set size of this process in MiB (Linux /proc)."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * 4096 / 2**20


def chunks(n_examples: int, seed: int, size: int = 10_000):
    from river.datasets import synth

    generator = iter(synth.RandomRBF(seed_model=seed, seed_sample=seed, n_classes=5, n_features=10, n_centroids=50))
    left = n_examples
    while left > 0:
        m = min(size, left)
        X = np.empty((m, 10))
        y = np.empty(m, dtype=np.int64)
        for i in range(m):
            x, label = next(generator)
            X[i] = [x[j] for j in range(10)]
            y[i] = label
        left -= m
        yield X, y


def run(n_examples: int, n_learners: int, seed: int = 0, checkpoints: int = 10, max_nodes: int | None = None) -> dict:
    from omegaconf import OmegaConf

    from boostbench.boosters import AdaboostOLM
    from boostbench.boosters.adaboost_olm_kernels import warm_up as warm_olm
    from boostbench.learners import make_pool
    from boostbench.learners.compiled_pool import warm_up as warm_pool
    from boostbench.paths import CONFIG_DIR

    warm_pool()
    warm_olm()
    learner = OmegaConf.load(CONFIG_DIR / "learner" / "hoeffding_tree.yaml")
    learner.backend = "compiled"
    learner.max_nodes = max_nodes
    rng = np.random.default_rng(seed)
    booster = AdaboostOLM(make_pool(learner, n_learners, 5, [0] * 10, rng), 5, rng)
    every = max(1, n_examples // checkpoints)
    seen = hits = 0
    busy = 0.0
    trace = []
    for X, y in chunks(n_examples, seed):
        began = time.perf_counter()
        for x, label in zip(X, y):
            hits += booster.predict(x) == label
            booster.update(int(label))
            seen += 1
            if seen % every == 0:
                busy += time.perf_counter() - began
                trace.append((seen, rss_mib()))
                began = time.perf_counter()
        busy += time.perf_counter() - began
    return {"n_examples": n_examples, "n_learners": n_learners, "seconds": busy,
            "examples_per_s": n_examples / busy, "us_per_example": 1e6 * busy / n_examples,
            "accuracy": hits / n_examples, "rss_start_mib": trace[0][1], "rss_end_mib": trace[-1][1],
            "nodes": booster.pool.n_nodes, "trace": trace}


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--learners", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--fixed-learners", type=int, default=100)
    parser.add_argument("--fixed-length", type=int, default=10_000)
    parser.add_argument("--max-nodes", type=int, default=None, help="node budget per tree (flat memory)")
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    results = [run(n, args.fixed_learners, max_nodes=args.max_nodes) for n in args.lengths]
    results += [run(args.fixed_length, m, max_nodes=args.max_nodes) for m in args.learners
                if m != args.fixed_learners or args.fixed_length not in args.lengths]
    budget = f", at most {args.max_nodes:,} nodes per tree" if args.max_nodes else ""
    table = Table(title=f"Adaboost.OLM, compiled pool, RandomRBF (5 classes, 10 features){budget}, one core")
    for column in ("examples", "learners", "seconds", "examples/s", "µs/example", "accuracy", "RSS start→end MiB", "tree nodes"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(f"{r['n_examples']:,}", str(r["n_learners"]), f"{r['seconds']:.1f}", f"{r['examples_per_s']:,.0f}",
                      f"{r['us_per_example']:,.0f}", f"{r['accuracy']:.3f}",
                      f"{r['rss_start_mib']:.0f}→{r['rss_end_mib']:.0f}", f"{r['nodes']:,}")
    Console(width=150).print(table)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([{k: v for k, v in r.items() if k != "trace"} for r in results]).to_csv(out / "scaling.csv", index=False)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    longest = max(results[: len(args.lengths)], key=lambda r: r["n_examples"])
    xs, rss = zip(*longest["trace"])
    axes[0].plot(xs, rss, marker="o")
    axes[0].set_xlabel("examples seen")
    axes[0].set_ylabel("RSS (MiB)")
    axes[0].set_title(f"memory along a {longest['n_examples']:,}-example stream")
    by_n = [r for r in results if r["n_examples"] == args.fixed_length]
    axes[1].loglog([r["n_learners"] for r in by_n], [r["us_per_example"] for r in by_n], marker="o")
    axes[1].set_xlabel("learners N")
    axes[1].set_ylabel("µs per example")
    axes[1].set_title(f"cost against N ({args.fixed_length:,} examples)")
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=110)
    print(f"wrote {out / 'scaling.csv'} and {out / 'scaling.png'}")


if __name__ == "__main__":
    main()
