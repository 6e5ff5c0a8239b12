"""Sweeps: Hydra multirun through the store; re-runs skip, a SIGKILLed sweep resumes cleanly."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boostbench.errors import ConfigError
from boostbench.sweep import run_sweep, summarize

GRID = ["dataset=balance", "algorithm=vfdt,online_boosting,online_mbbm", "gamma=0.1,0.05", "seed=0,1",
        "n_learners=2"]


def records(path: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((path / "runs").glob("*.json"))]


def test_sweep_runs_each_distinct_configuration_once_and_resumes(tmp_path):
    first = summarize(run_sweep([*GRID, f"results_dir={tmp_path}"], n_jobs=2))
    # vfdt and online_boosting ignore gamma: 2 x 2 seeds + online_mbbm 2 gammas x 2 seeds = 8 runs
    assert first.get("done") == 8 and first.get("error") is None
    assert first.get("skipped", 0) + first.get("busy", 0) == 4
    again = summarize(run_sweep([*GRID, f"results_dir={tmp_path}"], n_jobs=2))
    assert again == {"skipped": 12}
    hashes = [r["config_hash"] for r in records(tmp_path)]
    assert len(hashes) == len(set(hashes)) == 8


def test_sweep_skips_algorithms_of_another_task(tmp_path):
    outcome = summarize(run_sweep(["dataset=balance", "algorithm=vfdt,ada_olmr", "n_learners=1",
                                   f"results_dir={tmp_path}"], n_jobs=1))
    assert outcome == {"done": 1, "n/a": 1}


def test_sweep_rejects_unknown_options(tmp_path):
    with pytest.raises(ConfigError, match="unknown dataset 'nope'"):
        run_sweep(["dataset=balance,nope", f"results_dir={tmp_path}"])


def test_sigkilled_sweep_resumes_without_loss_or_duplicates(tmp_path):
    grid = ["dataset=car", "algorithm=online_boosting", "seed=range(0,6)", "n_learners=3"]
    command = [sys.executable, "-m", "boostbench", "sweep", *grid, f"results_dir={tmp_path}", "-j", "2"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((tmp_path / "runs").glob("*.json"))) < 2:
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)  # the sweep and its joblib workers, mid-run
    process.wait()
    before = len(records(tmp_path))
    assert 2 <= before < 6, "the kill should land mid-sweep"
    resumed = summarize(run_sweep([*grid, f"results_dir={tmp_path}"], n_jobs=2))
    assert resumed.get("done") == 6 - before and resumed.get("skipped") == before
    runs = records(tmp_path)  # every file parses: nothing half-written
    assert sorted(r["config"]["seed"] for r in runs) == list(range(6))


def test_launcher_jobs_come_from_the_overrides(tmp_path):
    outcome = summarize(run_sweep(["dataset=balance", "algorithm=vfdt", "seed=0,1", "n_learners=1",
                                   "hydra.launcher.n_jobs=1", f"results_dir={tmp_path}"]))
    assert outcome == {"done": 2}


def test_jobs_flag_speaks_each_launchers_language():
    from boostbench.sweep import _launcher_overrides

    assert _launcher_overrides([], 3) == ["hydra/launcher=joblib", "hydra.launcher.n_jobs=3"]
    assert _launcher_overrides(["hydra.launcher.n_jobs=1"], 3) == ["hydra/launcher=joblib"]  # the user's wins
    assert _launcher_overrides(["hydra/launcher=submitit_slurm"], 64) == ["hydra.launcher.array_parallelism=64"]
    assert _launcher_overrides(["hydra/launcher=ray"], 2) == ["+hydra.launcher.ray.init.num_cpus=2"]
    assert _launcher_overrides(["hydra/launcher=submitit_local"], None) == []
    with pytest.raises(ConfigError, match="-j has no meaning for hydra/launcher=submitit_local"):
        _launcher_overrides(["hydra/launcher=submitit_local"], 2)
