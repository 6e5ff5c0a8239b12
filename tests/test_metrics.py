"""Metrics beside accuracy (kappa, macro-F1, sliding windows) against river's, fading-factor measures
by hand, the folds' summary against scipy's, and delayed labels."""

import numpy as np
import pytest
from river import metrics as river_metrics

from boostbench.metrics import classification_metrics, cohen_kappa, fading_curves, fold_summary, windowed_curves
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
    with pytest.raises(ConfigError, match=r"protocol.fading must be a number in \(0, 1\]"):
        validate(compose_config(["protocol.fading=1.5"]))


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


def test_fading_accuracy_and_kappa_by_hand():
    """Gama, Sebastiao & Rodrigues 2013: S_i = L_i + alpha S_(i-1), N_i = 1 + alpha N_(i-1)."""
    truth, predicted = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0])  # hits 1, 1, 0, 1
    curves = fading_curves(truth, predicted, 2, np.array([1, 2, 3, 4]), alpha=0.5)
    # S: 1, 1.5, 0.75, 1.375; N: 1, 1.5, 1.75, 1.875
    assert curves["fading_accuracy"] == pytest.approx([1.0, 1.0, 0.75 / 1.75, 1.375 / 1.875])
    # at 4, the faded margins: predicted 0 [1,0,1,1] -> 1.625, predicted 1 -> 0.25; true 0 [1,0,0,1]
    # -> 1.125, true 1 -> 0.75; p_e = (1.625 x 1.125 + 0.25 x 0.75) / 1.875^2
    chance = (1.625 * 1.125 + 0.25 * 0.75) / 1.875**2
    assert curves["fading_kappa"][3] == pytest.approx((1.375 / 1.875 - chance) / (1 - chance))
    assert curves["fading_kappa"][0] is None  # one example: one class, true and predicted


def test_fading_with_alpha_one_is_the_cumulative_accuracy_and_kappa(labels):
    from sklearn.metrics import cohen_kappa_score

    truth, predicted = labels
    seen = np.array([10, 700, 3000])
    curves = fading_curves(truth, predicted, 4, seen, alpha=1.0)
    accuracy = [np.mean(truth[:s] == predicted[:s]) for s in seen]
    kappa = [cohen_kappa_score(truth[:s], predicted[:s]) for s in seen]
    assert curves["fading_accuracy"] == pytest.approx(accuracy, abs=1e-12)
    assert curves["fading_kappa"] == pytest.approx(kappa, abs=1e-12)
    # a factor below 1 forgets: the last 1,000 examples (all right) weigh more than the first 2,000
    late = np.where(np.arange(3000) >= 2000, truth, predicted)
    faded = fading_curves(truth, late, 4, seen, alpha=0.999)["fading_accuracy"][-1]
    assert np.mean(truth == late) < faded < 1.0


def test_fold_summary_is_the_mean_and_scipys_t_interval():
    from scipy import stats

    mean, low, high = fold_summary([0.8, 0.9, None, 0.7])  # the undefined fold left out
    expected = stats.t.interval(0.95, 2, loc=0.8, scale=stats.sem([0.8, 0.9, 0.7]))
    assert mean == pytest.approx(0.8) and (low, high) == pytest.approx(expected)
    assert fold_summary([0.5, 0.5, 0.5]) == (0.5, 0.5, 0.5)
    assert fold_summary([0.5]) == (0.5, None, None)
    assert fold_summary([None, None]) == (None, None, None)


def test_a_fading_run_records_its_curves_and_final_values():
    base = ["dataset=balance", "algorithm=adaboost_olm", "n_learners=5", "progress=false"]
    plain = run_experiment(compose_config(base))
    faded = run_experiment(compose_config([*base, "protocol.fading=0.99"]))
    assert "fading_accuracy" not in plain["metrics"] and "fading_accuracy" not in plain["curve"]
    assert plain["metrics"]["final_accuracy"] == faded["metrics"]["final_accuracy"]  # the same pass
    assert len(faded["curve"]["fading_accuracy"]) == len(faded["curve"]["examples_seen"])
    assert faded["metrics"]["fading_accuracy"] == faded["curve"]["fading_accuracy"][-1]
    assert faded["metrics"]["fading_kappa"] == faded["curve"]["fading_kappa"][-1]
    assert plain["config_hash"] != faded["config_hash"]  # what the record holds differs
