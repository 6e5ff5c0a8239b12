"""Boosters: hand-computed steps on scripted weak learners, and one conformance suite for all."""

import math
import pickle

import numpy as np
import pytest
from conftest import ScriptedPool, learner_file

from boostbench.algorithms import ALGORITHMS, build_booster
from boostbench.boosters import AdaboostOLM, OnlineBoosting, OnlineMBBM
from boostbench.core.potentials import Potential01
from boostbench.data import load_dataset
from boostbench.data.registry import registry_specs
from boostbench.learners import make_pool

X0 = np.zeros(2)
MULTICLASS = sorted(
    name
    for name, spec in ALGORITHMS.items()  # ours: peers are tested in test_conformance
    if spec.task == "multiclass" and spec.family == "online" and not spec.peer
)


def test_adaboost_olm_first_round_by_hand():
    """k=3, alpha=0: C = 0.5 off the diagonal, -1 on it; eta_1 = sqrt(2)."""
    pool = ScriptedPool([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1]])
    booster = AdaboostOLM(pool, 3, np.random.default_rng(0))
    booster.predict(X0)
    assert booster._state.labels.tolist() == [0, 1]  # each learner's argmin of expected cost
    booster.update(0)
    # learner 0 was right: f' = -sum_{j != y} 1/(1+e^0) = -1; learner 1 wrong: f' = 1/2
    assert booster.alpha[0] == pytest.approx(math.sqrt(2))
    assert booster.alpha[1] == pytest.approx(-math.sqrt(2) / 2)
    assert pool.calls == [(0, 0, 0.5), (1, 0, 0.5)]  # -C[y, y] / (k - 1) = 1 / 2


def test_adaboost_olm_negative_alpha_turns_a_wrong_learner_around():
    pool = ScriptedPool([[0.1, 0.9], [0.1, 0.9]])  # both learners always say 1; the truth is 0
    booster = AdaboostOLM(pool, 2, np.random.default_rng(0))
    for _ in range(30):
        booster.predict(X0)
        booster.update(0)
    assert booster.alpha[0] < 0 and booster.alpha[1] < 0  # votes against label 1 mean label 0
    assert booster.predict_proba(X0)[0] == pytest.approx(1.0)


def test_adaboost_olm_hedge_drops_a_random_expert():
    # learner 0 is uninformative (random label); learners 1, 2 are always right
    pool = ScriptedPool([[1 / 3, 1 / 3, 1 / 3], [0.9, 0.05, 0.05], [0.9, 0.05, 0.05]])
    booster = AdaboostOLM(pool, 3, np.random.default_rng(0))
    for _ in range(60):
        booster.predict(X0)
        booster.update(0)
    p = booster.hedge.probabilities()
    assert p[0] < 1e-3 and p[1:].sum() > 0.999
    assert booster.predict_proba(X0)[0] == pytest.approx(1.0, abs=1e-3)


def test_online_mbbm_weights_from_potentials():
    k, n = 3, 3
    pool = ScriptedPool([[1.0, 0.0, 0.0]] * n)
    booster = OnlineMBBM(pool, k, np.random.default_rng(0), gamma=0.1, weight_factor=0.1)
    assert booster.predict(X0) == 0
    booster.update(0)
    potential = Potential01(k, 0.1)
    e = np.eye(k, dtype=np.int64)
    expected = []
    for i, s in enumerate([np.zeros(k, np.int64), e[0], 2 * e[0]]):
        left = n - 1 - i
        w = sum(potential.phi(left, s + e[l], 0) - potential.phi(left, s + e[0], 0) for l in range(k))
        expected.append(0.1 * w / (k - 1))
    assert expected[2] == 0.0  # the last learner cannot change a 2-vote lead: it is not trained
    assert [i for i, _, _ in pool.calls] == [0, 1]
    assert [w for _, _, w in pool.calls] == pytest.approx(expected[:2])
    assert all(y == 0 for _, y, _ in pool.calls)


def test_a_cache_fill_is_timed_in_wall_and_cpu_seconds_apart():
    """The runner takes the fill's own CPU seconds out of the pass's CPU seconds, not its wall
    seconds (which a loaded machine inflates past the whole pass's CPU and would clip cpu_s to 0)."""
    import time

    booster = OnlineMBBM(ScriptedPool([[1.0, 0.0]]), 2, np.random.default_rng(0), gamma=0.1)
    began = booster._clock()
    time.sleep(0.2)  # waiting, as a fill does behind a loaded scheduler: wall, no CPU
    booster._add_cache_fill(began)
    assert booster.cache_fill_s >= 0.2 and booster.cache_fill_cpu_s < 0.1


def test_online_boosting_lambda_by_hand():
    pool = ScriptedPool([[1.0, 0.0], [0.0, 1.0]])
    booster = OnlineBoosting(pool, 2, np.random.default_rng(0))
    booster.predict(X0)
    booster.update(0)
    # member 0 right with lambda 1 -> lambda *= 1/(2(1 - 0)) = 1/2; member 1 wrong with 1/2
    assert booster.lambda_sc.tolist() == [1.0, 0.0]
    assert booster.lambda_sw.tolist() == [0.0, 0.5]
    assert booster.vote_weights()[1] == 0.0 and booster.vote_weights()[0] > 10
    assert booster.predict(X0) == 0
    assert all(w == int(w) and w >= 1 for _, _, w in pool.calls)  # Poisson presentation counts


@pytest.fixture(scope="module")
def car():
    data = load_dataset(registry_specs()["car"])
    return data, np.random.default_rng(0).permutation(data.n_examples)[:150]


def make(name, data, seed, n_learners=4):
    learner = learner_file("hoeffding_tree")
    spec = ALGORITHMS[name]
    rngs = np.random.SeedSequence(seed).spawn(2)
    pool = make_pool(
        learner, spec.pool_size(n_learners), data.n_classes, data.n_categories, np.random.default_rng(rngs[0])
    )
    cfg = {"name": name, "gamma": 0.05}
    return build_booster(cfg, pool, data.n_classes, np.random.default_rng(rngs[1]))


def run_stream(booster, data, order):
    predictions, probas = [], []
    for i in order:
        probas.append(booster.predict_proba(data.X[i]))
        predictions.append(booster.predict(data.X[i]))
        booster.update(int(data.y[i]))
    return np.array(predictions), np.array(probas)


@pytest.mark.parametrize("name", MULTICLASS)
def test_conformance(name, car):
    data, order = car
    first, probas = run_stream(make(name, data, seed=1), data, order)
    again, _ = run_stream(make(name, data, seed=1), data, order)
    assert np.array_equal(first, again), "same seed, same predictions"
    assert first.min() >= 0 and first.max() < data.n_classes
    np.testing.assert_allclose(probas.sum(axis=1), 1.0)
    assert (first == data.y[order]).mean() > 0.5  # car's majority class alone gives 0.70
    booster = make(name, data, seed=1)
    x = data.X[order[0]].copy()
    booster.predict(x)
    assert np.array_equal(x, data.X[order[0]], equal_nan=True), "inputs are not modified"
    clone = pickle.loads(pickle.dumps(booster))
    clone.update(int(data.y[order[0]]))


def test_adaboost_olm_kernels_match_the_reference():
    from boostbench.boosters import adaboost_olm_kernels as kernels
    from boostbench.boosters.adaboost_olm import backward_reference, forward_reference

    rng = np.random.default_rng(4)
    for k in (2, 3, 8):
        n = 12
        P = rng.dirichlet(np.ones(k), size=n)
        P[0] = 1.0 / k  # a uniform learner: its expected costs tie
        alpha = rng.uniform(-2, 2, size=n)
        alpha[:3] = 0.0  # zero votes leave experts tied
        u = rng.random(2 * n)
        reference = forward_reference(P, alpha, u)
        compiled = kernels.forward(P, alpha, u)
        np.testing.assert_allclose(compiled[0], reference[0], atol=1e-12)
        assert np.array_equal(compiled[1], reference[1]) and np.array_equal(compiled[2], reference[2])
        for y in range(k):
            for variant in (kernels.PAPER_VARIANT, kernels.variant_array(True, 0.7)):
                ref_alpha, ref_w = backward_reference(reference[0], reference[1], alpha, y, 0.3, 2.0, variant)
                new_alpha, weights = kernels.backward(reference[0], reference[1], alpha, y, 0.3, 2.0, variant)
                np.testing.assert_allclose(new_alpha, ref_alpha, atol=1e-12)
                np.testing.assert_allclose(weights, ref_w, atol=1e-12)


def test_adaboost_olm_gradient_variants_known_values():
    """Eq. (10) when learner 1's label is y = 0, votes s = (1, 0, 0), alpha = 0.5, eta = 0.3:
    the paper's derivative -2 / (1 + e^1.5), the authors' code's complement -2 / (1 + e^-1.5); the
    authors' fixed first weight replaces line 14's, and only when learner 1's label is y do the
    two gradients differ."""
    from boostbench.boosters import adaboost_olm_kernels as kernels
    from boostbench.boosters.adaboost_olm import backward_reference

    s_before = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    labels, alpha = np.array([0, 1]), np.array([0.5, 0.5])
    for backward in (kernels.backward, backward_reference):
        paper, w_paper = backward(s_before, labels, alpha, 0, 0.3, 2.0, kernels.PAPER_VARIANT)
        ours, w_ours = backward(s_before, labels, alpha, 0, 0.3, 2.0, kernels.variant_array(True, 5.0))
        assert paper[0] == pytest.approx(0.5 + 0.3 * 2 / (1 + np.exp(1.5)), abs=1e-12)
        assert ours[0] == pytest.approx(0.5 + 0.3 * 2 / (1 + np.exp(-1.5)), abs=1e-12)
        assert ours[1] == paper[1]  # label 1 != y: the same derivative
        assert w_ours[0] == 5.0 and w_paper[0] == pytest.approx(2 / (1 + np.exp(1.0)) / 2)
        assert w_ours[1] == w_paper[1]


def test_adaboost_olm_compiled_and_reference_runs_agree(car):
    data, order = car
    runs = []
    for compiled in (True, False):
        pool = ScriptedPool(np.random.default_rng(0).dirichlet(np.ones(4), size=6))
        booster = AdaboostOLM(pool, 4, np.random.default_rng(9), compiled=compiled)
        predictions = []
        for i in order[:60]:
            predictions.append(booster.predict(data.X[i]))
            booster.update(int(data.y[i]))
        runs.append((predictions, booster.alpha.copy(), booster.hedge.log_v.copy()))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_allclose(runs[0][1], runs[1][1], atol=1e-10)
    np.testing.assert_allclose(runs[0][2], runs[1][2], atol=1e-10)


@pytest.mark.parametrize("k", [3, 4])
def test_online_mbbm_compiled_and_reference_runs_agree(car, k):
    """The kernel pass (cost matrices built in the kernel) equals the Python pass, ties included."""
    data, order = car
    runs = []
    for compiled in (True, False):
        pool = ScriptedPool(np.random.default_rng(k).dirichlet(np.ones(k) * 0.3, size=12))
        booster = OnlineMBBM(pool, k, np.random.default_rng(5), gamma=0.1, compiled=compiled)
        assert (booster.table is not None) == compiled
        predictions = []
        for i in order[:80]:
            predictions.append(booster.predict(data.X[i]))
            booster.update(int(data.y[i]) % k)
        runs.append((predictions, pool.calls))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == runs[1][1]  # the same training calls, weight for weight
