"""AdaBoost.MH (Schapire & Singer 1999): one-against-all boosting on the Hamming loss."""

from __future__ import annotations

import numpy as np

from boostbench.batch.base import BatchBooster, Round
from boostbench.learners.batch_trees import fit_gain_tree

EDGE_CEILING = 1.0 - 1e-10


class AdaBoostMH(BatchBooster):
    """Discrete AdaBoost.MH with domain-partitioning trees ``h(x, l) in {-1, +1}``.

    A distribution ``D(i, l)`` over (example, label) pairs starts at ``D_1(i) / k`` (uniform, ``1 / (n k)``,
    unless sample weights are given); with
    ``Y(i, l) = +1`` if ``l = y_i`` else ``-1``, round t fits ``h_t`` maximising the edge
    ``r_t = sum_{i,l} D(i, l) Y(i, l) h_t(x_i, l)`` (each leaf takes, per label, the sign of its
    summed ``D Y``: exact for the partition), stops if ``r_t <= 0``, sets
    ``alpha_t = 1/2 ln((1 + r_t) / (1 - r_t))`` and ``D(i, l) ∝ D(i, l) exp(-alpha_t Y(i, l) h_t(x_i, l))``.
    Final: ``argmax_l sum_t alpha_t h_t(x, l)``. The example distribution kept in
    ``weight_history_`` is ``sum_l D(i, l)``.
    """

    name = "adaboost_mh"
    vote_span = 2.0  # votes +-1
    needs_trees = True  # hypotheses fitted to a gain matrix

    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> np.ndarray:
        """``D (n, k)``: ``D(i) / k`` over (example, label) pairs."""
        n, k = len(y), self.n_classes
        return np.full((n, k), 1.0 / (n * k)) if D is None else np.repeat(D[:, None] / k, k, axis=1)

    def _boost_round(self, X: np.ndarray, y: np.ndarray, D: np.ndarray) -> Round | None:
        Y = -np.ones(D.shape)
        Y[np.arange(len(y)), y] = 1.0
        h = fit_gain_tree(X, D * Y, self.learner, self.rng, "sign")
        values = h.predict_values(X)
        r = float((D * Y * values).sum())
        if r <= 0:
            return None
        r = min(r, EDGE_CEILING)
        alpha = 0.5 * np.log((1.0 + r) / (1.0 - r))
        D_next = D * np.exp(-alpha * Y * values)
        return Round(h, alpha, D.sum(axis=1), r, D_next / D_next.sum())

    def _votes(self, h, X: np.ndarray) -> np.ndarray:
        return h.predict_values(X)
