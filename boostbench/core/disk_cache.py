"""Values a run computes that depend on nothing but their key (potentials, cost matrices), kept
on disk so that later runs, in any process, start from them. A cache is only a cache: a file
that cannot be read is ignored and one that cannot be written is skipped; files are written
atomically, and their names carry a format version so that a change of encoding starts afresh.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np


def load_arrays(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays of an ``.npz`` file, or None if it is missing or unreadable."""
    try:
        with np.load(path) as data:
            return {name: data[name] for name in data.files}
    except (OSError, KeyError, ValueError, EOFError):
        return None


def save_arrays(path: Path, **arrays: np.ndarray) -> bool:
    """Write ``arrays`` to ``path`` atomically; False (nothing written) if that fails."""
    from boostbench.store import atomic_write_bytes

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    try:
        atomic_write_bytes(path, buffer.getvalue())
    except OSError:
        return False
    return True
