"""OnlineBMR's potentials (Jung & Tewari 2018, eq. 1) for the hinge and the rank loss, exactly.

``phi^n(s) = E L^Y(s + X)`` with ``X ~ Multinomial(n, u^Y_gamma)``, where the baseline puts
``a + gamma`` on each relevant label and ``a`` on each irrelevant one, ``a = (1 - gamma |Y|) / k``
(the reference code's baseline). Both losses are sums over (relevant l, irrelevant r) pairs of a
function of ``s[r] - s[l]``, so by linearity ``phi^n(s) = w_Y sum_pairs g_n(s[r] - s[l])`` with
``g_n(d) = E f(d + D_n)``, ``D_n = X_r - X_l``. ``(X_l, X_r)`` is trinomial with the same law for
every pair, so one pmf of ``D_n`` per (n, |Y|) serves every pair: exact, and ``O(|Y| |Y^c|)``
per cost vector (the reference code draws Monte Carlo samples).

When ``gamma |Y| > 1`` the baseline is not a distribution; the edge is then capped at ``1/|Y|``
(all baseline mass on the relevant labels).
"""

from __future__ import annotations

import numpy as np

from boostbench.system.lazy import lazy_import

# compiled: loaded with the first hinge cost matrix (importing the boosters, as the config check
# does, compiles nothing)
rank_potential_kernels = lazy_import("boostbench.core.rank_potential_kernels")


def baseline(k: int, n_relevant: int, gamma: float) -> tuple[float, float]:
    """``(p_relevant, p_irrelevant)`` of ``u^Y_gamma`` for ``|Y| = n_relevant`` (edge capped at 1/|Y|)."""
    edge = min(gamma, 1.0 / n_relevant) if n_relevant else gamma
    a = (1.0 - edge * n_relevant) / k
    return a + edge, a


def difference_pmfs(n_max: int, p_rel: float, p_irr: float) -> np.ndarray:
    """Pmfs of ``D_n = X_r - X_l`` for ``(X_l, X_r, rest) ~ Multinomial(n; p_rel, p_irr, 1 - p_rel - p_irr)``
    for every ``n`` up to ``n_max`` (the recursion passes through them all).

    Returns:
        ``(n_max + 1, 2 n_max + 1)`` float64, entry ``[n, v + n_max]`` is ``P(D_n = v)``.
    """
    pmfs = np.zeros((n_max + 1, 2 * n_max + 1))
    pmfs[0, n_max] = 1.0
    stay = 1.0 - p_rel - p_irr
    for n in range(n_max):  # one vote at a time: r gains (+1), l gains (-1), or neither
        pmf = pmfs[n]
        pmfs[n + 1] = stay * pmf + p_irr * np.concatenate(([0.0], pmf[:-1])) + p_rel * np.concatenate((pmf[1:], [0.0]))
    return pmfs


def difference_pmf(n: int, p_rel: float, p_irr: float) -> np.ndarray:
    """Pmf of ``D_n`` (:func:`difference_pmfs`): ``(2n + 1,)`` float64, entry ``v + n`` is ``P(D_n = v)``."""
    return difference_pmfs(n, p_rel, p_irr)[n]


class PairPotential:
    """Memoised exact potentials of OnlineBMR for one (k, gamma, loss).

    Args:
        k: number of labels.
        gamma: edge in (0, 1).
        loss: ``"hinge"`` (for distribution-valued weak predictions, the paper's choice) or
            ``"rank"`` (for single-label ones; ties count 1/2).
        hinge_margin: ``m`` of the hinge ``f(z) = (m + z)_+`` (the paper: 1; the authors'
            code: 0).

    Raises:
        ValueError: an unknown loss or a negative margin.
    """

    def __init__(self, k: int, gamma: float, loss: str = "hinge", hinge_margin: float = 1.0):
        if loss not in ("hinge", "rank"):
            raise ValueError(f"potential loss must be 'hinge' or 'rank', got {loss!r}")
        if hinge_margin < 0:
            raise ValueError(f"hinge_margin must be >= 0, got {hinge_margin}")
        self.k, self.gamma, self.loss = int(k), float(gamma), loss
        self.margin = float(hinge_margin)
        self._tables: dict[int, tuple[int, np.ndarray, np.ndarray, np.ndarray]] = {}

    def _table(self, n: int, n_relevant: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """``(n_max, pmfs, tail_p, tail_v)`` for every ``n' <= n_max`` (at least ``n``): rows
        ``n'``, column ``j`` for the value ``j - n_max``; tail sums from column j on,
        ``P(D >= v_j)`` and ``E[D; D >= v_j]``, with a zero sentinel column.
        """
        table = self._tables.get(n_relevant)
        if table is None or table[0] < n:
            pmfs = difference_pmfs(n, *baseline(self.k, n_relevant, self.gamma))
            values = np.arange(-n, n + 1, dtype=np.float64)
            zero = np.zeros((n + 1, 1))
            tail_p = np.hstack([np.cumsum(pmfs[:, ::-1], axis=1)[:, ::-1], zero])
            tail_v = np.hstack([np.cumsum((values * pmfs)[:, ::-1], axis=1)[:, ::-1], zero])
            table = (n, pmfs, tail_p, tail_v)
            self._tables[n_relevant] = table
        return table

    def pair_terms(self, n, n_relevant: int, d: np.ndarray) -> np.ndarray:
        """``g_n(d) = E f(d + D_n)`` elementwise for margins ``d = s[r] - s[l]`` (any shape);
        ``n`` an int or an int array that broadcasts against ``d`` (one n per row, say).
        """
        n = np.asarray(n, dtype=np.int64)
        top, pmfs, tail_p, tail_v = self._table(int(n.max()), n_relevant)
        last = 2 * top + 1
        if self.loss == "hinge":  # f(z) = (m + z)_+: sum over v > -m - d of (m + d + v) pmf(v)
            first = np.clip(np.floor(-self.margin - d).astype(np.int64) + 1 + top, 0, last)
            return (self.margin + d) * tail_p[n, first] + tail_v[n, first]
        # rank: f(z) = 1(z > 0) + 1/2 1(z = 0); d + v > 0 for v > -d
        threshold = -d
        first = np.clip(np.floor(threshold).astype(np.int64) + 1 + top, 0, last)
        at = np.rint(threshold)
        exact = np.isclose(threshold, at) & (np.abs(at) <= n)
        ties = np.where(exact, pmfs[n, np.clip(at.astype(np.int64) + top, 0, 2 * top)], 0.0)
        first = np.where(exact, np.clip(at.astype(np.int64) + 1 + top, 0, last), first)
        return tail_p[n, first] + 0.5 * ties

    def phi(self, n: int, s: np.ndarray, relevant: np.ndarray) -> float:
        """``phi^n(s)`` for votes ``s`` (``(k,)`` float64) and label set ``relevant`` (``(k,)`` bool)."""
        m = int(relevant.sum())
        if m in (0, self.k):
            return 0.0
        d = s[~relevant][None, :] - s[relevant][:, None]
        return float(self.pair_terms(n, m, d).sum() / (m * (self.k - m)))

    def cost_vector(self, n: int, s: np.ndarray, relevant: np.ndarray) -> np.ndarray:
        """OnlineBMR's cost vector, eq. (2): ``c[l] = phi^n(s + e_l)`` for every label, ``(k,)``."""
        return self.cost_matrix(np.array([n]), s[None, :], relevant)[0]

    def cost_matrix(self, n: np.ndarray, S: np.ndarray, relevant: np.ndarray) -> np.ndarray:
        """Cost vectors (eq. 2) for several experts at once: row i is ``c[l] = phi^{n_i}(S_i + e_l)``.

        Args:
            n: ``(N,)`` int, the votes still to come after each expert.
            S: ``(N, k)`` float64, the experts' cumulative votes.
            relevant: ``(k,)`` bool, the label set.

        Returns:
            ``(N, k)`` float64. Adding ``e_l`` only moves the pairs that contain ``l``, so all k
            entries of a row cost one pass over the pairs. For the hinge loss the pass is compiled
            (:func:`~boostbench.core.rank_potential_kernels.hinge_cost_matrix`), to the bit
            :meth:`cost_matrix_reference`'s.
        """
        m = int(relevant.sum())
        if self.loss != "hinge" or m in (0, self.k):
            return self.cost_matrix_reference(n, S, relevant)
        rows = np.ascontiguousarray(n, dtype=np.int64)
        top, _, tail_p, tail_v = self._table(int(rows.max()), m)
        rel, irr = np.flatnonzero(relevant), np.flatnonzero(~relevant)
        out = np.empty((len(S), self.k))
        rank_potential_kernels.hinge_cost_matrix(
            rows, np.ascontiguousarray(S, dtype=np.float64), rel, irr, self.margin, top, tail_p, tail_v,
            1.0 / (m * (self.k - m)), np.empty(m * (self.k - m) + self.k), out,
        )  # fmt: skip
        return out

    def cost_matrix_reference(self, n: np.ndarray, S: np.ndarray, relevant: np.ndarray) -> np.ndarray:
        """:meth:`cost_matrix` in numpy, for either loss: the reference of the compiled pass."""
        m = int(relevant.sum())
        if m in (0, self.k):
            return np.zeros((len(S), self.k))
        w = 1.0 / (m * (self.k - m))
        # (N, |Y|, |Y^c|), C order: each row's sums then add in the order of a single expert's
        d = np.ascontiguousarray(S[:, None, ~relevant] - S[:, relevant, None])
        rows = np.asarray(n, dtype=np.int64)[:, None, None]
        G = self.pair_terms(rows, m, d)
        base = G.reshape(len(S), -1).sum(axis=1)[:, None]  # each row's pairs summed as one array
        c = np.empty((len(S), self.k))
        # a vote for relevant l lowers its margins by 1; for irrelevant r raises them by 1
        c[:, relevant] = base - G.sum(axis=2) + self.pair_terms(rows, m, d - 1.0).sum(axis=2)
        c[:, ~relevant] = base - G.sum(axis=1) + self.pair_terms(rows, m, d + 1.0).sum(axis=1)
        return w * c
