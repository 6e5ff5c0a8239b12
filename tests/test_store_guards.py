"""Every folder of a store is read with the runs' guards: a FIFO, a device, a directory planted
under a claim's, a failure note's or a temporary file's name neither hangs, nor grows memory,
nor raises."""

from __future__ import annotations

import json
import os
import signal
import socket
from contextlib import contextmanager

import pytest

from boostbench.errors import StoreError
from boostbench.runner.store import (
    claim,
    claim_path,
    clean_claims,
    clean_temporaries,
    discard_failure,
    failure_path,
    iter_failures,
    release_dead_claim,
)

KEY = "0123456789abcdef.fedcba9876543210"


@contextmanager
def no_hang(seconds: int = 20):
    """Fail (rather than hang the suite) when the block takes longer than ``seconds``."""

    def hung(signum, frame):
        raise AssertionError(f"hung for {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_fifo_at_a_claim_is_refused_in_one_line_and_left_alone(tmp_path):
    path = claim_path(tmp_path, KEY)
    path.parent.mkdir()
    os.mkfifo(path)
    with no_hang():
        assert clean_claims(tmp_path) == 0
        assert not release_dead_claim(tmp_path, KEY)
        with pytest.raises(StoreError, match=r"is a FIFO \(named pipe\), not a claim \(remove it\)$"):
            claim(tmp_path, KEY)
    assert path.is_fifo()


@pytest.mark.slow  # a sweep (about 20 s)
def test_a_fifo_at_a_claim_does_not_hang_a_sweep(tmp_path):
    """Done when 6: the point whose claim is a FIFO fails in one line; the sweep ends."""
    from typer.testing import CliRunner

    from boostbench.cli import app
    from boostbench.runner.config import compose_config, config_hash, validate
    from boostbench.system.fingerprint import run_key

    point = ["dataset=balance", "algorithm=vfdt", "seed=0", f"results_dir={tmp_path}"]
    run = validate(compose_config(point))
    key = run_key(config_hash(run.resolved, run.spec), algorithm=run.spec)
    claim_path(tmp_path, key).parent.mkdir()
    os.mkfifo(claim_path(tmp_path, key))
    with no_hang(120):
        result = CliRunner().invoke(app, ["sweep", *point, "-j", "1"])
    assert result.exit_code == 2, result.output
    assert "error: 1 job(s) failed: vfdt balance seed=0" in result.output
    assert json.loads(failure_path(tmp_path, key).read_text())["reason"].endswith("not a claim (remove it)")


def test_a_fifo_or_a_device_link_in_failed_is_skipped(tmp_path):
    from boostbench.reporting.leaderboard import _failures

    folder = tmp_path / "failed"
    folder.mkdir()
    os.mkfifo(folder / "a.json")
    (folder / "b.json").symlink_to("/dev/zero")
    (folder / "c.json").mkdir()
    note = {"key": KEY, "reason": "boom", "config": {"algorithm": {"name": "vfdt"}, "dataset": {"name": "car"}}}
    (folder / "d.json").write_text(json.dumps(note))
    with no_hang():
        assert [path.name for path, _ in iter_failures(tmp_path)] == ["d.json"]
        assert _failures(tmp_path) == {("vfdt", None): "boom", ("vfdt", "car"): "boom"}


def test_directories_named_as_temporary_files_or_notes_are_left_alone(tmp_path):
    """A sweep's cleaners remove only files: a directory named as a dead writer's temporary file,
    or as a failure note, raises nothing."""
    runs = tmp_path / "runs"
    runs.mkdir()
    planted = runs / f".{KEY}.{socket.gethostname()}.999999999.abc.tmp"
    planted.mkdir()
    os.mkfifo(runs / f".x.{socket.gethostname()}.999999998.abd.tmp")
    assert clean_temporaries(tmp_path) == 0
    assert planted.is_dir()
    failure_path(tmp_path, KEY).mkdir(parents=True)
    discard_failure(tmp_path, KEY)
    assert failure_path(tmp_path, KEY).is_dir()
    (tmp_path / "failed" / "other.json").write_text("{}")
    discard_failure(tmp_path, "other")
    assert not (tmp_path / "failed" / "other.json").exists()
