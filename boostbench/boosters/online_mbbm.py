"""OnlineMBBM: Jung, Goetz & Tewari 2017, Algorithm 1 (online multiclass boost-by-majority)."""

from __future__ import annotations

from typing import ClassVar, NamedTuple

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import BOOLEAN, PAPER_OR_REFERENCE, POSITIVE, PROBABILITY, Constraint, OneOf, positive_int
from boostbench.core.monte_carlo_potentials import MonteCarloPotential01
from boostbench.system.lazy import lazy_import

# compiled: loaded with the first booster, not with the class (the config check reads the class)
online_mbbm_kernels = lazy_import("boostbench.boosters.online_mbbm_kernels")
core_potentials = lazy_import("boostbench.core.potentials")
ties = lazy_import("boostbench.core.ties")


class _Prediction(NamedTuple):
    """What ``predict_proba`` leaves for ``update``: the pool's prepared example, each learner's
    training weight for each true label ``(N, k)`` (``update`` takes column y) and the votes
    ``s^N``, ``(k,)``.
    """

    xp: object
    row_weights: np.ndarray
    votes: np.ndarray


# -- the runner's hooks (the booster does no I/O) ------------------------------------------------
def load_caches(k: int, hyperparameters: dict, n_learners: int) -> None:
    """Start from the potentials and cost matrices earlier runs of ``(k, gamma, N)`` kept on disk
    (``hyperparameters``: the constructor's arguments, its defaults filled in).
    """
    gamma = float(hyperparameters["gamma"])
    core_potentials.load_memo(k, gamma, n_learners)
    if hyperparameters["compiled"]:
        online_mbbm_kernels.load_table(k, gamma, n_learners, _extra(hyperparameters["learners_left"]))


def save_caches() -> None:
    """Keep the potentials and cost matrices this process computed for later runs."""
    core_potentials.save_memos()
    online_mbbm_kernels.save_tables()


def _extra(learners_left: str) -> int:
    """Learners counted as left after learner i beyond the paper's ``N - i`` (the authors' code: 1)."""
    return 1 if learners_left == "reference" else 0


def warm_up() -> None:
    """Compile (or load from the kernel cache) the exact potentials."""
    core_potentials.potential_01_exact(1, np.zeros(1, dtype=np.int64), core_potentials.potential_tables(2, 0.1, 1))


class OnlineMBBM(OnlineBooster):
    """OnlineMBBM (Algorithm 1) under the 0-1 loss (eq. 2), with exact potentials (eq. 3).

    For learner i (1-based) with ``n = N - i`` learners after it: the normalised cost matrix
    ``D^i`` of eq. (5) from ``phi^r_n(s^{i-1} + e_l)`` (eq. 4); the learner's label is the argmin
    of its expected cost ``p_i^T D^i`` (ties broken by a uniform drawn per learner); simple majority
    ``s^i = s^{i-1} + e_{l_i}``. The final
    label is ``argmax s^N`` (the last expert). After ``y``: learner i trains with weight
    ``weight_factor * w_i[t] / (k-1)``, ``w_i[t] = sum_l phi^y_n(s^{i-1}+e_l) - phi^y_n(s^{i-1}+e_y)``,
    times the example's weight ``w`` (:meth:`update`; ``w = 0`` changes nothing).
    Two choices of the authors' code are variants: ``learners_left`` and ``cost_argmin``.

    Args:
        pool: N weak learners over ``n_classes`` labels (:class:`OnlineBooster`).
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's generator (:class:`OnlineBooster`).
        gamma: the edge in (0, 1) of the baseline ``u^r_gamma``.
        weight_factor: scale of the training weight (the reference code uses 0.1).
        compiled: run the pass over the learners as a numba kernel
            (:mod:`boostbench.boosters.online_mbbm_kernels`; same results as the Python pass).
        learners_left: ``"paper"``: ``n = N - i`` learners after learner i; ``"reference"``: the
            authors' ``N - i + 1``.
        cost_argmin: ``"normalized"``: the label minimises ``p_i^T D^i`` (the paper's eq. 5);
            ``"raw"``: ``p_i^T C^i`` with the unnormalised ``C^i[r, l] = phi^r_n(s + e_l)``, as the
            authors' code.
        potentials: ``"exact"`` or ``"monte_carlo"``: estimates from ``mc_draws`` multinomial
            draws each, as the authors' code
            (:class:`~boostbench.core.monte_carlo_potentials.MonteCarloPotential01`; the Python
            pass, with a generator split off ``rng``).
        mc_draws: M, draws per Monte Carlo estimate (the authors' 100).

    Raises:
        InvalidParameterError: a value outside :attr:`_parameter_constraints` (a ValueError).
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "gamma": PROBABILITY,
        "weight_factor": POSITIVE,
        "compiled": BOOLEAN,
        "learners_left": PAPER_OR_REFERENCE,
        "cost_argmin": OneOf(("normalized", "raw")),
        "potentials": OneOf(("exact", "monte_carlo")),
        "mc_draws": positive_int(),
    }

    def __init__(
        self,
        pool,
        n_classes,
        rng,
        *,
        gamma: float = 0.1,
        weight_factor: float = 0.1,
        compiled: bool = True,
        learners_left: str = "paper",
        cost_argmin: str = "normalized",
        potentials: str = "exact",
        mc_draws: int = 100,
    ):
        super().__init__(pool, n_classes, rng)
        self._validate_params(
            gamma=gamma,
            weight_factor=weight_factor,
            compiled=compiled,
            learners_left=learners_left,
            cost_argmin=cost_argmin,
            potentials=potentials,
            mc_draws=mc_draws,
        )
        self.potentials, self.mc_draws = potentials, int(mc_draws)
        # the estimates' own stream (drawn once here: the exact runs' draws are unchanged)
        self._mc_rng = np.random.default_rng(rng.integers(2**63)) if potentials == "monte_carlo" else None
        self.gamma = float(gamma)
        self.weight_factor = float(weight_factor)
        self.compiled = bool(compiled)
        self.learners_left = learners_left
        self.cost_argmin = cost_argmin
        self._extra = _extra(learners_left)
        self._on_growth()
        self._state: _Prediction | None = None

    def _on_growth(self) -> None:
        n = self.pool.n_learners
        self.table = None
        if self._mc_rng is not None:
            self.potential = MonteCarloPotential01(self.n_classes, self.gamma, self.mc_draws, self._mc_rng)
            return
        self.potential = core_potentials.Potential01(self.n_classes, self.gamma, max_n=n)
        if self.compiled and self.potential.memo is not None:
            try:
                self.table = online_mbbm_kernels.shared_table(self.n_classes, self.gamma, n, self._extra)
            except ValueError:  # too many labels for the kernel's keys: the Python pass
                self.table = None

    def __getstate__(self) -> dict:
        # the shared cost-matrix table (numba dict) does not pickle; it is re-attached on load
        return {**self.__dict__, "table": self.table is not None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.table = (
            online_mbbm_kernels.shared_table(self.n_classes, self.gamma, self.pool.n_learners, self._extra)
            if state["table"]
            else None
        )

    def _pass_reference(self, P: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n, k = P.shape
        s = np.zeros(k, dtype=np.int64)
        row_weights = np.empty((n, k))
        for i in range(n):
            began = self._clock()
            D, w = self.potential.cost_matrix(n - 1 - i + self._extra, s)
            if self.potential.last_was_built:
                self._add_cache_fill(began)
            row_weights[i] = w
            p = P[i] * w if self.cost_argmin == "raw" else P[i]  # C = diag(w) D + a constant per row
            s[ties.argmin_tie_u(p @ D, u[i])] += 1
        return s, row_weights

    def _pass_compiled(self, P: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n, k = P.shape
        table = self.table
        s = np.zeros(k, dtype=np.int64)
        row_weights = np.empty((n, k))
        potential = self.potential
        i = 0
        while True:
            i = online_mbbm_kernels.forward(
                P,
                u,
                s,
                i,
                table.index,
                table.D,
                table.w,
                table.base,
                table.per_word,
                self.cost_argmin == "raw",
                row_weights,
            )
            if i == n:
                return s, row_weights
            began = self._clock()  # a matrix no run has built yet: the caches' fill
            votes = np.sort(s)  # the table holds sorted votes (see online_mbbm_kernels.forward)
            table.add(
                votes,
                *core_potentials.cost_matrix_compiled(
                    n - 1 - i + self._extra,
                    votes,
                    potential.memo,
                    potential.memo_base,
                    potential.memo_per_word,
                    potential.tables,
                ),
            )
            self._add_cache_fill(began)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Normalised majority votes ``s^N / N``, ``(k,)``."""
        n = self.pool.n_learners
        xp = self.pool.prepare(x)
        P = self.pool.predict_proba(xp)
        u = self.rng.random(n)
        s, row_weights = (self._pass_reference if self.table is None else self._pass_compiled)(P, u)
        self._state = _Prediction(xp, row_weights, s)
        return s / n

    def predict(self, x: np.ndarray) -> int:
        self.predict_proba(x)
        return ties.argmax_random_tie(self._state.votes.astype(np.float64), self.rng)

    def update(self, y: int, w: float = 1.0) -> None:
        state, self._state = self._state, None
        xp, row_weights = state.xp, state.row_weights
        if w == 0.0:
            return
        weights = (w * self.weight_factor) * row_weights[:, y] / (self.n_classes - 1)
        self.pool.learn(xp, y, weights)
