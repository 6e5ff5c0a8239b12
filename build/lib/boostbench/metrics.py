"""Evaluation metrics: the rank loss of Jung & Tewari 2018 (ties count 1/2)."""

from __future__ import annotations

import numpy as np


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
