"""Sweep jobs run apart from the process that launched them: a job that dies cannot take its worker.

A launcher's worker (joblib's, submitit's, Ray's, or the sweep itself with one job at a time) hands
each job to a runner: a child process it forks once and keeps, so a job still finds the modules,
compiled kernels and caches of the jobs before it, as it did in the worker. A job that dies there
(a signal: the OOM killer's SIGKILL, a segfault in compiled code or a plugin; ``os._exit``; an
uncaught ``SystemExit``), or that runs past its time limit and is ended, is told to the worker as
a cause in words; the worker forks a fresh runner for its next job. The worker itself never runs
a job's code, so the launcher sees every job return.

Linux and other POSIX systems with ``fork``; elsewhere a job runs in the worker. Workers and
runners die with the process that started them (:func:`die_with`), and what killed workers leave
in shared memory is removed by the next sweep (:func:`clean_leftovers`).
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import re
import select
import shutil
import signal
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boostbench.runner.store import process_alive, tie_claims_to
from boostbench.system.resources import limit_memory

#: A frame on the runner's pipes: its length (8 bytes, little endian), then a pickle
_HEADER = struct.Struct("<Q")


class JobDied(Exception):
    """A job that did not return: ``cause`` says how it ended, ``messages`` what it told first."""

    def __init__(self, cause: str, messages: list[dict[str, Any]]):
        super().__init__(cause)
        self.cause, self.messages = cause, messages


def _write_frame(fd: int, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int) -> Any:
    """The next message on ``fd`` (the runner is our own child: its pickles are ours); EOFError
    when the pipe is closed.
    """
    header = _read_exact(fd, _HEADER.size)
    data = None if header is None else _read_exact(fd, _HEADER.unpack(header)[0])
    if data is None:
        raise EOFError
    return pickle.loads(data)


def die_with(parent: int) -> bool:
    """Die when process ``parent`` (this one's parent) dies: Linux ``PR_SET_PDEATHSIG``, SIGKILL;
    a worker dies with its sweep, a runner with its worker. Returns whether it was set.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:  # it died while we asked: follow it now
        os.kill(os.getpid(), signal.SIGKILL)
    return True


def _serve(requests: int, replies: int) -> None:
    """The runner's loop: each request is ``(function, arguments, environment, cwd)``; the function
    is called with the arguments and a ``send`` that passes a message to the worker, and what it
    returns is sent last. Ends when the worker closes its pipe, or after a BaseException (the
    worker is told, the runner exits).
    """
    while True:
        try:
            function, arguments, environment, cwd = _read_frame(requests)
        except EOFError:
            return
        if os.environ != environment:  # Hydra sets a job's environment in the worker
            os.environ.clear()
            os.environ.update(environment)
        if os.getcwd() != cwd:
            os.chdir(cwd)
        try:
            result = function(*arguments, lambda message: _write_frame(replies, ("message", message)))
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: told, then the runner ends
            _write_frame(replies, ("raised", f"{type(exc).__name__}({' '.join(str(exc).split())[:200]})"))
            raise
        _write_frame(replies, ("returned", result))


class _Runner:
    """One runner process (see the module's docstring) and the worker's ends of its pipes."""

    def __init__(self) -> None:
        requests_read, self.requests = os.pipe()
        self.replies, replies_write = os.pipe()
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # the runner: never returns into the worker's code
            code = 0
            try:
                os.close(self.requests)
                os.close(self.replies)
                os.setpgid(0, 0)  # its own group: a time limit ends what it started too
                if die_with(parent):
                    tie_claims_to(parent)  # its claims are stale once the worker is gone
                limit_memory()  # an allocation beyond the machine fails the job, not the machine
                faulthandler.disable()  # a crash is the worker's to tell, in one line
                # the worker's threads are gone here, and a lock one held (a live progress bar's,
                # which wraps the streams) would never be released: write to the streams themselves
                sys.stdout, sys.stderr = sys.__stdout__ or sys.stdout, sys.__stderr__ or sys.stderr
                _serve(requests_read, replies_write)
            except BaseException:
                code = 1
            finally:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except Exception:
                        pass
                os._exit(code)
        os.close(requests_read)
        os.close(replies_write)

    def kill(self) -> None:
        """End the runner and what it started (its process group)."""
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass

    def close(self) -> int:
        """Close the pipes and reap the runner; its wait status."""
        for fd in (self.requests, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        return os.waitpid(self.pid, 0)[1]


_RUNNER: dict[str, _Runner] = {}


def _cause(status: int, raised: str | None) -> str:
    """How a runner that did not return ended, in words, from its wait status."""
    if raised is not None:
        return f"the job raised {raised}"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        why = {
            "SIGKILL": " (out of memory: the OOM killer, or a kill -9)",
            "SIGSEGV": " (a segmentation fault, in compiled code or a plugin)",
            "SIGBUS": " (a bus error: a mapped file truncated, or out of shared memory)",
            "SIGABRT": " (aborted, in compiled code or a plugin)",
        }.get(name, "")
        return f"the job's process died by signal {name}{why}"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return f"the job's process exited with status {code} before it ended (os._exit or sys.exit in the job)"


def run_isolated(
    function: Callable[..., Any], arguments: tuple, timeout_s: float | None = None
) -> tuple[Any, list[dict[str, Any]]]:
    """``function(*arguments, send)`` in this process's runner (forked on first use, and again
    after a runner died); ``send(message)`` passes a message back as the job goes.

    Args:
        function: a module-level function (it is pickled by name); it and its arguments must
            pickle, and so must what it returns and sends.
        timeout_s: end the job after this many seconds (None: no limit).

    Returns:
        What ``function`` returned, and the messages it sent.

    Raises:
        JobDied: the job did not return: how it ended (a signal and its likely cause, an exit
            status, an uncaught SystemExit, the time limit), and the messages it sent first.
    """
    if not hasattr(os, "fork"):
        messages: list[dict[str, Any]] = []
        return function(*arguments, messages.append), messages
    runner = _RUNNER.get("runner")
    if runner is not None and not _alive(runner):  # killed between jobs
        _forget(runner)
        runner = None
    if runner is None:
        runner = _RUNNER["runner"] = _Runner()
    messages = []
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    raised = None
    restore = _forward_sigterm(runner)
    try:
        _write_frame(runner.requests, (function, arguments, dict(os.environ), os.getcwd()))
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([runner.replies], [], [], wait)
            if not ready:
                runner.kill()
                _forget(runner)
                raise JobDied(f"the job ran past its time limit of {timeout_s:g} s and was ended", messages)
            kind, payload = _read_frame(runner.replies)
            if kind == "message":
                messages.append(payload)
            elif kind == "returned":
                return payload, messages
            else:
                raised = payload
    except (EOFError, BrokenPipeError):
        status = _forget(runner)
        raise JobDied(_cause(status, raised), messages) from None
    except BaseException:  # KeyboardInterrupt in the worker: the job goes with it
        runner.kill()
        _forget(runner)
        raise
    finally:
        restore()


#: Seconds a worker ended by SIGTERM waits for its runner to release its claim and end
SIGTERM_GRACE_S = 10.0


def _forward_sigterm(runner: _Runner) -> Callable[[], None]:
    """While a job runs, a SIGTERM to the worker (a scheduler's, ``timeout``'s, a launcher shutting
    down) goes to the runner first, which releases its claim as it ends
    (:class:`boostbench.runner.store.Claim`); then the worker's own handling follows. Returns
    the function that puts the previous handler back (main thread only: elsewhere, nothing).
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGTERM)

    def forward(signum: int, frame: Any) -> None:
        try:
            os.kill(runner.pid, signal.SIGTERM)
            ends = time.monotonic() + SIGTERM_GRACE_S
            while time.monotonic() < ends and os.waitpid(runner.pid, os.WNOHANG) == (0, 0):
                time.sleep(0.01)
        except OSError:
            pass
        signal.signal(signal.SIGTERM, previous)
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, forward)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _alive(runner: _Runner) -> bool:
    try:
        return os.waitpid(runner.pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def _forget(runner: _Runner) -> int:
    """Reap ``runner`` (after it ended or was killed) and drop it; its wait status."""
    if _RUNNER.get("runner") is runner:
        del _RUNNER["runner"]
    try:
        return runner.close()
    except ChildProcessError:
        return 0


def stop_runner() -> None:
    """End this process's runner, if any, once its current job is done (its pipe closed): the
    sweep's own process calls it when a sweep ends, so that the next sweep forks a runner with its
    code and settings.
    """
    runner = _RUNNER.pop("runner", None)
    if runner is not None:
        try:
            runner.close()
        except ChildProcessError:
            pass


SHARED_MEMORY = Path("/dev/shm")
_LEFTOVER = re.compile(r"^(?:joblib_memmapping_folder_|sem\.loky-)(\d+)[_-]")


def clean_leftovers(shared_memory: Path = SHARED_MEMORY) -> int:
    """Remove what killed sweeps left in shared memory: joblib's memmapping folders and loky's
    semaphores of processes that no longer run (a SIGKILL gives their cleaner no chance).
    Returns how many were removed.
    """
    removed = 0
    if not shared_memory.is_dir():
        return 0
    for entry in shared_memory.iterdir():
        match = _LEFTOVER.match(entry.name)
        if match is None or process_alive(int(match.group(1))):
            continue
        try:
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
            removed += 1
        except OSError:
            pass  # another user's, or gone meanwhile
    return removed
