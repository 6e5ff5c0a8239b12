"""Prequential k-fold distributed validation (Bifet, de Francisci Morales, Read, Holmes &
Pfahringer, "Efficient online evaluation of big data stream classifiers", KDD 2015; MOA's
``EvaluatePrequentialCV``): k copies of an online learner, each tested on every example of one
stream and trained on some of them: by all copies but one (cross-validation), by one (split), or
by each with a Poisson(1) weight (bootstrap).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from boostbench.boosters.base import OnlineBooster, check_labels
from boostbench.protocols.prequential import PrequentialResult, ProgressCallback, final_window_start
from boostbench.system.resources import SAMPLE_EVERY, ResourceMeter


def training_counts(validation: str, n: int, n_folds: int, fold: int, rng: np.random.Generator) -> np.ndarray:
    """How many times copy ``fold`` of ``n_folds`` trains on each example of an ``n``-long stream,
    as MOA's ``EvaluatePrequentialCV`` chooses (the t-th example, 0-based, is fold ``t mod k``'s):

    - ``"cross_validation"``: 1, except 0 on the copy's own examples (every copy trains on all but
      1/k of the stream);
    - ``"split"``: 1 on the copy's own examples only, else 0;
    - ``"bootstrap"``: a Poisson(1) draw per example, from ``rng`` (each copy its own generator).

    Returns:
        ``(n,)`` int64 counts >= 0.

    Raises:
        ValueError: an unknown ``validation``.
    """
    own = np.arange(n) % n_folds == fold
    if validation == "cross_validation":
        return (~own).astype(np.int64)
    if validation == "split":
        return own.astype(np.int64)
    if validation == "bootstrap":
        return rng.poisson(1.0, size=n).astype(np.int64)
    raise ValueError(f"unknown validation {validation!r}: cross_validation, bootstrap or split")


def copy_pass(
    booster: OnlineBooster,
    X: np.ndarray,
    y: np.ndarray,
    order: np.ndarray,
    counts: np.ndarray,
    final_fraction: float = 0.2,
    on_progress: ProgressCallback | None = None,
    progress_every: int = 25,
) -> PrequentialResult:
    """One copy's pass: predict every example of the stream, then train on it ``counts[t]`` times.

    An example trained on ``w`` times is presented ``w`` times in a row, as a booster takes an
    integer weight in its own terms (Oza's online bagging, Poisson presentations) and as the peers,
    which take no weights, can be given it: the first presentation's prediction is scored, the
    others are not. Runs of examples trained on go through the booster's ``test_then_train``
    (one compiled call for our boosters), the others through ``predict`` alone.

    Args:
        booster: a fresh copy of the algorithm under test.
        X: ``(n_total, d)`` float64 encoded examples.
        y: ``(n_total,)`` int64 labels.
        order: ``(n,)`` int64 indices into X, the stream.
        counts: ``(n,)`` int64, the presentations of each example for training
            (:func:`training_counts`).
        final_fraction: the final window's share of the stream, in (0, 1].
        on_progress: called every ``progress_every`` examples or so, and at the end, with
            ``(examples done, running accuracy)``.

    Returns:
        The pass's result, a :class:`~boostbench.protocols.prequential.PrequentialResult` (no members tracked), its
        ``runtime_s`` and ``cpu_s`` without the booster's cache fill (``cache_fill_s``,
        ``cache_fill_cpu_s``), as the runner counts a prequential pass's.
    """
    n = len(order)
    truth = np.asarray(y[order], dtype=np.int64)
    predicted = np.zeros(n, dtype=np.int64)
    untrained = np.flatnonzero(counts == 0)  # the examples only predicted
    chunk = progress_every if on_progress is not None else 1024
    meter = ResourceMeter()
    meter.start()
    began = time.perf_counter()
    t = sampled = reported = 0
    while t < n:
        if counts[t] == 0:
            predicted[t] = booster.predict(X[order[t]])
            t += 1
        else:  # the run of trained examples from t, up to the next untrained one
            stop = untrained[np.searchsorted(untrained, t)] if untrained.size and untrained[-1] > t else n
            end = min(stop, t + chunk)
            times = counts[t:end]
            rows = np.repeat(order[t:end], times)
            guesses = booster.test_then_train(X[rows], y[rows])
            predicted[t:end] = guesses[np.cumsum(times) - times]  # each example's first presentation
            t = end
        if on_progress is not None and t - reported >= progress_every and t < n:
            on_progress(t, float(np.mean(predicted[:t] == truth[:t])))
            reported = t
        if t - sampled >= SAMPLE_EVERY:
            meter.sample()
            sampled = t
    runtime = time.perf_counter() - began
    meter.stop()
    check_labels(predicted, booster.n_classes)
    if on_progress is not None:
        on_progress(n, float(np.mean(predicted == truth)) if n else 0.0)
    return PrequentialResult(
        predicted,
        truth,
        final_window_start(n, final_fraction),
        None,
        runtime - booster.cache_fill_s,
        max(0.0, meter.cpu_s - booster.cache_fill_cpu_s),
        meter.ram_hours,
        meter.model_bytes,
    )


def prequential_cv(
    make_booster: Callable[[int], OnlineBooster],
    X: np.ndarray,
    y: np.ndarray,
    order: np.ndarray,
    n_folds: int,
    validation: str,
    rngs: Sequence[np.random.Generator],
    final_fraction: float = 0.2,
    on_progress: ProgressCallback | None = None,
    progress_every: int = 25,
) -> list[PrequentialResult]:
    """k-fold distributed validation of an online learner over one stream (Bifet et al., KDD
    2015, Sec. 3; MOA's ``EvaluatePrequentialCV``).

    Each copy's tests and training depend on no other copy's, so the copies run one after the
    other (one in memory at a time), each over the whole stream: the same predictions as MOA's
    interleaved loop.

    Args:
        make_booster: ``fold -> booster``, a fresh copy with generators of its own.
        X: ``(n_total, d)`` float64 encoded examples, as :func:`copy_pass` takes them.
        y: ``(n_total,)`` int64 labels.
        order: ``(n,)`` int64 indices into X, the stream.
        n_folds: k >= 1 copies.
        validation: ``"cross_validation"``, ``"bootstrap"`` or ``"split"`` (:func:`training_counts`).
        rngs: k generators, copy f's bootstrap draws from ``rngs[f]``.
        final_fraction: the final window's share of the stream, in (0, 1].
        on_progress: called with ``(steps done over all copies, the current copy's running
            accuracy)``; the steps number ``n_folds * len(order)``.

    Returns:
        The results, one :class:`~boostbench.protocols.prequential.PrequentialResult` per copy (see
        :func:`copy_pass`).

    Raises:
        ValueError: an unknown ``validation``.
    """
    n = len(order)
    results = []
    for fold in range(n_folds):
        counts = training_counts(validation, n, n_folds, fold, rngs[fold])
        booster = make_booster(fold)

        def report(done: int, value: float, before: int = fold * n) -> None:  # the steps of every copy
            on_progress(before + done, value)

        shown = None if on_progress is None else report
        results.append(copy_pass(booster, X, y, order, counts, final_fraction, shown, progress_every))
        close = getattr(booster, "close", None)  # a MOA peer's Java process ends with its copy
        if close is not None:
            close()
        del booster  # one copy in memory at a time
    return results
