"""Multi-label ranking (Jung & Tewari 2018): rank loss, cost vectors, potentials, data, boosters."""

import numpy as np
import pytest
from conftest import ScriptedPool, learner_file
from sklearn.metrics import label_ranking_loss

from boostbench.boosters import AdaOLMR, OnlineBMR
from boostbench.core.rank_losses import hinge_rank_loss, logistic_rank_gradient, logistic_rank_loss
from boostbench.core.rank_potentials import PairPotential, baseline, difference_pmf
from boostbench.data import load_dataset
from boostbench.data.registry import registry_specs
from boostbench.errors import DataError
from boostbench.learners.pool import draw_feature_subsets
from boostbench.metrics import rank_loss
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment

RNG = np.random.default_rng(11)


def random_case(k, rng=RNG):
    relevant = rng.random(k) < 0.4
    relevant[rng.integers(k)] = True
    relevant[rng.integers(k)] = False if relevant.all() else relevant[rng.integers(k)]
    return rng.normal(size=k), relevant


def test_rank_loss_agrees_with_sklearn_without_ties():
    for k in (3, 6, 14, 101):
        for _ in range(20):
            s, relevant = random_case(k)
            if relevant.all() or not relevant.any():
                continue
            assert rank_loss(s, relevant) == pytest.approx(label_ranking_loss(relevant[None], s[None]))


def test_rank_loss_ties_count_half():
    # the stack notes' example: mean 0.375 here, 0.75 in sklearn (which counts a tie as 1)
    y = np.array([[1, 0, 0], [0, 1, 1]], bool)
    s = np.array([[0.5, 0.5, 0.1], [0.3, 0.3, 0.3]])
    assert rank_loss(s[0], y[0]) == pytest.approx(0.25) and rank_loss(s[1], y[1]) == pytest.approx(0.5)
    assert label_ranking_loss(y, s) == pytest.approx(0.75)
    assert rank_loss(np.array([2.0, 1.0, 1.0, 0.0]), np.array([0, 1, 0, 0], bool)) == pytest.approx((1 + 0.5 + 0) / 3)


def test_rank_loss_of_empty_and_full_sets_is_zero():
    s = np.array([0.2, 0.9, 0.4])
    assert rank_loss(s, np.zeros(3, bool)) == 0.0 and rank_loss(s, np.ones(3, bool)) == 0.0
    assert logistic_rank_loss(s, np.ones(3, bool)) == 0.0
    assert np.array_equal(logistic_rank_gradient(s, np.zeros(3, bool)), np.zeros(3))


def test_rank_loss_of_many_experts():
    S = RNG.normal(size=(7, 5))
    relevant = np.array([1, 0, 0, 1, 0], bool)
    np.testing.assert_allclose(rank_loss(S, relevant), [rank_loss(s, relevant) for s in S])


@pytest.mark.parametrize("k", [2, 6, 14, 101])
def test_cost_vector_is_the_gradient_sums_to_zero_negative_on_relevant(k):
    for _ in range(5):
        s, relevant = random_case(k)
        if relevant.all() or not relevant.any():
            continue
        c = logistic_rank_gradient(s, relevant)
        assert c.sum() == pytest.approx(0.0, abs=1e-12)
        assert np.all(c[relevant] < 0) and np.all(c[~relevant] > 0)
        h = 1e-6
        numeric = [
            (logistic_rank_loss(s + h * e, relevant) - logistic_rank_loss(s - h * e, relevant)) / (2 * h)
            for e in np.eye(k)
        ]
        np.testing.assert_allclose(c, numeric, atol=1e-7)
        # eq. (9): ||c||_1 / 2 is the weight w^i[t]
        assert np.abs(c).sum() / 2 == pytest.approx(-c[relevant].sum())


def test_difference_pmf_is_a_distribution_with_the_right_mean():
    pmf = difference_pmf(12, 0.3, 0.1)
    values = np.arange(-12, 13)
    assert pmf.sum() == pytest.approx(1.0) and np.all(pmf >= 0)
    assert values @ pmf == pytest.approx(12 * (0.1 - 0.3))


@pytest.mark.parametrize(
    "loss,make_scores",
    [
        ("hinge", lambda rng, k: rng.normal(size=k)),
        ("rank", lambda rng, k: rng.integers(0, 4, size=k).astype(float)),
    ],
)
def test_potentials_exact_vs_monte_carlo_and_recursion(loss, make_scores):
    rng = np.random.default_rng(5)
    k = 6
    relevant = np.array([1, 0, 1, 0, 0, 0], bool)
    potential = PairPotential(k, 0.1, loss)
    p_rel, p_irr = baseline(k, 2, 0.1)
    u = np.where(relevant, p_rel, p_irr)
    f = hinge_rank_loss if loss == "hinge" else rank_loss
    for n in (0, 3, 10):
        s = make_scores(rng, k)
        draws = rng.multinomial(n, u, size=100_000)
        estimate = f(s[None, :] + draws, relevant).mean()
        assert potential.phi(n, s, relevant) == pytest.approx(estimate, abs=0.006)
        # eq. (1): phi^{n+1}(s) = E_{l ~ u} phi^n(s + e_l)
        expected = sum(u[l] * potential.phi(n, s + np.eye(k)[l], relevant) for l in range(k))
        assert potential.phi(n + 1, s, relevant) == pytest.approx(expected, abs=1e-12)
        c = potential.cost_vector(n, s, relevant)
        np.testing.assert_allclose(c, [potential.phi(n, s + np.eye(k)[l], relevant) for l in range(k)], atol=1e-12)


@pytest.mark.parametrize("loss", ["hinge", "rank"])
def test_potentials_are_proper(loss):
    """Decreasing in a relevant label's score, increasing in an irrelevant one's."""
    rng = np.random.default_rng(2)
    k = 5
    relevant = np.array([0, 1, 0, 0, 1], bool)
    potential = PairPotential(k, 0.05, loss)
    for _ in range(30):
        s = rng.integers(0, 5, size=k).astype(float)
        n = int(rng.integers(0, 8))
        c = potential.cost_vector(n, s, relevant)
        assert c[relevant].max() <= c[~relevant].min() + 1e-12


def test_baseline_caps_the_edge_at_one_over_the_set_size():
    p_rel, p_irr = baseline(14, 11, 0.2)
    assert p_irr == 0.0 and p_rel == pytest.approx(1 / 11)
    p_rel, p_irr = baseline(14, 3, 0.2)
    assert 3 * p_rel + 11 * p_irr == pytest.approx(1.0) and p_rel - p_irr == pytest.approx(0.2)


@pytest.mark.parametrize(
    "name,n,d,k,n_train,mean_size",
    [
        ("emotions", 593, 72, 6, 391, 1.87),
        ("scene", 2407, 294, 6, 1211, 1.07),
        ("yeast", 2417, 103, 14, 1500, 4.24),
        ("mediamill_reduced", 2000, 120, 101, 1500, 4.39),
    ],
)
def test_mulan_datasets_match_table_2(name, n, d, k, n_train, mean_size):
    data = load_dataset(registry_specs()[name])
    assert data.X.shape == (n, d) and data.Y.shape == (n, k) and data.n_train == n_train
    assert data.Y.sum(axis=1).mean() == pytest.approx(mean_size, abs=0.005)


def test_labels_are_matched_by_name_not_position():
    data = load_dataset(registry_specs()["yeast"])
    assert data.label_names[:5] == ("Class1", "Class2", "Class3", "Class6", "Class4")
    assert "Class6" not in data.feature_names


def test_absent_mulan_dataset_says_so():
    with pytest.raises(DataError, match=r"'mediamill' is not available here"):
        load_dataset(registry_specs()["mediamill"])


def test_feature_subsets_are_fixed_per_tree_and_seeded():
    a = draw_feature_subsets(10, 72, 20, np.random.default_rng(3))
    b = draw_feature_subsets(10, 72, 20, np.random.default_rng(3))
    assert a.shape == (10, 20) and np.array_equal(a, b)
    assert all(len(set(row)) == 20 for row in a)
    assert not np.array_equal(a, draw_feature_subsets(10, 72, 20, np.random.default_rng(4)))
    assert draw_feature_subsets(10, 20, 20, np.random.default_rng(3)) is None


def test_ada_olmr_first_update_by_hand():
    pool = ScriptedPool([[0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    booster = AdaOLMR(pool, 3, np.random.default_rng(0))
    assert np.array_equal(booster.predict_scores(np.zeros(1)), np.zeros(3))  # alpha = 0
    relevant = np.array([1, 0, 0], bool)
    booster.update(relevant)
    # at s = 0 every pair has sigma(0) = 1/2: c = [-1/2, 1/4, 1/4]; f'(0) = c . h
    assert booster.alpha[0] == pytest.approx(-(-0.5 * 0.6 + 0.25 * 0.3 + 0.25 * 0.1))
    assert booster.alpha[1] == pytest.approx(-(-0.5 * 0.1 + 0.25 * 0.1 + 0.25 * 0.8))
    # each learner is fed the relevant label with weight max(c) - c[l] = 3/4
    assert pool.calls == [(0, 0, 0.75), (1, 0, 0.75)]
    # second round, alpha != 0: learner i's cost is the gradient at s^{i-1}, its alpha step
    # uses the gradient at s^i (eq. 8), each from the definitions
    H = np.array([[0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    alpha = booster.alpha.copy()
    S = np.cumsum(alpha[:, None] * H, axis=0)
    booster.predict_scores(np.zeros(1))
    np.testing.assert_allclose(booster._state[2], S)  # the experts' scores s^1, s^2
    relevant = np.array([0, 0, 1], bool)
    costs = np.array([logistic_rank_gradient(np.zeros(3), relevant), logistic_rank_gradient(S[0], relevant)])
    steps = [logistic_rank_gradient(S[i], relevant) @ H[i] for i in range(2)]
    pool.calls.clear()
    booster.update(relevant)
    np.testing.assert_allclose(booster.alpha, np.clip(alpha - np.array(steps) / np.sqrt(2), -2, 2))
    np.testing.assert_allclose([w for _, _, w in pool.calls], costs.max(axis=1) - costs[:, 2])


def test_online_bmr_trains_relevant_labels_with_potential_weights():
    pool = ScriptedPool([[0.7, 0.2, 0.1]] * 3)
    booster = OnlineBMR(pool, 3, np.random.default_rng(0), gamma=0.1)
    scores = booster.predict_scores(np.zeros(1))
    np.testing.assert_allclose(scores, [2.1, 0.6, 0.3])
    relevant = np.array([1, 0, 1], bool)
    booster.update(relevant)
    assert sorted({y for _, y, _ in pool.calls}) == [0, 2]
    assert all(w >= 0 for _, _, w in pool.calls)
    full = ScriptedPool([[0.5, 0.5, 0.0]])
    bmr = OnlineBMR(full, 3, np.random.default_rng(0), gamma=0.1)
    bmr.predict_scores(np.zeros(1))
    bmr.update(np.ones(3, bool))  # a full label set costs nothing: no training
    assert full.calls == []


@pytest.mark.slow  # make test-slow
@pytest.mark.parametrize("algorithm", ["ada_olmr", "online_bmr"])
def test_mlr_runs_on_emotions_and_is_deterministic(algorithm):
    edge = ["gamma=0.1"] if algorithm == "online_bmr" else []  # Ada.OLMR has no edge
    overrides = [f"algorithm={algorithm}", "dataset=emotions", "n_learners=4", *edge, "seed=3"]
    first = run_experiment(compose_config(overrides))
    again = run_experiment(compose_config(overrides))
    m = first["metrics"]
    assert m["n_train"] == 391 and m["n_test"] == 202
    assert 0.0 < m["test_rank_loss"] < 0.35  # random scores give 0.5
    assert m["cpu_s"] > 0 and m["ram_hours"] >= 0  # measured as the prequential pass measures them
    assert first["curve"]["test_rank_loss"] == again["curve"]["test_rank_loss"]
    assert first["config"]["learner"]["feature_subset_size"] == 20


def test_mlr_algorithm_on_multiclass_data_is_refused():
    from boostbench.errors import ConfigError

    with pytest.raises(ConfigError, match="is for multilabel data"):
        run_experiment(compose_config(["algorithm=ada_olmr", "dataset=car"]))


@pytest.mark.parametrize("loss", ["hinge", "rank"])
def test_cost_matrix_rows_are_the_potentials_of_each_expert(loss):
    """All experts' cost vectors at once (OnlineBMR's update): row i is phi^{n_i}(S_i + e_l)."""
    rng = np.random.default_rng(8)
    k = 7
    relevant = np.array([0, 1, 0, 0, 1, 1, 0], bool)
    potential = PairPotential(k, 0.1, loss)
    n = np.array([9, 4, 0, 6])
    S = rng.integers(0, 4, size=(4, k)).astype(float) if loss == "rank" else rng.normal(size=(4, k))
    costs = potential.cost_matrix(n, S, relevant)
    for i in range(4):
        expected = [potential.phi(int(n[i]), S[i] + np.eye(k)[l], relevant) for l in range(k)]
        np.testing.assert_allclose(costs[i], expected, atol=1e-12)


@pytest.mark.parametrize("margin", [1.0, 0.0])
def test_compiled_hinge_cost_matrix_equals_the_numpy_reference_to_the_bit(margin):
    """OnlineBMR's compiled cost vectors are numpy's, bit for bit: the same sums in the same order,
    also where numpy sums a column pairwise (one irrelevant label) and at many relevant labels."""
    rng = np.random.default_rng(12)
    for k, n_rel, n_experts in ((2, 1, 1), (7, 3, 5), (9, 8, 22), (30, 29, 16), (30, 12, 40), (101, 4, 100)):
        relevant = np.zeros(k, bool)
        relevant[rng.choice(k, n_rel, replace=False)] = True
        potential = PairPotential(k, float(rng.uniform(0.001, 0.3)), "hinge", margin)
        votes = np.cumsum(rng.dirichlet(np.ones(k), size=n_experts), axis=0)  # cumulative distributions
        S = np.vstack([np.zeros(k), votes[:-1]])
        n = n_experts - 1 - np.arange(n_experts)
        assert np.array_equal(potential.cost_matrix(n, S, relevant), potential.cost_matrix_reference(n, S, relevant))


def test_compiled_rank_kernels_agree_with_the_numpy_reference():
    from boostbench.core.rank_losses import label_indices, logistic_rank_gradients, rank_losses

    rng = np.random.default_rng(7)
    for k, n_rel, spread in (
        (2, 1, 1.0),
        (5, 2, 3.0),
        (101, 4, 50.0),
        (30, 29, 1.0),
        (6, 0, 1.0),
        (6, 6, 1.0),
        (8, 3, 1000.0),
    ):  # a range of 2000: the factored exponentials saturate
        relevant = np.zeros(k, bool)
        relevant[rng.choice(k, n_rel, replace=False)] = True
        S = rng.normal(0, spread, (40, k))
        S[::3, 1] = S[::3, 0]  # ties count 1/2 in the rank loss
        S[5] = 0.0
        rel, irr = label_indices(relevant)
        np.testing.assert_allclose(
            logistic_rank_gradients(S, rel, irr), logistic_rank_gradient(S, relevant), rtol=1e-12, atol=1e-15
        )
        assert np.array_equal(rank_losses(S, rel, irr), rank_loss(S, relevant))


@pytest.mark.parametrize("weak_prediction", ["distribution", "label"])
def test_ada_olmr_kernels_equal_the_numpy_steps(weak_prediction):
    """Over the compiled pool Ada.OLMR's example is three kernel calls; the numpy steps over the
    same pool give the same scores, alpha, Hedge weights and trees, to the bit: many labels per
    example (the pool runs out of room between two of them), example weights, a missing value."""
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
    from boostbench.learners.pool import HoeffdingTreeParams

    n, k = 6, 9
    params = HoeffdingTreeParams.draw(
        n, np.random.default_rng(0), learner_file("hoeffding_tree_mlr", grace_period=(2, 4))
    )
    boosters = [
        AdaOLMR(CompiledHoeffdingTreePool(params, k, [0, 0, 3, 0], capacity=8), k, np.random.default_rng(1),
                weak_prediction=weak_prediction, compiled=compiled)
        for compiled in (True, False)
    ]  # fmt: skip
    rng = np.random.default_rng(2)
    for t in range(400):
        x = np.array([rng.normal(), rng.normal(), rng.integers(3), np.nan if t % 7 == 0 else rng.normal()])
        relevant = rng.random(k) < 0.5
        w = [1.0, 0.0, 2.5][t % 3]
        scores = [b.predict_scores(x) for b in boosters]
        assert np.array_equal(*scores)
        for b in boosters:
            b.update(relevant, w)
        assert np.array_equal(boosters[0].alpha, boosters[1].alpha)
        assert np.array_equal(boosters[0].hedge.log_v, boosters[1].hedge.log_v)
    fused, reference = (b.pool for b in boosters)
    assert fused.n_nodes == reference.n_nodes > 4 * n  # the trees grew (the arrays too, from 8 nodes)
    for name in ("node_nav", "node_value", "node_stats"):
        assert np.array_equal(getattr(fused, name)[: fused.n_nodes], getattr(reference, name)[: fused.n_nodes])
