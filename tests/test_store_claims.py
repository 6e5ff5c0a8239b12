"""The store's claims: one worker per grid point without flock (network filesystems), dead
workers' claims taken over, nothing left beside the records."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
import time

from conftest import valid_record

from boostbench.runner.store import claim, claim_path, iter_records, read_record, record_path, write_record


def test_a_claim_is_exclusive_and_released(tmp_path):
    first = claim(tmp_path, "abc")
    assert first is not None and claim_path(tmp_path, "abc").exists()
    assert claim(tmp_path, "abc") is None  # held by a live worker (this process)
    owner = json.loads(claim_path(tmp_path, "abc").read_text())
    assert owner["pid"] == os.getpid() and owner["host"]
    first.release()
    assert not claim_path(tmp_path, "abc").exists()
    with claim(tmp_path, "abc") as again:
        assert again is not None
    assert list((tmp_path / "claims").iterdir()) == []


def test_a_finished_record_wins(tmp_path):
    key = valid_record()["config_hash"]
    write_record(valid_record(), record_path(tmp_path, key))
    assert claim(tmp_path, key) is None
    assert not claim_path(tmp_path, key).exists()


def test_a_dead_workers_claim_is_taken_over(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    path = claim_path(tmp_path, "abc")
    path.parent.mkdir(parents=True)
    import socket

    path.write_text(json.dumps({"host": socket.gethostname(), "pid": int(dead.stdout), "token": "x"}))
    taken = claim(tmp_path, "abc")  # same machine, its process is gone: at once
    assert taken is not None and json.loads(path.read_text())["pid"] == os.getpid()
    taken.release()


def test_a_silent_claim_from_another_machine_goes_stale(tmp_path):
    path = claim_path(tmp_path, "abc")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"host": "another-node", "pid": 1, "token": "x"}))
    assert claim(tmp_path, "abc", stale_after_s=60) is None  # fresh: its owner may be alive
    old = time.time() - 120
    os.utime(path, (old, old))
    taken = claim(tmp_path, "abc", stale_after_s=60)  # not refreshed for 2 min: taken over
    assert taken is not None
    taken.release()
    assert sorted(p.name for p in path.parent.iterdir()) == []  # no stale file left either


def test_the_owner_refreshes_its_claim(tmp_path):
    held = claim(tmp_path, "abc", refresh_s=0.05)
    old = time.time() - 1000
    os.utime(claim_path(tmp_path, "abc"), (old, old))
    time.sleep(0.3)
    assert time.time() - claim_path(tmp_path, "abc").stat().st_mtime < 5
    assert claim(tmp_path, "abc", stale_after_s=60) is None
    held.release()


def _race(directory, key, start, results, everyone_tried):
    while time.time() < start:
        pass
    held = claim(directory, key)
    results.put(held is not None)
    everyone_tried.wait(timeout=60)  # hold it until all have tried, however late the scheduler ran them
    if held is not None:
        held.release()


def test_racing_workers_one_wins(tmp_path):
    context = mp.get_context("fork")
    results, everyone_tried = context.Queue(), context.Barrier(8)
    start = time.time() + 0.5
    workers = [context.Process(target=_race, args=(tmp_path, "abc", start, results, everyone_tried)) for _ in range(8)]
    for worker in workers:
        worker.start()
    won = [results.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join()
    assert sum(won) == 1


def test_the_read_api_names_a_bad_record(tmp_path):
    good = valid_record()["config_hash"]
    write_record(valid_record(), record_path(tmp_path, good))
    record_path(tmp_path, "bad").write_text('{"config": {')
    assert read_record(tmp_path, good).config_hash == good
    bad = []
    assert [r.config_hash for r in iter_records(tmp_path, on_error=bad.append)] == [good]
    assert len(bad) == 1 and "bad.json" in str(bad[0])


def test_a_reused_pid_does_not_keep_a_claim_alive(tmp_path):
    """The claim records when its process started: another process with the same pid is not it."""
    path = claim_path(tmp_path, "abc")
    path.parent.mkdir(parents=True)
    import socket

    path.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "process_start": -1, "token": "x"}))
    taken = claim(tmp_path, "abc")
    assert taken is not None
    taken.release()


def test_a_killed_writers_temporary_file_is_cleaned(tmp_path):
    import socket

    from boostbench.runner.store import clean_temporaries

    dead = int(
        subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout
    )
    runs = tmp_path / "runs"
    runs.mkdir()
    host = socket.gethostname()
    (runs / f".abc.{host}.{dead}.x1y2.tmp").write_text("{")  # killed mid-write
    (runs / f".abd.{host}.{os.getpid()}.x1y2.tmp").write_text("{")  # a live writer's
    (runs / ".abe.other-node.7.x1y2.tmp").write_text("{")  # another machine's, fresh
    assert clean_temporaries(tmp_path) == 1
    assert sorted(p.name for p in runs.iterdir()) == [
        f".abd.{host}.{os.getpid()}.x1y2.tmp",
        ".abe.other-node.7.x1y2.tmp",
    ]
    key = valid_record()["config_hash"]
    write_record(valid_record(), record_path(tmp_path, key))
    assert (runs / f"{key}.json").exists() and len(list(runs.glob(f".{key}.*"))) == 0


_HOLD = """
import signal, sys, time
from boostbench.runner.store import claim
if sys.argv[2] == "bypass":  # a process that outlives SIGTERM (submitit's jobs log it and go on)
    signal.signal(signal.SIGTERM, lambda signum, frame: print("bypassed", flush=True))
held = claim(sys.argv[1], "abc")
print("held", flush=True)
time.sleep(30)
print("woke", flush=True)
"""


def _held_then_terminated(tmp_path, mode: str) -> subprocess.CompletedProcess:
    process = subprocess.Popen([sys.executable, "-c", _HOLD, str(tmp_path), mode], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "held\n"
    process.send_signal(15)
    if mode == "bypass":
        assert process.stdout.readline() == "bypassed\n"
        assert claim_path(tmp_path, "abc").exists()  # it runs on: its claim stays
        process.kill()
    process.wait(timeout=30)
    return process


def test_sigterm_releases_the_claim_then_ends_the_process(tmp_path):
    process = _held_then_terminated(tmp_path, "default")
    assert process.returncode == -15  # ended by SIGTERM, as without a claim
    assert not claim_path(tmp_path, "abc").exists()


def test_a_process_that_handles_sigterm_keeps_its_claim(tmp_path):
    _held_then_terminated(tmp_path, "bypass")


def test_claims_of_gone_workers_are_cleaned_and_live_ones_kept(tmp_path):
    import socket

    from boostbench.runner.store import clean_claims

    dead = int(
        subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout
    )
    host = socket.gethostname()
    owners = {
        "dead": {"host": host, "pid": dead, "token": "a"},
        "live": {"host": host, "pid": os.getpid(), "token": "b"},
        "elsewhere-fresh": {"host": "another-node", "pid": 1, "token": "c"},
        "elsewhere-silent": {"host": "another-node", "pid": 1, "token": "d"},
    }
    for name, owner in owners.items():
        path = claim_path(tmp_path, name)
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(owner))
    old = time.time() - 700
    os.utime(claim_path(tmp_path, "elsewhere-silent"), (old, old))
    (tmp_path / "claims" / "interrupted.stale-x").write_text(json.dumps(owners["dead"]))  # a takeover's, killed
    assert clean_claims(tmp_path) == 3
    assert sorted(p.name for p in (tmp_path / "claims").iterdir()) == ["elsewhere-fresh.claim", "live.claim"]
