"""river's online multi-label learners as runner algorithms, peers of Ada.OLMR and OnlineBMR:
binary relevance (``river_binary_relevance``: ``multioutput.PerOutputClassifier``), the classifier
chain (``river_classifier_chain``: ``ClassifierChain``) and the Monte Carlo classifier chain
(``river_mc_classifier_chain``: ``MonteCarloClassifierChain``), each over river's Hoeffding trees
with river's defaults (nominal attributes declared), one tree per label.

Scores and sets, as river gives them: a label's score is its probability of being relevant,
river's ``predict_proba_one(x)[label][True]`` (0 while the label's tree has none); the predicted
set is river's ``predict_one``: for binary relevance and the chain, each label's more probable
value (the first of equal ones, as river's ``max`` takes it), computed from the same
probabilities; for the Monte Carlo chain, its sampled search for the most probable set, while
its scores are the chain's probabilities (``predict_proba_one``, which it inherits).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineRanker
from boostbench.constraints import Constraint, OneOf


def _tree(nominal):
    from river import tree

    return tree.HoeffdingTreeClassifier(nominal_attributes=nominal)


def _binary_relevance(nominal, labels, seed):
    from river import multioutput

    return multioutput.PerOutputClassifier(_tree(nominal))


def _classifier_chain(nominal, labels, seed):
    from river import multioutput

    return multioutput.ClassifierChain(_tree(nominal), order=list(labels))


def _mc_classifier_chain(nominal, labels, seed):
    from river import multioutput  # m = 10 samples, river's default

    model = multioutput.MonteCarloClassifierChain(_tree(nominal), seed=seed)
    model.order = list(labels)  # its constructor takes none: the chain's order as the others'
    return model


#: runner name -> builder ``(nominal attributes or None, label keys, seed) -> river multi-label model``
LEARNERS = {
    "binary_relevance": _binary_relevance,
    "classifier_chain": _classifier_chain,
    "mc_classifier_chain": _mc_classifier_chain,
}


class RiverMultilabel(OnlineRanker):
    """One of river's multi-label learners over river's Hoeffding trees (a peer: no pool).

    Labels are keyed ``"label<l>"`` for river, so that a chain's label features (river adds each
    earlier label's prediction to ``x`` under its key) do not overwrite attribute ``l``.

    Args:
        pool: None (river grows its own trees).
        n_classes: k, the number of labels.
        rng: the generator the Monte Carlo chain's seed is drawn from.
        learner: a key of :data:`LEARNERS`.
        n_learners: unused (one tree per label).
        n_categories: ``(d,)`` category counts (0 = numeric): the nominal attributes river's trees
            are told.

    Raises:
        InvalidParameterError: an unknown ``learner`` (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"learner": OneOf(tuple(LEARNERS))}

    def __init__(self, pool, n_classes, rng, *, learner: str, n_learners: int, n_categories):
        super().__init__(pool, n_classes, rng)
        self._validate_params(learner=learner)
        self.learner = learner
        self.labels = [f"label{l}" for l in range(n_classes)]
        nominal = [j for j, m in enumerate(n_categories) if m > 0]
        self.model = LEARNERS[learner](nominal or None, self.labels, int(rng.integers(2**31)))
        self._x: dict = {}
        self._proba: dict = {}

    def predict_scores(self, x: np.ndarray) -> np.ndarray:
        """``(k,)`` float64: each label's probability of being relevant (river's)."""
        self._x = {j: v for j, v in enumerate(x.tolist()) if v == v}
        self._proba = self.model.predict_proba_one(self._x)
        return np.array([self._proba.get(label, {}).get(True, 0.0) for label in self.labels], dtype=np.float64)

    def predict_labels(self, scores: np.ndarray, cardinality: float) -> np.ndarray:
        """The set river's ``predict_one`` gives, ``(k,)`` bool (``cardinality`` unused)."""
        if self.learner == "mc_classifier_chain":
            chosen = self.model.predict_one(self._x)
        else:  # MultiLabelClassifier.predict_one over the probabilities already computed
            chosen = {o: max(p, key=p.get) for o, p in self._proba.items() if p}
        return np.array([bool(chosen.get(label, False)) for label in self.labels])

    def update(self, relevant: np.ndarray) -> None:
        """The model's ``learn_one`` on the last scored example (weight 1: river's multi-label
        learners take none).
        """
        self.model.learn_one(self._x, {label: bool(r) for label, r in zip(self.labels, relevant)})
