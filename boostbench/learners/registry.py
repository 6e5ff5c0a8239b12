"""The weak-learner registry: each kind of weak learner, which algorithms' families it serves,
what its config values may be, and the one factory that builds it (a pool for the online
algorithms, a label learner for the batch ones).

The learner config's ``name`` picks the kind (``configs/learner/*.yaml``; ``hoeffding_tree_mlr``
is ``hoeffding_tree`` with the multi-label settings).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boostbench.constraints import (
    POSITIVE,
    Constraint,
    Interval,
    OneOf,
    RangePair,
    positive_int,
)
from boostbench.errors import ConfigError
from boostbench.learners.bayes.network import SMOOTHINGS


@dataclass(frozen=True)
class LearnerSpec:
    """One kind of weak learner: ``online`` (a pool of N learners) and/or ``batch`` (a label
    learner fitted on weighted rows), and its config keys' constraints.
    """

    online: bool
    batch: bool
    params: Mapping[str, Constraint] = field(default_factory=dict)
    backends: tuple[str, ...] = ()


_BAYES = {
    "alpha": POSITIVE,
    "n_bins": positive_int(2),
    "relearn_first": positive_int(),
    "relearn_factor": Interval(1.0),
    "max_parents": positive_int(0),
    "structure": OneOf(("ci", "bic", "bdeu", "k2")),
    "epsilon": Interval(0.0, closed_low=True, nullable=True),
    "ci_alpha": Interval(0.0, 1.0),
    "ess": POSITIVE,
    "online_structure": OneOf(("lossless", "frozen", "window")),
    "window": positive_int(),
    "binning": OneOf(("frequency", "width")),
    "missing": OneOf(("value", "skip")),
    "bin_rows": positive_int(2),
    "smoothing": OneOf(SMOOTHINGS),
    "smoothing_n0": POSITIVE,
}

LEARNERS: dict[str, LearnerSpec] = {
    "hoeffding_tree": LearnerSpec(
        online=True,
        batch=False,
        backends=("compiled", "river"),
        params={
            "backend": OneOf(("compiled", "river")),
            "leaf_prediction": OneOf(("mc", "nb", "nba")),
            "nb_threshold": Interval(0.0, closed_low=True),
            "delta": RangePair(POSITIVE, fixed=True),
            "tau": RangePair(POSITIVE, fixed=True),
            "grace_period": RangePair(POSITIVE, fixed=True),
            "weight_scale": RangePair(POSITIVE, fixed=True),
            "feature_subset_size": positive_int(nullable=True),
            "max_size": Interval(0.0, nullable=True),
            "rules": OneOf(("river", "reference")),
        },
    ),
    "naive_bayes": LearnerSpec(online=True, batch=True, params=_BAYES),
    "tan": LearnerSpec(online=True, batch=True, params=_BAYES),
    "ban": LearnerSpec(online=True, batch=True, params=_BAYES),
    "tree": LearnerSpec(
        online=False,
        batch=True,
        params={
            "max_depth": positive_int(nullable=True),
            "max_leaf_nodes": positive_int(2, nullable=True),
            "min_samples_leaf": positive_int(),
        },
    ),
}
BAYES_KINDS = ("naive_bayes", "tan", "ban")


def learner_spec(name: str) -> LearnerSpec:
    """The registry entry for ``name``.

    Raises:
        ConfigError: unknown learner (the message lists the known ones).
    """
    if name not in LEARNERS:
        raise ConfigError(f"unknown learner {name!r} (available: {', '.join(LEARNERS)})")
    return LEARNERS[name]


def names(family: str) -> list[str]:
    """The learners that serve ``family`` (``"online"`` or ``"batch"``)."""
    return [name for name, spec in LEARNERS.items() if getattr(spec, family)]


def check_learner(cfg: Mapping[str, Any]) -> None:
    """Check a ``learner`` config against its kind's constraints, and the compiled pool's limits.

    Raises:
        ConfigError: the first bad value.
    """
    from boostbench.constraints import check

    spec = learner_spec(str(cfg["name"]))
    check("learner", cfg, spec.params)
    if cfg["name"] == "hoeffding_tree" and cfg.get("rules", "river") != "river":
        if cfg.get("backend") == "compiled":
            raise ConfigError(
                "the compiled pool grows river's trees only; learner.rules=reference (the "
                "authors' tree rules) needs learner.backend=river"
            )
        if cfg.get("leaf_prediction", "mc") != "mc":
            raise ConfigError(
                "the authors' tree rules (learner.rules=reference) have majority-class leaves: "
                f"learner.leaf_prediction={cfg['leaf_prediction']} needs learner.rules=river"
            )


def make_pool(
    cfg: Mapping[str, Any],
    n_learners: int,
    n_classes: int,
    n_categories: list[int],
    rng: np.random.Generator,
    X_train: np.ndarray | None = None,
    n_threads: int = 1,
    model: Any = None,
    columns: tuple[list, list] | None = None,
):
    """Build the pool of N online weak learners the ``learner`` config names (checked by
    :func:`check_learner`): the one pool factory, of the runner and of the river estimators.

    Args:
        cfg: the ``learner`` config (Hoeffding trees: ranges or fixed values, ``backend``: river or
            compiled, ``leaf_prediction``, ``nb_threshold``, ``feature_subset_size``; Bayesian
            networks: see :mod:`boostbench.learners.bayes.pool`).
        n_learners: N; n_classes: k.
        n_categories: ``(d,)`` category count of each attribute, 0 for numeric ones.
        rng: the run's learner generator (parameters, then feature subsets).
        X_train: ``(n, d)`` training rows, where the protocol has a training part (TAN/BAN fit
            their discretisation of numeric attributes on it).
        n_threads: threads training the compiled pool's trees (the same trees for any number).
        model: a river classifier cloned N times instead of the trees (a river estimator's
            ``model``; :class:`~boostbench.learners.river_model_pool.RiverModelPool`), each with
            its drawn ``c_i``; ``columns``: the (names, categories) lists of the features it sees.

    Raises:
        ConfigError: a learner that is not online, or TAN/BAN over numeric attributes without
            a training part.
    """
    from boostbench.learners.pool import HoeffdingTreeParams, draw_feature_subsets

    name = str(cfg["name"])
    if not learner_spec(name).online:
        raise ConfigError(
            f"learner {name!r} is for batch algorithms; online ones use learner={', '.join(names('online'))}"
        )
    if name in BAYES_KINDS:
        from boostbench.learners.bayes.pool import BayesParams, BayesPool

        return BayesPool(BayesParams.from_config(cfg, X_train, np.asarray(n_categories), rng), n_learners, n_classes)
    params = HoeffdingTreeParams.draw(n_learners, rng, cfg)
    if model is not None:
        from boostbench.learners.river_model_pool import RiverModelPool

        return RiverModelPool(model, n_learners, n_classes, params.weight_scale, rng, *columns)
    subsets = draw_feature_subsets(n_learners, len(n_categories), cfg.get("feature_subset_size"), rng)
    # what the leaves predict, where the config says (else the pools' defaults: river's 'mc', nb_threshold 0)
    kinds = {"leaf_prediction": str, "nb_threshold": float}
    leaves = {key: kind(cfg[key]) for key, kind in kinds.items() if cfg.get(key) is not None}
    if cfg["backend"] == "river":
        from boostbench.learners.river_pool import RiverHoeffdingTreePool

        nominal = [j for j, m in enumerate(n_categories) if m > 0]
        max_size = cfg.get("max_size")  # the pool's MiB; river's max_size is per tree
        return RiverHoeffdingTreePool(
            params,
            n_classes,
            nominal,
            feature_subsets=subsets,
            max_size=None if max_size is None else max_size / n_learners,
            rules=str(cfg.get("rules", "river")),
            **leaves,
        )
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool

    return CompiledHoeffdingTreePool(
        params,
        n_classes,
        n_categories,
        subsets,
        max_size=cfg.get("max_size"),
        n_threads=n_threads,
        **leaves,
    )


def make_batch_learner(cfg: Any, X_train: np.ndarray, n_categories: np.ndarray, rng: np.random.Generator) -> Any:
    """The label learner a ``learner`` config names for a batch booster: size-bounded trees
    (:class:`~boostbench.learners.batch_trees.TreeParams`) or a Bayesian network.

    Raises:
        ConfigError: a learner batch boosters cannot use (Hoeffding trees are online), or
            TAN/BAN without training rows.
    """
    if not learner_spec(str(cfg.name)).batch:
        raise ConfigError(
            f"learner {cfg.name!r} is online-only; batch algorithms use learner={', '.join(names('batch'))}"
        )
    if cfg.name == "tree":
        from boostbench.learners.batch_trees import TreeParams

        return TreeParams(
            max_depth=cfg.get("max_depth", 1),
            max_leaf_nodes=cfg.get("max_leaf_nodes"),
            min_samples_leaf=cfg.get("min_samples_leaf", 1),
        )
    from boostbench.learners.bayes.pool import BayesParams

    return BayesParams.from_config(cfg, X_train, n_categories, rng)
