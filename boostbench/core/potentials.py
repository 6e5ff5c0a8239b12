"""Potential functions of OnlineMBBM under the multiclass 0-1 loss (Jung et al. 2017, Section 3).

``phi^r_n(s)`` is the probability that the final vote errs (0-1 loss, eq. 2: a tie with the
true label counts as an error) when the cumulative vote is ``s`` and ``n`` more votes are cast,
each drawn from ``u^r_gamma`` (label ``r`` with probability ``(1-gamma)/k + gamma``, every
other label ``(1-gamma)/k``). It satisfies eq. (3): ``phi^r_0 = L_r`` and
``phi^r_{n+1}(s) = E_{l ~ u^r_gamma} phi^r_n(s + e_l)``.

We compute it exactly (the reference code uses a 100-draw Monte Carlo estimate): condition on
the true label's count ``j ~ Binomial(n, u_r)``; the other ``n - j`` votes are uniform over the
other ``k - 1`` labels, and are split cell by cell (cell c takes ``Binomial(rest, 1/cells_left)``)
while each cell must stay below the true label's final count. Cost ``O(k n^3 / 6)`` per value;
values depend on ``s`` only through the sorted deficits ``s[r] - s[l]``, which are memoised.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numba import njit, types
from numba.typed import Dict

from boostbench.core.cost_matrix import normalized_cost_matrix
from boostbench.core.disk_cache import cache_dir, load_arrays, save_arrays


@njit(cache=True)
def _binomial_pmf_row(n: int, p: float) -> np.ndarray:  # pragma: no cover - compiled
    out = np.zeros(n + 1)
    if p >= 1.0:
        out[n] = 1.0
        return out
    if p <= 0.0:
        out[0] = 1.0
        return out
    log_p, log_q = np.log(p), np.log1p(-p)
    for j in range(n + 1):
        log_choose = math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
        out[j] = np.exp(log_choose + j * log_p + (n - j) * log_q)
    return out


@njit(cache=True)
def potential_01_exact(n: int, deficits: np.ndarray, k: int, gamma: float) -> float:  # pragma: no cover
    """``phi^r_n(s)`` for the 0-1 loss, exactly.

    Args:
        n: votes still to be cast (``N - i``), >= 0.
        deficits: ``(k-1,)`` int64, ``s[r] - s[l]`` for every ``l != r`` (any order).
        k: number of labels.
        gamma: edge in (0, 1).

    Returns:
        The probability (float64 in [0, 1]) that some other label ends with at least the true
        label's vote.
    """
    p_true = (1.0 - gamma) / k + gamma
    pmf_true = _binomial_pmf_row(n, p_true)
    V = np.zeros(n + 1)
    W = np.zeros(n + 1)
    correct = 0.0
    for j in range(n + 1):
        if pmf_true[j] == 0.0:
            continue
        m = n - j
        V[: m + 1] = 0.0
        V[m] = 1.0  # mass by number of votes not yet placed among the other labels
        alive = True
        for c in range(k - 1):
            bound = deficits[c] + j - 1  # this label may take at most `bound` votes
            if bound < 0:
                alive = False
                break
            cells_left = k - 1 - c
            W[: m + 1] = 0.0
            if cells_left == 1:  # the last label takes every remaining vote
                for rest in range(min(m, bound) + 1):
                    W[0] += V[rest]
            else:
                p = 1.0 / cells_left
                ratio = p / (1.0 - p)
                for rest in range(m + 1):
                    v = V[rest]
                    if v == 0.0:
                        continue
                    pmf = (1.0 - p) ** rest
                    for x in range(min(rest, bound) + 1):
                        W[rest - x] += v * pmf
                        pmf *= ratio * (rest - x) / (x + 1)
            V, W = W, V
        if alive:
            correct += pmf_true[j] * V[0]
    return min(1.0, max(0.0, 1.0 - correct))


def potential_01_monte_carlo(n: int, s: np.ndarray, r: int, gamma: float, n_draws: int,
                             rng: np.random.Generator) -> float:
    """Monte Carlo estimate of ``phi^r_n(s)`` (the reference code's method); for tests only.

    Args:
        n: votes still to be cast; s: ``(k,)`` cumulative votes; r: true label;
        gamma: edge; n_draws: multinomial draws; rng: generator.
    """
    k = len(s)
    u = np.full(k, (1.0 - gamma) / k)
    u[r] += gamma
    final = s[None, :] + rng.multinomial(n, u, size=n_draws)
    others = np.delete(final, r, axis=1).max(axis=1)
    return float(np.mean(others >= final[:, r]))


@njit(cache=True)
def _deficit_key(n, deficits, base):  # pragma: no cover - compiled
    """``(n, clipped sorted deficits)`` as one int64: digits base ``base`` of ``deficits + n``."""
    key = n
    for d in deficits:
        key = key * base + (d + n)
    return key


@njit(cache=True)
def cost_matrix_compiled(n, s, k, gamma, memo, base):  # pragma: no cover - compiled
    """:meth:`Potential01.cost_matrix` in numba, with the potentials memoised in ``memo``
    (``(n, deficits)`` key -> phi, see :func:`_deficit_key`). The Python builder
    (:meth:`Potential01.cost_matrix_reference`) is its reference.

    Returns:
        ``(D (k, k), w (k,))`` as :func:`boostbench.core.cost_matrix.normalized_cost_matrix`.
    """
    raw = np.empty((k, k))
    moved = s.copy()
    deficits = np.empty(k - 1, dtype=np.int64)
    for l in range(k):
        moved[l] += 1
        for r in range(k):
            j = 0
            for m in range(k):
                if m != r:
                    deficits[j] = min(max(moved[r] - moved[m], -n), n + 1)
                    j += 1
            deficits.sort()
            key = _deficit_key(n, deficits, base)
            if key in memo:
                raw[r, l] = memo[key]
            else:
                value = potential_01_exact(n, deficits, k, gamma)
                memo[key] = value
                raw[r, l] = value
        moved[l] -= 1
    D = np.zeros((k, k))
    w = np.zeros(k)
    for r in range(k):
        total = 0.0
        for l in range(k):
            total += raw[r, l] - raw[r, r]
        w[r] = total
        if total > 0.0:
            for l in range(k):
                D[r, l] = (raw[r, l] - raw[r, r]) / total
    return D, w


# -- potentials shared by every run of a process, and kept on disk between processes ------------
# A potential depends only on (k, gamma, n, deficits): a run's values serve every later run with
# the same k and gamma. Computing them is most of OnlineMBBM's cost on short streams.
MEMO_FORMAT = 1  # in the file name: a change in the key encoding starts new files
_SHARED: dict[tuple[int, float, int], Dict] = {}
_SAVED: dict[tuple[int, float, int], int] = {}


def _memo_path(k: int, gamma: float, max_n: int) -> Path:
    return cache_dir("potentials") / f"phi01-v{MEMO_FORMAT}-k{k}-gamma{gamma!r}-maxn{max_n}.npz"


@njit(cache=True)
def _memo_to_arrays(memo):  # pragma: no cover - compiled
    keys = np.empty(len(memo), dtype=np.int64)
    values = np.empty(len(memo))
    i = 0
    for key, value in memo.items():
        keys[i] = key
        values[i] = value
        i += 1
    return keys, values


@njit(cache=True)
def _memo_from_arrays(memo, keys, values):  # pragma: no cover - compiled
    for i in range(keys.shape[0]):
        memo[keys[i]] = values[i]


def shared_memo(k: int, gamma: float, max_n: int) -> Dict:
    """The process-wide potential memo for ``(k, gamma, max_n)``, first filled from the disk
    cache (:mod:`boostbench.core.disk_cache`) if a previous run left one."""
    key = (int(k), float(gamma), int(max_n))
    memo = _SHARED.get(key)
    if memo is None:
        memo = Dict.empty(key_type=types.int64, value_type=types.float64)
        stored = load_arrays(_memo_path(*key))
        if stored is not None and {"keys", "values"} <= set(stored):
            _memo_from_arrays(memo, stored["keys"].astype(np.int64), stored["values"].astype(np.float64))
        _SHARED[key], _SAVED[key] = memo, len(memo)
    return memo


def save_memos() -> None:
    """Write every memo that grew since it was loaded or last written."""
    for key, memo in _SHARED.items():
        if len(memo) > _SAVED[key]:
            keys, values = _memo_to_arrays(memo)
            if save_arrays(_memo_path(*key), keys=keys, values=values):
                _SAVED[key] = len(memo)


class Potential01:
    """Memoised exact 0-1 potentials for one (k, gamma).

    Cost matrices are built in numba (:func:`cost_matrix_compiled`, potentials memoised in
    :attr:`memo`) when the memo keys fit in 64 bits (``(N+1) (2N+2)^(k-1)`` for N learners, e.g.
    k <= 8 at N = 100), else in Python (``memo`` is None).

    Args:
        k: number of labels (>= 2).
        gamma: edge in (0, 1).
        max_n: the largest ``n`` asked for (N - 1 for N learners).
    """

    def __init__(self, k: int, gamma: float, max_n: int = 1000):
        self.k = int(k)
        self.gamma = float(gamma)
        self._phi: dict[tuple, float] = {}
        self._matrices: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.memo_base = 2 * max_n + 2
        fits = np.log2(max_n + 1) + (self.k - 1) * np.log2(self.memo_base) < 62
        self.memo = shared_memo(self.k, self.gamma, max_n) if fits else None

    def __getstate__(self) -> dict:
        # a numba dict does not pickle; the shared memo is re-attached on load
        return {**self.__dict__, "memo": self.memo is not None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        max_n = (self.memo_base - 2) // 2
        self.memo = shared_memo(self.k, self.gamma, max_n) if state["memo"] else None

    def phi(self, n: int, s: np.ndarray, r: int) -> float:
        """``phi^r_n(s)`` for integer votes ``s`` (``(k,)``)."""
        return self._phi_of_deficits(n, np.sort(np.clip(s[r] - np.delete(s, r), -n, n + 1)))

    def _phi_of_deficits(self, n: int, deficits: np.ndarray) -> float:
        # Deficits beyond [-n, n+1] cannot change the outcome and the other labels are
        # exchangeable: sorted, clipped deficits key the cache.
        key = (n, deficits.astype(np.int64).tobytes())
        value = self._phi.get(key)
        if value is None:
            value = potential_01_exact(int(n), deficits.astype(np.int64), self.k, self.gamma)
            self._phi[key] = value
        return value

    def cost_matrix(self, n: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """OnlineMBBM's cost matrix for a learner with ``n`` learners after it (memoised).

        Args:
            n: ``N - i`` (at most ``max_n``).
            s: ``(k,)`` int64 votes of learners ``1..i-1`` (not modified).

        Returns:
            ``(D, w)``: the normalised cost matrix ``D`` (``(k, k)``, eq. 5) built from
            ``C[r, l] = phi^r_n(s + e_l)`` (eq. 4), and ``w`` (``(k,)``), where ``w[r]`` is the
            training weight ``w_i[t]`` of eq. (5) when the true label is ``r``. Treat both as
            read-only: they are shared through the cache.
        """
        key = (n, s.tobytes())
        entry = self._matrices.get(key)
        if entry is None:
            if self.memo is not None:
                entry = cost_matrix_compiled(int(n), s.astype(np.int64), self.k, self.gamma, self.memo, self.memo_base)
            else:
                entry = self.cost_matrix_reference(n, s)
            self._matrices[key] = entry
        return entry

    def cost_matrix_reference(self, n: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`cost_matrix` in numpy, not memoised (the reference of the compiled builder)."""
        k = self.k
        moved = s[None, :] + np.eye(k, dtype=np.int64)          # row l: s + e_l
        gaps = moved[:, :, None] - moved[:, None, :]             # [l, r, m] = moved_l[r] - moved_l[m]
        deficits = gaps[:, ~np.eye(k, dtype=bool)].reshape(k, k, k - 1)
        deficits = np.sort(np.clip(deficits, -n, n + 1), axis=2)
        raw = np.empty((k, k))
        for l in range(k):
            for r in range(k):
                raw[r, l] = self._phi_of_deficits(n, deficits[l, r])
        return normalized_cost_matrix(raw)
