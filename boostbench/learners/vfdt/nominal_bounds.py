"""Guaranteed bounds on a nominal attribute's best split merit (river's ``InfoGainSplitCriterion``
over its nominal splitter's proposals), to skip the exact evaluations that cannot change a split
attempt's decision. Unlike the numeric bounds (:mod:`~.merit_bounds`), these rest on a
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

The bounds cost one ``log2`` per count cell and per value (the multiway split's entropies), where
the exact evaluation also takes every one-vs-rest split's (a ``log2`` per class and value more,
and their sums): most attempts end there, the gap certainly inside the Hoeffding bound.
(Keeping each cell's ``w log2 w`` in the leaf's slot between attempts would save most of those
logarithms, but makes nursery's pool at the paper's settings 62% larger, 378 -> 611 MiB on seed
0, past what ``tests/test_memory_threads.py`` pins under the default budget: the budget's
decisions would then change the trees.)
"""

from __future__ import annotations

import numpy as np

from boostbench.learners.vfdt.layout import TERMS, VALUE_ENTROPY, VALUE_LOG, VALUE_WEIGHT
from boostbench.learners.vfdt.merits import cell_terms, entropy_of_terms, merit_of_branches
from boostbench.system.kernel_cache import kernel

LARGEST_LOG2 = 1075.0  # |log2 w| of any positive float64 (subnormals included) is below this
UNIT_ROUNDOFF = 2.0**-52


@kernel
def _slack(k, n_values):  # pragma: no cover - compiled
    """The rounding allowance of :func:`nominal_merit_bounds`' upper end (module docstring)."""
    return 4.0 * 2.0 * (k + n_values + 8.0) * LARGEST_LOG2 * UNIT_ROUNDOFF


@kernel
def nominal_merit_bounds(table, pre_entropy, work):  # pragma: no cover - compiled
    """An interval ``(low, high)`` holding the best merit river computes for a nominal attribute
    with class weights by value ``table`` (``(values, k)`` float64), given the leaf's class
    entropy ``pre_entropy`` (bits). ``work`` is a thread's scratch (:func:`~.layout.scratch`):
    its TERMS rows receive the cells' ``w log2 w``, its VALUE_ENTROPY, VALUE_WEIGHT and
    VALUE_LOG rows the multiway branches' entropies, weights and log2 weights.

    ``low`` is the multiway split's merit exactly as river computes it (-inf under the 1% rule);
    ``(-inf, -inf)`` when fewer than two values have weight: every proposal's merit is -inf and
    river keeps the multiway split's.
    """
    n_values, k = table.shape
    terms = work[TERMS : TERMS + n_values, :k]
    cell_terms(table, terms)
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
