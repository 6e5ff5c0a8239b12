"""Screened split attempts (issue 15): merit bounds hold river's merits, and screening changes no tree."""

import numpy as np
import pytest

from boostbench.config import compose_config
from boostbench.data.registry import load_dataset
from boostbench.learners import merit_bounds as B
from boostbench.learners import vfdt_kernels as K
from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
from boostbench.learners.pool import HoeffdingTreeParams


def _estimators(rng, k, n_per_class, share_zero_sigma=0.0):
    """``(k, 5)`` per-class Gaussian estimators built by the training kernel's own updates."""
    stats = np.zeros((k, K.NUMERIC_COLUMNS))
    for c in range(k):
        values = rng.normal(rng.normal(0, 2), rng.uniform(0.05, 2), size=rng.integers(1, n_per_class))
        if rng.random() < share_zero_sigma:
            values[:] = values[0]
        for value in values:
            st, w = stats[c], rng.exponential(5.0)
            st[3] = value if st[0] == 0 else min(st[3], value)
            st[4] = value if st[0] == 0 else max(st[4], value)
            old_mean = st[1]
            st[0] += w
            st[1] += w / st[0] * (value - old_mean)
            st[2] += w * (value - old_mean) * (value - st[1])
    return stats


def _exact(stats):
    """River's best merit for the attribute (the unscreened kernel), and its leaf's entropy."""
    k = len(stats)
    weights = stats[:, 0]
    order = np.arange(k)
    pre, _ = K._entropy_in_order(weights, order, k)
    points = np.zeros(K.N_SPLIT_POINTS)
    n_points = K._thresholds(stats, points)
    merit, _, _ = K._numeric_best(stats, points, n_points, order, k, pre, np.zeros(2), np.zeros(2),
                                  np.zeros(k), np.zeros(k), 0.5)
    return merit, pre, points, n_points


@pytest.mark.parametrize("k", [2, 5, 26])
def test_bounds_hold_rivers_merit(k):
    rng = np.random.default_rng(k)
    widths = []
    for _ in range(300):
        stats = _estimators(rng, k, 6, share_zero_sigma=0.2)  # some classes all at one value
        merit, pre, points, n_points = _exact(stats)
        low, high = B.numeric_merit_bounds(stats, points, n_points, pre, np.zeros((5, k)))
        assert low <= merit <= high or (merit == low == high == -np.inf)
        if np.isfinite(high) and np.isfinite(low):
            widths.append(high - low)
    assert widths and max(widths) <= 2 * B.MERIT_SLACK + 1e-12  # tight: the interval is the slack
    assert B.MERIT_SLACK < 1e-5


def test_unbounded_where_rivers_cdf_is_nan():
    """A class with zero deviation exactly at a threshold goes to neither side in river: no bound."""
    stats = np.zeros((2, K.NUMERIC_COLUMNS))
    stats[0, :5] = [0.5, 1.0, 0.0, 0.0, 2.0]  # weight 0.5: variance 0 although min < max
    stats[1, :5] = [3.0, 3.0, 1.0, 2.5, 3.5]
    points = np.array([1.0])
    assert B.numeric_merit_bounds(stats, points, 1, 0.6, np.zeros((5, 2))) == (-np.inf, np.inf)


def _twin_pools(n_trees, n_classes, n_categories, seed):
    cfg = compose_config([])  # the paper's tree parameters: delta, tau, grace drawn per tree
    p = HoeffdingTreeParams.draw(n_trees, np.random.default_rng(seed), cfg.learner)
    return [CompiledHoeffdingTreePool(p, n_classes, n_categories, screen_splits=screen) for screen in (True, False)]


def _assert_same_trees(screened, reference):
    assert screened.n_nodes == reference.n_nodes
    for name in ("node_nav", "node_value", "node_stats", "node_last"):
        assert np.array_equal(getattr(screened, name)[:screened.n_nodes], getattr(reference, name)[:reference.n_nodes]), name


def _train_both(pools, X, y, rng, n_trees):
    for x, label in zip(X, y):
        weights = rng.exponential(size=n_trees) * 20 * (rng.random(n_trees) < 0.9)  # boosting-like
        for pool in pools:
            pool.learn(pool.prepare(x), int(label), weights)


def test_screening_changes_no_tree_on_isolet_shaped_data():
    cfg = compose_config(["dataset=isolet_like"])
    data = load_dataset(cfg.dataset)
    pools = _twin_pools(6, data.n_classes, data.n_categories, 0)
    order = np.random.default_rng(0).permutation(data.n_examples)[:120]
    _train_both(pools, data.X[order], data.y[order], np.random.default_rng(1), 6)
    _assert_same_trees(*pools)
    assert pools[0].n_nodes > 6 * 3  # the trees grew


def test_screening_changes_no_tree_when_attributes_tie():
    """Copies of an attribute tie to the bit: river takes the last of them, so must screening."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=(1500, 3))
    y = (base[:, 0] > 0).astype(int) + 2 * (base[:, 1] > 0.3) + (rng.random(1500) < 0.1)
    X = np.column_stack([base[:, 0], base[:, 0], base[:, 1], base[:, 1], base[:, 1], base[:, 2]])
    pools = _twin_pools(8, int(y.max()) + 1, np.zeros(X.shape[1], dtype=np.int64), 2)
    _train_both(pools, X, y, rng, 8)
    _assert_same_trees(*pools)
    assert pools[0].n_nodes > 8 * 5
