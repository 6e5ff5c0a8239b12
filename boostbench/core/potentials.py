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

import numpy as np
from numba import njit

from boostbench.core.cost_matrix import normalized_cost_matrix


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


class Potential01:
    """Memoised exact 0-1 potentials for one (k, gamma).

    Args:
        k: number of labels (>= 2).
        gamma: edge in (0, 1).
    """

    def __init__(self, k: int, gamma: float):
        self.k = int(k)
        self.gamma = float(gamma)
        self._phi: dict[tuple, float] = {}
        self._matrices: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

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
            n: ``N - i``.
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
            k = self.k
            moved = s[None, :] + np.eye(k, dtype=np.int64)          # row l: s + e_l
            gaps = moved[:, :, None] - moved[:, None, :]             # [l, r, m] = moved_l[r] - moved_l[m]
            deficits = gaps[:, ~np.eye(k, dtype=bool)].reshape(k, k, k - 1)
            deficits = np.sort(np.clip(deficits, -n, n + 1), axis=2)
            raw = np.empty((k, k))
            for l in range(k):
                for r in range(k):
                    raw[r, l] = self._phi_of_deficits(n, deficits[l, r])
            entry = normalized_cost_matrix(raw)
            self._matrices[key] = entry
        return entry
