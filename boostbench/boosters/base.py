"""Booster interfaces: predict-then-reveal on numpy arrays, plus river's APIs on top.

A booster sees one example at a time in the papers' order: ``predict``/``predict_scores`` gets
``x`` (the booster queries its weak learners and keeps what it computed), then ``update``
reveals the true label (multiclass) or label set (multi-label) of that same ``x``. Boosters do
no I/O and no timing; protocols do.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from river import base

from boostbench.core.ties import argmax_random_tie
from boostbench.learners.pool import WeakLearnerPool


class _BoosterCore:
    """What every booster holds: a pool, k, a generator, and river's label/feature names.

    ``cache_fill_s`` (float, seconds): time spent building values that outlive the run and that a
    later run reads from the disk cache (OnlineMBBM's cost matrices); the runner times it apart
    from the pass, as it times the kernels' compilation, so a run's runtime does not depend on
    the order runs were made in. 0 for boosters without such caches.

    Args:
        pool: N weak learners over ``n_classes`` labels.
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (ties, Hedge draws, Poisson counts).
        classes: labels as river sees them; default ``0..k-1``.
        features: feature names in column order for river's dict examples; default: the keys
            of the first example seen, in order.
    """

    def __init__(self, pool: WeakLearnerPool, n_classes: int, rng: np.random.Generator,
                 classes: Sequence[Any] | None = None, features: Sequence[Any] | None = None):
        if n_classes < 2:
            raise ValueError(f"a booster needs at least 2 classes, got {n_classes}")
        self.pool = pool
        self.n_classes = int(n_classes)
        self.rng = rng
        self.classes = list(classes) if classes is not None else list(range(self.n_classes))
        self.features = list(features) if features is not None else None
        self._code = {label: code for code, label in enumerate(self.classes)}
        self._pending: dict | None = None  # the river example of the last river prediction
        self.cache_fill_s = 0.0

    def _to_array(self, x: dict) -> np.ndarray:
        if self.features is None:
            self.features = list(x.keys())
        return np.array([x.get(f, np.nan) for f in self.features], dtype=np.float64)


class OnlineBooster(_BoosterCore, base.Classifier):
    """Base class of the multiclass online boosters (river's ``Classifier`` API on top)."""

    @abstractmethod
    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Score ``x`` (``(d,)`` float64, NaN = missing): ``(k,)`` float64 distribution.

        Keeps what it computed for the following :meth:`update`.
        """

    def predict(self, x: np.ndarray) -> int:
        """The booster's label for ``x`` (argmax of :meth:`predict_proba`, ties at random)."""
        return argmax_random_tie(self.predict_proba(x), self.rng)

    @abstractmethod
    def update(self, y: int) -> None:
        """Reveal the true label ``y`` (int in ``0..k-1``) of the last predicted example."""

    def test_then_train(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`predict` then :meth:`update` on each row of ``X`` (``(m, d)`` float64, labels
        ``y`` ``(m,)`` int) in order; returns ``(m,)`` bool, whether each prediction was right.
        Boosters with a compiled step override it with one kernel call (the same numbers)."""
        hits = np.empty(len(X), dtype=bool)
        for i, (x, label) in enumerate(zip(X, y)):
            hits[i] = self.predict(x) == label
            self.update(int(label))
        return hits

    @property
    def _multiclass(self) -> bool:
        return True

    def predict_proba_one(self, x: dict) -> dict[Any, float]:
        proba = self.predict_proba(self._to_array(x))
        self._pending = x
        return {label: float(p) for label, p in zip(self.classes, proba)}

    def predict_one(self, x: dict) -> Any:
        label = self.predict(self._to_array(x))
        self._pending = x
        return self.classes[label]

    def learn_one(self, x: dict, y: Any) -> None:
        """Train on ``(x, y)``; reuses the work of a ``predict_*_one`` on the same ``x``."""
        if y not in self._code:
            raise ValueError(f"label {y!r} is not one of the booster's classes {self.classes}")
        if self._pending is not x:
            self.predict_proba(self._to_array(x))
        self._pending = None
        self.update(self._code[y])


class OnlineRanker(_BoosterCore, base.MultiLabelClassifier):
    """Base class of the multi-label ranking boosters (Jung & Tewari 2018).

    The weak learners' pool has one class per label; a weak prediction is the learner's
    distribution over labels. river's multi-label API: ``learn_one(x, {label: bool})``,
    ``predict_one(x) -> {label: bool}`` (the top-m labels, m = the mean label-set size seen in
    training, rounded; at least 1) and ``rank_one(x) -> [labels, best first]``.
    """

    def __init__(self, pool, n_classes, rng, classes=None, features=None):
        super().__init__(pool, n_classes, rng, classes, features)
        self._relevant_seen = 0
        self._examples_seen = 0

    @abstractmethod
    def predict_scores(self, x: np.ndarray) -> np.ndarray:
        """Score every label for ``x``: ``(k,)`` float64, higher = ranked higher."""

    @abstractmethod
    def update(self, relevant: np.ndarray) -> None:
        """Reveal the label set (``(k,)`` bool) of the last scored example."""

    def _reveal(self, relevant: np.ndarray) -> None:
        self._relevant_seen += int(relevant.sum())
        self._examples_seen += 1

    def rank_one(self, x: dict) -> list[Any]:
        scores = self.predict_scores(self._to_array(x))
        self._pending = x
        return [self.classes[j] for j in np.argsort(-scores, kind="stable")]

    def predict_one(self, x: dict) -> dict[Any, bool]:
        ranking = self.rank_one(x)
        m = max(1, round(self._relevant_seen / self._examples_seen)) if self._examples_seen else 1
        top = set(ranking[:m])
        return {label: label in top for label in self.classes}

    def learn_one(self, x: dict, y: dict[Any, bool]) -> None:
        """Train on ``(x, Y)`` with ``y`` mapping labels to relevance (absent labels irrelevant)."""
        unknown = [label for label in y if label not in self._code]
        if unknown:
            raise ValueError(f"label(s) {unknown} are not among the booster's labels {self.classes}")
        if self._pending is not x:
            self.predict_scores(self._to_array(x))
        self._pending = None
        relevant = np.zeros(self.n_classes, dtype=bool)
        for label, flag in y.items():
            relevant[self._code[label]] = bool(flag)
        self.update(relevant)
