"""Readers that turn a file (CSV, ARFF) or an OpenML data set into a raw table.

A raw table is a pandas DataFrame of the file's cells plus, for every row, the line of the
file it came from, so that the encoder can name the line of a bad value.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boostbench.errors import ConfigError, DataError


@dataclass(frozen=True)
class RawTable:
    """Cells of a data file before encoding.

    Attributes:
        frame: one column per attribute; CSV cells are ``str`` (missing marker still in place),
            ARFF/OpenML numeric columns are float64 with NaN for missing.
        lines: ``(n_rows,)`` int64, the 1-based line of the file each row was read from
            (0 where there is no file line, as for OpenML).
        source: the file path or ``openml:<id>``, for messages.
        categories: for attributes the file declares nominal (ARFF), their declared values.
        default_target: the source's own class attribute (OpenML's ``default_target_attribute``),
            None where it names none.
    """

    frame: pd.DataFrame
    lines: np.ndarray
    source: str
    categories: dict[str, list[str]]
    default_target: str | None = None


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_data_file(path: Path) -> None:
    """A data file must be a regular file (or a link to one): a directory, a FIFO or a device such
    as ``/dev/zero`` is named for what it is, never read (a FIFO would block, ``/dev/zero`` never ends).

    Raises:
        DataError: ``<path>: file not found``, or ``<path> is a FIFO (named pipe), not a regular file``.
    """
    from boostbench.system.files import regular_file_problem

    problem = regular_file_problem(path)
    if problem is not None:
        raise DataError(f"{path}: {problem}" if problem == "file not found" else f"{path} {problem}: give a data file")


def _fields(path: Path, number: int, line: str, sep: str) -> list[str]:
    """The fields of one line (``number``) of a delimited file, as the csv module splits it.

    Raises:
        DataError: the csv module refuses the line (a field beyond its 131,072 characters).
    """
    try:
        return next(csv.reader([line], delimiter=sep, skipinitialspace=True))
    except csv.Error as exc:
        reason = (
            f"a field of more than {csv.field_size_limit():,} characters, no table cell: is dataset.sep right?"
            if "field larger" in str(exc)
            else str(exc)
        )
        raise DataError(f"{path}: line {number}: {reason}") from None


def _data_lines(path: Path, skip_rows: int, comment: str | None, sep: str) -> tuple[np.ndarray, np.ndarray]:
    """Line numbers (1-based) and field counts of the rows pandas will read.

    pandas skips blank and comment lines and silently pads a short row, so the rows and their
    field counts are found here, with the csv module, to name a bad line.
    """
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        raw = handle.read().splitlines()
    numbers, counts = [], []
    for number, line in enumerate(raw[skip_rows:], start=skip_rows + 1):
        text = line.strip()
        if not text or (comment and text.startswith(comment)):
            continue
        numbers.append(number)
        counts.append(len(text.split()) if sep == "whitespace" else len(_fields(path, number, line, sep)))
    return np.asarray(numbers, dtype=np.int64), np.asarray(counts, dtype=np.int64)


def _check_utf8(path: Path) -> None:
    """A text table must be UTF-8 (ASCII included): a UTF-16 or binary file would otherwise be
    split into nonsense lines and reported as a wrong field count.

    Raises:
        DataError: a NUL byte or bytes that are not UTF-8 (the line is named).
    """
    data = path.read_bytes()
    problem = None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        problem, offset = "a UTF-16 byte-order mark", 0
    elif b"\x00" in data:
        problem, offset = "a NUL byte", data.index(b"\x00")
    else:
        try:
            data.decode("utf-8")
            return
        except UnicodeDecodeError as exc:
            problem, offset = f"byte 0x{data[exc.start]:02x}", exc.start
    line = data.count(b"\n", 0, offset) + 1
    raise DataError(f"{path}: line {line}: not UTF-8 text ({problem}); save the file as UTF-8")


def _check_unique_names(path: Path, sep: str, skip_rows: int, comment: str | None) -> None:
    """Pandas renames a repeated column name ``a`` to ``a.1``: refuse it instead.

    Raises:
        DataError: a name appears twice (the line and both positions are named).
    """
    with open(path, encoding="utf-8", newline="") as handle:
        for number, line in enumerate(handle, start=1):
            if number <= skip_rows or not line.strip() or (comment and line.lstrip().startswith(comment)):
                continue
            names = line.split() if sep == "whitespace" else _fields(path, number, line, sep)
            seen: dict[str, int] = {}
            for position, name in enumerate((n.strip() for n in names), start=1):
                if name in seen:
                    raise DataError(
                        f"{path}: line {number}: column name {name!r} appears twice "
                        f"(columns {seen[name]} and {position})"
                    )
                seen[name] = position
            return


#: The separators :func:`sniff_separator` chooses among
SNIFFED = ",;\t|"


def sniff_separator(path: Path, skip_rows: int = 0, comment: str | None = None) -> str:
    """The field separator of a delimited text file, read off its first 50 data lines by
    :class:`csv.Sniffer` among ``, ; tab |``; a comma when the sniffer cannot tell (one column).
    """
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        lines = [
            line
            for line in handle.read().splitlines()[skip_rows:]
            if line.strip() and not (comment and line.lstrip().startswith(comment))
        ][:50]
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters=SNIFFED).delimiter
    except csv.Error:
        return ","


def read_csv_table(
    path: Path,
    *,
    sep: str | None = ",",
    header: bool = False,
    columns: list[str] | None = None,
    skip_rows: int = 0,
    comment: str | None = None,
) -> RawTable:
    """Read a delimited text file as strings, checking every row has every field.

    Args:
        path: the file; CRLF line endings and blank lines are accepted.
        sep: field separator, one character; ``"whitespace"`` splits on runs of blanks; None:
            sniffed (:func:`sniff_separator`).
        header: the first (non-skipped) line holds the column names.
        columns: column names (defaults to the header's, or ``"0".."d-1"`` without one); with a
            header, they replace its names.
        skip_rows: lines to drop before the header or data (e.g. a line a copy added).
        comment: lines starting with this string are skipped.

    Raises:
        DataError: the file is missing, no regular file, not UTF-8, or a row has the wrong number
            of fields or a field the csv module refuses (the message names the file and line).
        ConfigError: ``sep`` is not one character, ``"whitespace"`` or None; ``columns`` repeats a name.
    """
    check_data_file(path)
    if sep is not None and sep != "whitespace" and len(sep) != 1:
        raise ConfigError(f"dataset.sep must be one character (e.g. ';'), 'whitespace' or null (sniffed), got {sep!r}")
    if columns and len(set(columns)) != len(columns):
        raise ConfigError(f"dataset.columns names a column twice: {columns}")
    _check_utf8(path)
    if sep is None:
        sep = sniff_separator(path, skip_rows, comment)
    lines, counts = _data_lines(path, skip_rows, comment, sep)
    if len(lines) == 0:
        raise DataError(f"{path}: no data rows")
    if header and columns and len(columns) != counts[0]:
        raise DataError(
            f"{path}: dataset.columns names {len(columns)} columns, the header (line {lines[0]}) {counts[0]}"
        )
    expected = int(counts[0]) if header or not columns else len(columns)
    wrong = np.flatnonzero(counts != expected)
    if len(wrong):
        row = int(wrong[0])
        raise DataError(f"{path}: line {lines[row]}: {counts[row]} fields, expected {expected}")
    if header:
        lines = lines[1:]
    try:
        frame = pd.read_csv(
            path,
            sep=r"\s+" if sep == "whitespace" else sep,
            header=0 if header else None,
            names=columns or None,
            skiprows=skip_rows,
            comment=comment,
            dtype=str,
            na_filter=False,
            skipinitialspace=True,
            engine="c",
        )
    except pd.errors.ParserError as exc:
        raise DataError(f"{path}: malformed file: {str(exc).strip()}") from None
    except (UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"{path}: cannot read as text table: {exc}") from None
    if frame.empty:
        raise DataError(f"{path}: no data rows")
    if header and not columns:
        _check_unique_names(path, sep, skip_rows, comment)
    frame.columns = [str(c).strip() for c in frame.columns]
    if len(lines) != len(frame):  # quoting spanning lines: fall back to row numbers
        lines = np.arange(1, len(frame) + 1, dtype=np.int64) + skip_rows + int(header)
    return RawTable(frame=frame, lines=lines, source=str(path), categories={})


def expand_characters(raw: RawTable, column: str, prefix: str) -> RawTable:
    """Replace a string column by one column per character (``<prefix>1 .. <prefix>L``).

    For sequence data such as promoters' 57-base DNA strings; surrounding blanks are dropped.

    Raises:
        DataError: the column is absent, or a row's string has another length than the first
            (the message names the file, line and both lengths).
    """
    if column not in raw.frame.columns:
        raise DataError(f"{raw.source}: column {column!r} to expand into characters does not exist")
    text = raw.frame[column].astype(str).str.strip().to_numpy()
    length = len(text[0])
    for row, value in enumerate(text):
        if len(value) != length:
            raise DataError(
                f"{raw.source}: line {raw.lines[row]}, column {column!r}: sequence of "
                f"{len(value)} characters, expected {length}"
            )
    chars = pd.DataFrame(
        [list(v) for v in text], columns=[f"{prefix}{j + 1}" for j in range(length)], index=raw.frame.index
    )
    position = list(raw.frame.columns).index(column)
    frame = pd.concat([raw.frame.iloc[:, :position], chars, raw.frame.iloc[:, position + 1 :]], axis=1)
    return RawTable(frame=frame, lines=raw.lines, source=raw.source, categories=raw.categories)


#: liac-arff's numeric attribute types (their values are floats, or None for ``?``)
ARFF_NUMERIC = ("NUMERIC", "REAL", "INTEGER")


def _arff_data_lines(lines: list[str]) -> np.ndarray:
    """The 1-based line of each data row of an ARFF file's ``lines``, as liac-arff reads them: the
    lines after ``@data`` that are neither blank nor a ``%`` comment.
    """
    start = next((i for i, line in enumerate(lines) if line.strip().upper().startswith("@DATA")), len(lines))
    return np.asarray(
        [i + 1 for i in range(start + 1, len(lines)) if lines[i].strip() and not lines[i].strip().startswith("%")],
        dtype=np.int64,
    )


def read_arff_table(path: Path) -> RawTable:
    """Read a dense ARFF file with liac-arff; nominal attributes keep their declared values. A
    UTF-8 byte-order mark is skipped; a numeric value written ``nan`` is refused, as in a CSV
    file (a missing value is ``?``).

    Raises:
        DataError: a missing or non-regular file, not UTF-8, an ARFF syntax error (liac-arff's
            message names the line), or a ``nan`` (line and column named).
    """
    import arff  # liac-arff

    check_data_file(path)
    _check_utf8(path)
    lines = io.StringIO(path.read_text(encoding="utf-8-sig")).readlines()  # as a file reads them
    decoder = arff.ArffDecoder()
    try:
        content = decoder.decode(lines)
    except arff.ArffException as exc:
        raise DataError(f"{path}: malformed ARFF: {exc}") from None
    except (ValueError, OverflowError) as exc:  # liac-arff lets some conversions' errors through (inf as integer)
        line = getattr(decoder, "_current_line", 0)
        raise DataError(f"{path}: malformed ARFF: line {line}: {exc}") from None
    names = [name for name, _ in content["attributes"]]
    rows = _arff_data_lines(lines)
    if len(rows) != len(content["data"]):  # cannot happen for a dense file; keep the messages honest
        rows = np.zeros(len(content["data"]), dtype=np.int64)
    numeric = [j for j, (_, kind) in enumerate(content["attributes"]) if kind in ARFF_NUMERIC]
    for i, row in enumerate(content["data"]):
        # NaN: "nan" in the file (? is None); a string: a row liac-arff left unconverted ("nan" as integer)
        bad = next((j for j in numeric if row[j] != row[j] or isinstance(row[j], str)), None)
        if bad is not None:
            where = f"line {rows[i]}" if rows[i] else f"row {i + 1}"
            value = row[bad] if isinstance(row[bad], str) else "nan"
            raise DataError(
                f"{path}: {where}, column {names[bad]!r}: value {value!r} is not a number (a missing value is ?)"
            )
    frame = pd.DataFrame(content["data"], columns=names)
    categories = {name: list(kind) for name, kind in content["attributes"] if isinstance(kind, list)}
    for name in names:
        if name in categories:
            frame[name] = frame[name].astype(object)
    return RawTable(frame=frame, lines=rows, source=str(path), categories=categories)


def _remove_empty_folders(root: Path, keep_root: bool) -> None:
    """Remove the empty folders under ``root`` (and ``root`` itself unless ``keep_root``)."""
    if not root.is_dir():
        return
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    if not keep_root and not any(root.iterdir()):
        root.rmdir()


def arff_class_attribute(path: Path) -> str | None:
    """The class attribute of an ARFF file that names none: its last attribute, as Weka and MOA
    take it. Reads the header only (liac-arff parses it); None when the header cannot be read
    (:func:`read_arff_table` then says why).
    """
    import arff  # liac-arff

    header = []
    try:
        with open(path, encoding="utf-8-sig") as handle:
            for line in handle:
                header.append(line)
                if line.strip().lower().startswith("@data"):
                    break
        attributes = arff.loads("".join(header))["attributes"]
    except (OSError, UnicodeDecodeError, arff.ArffException):
        return None
    return str(attributes[-1][0]) if attributes else None


def csv_last_column(path: Path, spec: Any) -> str | None:
    """The name :func:`read_csv_table` gives the last column of a delimited file read with the
    ``dataset`` section ``spec`` (its ``sep``, ``header``, ``columns``, ``skip_rows``,
    ``comment``): the class column of a file that names none, as an ARFF file's last attribute.
    Reads the first row only; None when it cannot be read (the reader then says why).
    """
    columns = spec.get("columns")
    if columns:
        return str(columns[-1])
    skip_rows, comment = int(spec.get("skip_rows") or 0), spec.get("comment")
    try:
        sep = spec.get("sep") or sniff_separator(path, skip_rows, comment)
        with open(path, encoding="utf-8", newline="") as handle:
            for number, line in enumerate(handle, start=1):
                if number <= skip_rows or not line.strip() or (comment and line.lstrip().startswith(comment)):
                    continue
                fields = line.split() if sep == "whitespace" else _fields(path, number, line, sep)
                return fields[-1] if spec.get("header", True) else str(len(fields) - 1)
    except (OSError, UnicodeDecodeError, DataError):
        return None
    return None


def openml_cache_dir() -> Path:
    """openml-python's own cache directory (the user's openml config, or its default)."""
    import openml

    return Path(openml.config.get_cache_directory())


def openml_cached(openml_id: int) -> bool:
    """Whether openml's cache holds data set ``openml_id``'s description and data."""
    folder = openml_cache_dir() / "datasets" / str(int(openml_id))
    return (folder / "description.xml").is_file() and (any(folder.glob("*.pq")) or any(folder.glob("*.arff")))


def _reachable(url: str, timeout_s: float = 3.0) -> str | None:
    """None if the host of ``url`` accepts a connection within ``timeout_s`` seconds, else why not
    (so that an offline machine fails in seconds, not after openml's retries).
    """
    import socket
    from urllib.parse import urlparse

    parsed = urlparse(url)
    try:
        socket.create_connection(
            (parsed.hostname, parsed.port or (443 if parsed.scheme == "https" else 80)), timeout=timeout_s
        ).close()
    except OSError as exc:
        return f"{parsed.hostname} unreachable: {exc.strerror or exc}"
    return None


def fetch_openml_table(openml_id: int) -> RawTable:
    """Read data set ``openml_id`` from openml-python's cache, downloading it first if needed.

    The cache is openml's own (:func:`openml_cache_dir`: the user's openml configuration decides
    where). Works offline once cached (``boostbench datasets --fetch NAME`` fills it). The target
    attribute stays a column of the frame; OpenML's default target is ``default_target``.

    Raises:
        DataError: the data set is neither cached nor downloadable (the message says where it
            looked and why the download failed).
    """
    import openml

    cache = openml_cache_dir()
    existed = cache.exists()
    if not openml_cached(openml_id):
        why = _reachable(openml.config.server)
        if why is not None:
            raise DataError(
                f"OpenML data set {openml_id} is not in openml's cache ({cache}) and cannot be downloaded: {why}"
            )
    try:
        dataset = openml.datasets.get_dataset(
            int(openml_id),
            download_data=True,
            download_qualities=False,
            download_features_meta_data=False,
        )
        frame, _, categorical, names = dataset.get_data(dataset_format="dataframe")
    except Exception as exc:  # network, server and cache errors all mean "not available"
        _remove_empty_folders(cache, keep_root=existed)  # openml made them for the download
        raise DataError(
            f"OpenML data set {openml_id} is not in openml's cache ({cache}) and could not be "
            f"downloaded ({type(exc).__name__}: {' '.join(str(exc).split())})"
        ) from None
    categories = {}
    for name, is_cat in zip(names, categorical):
        if is_cat:
            categories[name] = [str(c) for c in frame[name].cat.categories]
            frame[name] = frame[name].astype(object)
    lines = np.zeros(len(frame), dtype=np.int64)
    target = dataset.default_target_attribute
    return RawTable(
        frame=frame,
        lines=lines,
        source=f"openml:{openml_id}",
        categories=categories,
        default_target=target.split(",")[0] if target else None,
    )
