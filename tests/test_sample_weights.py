"""river's per-sample weight ``w``: where each booster (and ranker) takes it, the identities it must keep
(w = 2 as the example's weight doubled, w = 0 as no example), and the estimators' learn_one."""

import copy

import numpy as np
import pytest
from conftest import ScriptedPool, tiny_pool

import boostbench.estimators as E
from boostbench.boosters import AdaboostOLM, OnlineBoosting, OnlineMBBM
from boostbench.boosters.ada_olmr import AdaOLMR
from boostbench.boosters.hedge import HedgeExperts
from boostbench.boosters.online_bagging import OnlineBagging
from boostbench.boosters.online_bmr import OnlineBMR

X0 = np.zeros(2)
PROBA = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]]
BOOSTERS = {
    "adaboost_olm": lambda pool, rng: AdaboostOLM(pool, 3, rng),
    "online_mbbm": lambda pool, rng: OnlineMBBM(pool, 3, rng, gamma=0.1),
    "online_boosting": lambda pool, rng: OnlineBoosting(pool, 3, rng),
    "online_bagging": lambda pool, rng: OnlineBagging(pool, 3, rng),
    "hedge": lambda pool, rng: HedgeExperts(pool, 3, rng, beta=0.5),
}
RANKERS = {
    "ada_olmr": lambda pool, rng: AdaOLMR(pool, 3, rng),
    "online_bmr": lambda pool, rng: OnlineBMR(pool, 3, rng, gamma=0.1),
}
RELEVANT = np.array([True, False, True])


def _one_step(name, w, y=1):
    pool = ScriptedPool(PROBA)
    if name in RANKERS:
        booster = RANKERS[name](pool, np.random.default_rng(5))
        booster.predict_scores(X0)
        booster.update(RELEVANT, w)
        return booster, pool
    booster = BOOSTERS[name](pool, np.random.default_rng(5))
    booster.predict(X0)
    booster.update(y, w)
    return booster, pool


@pytest.mark.parametrize("name", ["adaboost_olm", "online_mbbm", "online_bagging", "hedge", *RANKERS])
def test_weight_two_doubles_every_weak_learners_training_weight(name):
    """Adaboost.OLM, OnlineMBBM (line 14's / the potentials' weights), online bagging (K_m, the same
    Poisson draws), Hedge, Ada.OLMR and OnlineBMR: the same calls, each weight doubled."""
    _, once = _one_step(name, 1.0)
    _, twice = _one_step(name, 2.0)
    assert [(i, y) for i, y, _ in twice.calls] == [(i, y) for i, y, _ in once.calls]
    np.testing.assert_allclose([w for *_, w in twice.calls], [2 * w for *_, w in once.calls], rtol=1e-15)
    assert any(w > 0 for *_, w in once.calls)


def test_adaboost_olm_weight_leaves_alpha_and_hedge_as_any_example():
    one, _ = _one_step("adaboost_olm", 1.0)
    two, _ = _one_step("adaboost_olm", 2.0)
    np.testing.assert_array_equal(one.alpha, two.alpha)
    np.testing.assert_array_equal(one.hedge.log_v, two.hedge.log_v)


def test_hedge_weight_two_is_the_loss_charged_twice():
    """beta^(2 loss) = beta^loss beta^loss: Hedge's weights as after the same example twice."""
    two, _ = _one_step("hedge", 2.0)
    again, _ = _one_step("hedge", 1.0)
    again.predict(X0)
    again.update(1, 1.0)
    np.testing.assert_allclose(two.hedge.probabilities(), again.hedge.probabilities(), rtol=1e-12)


@pytest.mark.parametrize("w", [0.5, 1.0, 3.0])
def test_online_boosting_starts_lambda_at_the_weight(w):
    """Oza's weighted example: the first member's lambda is w, whatever it answers."""
    booster, _ = _one_step("online_boosting", w)
    assert booster.lambda_sc[0] + booster.lambda_sw[0] == pytest.approx(w)


def _learnt_state(booster) -> dict:
    """What a booster learns: its arrays and numbers, its generator's state, Hedge's weights."""
    state = {}
    for key, value in vars(booster).items():
        if isinstance(value, np.random.Generator):
            state[key] = repr(value.bit_generator.state)
        elif isinstance(value, np.ndarray):
            state[key] = value.tolist()
        elif isinstance(value, (int, float)):
            state[key] = value
        elif hasattr(value, "log_v"):  # Hedge
            state[key] = value.log_v.tolist()
    return state


@pytest.mark.parametrize("name", sorted(BOOSTERS) + sorted(RANKERS))
def test_weight_zero_changes_nothing(name):
    pool = ScriptedPool(PROBA)
    if name in RANKERS:
        booster = RANKERS[name](pool, np.random.default_rng(5))
        booster.predict_scores(X0)
    else:
        booster = BOOSTERS[name](pool, np.random.default_rng(5))
        booster.predict(X0)
    before = copy.deepcopy(_learnt_state(booster))
    booster.update(RELEVANT if name in RANKERS else 1, 0.0)
    assert pool.calls == [] and _learnt_state(booster) == before


def test_adaboost_olm_weight_over_the_compiled_pool():
    """The fused step (one kernel) with a weight computes what the Python step does."""

    def run(w, compiled):
        pool = tiny_pool(2)  # two trees over a numeric and a two-valued nominal attribute
        booster = AdaboostOLM(pool, 2, np.random.default_rng(1), compiled=compiled)
        rng = np.random.default_rng(2)
        X = np.column_stack([rng.random(60), rng.integers(2, size=60)])
        for x in X[:40]:
            booster.predict(x)
            booster.update(int(x[0] > 0.5), w)
        return np.array([pool.predict_proba(pool.prepare(x)) for x in X[40:]]), booster.alpha.copy()

    fused, python = run(3.0, True), run(3.0, False)
    np.testing.assert_array_equal(fused[0], python[0])
    np.testing.assert_array_equal(fused[1], python[1])
    assert not np.array_equal(fused[0], run(1.0, True)[0])  # the trees saw the weight


@pytest.mark.parametrize(
    "name",
    [
        "AdaboostOLMClassifier",
        "OnlineMBBMClassifier",
        "OnlineBoostingClassifier",
        "OnlineBaggingClassifier",
        "HedgeClassifier",
    ],
)
def test_estimator_learn_one_with_weight_zero_is_no_example(name):
    """river's loop with an extra w = 0 example (of a new label, too) predicts as without it."""
    from river import datasets

    stream = list(datasets.Phishing())[:150]
    plain, weighted = (getattr(E, name)(n_models=5, seed=7) for _ in range(2))
    for t, (x, y) in enumerate(stream[:100]):
        plain.learn_one(x, y)
        weighted.learn_one(x, y)
        if t == 50:
            weighted.learn_one(stream[120][0], "a new label", w=0.0)
    assert [plain.predict_one(x) for x, _ in stream[100:]] == [weighted.predict_one(x) for x, _ in stream[100:]]
    with pytest.raises(ValueError, match="sample weight"):
        weighted.learn_one(stream[0][0], stream[0][1], w=-1.0)


def test_estimator_weight_reaches_the_booster():
    """The same stream with every w = 2: Hedge's weights move as with each loss charged twice."""
    from river import datasets

    stream = list(datasets.Phishing())[:60]
    models = {w: E.HedgeClassifier(n_models=5, seed=3) for w in (1.0, 2.0)}
    for x, y in stream:
        for w, model in models.items():
            model.learn_one(x, y, w=w)
    v1, v2 = (models[w]._booster.hedge.log_v for w in (1.0, 2.0))
    assert not np.allclose(v1 - v1.max(), v2 - v2.max())


@pytest.mark.parametrize("name", ["AdaOLMRClassifier", "OnlineBMRClassifier"])
def test_ranker_learn_one_with_weight_zero_is_no_example(name):
    import itertools

    from boostbench.data.river_stream import iter_dataset

    stream = list(itertools.islice(iter_dataset("emotions"), 80))
    plain, weighted = (getattr(E, name)(n_models=4, seed=7) for _ in range(2))
    for t, (x, y) in enumerate(stream[:60]):
        plain.learn_one(x, y)
        weighted.learn_one(x, y)
        if t == 30:
            weighted.learn_one(stream[70][0], {**stream[70][1], "a new label": True}, w=0.0)
    assert [plain.rank_one(x) for x, _ in stream[60:]] == [weighted.rank_one(x) for x, _ in stream[60:]]
