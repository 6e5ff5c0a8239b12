"""Sweeps: Hydra multirun over any config axis, resumable through the result store.

The grid is expanded by Hydra's sweeper and run by a Hydra launcher (joblib for local
parallelism by default; any installed launcher, e.g. submitit for a cluster, through
``hydra/launcher=...``), driven through hydra-zen's ``launch`` so that a typer command can start it.
Each job is keyed by its config hash: a job whose record exists is skipped, and a lock on the
hash (``flock``, released by the kernel even on SIGKILL) keeps two identical grid points, e.g.
an algorithm that ignores gamma swept over a gamma grid, from running twice at once. Records
are written atomically, so a sweep killed at any moment resumes with nothing lost, duplicated
or half-written.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf

from boostbench.config import check_group_overrides, config_hash, incompatibility
from boostbench.errors import BoostbenchError, ConfigError
from boostbench.paths import CONFIG_DIR
from boostbench.store import record_path


@dataclass(frozen=True)
class JobOutcome:
    """What one sweep job did.

    ``status``: done; skipped (its record exists); busy (the same configuration runs in another
    job); n/a (the algorithm cannot run with that data set, learner or protocol, e.g. in a grid
    over both: see :func:`boostbench.config.incompatibility`);
    error (a bad configuration or data set, ``message`` says which).
    """

    status: str
    config_hash: str
    label: str
    seconds: float
    message: str = ""


def _label(cfg: DictConfig) -> str:
    parts = [f"{cfg.algorithm.name}", f"{cfg.dataset.name}", f"seed={cfg.seed}"]
    if "gamma" in cfg.algorithm:
        parts.append(f"gamma={cfg.algorithm.gamma}")
    return " ".join(parts)


def sweep_job(cfg: DictConfig) -> JobOutcome:
    """Run one grid point unless its record exists (the Hydra task function)."""
    from boostbench.experiment import run_experiment, save

    began = time.perf_counter()
    try:
        key = config_hash(cfg)
        label = _label(cfg)
    except BoostbenchError as exc:
        return JobOutcome("error", "", "?", 0.0, str(exc))
    try:
        reason = incompatibility(cfg)
    except BoostbenchError as exc:
        return JobOutcome("error", key, label, 0.0, str(exc))
    if reason is not None:
        return JobOutcome("n/a", key, label, 0.0, reason)
    path = record_path(cfg.results_dir, key)
    if path.exists():
        return JobOutcome("skipped", key, label, 0.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return JobOutcome("busy", key, label, 0.0, "the same configuration is running in another job")
        if path.exists():  # finished while we waited for the lock
            return JobOutcome("skipped", key, label, 0.0)
        try:
            save(run_experiment(cfg), str(cfg.results_dir))
        except BoostbenchError as exc:
            print(f"error  {label}: {exc}", flush=True)
            return JobOutcome("error", key, label, time.perf_counter() - began, str(exc))
    seconds = time.perf_counter() - began
    print(f"done   {label} ({seconds:.1f} s)", flush=True)  # progress, from the worker
    return JobOutcome("done", key, label, seconds)


def run_sweep(overrides: Sequence[str], n_jobs: int | None = None) -> list[JobOutcome]:
    """Expand ``overrides`` (Hydra sweep syntax: ``a=1,2``, ``seed='range(0,5)'``) and run every job.

    Args:
        overrides: Hydra overrides; ``+experiment=<name>`` adds a paper grid from
            ``configs/experiment/``. A ``hydra/launcher=...`` override replaces the joblib launcher.
        n_jobs: parallel jobs for the joblib launcher (default: an ``hydra.launcher.n_jobs=``
            override if given, else the number of cores).

    Raises:
        ConfigError: an override does not parse or names an unknown option.
    """
    from hydra.errors import HydraException
    from hydra_zen import launch
    from omegaconf.errors import OmegaConfBaseException

    check_group_overrides(overrides)
    primary = OmegaConf.load(CONFIG_DIR / "config.yaml")
    primary.hydra = {
        "searchpath": [f"file://{CONFIG_DIR}"],
        "job": {"chdir": False},
        "sweep": {"dir": "${results_dir}/multirun/${now:%Y-%m-%d_%H-%M-%S}", "subdir": "${hydra.job.num}"},
        "output_subdir": None,
    }
    extra = ["hydra/hydra_logging=disabled", "hydra/job_logging=disabled"]
    if not any(o.startswith("hydra/launcher=") for o in overrides):
        extra.append("hydra/launcher=joblib")
        if not any(o.startswith("hydra.launcher.n_jobs=") for o in overrides):  # the user's wins
            extra.append(f"hydra.launcher.n_jobs={n_jobs or os.cpu_count() or 1}")
    try:
        jobs = launch(primary, sweep_job, overrides=[*overrides, *extra], multirun=True, version_base="1.3")
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        raise ConfigError(f"bad sweep: {' '.join(str(exc).split())}") from None
    outcomes = []
    for batch in jobs:
        for job in batch:
            try:
                outcomes.append(job.return_value)
            except Exception as exc:  # a crash inside the job: report it, do not hide it
                outcomes.append(JobOutcome("error", "", str(getattr(job, "overrides", "?")), 0.0,
                                           f"{type(exc).__name__}: {exc}"))
    return outcomes


def summarize(outcomes: Sequence[JobOutcome]) -> dict[str, Any]:
    """Counts by status."""
    counts: dict[str, Any] = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    return counts
