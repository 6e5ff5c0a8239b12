"""Naive Bayes, TAN and BAN as weak learners: online members of a pool, and batch models.

Online (:class:`OnlineBayesNet`): every example (with its importance weight) is added to the
current model's counts. TAN/BAN learn their structure online in one of three ways
(``online_structure``):

* ``lossless``: every example also goes to a :class:`~boostbench.learners.bayes.network.RowTable`;
  the structure is re-learned from that table after ``relearn_first`` examples and then every
  time the count has grown by ``relearn_factor`` (50, 100, 200, ... by default), and the new
  model's counts are rebuilt from the table: after a re-learning, the batch learner's model.
* ``frozen``: the structure is learned once, from the first ``relearn_first`` examples (n0, kept
  until then); afterwards only the conditional tables are updated.
* ``window``: the last ``window`` examples are kept; on the same schedule as ``lossless`` the
  structure *and* the counts are re-learned from them (older examples drop out of the tables).

Naive Bayes has no structure: its online counts equal the batch ones.
Batch (:class:`BayesParams.fit_label`): learn the structure once from the training data, then count.
BAN's structure comes from CI tests (``structure=ci``, :mod:`boostbench.learners.bayes.ci_tests`) or a
score-based search (``bic``, ``bdeu``, ``k2``: :func:`~boostbench.learners.bayes.structure.ban_parents`).
Numeric attributes are discretised for TAN/BAN by a :class:`~boostbench.learners.bayes.discretize.Discretizer`
fitted on the training part; Naive Bayes keeps them numeric (Gaussian per class).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from boostbench.errors import ConfigError
from boostbench.learners.bayes.ci_tests import ban_ci_parents
from boostbench.learners.bayes.discretize import Discretizer
from boostbench.learners.bayes.network import BayesNetModel, RowTable, rows_proba
from boostbench.learners.bayes.network_kernels import log_joint_rows
from boostbench.learners.bayes.structure import ban_parents, tan_parents
from boostbench.learners.config import BayesConfig
from boostbench.learners.pool import WeakLearnerPool


@dataclass(frozen=True)
class BayesParams:
    """A ``learner=naive_bayes|tan|ban`` config with its discretiser, fitted on the training part."""

    config: BayesConfig
    discretizer: Discretizer

    @classmethod
    def from_config(
        cls, config: BayesConfig, X_train: np.ndarray | None, n_categories: np.ndarray, rng: np.random.Generator
    ) -> BayesParams:
        """Fit the discretiser of ``config`` (checked with the config,
        :func:`boostbench.learners.registry.learner_config`) on ``X_train`` ``(n, d)``.

        Raises:
            ConfigError: numeric attributes to discretise (TAN/BAN) without training rows.
        """
        discretize = config.name != "naive_bayes"
        numeric = np.asarray(n_categories) == 0
        if discretize and numeric.any() and X_train is None:
            raise ConfigError(
                f"learner={config.name} discretises numeric attributes on a training part: use "
                "protocol=kfold or protocol=holdout"
            )
        X = X_train if X_train is not None else np.zeros((0, len(n_categories)))
        discretizer = Discretizer.fit(
            X, n_categories, config.n_bins, rng, discretize, config.binning, config.missing, config.bin_rows
        )
        return cls(config, discretizer)

    def learn_parents(self, codes: np.ndarray, y: np.ndarray, w: np.ndarray, k: int) -> list[tuple[int, ...]]:
        """The attribute parents this kind learns from weighted rows."""
        cards, config = self.discretizer.cards, self.config
        if config.name == "tan":
            return tan_parents(codes, y, w, cards, k)
        if config.name == "ban" and config.structure == "ci":
            return ban_ci_parents(codes, y, w, cards, k, config.epsilon, config.max_parents, alpha=config.ci_alpha)
        if config.name == "ban":
            return ban_parents(codes, y, w, cards, k, config.max_parents, score=config.structure, ess=config.ess)
        return [()] * len(cards)

    def fit_label(
        self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, n_classes: int, rng: np.random.Generator
    ) -> BatchBayesNet:
        """Batch: learn the structure and counts once from ``X (n, d)``, ``y (n,)`` under a
        distribution (rescaled to sum to n, so Laplace smoothing weighs as with unit weights).
        """
        w = np.asarray(sample_weight, dtype=np.float64)
        w = w * len(y) / w.sum()
        codes = self.discretizer.transform(X)
        keep = w > 0
        parents = self.learn_parents(codes[keep], y[keep], w[keep], n_classes)
        model = self.model(parents, n_classes).add_batch(codes[keep], X[keep], y[keep], w[keep])
        return BatchBayesNet(self.discretizer, model)

    def model(self, parents: list[tuple[int, ...]], n_classes: int) -> BayesNetModel:
        """An empty model of these attribute parents with this config's smoothing."""
        config = self.config
        return BayesNetModel(
            self.discretizer.cards, n_classes, parents, config.alpha, config.smoothing, config.smoothing_n0
        )


class BatchBayesNet:
    """A fitted batch model: ``predict_proba (n, k)`` and ``predict (n,)`` on raw ``X``."""

    def __init__(self, discretizer: Discretizer, model: BayesNetModel):
        self.discretizer = discretizer
        self.model = model

    @property
    def parents(self) -> list[tuple[int, ...]]:
        """Each attribute's attribute parents (the class is a parent of all)."""
        return self.model.parents

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """``(n, k)`` float64 class distributions of raw rows ``X (n, d)`` (NaN = missing)."""
        return self.model.predict_proba(self.discretizer.transform(X), X)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``(n,)`` int64 most probable labels (ties to the lowest)."""
        return self.predict_proba(X).argmax(axis=1).astype(np.int64)


class OnlineBayesNet:
    """One online Naive Bayes / TAN / BAN learner (see module doc)."""

    def __init__(self, params: BayesParams, n_classes: int):
        self.params = params
        self.k = int(n_classes)
        cards = params.discretizer.cards
        config = params.config
        self.model = params.model([()] * len(cards), self.k)  # NB until a structure
        structured = config.name != "naive_bayes"
        self.table = RowTable(len(cards), self.k) if structured and config.online_structure == "lossless" else None
        # frozen: the first n0 examples; window: the last `window` ones (codes, label, weight)
        self.kept: deque | None = None
        if structured and config.online_structure != "lossless":
            self.kept = deque(maxlen=config.window if config.online_structure == "window" else None)
        self.n_seen = 0
        self.next_relearn = config.relearn_first
        self.frozen = False

    def learn(self, codes: np.ndarray, x: np.ndarray, y: int, weight: float) -> None:
        """Add one example: ``codes (d,)`` int64 from the discretiser, raw ``x (d,)`` float64,
        label ``y``, importance weight ``weight`` > 0; re-learns the structure when due.
        """
        self.model.add(codes, x, y, weight)
        if self.frozen or (self.table is None and self.kept is None):
            return
        if self.table is not None:
            self.table.add(codes, y, weight)
        else:
            self.kept.append((codes.copy(), y, weight))
        self.n_seen += 1
        if self.n_seen >= self.next_relearn:
            self.relearn()
            while self.next_relearn <= self.n_seen:
                self.next_relearn = int(np.ceil(self.next_relearn * self.params.config.relearn_factor))

    def relearn(self) -> None:
        """Re-learn the structure and the counts from what is kept (the row table, the first n0
        examples, or the window); a frozen learner then keeps its structure and drops its rows.
        """
        if self.table is not None:
            codes, y, w = self.table.weighted_rows()
        else:
            codes = np.array([row[0] for row in self.kept], dtype=np.int64)
            y = np.array([row[1] for row in self.kept], dtype=np.int64)
            w = np.array([row[2] for row in self.kept], dtype=np.float64)
        parents = self.params.learn_parents(codes, y, w, self.k)
        self.model = self.params.model(parents, self.k)
        self.model.add_batch(codes, None, y, w)
        if self.params.config.online_structure == "frozen":
            self.frozen, self.kept = True, None

    def predict_proba(self, codes: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``(k,)`` float64 class distribution of one example (``codes (d,)``, ``x (d,)``)."""
        return self.model.predict_proba(codes[None, :], x[None, :])[0]


ROWS_AT_ONCE = 4096  # rows a pool scores together (BayesPool.proba_rows): bounded temporaries


class BayesPool(WeakLearnerPool):
    """N online Bayesian-network learners of one kind (importance weights used as given)."""

    def __init__(self, params: BayesParams, n_learners: int, n_classes: int):
        self.params = params
        self.n_learners = int(n_learners)
        self.n_classes = int(n_classes)
        self.members = [OnlineBayesNet(params, n_classes) for _ in range(self.n_learners)]
        self._rows = None  # predict_proba's scratch

    def prepare(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.params.discretizer.transform_row(x), x

    def predict_proba_member(self, i: int, xp: Any) -> np.ndarray:
        return self.members[i].predict_proba(*xp)

    def predict_proba(self, xp: Any) -> np.ndarray:
        """Every member's distribution as :meth:`predict_proba_member` gives it, with one
        ``np.log`` and one ``np.exp`` for all (the members' counting compiled, one call each).
        """
        models = [member.model for member in self.members]
        if not all(model.compiled_rows for model in models):
            return super().predict_proba(xp)
        codes, x = xp
        n_attrs = len(models[0].discrete)
        if self._rows is None:
            self._rows = (
                np.empty((self.n_learners, 2 * self.n_classes * n_attrs + self.n_classes + 1)),
                np.empty((self.n_learners, n_attrs), dtype=bool),
                np.empty(n_attrs),
            )
        args, used, terms = self._rows
        for i, model in enumerate(models):
            model.row_log_arguments(codes, args[i], used[i])
        log_joint = np.empty((self.n_learners, self.n_classes))
        log_joint_rows(np.log(args), used, terms, log_joint)
        return rows_proba(log_joint, models, x)

    def proba_rows(self, X: np.ndarray) -> np.ndarray:
        """:meth:`~boostbench.learners.pool.WeakLearnerPool.proba_rows` with numpy over many rows
        at a time (every row's numbers are those of one row's, to the bit).
        """
        out = np.empty((self.n_learners, len(X), self.n_classes))
        for start in range(0, len(X), ROWS_AT_ONCE):
            rows = X[start : start + ROWS_AT_ONCE]
            codes = self.params.discretizer.transform(rows)
            for i, member in enumerate(self.members):
                out[i, start : start + len(rows)] = member.model.predict_proba(codes, rows)
        return out

    def learn_member(self, i: int, xp: Any, y: int, weight: float) -> None:
        if weight > 0:
            self.members[i].learn(xp[0], xp[1], y, weight)
