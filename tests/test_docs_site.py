"""The API reference and the built site: what mkdocstrings reads and what the site's links open."""

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import boostbench
from boostbench import estimators

ROOT = Path(boostbench.__file__).parent


def test_every_public_class_has_a_docstring_the_reference_can_read():
    """griffe reads the source without running it: a docstring built at run time (``__doc__ = f"..."``)
    leaves the class without an entry's text."""
    missing = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and ast.get_docstring(node) is None:
                missing.append(f"{path.relative_to(ROOT.parent)}: {node.name}")
    assert missing == []


def _docstrings():
    """Every docstring of boostbench's modules, classes and functions: (where, its lines)."""
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc:
                    yield f"{path.relative_to(ROOT.parent)}: {getattr(node, 'name', '<module>')}", doc.splitlines()


def test_docstrings_read_as_the_reference_renders_them():
    """mkdocstrings' Google style: a doctest outside an ``Examples:`` section renders as nested
    quotes, a reST ``::`` stays as typed, and a Returns line that opens with ``word:`` or
    ``word (...):`` loses that word to a "name" column."""
    named = re.compile(r"\s*\w+\s*(\(.+\))?:")
    problems = []
    for where, lines in _docstrings():
        examples = None  # the indent of the Examples: header above, if any
        for i, line in enumerate(lines):
            indent = len(line) - len(line.lstrip())
            if re.fullmatch(r"\s*Examples?:\s*", line):
                examples = indent
            if line.lstrip().startswith(">>>") and not (examples is not None and indent > examples):
                problems.append(f"{where}: a doctest outside Examples:")
            if line.rstrip().endswith("::"):
                problems.append(f"{where}: reST's '::'")
            if re.fullmatch(r"\s*(Returns|Yields):\s*", line) and i + 1 < len(lines) and named.match(lines[i + 1]):
                problems.append(f"{where}: {lines[i + 1].strip()!r} reads as a named value")
    assert problems == []


def _documented(cls: type) -> dict[str, str]:
    """The ``Args:`` section of ``cls``'s docstring: name -> description (its lines joined)."""
    section = inspect.getdoc(cls).split("\nArgs:\n", 1)[1].split("\n\n", 1)[0]
    params: dict[str, str] = {}
    for line in section.splitlines():
        item = re.match(r"    (\w+): (.*)", line)
        if item:
            name, text = item.groups()
            params[name] = text
        else:
            assert line.startswith("        "), f"{cls.__name__}: {line!r} is neither an item nor its continuation"
            params[name] += " " + line.strip()
    return params


@pytest.mark.parametrize("name", estimators.__all__)
def test_a_river_estimator_documents_each_parameter_in_order(name):
    cls = getattr(estimators, name)
    signature = [p for p in inspect.signature(cls).parameters]
    assert list(_documented(cls)) == signature


def test_the_parameters_the_estimators_share_read_the_same_everywhere():
    """One text per shared parameter: the docstrings are static, written out in each class."""
    texts: dict[str, set[str]] = {}
    for name in estimators.__all__:
        for param, text in _documented(getattr(estimators, name)).items():
            texts.setdefault(param, set()).add(text)
    shared = ("model", "n_models", "classes", "max_size", "seed", "feature_subset_size", "alpha_bound", "hedge_eta")
    assert {param: len(texts[param]) for param in shared} == dict.fromkeys(shared, 1)


def _site_links():
    spec = importlib.util.spec_from_file_location("site_links", ROOT.parent / "docs" / "hooks" / "site_links.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_check_names_links_to_folders_and_to_nothing(tmp_path):
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "index.html").write_text('<a href="../index.html#top">home</a><img src="pic.png">')
    (tmp_path / "index.html").write_text(
        '<a href="guide/">a folder</a> <a href="guide/index.html">a page</a> <a href="#here">anchor</a>'
        ' <a href="https://example.org/x/">elsewhere</a> <a href="/gone.html?q=1">gone</a>'
        ' <link href="guide/index.html"> <a href="mailto:a@b.c">mail</a>'
    )
    assert _site_links().broken_links(tmp_path) == [
        "guide/index.html: pic.png (missing)",
        "index.html: guide/ (a folder)",
        "index.html: /gone.html?q=1 (missing)",
    ]
