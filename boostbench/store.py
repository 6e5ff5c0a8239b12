"""The result store: one JSON record per run, written atomically, keyed by config hash."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def record_path(results_dir: str | os.PathLike, config_hash: str) -> Path:
    """Where the record of the run with ``config_hash`` lives: ``<results_dir>/runs/<hash>.json``."""
    return Path(results_dir) / "runs" / f"{config_hash}.json"


def _read_umask() -> int:
    mask = os.umask(0)  # the only way to read it; done once, at import
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically.

    The bytes go to a temporary file in the same directory, are flushed and fsynced, then
    renamed over ``path`` (``os.replace`` is atomic on POSIX): a reader sees the old file or the
    new one, never a partial file; an interrupted write leaves no file behind (at most a hidden
    ``.*.tmp`` file after a SIGKILL, never read as a result).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp",
                                         delete=False)
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o666 & ~_UMASK)  # a temporary file is private; a result is not
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_write_bytes`)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def write_record(record: dict[str, Any], path: Path) -> Path:
    """Write one run record as JSON to ``path`` atomically (NaN and infinity are refused)."""
    return atomic_write_text(path, json.dumps(record, indent=1, sort_keys=True, allow_nan=False) + "\n")
