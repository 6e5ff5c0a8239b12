"""Values a run computes that depend on nothing but their key (potentials, cost matrices), kept
on disk so that later runs, in any process, start from them. A cache is only a cache: a file
that cannot be read is ignored and one that cannot be written is skipped; files are written
atomically, and their names carry a format version so that a change of encoding starts afresh.
Each file also carries its format, its key and a checksum, verified on load: a cache may sit on a
shared disk, and a file scrambled there (or written under another key) is recomputed with a
warning, never used.
"""

from __future__ import annotations

import hashlib
import io
import sys
from pathlib import Path

import numpy as np

#: The layout of a cache file: its arrays plus ``__format__``, ``__key__`` and ``__sha256__``
#: (:func:`_digest`); a file without them, or of another format, is recomputed
FORMAT = 1
_META = ("__format__", "__key__", "__sha256__")


def _digest(key: str, arrays: dict[str, np.ndarray]) -> str:
    """sha256 (hex) of ``key`` and each array's name, dtype, shape and bytes, in name order."""
    digest = hashlib.sha256(key.encode())
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"\0{name}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.data)
    return digest.hexdigest()


def _distrust(path: Path, reason: str) -> None:
    print(f"warning: cache file {path} {reason}: not used, recomputed", file=sys.stderr, flush=True)


def load_arrays(path: Path, key: str | None = None) -> dict[str, np.ndarray] | None:
    """The arrays :func:`save_arrays` wrote to ``path`` under ``key`` (default: the file's name),
    or None if the file is missing, from before files carried a format, or (with a one-line
    warning on stderr) untrusted (:func:`boostbench.system.cache_safety.open_trusted`: another
    user's, writable by others, not a regular file), unreadable in any way, of another format or
    key, or failing its checksum: the caller recomputes the values and its next save replaces the
    file. Never unpickles, never raises.
    """
    from boostbench.system.cache_safety import UntrustedFile, open_trusted

    key = path.name if key is None else key
    try:
        with open_trusted(path) as handle, np.load(handle, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        return None
    except UntrustedFile as exc:
        _distrust(path, str(exc))
        return None
    except Exception as exc:  # a scrambled header or zip: any of numpy's and zipfile's errors
        _distrust(path, f"is unreadable ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})")
        return None
    meta = {name: arrays.pop(name, None) for name in _META}
    if all(value is None for value in meta.values()):
        return None  # written before files carried a format: recomputed, no news
    stamp = meta["__format__"]
    if stamp is None or stamp.shape != () or stamp.dtype.kind not in "iu" or int(stamp) != FORMAT:
        _distrust(path, f"is not of format {FORMAT}")
    elif meta["__key__"] is None or str(meta["__key__"]) != key:
        _distrust(path, f"holds another key ({None if meta['__key__'] is None else str(meta['__key__'])!r})")
    elif meta["__sha256__"] is None or str(meta["__sha256__"]) != _digest(key, arrays):
        _distrust(path, "fails its checksum")
    else:
        return arrays
    return None


def save_arrays(path: Path, key: str | None = None, **arrays: np.ndarray) -> bool:
    """Write ``arrays`` to ``path`` atomically, with the format, ``key`` (default: the file's
    name) and their checksum that :func:`load_arrays` verifies; False (nothing written) if that
    fails.
    """
    from boostbench.system.cache_safety import make_private_dirs
    from boostbench.system.files import atomic_write_bytes

    key = path.name if key is None else key
    buffer = io.BytesIO()
    np.savez(
        buffer, **arrays, __format__=np.int64(FORMAT), __key__=np.str_(key), __sha256__=np.str_(_digest(key, arrays))
    )
    try:
        make_private_dirs(path.parent)
        atomic_write_bytes(path, buffer.getvalue(), mode=0o644)
    except OSError:
        return False
    return True
