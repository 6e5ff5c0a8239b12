"""Compiled twin of Oza's online-boosting update over the compiled Hoeffding-tree pool.

The same steps as :meth:`boostbench.boosters.online_boosting.OnlineBoosting.update_reference`,
which the tests compare it with: both draw from a legacy Mersenne-Twister stream seeded per
example (numba's ``np.random`` is NumPy's ``RandomState`` algorithm by algorithm, so the two
see the same Poisson counts and uniforms).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boostbench.core.ties import pick_tie_u
from boostbench.learners.vfdt_kernels import _copy, _write_distribution, kernel, learn_trees, predict_tree


@kernel
def update(seed, x, y, P, lambda_sc, lambda_sw, weight_scale, proba, counts, route, root, node_nav, node_active, node_value, node_stats, node_classes, node_sub, node_parent, node_slot, node_last, node_depth,
           counters, free_slots, nominal_counts, numeric_stats, ranks, value_ranks, feat_map, feat_nominal, split_params,
           tree_nodes, max_nodes, work, iwork):  # pragma: no cover - compiled
    """Oza's pass over the N members for one example (see the reference for the steps).
    ``proba`` ``(k,)`` and ``counts`` ``(N,)`` are scratch."""
    np.random.seed(seed)
    lam = 1.0
    for m in range(P.shape[0]):
        presentations = np.random.poisson(lam)
        _copy(proba, P[m])
        if presentations > 0:
            counts[m] = presentations
            leaf = learn_trees(m, m + 1, x, y, counts, weight_scale, route, root, node_nav, node_active, node_value, node_stats, node_classes, node_sub, node_parent,
                               node_slot, node_last, node_depth, counters, free_slots, nominal_counts, numeric_stats,
                               ranks, value_ranks, feat_map, feat_nominal, split_params, tree_nodes, max_nodes,
                               work, iwork)
            if leaf >= 0:  # x still ends at the leaf it trained: no second walk
                _write_distribution(node_stats, node_classes, leaf, proba)
            else:
                predict_tree(m, x, proba, root, node_nav, node_value,
                             node_stats, node_classes, node_sub, node_parent, feat_map)
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
