"""Single Hoeffding trees (VFDT, Domingos & Hulten 2000): the baselines of Jung et al. 2017."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import Constraint, OneOf
from boostbench.system.lazy import lazy_import

ties = lazy_import("boostbench.core.ties")  # compiled: loaded by the first prediction, not with the class

#: a tree trains with weight c_i (its importance-weight constant, as inside the boosters) or 1
TREE_WEIGHT = OneOf(("c_i", "one"))


class VFDT(OnlineBooster):
    """One Hoeffding tree (learner 0 of the pool) trained on every example with weight 1."""

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        xp = self.pool.prepare(x)
        self._xp = xp
        return self.pool.predict_proba_member(0, xp)

    def update(self, y: int) -> None:
        self.pool.learn_member(0, self._xp, y, 1.0)

    def predict_many(self, X: np.ndarray) -> np.ndarray:
        """See :meth:`OnlineBooster.predict_many` (the pool scores the rows at once)."""
        return np.array([ties.argmax_random_tie(p, self.rng) for p in self.pool.proba_rows(X)[0]], dtype=np.int64)


class BestVFDT(OnlineBooster):
    """N independently drawn Hoeffding trees, each trained alone on every example.

    Table 1's "Best decision tree" is the best of the N trees in hindsight; the protocol reads
    every tree's label from :attr:`member_predictions` to report it (and the mean over trees).
    Online, the booster predicts with the tree of best running accuracy so far (ties: lowest
    index), a choice that needs no hindsight.

    Args:
        pool: N weak learners over ``n_classes`` labels (:class:`OnlineBooster`).
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (:class:`OnlineBooster`).
        tree_weight: ``"c_i"``: tree i trains with weight ``c_i`` (its constant, as inside the
            boosters); ``"one"``: weight 1, as the authors' lone trees.

    Attributes:
        member_predictions: ``(N,)`` int64 labels of every tree for the last predicted example.

    Raises:
        InvalidParameterError: an unknown ``tree_weight`` (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"tree_weight": TREE_WEIGHT}

    def __init__(self, pool, n_classes, rng, *, tree_weight: str = "c_i"):
        super().__init__(pool, n_classes, rng)
        self._validate_params(tree_weight=tree_weight)
        self.tree_weight = tree_weight
        self.correct = np.zeros(pool.n_learners, dtype=np.int64)
        self.member_predictions = np.zeros(pool.n_learners, dtype=np.int64)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        xp = self.pool.prepare(x)
        P = self.pool.predict_proba(xp)
        self._xp = xp
        self.member_predictions = ties.argmax_rows_random_tie(P, self.rng)
        return P[int(np.argmax(self.correct))]

    def update(self, y: int) -> None:
        self.correct += self.member_predictions == y
        ones = np.ones(self.pool.n_learners)
        self.pool.learn(self._xp, y, ones if self.tree_weight == "c_i" else self.pool.unscaled(ones))
