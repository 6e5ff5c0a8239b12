"""Argmax / argmin with ties broken uniformly at random (the reference code's rule)."""

from __future__ import annotations

import numpy as np
from numba import njit


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


def argmin_random_tie(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of a minimum of ``values`` (``(k,)``), a tie drawn uniformly with ``rng``."""
    return _pick_among(values, int(values.argmin()), rng)


def argmax_rows_random_tie(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row-wise argmax of ``values`` (``(N, k)``), ties drawn uniformly; returns ``(N,)`` int64."""
    is_max = values == values.max(axis=1, keepdims=True)
    if not (is_max.sum(axis=1) > 1).any():
        return values.argmax(axis=1)
    return (rng.random(values.shape) * is_max).argmax(axis=1)


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


@njit(cache=True)
def pick_tie_u(values, u, want_min):  # pragma: no cover - compiled
    """:func:`argmin_tie_u` (``want_min``) or :func:`argmax_tie_u`, compiled for the booster kernels."""
    best = values[0]
    for v in values:
        if (v < best) if want_min else (v > best):
            best = v
    count = 0
    for v in values:
        if (v <= best + TIE_TOLERANCE) if want_min else (v >= best - TIE_TOLERANCE):
            count += 1
    target = int(u * count)
    seen = 0
    for j in range(values.shape[0]):
        if (values[j] <= best + TIE_TOLERANCE) if want_min else (values[j] >= best - TIE_TOLERANCE):
            if seen == target:
                return j
            seen += 1
    return values.shape[0] - 1
