"""AdaBoost.M1 (Freund & Schapire 1997; Combessie & Machraoui, "AdaBoost.M1")."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.batch.adaboost import ERROR_FLOOR
from boostbench.batch.base import BatchBooster, Round, uniform
from boostbench.constraints import BOOLEAN, Constraint, check, positive_int
from boostbench.learners.batch_trees import predict_labels


def one_hot(labels: np.ndarray, k: int) -> np.ndarray:
    """``(n, k)`` float64 rows with a 1 at each label."""
    out = np.zeros((len(labels), k))
    out[np.arange(len(labels)), labels] = 1.0
    return out


class AdaBoostM1(BatchBooster):
    """AdaBoost.M1: the binary algorithm with multiclass label-valued trees.

    Round t: fit ``h_t`` under ``D_t``; ``eps_t = sum_i D_t(i) [h_t(x_i) != y_i]``. If
    ``eps_t > 1/2`` the loop aborts and ``h_t`` is discarded (Freund & Schapire's rule; ``eps_t =
    1/2`` gives ``beta_t = 1``, a round that changes nothing, so it stops too). Else
    ``beta_t = eps_t / (1 - eps_t)``, ``D_{t+1}(i) ∝ D_t(i) beta_t^{[h_t(x_i) = y_i]}``. Final:
    ``argmax_y sum_t ln(1/beta_t) [h_t(x) = y]``.

    With ``resample=True`` (boosting by resampling, Freund & Schapire's variant for learners that
    take no weights) ``h_t`` is fitted with unit weights on n rows drawn from ``D_t`` with
    replacement (the booster's seeded generator); ``eps_t`` is still measured under ``D_t`` on the
    whole training part.

    Attributes:
        stopped_error_: the weighted error that ended the run early (None if it ran T rounds).
    """

    name = "adaboost_m1"
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"n_rounds": positive_int(), "resample": BOOLEAN}

    def __init__(self, n_classes: int, n_rounds: int, learner=None, rng=None, resample: bool = False):
        super().__init__(n_classes, n_rounds, learner, rng)
        check(type(self).__name__, {"resample": resample}, self._parameter_constraints)
        self.resample = bool(resample)

    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> np.ndarray:
        self.stopped_error_ = None
        return uniform(len(y)) if D is None else D

    def _boost_round(self, X: np.ndarray, y: np.ndarray, D: np.ndarray) -> Round | None:
        if self.resample:
            rows = self.rng.choice(len(y), size=len(y), p=D)
            tree = self.learner.fit_label(X[rows], y[rows], np.ones(len(rows)), self.n_classes, self.rng)
        else:
            tree = self.learner.fit_label(X, y, D, self.n_classes, self.rng)
        correct = predict_labels(tree, X) == y
        eps = float(D[~correct].sum())
        if eps >= 0.5:
            self.stopped_error_ = eps
            return None
        beta = max(eps, ERROR_FLOOR) / (1.0 - max(eps, ERROR_FLOOR))
        if eps < ERROR_FLOOR:
            return Round(tree, np.log(1.0 / beta), D, eps, last=True)
        D_next = np.where(correct, D * beta, D)
        return Round(tree, np.log(1.0 / beta), D, eps, D_next / D_next.sum())

    def _votes(self, tree, X: np.ndarray) -> np.ndarray:
        return one_hot(predict_labels(tree, X), self.n_classes)
