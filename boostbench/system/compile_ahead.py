"""Compiling kernels in a second process while this one compiles the others: a cold start on two
cores.

On an empty kernel cache a run spends nearly all its time compiling one chain of kernels, which
numba compiles one after another under a process-wide lock. The chain's longest links (a split
attempt's kernels, over a third of it) are reached late, so a second process can compile them
meanwhile and leave them in numba's disk cache; when this process reaches one, it waits for the
second to finish it and loads it from there.

Each kernel given to the second process has a lock file in the cache directory, which that
process holds until the kernel is in the cache; :class:`~.kernel_cache.KernelDispatcher` takes
the lock before compiling a call to the kernel (:func:`wait_for`), then finds it in the cache.
Should the second process fail in any way its locks go with it, and this process compiles the
kernel itself: the same machine code either way, only later.

The second process runs ``python -m boostbench.system.compile_ahead PROBE KERNEL...``: it locks
the KERNELs (``module:qualname``), says ``ready``, reads the probe's argument types (numba types,
pickled) on its standard input and compiles the probe, a kernel that calls the KERNELs as the
runs' kernels do (so numba gives them the same argument types), releasing each lock as soon as
its kernel is saved (:func:`done`).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

from boostbench.system.resources import usable_cores

#: kernels (``module:qualname``) another process is compiling for this one: their lock files
_WAITING: dict[str, Path] = {}
#: in the second process: the locks it holds, by kernel
_HELD: dict[str, object] = {}


def kernel_name(function) -> str:
    """``module:qualname`` of a kernel's Python function (or its dispatcher)."""
    function = getattr(function, "py_func", function)
    return f"{function.__module__}:{function.__qualname__}"


def _lock_path(directory: str, name: str) -> Path:
    return Path(directory) / f".ahead-{name.replace(':', '.')}.lock"


def wait_for(name: str) -> None:
    """Before compiling a call to kernel ``name``: if another process compiles it for this one,
    wait until it has (its cache entry is then there to load). Once per kernel.
    """
    path = _WAITING.pop(name, None)
    if path is not None:
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)


def done(name: str) -> None:
    """In the second process, after kernel ``name`` compiled and was saved: release its lock."""
    handle = _HELD.pop(name, None)
    if handle is not None:
        handle.close()


@contextlib.contextmanager
def compiling_ahead(probe, arg_types: tuple, kernels: list):
    """While the block runs, a second process compiles ``kernels`` (dispatchers) into numba's
    cache, by compiling ``probe`` (a dispatcher that calls them) for ``arg_types`` (numba types);
    this process's calls to them wait for it (:func:`wait_for`). Nothing happens on one core,
    without a cache directory (``NUMBA_CACHE_DIR``) or if the process cannot start. The process
    is stopped when the block ends: what it finished is in the cache.
    """
    directory = os.environ.get("NUMBA_CACHE_DIR")
    names = [kernel_name(k) for k in kernels]
    request = pickle.dumps(arg_types)
    helper = None
    if directory and usable_cores() > 1:
        try:
            helper = subprocess.Popen(
                [sys.executable, "-m", __name__, kernel_name(probe), *names],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            if helper.stdout.readline() == b"ready\n":  # it holds the locks: wait for it from now on
                _WAITING.update({name: _lock_path(directory, name) for name in names})
                helper.stdin.write(request)
            helper.stdin.close()
        except OSError:  # it could not start, or died: whatever it holds went with it
            pass
    try:
        yield
    finally:
        for name in names:
            _WAITING.pop(name, None)
        if helper is not None:
            helper.kill()
            helper.wait()


def _resolve(name: str):
    module, qualname = name.split(":")
    target = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def main(argv: list[str]) -> None:
    """The second process (see the module's docstring)."""
    probe, names = argv[0], argv[1:]
    directory = os.environ["NUMBA_CACHE_DIR"]
    for name in names:
        handle = open(_lock_path(directory, name), "a")
        fcntl.flock(handle, fcntl.LOCK_EX)
        _HELD[name] = handle
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    arg_types = pickle.load(sys.stdin.buffer)  # from the process that started this one
    _resolve(probe).compile(arg_types)


if __name__ == "__main__":  # the module itself, not this copy run as __main__, holds the locks
    importlib.import_module("boostbench.system.compile_ahead").main(sys.argv[1:])
