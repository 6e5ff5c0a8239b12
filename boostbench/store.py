"""The result store: one JSON record per run, written atomically, keyed by config hash.

Layout: ``<results_dir>/runs/<config hash>.json``. Everything that reads or writes records goes
through this module: :func:`write_record`, :func:`read_record`, :func:`iter_records`.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from boostbench.errors import DataError


def runs_dir(results_dir: str | os.PathLike) -> Path:
    """The folder of a store's records: ``<results_dir>/runs``."""
    return Path(results_dir) / "runs"


def record_path(results_dir: str | os.PathLike, config_hash: str) -> Path:
    """Where the record of the run with ``config_hash`` lives: ``<results_dir>/runs/<hash>.json``."""
    return runs_dir(results_dir) / f"{config_hash}.json"


def _load(path: Path) -> dict[str, Any]:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not a valid result record ({exc})") from None
    if not isinstance(record, dict) or not {"config", "metrics", "config_hash"} <= set(record):
        raise DataError(f"{path}: not a valid result record (config, metrics or config_hash missing)")
    return record


def read_record(results_dir: str | os.PathLike, config_hash: str) -> dict[str, Any]:
    """The record of the run with ``config_hash``.

    Raises:
        DataError: missing or not a valid record (the path is named).
    """
    return _load(record_path(results_dir, config_hash))


def iter_records(results_dir: str | os.PathLike,
                 on_error: Callable[[DataError], None] | None = None) -> Iterator[dict[str, Any]]:
    """Every record of a store, in file-name order.

    Args:
        on_error: called with the error of a record that cannot be read, which is then skipped;
            None: the error is raised.

    Raises:
        DataError: an unreadable record, without ``on_error``.
    """
    for path in sorted(runs_dir(results_dir).glob("*.json")):
        try:
            yield _load(path)
        except DataError as exc:
            if on_error is None:
                raise
            on_error(exc)


@functools.cache
def _umask() -> int:
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
    handle = tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp",
                                         delete=False)
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o666 & ~_umask())  # a temporary file is private; a result is not
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
