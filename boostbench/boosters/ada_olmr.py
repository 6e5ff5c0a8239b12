"""Ada.OLMR: Jung & Tewari 2018, Algorithm 3 (adaptive online boosting for multi-label ranking)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineRanker
from boostbench.constraints import BOOLEAN, POSITIVE, Constraint, OneOf
from boostbench.system.lazy import lazy_import

# compiled: loaded with the first booster, not with the class (the config check reads the class)
ada_olmr_kernels = lazy_import("boostbench.boosters.ada_olmr_kernels")
hedge = lazy_import("boostbench.core.hedge")
ogd = lazy_import("boostbench.core.ogd")
rank_losses = lazy_import("boostbench.core.rank_losses")

#: what a weak learner contributes: its distribution over labels, or a basis vector at its argmax
WEAK_PREDICTION = OneOf(("distribution", "label"))


def train_on_relevant_labels(pool, xp, relevant: np.ndarray, costs: np.ndarray, w: float = 1.0) -> None:
    """Feed each relevant label l to every learner i with weight ``w (max(c^i) - c^i[l])``.

    Args:
        costs: ``(N, k)`` cost vectors, one row per learner (Section 4 of the paper).
        w: the example's weight (river's per-sample weight; 1 in the papers).
    """
    weights = w * (costs.max(axis=1, keepdims=True) - costs)
    for label in np.flatnonzero(relevant):
        pool.learn(xp, int(label), weights[:, label])


class AdaOLMR(OnlineRanker):
    """Ada.OLMR (Algorithm 3).

    Expert i scores ``s^i = sum_{j <= i} alpha_j h^j`` (``h^j`` learner j's distribution over
    labels); the prediction is the scores of an expert drawn by Hedge. After ``Y``: cost vectors
    ``c^i = grad L_log(s^{i-1})`` (eq. 8); ``alpha_i <- Pi(alpha_i - f'(alpha_i) / sqrt t)`` with
    ``f'(alpha_i) = c^{i+1} . h^i``, the gradient at ``s^i``; Hedge charges each expert its rank
    loss (line 13); learners train on each relevant label with weight ``max(c^i) - c^i[l]``,
    times the example's weight ``w`` (:meth:`update`; alpha's and Hedge's steps are those of any
    example; ``w = 0`` changes nothing).

    Args:
        pool: N weak learners over ``n_classes`` labels (:class:`OnlineRanker`).
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (:class:`OnlineRanker`).
        alpha_bound: the feasible set ``[-alpha_bound, alpha_bound]`` (paper: 2).
        hedge_eta: Hedge's step size (paper: 1).
        weak_prediction: ``"distribution"`` (the paper's) or ``"label"`` (a basis vector at the
            learner's most probable label).
        compiled: over the compiled pool, each example's steps run as three numba kernels
            (:mod:`~boostbench.boosters.ada_olmr_kernels`; the same numbers as the numpy steps).

    Raises:
        InvalidParameterError: a value outside :attr:`_parameter_constraints` (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "alpha_bound": POSITIVE,
        "hedge_eta": POSITIVE,
        "weak_prediction": WEAK_PREDICTION,
        "compiled": BOOLEAN,
    }

    def __init__(
        self,
        pool,
        n_classes,
        rng,
        *,
        alpha_bound: float = 2.0,
        hedge_eta: float = 1.0,
        weak_prediction: str = "distribution",
        compiled: bool = True,
    ):
        super().__init__(pool, n_classes, rng)
        self._validate_params(
            alpha_bound=alpha_bound, hedge_eta=hedge_eta, weak_prediction=weak_prediction, compiled=compiled
        )
        self.alpha_bound = float(alpha_bound)
        self.hedge_eta = float(hedge_eta)
        self.weak_prediction = weak_prediction
        self.compiled = bool(compiled)
        self.alpha = np.zeros(pool.n_learners)
        self.hedge = hedge.Hedge(pool.n_learners, hedge_eta)
        self.t = 0
        self._state = None
        self._on_growth()

    def _on_growth(self) -> None:
        # the kernels' arrays (they allocate nothing): H, S, G, the label order, losses, scratch
        n, k = self.pool.n_learners, self.n_classes
        self._fused = self.compiled and self.pool.compiled
        if self._fused:
            self._arrays = (
                np.empty((n, k)),
                np.empty((n, k)),
                np.empty((n + 1, k)),
                np.empty(k, dtype=np.int64),
                np.empty(n),
                np.empty(n),
                np.empty(n, dtype=bool),
                np.empty((k + 6, k)),
            )

    def weak_predictions(self, xp) -> np.ndarray:
        """``(N, k)`` weak predictions h^i: distributions, or basis vectors at their argmax."""
        H = self.pool.predict_proba(xp)
        if self.weak_prediction == "label":
            H = np.eye(self.n_classes)[H.argmax(axis=1)]
        return H

    def predict_scores(self, x: np.ndarray) -> np.ndarray:
        xp = self.pool.prepare(x)
        if self._fused:
            H, S = self._arrays[:2]
            one_hot = self.weak_prediction == "label"
            ada_olmr_kernels.expert_scores(xp, self.alpha, one_hot, H, S, self.pool.kernel_state(), self.pool.nb_leaves)
        else:
            H = self.weak_predictions(xp)
            S = np.cumsum(self.alpha[:, None] * H, axis=0)  # expert i's scores s^i, (N, k)
        self._state = (xp, H, S)
        return S[self.hedge.draw(self.rng)].copy()

    def update(self, relevant: np.ndarray, w: float = 1.0) -> None:
        xp, H, S = self._state
        self._state = None
        if w == 0.0:
            return
        self.t += 1
        step = 1.0 / np.sqrt(self.t)
        if self._fused:
            self._update_compiled(xp, np.asarray(relevant, dtype=bool), H, S, step, w)
            return
        # eq. (8) at s^0 = 0, s^1, ..., s^N in one call (rows are independent, so each is the
        # same as alone): rows 0..N-1 are the cost vectors c^i (at s^{i-1}), rows 1..N the
        # gradients at s^i, c^{i+1}
        # (compiled: the numpy functions logistic_rank_gradient and metrics.rank_loss are their reference)
        rel, irr = rank_losses.label_indices(relevant)
        G = rank_losses.logistic_rank_gradients(np.vstack([np.zeros(self.n_classes), S]), rel, irr)
        costs = G[:-1]
        gradients = np.einsum("ik,ik->i", G[1:], H)  # c^{i+1} . h^i
        self.alpha = ogd.project(self.alpha - step * gradients, self.alpha_bound)
        self.hedge.update(rank_losses.rank_losses(S, rel, irr))
        train_on_relevant_labels(self.pool, xp, relevant, costs, w)

    def _update_compiled(self, xp, relevant, H, S, step, w) -> None:
        """:meth:`update`'s steps in the kernels (numpy's ``einsum`` between them, as above)."""
        _, _, G, labels, losses, weights, direct, work = self._arrays
        n_rel = ada_olmr_kernels.gradients_and_losses(S, relevant, labels, G, losses, work)
        gradients = np.einsum("ik,ik->i", G[1:], H)
        pool = self.pool
        threaded = pool.n_threads > 1  # its training is called from Python (learn_trees_threaded)
        done = 0
        while True:  # each call after reserve() trains on one label at least
            done = ada_olmr_kernels.step_and_train(
                xp, labels, 0 if threaded else n_rel, G, gradients, step, self.alpha_bound, losses, self.hedge.eta,
                w, done, pool.room_per_example, self.alpha, self.hedge.log_v, weights, direct, pool.reserve(),
                pool.nb_leaves,
            )  # fmt: skip
            if threaded:
                train_on_relevant_labels(pool, xp, relevant, G[:-1], w)
            if threaded or done == n_rel:
                return
