"""Multi-label ranking surrogates of Jung & Tewari 2018 and their gradients (the cost vectors).

All take score vectors ``s`` (``(k,)`` or ``(N, k)`` float64) and a label set ``relevant``
(``(k,)`` bool). ``w_Y = 1 / (|Y| |Y^c|)``; with Y empty or full every loss and gradient is 0.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from boostbench.system.kernel_cache import njit


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


# -- compiled twins for every expert's scores at once (Ada.OLMR's update), tested against the above


def label_indices(relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The relevant and irrelevant labels of a ``(k,)`` bool label set, int64 index arrays."""
    relevant = np.asarray(relevant, dtype=bool)
    return np.flatnonzero(relevant), np.flatnonzero(~relevant)


@njit(cache=True)
def logistic_rank_gradients(S, rel, irr):  # pragma: no cover - compiled
    """:func:`logistic_rank_gradient` of every row of ``S`` (``(N, k)`` float64), with the label set
    as :func:`label_indices` gives it: ``(N, k)`` float64 (the reference agrees to ~1e-15).

    ``sigma(s[r] - s[l]) = 1 / (1 + a_l b_r)`` with ``a_l = exp(s[l] - c)``, ``b_r = exp(c - s[r])``:
    ``k`` exponentials per row instead of ``|Y| |Y^c|`` (5x faster at mediamill's k = 101). ``c``
    is the middle of the row's range, so neither factor overflows while the range is below 1400;
    a wider row takes one exponential per pair (which saturates to the right limit, 0 or 1).
    """
    N, k = S.shape
    G = np.zeros((N, k))
    if rel.shape[0] == 0 or irr.shape[0] == 0:
        return G
    w = 1.0 / (rel.shape[0] * irr.shape[0])
    a = np.empty(rel.shape[0])
    b = np.empty(irr.shape[0])
    column = np.empty(irr.shape[0])
    for i in range(N):
        lo, hi = S[i, 0], S[i, 0]
        for c in range(1, k):
            lo, hi = min(lo, S[i, c]), max(hi, S[i, c])
        mid = 0.5 * (lo + hi)
        wide = hi - lo > 1400.0
        for p in range(rel.shape[0]):
            a[p] = math.exp(S[i, rel[p]] - mid)
        for q in range(irr.shape[0]):
            b[q] = math.exp(mid - S[i, irr[q]])
            column[q] = 0.0
        for p in range(rel.shape[0]):
            row = 0.0
            for q in range(irr.shape[0]):
                if wide:
                    sig = 1.0 / (1.0 + math.exp(S[i, rel[p]] - S[i, irr[q]]))
                else:
                    sig = 1.0 / (1.0 + a[p] * b[q])
                row += sig
                column[q] += sig
            G[i, rel[p]] = -w * row
        for q in range(irr.shape[0]):
            G[i, irr[q]] = w * column[q]
    return G


@njit(cache=True)
def rank_losses(S, rel, irr):  # pragma: no cover - compiled
    """:func:`boostbench.metrics.rank_loss` of every row of ``S`` (``(N, k)`` float64): ``(N,)``
    float64 in [0, 1], the same to the bit (counts of integer pairs, one division).
    """
    N = S.shape[0]
    out = np.zeros(N)
    if rel.shape[0] == 0 or irr.shape[0] == 0:
        return out
    for i in range(N):
        below, tied = 0, 0
        for p in range(rel.shape[0]):
            s = S[i, rel[p]]
            for q in range(irr.shape[0]):
                below += s < S[i, irr[q]]
                tied += s == S[i, irr[q]]
        out[i] = (below + 0.5 * tied) / (rel.shape[0] * irr.shape[0])
    return out
