"""One-vs-all binarised AdaBoost (Combessie & Machraoui, "Binarization - One vs all")."""

from __future__ import annotations

import numpy as np

from boostbench.batch.adaboost import AdaBoost
from boostbench.batch.base import BatchBooster


def _pad(stages: np.ndarray, T: int) -> np.ndarray:
    """Repeat the last stage (or zeros, if none) so that ``stages`` has ``T`` rows."""
    if len(stages) >= T:
        return stages[:T]
    last = stages[-1:] if len(stages) else np.zeros((1,) + stages.shape[1:])
    return np.concatenate([stages, np.repeat(last, T - len(stages), axis=0)])


class OneVsAll(BatchBooster):
    """k binary AdaBoost runs, class ``j`` against the rest; predict ``argmax_j f^(j)(x)``.

    ``f^(j)(x) = sum_t alpha^(j)_t h^(j)_t(x)`` is run j's margin (``h in {-1, +1}``); stage t uses
    the first t rounds of every run (a run that stopped early keeps its final margin).
    ``weight_history_`` is the mean over the k runs of their example distributions.
    """

    name = "one_vs_all"

    def _run_rounds(self, X: np.ndarray, y: np.ndarray) -> None:  # k binary runs, each with its loop
        self.binary_ = [
            AdaBoost(2, self.n_rounds, self.learner, self.rng).fit(X, (y == j).astype(np.int64))
            for j in range(self.n_classes)
        ]
        T = max(b.n_rounds_fitted for b in self.binary_)
        if T:
            mean_weights = np.mean([_pad(b.weight_history_, T) for b in self.binary_], axis=0)
            self._weights = list(mean_weights)
            self._hypotheses = list(range(T))
            self.alphas_ = [1.0] * T
            self.round_stats_ = [float("nan")] * T

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:  # _run_rounds is overridden
        raise NotImplementedError

    def _boost_round(self, X: np.ndarray, y: np.ndarray, state) -> None:
        raise NotImplementedError

    def _votes(self, hypothesis, X: np.ndarray) -> np.ndarray:  # staged_scores is overridden
        raise NotImplementedError

    def staged_scores(self, X: np.ndarray) -> np.ndarray:
        """``(T_fit, n, k)`` float64: stage t's margins ``f^(j)_t(x)`` of the k runs."""
        T = self.n_rounds_fitted
        return (
            np.stack([_pad(b.margins(X), T) for b in self.binary_], axis=2)
            if T
            else np.zeros((0, len(X), self.n_classes))
        )
