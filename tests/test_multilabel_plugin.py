"""The plugin route for a multi-label ranker: ``boostbench new-algorithm NAME --task multilabel``
writes a package whose ranker passes :func:`boostbench.testing.check_booster` (scores and label
sets of k labels, determinism, pickling, growth, weights) and whose test runs it on emotions; an
unknown task is refused in one line, writing nothing.
"""

from __future__ import annotations

import importlib
import sys
import tomllib

from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.testing import CHECKS, check_booster


def test_new_algorithm_writes_a_ranker_that_passes_check_booster(tmp_path, monkeypatch):
    result = CliRunner().invoke(app, ["new-algorithm", "my_ranker", "--dir", str(tmp_path), "--task", "multilabel"])
    assert result.exit_code == 0, result.output
    assert "dataset=emotions" in result.output
    root = tmp_path / "my_ranker"
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["boostbench.algorithms"] == {
        "my_ranker": "boostbench_my_ranker.booster:MyRanker"
    }
    source = (root / "src" / "boostbench_my_ranker" / "booster.py").read_text()
    assert "class MyRanker(OnlineRanker):" in source
    test = (root / "tests" / "test_my_ranker.py").read_text()
    assert "check_booster(MyRanker)" in test and "dataset=emotions" in test and "test_rank_loss" in test
    assert "algorithm=my_ranker,ada_olmr,online_bmr" in (root / "README.md").read_text()
    monkeypatch.syspath_prepend(str(root / "src"))
    booster = importlib.import_module("boostbench_my_ranker.booster")
    try:
        report = check_booster(booster.MyRanker, checks=[c for c in CHECKS if c != "river_estimator"])
    finally:
        for name in [m for m in sys.modules if m.startswith("boostbench_my_ranker")]:
            del sys.modules[name]
    assert set(report.values()) == {"passed"}


def test_an_unknown_task_is_refused_in_one_line(tmp_path):
    refused = CliRunner().invoke(app, ["new-algorithm", "my_ranker", "--dir", str(tmp_path), "--task", "ranking"])
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines() == ["error: --task must be multiclass or multilabel, not 'ranking'"]
    assert not list(tmp_path.iterdir())
