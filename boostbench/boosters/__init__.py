"""Online boosters, one module per algorithm, and the registry the runner builds them from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boostbench.boosters.ada_olmr import AdaOLMR
from boostbench.boosters.adaboost_olm import AdaboostOLM
from boostbench.boosters.base import OnlineBooster, OnlineRanker
from boostbench.boosters.online_bmr import OnlineBMR
from boostbench.boosters.online_boosting import OnlineBoosting
from boostbench.boosters.online_mbbm import OnlineMBBM
from boostbench.boosters.vfdt import VFDT, BestVFDT
from boostbench.errors import ConfigError
from boostbench.learners.pool import WeakLearnerPool


@dataclass(frozen=True)
class AlgorithmSpec:
    """How to build an algorithm: its class, its config keys, its task and its pool size."""

    cls: type[OnlineBooster] | type[OnlineRanker]
    params: tuple[str, ...]
    single_learner: bool = False
    task: str = "multiclass"

    def pool_size(self, n_learners: int) -> int:
        return 1 if self.single_learner else n_learners


ALGORITHMS: dict[str, AlgorithmSpec] = {
    "adaboost_olm": AlgorithmSpec(AdaboostOLM, ("alpha_bound", "hedge_eta", "compiled")),
    "online_mbbm": AlgorithmSpec(OnlineMBBM, ("gamma", "weight_factor")),
    "online_boosting": AlgorithmSpec(OnlineBoosting, ("eps_floor",)),
    "vfdt": AlgorithmSpec(VFDT, (), single_learner=True),
    "best_vfdt": AlgorithmSpec(BestVFDT, ()),
    "ada_olmr": AlgorithmSpec(AdaOLMR, ("alpha_bound", "hedge_eta", "weak_prediction"), task="multilabel"),
    "online_bmr": AlgorithmSpec(OnlineBMR, ("gamma", "weak_prediction", "potential_loss"), task="multilabel"),
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


__all__ = ["ALGORITHMS", "AdaOLMR", "AdaboostOLM", "BestVFDT", "OnlineBMR", "OnlineBooster",
           "OnlineBoosting", "OnlineMBBM", "OnlineRanker", "VFDT", "algorithm_spec", "build_booster"]
