"""Evaluation metrics: the rank loss of Jung & Tewari 2018 (ties count 1/2), and the classification
metrics beside accuracy (Cohen's kappa, macro-F1, sliding-window variants) through scikit-learn."""

from __future__ import annotations

import numpy as np


def _kappa_f1(truth: np.ndarray, predicted: np.ndarray, k: int) -> tuple[float | None, float]:
    """scikit-learn's Cohen's kappa over the ``k`` classes (None where it is undefined: one class
    in both) and macro-F1 averaged over the classes present (true or predicted), as river's
    ``MacroF1`` averages the classes it has seen."""
    import warnings

    from sklearn.metrics import cohen_kappa_score, f1_score

    labels = np.arange(k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined kappa: NaN, reported as None
        kappa = float(cohen_kappa_score(truth, predicted, labels=labels))
    f1 = float(f1_score(truth, predicted, labels=np.unique(np.concatenate([truth, predicted])), average="macro",
                        zero_division=0.0))
    return (None if kappa != kappa else kappa), f1


def classification_metrics(truth: np.ndarray, predicted: np.ndarray, k: int, final_start: int) -> dict:
    """Cohen's kappa and macro-F1 over the final window (from ``final_start``) and the whole pass.

    Args:
        truth, predicted: ``(n,)`` int64 true and predicted labels in stream order.
        k: the number of classes.

    Returns:
        ``final_kappa``, ``final_macro_f1``, ``cumulative_kappa``, ``cumulative_macro_f1`` (floats;
        a kappa is None where undefined).
    """
    final = _kappa_f1(truth[final_start:], predicted[final_start:], k)
    whole = _kappa_f1(truth, predicted, k)
    return {"final_kappa": final[0], "final_macro_f1": final[1], "cumulative_kappa": whole[0],
            "cumulative_macro_f1": whole[1]}


def windowed_curves(truth: np.ndarray, predicted: np.ndarray, k: int, seen: np.ndarray, window: int) -> dict:
    """Sliding-window accuracy and Cohen's kappa at each checkpoint: over the ``window`` examples
    before it (fewer at the start).

    Args:
        seen: ``(m,)`` int64 checkpoints (examples seen, 1-based).
        window: examples per window.

    Returns:
        ``windowed_accuracy`` and ``windowed_kappa``: lists of ``m`` floats (a kappa None where
        undefined).
    """
    accuracy, kappa = [], []
    for end in seen:
        t, p = truth[max(0, end - window):end], predicted[max(0, end - window):end]
        accuracy.append(float(np.mean(t == p)))
        kappa.append(_kappa_f1(t, p, k)[0])
    return {"windowed_accuracy": accuracy, "windowed_kappa": kappa}


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
