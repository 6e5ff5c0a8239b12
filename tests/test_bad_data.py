"""Bad data fails loudly: one line naming the file, line, column and value, exit code 2, no result."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from boostbench.cli import app

ROWS = [f"{i % 5},{(i * 7) % 11},{'yes' if i % 3 else 'no'}" for i in range(40)]


def _file(tmp_path, text: str | bytes, name="data.csv"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


CASES = {
    # a number column with one word in it (line 14): a typo, not a nominal attribute
    "word in numbers": (
        "a,b,label\n" + "\n".join(ROWS[:12] + ["3,oops,yes"] + ROWS[12:]) + "\n",
        ["line 14, column 'b': value 'oops' is not a number, though 40 other values"],
    ),
    "infinity": (
        "a,b,label\n" + "\n".join(ROWS[:5] + ["inf,2,no"] + ROWS[5:]) + "\n",
        ["line 7, column 'a': value 'inf' is not a finite number"],
    ),
    "overflow": (
        "a,b,label\n" + "\n".join(ROWS[:2] + ["1,1e999,no"] + ROWS[2:]) + "\n",
        ["line 4, column 'b': value '1e999' is not a finite number"],
    ),
    "duplicate names": (
        "a,a,label\n" + "\n".join(ROWS) + "\n",
        ["line 1: column name 'a' appears twice (columns 1 and 2)"],
    ),
    "utf-16": ("a,b,label\n" + "\n".join(ROWS) + "\n").encode("utf-16"),
    "binary": b"a,b,label\n1,2,yes\n\x00\x01\x02\n",
}
CASES["utf-16"] = (CASES["utf-16"], ["line 1: not UTF-8 text (a UTF-16 byte-order mark)"])
CASES["binary"] = (CASES["binary"], ["line 3: not UTF-8 text (a NUL byte)"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_files_are_refused_with_file_line_column_value(case, tmp_path):
    text, messages = CASES[case]
    path = _file(tmp_path, text)
    result = CliRunner().invoke(
        app,
        [
            "run",
            "dataset=csv",
            f"dataset.file={path}",
            "dataset.class_column=label",
            "algorithm=vfdt",
            f"results_dir={tmp_path / 'results'}",
        ],
    )
    output = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert str(path) in output and all(m in output for m in messages), output
    assert "Traceback" not in result.output and not (tmp_path / "results" / "runs").exists()


def test_a_mixed_column_is_accepted_when_declared(tmp_path):
    path = _file(tmp_path, "a,b,label\n" + "\n".join(ROWS[:12] + ["3,oops,yes"] + ROWS[12:]) + "\n")
    for declared in ("dataset.nominal=[b]", "dataset.missing=[oops]"):
        result = CliRunner().invoke(
            app,
            [
                "run",
                "dataset=csv",
                f"dataset.file={path}",
                "dataset.class_column=label",
                "algorithm=vfdt",
                declared,
                f"results_dir={tmp_path / 'results'}",
            ],
        )
        assert result.exit_code == 0, result.output


def test_a_feature_named_as_the_class_is_refused(tmp_path):
    rows = [f"{i},{i % 2}" for i in range(300)]  # 300 distinct values in the named column
    path = _file(tmp_path, "x,label\n" + "\n".join(rows) + "\n")
    args = [
        "run",
        "dataset=csv",
        f"dataset.file={path}",
        "dataset.class_column=x",
        "algorithm=vfdt",
        f"results_dir={tmp_path / 'results'}",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "300 distinct class values, more than dataset.max_classes = 100" in " ".join(
        result.output.split()
    )
    assert CliRunner().invoke(app, [*args, "dataset.max_classes=400"]).exit_code == 0


def _run(tmp_path, path, *overrides):
    return CliRunner().invoke(
        app,
        [
            "run",
            "dataset=csv",
            f"dataset.file={path}",
            "dataset.class_column=label",
            "algorithm=vfdt",
            "learner.backend=river",
            *overrides,
            f"results_dir={tmp_path / 'results'}",
        ],
    )


ARFF_HEAD = "@relation t\n@attribute a numeric\n@attribute b numeric\n@attribute label {yes,no}\n@data\n"
ARFF_ROWS = [f"{i % 5},{(i * 7) % 11},{'yes' if i % 3 else 'no'}" for i in range(40)]


def _special(tmp_path, kind: str):
    """A data 'file' that is no regular one."""
    path = tmp_path / "data.csv"
    if kind == "a directory":
        path.mkdir()
    elif kind == "a FIFO (named pipe)":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


MORE_CASES = {
    # a wrong separator or a binary file makes one enormous field: the csv module's limit
    "a field over 131,072 characters": (
        lambda tmp_path: _file(tmp_path, "a,b,label\n" + "\n".join(ROWS[:3] + ["1," + "9" * 140_000 + ",no"]) + "\n"),
        (),
        ["line 5: a field of more than 131,072 characters, no table cell: is dataset.sep right?"],
    ),
    "decimal commas": (
        lambda tmp_path: _file(
            tmp_path, "a;b;label\n" + "\n".join(f"{i},5;{i % 4};{'yes' if i % 3 else 'no'}" for i in range(40)) + "\n"
        ),
        (),
        [
            "line 2, column 'a': value '0,5' is a number written with a decimal comma:",
            "read them with +dataset.decimal=','",
        ],
    ),
    "nan in ARFF": (
        lambda tmp_path: _file(
            tmp_path, ARFF_HEAD + "\n".join(ARFF_ROWS[:3] + ["nan,2,no"] + ARFF_ROWS[3:]) + "\n", "d.arff"
        ),
        (),
        ["line 9, column 'a': value 'nan' is not a number (a missing value is ?)"],
    ),
    "a word in an ARFF number column": (
        lambda tmp_path: _file(
            tmp_path, ARFF_HEAD + "\n".join(ARFF_ROWS[:3] + ["x,2,no"] + ARFF_ROWS[3:]) + "\n", "d.arff"
        ),
        (),
        ["malformed ARFF: Invalid numerical value, at line 9."],
    ),
    "binary ARFF": (
        lambda tmp_path: _file(tmp_path, ARFF_HEAD.encode() + b"\x00\x01\n", "d.arff"),
        (),
        ["line 6: not UTF-8 text (a NUL byte)"],
    ),
    "a CSV key on an ARFF file": (
        lambda tmp_path: _file(tmp_path, ARFF_HEAD + "\n".join(ARFF_ROWS) + "\n", "d.arff"),
        ("dataset.sep=;",),
        ["dataset.sep=';' is for a CSV file;", "d.arff is read as ARFF"],
    ),
    "the class column dropped": (
        lambda tmp_path: _file(tmp_path, "a,b,label\n" + "\n".join(ROWS) + "\n"),
        ("dataset.drop_columns=[label]",),
        ["dataset.drop_columns names the class column 'label'"],
    ),
    "fewer names than the header": (
        lambda tmp_path: _file(tmp_path, "a,b,label\n" + "\n".join(ROWS) + "\n"),
        ("dataset.columns=[x,label]",),
        ["dataset.columns names 2 columns, the header (line 1) 3"],
    ),
    **{
        kind: (lambda tmp_path, kind=kind: _special(tmp_path, kind), (), [f"is {kind}, not a regular file"])
        for kind in ("a directory", "a FIFO (named pipe)", "a character device")
    },
}


@pytest.mark.parametrize("case", sorted(MORE_CASES))
def test_more_bad_files_are_refused_in_one_line(case, tmp_path):
    make, overrides, messages = MORE_CASES[case]
    path = make(tmp_path)
    result = _run(tmp_path, path, *overrides)
    output = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert output.startswith("error: ") and all(m in output for m in messages), output
    assert "Traceback" not in result.output and not (tmp_path / "results" / "runs").exists()


@pytest.mark.parametrize(
    "name, text, overrides",
    [
        ("bom.arff", "\ufeff" + ARFF_HEAD + "\n".join(ARFF_ROWS) + "\n", ()),
        ("bom.csv", "\ufeffa,b,label\n" + "\n".join(ROWS) + "\n", ()),
        (
            "comma.csv",
            "a;b;label\n" + "\n".join(f"{i % 5},5;{(i * 7) % 11};{'yes' if i % 3 else 'no'}" for i in range(40)) + "\n",
            ("+dataset.decimal=,",),
        ),
        ("renamed.csv", "p,q,r\n" + "\n".join(ROWS) + "\n", ("dataset.columns=[a,b,label]",)),
    ],
)
def test_files_the_loader_reads_as_written(tmp_path, name, text, overrides):
    """A byte-order mark is skipped, decimal commas read under dataset.decimal, and names given
    with a header replace its own."""
    import json

    result = _run(tmp_path, _file(tmp_path, text, name), *overrides)
    assert result.exit_code == 0, result.output
    (path,) = (tmp_path / "results" / "runs").glob("*.json")
    record = json.loads(path.read_text())
    assert record["dataset"]["n_examples"] == 40 and record["dataset"]["class_names"] == ["no", "yes"]
