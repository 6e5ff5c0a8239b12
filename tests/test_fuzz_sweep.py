"""Property: whatever is planted in a store's folders (FIFOs, directories, links to devices or out
of the store, garbage, under the names of claims, failure notes, records and temporary files), the
store's readers and cleaners end at once without an exception of their own; and whatever a sweep's
jobs do (return, raise, exit, die by a signal, sleep past their limit), each is told as what it
did, its runner recovers, and the rest of the grid runs (make fuzz runs these at length)."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boostbench.errors import DataError, StoreError
from boostbench.runner.isolation import JobDied, run_isolated, stop_runner
from boostbench.runner.store import (
    claim,
    clean_claims,
    clean_temporaries,
    discard_failure,
    has_record,
    iter_failures,
    iter_records,
    release_dead_claim,
)

KEY = "0123456789abcdef.fedcba9876543210"
HOST = socket.gethostname()
#: Where a store's readers and cleaners look, by the names they look for
NAMES = [
    f"claims/{KEY}.claim",
    "claims/other.claim",
    f"failed/{KEY}.json",
    "failed/note.json",
    f"runs/{KEY}.json",
    f"runs/.{KEY}.{HOST}.999999999.x1.tmp",
    f"runs/.{KEY}.elsewhere.1.x2.tmp",
]
KINDS = ["fifo", "directory", "dev_zero", "outside", "dangling", "garbage", "empty", "claim_json"]


def _plant(store: Path, name: str, kind: str, garbage: bytes) -> bool:
    """Whether ``kind`` was planted at ``name`` (not when an earlier plant holds the name)."""
    path = store / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        return False
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
        (path / "inside").write_bytes(garbage)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "outside":
        (store.parent / "outside.json").write_text(json.dumps({"key": KEY}))
        path.symlink_to(store.parent / "outside.json")
    elif kind == "dangling":
        path.symlink_to(store / "nowhere")
    elif kind == "claim_json":
        path.write_text(json.dumps({"host": HOST, "pid": 999999999, "token": "t"}))
    else:
        path.write_bytes(garbage if kind == "garbage" else b"")
    return True


@given(
    st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(KINDS)), min_size=1, max_size=6),
    st.binary(max_size=64),
)
def test_planted_store_entries_never_hang_raise_or_grow(planted, garbage):
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "store"
        planted = [(name, kind) for name, kind in planted if _plant(store, name, kind, garbage)]
        began = time.monotonic()
        clean_claims(store)
        clean_temporaries(store)
        list(iter_failures(store))
        list(iter_records(store, on_error=lambda exc: None))
        assert has_record(store, KEY) is False
        release_dead_claim(store, KEY)
        discard_failure(store, KEY)
        try:
            held = claim(store, KEY)
        except (StoreError, DataError):
            held = None
        if held is not None:
            held.release()
        assert time.monotonic() - began < 10
        for name, kind in planted:  # what is no file of ours is left where it was
            if kind in ("fifo", "directory"):
                assert os.path.lexists(store / name), (name, kind)


# -- jobs in their runner ------------------------------------------------------------------------------

#: What a job may do, and how the worker tells it
BEHAVIOURS = {
    "returns": None,
    "raises": None,
    "exits": "the job's process exited with status 7",
    "system_exit": "the job raised SystemExit(8)",
    "sigkill": "the job's process died by signal SIGKILL (out of memory",
    "segfault": "the job's process died by signal SIGSEGV",
    "sleeps": "the job ran past its time limit of 0.2 s",
}


def _behave(behaviour: str, send) -> str:
    send({"behaviour": behaviour})
    if behaviour == "raises":
        raise ValueError("a job's own error")
    if behaviour == "exits":
        os._exit(7)
    if behaviour == "system_exit":
        sys.exit(8)
    if behaviour == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if behaviour == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if behaviour == "sleeps":
        time.sleep(60)
    return f"{behaviour} in {os.getpid()}"


def _raising(behaviour: str, send) -> str:
    """A job that catches its own errors, as :func:`boostbench.runner.sweep._job` does."""
    try:
        return _behave(behaviour, send)
    except ValueError as exc:
        return f"caught {exc}"


@given(st.lists(st.sampled_from(sorted(BEHAVIOURS)), min_size=1, max_size=4))
def test_each_job_is_told_as_what_it_did_and_the_runner_recovers(behaviours):
    try:
        for behaviour in behaviours:
            try:
                result, messages = run_isolated(_raising, (behaviour,), timeout_s=0.2)
            except JobDied as died:
                assert BEHAVIOURS[behaviour] is not None and died.cause.startswith(BEHAVIOURS[behaviour])
                assert died.messages == [{"behaviour": behaviour}]
                continue
            assert BEHAVIOURS[behaviour] is None and messages == [{"behaviour": behaviour}]
            assert result == ("caught a job's own error" if behaviour == "raises" else result)
            assert int(result.rpartition(" ")[2] if behaviour == "returns" else 0) != os.getpid()
        assert run_isolated(_raising, ("returns",))[0].startswith("returns in ")
    finally:
        stop_runner()


# -- a sweep of a faulty plugin ------------------------------------------------------------------------

FAULTY = """
import os
import signal
import sys
import time

from boostbench.boosters.base import OnlineBooster


class Faulty(OnlineBooster):
    def __init__(self, pool, n_classes, rng, *, fault: str = "none"):
        super().__init__(pool, n_classes, rng)
        self.fault = fault

    def predict_proba(self, x):
        self._xp = self.pool.prepare(x)
        return self.pool.predict_proba(self._xp).mean(axis=0)

    def update(self, y, w=1.0):
        if self.fault == "exit":
            os._exit(3)
        if self.fault == "systemexit":
            sys.exit(4)
        if self.fault == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if self.fault == "raise":
            raise RuntimeError("a plugin's bug")
        if self.fault == "sleep":
            time.sleep(3600)
"""
FAULTS = {
    "none": None,
    "exit": "the job's process exited with status 3",
    "systemexit": "SystemExit: 4",
    "segfault": "the job's process died by signal SIGSEGV",
    "raise": "RuntimeError: a plugin's bug",
    "sleep": "the job ran past its time limit of 20 s",
}


@pytest.fixture(scope="module")
def faulty_plugin(tmp_path_factory):
    from hydra.core.config_store import ConfigStore

    from boostbench.algorithms import ALGORITHMS

    root = tmp_path_factory.mktemp("site")
    (root / "faulty_boosting").mkdir()
    (root / "faulty_boosting" / "__init__.py").write_text(textwrap.dedent(FAULTY))
    info = root / "faulty_boosting-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: faulty-boosting\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[boostbench.algorithms]\nfaulty = faulty_boosting:Faulty\n")
    stored = dict(ConfigStore.instance().repo.get("algorithm", {}))
    sys.path.insert(0, str(root))
    ALGORITHMS.refresh()
    yield
    sys.path.remove(str(root))
    ALGORITHMS.refresh()
    sys.modules.pop("faulty_boosting", None)
    ConfigStore.instance().repo["algorithm"] = stored


@pytest.mark.slow  # a sweep per example (make fuzz runs it, make test-slow too)
@settings(max_examples=3 if settings.default.max_examples < 100 else 12)  # a sweep: seconds each
@given(st.lists(st.sampled_from(sorted(FAULTS)), min_size=2, max_size=4, unique=True))
def test_a_sweep_of_faulty_jobs_records_each_and_runs_the_rest(faulty_plugin, faults):
    from boostbench.runner.sweep import run_sweep

    with tempfile.TemporaryDirectory() as store:
        grid = [
            "algorithm=faulty",
            f"algorithm.fault={','.join(faults)}",
            "dataset=balance",
            "learner.backend=river",
            "n_learners=2",
            "protocol.max_examples=30",
            f"results_dir={store}",
            "hydra.launcher.n_jobs=1",
            "hydra.sweeper.job_timeout=20",
        ]
        outcomes = run_sweep(grid)
        assert len(outcomes) == len(faults)
        notes = {note["config"]["algorithm"]["fault"]: note["reason"] for _, note in iter_failures(store)}
        for fault, outcome in zip(faults, outcomes, strict=True):
            if FAULTS[fault] is None:
                assert outcome.status == "done" and has_record(store, outcome.key)
            else:
                assert outcome.status == "error" and outcome.message.startswith(FAULTS[fault])
                assert notes[fault] == outcome.message
        assert not list(Path(store, "claims").iterdir())
