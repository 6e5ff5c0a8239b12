"""Projected online gradient descent on a learner's vote weight alpha (Zinkevich 2003)."""

from __future__ import annotations

import math

import numpy as np

from boostbench.system.kernel_cache import njit


def project(alpha, bound: float = 2.0):
    """Projection onto the feasible set ``F = [-bound, bound]`` (Jung et al.: [-2, 2]).

    ``alpha`` is a float or an ``(N,)`` array (every learner at once).
    """
    if isinstance(alpha, np.ndarray):
        return np.clip(alpha, -bound, bound)
    return max(-bound, min(bound, alpha))


def ogd_step(alpha: float, gradient: float, eta: float, bound: float = 2.0) -> float:
    """``Pi(alpha - eta * gradient)``: one projected gradient step."""
    return project(alpha - eta * gradient, bound)


@njit(cache=True)
def olm_step_size(t: int, k: int) -> float:  # compiled: Adaboost.OLM's stream kernel calls it too
    """Adaboost.OLM's step size ``eta_t = 2 sqrt(2) / ((k - 1) sqrt(t))`` (Algorithm 2, line 13).

    Args:
        t: 1-based round; k: number of labels (>= 2).
    """
    return 2.0 * math.sqrt(2.0) / ((k - 1) * math.sqrt(t))
