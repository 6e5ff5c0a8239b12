"""Where numba keeps compiled kernels: a directory keyed by the source of every compiled module.

numba checks a cached function against its own source file only. Our booster kernels call (and
inline) the tree kernels of another module, so after an edit or an upgrade that changed only
the tree kernels (``learners/vfdt/``) they would load stale machine code: silently wrong numbers. Keying the whole
cache by a digest of all modules that use numba makes any such change start a fresh cache.

Every kernel module compiles through :func:`njit` here (or the decorators built on it:
:func:`kernel`, :func:`inlined_kernel`, :func:`parallel_kernel`), which points numba's cache there
before the first kernel is declared: importing ``boostbench`` changes nothing, and no entry point
can forget it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import tempfile
from pathlib import Path

from numba.core import types
from numba.core.registry import CPUDispatcher

from boostbench.system.paths import PACKAGE_DIR, cache_dir


def source_digest(package: Path) -> str:
    """sha256 (16 hex digits) of the path and text of every module under ``package`` that uses numba
    (imports it, or declares kernels through this module).
    """
    from boostbench.system.fingerprint import digest_files

    return digest_files(
        package, (p for p in package.rglob("*.py") if b"numba" in (text := p.read_bytes()) or b"kernel_cache" in text)
    )


def configure() -> Path | None:
    """Point numba's cache at ``<cache>/numba/<source digest>`` (see :func:`cache_dir`), unless
    ``NUMBA_CACHE_DIR`` is set or that directory cannot be written (numba's default then).
    Must run before the kernel modules are imported. Returns the directory used, or None.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    target = cache_dir("numba") / source_digest(PACKAGE_DIR)
    try:
        target.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=target).close()
    except OSError:
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(target)  # read when numba is first imported
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(target)
    return target


@contextlib.contextmanager
def compile_lock():
    """Hold an exclusive lock on the kernel cache while compiling or loading kernels: one process
    at a time. numba's cache is not safe against processes compiling the same parallel kernel at
    once (numba#10128: each names the kernel's parts its own way, and a cache mixing both
    crashes the process that loads it), which a sweep's jobs on a fresh cache would do.
    """
    directory = os.environ.get("NUMBA_CACHE_DIR") or configure()
    if not directory:
        yield
        return
    try:
        handle = open(Path(directory) / ".compile.lock", "a")
    except OSError:  # a read-only cache: numba compiles in memory, nothing to share
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


#: what a run on an empty kernel cache says on stderr (its first kernels take a minute or more)
COMPILING_NOTE = (
    "boostbench: compiling the numba kernels for this code, once per machine (a minute or more); "
    "later runs load them from the kernel cache"
)


def note_if_compiling() -> bool:
    """Print :data:`COMPILING_NOTE` on stderr (a terminal or not) when this code's kernel cache
    holds no compiled kernel yet (no numba index file): the run about to start compiles them.
    Returns whether it did. A cache numba keeps beside the sources (no writable directory) is
    not looked at.
    """
    directory = os.environ.get("NUMBA_CACHE_DIR") or configure()
    if not directory or next(Path(directory).rglob("*.nbi"), None) is not None:
        return False
    print(COMPILING_NOTE, file=sys.stderr, flush=True)
    return True


class KernelDispatcher(CPUDispatcher):
    """numba's dispatcher, but a call from another kernel compiles the callee for the plain types
    of its arguments, never for their literal values: numba would otherwise compile one copy of
    ``f(x, 0)``, another of ``f(x, -1)`` and a third of ``f(x, n)``, each with all its callees
    (a run's kernels held 11 such duplicates). LLVM still folds a constant argument once it
    inlines the call.
    """

    def get_call_template(self, args, kws):
        return super().get_call_template(
            tuple(types.unliteral(a) for a in args), {name: types.unliteral(a) for name, a in kws.items()}
        )


def njit(function=None, *, cache: bool = False, **options):
    """``numba.njit`` (as a decorator, with or without options) after :func:`configure` (once per
    process: it then finds ``NUMBA_CACHE_DIR`` set; numba picks a kernel's cache directory when
    it is declared), declaring a :class:`KernelDispatcher`.
    """
    configure()

    def declare(py_func):
        dispatcher = KernelDispatcher(
            py_func=py_func, locals={}, targetoptions={"nopython": True, "boundscheck": None, **options}
        )
        if cache:
            dispatcher.enable_caching()
        return dispatcher

    return declare if function is None else declare(function)


# No reference counting in the kernels: numba would otherwise increment and decrement each of a
# call's ~30 array arguments, which costs more than a tree's training step. So these kernels
# allocate nothing: their scratch space comes from the caller (the tree pool's, for instance).
def kernel(function):
    """A cached compiled kernel without numba's reference counting (it may not allocate)."""
    return njit(function, cache=True, _nrt=False)


def inlined_kernel(function):
    """:func:`kernel`, always inlined where it is called: for a helper called per tree per example
    with a tuple of arrays, which a call would copy field by field.
    """
    return njit(function, cache=True, _nrt=False, inline="always")


def parallel_kernel(function):
    """:func:`kernel` with numba's parallel loops (``numba.prange``). numba drops a store made
    through a field of a tuple argument in code inlined outside the loop (numba#5872, #7135):
    such stores belong in a kernel it calls. Call it from Python only: numba's cache mishandles a
    cached kernel that calls a parallel one (numba#8578: the process that loads it may crash).
    """
    return njit(function, cache=True, _nrt=False, parallel=True)
