"""OnlineMBBM's 0-1 potentials estimated by Monte Carlo, as the authors' reference code does.

``phi^r_n(s)`` (eq. 3; :mod:`boostbench.core.potentials` computes it exactly) is estimated by the
share of M draws ``X ~ Multinomial(n, u^r_gamma)`` after which the vote ``s + X`` errs (another
label has at least the true label's count: a tie is an error, eq. 2). Like the reference code,
an estimate is drawn once per run for each ``(n, state)`` and reused, the state keyed with the
true label first and the other labels' deficits sorted (they are exchangeable). The estimates
depend on the run's generator and on the order states are first met, so they are not shared
between runs or kept on disk.
"""

from __future__ import annotations

import numpy as np

from boostbench.core.cost_matrix import normalized_cost_matrix


class MonteCarloPotential01:
    """Monte Carlo 0-1 potentials and OnlineMBBM's cost matrices from them, for one run.

    Args:
        k: labels (>= 2); gamma: the edge in (0, 1); draws: M, draws per estimate (the
            reference code: 100); rng: the run's generator for the draws.

    Raises:
        ValueError: ``draws < 1``.
    """

    def __init__(self, k: int, gamma: float, draws: int, rng: np.random.Generator):
        if draws < 1:
            raise ValueError(f"Monte Carlo potentials need at least one draw, got {draws}")
        self.k, self.gamma, self.draws, self.rng = int(k), float(gamma), int(draws), rng
        self._phi: dict[tuple[int, bytes], float] = {}
        self._matrices: dict[tuple[int, bytes], tuple[np.ndarray, np.ndarray]] = {}
        self.last_was_built = False

    def baseline(self, r: int) -> np.ndarray:
        """``u^r_gamma``, ``(k,)``: ``(1 - gamma) / k`` on every label, plus ``gamma`` on r."""
        u = np.full(self.k, (1.0 - self.gamma) / self.k)
        u[r] += self.gamma
        return u

    def phi(self, n: int, s: np.ndarray, r: int) -> float:
        """The estimate of ``phi^r_n(s)`` for integer votes ``s`` (``(k,)``), drawn on first use."""
        deficits = np.sort(s[r] - np.delete(s, r))
        key = (int(n), deficits.astype(np.int64).tobytes())
        value = self._phi.get(key)
        if value is None:
            # the state with the true label first: label 0 gets r's votes, the others the deficits
            state = np.concatenate(([0], -deficits)).astype(np.int64)
            final = state + self.rng.multinomial(n, self.baseline(0), size=self.draws)
            value = float(np.mean(final[:, 1:].max(axis=1) >= final[:, 0]))
            self._phi[key] = value
        return value

    def cost_matrix(self, n: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(D (k, k), w (k,))`` as :meth:`boostbench.core.potentials.Potential01.cost_matrix`,
        from the estimates ``C[r, l] = phi^r_n(s + e_l)``.
        """
        key = (int(n), s.astype(np.int64).tobytes())
        entry = self._matrices.get(key)
        self.last_was_built = entry is None
        if entry is None:
            moved = s[None, :] + np.eye(self.k, dtype=np.int64)
            raw = np.array([[self.phi(n, moved[l], r) for l in range(self.k)] for r in range(self.k)])
            entry = self._matrices[key] = normalized_cost_matrix(raw)
        return entry
