"""Property: whatever bytes a data file holds, and whatever valid settings read it, loading it ends
in a data set that keeps the encoder's invariants or in one line naming the problem (a
BoostbenchError): never another exception, never a hang (make fuzz runs these at length)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from omegaconf import OmegaConf

from boostbench.data.dataset import Dataset
from boostbench.data.registry import load_dataset, registry_specs
from boostbench.errors import BoostbenchError

TEMPLATE = registry_specs()["csv"]

#: Cells a table may hold: numbers of every spelling, markers, words, quotes, blanks, any text
WORDS = ["?", "", "nan", "NaN", "inf", "-inf", "1e999", "1,5", "-0,25", "yes", "no", "a", "b", '"q"', "'", " ", "é"]
CELLS = {
    "int": st.integers(-1000, 1000).map(str),
    "float": st.floats(allow_nan=True, allow_infinity=True).map(repr),
    "word": st.sampled_from(WORDS),
    "text": st.text(max_size=6),
}
CLASSES = st.one_of(st.sampled_from(["x", "y", "z"]), st.sampled_from(WORDS))


@st.composite
def tables(draw) -> tuple[list[str], list[list[str]]]:
    """Column names (the class column ``label`` among them, mostly) and rows of cells, a kind of
    cell per column, a row now and then a field short or long."""
    kinds = draw(st.lists(st.sampled_from(list(CELLS)), min_size=1, max_size=4))
    names = [draw(st.sampled_from([f"c{j}", "label", "", "a b", "é"])) for j in range(len(kinds))]
    position = draw(st.integers(0, len(kinds)))
    names.insert(position, "label" if draw(st.integers(0, 9)) else draw(st.text(max_size=4)))
    rows = []
    for _ in range(draw(st.integers(0, 25))):
        row = [draw(CELLS[kind]) for kind in kinds]
        row.insert(position, draw(CLASSES))
        if not draw(st.integers(0, 20)):
            row = row[:-1] if draw(st.booleans()) else [*row, "extra"]
        rows.append(row)
    return names, rows


@st.composite
def csv_bytes(draw) -> tuple[bytes, str]:
    """A delimited text file as bytes (BOM, line endings, blank and comment lines, a byte garbled),
    and the separator it was written with."""
    names, rows = draw(tables())
    sep = draw(st.sampled_from([",", ";", "\t", "|", " "]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    lines = [sep.join(names)] + [sep.join(row) for row in rows]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "# comment", "   "])))
    data = (("\ufeff" if draw(st.booleans()) else "") + newline.join(lines) + newline).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0 and data:  # a byte garbled: NUL, invalid UTF-8, a quote
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + draw(st.sampled_from([b"\x00", b"\xff", b'"', b"\n"])) + data[at + 1 :]
    return data, sep


@st.composite
def arff_bytes(draw) -> bytes:
    """An ARFF file: numeric, integer, nominal and string attributes, the class last, rows of
    cells of any kind now and then, comments, blank lines, a BOM."""
    attributes = draw(
        st.lists(st.sampled_from(["numeric", "real", "integer", "{a,b,c}", "string", "date"]), min_size=1, max_size=4)
    )
    lines = ["% a comment", "@relation t"]
    lines += [f"@attribute c{j} {kind}" for j, kind in enumerate(attributes)]
    lines += ["@attribute label {x,y,z}", "", "@data"]
    typed = {
        "numeric": CELLS["float"],
        "real": CELLS["int"],
        "integer": CELLS["int"],
        "{a,b,c}": st.sampled_from(["a", "b", "c", "?"]),
        "string": st.sampled_from(["'s t'", "w", "?"]),
        "date": st.sampled_from(["?", "'2001-01-01'"]),
    }
    for _ in range(draw(st.integers(0, 20))):
        cells = [
            draw(st.one_of(typed[kind], CELLS["word"]) if draw(st.integers(0, 9)) == 0 else typed[kind])
            for kind in attributes
        ]
        lines.append(",".join([*cells, draw(st.sampled_from(["x", "y", "z", "?", "w"]))]))
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", "% c", "{0 1}", "@data"])))
    return (("\ufeff" if draw(st.booleans()) else "") + "\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def _settings(draw_from, sep: str) -> dict:
    """Valid reader settings (the config checks pass them): what a user could ask for."""
    return {
        "class_column": draw_from(st.sampled_from(["label", "label", 0, -1, "nope"])),
        "sep": draw_from(st.sampled_from([None, sep, ",", ";", "whitespace", '"'])),
        "header": draw_from(st.booleans()),
        "nominal": draw_from(st.sampled_from(["auto", "all", ["c0"], []])),
        "missing": draw_from(st.sampled_from([["?", ""], [], ["nan"]])),
        "decimal": draw_from(st.sampled_from([".", ","])),
        "max_classes": draw_from(st.sampled_from([2, 3, 100])),
    }


def _check(data: Dataset) -> None:
    """What every encoded data set must hold."""
    assert data.X.shape == (len(data.y), len(data.feature_names)) and data.X.dtype == np.float64
    assert len(data.class_names) >= 2 and set(np.unique(data.y)) <= set(range(len(data.class_names)))
    for j, categories in enumerate(data.categories):
        column = data.X[:, j][~np.isnan(data.X[:, j])]
        if data.nominal[j]:
            assert np.all(column == np.round(column)) and np.all((column >= 0) & (column < len(categories)))
        else:
            assert np.all(np.isfinite(column))


def _load(content: bytes, suffix: str, settings: dict) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"data{suffix}"
        path.write_bytes(content)
        spec = OmegaConf.merge(TEMPLATE, {"file": str(path), **settings})
        try:
            data = load_dataset(spec)
        except BoostbenchError as exc:
            assert "\n" not in str(exc).strip(), str(exc)  # one line
            return
        _check(data)


@given(st.data(), csv_bytes())
def test_any_csv_file_loads_or_is_refused_in_one_line(data, file):
    content, sep = file
    _load(content, ".csv", _settings(data.draw, sep))


@given(st.data(), arff_bytes())
def test_any_arff_file_loads_or_is_refused_in_one_line(data, content):
    settings = _settings(data.draw, ",")
    _load(content, ".arff", {**settings, "sep": None, "header": True, "decimal": "."})


@given(st.binary(max_size=300), st.sampled_from([".csv", ".arff"]))
def test_any_bytes_load_or_are_refused_in_one_line(content, suffix):
    _load(content, suffix, {"class_column": "label"})
