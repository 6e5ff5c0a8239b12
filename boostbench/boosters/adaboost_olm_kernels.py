"""Compiled twins of Adaboost.OLM's per-example loops (Jung et al. 2017, Algorithm 2).

Same arithmetic as the reference functions in :mod:`boostbench.boosters.adaboost_olm`
(``forward_reference``, ``backward_reference``), which the tests compare them with.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boostbench.core.hedge import hedge_pick, hedge_probabilities_into, hedge_update_01
from boostbench.core.ogd import olm_step_size
from boostbench.core.ties import pick_tie_u as _pick
from boostbench.learners.vfdt_kernels import _copy, kernel, learn_all, predict_all


@kernel
def _sigmoid_gap(a, b):  # pragma: no cover - compiled
    """``1 / (1 + exp(a - b))``: the cost of label b when the true label is a (eq. 9)."""
    return 1.0 / (1.0 + math.exp(a - b))


@kernel
def _forward_into(P, alpha, u, s, s_before, labels, experts, C, expected):  # pragma: no cover - compiled
    """:func:`forward` into given arrays (``s`` ``(k,)``, ``C`` ``(k, k)`` and ``expected``
    ``(k,)`` are scratch); ``u`` may be longer than ``2N``."""
    n, k = P.shape
    s[:] = 0.0
    for r in range(k):
        for l in range(k):
            if l != r:
                C[r, l] = _sigmoid_gap(s[r], s[l])
    changed = -1  # the label whose vote moved: only its row and column of C change
    for i in range(n):
        _copy(s_before[i], s)
        if changed >= 0:
            for m in range(k):
                if m != changed:
                    C[changed, m] = _sigmoid_gap(s[changed], s[m])
                    C[m, changed] = _sigmoid_gap(s[m], s[changed])
        for r in range(k):
            total = 0.0
            for l in range(k):
                if l != r:
                    total += C[r, l]
            C[r, r] = -total
        for l in range(k):
            acc = 0.0
            for r in range(k):
                acc += P[i, r] * C[r, l]
            expected[l] = acc
        labels[i] = _pick(expected, u[2 * i], True)
        changed = labels[i] if alpha[i] != 0.0 else -1
        s[labels[i]] += alpha[i]
        experts[i] = _pick(s, u[2 * i + 1], False)


@njit(cache=True)
def forward(P, alpha, u):  # pragma: no cover - compiled
    """Learners' labels and experts' predictions for one example.

    Args:
        P: ``(N, k)`` learners' class distributions; alpha: ``(N,)`` vote weights;
        u: ``(2N,)`` uniforms in [0, 1) breaking ties (argmin for learner i at ``2i``, the
            expert's argmax at ``2i + 1``).

    Returns:
        ``(s_before (N, k), labels (N,), experts (N,))``.
    """
    n, k = P.shape
    s_before = np.empty((n, k))
    labels = np.empty(n, dtype=np.int64)
    experts = np.empty(n, dtype=np.int64)
    _forward_into(P, alpha, u, np.empty(k), s_before, labels, experts, np.empty((k, k)), np.empty(k))
    return s_before, labels, experts


@kernel
def _backward_into(s_before, labels, alpha, y, eta, bound, new_alpha, weights):  # pragma: no cover - compiled
    """:func:`backward` into given arrays (``new_alpha`` may be ``alpha`` itself)."""
    n, k = s_before.shape
    for i in range(n):
        s = s_before[i]
        total = 0.0
        for j in range(k):
            if j != y:
                total += _sigmoid_gap(s[y], s[j])
        weights[i] = total / (k - 1)
        label = labels[i]
        a = alpha[i]
        if label != y:
            gradient = _sigmoid_gap(s[y], s[label] + a)
        else:
            gradient = 0.0
            for j in range(k):
                if j != y:
                    gradient -= _sigmoid_gap(s[y] + a, s[j])
        new_alpha[i] = min(bound, max(-bound, a - eta * gradient))


@njit(cache=True)
def backward(s_before, labels, alpha, y, eta, bound):  # pragma: no cover - compiled
    """OGD step on every alpha (eq. 10) and the learners' training weights ``-C_i[y, y] / (k-1)``.

    Returns:
        ``(new_alpha (N,), weights (N,))``.
    """
    n = s_before.shape[0]
    new_alpha = np.empty(n)
    weights = np.empty(n)
    _backward_into(s_before, labels, alpha, y, eta, bound, new_alpha, weights)
    return new_alpha, weights


# -- one kernel call per step over the compiled pool ------------------------------------------
# The booster's per-example path without Python in between: the pool's trees, Algorithm 2's
# loops and Hedge's compiled steps (boostbench.core.hedge).

@kernel
def predict_step(x, alpha, log_v, u, P, s, s_before, labels, experts, C, expected, p,
                 route, route_x, root, node_nav, node_value, node_stats, node_classes, node_sub,
                 node_parent, feat_map):  # pragma: no cover - compiled
    """Algorithm 2 lines 4-11 for ``x``: the trees' distributions into ``P`` (``(N, k)``),
    :func:`forward` into ``s_before``/``labels``/``experts``, Hedge's distribution into ``p``
    (``(N,)``). With ``u`` of length ``2N + 1``, returns the label of the expert drawn with
    ``u[2N]`` (:meth:`boostbench.core.hedge.Hedge.draw`'s search), else -1."""
    predict_all(x, P, route, route_x, root, node_nav, node_value, node_stats, node_classes,
                node_sub, node_parent, feat_map)
    _forward_into(P, alpha, u, s, s_before, labels, experts, C, expected)
    hedge_probabilities_into(log_v, p)
    n = p.shape[0]
    if u.shape[0] <= 2 * n:
        return -1
    return experts[hedge_pick(p, u[2 * n])]


@kernel
def update_step(x, y, eta, bound, hedge_eta, s_before, labels, experts, alpha, log_v, weights,
                route, route_x, root, node_nav, node_active, node_value, node_stats, node_classes,
                node_sub, node_parent, node_slot, node_last, node_depth, counters, free_slots,
                nominal_counts, numeric_stats, ranks, value_ranks, feat_map, feat_nominal, split_params,
                tree_nodes, max_nodes, work, iwork, weight_scale):  # pragma: no cover - compiled
    """Algorithm 2 lines 12-15 once ``y`` is revealed: the OGD step on ``alpha`` (in place),
    the training weights into ``weights``, Hedge's step on ``log_v`` (in place; 0-1 losses) and
    the trees' training (the pool must have room, see ``CompiledHoeffdingTreePool.learn``)."""
    _backward_into(s_before, labels, alpha, y, eta, bound, alpha, weights)
    hedge_update_01(log_v, experts, y, hedge_eta)
    learn_all(x, y, weights, route, route_x, root, node_nav, node_active, node_value, node_stats,
              node_classes, node_sub, node_parent, node_slot, node_last, node_depth, counters,
              free_slots, nominal_counts, numeric_stats, ranks, value_ranks, feat_map, feat_nominal,
              split_params, tree_nodes, max_nodes, work, iwork, weight_scale)


@kernel
def run_steps(X, Y, U, t, k, bound, hedge_eta, room_nodes, room_slots, hits, alpha, log_v, P, s,
              s_before, labels, experts, C, expected, p, weights, route, route_x, root, node_nav,
              node_active, node_value, node_stats, node_classes, node_sub, node_parent, node_slot,
              node_last, node_depth, counters, free_slots, nominal_counts, numeric_stats, ranks,
              value_ranks, feat_map, feat_nominal, split_params, tree_nodes, max_nodes, work, iwork,
              weight_scale):  # pragma: no cover - compiled
    """Test-then-train on the rows of ``X`` (``(m, d)``) in order: :func:`predict_step` with
    ``U[i]`` (``(2N + 1,)``), ``hits[i] = label == Y[i]``, then :func:`update_step` at round
    ``t + i + 1``. Stops early, before an example the pool may have no room for (fewer than
    ``room_nodes`` free nodes or ``room_slots`` free slots; the caller grows the pool).

    Returns:
        The number of examples done.
    """
    n_nodes, n_slots = node_nav.shape[0], nominal_counts.shape[0]
    for i in range(X.shape[0]):
        if counters[0] + room_nodes > n_nodes or counters[1] + room_slots > n_slots:
            return i
        x = X[i]
        label = predict_step(x, alpha, log_v, U[i], P, s, s_before, labels, experts, C, expected, p,
                             route, route_x, root, node_nav, node_value, node_stats, node_classes,
                             node_sub, node_parent, feat_map)
        hits[i] = label == Y[i]
        update_step(x, Y[i], olm_step_size(t + i + 1, k), bound, hedge_eta, s_before, labels, experts, alpha, log_v, weights,
                    route, route_x, root, node_nav, node_active, node_value, node_stats, node_classes,
                    node_sub, node_parent, node_slot, node_last, node_depth, counters, free_slots,
                    nominal_counts, numeric_stats, ranks, value_ranks, feat_map, feat_nominal,
                    split_params, tree_nodes, max_nodes, work, iwork, weight_scale)
    return X.shape[0]


def warm_up() -> None:
    """Compile (or load from numba's disk cache) the kernels with the types a run uses."""
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
    from boostbench.learners.pool import HoeffdingTreeParams

    s_before, labels, _ = forward(np.full((2, 3), 1 / 3), np.zeros(2), np.zeros(4))
    backward(s_before, labels, np.zeros(2), 0, 0.5, 2.0)
    params = HoeffdingTreeParams(delta=np.full(2, 0.5), tau=np.full(2, 0.5),
                                 grace_period=np.full(2, 1), weight_scale=np.ones(2))
    pool = CompiledHoeffdingTreePool(params, 3, [0, 2], capacity=8)
    step = FusedStep(pool)
    x = pool.prepare(np.array([0.5, 1.0]))
    for y in (0, 1, 2):
        step.predict(x, np.zeros(2), np.zeros(2), np.full(5, 0.5))
        step.update(x, y, 0.5, 2.0, 1.0, np.zeros(2), np.zeros(2))
    step.run(np.tile(x, (2, 1)), np.arange(2), np.full((2, 5), 0.5), 3, 2.0, 1.0, np.zeros(2), np.zeros(2),
             np.empty(2, dtype=bool))


class FusedStep:
    """Adaboost.OLM's two calls per example over a compiled pool (:func:`predict_step`,
    :func:`update_step`), with the scratch arrays they share.

    Attributes after :meth:`predict`: ``P`` ``(N, k)``, ``s_before`` ``(N, k)``, ``labels`` and
    ``experts`` ``(N,)`` int64, ``p`` ``(N,)`` Hedge's distribution.
    """

    def __init__(self, pool):
        n, k = pool.n_learners, pool.n_classes
        self.pool = pool
        self.P, self.s_before = np.empty((n, k)), np.empty((n, k))
        self.labels, self.experts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        self.p, self.weights = np.empty(n), np.empty(n)
        self._s, self._C, self._expected = np.empty(k), np.empty((k, k)), np.empty(k)

    def predict(self, xp, alpha, log_v, u) -> int:
        """Lines 4-11; ``u`` ``(2N + 1,)`` (ties, then the draw) returns the drawn expert's label,
        ``(2N,)`` returns -1."""
        return predict_step(xp, alpha, log_v, u, self.P, self._s, self.s_before, self.labels,
                            self.experts, self._C, self._expected, self.p, self.pool.route,
                            self.pool.route_x, *self.pool.tree_arrays())

    def run(self, X, Y, U, t, bound, hedge_eta, alpha, log_v, hits) -> None:
        """Test-then-train on the rows of ``X`` (float64 ``(m, d)``, labels ``Y`` int64 ``(m,)``),
        the first at round ``t + 1``, with ``U`` ``(m, 2N + 1)`` as :meth:`predict` takes them;
        ``hits`` ``(m,)`` bool receives whether each prediction was right."""
        pool = self.pool
        done = 0
        while done < len(X):
            pool.reserve()
            done += run_steps(X[done:], Y[done:], U[done:], t + done, pool.n_classes, bound, hedge_eta,
                              pool.room_per_example[0], pool.room_per_example[1], hits[done:], alpha, log_v,
                              self.P, self._s, self.s_before, self.labels, self.experts, self._C,
                              self._expected, self.p, self.weights, pool.route, pool.route_x,
                              *pool.learn_arrays(), pool.weight_scale)

    def update(self, xp, y, eta, bound, hedge_eta, alpha, log_v) -> None:
        """Lines 12-15 (``alpha`` and ``log_v`` in place)."""
        self.pool.reserve()
        update_step(xp, y, eta, bound, hedge_eta, self.s_before, self.labels, self.experts, alpha,
                    log_v, self.weights, self.pool.route, self.pool.route_x,
                    *self.pool.learn_arrays(), self.pool.weight_scale)
