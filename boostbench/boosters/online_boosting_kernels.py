"""Compiled twin of Oza's online-boosting update over the compiled Hoeffding-tree pool.

The same steps as :meth:`boostbench.boosters.online_boosting.OnlineBoosting.update_reference`,
which the tests compare it with: both draw from a legacy Mersenne-Twister stream seeded per
example (numba's ``np.random`` is NumPy's ``RandomState`` algorithm by algorithm, so the two
see the same Poisson counts and uniforms).
"""

from __future__ import annotations

import numpy as np

from boostbench.core.legacy_draws import next_double, poisson, stream_state
from boostbench.core.summation import numpy_sum
from boostbench.core.ties import argmax_draw, argmax_rows_draw, pick_tie_u
from boostbench.learners.vfdt.layout import NODES_USED, SLOTS_USED, Forest, copy_into
from boostbench.learners.vfdt.routing import forget_routes_unless, predict_all, predict_tree, write_distribution
from boostbench.learners.vfdt.training import learn_trees
from boostbench.system.kernel_cache import kernel, njit


@kernel
def update(
    seed, x, y, w, P, lambda_sc, lambda_sw, unit, proba, counts, trees, nb_leaves
):  # pragma: no cover - compiled
    """Oza's pass over the N members for one example of weight ``w`` (see the reference for the
    steps), over the pool's ``trees`` (its ``kernel_state()`` after ``reserve()``: room for every
    tree to split) and its ``nb_leaves`` (:func:`~boostbench.learners.vfdt.routing.predict_all`).
    Member m trains with weight ``K unit[m]`` (before its ``c_m``); ``proba`` ``(k,)`` and
    ``counts`` ``(N,)`` are scratch.
    """
    np.random.seed(seed)
    stream = stream_state()
    forget_routes_unless(x, trees)
    lam = w
    for m in range(P.shape[0]):
        presentations = poisson(stream, lam)
        copy_into(proba, P[m])
        if presentations > 0:
            counts[m] = presentations * unit[m]
            leaf = learn_trees(m, m + 1, x, y, counts, trees, nb_leaves)
            if leaf >= 0:  # x still ends at the leaf it trained: no second walk
                write_distribution(trees, m, leaf, x, proba, True, nb_leaves)
            else:
                predict_tree(m, x, proba, trees, True, nb_leaves)
        if pick_tie_u(proba, next_double(stream), False) == y:
            lambda_sc[m] += lam
            lam *= (lambda_sc[m] + lambda_sw[m]) / (2.0 * lambda_sc[m])
        else:
            lambda_sw[m] += lam
            lam *= (lambda_sc[m] + lambda_sw[m]) / (2.0 * lambda_sw[m])


@njit(cache=True, _nrt=False)
def vote_weights_into(lambda_sc, lambda_sw, eps_floor, out):  # pragma: no cover - compiled
    """The hard and soft votes' weights into ``out`` ``(N,)``: ``log((1 - eps_m) / eps_m)`` with
    ``eps_m`` clipped to ``[eps_floor, 1/2]`` for members with ``eps_m < 1/2``, 0 for the others
    and the unseen. The log is libm's, here and in the compiled pass alike (numpy's own SIMD log,
    picked by the CPU, is not libm's to the last bit).
    """
    for m in range(lambda_sc.shape[0]):
        out[m] = 0.0
        seen = lambda_sc[m] + lambda_sw[m]
        if seen > 0.0:
            eps = lambda_sw[m] / seen
            if eps < 0.5:
                clipped = min(max(eps, eps_floor), 0.5)
                out[m] = np.log((1.0 - clipped) / clipped)


@njit(cache=True)
def run_steps(
    X, Y, rng, room, eps_floor, P, lambda_sc, lambda_sw, unit, weights, votes, proba, counts, predicted, trees,
    nb_leaves,
):  # pragma: no cover - compiled  # fmt: skip
    """Test-then-train with the hard vote on the rows of ``X`` (``(m, d)``, labels ``Y``) in
    order, as :meth:`~boostbench.boosters.online_boosting.OnlineBoosting.predict` then
    ``update`` do, with the same draws from ``rng`` (the booster's NumPy ``Generator``): the
    members' ties, the vote's tie, the example's seed. ``predicted[i]`` receives each label;
    ``weights`` ``(N,)`` and ``votes`` ``(k,)`` are scratch (others as :func:`update`). Stops
    early, before an example the pool may have no room for (fewer than ``room`` free nodes or
    slots; the caller grows it).

    Returns:
        The number of examples done.
    """
    F = Forest(*trees)
    n_nodes, n_slots = F.node_nav.shape[0], F.nominal_counts.shape[0]
    counters = F.counters
    k = votes.shape[0]
    for i in range(X.shape[0]):
        if counters[NODES_USED] + room > n_nodes or counters[SLOTS_USED] + room > n_slots:
            return i
        x = X[i]
        predict_all(x, P, trees, True, nb_leaves)
        labels = argmax_rows_draw(P, rng)
        vote_weights_into(lambda_sc, lambda_sw, eps_floor, weights)
        votes[:] = 0.0
        for m in range(labels.shape[0]):
            votes[labels[m]] += weights[m]
        total = numpy_sum(votes)
        for c in range(k):
            votes[c] = votes[c] / total if total > 0.0 else 1.0 / k
        predicted[i] = argmax_draw(votes, rng)
        update(rng.integers(0, 2**32), x, Y[i], 1.0, P, lambda_sc, lambda_sw, unit, proba, counts, trees, nb_leaves)
    return X.shape[0]


class CompiledUpdate:
    """Oza's update over a compiled pool as one kernel call (:func:`update`), with its scratch;
    :meth:`run` is test-then-train with the hard vote over many examples (:func:`run_steps`).

    ``update(seed, xp, y, P, lambda_sc, lambda_sw, unit, w)`` as
    :meth:`boostbench.boosters.online_boosting.OnlineBoosting.update_reference` (``lambda_sc``,
    ``lambda_sw`` ``(N,)`` updated in place).
    """

    def __init__(self, pool):
        self.pool = pool
        self._proba = np.empty(pool.n_classes)
        self._counts = np.zeros(pool.n_learners)

    def __call__(
        self,
        seed: int,
        xp: np.ndarray,
        y: int,
        P: np.ndarray,
        lambda_sc: np.ndarray,
        lambda_sw: np.ndarray,
        unit: np.ndarray,
        w: float = 1.0,
    ) -> None:
        update(
            seed, xp, y, float(w), P, lambda_sc, lambda_sw, unit, self._proba, self._counts, self.pool.reserve(),
            self.pool.nb_leaves,
        )  # fmt: skip

    def run(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        rng: np.random.Generator,
        eps_floor: float,
        lambda_sc: np.ndarray,
        lambda_sw: np.ndarray,
        unit: np.ndarray,
        predicted: np.ndarray,
    ) -> None:
        """Test-then-train with the hard vote on the rows of ``X`` (float64 ``(m, d)``, labels
        ``Y`` int64 ``(m,)`` in ``0..k-1``) with the booster's generator ``rng``; ``predicted``
        ``(m,)`` int64 receives each prediction.
        """
        pool = self.pool
        P = np.empty((pool.n_learners, pool.n_classes))
        weights, votes = np.empty(pool.n_learners), np.empty(pool.n_classes)
        done = 0
        while done < len(X):
            forest = pool.reserve()
            done += run_steps(
                X[done:], Y[done:], rng, pool.room_per_example, eps_floor, P, lambda_sc, lambda_sw, unit, weights,
                votes, self._proba, self._counts, predicted[done:], forest, pool.nb_leaves,
            )  # fmt: skip
