"""The order in which a protocol presents examples: a seeded shuffle."""

from __future__ import annotations

import numpy as np


def stream_order(n_examples: int, rng: np.random.Generator, shuffle: bool = True) -> np.ndarray:
    """Return the example indices of one pass, ``(n_examples,)`` int64.

    Args:
        n_examples: number of examples in the data set.
        rng: the run's stream generator (see ``boostbench.seeding``); the only source of randomness.
        shuffle: False keeps the file order (for data that is already a stream).
    """
    if shuffle:
        return rng.permutation(n_examples).astype(np.int64)
    return np.arange(n_examples, dtype=np.int64)
