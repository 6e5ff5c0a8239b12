"""OnlineBMR: Jung & Tewari 2018, Algorithm 2 (online boost-by-majority for multi-label ranking)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.ada_olmr import WEAK_PREDICTION, train_on_relevant_labels
from boostbench.boosters.base import OnlineRanker
from boostbench.constraints import PROBABILITY, Constraint, Interval, OneOf
from boostbench.core.rank_potentials import PairPotential


class OnlineBMR(OnlineRanker):
    """OnlineBMR (Algorithm 2): simple cumulative votes, the last expert's scores.

    ``s^i = s^{i-1} + h^i``; the prediction is ``s^N``. After ``Y``: cost vectors
    ``c^i[l] = phi^{N-i}(s^{i-1} + e_l)`` (eq. 2) from exact potentials (eq. 1); learners train on
    each relevant label l with weight ``max(c^i) - c^i[l]``, i.e. ``w^i[t] (max d - d[l])`` with the
    normalised cost ``d`` of eq. (3).

    Args:
        pool: N weak learners over ``n_classes`` labels (:class:`OnlineRanker`).
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (:class:`OnlineRanker`).
        gamma: the edge in (0, 1).
        weak_prediction: ``"distribution"`` (the paper's; hinge-loss potentials) or ``"label"``
            (basis vectors; rank-loss potentials).
        potential_loss: override the loss behind the potentials (``"hinge"`` or ``"rank"``).
        hinge_margin: the hinge loss's margin, ``(m + s[r] - s[l])_+`` (the paper: 1; the
            authors' code: 0).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "gamma": PROBABILITY,
        "weak_prediction": WEAK_PREDICTION,
        "potential_loss": OneOf((None, "hinge", "rank")),
        "hinge_margin": Interval(0.0, closed_low=True),
    }

    def __init__(
        self,
        pool,
        n_classes,
        rng,
        *,
        gamma: float = 0.1,
        weak_prediction: str = "distribution",
        potential_loss: str | None = None,
        hinge_margin: float = 1.0,
    ):
        super().__init__(pool, n_classes, rng)
        self._validate_params(
            gamma=gamma, weak_prediction=weak_prediction, potential_loss=potential_loss, hinge_margin=hinge_margin
        )
        self.gamma = float(gamma)
        self.weak_prediction = weak_prediction
        self.potential_loss = potential_loss or ("hinge" if weak_prediction == "distribution" else "rank")
        self.hinge_margin = float(hinge_margin)
        self._on_growth()
        self._state = None

    def _on_growth(self) -> None:
        self.potential = PairPotential(self.n_classes, self.gamma, self.potential_loss, self.hinge_margin)

    def predict_scores(self, x: np.ndarray) -> np.ndarray:
        xp = self.pool.prepare(x)
        H = self.pool.predict_proba(xp)
        if self.weak_prediction == "label":
            H = np.eye(self.n_classes)[H.argmax(axis=1)]
        S = np.cumsum(H, axis=0)
        self._state = (xp, S)
        return S[-1].copy()

    def update(self, relevant: np.ndarray, w: float = 1.0) -> None:
        """Reveal the label set; the learners' weights are scaled by the example's weight ``w``
        (``w = 0`` changes nothing).
        """
        xp, S = self._state
        n = self.pool.n_learners
        if w != 0.0 and 0 < relevant.sum() < self.n_classes:  # otherwise every cost is 0: nothing to learn
            S_before = np.vstack([np.zeros(self.n_classes), S[:-1]])
            costs = self.potential.cost_matrix(n - 1 - np.arange(n), S_before, relevant)
            train_on_relevant_labels(self.pool, xp, relevant, costs, w)
        self._state = None
