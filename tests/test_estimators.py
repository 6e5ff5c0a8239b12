"""The river estimators: river's loop, the runner's numbers, and classes, features and nominal
values learned as they come (river's own estimator checks: check_booster's, tests/test_conformance.py)."""

import itertools
import pickle

import numpy as np
import pytest
from river import datasets, evaluate, metrics, tree

import boostbench.estimators as E
from boostbench.data.registry import load_dataset
from boostbench.data.river_stream import iter_dataset
from boostbench.learners.pool import REFERENCE_RANGES
from boostbench.protocols.prequential import final_window_start
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment
from boostbench.seeding import run_generators

MULTICLASS = [
    "AdaboostOLMClassifier",
    "OnlineMBBMClassifier",
    "OnlineBoostingClassifier",
    "OnlineBaggingClassifier",
    "HedgeClassifier",
]


@pytest.mark.parametrize("name", MULTICLASS)
def test_a_trained_estimator_holds_no_numba_dispatcher(name):
    """river's memory walk (``_raw_memory_usage``, its bounded-memory check) follows every
    reference: through a kept dispatcher it reaches numba's JIT engine and its weak proxies, which
    raise ReferenceError once their target is collected (CI, on a cold kernel cache)."""
    import gc
    import types
    import weakref

    from numba.core.dispatcher import Dispatcher

    cls = getattr(E, name)
    model = cls(**next(iter(cls._unit_test_params())))
    for x, y in itertools.islice(datasets.Phishing(), 60):
        model.learn_one(x, y)
    seen, pending, kept = set(), [model], []
    while pending:
        obj = pending.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        if isinstance(obj, (Dispatcher, weakref.ProxyType, weakref.CallableProxyType)):
            kept.append(type(obj).__name__)
            continue
        pending.extend(gc.get_referents(obj))
    assert kept == []


def test_the_river_face_gives_the_runners_numbers():
    """With the classes given up front, river's loop over the runner's stream order gives the
    runner's prediction for every example (the compiled pool, the same seed's draws)."""
    cfg = compose_config(["dataset=balance", "algorithm=adaboost_olm", "n_learners=20", "seed=3"])
    record = run_experiment(cfg)
    data = load_dataset(cfg.dataset)
    order = run_generators(3).stream.permutation(len(data.y))
    model = E.AdaboostOLMClassifier(n_models=20, classes=tuple(data.class_names), seed=3)
    hits = []
    column = {name: j for j, name in enumerate(data.feature_names)}
    for x, y in iter_dataset(data, order):
        x = {column[name]: value for name, value in x.items()}  # int names: the data set's column order
        hits.append(model.predict_one(x) == y)
        model.learn_one(x, y)
    start = final_window_start(len(hits), 0.2)
    assert np.mean(hits[start:]) == record["metrics"]["final_accuracy"]
    assert np.mean(hits) == record["metrics"]["cumulative_accuracy"]


def test_reference_ranges_are_the_learner_configs():
    for task, overrides in (("multiclass", []), ("multilabel", ["dataset=emotions", "algorithm=ada_olmr"])):
        learner = compose_config(overrides).learner
        assert {key: tuple(learner[key]) for key in REFERENCE_RANGES[task]} == REFERENCE_RANGES[task]


def test_classes_features_and_values_come_as_they_come():
    model = E.AdaboostOLMClassifier(n_models=5, seed=0)
    assert model.predict_proba_one({"a": 1.0}) == {} and model.predict_one({"a": 1.0}) is None
    model.learn_one({"a": 1.0, "colour": "red"}, "x")
    assert model.predict_proba_one({"a": 1.0}) == {"x": 1.0}  # the stand-in class takes no mass
    rng = np.random.default_rng(0)
    for t in range(300):
        label = ["x", "y", "z"][t % 3]
        x = {"a": float(t % 3) + rng.normal(0, 0.1), "colour": ["red", "green", "blue"][t % 3]}
        if t > 100:
            x["late"] = float(t % 3)
        model.learn_one(x, label)
    proba = model.predict_proba_one({"a": 2.0, "colour": "blue", "late": 2.0})
    assert set(proba) == {"x", "y", "z"} and sum(proba.values()) == pytest.approx(1.0)
    assert model.predict_one({"a": 2.0, "colour": "blue", "late": 2.0}) == "z"
    assert model._encoder.names == ["a", "colour", "late"] and model._booster.pool.n_categories.tolist() == [0, 3, 0]
    assert pickle.loads(pickle.dumps(model)).predict_proba_one({"a": 0.0, "colour": "red"}) == model.predict_proba_one(
        {"a": 0.0, "colour": "red"}
    )
    with pytest.raises(ValueError, match="'colour' had nominal values and now has the number 3"):
        model.learn_one({"a": 1.0, "colour": 3}, "x")
    with pytest.raises(ValueError, match="'a' had numbers and now has 'high'"):
        model.learn_one({"a": "high"}, "x")


def test_a_river_model_runs_through_the_river_pool():
    model = E.OnlineBoostingClassifier(model=tree.HoeffdingTreeClassifier(grace_period=50), n_models=5, seed=1)
    metric = evaluate.progressive_val_score(itertools.islice(datasets.ImageSegments(), 500), model, metrics.Accuracy())
    assert metric.get() > 0.6
    assert type(model._booster.pool).__name__ == "RiverModelPool"
    # nominal values reach the river models as the user gave them
    first = model._booster.pool.models[0]
    assert all(isinstance(key, str) for key in first._root.stats) or first.n_nodes >= 1


def test_a_ranker_learns_labels_as_they_come():
    model = E.AdaOLMRClassifier(n_models=5, feature_subset_size=None, seed=0)
    assert model.rank_one({"f": 1.0}) == [] and model.predict_one({"f": 1.0}) == {}
    model.learn_one({"f": 1.0}, {"a": True})
    model.learn_one({"f": 2.0, "g": 0.5}, {"a": False, "b": True, "c": True})
    assert sorted(model.rank_one({"f": 2.0, "g": 0.5})) == ["a", "b", "c"]
    prediction = model.predict_one({"f": 2.0})  # the top round(3 / 2) = 2 labels
    assert len(prediction) == 3 and sum(prediction.values()) == 2


@pytest.mark.parametrize("name", MULTICLASS)
def test_river_loop_on_nominal_data(name):
    """car: every feature a string (river's nominal values), labels strings learnt as they come."""
    model = getattr(E, name)(n_models=10, seed=2)
    stream = iter_dataset("car", run_generators(2).stream.permutation(1728))
    accuracy = evaluate.progressive_val_score(stream, model, metrics.Accuracy())
    assert accuracy.get() > 0.6
    assert sorted(model._encoder.labels) == ["acc", "good", "unacc", "vgood"]
    assert model._encoder.names == ["buying", "doors", "lug_boot", "maint", "persons", "safety"]
    assert model._booster.pool.n_categories.tolist() == [4, 4, 3, 4, 3, 3]
