"""A single base model fitted on the training part: the "TAN" / "BAN" / "Naive Bayes" column (Sun)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.batch.adaboost_m1 import one_hot
from boostbench.batch.base import BatchBooster, Round, uniform
from boostbench.constraints import Constraint
from boostbench.learners.batch_trees import predict_labels


class BaseModel(BatchBooster):
    """One weak learner (a tree, Naive Bayes, TAN or BAN) fitted once with uniform weights.

    ``n_rounds`` is ignored: the model is its own single stage.
    """

    name = "base"
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {}  # n_rounds does not apply

    def __init__(self, n_classes, n_rounds=1, learner=None, rng=None):
        super().__init__(n_classes, 1, learner, rng)

    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> np.ndarray:
        return uniform(len(y)) if D is None else D

    def _boost_round(self, X: np.ndarray, y: np.ndarray, D: np.ndarray) -> Round:
        return Round(self.learner.fit_label(X, y, D, self.n_classes, self.rng), 1.0, D, float("nan"), last=True)

    def _votes(self, model, X: np.ndarray) -> np.ndarray:
        return one_hot(predict_labels(model, X), self.n_classes)
