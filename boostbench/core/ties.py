"""Argmax / argmin with ties broken uniformly at random (the reference code's rule)."""

from __future__ import annotations

import numpy as np

from boostbench.system.kernel_cache import inlined_kernel, njit


def _pick_among(values: np.ndarray, i: int, rng: np.random.Generator) -> int:
    # the common case, one extreme, is decided without building the list of ties (and without
    # a draw, as before: the generator is consumed only on a tie)
    if np.count_nonzero(values == values[i]) == 1:
        return i
    best = np.flatnonzero(values == values[i])
    return int(best[rng.integers(len(best))])


def argmax_random_tie(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of a maximum of ``values`` (``(k,)``), a tie drawn uniformly with ``rng``."""
    return _pick_among(values, int(values.argmax()), rng)


@njit(cache=True)
def argmax_draw(values, rng):  # pragma: no cover - compiled
    """:func:`argmax_random_tie` compiled, with the same draw from ``rng`` (a NumPy ``Generator``,
    whose stream numba's methods share): ``rng.integers(n_ties)`` only on a tie.
    """
    i = np.argmax(values)
    ties = 0
    for j in range(values.shape[0]):
        if values[j] == values[i]:
            ties += 1
    if ties == 1:
        return i
    target = rng.integers(0, ties)
    for j in range(values.shape[0]):
        if values[j] == values[i]:
            if target == 0:
                return j
            target -= 1
    return i


def argmin_random_tie(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of a minimum of ``values`` (``(k,)``), a tie drawn uniformly with ``rng``."""
    return _pick_among(values, int(values.argmin()), rng)


@njit(cache=True)
def _rows_argmax(values):  # pragma: no cover - compiled
    """Row-wise first argmax (numpy's), and whether any row has a tied maximum."""
    n, k = values.shape
    labels = np.empty(n, dtype=np.int64)
    tied = False
    for i in range(n):
        best = 0
        for j in range(1, k):
            if values[i, j] > values[i, best]:
                best = j
        for j in range(best + 1, k):
            if values[i, j] == values[i, best]:
                tied = True
        labels[i] = best
    return labels, tied


@njit(cache=True)
def _rows_argmax_u(values, labels, u):  # pragma: no cover - compiled
    """Row-wise first argmax of ``u * (values == row max)``: the tied entry with the largest
    uniform (numpy's ``(u * is_max).argmax(axis=1)``, to the bit: u times 1 or 0 is exact).
    ``labels`` (``(N,)``, an argmax per row from :func:`_rows_argmax`) is overwritten.
    """
    n, k = values.shape
    for i in range(n):
        top = values[i, labels[i]]
        best, best_u = 0, -1.0
        for j in range(k):
            score = u[i, j] if values[i, j] == top else 0.0
            if score > best_u:
                best, best_u = j, score
        labels[i] = best
    return labels


def argmax_rows_random_tie(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row-wise argmax of ``values`` (``(N, k)``), ties drawn uniformly; returns ``(N,)`` int64.

    The generator is used only when some row has a tie (then one uniform per entry).
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    labels, tied = _rows_argmax(values)
    if not tied:
        return labels
    return _rows_argmax_u(values, labels, rng.random(values.shape))


@njit(cache=True)
def argmax_rows_draw(values, rng):  # pragma: no cover - compiled
    """:func:`argmax_rows_random_tie` compiled, with the same draws from ``rng``."""
    labels, tied = _rows_argmax(values)
    if not tied:
        return labels
    return _rows_argmax_u(values, labels, rng.random(values.shape))


TIE_TOLERANCE = 1e-9  # values this close count as tied, so rounding cannot decide a tie


def argmin_tie_u(values: np.ndarray, u: float) -> int:
    """Index of a minimum of ``values``; among ties the ``floor(u * n_ties)``-th (``u`` in [0, 1)).

    Values within :data:`TIE_TOLERANCE` of the minimum tie. With ``u`` drawn uniformly this
    breaks ties uniformly at random, and a compiled twin given the same ``u`` (and the same
    tolerance) makes the same choice even where the two round differently.
    """
    best = np.flatnonzero(values <= values.min() + TIE_TOLERANCE)
    return int(best[int(u * len(best))])


def argmax_tie_u(values: np.ndarray, u: float) -> int:
    """Index of a maximum of ``values``; ties broken by ``u`` as in :func:`argmin_tie_u`."""
    best = np.flatnonzero(values >= values.max() - TIE_TOLERANCE)
    return int(best[int(u * len(best))])


@inlined_kernel
def pick_tie_u(values, u, want_min):  # pragma: no cover - compiled
    """:func:`argmin_tie_u` (``want_min``) or :func:`argmax_tie_u`, compiled for the booster kernels."""
    n = values.shape[0]
    best = values[0]
    for j in range(1, n):
        if (values[j] < best) if want_min else (values[j] > best):
            best = values[j]
    count = 0
    first = -1
    for j in range(n):
        if (values[j] <= best + TIE_TOLERANCE) if want_min else (values[j] >= best - TIE_TOLERANCE):
            count += 1
            if first < 0:
                first = j
    target = int(u * count)
    if target == 0:  # the common case: one extreme
        return first
    seen = 0
    for j in range(n):
        if (values[j] <= best + TIE_TOLERANCE) if want_min else (values[j] >= best - TIE_TOLERANCE):
            if seen == target:
                return j
            seen += 1
    return n - 1
