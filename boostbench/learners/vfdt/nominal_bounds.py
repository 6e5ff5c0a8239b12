"""Guaranteed bounds on a nominal attribute's best split merit (river's ``InfoGainSplitCriterion``
over its nominal splitter's proposals), to skip the exact evaluations that cannot change a split
attempt's decision (issue 37). Unlike the numeric bounds (:mod:`~.merit_bounds`), these rest on a
proof, not on measured interpolation errors.

River's nominal splitter proposes the multiway split (a branch per value) and every one-vs-rest
split, and keeps the multiway one unless a one-vs-rest split's merit beats it. A one-vs-rest
partition merges branches of the multiway one, and entropy is concave (the entropy of a mixture is
at least the mixture of the entropies), so its conditional class entropy is at least the
multiway's: in exact arithmetic its information gain is at most the multiway's. The 1% rule
(:data:`~.merits.MIN_BRANCH_FRACTION`) only turns merits into -inf. So the attribute's best merit,
as river computes it, lies in

    low  = the multiway split's merit, river's own value (the same operations on the same values);
    high = the multiway split's information gain without the 1% rule, plus :func:`_slack`.

:func:`_slack` bounds the rounding of river's and this computation together: an entropy
``(T log2 T - sum w log2 w) / T`` computed in float64 is within ``(n + 4) u L`` of the exact one
(``n`` terms, ``u = 2^-52``, ``L = 1075`` the largest ``|log2 w|`` of a float64), the
one-vs-rest side's summed weights add ``n_values u L``, the weighted mean over the branches keeps
the largest error; the slack is that, for both sides of the comparison, padded fourfold.

An attempt needs every count cell's ``w log2 w``: the slots keep them (``nominal_terms``, NaN
where training changed the count since), so a screen takes one logarithm per cell that changed
(one per attribute per example trained on) and one per value for the branch weights.
"""

from __future__ import annotations

import math

import numpy as np

from boostbench.kernel_cache import kernel
from boostbench.learners.vfdt.layout import VALUE_ENTROPY, VALUE_LOG, VALUE_WEIGHT
from boostbench.learners.vfdt.merits import entropy_of_terms, merit_of_branches

LARGEST_LOG2 = 1075.0  # |log2 w| of any positive float64 (subnormals included) is below this
UNIT_ROUNDOFF = 2.0**-52


@kernel
def refresh_terms(table, terms):  # pragma: no cover - compiled
    """``terms[v, c] = table[v, c] * log2(table[v, c])`` where the count is positive and the kept
    term is stale (NaN); ``table`` and ``terms`` are ``(values, k)`` float64."""
    n_values, k = table.shape
    for v in range(n_values):
        for c in range(k):
            value = table[v, c]
            if value > 0.0 and terms[v, c] != terms[v, c]:
                terms[v, c] = value * math.log2(value)


@kernel
def _slack(k, n_values):  # pragma: no cover - compiled
    """The rounding allowance of :func:`nominal_merit_bounds`' upper end (module docstring)."""
    return 4.0 * 2.0 * (k + n_values + 8.0) * LARGEST_LOG2 * UNIT_ROUNDOFF


@kernel
def nominal_merit_bounds(table, terms, pre_entropy, work):  # pragma: no cover - compiled
    """An interval ``(low, high)`` holding the best merit river computes for a nominal attribute
    with class weights by value ``table`` (``(values, k)`` float64), given the leaf's class
    entropy ``pre_entropy`` (bits). ``terms`` (``(values, k)``) are the kept ``w log2 w`` of the
    cells, refreshed here where stale (:func:`refresh_terms`); the multiway branches' entropies,
    weights and log2 weights are left in ``work``'s VALUE_ENTROPY, VALUE_WEIGHT and VALUE_LOG
    rows (a thread's scratch, :func:`~.layout.scratch`).

    ``low`` is the multiway split's merit exactly as river computes it (-inf under the 1% rule);
    ``(-inf, -inf)`` when fewer than two values have weight: every proposal's merit is -inf and
    river keeps the multiway split's."""
    n_values, k = table.shape
    refresh_terms(table, terms)
    entropies, weights, logs = work[VALUE_ENTROPY, :n_values], work[VALUE_WEIGHT, :n_values], work[VALUE_LOG, :n_values]
    branches = 0
    total = 0.0
    h = 0.0
    for v in range(n_values):
        entropies[v], weights[v], logs[v] = entropy_of_terms(table[v], terms[v])
        if weights[v] > 0.0:
            branches += 1
            total += weights[v]
            h += weights[v] * entropies[v]
    if branches < 2:
        return -np.inf, -np.inf
    return merit_of_branches(pre_entropy, entropies, weights), pre_entropy - h / total + _slack(k, n_values)
