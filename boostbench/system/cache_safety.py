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
  too. A file that fails is not loaded: its caller warns and computes it afresh.

(This module names neither the kernel compiler in lower case nor the module of its cache: a
module whose text does joins that cache's key, its ``source_digest``, and an edit here would
recompile every kernel.)
"""

from __future__ import annotations

import functools
import os
import stat
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
