"""Screened split attempts: merit bounds hold river's merits, and screening changes no tree."""

import numpy as np
import pytest
from conftest import learner_file

from boostbench.data.registry import load_dataset
from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
from boostbench.learners.pool import HoeffdingTreeParams
from boostbench.learners.vfdt import layout, merits, split
from boostbench.learners.vfdt import merit_bounds as B
from boostbench.runner.config import compose_config


def _learn(st, value, w):
    """The training kernel's update of one class's Gaussian estimator ``st``."""
    st[3] = value if st[0] == 0 else min(st[3], value)
    st[4] = value if st[0] == 0 else max(st[4], value)
    old_mean = st[1]
    st[0] += w
    st[1] += w / st[0] * (value - old_mean)
    st[2] += w * (value - old_mean) * (value - st[1])


def _estimators(rng, k, n_per_class, share_zero_sigma=0.0):
    """``(k, 5)`` per-class Gaussian estimators built by the training kernel's own updates."""
    stats = np.zeros((k, layout.NUMERIC_COLUMNS))
    for c in range(k):
        values = rng.normal(rng.normal(0, 2), rng.uniform(0.05, 2), size=rng.integers(1, n_per_class))
        if rng.random() < share_zero_sigma:
            values[:] = values[0]
        for value in values:
            _learn(stats[c], value, rng.exponential(5.0))
    return stats


def _cache():
    """A leaf's empty screen cache for one attribute: sums, grid, base."""
    return np.zeros((2, layout.N_SPLIT_POINTS)), np.zeros(5), np.zeros(layout.NUMERIC_COLUMNS)


def _bounds(stats, points, n_points, lo, hi, pre, cache=None, changed=-1):
    cache = cache or _cache()
    return B.numeric_merit_bounds(stats, points, n_points, lo, hi, pre, np.zeros((7, len(stats))), *cache, changed)


def _exact(stats):
    """River's best merit for the attribute (the unscreened kernel), and its leaf's entropy."""
    k = len(stats)
    weights = stats[:, 0]
    order = np.arange(k)
    pre, _ = merits.entropy_in_order(weights, order, k)
    points = np.zeros(layout.N_SPLIT_POINTS)
    n_points, lo, hi = merits.thresholds(stats, points)
    merit, _, _ = merits.numeric_best(
        stats, points, n_points, order, k, pre, np.zeros(2), np.zeros(2), np.zeros(k), np.zeros(k), 0.5
    )
    return merit, pre, points, n_points, lo, hi


@pytest.mark.parametrize("k", [2, 5, 26])
def test_bounds_hold_rivers_merit(k):
    rng = np.random.default_rng(k)
    widths = []
    for _ in range(300):
        stats = _estimators(rng, k, 6, share_zero_sigma=0.2)  # some classes all at one value
        merit, pre, points, n_points, lo, hi = _exact(stats)
        low, high = _bounds(stats, points, n_points, lo, hi, pre)
        assert low <= merit <= high or (merit == low == high == -np.inf)
        if np.isfinite(high) and np.isfinite(low):
            widths.append(high - low)
    # tight: the interval is the slack, and the binary-entropy table's chord error above
    assert widths and max(widths) <= 2 * B.MERIT_SLACK + B.H2_SLACK + 1e-12
    assert B.MERIT_SLACK < 1e-5 and B.H2_SLACK < 1e-6


def _ceiling(stats, pre, memo=None):
    """The early KEEP's ceiling, with the screen's memo of ``w log2 w`` (a fresh one unless given)."""
    memo = np.zeros((2, stats.shape[0])) if memo is None else memo
    return split._merit_ceiling(stats, pre, memo[0], memo[1])


@pytest.mark.parametrize("k", [2, 5, 26])
def test_merit_ceiling_bounds_every_binary_split(k):
    """No numeric split's merit (river's, exact) exceeds the early KEEP's ceiling, whatever the
    leaf's entropy; with two classes far apart the best split reaches it (it is not loose)."""
    rng = np.random.default_rng(40 + k)
    memo = np.zeros((2, k))  # carried from draw to draw, as from leaf to leaf: stale entries are retaken
    for _ in range(300):
        stats = _estimators(rng, k, 6, share_zero_sigma=0.2)
        merit, pre, points, n_points, _, _ = _exact(stats)
        assert merit <= _ceiling(stats, pre, memo)
        assert _ceiling(stats, pre, memo) == _ceiling(stats, pre)
        leaf_pre = rng.uniform(0.0, np.log2(k) + 1.0)  # the leaf's entropy, from data before a reset
        merit, _, _ = merits.numeric_best(
            stats, points, n_points, np.arange(k), k, leaf_pre, np.zeros(2), np.zeros(2), np.zeros(k), np.zeros(k), 0.5
        )
        assert merit <= _ceiling(stats, leaf_pre)
    apart = np.zeros((2, layout.NUMERIC_COLUMNS))
    for c, center in enumerate((-5.0, 5.0)):
        for value in center + rng.normal(0, 0.1, size=50):
            _learn(apart[c], value, 1.0)
    merit, pre, *_ = _exact(apart)
    assert _ceiling(apart, pre) - merit <= B.MERIT_SLACK + 1e-12  # its room for rounding


def test_h2_chords_within_their_slack():
    """The table's chords lie below h2 and within H2_SLACK of it wherever the 1% rule admits a split."""
    q = np.linspace(B.MIN_BRANCH_FRACTION, 1.0 - B.MIN_BRANCH_FRACTION, 2_000_003)
    u = q * B.H2_STEPS
    cell = np.minimum(u.astype(int), B.H2_STEPS - 1)
    chord = B.H2_TABLE[cell] + (u - cell) * (B.H2_TABLE[cell + 1] - B.H2_TABLE[cell])
    error = B._h2(q) - chord
    assert error.min() >= -1e-15 and error.max() <= B.H2_SLACK
    assert error.max() > B.H2_SLACK / 4  # and the slack is not loose


def test_cached_range_is_the_thresholds_range():
    """The range kept with a slot's sums, widened by the one changed class, is the one
    ``thresholds`` finds over every class, also when that class extends it or is new."""
    rng = np.random.default_rng(5)
    stats = _estimators(rng, 26, 6)
    stats[3] = 0.0  # a class not seen yet
    points = np.zeros(layout.N_SPLIT_POINTS)
    _, lo, hi = merits.thresholds(stats, points)
    grid = np.zeros(5)
    grid[B.GRID_LO], grid[B.GRID_HI] = lo, hi
    for c in (3, 0, 7):
        for value in (lo - 1.0, hi + 2.0, 0.5 * (lo + hi)):
            _learn(stats[c], value, 1.5)
            n_points, lo, hi = merits.thresholds(stats, points)
            assert B.cached_range(grid, stats[c]) == (lo, hi)
            expected = points[:n_points].copy()
            assert merits.thresholds_in(lo, hi, points) == n_points
            assert np.array_equal(points[:n_points], expected)
            grid[B.GRID_LO], grid[B.GRID_HI] = lo, hi


def test_unbounded_where_rivers_cdf_is_nan():
    """A class with zero deviation exactly at a threshold goes to neither side in river: no bound."""
    stats = np.zeros((2, layout.NUMERIC_COLUMNS))
    stats[0, :5] = [0.5, 1.0, 0.0, 0.0, 2.0]  # weight 0.5: variance 0 although min < max
    stats[1, :5] = [3.0, 3.0, 1.0, 2.5, 3.5]
    points = np.array([1.0])
    cache = _cache()
    assert _bounds(stats, points, 1, 0.0, 3.5, 0.6, cache) == (-np.inf, np.inf)
    assert cache[1][B.VALID] == 0.0  # and the cache is not used next time


def test_cached_sums_follow_one_changed_class():
    """The cache taken out and put back for the one class trained since (the paper's grace
    periods make that the common case) gives the bounds taken afresh, to rounding."""
    rng = np.random.default_rng(11)
    k = 26
    stats = _estimators(rng, k, 8)
    _, pre, points, n_points, lo, hi = _exact(stats)
    cache = _cache()
    _bounds(stats, points, n_points, lo, hi, pre, cache)
    for _ in range(200):
        c = int(rng.integers(k))
        cache[2][:] = stats[c]  # the class's estimator as the sums last saw it
        _learn(stats[c], float(rng.uniform(lo, hi)), rng.exponential(5.0))  # inside the range: same thresholds
        merit, pre, points, n_points, lo2, hi2 = _exact(stats)
        assert (lo2, hi2) == (lo, hi)
        low, high = _bounds(stats, points, n_points, lo, hi, pre, cache, changed=c)
        fresh = _bounds(stats, points, n_points, lo, hi, pre)
        np.testing.assert_allclose((low, high), fresh, rtol=0, atol=1e-11)
        assert low <= merit <= high
    assert cache[1][B.VALID] == 1.0


def _twin_pools(n_trees, n_classes, n_categories, seed, max_size=None, threads=1):
    """A screened pool (on ``threads`` threads) and the unscreened reference (on one)."""
    # the paper's tree parameters: delta, tau, grace drawn per tree
    p = HoeffdingTreeParams.draw(n_trees, np.random.default_rng(seed), learner_file("hoeffding_tree"))
    return [
        CompiledHoeffdingTreePool(
            p, n_classes, n_categories, max_size=max_size, screen_splits=screen, n_threads=threads if screen else 1
        )
        for screen in (True, False)
    ]


def _assert_same_trees(screened, reference):
    assert screened.n_nodes == reference.n_nodes
    for name in ("node_nav", "node_value", "node_stats", "node_last"):
        assert np.array_equal(
            getattr(screened, name)[: screened.n_nodes], getattr(reference, name)[: reference.n_nodes]
        ), name


def _train_both(pools, X, y, rng, n_trees):
    for x, label in zip(X, y):
        weights = rng.exponential(size=n_trees) * 20 * (rng.random(n_trees) < 0.9)  # boosting-like
        for pool in pools:
            pool.learn(pool.prepare(x), int(label), weights)


def _screened_grows_the_unscreened_trees(data, n_categories, n_trees, n_examples, max_size, threads):
    """Twin pools (screened, not) on the first ``n_examples`` of a seeded order of ``data``: the
    same trees, which grew, and the memory budget reached exactly when one is set. Returns the pools."""
    pools = _twin_pools(n_trees, data.n_classes, n_categories, 0, max_size, threads)
    order = np.random.default_rng(0).permutation(data.n_examples)[:n_examples]
    _train_both(pools, data.X[order], data.y[order], np.random.default_rng(1), n_trees)
    _assert_same_trees(*pools)
    assert (pools[0].enforcements > 0) == (max_size is not None)
    return pools


@pytest.mark.parametrize("max_size,threads", [(None, 1), (8.0, 1), (None, 2)])
def test_screening_changes_no_tree_on_isolet_shaped_data(max_size, threads):
    """26 classes: the slots keep the screen's sums (also across resets, trees trained by
    several threads and, under a memory budget, deactivations, reactivations and compaction)."""
    cfg = compose_config(["dataset=isolet_like"])
    data = load_dataset(cfg.dataset)
    pools = _screened_grows_the_unscreened_trees(data, data.n_categories, 6, 120, max_size, threads)
    cache = (0, layout.SETTINGS, layout.CACHE)
    assert pools[0].work[cache] == 1.0 and pools[1].work[cache] == 0.0  # cache on, off
    assert pools[0].n_nodes > 6 * 3  # the trees grew
    reached = pools[0].screen_state[: pools[0].counters[layout.SLOTS_USED], layout.HISTORY] // layout.PREFIX_UNIT
    assert ((reached > 0) & (reached < data.n_features)).any()  # screens that stopped early
    assert B.REFRESH_AFTER < layout.PREFIX_UNIT  # the screen counter stays below the packed prefix


@pytest.mark.parametrize("missing", [0.0, 0.05])
def test_screening_changes_no_tree_on_movement_shaped_data(missing):
    """Five classes (no cache) and numeric attributes: screens stop early where no value was
    missing; with missing values they bound every attribute."""
    cfg = compose_config(["dataset=movement_like"])
    data = load_dataset(cfg.dataset)
    if missing:
        data.X[np.random.default_rng(9).random(data.X.shape) < missing] = np.nan
    pools = _screened_grows_the_unscreened_trees(data, data.n_categories, 10, 1500, None, 1)
    assert pools[0].n_nodes > 10 * 5
    has_missing = (pools[0].screen_state[: pools[0].counters[layout.SLOTS_USED], layout.HISTORY] & layout.MISSING) != 0
    assert has_missing.any() == bool(missing)


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


def test_screening_changes_no_tree_when_slots_are_reused():
    """Many classes (the slots keep a cache), few-valued attributes (equal threshold ranges are
    common) seen late (missing at first), and a budget that deactivates and reactivates leaves:
    a slot's next leaf must not inherit the cache of the one before."""
    rng = np.random.default_rng(6)
    n = 3000
    X = rng.integers(0, 3, size=(n, 8)).astype(float)
    y = (X[:, 0] * 6 + X[:, 1] * 2 + rng.integers(0, 2, size=n)).astype(int) % 17
    X[rng.random((n, 8)) < np.linspace(0.0, 0.6, 8)] = np.nan  # later columns often missing
    pools = _twin_pools(8, 17, np.zeros(8, dtype=np.int64), 4, max_size=0.3)
    assert pools[0].work[0, layout.SETTINGS, layout.CACHE] == 1.0
    _train_both(pools, X, y, rng, 8)
    _assert_same_trees(*pools)
    assert pools[0].enforcements > 0 and pools[0].n_nodes > 8 * 3
    pool = pools[0]  # a released slot keeps no valid cache for its next leaf
    node = int(np.flatnonzero(pool.node_slot[: pool.n_nodes] >= 0)[0])
    slot = pool.node_slot[node]
    pool.screen_grid[slot, :, B.VALID] = 1.0  # as a screen leaves it
    layout.release(layout.Forest(*pool.kernel_state()), node)
    assert not pool.screen_grid[slot].any() and pool.screen_state[slot, layout.STATUS] == layout.INVALID
