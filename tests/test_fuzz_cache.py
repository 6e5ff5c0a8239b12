"""Property: a cache file changed in any way (bytes flipped, cut, added; any bytes at all) loads as
what was saved or not at all, with a warning: never another value, never an exception (make fuzz
runs these at length)."""

from __future__ import annotations

import pickle
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from boostbench.system.disk_cache import load_arrays, save_arrays
from boostbench.system.kernel_cache import _CheckedCacheFile

ARRAYS = {"D": np.arange(120.0).reshape(40, 3), "keys": np.arange(40, dtype=np.int64), "name": np.str_("phi")}


@st.composite
def changes(draw, size: int) -> list[tuple[str, int, bytes]]:
    """One to four edits of a file of ``size`` bytes: a byte flipped, the file cut, bytes added."""
    edits = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "flip", "flip", "cut", "insert"]))
        edits.append((kind, draw(st.integers(0, size - 1)), draw(st.binary(min_size=1, max_size=8))))
    return edits


def _apply(data: bytes, edits) -> bytes:
    for kind, at, payload in edits:
        at = min(at, max(len(data) - 1, 0))
        if kind == "flip" and data:
            data = data[:at] + bytes([data[at] ^ (payload[0] or 1)]) + data[at + 1 :]
        elif kind == "cut":
            data = data[:at]
        else:
            data = data[:at] + payload + data[at:]
    return data


def _saved_npz() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "D-k3.npz"
        assert save_arrays(path, **ARRAYS)
        return path.read_bytes()


NPZ = _saved_npz()


@given(st.one_of(changes(len(NPZ)).map(lambda edits: _apply(NPZ, edits)), st.binary(max_size=400)))
def test_a_changed_array_file_loads_whole_or_not_at_all(content):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "D-k3.npz"
        path.write_bytes(content)
        loaded = load_arrays(path)
    if loaded is not None:
        assert set(loaded) == set(ARRAYS) and all(np.array_equal(loaded[k], v) for k, v in ARRAYS.items())


def _kernel_files() -> tuple[bytes, bytes]:
    """A kernel cache's index and data file as :class:`_CheckedCacheFile` writes them."""
    with tempfile.TemporaryDirectory() as folder:
        cache = _CheckedCacheFile(folder, "k.add-3.py311", ("stamp", 1))
        cache.save(("sig", "arch"), ("payload", 42))
        return Path(folder, "k.add-3.py311.nbi").read_bytes(), Path(folder, "k.add-3.py311.1.nbc").read_bytes()


INDEX, DATA = _kernel_files()


@given(
    st.sampled_from(["index", "data"]),
    st.one_of(changes(max(len(INDEX), len(DATA))), st.binary(max_size=300)),
)
def test_a_changed_kernel_cache_file_loads_whole_or_not_at_all(which, change):
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "k.add-3.py311.nbi").write_bytes(INDEX)
        Path(folder, "k.add-3.py311.1.nbc").write_bytes(DATA)
        target = Path(folder, "k.add-3.py311.nbi" if which == "index" else "k.add-3.py311.1.nbc")
        target.write_bytes(_apply(target.read_bytes(), change) if isinstance(change, list) else change)
        cache = _CheckedCacheFile(folder, "k.add-3.py311", ("stamp", 1))
        assert cache.load(("sig", "arch")) in (("payload", 42), None)
        assert cache.load(("other", "arch")) is None


def test_the_kernel_files_round_trip_and_their_index_names_no_global():
    """The fixture above is what the cache writes; a version stamp naming a function is refused."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "k.add-3.py311.nbi").write_bytes(INDEX)
        Path(folder, "k.add-3.py311.1.nbc").write_bytes(DATA)
        cache = _CheckedCacheFile(folder, "k.add-3.py311", ("stamp", 1))
        assert cache.load(("sig", "arch")) == ("payload", 42)
        Path(folder, "k.add-3.py311.nbi").write_bytes(pickle.dumps(print) + INDEX)
        assert cache.load(("sig", "arch")) is None
