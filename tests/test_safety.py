"""Inputs from shared stores, shared caches and the command line that must not reach a path, run
code or exhaust memory: each refused in one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.errors import ConfigError, DataError, StoreError
from boostbench.runner.checks import MAX_SEED, MIN_TREE_BYTES, check_overrides, name_problem, pool_memory_problem
from boostbench.runner.config import compose_config, group_options, validate
from boostbench.runner.store import claim, claim_path, iter_records, record_path, write_record
from boostbench.system.cache_safety import check_cache_dir, make_private_dirs
from boostbench.system.disk_cache import load_arrays, save_arrays

runner = CliRunner()


def _dead_pid() -> int:
    return int(
        subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout
    )


# -- names that become paths ---------------------------------------------------------------------------


def test_every_shipped_name_is_a_safe_file_name():
    for group in ("dataset", "algorithm", "learner", "protocol"):
        for name in group_options(group):
            assert name_problem(name) is None, name
    assert name_problem("my data (v2)") is not None  # parentheses: not in the set
    assert name_problem("my data-v2.1") is None


@pytest.mark.parametrize(
    "name", ["/tmp/evil", "../../x", "..", ".hidden", "a/b", "a\\b", "", "a\nb", "x" * 129, "ends.", "a..b", 7]
)
def test_a_name_that_would_leave_its_directory_is_refused(name):
    assert name_problem(name) is not None


@pytest.mark.parametrize("override", ["dataset.name=/tmp/evil", "dataset.name=../../x", "+preset=jung_reference"])
def test_validation_refuses_a_name_that_is_a_path(override):
    if override.startswith("+preset"):  # a preset's name is a file name too
        cfg = compose_config([override])
        cfg.preset = "../up"
    else:
        cfg = compose_config([override])
    with pytest.raises(ConfigError, match="cannot name a file"):
        validate(cfg)


def _crafted(tmp_path, dataset_name: str) -> None:
    record = {
        "config": {
            "dataset": {"name": dataset_name},
            "algorithm": {"name": "vfdt"},
            "learner": {"name": "hoeffding_tree"},
            "protocol": {"name": "prequential"},
            "n_learners": 1,
        },
        "metrics": {},
        "config_hash": "0123abcd",
    }
    write_record(record, record_path(tmp_path, "0123abcd"))


def test_a_crafted_record_is_skipped_in_one_line_and_nothing_is_written_outside(tmp_path):
    store = tmp_path / "store"
    _crafted(store, "../../../escaped")
    errors = []
    assert list(iter_records(store, on_error=errors.append)) == []
    assert len(errors) == 1 and "refused" in str(errors[0]) and "0123abcd.json" in str(errors[0])
    result = runner.invoke(app, ["report", "summary", "--results-dir", str(store)])
    assert result.exit_code == 2 and "skipped:" in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_a_record_whose_key_is_a_path_is_refused(tmp_path):
    _crafted(tmp_path, "balance")
    path = record_path(tmp_path, "0123abcd")
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "code": "../../etc"}))
    with pytest.raises(DataError, match="code"):
        list(iter_records(tmp_path))


# -- caches ------------------------------------------------------------------------------------------------


def test_a_cache_file_round_trips_and_a_scrambled_one_is_recomputed(tmp_path, capfd):
    path = tmp_path / "D-k3.npz"
    D = np.arange(12.0).reshape(4, 3)
    assert save_arrays(path, D=D, keys=np.arange(4))
    loaded = load_arrays(path)
    assert np.array_equal(loaded["D"], D) and set(loaded) == {"D", "keys"}
    # the same arrays, rows swapped: a valid npz whose checksum fails
    with np.load(path) as data:
        fields = {name: data[name] for name in data.files}
    fields["D"] = D[::-1].copy()
    np.savez(path, **fields)
    assert load_arrays(path) is None
    assert "fails its checksum" in capfd.readouterr().err


def test_a_cache_file_under_another_key_or_truncated_is_not_used(tmp_path, capfd):
    path = tmp_path / "phi-k3.npz"
    save_arrays(path, values=np.ones(3))
    other = tmp_path / "phi-k4.npz"
    other.write_bytes(path.read_bytes())  # another key's file copied over
    assert load_arrays(other) is None and "another key" in capfd.readouterr().err
    path.write_bytes(path.read_bytes()[:40])
    assert load_arrays(path) is None and "unreadable" in capfd.readouterr().err
    np.savez(path, values=np.ones(3))  # a file from before the format: quietly recomputed
    assert load_arrays(path) is None and capfd.readouterr().err == ""
    assert load_arrays(tmp_path / "missing.npz") is None


def test_a_cache_writable_by_others_is_refused(tmp_path):
    cache = tmp_path / "cache"
    make_private_dirs(cache / "numba" / "abc")
    check_cache_dir(cache)
    (cache / "numba" / "abc").chmod(0o757)
    with pytest.raises(ConfigError, match="writable by other users"):
        check_cache_dir(cache)
    (cache / "numba" / "abc").chmod(0o755)
    open_parent = tmp_path / "open"
    make_private_dirs(open_parent / "cache")
    open_parent.chmod(0o777)  # others could rename the cache away and put theirs in its place
    with pytest.raises(ConfigError, match="parent"):
        check_cache_dir(open_parent / "cache")
    open_parent.chmod(0o1777)  # sticky, as /tmp: nobody renames another's entry
    check_cache_dir(open_parent / "cache")


@pytest.mark.parametrize("other_members", [[], ["stranger"]])
def test_a_cache_writable_by_the_owners_group_is_accepted_only_when_the_group_is_private(
    tmp_path, monkeypatch, other_members
):
    import grp
    import pwd

    owner = pwd.getpwuid(os.geteuid())
    # the group's members as the test needs them, whatever this machine's groups hold
    monkeypatch.setattr(
        grp, "getgrgid", lambda gid: grp.struct_group(("private", "x", gid, [owner.pw_name, *other_members]))
    )
    make_private_dirs(tmp_path / "cache" / "numba")
    os.chown(tmp_path / "cache" / "numba", -1, owner.pw_gid)
    (tmp_path / "cache" / "numba").chmod(0o775)  # what numba makes under umask 002
    if other_members:
        with pytest.raises(ConfigError, match="numba is writable by other users"):
            check_cache_dir(tmp_path / "cache")
    else:
        check_cache_dir(tmp_path / "cache")


def test_cache_directories_are_made_private_whatever_the_umask(tmp_path):
    old = os.umask(0o002)
    try:
        make_private_dirs(tmp_path / "a" / "b")
    finally:
        os.umask(old)
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o755 and (tmp_path / "a" / "b").stat().st_mode & 0o777 == 0o755


def test_validation_refuses_a_shared_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setenv("BOOSTBENCH_CACHE", str(cache))
    result = runner.invoke(app, ["run", "algorithm=vfdt", f"results_dir={tmp_path / 'r'}"])
    assert result.exit_code == 2 and "writable by other users" in result.output
    assert not (tmp_path / "r").exists()


# -- overrides that run code -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "override",
    [
        "+hydra.callbacks.x._target_=builtins.print",
        "+algorithm._target_=os.system",
        "+hydra.job.env_set.LD_PRELOAD=/tmp/x.so",
        "hydra.searchpath=[file:///tmp]",
        "+hydra={callbacks: {}}",
        "+hydra/callbacks=log_job_return",
        "+dataset={_target_: os.system}",
    ],
)
def test_an_override_that_runs_code_needs_the_opt_in(override):
    with pytest.raises(ConfigError, match="--allow-code-overrides"):
        check_overrides([override])
    check_overrides([override], allow_code=True)


def test_ordinary_overrides_pass():
    check_overrides(
        [
            "dataset=car",
            "hydra/launcher=submitit_local",
            "hydra.launcher.timeout_min=5",
            "-j",
            "2",
            "algorithm.vote=soft",
        ]
    )


@pytest.mark.parametrize("command", ["run", "sweep"])
def test_the_cli_refuses_a_callback_in_one_line(command, tmp_path):
    marker = tmp_path / "ran"
    result = runner.invoke(
        app,
        [
            command,
            "+hydra.callbacks.x._target_=pathlib.Path.touch",
            f"+hydra.callbacks.x.self={marker}",
            f"results_dir={tmp_path}",
        ],
    )
    assert result.exit_code == 2 and "--allow-code-overrides" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not marker.exists()


# -- keys, paths, seeds, memory ----------------------------------------------------------------------------


@pytest.mark.parametrize("section", ["algorithm", "dataset", "learner", "protocol"])
def test_an_undeclared_nested_key_is_refused(section):
    with pytest.raises(ConfigError, match=f"'{section}.foo'"):
        validate(compose_config([f"+{section}.foo=1"]))


def test_declared_extras_pass():
    validate(compose_config(["+dataset.max_classes=3"]))
    validate(compose_config(["algorithm=adaboost_olm", "+preset=jung_reference", "dataset=car"]))


@pytest.mark.parametrize(
    "override, message",
    [
        ("results_dir=''", "results_dir is empty"),
        ("results_dir='a\nb'", "control character"),
        ("data_dir=/nonexistent", "does not exist"),
        ("data_dir=/etc/hostname", "is not a directory"),
        (f"seed={MAX_SEED + 1}", "at most 2147483647"),
        ("seed=99999999999999999999", "at most"),
        (f"protocol.shuffle_seed={2**32}", "protocol.shuffle_seed must be at most"),
    ],
)
def test_paths_and_seeds_are_checked(override, message):
    with pytest.raises(ConfigError, match=message):
        validate(compose_config([override]))


def test_the_largest_seed_passes(tmp_path):
    validate(compose_config([f"seed={MAX_SEED}", f"data_dir={tmp_path}"]))


def test_a_pool_beyond_memory_is_refused_before_it_is_built():
    cfg = compose_config(["n_learners=100000"])
    from boostbench.runner.config import resolved_dict

    config = resolved_dict(cfg)
    message = pool_memory_problem(config, available=10 * 2**20)
    assert message.startswith("n_learners=100000: 100,000 trees need at least") and "0.0 GiB available" in message
    assert pool_memory_problem(config, available=2**40) is None
    with pytest.raises(ConfigError, match="n_learners=100000000"):
        validate(compose_config(["n_learners=100000000"]))


@pytest.mark.parametrize("backend", ["compiled", "river"])
def test_a_tree_takes_at_least_the_bound_the_memory_check_assumes(backend):
    import tracemalloc

    from boostbench.learners.registry import make_pool

    cfg = validate(compose_config([f"learner.backend={backend}"])).learner
    make_pool(cfg, 1, 2, [0], np.random.default_rng(0))  # imports and compiles: not the trees' memory
    n = 64
    tracemalloc.start()
    pool = make_pool(cfg, n, 2, [0], np.random.default_rng(0))  # 2 classes, one numeric attribute
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    if backend == "compiled":  # its arrays, whatever else the construction allocated
        size = sum(value.nbytes for value in vars(pool).values() if isinstance(value, np.ndarray))
    assert pool.n_learners == n and size / n >= MIN_TREE_BYTES


def test_a_memory_error_at_the_boundary_is_one_line(monkeypatch, tmp_path):
    import boostbench.runner.experiment

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(boostbench.runner.experiment, "run_experiment", exhausted)
    result = runner.invoke(app, ["run", "algorithm=vfdt", f"results_dir={tmp_path}"])
    assert result.exit_code == 2 and result.output.startswith("error: out of memory")
    assert len(result.output.strip().splitlines()) == 1


# -- claims, busy jobs, progress files ---------------------------------------------------------------------


def test_out_of_space_while_claiming_leaves_no_claim(tmp_path, monkeypatch):
    import errno

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StoreError, match="No space left"):
        claim(tmp_path, "abc")
    assert list((tmp_path / "claims").iterdir()) == []


def test_an_empty_claim_is_taken_over_once_its_write_is_overdue(tmp_path):
    path = claim_path(tmp_path, "abc")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")  # a writer that died between the create and the write
    assert claim(tmp_path, "abc") is None  # just made: its writer may be writing
    old = time.time() - 60
    os.utime(path, (old, old))
    taken = claim(tmp_path, "abc")
    assert taken is not None
    taken.release()


def test_dead_sweeps_progress_files_are_removed(tmp_path):
    from boostbench.runner.sweep import clean_progress_files

    host = socket.gethostname()
    dead, live, elsewhere = (
        tmp_path / f".sweep-{host}-{_dead_pid()}.progress",
        tmp_path / f".sweep-{host}-{os.getpid()}.progress",
        tmp_path / ".sweep-node-7-1.progress",
    )
    for path in (dead, live, elsewhere):
        path.write_text("")
    assert clean_progress_files(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, elsewhere.name])


@pytest.mark.parametrize("text", ["/tmp/a b", "/tmp/it's", '/tmp/q"x', "C:\\dir\\", "a\\'b", "${x}"])
def test_a_path_quoted_for_hydra_reads_back_as_it_was(text):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from boostbench.runner.sweep import hydra_quote

    assert OverridesParser.create().parse_overrides([f"key={hydra_quote(text)}"])[0].value() == text


def test_a_sweep_in_a_quoted_directory_ends_busy_with_exit_1(tmp_path):
    """A directory with a space and a quote, as ``run`` takes it; a grid point another live
    process holds is reported, and the sweep exits 1 naming it."""
    from boostbench.runner.config import config_hash
    from boostbench.system.fingerprint import run_key

    results = tmp_path / 'my "results" it\'s'
    quoted = "results_dir='" + str(results).replace("'", "\\'") + "'"
    grid = ["algorithm=vfdt", "learner.backend=river", quoted]  # river's trees: no kernels to compile
    held = claim(results, run_key(config_hash(compose_config([*grid, "seed=1"]))))
    try:
        result = runner.invoke(app, ["sweep", *grid, "seed=0,1", "-j", "1"])
    finally:
        held.release()
    assert result.exit_code == 1, result.output
    assert "1 job(s) still running in another sweep (vfdt balance seed=1)" in " ".join(result.output.split())
    assert len(list((results / "runs").glob("*.json"))) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [results.name]
    assert not list(results.glob(".sweep-*"))
