"""The multi-label ranking boosters as river multi-label classifiers (Jung & Tewari 2018; see
:class:`~boostbench.estimators.base.BoostedRanker`).
"""

from __future__ import annotations

from boostbench.estimators.base import BoostedRanker


class AdaOLMRClassifier(BoostedRanker):
    """Ada.OLMR (Jung & Tewari 2018, Algorithm 3): adaptive online multi-label ranking with
    the logistic rank loss, weights by online gradient descent and Hedge over the N experts.

    Args:
        model: The weak learner's prototype, a river classifier cloned ``n_models`` times. None
            (the default): the paper's VFDT, river's ``HoeffdingTreeClassifier`` with the authors'
            per-tree parameter draws and majority-class leaves, run by boostbench's compiled pool
            (the same trees, faster); ``tree.HoeffdingTreeClassifier()`` gives river's defaults,
            the trees river's and MOA's ensembles use.
        n_models: N, the number of weak learners.
        feature_subset_size: Each tree sees its own random subset of this many features (the
            paper's 20), drawn among the features of the first example; None: every tree sees
            every feature, including those that appear later.
        alpha_bound: OGD keeps each alpha_i in ``[-alpha_bound, alpha_bound]`` (paper: 2).
        hedge_eta: Hedge's step size (paper: 1).
        weak_prediction: ``"distribution"`` (the paper's) or ``"label"`` (a basis vector at the
            learner's most probable label).
        classes: The labels, in order, if known in advance (as the experiment runner knows them);
            None (the default): learnt as they come.
        max_size: Memory budget of the compiled pool's N trees, in MiB (river's ``max_size`` rule
            over the pool); None for none.
        seed: Seed of every random draw (learner parameters, tie breaks, Hedge and Poisson draws).

    Examples:
        MULAN's emotions (vendored; river ships no multi-label data set), training then test file:

        >>> from river import evaluate, metrics
        >>> from boostbench.data.river_stream import iter_dataset
        >>> from boostbench.estimators import AdaOLMRClassifier
        >>> model = AdaOLMRClassifier(n_models=10, seed=42)
        >>> metric = metrics.multioutput.MicroAverage(metrics.F1())
        >>> evaluate.progressive_val_score(iter_dataset("emotions"), model, metric)
        MicroAverage(F1): 54.06%
    """

    _algorithm = "ada_olmr"
    _booster_params = ("alpha_bound", "hedge_eta", "weak_prediction")

    def __init__(
        self,
        model=None,
        n_models: int = 100,
        feature_subset_size: int | None = 20,
        alpha_bound: float = 2.0,
        hedge_eta: float = 1.0,
        weak_prediction: str = "distribution",
        classes: tuple | None = None,
        max_size: float | None = 640.0,
        seed: int | None = None,
    ):
        self.model, self.n_models, self.feature_subset_size = model, n_models, feature_subset_size
        self.alpha_bound, self.hedge_eta, self.weak_prediction = alpha_bound, hedge_eta, weak_prediction
        self.classes, self.max_size, self.seed = classes, max_size, seed
        self._reset()


class OnlineBMRClassifier(BoostedRanker):
    """OnlineBMR (Jung & Tewari 2018, Algorithm 2): online boost-by-majority for multi-label
    ranking, with the potentials of the edge gamma.

    Args:
        model: The weak learner's prototype, a river classifier cloned ``n_models`` times. None
            (the default): the paper's VFDT, river's ``HoeffdingTreeClassifier`` with the authors'
            per-tree parameter draws and majority-class leaves, run by boostbench's compiled pool
            (the same trees, faster); ``tree.HoeffdingTreeClassifier()`` gives river's defaults,
            the trees river's and MOA's ensembles use.
        n_models: N, the number of weak learners.
        feature_subset_size: Each tree sees its own random subset of this many features (the
            paper's 20), drawn among the features of the first example; None: every tree sees
            every feature, including those that appear later.
        gamma: The edge in (0, 1).
        weak_prediction: ``"distribution"`` (the paper's) or ``"label"``.
        potential_loss: The loss behind the potentials: None (hinge for distributions, rank for
            labels), ``"hinge"`` or ``"rank"``.
        classes: The labels, in order, if known in advance (as the experiment runner knows them);
            None (the default): learnt as they come.
        max_size: Memory budget of the compiled pool's N trees, in MiB (river's ``max_size`` rule
            over the pool); None for none.
        seed: Seed of every random draw (learner parameters, tie breaks, Hedge and Poisson draws).

    Examples:
        MULAN's emotions (vendored; river ships no multi-label data set), training then test file:

        >>> from river import evaluate, metrics
        >>> from boostbench.data.river_stream import iter_dataset
        >>> from boostbench.estimators import OnlineBMRClassifier
        >>> model = OnlineBMRClassifier(n_models=10, gamma=0.1, seed=42)
        >>> metric = metrics.multioutput.MicroAverage(metrics.F1())
        >>> evaluate.progressive_val_score(iter_dataset("emotions"), model, metric)
        MicroAverage(F1): 57.12%
    """

    _algorithm = "online_bmr"
    _booster_params = ("gamma", "weak_prediction", "potential_loss")

    def __init__(
        self,
        model=None,
        n_models: int = 100,
        feature_subset_size: int | None = 20,
        gamma: float = 0.1,
        weak_prediction: str = "distribution",
        potential_loss: str | None = None,
        classes: tuple | None = None,
        max_size: float | None = 640.0,
        seed: int | None = None,
    ):
        self.model, self.n_models, self.feature_subset_size, self.gamma = model, n_models, feature_subset_size, gamma
        self.weak_prediction, self.potential_loss = weak_prediction, potential_loss
        self.classes, self.max_size, self.seed = classes, max_size, seed
        self._reset()
