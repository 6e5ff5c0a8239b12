"""Oza's online boosting (Oza & Russell 2001; Oza 2005), the online AdaBoost.M1 of the Sun paper."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.boosters.vfdt import TREE_WEIGHT
from boostbench.constraints import BOOLEAN, Constraint, Interval, OneOf
from boostbench.system.lazy import lazy_import

online_boosting_kernels = lazy_import("boostbench.boosters.online_boosting_kernels")  # loaded with the first booster
ties = lazy_import("boostbench.core.ties")  # compiled: loaded by the first prediction, not with the class

#: Oza's vote rules: ``hard`` (each member's label), ``soft`` (each member's distribution), ``moa``
#: (MOA's OzaBoost: distributions, and no member votes after the first without a positive weight)
VOTE = OneOf(("hard", "soft", "moa"))


class OnlineBoosting(OnlineBooster):
    """Oza's online boosting with Poisson(lambda) presentations.

    Each example starts with ``lambda = w``, its weight (1 unless :meth:`update` is given one; Oza's
    weighted examples; ``w = 0`` changes nothing). Member m trains ``K ~ Poisson(lambda)`` times
    (as one update of importance weight K), is then asked for its label; a correct member adds
    lambda to ``lambda_sc[m]`` and scales ``lambda *= 1 / (2 (1 - eps_m))``, a wrong one adds to
    ``lambda_sw[m]`` and scales ``lambda *= 1 / (2 eps_m)``, with
    ``eps_m = lambda_sw / (lambda_sc + lambda_sw)``. Prediction (``vote="hard"``):
    ``argmax_c sum_{m: h_m(x) = c} log((1 - eps_m) / eps_m)`` over members with
    ``eps_m < 1/2`` (AdaBoost.M1 keeps no member worse than chance). Oza's papers do not fix the
    vote, and Jung et al. 2017 do not say which implementation their baseline was: ``"soft"``
    adds the members' distributions with those weights, ``"moa"`` is MOA's ``OzaBoost``
    (distributions; weights up to the first member whose ``eps_m`` is not in ``(0, 1/2)``, the
    members after it do not vote, however good).

    The Poisson counts and the uniforms that break a member's ties come from a Mersenne-Twister
    stream seeded per example from ``rng``, so the compiled update (over the compiled pool)
    and the reference one draw the same numbers.

    Args:
        pool: N weak learners over ``n_classes`` labels (:class:`OnlineBooster`).
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (:class:`OnlineBooster`).
        eps_floor: ``eps_m`` is clipped to at least this in the vote weight, so a member with
            no error yet gets a large finite weight instead of an infinite one.
            Unused by ``vote="moa"`` (a member without error stops the vote there).
        compiled: over the compiled pool, run the update as one numba kernel, and with the hard
            vote :meth:`test_then_train` as one kernel call over many examples (same results).
        vote: ``"hard"``, ``"soft"`` or ``"moa"``.
        tree_weight: ``"c_i"``: member m trains with weight ``K c_m`` (its constant, as in the
            other boosters); ``"one"``: with ``K``.
        presentations: ``"poisson"`` (Oza): ``K ~ Poisson(lambda)``; ``"expected"``: ``K = lambda``,
            the Poisson's mean, as one update of that importance weight (no draw; the update then
            runs in Python, the compiled kernel draws K).

    Raises:
        InvalidParameterError: a value outside :attr:`_parameter_constraints` (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "eps_floor": Interval(0.0, 0.5),
        "compiled": BOOLEAN,
        "vote": VOTE,
        "tree_weight": TREE_WEIGHT,
        "presentations": OneOf(("poisson", "expected")),
    }

    def __init__(
        self,
        pool,
        n_classes,
        rng,
        *,
        eps_floor: float = 1e-6,
        compiled: bool = True,
        vote: str = "hard",
        tree_weight: str = "c_i",
        presentations: str = "poisson",
    ):
        super().__init__(pool, n_classes, rng)
        self._validate_params(
            eps_floor=eps_floor, compiled=compiled, vote=vote, tree_weight=tree_weight, presentations=presentations
        )
        self.eps_floor = float(eps_floor)
        self.compiled = bool(compiled)
        self.vote = vote
        self.tree_weight = tree_weight
        self.presentations = presentations
        self._on_growth()
        self.lambda_sc = np.zeros(pool.n_learners)
        self.lambda_sw = np.zeros(pool.n_learners)
        self._state = None
        self._stream = np.random.RandomState(0)  # re-seeded per example: a new one costs 100 µs

    def _on_growth(self) -> None:
        # what a Poisson count K is multiplied by before the pool's c_m
        ones = np.ones(self.pool.n_learners)
        self._unit = ones if self.tree_weight == "c_i" else self.pool.unscaled(ones)
        compiled = self.compiled and self.pool.compiled and self.presentations == "poisson"
        self._compiled_update = online_boosting_kernels.CompiledUpdate(self.pool) if compiled else None

    def vote_weights(self) -> np.ndarray:
        """``(N,)``: ``log((1 - eps_m) / eps_m)`` for members with ``0 <= eps_m < 1/2`` (``eps_m``
        at least ``eps_floor``), else 0; for ``vote="moa"``, up to the first member with
        ``eps_m`` not in ``(0, 1/2)`` and 0 from there on.
        """
        if self.vote == "moa":
            seen = self.lambda_sc + self.lambda_sw
            with np.errstate(divide="ignore", invalid="ignore"):
                eps = np.where(seen > 0, self.lambda_sw / seen, 0.0)
                weights = np.where((eps > 0) & (eps < 0.5), np.log((1.0 - eps) / eps), 0.0)
            stops = np.flatnonzero(weights <= 0)
            if len(stops):
                weights[stops[0] :] = 0.0
            return weights
        weights = np.empty(self.pool.n_learners)
        online_boosting_kernels.vote_weights_into(
            self.lambda_sc, self.lambda_sw, self.eps_floor, weights
        )  # libm's log, as the compiled pass
        return weights

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Normalised weighted votes, ``(k,)`` (uniform while no member may vote)."""
        xp = self.pool.prepare(x)
        P = self.pool.predict_proba(xp)
        self._state = (xp, P)
        return self._votes(P, self.vote_weights())

    def _votes(self, P: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The normalised votes of members with distributions ``P`` (``(N, k)``) and vote weights."""
        if self.vote == "hard":
            votes = np.bincount(ties.argmax_rows_random_tie(P, self.rng), weights=weights, minlength=self.n_classes)
        else:
            votes = weights @ P
        total = votes.sum()
        return votes / total if total > 0 else np.full(self.n_classes, 1.0 / self.n_classes)

    def predict_many(self, X: np.ndarray) -> np.ndarray:
        """See :meth:`OnlineBooster.predict_many` (the pool scores the rows at once)."""
        weights = self.vote_weights()
        P = self.pool.proba_rows(X)
        self._state = None
        return np.array(
            [
                ties.argmax_random_tie(self._votes(np.ascontiguousarray(P[:, i]), weights), self.rng)
                for i in range(len(X))
            ],
            dtype=np.int64,
        )

    def test_then_train(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """See :meth:`OnlineBooster.test_then_train`; with the hard vote over the compiled pool,
        one kernel call (:func:`~boostbench.boosters.online_boosting_kernels.run_steps`) with the
        same draws.
        """
        if self._compiled_update is None or self.vote != "hard":
            return super().test_then_train(X, y)
        predicted = np.empty(len(X), dtype=np.int64)
        self._compiled_update.run(
            np.ascontiguousarray(X, dtype=np.float64),
            np.ascontiguousarray(y, dtype=np.int64),
            self.rng,
            self.eps_floor,
            self.lambda_sc,
            self.lambda_sw,
            self._unit,
            predicted,
        )
        self._state = None
        return predicted

    def update(self, y: int, w: float = 1.0) -> None:
        xp, P = self._state
        self._state = None
        if w == 0.0:
            return
        seed = int(self.rng.integers(2**32))
        if self._compiled_update is not None:
            self._compiled_update(seed, xp, int(y), P, self.lambda_sc, self.lambda_sw, self._unit, float(w))
        else:
            self.update_reference(seed, xp, int(y), P, float(w))

    def update_reference(self, seed: int, xp, y: int, P: np.ndarray, w: float = 1.0) -> None:
        """The update in Python, over any pool: member m trains ``K ~ Poisson(lambda)`` times
        (``K = lambda`` with ``presentations="expected"``), then (Oza) its label for ``x`` after
        training updates its error and ``lambda`` (``lambda = w`` for the first member).
        """
        stream = self._stream
        stream.seed(seed)  # the state RandomState(seed) starts in
        lam = w
        for m in range(self.pool.n_learners):
            presentations = stream.poisson(lam) if self.presentations == "poisson" else lam
            proba = P[m]
            if presentations > 0:
                self.pool.learn_member(m, xp, y, presentations * self._unit[m])
                proba = self.pool.predict_proba_member(m, xp)  # Oza checks the member after training
            if ties.pick_tie_u(proba, stream.random_sample(), False) == y:  # argmax_tie_u, compiled
                self.lambda_sc[m] += lam
                lam *= (self.lambda_sc[m] + self.lambda_sw[m]) / (2.0 * self.lambda_sc[m])
            else:
                self.lambda_sw[m] += lam
                lam *= (self.lambda_sc[m] + self.lambda_sw[m]) / (2.0 * self.lambda_sw[m])
