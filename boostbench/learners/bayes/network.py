"""Bayesian-network classifiers with the class as a parent of every attribute: the counting core.

Naive Bayes, TAN and BAN (Sun's base models) differ only in the attribute parents ``pa(i)``:
``P(c | x) ∝ P(c) prod_i P(x_i | pa(i), c)``. Every conditional table is a Laplace-smoothed
ratio of weighted counts, so learning is counting: one example adds its importance weight to one
cell per attribute (online), or all cells are filled by ``np.bincount`` (batch); both give the same
numbers. Naive Bayes may keep numeric attributes numeric, with a weighted Gaussian per class.

We write this small counting code ourselves rather than use pgmpy: our learners need importance
weights and per-example updates of the same counts, and the structure search reads those counts
directly (:mod:`boostbench.learners.bayes.structure`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boostbench.system.lazy import lazy_import

network_kernels = lazy_import("boostbench.learners.bayes.network_kernels")  # numba: with the first network

Parents = Sequence[tuple[int, ...]]
#: How a conditional table's cells are smoothed (:class:`BayesNetModel`)
SMOOTHINGS = ("laplace", "marginal", "class_marginal")


def parent_index(codes: np.ndarray, parents: tuple[int, ...], cards: np.ndarray) -> np.ndarray:
    """Mixed-radix index of the parents' joint value per row, ``(n,)`` int64 (-1 if one is missing)."""
    index = np.zeros(len(codes), dtype=np.int64)
    missing = np.zeros(len(codes), dtype=bool)
    for p in parents:
        index = index * cards[p] + codes[:, p]
        missing |= codes[:, p] < 0
    index[missing] = -1
    return index


def family_counts(
    codes: np.ndarray, y: np.ndarray, w: np.ndarray, i: int, parents: tuple[int, ...], cards: np.ndarray, k: int
) -> np.ndarray:
    """Weighted counts ``N(c, pa, x_i)``: ``(k, prod card[pa], card[i])`` float64.

    Rows where ``x_i`` or a parent is missing are left out.
    """
    n_pa = int(np.prod([cards[p] for p in parents])) if parents else 1
    pa = parent_index(codes, parents, cards)
    valid = (codes[:, i] >= 0) & (pa >= 0)
    if valid.all():  # missing values coded as values: no row to leave out, no copies
        index, weights = (y * n_pa + pa) * cards[i] + codes[:, i], w
    else:
        index, weights = (y[valid] * n_pa + pa[valid]) * cards[i] + codes[valid, i], w[valid]
    return np.bincount(index, weights=weights, minlength=k * n_pa * cards[i]).reshape(k, n_pa, cards[i])


class BayesNetModel:
    """``P(c | x)`` for fixed attribute parents, from weighted counts.

    Args:
        cards: ``(d,)`` int64 values per attribute (0: numeric, Gaussian per class; only with
            no parents, i.e. Naive Bayes).
        n_classes: k.
        parents: per attribute, the tuple of attribute parents (the class is always a parent).
        alpha: Laplace pseudo-count of every cell (1: add-one smoothing).
        smoothing: ``laplace``: every cell is ``(N(c, pa, x_i) + alpha) / (N(c, pa) + alpha card_i)``.
            ``marginal``: Friedman, Geiger & Goldszmidt's (1997, Sec. 6) smoothing toward the
            attribute's marginal, ``(N(c, pa, x_i) + n0 P(x_i)) / (N(c, pa) + n0)``.
            ``class_marginal``: the same toward ``P(x_i | c)``, i.e. a rarely seen parent
            configuration backs off to Naive Bayes' table. ``P(x_i)`` and ``P(x_i | c)`` are
            Laplace-smoothed by ``alpha``. Without attribute parents (Naive Bayes) a cell's own
            table is its class marginal, so ``class_marginal`` differs from ``laplace`` only slightly.
        n0: the weight of that marginal (``marginal``, ``class_marginal``; Friedman et al. use 5).

    Raises:
        ValueError: a numeric attribute with parents, or a parent that is numeric.
    """

    def __init__(
        self,
        cards: np.ndarray,
        n_classes: int,
        parents: Parents,
        alpha: float = 1.0,
        smoothing: str = "laplace",
        n0: float = 5.0,
    ):
        self.cards = np.asarray(cards, dtype=np.int64)
        self.k = int(n_classes)
        self.parents = [tuple(int(p) for p in pa) for pa in parents]
        self.alpha = float(alpha)
        if smoothing not in SMOOTHINGS:
            raise ValueError(f"smoothing {smoothing!r}: expected one of {', '.join(SMOOTHINGS)}")
        self.smoothing = smoothing
        self.n0 = float(n0)
        d = len(self.cards)
        self.discrete = np.flatnonzero(self.cards > 0)
        self.numeric = np.flatnonzero(self.cards == 0)
        for i in range(d):
            if self.parents[i] and (self.cards[i] == 0 or np.any(self.cards[list(self.parents[i])] == 0)):
                raise ValueError(f"attribute {i}: a numeric attribute can neither have nor be a parent")
        self.n_pa = np.array(
            [int(np.prod([self.cards[p] for p in self.parents[i]])) if self.parents[i] else 1 for i in range(d)],
            dtype=np.int64,
        )
        sizes = self.k * self.n_pa[self.discrete] * self.cards[self.discrete]
        self.offset = np.zeros(d, dtype=np.int64)  # into `counts`
        self.offset[self.discrete] = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(sizes) else []
        self.counts = np.zeros(int(sizes.sum()))
        totals = self.k * self.n_pa[self.discrete]
        self.total_offset = np.zeros(d, dtype=np.int64)  # into `totals`: N(c, pa)
        self.total_offset[self.discrete] = np.concatenate([[0], np.cumsum(totals)[:-1]]) if len(totals) else []
        self.totals = np.zeros(int(totals.sum()))
        # N(c, x_i) over the rows each family counts, and N(c) per attribute: kept only for the
        # marginal smoothings (Laplace needs neither, and `add` runs once per member and example)
        self._keeps_marginal = smoothing != "laplace"
        self.marginal_offset = np.zeros(d, dtype=np.int64)
        self.marginal_offset[self.discrete] = (
            np.concatenate([[0], np.cumsum(self.k * self.cards[self.discrete])[:-1]]) if len(self.discrete) else []
        )
        self.marginal = np.zeros(int(self.k * self.cards[self.discrete].sum()))
        self.marginal_totals = np.zeros((self.k, d))
        # Parents as a padded matrix with mixed-radix strides (stride 0 = padding), so one example's
        # parent configurations are found for all attributes at once.
        width = max((len(pa) for pa in self.parents), default=0)
        self._parent_matrix = np.zeros((d, max(width, 1)), dtype=np.int64)
        self._strides = np.zeros((d, max(width, 1)), dtype=np.int64)
        for i, pa in enumerate(self.parents):
            for j, p in enumerate(pa):
                self._parent_matrix[i, j] = p
                self._strides[i, j] = int(np.prod([self.cards[q] for q in pa[j + 1 :]])) if j + 1 < len(pa) else 1
        self.class_weight = np.zeros(self.k)
        self.moments = np.zeros((3, self.k, len(self.numeric)))  # sum w, sum w x, sum w x^2
        # one example's steps in numba (network_kernels): the index arrays, the scratch
        self._index = (
            self.discrete,
            self._parent_matrix,
            self._strides,
            self.cards,
            self.n_pa,
            self.offset,
            self.total_offset,
            self.marginal_offset,
        )
        n_attrs = len(self.discrete)
        self._row_args = np.empty((1, 2 * self.k * n_attrs + self.k + 1))
        self._row_used = np.empty((1, n_attrs), dtype=bool)
        self._row_terms = np.empty(n_attrs)

    def _cells(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For rows ``codes (n, d)``: per discrete attribute, whether it is used (``(n, A)`` bool: its
        value and its parents' are present) and its class-0 count and total cells (``(n, A)``).

        Adding ``c * n_pa * card`` (resp. ``c * n_pa``) gives class c's cells.
        """
        attrs = self.discrete
        values = codes[:, self._parent_matrix[attrs]]  # (n, A, width)
        strides = self._strides[attrs]
        pa = (values * strides).sum(axis=2)
        used = (codes[:, attrs] >= 0) & ~((values < 0) & (strides > 0)).any(axis=2)
        cell = self.offset[attrs] + pa * self.cards[attrs] + codes[:, attrs]
        total = self.total_offset[attrs] + pa
        return used, np.where(used, cell, 0), np.where(used, total, 0)

    def add(self, codes: np.ndarray, x: np.ndarray, y: int, weight: float) -> None:
        """Add one example: ``codes (d,)`` int64 (-1 missing), raw ``x (d,)`` float64, label, weight.

        Compiled (:func:`~.network_kernels.add_row`): the same additions as :meth:`add_batch` makes.
        """
        network_kernels.add_row(
            codes,
            int(y),
            float(weight),
            self._index,
            self.counts,
            self.totals,
            self.marginal if self._keeps_marginal else self.marginal[:0],
            self.marginal_totals,
            self.class_weight,
        )
        if len(self.numeric):
            values = x[self.numeric]
            seen = ~np.isnan(values)
            v = np.where(seen, values, 0.0)
            self.moments[:, y, :] += weight * np.stack([seen, v, v * v])

    def add_batch(self, codes: np.ndarray, X: np.ndarray | None, y: np.ndarray, w: np.ndarray) -> BayesNetModel:
        """Add many examples at once (``codes (n, d)``, ``X (n, d)`` or None without numeric attributes)."""
        for i in self.discrete:
            table = family_counts(codes, y, w, int(i), self.parents[i], self.cards, self.k)
            size = table.size
            self.counts[self.offset[i] : self.offset[i] + size] += table.ravel()
            self.totals[self.total_offset[i] : self.total_offset[i] + self.k * self.n_pa[i]] += table.sum(
                axis=2
            ).ravel()
            if self._keeps_marginal:
                self.marginal[self.marginal_offset[i] : self.marginal_offset[i] + self.k * self.cards[i]] += table.sum(
                    axis=1
                ).ravel()
                self.marginal_totals[:, i] += table.sum(axis=(1, 2))
        self.class_weight += np.bincount(y, weights=w, minlength=self.k)
        if len(self.numeric):
            values = X[:, self.numeric]
            seen = ~np.isnan(values)
            v = np.where(seen, values, 0.0)
            for c in range(self.k):
                rows = y == c
                ww = w[rows][:, None]
                self.moments[:, c, :] += np.stack(
                    [(ww * seen[rows]).sum(0), (ww * v[rows]).sum(0), (ww * v[rows] ** 2).sum(0)]
                )
        return self

    def log_joint(self, codes: np.ndarray, X: np.ndarray) -> np.ndarray:
        """``(n, k)`` float64 ``log P(c) + sum_i log P(x_i | pa(i), c)`` for rows ``codes (n, d)``
        and raw ``X (n, d)``; attributes with a missing value (or parent value) are left out.
        """
        prior = np.log(self.class_weight + self.alpha) - np.log(self.class_weight.sum() + self.k * self.alpha)
        out = np.tile(prior, (len(codes), 1))
        if len(self.discrete):
            used, cell, total = self._cells(codes)
            attrs = self.discrete
            shift = np.arange(self.k)[:, None]
            counts = self.counts[cell[:, None, :] + shift * (self.n_pa[attrs] * self.cards[attrs])]  # (n, k, A)
            totals = self.totals[total[:, None, :] + shift * self.n_pa[attrs]]
            if self._keeps_marginal:
                terms = np.log(counts + self.n0 * self._marginal_p(codes, used)) - np.log(totals + self.n0)
            else:
                terms = np.log(counts + self.alpha) - np.log(totals + self.alpha * self.cards[attrs])
            out += np.where(used[:, None, :], terms, 0.0).sum(axis=2)
        if len(self.numeric):
            out += self._gaussian_log_density(X[:, self.numeric])
        return out

    def _marginal_p(self, codes: np.ndarray, used: np.ndarray) -> np.ndarray:
        """``(n, k, A)`` (``class_marginal``) or ``(n, 1, A)`` (``marginal``) Laplace-smoothed
        ``P(x_i | c)`` or ``P(x_i)`` of each row's value of each discrete attribute (1 if not used).
        """
        attrs = self.discrete
        card = self.cards[attrs]
        value = np.where(used, codes[:, attrs], 0)
        index = self.marginal_offset[attrs] + np.arange(self.k)[:, None] * card + value[:, None, :]  # (n, k, A)
        seen, total = self.marginal[index], self.marginal_totals[:, attrs]
        if self.smoothing == "marginal":
            seen, total = seen.sum(axis=1, keepdims=True), total.sum(axis=0)
        p = (seen + self.alpha) / (total + self.alpha * card)
        return np.where(used[:, None, :], p, 1.0)

    def _gaussian_log_density(self, values: np.ndarray) -> np.ndarray:
        """``(n, k)`` summed Gaussian log densities of the numeric ``values (n, m)``."""
        s0, s1, s2 = self.moments  # (k, m) each
        values = values[:, None, :]
        seen = ~np.isnan(values)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(s0 > 0, s1 / np.maximum(s0, 1e-300), 0.0)
            var = np.where(s0 > 0, s2 / np.maximum(s0, 1e-300) - mean**2, 0.0)
            all0, all1, all2 = s0.sum(0), s1.sum(0), s2.sum(0)
            pooled = np.where(all0 > 0, all2 / np.maximum(all0, 1e-300) - (all1 / np.maximum(all0, 1e-300)) ** 2, 1.0)
        # A class seen once (or constant) has variance 0: floor it at 1e-4 of the pooled variance.
        var = np.maximum(var, 1e-4 * np.maximum(pooled, 1e-12) + 1e-12)
        z = np.where(seen, values, 0.0) - mean
        logpdf = -0.5 * (np.log(2 * np.pi * var) + z * z / var)
        return np.where(seen & (s0 > 0), logpdf, 0.0).sum(axis=2)

    def predict_proba(self, codes: np.ndarray, X: np.ndarray) -> np.ndarray:
        """``(n, k)`` float64 class distributions of rows ``codes (n, d)``, ``X (n, d)``."""
        if len(codes) == 1 and self.compiled_rows:
            return self._proba_of_row(codes[0], X[0])
        logp = self.log_joint(codes, X)
        p = np.exp(logp - logp.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def _proba_of_row(self, codes: np.ndarray, x: np.ndarray) -> np.ndarray:
        """:meth:`predict_proba` of one row (``(1, k)``) with Laplace smoothing, to the bit: the
        counting in numba (:mod:`~.network_kernels`), the logarithms and exponentials numpy's.
        """
        args, used, out = self._row_args, self._row_used, np.empty((1, self.k))
        self.row_log_arguments(codes, args[0], used[0])
        network_kernels.log_joint_rows(np.log(args), used, self._row_terms, out)
        return rows_proba(out, [self], x)

    @property
    def compiled_rows(self) -> bool:
        """Whether one row's distribution is computed compiled (Laplace smoothing)."""
        return not self._keeps_marginal

    def row_log_arguments(self, codes: np.ndarray, args: np.ndarray, used: np.ndarray) -> None:
        """:func:`~.network_kernels.log_arguments` of one row ``codes (d,)`` int64 into ``args``
        (``(2 k A + k + 1,)``, A the discrete attributes) and ``used`` (``(A,)`` bool).
        """
        network_kernels.log_arguments(
            np.ascontiguousarray(codes),
            self.alpha,
            self._index,
            self.counts,
            self.totals,
            self.class_weight,
            args,
            used,
        )


def rows_proba(log_joint: np.ndarray, models: Sequence[BayesNetModel], x: np.ndarray) -> np.ndarray:
    """The class distributions, ``(m, k)``, of one row ``x`` (``(d,)`` raw) under ``models`` whose
    discrete parts of ``log P(c, x)`` are the rows of ``log_joint`` (``(m, k)``, overwritten): each
    one's Gaussian part added, then normalised as :meth:`BayesNetModel.predict_proba` does.
    """
    for i, model in enumerate(models):
        if len(model.numeric):
            log_joint[i] += model._gaussian_log_density(x[None, model.numeric])[0]
    p = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


class RowTable:
    """The weighted distinct rows seen: a lossless sufficient statistic for any structure.

    Every family's counts (and every mutual information) is a sum over these rows, so the
    online learners can re-learn their structure from it at any time and get what a batch
    learner gets from the same examples.
    """

    def __init__(self, n_attributes: int, n_classes: int):
        self.k = int(n_classes)
        self._index: dict[bytes, int] = {}
        self._codes = np.zeros((16, n_attributes), dtype=np.int64)
        self._weights = np.zeros((16, self.k))

    @property
    def n_rows(self) -> int:
        return len(self._index)

    def add(self, codes: np.ndarray, y: int, weight: float) -> None:
        """Add ``weight`` to row ``codes (d,)`` int64 with label ``y``."""
        key = codes.tobytes()
        row = self._index.get(key)
        if row is None:
            row = len(self._index)
            if row == len(self._codes):
                self._codes = np.vstack([self._codes, np.zeros_like(self._codes)])
                self._weights = np.vstack([self._weights, np.zeros_like(self._weights)])
            self._index[key] = row
            self._codes[row] = codes
        self._weights[row, y] += weight

    def weighted_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(codes (m, d), y (m,), w (m,))``: one row per (distinct row, class) of positive weight."""
        weights = self._weights[: self.n_rows]
        rows, classes = np.nonzero(weights > 0)
        return self._codes[rows], classes.astype(np.int64), weights[rows, classes]
