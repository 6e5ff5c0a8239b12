"""OzaADWIN: Oza's online boosting (Oza & Russell 2001) whose members' errors are ADWIN's estimates
(Bifet & Gavaldà 2007), so that a member a drift made wrong loses its vote and its say in lambda
as soon as ADWIN sees the change, not after its error since the start has caught up.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from river.drift import ADWIN

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import Constraint, Interval


class OzaADWIN(OnlineBooster):
    """Oza's online boosting with an ADWIN window on each member's 0-1 loss.

    An example of weight ``w`` starts with ``lambda = w``; member m trains ``K ~ Poisson(lambda)``
    times, then its label for ``x`` is scored: ADWIN_m takes its loss, whose window mean is the
    member's error ``eps_m`` (clipped to ``[eps_floor, 1 - eps_floor]``), and ``lambda`` is scaled
    by ``1 / (2 (1 - eps_m))`` if it was right, ``1 / (2 eps_m)`` if wrong (Oza's rule). The vote:
    each member with ``eps_m < 1/2`` gives ``log((1 - eps_m) / eps_m)`` to its label.

    Args:
        pool, n_classes, rng: see :class:`~boostbench.boosters.base.OnlineBooster`.
        delta: ADWIN's confidence in (0, 1) (river's default 0.002).
        eps_floor: the least error a member is given, in (0, 0.5): a member without mistakes gets
            a large finite weight.

    Raises:
        InvalidParameterError: a value outside :attr:`_parameter_constraints` (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "delta": Interval(0.0, 1.0),
        "eps_floor": Interval(0.0, 0.5),
    }

    def __init__(self, pool, n_classes, rng, *, delta: float = 0.002, eps_floor: float = 0.001):
        super().__init__(pool, n_classes, rng)
        self._validate_params(delta=delta, eps_floor=eps_floor)
        self.delta, self.eps_floor = float(delta), float(eps_floor)
        self.errors = [ADWIN(delta=self.delta) for _ in range(pool.n_learners)]

    def error(self, m: int) -> float:
        """Member m's error: ADWIN's mean over its window, clipped."""
        return min(max(self.errors[m].estimation, self.eps_floor), 1.0 - self.eps_floor)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """The members' weighted vote over the k labels, ``(k,)`` float64 (uniform before any vote)."""
        self._xp = self.pool.prepare(x)
        votes = np.zeros(self.n_classes)
        for m, proba in enumerate(self.pool.predict_proba(self._xp)):
            eps = self.error(m)
            if eps < 0.5:
                votes[np.argmax(proba)] += np.log((1.0 - eps) / eps)
        total = votes.sum()
        return votes / total if total > 0 else np.full(self.n_classes, 1.0 / self.n_classes)

    def update(self, y: int, w: float = 1.0) -> None:
        """Reveal the label ``y`` of the last predicted example, of weight ``w`` (0: nothing changes)."""
        if w == 0.0:
            return
        lam = float(w)
        for m in range(self.pool.n_learners):
            presentations = self.rng.poisson(lam)
            if presentations > 0:
                self.pool.learn_member(m, self._xp, int(y), float(presentations))
            wrong = int(np.argmax(self.pool.predict_proba_member(m, self._xp)) != y)
            self.errors[m].update(wrong)
            eps = self.error(m)
            lam *= 1.0 / (2.0 * eps) if wrong else 1.0 / (2.0 * (1.0 - eps))
