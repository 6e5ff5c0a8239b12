"""Argmax / argmin with ties broken uniformly at random (the reference code's rule)."""

from __future__ import annotations

import numpy as np


def argmax_random_tie(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of a maximum of ``values`` (``(k,)``), a tie drawn uniformly with ``rng``."""
    best = np.flatnonzero(values == values.max())
    return int(best[0]) if len(best) == 1 else int(best[rng.integers(len(best))])


def argmin_random_tie(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of a minimum of ``values`` (``(k,)``), a tie drawn uniformly with ``rng``."""
    best = np.flatnonzero(values == values.min())
    return int(best[0]) if len(best) == 1 else int(best[rng.integers(len(best))])


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
