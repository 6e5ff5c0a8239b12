"""The booster interface: predict-then-reveal on numpy arrays, plus river's classifier API.

A booster sees one example at a time in the papers' order: :meth:`OnlineBooster.predict`
gets ``x`` (the booster may query its weak learners and keep what it computed), then
:meth:`OnlineBooster.update` reveals the true label of that same ``x``. Boosters do no I/O
and no timing; protocols do.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from river import base

from boostbench.core.ties import argmax_random_tie
from boostbench.learners.pool import WeakLearnerPool


class OnlineBooster(base.Classifier):
    """Base class of the online boosters over a :class:`WeakLearnerPool`.

    Args:
        pool: N weak learners over ``n_classes`` labels.
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (ties, Hedge draws, Poisson counts).
        classes: labels as river sees them (``predict_one`` returns these); default ``0..k-1``.
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
        self._pending: dict | None = None  # the river example of the last predict_*_one

    # -- the protocol's API -------------------------------------------------------------
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

    # -- river's classifier API ------------------------------------------------------------
    @property
    def _multiclass(self) -> bool:
        return True

    def _to_array(self, x: dict) -> np.ndarray:
        if self.features is None:
            self.features = list(x.keys())
        return np.array([x.get(f, np.nan) for f in self.features], dtype=np.float64)

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
