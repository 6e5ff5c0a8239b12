"""The compiled VFDT pool against the river pool (the reference) and against known trees."""

import os
import sys

import numpy as np
import pytest
from conftest import learner_file

from boostbench.data.registry import load_dataset
from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
from boostbench.learners.pool import HoeffdingTreeParams
from boostbench.learners.river_pool import RiverHoeffdingTreePool
from boostbench.learners.vfdt import layout
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment

# The kernels add floats one by one, as river's sum() does up to Python 3.11; from 3.12 on sum()
# compensates, so river's trees can round (and then break a tie) differently.
bit_for_bit = pytest.mark.skipif(sys.version_info >= (3, 12), reason="river's sum() compensates from Python 3.12")


def params(n, delta=0.1, tau=0.05, grace=10, scale=1.0):
    return HoeffdingTreeParams(
        delta=np.full(n, delta), tau=np.full(n, tau), grace_period=np.full(n, grace), weight_scale=np.full(n, scale)
    )


def test_numeric_threshold_is_learned():
    rng = np.random.default_rng(0)
    pool = CompiledHoeffdingTreePool(params(3), 2, [0, 0])
    for _ in range(400):
        x = rng.uniform(-1, 1, size=2)
        pool.learn(pool.prepare(x), int(x[0] > 0.2), np.ones(3))
    X = rng.uniform(-1, 1, size=(500, 2))
    predicted = np.array([pool.predict_proba(pool.prepare(x)).argmax(axis=1) for x in X])
    assert (predicted == (X[:, [0]] > 0.2)).mean() > 0.95
    assert pool.n_nodes > 3  # the roots split


def test_nominal_multiway_split_and_unseen_and_missing_values():
    pool = CompiledHoeffdingTreePool(params(1, tau=0.5, grace=5), 3, [3, 0])
    for t in range(300):
        value = t % 3
        pool.learn(pool.prepare(np.array([value, 0.5])), value, np.ones(1))
    for value in range(3):
        assert pool.predict_proba_member(0, np.array([value, 0.5])).argmax() == value
    # a missing value follows the heaviest child; the distribution stays a distribution
    proba = pool.predict_proba_member(0, np.array([np.nan, 0.5]))
    assert proba.sum() == pytest.approx(1.0)


def test_untrained_tree_is_uniform_and_weights_scale():
    pool = CompiledHoeffdingTreePool(params(2, scale=4.0), 4, [0])
    np.testing.assert_allclose(pool.predict_proba(pool.prepare(np.array([1.0]))), 0.25)
    pool.learn_member(1, pool.prepare(np.array([1.0])), 2, 0.5)
    assert pool.node_stats[pool.root[1], 2] == pytest.approx(2.0)  # 0.5 * c_i
    assert pool.node_stats[pool.root[0]].sum() == 0.0


def test_arrays_grow_past_their_capacity():
    rng = np.random.default_rng(1)
    pool = CompiledHoeffdingTreePool(params(4, tau=0.9, grace=2, delta=0.5), 2, [0, 0, 0], capacity=4)
    for _ in range(2000):
        x = rng.normal(size=3)
        pool.learn(pool.prepare(x), int(x.sum() > 0), np.ones(4))
    assert pool.n_nodes > len(pool.root) * 3 and len(pool.node_leaf) >= pool.n_nodes


@pytest.mark.parametrize(
    "dataset,n_examples",
    [("balance", 625), ("car", 800), ("mushroom", 600), pytest.param("mice", 300, marks=pytest.mark.slow)],
)  # 77 numeric
@pytest.mark.parametrize("weighting", ["unit", "random"])
@bit_for_bit
def test_trees_match_river_trees_bit_for_bit(dataset, n_examples, weighting):
    """Same parameters, stream and weights: every tree predicts exactly what river's tree predicts,
    after every example (nominal multiway/binary and numeric splits, unseen and missing values)."""
    cfg = compose_config([f"dataset={dataset}"])
    data = load_dataset(cfg.dataset)
    n = 8
    p = HoeffdingTreeParams.draw(n, np.random.default_rng(0), learner_file("hoeffding_tree"))
    compiled = CompiledHoeffdingTreePool(p, data.n_classes, data.n_categories)
    river = RiverHoeffdingTreePool(p, data.n_classes, data.nominal_indices)
    rng = np.random.default_rng(1)
    for index in rng.permutation(data.n_examples)[:n_examples]:
        x, y = data.X[index], int(data.y[index])
        xc, xr = compiled.prepare(x), river.prepare(x)
        np.testing.assert_array_equal(compiled.predict_proba(xc), river.predict_proba(xr))
        weights = np.ones(n) if weighting == "unit" else rng.exponential(size=n) * (rng.random(n) < 0.8)
        compiled.learn(xc, y, weights)
        river.learn(xr, y, weights)
    assert compiled.n_nodes > 2 * n  # the trees grew


@pytest.mark.parametrize(
    "dataset,algorithm",
    [
        ("car", "adaboost_olm"),
        ("car", "online_boosting"),
        ("balance", "online_mbbm"),
        ("balance", "best_vfdt"),
    ],
)
@bit_for_bit
def test_boosters_on_the_compiled_pool_match_the_river_pool(dataset, algorithm):
    def curve(backend):
        return run_experiment(
            compose_config(
                [
                    f"dataset={dataset}",
                    f"algorithm={algorithm}",
                    "n_learners=10",
                    *(["gamma=0.05"] if algorithm == "online_mbbm" else []),  # the one with an edge
                    "seed=1",
                    f"learner.backend={backend}",
                ]
            )
        )["curve"]

    assert curve("compiled") == curve("river")


@pytest.mark.slow  # make test-slow
@pytest.mark.parametrize("algorithm", ["ada_olmr", "online_bmr"])
@bit_for_bit
def test_compiled_pool_on_multilabel_data(algorithm):
    """Per-tree feature subsets: the multi-label boosters' runs are the same with either pool."""

    def curve(backend):
        return run_experiment(
            compose_config(
                ["dataset=emotions", f"algorithm={algorithm}", "n_learners=10", f"learner.backend={backend}"]
            )
        )["curve"]

    assert curve("compiled") == curve("river")


@pytest.mark.parametrize("dataset", ["car", "mice"])
def test_online_boosting_kernel_equals_its_reference(dataset):
    """Same Poisson counts, ties and trees: the compiled update and the Python one agree exactly."""

    def run(compiled):
        record = run_experiment(
            compose_config(
                [f"dataset={dataset}", "algorithm=online_boosting", "n_learners=8", f"algorithm.compiled={compiled}"]
            )
        )
        return record["curve"]["cumulative_accuracy"]

    assert run("true") == run("false")


def test_a_path_kept_by_predict_is_used_only_for_the_same_example():
    """Training after predicting another example (or after another tree changed) gives the trees
    a pool that never predicted gets."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(600, 3))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    plain, routed = (
        CompiledHoeffdingTreePool(params(4), 2, [0, 0, 0]),
        CompiledHoeffdingTreePool(params(4), 2, [0, 0, 0]),
    )
    for t in range(len(X)):
        routed.predict_proba(routed.prepare(X[t]))  # the same example: path reused
        if t % 3 == 0:
            routed.predict_proba(routed.prepare(X[(t + 7) % len(X)]))  # another example: must not be
        for pool in (plain, routed):
            pool.learn(pool.prepare(X[t]), int(y[t]), np.array([1.0, 0.0, 2.0, 1.0]))
            pool.learn_member(1, pool.prepare(X[t]), int(y[t]), 1.0)
    assert plain.n_nodes == routed.n_nodes > 8
    for name in ("node_stats", "node_nav", "node_value"):
        assert np.array_equal(getattr(plain, name)[: plain.n_nodes], getattr(routed, name)[: routed.n_nodes]), name


def _leaves(pool):
    """Every tree's leaves (node ids) and which of them are active."""
    from boostbench.learners.vfdt.budget import _leaves_of

    ids = np.empty(pool.n_nodes, dtype=np.int64)
    n = 0
    for tree in range(pool.n_learners):
        n += _leaves_of(pool.root[tree], pool.node_nav, pool.node_parent, ids[n:])
    return ids[:n], pool.node_active[ids[:n]].astype(bool)


def test_memory_budget_bounds_the_pool():
    """River's rule over the pool: past the budget only as many leaves as fit stay active; the
    size the kernels count is the true one, and memory stays flat once the budget is reached."""
    rng = np.random.default_rng(5)
    budget_mib = 0.01
    pool = CompiledHoeffdingTreePool(params(3, grace=5, scale=20.0), 3, [0, 0, 0, 4], max_size=budget_mib)
    node_bytes, slot_bytes = pool.limits[layout.NODE_BYTES], pool.limits[layout.SLOT_BYTES]

    def feed(n):
        for _ in range(n):
            x = np.append(rng.uniform(-1, 1, size=3), rng.integers(4))
            pool.learn(pool.prepare(x), int(x[0] > 0) + int(x[1] > 0.5), np.ones(3))

    feed(3000)
    assert pool.enforcements > 0
    leaves, active = _leaves(pool)
    assert len(leaves) == pool.n_nodes - np.count_nonzero(~pool.node_leaf[: pool.n_nodes])
    assert pool.size_bytes == pool.n_nodes * node_bytes + active.sum() * slot_bytes
    assert pool.counters[layout.SLOTS_USED] - pool.counters[layout.FREE_SLOTS] == active.sum() and (~active).any()
    assert pool.size_bytes <= budget_mib * 2**20 + 3 * (pool.width + 1) * (node_bytes + slot_bytes)
    sizes = (len(pool.node_leaf), len(pool.nominal_counts))
    feed(3000)
    assert (len(pool.node_leaf), len(pool.nominal_counts)) == sizes


@pytest.mark.parametrize(
    "n_categories,nominal,numeric", [([3, 4], True, False), ([0, 0], False, True), ([0, 4], True, True)]
)
def test_a_slot_holds_only_the_attribute_kinds_the_trees_see(n_categories, nominal, numeric):
    """A slot's bytes (what a budget counts, and what new leaves make the machine zero) hold no
    statistics for a kind of attribute the data set does not have; the trees learn either way."""
    k = 3
    pool = CompiledHoeffdingTreePool(params(2, grace=2), k, n_categories)
    assert (pool.nominal_counts[0].size > 0) == nominal and (pool.value_ranks[0].size > 0) == nominal
    assert (pool.numeric_stats[0].size > 0) == numeric and (pool.screen_base[0].size > 0) == numeric
    slot = sum(getattr(pool, name)[0].nbytes for name in pool._slot_arrays())
    assert pool.limits[layout.SLOT_BYTES] == slot
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = np.array([rng.integers(c) if c else rng.normal() for c in n_categories], dtype=float)
        pool.learn(pool.prepare(x), int(x[0] > 0.5), np.ones(2))
    assert pool.n_nodes > 2


@pytest.mark.skipif(
    not os.path.exists("/sys/kernel/mm/transparent_hugepage"),
    reason="a Linux kernel with transparent huge pages (madvise, /proc/self/smaps)",
)
def test_pool_arrays_stay_out_of_huge_pages():
    """numpy advises transparent huge pages for large arrays; the pool's are advised back to
    ordinary pages (VmFlags ``nh`` in smaps) before their first write."""
    pool = CompiledHoeffdingTreePool(params(4), 3, [0, 4], max_size=64.0)
    address = pool.nominal_counts.ctypes.data + pool.nominal_counts.nbytes // 2
    flags = None
    with open("/proc/self/smaps") as handle:
        inside = False
        for line in handle:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= address < hi
            elif inside and line.startswith("VmFlags:"):
                flags = line.split()[1:]
                break
    assert flags is not None and "nh" in flags


def test_compacting_slots_keeps_the_trees_and_releases_the_rest():
    """After deactivations the active leaves' statistics move to the lowest slots; the trees
    predict and learn on exactly as an uncompacted twin does; the slots past them read zero."""
    from boostbench.learners.compiled_pool import release_rows

    rng = np.random.default_rng(4)
    pools = [
        CompiledHoeffdingTreePool(params(3, grace=5, scale=20.0), 3, [0, 0, 0, 4], max_size=0.02) for _ in range(2)
    ]
    pools[1]._compact_slots = lambda: None  # the twin never compacts
    X = np.column_stack([rng.uniform(-1, 1, size=(4000, 3)), rng.integers(4, size=4000)])
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    compacted = 0
    for x, label in zip(X, y):
        for pool in pools:
            pool.learn(pool.prepare(x), int(label), np.ones(3))
        compacted += pools[0].counters[layout.FREE_SLOTS] == 0 and pools[1].counters[layout.FREE_SLOTS] > 0
        assert np.array_equal(pools[0].predict_proba(pools[0].prepare(x)), pools[1].predict_proba(pools[1].prepare(x)))
    assert compacted > 0 and pools[0].counters[layout.SLOTS_USED] < pools[1].counters[layout.SLOTS_USED]
    a, b = pools
    for name in ("node_stats", "node_nav", "node_value"):
        assert np.array_equal(getattr(a, name)[: a.n_nodes], getattr(b, name)[: b.n_nodes])
    for node in np.flatnonzero(a.node_slot[: a.n_nodes] >= 0):
        assert np.array_equal(a.numeric_stats[a.node_slot[node]], b.numeric_stats[b.node_slot[node]])
    high = a.counters[layout.SLOTS_USED]
    assert (
        not a.numeric_stats[high : b.counters[layout.SLOTS_USED]].any()
        and not a.ranks[high : b.counters[layout.SLOTS_USED]].any()
    )
    big = np.arange(40_000, dtype=np.float64).reshape(10_000, 4) + 1  # release: zeros, any alignment
    release_rows(big, 123, 9_877)
    assert not big[123:9_877].any() and big[122].all() and big[9_877].all()


def test_enforcement_keeps_the_most_promising_leaves():
    """Promise (weight not of the majority class, over c_i) ranks leaves across trees."""
    from boostbench.learners.vfdt.budget import enforce_size_limit
    from boostbench.learners.vfdt.layout import MAX_BYTES, NODE_BYTES, SLOT_BYTES

    rng = np.random.default_rng(8)
    pool = CompiledHoeffdingTreePool(params(2, grace=5, scale=5.0), 3, [0, 0, 0])
    pool.weight_scale[1] = 10.0
    for _ in range(2000):
        x = rng.uniform(-1, 1, size=3)
        pool.learn(pool.prepare(x), int(x[0] > 0) + int(x[1] > 0.5), np.ones(2))
    leaves, active = _leaves(pool)
    assert active.all() and len(leaves) > 8 and pool.enforcements == 0
    keep = 5
    pool.limits[MAX_BYTES] = (pool.n_nodes * pool.limits[NODE_BYTES] + keep * pool.limits[SLOT_BYTES]) * 10 // 9 + 1
    enforce_size_limit(pool.kernel_state())
    stats = pool.node_stats[leaves]
    in_tree_1 = np.isin(leaves, _subtree(pool, pool.root[1]))
    promise = (stats.sum(axis=1) - stats.max(axis=1)) / np.where(in_tree_1, 10.0, 5.0)
    _, active = _leaves(pool)
    assert active.sum() == keep == pool.counters[layout.SLOTS_USED] - pool.counters[layout.FREE_SLOTS]
    assert promise[active].min() >= promise[~active].max()
    assert (pool.node_slot[leaves[~active]] == -1).all() and (pool.node_slot[leaves[active]] >= 0).all()
    pool.limits[MAX_BYTES] = np.iinfo(np.int64).max // 4  # room again: every leaf is reactivated
    enforce_size_limit(pool.kernel_state())
    assert _leaves(pool)[1].all()


def _subtree(pool, root):
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack += [c for c in pool.node_nav[node, 1:] if c >= 0]
    return nodes


def test_gaussian_cdf_is_rivers_to_the_last_bit():
    """Weighted per-class Gaussians (weights below 1 included: zero variance, a step, NaN at the
    mean) give exactly river's CDF; ``var ** 0.5`` must be C's pow, not sqrt."""
    from river.proba import Gaussian

    from boostbench.learners.vfdt.merits import gaussian_cdf, sigma_of

    rng = np.random.default_rng(11)
    mismatches = 0
    for trial in range(3000):
        estimator, stats = Gaussian(), np.zeros(5)
        for value in rng.normal(rng.uniform(-3, 3), rng.uniform(0.01, 3), size=rng.integers(1, 6)):
            w = np.float64(rng.uniform(0.05, 0.6) if trial % 3 == 0 else rng.uniform(1, 50))
            estimator.update(float(value), w)
            old_mean = stats[1]
            stats[0] += w
            stats[1] += w / stats[0] * (value - old_mean)
            stats[2] += w * (value - old_mean) * (value - stats[1])
        for point in (*rng.normal(stats[1], 2, size=5), stats[1]):
            with np.errstate(divide="ignore", invalid="ignore"):
                expected = estimator.cdf(float(point))
            got = gaussian_cdf(stats, sigma_of(stats, 0.5), float(point))
            mismatches += not (got == expected or (np.isnan(got) and np.isnan(expected)))
    assert mismatches == 0


@pytest.mark.parametrize("dataset", ["car", "mice"])
def test_adaboost_olm_step_kernels_equal_the_python_steps(dataset):
    """Over the compiled pool Adaboost.OLM runs a stream chunk as one kernel call (and an example
    as two): the same draws, votes, Hedge weights and trees as its Python steps. A small initial
    capacity makes the chunk kernel stop for the pool to grow."""
    from boostbench.boosters import AdaboostOLM

    data = load_dataset(compose_config([f"dataset={dataset}"]).dataset)
    order = np.random.default_rng(0).permutation(data.n_examples)[:400]
    runs = {}
    for mode in ("chunks", "steps", "python"):
        pool = CompiledHoeffdingTreePool(params(8, grace=5, scale=20.0), data.n_classes, data.n_categories, capacity=16)
        booster = AdaboostOLM(pool, data.n_classes, np.random.default_rng(3))
        if mode == "python":
            booster._fused = None  # numpy's Hedge and one call per weak-learner pass
        if mode == "chunks":
            hits = np.concatenate(
                [
                    booster.test_then_train(data.X[part], data.y[part]) == data.y[part]
                    for part in np.array_split(order, 3)
                ]
            )
        else:
            hits = []
            for i in order:
                hits.append(booster.predict(data.X[i]) == data.y[i])
                booster.update(int(data.y[i]))
        runs[mode] = (np.asarray(hits), booster.alpha.copy(), booster.hedge.log_v.copy(), pool.n_nodes, booster.t)
    for mode in ("steps", "python"):
        assert np.array_equal(runs[mode][0], runs["chunks"][0])
        assert np.array_equal(runs[mode][1], runs["chunks"][1]) and np.array_equal(runs[mode][2], runs["chunks"][2])
        assert runs[mode][3:] == runs["chunks"][3:]
    assert runs["chunks"][3] > 16 * 4  # the trees grew past the initial capacity


def test_node_fields_stay_views_of_their_rows_through_growth_and_pickling():
    """A leaf's fields share rows (one cache line per leaf for training); growing the arrays or
    unpickling the pool must keep every field a view of its block, or training would write to
    a copy."""
    import pickle

    rng = np.random.default_rng(2)
    pool = CompiledHoeffdingTreePool(params(3, grace=2, tau=0.9, delta=0.5), 2, [0, 0], capacity=4)
    for _ in range(300):
        x = rng.normal(size=2)
        pool.learn(pool.prepare(x), int(x[0] > 0), np.ones(3))
    clone = pickle.loads(pickle.dumps(pool))
    for p in (pool, clone):
        assert np.shares_memory(p.node_stats, p._node_f) and np.shares_memory(p.node_slot, p._node_i)
    x = clone.prepare(np.array([0.3, -0.2]))
    clone.learn(x, 1, np.ones(3))
    pool.learn(x, 1, np.ones(3))
    used = pool.n_nodes  # (a pickle keeps the rows in use; the capacity past them is not state)
    assert clone.n_nodes == used and len(pickle.dumps(pool)) < 2 * len(pickle.dumps(clone))
    assert np.array_equal(clone._node_f[:used], pool._node_f[:used], equal_nan=True)  # NaN: a stale subtree sum
    assert np.array_equal(clone.predict_proba(x), pool.predict_proba(x))


def test_a_class_the_pool_does_not_hold_is_refused():
    """The kernels check no bounds: an unknown class must not reach them."""
    pool = CompiledHoeffdingTreePool(params(2), 3, [0, 0])
    for bad in (3, -1):
        with pytest.raises(ValueError, match=f"class {bad} is outside this pool's 0..2"):
            pool.learn(pool.prepare(np.zeros(2)), bad, np.ones(2))
        with pytest.raises(ValueError, match="grow"):
            pool.learn_member(0, pool.prepare(np.zeros(2)), bad, 1.0)
    pool.grow(n_classes=4)
    pool.learn(pool.prepare(np.zeros(2)), 3, np.ones(2))  # after grow(), it is known


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_emptied_slots_read_zero(missing):
    """Splits and resets empty a slot class block by class block when no value was missing
    (every attribute then holds the classes the first one holds): whatever the slot's history,
    each class block holding anything is ranked in the slot's first attribute, and a free slot
    reads zero throughout (a slot a new leaf takes holds nothing of its previous leaf's; the
    budget deactivates leaves, whose slots wait on the free list). A pool grown by an attribute
    flags every slot in use: its leaves' statistics lack that attribute's earlier values."""
    rng = np.random.default_rng(7)
    k = 12
    pool = CompiledHoeffdingTreePool(params(3, grace=5, scale=20.0), k, [0, 0, 4, 0], max_size=0.05)
    free_seen = 0

    def check():
        free = set(pool.free_slots[: pool.counters[layout.FREE_SLOTS]].tolist())
        for slot in range(pool.counters[layout.SLOTS_USED]):
            blocks = [pool.numeric_stats[slot, c].any() or pool.nominal_counts[slot, c].any() for c in range(k)]
            if slot in free:
                assert not any(blocks) and not pool.ranks[slot].any() and not pool.value_ranks[slot].any()
            elif not pool.screen_state[slot, layout.HISTORY] & layout.MISSING:
                assert all(pool.ranks[slot, 0, c] != 0 for c in range(k) if blocks[c])

    for t in range(1500):
        y = int(rng.integers(k))
        x = np.array([y + rng.normal(), rng.normal(), y % 4, rng.uniform()])
        x[rng.random(4) < missing] = np.nan
        pool.learn(pool.prepare(x), y, np.ones(3))
        if t % 50 == 0 or pool.counters[layout.FREE_SLOTS] > 0:
            free_seen += int(pool.counters[layout.FREE_SLOTS] > 0)
            check()
    check()
    assert pool.n_nodes > 3 * 20 and free_seen > 0  # many splits, and freed slots checked
    in_use = [
        s
        for s in range(pool.counters[layout.SLOTS_USED])
        if s not in set(pool.free_slots[: pool.counters[layout.FREE_SLOTS]].tolist())
    ]
    assert any(pool.screen_state[s, layout.HISTORY] & layout.MISSING for s in in_use) == (missing > 0)
    pool.grow(n_categories=np.array([0, 0, 4, 0, 0]))
    assert all(pool.screen_state[s, layout.HISTORY] & layout.MISSING for s in in_use)
