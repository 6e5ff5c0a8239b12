"""Hedge(beta) over experts (Freund & Schapire 1997; Combessie & Machraoui, "Hedge(beta)").

The one implementation of Hedge in boostbench: Adaboost.OLM and Ada.OLMR choose their expert
with it, and the ``hedge`` algorithm runs it over the weak learners. Expert weights are kept in
log space, so long streams cannot underflow them to zero. With step size ``eta``,
``beta = exp(-eta)``: ``w_i <- w_i * beta ** loss_i``.
"""

from __future__ import annotations

import math

import numpy as np

from boostbench.system.kernel_cache import njit


def hedge_update(log_v: np.ndarray, losses: np.ndarray, eta: float) -> np.ndarray:
    """One Hedge step on log-weights: ``log v_i - eta * loss_i``, renormalised (max 0).

    Args:
        log_v: ``(N,)`` float64 log-weights.
        losses: ``(N,)`` float64 losses of the experts this round (e.g. 0-1 loss or rank loss).
        eta: step size > 0 (Jung et al. 2017, Algorithm 2 line 15, uses 1).

    Returns:
        New ``(N,)`` log-weights with maximum 0.
    """
    out = log_v - eta * losses
    return out - out.max()


def hedge_probabilities(log_v: np.ndarray) -> np.ndarray:
    """The distribution over experts, ``(N,)`` float64 summing to 1."""
    p = np.exp(log_v - log_v.max())
    return p / p.sum()


# Compiled twins of the steps above, for booster kernels that run Hedge without Python: the same
# arithmetic in the same order (libm's exp where numpy may use its SIMD exp: a probability can
# differ in the last bit, which moves a draw only if the uniform lies that close to a boundary).


@njit(cache=True, _nrt=False)
def hedge_probabilities_into(log_v, p):  # pragma: no cover - compiled
    """:func:`hedge_probabilities` of ``log_v`` (``(N,)``) into ``p`` (``(N,)``)."""
    top = log_v[0]
    for i in range(log_v.shape[0]):
        top = max(top, log_v[i])
    total = 0.0
    for i in range(log_v.shape[0]):
        p[i] = math.exp(log_v[i] - top)
        total += p[i]
    for i in range(p.shape[0]):
        p[i] = p[i] / total


@njit(cache=True, _nrt=False)
def hedge_pick(p, u):  # pragma: no cover - compiled
    """:meth:`Hedge.draw`'s search: the first i with ``cumsum(p)[i] / sum(p) > u`` (``u`` in [0, 1))."""
    last = 0.0
    for i in range(p.shape[0]):
        last += p[i]
    running = 0.0
    for i in range(p.shape[0]):
        running += p[i]
        if running / last > u:
            return i
    return p.shape[0] - 1


@njit(cache=True, _nrt=False)
def hedge_update_01(log_v, predictions, y, eta):  # pragma: no cover - compiled
    """:func:`hedge_update` in place with the 0-1 losses ``predictions[i] != y`` (``(N,)`` int64)."""
    for i in range(log_v.shape[0]):
        log_v[i] = log_v[i] - eta * (1.0 if predictions[i] != y else 0.0)
    top = log_v[0]
    for i in range(log_v.shape[0]):
        top = max(top, log_v[i])
    for i in range(log_v.shape[0]):
        log_v[i] = log_v[i] - top


def hedge_loss_bound(losses: np.ndarray, beta: float) -> float:
    """Freund & Schapire's (1997, Theorem 2) bound on Hedge(beta)'s cumulative loss.

    ``L_Hedge <= (ln(1/beta) min_i L_i + ln N) / (1 - beta)`` for losses in [0, 1], uniform
    initial weights, ``beta`` in (0, 1).

    Args:
        losses: ``(T, N)`` float64 loss of each expert in each round.
    """
    return float((np.log(1.0 / beta) * losses.sum(axis=0).min() + np.log(losses.shape[1])) / (1.0 - beta))


def hedge_run(losses: np.ndarray, beta: float) -> np.ndarray:
    """Hedge(beta)'s loss ``p_t . l_t`` in each round of a fixed loss sequence: ``(T,)`` float64."""
    hedge = Hedge.from_beta(losses.shape[1], beta)
    incurred = np.empty(len(losses))
    for t, row in enumerate(losses):
        incurred[t] = hedge.probabilities() @ row
        hedge.update(row)
    return incurred


class Hedge:
    """Stateful Hedge over ``n_experts`` experts with step size ``eta``.

    Attributes:
        log_v: ``(N,)`` current log-weights (all 0 at the start: uniform).
    """

    def __init__(self, n_experts: int, eta: float = 1.0):
        if n_experts < 1:
            raise ValueError(f"Hedge needs at least one expert, got {n_experts}")
        if not eta > 0:
            raise ValueError(f"Hedge step size must be > 0, got {eta}")
        self.eta = float(eta)
        self.log_v = np.zeros(int(n_experts))

    @classmethod
    def from_beta(cls, n_experts: int, beta: float) -> Hedge:
        """Hedge(beta) in Freund & Schapire's parametrisation, ``beta`` in (0, 1).

        Raises:
            ValueError: ``beta`` outside (0, 1).
        """
        if not 0.0 < beta < 1.0:
            raise ValueError(f"Hedge's beta must be in (0, 1), got {beta}")
        return cls(n_experts, eta=-np.log(beta))

    def probabilities(self) -> np.ndarray:
        """Current distribution over experts, ``(N,)``."""
        return hedge_probabilities(self.log_v)

    def draw(self, rng: np.random.Generator, probabilities: np.ndarray | None = None) -> int:
        """Draw an expert index with probability proportional to its weight.

        ``probabilities`` (``(N,)``), when the caller already has them, saves recomputing them.
        """
        p = self.probabilities() if probabilities is None else probabilities
        # rng.choice(len(p), p=p) without its argument checks: the same cdf, the same single
        # uniform and the same search, so the same draw from the same generator state.
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
        return int(np.searchsorted(cdf, rng.random(), side="right"))

    def update(self, losses: np.ndarray) -> None:
        """Apply the round's ``(N,)`` losses."""
        self.log_v = hedge_update(self.log_v, np.asarray(losses, dtype=np.float64), self.eta)
