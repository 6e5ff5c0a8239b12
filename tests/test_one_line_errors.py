"""What the environment gets wrong is told in one line with exit 2, never a traceback: a non-finite
or non-positive --rope, a config file with a Python tag, a full disk under a report; and an
allocation beyond the machine is refused before it is made."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.system.paths import CONFIG_DIR


@pytest.mark.parametrize("rope", ["inf", "nan", "0", "-0.5"])
def test_a_rope_that_is_not_finite_and_positive_is_refused(tmp_path, rope):
    """Done when 10: --rope inf would call every pair equivalent."""
    result = CliRunner().invoke(app, ["report", "leaderboard", "--results-dir", str(tmp_path), "--rope", rope])
    assert result.exit_code == 2
    assert result.output.splitlines() == [f"error: --rope {float(rope)}: give a finite number above 0"]


def test_a_python_tag_in_a_config_file_is_one_line_and_runs_nothing(tmp_path):
    configs = tmp_path / "configs"
    shutil.copytree(CONFIG_DIR, configs)
    marker = tmp_path / "ran"
    with open(configs / "dataset" / "car.yaml", "a") as handle:
        handle.write(f'\nextra: !!python/object/apply:os.system ["touch {marker}"]\n')
    env = {**os.environ, "BOOSTBENCH_CONFIG_DIR": str(configs), "PYTHONPATH": os.getcwd()}
    for arguments in (["run", "dataset=car", "--cfg", "job"], ["datasets"]):
        done = subprocess.run(
            [sys.executable, "-m", "boostbench", *arguments], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [
            f"error: config file {configs / 'dataset' / 'car.yaml'}, line 24, column 8: could not determine a "
            "constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system' (a config holds plain "
            "YAML values only)"
        ]
    assert not marker.exists()


@pytest.mark.slow  # a run, then a report (about 10 s)
def test_a_report_on_a_full_disk_ends_in_one_line(tmp_path, monkeypatch):
    import boostbench.reporting.report as report
    from boostbench.runner.config import compose_config, validate
    from boostbench.runner.experiment import run_experiment, save

    cfg = compose_config(
        ["dataset=balance", "algorithm=vfdt", "learner.backend=river", "progress=false", "protocol.max_examples=50"]
    )
    save(run_experiment(validate(cfg)), str(tmp_path))

    def full(results_dir, runs, target):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target / "runs.csv"))

    monkeypatch.setattr(report, "export_tidy", full)
    result = CliRunner().invoke(app, ["report", "summary", "--results-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        f"error: cannot write {tmp_path / 'runs.csv'}: No space left on device; nothing more was written"
    )
    assert "Traceback" not in result.output


def test_an_allocation_beyond_the_machine_is_refused_before_it_is_made():
    code = (
        "import resource, time, numpy as np\n"
        "from boostbench.system.resources import limit_memory\n"
        "limit = limit_memory()\n"
        "began = time.perf_counter()\n"
        "try:\n"
        "    np.ones(limit // 8 + 2**27)\n"
        "except MemoryError:\n"
        "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "    print('refused', time.perf_counter() - began < 1, peak < limit / 4)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout == "refused True True\n", done.stderr
