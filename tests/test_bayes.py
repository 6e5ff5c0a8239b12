"""Naive Bayes, TAN and BAN learners, the synthetic generator and Sun's report logic."""

import numpy as np
import pandas as pd
import pytest
from conftest import learner_file

from boostbench.data.synthetic import SIGNAL, bayes_accuracy, random_network, sample, synthetic_dataset
from boostbench.errors import ConfigError
from boostbench.learners.bayes.ci_tests import ban_ci_parents, cut_conditional_mi
from boostbench.learners.bayes.discretize import Discretizer
from boostbench.learners.bayes.network import BayesNetModel, RowTable, family_counts
from boostbench.learners.bayes.pool import BayesParams, BayesPool
from boostbench.learners.bayes.structure import ban_parents, conditional_mutual_information, family_score, tan_parents
from boostbench.reporting.sun_tables import online_worse
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment


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
    """The ``learner=name`` config with 4 bins and no online re-learning, unless ``extra`` says."""
    return learner_file(name, **{"n_bins": 4, "relearn_first": 10**9, **extra})


def test_tan_recovers_a_known_chain():
    X, y = chain_data()
    parents = tan_parents(X, y, np.ones(len(y)), np.full(5, 2), 2)
    assert parents[0] == () and parents[1] == (0,) and parents[2] == (1,)
    assert all(len(p) == 1 for p in parents[1:])  # a spanning tree rooted at 0


def test_conditional_mutual_information_known_values():
    X, y = chain_data(n=20000, seed=1)
    X[:, 4] = X[:, 3]  # a copy: I = H(X3 | C)
    cmi = conditional_mutual_information(X, y, np.ones(len(y)), np.full(5, 2), 2)
    p = 0.6
    entropy = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    assert cmi[3, 4] == pytest.approx(entropy, abs=0.01)
    assert cmi[0, 3] < 0.002 and np.allclose(cmi, cmi.T)  # independent given the class


def test_ban_finds_the_strong_dependencies_and_beats_naive_bayes_on_bic():
    X, y = chain_data()
    parents = ban_parents(X, y, np.ones(len(y)), np.full(5, 2), 2, max_parents=2)
    edges = {(p, i) for i, pa in enumerate(parents) for p in pa}
    assert {(0, 1), (1, 0)} & edges and {(1, 2), (2, 1)} & edges
    assert not {(3, 4), (4, 3)} & edges  # noise given the class: no edge
    assert ban_parents(X, y, np.ones(len(y)), np.full(5, 2), 2, max_parents=0) == [()] * 5


def mixed_data(n=300, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(3, size=n)
    X = np.column_stack(
        [rng.integers(4, size=n), rng.normal(y, 1.0), rng.integers(2, size=n), rng.normal(-y, 2.0)]
    ).astype(float)
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
    params = BayesParams.from_config(
        learner_cfg("tan", relearn_first=50), X.astype(float), np.full(5, 2), np.random.default_rng(0)
    )
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
    assert model.class_weight.tolist() == [1.0, 3.0]  # the row with X1 missing still counts for C


def test_discretizer_bins_are_equal_frequency_and_code_missing_as_a_value():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=1000), rng.integers(3, size=1000)]).astype(float)
    X[5, 0] = np.nan
    disc = Discretizer.fit(X, np.array([0, 3]), 4, rng)
    codes = disc.transform(X)
    assert codes[5, 0] == 4 and np.array_equal(disc.cards, [5, 4])  # the last code is "missing"
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
    assert accuracies[0] < accuracies[1] < accuracies[2] and accuracies[0] > 0.7 and accuracies[2] > 0.95
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
        rounds = ["n_rounds=3"] if algorithm == "adaboost_m1" else []  # the one with rounds
        cfg = compose_config(
            [f"algorithm={algorithm}", "learner=tan", "dataset=car", "protocol=kfold", "n_learners=3", *rounds]
        )
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


def copy_data(n=3000, seed=5):
    """X0 depends on C; X1 copies X0 given C (85%); X2, X3 depend on C only (independent given C)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(2, size=n)
    X = np.zeros((n, 4), dtype=np.int64)
    X[:, 0] = np.where(rng.random(n) < 0.7, y, 1 - y) + 2 * rng.integers(2, size=n)  # 4 values
    X[:, 1] = np.where(rng.random(n) < 0.85, X[:, 0], rng.integers(4, size=n))
    X[:, 2:] = np.where(rng.random((n, 2)) < 0.65, y[:, None], 1 - y[:, None])
    return X, y, np.array([4, 4, 2, 2])


@pytest.mark.parametrize("epsilon", [0.01, None])  # CBL's fixed threshold, the G-test's
def test_ci_ban_finds_the_copy_and_no_arc_between_attributes_independent_given_the_class(epsilon):
    X, y, cards = copy_data()
    parents = ban_ci_parents(X, y, np.ones(len(y)), cards, 2, epsilon=epsilon)
    edges = {(p, i) for i, pa in enumerate(parents) for p in pa}
    assert edges in ({(0, 1)}, {(1, 0)})
    assert ban_ci_parents(X, y, np.ones(len(y)), cards, 2, epsilon=epsilon, max_parents=0) == [()] * 4
    # X1 and X2 both copy X0: the chain's CMI(X1; X2 | C) is large, but X0 separates them (thinning)
    rng = np.random.default_rng(6)
    Xc, yc = chain_data(n=20000, seed=6)
    Xc[:, 2] = np.where(rng.random(len(yc)) < 0.9, Xc[:, 0], rng.integers(2, size=len(yc)))
    parents = ban_ci_parents(Xc, yc, np.ones(len(yc)), np.full(5, 2), 2, epsilon=epsilon)
    edges = {frozenset((p, i)) for i, pa in enumerate(parents) for p in pa}
    # (X3, X4 are independent given C: a level-1% test calls them dependent 1% of the time)
    assert {e for e in edges if e <= {0, 1, 2}} == {frozenset((0, 1)), frozenset((0, 2))}


def test_the_g_test_adds_no_arc_on_small_samples_of_independent_attributes_where_a_fixed_threshold_does():
    rng = np.random.default_rng(8)
    y = rng.integers(2, size=84)  # promoters' size: 84 rows, 4 values
    X = rng.integers(4, size=(84, 12))
    g_test = ban_ci_parents(X, y, np.ones(84), np.full(12, 4), 2)
    fixed = ban_ci_parents(X, y, np.ones(84), np.full(12, 4), 2, epsilon=0.01)
    assert 4 * sum(map(len, g_test)) < sum(map(len, fixed))


def test_cut_conditional_mi_is_zero_given_the_common_cause_and_equals_cmi_without_a_cut():
    X, y = chain_data(n=20000, seed=7)
    cmi = conditional_mutual_information(X, y, np.ones(len(y)), np.full(5, 2), 2)
    w = np.ones(len(y))
    assert cut_conditional_mi(X, y, w, np.full(5, 2), 2, 0, 2, ()) == pytest.approx(cmi[0, 2], rel=1e-12)
    assert cut_conditional_mi(X, y, w, np.full(5, 2), 2, 0, 2, (1,)) < 0.002 < cmi[0, 2]


def test_family_scores_known_values():
    counts = np.array([[[3.0, 1.0]], [[0.0, 2.0]]])  # k = 2 classes, no parent, 2 values
    from math import lgamma, log

    k2 = sum(lgamma(2) - lgamma(2 + sum(row)) + sum(lgamma(1 + c) for c in row) for row in ([3, 1], [0, 2]))
    assert family_score(counts, "k2", 0.0) == pytest.approx(k2)
    cell = 4.0 / 4  # ess 4 over 4 cells
    bdeu = sum(
        lgamma(2 * cell) - lgamma(2 * cell + sum(row)) + sum(lgamma(cell + c) - lgamma(cell) for c in row)
        for row in ([3, 1], [0, 2])
    )
    assert family_score(counts, "bdeu", 0.0, ess=4.0) == pytest.approx(bdeu)
    bic = 3 * log(3 / 4) + 1 * log(1 / 4) + 2 * log(1.0) - 0.5 * log(6) * 2
    assert family_score(counts, "bic", log(6)) == pytest.approx(bic)
    with pytest.raises(ValueError, match="unknown structure score"):
        family_score(counts, "aic", 0.0)


@pytest.mark.parametrize("score", ["bic", "bdeu", "k2"])
def test_every_score_finds_the_chain_and_leaves_the_noise(score):
    X, y = chain_data()
    parents = ban_parents(X, y, np.ones(len(y)), np.full(5, 2), 2, score=score)
    edges = {frozenset((p, i)) for i, pa in enumerate(parents) for p in pa}
    assert frozenset((0, 1)) in edges and frozenset((1, 2)) in edges and frozenset((3, 4)) not in edges


def test_a_frozen_online_learner_keeps_the_structure_of_its_first_n0_examples_and_updates_its_tables():
    X, y = chain_data(n=600)
    Xf = X.astype(float)
    params = BayesParams.from_config(
        learner_cfg("tan", relearn_first=40, online_structure="frozen"), Xf, np.full(5, 2), np.random.default_rng(0)
    )
    pool = BayesPool(params, 1, 2)
    member = pool.members[0]
    for t, (x, label) in enumerate(zip(Xf, y)):
        pool.learn_member(0, pool.prepare(x), int(label), 1.0)
        if t == 39:
            structure, counts = member.model.parents, member.model.counts.copy()
    first = params.fit_label(Xf[:40], y[:40], np.ones(40), 2, np.random.default_rng(0))
    assert structure == first.parents and member.model.parents == structure and member.kept is None
    # the tables kept counting all 600 examples under the frozen structure
    full = BayesNetModel(params.discretizer.cards, 2, structure).add_batch(X, None, y, np.ones(len(y)))
    np.testing.assert_allclose(member.model.counts, full.counts)
    assert member.model.counts.sum() > counts.sum()


def test_a_window_learner_relearns_structure_and_counts_from_its_last_examples_only():
    X, y = chain_data(n=400)
    Xf = X.astype(float)
    params = BayesParams.from_config(
        learner_cfg("ban", relearn_first=100, online_structure="window", window=60),
        Xf,
        np.full(5, 2),
        np.random.default_rng(0),
    )
    pool = BayesPool(params, 1, 2)
    for x, label in zip(Xf[:200], y[:200]):
        pool.learn_member(0, pool.prepare(x), int(label), 1.0)
    member = pool.members[0]  # re-learned at 100 and 200
    last = params.fit_label(Xf[140:200], y[140:200], np.ones(60), 2, np.random.default_rng(0))
    assert member.model.parents == last.parents and len(member.kept) == 60
    np.testing.assert_allclose(member.model.counts, last.model.counts)


def test_an_unknown_structure_or_online_mode_is_refused_in_one_line():
    for override in ("learner.structure=aic", "learner.online_structure=sometimes", "learner.epsilon=-1"):
        cfg = compose_config(["algorithm=online_boosting", "learner=ban", "dataset=car", "protocol=kfold", override])
        with pytest.raises(ConfigError, match="learner"):
            run_experiment(cfg)


def test_the_same_seed_gives_the_same_numbers_with_lossy_online_learners():
    def errors(seed):
        cfg = compose_config(
            [
                "algorithm=online_boosting",
                "learner=ban",
                "dataset=promoters",
                "protocol=kfold",
                "protocol.n_splits=2",
                "n_learners=3",
                "learner.online_structure=frozen",
                f"seed={seed}",
            ]
        )
        return run_experiment(cfg)["metrics"]["fold_test_error"]

    first = errors(0)
    assert errors(0) == first and errors(1) != first


def test_sun_report_flags_cells_whose_paper_value_is_outside_the_interval_and_over_3_points_away():
    from boostbench.reporting.sun_tables import expected_settings, rebuild, to_markdown

    rows = []
    batch = {
        "base": [0.94, 0.95, 0.93, 0.94, 0.95],
        "adaboost_m1": [0.97, 0.98, 0.97, 0.98, 0.97],
        "online_base": [0.89, 0.88, 0.90, 0.89, 0.88],
        "online_boosting": [0.95, 0.96, 0.95, 0.96, 0.95],
    }
    for seed in range(3):
        for algorithm, accuracies in batch.items():
            rows.append(
                {
                    "dataset": "car",
                    "algorithm": algorithm,
                    "learner": "tan",
                    "protocol": "kfold",
                    "seed": seed,
                    "n_test": 1728,
                    "fold_test_error": [1 - a for a in accuracies],
                    "settings": expected_settings("car", algorithm, "tan"),
                    "n_learners": 10,
                }
            )
    lever = dict(rows[0], settings=expected_settings("car", "base", "tan", ("learner.online_structure=lossless",)))
    # settings leave N out (a table filter): a run with M = 30 is not one of the M = 10 cell's
    bigger = dict(rows[3], n_learners=30, fold_test_error=[0.5] * 5)
    table = rebuild(pd.DataFrame(rows + [lever, bigger]))
    car = table[(table.learner == "tan") & (table.dataset == "car")].set_index("column")
    # paper (Table 2, car): 94.4, 88.8, 97.8, 88.6; only online boosting (95.4 vs 88.6) is flagged
    assert car.loc["base", "n"] == 15 and car.loc["base", "ours"] == pytest.approx(94.2)
    assert car.loc["base", "low"] < 94.2 < car.loc["base", "high"]
    assert car["flagged"].tolist() == [False, False, False, True]
    assert car.loc["online_boosting", "online_worse"]  # 2 points below batch in every fold
    assert "95.4 [95.1, 95.7] − / 88.6 ⚑" in to_markdown(table)


def test_equal_width_bins_cut_between_the_training_extremes_and_a_skipped_missing_value_is_left_out():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.r_[0.0, 10.0, rng.uniform(0, 1, size=98)], rng.integers(3, size=100)])
    X[7, 0], X[8, 1] = np.nan, np.nan
    width = Discretizer.fit(X, np.array([0, 3]), 5, rng, binning="width")
    np.testing.assert_allclose(width.cuts[0], [2.0, 4.0, 6.0, 8.0])  # 0..10 in 5 bins of width 2
    codes = width.transform(X)
    assert codes[1, 0] == 4 and np.all(codes[2:, 0][~np.isnan(X[2:, 0])] == 0) and codes[7, 0] == 5
    skip = Discretizer.fit(X, np.array([0, 3]), 5, rng, binning="width", missing="skip")
    assert np.array_equal(skip.cards, width.cards - 1)
    codes = skip.transform(X)
    assert codes[7, 0] == -1 and codes[8, 1] == -1
    # a skipped value leaves its attribute out of the product: the row scores as if it had no X0
    y = rng.integers(2, size=100)
    model = BayesNetModel(skip.cards, 2, [(), ()]).add_batch(codes, None, y, np.ones(100))
    alone = BayesNetModel(skip.cards[1:], 2, [()]).add_batch(codes[:, 1:], None, y, np.ones(100))
    np.testing.assert_allclose(model.predict_proba(codes[7:8], X[7:8]), alone.predict_proba(codes[7:8, 1:], X[7:8, 1:]))


def test_bin_rows_fits_the_cut_points_on_a_seeded_sample_of_that_many_rows():
    X = np.random.default_rng(1).normal(size=(1000, 1))
    few = Discretizer.fit(X, np.array([0]), 5, np.random.default_rng(2), sample_rows=50)
    rows = np.sort(np.random.default_rng(2).choice(1000, 50, replace=False))
    np.testing.assert_allclose(few.cuts[0], np.quantile(X[rows, 0], [0.2, 0.4, 0.6, 0.8]))


def test_oza_with_expected_presentations_trains_member_m_with_weight_lambda_m():
    """presentations="expected": no Poisson draw; on a first example every count model is right
    after training, so lambda halves member by member (Oza: lambda *= 1 / (2 (1 - eps)), eps = 0)."""
    from boostbench.boosters import OnlineBoosting

    X, y = chain_data(n=10)
    params = BayesParams.from_config(
        learner_cfg("naive_bayes"), X.astype(float), np.full(5, 2), np.random.default_rng(0)
    )
    booster = OnlineBoosting(BayesPool(params, 4, 2), 2, np.random.default_rng(0), presentations="expected")
    booster.predict_proba(X[0].astype(float))
    booster.update(int(y[0]))
    weights = [member.model.class_weight.sum() for member in booster.pool.members]
    np.testing.assert_allclose(weights, [1.0, 0.5, 0.25, 0.125])
    np.testing.assert_allclose(booster.lambda_sc, [1.0, 0.5, 0.25, 0.125])
    with pytest.raises(ValueError, match="presentations"):
        OnlineBoosting(BayesPool(params, 2, 2), 2, np.random.default_rng(0), presentations="mean")


def conditional_table(model, i, parent_value, c):
    """``P(x_i = v | x_parent = parent_value, c)`` for every v, read off ``log_joint``: attribute i
    (whose one parent is attribute 0) present with each value against i missing, all else missing."""
    d = len(model.cards)
    rows = np.full((model.cards[i] + 1, d), -1, dtype=np.int64)
    rows[:, 0] = parent_value
    rows[:-1, i] = np.arange(model.cards[i])
    logp = model.log_joint(rows, np.zeros((len(rows), d)))[:, c]
    return np.exp(logp[:-1] - logp[-1])


@pytest.mark.parametrize("smoothing", ["laplace", "marginal", "class_marginal"])
def test_every_smoothing_gives_conditional_tables_that_sum_to_one(smoothing):
    X, y = chain_data(n=300)
    cards = np.array([2, 3, 2, 2, 2])
    X[:, 1] = np.where(X[:, 4] == 1, 2, X[:, 1])  # a third value of X1
    model = BayesNetModel(cards, 2, [(), (0,), (1,), (), ()], smoothing=smoothing, n0=5.0)
    model.add_batch(X, None, y, np.linspace(0.5, 2.0, len(y)))
    for parent_value in (0, 1):
        for c in (0, 1):
            table = conditional_table(model, 1, parent_value, c)
            assert np.all(table > 0) and table.sum() == pytest.approx(1.0, abs=1e-12)


def test_an_unseen_parent_configuration_backs_off_to_the_marginal_it_is_smoothed_toward():
    # X1 has parent X0; X0 = 1 is never seen with class 1, so N(c=1, pa) = 0 and the cell is the
    # marginal itself: P(x1 | c = 1) for class_marginal, P(x1) for marginal (each Laplace-smoothed)
    X = np.array([[0, 0], [0, 1], [0, 1], [1, 0], [0, 0], [0, 1], [0, 1], [0, 1]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    cards = np.array([2, 2])
    for smoothing, expected in (
        ("class_marginal", [(1 + 1) / (4 + 2), (3 + 1) / (4 + 2)]),
        ("marginal", [(3 + 1) / (8 + 2), (5 + 1) / (8 + 2)]),
    ):
        model = BayesNetModel(cards, 2, [(), (0,)], smoothing=smoothing, n0=5.0).add_batch(X, None, y, np.ones(8))
        assert conditional_table(model, 1, 1, 1) == pytest.approx(expected, abs=1e-12)
    # a seen configuration: (N(c, pa, x) + n0 P(x | c)) / (N(c, pa) + n0); class 0, X0 = 0: N = 1, 2
    model = BayesNetModel(cards, 2, [(), (0,)], smoothing="class_marginal", n0=5.0).add_batch(X, None, y, np.ones(8))
    p0 = [(2 + 1) / (4 + 2), (2 + 1) / (4 + 2)]
    assert conditional_table(model, 1, 0, 0) == pytest.approx([(1 + 5 * p0[0]) / 8, (2 + 5 * p0[1]) / 8], abs=1e-12)


@pytest.mark.parametrize("smoothing", ["marginal", "class_marginal"])
def test_online_counts_equal_batch_counts_under_the_marginal_smoothings(smoothing):
    X, y = chain_data(n=200, seed=4)
    X[::7, 2] = -1  # missing values skip their family
    w = np.linspace(0.2, 3.0, len(y))
    parents = [(), (0,), (1,), (), ()]
    batch = BayesNetModel(np.full(5, 2), 2, parents, smoothing=smoothing).add_batch(X, None, y, w)
    online = BayesNetModel(np.full(5, 2), 2, parents, smoothing=smoothing)
    for row, label, weight in zip(X, y, w):
        online.add(row, row.astype(float), int(label), float(weight))
    np.testing.assert_allclose(online.marginal, batch.marginal, rtol=1e-12)
    np.testing.assert_allclose(online.log_joint(X, X.astype(float)), batch.log_joint(X, X.astype(float)), rtol=1e-12)


def test_class_marginal_smoothing_leans_a_tan_on_few_rows_toward_naive_bayes():
    # 30 rows, 12 four-valued attributes chained to the class: TAN's parent configurations are seen
    # once or twice, so Laplace cells pull toward uniform; backing off to P(x_i | c) keeps the
    # class signal. Accuracy on 2,000 fresh rows, same structure.
    rng = np.random.default_rng(3)

    def draw(n):
        y = rng.integers(2, size=n)
        X = np.where(rng.random((n, 12)) < 0.3, 2 * y[:, None], rng.integers(4, size=(n, 12)))
        return X.astype(np.int64), y

    X, y = draw(30)
    Xt, yt = draw(2000)
    parents = [()] + [(j - 1,) for j in range(1, 12)]
    accuracy = {}
    for smoothing in ("laplace", "class_marginal"):
        model = BayesNetModel(np.full(12, 4), 2, parents, smoothing=smoothing).add_batch(X, None, y, np.ones(30))
        accuracy[smoothing] = (model.predict_proba(Xt, Xt.astype(float)).argmax(1) == yt).mean()
    assert accuracy["class_marginal"] > accuracy["laplace"] + 0.02


def test_an_unknown_smoothing_is_refused_in_one_line():
    cfg = compose_config(
        ["dataset=promoters", "algorithm=base", "learner=tan", "protocol=kfold", "learner.smoothing=dirichlet"]
    )
    with pytest.raises(ConfigError, match=r"learner.smoothing"):
        run_experiment(cfg)


@pytest.mark.parametrize(
    "kind,smoothing,missing",
    [
        ("naive_bayes", "laplace", "value"),
        ("tan", "laplace", "skip"),
        ("ban", "laplace", "value"),
        ("tan", "class_marginal", "value"),
    ],
)
def test_one_example_steps_are_the_numpy_ones_to_the_bit(kind, smoothing, missing):
    """An online learner's per-example steps run compiled (the codes, the counting, one row's
    class distribution); numpy's batch code gives the same bits: the codes of ``transform``,
    the counts of ``add_batch`` on that one row, the distribution of ``predict_proba`` on two rows."""
    X, y, cats = mixed_data(n=400)
    params = BayesParams.from_config(
        learner_cfg(kind, smoothing=smoothing, missing=missing, relearn_first=60), X, cats, np.random.default_rng(0)
    )
    discretizer = params.discretizer
    pool = BayesPool(params, 1, 3)
    rng = np.random.default_rng(4)
    for x, label in zip(X, y):
        codes, _ = pool.prepare(x)
        assert np.array_equal(codes, discretizer.transform(x[None, :])[0])
        model = pool.members[0].model
        reference = BayesNetModel(model.cards, 3, model.parents, model.alpha, model.smoothing, model.n0)
        for name in ("counts", "totals", "marginal", "marginal_totals", "class_weight", "moments"):
            getattr(reference, name)[...] = getattr(model, name)
        weight = float(rng.choice([1.0, 3.0, rng.exponential()]))
        pool.learn_member(0, (codes, x), int(label), weight)
        if pool.members[0].model is model:  # not re-learnt: the same additions as add_batch's
            reference.add_batch(codes[None, :], x[None, :], np.array([label]), np.array([weight]))
            for name in ("counts", "totals", "marginal", "marginal_totals", "class_weight", "moments"):
                assert np.array_equal(getattr(model, name), getattr(reference, name)), name
        model = pool.members[0].model
        one = pool.predict_proba_member(0, (codes, x))
        assert np.array_equal(one, model.predict_proba(np.stack([codes, codes]), np.stack([x, x]))[0])
    assert pool.members[0].model.parents != [()] * 4 or kind == "naive_bayes"


@pytest.mark.parametrize(
    "algorithm,kind", [("online_boosting", "tan"), ("online_boosting", "naive_bayes"), ("online_base", "ban")]
)
def test_scoring_many_rows_at_once_gives_the_labels_and_draws_of_one_at_a_time(algorithm, kind):
    """After the pass the protocol scores the parts in one call per booster: the pool takes the rows
    in numpy batches; labels, ties and the generator's state are those of predict, row by row."""
    import copy

    from boostbench.algorithms import algorithm_spec

    X, y, cats = mixed_data(n=300)
    params = BayesParams.from_config(learner_cfg(kind, relearn_first=40), X, cats, np.random.default_rng(0))
    spec = algorithm_spec(algorithm)
    booster = spec.cls(BayesPool(params, spec.pool_size(5), 3), 3, np.random.default_rng(1))
    for x, label in zip(X[:200], y[:200]):
        booster.predict(x)
        booster.update(int(label))
    rows = booster.pool.proba_rows(X)  # numpy's batch path, every member
    for r in range(0, len(X), 7):  # the members' compiled rows, one np.log and np.exp for all
        assert np.array_equal(booster.pool.predict_proba(booster.pool.prepare(X[r])), rows[:, r])
    one_by_one = copy.deepcopy(booster)
    expected = [one_by_one.predict(x) for x in X]
    assert booster.predict_many(X).tolist() == expected
    assert booster.rng.bit_generator.state == one_by_one.rng.bit_generator.state
