"""Our stream measures are MOA's: one prediction sequence through capymoa's ClassificationEvaluator
(MOA's BasicClassificationPerformanceEvaluator), its ClassificationWindowedEvaluator (the sliding
WindowClassificationPerformanceEvaluator) and MOA's FadingFactorClassificationPerformanceEvaluator,
and through the measures a prequential record holds: accuracy, kappa, kappa-M, kappa-T, macro-F1,
their windowed curves and the fading-factor ones, at every checkpoint.

capymoa runs in a Python that has it (:func:`~boostbench.boosters.peers.moa_peers.moa_python`, as
the MOA peers do: ``make bench-moa-setup``); under CI it must be there.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import skip_without_peer

from boostbench.protocols import PrequentialResult
from boostbench.runner.experiment import _prequential_measures
from boostbench.runner.sections import ProtocolConfig

HELPER = Path(__file__).with_name("moa_evaluators.py")
K, WINDOW, ALPHA = 4, 200, 0.99


def _moa_python() -> str:
    from boostbench.boosters.peers.moa_peers import moa_python

    skip_without_peer("moa_ozaboost")  # capymoa in .venv-moa: a failure under CI, where .ci/run installs it
    return moa_python()


def _sequence() -> tuple[np.ndarray, np.ndarray]:
    """2,500 labels whose majority class changes (class 3 absent for the first 300, the window's
    classes tied at times), predicted 70% right; the first is not class 0, so a majority class
    counted before each example (not MOA's) would differ from the first checkpoint on."""
    rng = np.random.default_rng(11)
    truth = np.concatenate(
        [
            rng.choice(3, size=300, p=[0.5, 0.3, 0.2]),
            rng.choice(K, size=900, p=[0.4, 0.3, 0.2, 0.1]),
            rng.choice(K, size=1300, p=[0.1, 0.2, 0.3, 0.4]),
        ]
    )
    truth[0] = 2
    predicted = np.where(rng.random(len(truth)) < 0.7, truth, rng.integers(K, size=len(truth)))
    return truth.astype(np.int64), predicted.astype(np.int64)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """(ours: metrics and curves, MOA's: its evaluators' values at the same checkpoints)."""
    python = _moa_python()
    truth, predicted = _sequence()
    protocol = ProtocolConfig("prequential", True, 0.2, curve_points=37, window=WINDOW, fading=ALPHA)
    metrics, curve = _prequential_measures(protocol, PrequentialResult(predicted, truth, 2000, None, 0.0), K)
    seen = np.array(curve["examples_seen"])
    assert len(seen) == 37 and seen[-1] == len(truth) and any(seen % WINDOW)  # checkpoints between windows' ends
    path = tmp_path_factory.mktemp("moa") / "sequence.npz"
    np.savez(path, truth=truth, predicted=predicted, k=K, seen=seen, window=WINDOW, alpha=ALPHA)
    done = subprocess.run([python, str(HELPER), str(path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return metrics, curve, json.loads(done.stdout)


def _same(ours: list, moa_percent: list) -> None:
    """Our values against MOA's percents: equal to 1e-12, and None where MOA's is not finite."""
    moa = np.asarray(moa_percent, dtype=np.float64) / 100.0
    assert len(ours) == len(moa)
    for i, (value, theirs) in enumerate(zip(ours, moa)):
        if value is None:
            assert not np.isfinite(theirs), f"checkpoint {i}: ours undefined, MOA's {theirs}"
        else:
            assert value == pytest.approx(theirs, abs=1e-12), f"checkpoint {i}"


def test_the_whole_pass_measures_are_moas(measured):
    metrics, curve, moa = measured
    _same(curve["cumulative_accuracy"], moa["basic"]["accuracy"])
    _same(curve["cumulative_kappa_m"], moa["basic"]["kappa_m"])
    _same(curve["cumulative_kappa_t"], moa["basic"]["kappa_t"])
    _same([metrics["cumulative_kappa"]], moa["basic"]["kappa"][-1:])
    # MOA averages F1 over all k classes, ours over those present: equal when every class is
    _same([metrics["cumulative_macro_f1"]], moa["basic"]["macro_f1"][-1:])


@pytest.mark.parametrize("measure", ["accuracy", "kappa", "kappa_m", "kappa_t"])
def test_the_windowed_curves_are_moas_sliding_window(measured, measure):
    from boostbench.metrics import windowed_curves

    _, curve, moa = measured
    _same(curve[f"windowed_{measure}"], moa["windowed"][measure])
    # capymoa's own record: one row at the end of each window
    per_window = moa["per_window"][measure]
    ends = WINDOW * np.arange(1, len(per_window) + 1)
    assert len(per_window) == len(_sequence()[0]) // WINDOW
    _same(windowed_curves(*_sequence(), K, ends, WINDOW)[f"windowed_{measure}"], per_window)


@pytest.mark.parametrize("measure", ["accuracy", "kappa"])
def test_the_fading_curves_are_moas_fading_factor_evaluator(measured, measure):
    metrics, curve, moa = measured
    _same(curve[f"fading_{measure}"], moa["fading"][measure])
    _same([metrics[f"fading_{measure}"]], moa["fading"][measure][-1:])
