"""river's online ensembles as runner algorithms, so that one sweep puts them in the same tables
as the papers' algorithms: the boosting ones (``river_adaboost``, ``river_adwin_boosting``,
``river_bole``) and the stream-ensemble baselines (``river_arf``, ``river_srp``,
``river_leveraging_bagging``). They run as river ships them: river's trees with river's defaults
(nominal attributes declared), river's own ``predict_one``, scored as river's metrics score it (its
``None`` is a miss, not a draw).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import Constraint, OneOf
from boostbench.metrics import NO_PREDICTION


def _hoeffding_tree(nominal, **defaults):
    from river import tree

    return tree.HoeffdingTreeClassifier(nominal_attributes=nominal, **defaults)


def _over_trees(class_name: str, **tree_defaults):
    """An ensemble of river.ensemble over N river Hoeffding trees (``tree_defaults``: the base
    model river itself uses when given none, e.g. SRP's grace period 50 and delta 0.01;
    ``leaves``: the trees' ``leaf_prediction``, None for river's default).
    """

    def build(nominal, n_models: int, seed: int, leaves: str | None = None):
        from river import ensemble

        trees = {**tree_defaults, **({"leaf_prediction": leaves} if leaves else {})}
        return getattr(ensemble, class_name)(model=_hoeffding_tree(nominal, **trees), n_models=n_models, seed=seed)

    return build


def _arf(nominal, n_models: int, seed: int, leaves: str | None = None):
    from river import forest  # ARF grows its own trees (grace 50, delta 0.01, sqrt(d) features per split)

    kind = {"leaf_prediction": leaves} if leaves else {}
    return forest.ARFClassifier(n_models=n_models, nominal_attributes=nominal, seed=seed, **kind)


#: runner name -> builder ``(nominal attributes or None, N, seed) -> river classifier``
ENSEMBLES = {
    "adaboost": _over_trees("AdaBoostClassifier"),  # Oza's online boosting
    "adwin_boosting": _over_trees("ADWINBoostingClassifier"),
    "bole": _over_trees("BOLEClassifier"),  # de Barros et al. 2016
    "arf": _arf,  # Adaptive Random Forest, Gomes et al. 2017
    "srp": _over_trees("SRPClassifier", grace_period=50, delta=0.01),  # Gomes, Read & Bifet 2019
    "leveraging_bagging": _over_trees("LeveragingBaggingClassifier"),  # Bifet, Holmes & Pfahringer 2010
}


class RiverEnsemble(OnlineBooster):
    """One of river's ensembles over N of river's Hoeffding trees (a peer: no pool).

    Args:
        pool: None (the ensemble has its own trees).
        n_classes: k, the number of classes.
        rng: the generator the ensemble's seed is drawn from.
        ensemble: a key of :data:`ENSEMBLES`.
        n_learners: N, river's ``n_models``.
        n_categories: ``(d,)`` category counts (0 = numeric): the nominal attributes, as river's
            trees are told them.
        leaf_prediction: the trees' ``leaf_prediction`` (``"mc"``, ``"nb"``, ``"nba"``), or None
            for river's default (``"nba"``): the same leaves as ours for a timing at equal work.

    Raises:
        ValueError: an unknown ``ensemble`` or ``leaf_prediction``.
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "ensemble": OneOf(tuple(ENSEMBLES)),
        "leaf_prediction": OneOf(("mc", "nb", "nba", None)),
    }

    def __init__(
        self, pool, n_classes, rng, *, ensemble: str, n_learners: int, n_categories, leaf_prediction: str | None = None
    ):
        super().__init__(pool, n_classes, rng)
        self._validate_params(ensemble=ensemble, leaf_prediction=leaf_prediction)
        nominal = [j for j, m in enumerate(n_categories) if m > 0]
        self.ensemble, self.leaf_prediction = ensemble, leaf_prediction
        self.model = ENSEMBLES[ensemble](nominal or None, int(n_learners), int(rng.integers(2**31)), leaf_prediction)
        self._x = None

    def _dict(self, x: np.ndarray) -> dict:
        self._x = {j: v for j, v in enumerate(x.tolist()) if v == v}
        return self._x

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """River's ``predict_proba_one`` as ``(k,)`` (uniform before any learning)."""
        proba = np.zeros(self.n_classes)
        for label, p in self.model.predict_proba_one(self._dict(x)).items():
            proba[label] = p
        total = proba.sum()
        return proba / total if total > 0 else np.full(self.n_classes, 1.0 / self.n_classes)

    def predict(self, x: np.ndarray) -> int:
        """River's ``predict_one``; while it has no answer (None: before it has learnt),
        :data:`~boostbench.metrics.NO_PREDICTION`, which the measures count as a miss and as a
        predicted class of its own, as river's metrics count a ``None`` prediction (its
        ``Accuracy``, ``CohenKappa`` and ``MacroF1`` equal ours on such a sequence).
        """
        label = self.model.predict_one(self._dict(x))
        return NO_PREDICTION if label is None else int(label)

    def update(self, y: int) -> None:
        self.model.learn_one(self._x, int(y))
