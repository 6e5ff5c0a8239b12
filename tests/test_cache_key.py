"""The kernel cache's pickles are sealed under this user's key, kept outside the cache: a sealed
file planted in (or restored into) a cache the user owns is never unpickled."""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_safety import _KERNEL_MODULE, _KERNEL_RUN, _Planted

from boostbench.system import cache_safety
from boostbench.system.cache_safety import KEY_BYTES, KEY_FILE_VARIABLE, UntrustedFile, user_key
from boostbench.system.kernel_cache import _MAGIC, _CheckedCacheFile


@pytest.fixture
def key_file(tmp_path, monkeypatch):
    path = tmp_path / "config" / "boostbench" / "cache.key"
    monkeypatch.setenv(KEY_FILE_VARIABLE, str(path))
    return path


def test_the_key_is_made_private_on_first_use_and_read_back_the_same(key_file):
    key = user_key()
    assert len(key) == KEY_BYTES and key_file.read_bytes() == key
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    cache_safety._user_key.cache_clear()
    assert user_key() == key


def test_a_key_inside_the_cache_or_readable_by_others_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOSTBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(KEY_FILE_VARIABLE, str(tmp_path / "cache" / "cache.key"))
    cache_safety._roots.cache_clear()
    with pytest.raises(UntrustedFile, match="lies inside the cache"):
        user_key()
    shared = tmp_path / "shared.key"
    shared.write_bytes(os.urandom(KEY_BYTES))
    shared.chmod(0o644)
    monkeypatch.setenv(KEY_FILE_VARIABLE, str(shared))
    with pytest.raises(UntrustedFile, match="not private to this user"):
        user_key()
    assert not (tmp_path / "cache" / "cache.key").exists()


def _forged(path: Path, payload: bytes, digest: bytes) -> None:
    """A cache file as an attacker writes it: numba's version stamp, our header, a seal, a pickle."""
    import numba

    with open(path, "wb") as handle:
        pickle.dump(numba.__version__, handle, protocol=-1)
        handle.write(_MAGIC + digest + payload)
    path.chmod(0o644)  # the user's own file, writable by no one else: every ownership rule holds


@pytest.mark.parametrize("seal", ["unkeyed sha256", "another user's key"])
def test_a_sealed_index_planted_in_a_users_own_cache_never_runs(tmp_path, key_file, seal, capfd):
    """Done when 1: the seal of the file's name and payload (the old, unkeyed one, or an HMAC under
    another key: a restored cache) does not make the pickle loadable."""
    marker = tmp_path / "ran"
    folder = tmp_path / "kernels"
    folder.mkdir(mode=0o755)
    cache = _CheckedCacheFile(str(folder), "k.add-3.py311", ("stamp", 1))
    cache.save(("sig", "arch"), ("payload", 42))  # a genuine entry, then the planted index over it
    index = folder / "k.add-3.py311.nbi"
    payload = pickle.dumps(("stamp", {("sig", "arch"): _Planted(marker)}))
    named = index.name.encode() + b"\0" + payload
    if seal == "unkeyed sha256":
        digest = hashlib.sha256(named).digest()
    else:
        digest = hmac.new(os.urandom(KEY_BYTES), named, hashlib.sha256).digest()
    _forged(index, payload, digest)
    assert cache.load(("sig", "arch")) is None
    assert not marker.exists()
    data = folder / "k.add-3.py311.1.nbc"
    _forged(data, pickle.dumps(_Planted(marker)), hashlib.sha256(data.name.encode() + b"\0").digest())
    assert cache.load(("sig", "arch")) is None and not marker.exists()


def test_a_cache_copied_from_another_user_recompiles_with_one_warning(tmp_path):
    """The cache files are whole and the user's own, but sealed under another key: compiled
    afresh after one warning, saved anew, and loaded from the cache by the next run."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tiny.py").write_text(_KERNEL_MODULE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "kernels")}

    def run(key: str) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", _KERNEL_RUN, str(tmp_path / "src")],
            env={**env, KEY_FILE_VARIABLE: str(tmp_path / key / "cache.key")},
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0 and done.stdout.startswith("5 "), done.stderr
        return done.stdout, done.stderr

    assert run("mine") == ("5 Counter()\n", "")
    assert "int64, int64): 1" in run("mine")[0]  # loaded
    out, err = run("theirs")  # the same cache under another key: a restored CI artifact
    assert "Counter()" in out and len(err.splitlines()) == 1
    assert "fails its seal" in err and "compiled afresh" in err
    assert "int64, int64): 1" in run("theirs")[0]  # saved anew under that key
