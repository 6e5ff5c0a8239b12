"""Files written atomically: a reader sees the old file or the new one, never a partial one.

Records, cached arrays and published pages all go through :func:`atomic_write_bytes`; the writer's
host and pid in a temporary file's name let a cleaner tell a dead writer's leftovers
(:func:`boostbench.runner.store.clean_temporaries`).
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path


@functools.cache
def umask() -> int:
    """This process's umask (read once: reading it means setting it)."""
    mask = os.umask(0)  # the only way to read it; once, at the first write
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically.

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
        os.chmod(handle.name, 0o666 & ~umask())  # a temporary file is private; a result is not
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
