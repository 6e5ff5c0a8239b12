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
    PROBABILITY,
    Constraint,
    Interval,
    OneOf,
    RangePair,
    positive_int,
)
from boostbench.errors import ConfigError
from boostbench.learners.bayes.network import SMOOTHINGS
from boostbench.learners.config import BayesConfig, HoeffdingTreeConfig, LearnerConfig, TreeConfig


@dataclass(frozen=True)
class LearnerSpec:
    """One kind of weak learner: ``online`` (a pool of N learners) and/or ``batch`` (a label
    learner fitted on weighted rows), its config keys' constraints and its typed config section.
    """

    online: bool
    batch: bool
    config: type
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
        config=HoeffdingTreeConfig,
        backends=("compiled", "river"),
        params={
            "backend": OneOf(("compiled", "river")),
            "leaf_prediction": OneOf(("mc", "nb", "nba")),
            "nb_threshold": Interval(0.0, closed_low=True),
            "naive_bayes": OneOf(("river", "moa")),
            "delta": RangePair(PROBABILITY, fixed=True),  # a probability: in (0, 1)
            "tau": RangePair(POSITIVE, fixed=True),
            "grace_period": RangePair(POSITIVE, fixed=True),
            "weight_scale": RangePair(POSITIVE, fixed=True),
            "feature_subset_size": positive_int(nullable=True),
            "max_size": Interval(0.0, nullable=True),
            "rules": OneOf(("river", "reference")),
        },
    ),
    "naive_bayes": LearnerSpec(online=True, batch=True, config=BayesConfig, params=_BAYES),
    "tan": LearnerSpec(online=True, batch=True, config=BayesConfig, params=_BAYES),
    "ban": LearnerSpec(online=True, batch=True, config=BayesConfig, params=_BAYES),
    "tree": LearnerSpec(
        online=False,
        batch=True,
        config=TreeConfig,
        params={
            "max_depth": positive_int(nullable=True),
            "max_leaf_nodes": positive_int(2, nullable=True),
            "min_samples_leaf": positive_int(),
        },
    ),
}


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


def learner_config(values: Mapping[str, Any]) -> LearnerConfig:
    """The typed ``learner`` section (:mod:`boostbench.learners.config`) of a resolved ``learner``
    config, checked against its kind's constraints and the compiled pool's limits.

    Raises:
        ConfigError: an unknown learner, the first bad value, or a missing key.
    """
    from boostbench.constraints import check, typed_section

    spec = learner_spec(str(values["name"]))
    check("learner", values, spec.params)
    config = typed_section(spec.config, "learner", values)
    if isinstance(config, HoeffdingTreeConfig) and config.naive_bayes != "river" and config.backend != "compiled":
        raise ConfigError(
            f"learner.naive_bayes={config.naive_bayes} (MOA's naive-Bayes leaves) needs learner.backend=compiled"
        )
    if isinstance(config, HoeffdingTreeConfig) and config.rules != "river":
        if config.backend == "compiled":
            raise ConfigError(
                "the compiled pool grows river's trees only; learner.rules=reference (the "
                "authors' tree rules) needs learner.backend=river"
            )
        if config.leaf_prediction != "mc":
            raise ConfigError(
                "the authors' tree rules (learner.rules=reference) have majority-class leaves: "
                f"learner.leaf_prediction={config.leaf_prediction} needs learner.rules=river"
            )
    return config


def make_pool(
    config: LearnerConfig,
    n_learners: int,
    n_classes: int,
    n_categories: list[int],
    rng: np.random.Generator,
    X_train: np.ndarray | None = None,
    n_threads: int = 1,
    model: Any = None,
    columns: tuple[list, list] | None = None,
):
    """Build the pool of N online weak learners the ``learner`` config names: the one pool
    factory, of the runner and of the river estimators.

    Args:
        config: the typed ``learner`` section (:func:`learner_config`): Hoeffding trees or
            Bayesian networks.
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

    if not learner_spec(config.name).online:
        raise ConfigError(
            f"learner {config.name!r} is for batch algorithms; online ones use learner={', '.join(names('online'))}"
        )
    if isinstance(config, BayesConfig):
        from boostbench.learners.bayes.pool import BayesParams, BayesPool

        return BayesPool(BayesParams.from_config(config, X_train, np.asarray(n_categories), rng), n_learners, n_classes)
    params = HoeffdingTreeParams.draw(n_learners, rng, config)
    if model is not None:
        from boostbench.learners.river_model_pool import RiverModelPool

        return RiverModelPool(model, n_learners, n_classes, params.weight_scale, rng, *columns)
    subsets = draw_feature_subsets(n_learners, len(n_categories), config.feature_subset_size, rng)
    leaves = {"leaf_prediction": config.leaf_prediction, "nb_threshold": config.nb_threshold}
    if config.backend == "river":
        from boostbench.learners.river_pool import RiverHoeffdingTreePool

        nominal = [j for j, m in enumerate(n_categories) if m > 0]
        return RiverHoeffdingTreePool(
            params,
            n_classes,
            nominal,
            feature_subsets=subsets,
            # the pool's MiB; river's max_size is per tree
            max_size=None if config.max_size is None else config.max_size / n_learners,
            rules=config.rules,
            **leaves,
        )
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool

    return CompiledHoeffdingTreePool(
        params,
        n_classes,
        n_categories,
        subsets,
        max_size=config.max_size,
        n_threads=n_threads,
        naive_bayes=config.naive_bayes,
        **leaves,
    )


def make_batch_learner(
    config: LearnerConfig, X_train: np.ndarray, n_categories: np.ndarray, rng: np.random.Generator
) -> Any:
    """The label learner a ``learner`` config names for a batch booster: size-bounded trees
    (:class:`~boostbench.learners.batch_trees.TreeParams`) or a Bayesian network.

    Args:
        config: the typed ``learner`` section (:func:`learner_config`).

    Raises:
        ConfigError: a learner batch boosters cannot use (Hoeffding trees are online), or
            TAN/BAN without training rows.
    """
    if not learner_spec(config.name).batch:
        raise ConfigError(
            f"learner {config.name!r} is online-only; batch algorithms use learner={', '.join(names('batch'))}"
        )
    if isinstance(config, TreeConfig):
        from boostbench.learners.batch_trees import TreeParams

        return TreeParams(config.max_depth, config.max_leaf_nodes, config.min_samples_leaf)
    from boostbench.learners.bayes.pool import BayesParams

    return BayesParams.from_config(config, X_train, n_categories, rng)
