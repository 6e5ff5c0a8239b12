"""numba's cache directory is keyed by the source of every module that compiles code."""

import numba

from boostbench.system import kernel_cache


def test_digest_follows_the_compiled_modules_only(tmp_path):
    (tmp_path / "sub").mkdir()
    kernels = tmp_path / "sub" / "kernels.py"
    kernels.write_text("from numba import njit\n")
    other = tmp_path / "report.py"
    other.write_text("x = 1\n")
    before = kernel_cache.source_digest(tmp_path)
    other.write_text("x = 2\n")
    assert kernel_cache.source_digest(tmp_path) == before
    kernels.write_text("from numba import njit  # changed\n")
    assert kernel_cache.source_digest(tmp_path) != before


def test_configure_uses_a_keyed_directory_unless_the_user_chose_one(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert kernel_cache.configure() is None
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("BOOSTBENCH_CACHE", str(tmp_path))
    target = kernel_cache.configure()
    assert target is not None and target.parent == tmp_path / "numba" and target.is_dir()
    assert str(target) == numba.config.CACHE_DIR


def test_a_kernel_compiles_once_whatever_literal_values_its_callers_pass():
    @kernel_cache.njit
    def shift(x, n):  # pragma: no cover - compiled
        return x + n

    @kernel_cache.njit
    def caller(x):  # pragma: no cover - compiled
        return shift(x, 0) + shift(x, -1) + shift(x, x)

    assert caller(2) == 7 and shift(2, 3) == 5
    # numba's own dispatcher holds three: Literal[int](0), Literal[int](-1), and (int64, int64)
    assert len(shift.signatures) == 1
