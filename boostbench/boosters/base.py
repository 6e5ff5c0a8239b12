"""Booster interfaces: predict-then-reveal on numpy arrays.

A booster sees one example at a time in the papers' order: ``predict``/``predict_scores`` gets
``x`` (the booster queries its weak learners and keeps what it computed), then ``update``
reveals the true label (multiclass) or label set (multi-label) of that same ``x``. Boosters do
no I/O and no timing; protocols do. river's estimator API (dict examples, labels of any type,
classes and attributes learned as they come) is :mod:`boostbench.estimators`, on top of these.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from boostbench.constraints import Constraint, check
from boostbench.errors import BoosterOutputError
from boostbench.learners.pool import WeakLearnerPool
from boostbench.system.lazy import lazy_import

ties = lazy_import("boostbench.core.ties")  # compiled: loaded by the first prediction, not with the class


def checked_output(values: Any, k: int, method: str = "predict_proba") -> np.ndarray:
    """``values`` as an array if it is what ``method`` must return for ``k`` classes or labels:
    ``(k,)`` finite numbers, non-negative for ``predict_proba`` (a ranker's ``predict_scores``
    may be negative); a sum that overflows counts as not finite. A few microseconds for a few
    classes: cheap beside a prediction.

    Raises:
        BoosterOutputError: what came back (its shape, or the first bad value and its index)
            beside what was expected.
    """
    values = np.asarray(values)
    if values.shape == (k,) and values.dtype.kind in "fiub":
        listed = values.tolist()  # Python's sum and min: a fraction of numpy's reductions on k values
        if math.isfinite(sum(listed)) and (method != "predict_proba" or min(listed) >= 0):
            return values
    raise BoosterOutputError(_output_problem(values, k, method))


def _output_problem(values: np.ndarray, k: int, method: str) -> str:
    """``<method> returned <what>; expected <what>`` for an output :func:`checked_output` refuses."""
    proba = method == "predict_proba"
    expected = f"expected shape ({k},), " + (
        "a finite, non-negative probability per class" if proba else "a finite score per label"
    )
    unit = "classes" if proba else "labels"
    if values.shape != (k,):
        return f"{method} returned an array of shape {values.shape} for {k} {unit}; {expected}"
    if values.dtype.kind not in "fiub":
        return f"{method} returned an array of dtype {values.dtype} for {k} {unit}; {expected}"
    bad = ~np.isfinite(values) | (values < 0 if proba else False)
    i = int(np.flatnonzero(bad)[0])
    return f"{method} returned {float(values[i])} at index {i} of {k} {unit}; {expected}"


def check_labels(labels: np.ndarray, k: int, method: str = "predict") -> None:
    """Refuse labels (``(m,)`` ints) outside ``0..k-1``, what a booster's ``predict`` (or its
    ``test_then_train``, ``predict_many``) must return for ``k`` classes; ``-1``
    (:data:`boostbench.metrics.NO_PREDICTION`: a river peer before it has learnt) is taken, and
    scored as a miss.

    Raises:
        BoosterOutputError: the first such label and what was expected.
    """
    from boostbench.metrics import NO_PREDICTION

    labels = np.asarray(labels)
    if len(labels) and not (labels.min() >= NO_PREDICTION and labels.max() < k):
        bad = labels[(labels < NO_PREDICTION) | (labels >= k)][0]
        raise BoosterOutputError(
            f"{method} returned label {int(bad)} for {k} classes; expected a label in 0..{k - 1} "
            f"(or {NO_PREDICTION}: no prediction)"
        )


class _BoosterCore(ABC):  # noqa: B024 - the abstract calls differ by task (OnlineBooster, OnlineRanker)
    """What every booster holds: a pool, k and a generator.

    ``cache_fill_s`` (float, seconds): time spent building values that outlive the run and that a
    later run reads from the disk cache (OnlineMBBM's cost matrices); the runner times it apart
    from the pass, as it times the kernels' compilation, so a run's runtime does not depend on
    the order runs were made in. 0 for boosters without such caches. ``cache_fill_cpu_s`` is
    the CPU seconds of the same fill, which the runner takes out of the pass's CPU seconds.

    Args:
        pool: N weak learners over ``n_classes`` labels.
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (ties, Hedge draws, Poisson counts).

    Raises:
        ValueError: k < 2.
    """

    #: the hyper-parameters' constraints (constructor keyword -> constraint), as scikit-learn's
    #: estimators declare them; the config check and :meth:`_validate_params` read them
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {}

    def __init__(self, pool: WeakLearnerPool, n_classes: int, rng: np.random.Generator):
        if n_classes < 2:
            raise ValueError(f"a booster needs at least 2 classes, got {n_classes}")
        self.pool = pool
        self.n_classes = int(n_classes)
        self.rng = rng
        self.cache_fill_s = 0.0
        self.cache_fill_cpu_s = 0.0

    @staticmethod
    def _clock() -> tuple[float, float]:
        """(wall, process CPU) seconds now: the start of a cache fill."""
        return time.perf_counter(), time.process_time()

    def _add_cache_fill(self, began: tuple[float, float]) -> None:
        """Add the wall and CPU seconds since ``began`` (from :meth:`_clock`) to the caches' fill."""
        self.cache_fill_s += time.perf_counter() - began[0]
        self.cache_fill_cpu_s += time.process_time() - began[1]

    def _validate_params(self, **values: Any) -> None:
        """Check constructor arguments against :attr:`_parameter_constraints`.

        Raises:
            InvalidParameterError: (a ``ValueError``) the first value outside its constraint.
        """
        check(type(self).__name__, values, self._parameter_constraints)

    def grow(self, n_classes: int | None = None, n_categories: Any = None) -> None:
        """Take a larger k and/or more attributes (``n_categories`` of all of them, the current
        ones first; see :meth:`~boostbench.learners.pool.WeakLearnerPool.grow`) between examples,
        keeping what was learnt: the labels ``0..k-1`` keep their meaning, the new ones follow.

        Raises:
            NotImplementedError: the pool cannot grow, or there is none (a peer's own ensemble).
        """
        if self.pool is None:
            raise NotImplementedError(f"{type(self).__name__} keeps its own ensemble, which cannot grow")
        self.pool.grow(n_classes, n_categories)
        if n_classes is not None:
            self.n_classes = int(n_classes)
        self._on_growth()

    def _on_growth(self) -> None:  # noqa: B027 - most boosters keep nothing that depends on k
        """Rebuild what depends on k or on the pool's arrays (after :meth:`grow`)."""


class OnlineBooster(_BoosterCore):
    """Base class of the multiclass online boosters."""

    @abstractmethod
    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Score ``x`` (``(d,)`` float64, NaN = missing): ``(k,)`` float64 distribution.

        Keeps what it computed for the following :meth:`update`.
        """

    def predict(self, x: np.ndarray) -> int:
        """The booster's label for ``x`` (argmax of :meth:`predict_proba`, ties at random).

        Raises:
            BoosterOutputError: :meth:`predict_proba` returned no ``(k,)`` array of finite,
                non-negative numbers (:func:`checked_output`).
        """
        return ties.argmax_random_tie(checked_output(self.predict_proba(x), self.n_classes), self.rng)

    @abstractmethod
    def update(self, y: int, w: float = 1.0) -> None:
        """Reveal the true label ``y`` (int in ``0..k-1``) of the last predicted example.

        ``w`` (float >= 0): the example's weight, river's per-sample weight (the boosters behind
        :mod:`boostbench.estimators` take it; each says where it enters; 0 leaves the booster
        as it was). The peers learn each example with weight 1.
        """

    def predict_many(self, X: np.ndarray) -> np.ndarray:
        """:meth:`predict` on each row of ``X`` (``(m, d)`` float64) in order, learning nothing in
        between: ``(m,)`` int64. Boosters whose pool scores many rows at once override it (the
        same labels, the same draws).
        """
        return np.array([self.predict(x) for x in X], dtype=np.int64)

    def test_then_train(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`predict` then :meth:`update` on each row of ``X`` (``(m, d)`` float64, labels
        ``y`` ``(m,)`` int) in order; returns the ``(m,)`` int64 predictions.
        Boosters with a compiled step override it with one kernel call (the same numbers).
        """
        predicted = np.empty(len(X), dtype=np.int64)
        for i, (x, label) in enumerate(zip(X, y)):
            predicted[i] = self.predict(x)
            self.update(int(label))
        return predicted


class OnlineRanker(_BoosterCore):
    """Base class of the multi-label ranking boosters (Jung & Tewari 2018).

    The weak learners' pool has one class per label; a weak prediction is the learner's
    distribution over labels.
    """

    @abstractmethod
    def predict_scores(self, x: np.ndarray) -> np.ndarray:
        """Score every label for ``x``: ``(k,)`` float64, higher = ranked higher."""

    @abstractmethod
    def update(self, relevant: np.ndarray, w: float = 1.0) -> None:
        """Reveal the label set (``(k,)`` bool) of the last scored example; ``w`` its weight (as
        :meth:`OnlineBooster.update`'s).
        """

    def predict_labels(self, scores: np.ndarray, cardinality: float) -> np.ndarray:
        """The label set predicted for the last scored example, ``(k,)`` bool: by default its
        ``round(cardinality)`` top-scored labels (:func:`boostbench.multilabel_metrics.top_labels`;
        ``cardinality``: the mean size of the label sets revealed so far). A ranker whose library
        predicts a set of its own (a peer) returns that set.

        Args:
            scores: ``(k,)`` float64, what :meth:`predict_scores` returned for the example.
        """
        from boostbench.multilabel_metrics import top_labels

        return top_labels(scores, cardinality)
