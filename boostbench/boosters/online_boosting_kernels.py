"""Compiled twin of Oza's online-boosting update over the compiled Hoeffding-tree pool.

The same steps as :meth:`boostbench.boosters.online_boosting.OnlineBoosting.update_reference`,
which the tests compare it with: both draw from a legacy Mersenne-Twister stream seeded per
example (numba's ``np.random`` is NumPy's ``RandomState`` algorithm by algorithm, so the two
see the same Poisson counts and uniforms).
"""

from __future__ import annotations

import numpy as np

from boostbench.core.ties import pick_tie_u
from boostbench.kernel_cache import kernel, njit
from boostbench.learners.vfdt.layout import copy_into
from boostbench.learners.vfdt.routing import forget_routes_unless, predict_tree, write_distribution
from boostbench.learners.vfdt.training import learn_trees


@kernel
def update(seed, x, y, w, P, lambda_sc, lambda_sw, unit, proba, counts, trees):  # pragma: no cover - compiled
    """Oza's pass over the N members for one example of weight ``w`` (see the reference for the
    steps), over the pool's ``trees`` (its ``kernel_state()`` after ``reserve()``: room for every
    tree to split). Member m trains with weight ``K unit[m]`` (before its ``c_m``); ``proba``
    ``(k,)`` and ``counts`` ``(N,)`` are scratch."""
    np.random.seed(seed)
    forget_routes_unless(x, trees)
    lam = w
    for m in range(P.shape[0]):
        presentations = np.random.poisson(lam)
        copy_into(proba, P[m])
        if presentations > 0:
            counts[m] = presentations * unit[m]
            leaf = learn_trees(m, m + 1, x, y, counts, trees)
            if leaf >= 0:  # x still ends at the leaf it trained: no second walk
                write_distribution(trees, leaf, proba)
            else:
                predict_tree(m, x, proba, trees)
        if pick_tie_u(proba, np.random.random(), False) == y:
            lambda_sc[m] += lam
            lam *= (lambda_sc[m] + lambda_sw[m]) / (2.0 * lambda_sc[m])
        else:
            lambda_sw[m] += lam
            lam *= (lambda_sc[m] + lambda_sw[m]) / (2.0 * lambda_sw[m])


@njit(cache=True)
def vote_odds(lambda_sc, lambda_sw, eps_floor):  # pragma: no cover - compiled
    """``(1 - eps_m) / eps_m`` with ``eps_m`` clipped to ``[eps_floor, 1/2]``, for members with
    ``eps_m < 1/2``; 1 (a vote weight of 0 after the log) for the others and the unseen: ``(N,)``."""
    odds = np.ones(lambda_sc.shape[0])
    for m in range(lambda_sc.shape[0]):
        seen = lambda_sc[m] + lambda_sw[m]
        if seen > 0.0:
            eps = lambda_sw[m] / seen
            if eps < 0.5:
                clipped = min(max(eps, eps_floor), 0.5)
                odds[m] = (1.0 - clipped) / clipped
    return odds


class CompiledUpdate:
    """Oza's update over a compiled pool as one kernel call (:func:`update`), with its scratch.

    ``update(seed, xp, y, P, lambda_sc, lambda_sw, unit, w)`` as
    :meth:`boostbench.boosters.online_boosting.OnlineBoosting.update_reference` (``lambda_sc``,
    ``lambda_sw`` ``(N,)`` updated in place).
    """

    def __init__(self, pool):
        self.pool = pool
        self._proba = np.empty(pool.n_classes)
        self._counts = np.zeros(pool.n_learners)

    def __call__(self, seed: int, xp: np.ndarray, y: int, P: np.ndarray, lambda_sc: np.ndarray,
                 lambda_sw: np.ndarray, unit: np.ndarray, w: float = 1.0) -> None:
        update(seed, xp, y, float(w), P, lambda_sc, lambda_sw, unit, self._proba, self._counts, self.pool.reserve())
