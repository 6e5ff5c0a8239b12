"""Cost matrices of the cost-matrix framework (Mukherjee & Schapire 2013; Jung et al. 2017).

Row ``r`` of a cost matrix ``C`` (``(k, k)``) is the cost of each predicted label when the
true label is ``r``; the true label costs least in its row.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit


def logistic_loss(s: np.ndarray, r: int) -> float:
    """Multiclass logistic loss, Jung et al. 2017 eq. (8).

    ``L_r(s) = sum_{l != r} log(1 + exp(s[l] - s[r]))`` for cumulative votes ``s`` (``(k,)``).
    """
    margins = np.delete(s, r) - s[r]
    return float(np.sum(np.logaddexp(0.0, margins)))


def cost_matrix_logistic(s: np.ndarray) -> np.ndarray:
    """Adaboost.OLM's cost matrix, Jung et al. 2017 eq. (9): ``(k, k)`` float64.

    ``C[r, l] = 1 / (1 + exp(s[r] - s[l]))`` for ``l != r`` and ``C[r, r] = -sum_{l != r} C[r, l]``;
    row ``r`` is the gradient of the logistic loss ``L_r`` (eq. 8) at ``s``. Rows sum to 0,
    the diagonal is the row minimum and ``-(k-1) < C[r, r] < 0``.

    Args:
        s: ``(k,)`` float64 weighted cumulative votes of the learners so far.
    """
    C = expit(s[None, :] - s[:, None])
    np.fill_diagonal(C, 0.0)
    np.fill_diagonal(C, -C.sum(axis=1))
    return C


def cost_row_logistic(s: np.ndarray, r: int) -> np.ndarray:
    """Row ``r`` of :func:`cost_matrix_logistic` alone, ``(k,)`` (the gradient of ``L_r`` at s)."""
    row = expit(s - s[r])
    row[r] = 0.0
    row[r] = -row.sum()
    return row


def normalized_cost_matrix(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OnlineMBBM's normalised cost matrix D, Jung et al. 2017 eq. (5), and the row weights.

    Args:
        raw: ``(k, k)`` float64 unnormalised cost matrix of eq. (4),
            ``raw[r, l] = phi^r_{N-i}(s + e_l)``.

    Returns:
        ``(D, w)``: ``D`` ``(k, k)`` with ``D[r, r] = 0``, ``D >= 0`` and each row's L1 norm 1
        (a zero row stays zero), and ``w`` ``(k,)`` the row sums of ``raw - diag(raw)`` (eq. 5's
        ``w_i[t]`` when the true label is ``r``).
    """
    shifted = raw - np.diag(raw)[:, None]
    w = shifted.sum(axis=1)
    D = np.divide(shifted, w[:, None], out=np.zeros_like(shifted), where=w[:, None] > 0)
    return D, w
