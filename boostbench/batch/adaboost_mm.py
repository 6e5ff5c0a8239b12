"""AdaBoost.MM (Mukherjee & Schapire, "A theory of multiclass boosting", JMLR 2013; seed slides)."""

from __future__ import annotations

import numpy as np

from boostbench.batch.adaboost_m1 import one_hot
from boostbench.batch.adaboost_mh import EDGE_CEILING
from boostbench.batch.base import BatchBooster, Round
from boostbench.learners.batch_trees import fit_gain_tree


def mm_cost_matrix(f: np.ndarray, y: np.ndarray, shift: float = 0.0) -> np.ndarray:
    """AdaBoost.MM's cost matrix ``C(i, l)`` from the current scores ``f (n, k)`` and labels ``y (n,)``.

    ``C(i, l) = exp(f(i, l) - f(i, y_i))`` for ``l != y_i`` and ``C(i, y_i) = -sum_{l != y_i} C(i, l)``
    (the slides' "Cost Matrix"): every row sums to 0 and has its minimum at the true label.
    ``shift`` divides the whole matrix by ``exp(shift)`` (computed in log space, so large score
    gaps do not overflow). Returns ``(n, k)`` float64.
    """
    rows = np.arange(len(y))
    C = np.exp(f - f[rows, y][:, None] - shift)
    C[rows, y] = 0.0
    C[rows, y] = -C.sum(axis=1)
    return C


class AdaBoostMM(BatchBooster):
    """AdaBoost.MM: boosting with cost matrices under the minimal weak-learning condition.

    Round t: ``C_t`` from ``f_{t-1}`` (:func:`mm_cost_matrix`); the weak learner returns a label-
    valued ``h_t`` of small cost ``sum_i C_t(i, h_t(x_i))`` (the cost-sensitive tree of
    :func:`~boostbench.learners.batch_trees.fit_gain_tree` on gains ``-C_t``, rule ``argmax``: the
    cheapest label of each leaf); edge ``delta_t = -sum_i C_t(i, h_t(x_i)) / sum_i sum_{l != y_i}
    C_t(i, l)``; stop if ``delta_t <= 0``, or before fitting if the weighted costs are all 0 (a
    fit perfect to float precision: nothing left to gain, as a perfect fit ends scikit-learn's);
    ``alpha_t = 1/2 ln((1 + delta_t) / (1 - delta_t))``; ``f_t(i, l) = f_{t-1}(i, l) + alpha_t
    [h_t(x_i) = l]``. Final: ``argmax_l f_T(x, l)``.

    The weight: the JMLR paper's ``1/2 ln((1 + delta) / (1 - delta))`` minimises the bound on the
    loss ``sum_i sum_{l != y_i} exp(f(i, l) - f(i, y_i))`` (it falls by a factor ``sqrt(1 - delta^2)``
    at least); the seed slides print it without the 1/2, which we read as a dropped factor.
    Costs are rescaled by their total each round (the edge is scale-free), so long runs cannot
    overflow. ``weight_history_`` holds the rows' normalised ``sum_{l != y_i} C_t(i, l)``.

    Sample weights ``w_i`` weight the loss, ``sum_i w_i sum_{l != y_i} exp(f(i, l) - f(i, y_i))``:
    row i of every cost matrix is scaled by ``w_i`` (relative to the largest weight).
    """

    name = "adaboost_mm"
    needs_trees = True  # hypotheses fitted to a gain matrix

    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The scores ``f (n, k)``, 0, and the examples' weights ``D / max D`` (all 1 without
        sample weights).
        """
        return np.zeros((len(y), self.n_classes)), np.ones(len(y)) if D is None else D / D.max()

    def _boost_round(self, X: np.ndarray, y: np.ndarray, state: tuple[np.ndarray, np.ndarray]) -> Round | None:
        f, example_weight = state
        rows = np.arange(len(y))
        gaps = f - f[rows, y][:, None]
        gaps[rows, y] = -np.inf
        C = mm_cost_matrix(f, y, shift=float(gaps.max()))  # the largest entry becomes 1
        C *= example_weight[:, None]
        row_weight = -C[rows, y]
        if not row_weight.sum() > 0:  # the weighted loss is 0 in floats: nothing left to gain
            return None
        C /= row_weight.sum()
        h = fit_gain_tree(X, -C, self.learner, self.rng, "argmax")
        labels = h.predict_values(X).argmax(axis=1)
        delta = -float(C[rows, labels].sum())
        if delta <= 0:
            return None
        delta = min(delta, EDGE_CEILING)
        alpha = 0.5 * np.log((1.0 + delta) / (1.0 - delta))
        f = f.copy()
        f[rows, labels] += alpha
        return Round(h, alpha, row_weight, delta, (f, example_weight))

    def _votes(self, h, X: np.ndarray) -> np.ndarray:
        return one_hot(h.predict_values(X).argmax(axis=1), self.n_classes)
