"""Hedge(beta) over the weak learners as experts (Freund & Schapire 1997; Combessie & Machraoui)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import PROBABILITY, Constraint
from boostbench.system.lazy import lazy_import

hedge = lazy_import("boostbench.core.hedge")  # compiled: loaded with the first booster, not with the class
ties = lazy_import("boostbench.core.ties")  # compiled: loaded by the first prediction, not with the class


class HedgeExperts(OnlineBooster):
    """The on-line allocation algorithm Hedge(beta) with the N weak learners as experts.

    Each example: every expert (a weak learner) predicts a label; the allocation ``p`` is Hedge's
    distribution and the prediction is the label of largest ``p`` mass (the weighted majority
    of Littlestone & Warmuth that Hedge generalises). On the true label, each expert suffers
    the 0-1 loss, Hedge updates ``w_i <- w_i beta^{loss_i}``, and every expert trains on the
    example with weight 1 (times its importance-weight constant, as in the boosters). An example
    of weight ``w`` (:meth:`update`) charges ``w loss_i`` (as the example seen ``w`` times) and
    trains the experts with weight ``w``; ``w = 0`` changes nothing.

    Args:
        pool: N weak learners over ``n_classes`` labels (:class:`OnlineBooster`).
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (:class:`OnlineBooster`).
        beta: Hedge's multiplier in (0, 1).

    Raises:
        InvalidParameterError: ``beta`` outside (0, 1) (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"beta": PROBABILITY}

    def __init__(self, pool, n_classes, rng, *, beta: float = 0.5):
        super().__init__(pool, n_classes, rng)
        self._validate_params(beta=beta)
        self.beta = float(beta)
        self.hedge = hedge.Hedge.from_beta(pool.n_learners, beta)
        self._state = None

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Hedge's mass on each label: ``(k,)`` float64."""
        xp = self.pool.prepare(x)
        labels = ties.argmax_rows_random_tie(self.pool.predict_proba(xp), self.rng)
        self._state = (xp, labels)
        return np.bincount(labels, weights=self.hedge.probabilities(), minlength=self.n_classes)

    def update(self, y: int, w: float = 1.0) -> None:
        xp, labels = self._state
        self._state = None
        if w == 0.0:
            return
        self.hedge.update(w * (labels != y).astype(np.float64))
        self.pool.learn(xp, y, np.full(self.pool.n_learners, float(w)))
