"""Compiled twins of Adaboost.OLM's per-example loops (Jung et al. 2017, Algorithm 2).

Same arithmetic as the reference functions in :mod:`boostbench.boosters.adaboost_olm`
(``forward_reference``, ``backward_reference``), which the tests compare them with.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boostbench.core.ties import pick_tie_u as _pick


@njit(cache=True)
def _sigmoid_gap(a, b):  # pragma: no cover - compiled
    """``1 / (1 + exp(a - b))``: the cost of label b when the true label is a (eq. 9)."""
    return 1.0 / (1.0 + math.exp(a - b))


@njit(cache=True)
def forward(P, alpha, u):  # pragma: no cover - compiled
    """Learners' labels and experts' predictions for one example.

    Args:
        P: ``(N, k)`` learners' class distributions; alpha: ``(N,)`` vote weights;
        u: ``(2N,)`` uniforms in [0, 1) breaking ties (argmin for learner i at ``2i``, the
            expert's argmax at ``2i + 1``).

    Returns:
        ``(s_before (N, k), labels (N,), experts (N,))``.
    """
    n, k = P.shape
    s = np.zeros(k)
    s_before = np.empty((n, k))
    labels = np.empty(n, dtype=np.int64)
    experts = np.empty(n, dtype=np.int64)
    C = np.empty((k, k))
    for r in range(k):
        for l in range(k):
            if l != r:
                C[r, l] = _sigmoid_gap(s[r], s[l])
    changed = -1  # the label whose vote moved: only its row and column of C change
    expected = np.empty(k)
    for i in range(n):
        s_before[i] = s
        if changed >= 0:
            for m in range(k):
                if m != changed:
                    C[changed, m] = _sigmoid_gap(s[changed], s[m])
                    C[m, changed] = _sigmoid_gap(s[m], s[changed])
        for r in range(k):
            total = 0.0
            for l in range(k):
                if l != r:
                    total += C[r, l]
            C[r, r] = -total
        for l in range(k):
            acc = 0.0
            for r in range(k):
                acc += P[i, r] * C[r, l]
            expected[l] = acc
        labels[i] = _pick(expected, u[2 * i], True)
        changed = labels[i] if alpha[i] != 0.0 else -1
        s[labels[i]] += alpha[i]
        experts[i] = _pick(s, u[2 * i + 1], False)
    return s_before, labels, experts


@njit(cache=True)
def backward(s_before, labels, alpha, y, eta, bound):  # pragma: no cover - compiled
    """OGD step on every alpha (eq. 10) and the learners' training weights ``-C_i[y, y] / (k-1)``.

    Returns:
        ``(new_alpha (N,), weights (N,))``.
    """
    n, k = s_before.shape
    new_alpha = np.empty(n)
    weights = np.empty(n)
    for i in range(n):
        s = s_before[i]
        total = 0.0
        for j in range(k):
            if j != y:
                total += _sigmoid_gap(s[y], s[j])
        weights[i] = total / (k - 1)
        label = labels[i]
        a = alpha[i]
        if label != y:
            gradient = _sigmoid_gap(s[y], s[label] + a)
        else:
            gradient = 0.0
            for j in range(k):
                if j != y:
                    gradient -= _sigmoid_gap(s[y] + a, s[j])
        new_alpha[i] = min(bound, max(-bound, a - eta * gradient))
    return new_alpha, weights


def warm_up() -> None:
    """Compile (or load from numba's disk cache) the kernels with the types a run uses."""
    s_before, labels, _ = forward(np.full((2, 3), 1 / 3), np.zeros(2), np.zeros(4))
    backward(s_before, labels, np.zeros(2), 0, 0.5, 2.0)
