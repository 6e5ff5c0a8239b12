"""river's online boosting ensembles as runner algorithms, so that one sweep puts them in the
same tables as the papers' algorithms (``river_adaboost``, ``river_adwin_boosting``,
``river_bole``). They run as river ships them: river's ``HoeffdingTreeClassifier`` with its
defaults as the base model (nominal attributes declared), river's own ``predict_one``."""

from __future__ import annotations

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import OneOf

#: runner name -> river.ensemble class
ENSEMBLES = {"adaboost": "AdaBoostClassifier", "adwin_boosting": "ADWINBoostingClassifier", "bole": "BOLEClassifier"}


class RiverEnsemble(OnlineBooster):
    """One of river's boosting ensembles over N river Hoeffding trees (a peer: no pool).

    Args:
        pool: None (the ensemble has its own trees).
        n_classes, rng: k and the generator the ensemble's seed is drawn from.
        ensemble: a key of :data:`ENSEMBLES`.
        n_learners: N, river's ``n_models``.
        n_categories: ``(d,)`` category counts (0 = numeric): the nominal attributes, as river's
            trees are told them.
    """

    _parameter_constraints = {"ensemble": OneOf(tuple(ENSEMBLES))}

    def __init__(self, pool, n_classes, rng, ensemble: str, n_learners: int, n_categories):
        super().__init__(pool, n_classes, rng)
        self._validate_params(ensemble=ensemble)
        from river import ensemble as river_ensemble
        from river import tree

        nominal = [j for j, m in enumerate(n_categories) if m > 0]
        self.ensemble = ensemble
        self.model = getattr(river_ensemble, ENSEMBLES[ensemble])(
            model=tree.HoeffdingTreeClassifier(nominal_attributes=nominal or None), n_models=int(n_learners),
            seed=int(rng.integers(2**31)))
        self._x = None

    def _dict(self, x: np.ndarray) -> dict:
        self._x = {j: v for j, v in enumerate(x.tolist()) if v == v}
        return self._x

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """river's ``predict_proba_one`` as ``(k,)`` (uniform before any learning)."""
        proba = np.zeros(self.n_classes)
        for label, p in self.model.predict_proba_one(self._dict(x)).items():
            proba[label] = p
        total = proba.sum()
        return proba / total if total > 0 else np.full(self.n_classes, 1.0 / self.n_classes)

    def predict(self, x: np.ndarray) -> int:
        """river's ``predict_one``; while it has no answer (None), a label drawn uniformly, as our
        boosters' ties are broken."""
        label = self.model.predict_one(self._dict(x))
        return int(self.rng.integers(self.n_classes)) if label is None else int(label)

    def update(self, y: int) -> None:
        self.model.learn_one(self._x, int(y))
