"""Compiled twins of Adaboost.OLM's per-example loops (Jung et al. 2017, Algorithm 2).

Same arithmetic as the reference functions in :mod:`boostbench.boosters.adaboost_olm`
(``forward_reference``, ``backward_reference``), which the tests compare them with.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from boostbench.core.hedge import hedge_pick, hedge_probabilities_into, hedge_update_01
from boostbench.core.ogd import olm_step_size
from boostbench.core.ties import pick_tie_u as _pick
from boostbench.learners.vfdt.layout import NODES_USED, SLOTS_USED, Forest, copy_into
from boostbench.learners.vfdt.routing import forget_routes_unless, predict_all
from boostbench.learners.vfdt.training import learn_trees
from boostbench.system.kernel_cache import inlined_kernel, kernel, njit


@kernel
def _sigmoid_gap(a, b):  # pragma: no cover - compiled
    """``1 / (1 + exp(a - b))``: the cost of label b when the true label is a (eq. 9)."""
    return 1.0 / (1.0 + math.exp(a - b))


@kernel
def _forward_into(P, alpha, u, s, s_before, labels, experts, C, expected):  # pragma: no cover - compiled
    """:func:`forward` into given arrays (``s`` ``(k,)``, ``C`` ``(k, k)`` and ``expected``
    ``(k,)`` are scratch); ``u`` may be longer than ``2N``.
    """
    n, k = P.shape
    s[:] = 0.0
    for r in range(k):
        for l in range(k):
            if l != r:
                C[r, l] = _sigmoid_gap(s[r], s[l])
    changed = -1  # the label whose vote moved: only its row and column of C change
    for i in range(n):
        copy_into(s_before[i], s)
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


#: the fields of :func:`backward`'s ``variant`` (``(2,)`` float64, one array for the kernels):
#: != 0 takes the authors' gradient when a learner's label is y; a weight >= 0 fixes the first learner's
REFERENCE_GRADIENT, FIRST_WEIGHT = 0, 1
#: (FIRST_WEIGHT) no fixed weight: the first learner trains with line 14's, as the others
LINE_14_WEIGHT = -1.0


def variant_array(reference_gradient: bool, first_weight: float | None) -> np.ndarray:
    """:func:`backward`'s ``variant`` for these choices (``first_weight``: the first learner's
    weight before the pool's ``c_1``, None for line 14's).
    """
    variant = np.empty(2)
    variant[REFERENCE_GRADIENT] = float(reference_gradient)
    variant[FIRST_WEIGHT] = LINE_14_WEIGHT if first_weight is None else float(first_weight)
    return variant


@kernel
def _backward_into(s_before, labels, alpha, y, eta, bound, variant, new_alpha, weights):  # pragma: no cover - compiled
    """:func:`backward` into given arrays (``new_alpha`` may be ``alpha`` itself; ``variant`` see
    :func:`backward`).
    """
    n, k = s_before.shape
    reference_gradient = variant[REFERENCE_GRADIENT] != 0.0
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
                if j != y:  # the authors' code: the complement of the derivative (1 - each term)
                    gradient -= _sigmoid_gap(s[j], s[y] + a) if reference_gradient else _sigmoid_gap(s[y] + a, s[j])
        new_alpha[i] = min(bound, max(-bound, a - eta * gradient))
    if variant[FIRST_WEIGHT] != LINE_14_WEIGHT:  # the authors' fixed weight of the first learner
        weights[0] = variant[FIRST_WEIGHT]


@njit(cache=True)
def backward(s_before, labels, alpha, y, eta, bound, variant):  # pragma: no cover - compiled
    """OGD step on every alpha (eq. 10) and the learners' training weights ``-C_i[y, y] / (k-1)``.

    ``variant`` ``(2,)`` float64 (:func:`variant_array`): ``variant[REFERENCE_GRADIENT] != 0``
    takes the authors' gradient when a learner's label is ``y`` (see
    :func:`boostbench.boosters.adaboost_olm.backward_reference`); ``variant[FIRST_WEIGHT]``, unless
    :data:`LINE_14_WEIGHT`, replaces the first learner's weight (before the pool's ``c_1``).

    Returns:
        ``(new_alpha (N,), weights (N,))``.
    """
    n = s_before.shape[0]
    new_alpha = np.empty(n)
    weights = np.empty(n)
    _backward_into(s_before, labels, alpha, y, eta, bound, variant, new_alpha, weights)
    return new_alpha, weights


# -- one kernel call per step over the compiled pool ------------------------------------------
# The booster's per-example path without Python in between: the pool's trees (its Forest),
# Algorithm 2's loops and Hedge's compiled steps (boostbench.core.hedge).

#: :func:`backward`'s ``variant`` for the paper's Algorithm 2: eq. (10)'s gradient, no fixed first weight
PAPER_VARIANT = variant_array(False, None)


class StepArrays(NamedTuple):
    """What one step computes and the next reads, for N learners and k labels: ``P`` ``(N, k)``
    the trees' distributions, ``s_before`` ``(N, k)`` the votes before each learner, ``labels``
    and ``experts`` int64 ``(N,)``, ``p`` ``(N,)`` Hedge's distribution, ``weights`` ``(N,)`` the
    training weights; ``s`` ``(k,)``, ``C`` ``(k, k)``, ``expected`` ``(k,)`` scratch. The kernels
    take it as a plain tuple ``step`` (as they take the pool's trees, see
    :class:`~boostbench.learners.vfdt.layout.Forest`).
    """

    P: np.ndarray
    s_before: np.ndarray
    labels: np.ndarray
    experts: np.ndarray
    p: np.ndarray
    weights: np.ndarray
    s: np.ndarray
    C: np.ndarray
    expected: np.ndarray

    @classmethod
    def empty(cls, n: int, k: int) -> StepArrays:
        return cls(
            np.empty((n, k)),
            np.empty((n, k)),
            np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64),
            np.empty(n),
            np.empty(n),
            np.empty(k),
            np.empty((k, k)),
            np.empty(k),
        )


# inlined into run_steps (else compiled twice over with their callees); called from Python too
@inlined_kernel
def predict_step(x, alpha, log_v, u, step, trees, nb_leaves):  # pragma: no cover - compiled
    """Algorithm 2 lines 4-11 for ``x``: the trees' distributions (``trees``, the pool's
    :meth:`~boostbench.learners.compiled_pool.CompiledHoeffdingTreePool.kernel_state`, and its
    ``nb_leaves``) into
    ``S.P``, :func:`forward` into ``S.s_before``/``S.labels``/``S.experts``, Hedge's distribution
    into ``S.p`` (``S = StepArrays(*step)``). With ``u`` of length ``2N + 1``, returns the label of
    the expert drawn with ``u[2N]`` (:meth:`boostbench.core.hedge.Hedge.draw`'s search), else -1.
    """
    S = StepArrays(*step)
    predict_all(x, S.P, trees, False, nb_leaves)
    _forward_into(S.P, alpha, u, S.s, S.s_before, S.labels, S.experts, S.C, S.expected)
    p = S.p
    hedge_probabilities_into(log_v, p)
    n = p.shape[0]
    if u.shape[0] <= 2 * n:
        return -1
    return S.experts[hedge_pick(p, u[2 * n])]


@inlined_kernel
def update_step(
    x, y, eta, bound, variant, hedge_eta, alpha, log_v, step, trees, nb_leaves
):  # pragma: no cover - compiled
    """Algorithm 2 lines 12-15 once ``y`` is revealed: the OGD step on ``alpha`` (in place),
    the training weights into ``S.weights``, Hedge's step on ``log_v`` (in place; 0-1 losses) and
    the trees' training (the pool must have room: ``CompiledHoeffdingTreePool.reserve``).
    """
    weights_step(y, eta, bound, variant, hedge_eta, alpha, log_v, step)
    forget_routes_unless(x, trees)
    learn_trees(0, alpha.shape[0], x, y, StepArrays(*step).weights, trees, nb_leaves)


@kernel
def weights_step(y, eta, bound, variant, hedge_eta, alpha, log_v, step):  # pragma: no cover - compiled
    """:func:`update_step` but the trees' training: the OGD step on ``alpha``, the training
    weights into ``S.weights`` and Hedge's step on ``log_v``.
    """
    S = StepArrays(*step)
    _backward_into(S.s_before, S.labels, alpha, y, eta, bound, variant, alpha, S.weights)
    hedge_update_01(log_v, S.experts, y, hedge_eta)


@kernel
def run_steps(
    X, Y, U, t, k, bound, variant, hedge_eta, room, predicted, alpha, log_v, step, trees, nb_leaves
):  # pragma: no cover - compiled
    """Test-then-train on the rows of ``X`` (``(m, d)``) in order: :func:`predict_step` with
    ``U[i]`` (``(2N + 1,)``) into ``predicted[i]``, then :func:`update_step` at round
    ``t + i + 1``. Stops early, before an example the pool may have no room for (fewer than
    ``room`` free nodes or free slots; the caller grows the pool).

    Returns:
        The number of examples done.
    """
    F = Forest(*trees)
    n_nodes, n_slots = F.node_nav.shape[0], F.nominal_counts.shape[0]
    counters = F.counters
    for i in range(X.shape[0]):
        if counters[NODES_USED] + room > n_nodes or counters[SLOTS_USED] + room > n_slots:
            return i
        x = X[i]
        predicted[i] = predict_step(x, alpha, log_v, U[i], step, trees, nb_leaves)
        update_step(
            x, Y[i], olm_step_size(t + i + 1, k), bound, variant, hedge_eta, alpha, log_v, step, trees, nb_leaves
        )
    return X.shape[0]


class FusedStep:
    """Adaboost.OLM's two calls per example over a compiled pool (:func:`predict_step`,
    :func:`update_step`), with the arrays they share (``arrays``, :class:`StepArrays`, filled
    by :meth:`predict`).
    """

    def __init__(self, pool):
        self.pool = pool
        self.arrays = StepArrays.empty(pool.n_learners, pool.n_classes)
        self._step = tuple(self.arrays)  # as the kernels take it

    def predict(self, xp, alpha, log_v, u) -> int:
        """Lines 4-11; ``u`` ``(2N + 1,)`` (ties, then the draw) returns the drawn expert's label,
        ``(2N,)`` returns -1.
        """
        return predict_step(xp, alpha, log_v, u, self._step, self.pool.kernel_state(), self.pool.nb_leaves)

    def run(self, X, Y, U, t, bound, variant, hedge_eta, alpha, log_v, predicted) -> None:
        """Test-then-train on the rows of ``X`` (float64 ``(m, d)``, labels ``Y`` int64 ``(m,)``),
        the first at round ``t + 1``, with ``U`` ``(m, 2N + 1)`` as :meth:`predict` takes them;
        ``predicted`` ``(m,)`` int64 receives each prediction.
        """
        pool = self.pool
        if pool.n_threads > 1:  # the threaded training is called from Python (see learn_trees_threaded)
            for i in range(len(X)):
                predicted[i] = self.predict(X[i], alpha, log_v, U[i])
                self.update(
                    X[i], int(Y[i]), olm_step_size(t + i + 1, pool.n_classes), bound, variant, hedge_eta, alpha, log_v
                )
            return
        done = 0
        while done < len(X):
            forest = pool.reserve()
            done += run_steps(
                X[done:],
                Y[done:],
                U[done:],
                t + done,
                pool.n_classes,
                bound,
                variant,
                hedge_eta,
                pool.room_per_example,
                predicted[done:],
                alpha,
                log_v,
                self._step,
                forest,
                pool.nb_leaves,
            )

    def update(self, xp, y, eta, bound, variant, hedge_eta, alpha, log_v, w: float = 1.0) -> None:
        """Lines 12-15 (``alpha`` and ``log_v`` in place; ``variant`` see :func:`backward`); the
        trees' training weights scaled by the example's weight ``w``.
        """
        if self.pool.n_threads > 1 or w != 1.0:
            weights_step(y, eta, bound, variant, hedge_eta, alpha, log_v, self._step)
            weights = self.arrays.weights
            weights *= w  # in place: the step's array
            self.pool.learn(xp, y, weights)
        else:
            update_step(
                xp,
                y,
                eta,
                bound,
                variant,
                hedge_eta,
                alpha,
                log_v,
                self._step,
                self.pool.reserve(),
                self.pool.nb_leaves,
            )
