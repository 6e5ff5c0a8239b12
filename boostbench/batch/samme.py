"""SAMME (Zhu, Zou, Rosset & Hastie 2009), as in Mukherjee & Schapire's slides and scikit-learn."""

from __future__ import annotations

import numpy as np

from boostbench.batch.adaboost_m1 import one_hot
from boostbench.batch.base import BatchBooster, Round, uniform
from boostbench.learners.batch_trees import predict_labels


class SAMME(BatchBooster):
    """SAMME: AdaBoost.M1 with the weak-learning condition ``err <= 1 - 1/k - gamma``.

    Round t: fit ``h_t`` under ``w`` (normalised); ``err_t = sum_i w_i [h_t(x_i) != y_i]``. If
    ``err_t = 0`` keep ``h_t`` with weight 1 and stop; if ``err_t >= 1 - 1/k`` discard it and stop.
    Else ``alpha_t = ln((1 - err_t) / err_t) + ln(k - 1)`` and ``w_i <- w_i exp(alpha_t [h_t(x_i) !=
    y_i])``. Final: ``argmax_y sum_t alpha_t [h_t(x) = y]``. These are scikit-learn's
    ``AdaBoostClassifier`` rules (learning rate 1), which the tests check prediction for prediction.
    """

    name = "samme"

    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> np.ndarray:
        return uniform(len(y)) if D is None else D

    def _boost_round(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> Round | None:
        k = self.n_classes
        tree = self.learner.fit_label(X, y, w, self.n_classes, self.rng)
        incorrect = predict_labels(tree, X) != y
        err = float(np.average(incorrect, weights=w))
        if err <= 0:
            return Round(tree, 1.0, w, err, last=True)
        if err >= 1.0 - 1.0 / k:
            return None
        alpha = np.log((1.0 - err) / err) + np.log(k - 1.0)
        # in log space, as scikit-learn, so both see bit-identical weights (and trees); a zero
        # sample weight stays 0 (log 0 = -inf)
        with np.errstate(divide="ignore"):
            w_next = np.exp(np.log(w) + alpha * incorrect * (w > 0))
        return Round(tree, alpha, w, err, w_next / w_next.sum())

    def _votes(self, tree, X: np.ndarray) -> np.ndarray:
        return one_hot(predict_labels(tree, X), self.n_classes)
