"""The batch boosters as scikit-learn classifiers: pipelines, ``cross_val_score``, ``GridSearchCV``.

Each class is a thin estimator over the booster class the runner builds (the registry's entry,
:mod:`boostbench.batch`): ``fit`` encodes the labels (any type, as scikit-learn's classifiers
take), builds the booster over bounded-size trees (:class:`~boostbench.learners.batch_trees.TreeParams`,
stumps by default) and fits it; the predictions are the booster's. The hyper-parameters and their
constraints are the booster's own (``_parameter_constraints``) and the tree learner's
(:data:`boostbench.learners.registry.LEARNERS`), checked by scikit-learn's parameter validation
in ``fit``. ``decision_function`` and ``predict_proba`` follow scikit-learn's ``AdaBoostClassifier``:
the weighted votes in SAMME's symmetric coding divided by the sum of the weights, and their softmax
over ``k - 1`` (Zhu et al. 2009, eq. 15), so ``scoring="roc_auc_ovr"`` and calibration work.

Examples:
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import cross_val_score
    >>> from boostbench.sklearn import AdaBoostMMClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> print(cross_val_score(AdaBoostMMClassifier(n_rounds=50, random_state=0), X, y).round(2))
    [0.97 0.97 0.9  0.93 1.  ]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval as SklearnInterval
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.extmath import softmax
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from boostbench.algorithms import algorithm_spec
from boostbench.constraints import Constraint, Interval, OneOf
from boostbench.learners.batch_trees import TreeParams
from boostbench.learners.registry import LEARNERS

__all__ = [
    "AdaBoostClassifier",
    "AdaBoostM1Classifier",
    "AdaBoostM2Classifier",
    "AdaBoostMHClassifier",
    "AdaBoostMMClassifier",
    "OneVsAllBoostClassifier",
    "SAMMEClassifier",
]

#: the tree learner's size bounds, exposed as the estimators' parameters
TREE_PARAMS = ("max_depth", "max_leaf_nodes", "min_samples_leaf")
_CLOSED = {(True, True): "both", (True, False): "left", (False, True): "right", (False, False): "neither"}


def sklearn_constraints(constraint: Constraint) -> list[Any]:
    """The scikit-learn form (a ``_parameter_constraints`` entry) of one of our constraints.

    An integer interval is scikit-learn's ``Interval(Integral, ...)`` (which, unlike ours, lets a
    bool through: the booster's own check then refuses it), a real one ``Interval(Real, ...)``;
    ``OneOf`` is ``"boolean"`` or ``StrOptions``; a nullable one adds None.

    Raises:
        TypeError: a constraint with no scikit-learn form (e.g. a ``RangePair``).
    """
    if isinstance(constraint, Interval):
        kind = Integral if constraint.integer else Real
        interval = SklearnInterval(
            kind, constraint.low, constraint.high, closed=_CLOSED[constraint.closed_low, constraint.closed_high]
        )
        return [interval, None] if constraint.nullable else [interval]
    if isinstance(constraint, OneOf):
        values = [v for v in constraint.values if v is not None]
        extra = [None] if None in constraint.values else []
        if sorted(values) == [False, True] and all(isinstance(v, bool) for v in values):
            return ["boolean", *extra]
        if all(isinstance(v, str) for v in values):
            return [StrOptions(set(values)), *extra]
    raise TypeError(f"{constraint!r} has no scikit-learn form")


def _python(value: Any) -> Any:
    """A numpy scalar (a grid's ``np.arange``) as the Python number the booster checks for."""
    return value.item() if isinstance(value, np.generic) else value


def _generator(random_state: Any) -> np.random.Generator:
    """The booster's generator: ``default_rng(random_state)`` for an int, a numpy
    ``SeedSequence`` or None (fresh entropy); a ``RandomState`` seeds it with one draw.
    """
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(2**31 - 1)))
    return np.random.default_rng(_python(random_state))


class _BoostedClassifier(ClassifierMixin, BaseEstimator):
    """What the classifiers share (see the module's docstring). Each booster's scores ``F_T``
    (its weighted votes, named in each class) make ``decision_function`` and ``predict_proba``
    as :meth:`~boostbench.batch.base.BatchModel.iter_decisions` says.

    A subclass names its booster's registry entry (:attr:`_algorithm`) and takes in its
    constructor the booster's hyper-parameters (its ``_parameter_constraints``), then the trees'
    size bounds and ``random_state``; :meth:`__init_subclass__` derives the scikit-learn
    constraints from those declarations.

    Attributes (after ``fit``):
        booster_: the fitted booster (its ``weight_history_``, ``round_stats_``, ...).
        classes_: ``(k,)`` the sorted labels.
        n_features_in_: the number of features seen in ``fit`` (``feature_names_in_``: their
            names, for a data frame).
        estimator_weights_: ``(T_fit,)`` float64 hypothesis weights ``alpha_t`` of the kept
            rounds (``T_fit <= n_rounds``: a booster stops early when the weak-learning
            condition fails).
    """

    _algorithm: ClassVar[str]
    _booster: ClassVar[type]
    _booster_params: ClassVar[tuple[str, ...]]
    _parameter_constraints: ClassVar[dict[str, list[Any]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._booster = algorithm_spec(cls._algorithm).cls
        own: Mapping[str, Constraint] = cls._booster._parameter_constraints
        trees = LEARNERS["tree"].params
        cls._booster_params = tuple(own)
        cls._parameter_constraints = {
            **{key: sklearn_constraints(own[key]) for key in own},
            **{key: sklearn_constraints(trees[key]) for key in TREE_PARAMS},
            "random_state": ["random_state", np.random.SeedSequence],
        }

    def __init__(self, *, n_rounds=100, max_depth=1, max_leaf_nodes=None, min_samples_leaf=1, random_state=None):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # the trees send a missing value down a learnt branch
        return tags

    def _check_classes(self, y: np.ndarray) -> None:
        if len(self.classes_) < 2:
            label = _python(self.classes_[0])
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes, got one class: {label!r}")

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> _BoostedClassifier:
        """Fit the booster on ``X (n, d)`` (numbers; NaN: missing) and labels ``y (n,)`` of any type.

        Args:
            sample_weight: ``(n,)`` weights >= 0: the first round's distribution over the
                examples is proportional to them (None: uniform).

        Returns:
            self.

        Raises:
            InvalidParameterError: a hyper-parameter outside its constraint (a ``ValueError``).
            ValueError: fewer than 2 classes (binary AdaBoost: more than 2), bad shapes, an
                infinite value, or a bad ``sample_weight`` (negative, all zero).
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan")
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self._check_classes(y)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        params = {key: _python(getattr(self, key)) for key in self._booster_params}
        learner = TreeParams(**{key: _python(getattr(self, key)) for key in TREE_PARAMS})
        booster = self._booster(
            n_classes=len(self.classes_), learner=learner, rng=_generator(self.random_state), **params
        )
        self.booster_ = booster.fit(X, codes, sample_weight)
        self.estimator_weights_ = np.asarray(booster.alphas_, dtype=np.float64)
        return self

    def _input(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite="allow-nan")

    def _binary(self, decision: np.ndarray) -> np.ndarray:
        """A decision ``(n, k)`` as scikit-learn gives it: itself, or for two classes the
        difference of its columns (positive: ``classes_[1]``; 0: ``classes_[0]``, as ``predict``).
        """
        return decision[:, 1] - decision[:, 0] if len(self.classes_) == 2 else decision

    def _proba(self, decision: np.ndarray) -> np.ndarray:
        """scikit-learn's ``AdaBoostClassifier`` probabilities of a decision (Zhu et al. 2009,
        eq. 15): ``softmax(decision / (k - 1))``; for two classes ``softmax([-d, d] / 2)``.
        """
        k = len(self.classes_)
        return softmax(np.column_stack([-decision, decision]) / 2 if k == 2 else decision / (k - 1))

    def decision_function(self, X: Any) -> np.ndarray:
        """The booster's weighted votes in SAMME's symmetric coding, divided by the sum of the
        hypothesis weights, as scikit-learn's ``AdaBoostClassifier``'s
        (:meth:`~boostbench.batch.base.BatchModel.iter_decisions`).

        Returns:
            ``(n, k)`` float64 (rows sum to 0), or ``(n,)`` for two classes (positive:
            ``classes_[1]``); the argmax (sign) is :meth:`predict`'s. When no round was kept, the
            decision of a vote for the training majority label.
        """
        return deque(self.staged_decision_function(X), maxlen=1)[0]

    def staged_decision_function(self, X: Any) -> Iterator[np.ndarray]:
        """Yields :meth:`decision_function` after each kept round (once, the majority's, if none was)."""
        X = self._input(X)
        for decision in self.booster_.iter_decisions(X):
            yield self._binary(decision)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities as scikit-learn's ``AdaBoostClassifier`` gives them, from
        :meth:`decision_function`: ``softmax(decision / (k - 1))`` (two classes: ``softmax([-d, d] / 2)``).

        Returns:
            ``(n, k)`` float64, rows summing to 1, in the order of ``classes_``; the argmax is
            :meth:`predict`'s.
        """
        return self._proba(self.decision_function(X))

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """Yields :meth:`predict_proba` after each kept round (once if none was)."""
        for decision in self.staged_decision_function(X):
            yield self._proba(decision)

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``(n, k)`` float64: the log of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def predict(self, X: Any) -> np.ndarray:
        """``(n,)`` predicted labels (``classes_``' type): the booster's prediction."""
        X = self._input(X)
        return self.classes_[self.booster_.predict(X)]

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yields the ``(n,)`` predicted labels after each kept round; if no round was kept, once
        the training majority label (the last one yielded is :meth:`predict`'s).
        """
        X = self._input(X)
        if not self.booster_.n_rounds_fitted:
            yield self.classes_[np.full(len(X), self.booster_.majority_)]
        for scores in self.booster_.iter_scores(X):
            yield self.classes_[scores.argmax(axis=1)]


class AdaBoostClassifier(_BoostedClassifier):
    """Binary AdaBoost (Freund & Schapire 1997): :class:`~boostbench.batch.adaboost.AdaBoost`.

    Two classes only. Scores: ``F_T(x, 1) - F_T(x, 0) = 2 sum_t alpha_t h_t(x)``
    with ``h_t(x) in {-1, +1}`` (+1: ``classes_[1]``).

    Args:
        n_rounds: T >= 1, the most rounds (it stops early at a weighted error >= 1/2).
        max_depth: the weak trees' depth bound (1: stumps).
        max_leaf_nodes: the weak trees' bound on leaves (None: none).
        min_samples_leaf: the weak trees' least rows in a leaf.
        random_state: int, numpy ``SeedSequence``, ``RandomState`` or None: seeds the booster's
            generator (the trees' random states).
    """

    _algorithm = "adaboost"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_classes(self, y: np.ndarray) -> None:
        super()._check_classes(y)
        if len(self.classes_) > 2:
            raise ValueError(
                f"Only binary classification is supported. The type of the target is {type_of_target(y)} "
                f"({len(self.classes_)} classes): use AdaBoostM1Classifier, SAMMEClassifier, "
                "AdaBoostMMClassifier, ..."
            )


class AdaBoostM1Classifier(_BoostedClassifier):
    """AdaBoost.M1 (Freund & Schapire 1997): :class:`~boostbench.batch.adaboost_m1.AdaBoostM1`.

    Scores: ``F_T(x, l) = sum_t ln(1/beta_t) [h_t(x) = l]``.

    Args:
        n_rounds: T >= 1, the most rounds (it stops early at a weighted error >= 1/2, which
            multiclass stumps often reach: then fewer rounds are kept).
        resample: boosting by resampling: each tree is fitted on n rows drawn from ``D_t``.
        max_depth: the weak trees' depth bound (1: stumps).
        max_leaf_nodes: the weak trees' bound on leaves (None: none).
        min_samples_leaf: the weak trees' least rows in a leaf.
        random_state: see :class:`AdaBoostClassifier` (and the resampling draws).
    """

    _algorithm = "adaboost_m1"

    def __init__(
        self,
        *,
        n_rounds=100,
        resample=False,
        max_depth=1,
        max_leaf_nodes=None,
        min_samples_leaf=1,
        random_state=None,
    ):
        super().__init__(
            n_rounds=n_rounds,
            max_depth=max_depth,
            max_leaf_nodes=max_leaf_nodes,
            min_samples_leaf=min_samples_leaf,
            random_state=random_state,
        )
        self.resample = resample


class AdaBoostM2Classifier(_BoostedClassifier):
    """AdaBoost.M2 (Freund & Schapire 1997): :class:`~boostbench.batch.adaboost_m2.AdaBoostM2`.

    Confidence-rated trees ``h(x, l) in [0, 1]`` fitted to the pseudo-loss; scores:
    ``F_T(x, l) = sum_t ln(1/beta_t) h_t(x, l)``. Arguments: see :class:`AdaBoostClassifier`.
    """

    _algorithm = "adaboost_m2"


class SAMMEClassifier(_BoostedClassifier):
    """SAMME (Zhu, Zou, Rosset & Hastie 2009): :class:`~boostbench.batch.samme.SAMME`, scikit-learn's
    ``AdaBoostClassifier`` rules with learning rate 1.

    Scores: ``F_T(x, l) = sum_t alpha_t [h_t(x) = l]``; ``decision_function`` and ``predict_proba``
    are scikit-learn's for the same trees. Arguments: see :class:`AdaBoostClassifier`.
    """

    _algorithm = "samme"


class AdaBoostMHClassifier(_BoostedClassifier):
    """Discrete AdaBoost.MH (Schapire & Singer 1999): :class:`~boostbench.batch.adaboost_mh.AdaBoostMH`.

    Trees ``h(x, l) in {-1, +1}`` on the weighted Hamming loss; scores:
    ``F_T(x, l) = sum_t alpha_t h_t(x, l)``. Arguments: see :class:`AdaBoostClassifier`.
    """

    _algorithm = "adaboost_mh"


class AdaBoostMMClassifier(_BoostedClassifier):
    """AdaBoost.MM (Mukherjee & Schapire, JMLR 2013): :class:`~boostbench.batch.adaboost_mm.AdaBoostMM`.

    Cost-sensitive trees under the minimal weak-learning condition; scores:
    ``F_T(x, l) = sum_t alpha_t [h_t(x) = l]``. Arguments: see :class:`AdaBoostClassifier`.
    """

    _algorithm = "adaboost_mm"


class OneVsAllBoostClassifier(_BoostedClassifier):
    """One-vs-all binary AdaBoost (Combessie & Machraoui): :class:`~boostbench.batch.one_vs_all.OneVsAll`.

    k binary AdaBoost runs, class l against the rest; scores: their margins
    ``f^(l)_T(x) = sum_t alpha^(l)_t h^(l)_t(x)``. ``estimator_weights_`` is ``(k, T_fit)``: run
    l's weights in row l (0 after it stopped). Arguments: see :class:`AdaBoostClassifier`.
    """

    _algorithm = "one_vs_all"
