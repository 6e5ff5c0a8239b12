"""MOA's online multi-label learners as runner algorithms, peers of Ada.OLMR and OnlineBMR:
``moa_ml_hoeffding_tree`` (MultilabelHoeffdingTree), ``moa_ozabag_ml`` and ``moa_ozabag_adwin_ml``
(OzaBagML, OzaBagAdwinML over N of those trees) and ``moa_isoup_tree`` (ISOUPTree), run as MOA
ships them through capymoa's JVM in a child process (:mod:`~boostbench.boosters.peers.moa_ml_worker`,
the mechanism of :mod:`~boostbench.boosters.peers.moa_peers`).

Scores and sets, as MOA gives them: a label's score is MOA's vote for it less its vote against
(a tree's majority label set votes 0 or 1, so its scores tie within the predicted set and the
rank loss counts each tie 1/2; OzaBagML sums its members' votes; ISOUPTree's is its regression
estimate), and the set is what MOA's ``BasicMultiLabelPerformanceEvaluator`` predicts: the labels
voted for more than against.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineRanker
from boostbench.boosters.peers.moa_ml_worker import LEARNERS
from boostbench.boosters.peers.moa_peers import WORKER, _MOAChild
from boostbench.constraints import Constraint, OneOf


class MOAMultilabel(_MOAChild, OnlineRanker):
    """One of MOA's multi-label learners (a peer: no pool).

    Args:
        pool: None (MOA grows its own trees).
        n_classes: k, the number of labels.
        rng: the generator MOA's seed is drawn from.
        learner: a key of :data:`~boostbench.boosters.peers.moa_ml_worker.LEARNERS`.
        n_learners: N, the ensembles' ``-s`` (unused by the single trees).
        n_categories: ``(d,)`` category counts (0 = numeric), MOA's attribute types.

    Raises:
        ValueError: an unknown ``learner``, no Python with capymoa
            (:func:`~boostbench.boosters.peers.moa_peers.moa_python`), or MOA did not start.
        PeerError: (from the methods) MOA stopped with an error of its own.
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"learner": OneOf(tuple(LEARNERS))}
    _worker = WORKER.with_name("moa_ml_worker.py")

    def __init__(self, pool, n_classes, rng, *, learner: str, n_learners: int, n_categories):
        super().__init__(pool, n_classes, rng)
        self._validate_params(learner=learner)
        self.learner = learner
        self._set = np.zeros(n_classes, dtype=bool)
        self._start({"cli": LEARNERS[learner].format(n_learners=int(n_learners))}, n_classes, n_learners, n_categories)

    def predict_scores(self, x: np.ndarray) -> np.ndarray:
        """``(k,)`` float64: MOA's vote for each label less its vote against."""
        self._x = np.asarray(x, dtype=np.float64)
        scores, self._set = self._ask(("scores", self._x))
        return np.asarray(scores, dtype=np.float64)

    def predict_labels(self, scores: np.ndarray, cardinality: float) -> np.ndarray:
        """MOA's set (the labels voted for more than against), ``(k,)`` bool."""
        return np.asarray(self._set, dtype=bool)

    def update(self, relevant: np.ndarray) -> None:
        """MOA's ``trainOnInstance`` of the last scored example (weight 1)."""
        self._ask(("learn", (self._x, np.asarray(relevant, dtype=bool))), answer=False)
