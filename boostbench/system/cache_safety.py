"""Caches other users cannot plant files in.

The kernel compiler loads pickled index files from its cache, and OnlineMBBM's potentials and the
drawn streams are arrays read back from disk: a cache directory that another user can write is
refused (:func:`check_cache_dir`), and the runner makes its own directories private
(:func:`make_private_dirs`). (This module names that compiler only in capitals: a module whose
text names it in lower case joins the kernel cache's key,
:func:`boostbench.system.kernel_cache.source_digest`.)

Every check raises :class:`~boostbench.errors.ConfigError` in one line.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from boostbench.errors import ConfigError
from boostbench.system.paths import cache_dir


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


def check_cache_dir(directory: str | os.PathLike) -> None:
    """Refuse a cache that another user could write into: its directory, and every directory
    under it, must belong to this user (or root) and be writable by its owner only; each of its
    parents must not be writable by others, unless sticky (``/tmp``: nobody renames another's
    entry). A directory not made yet passes (we make it private).

    Raises:
        ConfigError: the first such directory, and how to fix it.
    """
    root = Path(directory).expanduser().absolute()
    for parent in root.parents:
        try:
            mode = parent.stat().st_mode
        except OSError:
            continue
        if _writable_by_others(parent.stat()) and not mode & stat.S_ISVTX:
            raise ConfigError(
                f"cache {root}: its parent {parent} is writable by other users (chmod go-w it, or set "
                f"BOOSTBENCH_CACHE to a directory of your own)"
            )
    if not root.exists():
        return
    me = os.geteuid()
    for current, _, _ in os.walk(root):
        info = os.stat(current)
        if info.st_uid not in (me, 0) or _writable_by_others(info):
            who = "another user's" if info.st_uid not in (me, 0) else "writable by other users"
            raise ConfigError(
                f"cache directory {current} is {who}: its files (the compiled kernels' index is a pickle) "
                f"cannot be trusted; chmod go-w it or use a cache directory of your own"
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
    umask: :func:`check_cache_dir` would refuse them otherwise).
    """
    missing = []
    for path in (directory, *directory.parents):
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o755)
        except FileExistsError:
            pass
