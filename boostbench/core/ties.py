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
