"""Pools that gain classes, attributes and nominal values as a stream reveals them (the river
estimators' need) hold the same trees as pools built with all of them from the start."""

import numpy as np
import pytest

from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
from boostbench.learners.pool import HoeffdingTreeParams
from boostbench.learners.river_pool import RiverHoeffdingTreePool


def _params(n, rng):
    return HoeffdingTreeParams(
        delta=rng.uniform(0.05, 0.5, n),
        tau=rng.uniform(0.05, 0.5, n),
        grace_period=rng.integers(2, 8, n),
        weight_scale=rng.uniform(0.5, 3.0, n),
    )


def _stream(rng, m):
    """Columns: numeric, nominal (3 values), numeric, nominal (4 values). The first half has
    classes 0 and 1 only, nominal codes 0 and 1 only, and the last two columns missing."""
    for t in range(m):
        late = t >= m // 2
        y = int(rng.integers(3 if late else 2))
        x = np.array(
            [rng.normal(y, 1.0), rng.integers(3 if late else 2), rng.normal(-y, 1.0), rng.integers(4)], dtype=np.float64
        )
        if not late:
            x[2:] = np.nan
        yield t, late, x, y, rng.uniform(0.0, 2.0, 5)


@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=pytest.mark.slow)])  # threads=2: make test-slow
@pytest.mark.parametrize("leaves", ["mc", "nba"])
def test_a_grown_compiled_pool_equals_one_built_whole(threads, leaves):
    rng = np.random.default_rng(3)
    params = _params(5, rng)
    common = {"capacity": 8, "max_size": 1.0, "n_threads": threads, "leaf_prediction": leaves}
    whole = CompiledHoeffdingTreePool(params, 3, [0, 3, 0, 4], **common)
    grown = CompiledHoeffdingTreePool(params, 2, [0, 2], **common)
    grown_yet = False
    for _, late, x, y, weights in _stream(np.random.default_rng(4), 1200):
        if late and not grown_yet:
            grown.grow(n_classes=3, n_categories=[0, 3, 0, 4])
            grown_yet = True
        xg = x if grown_yet else x[:2]
        expected = whole.predict_proba(whole.prepare(x))
        empty = (expected == 1.0 / 3).all(axis=1)  # a leaf without weight: uniform over its k
        expected[empty] = 1.0 / grown.n_classes
        np.testing.assert_array_equal(grown.predict_proba(grown.prepare(xg)), expected[:, : grown.n_classes])
        whole.learn(whole.prepare(x), y, weights)
        grown.learn(grown.prepare(xg), y, weights)
    assert whole.n_nodes > 5 * 3  # the trees grew on both sides of the growth
    assert grown.n_nodes == whole.n_nodes and grown.enforcements == whole.enforcements > 0
    np.testing.assert_array_equal(grown.node_stats[: grown.n_nodes], whole.node_stats[: whole.n_nodes])
    np.testing.assert_array_equal(grown.node_correct[: grown.n_nodes], whole.node_correct[: whole.n_nodes])


def test_a_pool_grows_only():
    pool = CompiledHoeffdingTreePool(_params(2, np.random.default_rng(0)), 3, [0, 2])
    with pytest.raises(ValueError, match="grows only"):
        pool.grow(n_classes=2)
    with pytest.raises(ValueError, match="change kind"):
        pool.grow(n_categories=[2, 2])
    with pytest.raises(ValueError, match="change kind"):
        pool.grow(n_categories=[0, 1])


def test_a_grown_river_pool_learns_the_new_nominal_attribute():
    pool = RiverHoeffdingTreePool(_params(2, np.random.default_rng(0)), 2, [])
    pool.grow(n_classes=3, n_categories=[0, 3])
    assert pool.n_classes == 3 and all(tree.nominal_attributes == [1] for tree in pool.trees)
    assert pool.predict_proba(pool.prepare(np.array([0.0, 1.0]))).shape == (2, 3)
