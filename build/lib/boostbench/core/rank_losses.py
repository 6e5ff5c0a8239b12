"""Multi-label ranking surrogates of Jung & Tewari 2018 and their gradients (the cost vectors).

All take score vectors ``s`` (``(k,)`` or ``(N, k)`` float64) and a label set ``relevant``
(``(k,)`` bool). ``w_Y = 1 / (|Y| |Y^c|)``; with Y empty or full every loss and gradient is 0.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit


def _pair_margins(scores: np.ndarray, relevant: np.ndarray) -> tuple[np.ndarray, float]:
    """``s[r] - s[l]`` for every relevant l and irrelevant r: ``(N, |Y|, |Y^c|)``, and w_Y."""
    S = np.atleast_2d(scores)
    n_rel = int(relevant.sum())
    if n_rel in (0, relevant.size):
        return np.zeros((S.shape[0], 0, 0)), 0.0
    margins = S[:, ~relevant][:, None, :] - S[:, relevant][:, :, None]
    return margins, 1.0 / (n_rel * (relevant.size - n_rel))


def _shape(out: np.ndarray, scores: np.ndarray):
    return float(out[0]) if np.ndim(scores) == 1 else out


def logistic_rank_loss(scores: np.ndarray, relevant: np.ndarray):
    """``w_Y sum_{l in Y, r not in Y} log(1 + exp(s[r] - s[l]))`` (Section 3.2)."""
    margins, w = _pair_margins(scores, relevant)
    return _shape(w * np.logaddexp(0.0, margins).sum(axis=(1, 2)), scores)


def hinge_rank_loss(scores: np.ndarray, relevant: np.ndarray):
    """``w_Y sum_{l in Y, r not in Y} (1 + s[r] - s[l])_+`` (Section 3.1)."""
    margins, w = _pair_margins(scores, relevant)
    return _shape(w * np.maximum(0.0, 1.0 + margins).sum(axis=(1, 2)), scores)


def logistic_rank_gradient(scores: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Ada.OLMR's cost vector, eq. (8): the gradient of :func:`logistic_rank_loss` at ``s``.

    Entries are negative on relevant labels, positive on irrelevant ones, and sum to 0.

    Returns:
        ``(k,)`` or ``(N, k)`` float64, like ``scores``.
    """
    relevant = np.asarray(relevant, dtype=bool)
    margins, w = _pair_margins(scores, relevant)
    S = np.atleast_2d(scores)
    grad = np.zeros_like(S, dtype=np.float64)
    if w:
        sig = expit(margins)  # d/ds[r] log(1 + e^(s[r]-s[l])) = sigma(s[r] - s[l])
        grad[:, relevant] = -w * sig.sum(axis=2)
        grad[:, ~relevant] = w * sig.sum(axis=1)
    return grad[0] if np.ndim(scores) == 1 else grad
