"""The multi-label measures of a pass's predictions: the seed's rank loss (Jung & Tewari 2018,
Section 3.1, :func:`boostbench.metrics.rank_loss`) of the scores, and of the predicted label sets
the Hamming loss, subset accuracy (exact match), example-based F1 and micro- and macro-F1, as
river's ``metrics.multioutput`` and MOA's ``BasicMultiLabelPerformanceEvaluator`` compute them
(an F1 with nothing true and nothing predicted is 0 in both).

:data:`MEASURES` is their table (name, direction, meaning, domain); a record holds each over the
test part (``test_<name>``, MULAN's protocol reports the test part: the "final" measures) and, as
curves at the test checkpoints, over the sliding window of the ``window`` test predictions before
each (``windowed_<name>``).

A ranker's label set, when its library gives none (ours rank only), is its ``m`` top-scored
labels, ``m`` the mean size of the label sets revealed so far, rounded (:func:`top_labels`): a
set as large as the sets the stream has shown, chosen by the ranking alone, so that the set
measures judge the ranking and no threshold of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MultilabelMeasure:
    """One multi-label measure: its name (``test_<name>`` in a record), whether higher is
    better, what it measures (one line), its title in the reports and its range.
    """

    name: str
    higher_is_better: bool
    meaning: str
    title: str
    domain: tuple[float, float] = (0.0, 1.0)


#: The measures, in the order the reports show them (the seed's rank loss first)
MEASURES = (
    MultilabelMeasure(
        "rank_loss",
        False,
        "share of (relevant, irrelevant) label pairs ranked wrong, ties 1/2 (Jung & Tewari 2018)",
        "rank loss",
    ),
    MultilabelMeasure(
        "hamming_loss", False, "share of (example, label) decisions wrong (1 - MOA's Hamming score)", "Hamming loss"
    ),
    MultilabelMeasure(
        "subset_accuracy",
        True,
        "share of examples whose label set is predicted exactly (exact match)",
        "subset accuracy",
    ),
    MultilabelMeasure(
        "example_f1", True, "mean over examples of 2|P ∩ Y| / (|P| + |Y|), 0 when both are empty", "example-based F1"
    ),
    MultilabelMeasure("micro_f1", True, "2 TP / (2 TP + FP + FN) over every (example, label) decision", "micro-F1"),
    MultilabelMeasure(
        "macro_f1", True, "mean over labels of each label's 2 TP / (2 TP + FP + FN), 0 where it is 0/0", "macro-F1"
    ),
)


def top_labels(scores: np.ndarray, cardinality: float) -> np.ndarray:
    """The ``round(cardinality)`` labels of highest score, ``(k,)`` bool; equal scores in label
    order (a stable sort), so an untrained ranker's equal scores give the first labels.

    Args:
        scores: ``(k,)`` float64, higher = ranked higher.
        cardinality: the mean size of the label sets seen so far (0 before any: the empty set).
    """
    chosen = np.zeros(len(scores), dtype=bool)
    m = min(len(scores), int(np.floor(cardinality + 0.5)))  # half up, as the cardinality grows
    chosen[np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")[:m]] = True
    return chosen


def _f1(tp, fp, fn):
    """``2 tp / (2 tp + fp + fn)`` elementwise, 0 where the denominator is 0 (river's and MOA's)."""
    tp, denominator = np.asarray(tp, dtype=np.float64), np.asarray(2 * tp + fp + fn, dtype=np.float64)
    return np.divide(2 * tp, denominator, out=np.zeros_like(denominator), where=denominator > 0)


def set_measures(truth: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    """The label-set measures of :data:`MEASURES` over a run of predictions.

    Args:
        truth: ``(n, k)`` bool true label sets; predicted: ``(n, k)`` bool predicted ones, n >= 1.

    Returns:
        ``hamming_loss``, ``subset_accuracy``, ``example_f1``, ``micro_f1``, ``macro_f1`` (floats).
    """
    truth, predicted = np.asarray(truth, dtype=bool), np.asarray(predicted, dtype=bool)
    tp, fp, fn = truth & predicted, ~truth & predicted, truth & ~predicted
    return {
        "hamming_loss": float(np.mean(truth != predicted)),
        "subset_accuracy": float(np.mean(np.all(truth == predicted, axis=1))),
        "example_f1": float(np.mean(_f1(tp.sum(axis=1), fp.sum(axis=1), fn.sum(axis=1)))),
        "micro_f1": float(_f1(tp.sum(), fp.sum(), fn.sum())),
        "macro_f1": float(np.mean(_f1(tp.sum(axis=0), fp.sum(axis=0), fn.sum(axis=0)))),
    }


def measures(truth: np.ndarray, predicted: np.ndarray, losses: np.ndarray) -> dict[str, float]:
    """Every measure of :data:`MEASURES`: the mean of ``losses`` (``(n,)`` rank losses) and
    :func:`set_measures`.
    """
    return {"rank_loss": float(np.mean(losses)), **set_measures(truth, predicted)}


def windowed_curves(
    truth: np.ndarray, predicted: np.ndarray, losses: np.ndarray, seen: np.ndarray, window: int
) -> dict[str, list[float]]:
    """Each measure over the ``window`` predictions before each checkpoint (fewer at the start).

    Args:
        truth: ``(n, k)`` bool, the relevant labels.
        predicted: ``(n, k)`` bool, the predicted label sets, aligned with ``truth``.
        losses: ``(n,)`` float64 rank losses, aligned.
        seen: ``(m,)`` int64 checkpoints (predictions made, 1-based).
        window: predictions per window.

    Returns:
        ``windowed_<name>`` for each measure: a list of ``m`` floats.
    """
    curves: dict[str, list[float]] = {f"windowed_{m.name}": [] for m in MEASURES}
    for end in np.asarray(seen, dtype=np.int64):
        part = slice(max(0, int(end) - window), int(end))
        for name, value in measures(truth[part], predicted[part], losses[part]).items():
            curves[f"windowed_{name}"].append(value)
    return curves
