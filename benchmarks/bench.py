"""Speed benchmark: boostbench's boosters against river's and MOA's online boosting.

Every candidate runs in its own fresh process (so its peak RSS is its own) on the same seeded
stream, test-then-train; the pass is timed after loading data and compiling kernels. Each
candidate's figure is the median of its runs, taken in rounds (one run of every candidate in
turn), so that the shared machine's load falls on all alike. MOA runs at least
:data:`MOA_RUNS` times, each in its own JVM, and the other candidates as often (but the slow
river pool), in the same rounds. OnlineMBBM keeps its exact potentials and cost matrices on disk
between runs (they depend only on k, gamma and N): its row is timed with that cache filled by an
untimed run first, and a second row times it from an empty cache every time.

    python benchmarks/bench.py --dataset car --n-learners 100 --repeats 3
    python benchmarks/bench.py --dataset isolet_like --max-examples 500 --repeats 1   # a prefix

On multiclass data, Adaboost.OLM, Oza's boosting and OnlineMBBM also run with the trees river's
and MOA's peers use (their libraries' defaults, :data:`PEER_TREES`), with the peers' leaves
(naive Bayes adaptive, NBA) and with majority-class ones (MC), against river's AdaBoostClassifier
and MOA's OzaBoost with the same leaves (``leaf_prediction='mc'``, ``-l MC``): the equal-work rows.
The paper's trees do several times the work per example (car: 18 split attempts and 6 splits per
example over 100 trees). MOA is given the nominal attributes as nominal and timed twice in each
of its JVMs: a first pass (cold: its JIT compiles as it runs) and a second one over the same
stream (warm, as our kernels' compile is not timed). Each row names its leaves, the attributes'
types the trees see and, for MOA, the JVM's state. The equal-work ratios are given in wall time
and, where both sides ran through the runner (ours and river's), in CPU time of the process too:
on a loaded machine the waits fall out (MOA's JVM is timed by wall clock only).
"""

from __future__ import annotations

import argparse
import atexit
import json
import multiprocessing as mp
import resource
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np

MAX_EXAMPLES: int | None = None  # a prefix of every stream (--max-examples), None: whole


def _stream(dataset_name: str, seed: int):
    """The data set and the runner's stream order for ``seed`` (its prefix, with --max-examples)."""
    from boostbench.data import stream_order
    from boostbench.data.registry import load_dataset, registry_specs
    from boostbench.seeding import run_generators

    data = load_dataset(registry_specs()[dataset_name])
    order = stream_order(data.n_examples, run_generators(seed).stream, True)
    return data, order[:MAX_EXAMPLES]


#: The trees river's and MOA's peers run with (both libraries' Hoeffding-tree defaults: grace
#: period 200, split confidence 1e-7, tie threshold 0.05, no importance-weight constant), by their
#: leaves: the same work per tree as the peers' trees do, where the paper's draws (grace 5-20 in
#: units of weight, c_i up to 200) try to split on nearly every example.
PEER_TREES = {
    "NBA": ("learner=hoeffding_tree_defaults",),
    "MC": ("learner=hoeffding_tree_defaults", "learner.leaf_prediction=mc"),
}
#: river's ``leaf_prediction`` and MOA's ``-l`` for those leaves
RIVER_LEAVES = {"NBA": "nba", "MC": "mc"}
MOA_LEAVES = {"NBA": "NBAdaptive", "MC": "MC"}


def _boostbench(dataset_name, algorithm, backend, n_learners, seed, cache_dir=None, overrides=()):
    """One timed run; ``cache_dir`` is the disk cache to use (None: an empty one, removed after);
    ``overrides``: more Hydra overrides (e.g. :data:`PEER_TREES`)."""
    import os

    from boostbench.runner.config import compose_config
    from boostbench.runner.experiment import run_experiment

    with tempfile.TemporaryDirectory(prefix="boostbench-cold-cache-") as empty:
        os.environ["BOOSTBENCH_CACHE"] = cache_dir or empty
        cfg = compose_config(
            [
                f"dataset={dataset_name}",
                f"algorithm={algorithm}",
                f"learner.backend={backend}",
                f"n_learners={n_learners}",
                f"seed={seed}",
                *(["gamma=0.1"] if algorithm == "online_mbbm" else []),  # the others have no gamma
                "n_threads=1",
                *([f"protocol.max_examples={MAX_EXAMPLES}"] if MAX_EXAMPLES else []),
                *overrides,
            ]
        )
        m = run_experiment(cfg)["metrics"]
    quality = m.get("final_accuracy", m.get("test_rank_loss"))
    # the pass with the caches' fill: an empty cache's row shows what a cold start costs
    us = 1e6 * (m["runtime_s"] + m.get("cache_fill_s", 0.0)) / m["n_examples"]
    cpu_us = 1e6 * m["cpu_s"] / m["n_examples"]  # the pass's own CPU (a cache fill's left out)
    return {"us_per_example": us, "cpu_us_per_example": cpu_us, "quality": quality, "compile_s": m["compile_s"]}


def _moa_python() -> Path:
    """capymoa's Python (:func:`~boostbench.boosters.peers.moa_peers.moa_python`: this one,
    ``$BOOSTBENCH_MOA_PYTHON`` or the checkout's .venv-moa); a path that does not exist if none."""
    from boostbench.boosters.peers.moa_peers import moa_python

    try:
        return Path(moa_python())
    except ValueError:
        return Path(__file__).resolve().parent.parent / ".venv-moa" / "bin" / "python"


MOA_PYTHON = _moa_python()


def _capymoa_ozaboost(dataset_name, n_learners, seed, leaves="NBA"):
    """MOA's OzaBoost in the separate .venv-moa (``make bench-moa-setup``), on the same stream, its
    trees with ``leaves`` (:data:`MOA_LEAVES`), the attributes' types declared; timed cold and warm
    (``us_per_example``, ``cold_us_per_example``: benchmarks/moa_ozaboost.py)."""
    data, order = _stream(dataset_name, seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stream.npz"
        np.savez(path, X=data.X[order], y=data.y[order], n_categories=np.asarray(data.n_categories))
        out = subprocess.run(
            [
                str(MOA_PYTHON),
                str(Path(__file__).with_name("moa_ozaboost.py")),
                "--data",
                str(path),
                "--n-learners",
                str(n_learners),
                "--seed",
                str(seed),
                "--leaves",
                MOA_LEAVES[leaves],
                "--warm",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _worker(queue, kind, args, max_examples):
    global MAX_EXAMPLES
    MAX_EXAMPLES = max_examples
    try:
        result = {"boostbench": _boostbench, "capymoa": _capymoa_ozaboost}[kind](*args)
        result.setdefault("peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        queue.put(result)
    except Exception as exc:  # report, do not crash the benchmark
        queue.put({"error": f"{type(exc).__name__}: {exc}"})


def _result_of(process, queue) -> dict:
    """The worker's result; an error if it died without one (a crash, not an exception)."""
    import queue as queues

    while True:
        try:
            return queue.get(timeout=5)
        except queues.Empty:
            if not process.is_alive():
                return {"error": f"the worker process died (exit code {process.exitcode})"}


def run_once(kind: str, args: tuple) -> dict:
    """One run of a candidate in a fresh process (MOA's: in a JVM of its own, started by it)."""
    context = mp.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_worker, args=(queue, kind, args, MAX_EXAMPLES))
    process.start()
    result = _result_of(process, queue)
    process.join()
    return result


#: MOA's time moves by half from one JVM to the next: it is timed as the median of at least this
#: many runs, each in its own JVM, taken in turn with the other candidates' runs
MOA_RUNS = 5


def measure_in_rounds(candidates: list[tuple]) -> list[dict]:
    """Each candidate's median over its runs (``candidates``: (row, worker, arguments, warm-up,
    runs wanted)). The runs are taken in rounds, one of each candidate still short of its runs
    per round, so that the machine's load in a stretch of time falls on every candidate alike; a
    candidate with ``warm-up`` has one untimed run first (a disk cache to fill). A candidate
    whose run fails keeps that error as its result.

    Returns:
        Per candidate, the medians of the runs' figures, with ``runs`` (µs per example, each run).
    """
    runs: list[list[dict]] = [[] for _ in candidates]
    failed: list[dict | None] = [None] * len(candidates)
    for i, (_, kind, args, warm_up, _) in enumerate(candidates):
        if warm_up:
            result = run_once(kind, args)
            failed[i] = result if "error" in result else None
    for _ in range(max(wanted for *_, wanted in candidates)):
        for i, (_, kind, args, _, wanted) in enumerate(candidates):
            if failed[i] is None and len(runs[i]) < wanted:
                result = run_once(kind, args)
                if "error" in result:
                    failed[i] = result
                else:
                    runs[i].append(result)
    out = []
    for i, results in enumerate(runs):
        if failed[i] is not None:
            out.append(failed[i])
            continue
        median = {key: statistics.median(r[key] for r in results) for key in results[0]}
        out.append({**median, "runs": [r["us_per_example"] for r in results]})
    return out


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="car")
    parser.add_argument("--n-learners", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-river-pool", action="store_true", help="skip boostbench on the river pool (slow)")
    parser.add_argument("--max-examples", type=int, help="a prefix of the stream (the same for every candidate)")
    parser.add_argument("--algorithms", nargs="+", help="boostbench's algorithms (default: the paper's online ones)")
    parser.add_argument("--save", type=Path, help="also write the rows' medians and runs to this JSON file")
    args = parser.parse_args()
    global MAX_EXAMPLES
    MAX_EXAMPLES = args.max_examples
    n, seed, ds = args.n_learners, args.seed, args.dataset
    multilabel = ds in ("emotions", "scene", "yeast", "mediamill_reduced", "mediamill_like")
    algorithms = args.algorithms or (
        ["ada_olmr", "online_bmr"] if multilabel else ["adaboost_olm", "online_boosting", "online_mbbm"]
    )
    cache = tempfile.mkdtemp(prefix="boostbench-bench-cache-")  # this benchmark's own disk cache
    atexit.register(shutil.rmtree, cache, ignore_errors=True)
    # (row, worker, its arguments, whether an untimed run fills the disk cache first, runs); with
    # MOA, every candidate but the slow river pool runs as often as MOA, in the same rounds
    moa = not multilabel and MOA_PYTHON.exists()
    runs = max(args.repeats, MOA_RUNS) if moa else args.repeats
    candidates = [
        (f"boostbench {a} (compiled pool)", "boostbench", (ds, a, "compiled", n, seed, cache), a == "online_mbbm", runs)
        for a in algorithms
    ]
    if "online_mbbm" in algorithms:
        candidates.append(
            (
                "boostbench online_mbbm (compiled pool, empty cache)",
                "boostbench",
                (ds, "online_mbbm", "compiled", n, seed),
                False,
                runs,
            )
        )
    if not args.skip_river_pool:
        candidates.append(
            (
                f"boostbench {algorithms[0]} (river pool)",
                "boostbench",
                (ds, algorithms[0], "river", n, seed, cache),
                False,
                args.repeats,
            )
        )
    if not multilabel:
        # the equal-work rows, by leaves: ours with the peers' trees, river's AdaBoostClassifier
        # through the runner (algorithm river_adaboost: the same stream and timing), MOA's OzaBoost
        types = _attribute_types(ds)
        for leaves, overrides in PEER_TREES.items():
            candidates += [
                (
                    f"boostbench {a} (compiled pool, the peers' trees) [{leaves}, {types}]",
                    "boostbench",
                    (ds, a, "compiled", n, seed, cache, overrides),
                    a == "online_mbbm",
                    runs,
                )
                for a in algorithms
                if a in ("adaboost_olm", "online_boosting", "online_mbbm")
            ]
            river_leaves = (f"algorithm.leaf_prediction={RIVER_LEAVES[leaves]}",)
            candidates.append(
                (
                    f"river AdaBoostClassifier(HoeffdingTree, {n}) [{leaves}, {types}]",
                    "boostbench",
                    (ds, "river_adaboost", "compiled", n, seed, cache, river_leaves),
                    False,
                    runs,
                )
            )
            if moa:
                candidates.append(
                    (
                        f"MOA OzaBoost({n}), capymoa, MOA's Java loop (cumulative acc.) [{leaves}, {types}, {WARM}]",
                        "capymoa",
                        (ds, n, seed, leaves),
                        False,
                        runs,
                    )
                )
    rows = list(zip((c[0] for c in candidates), measure_in_rounds(candidates)))
    if args.save:
        args.save.write_text(json.dumps(dict(rows), indent=1))
    reference = rows[0][1]["us_per_example"]
    prefix = f", first {args.max_examples:,} examples" if args.max_examples else ""
    river_pool = f" (river pool: {args.repeats})" if not args.skip_river_pool and runs != args.repeats else ""
    table = Table(title=f"{ds}{prefix}, N = {n}, one core, median of {runs} runs taken in rounds{river_pool}")
    for column in (
        "candidate",
        "µs / example",
        "× boostbench",
        "peak RSS MiB",
        "final-20% accuracy" if not multilabel else "test rank loss",
        "compile s",
        "each run, µs / example",
    ):
        table.add_column(column, justify="right" if column != "candidate" else "left")
    rows = _with_cold_rows(rows)
    for name, r in rows:
        if "error" in r:
            table.add_row(name, r["error"], "", "", "", "", "")
            continue
        table.add_row(
            name,
            f"{r['us_per_example']:,.0f}",
            f"{r['us_per_example'] / reference:.1f}",
            f"{r['peak_rss_mib']:,.0f}",
            f"{r['quality']:.4f}",
            f"{r['compile_s']:.1f}",
            " ".join(f"{us:,.0f}" for us in r["runs"]),
        )
    console = Console(width=240)
    console.print(table)
    _print_equal_work(console, rows)


WARM, COLD = "warm JVM", "cold JVM"  # MOA's rows: its second pass in the JVM, and its first


def _attribute_types(dataset_name: str) -> str:
    """The attributes' types as the trees see them: nominal, numeric, or how many of each."""
    from boostbench.data.registry import load_dataset, registry_specs

    kinds = load_dataset(registry_specs()[dataset_name]).nominal
    nominal, d = int(np.sum(kinds)), len(kinds)
    return "nominal" if nominal == d else "numeric" if nominal == 0 else f"{nominal} nominal, {d - nominal} numeric"


def _with_cold_rows(rows: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """Each warm MOA row followed by its cold twin (the medians of the same JVMs' first passes)."""
    out = []
    for name, r in rows:
        out.append((name, r))
        if "cold_us_per_example" in r:
            out.append((name.replace(WARM, COLD), {**r, "us_per_example": r["cold_us_per_example"], "runs": []}))
    return out


def _print_equal_work(console, rows: list[tuple[str, dict]]) -> None:
    """Per leaves, the peers' medians over Oza's boosting with the peers' trees and the same leaves
    (the same work per tree), and our NBA leaves' cost over our MC ones; where both sides ran
    through the runner (not MOA's JVM), also in CPU time of the process (a loaded machine's
    waits left out)."""
    figures = {name: r["us_per_example"] for name, r in rows if "error" not in r}
    cpu = {name: r["cpu_us_per_example"] for name, r in rows if "cpu_us_per_example" in r}
    ours, ours_cpu = {}, {}
    for leaves in PEER_TREES:
        mine = [
            us
            for name, us in figures.items()
            if name.startswith("boostbench online_boosting") and f"[{leaves}," in name
        ]
        if not mine:
            continue
        mine_cpu = [
            cpu.get(name) for name in figures if name.startswith("boostbench online_boosting") and f"[{leaves}," in name
        ]
        ours[leaves] = mine[0]
        if mine_cpu[0] is not None:
            ours_cpu[leaves] = mine_cpu[0]
        for name, us in figures.items():
            for peer in ("river AdaBoostClassifier", "MOA OzaBoost"):
                if name.startswith(peer) and f"[{leaves}," in name:
                    state = f", {WARM}" if WARM in name else f", {COLD}" if COLD in name else ""
                    console.print(
                        f"equal work, {leaves} leaves: {peer}{state} / Oza with the peers' trees = "
                        f"{us / mine[0]:,.1f}x ({us:,.0f} / {mine[0]:,.1f} µs per example)"
                    )
                    if name in cpu and mine_cpu[0] is not None:
                        console.print(
                            f"  in CPU time: {cpu[name] / mine_cpu[0]:,.1f}x "
                            f"({cpu[name]:,.0f} / {mine_cpu[0]:,.1f} µs of CPU per example)"
                        )
    if len(ours) == 2:
        console.print(f"ours, NBA / MC leaves: {ours['NBA'] / ours['MC']:.2f}x")
    if len(ours_cpu) == 2:
        console.print(f"  in CPU time: {ours_cpu['NBA'] / ours_cpu['MC']:.2f}x")


if __name__ == "__main__":
    main()
