"""Plugins are imported when one is used, with a bound: the help, the version, the data sets and
the built-ins import none; one that exits, fails or hangs at import is named in one line when it is
used, and the others work."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

GOOD = """
from boostbench.boosters.base import OnlineBooster


class Mean(OnlineBooster):
    def predict_proba(self, x):
        self._xp = self.pool.prepare(x)
        return self.pool.predict_proba(self._xp).mean(axis=0)

    def update(self, y, w=1.0):
        pass
"""


def _install(root, package: str, source: str, imported) -> None:
    """A package as pip leaves one, touching ``imported`` when it is imported."""
    (root / package).mkdir()
    (root / package / "__init__.py").write_text(f"open({str(imported)!r}, 'a').close()\n" + textwrap.dedent(source))
    info = root / f"{package}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[boostbench.algorithms]\n{package} = {package}:Mean\n")


@pytest.fixture
def faulty_plugins(tmp_path):
    """An environment whose plugins exit (sys.exit), hang and work at import."""
    root = tmp_path / "site"
    root.mkdir()
    _install(root, "exits_at_import", "import sys\nsys.exit(3)\n", tmp_path / "imported-exits")
    _install(root, "hangs_at_import", "import time\ntime.sleep(3600)\n", tmp_path / "imported-hangs")
    _install(root, "works", GOOD, tmp_path / "imported-works")
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", ""), os.getcwd()])
    env = {**os.environ, "PYTHONPATH": path, "BOOSTBENCH_PLUGIN_IMPORT_TIMEOUT": "2"}
    return tmp_path, env


def _cli(env, *arguments) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boostbench", *arguments], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow  # five CLI processes
def test_a_plugin_that_exits_or_hangs_at_import_leaves_help_version_and_built_ins_alone(faulty_plugins):
    """Done when 8 (and the hang beside it): nothing imports a plugin until one is chosen."""
    root, env = faulty_plugins
    for arguments in (["--help"], ["--version"], ["run", "--help"], ["run", "algorithm=vfdt", "--cfg", "job"]):
        done = _cli(env, *arguments)
        assert done.returncode == 0, (arguments, done.stderr)
        assert not list(root.glob("imported-*")), arguments
    assert "exits_at_import" in _cli(env, "run", "--help").stdout  # listed by name


@pytest.mark.slow  # three CLI processes
def test_a_plugin_that_exits_at_import_is_named_in_one_line_and_the_others_work(faulty_plugins):
    _, env = faulty_plugins
    done = _cli(env, "run", "algorithm=exits_at_import", "dataset=balance")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: unknown algorithm 'exits_at_import': the plugin algorithm 'exits_at_import' of package "
        "exits_at_import 0.1 left out: it fails to import (exits_at_import:Mean): SystemExit: 3"
    ]
    done = _cli(env, "run", "algorithm=hangs_at_import", "dataset=balance")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "it fails to import (hangs_at_import:Mean): did not finish importing in 2 s" in done.stderr
    done = _cli(env, "run", "algorithm=works", "dataset=balance", "--cfg", "job")
    assert done.returncode == 0 and "name: works" in done.stdout, done.stderr
