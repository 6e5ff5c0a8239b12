"""A sweep's fixed cost per job and its cost per done grid point, for one or more code trees.

    python benchmarks/sweep_overhead.py --tree before=/tmp/old-checkout --tree after=. --rounds 2 -- \
        dataset=balance,car algorithm=adaboost_olm,online_boosting "seed=range(0,25)" n_learners=10 -j 1

Each round runs, for each tree in turn (interleaved, so both see the same machine), the sweep into
an empty store, then the same sweep again (every point done). A tree is a checkout whose
``boostbench`` package comes first on ``sys.path`` (the sweep runs in it, with it on ``PYTHONPATH``
for the workers; this venv's packages serve all trees, and each tree keeps its own numba cache, so
warm it first). Printed per sweep: wall seconds, CPU seconds of
the sweep and all its workers (``RUSAGE_CHILDREN``), the runs' own CPU (the records' ``cpu_s``),
their compilation and cache fills (``compile_s`` + ``cache_fill_s``: wall seconds, the warm-up
pass included), the CPU per job outside the runs' passes, and without those: the fixed cost.

``--start "dataset=balance algorithm=adaboost_olm seed=0 n_learners=10"`` (one point of the grid)
also times the command's start: that point's sweep, done, in the same store; a done grid's cost
per point beyond it is ``(done grid's CPU - start's CPU) / (points - 1)``.

``--store DIR`` (a store in which the grid is done, e.g. by an earlier run; a copy is used per
tree) skips the fresh sweep: the done grid and the start are timed alone, quickly enough to be
interleaved over several rounds on a loaded machine. ``--no-launch`` times what a sweep does
before its first job starts (count, compose, validate, look up each point) over an empty store,
with a launcher that launches nothing:

    python benchmarks/sweep_overhead.py --tree before=/tmp/old --tree after=. --rounds 2 --no-launch -- \
        +experiment=stream_benchmark "seed=range(0,1)"
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def runs_seconds(results_dir: Path) -> tuple[int, float, float]:
    """``(records, their summed cpu_s, their summed compile_s + cache_fill_s)`` of a store (the
    last two are wall seconds: on a loaded machine they overstate the CPU).
    """
    cpu, prepared, n = 0.0, 0.0, 0
    for path in (results_dir / "runs").glob("*.json"):
        metrics = json.loads(path.read_text())["metrics"]
        cpu += metrics.get("cpu_s", metrics["runtime_s"])
        prepared += metrics.get("compile_s", 0.0) + metrics.get("cache_fill_s", 0.0)
        n += 1
    return n, cpu, prepared


def timed(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """``(wall s, CPU s of the command and its descendants, exit code)``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    code = subprocess.call(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, code


#: A sweep whose launcher launches nothing (each point to run is reported n/a): the sweeper's own work
NO_LAUNCH = """
import sys, types
import boostbench.runner.sweep as sweep

class Nothing:
    def launch(self, job_overrides, initial_job_idx):
        outcome = sweep.JobOutcome("n/a", "", "not launched", 0.0)
        return [types.SimpleNamespace(return_value=outcome) for _ in job_overrides]

real = sweep.sweep_grid
sweep.sweep_grid = lambda config, loader, launcher, *args, **kwargs: real(config, loader, Nothing(), *args, **kwargs)
outcomes = sweep.run_sweep(sys.argv[1:], n_jobs=1)
print(sweep.summarize(outcomes), file=sys.stderr)
"""


def no_launch(trees: dict[str, str], rounds: int, overrides: list[str]) -> None:
    """Time each tree's sweep up to its launch (:data:`NO_LAUNCH`), interleaved, into empty stores."""
    print(f"{'tree':<8} {'points':>6} {'wall s':>7} {'CPU s':>7} {'CPU ms/point':>12}")
    for _ in range(rounds):
        for name, checkout in trees.items():
            checkout = str(Path(checkout).resolve())
            env = {**os.environ, "PYTHONPATH": checkout}
            store = Path(tempfile.mkdtemp(prefix=f"sweep-overhead-{name}-"))
            command = [sys.executable, "-c", NO_LAUNCH, *overrides, f"results_dir={store}"]
            try:
                began = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                done = subprocess.run(command, env=env, cwd=checkout, capture_output=True, text=True)
                wall = time.perf_counter() - start
                ended = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = ended.ru_utime - began.ru_utime + ended.ru_stime - began.ru_stime
                counts = done.stderr.strip().splitlines()[-1:] if done.returncode == 0 else [f"exit {done.returncode}"]
                points = sum(int(n) for n in re.findall(r": (\d+)", counts[0])) if done.returncode == 0 else 0
                print(
                    f"{name:<8} {points:>6} {wall:>7.1f} {cpu:>7.1f} {1000 * cpu / max(points, 1):>12.1f}  {counts[0]}",
                    flush=True,
                )
            finally:
                shutil.rmtree(store, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, help="name=checkout (repeatable)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--start", help="overrides of one point of the grid: times the command's start")
    parser.add_argument("--store", help="a store with the grid done: time the done grid (and start) only")
    parser.add_argument("--no-launch", action="store_true", help="time the sweep up to its launch, empty store")
    parser.add_argument("overrides", nargs="+", help="the sweep's arguments (after --)")
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.tree)
    if args.no_launch:
        no_launch(trees, args.rounds, args.overrides)
        return
    print(
        f"{'tree':<8} {'sweep':<9} {'jobs':>5} {'wall s':>7} {'CPU s':>7} {'runs CPU s':>10} "
        f"{'compile+fill s':>14} {'ms/job':>7} {'fixed ms/job':>12}"
    )
    for _ in range(args.rounds):
        for name, checkout in trees.items():
            checkout = str(Path(checkout).resolve())  # python -m puts the working directory first
            env = {**os.environ, "PYTHONPATH": checkout}
            store = Path(tempfile.mkdtemp(prefix=f"sweep-overhead-{name}-"))
            if args.store:
                shutil.copytree(Path(args.store) / "runs", store / "runs")
            command = [sys.executable, "-m", "boostbench", "sweep", *args.overrides, f"results_dir={store}"]
            try:
                for sweep in ("all done",) if args.store else ("fresh", "all done"):
                    wall, cpu, code = timed(command, env, checkout)
                    n, own, prepared = runs_seconds(store)
                    if sweep == "all done":  # nothing ran: the records are the fresh sweep's
                        own = prepared = 0.0
                    print(
                        f"{name:<8} {sweep:<9} {n:>5} {wall:>7.1f} {cpu:>7.1f} {own:>10.1f} {prepared:>14.1f} "
                        f"{1000 * (cpu - own) / max(n, 1):>7.0f} {1000 * (cpu - own - prepared) / max(n, 1):>12.0f}"
                        + ("" if code == 0 else f"  (exit {code})"),
                        flush=True,
                    )
                if args.start:
                    one = [sys.executable, "-m", "boostbench", "sweep", *args.start.split(), f"results_dir={store}"]
                    start_wall, start_cpu, code = timed(one, env, checkout)
                    print(
                        f"{name:<8} {'start':<9} {1:>5} {start_wall:>7.1f} {start_cpu:>7.1f}   done grid beyond the "
                        f"start: {1000 * (cpu - start_cpu) / max(n - 1, 1):.1f} ms CPU, "
                        f"{1000 * (wall - start_wall) / max(n - 1, 1):.1f} ms wall a point"
                        + ("" if code == 0 else f"  (exit {code})"),
                        flush=True,
                    )
            finally:
                shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    main()
