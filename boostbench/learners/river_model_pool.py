"""A pool of N copies of any river classifier: the weak learners of the river estimators
(:mod:`boostbench.estimators`) when the user gives a ``model`` of their own.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from boostbench.learners.pool import WeakLearnerPool


class RiverModelPool(WeakLearnerPool):
    """N clones of a river classifier, each with its importance-weight constant ``c_i``.

    The models see the examples as the user wrote them: the original feature names, nominal
    values as their original values (not codes), labels as the ints ``0..k-1``. A model whose
    ``learn_one`` takes a weight ``w`` gets ``weight * c_i``; any other is shown the example
    ``K ~ Poisson(weight * c_i)`` times (Oza's way of presenting a weight), drawn from ``rng``.

    Args:
        model: the prototype (a ``river.base.Classifier``; cloned N times, never trained).
        n_learners: N.
        n_classes: k.
        weight_scale: ``(N,)`` float64, the constants ``c_i``.
        rng: the pool's generator (Poisson presentations).
        names: feature name of each column (a list the caller extends as columns appear).
        categories: per column, the list of nominal values by code, or None for a numeric one
            (extended by the caller likewise).
    """

    def __init__(
        self,
        model: Any,
        n_learners: int,
        n_classes: int,
        weight_scale: np.ndarray,
        rng: np.random.Generator,
        names: list,
        categories: list,
    ):
        self.models = [model.clone() for _ in range(n_learners)]
        self.n_learners, self.n_classes = int(n_learners), int(n_classes)
        self.weight_scale = np.asarray(weight_scale, dtype=np.float64)
        self.rng = rng
        self.names, self.categories = names, categories
        self._weighted = "w" in inspect.signature(model.learn_one).parameters

    def prepare(self, x: np.ndarray) -> dict:
        """The example as the models' dict: present columns by name, nominal codes as values."""
        out = {}
        for j, value in enumerate(x.tolist()):
            if value == value:
                values = self.categories[j]
                out[self.names[j]] = value if values is None else values[int(value)]
        return out

    def predict_proba_member(self, i: int, xp: dict) -> np.ndarray:
        proba = np.zeros(self.n_classes)
        for label, p in self.models[i].predict_proba_one(xp).items():
            proba[label] = p
        total = proba.sum()
        return proba / total if total > 0 else np.full(self.n_classes, 1.0 / self.n_classes)

    def learn_member(self, i: int, xp: dict, y: int, weight: float) -> None:
        weight = float(weight) * self.weight_scale[i]
        if self._weighted:
            self.models[i].learn_one(xp, int(y), w=weight)
            return
        for _ in range(int(self.rng.poisson(weight))):
            self.models[i].learn_one(xp, int(y))

    def grow(self, n_classes: int | None = None, n_categories: Any = None) -> None:
        """River models learn classes and attributes as they come: only k changes here."""
        if n_classes is not None:
            self.n_classes = int(n_classes)
