"""Where numba keeps compiled kernels: a directory keyed by the source of every compiled module.

numba checks a cached function against its own source file only. Our booster kernels call (and
inline) the tree kernels of another module, so after an edit or an upgrade that changed only
the tree kernels (``learners/vfdt/``) they would load stale machine code: silently wrong numbers. Keying the whole
cache by a digest of all modules that use numba makes any such change start a fresh cache.

Every kernel module compiles through :func:`njit` here (or the decorators built on it:
:func:`kernel`, :func:`inlined_kernel`, :func:`parallel_kernel`), which points numba's cache there
before the first kernel is declared: importing ``boostbench`` changes nothing, and no entry point
can forget it.

numba unpickles its cache's index and data files: :class:`CheckedCache` reads only files
:func:`boostbench.system.cache_safety.open_trusted` trusts (this user's, writable by no one else,
in folders likewise) and whose seal holds: an HMAC under this user's key, kept outside the cache
(:func:`boostbench.system.cache_safety.user_key`), so that a cache restored or copied from elsewhere
is compiled afresh, never unpickled (LLVM also aborts the process on some scrambled machine code
rather than raise), and any failure to load a cached kernel (a planted, garbled or truncated
file) means: warn once, compile afresh, and replace the file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hmac
import os
import pickle
import sys
import tempfile
from pathlib import Path

from numba.core import types
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.registry import CPUDispatcher

from boostbench.system import numba_inlining
from boostbench.system.cache_safety import UntrustedFile, make_private_dirs, open_trusted, seal_digest
from boostbench.system.compile_ahead import done, kernel_name, wait_for
from boostbench.system.files import umask
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
        make_private_dirs(target)
        tempfile.TemporaryFile(dir=target).close()
    except OSError:
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(target)  # read when numba is first imported
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(target)
    return target


def announce_compilation(kernel=None) -> bool:
    """Say on stderr, once per process, that the kernels are compiling when this code's kernel
    cache holds none yet (a first run on this machine, or after the code changed): else the first
    minute of such a run is silent wherever its output is not a terminal (a CI log, a cluster job).
    With a cached ``kernel`` (a dispatcher), only its folder of the cache counts: numba keeps each
    source folder apart, and another checkout of the same code shares the directory. Returns
    whether it holds none.
    """
    from boostbench.system.notices import say_once

    directory = os.environ.get("NUMBA_CACHE_DIR") or configure()
    if not directory:
        return False
    place = Path(directory) if kernel is None else Path(directory) / Path(kernel._cache._cache_path).name
    if next(place.rglob("*.nbi"), None) is None:
        say_once(
            f"boostbench: compiling the numba kernels, once for this code on this machine (a minute or so; "
            f"later runs load them from {directory})"
        )
        return True
    return False


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


_warned = False


def _not_loaded(path: str, reason: str) -> None:
    """The one warning of a process whose kernel cache held a file it could not load."""
    global _warned
    if not _warned:
        _warned = True
        print(
            f"warning: kernel cache file {path} {reason}: not loaded; compiled afresh and saved anew "
            f"(as is any other such file, without a further warning)",
            file=sys.stderr,
            flush=True,
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UntrustedFile):
        return str(exc)
    return f"is unreadable ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"


#: What our index and data files hold after numba's version stamp: this, the HMAC of the file's
#: name and payload under this user's key (:func:`_seal`), then numba's pickle
_MAGIC = b"boostbench-kernel-cache-2\n"


def _seal(path: str, payload: bytes) -> bytes:
    """``payload`` as written to the cache file ``path``: :data:`_MAGIC`, its keyed digest
    (:func:`boostbench.system.cache_safety.seal_digest`: nobody without this user's key can forge
    it, so a planted or restored file is never unpickled), itself.

    Raises:
        UntrustedFile: there is no key to seal with.
    """
    return _MAGIC + seal_digest(os.path.basename(path), payload) + payload


def _unseal(path: str, sealed: bytes) -> bytes:
    """The payload :func:`_seal` wrote to ``path``.

    Raises:
        UntrustedFile: it fails its seal (scrambled, written without one, or sealed under another
            key: a copied or restored cache, a planted file), or there is no key to check it with.
    """
    digest, payload = sealed[len(_MAGIC) : len(_MAGIC) + 32], sealed[len(_MAGIC) + 32 :]
    if not sealed.startswith(_MAGIC) or not hmac.compare_digest(seal_digest(os.path.basename(path), payload), digest):
        raise UntrustedFile("fails its seal (scrambled, or sealed under another user's key: a copied cache?)")
    return payload


class _NoGlobals(pickle.Unpickler):
    """An unpickler of plain data: the index's version stamp is read before its checksum, so it may
    name no class or function (a garbled file must not call one).
    """

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"a global ({module}.{name}) where a version stamp belongs")


class _CheckedCacheFile(IndexDataCacheFile):
    """numba's index and data files, read through :func:`open_trusted`, checksummed
    (:func:`_seal`) and written never writable by others (whatever the umask); an index that
    fails to load is an empty one.
    """

    def _load_index(self):
        try:
            with open_trusted(self._index_path) as handle:
                version = _NoGlobals(handle).load()
                if version != self._version:  # another numba's: its pickles are not read
                    return {}
                stamp, overloads = pickle.loads(_unseal(self._index_path, handle.read()))
        except FileNotFoundError:
            return {}
        except Exception as exc:
            _not_loaded(self._index_path, _reason(exc))
            return {}
        return overloads if stamp == self._source_stamp and isinstance(overloads, dict) else {}

    def load(self, key):
        name = self._load_index().get(key)
        if not isinstance(name, str):
            return None
        path = self._data_path(name)
        try:
            with open_trusted(path) as handle:
                return pickle.loads(_unseal(path, handle.read()))
        except FileNotFoundError:
            return None
        except Exception as exc:
            _not_loaded(path, _reason(exc))
            return None

    def _save_index(self, overloads):
        payload = self._dump((self._source_stamp, overloads))
        with self._open_for_write(self._index_path) as handle:
            pickle.dump(self._version, handle, protocol=-1)
            handle.write(_seal(self._index_path, payload))

    def _save_data(self, name, data):
        path = self._data_path(name)
        with self._open_for_write(path) as handle:
            handle.write(_seal(path, self._dump(data)))

    @contextlib.contextmanager
    def _open_for_write(self, filepath):
        with super()._open_for_write(filepath) as handle:
            os.fchmod(handle.fileno(), 0o644 & ~umask())
            yield handle


class CheckedCache(FunctionCache):
    """numba's per-function cache, reading through :class:`_CheckedCacheFile`: a kernel that fails
    to load in any way (an untrusted file, a garbled pickle, machine code LLVM refuses) is
    compiled afresh after one warning, never a traceback.
    """

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _CheckedCacheFile(self._cache_path, self._impl.filename_base, self._cache_file._source_stamp)

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception as exc:
            _not_loaded(self._cache_path, _reason(exc))
            return None

    def save_overload(self, sig, data):
        make_private_dirs(Path(self._cache_path))
        try:
            super().save_overload(sig, data)
        except UntrustedFile as exc:  # no key to seal with: the kernel stays in memory only
            _not_loaded(self._cache_path, _reason(exc))


class KernelDispatcher(CPUDispatcher):
    """numba's dispatcher, but a call from another kernel compiles the callee for the plain types
    of its arguments, never for their literal values: numba would otherwise compile one copy of
    ``f(x, 0)``, another of ``f(x, -1)`` and a third of ``f(x, n)``, each with all its callees
    (a run's kernels held 11 such duplicates). LLVM still folds a constant argument once it
    inlines the call.
    """

    def get_call_template(self, args, kws):
        name = kernel_name(self.py_func)
        wait_for(name)  # another process may be compiling it for this one (compile_ahead)
        try:
            return super().get_call_template(
                tuple(types.unliteral(a) for a in args), {key: types.unliteral(a) for key, a in kws.items()}
            )
        finally:
            done(name)  # in that other process: this one is in the cache now

    def enable_caching(self):
        self._cache = CheckedCache(self.py_func)


def njit(function=None, *, cache: bool = False, **options):
    """``numba.njit`` (as a decorator, with or without options) after :func:`configure` (once per
    process: it then finds ``NUMBA_CACHE_DIR`` set; numba picks a kernel's cache directory when
    it is declared) and with numba's inliner spared its copies (:mod:`.numba_inlining`),
    declaring a :class:`KernelDispatcher`.
    """
    configure()
    numba_inlining.install()

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
    """A cached compiled kernel without numba's reference counting: it may not allocate, nor
    return an array (a reference-counted caller would release a reference it was never given,
    and free the array under its owner).
    """
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
