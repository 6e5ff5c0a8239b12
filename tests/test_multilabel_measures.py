"""The multi-label measures equal river's ``metrics.multioutput`` and MOA's
``BasicMultiLabelPerformanceEvaluator`` on one prediction sequence (MOA's through capymoa, as
test_moa_measures runs it: skipped without it here, a failure under CI); the rank loss equals
scikit-learn's without ties; the windowed curves are the measures of each window; a ranker's
default label set is its top round(cardinality) labels.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import skip_without_peer

from boostbench.metrics import rank_loss
from boostbench.multilabel_metrics import MEASURES, measures, set_measures, top_labels, windowed_curves

HELPER = Path(__file__).with_name("moa_multilabel_evaluator.py")


def _sequence(n: int = 400, k: int = 7, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Label sets with empty and full ones, and predictions right on about 70% of the decisions
    (some empty where the truth is empty: an F1 of 0/0); label 6 never true nor predicted in the
    first 100 (a macro-F1 label at 0/0 there)."""
    rng = np.random.default_rng(seed)
    truth = rng.random((n, k)) < 0.3
    truth[::17] = False
    truth[5::23] = True
    predicted = np.where(rng.random((n, k)) < 0.7, truth, ~truth)
    predicted[::17] = False
    truth[:100, 6] = predicted[:100, 6] = False
    return truth, predicted


def _river(truth: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    from river import metrics

    found = {
        "hamming_loss": metrics.multioutput.MicroAverage(metrics.Accuracy()),
        "subset_accuracy": metrics.multioutput.ExactMatch(),
        "example_f1": metrics.multioutput.SampleAverage(metrics.F1()),
        "micro_f1": metrics.multioutput.MicroAverage(metrics.F1()),
        "macro_f1": metrics.multioutput.MacroAverage(metrics.F1()),
    }
    for t, p in zip(truth, predicted):
        y_true = {label: bool(v) for label, v in enumerate(t)}
        y_pred = {label: bool(v) for label, v in enumerate(p)}
        for metric in found.values():
            metric.update(y_true, y_pred)
    values = {name: metric.get() for name, metric in found.items()}
    values["hamming_loss"] = 1.0 - values["hamming_loss"]
    return values


def test_the_set_measures_are_rivers():
    truth, predicted = _sequence()
    ours, rivers = set_measures(truth, predicted), _river(truth, predicted)
    assert set(ours) == set(rivers)
    for name in ours:
        assert ours[name] == pytest.approx(rivers[name], abs=1e-12), name
    # and on a part where a label is never true nor predicted (its F1 0/0 counts 0 in the mean)
    part = set_measures(truth[:100], predicted[:100])
    assert part["macro_f1"] == pytest.approx(_river(truth[:100], predicted[:100])["macro_f1"], abs=1e-12)


def test_known_values_of_a_small_case():
    truth = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 0]], dtype=bool)
    predicted = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 0]], dtype=bool)
    got = set_measures(truth, predicted)
    assert got["hamming_loss"] == pytest.approx(2 / 9)
    assert got["subset_accuracy"] == pytest.approx(2 / 3)
    assert got["example_f1"] == pytest.approx((0.5 + 0.0 + 1.0) / 3)  # the empty-empty example counts 0
    assert got["micro_f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 1))
    assert got["macro_f1"] == pytest.approx((1.0 + 2 / 3 + 0.0) / 3)


def test_the_measures_table_names_every_measure_once_with_its_direction():
    names = [m.name for m in MEASURES]
    assert names[0] == "rank_loss" and len(set(names)) == len(names)
    truth, predicted = _sequence(50)
    assert set(measures(truth, predicted, np.zeros(50))) == set(names)
    lower = {m.name for m in MEASURES if not m.higher_is_better}
    assert lower == {"rank_loss", "hamming_loss"}


def test_rank_loss_is_sklearns_without_ties():
    from sklearn.metrics import label_ranking_loss

    rng = np.random.default_rng(3)
    truth = rng.random((200, 6)) < 0.4
    scores = rng.normal(size=(200, 6))  # continuous: no ties
    ours = np.mean([rank_loss(s, y) for s, y in zip(scores, truth)])
    assert ours == pytest.approx(label_ranking_loss(truth, scores), abs=1e-12)


def test_windowed_curves_are_the_measures_of_each_window():
    truth, predicted = _sequence()
    losses = np.random.default_rng(1).random(len(truth))
    seen = np.array([1, 30, 150, 151, 400])
    curves = windowed_curves(truth, predicted, losses, seen, 100)
    assert set(curves) == {f"windowed_{m.name}" for m in MEASURES}
    for i, end in enumerate(seen):
        part = slice(max(0, end - 100), end)
        expected = {**_river(truth[part], predicted[part]), "rank_loss": float(losses[part].mean())}
        for name, value in expected.items():
            assert curves[f"windowed_{name}"][i] == pytest.approx(value, abs=1e-12), (name, end)


def test_the_default_label_set_is_the_top_scored_labels():
    scores = np.array([0.1, 0.9, 0.5, 0.5, -1.0])
    assert top_labels(scores, 0.0).tolist() == [False] * 5
    assert top_labels(scores, 0.4).tolist() == [False] * 5
    assert top_labels(scores, 1.5).tolist() == [False, True, True, False, False]  # 1.5 rounds half up: 2
    assert top_labels(scores, 2.49).tolist() == [False, True, True, False, False]  # ties in label order
    assert top_labels(scores, 3.0).tolist() == [False, True, True, True, False]
    assert top_labels(scores, 9.0).all()
    assert top_labels(np.zeros(4), 2.0).tolist() == [True, True, False, False]


def test_the_set_measures_are_moas(tmp_path):
    """MOA's Exact Match, Hamming Score and F-Measure (example-based) of the same sequence."""
    from boostbench.boosters.peers.moa_peers import moa_python

    skip_without_peer("moa_ozabag_ml")  # capymoa in .venv-moa: a failure under CI, where .ci/run installs it
    truth, predicted = _sequence()
    path = tmp_path / "sequence.npz"
    np.savez(path, truth=truth, predicted=predicted)
    done = subprocess.run([moa_python(), str(HELPER), str(path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    moa = json.loads(done.stdout.strip().splitlines()[-1])
    ours = set_measures(truth, predicted)
    assert ours["subset_accuracy"] == pytest.approx(moa["Exact Match"], abs=1e-12)
    assert ours["hamming_loss"] == pytest.approx(1.0 - moa["Hamming Score"], abs=1e-12)
    assert ours["example_f1"] == pytest.approx(moa["F-Measure"], abs=1e-12)
