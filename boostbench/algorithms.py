"""The algorithm registry: every algorithm the runner can build, and all it needs to know of it.

An entry owns what the runner would otherwise branch on by name: the class, its task and
family, which top-level knobs it computes with (so the config hash and a sweep's "this axis is
ignored" follow the declaration), whether it uses one weak learner whatever N is, whether the
protocol tracks its members, the kernels to compile before the timed pass, and the caches the
runner loads before the run and saves after it. The hyper-parameters are the class's
own (constructor defaults, ``_parameter_constraints``): an entry reads them, it does not
re-declare them; they are checked once, in :func:`boostbench.runner.config.validate`.

Adding an algorithm is one module (``boosters/`` or ``batch/``), one entry here and one YAML file
under ``configs/algorithm/`` (README, "Adding an algorithm").
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boostbench.constraints import PROBABILITY, Constraint, entry, positive_int
from boostbench.errors import ConfigError

#: Top-level config keys whose meaning belongs to some algorithms only: an algorithm declares the
#: ones it uses (:attr:`AlgorithmSpec.uses`), and the others leave its config hash.
KNOBS = ("n_learners", "gamma", "n_rounds")
#: Constraints on the top-level knobs (checked whether or not the algorithm uses them: a grid
#: value is a user's value).
KNOB_CONSTRAINTS: dict[str, Constraint] = {
    "n_learners": positive_int(),
    "gamma": PROBABILITY,
    "n_rounds": positive_int(),
}


def _resolve(target: str) -> Any:
    """``"package.module:attribute"`` -> the attribute (imported on first use: the registry
    imports no kernel module, so a bad value is reported before numba loads).
    """
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True, kw_only=True)
class AlgorithmSpec:
    """One algorithm of the registry.

    Attributes:
        target: ``"module:Class"`` of the booster.
        constraints: ``"module:attribute"`` of the class's ``_parameter_constraints`` when its
            module loads the numba kernels (:mod:`boostbench.hyperparameters`), so that the config
            check imports none; None: read from the class.
        fixed: constructor arguments the entry sets, for a class that serves several entries
            (a peer's ``ensemble``): the config must keep them.
        task: ``"multiclass"`` or ``"multilabel"``.
        family: ``"online"`` (a pool of weak learners, one pass) or ``"batch"`` (fitted on a
            training part; split protocols only).
        uses: the top-level :data:`KNOBS` it computes with.
        single_learner: uses one weak learner whatever ``n_learners`` is.
        max_classes: the most classes it handles (None: any k >= 2; binary AdaBoost: 2).
        tracks_members: the protocol scores every member (``member_predictions``), e.g. for the
            best tree in hindsight.
        warm_up: ``"module:function"`` compiling kernels it may run that a short pass need not
            reach (the runner's warm-up pass compiles the others); ``compiled_warm_up`` those of
            ``compiled=true``.
        caches: ``"module:function"`` pair (load, save): ``load(k, algorithm_cfg, n_learners)``
            fills the process's caches from disk before the booster is built, ``save()`` writes
            what the run added. The booster itself does no I/O.
        peer: another library's ensemble with its own weak learners (river's, MOA's): the runner
            builds no pool (the ``learner`` config does not apply) and passes ``n_learners`` and
            the attributes' ``n_categories`` to the constructor.
    """

    target: str = field(kw_only=False)
    constraints: str | None = None
    fixed: Mapping[str, Any] = field(default_factory=dict)
    task: str = "multiclass"
    family: str = "online"
    uses: tuple[str, ...] = ("n_learners",)
    single_learner: bool = False
    max_classes: int | None = None
    tracks_members: bool = False
    warm_up: tuple[str, ...] = ()
    compiled_warm_up: tuple[str, ...] = ()
    caches: tuple[str, str] | None = None
    peer: bool = False

    @property
    def cls(self) -> type:
        return _resolve(self.target)

    @property
    def params(self) -> Mapping[str, Constraint]:
        """The keys of the ``algorithm`` config passed to the constructor, with their constraints:
        the class's ``_parameter_constraints``.
        """
        return _resolve(self.constraints) if self.constraints else self.cls._parameter_constraints

    def pool_size(self, n_learners: int) -> int:
        """The number of weak learners it builds for a config's ``n_learners``."""
        return 1 if self.single_learner else n_learners

    def warm_ups(self, algorithm_cfg: Mapping[str, Any]) -> list[Any]:
        """The warm-up functions a run with this config calls before its timed pass."""
        names = list(self.warm_up)
        if algorithm_cfg.get("compiled", False):
            names += self.compiled_warm_up
        return [_resolve(name) for name in names]

    def load_caches(self, k: int, algorithm_cfg: Mapping[str, Any], n_learners: int) -> None:
        if self.caches is not None:
            _resolve(self.caches[0])(k, algorithm_cfg, self.pool_size(n_learners))

    def save_caches(self) -> None:
        if self.caches is not None:
            _resolve(self.caches[1])()


_B = "boostbench.boosters"
_H = "boostbench.hyperparameters"
_BATCH = {"family": "batch", "uses": ("n_rounds",)}

ALGORITHMS: dict[str, AlgorithmSpec] = {
    "adaboost_olm": AlgorithmSpec(f"{_B}.adaboost_olm:AdaboostOLM", constraints=f"{_H}:ADABOOST_OLM"),
    "online_mbbm": AlgorithmSpec(
        f"{_B}.online_mbbm:OnlineMBBM",
        constraints=f"{_H}:ONLINE_MBBM",
        uses=("n_learners", "gamma"),
        warm_up=(f"{_B}.online_mbbm:warm_up",),
        compiled_warm_up=(f"{_B}.online_mbbm_kernels:warm_up",),
        caches=(f"{_B}.online_mbbm:load_caches", f"{_B}.online_mbbm:save_caches"),
    ),
    "online_boosting": AlgorithmSpec(f"{_B}.online_boosting:OnlineBoosting", constraints=f"{_H}:ONLINE_BOOSTING"),
    "vfdt": AlgorithmSpec(f"{_B}.vfdt:VFDT", constraints=f"{_H}:VFDT", uses=(), single_learner=True),
    # any learner
    "online_base": AlgorithmSpec(f"{_B}.vfdt:VFDT", constraints=f"{_H}:VFDT", uses=(), single_learner=True),
    "best_vfdt": AlgorithmSpec(f"{_B}.vfdt:BestVFDT", constraints=f"{_H}:BEST_VFDT", tracks_members=True),
    "hedge": AlgorithmSpec(f"{_B}.hedge:HedgeExperts", constraints=f"{_H}:HEDGE"),
    "online_bagging": AlgorithmSpec(f"{_B}.online_bagging:OnlineBagging", constraints=f"{_H}:ONLINE_BAGGING"),
    "ada_olmr": AlgorithmSpec(f"{_B}.ada_olmr:AdaOLMR", constraints=f"{_H}:ADA_OLMR", task="multilabel"),
    "online_bmr": AlgorithmSpec(
        f"{_B}.online_bmr:OnlineBMR", constraints=f"{_H}:ONLINE_BMR", task="multilabel", uses=("n_learners", "gamma")
    ),
    # batch boosters (boostbench.batch): fitted on a training part under kfold / holdout
    **{
        name: AlgorithmSpec(f"boostbench.batch.{module}:{cls}", **_BATCH)
        for name, module, cls in (
            ("adaboost_m1", "adaboost_m1", "AdaBoostM1"),
            ("adaboost_m2", "adaboost_m2", "AdaBoostM2"),
            ("samme", "samme", "SAMME"),
            ("adaboost_mh", "adaboost_mh", "AdaBoostMH"),
            ("adaboost_mm", "adaboost_mm", "AdaBoostMM"),
            ("one_vs_all", "one_vs_all", "OneVsAll"),
        )
    },
    "adaboost": AlgorithmSpec("boostbench.batch.adaboost:AdaBoost", **_BATCH, max_classes=2),
    "base": AlgorithmSpec("boostbench.batch.base_model:BaseModel", family="batch", uses=()),
    # peers: river's and MOA's online ensembles as shipped (their own trees and defaults)
    **{
        f"river_{name}": AlgorithmSpec(f"{_B}.peers.river_peers:RiverEnsemble", fixed={"ensemble": name}, peer=True)
        for name in ("adaboost", "adwin_boosting", "bole", "arf", "srp", "leveraging_bagging")
    },
    **{
        f"moa_{name}": AlgorithmSpec(f"{_B}.peers.moa_peers:MOAEnsemble", fixed={"ensemble": name}, peer=True)
        for name in ("ozaboost", "online_smooth_boost", "sgbt", "arf", "srp", "leveraging_bagging")
    },
    # Vowpal Wabbit's binary online boosting (Beygelzimer, Kale & Luo 2015) over its linear learners
    "vw_boosting": AlgorithmSpec(f"{_B}.peers.vw_boosting:VWBoosting", max_classes=2, peer=True),
}


def algorithm_spec(name: str) -> AlgorithmSpec:
    """The registry entry for ``name``.

    Raises:
        ConfigError: unknown algorithm (the message lists the known ones).
    """
    return entry("algorithm", name, ALGORITHMS)


def build_booster(
    cfg: Any, pool: Any, n_classes: int, rng: np.random.Generator, spec: AlgorithmSpec | None = None, **peer_args: Any
) -> Any:
    """Build the online booster an ``algorithm`` config names over ``pool``
    (:class:`~boostbench.learners.pool.WeakLearnerPool`) for ``n_classes`` labels
    (a peer: no pool, ``peer_args`` ``n_learners`` and ``n_categories`` instead).

    Args:
        spec: its registry entry, when the run resolved it already (else looked up by name).

    Raises:
        ConfigError: the constructor refused a value (its message, prefixed by the algorithm).
    """
    spec = spec or algorithm_spec(str(cfg["name"]))
    params = {key: cfg[key] for key in spec.params if key in cfg}
    try:
        return spec.cls(pool, n_classes, rng, **peer_args, **params)
    except ValueError as exc:
        raise ConfigError(f"algorithm {cfg['name']}: {exc}") from None


def build_batch_booster(
    cfg: Any, learner: Any, n_classes: int, rng: np.random.Generator, spec: AlgorithmSpec | None = None
) -> Any:
    """Build the batch booster an ``algorithm`` config names over ``learner`` (a
    :class:`~boostbench.batch.TreeParams` or :class:`~boostbench.learners.bayes.pool.BayesParams`).

    Args:
        spec: its registry entry, when the run resolved it already (else looked up by name).

    Raises:
        ConfigError: not a batch algorithm, or a class count the algorithm does not handle
            (binary ``adaboost`` on k > 2).
    """
    spec = spec or algorithm_spec(str(cfg["name"]))
    if spec.family != "batch":
        raise ConfigError(f"algorithm {cfg['name']} is not a batch algorithm")
    try:
        options = {key: cfg[key] for key in spec.params if key != "n_rounds" and key in cfg}
        return spec.cls(n_classes, int(cfg.get("n_rounds", 1)), learner, rng, **options)
    except ValueError as exc:
        raise ConfigError(f"algorithm {cfg['name']}: {exc}") from None
