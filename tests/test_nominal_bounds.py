"""Screened nominal split attempts: the bounds hold river's merits, and screening
changes no tree."""

import math

import numpy as np
import pytest
from test_merit_bounds import (  # the numeric screen's twin pools
    _assert_same_trees,
    _screened_grows_the_unscreened_trees,
    _train_both,
    _twin_pools,
)

from boostbench.data.registry import load_dataset
from boostbench.learners.vfdt import layout, merits
from boostbench.learners.vfdt import nominal_bounds as NB
from boostbench.runner.config import compose_config


def _table_and_ranks(rng, n_values, k):
    """A nominal attribute's counts ``(values, k)`` with the first-seen ranks the kernels keep,
    filled by weighted examples in a random order (some values and classes never seen)."""
    table = np.zeros((n_values, k))
    class_ranks = np.zeros(k + 1, dtype=np.int64)
    value_ranks = np.zeros((k, n_values + 1), dtype=np.int64)
    seen_values = rng.choice(n_values, size=rng.integers(1, n_values + 1), replace=False)
    seen_classes = rng.choice(k, size=rng.integers(1, k + 1), replace=False)
    for _ in range(rng.integers(1, 60)):
        v, c = int(rng.choice(seen_values)), int(rng.choice(seen_classes))
        table[v, c] += rng.choice([1.0, rng.exponential(30.0), rng.exponential(0.01)])
        layout.first_seen(class_ranks, c)
        layout.first_seen(value_ranks[c], v)
    return table, class_ranks, value_ranks


@pytest.mark.parametrize("n_values,k", [(2, 2), (3, 4), (4, 4), (7, 26)])
def test_bounds_hold_rivers_best_merit(n_values, k):
    rng = np.random.default_rng(10 * n_values + k)
    work, iwork = layout.scratch(k, 1, n_values)
    work, iwork = work[0], iwork[0]
    binary_wins = 0
    for _ in range(400):
        table, class_ranks, value_ranks = _table_and_ranks(rng, n_values, k)
        pre = float(rng.uniform(0.0, np.log2(k)))
        merit, kind, _ = merits.nominal_best(table, class_ranks, value_ranks, pre, work, iwork)
        low, high = NB.nominal_merit_bounds(table, pre, work)
        positive = table > 0
        terms = work[layout.TERMS : layout.TERMS + n_values, :k]
        assert terms[positive].tolist() == [w * math.log2(w) for w in table[positive]]  # river's log2
        if (table.sum(axis=1) > 0).sum() < 2:
            assert (low, high, merit, kind) == (-np.inf, -np.inf, -np.inf, layout.MULTIWAY)
            continue
        assert low <= merit <= high
        if kind == layout.MULTIWAY:
            assert merit == low  # low is river's multiway merit itself
        else:
            binary_wins += 1
        assert high - low <= NB._slack(k, n_values) or low == -np.inf
    assert binary_wins > 0 or n_values == 2  # one-vs-rest splits that beat the multiway one were checked too


def test_bound_is_tight_only_for_the_multiway_split():
    """Two values: a one-vs-rest split is the multiway split's partition, and the bound's
    slack is all that separates them (rounding may let either win)."""
    table = np.array([[30.0, 1.0], [2.0, 25.0]])
    work, _ = layout.scratch(2, 1, 2)
    low, high = NB.nominal_merit_bounds(table, 1.0, work[0])
    assert 0.0 < low < high <= low + NB._slack(2, 2)
    assert NB._slack(2, 2) < 1e-10


@pytest.mark.parametrize(
    "dataset,max_size,threads", [("car", None, 1), ("car", 0.05, 1), ("car", None, 2), ("balance", None, 1)]
)
def test_screening_changes_no_tree_on_nominal_data(dataset, max_size, threads):
    cfg = compose_config([f"dataset={dataset}"])
    data = load_dataset(cfg.dataset)
    if dataset == "balance":  # balance's attributes are numeric: read them as nominal codes
        n_categories = np.full(data.X.shape[1], int(np.nanmax(data.X)) + 1)
    else:
        n_categories = np.asarray(data.n_categories)
    assert (n_categories > 0).all()
    pools = _screened_grows_the_unscreened_trees(data, n_categories, 10, 600, max_size, threads)
    assert pools[0].n_nodes > 10 * 5  # the trees grew


def test_screening_changes_no_tree_with_mixed_missing_and_unseen_values():
    """Nominal and numeric attributes side by side, missing values, values seen late (new
    leaves under multiway branches), and a pool grown for new values and classes mid-stream."""
    rng = np.random.default_rng(8)
    n = 2500
    codes = rng.integers(0, 4, size=(n, 4)).astype(float)
    numeric = rng.normal(size=(n, 2))
    y = ((codes[:, 0] + codes[:, 1] > 3) + 2 * (numeric[:, 0] > 0.5) + (rng.random(n) < 0.1)).astype(int)
    X = np.column_stack([codes, numeric])
    X[rng.random(X.shape) < 0.05] = np.nan
    X[: n // 2, 2] = np.where(X[: n // 2, 2] == 3, 2, X[: n // 2, 2])  # value 3 of attribute 2 seen late
    n_categories = np.array([4, 4, 3, 4, 0, 0])
    pools = _twin_pools(8, 3, n_categories, 5)
    half = n // 2
    _train_both(pools, X[:half], np.minimum(y[:half], 2), rng, 8)
    for pool in pools:  # the river estimators' growth: a fourth class, attribute 2's fourth value
        pool.grow(n_classes=4, n_categories=np.array([4, 4, 4, 4, 0, 0]))
    _train_both(pools, X[half:], np.minimum(y[half:], 3), rng, 8)
    _assert_same_trees(*pools)
    assert pools[0].n_nodes > 8 * 5
