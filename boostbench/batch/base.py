"""The batch model interface, and the boosters' round loop.

A batch booster runs up to T rounds over a training set. Round t adds a weak hypothesis with
weight ``alpha_t``; its *votes* ``v_t(x) (k,)`` (a one-hot label, a [0, 1] or +-1 value per label)
make the final scores ``F_T(x) = sum_t alpha_t v_t(x)`` and the prediction ``argmax_l F_T(x, l)``
(ties to the lowest label, as scikit-learn). ``staged_scores`` gives ``F_1 .. F_T`` at once, so an
error-vs-rounds curve costs one fit. The distribution over training examples before each round
is kept in ``weight_history_`` (Combessie & Machraoui's "evolution of the sample weights").

:class:`BatchModel` is what the runner (:func:`~boostbench.protocols.fit_evaluate.fit_batch`) and
the scikit-learn estimators (:mod:`boostbench.sklearn`) use: ``fit`` once, then every stage's
scores and predictions. :class:`BatchBooster` is a model with one round loop; a composite of
boosters (:class:`~boostbench.batch.one_vs_all.OneVsAll`) is a model too.

:meth:`BatchBooster.fit` owns the round loop (as scikit-learn's ``BaseWeightBoosting.fit``); a
subclass gives the first round's state (:meth:`~BatchBooster._start`) and one round
(:meth:`~BatchBooster._boost_round`), whose result is its stop rule: ``None`` (the hypothesis fails
the weak-learning condition: discarded, the run stops) or a :class:`Round` (kept; ``last`` ends the
run after it, e.g. a hypothesis without training error).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from boostbench.constraints import Constraint, check, positive_int
from boostbench.learners.batch_trees import TreeParams, require_trees


@dataclass(frozen=True)
class Round:
    """One kept boosting round.

    Attributes:
        hypothesis: the weak hypothesis (its votes: :meth:`BatchBooster._votes`).
        alpha: its weight ``alpha_t`` in the final scores.
        distribution: ``(n,)`` the (unnormalised) weights over training examples it was fitted
            under, kept normalised in ``weight_history_``.
        statistic: what ``alpha`` came from (weighted error, pseudo-loss or edge; ``round_stats_``).
        state: the next round's state (the reweighted distribution, the scores, ...).
        last: the run stops after this round.
    """

    hypothesis: Any
    alpha: float
    distribution: np.ndarray
    statistic: float
    state: Any = None
    last: bool = False


def uniform(n: int) -> np.ndarray:
    """``(n,)`` float64, ``1/n`` each."""
    return np.full(n, 1.0 / n)


def weight_distribution(sample_weight: Any, n: int) -> np.ndarray:
    """``(n,)`` float64: ``sample_weight`` normalised to sum 1.

    Raises:
        ValueError: ``sample_weight`` not of shape ``(n,)``, negative, not finite, or all zero.
    """
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must be ({n},), got {w.shape}")
    if not (np.all(np.isfinite(w)) and np.all(w >= 0)):
        raise ValueError("sample_weight must be finite and >= 0")
    if not w.sum() > 0:
        raise ValueError("sample_weight is zero on every example")
    return w / w.sum()


class BatchModel(ABC):
    """A model fitted once on a training set, predicting after each of its stages (rounds).

    Args:
        n_classes: k >= 2; labels are ints ``0..k-1``.
        n_rounds: T >= 1, the most rounds to run (a booster may stop earlier, see subclasses).
        learner: the weak learner (:class:`~boostbench.learners.batch_trees.TreeParams`: the
            trees' size bounds; or a Bayesian network's parameters).
        rng: the model's generator (the trees' random states, resampling draws).

    Raises:
        ValueError: k < 2, ``n_rounds`` < 1, or a Bayesian-network learner for a booster whose
            hypotheses are gain trees (``needs_trees``).

    Attributes (after :meth:`fit`):
        weight_history_: ``(T_fit, n)`` float64, the distribution over training examples used in
            each round (rows sum to 1).
        majority_: the most frequent (most weighted) training label, predicted when no round
            was kept.
    """

    name = "batch"
    needs_trees = False  # True: the weak hypotheses are gain trees (learner=tree only)
    #: the most one hypothesis's votes for an example can differ between two labels: 1 for a
    #: label (one-hot) or values in [0, 1], 2 for +-1 values; :meth:`iter_decisions` divides by it
    vote_span: ClassVar[float] = 1.0
    #: the hyper-parameters' constraints (scikit-learn's convention; the config check reads them)
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"n_rounds": positive_int()}

    def __init__(
        self, n_classes: int, n_rounds: int, learner: TreeParams | None = None, rng: np.random.Generator | None = None
    ):
        if n_classes < 2:
            raise ValueError(f"a booster needs at least 2 classes, got {n_classes}")
        check(type(self).__name__, {"n_rounds": n_rounds}, self._parameter_constraints)
        self.n_classes = int(n_classes)
        self.n_rounds = int(n_rounds)
        self.learner = learner or TreeParams()
        if self.needs_trees:
            require_trees(self.learner, self.name)
        self.rng = rng if rng is not None else np.random.default_rng(0)

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> BatchModel:
        """Fit on ``X (n, d)`` float64 and labels ``y (n,)`` int64 in ``0..k-1``.

        Args:
            sample_weight: ``(n,)`` float64 >= 0, the examples' weights: the first round's
                distribution ``D_1`` is proportional to them (None: uniform).

        Raises:
            ValueError: shapes disagree, a label is outside ``0..k-1``, or a bad ``sample_weight``
                (see :func:`weight_distribution`).
        """
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        if X.ndim != 2 or y.shape != (len(X),):
            raise ValueError(f"X must be (n, d) and y (n,), got {X.shape} and {y.shape}")
        if len(y) and (y.min() < 0 or y.max() >= self.n_classes):
            raise ValueError(f"labels must be in 0..{self.n_classes - 1}")
        D = None if sample_weight is None else weight_distribution(sample_weight, len(y))
        self.majority_ = int(np.bincount(y, weights=D, minlength=self.n_classes).argmax())
        self._fit(X, y, D)
        return self

    @abstractmethod
    def _fit(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> None:
        """Fit on checked inputs; ``D (n,)``: the sample weights normalised (None: uniform). Sets
        ``weight_history_``.
        """

    @property
    @abstractmethod
    def n_rounds_fitted(self) -> int:
        """Rounds kept (fewer than ``n_rounds`` when the model stopped early)."""

    @abstractmethod
    def iter_scores(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """The ``(n, k)`` float64 scores after each kept round in turn (their argmax: the
        prediction), ``n_rounds_fitted`` arrays; one stage in memory at a time.
        """

    def stage_weights(self) -> np.ndarray:
        """``(T_fit,)`` float64: the hypothesis weights summed up to each kept round, ``sum_{s<=t}
        alpha_s``, which :meth:`iter_decisions` divides by.
        """
        return np.cumsum(self.alphas_)

    def iter_decisions(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """The ``(n, k)`` float64 decisions after each kept round in turn, in SAMME's symmetric
        coding (Zhu et al. 2009, eq. 15; scikit-learn's ``AdaBoostClassifier.decision_function``):
        ``k / (k - 1) (F_t(x, l) - mean_l F_t(x, l)) / (vote_span sum_{s<=t} alpha_s)``, which for
        label votes is ``sum_s alpha_s c_s(x, l) / sum_s alpha_s`` with ``c = 1`` for the label
        voted, ``-1 / (k - 1)`` for the others. Rows sum to 0; their argmax is :meth:`predict`'s.
        With no kept round, once the decision of a vote for the training majority label.
        """
        k = self.n_classes
        if not self.n_rounds_fitted:
            majority = np.zeros((len(X), k))
            majority[:, self.majority_] = 1.0
            yield k / (k - 1) * (majority - 1.0 / k)
            return
        for scores, weight in zip(self.iter_scores(X), self.stage_weights()):
            centred = scores - scores.mean(axis=1, keepdims=True)
            yield k / (k - 1) * centred / (self.vote_span * weight if weight > 0 else 1.0)

    def staged_scores(self, X: np.ndarray) -> np.ndarray:
        """``(T_fit, n, k)`` float64: :meth:`iter_scores` stacked."""
        X = np.asarray(X, dtype=np.float64)
        out = np.zeros((self.n_rounds_fitted, len(X), self.n_classes))
        for t, scores in enumerate(self.iter_scores(X)):
            out[t] = scores
        return out

    def staged_predict(self, X: np.ndarray, n_rounds: int | None = None) -> np.ndarray:
        """``(T, n)`` int64 predictions after rounds 1..T (``T = n_rounds``, default ``self.n_rounds``).

        Rounds after an early stop repeat the last ensemble's prediction; with no kept round the
        prediction is the training majority label.
        """
        T = self.n_rounds if n_rounds is None else int(n_rounds)
        scores = self.staged_scores(X)
        labels = scores.argmax(axis=2)
        if len(labels) == 0:
            labels = np.full((1, len(X)), self.majority_, dtype=np.int64)
        if len(labels) < T:
            labels = np.vstack([labels, np.repeat(labels[-1:], T - len(labels), axis=0)])
        return labels[:T].astype(np.int64)

    def scores(self, X: np.ndarray) -> np.ndarray:
        """``(n, k)`` float64 final scores (0 if no round was kept)."""
        final = deque(self.iter_scores(np.asarray(X, dtype=np.float64)), maxlen=1)
        return final[0] if final else np.zeros((len(X), self.n_classes))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``(n,)`` int64 final predictions (the training majority label if no round was kept)."""
        if not self.n_rounds_fitted:
            return np.full(len(X), self.majority_, dtype=np.int64)
        return self.scores(X).argmax(axis=1).astype(np.int64)


class BatchBooster(BatchModel):
    """A booster with one round loop (see the module's docstring).

    Attributes (after :meth:`fit`, besides :class:`BatchModel`'s):
        alphas_: ``(T_fit,)`` float64 hypothesis weights (T_fit <= n_rounds).
        round_stats_: ``(T_fit,)`` float64, the quantity each kept round's weight was computed
            from: the weighted error (AdaBoost, M1, SAMME), the pseudo-loss (M2) or the edge
            (MH's ``r_t``, MM's ``delta_t``).
    """

    def _fit(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> None:
        self.alphas_: list[float] = []
        self.round_stats_: list[float] = []
        self._hypotheses: list[Any] = []
        self._weights: list[np.ndarray] = []
        self._run_rounds(X, y, D)
        self.alphas_ = np.asarray(self.alphas_, dtype=np.float64)
        self.round_stats_ = np.asarray(self.round_stats_, dtype=np.float64)
        self.weight_history_ = np.vstack(self._weights) if self._weights else np.zeros((0, len(y)))

    def _run_rounds(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> None:
        """Up to ``n_rounds`` rounds, each kept until the stop rule (see the module's docstring)."""
        state = self._start(X, y, D)
        for _ in range(self.n_rounds):
            kept = self._boost_round(X, y, state)
            if kept is None:
                return
            self._keep(kept.hypothesis, kept.alpha, kept.distribution, kept.statistic)
            if kept.last:
                return
            state = kept.state

    @abstractmethod
    def _start(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> Any:
        """The first round's state, e.g. the distribution ``D_1``, from the sample weights
        normalised, ``D (n,)``, or None without sample weights: then each booster starts from
        its paper's uniform values (``1/n``, ``1/(n (k - 1))``, ...), written as the paper does.
        """

    @abstractmethod
    def _boost_round(self, X: np.ndarray, y: np.ndarray, state: Any) -> Round | None:
        """Fit one hypothesis under ``state``: the kept :class:`Round` (with the next state), or
        None when it fails the weak-learning condition (discarded; the run stops).
        """

    @abstractmethod
    def _votes(self, hypothesis: Any, X: np.ndarray) -> np.ndarray:
        """``(n, k)`` float64 votes of one kept hypothesis."""

    def _keep(self, hypothesis: Any, alpha: float, distribution: np.ndarray, statistic: float) -> None:
        self._hypotheses.append(hypothesis)
        self.alphas_.append(float(alpha))
        self.round_stats_.append(float(statistic))
        self._weights.append(np.asarray(distribution, dtype=np.float64) / float(np.sum(distribution)))

    @property
    def n_rounds_fitted(self) -> int:
        """Rounds kept (fewer than ``n_rounds`` when the booster stopped early)."""
        return len(self._hypotheses)

    def iter_scores(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """The cumulative scores ``F_t(x) (n, k)`` after each kept round t in turn."""
        X = np.asarray(X, dtype=np.float64)
        total = np.zeros((len(X), self.n_classes))
        for h, alpha in zip(self._hypotheses, self.alphas_):
            total += alpha * self._votes(h, X)
            yield total.copy()
