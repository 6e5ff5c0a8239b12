"""Naive Bayes, TAN and BAN learners, the synthetic generator and Sun's report logic."""

import numpy as np
import pytest
from omegaconf import OmegaConf

from boostbench.config import compose_config
from boostbench.data.synthetic import SIGNAL, bayes_accuracy, random_network, sample, synthetic_dataset
from boostbench.errors import ConfigError
from boostbench.experiment import run_experiment
from boostbench.learners.bayes_net import BayesNetModel, RowTable, family_counts
from boostbench.learners.bayes_pool import BayesParams, BayesPool
from boostbench.learners.bn_structure import ban_parents, conditional_mutual_information, tan_parents
from boostbench.learners.discretize import Discretizer
from boostbench.reporting.sun_tables import online_worse


def chain_data(n=4000, seed=0):
    """Class C; X0 depends on C; X1 copies X0 90% of the time; X2 copies X1; X3, X4 noise given C."""
    rng = np.random.default_rng(seed)
    y = rng.integers(2, size=n)
    X = np.zeros((n, 5), dtype=np.int64)
    X[:, 0] = np.where(rng.random(n) < 0.7, y, 1 - y)
    X[:, 1] = np.where(rng.random(n) < 0.9, X[:, 0], rng.integers(2, size=n))
    X[:, 2] = np.where(rng.random(n) < 0.9, X[:, 1], rng.integers(2, size=n))
    X[:, 3:] = np.where(rng.random((n, 2)) < 0.6, y[:, None], 1 - y[:, None])
    return X, y


def learner_cfg(name, **extra):
    return OmegaConf.create({"name": name, "alpha": 1.0, "n_bins": 4, "relearn_first": 10 ** 9,
                             "relearn_factor": 2.0, "max_parents": 2, **extra})


def test_tan_recovers_a_known_chain():
    X, y = chain_data()
    parents = tan_parents(X, y, np.ones(len(y)), np.full(5, 2), 2)
    assert parents[0] == () and parents[1] == (0,) and parents[2] == (1,)
    assert all(len(p) == 1 for p in parents[1:])           # a spanning tree rooted at 0


def test_conditional_mutual_information_known_values():
    X, y = chain_data(n=20000, seed=1)
    X[:, 4] = X[:, 3]                                       # a copy: I = H(X3 | C)
    cmi = conditional_mutual_information(X, y, np.ones(len(y)), np.full(5, 2), 2)
    p = 0.6
    entropy = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    assert cmi[3, 4] == pytest.approx(entropy, abs=0.01)
    assert cmi[0, 3] < 0.002 and np.allclose(cmi, cmi.T)   # independent given the class


def test_ban_finds_the_strong_dependencies_and_beats_naive_bayes_on_bic():
    X, y = chain_data()
    parents = ban_parents(X, y, np.ones(len(y)), np.full(5, 2), 2, max_parents=2)
    edges = {(p, i) for i, pa in enumerate(parents) for p in pa}
    assert {(0, 1), (1, 0)} & edges and {(1, 2), (2, 1)} & edges
    assert not {(3, 4), (4, 3)} & edges                     # noise given the class: no edge
    assert ban_parents(X, y, np.ones(len(y)), np.full(5, 2), 2, max_parents=0) == [()] * 5


def mixed_data(n=300, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(3, size=n)
    X = np.column_stack([rng.integers(4, size=n), rng.normal(y, 1.0), rng.integers(2, size=n),
                         rng.normal(-y, 2.0)]).astype(float)
    X[rng.random((n, 4)) < 0.05] = np.nan
    return X, y, np.array([4, 0, 2, 0])


def test_online_naive_bayes_after_one_pass_equals_batch():
    X, y, cats = mixed_data()
    params = BayesParams.from_config(learner_cfg("naive_bayes"), X, cats, np.random.default_rng(0))
    pool = BayesPool(params, 1, 3)
    for x, label in zip(X, y):
        pool.learn_member(0, pool.prepare(x), int(label), 1.0)
    batch = params.fit_label(X, y, np.full(len(y), 1 / len(y)), 3, np.random.default_rng(0))
    online = pool.members[0].model
    np.testing.assert_allclose(online.counts, batch.model.counts)
    np.testing.assert_allclose(online.moments, batch.model.moments, rtol=1e-10)
    online_p = np.stack([pool.predict_proba_member(0, pool.prepare(x)) for x in X])
    np.testing.assert_allclose(online_p, batch.predict_proba(X), rtol=1e-9)


@pytest.mark.parametrize("kind", ["tan", "ban"])
def test_online_structure_matches_batch_after_relearning_on_the_same_counts(kind):
    X, y, cats = mixed_data(n=400)
    params = BayesParams.from_config(learner_cfg(kind), X, cats, np.random.default_rng(0))
    pool = BayesPool(params, 1, 3)
    for x, label in zip(X, y):
        pool.learn_member(0, pool.prepare(x), int(label), 1.0)
    member = pool.members[0]
    member.relearn()
    batch = params.fit_label(X, y, np.full(len(y), 1 / len(y)), 3, np.random.default_rng(0))
    assert member.model.parents == batch.parents
    np.testing.assert_allclose(member.model.counts, batch.model.counts)
    online_p = np.stack([pool.predict_proba_member(0, pool.prepare(x)) for x in X])
    np.testing.assert_allclose(online_p, batch.predict_proba(X), rtol=1e-9)


def test_online_tan_relearns_on_its_geometric_schedule():
    X, y = chain_data(n=500)
    params = BayesParams.from_config(learner_cfg("tan", relearn_first=50), X.astype(float), np.full(5, 2),
                                     np.random.default_rng(0))
    pool = BayesPool(params, 1, 2)
    for x, label in zip(X[:120].astype(float), y[:120]):
        pool.learn_member(0, pool.prepare(x), int(label), 1.0)
    member = pool.members[0]
    assert member.next_relearn == 200 and member.model.parents != [()] * 5


def test_counts_are_weighted_and_rows_merge():
    table = RowTable(2, 2)
    table.add(np.array([1, 0]), 1, 2.5)
    table.add(np.array([1, 0]), 1, 0.5)
    table.add(np.array([0, -1]), 0, 1.0)
    codes, y, w = table.weighted_rows()
    assert table.n_rows == 2 and w.sum() == 4.0 and sorted(w.tolist()) == [1.0, 3.0]
    counts = family_counts(codes, y, w, 0, (), np.array([2, 2]), 2)
    assert counts[1, 0, 1] == 3.0 and counts[0, 0, 0] == 1.0
    model = BayesNetModel(np.array([2, 2]), 2, [(), (0,)]).add_batch(codes, None, y, w)
    assert model.class_weight.tolist() == [1.0, 3.0]        # the row with X1 missing still counts for C


def test_discretizer_bins_are_equal_frequency_and_code_missing_as_a_value():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=1000), rng.integers(3, size=1000)]).astype(float)
    X[5, 0] = np.nan
    disc = Discretizer.fit(X, np.array([0, 3]), 4, rng)
    codes = disc.transform(X)
    assert codes[5, 0] == 4 and np.array_equal(disc.cards, [5, 4])   # the last code is "missing"
    assert np.all(np.abs(np.bincount(codes[codes[:, 0] < 4, 0]) - 250) <= 1)
    assert np.array_equal(codes[:, 1], X[:, 1].astype(int))


def test_synthetic_data_is_seeded_and_harder_at_lower_levels():
    a, b = synthetic_dataset("s", 2, 500, 100, seed=1), synthetic_dataset("s", 2, 500, 100, seed=1)
    assert np.array_equal(a.X, b.X) and a.n_train == 500 and a.X.shape == (600, 20)
    accuracies = []
    for level in sorted(SIGNAL):
        rng = np.random.default_rng(1)
        network = random_network(20, 3, SIGNAL[level], rng)
        accuracies.append(bayes_accuracy(network, *sample(network, 20000, rng)))
    assert accuracies[0] < accuracies[1] < accuracies[2] and 0.7 < accuracies[0] and accuracies[2] > 0.95
    with pytest.raises(ConfigError):
        synthetic_dataset("s", 4, 10, 10, seed=1)


def test_paired_test_marks_online_boosting_significantly_worse():
    batch = np.array([0.90, 0.91, 0.89, 0.92, 0.90])
    assert online_worse(batch, batch - np.array([0.05, 0.06, 0.04, 0.05, 0.06]), None)[0]
    assert not online_worse(batch, batch + 0.01, None)[0]
    assert online_worse(np.array([0.90]), np.array([0.85]), 20000)[0]
    assert not online_worse(np.array([0.90]), np.array([0.89]), 100)[0]


@pytest.mark.slow  # make test-slow
def test_sun_columns_run_under_kfold():
    errors = {}
    for algorithm in ("base", "online_base", "adaboost_m1", "online_boosting", "online_bagging"):
        cfg = compose_config([f"algorithm={algorithm}", "learner=tan", "dataset=car", "protocol=kfold",
                              "n_learners=3", "n_rounds=3"])
        errors[algorithm] = run_experiment(cfg)["metrics"]["test_error"]
    assert all(0.0 <= e < 0.3 for e in errors.values()), errors


def test_tan_needs_a_training_part_to_discretise():
    cfg = compose_config(["algorithm=online_boosting", "learner=tan", "dataset=german", "n_learners=2"])
    with pytest.raises(ConfigError, match="training part"):
        run_experiment(cfg)


def test_a_often_missing_noise_attribute_does_not_become_a_hub():
    """Scored on all rows (missing is a value), a noise attribute missing 40% of the time gains
    no children; scored only where it is present it would look like a great parent."""
    X, y = chain_data(n=3000, seed=4)
    rng = np.random.default_rng(4)
    noise = rng.integers(2, size=len(y)).astype(float)
    noise[rng.random(len(y)) < 0.4] = np.nan
    Xf = np.column_stack([X.astype(float), noise])
    params = BayesParams.from_config(learner_cfg("ban"), Xf, np.full(6, 2), np.random.default_rng(0))
    model = params.fit_label(Xf, y, np.ones(len(y)), 2, np.random.default_rng(0))
    assert all(5 not in parents for parents in model.parents)


def test_the_fixed_split_tests_pair_seeds_and_a_single_seed_uses_the_two_proportion_z_test():
    from scipy import stats

    # one seed: statsmodels' pooled two-proportion z-test, by hand
    b, o, n = 0.90, 0.88, 1000
    pooled = (b + o) / 2
    z = (o - b) / np.sqrt(pooled * (1 - pooled) * 2 / n)
    assert online_worse(np.array([b]), np.array([o]), n)[1] == pytest.approx(stats.norm.cdf(z), rel=1e-9)
    # several seeds on one test set: paired over seeds (not n_test x seeds independent examples)
    batch = np.array([0.90, 0.91, 0.89])
    online = batch - np.array([0.002, -0.001, 0.004])
    worse, p = online_worse(batch, online, 20000)
    assert p == pytest.approx(stats.ttest_rel(online, batch, alternative="less").pvalue) and not worse
