"""The ``learner`` config section, typed: one frozen dataclass per kind of weak learner, built once
from a checked config (:func:`boostbench.learners.registry.learner_config`) and handed to the
factories (:func:`~boostbench.learners.registry.make_pool`,
:func:`~boostbench.learners.registry.make_batch_learner`).

They declare the keys and their types; the values, defaults included, are the config files'
(``configs/learner/*.yaml``), so a class here has no defaults of its own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HoeffdingTreeConfig:
    """``learner=hoeffding_tree`` (and ``hoeffding_tree_mlr``): N VFDTs whose parameters are drawn
    per tree from ranges, as the authors' reference code draws them
    (:meth:`~boostbench.learners.pool.HoeffdingTreeParams.draw`).

    Attributes:
        name: ``"hoeffding_tree"``.
        backend: ``"compiled"`` (numba trees, bit for bit river's) or ``"river"``.
        leaf_prediction: river's leaf rule, ``"mc"`` (majority class), ``"nb"`` (naive Bayes) or
            ``"nba"`` (naive Bayes adaptive).
        delta: ``(low, high)`` of the split confidence (log-uniform), or one value for every tree.
        tau: ``(low, high)`` of the tie threshold (log-uniform), or one value.
        grace_period: ``(low, high)`` of the weight between split attempts (uniform integers), or one value.
        weight_scale: ``(low, high)`` of the importance-weight constant ``c_i`` (uniform), or one value.
        feature_subset_size: the attributes each tree sees, a random subset (None: all).
        max_size: the memory budget of the pool's N trees in MiB (None: none).
        rules: ``"river"`` or ``"reference"``, the authors' tree rules (river backend only).
        nb_threshold: the weight a leaf sees before it predicts by naive Bayes (``nb``/``nba``;
            river's default 0).
        naive_bayes: whose naive Bayes ``nb``/``nba`` leaves use, ``"river"`` (river's trees to
            the bit) or ``"moa"`` (MOA's HoeffdingTree's: Laplace-corrected nominal counts, MOA's
            Gaussian estimator; compiled backend only).
    """

    name: str
    backend: str
    leaf_prediction: str
    delta: tuple[float, float] | float
    tau: tuple[float, float] | float
    grace_period: tuple[float, float] | float
    weight_scale: tuple[float, float] | float
    feature_subset_size: int | None
    max_size: float | None
    rules: str
    nb_threshold: float = 0.0
    naive_bayes: str = "river"


@dataclass(frozen=True)
class BayesConfig:
    """``learner=naive_bayes|tan|ban``: Bayesian-network learners, online members of a pool or
    batch label learners (:mod:`boostbench.learners.bayes.pool` describes each key's use).

    Attributes:
        name: the kind, ``"naive_bayes"``, ``"tan"`` or ``"ban"``.
        alpha: Laplace pseudo-count per cell.
        smoothing: ``"laplace"``, ``"marginal"`` or ``"class_marginal"`` (Friedman et al. 1997).
        smoothing_n0: the weight of that marginal.
        n_bins: bins per numeric attribute (TAN/BAN).
        binning: ``"frequency"`` or ``"width"``.
        bin_rows: the training rows the cut points come from, at most.
        missing: ``"value"`` (a value of its own) or ``"skip"`` (left out of the product).
        online_structure: ``"lossless"``, ``"frozen"`` or ``"window"`` (online TAN/BAN).
        relearn_first: examples before the first structure (frozen: n0).
        relearn_factor: growth of the count between re-learnings.
        window: examples kept under ``online_structure="window"``.
        max_parents: attribute parents per attribute (BAN).
        structure: BAN's structure search, ``"ci"``, ``"bic"``, ``"bdeu"`` or ``"k2"``.
        ci_alpha: the level of the CI tests' G-test (``structure="ci"``).
        epsilon: a fixed threshold on the conditional mutual information instead, in nats (None: the test).
        ess: the equivalent sample size of ``structure="bdeu"``.
    """

    name: str
    alpha: float
    smoothing: str
    smoothing_n0: float
    n_bins: int
    binning: str
    bin_rows: int
    missing: str
    online_structure: str
    relearn_first: int
    relearn_factor: float
    window: int
    max_parents: int
    structure: str
    ci_alpha: float
    epsilon: float | None
    ess: float


@dataclass(frozen=True)
class TreeConfig:
    """``learner=tree``: bounded-size scikit-learn trees, the batch boosters' weak learners
    (:class:`~boostbench.learners.batch_trees.TreeParams`).

    Attributes:
        max_depth: the deepest a tree grows (None: unbounded).
        max_leaf_nodes: the most leaves (None: unbounded).
        min_samples_leaf: the fewest training rows in a leaf.
    """

    name: str
    max_depth: int | None
    max_leaf_nodes: int | None
    min_samples_leaf: int


LearnerConfig = HoeffdingTreeConfig | BayesConfig | TreeConfig
