"""The order in which a protocol presents examples: a seeded shuffle, the file order, or one fixed
shuffle for every run (the authors' scripts).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def source_rows(n_examples: int, moved_rows: Sequence[Sequence[int]] = ()) -> np.ndarray:
    """The file's row indices in the source's order, ``(n_examples,)`` int64.

    Args:
        moved_rows: ``[file_row, source_position]`` pairs, applied in turn: a vendored file whose
            row ``file_row`` sits at ``source_position`` in the published file (e.g. UCI's).

    Raises:
        ValueError: a row or position outside ``0..n_examples-1``.
    """
    rows = list(range(n_examples))
    for file_row, position in moved_rows:
        if not (0 <= file_row < n_examples and 0 <= position < n_examples):
            raise ValueError(f"moved row {file_row} -> {position} is outside the {n_examples} rows")
        rows.remove(file_row)
        rows.insert(position, file_row)
    return np.asarray(rows, dtype=np.int64)


def stream_order(
    n_examples: int,
    rng: np.random.Generator,
    shuffle: bool = True,
    shuffle_seed: int | None = None,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """Return the example indices of one pass, ``(n_examples,)`` int64.

    Args:
        n_examples: number of examples in the data set.
        rng: the run's stream generator (see ``boostbench.seeding``); the only source of randomness
            unless ``shuffle_seed`` is given.
        shuffle: False keeps the file order (for data that is already a stream).
        shuffle_seed: one order for every run: numpy's legacy ``RandomState(shuffle_seed)``
            permutation of ``rows``, as the authors' scripts shuffle (``np.random.seed(357);
            np.random.permutation(rows)``, yhjung88/OnlineBoostingWithVFDT, ``utils.shuffle``).
        rows: the rows in the source's order (:func:`source_rows`); default the file order.
    """
    if shuffle and shuffle_seed is not None:
        rows = np.arange(n_examples, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        return rows[np.random.RandomState(int(shuffle_seed)).permutation(n_examples)]
    if shuffle:
        return rng.permutation(n_examples).astype(np.int64)
    return np.arange(n_examples, dtype=np.int64)


def keep_stream_order(cfg):
    """A stream's order is its data (a generated or drifting stream, ``ordered: true`` in its
    registry entry): set ``protocol.shuffle`` false and ``protocol.shuffle_seed`` null for it, so
    that the run, its record and ``--cfg job`` all say the order it runs in.

    The protocol honours the data set rather than refusing ``shuffle=true``: shuffling is the
    default for the tables' data sets, and one grid mixes them with streams.

    Args:
        cfg: a composed run configuration (a ``DictConfig``).

    Returns:
        ``cfg``, or a copy with the protocol's order keys set for a stream.
    """
    from omegaconf import open_dict

    from boostbench.data.registry import is_stream

    protocol = cfg.get("protocol")
    if (
        protocol is None
        or not is_stream(cfg.dataset)
        or (not protocol.get("shuffle", False) and protocol.get("shuffle_seed") is None)
    ):
        return cfg
    cfg = cfg.copy()
    with open_dict(cfg):
        cfg.protocol.shuffle = False
        cfg.protocol.shuffle_seed = None
    return cfg
