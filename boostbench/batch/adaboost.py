"""Binary AdaBoost (Freund & Schapire 1997; Combessie & Machraoui, "Boosting algorithm for binary Y")."""

from __future__ import annotations

import numpy as np

from boostbench.batch.base import BatchBooster, Round, uniform
from boostbench.learners.batch_trees import predict_labels

# A weighted error below this counts as 0: the hypothesis is perfect on the training set, gets
# the (large, finite) weight of this error and ends the run, as the distribution would collapse.
ERROR_FLOOR = 1e-10


class AdaBoost(BatchBooster):
    """AdaBoost for two classes with label-valued trees.

    Round t: fit ``h_t`` under ``D_t``; ``eps_t = sum_i D_t(i) [h_t(x_i) != y_i]``; stop (discarding
    ``h_t``) if ``eps_t >= 1/2``; ``alpha_t = 1/2 ln((1 - eps_t) / eps_t)``;
    ``D_{t+1}(i) ∝ D_t(i) exp(-alpha_t s_i h_t(x_i))`` with ``s, h in {-1, +1}``. Final:
    ``sign(sum_t alpha_t h_t(x))`` (votes ``(-h, +h)`` for labels ``(0, 1)``; a tie goes to 0).
    This is Freund & Schapire's ``beta_t = eps_t / (1 - eps_t)`` form with ``ln(1/beta_t) = 2 alpha_t``.

    Raises:
        ValueError: ``n_classes != 2`` (use adaboost_m1, samme, adaboost_mh, adaboost_mm or
            one_vs_all for more classes).
    """

    name = "adaboost"
    vote_span = 2.0  # votes +-1

    def __init__(self, n_classes, n_rounds, learner=None, rng=None):
        if n_classes != 2:
            raise ValueError(
                f"adaboost is binary, the data set has {n_classes} classes "
                "(use adaboost_m1, samme, adaboost_mh, adaboost_mm or one_vs_all)"
            )
        super().__init__(n_classes, n_rounds, learner, rng)

    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> np.ndarray:
        return uniform(len(y)) if D is None else D

    def _boost_round(self, X: np.ndarray, y: np.ndarray, D: np.ndarray) -> Round | None:
        s = np.where(y == 1, 1.0, -1.0)
        tree = self.learner.fit_label(X, y, D, self.n_classes, self.rng)
        h = np.where(predict_labels(tree, X) == 1, 1.0, -1.0)
        eps = float(D[h != s].sum())
        if eps >= 0.5:
            return None
        alpha = 0.5 * np.log((1.0 - max(eps, ERROR_FLOOR)) / max(eps, ERROR_FLOOR))
        if eps < ERROR_FLOOR:
            return Round(tree, alpha, D, eps, last=True)
        D_next = D * np.exp(-alpha * s * h)
        return Round(tree, alpha, D, eps, D_next / D_next.sum())

    def _votes(self, tree, X: np.ndarray) -> np.ndarray:
        h = np.where(predict_labels(tree, X) == 1, 1.0, -1.0)
        return np.column_stack([-h, h])

    def margins(self, X: np.ndarray) -> np.ndarray:
        """``(T_fit, n)`` float64 staged ``f_t(x) = sum_{s<=t} alpha_s h_s(x)``."""
        return self.staged_scores(X)[:, :, 1]
