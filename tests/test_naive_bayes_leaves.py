"""Naive-Bayes leaves ('nb', 'nba') in the compiled trees against river's (the river pool), node for
node and prediction for prediction, with and without a memory budget and on two threads; a
known naive-Bayes prediction; the learner config of river's (and MOA's) defaults."""

import sys

import numpy as np
import pytest
from omegaconf import OmegaConf
from river.tree import HoeffdingTreeClassifier
from river.tree.nodes.branch import DTBranch, NominalMultiwayBranch

from boostbench.data.registry import load_dataset
from boostbench.errors import ConfigError
from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
from boostbench.learners.pool import HoeffdingTreeParams
from boostbench.learners.registry import learner_config
from boostbench.learners.river_pool import RiverHoeffdingTreePool
from boostbench.learners.vfdt import layout
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment

# as in test_compiled_pool: river's sum() compensates from Python 3.12 on
bit_for_bit = pytest.mark.skipif(sys.version_info >= (3, 12), reason="river's sum() compensates from Python 3.12")

# (data set, first row, rows): nominal (car), small nominal (balance), numeric (mice, 77
# attributes; image_segments, 7 classes; phishing; bananas, 2 attributes), a drift stream across
# its drift (agrawal_drift: function 0 to 4 from row 47,500)
STREAMS = {
    "car": (0, 800),
    "balance": (0, 625),
    "mice": (0, 500),
    "agrawal_drift": (47_000, 1500),
    "image_segments": (0, 800),
    "phishing": (0, 800),
    "bananas": (0, 1500),
}


def _stream(dataset, shuffle=True):
    """The data set, and its rows to train on in order (a drift stream keeps its order)."""
    data = load_dataset(compose_config([f"dataset={dataset}"]).dataset)
    first, rows = STREAMS[dataset]
    order = np.arange(first, first + rows)
    if shuffle and dataset != "agrawal_drift":
        order = np.random.default_rng(1).permutation(data.n_examples)[:rows]
    return data, order


def _node_pairs(pool, tree, river_tree):
    """(compiled node, river node) for every node of tree ``tree``, matched branch by branch."""
    pairs, stack = [], [(pool.root[tree], river_tree._root)]
    while stack:
        node, twin = stack.pop()
        pairs.append((node, twin))
        if isinstance(twin, DTBranch):
            for branch, child in enumerate(pool.node_nav[node, 1:]):
                if child >= 0:
                    index = twin._mapping[float(branch)] if isinstance(twin, NominalMultiwayBranch) else branch
                    stack.append((child, twin.children[index]))
    return pairs


def assert_same_nodes(pool, river):
    """Node for node: the same splits (attribute, kind, threshold or value), class weights in
    the same order, leaves active alike, and an NBA leaf's two correct weights."""
    for tree, river_tree in enumerate(river.trees):
        pairs = _node_pairs(pool, tree, river_tree)
        assert len(pairs) == river_tree.n_nodes
        for node, twin in pairs:
            held = pool.node_classes[node, : pool.node_classes[node, -1]].tolist()
            assert held == list(twin.stats)  # river's dict order
            assert pool.node_stats[node, held].tolist() == list(twin.stats.values())
            test = pool.node_nav[node, layout.TEST]
            if isinstance(twin, DTBranch):
                assert test != layout.LEAF and test >> 2 == twin.feature
                if hasattr(twin, "threshold"):
                    assert pool.node_value[node] == twin.threshold
                elif not isinstance(twin, NominalMultiwayBranch):
                    assert pool.node_value[node] == twin.value
                continue
            assert test == layout.LEAF and bool(pool.node_active[node]) == twin.is_active()
            if pool.leaf_prediction == "nba":
                correct = (twin._mc_correct_weight, twin._nb_correct_weight)
                assert tuple(pool.node_correct[node]) == correct


def _follow_budget(pool, river):
    """(De)activate river's leaves as the compiled pool's budget did."""
    for tree, river_tree in enumerate(river.trees):
        for node, twin in _node_pairs(pool, tree, river_tree):
            if not isinstance(twin, DTBranch) and bool(pool.node_active[node]) != twin.is_active():
                twin.activate() if pool.node_active[node] else twin.deactivate()


class _BudgetTwin(HoeffdingTreeClassifier):
    """River's tree whose leaves the compiled pool's budget (de)activates (:func:`_follow_budget`):
    its own memory manager only reactivates a leaf whose null split won, as the compiled pool
    keeps it active with emptied statistics (vfdt/split.py)."""

    def _enforce_size_limit(self):
        pass

    def _attempt_to_split(self, leaf, parent, parent_branch, **kwargs):
        super()._attempt_to_split(leaf, parent, parent_branch, **kwargs)
        if not leaf.is_active():
            leaf.activate()


def _run_side_by_side(dataset, kind, weighting, max_size=None, n_threads=1, shuffle=True):
    """Both pools on the same stream and weights; asserts equal predictions after every example."""
    data, order = _stream(dataset, shuffle)
    n = 8
    cfg = learner_config(OmegaConf.to_container(compose_config([f"dataset={dataset}"]).learner, resolve=True))
    p = HoeffdingTreeParams.draw(n, np.random.default_rng(0), cfg)
    compiled = CompiledHoeffdingTreePool(
        p, data.n_classes, data.n_categories, max_size=max_size, n_threads=n_threads, leaf_prediction=kind
    )
    river = RiverHoeffdingTreePool(p, data.n_classes, data.nominal_indices, leaf_prediction=kind)
    if max_size is not None:
        for tree in river.trees:
            tree.__class__ = _BudgetTwin
    rng = np.random.default_rng(1)
    for index in order:
        x, y = data.X[index], int(data.y[index])
        xc, xr = compiled.prepare(x), river.prepare(x)
        np.testing.assert_array_equal(compiled.predict_proba(xc), river.predict_proba(xr))
        weights = np.ones(n) if weighting == "unit" else rng.exponential(size=n) * (rng.random(n) < 0.8)
        enforcements = compiled.enforcements
        compiled.learn(xc, y, weights)
        river.learn(xr, y, weights)
        if compiled.enforcements != enforcements:
            _follow_budget(compiled, river)
    assert_same_nodes(compiled, river)
    assert compiled.n_nodes > 3 * n  # the trees grew
    return compiled


@bit_for_bit
@pytest.mark.parametrize(
    "dataset,kind,weighting",
    [
        ("car", "nba", "random"),
        ("car", "nb", "unit"),
        ("balance", "nba", "unit"),
        ("balance", "nb", "random"),
        ("agrawal_drift", "nba", "random"),
        pytest.param("agrawal_drift", "nb", "unit", marks=pytest.mark.slow),
        pytest.param("mice", "nba", "random", marks=pytest.mark.slow),
        pytest.param("mice", "nb", "unit", marks=pytest.mark.slow),
        ("image_segments", "nba", "random"),
        pytest.param("image_segments", "nb", "unit", marks=pytest.mark.slow),
        ("phishing", "nba", "unit"),
        pytest.param("phishing", "nb", "random", marks=pytest.mark.slow),
        ("bananas", "nba", "random"),
        pytest.param("bananas", "nb", "unit", marks=pytest.mark.slow),
    ],
)
def test_naive_bayes_leaves_match_river_bit_for_bit(dataset, kind, weighting):
    """Same parameters, stream and weights: every tree predicts exactly what river's predicts after
    every example (an NBA leaf's choice, a nominal value a class never had, a nominal attribute's
    class order as river's defaultdict files them), and ends node for node as river's."""
    _run_side_by_side(dataset, kind, weighting)


@bit_for_bit
@pytest.mark.parametrize("dataset", ["car", pytest.param("mice", marks=pytest.mark.slow)])
def test_a_reached_budget_deactivates_naive_bayes_leaves_as_river_would(dataset):
    """Past the budget, leaves the budget deactivates predict their majority class and keep their
    NBA weights, reactivated ones start their statistics afresh: river's leaves (de)activated
    alike predict the same, node for node. NBA leaves' budget counts their two weights."""
    pool = _run_side_by_side(dataset, "nba", "random", max_size=0.05)
    assert pool.enforcements > 0 and not pool.node_active[: pool.n_nodes][pool.node_leaf[: pool.n_nodes]].all()
    mc = CompiledHoeffdingTreePool(pool_params(), 4, [3, 3], leaf_prediction="mc")
    nba = CompiledHoeffdingTreePool(pool_params(), 4, [3, 3], leaf_prediction="nba")
    assert nba.limits[layout.NODE_BYTES] == mc.limits[layout.NODE_BYTES] + 16
    assert nba.limits[layout.SLOT_BYTES] == mc.limits[layout.SLOT_BYTES]


@bit_for_bit
@pytest.mark.parametrize("kind", ["nba", pytest.param("nb", marks=pytest.mark.slow)])
def test_naive_bayes_leaves_on_two_threads_match_river(kind):
    _run_side_by_side("agrawal_drift", kind, "random", n_threads=2)


@bit_for_bit
@pytest.mark.parametrize("kind", ["nb", "nba"])
def test_naive_bayes_files_the_classes_it_asks_a_nominal_attribute_about(kind):
    """River's nominal splitter files a class when naive Bayes asks for its probability (a
    defaultdict), before the class has a value there: that order is the one-vs-rest split's
    class order. Classes 1 and 2 reach the leaf without a value of A, naive Bayes asks A about
    both, then A sees class 2 before class 1: the split's children hold the classes as 0, 1, 2
    (training's order alone would be 0, 2, 1), as river's. Values 1-3 of A hold under 1% of the
    weight each and 1.4% together: the multiway split fails the 1% rule, 0 against the rest wins.
    """
    rows = [(0, 0, 50), (None, 1, 50), (None, 2, 50), (0, 2, 49), (0, 1, 49), (1, 1, 0.7), (2, 2, 0.7), (3, 1, 0.7)]
    params = HoeffdingTreeParams(
        delta=np.full(1, 0.1), tau=np.full(1, 0.9), grace_period=np.full(1, 250), weight_scale=np.ones(1)
    )
    compiled = CompiledHoeffdingTreePool(params, 3, [4], leaf_prediction=kind)
    river = RiverHoeffdingTreePool(params, 3, [0], leaf_prediction=kind)
    for t, (value, y, w) in enumerate(rows):
        x = np.array([np.nan if value is None else float(value)])
        if t == 3:  # naive Bayes asks A about the leaf's classes
            probe = np.zeros(1)
            assert np.array_equal(
                compiled.predict_proba(compiled.prepare(probe)), river.predict_proba(river.prepare(probe))
            )
        compiled.learn(compiled.prepare(x), y, np.full(1, w))
        river.learn(river.prepare(x), y, np.full(1, w))
    assert_same_nodes(compiled, river)
    root = compiled.root[0]
    assert compiled.node_nav[root, layout.TEST] == 0 * 4 + layout.NOMINAL_BINARY and compiled.node_value[root] == 0.0
    child = compiled.node_nav[root, 1]
    assert compiled.node_classes[child, :3].tolist() == [0, 1, 2]


def pool_params(n=1, grace=1000):
    return HoeffdingTreeParams(
        delta=np.full(n, 0.1), tau=np.full(n, 0.05), grace_period=np.full(n, grace), weight_scale=np.ones(n)
    )


@pytest.mark.parametrize("kind", ["nb", "nba"])
def test_a_naive_bayes_leaf_predicts_the_known_posterior(kind):
    """One leaf (no split) over a numeric and a nominal attribute: the log prior plus each
    attribute's log likelihood (a Gaussian with the sample variance; counts), normalised, where
    class 1 never had the nominal value 0 and river counts that as probability 1, not 0."""
    from scipy.stats import norm

    pool = CompiledHoeffdingTreePool(pool_params(), 2, [0, 2], leaf_prediction=kind)
    rows = [(1.0, 0, 0), (2.0, 0, 0), (3.0, 1, 0), (5.0, 1, 1), (7.0, 1, 1)]  # (numeric, nominal, class)
    for value, code, y in rows:
        pool.learn(pool.prepare(np.array([value, code], dtype=float)), y, np.ones(1))
    votes = np.array(
        [
            np.log(3 / 5) + norm.logpdf(2.5, 2.0, 1.0) + np.log(2 / 3),  # class 0: mean 2, variance 1
            np.log(2 / 5) + norm.logpdf(2.5, 6.0, np.sqrt(2.0)) + 0.0,  # class 1: mean 6, variance 2
        ]
    )
    expected = np.exp(votes - np.logaddexp.reduce(votes))
    proba = pool.predict_proba(pool.prepare(np.array([2.5, 0.0])))[0]
    if kind == "nba":  # an NBA leaf predicts by naive Bayes while it was right at least as often
        correct = pool.node_correct[pool.root[0]]
        assert correct[layout.NB_CORRECT] >= correct[layout.MC_CORRECT]
    np.testing.assert_allclose(proba, expected, rtol=1e-12)
    assert proba[1] > 0.03  # a zero probability would give class 1 none


def test_gaussian_log_pdf_is_rivers_to_the_last_bit():
    """The training kernel's weighted estimators (weights below 1: no variance yet) give river's
    ``Gaussian.log_pdf`` exactly; the square must be C's ``pow``, not a product."""
    from river.proba import Gaussian

    from boostbench.learners.vfdt.naive_bayes import log_pdf

    rng = np.random.default_rng(12)
    mismatches, finite = 0, 0
    for trial in range(3000):
        estimator, stats = Gaussian(), np.zeros(5)
        for value in rng.normal(rng.uniform(-50, 50), rng.uniform(0.01, 30), size=rng.integers(1, 6)):
            w = float(rng.uniform(0.05, 0.6) if trial % 3 == 0 else rng.uniform(1, 50))
            estimator.update(float(value), w)
            old_mean = stats[1]
            stats[0] += w
            stats[1] += w / stats[0] * (value - old_mean)
            stats[2] += w * (value - old_mean) * (value - stats[1])
        for point in rng.normal(stats[1], 40, size=5):
            expected = estimator.log_pdf(float(point))
            got = log_pdf(stats, float(point), 2.0)
            mismatches += got != expected
            finite += np.isfinite(got)
    assert mismatches == 0 and finite > 9000


def test_an_nb_leaf_below_its_threshold_predicts_its_majority_class():
    pool = CompiledHoeffdingTreePool(pool_params(), 2, [0], leaf_prediction="nb", nb_threshold=4.0)
    for value, y in [(1.0, 0), (2.0, 0), (9.0, 1)]:
        pool.learn(pool.prepare(np.array([value])), y, np.ones(1))
    np.testing.assert_array_equal(pool.predict_proba(pool.prepare(np.array([9.0])))[0], [2 / 3, 1 / 3])
    pool.learn(pool.prepare(np.array([9.5])), 1, np.ones(1))  # weight 4: naive Bayes from now on
    assert pool.predict_proba(pool.prepare(np.array([9.0])))[0, 1] > 0.99


def test_an_unknown_leaf_kind_is_refused():
    with pytest.raises(ValueError, match="leaf_prediction must be one of mc, nb, nba, got 'bayes'"):
        CompiledHoeffdingTreePool(pool_params(), 2, [0], leaf_prediction="bayes")


def test_the_defaults_learner_is_rivers_hoeffding_tree():
    """``learner=hoeffding_tree_defaults``: every tree has river's default parameters (which are
    MOA's), c_i = 1, on the compiled pool; the river pool builds river's default tree."""
    composed = compose_config(["dataset=car", "algorithm=online_boosting", "learner=hoeffding_tree_defaults"])
    cfg = learner_config(OmegaConf.to_container(composed.learner, resolve=True))
    params = HoeffdingTreeParams.draw(3, np.random.default_rng(0), cfg)
    default = HoeffdingTreeClassifier()
    assert cfg.backend == "compiled" and cfg.leaf_prediction == default.leaf_prediction == "nba"
    assert (params.delta == default.delta).all() and (params.tau == default.tau).all()
    assert (params.grace_period == default.grace_period).all() and (params.weight_scale == 1.0).all()
    assert cfg.nb_threshold == default.nb_threshold and cfg.feature_subset_size is None
    river = RiverHoeffdingTreePool(params, 4, [0, 1], leaf_prediction=cfg.leaf_prediction)
    ours = river.trees[0]._get_params()
    assert ours == {**default._get_params(), "nominal_attributes": [0, 1]}


def test_leaf_configs_are_checked():
    base = {
        "name": "hoeffding_tree",
        "backend": "river",
        "delta": 1e-7,
        "tau": [0.01, 0.9],
        "grace_period": 200,
        "weight_scale": 1,
        "feature_subset_size": None,
        "max_size": None,
    }
    learner_config({**base, "leaf_prediction": "nba", "rules": "river"})
    with pytest.raises(ConfigError, match=r"majority-class leaves: learner\.leaf_prediction=nb needs learner\.rules"):
        learner_config({**base, "leaf_prediction": "nb", "rules": "reference"})
    with pytest.raises(ConfigError, match=r"learner\.delta must be a number in \(0, 1\) or \[low, high\]"):
        learner_config({**base, "delta": -1.0, "leaf_prediction": "mc"})


@bit_for_bit
@pytest.mark.parametrize(
    "dataset,algorithm,examples",
    [("car", "online_boosting", 0), ("balance", "adaboost_olm", 0), ("image_segments", "online_boosting", 700)],
)
def test_boosters_on_rivers_default_trees_match_the_river_pool(dataset, algorithm, examples):
    """The peers' trees (grace 200, delta 1e-7, tau 0.05, NBA leaves) under our boosters: the same
    run on the compiled pool as on river's trees (Oza's compiled steps read only each tree's most
    probable class: naive Bayes' clear choices one-hot, on nominal and numeric attributes)."""

    def curve(backend):
        overrides = [f"dataset={dataset}", f"algorithm={algorithm}", "n_learners=10", "seed=0"]
        overrides += [f"protocol.max_examples={examples}"] if examples else []
        learner = ["learner=hoeffding_tree_defaults", f"learner.backend={backend}"]
        return run_experiment(compose_config([*overrides, *learner]))["curve"]

    assert curve("compiled") == curve("river")
