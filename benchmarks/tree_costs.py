"""Where a compiled pool's time goes per example: routing, statistics update, split
attempts, splits and prediction, against a memory-traffic floor.

Runs Adaboost.OLM through the runner (paper's trees), records every example with the training
weights the booster gave each tree, then replays that stream on copies of the run's empty pool,
timing each part in its own kernel call (the library is not instrumented):

- prediction: ``predict_all`` (the walk down every tree and the leaves' distributions);
- routing: the walk alone, one tree after another (``find_leaf``, the walk training takes when
  prediction has not routed the example), timed in a replay of its own in prediction's place, so
  that both read the trees first after the last training. Prediction walks the trees side by
  side, a level of every tree at a time, so that their chains of loads overlap: its own walk
  costs less than this one, which may exceed the whole prediction;
- training: ``learn_all`` on the pool (statistics update, split attempts, splits);
- split attempts that kept the leaf: ``best_split`` again, right after training, for every leaf
  whose attempt kept it, on the statistics and screen cache it saw (with the cache, the slot's
  cache as it was before the example, and the example added again by the pool's own update: the
  same work, warm);
- the rest of training: the statistics update, the attempts that reset or split their leaf
  (they leave no leaf to time again, and cost unlike those kept: on ISOLET-shaped data most
  resets are of leaves holding one example, which an attempt passes at a glance), the resets
  and the splits.

The attempts are timed twice, screened (the pool's default) and unscreened (every attribute
evaluated exactly, nominal ones included). The floor
is the cache lines each part must touch, times the cost of touching a random line of an array
as large as the pool (measured here).

    python benchmarks/tree_costs.py --dataset car --n-learners 100
    python benchmarks/tree_costs.py --dataset movement_like --max-examples 5000
"""

from __future__ import annotations

import argparse
import pickle
import time

import numpy as np

from boostbench.learners.vfdt import layout
from boostbench.learners.vfdt.layout import GRACE, Forest, node_weight
from boostbench.learners.vfdt.routing import DIRECT, leaf_for, predict_all
from boostbench.learners.vfdt.split import KEEP, RESET, SPLIT, best_split
from boostbench.learners.vfdt.training import _add_to_statistics, _split_arguments, learn_all
from boostbench.system.kernel_cache import kernel

LINE = 64  # bytes of a cache line


@kernel
def _route_all(x, out, trees):  # pragma: no cover - compiled
    """The leaf every tree sends ``x`` to (the walk predict_all and training share); ``out`` as
    predict_all's, untouched."""
    F = Forest(*trees)
    found = 0
    for tree in range(F.root.shape[0]):
        leaf, _, _ = leaf_for(F, tree, x)
        found += leaf
    return found


@kernel
def _attempts(leaves, weights, grace, trees):  # pragma: no cover - compiled
    """Decide the split attempt of every tree's leaf ``leaves[tree]`` (-1: none) that is due
    (``grace``: the trees' real grace periods); returns how many."""
    F = Forest(*trees)
    n = 0
    for tree in range(leaves.shape[0]):
        leaf = leaves[tree]
        if weights[tree] <= 0.0 or leaf < 0 or not F.node_active[leaf]:
            continue
        total = node_weight(leaf, F.node_stats, F.node_classes)
        if total - F.node_last[leaf] < grace[tree, GRACE]:
            continue
        slot = F.node_slot[leaf]
        best_split(*_split_arguments(F, tree, leaf, slot, 0, total))
        n += 1
    return n


@kernel
def _add_again(leaves, x, y, weights, trees):  # pragma: no cover - compiled
    """Add ``(x, y)`` to the statistics of every tree's leaf ``leaves[tree]`` (-1: none) as training
    does, weight and screen cache alike."""
    F = Forest(*trees)
    for tree in range(leaves.shape[0]):
        leaf = leaves[tree]
        if leaf >= 0:
            _add_to_statistics(F, tree, F.node_slot[leaf], x, y, weights[tree] * F.weight_scale[tree], 0)


SLOT_STATE = ("screen_state", "screen_sums", "screen_grid", "screen_base")  # a slot's screen cache


@kernel
def _touch(array, lines, stride):  # pragma: no cover - compiled
    """Read one float of each cache line ``lines`` (indices into ``array``, ``stride`` floats a line)."""
    total = 0.0
    for i in range(lines.shape[0]):
        total += array[lines[i] * stride]
    return total


def line_cost(n_bytes: int) -> float:
    """Seconds to touch a random cache line of an array of ``n_bytes`` (independent loads)."""
    array = np.ones(max(n_bytes, 1 << 16) // 8)
    lines = np.random.default_rng(0).integers(0, len(array) // 8, size=1 << 20)
    _touch(array, lines[:10], 8)
    start = time.perf_counter()
    _touch(array, lines, 8)
    return (time.perf_counter() - start) / len(lines)


def record(dataset: str, n_learners: int, seed: int, max_examples: int | None = None):
    """Adaboost.OLM's run on ``dataset`` (its first ``max_examples``, or all): its empty pool and, per
    example, ``(x, y, weights)``."""
    from boostbench.boosters import adaboost_olm_kernels as K
    from boostbench.core.ogd import olm_step_size
    from boostbench.runner.config import compose_config
    from boostbench.runner.experiment import run_experiment

    stream, start = [], {}
    original = K.FusedStep.run

    def run(self, X, Y, U, t, bound, variant, hedge_eta, alpha, log_v, predicted):
        pool = self.pool
        if pool.n_learners != n_learners:  # the kernels' warm-up
            return original(self, X, Y, U, t, bound, variant, hedge_eta, alpha, log_v, predicted)
        if not start:
            start["pool"] = pickle.dumps(pool)
        for i in range(len(X)):
            predicted[i] = self.predict(X[i], alpha, log_v, U[i])
            K.weights_step(
                int(Y[i]), olm_step_size(t + i + 1, pool.n_classes), bound, variant, hedge_eta, alpha, log_v, self._step
            )
            stream.append((X[i].copy(), int(Y[i]), self.arrays.weights.copy()))
            pool.learn(X[i], int(Y[i]), self.arrays.weights)

    K.FusedStep.run = run  # this process only: the booster's loop, one example at a time, recorded
    prefix = [f"protocol.max_examples={max_examples}"] if max_examples else []
    cfg = compose_config(
        [
            f"dataset={dataset}",
            "algorithm=adaboost_olm",
            f"n_learners={n_learners}",
            f"seed={seed}",
            "n_threads=1",
            *prefix,
        ]
    )
    metrics = run_experiment(cfg)["metrics"]
    return start["pool"], stream, 1e6 * metrics["runtime_s"] / metrics["n_examples"]


def replay(pool_bytes: bytes, stream, screen: bool, walk_only: bool = False) -> dict:
    """Per-example seconds of each part (see the module docstring) on the recorded stream;
    ``walk_only`` times the walk alone where prediction runs (the "prediction" entry is then
    the walk's)."""
    pool = pickle.loads(pool_bytes)
    pool.work[:, layout.SETTINGS, layout.SCREEN] = float(screen)
    if not screen:
        pool.work[:, layout.SETTINGS, layout.CACHE] = 0.0
    cached = pool.work[0, layout.SETTINGS, layout.CACHE] > 0.0
    out = np.empty((pool.n_learners, pool.n_classes))
    always = np.full_like(pool.split_params, -np.inf)  # any leaf given is due
    parts = dict(prediction=0.0, kept=0.0, training=0.0, n_attempts=0, n_kept=0, n_reset=0, n_split=0, trained=0)
    clock = time.perf_counter
    for x, y, weights in stream:
        xp = pool.prepare(x)
        trees = pool.reserve()
        t1 = clock()
        if walk_only:
            _route_all(xp, out, trees)
        else:
            predict_all(xp, out, trees, False, pool.nb_leaves)
        t2 = clock()
        if walk_only:
            predict_all(xp, out, trees, False, pool.nb_leaves)  # untimed: training reads the routes it leaves
        direct = pool.route[:, layout.ROUTE_BRANCH] == DIRECT
        leaves = np.where(direct & (weights > 0), pool.route[:, layout.ROUTE_LEAF], -1)
        last = pool.node_last[leaves]
        if (
            cached and not walk_only
        ):  # what an attempt reads besides the statistics: the slot's cache before the example
            slots = pool.node_slot[leaves[leaves >= 0]]
            before = {name: getattr(pool, name)[slots].copy() for name in SLOT_STATE}
            before["numeric_stats"] = pool.numeric_stats[slots, y].copy()
            before["nominal_counts"] = pool.nominal_counts[slots, y].copy()
        t3 = clock()
        learn_all(xp, y, weights, trees, pool.nb_leaves)
        t4 = clock()
        parts["prediction"] += t2 - t1
        if walk_only:  # this replay times the walk alone
            continue
        attempted = (leaves >= 0) & (pool.node_last[leaves] != last)
        kept = np.where(attempted & (pool.pending[:, 0] == KEEP), leaves, -1)  # the leaf is as its attempt saw it
        if cached and (kept >= 0).any():  # back to before the example, which the pool's update adds again
            rows = np.isin(slots, pool.node_slot[kept[kept >= 0]])
            for name in SLOT_STATE:
                getattr(pool, name)[slots[rows]] = before[name][rows]
            pool.numeric_stats[slots[rows], y] = before["numeric_stats"][rows]
            pool.nominal_counts[slots[rows], y] = before["nominal_counts"][rows]
            _add_again(kept, xp, y, weights, trees)
        t5 = clock()
        parts["n_kept"] += _attempts(kept, weights, always, trees)
        decisions = np.bincount(pool.pending[attempted, 0], minlength=3)  # KEEP, RESET, SPLIT
        parts["n_reset"] += int(decisions[RESET])
        parts["n_split"] += int(decisions[SPLIT])
        t6 = clock()
        parts["training"] += t4 - t3
        parts["kept"] += t6 - t5
        parts["n_attempts"] += int(attempted.sum())
        parts["trained"] += int((weights > 0).sum())
    n = len(stream)
    parts = {key: value / n for key, value in parts.items()}
    parts["pool"] = pool
    return parts


def floor_lines(pool, trained: float, n_kept: float) -> dict:
    """Cache lines each part must touch per example, from the pool's shapes: a lower bound (the
    data each part reads or writes, once; not our caches, such as the kept terms)."""
    n = pool.n_nodes
    depth = float(np.mean(pool.node_depth[:n][pool.node_leaf[:n]])) + 1  # nodes on a path
    k = pool.n_classes
    walk = pool.n_learners * depth * max(1.0, (pool.node_nav.strides[0] + 8) / LINE)  # navigation row, value
    statistics = pool.nominal_counts[0].nbytes + pool.numeric_stats[0].nbytes  # one slot's
    attempt = statistics  # an attempt reads the leaf's every statistic, or with the screen's cache
    if pool.work[0, layout.SETTINGS, layout.CACHE] > 0.0:  # one class's (the one changed) and the cache
        attempt = statistics / k + sum(
            getattr(pool, name)[0].nbytes for name in ("screen_sums", "screen_grid", "screen_base")
        )
    return {
        "routing": walk,
        "prediction": walk + pool.n_learners * (2 + 8 * k / LINE),  # the leaf's weights and classes, the output row
        # the leaf's row, one class's statistics of every attribute (class first), its ranks
        "rest": trained * (2 + statistics / k / LINE + 1),
        "kept": n_kept * attempt / LINE,
    }


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="car")
    parser.add_argument("--n-learners", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-examples", type=int, help="the stream's first examples only (e.g. movement_like)")
    args = parser.parse_args()
    pool_bytes, stream, run_us = record(args.dataset, args.n_learners, args.seed, args.max_examples)
    empty = pickle.loads(pool_bytes)  # compile the script's kernels, and time a call that does nothing
    trees, none = empty.reserve(), np.full(empty.n_learners, -1)
    _route_all(empty.prepare(stream[0][0]), np.empty((empty.n_learners, empty.n_classes)), trees)
    _attempts(none, stream[0][2], empty.split_params, trees)
    start = time.perf_counter()
    for _ in range(2000):
        _attempts(none, stream[0][2], empty.split_params, trees)
    call = (time.perf_counter() - start) / 2000
    replay(pool_bytes, stream[:200], True)  # untimed: the first replay in a process reads slower throughout
    runs = {screen: replay(pool_bytes, stream, screen) for screen in (False, True)}
    runs[True]["routing"] = replay(pool_bytes, stream, True, walk_only=True)["prediction"]
    runs[False]["routing"] = np.nan  # the same trees: the walk does not depend on screening
    for r in runs.values():
        for part in ("prediction", "routing", "training", "kept"):
            r[part] = max(r[part] - call, 0.0)
        r["rest"] = r["training"] - r["kept"]
    screened = runs[True]
    per_line = line_cost(int(screened["pool"].size_bytes))
    floor = floor_lines(screened["pool"], screened["trained"], screened["n_kept"])
    table = Table(
        title=f"{args.dataset}, N = {args.n_learners}, Adaboost.OLM's stream (paper's trees), µs per example "
        f"(the run itself: {run_us:.1f}); {screened['n_attempts']:.1f} attempts "
        f"({screened['n_kept']:.1f} kept the leaf, {screened['n_reset']:.1f} reset it, "
        f"{screened['n_split']:.1f} split it) and {screened['trained']:.0f} trees trained per "
        f"example; a random cache line of the pool's size {1e9 * per_line:.1f} ns"
    )
    for column in ("part", "unscreened", "screened", "floor (lines × line)", "left above floor"):
        table.add_column(column, justify="left" if column == "part" else "right")
    for part in ("prediction", "routing", "training", "kept", "rest"):
        before, after = (1e6 * runs[s][part] for s in (False, True))
        f = floor.get(part)
        fl = "" if f is None else f"{1e6 * f * per_line:.2f} ({f:.0f} lines)"
        left = "" if f is None else f"{after - 1e6 * f * per_line:.2f}"
        name = {
            "routing": "routing, one tree at a time",
            "kept": "split attempts that kept the leaf (within training)",
            "rest": "the rest of training: update, other attempts, resets, splits",
        }.get(part, part)
        table.add_row(name, "" if np.isnan(before) else f"{before:.2f}", f"{after:.2f}", fl, left)
    Console(width=200).print(table)
    print(f"a kernel call's own cost, taken off each part: {1e6 * call:.2f} µs")


if __name__ == "__main__":
    main()
