"""Discretisation of numeric attributes for the Bayesian-network learners: equal-frequency
(our default) or equal-width bins, fitted on the training part.
"""

from __future__ import annotations

import numpy as np

from boostbench.learners.bayes.network_kernels import transform_row

# Cut points come from at most this many training rows (a seeded sample beyond that).
SAMPLE_ROWS = 10_000
BINNINGS = ("frequency", "width")
MISSING = ("value", "skip")


class Discretizer:
    """Codes every discrete attribute as ``0 .. card-1``, the last code meaning "missing".

    Nominal attributes keep their codes; numeric attributes are cut into ``n_bins`` equal-frequency
    bins at the quantiles ``1/n_bins, ..., (n_bins-1)/n_bins`` of the training values (duplicate
    cut points merged, so a bin count may be smaller; ``binning="width"``: equal-width bins
    between the training minimum and maximum), or kept numeric (``card = 0``, code -1,
    for Naive Bayes' Gaussian estimates) when ``discretize`` is False. A missing value is a value
    of its own (``card`` = categories or bins + 1): every family is then counted on every row, so
    structure scores compare like with like (scoring a family only on the rows where its parents
    are present favours parents that are often missing, such as mushroom's stalk-root). With
    ``missing="skip"`` it gets code -1 instead: left out of the counts and of the product.

    Attributes:
        cuts: per attribute, the ``(card-1,)`` float64 cut points of a discretised numeric
            attribute, else None.
        cards: ``(d,)`` int64 values per attribute (0: numeric, not discretised).
    """

    def __init__(self, cuts: list[np.ndarray | None], cards: np.ndarray, missing: str = "value"):
        self.cuts = cuts
        self.cards = np.asarray(cards, dtype=np.int64)
        self.missing = missing
        # For one vectorised transform: the binned attributes' cut points padded with +inf (a
        # code is the number of cut points <= x, as searchsorted(side="right")), and the nominal ones.
        self._binned = np.array([j for j, c in enumerate(cuts) if c is not None], dtype=np.int64)
        width = max((len(cuts[j]) for j in self._binned), default=0)
        self._cut_matrix = np.full((len(self._binned), width), np.inf)
        for row, j in enumerate(self._binned):
            self._cut_matrix[row, : len(cuts[j])] = cuts[j]
        self._nominal = np.array([j for j, c in enumerate(cuts) if c is None and self.cards[j] > 0], dtype=np.int64)
        self._discrete = self.cards > 0

    @classmethod
    def fit(
        cls,
        X: np.ndarray,
        n_categories: np.ndarray,
        n_bins: int,
        rng: np.random.Generator,
        discretize: bool = True,
        binning: str = "frequency",
        missing: str = "value",
        sample_rows: int = SAMPLE_ROWS,
    ) -> Discretizer:
        """Cut points from the training rows ``X (n, d)`` float64 (NaN = missing).

        Uses every row up to ``sample_rows``, else a sample of that size drawn with ``rng`` (an
        online learner that must fix its bins from its first n0 examples sees such a sample).
        ``binning``: one of :data:`BINNINGS`; ``missing``: one of :data:`MISSING`.
        """
        rows = np.arange(len(X)) if len(X) <= sample_rows else np.sort(rng.choice(len(X), sample_rows, replace=False))
        extra = 1 if missing == "value" else 0  # the code of "missing"
        cuts, cards = [], []
        for j, categories in enumerate(np.asarray(n_categories)):
            if categories > 0 or not discretize:
                cuts.append(None)
                cards.append(int(categories) + extra if categories > 0 else 0)
                continue
            values = X[rows, j]
            values = values[~np.isnan(values)]
            cuts.append(_cut_points(values, n_bins, binning))
            cards.append(len(cuts[-1]) + 1 + extra)
        return cls(cuts, np.array(cards), missing)

    @property
    def gaussian(self) -> np.ndarray:
        """``(d,)`` bool: attributes left numeric."""
        return self.cards == 0

    def transform(self, X: np.ndarray) -> np.ndarray:
        """``(n, d)`` float64 -> ``(n, d)`` int64 codes (``card - 1`` for missing); -1 for numeric
        attributes left numeric (their raw values are read from ``X``).
        """
        X = np.atleast_2d(X)
        codes = np.full(X.shape, -1, dtype=np.int64)
        with np.errstate(invalid="ignore"):
            codes[:, self._binned] = (X[:, self._binned, None] >= self._cut_matrix[None]).sum(axis=2)
        codes[:, self._nominal] = np.nan_to_num(X[:, self._nominal], nan=-1.0).astype(np.int64)
        missing = np.isnan(X) & self._discrete
        codes[missing] = np.broadcast_to(self.cards - 1, X.shape)[missing] if self.missing == "value" else -1
        return codes

    def transform_row(self, x: np.ndarray) -> np.ndarray:
        """:meth:`transform` of one row ``x (d,)`` float64: ``(d,)`` int64 (compiled, the same codes)."""
        codes = np.empty(len(x), dtype=np.int64)
        transform_row(
            np.ascontiguousarray(x, dtype=np.float64),
            self._binned,
            self._cut_matrix,
            self._nominal,
            self.cards,
            self.missing == "value",
            codes,
        )
        return codes


def _cut_points(values: np.ndarray, n_bins: int, binning: str) -> np.ndarray:
    """``(<= n_bins - 1,)`` sorted distinct cut points of one attribute's training ``values``."""
    if not len(values):
        return np.array([])
    if binning == "width":
        points = values.min() + (values.max() - values.min()) * np.arange(1, n_bins) / n_bins
    else:
        points = np.quantile(values, np.arange(1, n_bins) / n_bins)
    return np.unique(points)
