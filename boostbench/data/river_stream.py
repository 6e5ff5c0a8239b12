"""The registered data sets as river streams: ``(x, y)`` pairs of dicts, for river's own loops
(``evaluate.progressive_val_score``) and the river estimators (:mod:`boostbench.estimators`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from boostbench.data.dataset import Dataset, MultilabelDataset


def iter_dataset(
    dataset: str | Dataset | MultilabelDataset, order: np.ndarray | None = None, data_dir: str | None = None
) -> Iterator[tuple[dict, Any]]:
    """Stream a data set the river way.

    Args:
        dataset: a registry name (``"car"``, ``"emotions"``, ...; see ``boostbench datasets``) or
            a loaded data set.
        order: ``(n,)`` row indices to stream (default: the file's order, for MULAN data its
            training file then its test file).
        data_dir: where non-vendored files are (as ``data_dir=`` of a run).

    Yields:
        ``(x, y)``: ``x`` maps feature names to numbers, or to category names for nominal
        features (river's nominal values), missing values left out; ``y`` is the class name,
        or for a multi-label set ``{label name: bool}`` over every label.

    Raises:
        ConfigError / DataError: an unknown name or an unreadable file (as a run reports them).
    """
    if isinstance(dataset, str):
        from boostbench.data.registry import dataset_spec, load_dataset

        dataset = load_dataset(dataset_spec(dataset), data_dir)
    X = dataset.X
    rows = range(len(X)) if order is None else order
    names, categories = dataset.feature_names, dataset.categories
    multilabel = isinstance(dataset, MultilabelDataset)
    for t in rows:
        x = {}
        for j, value in enumerate(X[t].tolist()):
            if value == value:
                x[names[j]] = value if categories[j] is None else categories[j][int(value)]
        if multilabel:
            yield x, {label: bool(flag) for label, flag in zip(dataset.label_names, dataset.Y[t])}
        else:
            yield x, dataset.class_names[int(dataset.y[t])]
