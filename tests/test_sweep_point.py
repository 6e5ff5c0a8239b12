"""A sweep's grid point: composed and validated once, in the sweep's process; its job gets it."""

import os

import pytest

from boostbench.runner.sweep import run_sweep, summarize


def _master_and_loader():
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    from boostbench.runner.grid import ReusingConfigLoader

    hydra = GlobalHydra.instance()
    master = hydra.hydra.compose_config(
        "config", ["+experiment=smoke", "hydra/sweeper=boostbench"], run_mode=RunMode.MULTIRUN, from_shell=False
    )
    reference = hydra.config_loader()
    return master, reference, ReusingConfigLoader(reference)


POINT = ["+experiment=smoke", "dataset=car", "algorithm=online_mbbm", "gamma=0.05", "seed=3", "+preset=jung_reference"]


def test_a_carried_point_is_its_validated_config_under_hydras_node_for_it(tmp_path):
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    from boostbench.runner.config import complete, validate
    from boostbench.runner.point import MARK, ValidatedPoint, from_job_config, point_key, to_override
    from boostbench.system.paths import CONFIG_DIR

    point = [*POINT, f"results_dir={tmp_path}"]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        master, reference, loader = _master_and_loader()
        run = validate(complete(loader.load_job_config(master, point), strict=False))
        key = point_key(run.resolved)
        carried = ValidatedPoint(key, "a label", run.resolved, loader.group_choices(master, point))
        job = loader.load_sweep_config(master, [*point, to_override(carried)])
        expected = OmegaConf.to_container(reference.load_sweep_config(master, point))
        assert OmegaConf.to_container(job.hydra) == expected["hydra"]  # what Hydra composes, choices included
        got = from_job_config(job)
        assert (got.key, got.label, got.config) == (key, "a label", run.resolved)
        assert point_key(got.config) == key  # the hash the store knows it by

        # the worker trusts it only if it hashes to its key: a changed one is composed again
        forged = ValidatedPoint(key, "a label", {**run.resolved, "seed": 4}, carried.choices)
        job = loader.load_sweep_config(master, [*point, to_override(forged)])
        assert MARK not in job and from_job_config(job) is None
        assert OmegaConf.to_container(job) == expected
        assert to_override(ValidatedPoint(key, "", {**run.resolved, "results_dir": "${x}"})) is None  # not carried


def test_a_launched_point_is_composed_and_validated_once_in_the_sweeps_process(tmp_path, monkeypatch):
    """Hydra composes each choice of config groups once (in the sweep), validate runs once per point
    that runs (in the sweep), and the jobs, in their runner processes, neither compose nor validate."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    import boostbench.runner.sweep as sweep

    calls = tmp_path / "calls"

    def counted(name, real):
        def call(*args, **kwargs):
            with open(calls, "a") as handle:  # the runner is another process: a file, not a list
                handle.write(f"{name} {os.getpid()}\n")
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(ConfigLoaderImpl, "load_sweep_config", counted("compose", ConfigLoaderImpl.load_sweep_config))
    monkeypatch.setattr(sweep, "validate", counted("validate", sweep.validate))
    store = tmp_path / "store"
    grid = ["dataset=balance,car", "algorithm=vfdt", "seed=0,1", f"results_dir={store}"]
    assert summarize(run_sweep(grid, n_jobs=1)) == {"done": 4}
    lines = calls.read_text().split()
    assert lines[0::2].count("compose") == 2  # one per data set: the seeds are a value
    assert lines[0::2].count("validate") == 4
    assert set(lines[1::2]) == {str(os.getpid())}  # none in a job's runner
    calls.unlink()
    assert summarize(run_sweep(grid, n_jobs=1)) == {"skipped": 4}
    assert calls.read_text().split()[0::2] == ["compose", "compose"]  # done: looked up, not validated


def test_a_bad_value_is_said_by_the_sweep_before_anything_is_launched(tmp_path, monkeypatch):
    import boostbench.runner.sweep as sweep

    monkeypatch.setattr(sweep, "sweep_job", lambda cfg: pytest.fail("launched"))
    grid = ["dataset=balance", "algorithm=online_mbbm", "algorithm.gamma=-1", f"results_dir={tmp_path}"]
    (outcome,) = run_sweep(grid, n_jobs=1)
    assert outcome.status == "error" and "gamma" in outcome.message


@pytest.mark.slow  # make test-slow: submitit starts a Python process per job
@pytest.mark.parametrize("launcher", ["basic", "submitit_local"])
def test_a_carried_point_runs_under_other_launchers(tmp_path, launcher):
    """The point travels in the job's overrides: Hydra's basic launcher (in the sweep's process) and
    submitit's (a pickled job in another process) run it as joblib's workers do."""
    from boostbench.runner.point import point_key
    from boostbench.runner.store import iter_records

    grid = ["dataset=balance", "algorithm=vfdt,online_boosting", "n_learners=2", f"hydra/launcher={launcher}"]
    grid.append(f"results_dir={tmp_path}")
    outcomes = run_sweep(grid, n_jobs=1 if launcher == "submitit_local" else None)
    assert summarize(outcomes) == {"done": 2}
    records = list(iter_records(tmp_path))
    assert sorted(r.key for r in records) == sorted(o.key for o in outcomes)
    assert all(point_key(r.config) == r.key for r in records)
    assert summarize(run_sweep(grid, n_jobs=1 if launcher == "submitit_local" else None)) == {"skipped": 2}
