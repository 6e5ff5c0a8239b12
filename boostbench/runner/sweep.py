"""Sweeps: a grid over any config axis in Hydra's sweep syntax, resumable through the result store.

Hydra runs the sweep with boostbench's sweeper (``hydra/sweeper=boostbench``,
``hydra_plugins/boostbench_sweeper``) and a Hydra launcher (joblib for local parallelism by
default; any installed launcher, e.g. submitit for a cluster or Ray, through
``hydra/launcher=...``), driven through hydra-zen's ``launch`` so that a typer command can start it.
The sweeper counts the grid before building it, composes each choice of config groups once and
looks each point up in the store in this process (:func:`sweep_grid`): a grid point's key, its
config hash and the fingerprint of the code that computes it
(:func:`boostbench.system.fingerprint.run_key`), is known before anything heavy runs, so a done
point costs a lookup (a code change makes new keys, so finished configs run again), a point
identical to an earlier one (an algorithm that ignores gamma, swept over gammas) runs once, and a
combination the algorithm cannot run is n/a; only the rest reach the launcher, each validated
here once and carried to its job (:mod:`boostbench.runner.point`), which neither composes nor
checks it again. A job claims its key (:func:`boostbench.runner.store.claim`: an
exclusive-create file that works on the network filesystems clusters share, taken over once its
owner stops refreshing it), so two sweeps on one store never run one configuration twice at
once. Records are written atomically, so a sweep killed at any moment, or a cluster job
pre-empted, resumes with nothing lost, duplicated or half-written.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from boostbench.algorithms import algorithm_spec, store_configs
from boostbench.errors import BoostbenchError, ConfigError, NotApplicable
from boostbench.runner.checks import check_overrides, path_problem
from boostbench.runner.config import (
    check_group_overrides,
    complete,
    config_hash,
    override_message,
    resolved_dict,
    validate,
)
from boostbench.runner.config import run_config as run_config_of
from boostbench.runner.failures import check_job_timeout, closing_line, exception_reason, job_timeout, keep_failure
from boostbench.runner.grid import GRID_LABELS
from boostbench.runner.grid import point_label as _label
from boostbench.runner.isolation import JobDied, clean_leftovers, die_with, run_isolated, stop_runner
from boostbench.runner.point import ValidatedPoint, from_job_config, to_override
from boostbench.runner.store import (
    check_writable,
    claim,
    clean_claims,
    clean_temporaries,
    discard_failure,
    has_record,
    release_dead_claim,
    remembered,
    remove_if_dead,
)
from boostbench.suggest import quote_separators
from boostbench.system.cache_safety import check_caches
from boostbench.system.fingerprint import run_key
from boostbench.system.paths import CONFIG_DIR
from boostbench.system.resources import usable_cores


@dataclass(frozen=True)
class JobOutcome:
    """What one sweep job did.

    ``status``: done; skipped (its record exists); busy (the same configuration runs in another
    job); n/a (the algorithm cannot run with that data set, learner or protocol, e.g. in a grid
    over both: see :func:`boostbench.runner.config.incompatibility`, or found once the data set is loaded:
    :class:`~boostbench.errors.NotApplicable`);
    error (a bad configuration or data set, ``message`` says which).
    """

    status: str
    key: str  # the store key (config hash and code fingerprint); empty before it is known
    label: str
    seconds: float
    message: str = ""


SWEEP_PID = "BOOSTBENCH_SWEEP_PID"  # the sweep's own process, for its workers to know it
SWEEP_PROGRESS = "BOOSTBENCH_SWEEP_PROGRESS"  # a file the workers append their outcomes to


def _report(outcome: JobOutcome, path: str | None = None) -> None:
    """Tell the sweep a job ended: one JSON line appended to its progress file (``path``, or the
    job's ``$BOOSTBENCH_SWEEP_PROGRESS``; a write under PIPE_BUF bytes with O_APPEND lands whole),
    or, without one (a remote worker), a printed line.
    """
    entry = {
        "status": outcome.status,
        "key": outcome.key,
        "label": outcome.label,
        "seconds": round(outcome.seconds, 2),
        "message": outcome.message[:300],
    }
    if _append(path or os.environ.get(SWEEP_PROGRESS), entry):
        return
    if outcome.status in ("done", "error"):
        print(f"{outcome.status:<6} {outcome.label} ({outcome.seconds:.1f} s) {outcome.message}".rstrip(), flush=True)


def _append(path: str | None, entry: dict[str, Any]) -> bool:
    """Append ``entry`` as one JSON line to the sweep's progress file (a write under PIPE_BUF bytes
    with O_APPEND lands whole); False if there is none to append to.
    """
    import json

    if not path:
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # not created: a finished sweep's is gone
        try:
            os.write(fd, (json.dumps(entry) + "\n").encode())
        finally:
            os.close(fd)
        return True
    except OSError:
        return False


def _die_with_the_sweep() -> None:
    """In a worker the sweep started (joblib, submitit_local), die when the sweep dies: a killed
    sweep must not leave workers running jobs and writing records (Linux ``PR_SET_PDEATHSIG``).
    """
    parent = os.environ.get(SWEEP_PID)
    if parent is not None and os.getppid() == int(parent):  # not the sweep, nor Ray's or SLURM's
        die_with(int(parent))


def sweep_grid(
    config: DictConfig,
    loader: Any,
    launcher: Any,
    arguments: Sequence[str],
    *,
    params: dict[str, str] | None,
    max_jobs: int,
    max_batch_size: int | None,
) -> list[JobOutcome]:
    """The sweeper's work (``hydra/sweeper=boostbench``): count the grid, triage each point here
    (:func:`_triage`: error, n/a, the same as an earlier point, done), launch the rest.

    Args:
        config: the sweep's config (Hydra's, with its ``hydra`` node).
        loader: a :class:`~boostbench.runner.grid.ReusingConfigLoader`.
        launcher: the Hydra launcher the sweeper set up.
        arguments: the command line's overrides; ``params`` the experiment's axes before them.
        max_jobs: a larger grid is refused before it is built.
        max_batch_size: the points handed to the launcher at once (None: all).

    Returns:
        Each point's outcome, in the grid's order.

    Raises:
        ConfigError: a grid above ``max_jobs``, or an axis that cannot be enumerated.
        hydra.errors.HydraException: a point's config cannot be composed (an unknown key).
    """
    from boostbench.runner.grid import axis_length, check_size, grid_axes, grid_points

    axes = grid_axes(arguments, params, loader)
    size = check_size(axes, max_jobs)
    progress = config.hydra.job.env_set.get(SWEEP_PROGRESS)
    _append(progress, {"total": size})  # the caller's count: the grid is counted here, once
    varying = {axis.get_key_element() for axis in axes if axis_length(axis) > 1}
    outcomes: list[JobOutcome | None] = []
    pending: list[tuple[int, list[str], list[str]]] = []  # (index, overrides, launched as) of the points to run
    runs: dict[tuple[str, str], str] = {}  # (results_dir, key) -> label of the point that runs it
    GRID_LABELS.clear()
    for point in grid_points(axes):  # each point's record, if any, is read once: here
        shown = [line for line in point if line.partition("=")[0] in varying]
        outcome = _triage(loader.load_job_config(config, point), runs, shown)
        if isinstance(outcome, ValidatedPoint):  # carried to its job: not composed nor checked there
            carry = to_override(replace(outcome, choices=loader.group_choices(config, point)))
            pending.append((len(outcomes), point, point if carry is None else [*point, carry]))
            outcome = None
        else:
            _report(outcome, progress)
        outcomes.append(outcome)
    if pending:
        sweep_dir = Path(str(config.hydra.sweep.dir))  # as Hydra's basic sweeper keeps it
        sweep_dir.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(config, sweep_dir / "multirun.yaml")
    size = max_batch_size or len(pending) or 1
    for start in range(0, len(pending), size):
        batch = pending[start : start + size]
        returns = launcher.launch([launched for _, _, launched in batch], initial_job_idx=start)
        for (index, point, _), job in zip(batch, returns):
            outcome = _returned(job, point)
            outcomes[index] = replace(outcome, label=GRID_LABELS.get(outcome.key, outcome.label))
    return outcomes


def _triage(
    cfg: DictConfig, runs: dict[tuple[str, str], str], varying: Sequence[str] = ()
) -> JobOutcome | ValidatedPoint:
    """A point's outcome found without running it (error, n/a, the same as an earlier point, done),
    or, if it is to run, the point validated (:func:`~boostbench.runner.config.validate`, here only:
    its job gets it). ``runs``: the points to run so far, by results directory and key (this one is
    added if it runs); ``varying``: its overrides on the axes with several values (:func:`_label`).
    """
    label, key = "?", ""
    try:
        cfg = complete(cfg, strict=False)  # a short form goes to the points that take it
        label = _label(cfg, varying)
        resolved = resolved_dict(cfg)
        spec = algorithm_spec(str(resolved["algorithm"]["name"]))
        key = run_key(config_hash(resolved, spec), algorithm=spec)
        where = (str(resolved["results_dir"]), key)
        if where in runs:  # e.g. an algorithm that ignores gamma, at its second gamma
            message = f"the same configuration as {runs[where]}, earlier in this grid"
            return JobOutcome("skipped", key, label, 0.0, message)
        if has_record(where[0], key):
            return JobOutcome("skipped", key, label, 0.0)
        run_config = validate(resolved)  # every value and the combination: once, for the points that run
    except NotApplicable as exc:  # a combination the algorithm cannot run (incompatibility)
        return JobOutcome("n/a", key, label, 0.0, str(exc))
    except BoostbenchError as exc:  # a bad value: said once, in the table, before anything runs
        return JobOutcome("error", "", label, 0.0, str(exc))
    runs[where] = GRID_LABELS[key] = label
    return ValidatedPoint(key, label, run_config.resolved)


def _returned(job: Any, point: Sequence[str]) -> JobOutcome:
    """A launched job's outcome; a crash inside it is reported, not hidden."""
    try:
        return job.return_value
    except Exception as exc:
        return JobOutcome("error", "", " ".join(point), 0.0, f"{type(exc).__name__}: {exc}")


def sweep_job(cfg: DictConfig) -> JobOutcome:
    """Run one grid point unless its record exists (the Hydra task function), in this worker's
    runner process (:mod:`boostbench.runner.isolation`): a job that dies there, or runs past
    ``hydra.sweeper.job_timeout``, is recorded as failed and the worker goes on. Its outcome also
    goes to the sweep's progress (:func:`_report`).
    """
    _die_with_the_sweep()
    outcome = _isolated_job(cfg, time.perf_counter())
    _report(outcome)
    return outcome


def _job_in_runner(cfg: DictConfig, began: float, send: Callable[[dict[str, Any]], None]) -> JobOutcome:
    """:func:`_job` in the runner, telling the worker the point's key as soon as it is known."""
    return _job(cfg, began, on_key=lambda key, label: send({"key": key, "label": label}))


def _isolated_job(cfg: DictConfig, began: float) -> JobOutcome:
    """:func:`_job` in the runner; a job that did not return is recorded under ``failed/`` with how
    it ended, and its claim released.
    """
    try:
        return run_isolated(_job_in_runner, (cfg, began), job_timeout())[0]
    except JobDied as died:
        told = next((m for m in died.messages if "key" in m), {"key": "", "label": "?"})
        point = from_job_config(cfg)
        config = point.config if point is not None else resolved_dict(cfg)
        if told["key"]:
            release_dead_claim(config["results_dir"], told["key"])
        seconds = time.perf_counter() - began
        return _record_failure(config["results_dir"], config, told["key"], told["label"], died.cause, seconds)


def _job(cfg: DictConfig, began: float, on_key: Callable[[str, str], None] | None = None) -> JobOutcome:
    """Run one point: the one the sweeper validated and carried here (:mod:`boostbench.runner.point`),
    or, composed here (another sweeper's job), completed and validated first.
    """
    label = "?"
    try:
        point = from_job_config(cfg)
        if point is not None:
            label, key = point.label, point.key
            run_config = run_config_of(point.config, algorithm_spec(str(point.config["algorithm"]["name"])))
            check_caches()  # this machine's (a cluster's node is not the sweep's)
        else:
            cfg = complete(cfg, strict=False)  # a short form goes to the points that take it
            label = _label(cfg)
            run_config = validate(cfg)  # every value, the algorithm's entry and the combination: once
            key = run_key(config_hash(run_config.resolved, run_config.spec), algorithm=run_config.spec)
    except NotApplicable as exc:
        return JobOutcome("n/a", "", label, 0.0, str(exc))
    except BoostbenchError as exc:  # a bad value: said once, in the table, before anything runs
        return JobOutcome("error", "", label, 0.0, str(exc))
    results_dir, config = str(run_config.resolved["results_dir"]), run_config.resolved
    if on_key is not None:
        on_key(key, label)
    with remembered():  # a record found is read and checked once
        try:
            held = claim(results_dir, key)  # None if another sweep finished it since the sweeper looked
        except BoostbenchError as exc:
            return _record_failure(results_dir, config, key, label, exception_reason(exc), time.perf_counter() - began)
        if held is None:
            if has_record(results_dir, key):  # finished meanwhile
                return JobOutcome("skipped", key, label, 0.0)
            return JobOutcome("busy", key, label, 0.0, "the same configuration is running in another job")
    with held:
        try:
            from boostbench.runner.experiment import run_experiment, save  # heavy: not for a skipped job

            save(run_experiment(run_config), results_dir)
        except NotApplicable as exc:  # found once the data set was loaded (its classes)
            return JobOutcome("n/a", key, label, time.perf_counter() - began, str(exc))
        except (Exception, SystemExit) as exc:  # one job's failure, whatever it is, must not sink the sweep
            reason = exception_reason(exc)
            return _record_failure(results_dir, config, key, label, reason, time.perf_counter() - began)
    discard_failure(results_dir, key)
    return JobOutcome("done", key, label, time.perf_counter() - began)


# Where each launcher takes its parallelism (``-j``): joblib's workers, a SLURM job array's
# simultaneous tasks, the CPUs of a local Ray cluster (each job asks for one), and for
# submitit_local, which starts all the jobs it is given at once, the size of the batches Hydra's
# sweeper gives it one after the other.
PARALLELISM = {
    "joblib": "hydra.launcher.n_jobs",
    "submitit_slurm": "hydra.launcher.array_parallelism",
    "ray": "+hydra.launcher.ray.init.num_cpus",
    "submitit_local": "hydra.sweeper.max_batch_size",
}


#: Launchers whose jobs share this machine's cores: at most one job per core, all cores by default
LOCAL_PARALLELISM = ("joblib", "ray", "submitit_local")


def _launcher_overrides(overrides: Sequence[str], n_jobs: int | None) -> list[str]:
    """The launcher (joblib unless ``hydra/launcher=`` names one) and ``-j`` in its own terms.

    Raises:
        ConfigError: ``-j`` for a launcher without a parallelism setting, or above this machine's
            cores for a local one (:data:`LOCAL_PARALLELISM`).
    """
    chosen = [o.partition("=")[2] for o in overrides if o.startswith("hydra/launcher=")]
    launcher = chosen[-1] if chosen else "joblib"
    extra = [] if chosen else ["hydra/launcher=joblib"]
    key = PARALLELISM.get(launcher)
    if key is not None and any(o.lstrip("+").startswith(key.lstrip("+") + "=") for o in overrides):
        return extra  # the user's own setting wins
    cores = usable_cores()
    if n_jobs is None and launcher in ("joblib", "submitit_local"):  # Ray's default is the cores already
        n_jobs = cores
    if n_jobs is not None:
        if launcher in LOCAL_PARALLELISM and n_jobs > cores:
            raise ConfigError(
                f"-j {n_jobs} runs more jobs than this machine's {cores} cores: each run's runtime_s "
                f"would count the others' time; use -j {cores} or fewer"
            )
        if key is None:
            raise ConfigError(
                f"-j has no meaning for hydra/launcher={launcher} (it sets its own parallelism); "
                f"-j works with {', '.join(PARALLELISM)}"
            )
        extra.append(f"{key}={n_jobs}")
    return extra


def _record_failure(
    results_dir: str, config: dict[str, Any], key: str, label: str, reason: str, seconds: float
) -> JobOutcome:
    """The failed job's outcome, its ``reason`` kept in ``failed/<key>.json`` with its resolved
    ``config`` when its key is known (:func:`boostbench.runner.failures.keep_failure`); a later
    sweep runs it again.
    """
    if key:
        keep_failure(results_dir, key, label, reason, config)
    return JobOutcome("error", key, label, seconds, reason)


def failure_line(outcomes: Sequence[JobOutcome], overrides: Sequence[str]) -> str | None:
    """The sweep's closing line naming its failed points (:func:`boostbench.runner.failures.closing_line`)."""
    return closing_line(outcomes, _results_dir(overrides))


def run_sweep(
    overrides: Sequence[str],
    n_jobs: int | None = None,
    on_outcome: Callable[[dict[str, Any]], None] | None = None,
    allow_code: bool = False,
    max_jobs: int | None = None,
    on_size: Callable[[int], None] | None = None,
) -> list[JobOutcome]:
    """Expand ``overrides`` (Hydra sweep syntax: ``a=1,2``, ``seed='range(0,5)'``) and run every job.

    SIGTERM (a scheduler's, ``timeout``'s) ends it as SIGINT does: KeyboardInterrupt, with the
    progress file removed and the claims of its workers released.

    Args:
        overrides: Hydra overrides; ``+experiment=<name>`` adds a paper grid from
            ``configs/experiment/``. A ``hydra/launcher=...`` override replaces the joblib launcher.
        n_jobs: parallel jobs, in the launcher's own terms (:data:`PARALLELISM`; joblib's
            default: the number of cores). An override of that setting wins.
        on_outcome: called in this process as each job ends, wherever it ran, with its outcome
            (``status``, ``label``, ``seconds``, ``message``), through a progress file the jobs
            append to (under ``results_dir``, which a cluster's nodes share).
        on_size: called with the grid's size once the sweeper has counted it (with ``on_outcome``).
        allow_code: accept overrides that run code (:func:`boostbench.runner.checks.check_overrides`).
        max_jobs: the largest grid accepted (None: ``hydra.sweeper.max_jobs``, 100,000).

    Returns:
        Each job's outcome, in the grid's order; a job found busy whose twin in this sweep
        finished it meanwhile is "skipped", one still "busy" runs in another sweep.

    Raises:
        ConfigError: an override does not parse, names an unknown option or runs code (without
            ``allow_code``), an empty results directory or one with a control character, a grid
            above ``max_jobs``, or ``n_jobs`` for a launcher without a parallelism setting or
            above the cores (:func:`_launcher_overrides`).
        KeyboardInterrupt: SIGINT or SIGTERM.
    """
    from hydra.errors import HydraException
    from hydra_zen import launch
    from omegaconf.errors import OmegaConfBaseException

    check_overrides(overrides, allow_code)
    overrides = quote_separators(overrides)
    check_group_overrides(overrides)
    check_job_timeout(overrides)
    store_configs(overrides)  # the chosen plugins' algorithm configs, which the jobs get with Hydra's state
    check_caches()  # here once, in one line (each job checks its own machine's again)
    results_dir = _results_dir(overrides)
    plain = results_dir is not None
    if plain:  # one plain path: checked before any job
        problem = path_problem("results_dir", results_dir)
        if problem is not None:
            raise ConfigError(problem)
        check_writable(results_dir)
        clean_temporaries(results_dir)
        clean_progress_files(results_dir)
        clean_claims(results_dir)  # dead workers' claims, of this grid's points or any other's
    os.environ[SWEEP_PID] = str(os.getpid())  # inherited by the workers
    clean_leftovers()
    extra = ["hydra/hydra_logging=disabled", "hydra/job_logging=disabled", *_launcher_overrides(overrides, n_jobs)]
    if not any(o.startswith("hydra/sweeper=") for o in overrides):
        extra.append("hydra/sweeper=boostbench")  # hydra_plugins/boostbench_sweeper
    if max_jobs is not None:
        extra.append(f"hydra.sweeper.max_jobs={max_jobs}")
    if not any(o.startswith("n_threads=") for o in overrides):
        extra.append("n_threads=1")  # the jobs fill the cores; a run's threads would compete
    # Hydra's sweep folder: a cluster launcher keeps its jobs' logs there (under the results);
    # joblib's is empty folders, made in a temporary place and removed
    local = "hydra/launcher=joblib" in [*overrides, *extra]
    scratch = tempfile.mkdtemp(prefix="boostbench-sweep-") if local else None
    primary = OmegaConf.load(CONFIG_DIR / "config.yaml")
    primary.hydra = {
        "searchpath": [f"file://{CONFIG_DIR}"],
        "job": {"chdir": False},
        "sweep": {"dir": scratch or "${results_dir}/multirun/${now:%Y-%m-%d_%H-%M-%S}", "subdir": "${hydra.job.num}"},
        "output_subdir": None,
    }
    follow = None
    restore = _interrupt_on_sigterm()
    try:
        if on_outcome is not None:
            path, follow = _follow(Path(results_dir) if plain else Path(tempfile.gettempdir()), on_outcome, on_size)
            # Hydra sets it in each job's process, wherever it runs (a reused worker too)
            extra.append(f"+hydra.job.env_set.{SWEEP_PROGRESS}={hydra_quote(str(path))}")
        outcomes = launch(primary, sweep_job, overrides=[*overrides, *extra], multirun=True, version_base="1.3")
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        raise ConfigError(override_message(overrides, " ".join(str(exc).split()), "sweep")) from None
    finally:
        restore()
        if follow is not None:
            follow()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        stop_runner()  # the runner of jobs run in this process (one at a time), if any
        if plain:  # workers killed with an interrupted sweep could not release theirs
            clean_claims(results_dir)
    if outcomes and isinstance(outcomes[0], Sequence):  # another sweeper's batches of Hydra's JobReturn
        outcomes = [_returned(job, getattr(job, "overrides", None) or ["?"]) for batch in outcomes for job in batch]
    if plain:  # a grid point found busy because its twin in this sweep ran it is done now
        outcomes = [
            JobOutcome("skipped", o.key, o.label, o.seconds)
            if o.status == "busy" and o.key and has_record(results_dir, o.key)
            else o
            for o in outcomes
        ]
    return outcomes


def _interrupt_on_sigterm() -> Callable[[], None]:
    """Make SIGTERM raise KeyboardInterrupt, as SIGINT does (in the main thread; elsewhere signals
    cannot be handled); returns the function that puts the previous handler back.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _results_dir(overrides: Sequence[str]) -> str | None:
    """The one results directory of a sweep, as Hydra reads its override (quotes removed, as for
    ``run``); None when it is swept, interpolated or does not parse (Hydra says why later).
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser

    given = [o for o in overrides if o.lstrip("+").startswith("results_dir=")]
    if not given:
        return str(OmegaConf.load(CONFIG_DIR / "config.yaml").results_dir)
    try:
        value = OverridesParser.create().parse_overrides([given[-1]])[0].value()
    except Exception:
        return None
    return value if isinstance(value, str) and "${" not in value else None


def hydra_quote(text: str) -> str:
    """``text`` as a quoted string of Hydra's override grammar: its quotes escaped, with the
    backslashes before them and at its end doubled (other backslashes are literal there).
    """
    escaped = re.sub(r"(\\*)'", lambda m: m.group(1) * 2 + "\\'", text)
    return "'" + re.sub(r"(\\+)$", lambda m: m.group(1) * 2, escaped) + "'"


def clean_progress_files(results_dir: str | os.PathLike, stale_after_s: float = 86400.0) -> int:
    """Remove the progress files (``.sweep-<host>-<pid>.progress``) of sweeps that died (SIGKILL):
    on this machine those of processes that no longer run, from other machines those untouched
    for ``stale_after_s``. Returns how many were removed.
    """
    removed = 0
    for progress in Path(results_dir).glob(".sweep-*.progress"):
        host, _, pid = progress.name[len(".sweep-") : -len(".progress")].rpartition("-")
        removed += remove_if_dead(progress, host, pid, stale_after_s)
    return removed


def _follow(
    directory: Path, on_outcome: Callable[[dict[str, Any]], None], on_size: Callable[[int], None] | None = None
) -> tuple[Path, Callable[[], None]]:
    """Start reading the jobs' progress file (``<directory>/.sweep-<host>-<pid>.progress``) in a
    thread that passes each outcome to ``on_outcome`` (and the grid's size to ``on_size``); returns
    the file and the function that stops the thread (after the last lines) and removes the file.
    """
    import json
    import socket
    import threading

    path = directory / f".sweep-{socket.gethostname()}-{os.getpid()}.progress"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    stop = threading.Event()

    def read() -> None:
        with open(path, encoding="utf-8") as handle:
            pending = ""
            while True:
                finished = stop.is_set()  # read once more after the stop: the last lines
                pending += handle.read()
                *lines, pending = pending.split("\n")
                for line in lines:
                    try:
                        outcome = json.loads(line)
                    except ValueError:
                        continue
                    if "total" in outcome:
                        if on_size is not None:
                            on_size(int(outcome["total"]))
                        continue
                    outcome["label"] = GRID_LABELS.get(outcome.get("key"), outcome["label"])
                    on_outcome(outcome)
                if finished:
                    return
                stop.wait(0.2)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()

    def end() -> None:
        stop.set()
        thread.join()
        path.unlink(missing_ok=True)

    return path, end


def summarize(outcomes: Sequence[JobOutcome]) -> dict[str, Any]:
    """Counts by status."""
    counts: dict[str, Any] = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    return counts
