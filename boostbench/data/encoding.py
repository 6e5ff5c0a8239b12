"""Encode a raw table into a :class:`Dataset`: numeric -> float64, nominal -> codes, labels -> 0..k-1."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from boostbench.data.dataset import Dataset
from boostbench.data.loaders import RawTable
from boostbench.errors import DataError


def _where(raw: RawTable, row: int) -> str:
    line = int(raw.lines[row]) if row < len(raw.lines) else 0
    return f"{raw.source}: line {line}" if line > 0 else f"{raw.source}: row {row + 1}"


def _resolve_column(raw: RawTable, column: str | int, role: str) -> str:
    names = list(raw.frame.columns)
    if isinstance(column, int) or (isinstance(column, str) and column.lstrip("-").isdigit() and column not in names):
        index = int(column)
        if -len(names) <= index < len(names):
            return names[index]
    elif column in names:
        return column
    # one column whose name holds a separator: the file was split on the wrong one
    hint = next(
        (
            f"; the file looks {name}-separated: dataset.sep='{sep}'"
            for sep, name in ((";", "semicolon"), ("\t", "tab"), ("|", "pipe"), (",", "comma"))
            if len(names) == 1 and sep in str(names[0])
        ),
        "",
    )
    from boostbench.suggest import did_you_mean

    shown = [*names[:12], f"... {len(names) - 14} more", *names[-2:]] if len(names) > 16 else names
    listed = ", ".join(map(str, shown))  # the last ones too: the class is often last
    close = did_you_mean(str(column), map(str, names))
    raise DataError(f"{raw.source}: {role} {column!r} does not exist{close} (columns: {listed}){hint}")


def _missing_mask(values: pd.Series, missing: Sequence[str]) -> np.ndarray:
    mask = values.isna().to_numpy().copy()  # pandas 3 returns read-only views
    if values.dtype == object or pd.api.types.is_string_dtype(values):
        stripped = values.astype(str).str.strip()
        mask |= stripped.isin(list(missing)).to_numpy()
    return mask


#: A number written with a decimal comma: ``1,5``, ``-0,25``, ``,5``, ``3,0e-2``
_DECIMAL_COMMA = r"[+-]?(?:\d+,\d*|,\d+)(?:[eE][+-]?\d+)?"


def _decimal_comma(words: pd.Series) -> bool:
    """Whether ``words`` (a column's cells that are not numbers) are all numbers with a decimal
    comma (else the column is nominal, or holds a typo).
    """
    return bool(words.astype(str).str.strip().str.fullmatch(_DECIMAL_COMMA).all())


def _recoded(raw: RawTable, recode: Mapping[str, Mapping[str, float]]) -> RawTable:
    """``raw`` with the words of ``recode``'s columns replaced by their numbers (other cells kept)."""
    frame = raw.frame.copy()
    for column, words in recode.items():
        name = _resolve_column(raw, column, "recoded column")
        table = {str(word): str(number) for word, number in words.items()}
        frame[name] = frame[name].map(lambda cell, table=table: table.get(str(cell).strip(), cell))
    return dataclasses.replace(raw, frame=frame)


#: A numeric class column is taken as classes only when its values are integers, at most this many
MAX_NUMERIC_CLASSES = 20


def _class_labels(raw: RawTable, target: str, values: pd.Series) -> np.ndarray:
    """The class column's values as the strings that name the classes. A numeric column (an ARFF
    numeric attribute, or numbers written with a decimal point or exponent) is a measurement,
    not classes, unless its values are a few integers (:data:`MAX_NUMERIC_CLASSES`): then they
    name the classes (``1.0`` is class ``1``), and a note says so once.

    Raises:
        DataError: a numeric class with a non-integer value or more distinct values than that.
    """
    words = values.astype(str).str.strip()
    if pd.api.types.is_numeric_dtype(values):
        numbers = values.to_numpy(dtype=float)
    else:
        numbers = pd.to_numeric(words, errors="coerce").to_numpy(dtype=float)
        if np.isnan(numbers).any() or not words.str.contains(r"[.eE]").any():
            return words.to_numpy()  # words, or integers as written: class names
    distinct = np.unique(numbers)
    if not np.all(distinct == np.round(distinct)) or len(distinct) > MAX_NUMERIC_CLASSES:
        shown = ", ".join(f"{v:g}" for v in distinct[:3])
        raise DataError(
            f"{raw.source}, column {target!r}: the class is numeric ({len(distinct)} distinct values: "
            f"{shown}, ...), not a few integer classes; name a nominal column with dataset.class_column"
        )
    from boostbench.system.notices import say_once

    say_once(f"note: {raw.source}: the numeric class {target!r} has {len(distinct)} integer values, taken as classes")
    return np.array([str(int(v)) for v in numbers], dtype=object)


def encode(
    raw: RawTable,
    *,
    name: str,
    class_column: str | int,
    nominal: str | Sequence[str] = "auto",
    drop_columns: Sequence[str] = (),
    missing: Sequence[str] = ("?", ""),
    class_names: Sequence[str] | None = None,
    drop_classes: Sequence[str] = (),
    max_classes: int = 100,
    recode: Mapping[str, Mapping[str, float]] | None = None,
    decimal: str = ".",
) -> Dataset:
    """Encode ``raw`` into arrays.

    Args:
        raw: the table read by a loader.
        name: data set name for the result.
        class_column: name (or integer position, negative from the end) of the class column.
        nominal: ``"all"`` attributes nominal, ``"auto"`` (nominal where a value is not a
            number, or the file declares the attribute nominal), or a list of attribute names.
        drop_columns: attributes that are not features (ids, leaks).
        missing: cell values that mean "missing" (become NaN).
        class_names: the classes in code order; ``None`` sorts the values found.
        drop_classes: classes whose rows are removed (e.g. a class with 2 examples).
        max_classes: refuse more distinct class values than this (a feature named as the class
            column by mistake has hundreds).
        recode: column -> {word: number}: these columns' words become the numbers and the
            columns are numeric attributes whatever ``nominal`` says (the authors' loader of
            Jung et al. 2017 read car's ``doors`` and ``persons`` so).
        decimal: the decimal mark of the numbers, ``"."`` or ``","`` (``1,5`` is 1.5).

    Raises:
        DataError: a named column does not exist, the class column is dropped, a numeric
            attribute holds a non-number (file, line, column and value named; numbers with a
            decimal comma are named as such), a class value is missing or not in ``class_names``,
            fewer than two classes remain, or more than ``max_classes``.
    """
    if recode:
        raw = _recoded(raw, recode)
    frame = raw.frame
    target = _resolve_column(raw, class_column, "class column")
    dropped = {_resolve_column(raw, column, "dropped column") for column in drop_columns}
    if target in dropped:
        raise DataError(
            f"{raw.source}: dataset.drop_columns names the class column {target!r}: take it out of "
            f"dataset.drop_columns, or name another dataset.class_column"
        )
    features = [c for c in frame.columns if c != target and c not in dropped]
    if not features:
        raise DataError(f"{raw.source}: no feature columns left after dropping {sorted(dropped)}")
    missing = [str(m) for m in missing]

    labels = frame[target]
    label_missing = _missing_mask(labels, missing)
    if label_missing.any():
        row = int(np.flatnonzero(label_missing)[0])
        raise DataError(f"{_where(raw, row)}, column {target!r}: class value is missing")
    labels = _class_labels(raw, target, labels)
    keep = ~np.isin(labels, [str(c) for c in drop_classes])
    if class_names is None:
        class_names = sorted(set(labels[keep].tolist()))
    class_names = [str(c) for c in class_names]
    code_of = {c: i for i, c in enumerate(class_names)}
    unknown = [i for i in np.flatnonzero(keep) if labels[i] not in code_of]
    if unknown:
        row = int(unknown[0])
        raise DataError(
            f"{_where(raw, row)}, column {target!r}: class value {labels[row]!r} is not one of {class_names}"
        )
    if len(class_names) > max_classes:
        raise DataError(
            f"{raw.source}, column {target!r}: {len(class_names)} distinct class values, more than "
            f"dataset.max_classes = {max_classes}; is {target!r} the class column? (raise "
            "dataset.max_classes to accept)"
        )
    rows = np.flatnonzero(keep)
    y = np.fromiter((code_of[labels[i]] for i in rows), dtype=np.int64, count=len(rows))
    present = np.unique(y)
    if len(present) < 2:
        raise DataError(
            f"{raw.source}: data set {name!r} has {len(present)} class(es) "
            f"({[class_names[c] for c in present]}); classification needs at least two"
        )

    if recode and nominal == "all":
        nominal = [f for f in features if f not in recode]
    elif recode and not isinstance(nominal, str):
        nominal = [f for f in nominal if f not in recode]
    X, is_nominal, categories = encode_features(raw, features, rows, nominal, missing, decimal)
    return Dataset(
        name=name,
        X=X,
        y=y,
        feature_names=tuple(str(f) for f in features),
        nominal=is_nominal,
        categories=categories,
        class_names=tuple(class_names),
    )


def encode_features(
    raw: RawTable,
    features: Sequence[str],
    rows: np.ndarray,
    nominal: str | Sequence[str] = "auto",
    missing: Sequence[str] = ("?", ""),
    decimal: str = ".",
) -> tuple[np.ndarray, np.ndarray, tuple[tuple[str, ...] | None, ...]]:
    """Encode the ``features`` columns of ``raw`` at ``rows``.

    Args:
        decimal: the numbers' decimal mark, ``"."`` or ``","``. Under ``"."``, a column whose
            values are numbers, some with a decimal comma (``1,5``), is refused rather than read
            as nominal.

    Returns:
        ``(X, nominal_mask, categories)``: ``X`` ``(len(rows), d)`` float64 (codes for nominal
        attributes, NaN for missing), ``nominal_mask`` ``(d,)`` bool, per-attribute categories.

    Raises:
        DataError: a numeric attribute holds a non-number (file, line, column, value named), or
            numbers with a decimal comma under ``decimal="."``.
    """
    frame = raw.frame
    missing = [str(m) for m in missing]
    if isinstance(nominal, str) and nominal not in ("all", "auto"):
        raise DataError(f"dataset.nominal must be 'all', 'auto' or a list of columns, not {nominal!r}")
    if not isinstance(nominal, str):
        nominal_set = {_resolve_column(raw, column, "nominal column") for column in nominal}
    X = np.empty((len(rows), len(features)), dtype=np.float64)
    is_nominal = np.zeros(len(features), dtype=bool)
    categories: list[tuple[str, ...] | None] = []
    for j, column in enumerate(features):
        values = frame[column].iloc[rows].reset_index(drop=True)
        absent = _missing_mask(values, missing)
        number_text = values.where(~absent)
        if decimal == "," and column not in raw.categories:
            number_text = number_text.astype(str).str.strip().str.replace(",", ".", regex=False).where(~absent)
        numeric = pd.to_numeric(number_text, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(numeric) & ~absent
        declared = nominal == "all" or column in raw.categories or (nominal != "auto" and column in nominal_set)
        if bad.any() and decimal == "." and not declared and _decimal_comma(values[bad]):
            row = int(rows[np.flatnonzero(bad)[0]])
            raise DataError(
                f"{_where(raw, row)}, column {column!r}: value {frame[column].iloc[row]!r} is a number "
                f"written with a decimal comma: read them with +dataset.decimal=',' (or keep the column "
                f"nominal: dataset.nominal=[{column}])"
            )
        if nominal == "all":
            treat_nominal = True
        elif nominal == "auto":
            numbers = int((~bad & ~absent).sum())
            if column not in raw.categories and bad.any() and numbers > 0:
                # numbers and words in one column: a typo, or a missing-value marker we do not know
                row = int(rows[np.flatnonzero(bad)[0]])
                raise DataError(
                    f"{_where(raw, row)}, column {column!r}: value {frame[column].iloc[row]!r} is not a "
                    f"number, though {numbers} other values of the column are (declare the column nominal "
                    f"with dataset.nominal=[...], or the value missing with dataset.missing=[...])"
                )
            treat_nominal = column in raw.categories or bool(bad.any())
        else:
            treat_nominal = column in nominal_set
        if treat_nominal:
            text = values.astype(str).str.strip().to_numpy()
            declared = raw.categories.get(column)
            cats = list(declared) if declared else sorted(set(text[~absent].tolist()))
            index = {c: i for i, c in enumerate(cats)}
            X[:, j] = [np.nan if a else index.get(v, np.nan) for v, a in zip(text, absent)]
            is_nominal[j] = True
            categories.append(tuple(cats))
        else:
            if bad.any():
                row = int(rows[np.flatnonzero(bad)[0]])
                raise DataError(
                    f"{_where(raw, row)}, column {column!r}: value {frame[column].iloc[row]!r} is not a number"
                )
            infinite = np.isinf(numeric)
            if infinite.any():  # inf, -inf, 1e999: no learner can use it, and some would crash
                row = int(rows[np.flatnonzero(infinite)[0]])
                raise DataError(
                    f"{_where(raw, row)}, column {column!r}: value {frame[column].iloc[row]!r} is not a finite number"
                )
            X[:, j] = numeric
            categories.append(None)
    return X, is_nominal, tuple(categories)
