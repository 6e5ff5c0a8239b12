"""The multiclass online boosters as river classifiers (hyper-parameters in, classes and
features learned as they come; see :class:`~boostbench.estimators.base.BoosterFace`).
"""

from __future__ import annotations

from boostbench.estimators.base import BoostedClassifier


class AdaboostOLMClassifier(BoostedClassifier):
    """Adaboost.OLM (Jung, Goetz & Tewari 2017, Algorithm 2): online multiclass boosting with
    the logistic loss, weights alpha_i by online gradient descent and Hedge over the N experts.

    Sample weight: ``learn_one``'s ``w`` scales every weak learner's training weight (line 14); the
    steps of the alphas and of Hedge are those of any example.

    Args:
        model: The weak learner's prototype, a river classifier cloned ``n_models`` times. None
            (the default): the paper's VFDT, river's ``HoeffdingTreeClassifier`` with the authors'
            per-tree parameter draws and majority-class leaves, run by boostbench's compiled pool
            (the same trees, faster); ``tree.HoeffdingTreeClassifier()`` gives river's defaults,
            the trees river's and MOA's ensembles use.
        n_models: N, the number of weak learners.
        alpha_bound: OGD keeps each alpha_i in ``[-alpha_bound, alpha_bound]`` (paper: 2).
        hedge_eta: Hedge's step size (paper: 1).
        classes: The labels, in order, if known in advance (as the experiment runner knows them);
            None (the default): learnt as they come.
        max_size: Memory budget of the compiled pool's N trees, in MiB (river's ``max_size`` rule
            over the pool); None for none.
        seed: Seed of every random draw (learner parameters, tie breaks, Hedge and Poisson draws).

    Examples:
        >>> from river import datasets, evaluate, metrics
        >>> from boostbench.estimators import AdaboostOLMClassifier
        >>> model = AdaboostOLMClassifier(n_models=10, seed=42)
        >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
        Accuracy: 86.27%
    """

    _algorithm = "adaboost_olm"
    _booster_params = ("alpha_bound", "hedge_eta")

    def __init__(
        self,
        model=None,
        n_models: int = 100,
        alpha_bound: float = 2.0,
        hedge_eta: float = 1.0,
        classes: tuple | None = None,
        max_size: float | None = 640.0,
        seed: int | None = None,
    ):
        self.model, self.n_models, self.alpha_bound, self.hedge_eta = model, n_models, alpha_bound, hedge_eta
        self.classes, self.max_size, self.seed = classes, max_size, seed
        self._reset()


class OnlineMBBMClassifier(BoostedClassifier):
    """OnlineMBBM (Jung, Goetz & Tewari 2017, Algorithm 1): online multiclass boost-by-majority
    with exact 0-1 potentials (eq. 3) and cost matrices (eq. 4-5) for the edge gamma.

    Sample weight: ``learn_one``'s ``w`` scales every weak learner's training weight ``w_i[t]``.

    Args:
        model: The weak learner's prototype, a river classifier cloned ``n_models`` times. None
            (the default): the paper's VFDT, river's ``HoeffdingTreeClassifier`` with the authors'
            per-tree parameter draws and majority-class leaves, run by boostbench's compiled pool
            (the same trees, faster); ``tree.HoeffdingTreeClassifier()`` gives river's defaults,
            the trees river's and MOA's ensembles use.
        n_models: N, the number of weak learners.
        gamma: The edge in (0, 1) of the baseline u^r_gamma.
        weight_factor: Scale of the training weights (the reference code's 0.1).
        classes: The labels, in order, if known in advance (as the experiment runner knows them);
            None (the default): learnt as they come.
        max_size: Memory budget of the compiled pool's N trees, in MiB (river's ``max_size`` rule
            over the pool); None for none.
        seed: Seed of every random draw (learner parameters, tie breaks, Hedge and Poisson draws).

    Examples:
        >>> from river import datasets, evaluate, metrics
        >>> from boostbench.estimators import OnlineMBBMClassifier
        >>> model = OnlineMBBMClassifier(n_models=10, gamma=0.1, seed=42)
        >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
        Accuracy: 83.85%
    """

    _algorithm = "online_mbbm"
    _booster_params = ("gamma", "weight_factor")

    def __init__(
        self,
        model=None,
        n_models: int = 100,
        gamma: float = 0.1,
        weight_factor: float = 0.1,
        classes: tuple | None = None,
        max_size: float | None = 640.0,
        seed: int | None = None,
    ):
        self.model, self.n_models, self.gamma, self.weight_factor = model, n_models, gamma, weight_factor
        self.classes, self.max_size, self.seed = classes, max_size, seed
        self._reset()


class OnlineBoostingClassifier(BoostedClassifier):
    """Oza's online boosting (Oza & Russell 2001), the online AdaBoost.M1 of Sun's comparison
    and Jung et al.'s "Online Boosting" baseline: Poisson(lambda) presentations, members voting
    with log((1 - eps_m) / eps_m) while eps_m < 1/2.

    Sample weight: ``learn_one``'s ``w`` is the example's starting lambda (Oza's weighted examples):
    the Poisson presentations and the members' lambda_sc / lambda_sw follow from it.

    Weak learners: the default trees are the paper's (Jung et al. 2017's VFDTs, as the authors'
    code draws them): each tree draws its split confidence delta and tie threshold tau
    log-uniformly in [0.01, 0.9] and its grace period in [5, 20], so it splits after a few
    examples on thin evidence, and its leaves predict their majority class. river's and MOA's
    ensembles grow river's default trees (delta 1e-7, tau 0.05, grace period 200, adaptive naive
    Bayes leaves): ``model=tree.HoeffdingTreeClassifier()`` gives those (each still trained with
    its weight constant c_i), and ``learner=hoeffding_tree_defaults`` gives them to the runner.
    On river's ImageSegments (the example below: 10 trees, seed 42) the paper's trees score
    71.42% and river's 87.66%; river's with majority-class leaves (``leaf_prediction="mc"``)
    83.37%: of the 16 points, about 4 are the leaves and 12 the drawn split parameters.

    Args:
        model: The weak learner's prototype, a river classifier cloned ``n_models`` times. None
            (the default): the paper's VFDT, river's ``HoeffdingTreeClassifier`` with the authors'
            per-tree parameter draws and majority-class leaves, run by boostbench's compiled pool
            (the same trees, faster); ``tree.HoeffdingTreeClassifier()`` gives river's defaults,
            the trees river's and MOA's ensembles use.
        n_models: N, the number of weak learners.
        eps_floor: eps_m is clipped to at least this in a vote weight (a member without error votes
            with a large finite weight).
        vote: ``"hard"`` (the members' labels), ``"soft"`` (their distributions) or ``"moa"`` (MOA
            OzaBoost's: distributions, no member voting after the first whose eps_m is not in
            (0, 1/2)).
        classes: The labels, in order, if known in advance (as the experiment runner knows them);
            None (the default): learnt as they come.
        max_size: Memory budget of the compiled pool's N trees, in MiB (river's ``max_size`` rule
            over the pool); None for none.
        seed: Seed of every random draw (learner parameters, tie breaks, Hedge and Poisson draws).

    Examples:
        >>> from river import datasets, evaluate, metrics
        >>> from boostbench.estimators import OnlineBoostingClassifier
        >>> model = OnlineBoostingClassifier(n_models=10, seed=42)
        >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
        Accuracy: 71.42%
    """

    _algorithm = "online_boosting"
    _booster_params = ("eps_floor", "vote")

    def __init__(
        self,
        model=None,
        n_models: int = 100,
        eps_floor: float = 1e-6,
        vote: str = "hard",
        classes: tuple | None = None,
        max_size: float | None = 640.0,
        seed: int | None = None,
    ):
        self.model, self.n_models, self.eps_floor, self.vote = model, n_models, eps_floor, vote
        self.classes, self.max_size, self.seed = classes, max_size, seed
        self._reset()


class OnlineBaggingClassifier(BoostedClassifier):
    """Oza's online bagging (Oza & Russell 2001): member m trains with weight K_m ~ Poisson(1);
    unweighted majority vote.

    Sample weight: ``learn_one``'s ``w`` multiplies each member's Poisson(1) count K_m (MOA's OzaBag).

    Args:
        model: The weak learner's prototype, a river classifier cloned ``n_models`` times. None
            (the default): the paper's VFDT, river's ``HoeffdingTreeClassifier`` with the authors'
            per-tree parameter draws and majority-class leaves, run by boostbench's compiled pool
            (the same trees, faster); ``tree.HoeffdingTreeClassifier()`` gives river's defaults,
            the trees river's and MOA's ensembles use.
        n_models: N, the number of weak learners.
        classes: The labels, in order, if known in advance (as the experiment runner knows them);
            None (the default): learnt as they come.
        max_size: Memory budget of the compiled pool's N trees, in MiB (river's ``max_size`` rule
            over the pool); None for none.
        seed: Seed of every random draw (learner parameters, tie breaks, Hedge and Poisson draws).

    Examples:
        >>> from river import datasets, evaluate, metrics
        >>> from boostbench.estimators import OnlineBaggingClassifier
        >>> model = OnlineBaggingClassifier(n_models=10, seed=42)
        >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
        Accuracy: 49.76%
    """

    _algorithm = "online_bagging"

    def __init__(
        self,
        model=None,
        n_models: int = 100,
        classes: tuple | None = None,
        max_size: float | None = 640.0,
        seed: int | None = None,
    ):
        self.model, self.n_models = model, n_models
        self.classes, self.max_size, self.seed = classes, max_size, seed
        self._reset()


class HedgeClassifier(BoostedClassifier):
    """Hedge(beta) (Freund & Schapire 1997; Combessie & Machraoui) with the N weak learners as
    experts: w_i <- w_i beta^loss_i on the 0-1 loss; the label of largest weight wins.

    Sample weight: ``learn_one``'s ``w`` multiplies every expert's 0-1 loss (``w = 2`` moves Hedge as the
    example seen twice) and is the weak learners' training weight.

    Args:
        model: The weak learner's prototype, a river classifier cloned ``n_models`` times. None
            (the default): the paper's VFDT, river's ``HoeffdingTreeClassifier`` with the authors'
            per-tree parameter draws and majority-class leaves, run by boostbench's compiled pool
            (the same trees, faster); ``tree.HoeffdingTreeClassifier()`` gives river's defaults,
            the trees river's and MOA's ensembles use.
        n_models: N, the number of weak learners.
        beta: Hedge's multiplier in (0, 1).
        classes: The labels, in order, if known in advance (as the experiment runner knows them);
            None (the default): learnt as they come.
        max_size: Memory budget of the compiled pool's N trees, in MiB (river's ``max_size`` rule
            over the pool); None for none.
        seed: Seed of every random draw (learner parameters, tie breaks, Hedge and Poisson draws).

    Examples:
        >>> from river import datasets, evaluate, metrics
        >>> from boostbench.estimators import HedgeClassifier
        >>> model = HedgeClassifier(n_models=10, beta=0.5, seed=42)
        >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
        Accuracy: 79.51%
    """

    _algorithm = "hedge"
    _booster_params = ("beta",)

    def __init__(
        self,
        model=None,
        n_models: int = 100,
        beta: float = 0.5,
        classes: tuple | None = None,
        max_size: float | None = 640.0,
        seed: int | None = None,
    ):
        self.model, self.n_models, self.beta = model, n_models, beta
        self.classes, self.max_size, self.seed = classes, max_size, seed
        self._reset()
