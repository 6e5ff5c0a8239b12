"""OnlineMBBM's cold cache, replayed: the cost matrices one run builds from an empty cache, built
again in one process with nothing else running (the measure behind the potentials' disk cache).

    python benchmarks/mbbm_fill.py --dataset mice --save /tmp/before.npz    # on the old code
    python benchmarks/mbbm_fill.py --dataset mice --compare /tmp/before.npz # on the new: equal?

A run of the runner (empty disk cache) records the ``(n, votes)`` of every cost matrix it builds;
each repeat then builds them all in order with a fresh memo and fresh tables, and prints its
seconds, then a pass whose potentials are all memoised (the builder's own cost). ``--save``
writes the matrices; ``--compare`` checks them against a saved set, to the bit, and exits 1 if
they differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np


def record_builds(dataset: str, n_learners: int, gamma: float, seed: int) -> tuple[list, float, tuple]:
    """The ``(n, sorted votes)`` of every matrix one run builds from an empty cache, the run's
    ``cache_fill_s`` (seconds) and the potentials' ``(k, gamma, max_n)``."""
    from boostbench.boosters import online_mbbm
    from boostbench.runner.config import compose_config
    from boostbench.runner.experiment import run_experiment

    builds, shape = [], []
    build = online_mbbm.cost_matrix_compiled

    def recording(n, votes, memo, base, per_word, tables):
        builds.append((int(n), np.array(votes, dtype=np.int64)))
        if not shape:
            shape.append((len(votes), tables.fits.shape[1] - 1))
        return build(n, votes, memo, base, per_word, tables)

    with tempfile.TemporaryDirectory(prefix="boostbench-cold-cache-") as empty:
        os.environ["BOOSTBENCH_CACHE"] = empty
        online_mbbm.cost_matrix_compiled = recording
        try:
            cfg = compose_config(
                [
                    f"dataset={dataset}",
                    "algorithm=online_mbbm",
                    f"n_learners={n_learners}",
                    f"gamma={gamma}",
                    f"seed={seed}",
                    "n_threads=1",
                ]
            )
            metrics = run_experiment(cfg)["metrics"]
        finally:
            online_mbbm.cost_matrix_compiled = build
    k, max_n = shape[0] if shape else (0, 0)
    return builds, metrics["cache_fill_s"], (k, gamma, max_n)


def replay(builds: list, k: int, gamma: float, max_n: int) -> tuple[float, list, int, float]:
    """Build ``builds`` with a fresh memo and tables: ``(seconds, matrices, values computed,
    seconds of a second pass over the filled memo)``."""
    from numba import types
    from numba.typed import Dict

    from boostbench.core.potentials import cost_matrix_compiled, potential_tables
    from boostbench.core.wide_keys import KEY_TYPE, digits_per_word

    memo = Dict.empty(key_type=KEY_TYPE, value_type=types.float64)
    tables = potential_tables(k, gamma, max_n)
    base = 2 * max_n + 2  # as Potential01 keys its memo
    per_word = digits_per_word(base)
    began = time.perf_counter()
    matrices = [cost_matrix_compiled(n, votes, memo, base, per_word, tables) for n, votes in builds]
    seconds = time.perf_counter() - began
    began = time.perf_counter()
    for n, votes in builds:
        cost_matrix_compiled(n, votes, memo, base, per_word, tables)
    return seconds, matrices, len(memo), time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="mice")
    parser.add_argument("--n-learners", type=int, default=100)
    parser.add_argument("--gamma", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--save", help="write the matrices (npz) here")
    parser.add_argument("--compare", help="check the matrices against those saved here")
    args = parser.parse_args()

    builds, fill_s, shape = record_builds(args.dataset, args.n_learners, args.gamma, args.seed)
    if not builds:
        print(f"{args.dataset}: the run built no cost matrix in the compiled builder")
        return 1
    k, gamma, max_n = shape
    print(
        f"{args.dataset}: k = {k}, N = {args.n_learners}, gamma = {gamma}: {len(builds):,} matrices, "
        f"in-run fill {fill_s:.3f} s"
    )
    replay([builds[0]], k, gamma, max_n)  # compiled (or loaded) before timing
    for _ in range(args.repeats):
        seconds, matrices, n_values, memoised_s = replay(builds, k, gamma, max_n)
        print(f"replay {seconds:.3f} s ({n_values:,} potentials), all memoised {memoised_s:.3f} s")
    D = np.stack([m[0] for m in matrices])
    w = np.stack([m[1] for m in matrices])
    if args.save:
        np.savez(args.save, D=D, w=w)
    if args.compare:
        saved = np.load(args.compare)
        if saved["D"].shape != D.shape:
            print(f"{args.compare}: {saved['D'].shape[0]:,} matrices, this run built {D.shape[0]:,}")
            return 1
        same = np.array_equal(saved["D"], D) and np.array_equal(saved["w"], w)
        print(
            f"against {args.compare}: {'equal to the bit' if same else 'DIFFERENT'} "
            f"(max |D - saved| {np.abs(saved['D'] - D).max():.3g})"
        )
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
