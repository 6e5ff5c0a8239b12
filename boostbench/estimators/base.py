"""What every river estimator of :mod:`boostbench.estimators` shares: hyper-parameters in, a
booster over a weak-learner pool built at the first example, grown as classes and features come.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from river import base

from boostbench.estimators.stream_encoding import StreamEncoder
from boostbench.learners.pool import REFERENCE_RANGES
from boostbench.seeding import run_generators


def _skip(estimator: BoosterFace, w: float) -> bool:
    """Whether ``learn_one`` with river's per-sample weight ``w`` learns nothing (``w = 0``).

    Raises:
        ValueError: ``w`` negative or not finite.
    """
    if not (w >= 0.0 and w != float("inf")):
        raise ValueError(f"the sample weight w must be a finite number >= 0, got {w!r}")
    if w == 0.0:
        estimator._pending = None  # a prediction's state is not reused after a skipped example
        return True
    return False


class BoosterFace:
    """Mixin of the river estimators: the booster named by :attr:`_algorithm`, built lazily.

    Subclasses declare river hyper-parameters in their constructor (stored under the same names,
    nothing else) and list the booster's own in :attr:`_booster_params`. Learnt state lives in
    attributes that start with ``_`` (river's ``clone`` and ``repr`` see only the parameters).

    The weak learners: with ``model=None`` the paper's VFDTs (Hoeffding trees with the authors'
    per-tree parameter draws: delta, tau log-uniform in [0.01, 0.9], grace period in [5, 20],
    importance-weight constant ``c_i``), served by the compiled pool, which is river's
    ``HoeffdingTreeClassifier`` to the bit; with a river classifier, N clones of it
    (:class:`~boostbench.learners.river_model_pool.RiverModelPool`, with the same ``c_i``).
    """

    _algorithm: ClassVar[str]
    _booster_params: ClassVar[tuple[str, ...]] = ()
    _task: ClassVar[str] = "multiclass"

    # -- building --------------------------------------------------------------------------
    def _reset(self) -> None:
        self._encoder = StreamEncoder()
        self._booster = None
        self._pending = None  # (the example's copy, growth count) of the last prediction
        self._growths = 0
        if self.classes is not None:
            for label in self.classes:
                self._encoder.add_label(label)

    def _k(self) -> int:
        # one label seen: a second class stands in for the next label, so the booster has k >= 2
        return max(2, len(self._encoder.labels))

    def _build(self) -> None:
        from boostbench.algorithms import algorithm_spec
        from boostbench.learners.registry import make_pool
        from boostbench.system.kernel_cache import note_if_compiling

        note_if_compiling()  # the first example's calls compile the kernels on an empty cache

        generators = run_generators(self.seed if self.seed is not None else np.random.SeedSequence().entropy)
        encoder = self._encoder
        learner = {
            "name": "hoeffding_tree",
            "backend": "compiled",
            **REFERENCE_RANGES[self._task],
            "feature_subset_size": getattr(self, "feature_subset_size", None),
            "max_size": self.max_size,
        }
        pool = make_pool(
            learner,
            int(self.n_models),
            self._k(),
            encoder.n_categories,
            generators.learners,
            model=self.model,
            columns=(encoder.names, encoder.categories),
        )
        kwargs = {name: getattr(self, name) for name in self._booster_params}
        self._booster = algorithm_spec(self._algorithm).cls(pool, self._k(), generators.booster, **kwargs)

    def _observe(self, x: dict, labels: Any = ()) -> None:
        """Learn the labels and features of a training example, growing the booster."""
        encoder = self._encoder
        k_before = self._k()
        new_labels = [label for label in labels if encoder.add_label(label)]
        new_features = encoder.observe(x)
        if self._booster is None:
            self._build()
            return
        if new_labels or new_features:
            self._booster.grow(
                self._k() if self._k() != k_before else None, encoder.n_categories if new_features else None
            )
            self._growths += 1

    def _predicted(self, x: dict) -> bool:
        """Whether the booster's state is that of a prediction on this very ``x``."""
        pending, self._pending = self._pending, None
        return pending is not None and pending[1] == self._growths and pending[0] == x

    def _remember(self, x: dict) -> None:
        self._pending = (dict(x), self._growths)

    @classmethod
    def _unit_test_params(cls):
        yield {"n_models": 3}  # seed None: river's checks then seed it (stochastic estimators)
        yield {"n_models": 3, "seed": 1}


class BoostedClassifier(BoosterFace, base.Classifier):
    """river ``Classifier`` face of a multiclass booster (see :class:`BoosterFace`).

    ``predict_proba_one`` gives the booster's distribution over the labels seen so far (empty
    before any), ``predict_one`` the booster's own prediction (e.g. Adaboost.OLM's Hedge-drawn
    expert), ``learn_one`` reveals the label of an example, reusing the work of a prediction on
    the same example just before (river's test-then-train loop pays for one pass, not two).
    ``learn_one(x, y, w)`` takes river's per-sample weight ``w >= 0`` (float, default 1): where
    it enters is the booster's (each class says); ``w = 0`` leaves the model as it was (not even
    a new label or feature is learnt).
    """

    @property
    def _multiclass(self) -> bool:
        return True

    def _distribution(self, proba: np.ndarray) -> dict[Any, float]:
        labels = self._encoder.labels
        proba = proba[: len(labels)]
        total = proba.sum()  # the stand-in second class (one label seen) takes no mass
        if total <= 0:
            return {label: 1.0 / len(labels) for label in labels}
        return {label: float(p / total) for label, p in zip(labels, proba)}

    def predict_proba_one(self, x: dict) -> dict[Any, float]:
        if self._booster is None:
            return {}
        proba = self._booster.predict_proba(self._encoder.encode(x))
        self._remember(x)
        return self._distribution(proba)

    def predict_one(self, x: dict) -> Any:
        if self._booster is None:
            return None
        code = self._booster.predict(self._encoder.encode(x))
        self._remember(x)
        labels = self._encoder.labels
        return labels[code] if code < len(labels) else labels[0]

    def learn_one(self, x: dict, y: Any, w: float = 1.0) -> None:
        """Learn ``(x, y)`` with weight ``w`` (see the class).

        Raises:
            ValueError: ``w`` negative or not finite.
        """
        if _skip(self, w):
            return
        self._observe(x, (y,))
        if not self._predicted(x):
            self._booster.predict(self._encoder.encode(x))
        self._booster.update(self._encoder.label_code(y), float(w))


class BoostedRanker(BoosterFace, base.MultiLabelClassifier):
    """river ``MultiLabelClassifier`` face of a multi-label ranking booster (see
    :class:`BoosterFace`). ``learn_one(x, {label: bool})`` (labels are learnt from the keys,
    relevant or not); ``rank_one(x)``: the known labels, best first; ``predict_one(x)``:
    ``{label: bool}`` with the top m labels relevant, m the mean label-set size seen in training
    (rounded, at least 1; empty before any training).
    """

    _task = "multilabel"

    def _reset(self) -> None:
        super()._reset()
        self._relevant_seen = 0
        self._examples_seen = 0

    def rank_one(self, x: dict) -> list[Any]:
        if self._booster is None:
            return []
        scores = self._booster.predict_scores(self._encoder.encode(x))[: len(self._encoder.labels)]
        self._remember(x)
        return [self._encoder.labels[j] for j in np.argsort(-scores, kind="stable")]

    def predict_one(self, x: dict) -> dict[Any, bool]:
        ranking = self.rank_one(x)
        if not self._examples_seen:
            return {}
        m = max(1, round(self._relevant_seen / self._examples_seen))
        top = set(ranking[:m])
        return {label: label in top for label in ranking}

    def learn_one(self, x: dict, y: dict[Any, bool], w: float = 1.0) -> None:
        """Learn ``(x, y)`` with weight ``w``: it scales every weak learner's training weight (the
        experts' steps are those of any example); ``w = 0`` leaves the model as it was.

        Raises:
            ValueError: ``w`` negative or not finite.
        """
        if _skip(self, w):
            return
        self._observe(x, y.keys())
        if not self._predicted(x):
            self._booster.predict_scores(self._encoder.encode(x))
        relevant = np.zeros(self._booster.n_classes, dtype=bool)
        for label, flag in y.items():
            relevant[self._encoder.label_code(label)] = bool(flag)
        self._relevant_seen += int(relevant.sum())
        self._examples_seen += 1
        self._booster.update(relevant, float(w))
