"""Batch weak learners: bounded-size scikit-learn decision trees trained with sample weights.

Two kinds of weak hypothesis are needed by the batch boosters:

* a label-valued tree ``h(x) in {0..k-1}`` (AdaBoost, AdaBoost.M1, SAMME, one-vs-all): scikit-learn's
  ``DecisionTreeClassifier`` fitted with the booster's distribution as ``sample_weight``;
* a tree whose leaves hold a value per label, fitted to a *gain* matrix ``G (n, k)``, where the
  booster wants the hypothesis maximising ``sum_i sum_l G(i, l) h(x_i, l)`` (AdaBoost.M2's
  pseudo-loss, AdaBoost.MH's weighted Hamming edge, AdaBoost.MM's cost ``-sum_i C(i, h(x_i))``).
  :func:`fit_gain_tree` is our documented reduction: the partition is grown by a multi-output
  ``DecisionTreeRegressor`` on the rows ``G_i / w_i`` with sample weights ``w_i = sum_l |G(i, l)|``
  (squared error rewards leaves whose summed gains are large and of one sign), and then each
  leaf's values are set *exactly* to the maximiser over that leaf: with ``S(leaf, l)`` the summed
  gains, ``argmax_l S`` as a one-hot row (a label, for the cost-sensitive learner of AdaBoost.MM),
  ``1[S > 0]`` (confidence-rated values in [0, 1], AdaBoost.M2) or ``sign(S)`` (+1/-1,
  AdaBoost.MH). So the weak hypothesis is optimal for its partition; the partition is greedy.

The label-valued learners of the Bayesian-network family (``learner=naive_bayes|tan|ban``,
:mod:`boostbench.learners.bayes.pool`) offer the same ``fit_label`` call. Trees see nominal
attributes as their integer codes and handle NaN (missing) natively.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

LEAF_RULES = ("argmax", "positive", "sign")


@dataclass(frozen=True)
class TreeParams:
    """Size bounds of the weak trees (stumps by default: ``max_depth=1``)."""

    max_depth: int | None = 1
    max_leaf_nodes: int | None = None
    min_samples_leaf: int = 1

    def fit_label(
        self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, n_classes: int, rng: np.random.Generator
    ) -> DecisionTreeClassifier:
        """A label-valued weak hypothesis (see :func:`fit_label_tree`); ``.predict(X) -> (n,)``."""
        return fit_label_tree(X, y, sample_weight, self, rng)

    def sklearn_args(self, rng: np.random.Generator) -> dict[str, Any]:
        """Keyword arguments of a scikit-learn tree; its ``random_state`` is drawn from ``rng``."""
        return {
            "max_depth": self.max_depth,
            "max_leaf_nodes": self.max_leaf_nodes,
            "min_samples_leaf": self.min_samples_leaf,
            "random_state": int(rng.integers(2**31 - 1)),
        }


def fit_label_tree(
    X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, params: TreeParams, rng: np.random.Generator
) -> DecisionTreeClassifier:
    """A label-valued weak hypothesis: a classification tree fitted to ``(X, y)`` under a distribution.

    Args:
        X: ``(n, d)`` float64 (NaN = missing).
        y: ``(n,)`` int64 labels.
        sample_weight: ``(n,)`` float64 >= 0, the booster's distribution.
    """
    return DecisionTreeClassifier(**params.sklearn_args(rng)).fit(X, y, sample_weight=sample_weight)


def predict_labels(model: Any, X: np.ndarray) -> np.ndarray:
    """``(n,)`` int64 labels of a label-valued weak hypothesis (a tree or a Bayesian network)."""
    return np.asarray(model.predict(X)).astype(np.int64)


def require_trees(learner: Any, algorithm: str) -> None:
    """Raises ValueError unless ``learner`` is :class:`TreeParams` (gain-fitted hypotheses are trees)."""
    if not isinstance(learner, TreeParams):
        raise ValueError(f"{algorithm} fits per-label tree hypotheses: it needs learner=tree")


class GainTree:
    """A partition tree whose leaves hold a value per label: ``h(x, l) = values[leaf(x), l]``.

    Attributes:
        tree: the fitted ``DecisionTreeRegressor`` (only its partition is used).
        values: ``(n_nodes, k)`` float64 leaf values (rows of internal nodes are unused).
    """

    def __init__(self, tree: DecisionTreeRegressor, values: np.ndarray):
        self.tree = tree
        self.values = values

    def predict_values(self, X: np.ndarray) -> np.ndarray:
        """``(n, k)`` float64: ``h(x_i, l)`` for every example and label."""
        return self.values[self.tree.apply(X)]


def leaf_values(sums: np.ndarray, rule: str) -> np.ndarray:
    """The per-leaf maximiser of ``sum_l S(leaf, l) h(leaf, l)`` under ``rule`` (see module doc).

    Args:
        sums: ``(n_nodes, k)`` float64 summed gains per leaf and label.
        rule: ``argmax`` (one-hot, ties to the lowest label), ``positive`` (``1[S > 0]``) or
            ``sign`` (+1 where ``S > 0``, else -1).

    Raises:
        ValueError: unknown rule.
    """
    if rule == "argmax":
        out = np.zeros_like(sums)
        out[np.arange(len(sums)), sums.argmax(axis=1)] = 1.0
        return out
    if rule == "positive":
        return (sums > 0).astype(np.float64)
    if rule == "sign":
        return np.where(sums > 0, 1.0, -1.0)
    raise ValueError(f"unknown leaf rule {rule!r} (one of {LEAF_RULES})")


def fit_gain_tree(X: np.ndarray, gain: np.ndarray, params: TreeParams, rng: np.random.Generator, rule: str) -> GainTree:
    """Fit a weak hypothesis that (approximately, see module doc) maximises ``sum G(i, l) h(x_i, l)``.

    Args:
        X: ``(n, d)`` float64 (NaN = missing).
        gain: ``(n, k)`` float64 gain matrix (the negated cost matrix for a cost-sensitive learner).
        rule: the leaf rule of :func:`leaf_values`.

    Raises:
        ValueError: the gain matrix is all zeros (nothing to learn), or an unknown rule.
    """
    weights = np.abs(gain).sum(axis=1)
    if not weights.sum() > 0:
        raise ValueError("the gain matrix is all zeros")
    targets = np.divide(gain, weights[:, None], out=np.zeros_like(gain), where=weights[:, None] > 0)
    tree = DecisionTreeRegressor(**params.sklearn_args(rng)).fit(X, targets, sample_weight=weights)
    sums = np.zeros((tree.tree_.node_count, gain.shape[1]))
    np.add.at(sums, tree.apply(X), gain)
    return GainTree(tree, leaf_values(sums, rule))
