"""Oza's online bagging (Oza & Russell 2001): each member sees each example Poisson(1) times."""

from __future__ import annotations

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.system.lazy import lazy_import

ties = lazy_import("boostbench.core.ties")  # compiled: loaded by the first prediction, not with the class


class OnlineBagging(OnlineBooster):
    """Online bagging: member m trains on ``(x, y)`` with weight ``K_m ~ Poisson(1)`` (the online
    limit of a bootstrap sample's multiplicity); prediction by unweighted majority vote. An
    example of weight ``w`` (:meth:`update`) trains with ``K_m w``, as MOA's OzaBag (``w = 0``:
    nothing changes, no draw either).
    """

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """The members' vote shares, ``(k,)`` float64."""
        xp = self.pool.prepare(x)
        labels = ties.argmax_rows_random_tie(self.pool.predict_proba(xp), self.rng)
        self._xp = xp
        return np.bincount(labels, minlength=self.n_classes) / self.pool.n_learners

    def update(self, y: int, w: float = 1.0) -> None:
        if w != 0.0:
            self.pool.learn(self._xp, y, w * self.rng.poisson(1.0, size=self.pool.n_learners).astype(np.float64))
