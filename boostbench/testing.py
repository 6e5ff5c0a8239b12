"""Conformance checks for a booster: what the runner, the reports and river's estimators rely on.

:func:`check_booster` runs them on a class of yours (or a registered algorithm's name), as
scikit-learn's ``check_estimator`` and river's ``utils.estimator_checks`` do for theirs; our own
tests run it on every built-in algorithm (``tests/test_conformance.py``). A failed check raises an
``AssertionError`` that names it::

    from boostbench.testing import check_booster

    def test_my_booster():
        check_booster(MyBooster)   # or check_booster("my_booster"), once the package is installed

The checks run the booster over a few dozen examples of the vendored data sets (balance,
multiclass; german, binary; emotions, multi-label; heart, batch) with a pool of three Hoeffding
trees (the compiled pool: numba compiles it on a first run, cached after).
"""

from __future__ import annotations

import copy
import functools
import inspect
import pickle
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from boostbench.metrics import NO_PREDICTION

#: The checks, in the order they run: the class's interface (:func:`boostbench.algorithms.interface_problem`),
#: the same predictions from the same seed, labels in range (and distributions that are ones),
#: inputs left as they were, a pickled copy that goes on as the original, growing to more
#: classes and attributes, a sample weight of 0 that changes nothing, river's estimator checks
#: on the river estimator of the algorithm where there is one
CHECKS = ("interface", "determinism", "labels", "inputs", "pickling", "grow", "sample_weights", "river_estimator")
#: Members of the pool, examples streamed, and where a check splits them
N_LEARNERS, N_ROWS, HALF = 3, 60, 30


def check_booster(booster: type | str | Any, *, checks: Iterable[str] | None = None, seed: int = 0) -> dict[str, str]:
    """Run the conformance checks (:data:`CHECKS`) on a booster.

    Args:
        booster: a booster class (a subclass of :class:`~boostbench.boosters.base.OnlineBooster`,
            :class:`~boostbench.boosters.base.OnlineRanker` or a batch booster; built with its
            constructor's defaults), a registered algorithm's name, or an
            :class:`~boostbench.algorithms.AlgorithmSpec`.
        checks: the names of the checks to run (None: all of them).
        seed: the seed of the pools and boosters built.

    Returns:
        Each check run -> ``"passed"`` or ``"not applicable: <why>"`` (a peer's own ensemble cannot
        grow; an ``update`` without a sample weight; no river estimator; a class that refuses to
        pickle with a ``TypeError``).

    Raises:
        AssertionError: ``check_booster(<name>): <check>: <what failed>``, for the first check that
            failed (an exception the booster raised in a check is that check's failure).
        ValueError: an unknown check's name. ConfigError: an unknown algorithm's name.
    """
    from boostbench.algorithms import algorithm_spec, interface_problem, spec_of

    wanted = list(CHECKS if checks is None else checks)
    unknown = sorted(set(wanted) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown check {unknown[0]!r} (checks: {', '.join(CHECKS)})")
    if isinstance(booster, str):
        name, spec = booster, algorithm_spec(booster)
    else:
        spec = spec_of(booster)
        if spec is None:
            raise AssertionError(f"check_booster({booster!r}): interface: neither a booster class nor an AlgorithmSpec")
        name = spec.target if isinstance(spec.target, str) else spec.target.__qualname__
    cases = _Cases(name, spec, seed)
    steps: dict[str, Callable[[], str | None]] = {
        "interface": lambda: _fail_if(interface_problem(spec)),
        "determinism": cases.determinism,
        "labels": cases.labels,
        "inputs": cases.inputs,
        "pickling": cases.pickling,
        "grow": cases.grow,
        "sample_weights": cases.sample_weights,
        "river_estimator": cases.river_estimator,
    }
    report = {}
    for check in CHECKS:
        if check not in wanted:
            continue
        try:
            outcome = steps[check]()
        except AssertionError as exc:
            raise AssertionError(f"check_booster({name}): {check}: {_one_line(exc)}") from exc
        except Exception as exc:
            raise AssertionError(f"check_booster({name}): {check}: {type(exc).__name__}: {_one_line(exc)}") from exc
        report[check] = outcome or "passed"
    return report


def _fail_if(problem: str | None) -> None:
    if problem is not None:
        raise AssertionError(problem)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


@functools.cache
def _dataset(name: str):
    from boostbench.data.registry import load_dataset, registry_specs

    return load_dataset(registry_specs()[name])


class _Cases:
    """The checks of one algorithm over its data set: see :func:`check_booster`."""

    def __init__(self, name: str, spec: Any, seed: int):
        self.name, self.spec, self.seed = name, spec, seed
        self.ranker = spec.task == "multilabel"
        self.batch = spec.family == "batch"

    # -- data and builds ------------------------------------------------------------------------
    @functools.cached_property
    def data(self):
        if self.batch:
            return _dataset("german" if self.spec.max_classes == 2 else "heart")
        return _dataset("emotions" if self.ranker else "german" if self.spec.max_classes == 2 else "balance")

    @property
    def k(self) -> int:
        return self.data.n_labels if self.ranker else self.data.n_classes

    @functools.cached_property
    def rows(self) -> np.ndarray:
        return np.random.default_rng(self.seed).permutation(self.data.n_examples)[:N_ROWS]

    def build(self, k: int | None = None):
        """A fresh booster of the seed, over a pool of :data:`N_LEARNERS` trees (a peer: its own)."""
        from boostbench.algorithms import build_booster
        from boostbench.learners.registry import make_pool

        spec, k = self.spec, k or self.k
        learner = _learner_file(f"hoeffding_tree{'_mlr' if self.ranker else ''}")
        pool_rng, booster_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(self.seed).spawn(2))
        categories = list(self.data.n_categories)
        config = {"name": self.name, **spec.defaults, **spec.fixed}
        if spec.peer:
            return build_booster(config, None, k, booster_rng, spec, n_learners=N_LEARNERS, n_categories=categories)
        pool = make_pool(learner, spec.pool_size(N_LEARNERS), k, categories, pool_rng)
        return build_booster(config, pool, k, booster_rng, spec)

    def fit(self, X: np.ndarray):
        """A batch booster of the seed fitted on ``X`` (four rounds of scikit-learn trees)."""
        from boostbench.algorithms import build_batch_booster
        from boostbench.learners.registry import make_batch_learner

        learner = make_batch_learner(
            _learner_file("tree"),
            X,
            np.asarray(self.data.n_categories),
            np.random.default_rng(self.seed),
        )
        config = {"name": self.name, **self.spec.defaults, **self.spec.fixed, "n_rounds": 4}
        booster = build_batch_booster(config, learner, self.data.n_classes, np.random.default_rng(self.seed), self.spec)
        return booster.fit(X, self.data.y)

    def target(self, i: int, k: int | None = None):
        """Example ``i``'s label (multiclass) or label set (``(k,)`` bool; a grown k: False after)."""
        if not self.ranker:
            return int(self.data.y[i])
        relevant = np.zeros(k or self.k, dtype=bool)
        relevant[: self.k] = self.data.Y[i]
        return relevant

    def stream(self, booster, X: np.ndarray, rows: Iterable[int], k: int | None = None) -> np.ndarray:
        """Predict then reveal each row in order: the labels (multiclass) or scores (multi-label)."""
        out = []
        for i in rows:
            out.append(booster.predict_scores(X[i]) if self.ranker else booster.predict(X[i]))
            booster.update(self.target(i, k))
        return np.array(out)

    @functools.cached_property
    def first(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X before, X after, outputs)`` of a first booster's stream (or a batch booster's fit
        and predictions), which several checks read: one build of a peer's process less each.
        """
        X = self.data.X.copy()
        before = X.copy()
        if self.batch:
            booster = self.fit(X)
            assert 1 <= booster.n_rounds_fitted <= 4, f"{booster.n_rounds_fitted} rounds fitted of 4"
            return before, X, np.asarray(booster.predict(X))
        return before, X, self.stream(self.build(), X, self.rows)

    # -- the checks -----------------------------------------------------------------------------
    def determinism(self) -> None:
        before, _, first = self.first
        X = before.copy()
        again = self.fit(X).predict(X) if self.batch else self.stream(self.build(), X, self.rows)
        np.testing.assert_array_equal(first, again, "the same seed gave other predictions")

    def labels(self) -> None:
        _, X, out = self.first
        k = self.k
        if self.ranker:
            assert out.shape == (len(self.rows), k), f"scores of shape {out.shape[1:]}, not ({k},)"
            assert np.isfinite(out).all(), "a score that is not finite"
            return
        scored = out[out != NO_PREDICTION]  # no prediction (a river peer before it has learnt): a miss
        assert scored.size == 0 or (scored.min() >= 0 and scored.max() < k), (
            f"a label outside 0..{k - 1} (or {NO_PREDICTION}, none): {out.min()}..{out.max()}"
        )
        if self.batch:
            return
        booster = self.build()
        for i in self.rows:
            proba = np.asarray(booster.predict_proba(X[i]))
            assert proba.shape == (k,), f"predict_proba of shape {proba.shape}, not ({k},)"
            assert np.isfinite(proba).all() and (proba >= 0).all(), f"predict_proba gave {proba}"
            assert abs(proba.sum() - 1.0) < 1e-9, f"predict_proba sums to {float(proba.sum())!r}, not 1"
            booster.update(self.target(i))

    def inputs(self) -> None:
        before, after, _ = self.first
        np.testing.assert_array_equal(after, before, "the booster changed the examples it was given")

    def pickling(self) -> str | None:
        X = self.data.X.copy()
        if self.batch:
            booster = self.fit(X)
            labels = booster.predict(X)
            np.testing.assert_array_equal(pickle.loads(pickle.dumps(booster)).predict(X), labels, "a pickled copy")
            np.testing.assert_array_equal(copy.deepcopy(booster).predict(X), labels, "a deep copy")
            return None
        booster = self.build()
        self.stream(booster, X, self.rows[:HALF])
        try:
            copied = pickle.loads(pickle.dumps(booster))
        except TypeError as exc:
            if "pickle" in str(exc):  # a declared refusal: e.g. a peer that lives in another process
                return f"not applicable: refuses to pickle ({_one_line(exc)})"
            raise
        rest = self.rows[HALF:]
        np.testing.assert_array_equal(
            self.stream(copied, X, rest), self.stream(booster, X, rest), "a pickled copy went on otherwise"
        )
        return None

    def grow(self) -> str | None:
        if self.batch:
            return "not applicable: a batch booster is fitted once"
        X, k = self.data.X.copy(), self.k
        booster = self.build()
        self.stream(booster, X, self.rows[:HALF])
        try:
            booster.grow(k + 1, [*self.data.n_categories, 0])
        except NotImplementedError as exc:
            return f"not applicable: cannot grow ({_one_line(exc)})"
        extra = np.random.default_rng(self.seed).normal(size=(len(X), 1))
        wider = np.hstack([X, extra])
        out = []
        for t, i in enumerate(self.rows[HALF:]):
            if self.ranker:
                scores = booster.predict_scores(wider[i])
                assert np.shape(scores) == (k + 1,) and np.isfinite(scores).all(), f"scores {scores} after growing"
                relevant = self.target(i, k + 1)
                relevant[k] = t % 2 == 0
                booster.update(relevant)
            else:
                proba = np.asarray(booster.predict_proba(wider[i]))
                assert proba.shape == (k + 1,), f"predict_proba of shape {proba.shape} after growing to {k + 1} classes"
                booster.update(k if t % 3 == 0 else self.target(i))  # the new label too
                out.append(booster.predict(wider[i]))
                booster.update(self.target(i))
        if out:
            assert min(out) >= 0 and max(out) <= k, f"a label outside 0..{k} after growing to {k + 1} classes"
        return None

    def sample_weights(self) -> str | None:
        if self.batch:
            return "not applicable: a batch booster"
        parameters = list(inspect.signature(self.spec.cls.update).parameters)  # (self, y, w)
        if len(parameters) < 3:
            return "not applicable: update takes no sample weight (it learns each example with weight 1)"
        X, rows = self.data.X.copy(), self.rows
        weighted, plain = self.build(), self.build()
        self.stream(weighted, X, rows[:HALF])
        self.stream(plain, X, rows[:HALF])
        extra = rows[HALF]
        for booster in (weighted, plain):  # the same prediction, and so the same draws
            if self.ranker:
                booster.predict_scores(X[extra])
            else:
                booster.predict(X[extra])
        weighted.update(self.target(extra), 0.0)
        rest = rows[HALF + 1 :]
        np.testing.assert_array_equal(
            self.stream(weighted, X, rest), self.stream(plain, X, rest), "an example of weight 0 changed the booster"
        )
        try:  # what it learnt, to the bit: its pickled state
            same = pickle.dumps(weighted) == pickle.dumps(plain)
        except Exception:
            return None  # the pickling check says why
        assert same, "an example of weight 0 changed the booster's learnt state"
        return None

    def river_estimator(self) -> str | None:
        estimator = _estimator_of(self.name)
        if estimator is None:
            return "not applicable: no river estimator in boostbench.estimators"
        _river_checks(estimator, self.ranker)
        return None


def _estimator_of(name: str) -> type | None:
    """The river estimator of :mod:`boostbench.estimators` whose booster is the algorithm ``name``."""
    import boostbench.estimators as estimators

    found = [getattr(estimators, cls) for cls in estimators.__all__]
    return next((cls for cls in found if getattr(cls, "_algorithm", None) == name), None)


def _river_checks(cls: type, multilabel: bool) -> None:
    """River's estimator checks (``river.checks``) on ``cls`` with each of its unit-test parameters.
    river's multi-label checks stream ``datasets.Music``, a download: MULAN's emotions stands in.
    """
    import itertools

    from river import checks

    from boostbench.data.river_stream import iter_dataset

    for params in cls._unit_test_params():
        model = cls(**params)
        ran = 0
        for check in checks.yield_checks(model):
            if multilabel and isinstance(check, functools.partial) and "dataset" in check.keywords:
                scale = 10 if check.func.__name__ == "check_bounded_memory_growth" else 1
                check = functools.partial(
                    check.func, dataset=list(itertools.islice(iter_dataset("emotions"), 50 * scale))
                )
            name = getattr(check, "__name__", None) or check.func.__name__
            try:
                check(model.clone())
            except AssertionError as exc:
                raise AssertionError(f"river's {name} with {params}: {_one_line(exc)}") from exc
            ran += 1
        assert ran, f"river yielded no estimator check for {cls.__name__}"


def _learner_file(name: str, **changes):
    """The typed ``learner`` section of the shipped ``configs/learner/<name>.yaml``, with ``changes``."""
    from omegaconf import OmegaConf

    from boostbench.learners.registry import learner_config
    from boostbench.system.paths import CONFIG_DIR

    return learner_config(
        {**OmegaConf.to_container(OmegaConf.load(CONFIG_DIR / "learner" / f"{name}.yaml")), **changes}
    )
