"""A first run against a later one: ``boostbench run`` on an empty kernel cache, then again on the
cache it filled, for one or more code trees.

    python benchmarks/cold_start.py --tree before=/tmp/old-checkout --tree after=. --rounds 3
    python benchmarks/cold_start.py --tree here=. -- dataset=mice algorithm=online_mbbm

Each round runs, for each tree in turn (interleaved, so both see the same machine), the cold run
on a fresh ``BOOSTBENCH_CACHE`` and then the warm one. A tree is a checkout whose ``boostbench``
package comes first on ``PYTHONPATH``; this venv's packages serve all trees. Printed per tree and
round: the wall seconds of each whole command (Python's start, imports and the record included)
and their ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def timed_run(tree: str, cache: str, overrides: list[str]) -> float:
    """Wall seconds of ``boostbench run`` in ``tree`` with kernel cache ``cache``."""
    store = tempfile.mkdtemp(prefix="boostbench-cold-start-")
    env = {**os.environ, "BOOSTBENCH_CACHE": cache, "PYTHONPATH": os.path.abspath(tree)}
    env.pop("NUMBA_CACHE_DIR", None)
    command = [sys.executable, "-m", "boostbench", "run", *overrides, "progress=false", f"results_dir={store}"]
    began = time.perf_counter()
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - began
    shutil.rmtree(store)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", required=True, help="label=path of a checkout")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("overrides", nargs="*", help="the run's overrides (after --)")
    args = parser.parse_args()
    trees = [entry.split("=", 1) for entry in args.tree]
    for round_ in range(args.rounds):
        for label, path in trees:
            cache = tempfile.mkdtemp(prefix="boostbench-cold-cache-")
            try:
                cold = timed_run(path, cache, args.overrides)
                warm = timed_run(path, cache, args.overrides)
            finally:
                shutil.rmtree(cache)
            print(f"round {round_} {label}: cold {cold:.2f} s, warm {warm:.2f} s, {cold / warm:.1f}x", flush=True)


if __name__ == "__main__":
    main()
