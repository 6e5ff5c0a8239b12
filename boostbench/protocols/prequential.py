"""Prequential (test-then-train) evaluation over one pass of a stream (Jung et al. 2017, Sec. 5),
optionally with delayed labels (the label of example t arrives after example t + delay is
predicted).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from boostbench.boosters.base import OnlineBooster, check_labels
from boostbench.system.resources import SAMPLE_EVERY, ResourceMeter

ProgressCallback = Callable[[int, float], None]  # (examples done, running accuracy)


@dataclass(frozen=True)
class PrequentialResult:
    """What one prequential pass measured.

    Attributes:
        predicted: ``(n,)`` int64, the label predicted for the t-th streamed example.
        truth: ``(n,)`` int64, its true label.
        final_start: index of the first example of the final window.
        member_correct_final: ``(N,)`` int64 correct predictions of each member in the final
            window, when the members were tracked (else None).
        runtime_s: wall time of the pass in seconds (prediction + update, no data loading).
        cpu_s: CPU seconds of the pass, every thread and child process (a peer's Java loop).
        ram_hours: MOA's RAM-hours of the pass, GiB x CPU hours (:class:`~boostbench.system.resources.ResourceMeter`).
        model_bytes: the model's resident bytes at the end of the pass (the meter's measure).
    """

    predicted: np.ndarray
    truth: np.ndarray
    final_start: int
    member_correct_final: np.ndarray | None
    runtime_s: float
    cpu_s: float = float("nan")
    ram_hours: float = float("nan")
    model_bytes: int = 0

    @property
    def correct(self) -> np.ndarray:
        """``(n,)`` bool, whether each prediction was right."""
        return self.predicted == self.truth

    @property
    def n_examples(self) -> int:
        return len(self.correct)

    @property
    def final_accuracy(self) -> float:
        """Accuracy over the final window (Table 1's measure)."""
        return float(self.correct[self.final_start :].mean())

    @property
    def cumulative_accuracy(self) -> float:
        return float(self.correct.mean())

    def curve(self, points: int) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative accuracy at up to ``points`` evenly spaced checkpoints (last one = n).

        Returns:
            ``(examples_seen (m,) int64, accuracy (m,) float64)``.
        """
        n = self.n_examples
        seen = np.unique(np.linspace(1, n, num=min(points, n)).round().astype(np.int64))
        return seen, np.cumsum(self.correct)[seen - 1] / seen


def final_window_start(n: int, final_fraction: float) -> int:
    """First index of the final ``final_fraction`` of ``n`` examples (at least one example)."""
    return min(n - 1, n - math.ceil(final_fraction * n))


def prequential(
    booster: OnlineBooster,
    X: np.ndarray,
    y: np.ndarray,
    order: np.ndarray,
    final_fraction: float = 0.2,
    on_progress: ProgressCallback | None = None,
    progress_every: int = 25,
    track_members: bool = False,
    delay: int = 0,
) -> PrequentialResult:
    """Run one test-then-train pass: predict ``x_t``, score it, then reveal ``y_t`` (with
    ``delay`` > 0: reveal ``y_{t - delay}`` instead, after predicting ``x_t``).

    Args:
        booster: the algorithm under test (fresh).
        X: ``(n_total, d)`` float64 encoded examples.
        y: ``(n_total,)`` int64 labels.
        order: ``(n,)`` int64 indices into X, the stream.
        final_fraction: the final window's share of the stream, in (0, 1].
        on_progress: called every ``progress_every`` examples and at the end with
            ``(examples done, running accuracy)``.
        track_members: also score every member's label (the booster's ``member_predictions``
            ``(N,)`` after each prediction; the registry's ``tracks_members``).
        delay: examples between a prediction and its label (0: the papers' protocol). A late
            label trains the booster as it is when the label arrives: the booster predicts that
            example again (unscored, setting what its update reads) and updates; the last
            ``delay`` labels never arrive.

    Returns:
        The run's result, a :class:`PrequentialResult`.

    Raises:
        BoosterOutputError: a prediction the protocol cannot score (a distribution that is not
            ``(k,)`` finite and non-negative, a label outside ``0..k-1``).
    """
    n = len(order)
    start = final_window_start(n, final_fraction)
    truth = np.asarray(y[order], dtype=np.int64)
    predicted = np.zeros(n, dtype=np.int64)
    member_correct = np.zeros(booster.pool.n_learners, dtype=np.int64) if track_members else None
    hits = 0
    meter = ResourceMeter()
    meter.start()
    began = time.perf_counter()
    if track_members or delay:
        for t, index in enumerate(order):
            x, label = X[index], int(truth[t])
            predicted[t] = booster.predict(x)
            hits += predicted[t] == label
            if t >= start and track_members:
                member_correct += booster.member_predictions == label
            if not delay:
                booster.update(label)
            elif t >= delay:  # the label of example t - delay arrives
                booster.predict(X[order[t - delay]])
                booster.update(int(truth[t - delay]))
            if on_progress is not None and (t + 1) % progress_every == 0:
                on_progress(t + 1, hits / (t + 1))
            if (t + 1) % SAMPLE_EVERY == 0:
                meter.sample()
    else:  # chunks between progress reports, which a booster may run in one compiled call
        chunk = progress_every if on_progress is not None else 1024
        sampled = 0
        for t in range(0, n, chunk):
            rows = order[t : t + chunk]
            predicted[t : t + len(rows)] = booster.test_then_train(X[rows], y[rows])
            hits += int((predicted[t : t + len(rows)] == truth[t : t + len(rows)]).sum())
            if on_progress is not None and t + len(rows) < n:
                on_progress(t + len(rows), hits / (t + len(rows)))
            if t + len(rows) - sampled >= SAMPLE_EVERY:
                meter.sample()
                sampled = t + len(rows)
    runtime = time.perf_counter() - began
    meter.stop()
    check_labels(predicted, booster.n_classes)  # a plugin's own predict: before any measure reads them
    if on_progress is not None:
        on_progress(n, hits / max(n, 1))
    return PrequentialResult(
        predicted, truth, start, member_correct, runtime, meter.cpu_s, meter.ram_hours, meter.model_bytes
    )
