"""Caches other users cannot plant files in.

The kernel compiler loads pickled index files from its cache, and OnlineMBBM's potentials and the
drawn streams are arrays read back from disk. Two rules, checked where they are cheap:

- the cache itself (``$BOOSTBENCH_CACHE``, and the kernels' ``NUMBA_CACHE_DIR`` if set), as
  written and with its symbolic links resolved, is this user's and writable by no one else, and
  none of its parents is writable by others (unless sticky, as ``/tmp``) or another user's: at
  each run's start (:func:`check_caches`), a failure refused in one line;
- every file read back from a cache (:func:`open_trusted`), and every folder between it and the
  cache, as written and resolved, is this user's (or root's) and writable by no one else: checked
  on the open file before a byte is read, so a file planted or swapped after the start is caught
  too. A file that fails is not loaded: its caller warns and computes it afresh;
- a pickle is read back only under a seal keyed with this user's secret (:func:`seal_digest`),
  kept outside every cache: a cache copied or restored from elsewhere fails its seals.

(This module names neither the kernel compiler in lower case nor the module of its cache: a
module whose text does joins that cache's key, its ``source_digest``, and an edit here would
recompile every kernel.)
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

from boostbench.errors import ConfigError
from boostbench.system.files import file_kind
from boostbench.system.paths import cache_dir


class UntrustedFile(Exception):
    """A cache file that another user wrote or could have written: not to be read."""


def _writable_by_others(info: os.stat_result) -> bool:
    """Writable by anyone but its owner: by all, or by a group with other members than the owner
    (under umask 002 a user's private group, which has none, gets the write bit: that is no
    stranger).
    """
    if info.st_mode & 0o002:
        return True
    if not info.st_mode & 0o020:
        return False
    import grp
    import pwd

    try:
        group = grp.getgrgid(info.st_gid)
        owner = pwd.getpwuid(info.st_uid)
    except KeyError:
        return True
    return bool(set(group.gr_mem) - {owner.pw_name}) or owner.pw_gid != info.st_gid


def _ownership_problem(info: os.stat_result, sticky_ok: bool) -> str | None:
    """Why an entry with ``info`` could hold another user's bytes (None: it cannot): it belongs to
    another user (root excepted), or others may write it (a sticky folder, where nobody renames
    another's entry, only where ``sticky_ok``).
    """
    if info.st_uid not in (os.geteuid(), 0):
        return "another user's"
    if _writable_by_others(info) and not (sticky_ok and info.st_mode & stat.S_ISVTX):
        return "writable by other users"
    return None


def _folder_problem(folder: str, sticky_ok: bool) -> str | None:
    """:func:`_ownership_problem` of ``folder`` (followed if a link; None if it cannot be read)."""
    try:
        return _ownership_problem(os.stat(folder), sticky_ok)
    except OSError:
        return None  # not made yet (or gone): nothing in it is read


def _parents(path: str) -> list[str]:
    """The folders above ``path`` (absolute, normalised), nearest first."""
    parents = []
    while (parent := os.path.dirname(path)) != path:
        parents.append(parent)
        path = parent
    return parents


@functools.lru_cache(maxsize=64)
def _resolved_root(root: str) -> str:
    """``root`` with its links resolved (once per process: a cache's own path does not change)."""
    return os.path.realpath(root)


def _chain_problem(path: str, real: str, root: str) -> str | None:
    """Why a file at ``path`` (``real`` with links resolved) under the cache ``root`` (all absolute)
    cannot be trusted for its folders (None: it can): each folder from its own up to ``root``
    must pass strictly, and each above ``root`` may be sticky; both as written and resolved.
    """
    chains = ((path, root), (real, _resolved_root(root)))  # as written first: the message the user knows
    for written, top in chains:
        inside = written.startswith(top + os.sep)
        for folder in _parents(written):
            strict = inside and (folder == top or folder.startswith(top + os.sep))
            problem = _folder_problem(folder, sticky_ok=not strict)
            if problem is not None:
                return f"lies in {folder}, which is {problem}"
    return None


@functools.lru_cache(maxsize=16)
def _roots(kernels: str | None, ours: str | None) -> tuple[str, ...]:
    """The caches' absolute paths, for the environment's ``NUMBA_CACHE_DIR`` and ``BOOSTBENCH_CACHE``."""
    return tuple(os.path.abspath(root) for root in (kernels, str(cache_dir(""))) if root)


def _root_of(path: str) -> str:
    """The cache that ``path`` (absolute) belongs to: boostbench's or the kernels' if it lies under
    one, else its own folder.
    """
    roots = _roots(os.environ.get("NUMBA_CACHE_DIR"), os.environ.get("BOOSTBENCH_CACHE"))
    return next((root for root in roots if path.startswith(root + os.sep)), os.path.dirname(path))


def open_trusted(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file that this user (or root) owns and no
    one else can write, in folders that pass the same rule up to its cache (:func:`_chain_problem`),
    as written and with links resolved. Checked on the opened file, before anything is read.

    Raises:
        FileNotFoundError: there is no file (nothing to distrust: it is computed).
        UntrustedFile: the reason, in words (a FIFO, another user's file, a folder others can write).
        OSError: it cannot be opened.
    """
    path = os.path.abspath(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedFile(f"is {file_kind(info.st_mode)}, not a regular file")
        problem = _ownership_problem(info, sticky_ok=False)
        if problem is not None:
            raise UntrustedFile(f"is {problem}")
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")  # where the open file is, in one call
        except OSError:
            real = os.path.realpath(path)
        problem = _chain_problem(path, real, _root_of(path))
        if problem is not None:
            raise UntrustedFile(problem)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_cache_dir(directory: str | os.PathLike) -> None:
    """Refuse a cache that another user could write into: the cache itself, as written and with its
    links resolved, must be this user's (or root's) and writable by its owner only; each of its
    parents, both ways, must be this user's or root's and not writable by others, unless sticky
    (``/tmp``: nobody renames another's entry). A cache not made yet passes (we make it private).
    What lies inside is checked file by file as it is read (:func:`open_trusted`).

    Raises:
        ConfigError: the first such folder, and how to fix it.
    """
    written = os.path.abspath(os.path.expanduser(directory))
    resolved = os.path.realpath(written)
    for root in dict.fromkeys((written, resolved)):
        for parent in _parents(root):
            problem = _folder_problem(parent, sticky_ok=True)
            if problem is not None:
                raise ConfigError(
                    f"cache {written}: its parent {parent} is {problem} (chmod go-w it, or set "
                    f"BOOSTBENCH_CACHE to a directory of your own)"
                )
    problem = _folder_problem(resolved, sticky_ok=False)
    if problem is not None:
        where = written if resolved == written else f"{written} (that is {resolved})"
        raise ConfigError(
            f"cache {where} is {problem}: its files (the compiled kernels' index is a pickle) cannot be "
            f"trusted; chmod go-w it or set BOOSTBENCH_CACHE to a directory of your own"
        )


def check_caches() -> None:
    """:func:`check_cache_dir` on boostbench's cache root and on the kernels', if ``NUMBA_CACHE_DIR``
    points elsewhere.
    """
    check_cache_dir(cache_dir(""))
    kernels = os.environ.get("NUMBA_CACHE_DIR")
    if kernels:
        check_cache_dir(kernels)


def make_private_dirs(directory: Path) -> None:
    """Make ``directory`` and its missing parents writable by their owner only (whatever the
    umask: :func:`open_trusted` would not read from them otherwise).
    """
    missing = []
    for path in (Path(directory), *Path(directory).parents):
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o755)
        except FileExistsError:
            pass


# -- the key that seals pickles: this user's, kept outside every cache -------------------------------
# A checksum anyone can compute proves nothing about who wrote a file: a cache restored from a CI
# artifact or a tarball, or one in a repository, passes every ownership rule above and could hold a
# pickle that runs code. The pickles a cache holds are therefore sealed with an HMAC under a secret
# that only this user can read and that never travels with the cache: a copied cache fails its
# seals and is rebuilt.

#: The environment variable naming the key file (default :func:`key_path`)
KEY_FILE_VARIABLE = "BOOSTBENCH_KEY_FILE"
KEY_BYTES = 32


def key_path() -> Path:
    """Where this user's sealing key lives: ``$BOOSTBENCH_KEY_FILE``, else
    ``$XDG_CONFIG_HOME/boostbench/cache.key`` (default ``~/.config/boostbench/cache.key``).
    """
    override = os.environ.get(KEY_FILE_VARIABLE)
    if override:
        return Path(override).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config).expanduser() / "boostbench" / "cache.key"


def _key_problem(path: str) -> str | None:
    """Why the key file ``path`` (absolute) cannot be trusted or made (None: it can): it lies in a
    cache (it would travel with it), or its folder is another user's or open to others.
    """
    real = os.path.realpath(path)
    for root in _roots(os.environ.get("NUMBA_CACHE_DIR"), os.environ.get("BOOSTBENCH_CACHE")):
        for top in (root, _resolved_root(root)):
            if path.startswith(top + os.sep) or real.startswith(top + os.sep):
                return f"lies inside the cache {top} (it would travel with it; set {KEY_FILE_VARIABLE})"
    folder = os.path.dirname(real)
    problem = _folder_problem(folder, sticky_ok=False)
    if problem is not None:
        return f"lies in {folder}, which is {problem}"
    return None


def _read_key(path: str) -> bytes:
    """The key at ``path``: a regular file of :data:`KEY_BYTES` bytes that this user owns and
    nobody else can read or write.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedFile(f"key file {path} is {file_kind(info.st_mode)}, not a regular file")
        if info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise UntrustedFile(f"key file {path} is not private to this user (chmod 600 it, or remove it)")
        key = handle.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise UntrustedFile(f"key file {path} does not hold a key of {KEY_BYTES} bytes (remove it)")
    return key


@functools.lru_cache(maxsize=8)
def _user_key(path: str) -> bytes:
    problem = _key_problem(path)
    if problem is not None:
        raise UntrustedFile(f"cannot be checked: the key file {path} {problem}")
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".cache.key.")  # 0600 whatever the umask
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)  # atomic and exclusive: a racing process's key wins whole
        except FileExistsError:
            pass
    finally:
        os.unlink(temporary)
    return _read_key(path)


def user_key() -> bytes:
    """This user's secret key for sealing the pickles a cache holds (:func:`key_path`), made
    (0600, in a 0700 folder) on first use; read once per process.

    Raises:
        UntrustedFile: it cannot be made or trusted (it lies inside a cache, is not private to
            this user, is no regular file of :data:`KEY_BYTES` bytes), with the reason in words.
    """
    path = os.path.abspath(key_path())
    try:
        return _user_key(path)
    except OSError as exc:
        reason = exc.strerror or exc
        raise UntrustedFile(f"cannot be checked: the key file {path} cannot be read or made ({reason})") from None


def seal_digest(name: str, payload: bytes) -> bytes:
    """HMAC-SHA256 of ``name``, a NUL and ``payload`` under :func:`user_key` (32 bytes).

    Raises:
        UntrustedFile: there is no key to trust (:func:`user_key`).
    """
    return hmac.new(user_key(), name.encode() + b"\0" + payload, hashlib.sha256).digest()
