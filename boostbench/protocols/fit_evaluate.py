"""Fit on a training part, score on the held-out part: batch boosters and online learners alike.

Batch boosters are fitted once and scored after every round (staged predictions); online
learners make one pass over the training part in a seeded order (predict, then reveal the
label, as in the prequential protocol) and are then scored without further learning.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from boostbench.boosters.base import check_labels
from boostbench.system.resources import SAMPLE_EVERY, ResourceMeter, release_free_memory

if TYPE_CHECKING:  # the batch family imports scikit-learn: not for an online run (its memory)
    from boostbench.batch.base import BatchModel
    from boostbench.boosters.base import OnlineBooster


@dataclass(frozen=True)
class FoldResult:
    """Errors of one fit.

    Attributes:
        train_error: ``(T,)`` float64 error on the training part after rounds 1..T (T = 1 for
            an online learner: its error after the pass).
        test_error: ``(T,)`` float64 error on the held-out part, likewise.
        n_rounds_fitted: rounds the batch booster kept (T for an online learner's single stage: 1).
        runtime_s: seconds spent fitting (the online pass included), not scoring.
        weights: ``(T_fit, n_train)`` float64 distribution over training examples per round
            (batch boosters only, else None).
        cpu_s: CPU seconds of the fit (every thread and child process), the span ``runtime_s`` times.
        ram_hours: MOA's RAM-hours of the fit, GiB x CPU hours (:class:`~boostbench.system.resources.ResourceMeter`).
        model_bytes: the model's resident bytes when the fit ended (the meter's measure).
    """

    train_error: np.ndarray
    test_error: np.ndarray
    n_rounds_fitted: int
    runtime_s: float
    weights: np.ndarray | None
    cpu_s: float = float("nan")
    ram_hours: float = float("nan")
    model_bytes: int = 0


def _meter() -> ResourceMeter:
    """A started meter, as the prequential pass starts one; what an earlier fold freed is given
    back first, so that this fold's model is not read as smaller for reusing that memory.
    """
    release_free_memory()
    meter = ResourceMeter()
    meter.start()
    return meter


def fit_batch(booster: BatchModel, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> FoldResult:
    """Fit ``booster`` on ``X[train]`` and score every stage on both parts.

    Args:
        X: ``(n, d)`` float64.
        y: ``(n,)`` int64 labels.
        train: int64 indices of the training rows.
        test: int64 indices of the test rows.
    """
    X_train, y_train = X[train], y[train]  # the data's copy is not the model's memory
    meter = _meter()
    began = time.perf_counter()
    booster.fit(X_train, y_train)
    runtime = time.perf_counter() - began
    meter.stop()  # one call: the RAM-hours are the fitted model's size x the fit's CPU hours
    train_error = (booster.staged_predict(X_train) != y_train).mean(axis=1)
    test_error = (booster.staged_predict(X[test]) != y[test]).mean(axis=1)
    return FoldResult(
        train_error,
        test_error,
        booster.n_rounds_fitted,
        runtime,
        booster.weight_history_,
        meter.cpu_s,
        meter.ram_hours,
        meter.model_bytes,
    )


def _error(booster: OnlineBooster, X: np.ndarray, y: np.ndarray, rows: np.ndarray) -> float:
    predicted = booster.predict_many(X[rows])
    check_labels(predicted, booster.n_classes, "predict_many")
    return float(np.mean(predicted != y[rows])) if len(rows) else float("nan")


def fit_online(
    booster: OnlineBooster, X: np.ndarray, y: np.ndarray, train_order: np.ndarray, test: np.ndarray
) -> FoldResult:
    """One online pass over ``train_order`` (the seeded order), then score the frozen model."""
    meter = _meter()
    began = time.perf_counter()
    for t, i in enumerate(train_order):
        booster.predict(X[i])
        booster.update(int(y[i]))
        if (t + 1) % SAMPLE_EVERY == 0:
            meter.sample()
    runtime = time.perf_counter() - began
    meter.stop()
    train_error = _error(booster, X, y, np.sort(train_order))
    test_error = _error(booster, X, y, test)
    return FoldResult(
        np.array([train_error]),
        np.array([test_error]),
        1,
        runtime,
        None,
        meter.cpu_s,
        meter.ram_hours,
        meter.model_bytes,
    )
