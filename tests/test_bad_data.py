"""Bad data fails loudly: one line naming the file, line, column and value, exit code 2, no result."""

from __future__ import annotations

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
