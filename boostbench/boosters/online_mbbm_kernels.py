"""Compiled twin of OnlineMBBM's per-example pass over its learners (Jung et al. 2017, Algorithm 1).

The cost matrices are those of :class:`boostbench.core.potentials.Potential01` (exact potentials,
memoised), kept in a table keyed by the vote vector; the kernel builds a missing one itself and
returns only when the table must grow. Potentials and tables are shared by the runs of a process
and kept on disk (:mod:`boostbench.system.disk_cache`). The Python pass (``OnlineMBBM(compiled=False)``) is the
reference it is tested against.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import types
from numba.typed import Dict

from boostbench.core.potentials import _sort_small, cost_matrix_compiled, potential_tables
from boostbench.core.ties import pick_tie_u
from boostbench.core.wide_keys import KEY_TYPE, KEY_WORDS, digits_per_word, fits, pack, row_key
from boostbench.system.disk_cache import load_arrays, save_arrays
from boostbench.system.kernel_cache import njit
from boostbench.system.paths import cache_dir


@njit(cache=True)
def vote_key(s, base, per_word):  # pragma: no cover - compiled
    """The key of the vote vector ``s`` (``(k,)`` int64, entries < ``base``):
    :func:`boostbench.core.wide_keys.pack`.
    """
    return pack(s, base, per_word, np.empty(KEY_WORDS, dtype=np.int64))


@njit(cache=True)
def _index_votes(index, s, base, per_word, row):  # pragma: no cover - compiled
    # compiled: a typed dict's item set from Python boxes the key, 100x slower
    index[vote_key(s, base, per_word)] = row


@njit(cache=True, inline="always")
def _sort_votes(s, sorted_s, position):  # pragma: no cover - compiled
    """``sorted_s``: the votes ``s`` ascending; ``position[c]``: where label c's votes went."""
    k = s.shape[0]
    sorted_s[:] = s
    _sort_small(sorted_s)
    # label c goes to the first free slot of its value, in label order (equal votes, equal rows)
    for c in range(k):
        lo = 0
        while sorted_s[lo] < s[c]:
            lo += 1
        position[c] = lo
    for c in range(k):
        for d in range(c):
            if s[d] == s[c]:
                position[c] += 1


@njit(cache=True)
def _sort_votes_of(s):  # pragma: no cover - compiled
    """:func:`_sort_votes` as a function (for tests): ``(sorted votes, positions)``."""
    sorted_s, position = np.empty_like(s), np.empty_like(s)
    _sort_votes(s, sorted_s, position)
    return sorted_s, position


@njit(cache=True)
def forward(P, u, s, start, index, D_table, w_table, base, per_word, raw, row_weights):  # pragma: no cover - compiled
    """Learners ``start, start+1, ...``: label ``argmin p_i^T D^i`` (ties by ``u[i]``), votes ``s``;
    with ``raw``, ``argmin p_i^T C^i`` on the unnormalised costs (the authors' code), the same
    as weighting ``p_i[r]`` by the row weight ``w[r]`` (``C`` and ``diag(w) D`` differ by a
    constant in each row).

    The cost matrix of votes ``s`` is that of the sorted votes with its rows and columns
    permuted (the labels other than r are exchangeable in phi^r, eq. 3): the table holds sorted
    vote vectors only, k! times fewer than the vote vectors a run meets at most.

    Args:
        P: ``(N, k)`` learners' class distributions; u: ``(N,)`` uniforms breaking ties.
        s: ``(k,)`` int64 votes of the learners before ``start``; updated in place.
        index: key of the sorted votes (:func:`vote_key` with ``base``, ``per_word``) -> row of
            ``D_table`` ``(rows, k, k)`` and ``w_table`` ``(rows, k)``, by sorted position.
        row_weights: ``(N, k)`` out (``w_i[t]`` for each true label).

    Returns:
        N when the pass is complete, else the learner whose sorted votes' cost matrix is not in
        the table yet (the caller builds it, timed apart as the cache's fill, and calls again
        from there).
    """
    n, k = P.shape
    expected = np.empty(k)
    words = np.empty(KEY_WORDS, dtype=np.int64)
    sorted_s = np.empty(k, dtype=np.int64)
    position = np.empty(k, dtype=np.int64)
    for i in range(start, n):
        _sort_votes(s, sorted_s, position)
        key = pack(sorted_s, base, per_word, words)
        if key not in index:
            return i
        row = index[key]
        D = D_table[row]
        for l in range(k):
            acc = 0.0
            for r in range(k):
                p = P[i, r] * w_table[row, position[r]] if raw else P[i, r]
                acc += p * D[position[r], position[l]]
            expected[l] = acc
        label = pick_tie_u(expected, u[i], True)
        for r in range(k):
            row_weights[i, r] = w_table[row, position[r]]
        s[label] += 1
    return n


@njit(cache=True)
def _keys_by_row(index):  # pragma: no cover - compiled
    keys = np.empty((len(index), KEY_WORDS), dtype=np.int64)
    for key, row in index.items():
        for w in range(KEY_WORDS):
            keys[row, w] = key[w]
    return keys


@njit(cache=True)
def _index_rows(index, keys):  # pragma: no cover - compiled
    for row in range(keys.shape[0]):
        index[row_key(keys, row)] = row


class CostMatrixTable:
    """OnlineMBBM's cost matrices by vote vector, in arrays the kernel reads and fills.

    The matrices depend only on (k, gamma, N), so one table serves every run of a process with
    those (:func:`shared_table`), and is kept on disk between processes (:func:`save_tables`).

    Args:
        k: labels; n_learners: N (votes are <= N, so vectors encode in base N + 1).

    Raises:
        ValueError: vote vectors too long for a key (:mod:`boostbench.core.wide_keys`; use the
            Python pass).
    """

    def __init__(self, k: int, n_learners: int):
        self.base = n_learners + 1
        self.per_word = digits_per_word(self.base)
        if not fits(k, self.base):
            raise ValueError(f"vote vectors of {k} labels and {n_learners} learners do not fit a key")
        self.index = Dict.empty(key_type=KEY_TYPE, value_type=types.int64)
        self.D = np.empty((1024, k, k))
        self.w = np.empty((1024, k))
        self.saved = 0

    def add(self, s: np.ndarray, D: np.ndarray, w: np.ndarray) -> None:
        """Keep the cost matrix ``D`` ``(k, k)`` and weights ``w`` ``(k,)`` of the votes ``s``
        (sorted ascending: :func:`forward` looks sorted votes up).
        """
        row = len(self.index)
        if row == len(self.D):
            self.grow()
        self.D[row], self.w[row] = D, w
        _index_votes(self.index, s, self.base, self.per_word, row)

    def grow(self, rows: int | None = None) -> None:
        """Room for ``rows`` matrices (default: twice as many)."""
        rows = max(rows or 0, 2 * len(self.D))
        self.D = np.concatenate([self.D, np.empty((rows - len(self.D), *self.D.shape[1:]))])
        self.w = np.concatenate([self.w, np.empty((rows - len(self.w), *self.w.shape[1:]))])

    def load(self, path: Path) -> None:
        """Take the matrices of a file :meth:`save` wrote (none if it is missing, unreadable or
        for another k).
        """
        stored = load_arrays(path)
        if (
            stored is None
            or not {"keys", "D", "w"} <= set(stored)
            or stored["D"].shape[1:] != self.D.shape[1:]
            or stored["keys"].shape[1:] != (KEY_WORDS,)
        ):
            return
        n = len(stored["keys"])
        if n > len(self.D):
            self.grow(n)
        self.D[:n], self.w[:n] = stored["D"], stored["w"]
        _index_rows(self.index, stored["keys"].astype(np.int64))
        self.saved = n

    def save(self, path: Path) -> None:
        """Write the table to ``path`` (atomically) if it grew since it was loaded or saved."""
        n = len(self.index)
        if n > self.saved and save_arrays(path, keys=_keys_by_row(self.index), D=self.D[:n], w=self.w[:n]):
            self.saved = n


TABLE_FORMAT = 4  # in the file name: a change in the keys or the potentials (as MEMO_FORMAT) starts new files
_TABLES: dict[tuple[int, float, int, int], CostMatrixTable] = {}


def _table_path(k: int, gamma: float, n_learners: int, extra: int) -> Path:
    # ``extra`` learners left (the authors' count, one more than the paper's): other matrices
    left = f"-left{extra:+d}" if extra else ""
    return cache_dir("mbbm_cost_matrices") / f"D-v{TABLE_FORMAT}-k{k}-gamma{gamma!r}-N{n_learners}{left}.npz"


def shared_table(k: int, gamma: float, n_learners: int, extra: int = 0) -> CostMatrixTable:
    """The process-wide table for ``(k, gamma, N)``, with ``extra`` learners counted as left
    after each (0: the paper's ``N - i``; in memory only: the runner fills it from disk with
    :func:`load_table` and writes it back with :func:`save_tables`).

    Raises:
        ValueError: see :class:`CostMatrixTable`.
    """
    key = (int(k), float(gamma), int(n_learners), int(extra))
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = CostMatrixTable(k, n_learners)
    return table


def load_table(k: int, gamma: float, n_learners: int, extra: int = 0) -> None:
    """Fill the shared table of ``(k, gamma, N, extra)`` from the disk cache if a previous run
    left one (once per process; nothing for a k the kernel cannot key).
    """
    try:
        table = shared_table(k, gamma, n_learners, extra)
    except ValueError:
        return
    if len(table.index) == 0:
        table.load(_table_path(int(k), float(gamma), int(n_learners), int(extra)))


def save_tables() -> None:
    """Write every table that grew since it was loaded or last written."""
    for key, table in _TABLES.items():
        table.save(_table_path(*key))


def warm_up() -> None:
    """Compile (or load from numba's disk cache) the kernel with the types a run uses."""
    table = CostMatrixTable(2, 2)
    memo = Dict.empty(key_type=KEY_TYPE, value_type=types.float64)  # private: nothing to keep
    s = np.zeros(2, dtype=np.int64)
    table.add(s, *cost_matrix_compiled(1, s, memo, 6, digits_per_word(6), potential_tables(2, 0.1, 2)))
    forward(
        np.full((2, 2), 0.5),
        np.zeros(2),
        s,
        0,
        table.index,
        table.D,
        table.w,
        table.base,
        table.per_word,
        False,
        np.zeros((2, 2)),
    )
