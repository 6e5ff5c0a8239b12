"""Files written atomically: a reader sees the old file or the new one, never a partial one.

Records, cached arrays and published pages all go through :func:`atomic_write_bytes`; the writer's
host and pid in a temporary file's name let a cleaner tell a dead writer's leftovers
(:func:`boostbench.runner.store.clean_temporaries`). Readers of files a user names or a store
holds say what a path is when it is no regular file (:func:`file_kind`).
"""

from __future__ import annotations

import functools
import os
import stat
import tempfile
from pathlib import Path


@functools.cache
def umask() -> int:
    """This process's umask (read once: reading it means setting it)."""
    mask = os.umask(0)  # the only way to read it; once, at the first write
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o666) -> Path:
    """Write ``data`` to ``path`` atomically, with permissions ``mode`` less the umask (a cache
    file passes 0o644: never writable by others, whatever the umask).

    The bytes go to a temporary file in the same directory, are flushed and fsynced, then
    renamed over ``path`` (``os.replace`` is atomic on POSIX): a reader sees the old file or the
    new one, never a partial file; an interrupted write leaves no file behind (at most a hidden
    ``.*.tmp`` file after a SIGKILL, never read as a result).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # the writer in the name: a writer killed mid-write leaves a file that clean_temporaries finds
    handle = tempfile.NamedTemporaryFile(
        "wb", dir=path.parent, prefix=f".{path.stem}.{writer_name()}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode & ~umask())  # a temporary file is private; a result is not
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return path


def writer_name() -> str:
    import socket

    return f"{socket.gethostname()}.{os.getpid()}"


def atomic_write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_write_bytes`)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


#: What a file that is not a regular one is, by its ``st_mode`` test
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISREG, "a regular file"),
)


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: "a directory", "a FIFO (named pipe)", ..."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def regular_file_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a file (None: it is a regular file, or a link to one): it does
    not exist, or it is a directory, a FIFO, a device... (never opened: a FIFO would block).
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "file not found"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None if stat.S_ISREG(mode) else f"is {file_kind(mode)}, not a regular file"


def writable_dir_problem(directory: str | os.PathLike) -> str | None:
    """Why files cannot be written under ``directory`` (None: they can, or it can be made there):
    it, or its nearest existing ancestor, is no directory or cannot be written. Creates nothing.
    """
    probe = Path(directory)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        kind = file_kind(os.stat(probe).st_mode) if probe.exists() else "missing"
        return f"{probe} is not a directory ({kind})"
    try:
        tempfile.TemporaryFile(dir=probe).close()
    except OSError as exc:
        return f"{probe}: {exc.strerror or exc}"
    return None
