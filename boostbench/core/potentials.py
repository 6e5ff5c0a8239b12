"""Potential functions of OnlineMBBM under the multiclass 0-1 loss (Jung et al. 2017, Section 3).

``phi^r_n(s)`` is the probability that the final vote errs (0-1 loss, eq. 2: a tie with the
true label counts as an error) when the cumulative vote is ``s`` and ``n`` more votes are cast,
each drawn from ``u^r_gamma`` (label ``r`` with probability ``(1-gamma)/k + gamma``, every
other label ``(1-gamma)/k``). It satisfies eq. (3): ``phi^r_0 = L_r`` and
``phi^r_{n+1}(s) = E_{l ~ u^r_gamma} phi^r_n(s + e_l)``.

We compute it exactly (the reference code uses a 100-draw Monte Carlo estimate): condition on
the true label's count ``j ~ Binomial(n, u_r)``; the other ``n - j`` votes are uniform over the
other ``k - 1`` labels, and are split label by label (label c takes ``Binomial(rest, 1/labels_left)``)
while each must stay below the true label's final count. The binomial rows are tabulated once
(:func:`potential_tables`); the last two labels split what is left as ``Binomial(rest, 1/2)``, one
lookup in its CDF. Cost per value: ``O(n)`` for k = 3, ``O(n^2)`` for k = 4, ``O((k - 4) n^3 / 6)``
beyond. Values depend on ``s`` only through the sorted deficits ``s[r] - s[l]``, which are
memoised.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
from numba import types
from numba.typed import Dict

from boostbench.core.cost_matrix import normalized_cost_matrix
from boostbench.core.disk_cache import cache_dir, load_arrays, save_arrays
from boostbench.kernel_cache import njit


@njit(cache=True)
def _binomial_pmf_row(n: int, p: float) -> np.ndarray:  # pragma: no cover - compiled
    """``(n+1,)`` pmf of Binomial(n, p): the mode's term from log-gamma, the others by the ratio of
    neighbouring terms (one multiplication each; far tails underflow to 0)."""
    out = np.zeros(n + 1)
    if p >= 1.0:
        out[n] = 1.0
        return out
    if p <= 0.0:
        out[0] = 1.0
        return out
    q = 1.0 - p
    mode = min(int((n + 1) * p), n)
    out[mode] = math.exp(math.lgamma(n + 1) - math.lgamma(mode + 1) - math.lgamma(n - mode + 1)
                         + mode * math.log(p) + (n - mode) * math.log1p(-p))
    for j in range(mode, n):
        out[j + 1] = out[j] * (n - j) / (j + 1) * p / q
    for j in range(mode, 0, -1):
        out[j - 1] = out[j] * j / (n - j + 1) * q / p
    return out


HALF_CDF, FIRST_PMF, TRUE_PMF = 0, 1, 2  # the tables of :func:`potential_tables`


@njit(cache=True)
def potential_tables(k: int, gamma: float, max_n: int) -> np.ndarray:  # pragma: no cover - compiled
    """The binomial rows :func:`potential_01_exact` reads, ``(3, max_n+1, max_n+1)`` float64
    (entries with ``x > r`` are 0):

    - ``[HALF_CDF, r, x] = P(Binomial(r, 1/2) <= x)``: the last two labels;
    - ``[FIRST_PMF, r, x] = P(Binomial(r, 1/(k-1)) = x)``: the first other label (k >= 4);
    - ``[TRUE_PMF, r, x] = P(Binomial(r, (1-gamma)/k + gamma) = x)``: the true label.
    """
    tables = np.zeros((3, max_n + 1, max_n + 1))
    p_true = (1.0 - gamma) / k + gamma
    for r in range(max_n + 1):
        half = _binomial_pmf_row(r, 0.5)
        acc = 0.0
        for x in range(r + 1):
            acc += half[x]
            tables[HALF_CDF, r, x] = acc
        if k >= 4:
            tables[FIRST_PMF, r, : r + 1] = _binomial_pmf_row(r, 1.0 / (k - 1))
        tables[TRUE_PMF, r, : r + 1] = _binomial_pmf_row(r, p_true)
    return tables


@njit(cache=True, inline="always")  # called per vote count: no call, no reference counting
def _last_two_labels(rest, bound_a, bound_b, half_cdf):  # pragma: no cover - compiled
    """P(X <= bound_a and rest - X <= bound_b) for ``X ~ Binomial(rest, 1/2)``: the last two labels
    share the ``rest`` votes left, each must stay within its bound."""
    lo = max(rest - bound_b, 0)
    hi = min(bound_a, rest)
    if lo > hi:
        return 0.0
    return half_cdf[rest, hi] - (half_cdf[rest, lo - 1] if lo > 0 else 0.0)


@njit(cache=True)
def potential_01_exact(n: int, deficits: np.ndarray, tables: np.ndarray) -> float:  # pragma: no cover - compiled
    """``phi^r_n(s)`` for the 0-1 loss, exactly.

    Args:
        n: votes still to be cast (``N - i``), >= 0.
        deficits: ``(k-1,)`` int64, ``s[r] - s[l]`` for every ``l != r`` (any order; ascending
            is fastest: the labels with the least room are split off first).
        tables: :func:`potential_tables` of this k and gamma, with ``max_n >= n``.

    Returns:
        The probability (float64 in [0, 1]) that some other label ends with at least the true
        label's vote.
    """
    others = deficits.shape[0]
    half_cdf, first_pmf, true_pmf = tables[HALF_CDF], tables[FIRST_PMF], tables[TRUE_PMF, n]
    V = np.zeros(n + 1)  # mass by number of votes not yet placed among the other labels
    W = np.zeros(n + 1)
    correct = 0.0
    for j in range(n + 1):
        # with j votes for the true label, label c may take at most deficits[c] + j - 1 votes
        if true_pmf[j] == 0.0 or deficits[0] + j - 1 < 0:
            continue
        m = n - j
        if others == 1:
            if m <= deficits[0] + j - 1:
                correct += true_pmf[j]
            continue
        if others == 2:
            correct += true_pmf[j] * _last_two_labels(m, deficits[0] + j - 1, deficits[1] + j - 1, half_cdf)
            continue
        bound_a, bound_b = deficits[others - 2] + j - 1, deficits[others - 1] + j - 1
        if others == 3:  # the first label takes x of the m votes, the last two the rest
            mass = 0.0
            for x in range(min(m, deficits[0] + j - 1) + 1):
                mass += first_pmf[m, x] * _last_two_labels(m - x, bound_a, bound_b, half_cdf)
            correct += true_pmf[j] * mass
            continue
        V[: m + 1] = 0.0
        for x in range(min(m, deficits[0] + j - 1) + 1):
            V[m - x] = first_pmf[m, x]
        for c in range(1, others - 2):  # then every label but the last two, one at a time
            bound = deficits[c] + j - 1
            W[: m + 1] = 0.0
            p = 1.0 / (others - c)
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
        mass = 0.0
        for rest in range(m + 1):
            if V[rest] != 0.0:
                mass += V[rest] * _last_two_labels(rest, bound_a, bound_b, half_cdf)
        correct += true_pmf[j] * mass
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


@njit(cache=True, inline="always")
def _sort_small(a):  # pragma: no cover - compiled
    """Sort ``a`` (``(k-1,)`` int64) in place by insertion: a general sort's call costs more."""
    for i in range(1, a.shape[0]):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True)
def _deficit_key(n, deficits, base):  # pragma: no cover - compiled
    """``(n, clipped sorted deficits)`` as one int64: digits base ``base`` of ``deficits + n``."""
    key = n
    for d in deficits:
        key = key * base + (d + n)
    return key


@njit(cache=True)
def cost_matrix_compiled(n, s, memo, base, tables):  # pragma: no cover - compiled
    """:meth:`Potential01.cost_matrix` in numba, with the potentials memoised in ``memo``
    (``(n, deficits)`` key -> phi, see :func:`_deficit_key`; ``tables`` see
    :func:`potential_01_exact`). The Python builder
    (:meth:`Potential01.cost_matrix_reference`) is its reference.

    Returns:
        ``(D (k, k), w (k,))`` as :func:`boostbench.core.cost_matrix.normalized_cost_matrix`.
    """
    k = s.shape[0]
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
            _sort_small(deficits)
            key = _deficit_key(n, deficits, base)
            if key in memo:
                raw[r, l] = memo[key]
            else:
                value = potential_01_exact(n, deficits, tables)
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
# in the file name: a change in the key encoding or in how values are computed (2: the last two
# labels by the tabulated CDF, equal to the old values to rounding, not to the bit) starts new files
MEMO_FORMAT = 2
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


@functools.lru_cache(maxsize=8)
def shared_tables(k: int, gamma: float, max_n: int) -> np.ndarray:
    """:func:`potential_tables`, one per process for each ``(k, gamma, max_n)`` (treat as read-only)."""
    return potential_tables(int(k), float(gamma), int(max_n))


def shared_memo(k: int, gamma: float, max_n: int) -> Dict:
    """The process-wide potential memo for ``(k, gamma, max_n)`` (in memory only: the runner
    fills it from disk with :func:`load_memo` and writes it back with :func:`save_memos`)."""
    key = (int(k), float(gamma), int(max_n))
    memo = _SHARED.get(key)
    if memo is None:
        memo = Dict.empty(key_type=types.int64, value_type=types.float64)
        _SHARED[key], _SAVED[key] = memo, 0
    return memo


def load_memo(k: int, gamma: float, max_n: int) -> None:
    """Fill the shared memo of ``(k, gamma, max_n)`` from the disk cache
    (:mod:`boostbench.core.disk_cache`) if a previous run left one (once per process)."""
    key = (int(k), float(gamma), int(max_n))
    memo = shared_memo(*key)
    if _SAVED[key] == 0 and len(memo) == 0:
        stored = load_arrays(_memo_path(*key))
        if stored is not None and {"keys", "values"} <= set(stored):
            _memo_from_arrays(memo, stored["keys"].astype(np.int64), stored["values"].astype(np.float64))
        _SAVED[key] = len(memo)


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
        self.max_n = int(max_n)
        self.memo_base = 2 * self.max_n + 2
        fits = np.log2(max_n + 1) + (self.k - 1) * np.log2(self.memo_base) < 62
        self.memo = shared_memo(self.k, self.gamma, self.max_n) if fits else None
        self.tables = shared_tables(self.k, self.gamma, self.max_n)
        self.last_was_built = False

    def __getstate__(self) -> dict:
        # a numba dict does not pickle; the shared memo (and the tables) are re-attached on load
        return {**self.__dict__, "memo": self.memo is not None, "tables": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.memo = shared_memo(self.k, self.gamma, self.max_n) if state["memo"] else None
        self.tables = shared_tables(self.k, self.gamma, self.max_n)

    def _check_n(self, n: int) -> None:
        # the tables hold rows up to max_n: a larger n would read past them
        if not 0 <= n <= self.max_n:
            raise ValueError(f"n = {n} is outside [0, max_n = {self.max_n}]")

    def phi(self, n: int, s: np.ndarray, r: int) -> float:
        """``phi^r_n(s)`` for integer votes ``s`` (``(k,)``).

        Raises:
            ValueError: ``n`` outside ``[0, max_n]``.
        """
        self._check_n(n)
        return self._phi_of_deficits(n, np.sort(np.clip(s[r] - np.delete(s, r), -n, n + 1)))

    def _phi_of_deficits(self, n: int, deficits: np.ndarray) -> float:
        # Deficits beyond [-n, n+1] cannot change the outcome and the other labels are
        # exchangeable: sorted, clipped deficits key the cache.
        key = (n, deficits.astype(np.int64).tobytes())
        value = self._phi.get(key)
        if value is None:
            value = potential_01_exact(int(n), deficits.astype(np.int64), self.tables)
            self._phi[key] = value
        return value

    def cost_matrix(self, n: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """OnlineMBBM's cost matrix for a learner with ``n`` learners after it (memoised).

        Args:
            n: ``N - i`` (at most ``max_n``).
            s: ``(k,)`` int64 votes of learners ``1..i-1`` (not modified).

        Raises:
            ValueError: ``n`` outside ``[0, max_n]``.

        Returns:
            ``(D, w)``: the normalised cost matrix ``D`` (``(k, k)``, eq. 5) built from
            ``C[r, l] = phi^r_n(s + e_l)`` (eq. 4), and ``w`` (``(k,)``), where ``w[r]`` is the
            training weight ``w_i[t]`` of eq. (5) when the true label is ``r``. Treat both as
            read-only: they are shared through the cache.
        """
        self._check_n(n)
        key = (n, s.tobytes())
        entry = self._matrices.get(key)
        self.last_was_built = entry is None  # the booster times what it had to build
        if entry is None:
            if self.memo is not None:
                entry = cost_matrix_compiled(int(n), s.astype(np.int64), self.memo, self.memo_base, self.tables)
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
