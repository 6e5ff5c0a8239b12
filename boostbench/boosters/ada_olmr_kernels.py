"""Compiled twins of Ada.OLMR's per-example steps over the compiled pool (Jung & Tewari 2018,
Algorithm 3), the same arithmetic as :class:`boostbench.boosters.ada_olmr.AdaOLMR`'s numpy steps
over any pool, which the tests compare them with to the bit.

An example costs three kernel calls: :func:`expert_scores` (the trees' distributions and every
expert's scores), :func:`gradients_and_losses` (eq. 8's cost vectors and every expert's rank
loss), and after numpy's ``einsum`` (whose summation order the kernels do not copy)
:func:`step_and_train` (alpha's and Hedge's steps, then the trees' training on each relevant label).
"""

from __future__ import annotations

import numpy as np

from boostbench.core.rank_losses import logistic_rank_gradient_rows, rank_loss_rows
from boostbench.learners.vfdt.layout import Forest
from boostbench.learners.vfdt.routing import forget_routes_unless, predict_all
from boostbench.learners.vfdt.split import SPLIT
from boostbench.learners.vfdt.training import PENDING, PENDING_LEAF, learn_trees
from boostbench.system.kernel_cache import kernel


@kernel
def expert_scores(x, alpha, one_hot, H, S, trees, nb_leaves):  # pragma: no cover - compiled
    """The trees' distributions for ``x`` into ``H`` (``(N, k)``; with ``one_hot``, a basis vector
    at each one's most probable label, the first of equals, as ``np.eye(k)[H.argmax(axis=1)]``) and
    expert i's scores ``s^i = sum_{j <= i} alpha_j h^j`` into ``S`` (``(N, k)``, numpy's
    ``cumsum(alpha[:, None] * H, axis=0)``: one product, then the running sum, row by row).
    """
    predict_all(x, H, trees, False, nb_leaves)
    n, k = H.shape
    if one_hot:
        for i in range(n):
            best = 0
            for c in range(1, k):
                if H[i, c] > H[i, best]:
                    best = c
            H[i, :] = 0.0
            H[i, best] = 1.0
    for c in range(k):
        S[0, c] = alpha[0] * H[0, c]
    for i in range(1, n):
        for c in range(k):
            S[i, c] = S[i - 1, c] + alpha[i] * H[i, c]


@kernel
def gradients_and_losses(S, relevant, labels, G, losses, work):  # pragma: no cover - compiled
    """Eq. (8)'s gradients at ``s^0 = 0, s^1, ..., s^N`` into ``G`` (``(N + 1, k)``: rows 0..N-1
    are the cost vectors c^i, rows 1..N the gradients at s^i) and each expert's rank loss into
    ``losses`` (``(N,)``), for the label set ``relevant`` (``(k,)`` bool).

    ``labels`` (``(k,)`` int64) receives the relevant labels, then the irrelevant ones, each in
    ascending order; ``work`` is ``(k + 6, k)`` float64 scratch. Returns ``|Y|``.
    """
    k = relevant.shape[0]
    n_rel = 0
    for c in range(k):
        if relevant[c]:
            labels[n_rel] = c
            n_rel += 1
    n_irr = n_rel
    for c in range(k):
        if not relevant[c]:
            labels[n_irr] = c
            n_irr += 1
    rel, irr = labels[:n_rel], labels[n_rel:]
    zeros = work[0]
    zeros[:] = 0.0
    logistic_rank_gradient_rows(zeros, rel, irr, G[0], work[1:])
    for i in range(S.shape[0]):
        logistic_rank_gradient_rows(S[i], rel, irr, G[i + 1], work[1:])
    rank_loss_rows(S, rel, irr, losses)
    return n_rel


@kernel
def step_and_train(
    x, labels, n_rel, G, gradients, step, bound, losses, hedge_eta, w, first, room, alpha, log_v, weights, direct,
    trees, nb_leaves,
):  # pragma: no cover - compiled  # fmt: skip
    """Algorithm 3 after ``Y`` (from label ``first`` of ``labels[:n_rel]``, as
    :func:`gradients_and_losses` left them; at ``first = 0`` the steps before the training too):

    1. ``alpha <- Pi(alpha - step * gradients)`` onto ``[-bound, bound]`` and Hedge's step on
       ``log_v`` with the experts' rank ``losses`` (:func:`boostbench.core.hedge.hedge_update`),
       both in place;
    2. each relevant label l in turn: tree i trains on ``(x, l)`` with weight
       ``w (max(c^i) - c^i[l])`` (``c^i = G[i]``; ``weights`` float64 and ``direct`` bool
       ``(N,)`` scratch). A tree whose kept route led straight to ``x``'s leaf (no missing
       value's detour, no new leaf) keeps it for the next label unless the leaf split: the
       walk :func:`~boostbench.learners.vfdt.routing.find_leaf` would take gives that leaf.

    Stops before a label the pool may have no room for (fewer than ``room`` free nodes or slots;
    the caller reserves more and calls again with ``first`` at the label returned).

    Returns:
        The number of relevant labels trained on so far.
    """
    n = alpha.shape[0]
    if first == 0:
        for i in range(n):
            alpha[i] = min(max(alpha[i] - step * gradients[i], -bound), bound)
        top = -np.inf
        for i in range(n):
            log_v[i] = log_v[i] - hedge_eta * losses[i]
            top = max(top, log_v[i])
        for i in range(n):
            log_v[i] = log_v[i] - top
        forget_routes_unless(x, trees)
    F = Forest(*trees)
    n_nodes, n_slots = F.node_nav.shape[0], F.nominal_counts.shape[0]
    counters, route, pending = F.counters, F.route, F.pending
    for p in range(first, n_rel):
        if counters[0] + room > n_nodes or counters[1] + room > n_slots:
            return p
        label = labels[p]
        for i in range(n):
            top = G[i, 0]
            for c in range(1, G.shape[1]):
                top = max(top, G[i, c])
            weights[i] = w * (top - G[i, label])
            direct[i] = weights[i] > 0.0 and route[i, 3] == 1 and route[i, 2] == -1
        learn_trees(0, n, x, label, weights, trees, nb_leaves)
        for i in range(n):
            if direct[i] and pending[i, PENDING] != SPLIT:
                leaf = pending[i, PENDING_LEAF]
                route[i, 0], route[i, 1], route[i, 2], route[i, 3] = leaf, F.node_parent[leaf], -1, 1
    return n_rel
