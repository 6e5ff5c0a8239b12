"""One-vs-all binarised AdaBoost (Combessie & Machraoui, "Binarization - One vs all")."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from boostbench.batch.adaboost import AdaBoost
from boostbench.batch.base import BatchModel


def _pad(stages: np.ndarray, T: int) -> np.ndarray:
    """Repeat the last stage (or zeros, if none) so that ``stages`` has ``T`` rows."""
    if len(stages) >= T:
        return stages[:T]
    last = stages[-1:] if len(stages) else np.zeros((1,) + stages.shape[1:])
    return np.concatenate([stages, np.repeat(last, T - len(stages), axis=0)])


class OneVsAll(BatchModel):
    """k binary AdaBoost runs, class ``j`` against the rest; predict ``argmax_j f^(j)(x)``.

    A composite: run j is an :class:`~boostbench.batch.adaboost.AdaBoost` on the labels
    ``[y = j]``, fitted in turn with the model's learner and generator. ``f^(j)(x) = sum_t
    alpha^(j)_t h^(j)_t(x)`` is run j's margin (``h in {-1, +1}``); stage t uses the first t
    rounds of every run (a run that stopped early keeps its final margin), so the model has as
    many stages as its longest run.

    Attributes (after :meth:`fit`):
        binary_: the k fitted :class:`~boostbench.batch.adaboost.AdaBoost` runs.
        alphas_: ``(k, T_fit)`` float64, run j's hypothesis weights in row j (0 after its stop).
        weight_history_: ``(T_fit, n)`` float64, the mean over the k runs of their example
            distributions (a stopped run's last one repeated).
    """

    name = "one_vs_all"

    def _fit(self, X: np.ndarray, y: np.ndarray, D: np.ndarray | None) -> None:
        self.binary_ = [
            AdaBoost(2, self.n_rounds, self.learner, self.rng).fit(X, (y == j).astype(np.int64), D)
            for j in range(self.n_classes)
        ]
        T = self.n_rounds_fitted
        self.alphas_ = np.array([np.pad(b.alphas_, (0, T - b.n_rounds_fitted)) for b in self.binary_])
        self.weight_history_ = (
            np.mean([_pad(b.weight_history_, T) for b in self.binary_], axis=0) if T else np.zeros((0, len(y)))
        )

    vote_span = 2.0  # a margin moves by 2 alpha between h = -1 and h = +1

    def stage_weights(self) -> np.ndarray:
        """``(T_fit,)`` float64: the mean over the k runs of their weights summed up to each stage."""
        return np.cumsum(self.alphas_, axis=1).mean(axis=0)

    @property
    def n_rounds_fitted(self) -> int:
        """Rounds of the longest binary run."""
        return max(b.n_rounds_fitted for b in self.binary_)

    def iter_scores(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """Stage t's margins ``f^(j)_t(x)`` of the k runs, ``(n, k)``, for t = 1..T_fit in turn."""
        runs = [b.iter_scores(X) for b in self.binary_]
        margins = np.zeros((len(X), self.n_classes))
        for _ in range(self.n_rounds_fitted):
            for j, run in enumerate(runs):
                scores = next(run, None)
                if scores is not None:  # else run j stopped: its final margin stays
                    margins[:, j] = scores[:, 1]
            yield margins.copy()
