"""Adaboost.OLM: Jung, Goetz & Tewari 2017, Algorithm 2 (online multiclass boosting, logistic loss)."""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import BOOLEAN, PAPER_OR_REFERENCE, POSITIVE, Constraint, Interval
from boostbench.core.cost_matrix import cost_matrix_logistic, cost_row_logistic
from boostbench.system.lazy import lazy_import

# compiled: loaded with the first booster, not with the class (the config check reads the class)
adaboost_olm_kernels = lazy_import("boostbench.boosters.adaboost_olm_kernels")
hedge = lazy_import("boostbench.core.hedge")
ogd = lazy_import("boostbench.core.ogd")
ties = lazy_import("boostbench.core.ties")


def forward_reference(P: np.ndarray, alpha: np.ndarray, u: np.ndarray):
    """Algorithm 2, lines 5-9, for one example (the reference the compiled kernel is tested against).

    Args:
        P: ``(N, k)`` learners' class distributions; alpha: ``(N,)``; u: ``(2N,)`` uniforms that
            break the argmin (``2i``) and argmax (``2i + 1``) ties.

    Returns:
        ``(s_before (N, k), labels (N,), experts (N,))``: the votes before learner i, learner i's
        label (argmin of its expected cost ``p_i^T C^i``, eq. 9) and expert i's prediction.
    """
    n, k = P.shape
    s = np.zeros(k)
    s_before = np.empty((n, k))
    labels = np.empty(n, dtype=np.int64)
    experts = np.empty(n, dtype=np.int64)
    for i in range(n):
        s_before[i] = s
        labels[i] = ties.argmin_tie_u(P[i] @ cost_matrix_logistic(s), u[2 * i])
        s[labels[i]] += alpha[i]
        experts[i] = ties.argmax_tie_u(s, u[2 * i + 1])
    return s_before, labels, experts


def backward_reference(
    s_before: np.ndarray,
    labels: np.ndarray,
    alpha: np.ndarray,
    y: int,
    eta: float,
    bound: float,
    variant: np.ndarray | None = None,
):
    """Algorithm 2, lines 13-14: OGD on each alpha (gradient eq. 10) and the training weights.

    Args:
        variant: ``(2,)`` float64 (:func:`~boostbench.boosters.adaboost_olm_kernels.variant_array`).
            ``variant[REFERENCE_GRADIENT] != 0``: the authors' gradient when learner i's label is
            y, ``-sum_{j != y} 1 / (1 + exp(s[j] - alpha - s[y]))``, the complement of eq. (10)'s
            ``-sum_{j != y} 1 / (1 + exp(s[y] + alpha - s[j]))``. ``variant[FIRST_WEIGHT]``
            unless ``LINE_14_WEIGHT``: the first learner's weight is that constant (the authors' 5).

    Returns:
        ``(new_alpha (N,), weights (N,))`` with ``weights[i] = -C^i[y, y] / (k - 1)``.
    """
    variant = adaboost_olm_kernels.PAPER_VARIANT if variant is None else variant
    n, k = s_before.shape
    new_alpha = np.empty(n)
    weights = np.empty(n)
    for i in range(n):
        s = s_before[i]
        weights[i] = -cost_row_logistic(s, y)[y] / (k - 1)
        # eq. (10): d/d alpha of L_y(s + alpha e_l) is the l-th entry of grad L_y there.
        s_moved = s.copy()
        s_moved[labels[i]] += alpha[i]
        gradient = cost_row_logistic(s_moved, y)[labels[i]]
        if variant[adaboost_olm_kernels.REFERENCE_GRADIENT] != 0.0 and labels[i] == y:
            gradient = -(k - 1) - gradient  # each term 1 - sigma: the complement
        new_alpha[i] = ogd.ogd_step(alpha[i], gradient, eta, bound)
    if variant[adaboost_olm_kernels.FIRST_WEIGHT] != adaboost_olm_kernels.LINE_14_WEIGHT:
        weights[0] = variant[adaboost_olm_kernels.FIRST_WEIGHT]
    return new_alpha, weights


class Prediction(NamedTuple):
    """What a prediction (Algorithm 2, lines 5-11) leaves for the update of the same example.

    Attributes:
        xp: the example in the pool's form (:meth:`~boostbench.learners.pool.WeakLearnerPool.prepare`).
        s_before: ``(N, k)`` float64, the votes before learner i (None over the compiled pool,
            whose kernels keep their own).
        labels: ``(N,)`` int64, learner i's label (the argmin of its expected cost; or None).
        experts: ``(N,)`` int64, expert i's prediction (or None).
        p: ``(N,)`` float64, Hedge's distribution over the experts (or None).
    """

    xp: Any
    s_before: np.ndarray | None = None
    labels: np.ndarray | None = None
    experts: np.ndarray | None = None
    p: np.ndarray | None = None


class AdaboostOLM(OnlineBooster):
    """Adaboost.OLM (Algorithm 2).

    For learner i: cost matrix ``C^i`` from the votes ``s^{i-1}`` of learners before it
    (eq. 9); the learner's label is the argmin of its expected cost ``p_i^T C^i`` (``p_i`` its
    class distribution; the reference code's rule); ``s^i = s^{i-1} + alpha_i e_{l_i}``;
    expert i predicts ``argmax s^i``. The final label is expert ``i_t`` drawn by Hedge.
    After ``y`` is revealed: ``alpha_i`` takes a projected OGD step on the logistic loss with
    ``eta_t = 2 sqrt 2 / ((k-1) sqrt t)`` and gradient eq. (10), learner i trains with weight
    ``-C^i[y, y] / (k-1)`` (line 14), and Hedge charges each expert its 0-1 loss (line 15).
    An example of weight ``w`` (:meth:`update`) scales every learner's training weight by ``w``
    (alpha's and Hedge's steps are those of any example); ``w = 0`` changes nothing.

    Args:
        pool: N weak learners over ``n_classes`` labels (:class:`OnlineBooster`).
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (:class:`OnlineBooster`).
        alpha_bound: the feasible set ``[-alpha_bound, alpha_bound]`` of OGD (paper: 2).
        hedge_eta: Hedge's step size (paper: 1).
        compiled: run the per-example loops as numba kernels (same results as the reference);
            over the compiled pool, each step is a single kernel call.
        gradient: ``"paper"`` (eq. 10) or ``"reference"``: the authors' code, whose derivative
            when a learner's label equals y is the complement of eq. (10)'s (see
            :func:`backward_reference`); the paper's Table 1 column fits it.
        first_weight: None (line 14's weight for every learner) or the authors' constant total
            training weight of learner 1 (their code: 5, not scaled by ``c_1``).

    Raises:
        InvalidParameterError: a value outside :attr:`_parameter_constraints` (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "alpha_bound": POSITIVE,
        "hedge_eta": POSITIVE,
        "compiled": BOOLEAN,
        "gradient": PAPER_OR_REFERENCE,
        "first_weight": Interval(0.0, closed_low=True, nullable=True),
    }

    def __init__(
        self,
        pool,
        n_classes,
        rng,
        *,
        alpha_bound: float = 2.0,
        hedge_eta: float = 1.0,
        compiled: bool = True,
        gradient: str = "paper",
        first_weight: float | None = None,
    ):
        super().__init__(pool, n_classes, rng)
        self._validate_params(
            alpha_bound=alpha_bound,
            hedge_eta=hedge_eta,
            compiled=compiled,
            gradient=gradient,
            first_weight=first_weight,
        )
        self.alpha_bound = float(alpha_bound)
        self.hedge_eta = float(hedge_eta)
        self.compiled = bool(compiled)
        self.gradient = gradient
        self.first_weight = first_weight
        n = pool.n_learners
        self.alpha = np.zeros(n)
        self.hedge = hedge.Hedge(n, hedge_eta)
        self.t = 0
        self._state = None
        self._on_growth()

    def _steps(self):
        """(forward, backward): the numba kernels, or their Python references when not compiled.
        Looked up per call, never kept on the instance: a dispatcher holds numba's JIT engine,
        which river's memory walk would count (and trip on its dead weak proxies).
        """
        if self.compiled:
            return adaboost_olm_kernels.forward, adaboost_olm_kernels.backward
        return forward_reference, backward_reference

    def _on_growth(self) -> None:
        # the pool multiplies learner 1's weight by its c_1: the constant is given divided by it
        first = (
            None
            if self.first_weight is None
            else float(self.pool.unscaled(np.full(self.pool.n_learners, float(self.first_weight)))[0])
        )
        self._variant = adaboost_olm_kernels.variant_array(self.gradient == "reference", first)
        # over the compiled pool, each step is one kernel call (same arithmetic, no Python loop)
        self._fused = adaboost_olm_kernels.FusedStep(self.pool) if self.compiled and self.pool.compiled else None

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Distribution of the Hedge-drawn expert's label, ``(k,)``."""
        xp = self.pool.prepare(x)
        u = self.rng.random(2 * self.pool.n_learners)
        if self._fused is not None:
            self._fused.predict(xp, self.alpha, self.hedge.log_v, u)
            f = self._fused.arrays
            self._state = Prediction(xp, f.s_before, f.labels, f.experts, f.p)
        else:
            P = self.pool.predict_proba(xp)
            s_before, labels, experts = self._steps()[0](P, self.alpha, u)
            self._state = Prediction(xp, s_before, labels, experts, self.hedge.probabilities())
        return np.bincount(self._state.experts, weights=self._state.p, minlength=self.n_classes)

    def predict(self, x: np.ndarray) -> int:
        """Algorithm 2 lines 10-11: the label of an expert drawn with probability ∝ its weight."""
        if self._fused is None:
            self.predict_proba(x)
            return int(self._state.experts[self.hedge.draw(self.rng, self._state.p)])
        # the same draws as above: 2N tie-breaking uniforms, then the draw's
        xp = self.pool.prepare(x)
        label = self._fused.predict(xp, self.alpha, self.hedge.log_v, self.rng.random(2 * self.pool.n_learners + 1))
        self._state = Prediction(xp)
        return int(label)

    def test_then_train(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """See :meth:`OnlineBooster.test_then_train`; over the compiled pool, one kernel call
        (:func:`~boostbench.boosters.adaboost_olm_kernels.run_steps`) with the same draws.
        """
        if self._fused is None:
            return super().test_then_train(X, y)
        m = len(X)
        X = np.ascontiguousarray(X, dtype=np.float64)
        U = self.rng.random((m, 2 * self.pool.n_learners + 1))  # predict's draws, example by example
        predicted = np.empty(m, dtype=np.int64)
        self._fused.run(
            X,
            np.ascontiguousarray(y, dtype=np.int64),
            U,
            self.t,
            self.alpha_bound,
            self._variant,
            self.hedge.eta,
            self.alpha,
            self.hedge.log_v,
            predicted,
        )
        self.t += m
        self._state = None
        return predicted

    def update(self, y: int, w: float = 1.0) -> None:
        xp, s_before, labels, experts, _ = self._state  # a Prediction (None: no prediction to update)
        if w == 0.0:
            self._state = None
            return
        self.t += 1
        eta = ogd.olm_step_size(self.t, self.n_classes)
        if self._fused is not None:
            self._fused.update(
                xp, int(y), eta, self.alpha_bound, self._variant, self.hedge.eta, self.alpha, self.hedge.log_v, w
            )
        else:
            self.alpha, weights = self._steps()[1](
                s_before, labels, self.alpha, int(y), eta, self.alpha_bound, self._variant
            )
            self.hedge.update((experts != y).astype(np.float64))
            self.pool.learn(xp, y, weights * w if w != 1.0 else weights)
        self._state = None
