"""The authors' Hoeffding-tree rules as a river tree: ``learner.rules=reference`` (README, row 11).

Jung et al.'s code (yhjung88/OnlineBoostingWithVFDT) grows its VFDTs with a Python port of Weka's
Hoeffding tree. Its split test, Gaussian split points and information gain are river's; these
rules differ (reference-implementation-facts.md, "More facts"), and :class:`ReferenceHoeffdingTree`
takes them:

- a class's leaf count starts at 1 on first sight (then adds the example's weight), and a class
  the leaf has never seen counts 1 in the leaf's distribution over all k classes;
- an example whose split attribute is missing stops at that split node: it trains nothing below,
  and is predicted with the split node's distribution (also for an unseen nominal value);
- no 99% rule (river does not split a leaf whose majority class holds more than 99%);
- a split attempt waits for *more* than the grace period's weight (river: at least).

The authors split nominal attributes multiway only; river also tries one value against the rest,
but with information gain the multiway split never scores lower (a finer partition) and wins
ties, so river's choice is theirs. Left as river's: the Gaussian estimator's variance (river:
sample; Weka: population, floored at 1e-12) and the grace period's draw (an integer here,
real-valued there). The compiled trees implement river's rules only.
"""

from __future__ import annotations

import math

from river.tree import HoeffdingTreeClassifier
from river.tree.nodes.branch import DTBranch
from river.tree.nodes.htc_nodes import LeafMajorityClass


class ReferenceLeaf(LeafMajorityClass):
    """A majority-class leaf whose class counts start at 1 on first sight."""

    def update_stats(self, y, w):
        self.stats[y] = self.stats.get(y, 1.0) + w


class ReferenceHoeffdingTree(HoeffdingTreeClassifier):
    """river's ``HoeffdingTreeClassifier`` (majority-class leaves) under the authors' rules
    (module docstring).

    Args:
        n_classes: k; :meth:`predict_proba_one` returns a probability for each label ``0..k-1``
            (a label a leaf has never seen counts 1, as in the authors' code). Grows with the
            largest label learned.
        grace_period: river's ``grace_period`` (weight between split attempts).
        delta: river's ``delta`` (the Hoeffding bound's confidence).
        tau: river's ``tau`` (the tie threshold).
        nominal_attributes: river's ``nominal_attributes``.
        max_size: river's ``max_size`` (MiB).
    """

    def __init__(
        self,
        n_classes: int = 2,
        grace_period: int = 200,
        delta: float = 1e-7,
        tau: float = 0.05,
        nominal_attributes: list | None = None,
        max_size: float = 100.0,
    ):
        super().__init__(
            grace_period=grace_period,
            delta=delta,
            tau=tau,
            leaf_prediction="mc",
            nominal_attributes=nominal_attributes,
            max_size=max_size,
            max_share_to_split=1.0,
        )
        self.n_classes = n_classes

    def _new_leaf(self, initial_stats=None, parent=None):
        depth = 0 if parent is None else parent.depth + 1
        return ReferenceLeaf({} if initial_stats is None else initial_stats, depth, self.splitter)

    def _stop(self, x):
        """The node where ``x`` stops: a leaf, or a split node whose attribute ``x`` lacks or
        whose branch for ``x``'s nominal value does not exist yet.
        """
        node = self._root
        while isinstance(node, DTBranch):
            try:
                node = node.next(x)
            except KeyError:
                return node
        return node

    def learn_one(self, x, y, *, w=1.0):
        self.n_classes = max(self.n_classes, int(y) + 1)
        node = self._stop(x) if isinstance(self._root, DTBranch) else None
        if isinstance(node, DTBranch) and node.feature not in x:
            self.classes.add(y)  # stops at the split node, which learns nothing
            self._train_weight_seen_by_model += w
            return
        # river tries a split once the weight since the last attempt reaches the grace period;
        # the authors' code once it exceeds it
        grace, self.grace_period = self.grace_period, math.nextafter(self.grace_period, math.inf)
        try:
            super().learn_one(x, y, w=w)
        finally:
            self.grace_period = grace

    def predict_proba_one(self, x):
        if self._root is None:
            return {c: 1.0 / self.n_classes for c in range(self.n_classes)}
        counts = self._stop(x).stats
        proba = {c: counts.get(c, 1.0) for c in range(self.n_classes)}
        total = sum(proba.values())
        return {c: p / total for c, p in proba.items()}
