"""Potential functions of OnlineMBBM under the multiclass 0-1 loss (Jung et al. 2017, Section 3).

``phi^r_n(s)`` is the probability that the final vote errs (0-1 loss, eq. 2: a tie with the
true label counts as an error) when the cumulative vote is ``s`` and ``n`` more votes are cast,
each drawn from ``u^r_gamma`` (label ``r`` with probability ``(1-gamma)/k + gamma``, every
other label ``(1-gamma)/k``). It satisfies eq. (3): ``phi^r_0 = L_r`` and
``phi^r_{n+1}(s) = E_{l ~ u^r_gamma} phi^r_n(s + e_l)``.

We compute it exactly (the reference code uses a 100-draw Monte Carlo estimate): condition on
the true label's count ``j ~ Binomial(n, u_r)``; the other ``m = n - j`` votes are uniform over the
other ``k - 1`` labels, and each must stay below the true label's final count: label l may take
at most ``b_l = s[r] - s[l] + j - 1``. Labels with equal deficits ``s[r] - s[l]`` are exchangeable,
so they are split off as groups: a group of c of the L labels still to place takes
``Binomial(rest, c / L)`` of the ``rest`` votes, and fits with the probability that a uniform
multinomial over its c labels stays within b (:func:`potential_tables` tabulates that for every
(c, b) a value asks for, once per process). The last group takes what is left (one lookup per
``rest``); a group with room for all ``m`` ends the pass. Cost per value: ``O(G n^3 / 3)`` for G
distinct deficits beyond the last group, whatever k, against ``O((k - 4) n^3 / 6)`` label by
label (the previous version): per value, 28x faster on ISOLET-shaped states (k = 26, N = 100),
4x at k = 8, a few microseconds slower at k <= 4. Values depend on ``s`` only through the sorted
deficits, which are memoised.

What makes a cold cache cheap: the splits read tabulated binomial rows instead of multiplying
ratios; the probability that ``m`` votes fit under given caps is remembered, because a state
``(n, d)`` at true count ``j`` asks what ``(n - 1, d + 1)`` asks at ``j - 1`` (on mice 77% of that
work repeats), in slots that hold key and value in one cache line; and the hot loops make no
array views and pass few arrays (numba counts references to each with an atomic instruction).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import types
from numba.typed import Dict

from boostbench.core.cost_matrix import normalized_cost_matrix
from boostbench.core.wide_keys import KEY_TYPE, KEY_WORDS, digits_per_word, pack, row_key
from boostbench.core.wide_keys import fits as keys_fit
from boostbench.system.disk_cache import load_arrays, save_arrays
from boostbench.system.kernel_cache import njit
from boostbench.system.paths import cache_dir

TRUE_PMF = 0  # fits[TRUE_PMF, r, x] = P(Binomial(r, (1-gamma)/k + gamma) = x): the true label
BINOMIAL_ROWS = 257  # binomial pmf rows tabulated per split (beyond: computed when needed)
CHAIN_BITS = 19  # 2^19 fit probabilities remembered (direct-mapped: a new one takes its slot)
CHAIN_SLOTS = 1 << CHAIN_BITS
DEFICIT, SIZE, CAP, ORDER, DIGITS, WORDS = range(6)  # rows of a value's int scratch (potential_scratch)


class PotentialTables(NamedTuple):
    """What :func:`potential_01_exact` reads and fills for one (k, gamma, max_n); see
    :func:`potential_tables`.
    """

    fits: np.ndarray
    binomials: np.ndarray
    chain_keys: np.ndarray
    chain_values: np.ndarray
    chain_base: int
    chain_per_word: int


@njit(cache=True)
def _binomial_pmf_into(out, n, p):  # pragma: no cover - compiled
    """``Binomial(n, p)`` pmf into ``out[:n+1]``: the mode's term from log-gamma, the others by the
    ratio of neighbouring terms (one multiplication each; far tails underflow to 0).
    """
    out[: n + 1] = 0.0
    if p >= 1.0:
        out[n] = 1.0
        return
    if p <= 0.0:
        out[0] = 1.0
        return
    q = 1.0 - p
    mode = min(int((n + 1) * p), n)
    out[mode] = math.exp(
        math.lgamma(n + 1)
        - math.lgamma(mode + 1)
        - math.lgamma(n - mode + 1)
        + mode * math.log(p)
        + (n - mode) * math.log1p(-p)
    )
    for j in range(mode, n):
        out[j + 1] = out[j] * (n - j) / (j + 1) * p / q
    for j in range(mode, 0, -1):
        out[j - 1] = out[j] * j / (n - j + 1) * q / p


@njit(cache=True)
def _fit_tables(k, gamma, max_n):  # pragma: no cover - compiled
    R = max(max_n, k) + 1
    fits = np.zeros((k + 1, R, R))
    p_true = (1.0 - gamma) / k + gamma
    for r in range(max_n + 1):
        _binomial_pmf_into(fits[TRUE_PMF, r], r, p_true)
    return fits


def potential_tables(k: int, gamma: float, max_n: int) -> PotentialTables:
    """The tables :func:`potential_01_exact` reads and fills, for ``R = max(max_n, k) + 1``:

    - ``fits``, float64 ``(k + 1, R, R)``: ``[TRUE_PMF, r, x]`` is the true label's
      ``Binomial(r, (1-gamma)/k + gamma)`` pmf (x <= r); ``[c, b, y]`` for ``1 <= c <= k - 1`` is
      the probability that ``y`` votes cast uniformly over ``c`` labels give none more than ``b``
      (filled when a value first needs ``(c, b)``; ``[k, c, b]`` is 1 once it is);
    - ``binomials``, float64 ``(k, k, B, B)``, ``B = min(R, BINOMIAL_ROWS)``: ``[c, L, rest, y]``
      is the ``Binomial(rest, c / L)`` pmf, the share of ``rest`` votes a group of ``c`` of ``L``
      labels takes (filled per ``(c, L)`` on first use; ``[c, L, 0, 0]`` is 1 once it is);
    - ``chain_keys`` int64 ``(CHAIN_SLOTS, W + 1)`` and ``chain_values``, its float64 view: the
      probability that ``m`` votes fit under given caps, remembered by ``(m, caps)``: a slot holds
      the key's ``W`` words (digits in base ``chain_base``; all-zero is an empty slot) and, in its
      last column, the value. Values of neighbouring states share them (``(n, d)`` at true count
      ``j`` asks what ``(n - 1, d + 1)`` asks at ``j - 1``). ``chain_base`` is 0 when the keys
      would not fit: nothing is remembered.

    Pages of the zero-filled arrays cost memory only once written (8 MiB of chain slots at k = 8,
    N = 100; 16 MiB at k = 26).
    """
    R = max(max_n, k) + 1
    B = min(R, BINOMIAL_ROWS)
    base = max(max_n, 1) + 1  # digits m and caps, all <= max_n
    per_word = digits_per_word(base)
    chain = keys_fit(k, base)
    # a slot is its key's words and the value's bits: one cache line holds both
    slots = np.zeros((CHAIN_SLOTS, -(-k // per_word) + 1) if chain else (1, 2), dtype=np.int64)
    return PotentialTables(
        fits=_fit_tables(k, gamma, max_n),
        binomials=np.zeros((k, k, B, B)),
        chain_keys=slots,
        chain_values=slots.view(np.float64),
        chain_base=base if chain else 0,
        chain_per_word=per_word,
    )


@njit(cache=True)
def _fill_group_fit(fits, c, b, row):  # pragma: no cover - compiled
    """Fill ``fits[c, b]`` (see :func:`potential_tables`) and the rows of fewer labels it needs:
    with c labels, the first takes ``x ~ Binomial(y, 1/c)`` (at most b), the other c - 1 the rest.
    """
    filled = fits[fits.shape[0] - 1]
    start = 1
    while start < c and filled[start, b] != 0.0:
        start += 1
    size = fits.shape[2]
    for cc in range(start, c + 1):
        fit = fits[cc, b]
        below = fits[cc - 1, b]
        for y in range(size):
            if y <= b:
                fit[y] = 1.0
            elif cc == 1 or y > cc * b:
                fit[y] = 0.0
            else:
                _binomial_pmf_into(row, y, 1.0 / cc)
                acc = 0.0
                for x in range(b + 1):
                    acc += row[x] * below[y - x]
                fit[y] = acc
        filled[cc, b] = 1.0


@njit(cache=True)
def _fill_split_rows(binomials, c, left):  # pragma: no cover - compiled
    """Fill the ``Binomial(rest, c / left)`` rows of ``binomials[c, left]``."""
    for rest in range(binomials.shape[2]):
        _binomial_pmf_into(binomials[c, left, rest], rest, c / left)


# The hot loops below index the tables by scalars, never through a row view: each view (and each
# array passed down) cost an atomic reference count, a third of a cold fill. The two that allocate
# nothing are also compiled without reference counting (_nrt=False).
@njit(cache=True, _nrt=False)
def _fit_chain(m, G, K, ints, mass_by_rest, fits, binomials):  # pragma: no cover - compiled
    """The probability that ``m`` votes cast uniformly over the ``K`` other labels leave each label
    of group g (``ints[SIZE, g]`` labels, caps ``ints[CAP, g]`` ascending, ``>= 0``) at most its cap.

    Groups are placed one by one: a group of c of the L labels still to place takes
    ``Binomial(rest, c / L)`` of the ``rest`` votes and fits with ``fits[c, cap]``. ``ints[ORDER]``
    and ``mass_by_rest`` (float64 ``(3, >= m + 1)``: the mass by the votes not yet
    placed before and after a group, and a row for pmfs) are scratch; ``fits`` and ``binomials``
    as :func:`potential_tables`.
    """
    last = fits.shape[0] - 1  # fits[last, c, b] != 0: fits[c, b] is filled
    rows = binomials.shape[2]
    # the last group costs O(m), the others O(m^2): the costliest goes last, unless a group has
    # room for all m votes (then it, and every group after it, fits whatever is left)
    for g in range(G):
        ints[ORDER, g] = g
    if ints[CAP, G - 1] < m:
        worst = 0
        for g in range(G):  # the cost of a split grows with the votes a group can hold, c * cap
            if ints[SIZE, g] * ints[CAP, g] > ints[SIZE, worst] * ints[CAP, worst]:
                worst = g
        for g in range(worst, G - 1):
            ints[ORDER, g] = g + 1
        ints[ORDER, G - 1] = worst
    now = 0  # mass_by_rest[now] is the mass before the group, [1 - now] after it
    for i in range(m + 1):
        mass_by_rest[now, i] = 0.0
    mass_by_rest[now, m] = 1.0
    low = m  # the mass is 0 below low and above m
    left = K  # labels not yet placed
    mass = 0.0
    for step in range(G):
        g = ints[ORDER, step]
        c, b = ints[SIZE, g], ints[CAP, g]
        if b >= m:
            for rest in range(low, m + 1):
                mass += mass_by_rest[now, rest]
            return mass
        if fits[last, c, b] == 0.0:
            _fill_group_fit(fits, c, b, mass_by_rest[2])
        if step == G - 1:  # the last group takes what is left
            for rest in range(low, m + 1):
                mass += mass_by_rest[now, rest] * fits[c, b, rest]
            return mass
        # the group's share of rest votes, from the tabulated rows (a row computed beyond them)
        if binomials[c, left, 0, 0] == 0.0:
            _fill_split_rows(binomials, c, left)
        room = c * b
        after = 1 - now
        for i in range(m + 1):
            mass_by_rest[after, i] = 0.0
        for rest in range(low, m + 1):
            v = mass_by_rest[now, rest]
            if v == 0.0:
                continue
            if rest < rows:
                for y in range(min(rest, room) + 1):
                    mass_by_rest[after, rest - y] += v * binomials[c, left, rest, y] * fits[c, b, y]
            else:
                _binomial_pmf_into(mass_by_rest[2], rest, c / left)
                for y in range(min(rest, room) + 1):
                    mass_by_rest[after, rest - y] += v * mass_by_rest[2, y] * fits[c, b, y]
        now = after
        low = max(low - room, 0)
        left -= c
    return mass


@njit(cache=True)
def potential_scratch(k, size):  # pragma: no cover - compiled
    """Scratch of :func:`potential_01_into` for ``k`` labels and tables of row length ``size``
    (``fits.shape[2]``): int64 ``(6, max(k, KEY_WORDS))`` and float64 ``(3, size)``. A cost
    matrix's values share one (allocating them per value cost a few percent of a cold cache's fill).
    """
    return np.empty((6, max(k, KEY_WORDS)), dtype=np.int64), np.empty((3, size))


@njit(cache=True)
def potential_01_exact(n, deficits, tables):  # pragma: no cover - compiled
    """``phi^r_n(s)`` for the 0-1 loss, exactly (see the module docstring).

    Args:
        n: votes still to be cast (``N - i``), >= 0.
        deficits: ``(k-1,)`` int64, ``s[r] - s[l]`` for every ``l != r``, sorted ascending.
        tables: :func:`potential_tables` of this k and gamma, with ``max_n >= n`` (filled further).

    Returns:
        The probability (float64 in [0, 1]) that some other label ends with at least the true
        label's vote.
    """
    ints, floats = potential_scratch(deficits.shape[0] + 1, tables.fits.shape[2])
    return potential_01_into(n, deficits, tables, ints, floats)


@njit(cache=True, _nrt=False)
def potential_01_into(n, deficits, tables, ints, floats):  # pragma: no cover - compiled
    """:func:`potential_01_exact` with its scratch passed in (:func:`potential_scratch`)."""
    K = deficits.shape[0]
    fits, binomials = tables.fits, tables.binomials
    chain_keys, chain_values = tables.chain_keys, tables.chain_values
    true_pmf = fits[TRUE_PMF, n]
    group_deficit, group_size, caps = ints[DEFICIT], ints[SIZE], ints[CAP]
    digits, words = ints[DIGITS, : K + 1], ints[WORDS]
    G = 0
    for i in range(K):
        if G > 0 and deficits[i] == group_deficit[G - 1]:
            group_size[G - 1] += 1
        else:
            group_deficit[G], group_size[G] = deficits[i], 1
            G += 1
    base = tables.chain_base
    per_word = tables.chain_per_word
    n_words = chain_keys.shape[1] - 1  # a slot: the key's words, then the value
    correct = 0.0
    for j in range(n + 1):
        # with j votes for the true label, a label with deficit d may take at most d + j - 1
        if true_pmf[j] == 0.0 or group_deficit[0] + j - 1 < 0:
            continue
        m = n - j
        binding = 0
        for g in range(G):
            caps[g] = group_deficit[g] + j - 1
            binding += caps[g] < m
        if binding == 0:  # every label has room for all m votes: they fit (as _fit_chain says)
            correct += true_pmf[j]
            continue
        if base == 0 or binding < 3:  # no split of O(m^2): cheaper than a lookup
            correct += true_pmf[j] * _fit_chain(m, G, K, ints, floats, fits, binomials)
            continue
        # the key: digits m, then every label's cap (at most m)
        digits[0] = m
        i = 1
        for g in range(G):
            for _ in range(group_size[g]):
                digits[i] = min(caps[g], m)
                i += 1
        pack(digits, base, per_word, words)
        h = np.uint64(0)  # the slot: multiplicative hashing of the words
        for w in range(n_words):
            h = (h ^ np.uint64(words[w])) * np.uint64(0x9E3779B97F4A7C15)
        slot = np.int64(h >> np.uint64(64 - CHAIN_BITS))
        same = True
        for w in range(n_words):
            same = same and chain_keys[slot, w] == words[w]
        if same:
            fit = chain_values[slot, n_words]
        else:
            fit = _fit_chain(m, G, K, ints, floats, fits, binomials)
            for w in range(n_words):
                chain_keys[slot, w] = words[w]
            chain_values[slot, n_words] = fit
        correct += true_pmf[j] * fit
    return min(1.0, max(0.0, 1.0 - correct))


def potential_01_monte_carlo(
    n: int, s: np.ndarray, r: int, gamma: float, n_draws: int, rng: np.random.Generator
) -> float:
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
    """Sort ``a`` (``(k,)`` int64) in place by insertion: a general sort's call costs more (deficits
    here, vote vectors in OnlineMBBM's forward kernel).
    """
    for i in range(1, a.shape[0]):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True, inline="always")
def _deficit_key(n, deficits, base, per_word, digits, words):  # pragma: no cover - compiled
    """The memo key of ``(n, clipped sorted deficits)``: digits ``n, deficits + n`` (each below
    ``base = 2 N + 2``) packed by :func:`boostbench.core.wide_keys.pack`; ``digits`` (``(k,)``)
    and ``words`` are int64 scratch.
    """
    digits[0] = n
    for i in range(deficits.shape[0]):
        digits[i + 1] = deficits[i] + n
    return pack(digits, base, per_word, words)


@njit(cache=True)
def cost_matrix_compiled(n, s, memo, base, per_word, tables):  # pragma: no cover - compiled
    """:meth:`Potential01.cost_matrix` in numba, with the potentials memoised in ``memo``
    (``(n, deficits)`` key -> phi, see :func:`_deficit_key`, with ``base`` and ``per_word``;
    ``tables`` see :func:`potential_01_exact`). The Python builder
    (:meth:`Potential01.cost_matrix_reference`) is its reference.

    Returns:
        ``(D (k, k), w (k,))`` as :func:`boostbench.core.cost_matrix.normalized_cost_matrix`.
    """
    k = s.shape[0]
    raw = np.empty((k, k))
    moved = s.copy()
    deficits = np.empty(k - 1, dtype=np.int64)
    digits = np.empty(k, dtype=np.int64)
    words = np.empty(KEY_WORDS, dtype=np.int64)
    ints, floats = potential_scratch(k, tables.fits.shape[2])
    for l in range(k):
        moved[l] += 1
        for r in range(k):
            j = 0
            for m in range(k):
                if m != r:
                    deficits[j] = min(max(moved[r] - moved[m], -n), n + 1)
                    j += 1
            _sort_small(deficits)
            key = _deficit_key(n, deficits, base, per_word, digits, words)
            value = memo.get(key, -1.0)  # one lookup (potentials are >= 0)
            if value < 0.0:
                value = potential_01_into(n, deficits, tables, ints, floats)
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
# labels by the tabulated CDF; 3: labels by groups of equal deficits, keys of several words; the
# values equal to the old ones to rounding, not to the bit; 4: tabulated binomial rows, the same
# to rounding) starts new files
MEMO_FORMAT = 4
_SHARED: dict[tuple[int, float, int], Dict] = {}
_SAVED: dict[tuple[int, float, int], int] = {}


def _memo_path(k: int, gamma: float, max_n: int) -> Path:
    return cache_dir("potentials") / f"phi01-v{MEMO_FORMAT}-k{k}-gamma{gamma!r}-maxn{max_n}.npz"


@njit(cache=True)
def _memo_to_arrays(memo):  # pragma: no cover - compiled
    keys = np.empty((len(memo), KEY_WORDS), dtype=np.int64)
    values = np.empty(len(memo))
    i = 0
    for key, value in memo.items():
        for w in range(KEY_WORDS):
            keys[i, w] = key[w]
        values[i] = value
        i += 1
    return keys, values


@njit(cache=True)
def _memo_from_arrays(memo, keys, values):  # pragma: no cover - compiled
    for i in range(keys.shape[0]):
        memo[row_key(keys, i)] = values[i]


@functools.lru_cache(maxsize=8)
def shared_tables(k: int, gamma: float, max_n: int) -> PotentialTables:
    """:func:`potential_tables`, one per process for each ``(k, gamma, max_n)`` (the potentials fill
    it further as they need it).
    """
    return potential_tables(int(k), float(gamma), int(max_n))


def shared_memo(k: int, gamma: float, max_n: int) -> Dict:
    """The process-wide potential memo for ``(k, gamma, max_n)`` (in memory only: the runner
    fills it from disk with :func:`load_memo` and writes it back with :func:`save_memos`).
    """
    key = (int(k), float(gamma), int(max_n))
    memo = _SHARED.get(key)
    if memo is None:
        memo = Dict.empty(key_type=KEY_TYPE, value_type=types.float64)
        _SHARED[key], _SAVED[key] = memo, 0
    return memo


def load_memo(k: int, gamma: float, max_n: int) -> None:
    """Fill the shared memo of ``(k, gamma, max_n)`` from the disk cache
    (:mod:`boostbench.system.disk_cache`) if a previous run left one (once per process).
    """
    key = (int(k), float(gamma), int(max_n))
    memo = shared_memo(*key)
    if _SAVED[key] == 0 and len(memo) == 0:
        stored = load_arrays(_memo_path(*key))
        if stored is not None and {"keys", "values"} <= set(stored) and stored["keys"].shape[1:] == (KEY_WORDS,):
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
    :attr:`memo`) when the memo keys fit (:mod:`boostbench.core.wide_keys`: k <= 48 at N = 100,
    k <= 30 at N = 1000), else in Python (``memo`` is None).

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
        self.memo_per_word = digits_per_word(self.memo_base)
        self.memo = shared_memo(self.k, self.gamma, self.max_n) if keys_fit(self.k, self.memo_base) else None
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
                entry = cost_matrix_compiled(
                    int(n), s.astype(np.int64), self.memo, self.memo_base, self.memo_per_word, self.tables
                )
            else:
                entry = self.cost_matrix_reference(n, s)
            self._matrices[key] = entry
        return entry

    def cost_matrix_reference(self, n: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`cost_matrix` in numpy, not memoised (the reference of the compiled builder)."""
        k = self.k
        moved = s[None, :] + np.eye(k, dtype=np.int64)  # row l: s + e_l
        gaps = moved[:, :, None] - moved[:, None, :]  # [l, r, m] = moved_l[r] - moved_l[m]
        deficits = gaps[:, ~np.eye(k, dtype=bool)].reshape(k, k, k - 1)
        deficits = np.sort(np.clip(deficits, -n, n + 1), axis=2)
        raw = np.empty((k, k))
        for l in range(k):
            for r in range(k):
                raw[r, l] = self._phi_of_deficits(n, deficits[l, r])
        return normalized_cost_matrix(raw)
