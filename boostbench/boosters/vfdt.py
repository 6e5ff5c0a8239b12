"""Single Hoeffding trees (VFDT, Domingos & Hulten 2000): the baselines of Jung et al. 2017."""

from __future__ import annotations

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.core.ties import argmax_rows_random_tie


class VFDT(OnlineBooster):
    """One Hoeffding tree (learner 0 of the pool) trained on every example with weight 1."""

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        xp = self.pool.prepare(x)
        self._xp = xp
        return self.pool.predict_proba_one(0, xp)

    def update(self, y: int) -> None:
        self.pool.learn_one(0, self._xp, y, 1.0)


class BestVFDT(OnlineBooster):
    """N independently drawn Hoeffding trees, each trained alone on every example (weight 1).

    Table 1's "Best decision tree" is the best of the N trees in hindsight; the protocol reads
    every tree's label from :attr:`member_predictions` to report it (and the mean over trees).
    Online, the booster predicts with the tree of best running accuracy so far (ties: lowest
    index), a choice that needs no hindsight.

    Attributes:
        member_predictions: ``(N,)`` int64 labels of every tree for the last predicted example.
    """

    def __init__(self, pool, n_classes, rng):
        super().__init__(pool, n_classes, rng)
        self.correct = np.zeros(pool.n_learners, dtype=np.int64)
        self.member_predictions = np.zeros(pool.n_learners, dtype=np.int64)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        xp = self.pool.prepare(x)
        P = self.pool.predict_proba(xp)
        self._xp = xp
        self.member_predictions = argmax_rows_random_tie(P, self.rng)
        return P[int(np.argmax(self.correct))]

    def update(self, y: int) -> None:
        self.correct += self.member_predictions == y
        self.pool.learn(self._xp, y, np.ones(self.pool.n_learners))
