"""The online boosters' hyper-parameter constraints, importable without numba.

Each dict here is one booster class's ``_parameter_constraints`` (the class owns it: its
constructor takes these keys, with its defaults, and checks them through
:meth:`~boostbench.boosters.base._BoosterCore._validate_params`). They are declared in this light
module because a booster's own module loads the numba kernels: the config check
(:func:`boostbench.runner.config.validate`) reads them through the registry entry's ``constraints``
before any kernel is imported, so a bad value is reported at once.
"""

from __future__ import annotations

from boostbench.constraints import BOOLEAN, POSITIVE, PROBABILITY, Constraint, Interval, OneOf, positive_int

# the fidelity variants (README, "Deviations"): the paper's text or the authors' code
PAPER_OR_REFERENCE = OneOf(("paper", "reference"))
#: member i trains with weight c_i (its importance-weight constant) or 1
TREE_WEIGHT = OneOf(("c_i", "one"))
WEAK_PREDICTION = OneOf(("distribution", "label"))
#: Oza's vote rules: ``hard`` (each member's label), ``soft`` (each member's distribution), ``moa``
#: (MOA's OzaBoost: distributions, and no member votes after the first without a positive weight)
VOTE = OneOf(("hard", "soft", "moa"))
_OLM = {"alpha_bound": POSITIVE, "hedge_eta": POSITIVE}

ADABOOST_OLM: dict[str, Constraint] = {
    **_OLM,
    "compiled": BOOLEAN,
    "gradient": PAPER_OR_REFERENCE,
    "first_weight": Interval(0.0, closed_low=True, nullable=True),
}
ONLINE_MBBM: dict[str, Constraint] = {
    "gamma": PROBABILITY,
    "weight_factor": POSITIVE,
    "compiled": BOOLEAN,
    "learners_left": PAPER_OR_REFERENCE,
    "cost_argmin": OneOf(("normalized", "raw")),
    "potentials": OneOf(("exact", "monte_carlo")),
    "mc_draws": positive_int(),
}
ONLINE_BOOSTING: dict[str, Constraint] = {
    "eps_floor": Interval(0.0, 0.5),
    "compiled": BOOLEAN,
    "vote": VOTE,
    "tree_weight": TREE_WEIGHT,
    "presentations": OneOf(("poisson", "expected")),
}
VFDT: dict[str, Constraint] = {}
BEST_VFDT: dict[str, Constraint] = {"tree_weight": TREE_WEIGHT}
HEDGE: dict[str, Constraint] = {"beta": PROBABILITY}
ONLINE_BAGGING: dict[str, Constraint] = {}
ADA_OLMR: dict[str, Constraint] = {**_OLM, "weak_prediction": WEAK_PREDICTION, "compiled": BOOLEAN}
ONLINE_BMR: dict[str, Constraint] = {
    "gamma": PROBABILITY,
    "weak_prediction": WEAK_PREDICTION,
    "potential_loss": OneOf((None, "hinge", "rank")),
    "hinge_margin": Interval(0.0, closed_low=True),
}
