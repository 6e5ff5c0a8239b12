"""Evaluation metrics: the rank loss of Jung & Tewari 2018 (ties count 1/2), and the classification
metrics beside accuracy (Cohen's kappa, macro-F1, sliding-window variants) through scikit-learn,
the stream-learning kappas as MOA's evaluators compute them: kappa-M against the majority-class
classifier (Bifet et al., KDD 2015) and kappa-T against the no-change classifier (Zliobaite et
al., 2015), the fading-factor prequential accuracy and kappa (Gama, Sebastiao & Rodrigues, MLJ
90, 2013), and the summary of k-fold distributed cross-validation's folds (Bifet et al., KDD 2015).
"""

from __future__ import annotations

import numpy as np

#: A prediction of no class (a river peer's ``None``, before it has learnt): a miss, and a
#: predicted class of its own in the confusion counts (a column no true label shares), as river's
#: metrics count ``None``; never drawn, never class 0.
NO_PREDICTION = -1


def _kappa_f1(truth: np.ndarray, predicted: np.ndarray, k: int) -> tuple[float | None, float]:
    """scikit-learn's Cohen's kappa over the ``k`` classes (None where it is undefined: one class
    in both) and macro-F1 averaged over the classes present (true or predicted), as river's
    ``MacroF1`` averages the classes it has seen.
    """
    import warnings

    from sklearn.metrics import cohen_kappa_score, f1_score

    labels = np.arange(NO_PREDICTION if predicted.size and predicted.min() < 0 else 0, k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined kappa: NaN, reported as None
        kappa = float(cohen_kappa_score(truth, predicted, labels=labels))
    f1 = float(
        f1_score(
            truth, predicted, labels=np.unique(np.concatenate([truth, predicted])), average="macro", zero_division=0.0
        )
    )
    return (None if kappa != kappa else kappa), f1


def cohen_kappa(truth: np.ndarray, predicted: np.ndarray, k: int) -> float | None:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)`` of int64 labels ``truth``, ``predicted`` (``(n,)``,
    in ``0..k-1``; ``predicted`` may hold :data:`NO_PREDICTION`) from their confusion counts, in
    integers up to one division; None where it is undefined (``p_e = 1``: one class in both, or no
    example). scikit-learn's ``cohen_kappa_score`` is the reference it is tested against; this one
    costs one ``bincount`` where that one validates its input, which the windowed curves would pay
    once per checkpoint.
    """
    n = len(truth)
    if n and predicted.min() < 0:  # a no-prediction: a miss in its own column, which no truth shares
        scored = predicted >= 0
        counts = np.bincount(truth[scored] * k + predicted[scored], minlength=k * k).reshape(k, k)
        rows = np.bincount(truth, minlength=k)
    else:
        counts = np.bincount(truth * k + predicted, minlength=k * k).reshape(k, k)
        rows = counts.sum(axis=1)
    agree = int(np.trace(counts))
    chance = int(rows @ counts.sum(axis=0))  # n^2 p_e
    return None if n * n == chance else (agree * n - chance) / (n * n - chance)


def majority_predictions(truth: np.ndarray, k: int, window: int | None = None) -> np.ndarray:
    """What the majority-class classifier scores at each step of a stream, as MOA's evaluators
    count it: the most frequent true class among the examples up to and including the one
    predicted (all of them, or the last ``window``), ties to the lowest class.

    MOA's ``BasicClassificationPerformanceEvaluator.addResult`` adds the current example's label
    to its class counts before it takes their majority, so the baseline has seen the label it is
    scored on (it is always right on the first example). The literature's kappa-M figures are
    MOA's, so this one counts as MOA does.

    Args:
        truth: ``(n,)`` int64 true labels in stream order, in ``0..k-1``.
        window: None (the whole prefix, MOA's ``BasicClassificationPerformanceEvaluator``) or the
            examples of a sliding window (``WindowClassificationPerformanceEvaluator``).

    Returns:
        ``(n,)`` int64.
    """
    n = len(truth)
    out = np.empty(n, dtype=np.int64)
    block = max(1, (1 << 20) // max(k, 1))  # rows of counts held at once (8 MB, plus the window's)
    before = np.zeros(k, dtype=np.int64)  # the counts of truth[:start]
    for start in range(0, n, block):
        end = min(n, start + block)
        low = start if window is None else max(0, start + 1 - window)
        # counts[j]: the classes among truth[low:low + j]
        counts = np.vstack(
            [np.zeros((1, k), dtype=np.int64), np.cumsum(np.eye(k, dtype=np.int64)[truth[low:end]], axis=0)]
        )
        upper = np.arange(start, end) + 1  # each example's counts end with it
        if window is None:
            current = before + counts[upper - low]
        else:
            current = counts[upper - low] - counts[np.maximum(upper - window, low) - low]
        out[start:end] = current.argmax(axis=1)
        before = before + np.bincount(truth[start:end], minlength=k)
    return out


def no_change_predictions(truth: np.ndarray) -> np.ndarray:
    """What the no-change classifier predicts: the previous example's true label (class 0 first,
    as MOA's evaluators start). ``(n,)`` int64.
    """
    return np.concatenate([[0], truth[:-1]]).astype(np.int64)


def kappa_against(truth: np.ndarray, predicted: np.ndarray, baseline: np.ndarray) -> float | None:
    """``(p0 - pb) / (1 - pb)``: the accuracy ``p0`` gained over a baseline classifier's ``pb``
    (kappa-M with the majority class, kappa-T with no change); None where ``pb`` is 1.
    """
    p0, pb = float(np.mean(truth == predicted)), float(np.mean(truth == baseline))
    return None if pb >= 1.0 else (p0 - pb) / (1.0 - pb)


def classification_metrics(truth: np.ndarray, predicted: np.ndarray, k: int, final_start: int) -> dict:
    """Cohen's kappa, kappa-M, kappa-T and macro-F1 over the final window (from ``final_start``) and
    the whole pass.

    kappa-M's majority class is counted over every example up to the one predicted (MOA's basic
    evaluator: :func:`majority_predictions`), kappa-T's no-change classifier predicts the
    previous true label.

    Args:
        truth: ``(n,)`` int64 true labels in stream order.
        predicted: ``(n,)`` int64 predicted labels, aligned with ``truth``, in ``0..k-1`` or
            :data:`NO_PREDICTION` (a miss, and a class of its own in kappa's and macro-F1's
            counts, as river's metrics count ``None``).
        k: the number of classes.

    Returns:
        ``final_kappa``, ``final_kappa_m``, ``final_kappa_t``, ``final_macro_f1`` and the same four
        ``cumulative_`` (floats; a kappa is None where undefined).
    """
    final = _kappa_f1(truth[final_start:], predicted[final_start:], k)
    whole = _kappa_f1(truth, predicted, k)
    majority, no_change = majority_predictions(truth, k), no_change_predictions(truth)
    tail = slice(final_start, None)
    return {
        "final_kappa": final[0],
        "final_macro_f1": final[1],
        "cumulative_kappa": whole[0],
        "cumulative_macro_f1": whole[1],
        "final_kappa_m": kappa_against(truth[tail], predicted[tail], majority[tail]),
        "final_kappa_t": kappa_against(truth[tail], predicted[tail], no_change[tail]),
        "cumulative_kappa_m": kappa_against(truth, predicted, majority),
        "cumulative_kappa_t": kappa_against(truth, predicted, no_change),
    }


def windowed_curves(truth: np.ndarray, predicted: np.ndarray, k: int, seen: np.ndarray, window: int) -> dict:
    """Sliding-window accuracy, Cohen's kappa, kappa-M and kappa-T at each checkpoint: over the
    ``window`` examples before it (fewer at the start), as MOA's windowed evaluator (its
    majority class counted over the window that ends with each example), and kappa-M and
    kappa-T over the whole pass up to each checkpoint.

    Args:
        seen: ``(m,)`` int64 checkpoints (examples seen, 1-based).
        window: examples per window.

    Returns:
        ``windowed_accuracy``, ``windowed_kappa``, ``windowed_kappa_m``, ``windowed_kappa_t``,
        ``cumulative_kappa_m``, ``cumulative_kappa_t``: lists of ``m`` floats (a kappa None
        where undefined).
    """
    curves: dict[str, list] = {
        name: []
        for name in (
            "windowed_accuracy",
            "windowed_kappa",
            "windowed_kappa_m",
            "windowed_kappa_t",
            "cumulative_kappa_m",
            "cumulative_kappa_t",
        )
    }
    window_majority, majority = majority_predictions(truth, k, window), majority_predictions(truth, k)
    no_change = no_change_predictions(truth)
    for end in seen:
        part = slice(max(0, end - window), end)
        t, p = truth[part], predicted[part]
        curves["windowed_accuracy"].append(float(np.mean(t == p)))
        curves["windowed_kappa"].append(cohen_kappa(t, p, k))
        curves["windowed_kappa_m"].append(kappa_against(t, p, window_majority[part]))
        curves["windowed_kappa_t"].append(kappa_against(t, p, no_change[part]))
        curves["cumulative_kappa_m"].append(kappa_against(truth[:end], predicted[:end], majority[:end]))
        curves["cumulative_kappa_t"].append(kappa_against(truth[:end], predicted[:end], no_change[:end]))
    return curves


def fading_sums(values: np.ndarray, alpha: float) -> np.ndarray:
    """The fading sums ``S_i = x_i + alpha S_{i-1}`` (``S_1 = x_1``) of ``values`` (float64,
    along the last axis), Gama, Sebastiao & Rodrigues 2013 (Sec. 4), through scipy's ``lfilter``:
    ``alpha * S + x`` in float64, as MOA's ``FadingFactorEstimator`` adds.
    """
    from scipy.signal import lfilter

    return lfilter([1.0], [1.0, -alpha], values, axis=-1)


def fading_curves(truth: np.ndarray, predicted: np.ndarray, k: int, seen: np.ndarray, alpha: float) -> dict:
    """Fading-factor prequential accuracy and Cohen's kappa at each checkpoint (Gama, Sebastiao &
    Rodrigues, MLJ 90, 2013, Sec. 4): every count of the measure is a fading sum
    (:func:`fading_sums`) over the examples up to the checkpoint, divided by ``N_i = 1 + alpha
    N_{i-1}``: the accuracy ``S_i / N_i`` of the hits, and the kappa ``(p_o - p_e) / (1 - p_e)``
    of the faded confusion margins, as MOA's ``FadingFactorClassificationPerformanceEvaluator``.

    Args:
        truth: ``(n,)`` int64 true labels in stream order, in ``0..k-1``.
        predicted: ``(n,)`` int64 predicted labels, aligned with ``truth``, in ``0..k-1`` or
            :data:`NO_PREDICTION` (in no class's margin).
        seen: ``(m,)`` int64 checkpoints (examples seen, 1-based).
        alpha: the fading factor in (0, 1] (1: the cumulative measures).

    Returns:
        ``fading_accuracy``, ``fading_kappa``: lists of ``m`` floats (the kappa None where
        ``p_e = 1``: one class, true and predicted, over the faded examples).
    """
    at = np.asarray(seen) - 1
    weight = fading_sums(np.ones(len(truth)), alpha)[at]
    accuracy = fading_sums((truth == predicted).astype(np.float64), alpha)[at] / weight
    chance = np.zeros(len(at))
    for c in range(k):  # class by class: k faded margins, one stream-long row at a time
        rows = fading_sums((predicted == c).astype(np.float64), alpha)[at] / weight
        columns = fading_sums((truth == c).astype(np.float64), alpha)[at] / weight
        chance += rows * columns
    kappa = [None if pe == 1.0 else float((po - pe) / (1.0 - pe)) for po, pe in zip(accuracy, chance)]
    return {"fading_accuracy": accuracy.tolist(), "fading_kappa": kappa}


def fold_summary(values: list[float | None], confidence: float = 0.95) -> tuple[float | None, ...]:
    """The mean of a measure over k-fold distributed cross-validation's folds, and its Student-t
    interval ``mean -/+ t_{(1+confidence)/2, m-1} s / sqrt(m)`` (scipy's ``t``; ``s`` the folds'
    sample standard deviation), over the ``m`` folds where the measure is defined.

    The folds' copies are tested on the same examples and share most of their training (Bifet
    et al., KDD 2015): the interval says how much the measure moves between copies of the
    learner trained on other parts of one stream, not between streams.

    Args:
        values: one value per fold, None where undefined (a kappa).
        confidence: the interval's coverage, in (0, 1).

    Returns:
        ``(mean, low, high)``; the mean None where no fold has a value, the ends None below 2.
    """
    from scipy import stats

    defined = np.array([v for v in values if v is not None], dtype=np.float64)
    if len(defined) == 0:
        return None, None, None
    mean = float(defined.mean())
    if len(defined) < 2:
        return mean, None, None
    half = float(stats.t.ppf((1.0 + confidence) / 2.0, len(defined) - 1) * stats.sem(defined))
    return mean, mean - half, mean + half


def rank_loss(scores: np.ndarray, relevant: np.ndarray) -> np.ndarray | float:
    """Rank loss of score vectors against one label set, Jung & Tewari 2018 (Section 3.1).

    ``L(s) = w_Y sum_{l in Y} sum_{r not in Y} [1(s[l] < s[r]) + 1/2 1(s[l] = s[r])]`` with
    ``w_Y = 1 / (|Y| |Y^c|)``; 0 when Y is empty or full.

    Args:
        scores: ``(k,)`` or ``(N, k)`` float64 score vectors (e.g. every expert's).
        relevant: ``(k,)`` bool, the label set Y.

    Returns:
        A float for ``(k,)`` scores, else ``(N,)`` float64, each in [0, 1].
    """
    relevant = np.asarray(relevant, dtype=bool)
    S = np.atleast_2d(scores)
    n_rel = int(relevant.sum())
    if n_rel == 0 or n_rel == relevant.size:
        out = np.zeros(S.shape[0])
    else:
        rel = S[:, relevant][:, :, None]
        irr = S[:, ~relevant][:, None, :]
        pairs = (rel < irr).sum(axis=(1, 2)) + 0.5 * (rel == irr).sum(axis=(1, 2))
        out = pairs / (n_rel * (relevant.size - n_rel))
    return float(out[0]) if np.ndim(scores) == 1 else out
