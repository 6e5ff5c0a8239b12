"""The result store: one JSON record per run, written atomically, keyed by config hash.

Layout: ``<results_dir>/runs/<config hash>.json``. Everything that reads or writes records goes
through this module: :func:`write_record`, :func:`read_record`, :func:`iter_records`. A store may
be shared, so its reader trusts no entry: it opens only regular files of bounded size, never
following a link out of the store, parses them with a bound on nesting, and checks each record's
shape, measures and hash (:mod:`boostbench.runner.record`); anything else is refused in one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from boostbench.errors import DataError, StoreError
from boostbench.runner.record import RunRecord
from boostbench.system.files import atomic_write_text, file_kind, umask, writable_dir_problem

#: The largest record read (a record with a split protocol's kept weights is some MiB)
MAX_RECORD_BYTES = 64 * 2**20


def runs_dir(results_dir: str | os.PathLike) -> Path:
    """The folder of a store's records: ``<results_dir>/runs``."""
    return Path(results_dir) / "runs"


def record_path(results_dir: str | os.PathLike, config_hash: str) -> Path:
    """Where the record of the run with ``config_hash`` lives: ``<results_dir>/runs/<hash>.json``."""
    return runs_dir(results_dir) / f"{config_hash}.json"


def read_entry(path: Path, limit: int = MAX_RECORD_BYTES) -> bytes:
    """The bytes of the store entry ``path`` (a record, a failure note, a claim), read with the
    guards of every store folder.

    Raises:
        OSError: it cannot be opened.
        ValueError: it is no regular file (a FIFO must not hang a report: opened without blocking),
            a link out of its folder, or larger than ``limit`` bytes (``/dev/zero``).
    """
    target = Path(os.path.realpath(path))
    if target.parent != Path(os.path.realpath(path.parent)):
        raise ValueError(f"it is a link out of the store (to {target})")
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ValueError(f"it is {file_kind(mode)}")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"it is larger than {limit // 2**20 or limit} {'MiB' if limit >= 2**20 else 'bytes'}")
    return data


def _regular(path: Path) -> bool:
    """Whether ``path`` itself (not followed) is a regular file: the only kind a store's cleaners
    remove or read (a directory, FIFO or device planted under a store's name is left alone).
    """
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _no_constant(name: str) -> None:
    raise ValueError(f"it holds {name}, which no record is written with")


def _load(path: Path) -> RunRecord:
    key = _remembered_key(path)
    if key is not None and key in _REMEMBERED[-1]:
        return _REMEMBERED[-1][key]
    try:
        data = json.loads(read_entry(path).decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise DataError(f"{path}: not a valid result record (nested too deeply)") from None
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise DataError(f"{path}: not a valid result record ({reason})") from None
    try:
        record = RunRecord.parse(data, path)
    except ValueError as exc:
        raise DataError(f"{path}: {exc}") from None
    if key is not None:
        _REMEMBERED[-1][key] = record
    return record


# The records read while :func:`remembered` is open, by path and file identity: one command (a
# report) reads and checks each record once however many of its parts ask for it
_REMEMBERED: list[dict[tuple, RunRecord]] = []


def _remembered_key(path: Path) -> tuple | None:
    if not _REMEMBERED:
        return None
    try:
        info = path.stat()
    except OSError:
        return None
    return (str(path), info.st_ino, info.st_size, info.st_mtime_ns)


@contextlib.contextmanager
def remembered() -> Iterator[None]:
    """Within it, a record read once is not read again (nor checked): it is remembered until the
    block ends, unless its file changes. For one command over a store (``report``).
    """
    _REMEMBERED.append({})
    try:
        yield
    finally:
        _REMEMBERED.pop()


def has_record(results_dir: str | os.PathLike, config_hash: str) -> bool:
    """Whether the run's record exists and reads as one (a truncated or foreign file does not
    count: the run is done again and the file replaced).
    """
    try:
        read_record(results_dir, config_hash)
    except DataError:
        return False
    return True


def check_writable(results_dir: str | os.PathLike) -> None:
    """Before any work: can records be written under ``results_dir``?

    Raises:
        StoreError: it is not a directory, or is read-only (the message names it and the reason).
    """
    problem = writable_dir_problem(runs_dir(results_dir))  # creates nothing: the run may not happen
    if problem is not None:
        raise StoreError(f"cannot write results under {results_dir}: {problem}")


def read_record(results_dir: str | os.PathLike, config_hash: str) -> RunRecord:
    """The record of the run with ``config_hash`` (its store key).

    Raises:
        DataError: missing or not a valid record (the path is named).
    """
    return _load(record_path(results_dir, config_hash))


def iter_records(
    results_dir: str | os.PathLike, on_error: Callable[[DataError], None] | None = None
) -> Iterator[RunRecord]:
    """Every record of a store, in file-name order.

    Args:
        on_error: called with the error of a record that cannot be read, which is then skipped;
            None: the error is raised.

    Raises:
        DataError: an unreadable record, without ``on_error``.
    """
    for path in sorted(runs_dir(results_dir).glob("*.json")):
        try:
            yield _load(path)
        except DataError as exc:
            if on_error is None:
                raise
            on_error(exc)


def clean_temporaries(results_dir: str | os.PathLike, stale_after_s: float = 3600.0) -> int:
    """Remove the temporary files of record writes that never finished (a writer killed mid-write):
    on this machine those of dead processes, from other machines those older than ``stale_after_s``.
    Returns how many were removed.
    """
    removed = 0
    for temporary in runs_dir(results_dir).glob(".*.tmp"):
        parts = temporary.name.split(".")  # "", stem, host..., pid, random, "tmp"
        if remove_if_dead(temporary, ".".join(parts[2:-3]), parts[-3], stale_after_s):
            removed += 1
    return removed


def remove_if_dead(path: Path, host: str, pid: str, stale_after_s: float) -> bool:
    """Remove ``path``, a file of process ``pid`` on ``host`` (parsed from its name), if that
    writer is gone: on this machine its process no longer runs; from another machine the file was
    not touched for ``stale_after_s``. Returns whether it was removed.
    """
    import socket
    import time

    try:
        stale = (
            not process_alive(int(pid))
            if host == socket.gethostname()
            else time.time() - path.stat().st_mtime > stale_after_s
        )
    except (ValueError, OSError):
        return False  # not ours, or gone meanwhile
    if not stale or not _regular(path):  # a directory or FIFO named as ours is no file of ours
        return False
    try:
        path.unlink()
    except OSError:
        return False
    return True


def write_record(record: dict[str, Any], path: Path) -> Path:
    """Write one run record as JSON to ``path`` atomically (NaN and infinity are refused).

    Raises:
        StoreError: the write failed (disk full, read-only...); no file is left half-written.
    """
    text = json.dumps(record, indent=1, sort_keys=True, allow_nan=False) + "\n"
    try:
        return atomic_write_text(path, text)
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}; nothing was written") from None


def failures_dir(results_dir: str | os.PathLike) -> Path:
    """The folder of a store's failure notes: ``<results_dir>/failed``."""
    return Path(results_dir) / "failed"


def failure_path(results_dir: str | os.PathLike, config_hash: str) -> Path:
    """``<results_dir>/failed/<hash>.json``: why the last attempt at a run failed (removed when it
    succeeds).
    """
    return failures_dir(results_dir) / f"{config_hash}.json"


#: The largest failure note or claim read (a note holds a reason and a config: some KiB)
MAX_NOTE_BYTES = 2**20


def discard_failure(results_dir: str | os.PathLike, config_hash: str) -> None:
    """Remove the failure note of a run that succeeded (a file only: anything else planted there
    is left as it is).
    """
    path = failure_path(results_dir, config_hash)
    if _regular(path) or os.path.islink(path):
        try:
            path.unlink()
        except OSError:
            pass


def iter_failures(results_dir: str | os.PathLike) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each failure note of a store (``failed/*.json``, in name order) that reads as a JSON
    object, with its path, read with the guards of :func:`read_entry` (no FIFO, device, link out
    of the folder or note above :data:`MAX_NOTE_BYTES`); others are skipped.
    """
    for path in sorted(failures_dir(results_dir).glob("*.json")):
        try:
            note = json.loads(read_entry(path, MAX_NOTE_BYTES).decode("utf-8"), parse_constant=_no_constant)
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(note, dict):
            yield path, note


# -- claims: one worker per grid point, on any filesystem -----------------------------------------
# A sweep's workers may run on many machines that share the store over NFS, where flock() is
# unreliable. A claim is a file created with O_EXCL (atomic on NFS v3 and later) that names its
# owner; the owner refreshes its time while it runs, a claim not refreshed for ``stale_after_s``
# is taken over (its owner died: SIGKILL, pre-emption, a lost node), and it is removed when the
# job ends. A finished record always wins: nobody claims a grid point whose record exists.

CLAIM_STALE_AFTER_S = 600.0  # a claim this long without a refresh is a dead worker's
# a claim still empty or unparseable this long after it was made was never completed (its writer
# ran out of space or died between the create and the write, which takes microseconds)
CLAIM_WRITE_S = 10.0
CLAIM_REFRESH_S = 30.0


def claim_path(results_dir: str | os.PathLike, config_hash: str) -> Path:
    """``<results_dir>/claims/<hash>.claim``: apart from the records, and gone when the job ends."""
    return Path(results_dir) / "claims" / f"{config_hash}.claim"


class Claim:
    """The claim on one grid point, held by this process until :meth:`release` (or its death).

    Use :func:`claim`; as a context manager it is released on exit. A SIGTERM that would end the
    process (no handler of its own: a scheduler's, ``timeout``'s) releases the claim first, then
    ends it as it would have; a process with its own SIGTERM handler gets it called instead.
    """

    def __init__(self, path: Path, owner: dict[str, Any], refresh_s: float):
        import threading

        self.path, self.owner = path, owner
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._refresh, args=(refresh_s,), daemon=True)
        self._thread.start()
        self._previous_handler = self._handle_sigterm()

    def _handle_sigterm(self) -> Any:
        """Install :meth:`_on_sigterm` (in the main thread, where Python runs signal handlers);
        returns the handler it replaced (None: none was replaced).
        """
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return None
        previous = signal.getsignal(signal.SIGTERM)
        if previous == signal.SIG_IGN:
            return None  # the process outlives a SIGTERM: the claim stays while it runs
        signal.signal(signal.SIGTERM, self._on_sigterm)
        return previous

    def _on_sigterm(self, signum: int, frame: Any) -> None:
        import signal

        if callable(self._previous_handler):  # the process's own handler decides (it may raise)
            self._previous_handler(signum, frame)
            return
        self.release()  # SIG_DFL: the process is about to end
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    def _refresh(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            try:
                os.utime(self.path)  # still alive
            except OSError:
                return

    def release(self) -> None:
        """Stop refreshing and remove the claim file if it is still ours."""
        import signal

        self._stop.set()
        self._thread.join()
        if self._previous_handler is not None and signal.getsignal(signal.SIGTERM) == self._on_sigterm:
            signal.signal(signal.SIGTERM, self._previous_handler)
            self._previous_handler = None
        try:
            if json.loads(read_entry(self.path, MAX_NOTE_BYTES)).get("token") == self.owner["token"]:
                self.path.unlink()
        except (OSError, ValueError, AttributeError):
            pass

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _process_start(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, Linux), None if it is gone or a
    zombie (killed, not yet reaped: alive to ``kill(pid, 0)``, dead to us).
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else int(fields[19])


#: The process this one dies with (a job's runner dies with its worker: ``PR_SET_PDEATHSIG``), if any
_TIED_TO: dict[str, Any] = {}


def tie_claims_to(pid: int) -> None:
    """Say in this process's claims that it dies with process ``pid``: once that one is gone, they
    are stale even before this process is reaped (its SIGKILL may still be on its way).
    """
    _TIED_TO.update(pid=pid, process_start=_process_start(pid))


def _owner() -> dict[str, Any]:
    import datetime as dt
    import socket
    import uuid

    return {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "process_start": _process_start(os.getpid()),
        "token": uuid.uuid4().hex,
        "started_utc": dt.datetime.now(dt.UTC).isoformat(),
        **({"tied_to": dict(_TIED_TO)} if _TIED_TO else {}),
    }


def _dead_owner(owner: dict[str, Any]) -> bool:
    """Whether the owner of a claim made on this machine is gone, or the process it dies with is."""
    for process in (owner, owner.get("tied_to")):
        if (
            isinstance(process, dict)
            and isinstance(process.get("pid"), int)
            and not process_alive(process["pid"], process.get("process_start"))
        ):
            return True
    return False


def process_alive(pid: int, started: int | None = None) -> bool:
    """Whether process ``pid`` on this machine still runs; with ``started`` (its start time, as
    :func:`_process_start` read it), whether it is still that process and not a reuse of its pid.
    """
    if Path("/proc/self/stat").exists():
        start = _process_start(pid)
        return start is not None and started in (None, start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _is_stale(path: Path, stale_after_s: float) -> bool:
    """Whether the claim at ``path`` belongs to a dead worker: on this machine its process is gone;
    from another machine it was not refreshed for ``stale_after_s`` seconds.
    """
    import socket
    import time

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False  # released meanwhile: try again
    if not stat.S_ISREG(info.st_mode):
        return False  # no worker's claim (a FIFO, a directory): never read, never taken over
    age = time.time() - info.st_mtime
    try:
        owner = json.loads(read_entry(path, MAX_NOTE_BYTES))
    except (OSError, ValueError):
        owner = None
    if not isinstance(owner, dict):  # never completed: out of space, or killed as it claimed
        return age > min(CLAIM_WRITE_S, stale_after_s)
    if owner.get("host") == socket.gethostname() and _dead_owner(owner):
        return True  # its owner ran on this machine and is gone
    return age > stale_after_s


def clean_claims(results_dir: str | os.PathLike, stale_after_s: float = CLAIM_STALE_AFTER_S) -> int:
    """Remove the claims of workers that are gone (:func:`_is_stale`), whatever grid they were
    of (a grid point the next sweep does not have would keep its claim for good), and the files an
    interrupted takeover left. Returns how many were removed.
    """
    removed = 0
    folder = Path(results_dir) / "claims"
    for path in sorted(folder.iterdir()) if folder.is_dir() else ():
        if not _is_stale(path, stale_after_s):
            continue
        moved = path.with_name(f"{path.name}.clean-{os.getpid()}")
        try:  # as a takeover does: one rename wins, and what it moved is checked again
            os.rename(path, moved)
            if _is_stale(moved, stale_after_s):
                moved.unlink()
                removed += 1
            else:  # a live worker's claim, made in place of the dead one meanwhile: put it back
                os.link(moved, path)
                moved.unlink()
        except OSError:
            pass  # taken over or released meanwhile
    return removed


def _planted_kind(path: Path) -> str | None:
    """What ``path`` is when it is no claim file a worker could have made (None: a regular file)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else file_kind(mode)


def release_dead_claim(results_dir: str | os.PathLike, config_hash: str) -> bool:
    """Remove the claim on ``config_hash`` if its owner is gone (a job's process that died);
    whether it was removed.
    """
    path = claim_path(results_dir, config_hash)
    if not _is_stale(path, CLAIM_STALE_AFTER_S):
        return False
    path.unlink(missing_ok=True)
    return True


def claim(
    results_dir: str | os.PathLike,
    config_hash: str,
    stale_after_s: float = CLAIM_STALE_AFTER_S,
    refresh_s: float = CLAIM_REFRESH_S,
) -> Claim | None:
    """Claim the grid point ``config_hash`` for this process.

    Returns:
        The claim, or None when its record exists or another live worker holds it.

    Raises:
        StoreError: the claim cannot be written (disk full, read-only).
    """
    try:
        return _claim(results_dir, config_hash, stale_after_s, refresh_s)
    except OSError as exc:
        raise StoreError(f"cannot claim {config_hash} under {results_dir}: {exc.strerror or exc}") from None


def _claim(results_dir: str | os.PathLike, config_hash: str, stale_after_s: float, refresh_s: float) -> Claim | None:
    path = claim_path(results_dir, config_hash)
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(3):
        if has_record(results_dir, config_hash):
            return None
        owner = _owner()
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666 & ~umask())
        except FileExistsError:
            kind = _planted_kind(path)
            if kind is not None:
                raise StoreError(f"cannot claim {config_hash}: {path} is {kind}, not a claim (remove it)") from None
            if not _is_stale(path, stale_after_s):
                return None
            # take a dead worker's claim over: one rename wins, the losers find no file to move
            try:
                os.rename(path, path.with_suffix(f".stale-{owner['token']}"))
            except FileNotFoundError:
                continue
            path.with_suffix(f".stale-{owner['token']}").unlink(missing_ok=True)
            continue
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(owner, handle)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:  # out of space, interrupted: an empty claim would block the point
            path.unlink(missing_ok=True)
            raise
        if has_record(results_dir, config_hash):  # finished while we claimed
            Claim(path, owner, refresh_s).release()
            return None
        return Claim(path, owner, refresh_s)
    return None


#: A store's sweep times, study by study (:func:`boostbench.reporting.reproduction_docs.time_study`)
TIMINGS = "timings.json"


def read_timings(results_dir: str | os.PathLike) -> dict:
    """``<results_dir>/timings.json`` (empty when absent)."""
    path = Path(results_dir) / TIMINGS
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
