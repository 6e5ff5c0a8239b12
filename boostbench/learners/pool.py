"""The weak-learner pool interface and the per-learner parameters drawn from the seed.

A pool holds N weak learners for a k-class problem and answers for all of them in one call,
so that a compiled pool can replace the river-backed one behind the same interface.
Per-learner parameters follow the authors' reference code (see
``shared/spec/reference-implementation-facts.md``): split confidence and tie threshold
log-uniform, grace period uniform, and an importance-weight constant ``c_i`` that scales
every training weight the learner receives.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from boostbench.errors import ConfigError


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
    def draw(cls, n: int, rng: np.random.Generator, ranges: Any) -> "HoeffdingTreeParams":
        """Draw N parameter sets: delta, tau log-uniform; grace period, c_i uniform.

        Args:
            n: number of learners.
            rng: the run's learner generator.
            ranges: mapping with ``[low, high]`` pairs ``delta``, ``tau``, ``grace_period``,
                ``weight_scale``.

        Raises:
            ConfigError: a range is not ``low <= high`` with positive values.
        """
        bounds = {}
        for key in ("delta", "tau", "grace_period", "weight_scale"):
            pair = ranges[key]
            low, high = float(pair[0]), float(pair[1])
            if not (0 < low <= high):
                raise ConfigError(f"learner.{key} must be [low, high] with 0 < low <= high, got {list(pair)}")
            bounds[key] = (low, high)
        return cls(
            delta=_log_uniform(rng, *bounds["delta"], n),
            tau=_log_uniform(rng, *bounds["tau"], n),
            grace_period=rng.integers(
                int(bounds["grace_period"][0]), int(bounds["grace_period"][1]) + 1, size=n
            ),
            weight_scale=rng.uniform(*bounds["weight_scale"], size=n),
        )


class WeakLearnerPool(ABC):
    """N weak learners over k classes, answering for all of them in one call.

    ``x`` is first turned into the pool's own form by :meth:`prepare` (once per example);
    the other calls take that prepared form. Weights are importance weights >= 0; the pool
    multiplies them by each learner's ``weight_scale`` and skips a learner whose weight is 0.
    """

    n_learners: int
    n_classes: int

    @abstractmethod
    def prepare(self, x: np.ndarray) -> Any:
        """Convert one example ``x`` (``(d,)`` float64, NaN = missing) for the calls below."""

    @abstractmethod
    def predict_proba_one(self, i: int, xp: Any) -> np.ndarray:
        """Learner ``i``'s class distribution, ``(k,)`` float64 summing to 1 (uniform if untrained)."""

    @abstractmethod
    def learn_one(self, i: int, xp: Any, y: int, weight: float) -> None:
        """Train learner ``i`` on ``(x, y)`` with importance weight ``weight`` (times its c_i)."""

    def predict_proba(self, xp: Any) -> np.ndarray:
        """Every learner's class distribution, ``(N, k)`` float64."""
        return np.stack([self.predict_proba_one(i, xp) for i in range(self.n_learners)])

    def learn(self, xp: Any, y: int, weights: np.ndarray) -> None:
        """Train every learner on ``(x, y)``; ``weights`` is ``(N,)``, 0 skips a learner."""
        for i in np.flatnonzero(weights > 0):
            self.learn_one(int(i), xp, y, float(weights[i]))


def draw_feature_subsets(n_learners: int, n_features: int, size: int | None,
                         rng: np.random.Generator) -> np.ndarray | None:
    """Each learner's own random subset of ``size`` attributes, fixed for the run.

    Returns:
        ``(N, size)`` int64 sorted attribute indices, or None (every learner sees every
        attribute) when ``size`` is None or ``n_features <= size``.
    """
    if size is None or n_features <= size:
        return None
    return np.sort(np.stack([rng.choice(n_features, size=size, replace=False) for _ in range(n_learners)]), axis=1)


ONLINE_LEARNERS = ("hoeffding_tree", "naive_bayes", "tan", "ban")


def make_pool(cfg: Any, n_learners: int, n_classes: int, n_categories: list[int],
              rng: np.random.Generator, X_train: np.ndarray | None = None) -> WeakLearnerPool:
    """Build the pool the ``learner`` config names.

    Args:
        cfg: the ``learner`` config (Hoeffding trees: ranges, ``backend``: river or compiled,
            ``feature_subset_size``; Bayesian networks: see :mod:`boostbench.learners.bayes_pool`).
        n_learners: N; n_classes: k.
        n_categories: ``(d,)`` category count of each attribute, 0 for numeric ones.
        rng: the run's learner generator (parameters, then feature subsets).
        X_train: ``(n, d)`` training rows, where the protocol has a training part (TAN/BAN fit
            their discretisation of numeric attributes on it).

    Raises:
        ConfigError: unknown backend or learner name, n_learners < 1, bad subset size.
    """
    if n_learners < 1:
        raise ConfigError(f"n_learners must be >= 1, got {n_learners}")
    if cfg.name in ("naive_bayes", "tan", "ban"):
        from boostbench.learners.bayes_pool import BayesParams, BayesPool

        return BayesPool(BayesParams.from_config(cfg, X_train, np.asarray(n_categories), rng), n_learners, n_classes)
    if cfg.name != "hoeffding_tree":
        raise ConfigError(f"unknown learner {cfg.name!r} for an online algorithm (available: {', '.join(ONLINE_LEARNERS)})")
    params = HoeffdingTreeParams.draw(n_learners, rng, cfg)
    size = cfg.get("feature_subset_size")
    if size is not None and (not isinstance(size, int) or size < 1):
        raise ConfigError(f"learner.feature_subset_size must be a positive integer or null, got {size!r}")
    subsets = draw_feature_subsets(n_learners, len(n_categories), size, rng)
    max_nodes = cfg.get("max_nodes")
    if max_nodes is not None and (not isinstance(max_nodes, int) or max_nodes < 1 or cfg.backend != "compiled"):
        raise ConfigError(f"learner.max_nodes must be null or an integer >= 1 with learner.backend=compiled "
                          f"(river trees bound themselves by size in MB), got {max_nodes!r}")
    if cfg.backend == "river":
        from boostbench.learners.river_pool import RiverHoeffdingTreePool

        nominal = [j for j, m in enumerate(n_categories) if m > 0]
        return RiverHoeffdingTreePool(params, n_classes, nominal, str(cfg.leaf_prediction), subsets)
    if cfg.backend == "compiled":
        from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool

        if cfg.leaf_prediction != "mc":
            raise ConfigError("the compiled pool has majority-class leaves only (learner.leaf_prediction=mc); "
                              "naive-Bayes leaves need learner.backend=river")
        return CompiledHoeffdingTreePool(params, n_classes, n_categories, subsets, max_nodes=max_nodes)
    raise ConfigError(f"unknown learner.backend {cfg.backend!r} (available: river, compiled)")
