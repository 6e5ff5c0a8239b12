"""The weak-learner pool interface and the per-learner parameters drawn from the seed.

A pool holds N weak learners for a k-class problem and answers for all of them in one call,
so that a compiled pool can replace the river-backed one behind the same interface.
Per-learner parameters follow the authors' reference code (yhjung88/OnlineBoostingWithVFDT):
split confidence and tie threshold log-uniform, grace period uniform, and an importance-weight
constant ``c_i`` that scales every training weight the learner receives.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from boostbench.learners.config import HoeffdingTreeConfig


def _log_uniform(rng: np.random.Generator, low: float, high: float, n: int) -> np.ndarray:
    return np.exp(rng.uniform(np.log(low), np.log(high), size=n))


@dataclass(frozen=True)
class HoeffdingTreeParams:
    """Parameters of N Hoeffding trees, each array ``(N,)``.

    Attributes:
        delta: split confidence (float64).
        tau: tie threshold (float64).
        grace_period: examples (weight) between split attempts (int64).
        weight_scale: importance-weight constant ``c_i`` multiplying every training weight.
    """

    delta: np.ndarray
    tau: np.ndarray
    grace_period: np.ndarray
    weight_scale: np.ndarray

    @classmethod
    def draw(cls, n: int, rng: np.random.Generator, config: HoeffdingTreeConfig) -> HoeffdingTreeParams:
        """Draw N parameter sets: delta, tau log-uniform; grace period, c_i uniform; a parameter
        given one value instead of a range is that value for every learner (and draws nothing).

        Args:
            n: number of learners.
            rng: the run's learner generator.
            config: the ``learner`` section, whose ``delta``, ``tau``, ``grace_period`` and
                ``weight_scale`` are each a ``(low, high)`` range or one value, checked with the
                config (:mod:`boostbench.learners.registry`).
        """

        def values(key, draw, dtype):
            spec = getattr(config, key)
            if isinstance(spec, numbers.Real):
                return np.full(n, spec, dtype=dtype)
            return draw(float(spec[0]), float(spec[1])).astype(dtype)

        return cls(
            delta=values("delta", lambda low, high: _log_uniform(rng, low, high, n), np.float64),
            tau=values("tau", lambda low, high: _log_uniform(rng, low, high, n), np.float64),
            grace_period=values(
                "grace_period", lambda low, high: rng.integers(int(low), int(high) + 1, size=n), np.int64
            ),
            weight_scale=values("weight_scale", lambda low, high: rng.uniform(low, high, size=n), np.float64),
        )


#: The authors' parameter ranges (configs/learner/hoeffding_tree.yaml for multiclass,
#: hoeffding_tree_mlr.yaml for multi-label; a test keeps them equal), for the river estimators,
#: which have no config.
REFERENCE_RANGES = {
    "multiclass": {"delta": (0.01, 0.9), "tau": (0.01, 0.9), "grace_period": (5, 20), "weight_scale": (5, 200)},
    "multilabel": {"delta": (0.01, 0.9), "tau": (0.01, 0.9), "grace_period": (5, 20), "weight_scale": (3, 10)},
}


class WeakLearnerPool(ABC):
    """N weak learners over k classes, answering for all of them in one call.

    ``x`` is first turned into the pool's own form by :meth:`prepare` (once per example);
    the other calls take that prepared form. Weights are importance weights >= 0; the pool
    multiplies them by each learner's ``weight_scale`` and skips a learner whose weight is 0.
    """

    n_learners: int
    n_classes: int
    #: ``(N,)`` float64, the constants ``c_i`` the pool multiplies training weights by (None: a
    #: pool that takes weights as given)
    weight_scale: np.ndarray | None = None
    #: True for a pool whose trees booster kernels can drive directly: it then has
    #: ``kernel_state()`` and ``reserve()`` (room to train, then ``kernel_state()``), the trees
    #: as :class:`~boostbench.learners.vfdt.layout.Forest` describes; False for the others.
    compiled: bool = False

    @abstractmethod
    def prepare(self, x: np.ndarray) -> Any:
        """Convert one example ``x`` (``(d,)`` float64, NaN = missing) for the calls below."""

    @abstractmethod
    def predict_proba_member(self, i: int, xp: Any) -> np.ndarray:
        """Learner ``i``'s class distribution, ``(k,)`` float64 summing to 1 (uniform if untrained)."""

    @abstractmethod
    def learn_member(self, i: int, xp: Any, y: int, weight: float) -> None:
        """Train learner ``i`` on ``(x, y)`` with importance weight ``weight`` (times its c_i)."""

    def predict_proba(self, xp: Any) -> np.ndarray:
        """Every learner's class distribution, ``(N, k)`` float64."""
        return np.stack([self.predict_proba_member(i, xp) for i in range(self.n_learners)])

    def proba_rows(self, X: np.ndarray) -> np.ndarray:
        """Every learner's class distribution for each row of ``X`` (``(m, d)`` float64), as
        :meth:`predict_proba` gives them row by row: ``(N, m, k)`` float64. A pool that scores
        many rows at once overrides it.
        """
        return np.stack([self.predict_proba(self.prepare(x)) for x in X], axis=1)

    def learn(self, xp: Any, y: int, weights: np.ndarray) -> None:
        """Train every learner on ``(x, y)``; ``weights`` is ``(N,)``, 0 skips a learner."""
        for i in np.flatnonzero(weights > 0):
            self.learn_member(int(i), xp, y, float(weights[i]))

    def unscaled(self, weights: np.ndarray) -> np.ndarray:
        """The weights ``(N,)`` to pass so that learner i trains with ``weights[i]`` itself, not
        ``c_i`` times it (the authors' lone trees, trained with weight 1).
        """
        return weights if self.weight_scale is None else weights / self.weight_scale

    def grow(self, n_classes: int | None = None, n_categories: Any = None) -> None:
        """Take more classes (a new k) or attributes (``n_categories`` of all of them, the current
        ones first), keeping what the learners learnt; None keeps either.

        Raises:
            NotImplementedError: a pool that cannot (Bayesian networks learn their structure
                over a fixed attribute set).
        """
        raise NotImplementedError(f"{type(self).__name__} cannot gain classes or attributes")


def draw_feature_subsets(
    n_learners: int, n_features: int, size: int | None, rng: np.random.Generator
) -> np.ndarray | None:
    """Each learner's own random subset of ``size`` attributes, fixed for the run.

    Returns:
        ``(N, size)`` int64 sorted attribute indices, or None (every learner sees every
        attribute) when ``size`` is None or ``n_features <= size``.
    """
    if size is None or n_features <= size:
        return None
    return np.sort(np.stack([rng.choice(n_features, size=size, replace=False) for _ in range(n_learners)]), axis=1)
