"""The reference pool: N river ``HoeffdingTreeClassifier`` (VFDT, Domingos & Hulten 2000)."""

from __future__ import annotations

import warnings

import numpy as np
from river.tree import HoeffdingTreeClassifier

from boostbench.learners.pool import HoeffdingTreeParams, WeakLearnerPool

# river's Gaussian estimator divides by a zero deviation when every value of a numeric
# attribute seen at a leaf is equal; the resulting +-inf gives the correct 0/1 CDF.
warnings.filterwarnings("ignore", message="divide by zero", category=RuntimeWarning, module=r"river\.proba\.gaussian")


class RiverHoeffdingTreePool(WeakLearnerPool):
    """N river Hoeffding trees with per-tree delta, tau, grace period and weight scale c_i.

    Features are keyed by column index; a missing value (NaN) is left out of the example, which
    is how river's trees treat missing attributes. Leaves predict the majority class by default
    (``leaf_prediction='mc'``); river's naive-Bayes leaves count a nominal value a class never had
    as probability 1 (:mod:`boostbench.learners.vfdt.naive_bayes`, which the compiled pool
    follows; reference-implementation-facts.md: on car, poor accuracy).

    Args:
        params: the drawn parameters, arrays ``(N,)``.
        n_classes: k; labels are ints ``0..k-1``.
        nominal: indices of nominal attributes (their codes are split multiway).
        leaf_prediction: river's ``'mc'``, ``'nb'`` or ``'nba'``.
        nb_threshold: river's ``nb_threshold`` (``'nb'`` leaves with less weight predict their
            majority class).
        feature_subsets: ``(N, m)`` attribute indices each tree may see, or None for all.
        max_size: river's ``max_size``, the memory budget per tree in MiB (None: river's default,
            100). river checks it every ``memory_estimate_period`` (10^6) units of training weight.
        rules: ``"river"`` (river's tree) or ``"reference"`` (the authors' tree rules:
            :class:`~boostbench.learners.reference_tree.ReferenceHoeffdingTree`, ``'mc'`` leaves).
    """

    def __init__(
        self,
        params: HoeffdingTreeParams,
        n_classes: int,
        nominal: list[int],
        leaf_prediction: str = "mc",
        feature_subsets: np.ndarray | None = None,
        max_size: float | None = None,
        rules: str = "river",
        nb_threshold: float = 0.0,
    ):
        self.params = params
        self.n_learners = len(params.delta)
        self.n_classes = int(n_classes)
        self.weight_scale = np.asarray(params.weight_scale, dtype=np.float64)
        if rules == "reference":
            from boostbench.learners.reference_tree import ReferenceHoeffdingTree

            tree, kind = ReferenceHoeffdingTree, {"n_classes": self.n_classes}
        else:
            tree, kind = HoeffdingTreeClassifier, {"leaf_prediction": leaf_prediction, "nb_threshold": nb_threshold}
        self.trees = [
            tree(
                grace_period=int(params.grace_period[i]),
                delta=float(params.delta[i]),
                tau=float(params.tau[i]),
                nominal_attributes=list(nominal) or None,
                **kind,
                **({} if max_size is None else {"max_size": float(max_size)}),
            )
            for i in range(self.n_learners)
        ]
        self._uniform = np.full(self.n_classes, 1.0 / self.n_classes)
        self.nominal = list(nominal)
        self.feature_subsets = None if feature_subsets is None else [s.tolist() for s in feature_subsets]

    def prepare(self, x: np.ndarray) -> dict[int, float] | list[dict[int, float]]:
        """The example as river's dict (missing values left out); one dict per tree with subsets."""
        values = x.tolist()
        if self.feature_subsets is None:
            return {j: v for j, v in enumerate(values) if v == v}
        return [{j: values[j] for j in subset if values[j] == values[j]} for subset in self.feature_subsets]

    def _view(self, i: int, xp) -> dict[int, float]:
        return xp if self.feature_subsets is None else xp[i]

    def predict_proba_member(self, i: int, xp) -> np.ndarray:
        dist = self.trees[i].predict_proba_one(self._view(i, xp))
        if not dist:
            return self._uniform.copy()
        proba = np.zeros(self.n_classes)
        for label, p in dist.items():
            proba[label] = p
        # river has normalised; a leaf holding only zero weights returns zeros
        return proba if proba.any() else self._uniform.copy()

    def learn_member(self, i: int, xp, y: int, weight: float) -> None:
        self.trees[i].learn_one(self._view(i, xp), int(y), w=float(weight) * self.weight_scale[i])

    def grow(self, n_classes: int | None = None, n_categories=None) -> None:
        """See :meth:`WeakLearnerPool.grow`: river's trees learn classes as they come; a new
        nominal attribute joins each tree's ``nominal_attributes`` (trees with feature subsets
        keep theirs: they never see a new attribute).
        """
        if n_classes is not None:
            self.n_classes = int(n_classes)
            self._uniform = np.full(self.n_classes, 1.0 / self.n_classes)
            for tree in self.trees:
                if hasattr(tree, "n_classes"):  # the reference rules' trees spread over all k labels
                    tree.n_classes = max(tree.n_classes, self.n_classes)
        if n_categories is not None:
            nominal = [j for j, m in enumerate(n_categories) if m > 0]
            if nominal != self.nominal:
                self.nominal = nominal
                for tree in self.trees:  # read when a leaf meets an attribute for the first time
                    tree.nominal_attributes = list(nominal)
