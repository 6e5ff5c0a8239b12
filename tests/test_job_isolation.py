"""A sweep's jobs run apart from their worker: a job that dies (a signal, os._exit, SystemExit, a
segfault) or runs past its time limit is recorded as failed with its cause, and the rest of the
grid runs."""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest

from boostbench.runner.isolation import JobDied, run_isolated, stop_runner

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="jobs are isolated where processes fork")


def _returns(value, send):
    send({"step": 1})
    return value * 2, os.getpid()


def _exits(code, send):
    send({"key": "k"})
    os._exit(code)


def _raises_system_exit(code, send):
    sys.exit(code)


def _segfaults(_, send):
    os.kill(os.getpid(), signal.SIGSEGV)


def _sleeps(seconds, send):
    time.sleep(seconds)


def test_a_job_returns_through_the_runner_which_outlives_it():
    try:
        (doubled, first), messages = run_isolated(_returns, (21,))
        assert doubled == 42 and messages == [{"step": 1}] and first != os.getpid()
        assert run_isolated(_returns, (1,))[0][1] == first  # the same runner: kernels stay loaded
    finally:
        stop_runner()


@pytest.mark.parametrize(
    "function, argument, cause",
    [
        (_exits, 3, "the job's process exited with status 3 before it ended (os._exit or sys.exit in the job)"),
        (_raises_system_exit, 4, "the job raised SystemExit(4)"),
        (_segfaults, None, "the job's process died by signal SIGSEGV (a segmentation fault, in compiled code"),
    ],
)
def test_a_job_that_dies_is_told_with_its_cause_and_the_next_gets_a_fresh_runner(function, argument, cause):
    try:
        pid = run_isolated(_returns, (1,))[0][1]
        with pytest.raises(JobDied) as died:
            run_isolated(function, (argument,))
        assert died.value.cause.startswith(cause)
        assert died.value.messages == ([{"key": "k"}] if function is _exits else [])
        again = run_isolated(_returns, (1,))[0][1]
        assert again != pid and os.getpid() != again
    finally:
        stop_runner()


def test_a_job_past_its_time_limit_is_ended():
    began = time.monotonic()
    try:
        with pytest.raises(JobDied, match=r"^the job ran past its time limit of 0.5 s and was ended$"):
            run_isolated(_sleeps, (60,), timeout_s=0.5)
        assert time.monotonic() - began < 10
        assert run_isolated(_returns, (2,))[0][0] == 4
    finally:
        stop_runner()


# -- in a sweep ----------------------------------------------------------------------------------------


def _faulty_run_experiment(monkeypatch, fault):
    """run_experiment ending the job of seed 1 by ``fault`` (the runner is forked from this
    process: it has the patch)."""
    import boostbench.runner.experiment as experiment

    real = experiment.run_experiment

    def run(cfg, *args, **kwargs):
        if cfg.seed == 1:
            fault()
        return real(cfg, *args, **kwargs)

    monkeypatch.setattr(experiment, "run_experiment", run)
    return real


@pytest.mark.slow  # two sweeps of three runs each (about 20 s)
@pytest.mark.parametrize(
    "fault, cause",
    [
        (lambda: os._exit(3), "the job's process exited with status 3"),  # done when 2
        (lambda: sys.exit(5), "SystemExit: 5 (test_job_isolation.py:"),  # done when 3
    ],
    ids=["os._exit", "SystemExit"],
)
def test_a_job_that_exits_leaves_the_others_records_and_the_sweep_fails_in_one_line(
    tmp_path, monkeypatch, fault, cause
):
    from typer.testing import CliRunner

    import boostbench.runner.experiment as experiment
    from boostbench.cli import app

    real = _faulty_run_experiment(monkeypatch, fault)
    grid = ["dataset=balance", "algorithm=vfdt", "learner.backend=river", "seed=0,1,2", f"results_dir={tmp_path}"]
    result = CliRunner().invoke(app, ["sweep", *grid, "-j", "1"])
    assert result.exit_code == 2, result.output
    assert len(list((tmp_path / "runs").glob("*.json"))) == 2  # seeds 0 and 2
    (failure,) = (tmp_path / "failed").glob("*.json")
    note = json.loads(failure.read_text())
    assert note["reason"].startswith(cause) and note["config"]["seed"] == 1
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert lines == [
        f"error: 1 job(s) failed: vfdt balance seed=1 (causes in {tmp_path / 'failed'}); run the same sweep "
        "again to retry them"
    ]
    assert "Traceback" not in result.output
    assert not list((tmp_path / "claims").iterdir())
    monkeypatch.setattr(experiment, "run_experiment", real)  # fixed: a rerun retries what failed
    result = CliRunner().invoke(app, ["sweep", *grid, "-j", "1"])
    assert result.exit_code == 0 and "1 done, 2 skipped" in result.output
    assert not list((tmp_path / "failed").iterdir())


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "soon"])
def test_a_time_limit_that_is_no_positive_number_is_refused_before_any_work(tmp_path, value):
    from boostbench.errors import ConfigError
    from boostbench.runner.sweep import run_sweep

    with pytest.raises(ConfigError, match=rf"^hydra.sweeper.job_timeout={value}: give the seconds a job may run"):
        run_sweep(["dataset=car", "algorithm=samme", f"results_dir={tmp_path}", f"hydra.sweeper.job_timeout={value}"])
    assert not (tmp_path / "runs").exists()
