"""Oza's online boosting with MOA's vote (``moa.classifiers.meta.OzaBoost``): a variant of
:mod:`boostbench.boosters.online_boosting` that differs in prediction only."""

from __future__ import annotations

import numpy as np

from boostbench.boosters.online_boosting import OnlineBoosting


class OnlineBoostingMOA(OnlineBoosting):
    """Oza's online boosting, voting as MOA's OzaBoost does.

    Training is :class:`~boostbench.boosters.online_boosting.OnlineBoosting`'s. In the vote, MOA
    gives member m the weight ``log((1 - eps_m) / eps_m)`` and stops at the first member whose
    weight is not positive: one with ``eps_m > 1/2``, with ``eps_m = 1/2``, or with no error yet
    (``eps_m = 0``), and so also one that has seen nothing. The members after it do not vote, however
    good. (One of the baselines the Jung et al. 2017 comparison could have used; the paper does not
    say which.)

    Args:
        pool, n_classes, rng, eps_floor, compiled: see
            :class:`~boostbench.boosters.online_boosting.OnlineBoosting` (``eps_floor`` is
            unused: a member without error stops the vote).
    """

    def vote_weights(self) -> np.ndarray:
        """``(N,)``: ``log((1 - eps_m) / eps_m)`` up to the first member with ``eps_m`` not in
        ``(0, 1/2)``, 0 from there on."""
        seen = self.lambda_sc + self.lambda_sw
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.where(seen > 0, self.lambda_sw / seen, 0.0)
            weights = np.where((eps > 0) & (eps < 0.5), np.log((1.0 - eps) / eps), 0.0)
        stops = np.flatnonzero(weights <= 0)
        if len(stops):
            weights[stops[0]:] = 0.0
        return weights
