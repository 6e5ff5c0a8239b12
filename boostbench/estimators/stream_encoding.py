"""river's examples (dicts, labels of any type) as the boosters' arrays, learned as they come."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def _column_order(key: Any) -> tuple:
    # names of one type sort by value (ints numerically), mixed types by type name: the columns
    # then do not depend on the order a dict lists its features (river's shuffle check)
    return (type(key).__name__, key if isinstance(key, (numbers.Real, str)) else repr(key))


class StreamEncoder:
    """The columns, nominal values and labels a stream has shown so far.

    A feature whose values are numbers (``numbers.Real``, bools included) is a numeric column; any
    other value (river's way of passing a nominal value, usually a string) makes a nominal
    column, whose values get codes ``0, 1, ...`` in the order they first appear. Features that
    appear later are appended (several at once in a canonical order, so the order a dict lists
    its keys does not matter); a feature absent from an example, or None, is missing (NaN).

    Attributes:
        names: feature name of each column.
        categories: per column, its nominal values by code (a list), or None if numeric.
        labels: the labels seen, by code.
    """

    def __init__(self):
        self.names: list = []
        self.categories: list = []
        self.labels: list = []
        self._column: dict = {}
        self._code: list = []  # per column: {value: code}, or None if numeric
        self._label_code: dict = {}

    @property
    def n_categories(self) -> list[int]:
        """Category count of each column (0 for numeric), as the pools take it."""
        return [0 if values is None else len(values) for values in self.categories]

    def observe(self, x: dict) -> bool:
        """Learn the columns and nominal values of ``x``; whether anything was new.

        Raises:
            ValueError: a feature that had numbers before gets another value, or the reverse
                (the message names the feature and the value).
        """
        changed = False
        new = sorted((key for key in x if key not in self._column), key=_column_order)
        for key in new:
            if x[key] is None:
                continue
            nominal = not isinstance(x[key], numbers.Real)
            self._column[key] = len(self.names)
            self.names.append(key)
            self.categories.append([] if nominal else None)
            self._code.append({} if nominal else None)
            changed = True
        for key, value in x.items():
            j = self._column.get(key)
            if j is None or value is None:
                continue
            codes = self._code[j]
            if codes is None:
                if not isinstance(value, numbers.Real):
                    raise ValueError(
                        f"feature {key!r} had numbers and now has {value!r}: a feature is either numeric or nominal"
                    )
            elif value not in codes:
                if isinstance(value, numbers.Real) and not isinstance(value, bool):
                    raise ValueError(
                        f"feature {key!r} had nominal values and now has the number "
                        f"{value!r}: a feature is either numeric or nominal"
                    )
                codes[value] = len(codes)
                self.categories[j].append(value)
                changed = True
        return changed

    def encode(self, x: dict) -> np.ndarray:
        """``(d,)`` float64 over the known columns: numbers as they are, nominal values as
        their codes; missing, unknown features and unseen nominal values as NaN.
        """
        out = np.full(len(self.names), np.nan)
        for key, value in x.items():
            j = self._column.get(key)
            if j is None or value is None:
                continue
            codes = self._code[j]
            if codes is None:
                if isinstance(value, numbers.Real):
                    out[j] = float(value)
            else:
                code = codes.get(value)
                if code is not None:
                    out[j] = code
        return out

    def add_label(self, label: Any) -> bool:
        """Learn ``label``; whether it was new."""
        if label in self._label_code:
            return False
        self._label_code[label] = len(self.labels)
        self.labels.append(label)
        return True

    def label_code(self, label: Any) -> int:
        return self._label_code[label]
