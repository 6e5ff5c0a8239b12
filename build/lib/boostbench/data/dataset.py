"""The encoded data set every protocol and booster consumes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class EncodedFeatures:
    """Properties shared by the encoded data sets (they hold ``X``, ``nominal``, ``categories``)."""

    X: np.ndarray
    nominal: np.ndarray
    categories: tuple[tuple[str, ...] | None, ...]

    @property
    def n_examples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def nominal_indices(self) -> list[int]:
        return [int(j) for j in np.flatnonzero(self.nominal)]

    @property
    def n_categories(self) -> list[int]:
        """Category count of each attribute (0 for numeric ones)."""
        return [len(c) if c is not None else 0 for c in self.categories]


@dataclass(frozen=True)
class Dataset(EncodedFeatures):
    """A classification data set encoded once into numpy arrays.

    Attributes:
        name: registry name, e.g. ``"car"``.
        X: ``(n, d)`` float64. Numeric attributes as values, nominal attributes as category
            codes ``0..m-1`` (see ``categories``); NaN marks a missing value.
        y: ``(n,)`` int64 class codes in ``0..k-1``.
        feature_names: ``d`` attribute names.
        nominal: ``(d,)`` bool, True where the attribute is nominal.
        categories: per attribute, the category names for the codes (None for numeric).
        class_names: ``k`` class names; ``y == c`` means class ``class_names[c]``.
        n_train: where the data set comes with a fixed split, the first ``n_train`` rows are its
            training part and the rest its test part (the holdout protocol uses it); else None.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    nominal: np.ndarray
    categories: tuple[tuple[str, ...] | None, ...]
    class_names: tuple[str, ...]
    n_train: int | None = None

    @property
    def n_classes(self) -> int:
        return len(self.class_names)


@dataclass(frozen=True)
class MultilabelDataset(EncodedFeatures):
    """A multi-label data set encoded into numpy arrays.

    Attributes:
        name: registry name.
        X: ``(n, d)`` float64 features (codes for nominal attributes, NaN = missing).
        Y: ``(n, k)`` bool, ``Y[t, l]`` is True when label l is relevant for example t. Empty and
            full label sets are legal.
        feature_names, nominal, categories: as in :class:`boostbench.data.Dataset`.
        label_names: ``k`` label names, in the XML file's order.
        n_train: the first ``n_train`` rows are MULAN's training file, the rest its test file.
    """

    name: str
    X: np.ndarray
    Y: np.ndarray
    feature_names: tuple[str, ...]
    nominal: np.ndarray
    categories: tuple[tuple[str, ...] | None, ...]
    label_names: tuple[str, ...]
    n_train: int

    @property
    def n_labels(self) -> int:
        return len(self.label_names)
