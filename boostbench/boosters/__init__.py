"""Online boosters, one module per algorithm, and the registry the runner builds every algorithm from.

The registry also holds the batch boosters of :mod:`boostbench.batch` (``family="batch"``): they
run under the split protocols (``kfold``, ``holdout``) with scikit-learn trees as weak learners.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boostbench.boosters.ada_olmr import AdaOLMR
from boostbench.boosters.adaboost_olm import AdaboostOLM
from boostbench.batch import BATCH_ALGORITHMS, BatchBooster
from boostbench.boosters.base import OnlineBooster, OnlineRanker
from boostbench.boosters.hedge import HedgeExperts
from boostbench.boosters.online_bagging import OnlineBagging
from boostbench.boosters.online_bmr import OnlineBMR
from boostbench.boosters.online_boosting import OnlineBoosting
from boostbench.boosters.online_mbbm import OnlineMBBM
from boostbench.boosters.vfdt import VFDT, BestVFDT
from boostbench.errors import ConfigError
from boostbench.learners.pool import WeakLearnerPool


@dataclass(frozen=True)
class AlgorithmSpec:
    """How to build an algorithm: its class, its config keys, its task, family and pool size."""

    cls: type[OnlineBooster] | type[OnlineRanker] | type[BatchBooster]
    params: tuple[str, ...]
    single_learner: bool = False
    task: str = "multiclass"
    family: str = "online"  # or "batch": fitted once on a training part (kfold / holdout only)

    def pool_size(self, n_learners: int) -> int:
        return 1 if self.single_learner else n_learners


ALGORITHMS: dict[str, AlgorithmSpec] = {
    "adaboost_olm": AlgorithmSpec(AdaboostOLM, ("alpha_bound", "hedge_eta", "compiled")),
    "online_mbbm": AlgorithmSpec(OnlineMBBM, ("gamma", "weight_factor", "compiled")),
    "online_boosting": AlgorithmSpec(OnlineBoosting, ("eps_floor", "compiled")),
    "vfdt": AlgorithmSpec(VFDT, (), single_learner=True),
    "best_vfdt": AlgorithmSpec(BestVFDT, ()),
    "ada_olmr": AlgorithmSpec(AdaOLMR, ("alpha_bound", "hedge_eta", "weak_prediction"), task="multilabel"),
    "online_bmr": AlgorithmSpec(OnlineBMR, ("gamma", "weak_prediction", "potential_loss"), task="multilabel"),
    "hedge": AlgorithmSpec(HedgeExperts, ("beta",)),
    "online_bagging": AlgorithmSpec(OnlineBagging, ()),
    "online_base": AlgorithmSpec(VFDT, (), single_learner=True),  # one online base model (any learner)
    **{name: AlgorithmSpec(cls, (), family="batch") for name, cls in BATCH_ALGORITHMS.items()},
}


def algorithm_spec(name: str) -> AlgorithmSpec:
    """The registry entry for ``name``.

    Raises:
        ConfigError: unknown algorithm (the message lists the known ones).
    """
    if name not in ALGORITHMS:
        raise ConfigError(f"unknown algorithm {name!r} (available: {', '.join(ALGORITHMS)})")
    return ALGORITHMS[name]


def build_booster(cfg: Any, pool: WeakLearnerPool, n_classes: int, rng: np.random.Generator,
                  **river_args: Any) -> OnlineBooster | OnlineRanker:
    """Build the booster an ``algorithm`` config names over ``pool``."""
    spec = algorithm_spec(str(cfg["name"]))
    params = {key: cfg[key] for key in spec.params if key in cfg}
    try:
        return spec.cls(pool, n_classes, rng, **river_args, **params)
    except ValueError as exc:
        raise ConfigError(f"algorithm {cfg['name']}: {exc}") from None


def build_batch_booster(cfg: Any, learner: Any, n_classes: int, rng: np.random.Generator) -> BatchBooster:
    """Build the batch booster an ``algorithm`` config names over ``learner`` (a
    :class:`~boostbench.batch.TreeParams` or :class:`~boostbench.learners.bayes_pool.BayesParams`).

    Raises:
        ConfigError: not a batch algorithm, bad tree bounds, ``n_rounds`` < 1, or a class count
            the algorithm does not handle (binary ``adaboost`` on k > 2).
    """
    spec = algorithm_spec(str(cfg["name"]))
    if spec.family != "batch":
        raise ConfigError(f"algorithm {cfg['name']} is not a batch algorithm")
    try:
        return spec.cls(n_classes, int(cfg.get("n_rounds", 1)), learner, rng)
    except ValueError as exc:
        raise ConfigError(f"algorithm {cfg['name']}: {exc}") from None


__all__ = ["ALGORITHMS", "AdaOLMR", "AdaboostOLM", "BestVFDT", "HedgeExperts", "OnlineBMR", "OnlineBagging", "OnlineBooster",
           "OnlineBoosting", "OnlineMBBM", "OnlineRanker", "VFDT", "algorithm_spec", "build_batch_booster",
           "build_booster"]
