"""Metrics beside accuracy (kappa, macro-F1, sliding windows) against river's, and delayed labels."""

import numpy as np
import pytest
from river import metrics as river_metrics

from boostbench.metrics import classification_metrics, cohen_kappa, windowed_curves
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment


@pytest.fixture(scope="module")
def labels():
    rng = np.random.default_rng(7)
    truth = rng.integers(4, size=3000)
    predicted = np.where(rng.random(3000) < 0.7, truth, rng.integers(4, size=3000))
    return truth, predicted


def _river(metric, truth, predicted):
    for t, p in zip(truth, predicted):
        metric.update(int(t), int(p))
    return metric.get()


def test_kappa_and_macro_f1_agree_with_river(labels):
    truth, predicted = labels
    found = classification_metrics(truth, predicted, 4, final_start=2400)
    assert found["final_kappa"] == pytest.approx(_river(river_metrics.CohenKappa(), truth[2400:], predicted[2400:]))
    assert found["final_macro_f1"] == pytest.approx(_river(river_metrics.MacroF1(), truth[2400:], predicted[2400:]))
    assert found["cumulative_kappa"] == pytest.approx(_river(river_metrics.CohenKappa(), truth, predicted))
    assert found["cumulative_macro_f1"] == pytest.approx(_river(river_metrics.MacroF1(), truth, predicted))


def test_windowed_curves_are_river_rolling_metrics_at_the_checkpoints(labels):
    from river.utils import Rolling

    truth, predicted = labels
    seen = np.array([1, 500, 1700, 3000])
    curves = windowed_curves(truth, predicted, 4, seen, window=1000)
    accuracy, kappa = (
        Rolling(river_metrics.Accuracy, window_size=1000),
        Rolling(river_metrics.CohenKappa, window_size=1000),
    )
    expected = []
    for t, (a, b) in enumerate(zip(truth, predicted), start=1):
        accuracy.update(int(a), int(b))
        kappa.update(int(a), int(b))
        if t in seen:
            expected.append((accuracy.get(), kappa.get()))
    assert curves["windowed_accuracy"] == pytest.approx([e[0] for e in expected])
    assert curves["windowed_kappa"][1:] == pytest.approx([e[1] for e in expected][1:])
    assert curves["windowed_kappa"][0] is None or curves["windowed_kappa"][0] == pytest.approx(expected[0][1])


def test_a_prequential_record_has_kappa_f1_and_windowed_curves():
    record = run_experiment(
        compose_config(["dataset=car", "algorithm=adaboost_olm", "n_learners=5", "protocol.window=200"])
    )
    m, curve = record["metrics"], record["curve"]
    assert -1 <= m["final_kappa"] <= 1 and 0 <= m["final_macro_f1"] <= 1
    assert len(curve["windowed_accuracy"]) == len(curve["examples_seen"]) == len(curve["windowed_kappa"])
    # the last window's accuracy is the accuracy of the last 200 examples: between the extremes
    assert 0.5 < curve["windowed_accuracy"][-1] <= 1.0


def test_delayed_labels_change_the_learning_not_the_protocol_at_delay_zero():
    base = ["dataset=balance", "algorithm=adaboost_olm", "n_learners=5", "seed=3"]
    now = run_experiment(compose_config(base))["metrics"]
    zero = run_experiment(compose_config([*base, "protocol.delay=0"]))["metrics"]
    assert now["final_accuracy"] == zero["final_accuracy"]
    late = run_experiment(compose_config([*base, "protocol.delay=300", "protocol.window=300"]))
    again = run_experiment(compose_config([*base, "protocol.delay=300", "protocol.window=300"]))
    assert late["metrics"]["final_accuracy"] == again["metrics"]["final_accuracy"]  # seeded
    assert late["metrics"]["cumulative_accuracy"] != now["cumulative_accuracy"]
    # a label 300 examples late: nothing is learned over the first 300 predictions, so a booster
    # with no trained learner guesses there; its early accuracy is near chance (3 classes)
    seen = late["curve"]["examples_seen"]
    before = max(i for i, x in enumerate(seen) if x <= 300)
    untrained = late["curve"]["windowed_accuracy"][before]
    assert (
        untrained
        < 0.6
        < run_experiment(compose_config([*base, "protocol.window=300"]))["curve"]["windowed_accuracy"][-1]
    )


def test_delay_and_window_are_checked():
    from boostbench.errors import ConfigError
    from boostbench.runner.config import validate

    with pytest.raises(ConfigError, match=r"protocol.delay"):
        validate(compose_config(["protocol.delay=-1"]))
    with pytest.raises(ConfigError, match=r"protocol.window"):
        validate(compose_config(["protocol.window=0"]))


def test_cohen_kappa_from_confusion_counts_agrees_with_scikit_learn():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(3)
    for k, n in ((2, 7), (3, 50), (5, 400), (6, 1000)):
        truth = rng.integers(k - 1, size=n)  # the last class never true
        predicted = np.where(rng.random(n) < 0.6, truth, rng.integers(k, size=n))
        assert cohen_kappa(truth, predicted, k) == pytest.approx(
            cohen_kappa_score(truth, predicted, labels=np.arange(k)), abs=1e-12
        )
    assert cohen_kappa(np.array([2, 2, 2]), np.array([2, 2, 2]), 3) is None  # p_e = 1: undefined
    assert cohen_kappa(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 3) is None
    assert cohen_kappa(np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0]), 2) == -1.0
