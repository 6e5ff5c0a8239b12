"""MULAN's protocol for online multi-label ranking (Jung & Tewari 2018, Section 4).

One online pass over the training part, then the test part; the booster keeps updating through
the test part (predict, score, then reveal), and the reported figure is the mean rank loss over
the test part only. Each prediction's label set is kept too (the ranker's
:meth:`~boostbench.boosters.base.OnlineRanker.predict_labels`), for the set measures of
:mod:`boostbench.multilabel_metrics`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from boostbench.boosters.base import OnlineRanker, checked_output
from boostbench.metrics import rank_loss
from boostbench.system.resources import SAMPLE_EVERY, ResourceMeter

ProgressCallback = Callable[[int, float], None]  # (examples done, running mean rank loss)


@dataclass(frozen=True)
class TrainTestResult:
    """Rank losses of one train-then-test pass.

    Attributes:
        train_loss: ``(n_train,)`` float64 rank loss of each training prediction (before its update).
        test_loss: ``(n_test,)`` float64 rank loss of each test prediction.
        runtime_s: wall time of the whole pass in seconds.
        cpu_s: CPU seconds of the pass, every thread and child process.
        ram_hours: MOA's RAM-hours of the pass, GiB x CPU hours (:class:`~boostbench.system.resources.ResourceMeter`).
        model_bytes: the model's resident bytes at the end of the pass.
        predicted: ``(n_train + n_test, k)`` bool label set of each prediction, in pass order
            (None: not kept).
    """

    train_loss: np.ndarray
    test_loss: np.ndarray
    runtime_s: float
    cpu_s: float = float("nan")
    ram_hours: float = float("nan")
    model_bytes: int = 0
    predicted: np.ndarray | None = None

    @property
    def n_examples(self) -> int:
        return len(self.train_loss) + len(self.test_loss)

    def curve(self, points: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean test rank loss after ``m`` test examples, at up to ``points`` checkpoints."""
        n = len(self.test_loss)
        seen = np.unique(np.linspace(1, n, num=min(points, n)).round().astype(np.int64))
        return seen, np.cumsum(self.test_loss)[seen - 1] / seen


def train_then_test(
    ranker: OnlineRanker,
    X: np.ndarray,
    Y: np.ndarray,
    train_order: np.ndarray,
    test_order: np.ndarray,
    on_progress: ProgressCallback | None = None,
    progress_every: int = 25,
) -> TrainTestResult:
    """Stream ``train_order`` then ``test_order`` through ``ranker``, scoring every prediction.

    Args:
        ranker: a fresh multi-label booster.
        X: ``(n, d)`` float64; Y: ``(n, k)`` bool label sets.
        train_order: ``int64`` row indices of the training part, in stream order.
        test_order: ``int64`` row indices of the test part, in stream order.
        on_progress: called every ``progress_every`` examples and at the end with
            ``(examples done, running mean rank loss)``.

    Raises:
        BoosterOutputError: scores that are not ``(k,)`` finite numbers.
    """
    k = Y.shape[1]
    order = np.concatenate([train_order, test_order])
    losses = np.empty(len(order))
    predicted = np.zeros((len(order), k), dtype=bool)
    total = 0.0
    relevant_seen = 0  # labels in the sets revealed so far: the cardinality a set is sized by
    meter = ResourceMeter()  # as the prequential pass measures it
    meter.start()
    began = time.perf_counter()
    for t, index in enumerate(order):
        scores = checked_output(ranker.predict_scores(X[index]), k, "predict_scores")
        losses[t] = rank_loss(scores, Y[index])
        predicted[t] = ranker.predict_labels(scores, relevant_seen / t if t else 0.0)
        total += losses[t]
        ranker.update(Y[index])
        relevant_seen += int(Y[index].sum())
        if on_progress is not None and (t + 1) % progress_every == 0:
            on_progress(t + 1, total / (t + 1))
        if (t + 1) % SAMPLE_EVERY == 0:
            meter.sample()
    runtime = time.perf_counter() - began
    meter.stop()
    if on_progress is not None:
        on_progress(len(order), float(losses.mean()) if len(order) else 0.0)
    n_train = len(train_order)
    return TrainTestResult(
        losses[:n_train], losses[n_train:], runtime, meter.cpu_s, meter.ram_hours, meter.model_bytes, predicted
    )
