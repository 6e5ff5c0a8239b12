"""AdaBoost.M2 (Freund & Schapire 1997; Combessie & Machraoui, "AdaBoost.M2")."""

from __future__ import annotations

import numpy as np

from boostbench.batch.adaboost import ERROR_FLOOR
from boostbench.batch.base import BatchBooster, Round
from boostbench.learners.batch_trees import fit_gain_tree


class AdaBoostM2(BatchBooster):
    """AdaBoost.M2: pseudo-loss over mislabels with confidence-rated hypotheses ``h(x, y) in [0, 1]``.

    Mislabel weights ``w_{i,y}`` (``y != y_i``) start at ``D_1(i) / (k - 1)`` (``D_1``: uniform, or
    the sample weights normalised). Round t:
    ``D_t(i) = W_i / sum_j W_j`` with ``W_i = sum_{y != y_i} w_{i,y}``; label weights
    ``q_t(i, y) = w_{i,y} / W_i``; the weak learner gets both; pseudo-loss
    ``eps_t = 1/2 sum_i D_t(i) (1 - h_t(x_i, y_i) + sum_{y != y_i} q_t(i, y) h_t(x_i, y))``;
    ``beta_t = eps_t / (1 - eps_t)``; ``w_{i,y} <- w_{i,y} beta_t^{(1 + h_t(x_i, y_i) - h_t(x_i, y)) / 2}``.
    Final: ``argmax_y sum_t ln(1/beta_t) h_t(x, y)``.

    The weak learner (:func:`~boostbench.learners.batch_trees.fit_gain_tree`, rule ``positive``)
    minimises the pseudo-loss over its partition exactly: ``eps_t = 1/2 (1 - sum_{i,y} G(i, y)
    h(x_i, y))`` with gains ``G(i, y_i) = D_t(i)`` and ``G(i, y) = -D_t(i) q_t(i, y)``, so each
    leaf sets ``h = 1`` on the labels of positive summed gain; hence ``eps_t <= 1/2`` always. A round
    with ``eps_t = 1/2`` (no gain anywhere) changes nothing and ends the run.
    """

    name = "adaboost_m2"
    needs_trees = True  # hypotheses fitted to a gain matrix

    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> np.ndarray:
        """The mislabel weights ``w (n, k)``: ``D(i) / (k - 1)``, 0 at the true labels."""
        n, k = len(y), self.n_classes
        w = np.full((n, k), 1.0 / (n * (k - 1))) if D is None else np.repeat(D[:, None] / (k - 1), k, axis=1)
        w[np.arange(n), y] = 0.0
        return w

    def _boost_round(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> Round | None:
        rows = np.arange(len(y))
        W = w.sum(axis=1)
        D = W / W.sum()
        gain = -w / W.sum()  # -D(i) q(i, y) off the true label
        gain[rows, y] = D
        h = fit_gain_tree(X, gain, self.learner, self.rng, "positive")
        values = h.predict_values(X)
        eps = 0.5 * (1.0 - float((gain * values).sum()))
        if eps >= 0.5:
            return None
        beta = max(eps, ERROR_FLOOR) / (1.0 - max(eps, ERROR_FLOOR))
        if eps < ERROR_FLOOR:
            return Round(h, np.log(1.0 / beta), D, eps, last=True)
        w = w * beta ** (0.5 * (1.0 + values[rows, y][:, None] - values))
        w[rows, y] = 0.0
        return Round(h, np.log(1.0 / beta), D, eps, w / w.sum())

    def _votes(self, h, X: np.ndarray) -> np.ndarray:
        return h.predict_values(X)

    def pseudo_loss(self, h, X: np.ndarray, y: np.ndarray, D: np.ndarray, q: np.ndarray) -> float:
        """The pseudo-loss of hypothesis ``h`` under ``D (n,)`` and label weights ``q (n, k)``
        (``q[i, y_i] = 0``, rows summing to 1), from its definition.
        """
        values = h.predict_values(X)
        rows = np.arange(len(y))
        return float(0.5 * np.sum(D * (1.0 - values[rows, y] + (q * values).sum(axis=1))))
