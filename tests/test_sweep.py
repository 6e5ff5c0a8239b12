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
from boostbench.runner.sweep import run_sweep, summarize

GRID = ["dataset=balance", "algorithm=vfdt,online_boosting,online_mbbm", "gamma=0.1,0.05", "seed=0,1", "n_learners=2"]


def records(path: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((path / "runs").glob("*.json"))]


@pytest.mark.slow  # make test-slow
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
    outcome = summarize(
        run_sweep(["dataset=balance", "algorithm=vfdt,ada_olmr", "n_learners=1", f"results_dir={tmp_path}"], n_jobs=1)
    )
    assert outcome == {"done": 1, "n/a": 1}


def test_sweep_rejects_unknown_options(tmp_path):
    with pytest.raises(ConfigError, match="unknown dataset 'nope'"):
        run_sweep(["dataset=balance,nope", f"results_dir={tmp_path}"])


@pytest.mark.slow  # make test-slow
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
    outcome = summarize(
        run_sweep(
            [
                "dataset=balance",
                "algorithm=vfdt",
                "seed=0,1",
                "n_learners=1",
                "hydra.launcher.n_jobs=1",
                f"results_dir={tmp_path}",
            ]
        )
    )
    assert outcome == {"done": 2}


def test_jobs_flag_speaks_each_launchers_language():
    from boostbench.runner.sweep import _launcher_overrides

    cores = len(os.sched_getaffinity(0))
    assert _launcher_overrides([], cores) == ["hydra/launcher=joblib", f"hydra.launcher.n_jobs={cores}"]
    assert _launcher_overrides(["hydra.launcher.n_jobs=1"], 3) == ["hydra/launcher=joblib"]  # the user's wins
    assert _launcher_overrides(["hydra/launcher=submitit_slurm"], 64) == ["hydra.launcher.array_parallelism=64"]
    assert _launcher_overrides(["hydra/launcher=ray"], 1) == ["+hydra.launcher.ray.init.num_cpus=1"]
    # submitit_local starts what it is given at once: batches of at most the cores
    assert _launcher_overrides(["hydra/launcher=submitit_local"], None) == [f"hydra.sweeper.max_batch_size={cores}"]
    assert _launcher_overrides(["hydra/launcher=submitit_local"], 1) == ["hydra.sweeper.max_batch_size=1"]
    with pytest.raises(ConfigError, match="-j has no meaning for hydra/launcher=basic"):
        _launcher_overrides(["hydra/launcher=basic"], 2)


def test_a_failing_job_is_recorded_and_does_not_sink_the_sweep(tmp_path, monkeypatch):
    import boostbench.runner.experiment as experiment

    real = experiment.run_experiment

    def flaky(cfg, *args, **kwargs):
        if cfg.seed == 1:
            raise RuntimeError("boom")
        return real(cfg, *args, **kwargs)

    monkeypatch.setattr(experiment, "run_experiment", flaky)
    grid = ["dataset=balance", "algorithm=vfdt", "seed=0,1,2", f"results_dir={tmp_path}", "hydra.launcher.n_jobs=1"]
    outcomes = run_sweep(grid)
    assert summarize(outcomes) == {"done": 2, "error": 1}
    failed = next(o for o in outcomes if o.status == "error")
    assert failed.message.startswith("RuntimeError: boom (test_sweep.py:")
    note = json.loads((tmp_path / "failed" / f"{failed.key}.json").read_text())
    assert note["reason"] == failed.message and note["config"]["seed"] == 1
    monkeypatch.setattr(experiment, "run_experiment", real)  # fixed: the next sweep runs what failed
    assert summarize(run_sweep(grid)) == {"done": 1, "skipped": 2}
    assert not list((tmp_path / "failed").iterdir())


def test_a_corrupt_record_is_run_again(tmp_path):
    grid = ["dataset=balance", "algorithm=vfdt", "seed=0,1", f"results_dir={tmp_path}", "hydra.launcher.n_jobs=1"]
    run_sweep(grid)
    first = sorted((tmp_path / "runs").glob("*.json"))
    numbers = json.loads(first[0].read_text())["metrics"]["final_accuracy"]
    first[0].write_text(first[0].read_text()[:100])  # truncated, e.g. by a full disk outside our writes
    assert summarize(run_sweep(grid)) == {"done": 1, "skipped": 1}
    assert json.loads(first[0].read_text())["metrics"]["final_accuracy"] == numbers


def test_a_results_dir_that_cannot_be_written_fails_before_any_work(tmp_path):
    from boostbench.errors import StoreError

    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    with pytest.raises(StoreError, match=r"not_a_dir.* is not a directory"):
        run_sweep(["dataset=balance", "algorithm=vfdt", f"results_dir={blocker}"])


def test_a_user_file_changed_in_place_runs_again(tmp_path):
    data = tmp_path / "mine.csv"
    rows = ["a,b,label"] + [f"{i % 7},{i % 3},{'x' if i % 2 else 'y'}" for i in range(60)]
    data.write_text("\n".join(rows) + "\n")
    grid = [
        "dataset=csv",
        f"dataset.file={data}",
        "dataset.class_column=label",
        "algorithm=vfdt",
        f"results_dir={tmp_path / 'results'}",
        "hydra.launcher.n_jobs=1",
    ]
    assert summarize(run_sweep(grid)) == {"done": 1}
    assert summarize(run_sweep(grid)) == {"skipped": 1}
    data.write_text("\n".join(rows[:40]) + "\n")  # the same name, other contents
    assert summarize(run_sweep(grid)) == {"done": 1}
    runs = records(tmp_path / "results")
    assert sorted(r["metrics"]["n_examples"] for r in runs) == [39, 60]
    assert {r["config"]["dataset"]["name"] for r in runs} == {"mine"}


def test_report_names_a_corrupt_record_and_goes_on(tmp_path):
    from typer.testing import CliRunner

    from boostbench.cli import app

    run_sweep(
        [
            "dataset=balance",
            "algorithm=vfdt,best_vfdt",
            "n_learners=2",
            f"results_dir={tmp_path}",
            "hydra.launcher.n_jobs=1",
        ]
    )
    bad = sorted((tmp_path / "runs").glob("*.json"))[0]
    bad.write_text("{")
    result = CliRunner().invoke(app, ["report", "jung2017_table1", "--results-dir", str(tmp_path), "--n-learners", "2"])
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and bad.name in " ".join(result.output.split())


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:  # after "pid (comm)": state, ppid
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and has not exited (an unreaped zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(condition, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
def test_workers_die_with_the_sweep(tmp_path):
    """SIGKILL to the sweep's main process alone: its workers stop too (no record written later)."""
    # jobs long enough (tens of seconds) that a worker outliving the sweep is still running at the
    # check, or has written its record by then
    grid = ["dataset=nursery", "algorithm=adaboost_olm", "seed=range(0,4)", "n_learners=100"]
    command = [sys.executable, "-m", "boostbench", "sweep", *grid, f"results_dir={tmp_path}", "-j", "2"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # a claim is taken once a worker has tied its life to the sweep's and begun its job
        assert _wait_for(lambda: len(list((tmp_path / "claims").glob("*.claim"))) == 2, 300), "no jobs started"
        workers = _children(process.pid)
    finally:
        process.kill()  # the main process only, not its group
        process.wait()
    assert len(workers) >= 2
    _wait_for(lambda: not any(map(_running, workers)), 60)
    survivors = [pid for pid in workers if _running(pid)]
    for pid in survivors:  # a failed check leaves nothing running
        os.kill(pid, signal.SIGKILL)
    assert not survivors, "workers went on after the sweep died"
    assert records(tmp_path) == [], "a worker finished its job after the sweep died"


def test_leftovers_of_dead_sweeps_are_cleaned(tmp_path):
    from boostbench.runner.sweep import clean_leftovers

    dead = int(
        subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout
    )
    (tmp_path / f"joblib_memmapping_folder_{dead}_abc_def").mkdir()
    (tmp_path / f"sem.loky-{dead}-xyz").write_bytes(b"")
    (tmp_path / f"joblib_memmapping_folder_{os.getpid()}_abc_def").mkdir()  # a live sweep's
    (tmp_path / "someone_elses_file").write_bytes(b"")
    assert clean_leftovers(tmp_path) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"joblib_memmapping_folder_{os.getpid()}_abc_def",
        "someone_elses_file",
    ]


def test_the_code_fingerprint_follows_the_numeric_sources_only(tmp_path):
    import shutil

    from boostbench.system.fingerprint import sources_digest
    from boostbench.system.paths import PACKAGE_DIR

    copy = tmp_path / "boostbench"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = sources_digest(copy)
    (copy / "reporting" / "tables.py").write_text(
        "# how a table is drawn\n",
        encoding="utf-8",
    )
    assert sources_digest(copy) == before  # drawing tables computes no number
    peer = sources_digest(copy, peer=True)
    with open(copy / "boosters" / "adaboost_olm.py", "a", encoding="utf-8") as handle:
        handle.write("\n# a change to a booster\n")
    assert sources_digest(copy) != before
    assert sources_digest(copy, peer=True) == peer  # a peer never runs our boosters
    for shared in ("protocols/prequential.py", "boosters/peers/moa_peers.py", "learners/pool.py"):
        ours, theirs = sources_digest(copy), sources_digest(copy, peer=True)
        with open(copy / shared, "a", encoding="utf-8") as handle:
            handle.write("\n# a change\n")
        changed = (sources_digest(copy) != ours, sources_digest(copy, peer=True) != theirs)
        # the protocol runs both; a peer's wrapper the peers only; our trees ours only
        assert (
            changed
            == {"protocols": (True, True), "boosters": (False, True), "learners": (True, False)}[shared.split("/")[0]]
        ), shared


def test_a_peer_is_fingerprinted_by_the_peers_code_and_ours_by_ours():
    from boostbench.algorithms import algorithm_spec
    from boostbench.system.fingerprint import code_fingerprint, fingerprints

    peers = {code_fingerprint(algorithm_spec(name)) for name in ("river_adaboost", "moa_ozaboost", "moa_ozabag_ml")}
    ours = {code_fingerprint(algorithm_spec(name)) for name in ("adaboost_olm", "vfdt", "ada_olmr")}
    assert len(peers) == len(ours) == 1 and peers != ours
    assert fingerprints() == peers | ours and code_fingerprint() in ours


def test_a_code_change_reruns_a_finished_config_and_reports_prefer_the_new_code(tmp_path, monkeypatch):
    import boostbench.system.fingerprint as fingerprint
    from boostbench.reporting.records import load_runs

    grid = ["dataset=balance", "algorithm=vfdt", "seed=0", f"results_dir={tmp_path}"]
    assert summarize(run_sweep(grid, n_jobs=1)) == {"done": 1}  # n_jobs=1: in this process
    assert summarize(run_sweep(grid, n_jobs=1)) == {"skipped": 1}
    old = fingerprint.code_fingerprint()
    import boostbench.runner.experiment as experiment

    for module in (fingerprint, experiment):  # what a code change does to every process
        monkeypatch.setattr(module, "code_fingerprint", lambda algorithm=None: "0123456789abcdef")
    monkeypatch.setattr(fingerprint, "fingerprints", lambda: frozenset({"0123456789abcdef"}))
    assert summarize(run_sweep(grid, n_jobs=1)) == {"done": 1}  # new code: the old record is not reused
    assert sorted(r["code"] for r in records(tmp_path)) == sorted([old, "0123456789abcdef"])
    runs = load_runs(tmp_path)
    assert len(runs) == 1 and runs["code"].iloc[0] == "0123456789abcdef"
    monkeypatch.undo()
    assert load_runs(tmp_path)["code"].iloc[0] == old


def test_sweep_progress_reaches_the_caller_from_every_worker_and_counts_the_grid(tmp_path):
    grid = ["dataset=balance,car", "algorithm=vfdt", "seed=0,1", f"results_dir={tmp_path}"]
    seen, sizes = [], []
    outcomes = run_sweep(grid, n_jobs=2, on_outcome=seen.append, on_size=sizes.append)  # joblib: other processes
    assert sizes == [4]  # the sweeper's count, once
    assert sorted(o["label"] for o in seen) == sorted(o.label for o in outcomes)
    assert {o["status"] for o in seen} == {"done"}
    assert not list(tmp_path.glob(".sweep-*"))  # the progress file is gone
    experiment = ["+experiment=jung2017_table1", "seed=range(0,2)", f"results_dir={tmp_path}"]
    with pytest.raises(ConfigError, match=f"the grid has {5 * 4 * 5 * 2 * 2} jobs"):  # counted, nothing built
        run_sweep(experiment, max_jobs=1)


def test_a_resumed_sweeps_eta_counts_the_pace_of_the_runs_alone(tmp_path):
    from boostbench.cli import eta_minutes

    run_sweep(["dataset=balance", "algorithm=vfdt", "seed=0,1", f"results_dir={tmp_path}"], n_jobs=1)
    seen = []
    grid = ["dataset=balance", "algorithm=vfdt", "seed=0,1,2", f"results_dir={tmp_path}"]
    run_sweep(grid, n_jobs=1, on_outcome=seen.append)
    # what the ETA assumes: the points done before are all reported before any that runs
    assert [o["status"] for o in seen] == ["skipped", "skipped", "done"]
    # a resumed 1,323-point grid: 760 ended, of which 2 ran, in 600 s: 563 runs of 300 s to come
    assert eta_minutes(600.0, 2, 760, 1323) == pytest.approx(563 * 300 / 60)
    assert eta_minutes(5.0, 0, 760, 1323) == pytest.approx(5.0 * 563 / 60)  # none ran yet: no division by 0


def test_more_jobs_than_cores_is_refused_for_a_local_launcher(tmp_path):
    with pytest.raises(ConfigError, match="more jobs than this machine's"):
        run_sweep(["dataset=balance", f"results_dir={tmp_path}"], n_jobs=len(os.sched_getaffinity(0)) + 1)


# -- the grid: counted before it is built, composed once per choice of groups ------------------------


def test_a_grid_is_counted_without_being_built():
    from boostbench.runner.grid import axis_length, grid_axes, grid_size

    began = time.process_time()
    assert grid_size(grid_axes(["seed=range(0,100000000)", "dataset=balance,car"])) == 200_000_000
    assert time.process_time() - began < 2.0  # arithmetic, not a list of 10^8 points
    (axis,) = grid_axes(["gamma=range(0.1,0.45,0.05)"])
    assert axis_length(axis) == len(list(axis.sweep_string_iterator())) == 7  # a float range, exactly
    assert grid_size(grid_axes(["algorithm=vfdt", "seed=range(5,0)"])) == 0


def test_a_grid_above_the_bound_is_refused_in_one_line(tmp_path):
    with pytest.raises(ConfigError, match=r"the grid has 100,000,000 jobs, more than hydra.sweeper.max_jobs=100,000"):
        run_sweep(["seed=range(0,100000000)", f"results_dir={tmp_path}"])
    with pytest.raises(ConfigError, match=r"has 12 jobs, more than hydra.sweeper.max_jobs=10 \('seed=range\(0,6\)'"):
        run_sweep(["dataset=balance,car", "seed=range(0,6)", f"results_dir={tmp_path}"], max_jobs=10)
    assert not (tmp_path / "runs").exists()


def test_the_grid_is_hydras_basic_sweepers(tmp_path):
    """The points and their order are those Hydra's basic sweeper expands (the last axis fastest,
    a later value of a key in the earlier one's place)."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from boostbench.runner.grid import grid_axes, grid_points

    params = {"dataset": "balance,car", "seed": "range(0,3)", "+preset": "paper,jung_reference"}
    arguments = ["algorithm=vfdt,online_boosting", "seed=4,5", "gamma=choice(0.1,0.05)", "n_learners=3"]
    (expected,) = BasicSweeper.split_arguments(
        OverridesParser.create().parse_overrides([*(f"{k}={v}" for k, v in params.items()), *arguments]), None
    )
    assert list(grid_points(grid_axes(arguments, params))) == expected
    assert len(expected) == 2 * 2 * 2 * 2 * 2


@pytest.mark.parametrize("experiment", ["stream_benchmark", "multilabel_benchmark"])
def test_a_benchmarks_grid_finishes_each_seed_before_the_next(experiment):
    """A benchmark's seed is hours of runs, published as it completes: its grid runs seed by seed,
    the experiment's ten and a command line's fewer alike.
    """
    from omegaconf import OmegaConf

    from boostbench.runner.grid import grid_axes, grid_points
    from boostbench.system.paths import CONFIG_DIR

    params = OmegaConf.load(CONFIG_DIR / "experiment" / f"{experiment}.yaml").hydra.sweeper.params
    for arguments, seeds in (([], list(range(10))), (["seed=range(0,3)"], [0, 1, 2])):
        order = [
            int(line.split("=", 1)[1])
            for point in grid_points(grid_axes(arguments, params))
            for line in point
            if line.startswith("seed=")
        ]
        assert len(order) > len(seeds) and order == sorted(order) and sorted(set(order)) == seeds


@pytest.mark.parametrize(
    "overrides",
    [
        ["dataset=car", "algorithm=online_mbbm", "gamma=0.05", "seed=3"],
        ["+preset=jung_reference", "dataset=balance", "algorithm=adaboost_olm", "seed=1"],
        ["dataset=csv", "dataset.file='/tmp/a,b.csv'", "dataset.class_column=label", "algorithm=vfdt"],
        ["dataset=balance", "protocol=kfold", "algorithm=samme", "learner=tree", "n_rounds=5", "~learner.max_depth"],
        ["dataset=balance", "+dataset.extra=[1,2]", "progress=false", "results_dir='a b'", "hydra.job.name=x"],
    ],
)
def test_a_jobs_config_is_what_hydra_composes(overrides):
    """Hydra's loader is the reference: the reusing loader's config is equal to it, Hydra node and all."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode
    from omegaconf import OmegaConf

    from boostbench.runner.grid import ReusingConfigLoader
    from boostbench.system.paths import CONFIG_DIR

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        hydra = GlobalHydra.instance()
        master = hydra.hydra.compose_config(
            "config", ["+experiment=smoke", "hydra/sweeper=boostbench"], run_mode=RunMode.MULTIRUN, from_shell=False
        )
        reference = hydra.config_loader()
        loader = ReusingConfigLoader(reference)
        for seed in (7, 8):  # the second from what the first composed
            point = [*overrides, f"seed={seed}"]
            expected = OmegaConf.to_container(reference.load_sweep_config(master, point))
            assert OmegaConf.to_container(loader.load_sweep_config(master, point)) == expected
            job = OmegaConf.to_container(loader.load_job_config(master, point))
            assert job == {k: v for k, v in expected.items() if k != "hydra"}


def test_a_done_point_is_never_launched_and_a_twin_runs_once(tmp_path, monkeypatch):
    import boostbench.runner.sweep as sweep

    grid = ["dataset=balance", "algorithm=vfdt", "gamma=0.1,0.05", "seed=0,1", f"results_dir={tmp_path}"]
    launched = []
    real = sweep.sweep_job
    monkeypatch.setattr(sweep, "sweep_job", lambda cfg: launched.append(cfg.seed) or real(cfg))
    outcomes = run_sweep(grid, n_jobs=1)
    assert summarize(outcomes) == {"done": 2, "skipped": 2}  # vfdt ignores gamma: its twins are skipped
    assert sorted(launched) == [0, 1]
    twin = next(o for o in outcomes if o.status == "skipped")
    assert twin.message == "the same configuration as vfdt balance seed=0 gamma=0.1, earlier in this grid"
    launched.clear()
    assert summarize(run_sweep(grid, n_jobs=1)) == {"skipped": 4}
    assert launched == []  # found done in the sweep's process: no job, no worker


def test_a_job_checks_its_config_once(tmp_path, monkeypatch):
    import boostbench.algorithms as algorithms
    import boostbench.runner.config as config
    import boostbench.runner.experiment as experiment
    from boostbench.runner.sweep import _job

    counts = {"algorithm_spec": 0, "incompatibility": 0}

    def counted(module, name):
        real = getattr(module, name)

        def call(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, call)

    counted(algorithms, "algorithm_spec")
    counted(config, "incompatibility")
    monkeypatch.setattr(experiment, "run_experiment", lambda run: {"config_hash": "0" * 16, "code": "0" * 16})
    monkeypatch.setattr(experiment, "save", lambda record, results_dir: None)
    cfg = config.compose_config(["dataset=balance", "algorithm=vfdt", f"results_dir={tmp_path}"])
    config.validate(cfg)
    alone = dict(counts)
    assert _job(cfg, time.perf_counter()).status == "done"
    assert alone["incompatibility"] == 1
    assert {name: counts[name] - alone[name] for name in counts} == alone  # the job: validate's checks, no more


# -- SIGTERM as SIGINT; no claim left for good ---------------------------------------------------------


def _sweep_until_two_claims(tmp_path) -> subprocess.Popen:
    """A sweep (-j 2, its own process group) of jobs long enough to be caught mid-run."""
    grid = ["dataset=nursery", "algorithm=adaboost_olm", "seed=range(0,4)", "n_learners=100"]
    command = [sys.executable, "-m", "boostbench", "sweep", *grid, f"results_dir={tmp_path}", "-j", "2"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if not _wait_for(lambda: len(list((tmp_path / "claims").glob("*.claim"))) == 2, 300):
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("no jobs started")
    return process


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and process groups are Linux's")
@pytest.mark.parametrize("whom", ["group", "sweep"])
def test_sigterm_ends_a_sweep_as_sigint_does(tmp_path, whom):
    """``timeout`` and schedulers signal the whole group (``group``), ``kill`` the sweep alone."""
    process = _sweep_until_two_claims(tmp_path)
    try:
        if whom == "group":
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, stderr
    assert "interrupted; finished runs are kept" in stderr.decode()
    assert list((tmp_path / "claims").iterdir()) == []
    assert not list(tmp_path.glob(".sweep-*.progress"))


def test_a_dead_workers_claim_outside_the_next_grid_is_removed(tmp_path):
    import socket

    dead = int(
        subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout
    )
    claims = tmp_path / "claims"
    claims.mkdir()
    (claims / "0123456789abcdef.0123456789abcdef.claim").write_text(
        json.dumps({"host": socket.gethostname(), "pid": dead, "token": "x"})
    )
    live = claims / "fedcba9876543210.0123456789abcdef.claim"  # another sweep's, running
    live.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "token": "y"}))
    assert summarize(run_sweep(["dataset=balance", "algorithm=vfdt", f"results_dir={tmp_path}"], n_jobs=1)) == {
        "done": 1
    }
    assert [p.name for p in claims.iterdir()] == [live.name]


def test_a_workers_collection_skips_what_outlives_runs_and_frees_what_earlier_runs_left(monkeypatch):
    """A sweep worker's garbage collection before each run scans only what came since the last
    (the rest is frozen); what was frozen alive and died in a cycle (a job's config) is freed once
    the frozen objects have grown enough for a full collection."""
    import weakref

    import boostbench.system.resources as resources

    class Node:
        pass

    def cycle() -> tuple[weakref.ref, Node]:
        node = Node()
        node.me = node
        return weakref.ref(node), node

    resources.collect_garbage()
    monkeypatch.setattr(resources, "FROZEN_GROWTH", float("inf"))  # no full collection until said
    young, node = cycle()
    del node
    resources.collect_garbage()
    assert young() is None  # garbage since the last freeze: collected, as always
    frozen, node = cycle()
    resources.collect_garbage()  # alive now: frozen, as a job's config is at its run's start
    del node
    resources.collect_garbage()
    assert frozen() is not None  # frozen garbage waits for a full collection
    monkeypatch.setattr(resources, "FROZEN_GROWTH", 0.0)  # as after enough jobs
    resources.collect_garbage()
    assert frozen() is None
