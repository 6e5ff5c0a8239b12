"""Inputs from shared stores, shared caches and the command line that must not reach a path, run
code or exhaust memory: each refused in one line."""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import valid_record
from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.errors import ConfigError, DataError, StoreError
from boostbench.reporting.records import load_runs
from boostbench.runner.checks import MAX_SEED, MIN_TREE_BYTES, check_overrides, name_problem, pool_memory_problem
from boostbench.runner.config import compose_config, group_options, validate
from boostbench.runner.store import MAX_RECORD_BYTES, claim, claim_path, iter_records, record_path, write_record
from boostbench.system.cache_safety import UntrustedFile, check_cache_dir, make_private_dirs, open_trusted
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


def _crafted(tmp_path, dataset_name: str) -> str:
    """A record whose data set's name is ``dataset_name``, written under its key (returned)."""
    record = valid_record()
    record["config"]["dataset"]["name"] = dataset_name
    write_record(record, record_path(tmp_path, record["config_hash"]))
    return record["config_hash"]


def test_a_crafted_record_is_skipped_in_one_line_and_nothing_is_written_outside(tmp_path):
    store = tmp_path / "store"
    key = _crafted(store, "../../../escaped")
    errors = []
    assert list(iter_records(store, on_error=errors.append)) == []
    assert len(errors) == 1 and "refused" in str(errors[0]) and f"{key}.json" in str(errors[0])
    result = runner.invoke(app, ["report", "summary", "--results-dir", str(store)])
    assert result.exit_code == 2 and "skipped:" in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_a_record_whose_key_is_a_path_is_refused(tmp_path):
    key = _crafted(tmp_path, "balance")
    path = record_path(tmp_path, key)
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "code": "../../etc"}))
    with pytest.raises(DataError, match="code"):
        list(iter_records(tmp_path))


def _store_with(tmp_path, name: str, make) -> tuple:
    """A store holding a genuine record and, beside it, the entry ``name`` that ``make(path,
    record)`` makes; returns the store and the genuine record's key."""
    record = valid_record(metrics={"final_accuracy": 0.5, "n_examples": 10})
    key = record["config_hash"]
    write_record(record, record_path(tmp_path, key))
    make(tmp_path / "runs" / name, record)
    return tmp_path, key


def _json(path, record, **changes) -> None:
    path.write_text(json.dumps({**record, **changes}))


ENTRIES = {
    "a FIFO": ("x.json", lambda path, record: os.mkfifo(path), r"not a valid result record \(it is a FIFO"),
    "/dev/zero": ("x.json", lambda path, record: path.symlink_to("/dev/zero"), "a link out of the store"),
    "a link out": ("x.json", lambda path, record: path.symlink_to("/etc/hostname"), "a link out of the store"),
    "a directory": ("x.json", lambda path, record: path.mkdir(), r"\(it is a directory\)"),
    "too large": ("x.json", lambda path, record: path.write_bytes(b" " * (MAX_RECORD_BYTES + 1)), "larger than 64 MiB"),
    "nested": ("x.json", lambda path, record: path.write_text("[" * 200_000 + "]" * 200_000), "nested too deeply"),
    "nested 40 deep": (
        "x.json",
        lambda path, record: _json(path, record, provenance=functools.reduce(lambda x, _: {"a": x}, range(40), {})),
        "nested deeper than 32 levels",
    ),
    "a word metric": (
        "x.json",
        lambda path, record: _json(path, record, metrics={"final_accuracy": "high"}),
        "metric final_accuracy is 'high', not a number",
    ),
    "NaN": (
        "x.json",
        lambda path, record: path.write_text(json.dumps({**record, "metrics": {"final_accuracy": float("nan")}})),
        "it holds NaN",
    ),
    "1e999": (
        "x.json",
        lambda path, record: path.write_text(json.dumps(record).replace('"metrics": {', '"metrics": {"x": 1e999, ')),
        "metrics.x is inf, not a finite number",
    ),
    "a curve without its x": (
        "x.json",
        lambda path, record: _json(path, record, curve={"cumulative_accuracy": []}),
        "its curve has cumulative_accuracy but no examples_seen",
    ),
    "a seed that is a word": (
        "x.json",
        lambda path, record: _json(path, record, config={**record["config"], "seed": "0"}),
        "config seed is '0', not an integer",
    ),
    "forged": (
        "0000000000000000.json",
        lambda path, record: _json(
            path, record, config_hash="0000000000000000", metrics={"final_accuracy": 0.99, "n_examples": 10}
        ),
        "its config_hash 0000000000000000 is not its config's",
    ),
    "misnamed": ("0000000000000000.json", lambda path, record: _json(path, record), "a record is named"),
    # each measure inside its domain (boostbench.measures)
    "accuracy 7.5": (
        "x.json",
        lambda path, record: _json(path, record, metrics={"final_accuracy": 7.5}),
        r"metric final_accuracy is 7.5, outside \[0, 1\]",
    ),
    "kappa below -1": (
        "x.json",
        lambda path, record: _json(path, record, metrics={"final_kappa": -1.5}),
        r"metric final_kappa is -1.5, outside \[-1, 1\]",
    ),
    "kappa-M above 1": (
        "x.json",
        lambda path, record: _json(path, record, metrics={"final_kappa_m": 1.01}),
        r"metric final_kappa_m is 1.01, outside \(-inf, 1\]",
    ),
    "a negative cost": (
        "x.json",
        lambda path, record: _json(path, record, metrics={"cpu_s": -3.0}),
        r"metric cpu_s is -3.0, outside \[0, inf\)",
    ),
    "a fold's error of 2": (
        "x.json",
        lambda path, record: _json(path, record, metrics={"fold_test_error": [0.1, 2.0]}),
        r"metric fold_test_error is 2.0, outside \[0, 1\] \(in its list\)",
    ),
    "a curve point of 1.5": (
        "x.json",
        lambda path, record: _json(path, record, curve={"examples_seen": [1], "cumulative_accuracy": [1.5]}),
        r"its curve cumulative_accuracy is 1.5, outside \[0, 1\]",
    ),
    "a newer schema": (
        "x.json",
        lambda path, record: _json(path, record, schema_version=99),
        "written by a newer boostbench",
    ),
}


@pytest.mark.parametrize("case", sorted(ENTRIES))
def test_a_store_entry_that_is_not_a_record_is_skipped_in_one_line(tmp_path, case):
    name, make, message = ENTRIES[case]
    store, key = _store_with(tmp_path, name, make)
    signal.alarm(30)  # a FIFO must not hang the reader
    try:
        errors = []
        assert [r.config_hash for r in iter_records(store, on_error=errors.append)] == [key]
    finally:
        signal.alarm(0)
    assert len(errors) == 1 and str(errors[0]).startswith(f"{tmp_path / 'runs' / name}: "), errors
    assert re.search(message, str(errors[0])) and len(str(errors[0]).splitlines()) == 1, errors[0]
    runs = load_runs(store, on_error=lambda exc: None)
    assert runs["final_accuracy"].tolist() == [0.5]  # a forged record never replaces the genuine one
    result = runner.invoke(app, ["report", "summary", "--results-dir", str(store), "--out-dir", str(tmp_path / "out")])
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert " ".join(result.output.split()).count("skipped:") == 1


def test_a_metric_without_a_value_counts_in_neither_the_mean_nor_the_seeds(tmp_path):
    from boostbench.reporting.summary import summarize

    for seed, kappa in ((0, 0.2), (1, 0.4), (2, None)):
        record = valid_record(seed, metrics={"final_accuracy": 0.5, "final_kappa": kappa, "runtime_s": 1.0})
        write_record(record, record_path(tmp_path, record["config_hash"]))
    row = summarize(load_runs(tmp_path), "final_kappa").iloc[0]
    assert row["n_seeds"] == 2 and row["mean"] == pytest.approx(0.3)
    assert summarize(load_runs(tmp_path)).iloc[0]["n_seeds"] == 3


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


def test_a_cache_writable_by_others_or_under_such_a_parent_is_refused(tmp_path):
    cache = tmp_path / "cache"
    make_private_dirs(cache / "numba" / "abc")
    check_cache_dir(cache)
    (cache / "numba" / "abc").chmod(0o757)  # inside: its files are checked as they are read
    check_cache_dir(cache)
    cache.chmod(0o757)
    with pytest.raises(ConfigError, match=r"cache .*cache is writable by other users"):
        check_cache_dir(cache)
    cache.chmod(0o755)
    open_parent = tmp_path / "open"
    make_private_dirs(open_parent / "cache")
    open_parent.chmod(0o777)  # others could rename the cache away and put theirs in its place
    with pytest.raises(ConfigError, match="parent"):
        check_cache_dir(open_parent / "cache")
    open_parent.chmod(0o1777)  # sticky, as /tmp: nobody renames another's entry
    check_cache_dir(open_parent / "cache")


def test_a_cache_that_is_a_link_is_checked_where_it_leads(tmp_path):
    """A link to a private folder under a parent others can write: that parent could swap it."""
    shared = tmp_path / "shared"
    make_private_dirs(shared / "cache")
    (shared / "cache").chmod(0o700)
    shared.chmod(0o777)
    make_private_dirs(tmp_path / "mine")
    (tmp_path / "mine" / "cache").symlink_to(shared / "cache")
    with pytest.raises(ConfigError, match=r"its parent .*shared is writable by other users"):
        check_cache_dir(tmp_path / "mine" / "cache")
    shared.chmod(0o755)
    check_cache_dir(tmp_path / "mine" / "cache")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_cache_of_another_user_is_refused(tmp_path):
    make_private_dirs(tmp_path / "cache")
    os.chown(tmp_path / "cache", 65534, -1)
    with pytest.raises(ConfigError, match="is another user's"):
        check_cache_dir(tmp_path / "cache")


@pytest.mark.parametrize("other_members", [[], ["stranger"]])
def test_a_cache_writable_by_the_owners_group_is_trusted_only_when_the_group_is_private(
    tmp_path, monkeypatch, other_members
):
    import grp
    import pwd

    owner = pwd.getpwuid(os.geteuid())
    # the group's members as the test needs them, whatever this machine's groups hold
    monkeypatch.setattr(
        grp, "getgrgid", lambda gid: grp.struct_group(("private", "x", gid, [owner.pw_name, *other_members]))
    )
    folder = tmp_path / "cache" / "numba"
    make_private_dirs(folder)
    os.chown(folder, -1, owner.pw_gid)
    folder.chmod(0o775)  # what numba makes under umask 002
    (folder / "k.nbi").write_bytes(b"x")
    if other_members:
        with pytest.raises(UntrustedFile, match="numba, which is writable by other users"):
            open_trusted(folder / "k.nbi")
    else:
        open_trusted(folder / "k.nbi").close()


def _saved(folder) -> tuple:
    path = folder / "phi-k3.npz"
    assert save_arrays(path, values=np.arange(5.0))
    return path


@pytest.mark.parametrize(
    "plant, reason",
    [
        (lambda path: path.chmod(0o666), "is writable by other users"),
        (lambda path: path.parent.chmod(0o777), "lies in .*, which is writable by other users"),
        (lambda path: path.parent.chmod(0o1777), "lies in .*, which is writable by other users"),
        (lambda path: (path.unlink(), os.mkfifo(path)), r"is a FIFO \(named pipe\), not a regular file"),
        (lambda path: (path.unlink(), path.symlink_to("/dev/zero")), "is a character device, not a regular file"),
    ],
)
def test_a_cache_file_another_user_could_have_written_is_recomputed(tmp_path, capfd, plant, reason):
    path = _saved(tmp_path)
    assert load_arrays(path)["values"].tolist() == [0, 1, 2, 3, 4]
    plant(path)
    assert load_arrays(path) is None
    err = capfd.readouterr().err
    assert re.search(f"cache file {path} {reason}: not used, recomputed", err) and len(err.splitlines()) == 1, err


def test_a_cache_file_reached_through_a_link_to_an_open_folder_is_recomputed(tmp_path, capfd):
    """A link inside the cache to a folder anyone can write: the file is checked where it lies."""
    cache = tmp_path / "cache"
    make_private_dirs(cache)
    open_folder = tmp_path / "open"
    path = _saved(open_folder)
    open_folder.chmod(0o777)
    (cache / "potentials").symlink_to(open_folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOOSTBENCH_CACHE", str(cache))
        assert load_arrays(cache / "potentials" / path.name) is None
    assert f"lies in {cache / 'potentials'}, which is writable by other users" in capfd.readouterr().err


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_cache_file_of_another_user_is_recomputed(tmp_path, capfd):
    path = _saved(tmp_path)
    os.chown(path, 65534, -1)
    assert load_arrays(path) is None and "is another user's" in capfd.readouterr().err


def test_no_byte_flip_of_a_cache_file_raises(tmp_path, capfd):
    """Every byte of the zip's and arrays' headers flipped, and a sample of the rest: the arrays
    come back whole or not at all (one warning), never an exception (numpy's header parser raised
    TokenError, NotImplementedError...)."""
    path = tmp_path / "D-k3.npz"
    D = np.arange(600.0).reshape(200, 3)
    save_arrays(path, D=D, keys=np.arange(200))
    good = path.read_bytes()
    positions = [*range(0, 400), *range(400, len(good), 37), *range(len(good) - 200, len(good))]
    for position in positions:
        for flip in (0x01, 0x80):
            scrambled = bytearray(good)
            scrambled[position] ^= flip
            path.write_bytes(bytes(scrambled))
            loaded = load_arrays(path)
            assert loaded is None or np.array_equal(loaded["D"], D), position
    assert "Traceback" not in capfd.readouterr().err


_KERNEL_MODULE = """
from boostbench.system.kernel_cache import kernel


@kernel
def add(a, b):
    return a + b
"""
_KERNEL_RUN = (
    "import sys; sys.path.insert(0, sys.argv[1]); import tiny; print(tiny.add(2, 3), tiny.add.stats.cache_hits)"
)


class _Planted:
    """A pickle that would create a file when loaded."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def test_a_kernel_cache_file_that_cannot_be_trusted_or_read_is_compiled_afresh(tmp_path):
    """numba's index is a pickle: one another user could have written is never read, and a garbled
    or scrambled one (LLVM aborts on some scrambled machine code) is compiled afresh, with one
    warning; the files written again are trusted by the next run."""
    import pickle

    import numba

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tiny.py").write_text(_KERNEL_MODULE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "kernels")}

    def run() -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", _KERNEL_RUN, str(tmp_path / "src")], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stdout.startswith("5 "), done.stderr
        return done.stdout, done.stderr

    assert run()[1] == ""
    (index,) = (tmp_path / "kernels").rglob("*.nbi")
    (data,) = (tmp_path / "kernels").rglob("*.nbc")
    assert index.stat().st_mode & 0o777 == 0o644 and "int64, int64): 1" in run()[0]  # loaded from the cache
    marker = tmp_path / "ran"
    with open(index, "wb") as handle:  # numba's version stamp, then the planted pickle
        pickle.dump(numba.__version__, handle, protocol=-1)
        handle.write(pickle.dumps(_Planted(marker)))
    index.chmod(0o666)
    out, err = run()
    assert not marker.exists() and "Counter()" in out
    assert err == (
        f"warning: kernel cache file {index} is writable by other users: not loaded; compiled afresh and saved "
        f"anew (as is any other such file, without a further warning)\n"
    )
    assert index.stat().st_mode & 0o777 == 0o644 and run()[1] == ""  # replaced: trusted again
    good = data.read_bytes()
    index.write_bytes(b"\x80\x05garbage")
    assert "nbi is unreadable (UnpicklingError" in run()[1]
    scrambled = bytearray(good)
    scrambled[len(good) // 2] ^= 0x10
    data.write_bytes(bytes(scrambled))
    assert "nbc fails its seal" in run()[1]


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
        (f"results_dir=/tmp/{'x' * 256}/r", "is 256 bytes, more than the 255 a file system takes"),
        (f"results_dir='/tmp/{'é' * 128}'", "is 256 bytes"),
        (f"results_dir=/{'a/' * 2048}", "longer than a path may be"),
        ("results_dir=[a,b]", r"results_dir must be one directory, a string, not \['a', 'b'\]"),
        ("data_dir={a:1}", r"data_dir must be one directory, a string, not \{'a': 1\}"),
        ("data_dir=[a,b]", "data_dir must be one directory"),  # before a data file is looked for
    ],
)
def test_paths_and_seeds_are_checked(override, message):
    with pytest.raises(ConfigError, match=message):
        validate(compose_config([override]))


@pytest.mark.parametrize(
    "override, message",
    [
        ("protocol.shuffle='false'", r"protocol.shuffle must be true or false, got 'false' \(a quoted string"),
        ("protocol.shuffle=null", "protocol.shuffle must be true or false, got null"),
        ("protocol.final_fraction='0.3'", "protocol.final_fraction must be a number in"),
        ("learner.max_size='64'", r"learner.max_size must be a number > 0 or null, got '64' \(a quoted string"),
        ("progress='no'", "progress must be one of true, false, got 'no'"),
        ("dataset.header='false'", r"dataset.header must be one of true, false, got 'false' \(a quoted"),
        ("+dataset.max_classes=0", "dataset.max_classes must be an integer >= 2, got 0"),
        ("+dataset.max_classes=1", "dataset.max_classes must be an integer >= 2, got 1"),
        ("dataset.sep=''", "dataset.sep must be one of null, whitespace"),
        ("dataset.sep=ab", "dataset.sep must be .* a string of 1 character, got 'ab'"),
        ("dataset.columns=[a,a,b,c,d]", "dataset.columns must be a list of distinct items"),
        ("dataset.drop_columns=x", "dataset.drop_columns must be a list"),
        ("+dataset.decimal=';'", "dataset.decimal must be one of ., ,"),
    ],
)
def test_a_value_of_another_type_is_refused_never_converted(override, message):
    with pytest.raises(ConfigError, match=message):
        validate(compose_config([override]))


def test_a_boolean_is_honoured_as_written():
    assert validate(compose_config(["protocol.shuffle=false"])).protocol.shuffle is False
    assert validate(compose_config(["learner.max_size=64"])).learner.max_size == 64.0


DELETIONS = ["~learner.max_size", "~algorithm", "~dataset", "~learner", "~protocol", "~seed", "~algorithm.name"]


@pytest.mark.parametrize("override", DELETIONS)
@pytest.mark.parametrize("command", ["run", "sweep"])
def test_deleting_a_key_or_a_group_is_refused_in_one_line(tmp_path, command, override):
    result = runner.invoke(app, [command, override, f"results_dir={tmp_path}"])
    key = override[1:]
    assert result.exit_code == 2 and f"error: override '{override}' deletes '{key}'" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not list(tmp_path.iterdir())


@pytest.mark.parametrize("key", ["algorithm", "seed", "n_learners"])
def test_a_config_without_a_key_is_refused(key):
    from boostbench.runner.config import resolved_dict

    config = resolved_dict(compose_config([]))
    del config[key]
    with pytest.raises(ConfigError, match=f"missing configuration key '{key}'"):
        validate(config)
    config = resolved_dict(compose_config([]))
    del config["algorithm"]["name"]
    with pytest.raises(ConfigError, match=r"missing configuration key 'algorithm\.name'"):
        validate(config)


@pytest.mark.parametrize("out_dir", ["/etc/passwd", "/etc/passwd/below", "/proc/version"])
def test_a_report_refuses_an_out_dir_that_is_no_directory_in_one_line(tmp_path, out_dir):
    record = valid_record(metrics={"final_accuracy": 0.5})
    write_record(record, record_path(tmp_path, record["config_hash"]))
    result = runner.invoke(app, ["report", "summary", "--results-dir", str(tmp_path), "--out-dir", out_dir])
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and f"error: cannot write the report under {out_dir}:" in output
    assert "is not a directory" in output and "Traceback" not in output


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
