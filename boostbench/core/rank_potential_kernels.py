"""Compiled twin of :meth:`boostbench.core.rank_potentials.PairPotential.cost_matrix_reference` for
the hinge loss (Jung & Tewari 2018, eqs. 1-2): the same arithmetic in the same order, and numpy's
sums (pairwise along a contiguous row, in order down a column), so the cost vectors equal the
numpy reference to the bit (the tests compare them). numpy's fancy indexing into the tail tables
was most of an OnlineBMR example's time: about 130,000 lookups per example on mediamill (N = 100,
101 labels).
"""

from __future__ import annotations

import math

from boostbench.core.summation import numpy_sum
from boostbench.system.kernel_cache import inlined_kernel, kernel


@inlined_kernel
def _hinge_term(row, d, margin, top, tail_p, tail_v):  # pragma: no cover - compiled
    """``g_n(d) = E (margin + d + D_n)_+`` from the tail tables' row ``row`` (``n``), as
    ``PairPotential.pair_terms`` computes it for one margin ``d``.
    """
    first = math.floor(-margin - d) + 1 + top  # an int64 in numba, as numpy's astype
    first = min(max(first, 0), 2 * top + 1)
    return (margin + d) * tail_p[row, first] + tail_v[row, first]


@kernel
def hinge_cost_matrix(rows, S, rel, irr, margin, top, tail_p, tail_v, scale, pairs, out):  # pragma: no cover
    """Cost vectors (eq. 2) ``out[i, l] = phi^{rows[i]}(S[i] + e_l)`` for the hinge loss.

    Args:
        rows: ``(N,)`` int64, the votes still to come after each expert (tail-table rows).
        S: ``(N, k)`` float64, the experts' cumulative votes.
        rel, irr: int64, the relevant labels ``(m,)`` and the irrelevant ones ``(k - m,)``, each
            ascending (numpy's boolean-mask order).
        margin: the hinge's margin ``m`` in ``(m + z)_+``.
        top, tail_p, tail_v: ``PairPotential._table``'s ``n_max`` and tail sums
            (``(n_max + 1, 2 n_max + 2)`` float64).
        scale: ``1 / (m (k - m))``.
        pairs: ``(m (k - m) + k,)`` float64 scratch.
        out: ``(N, k)`` float64, written.

    Raises nothing and checks nothing: the shapes, ``rows <= n_max`` and ``0 < m < k`` are the
    caller's (:meth:`~boostbench.core.rank_potentials.PairPotential.cost_matrix`).
    """
    m, n_irr = rel.shape[0], irr.shape[0]
    terms = pairs[: m * n_irr]  # one expert's g(d) in numpy's (relevant, irrelevant) C order
    shifted = pairs[m * n_irr :]
    for i in range(S.shape[0]):
        row = rows[i]
        for a in range(m):
            for b in range(n_irr):
                terms[a * n_irr + b] = _hinge_term(row, S[i, irr[b]] - S[i, rel[a]], margin, top, tail_p, tail_v)
        base = numpy_sum(terms)
        # a vote for relevant l lowers its margins by 1: its row's sums (numpy's, pairwise)
        for a in range(m):
            for b in range(n_irr):
                shifted[b] = _hinge_term(row, (S[i, irr[b]] - S[i, rel[a]]) - 1.0, margin, top, tail_p, tail_v)
            lowered = numpy_sum(shifted[:n_irr])
            out[i, rel[a]] = scale * ((base - numpy_sum(terms[a * n_irr : (a + 1) * n_irr])) + lowered)
        # a vote for irrelevant r raises them by 1: its column's sums, in order (numpy sums a
        # middle axis row by row), or pairwise when the column is the whole array (one irrelevant)
        for b in range(n_irr):
            for a in range(m):
                shifted[a] = _hinge_term(row, (S[i, irr[b]] - S[i, rel[a]]) + 1.0, margin, top, tail_p, tail_v)
            if n_irr == 1:
                column, raised = numpy_sum(terms), numpy_sum(shifted[:m])
            else:
                column, raised = terms[b], shifted[0]
                for a in range(1, m):
                    column += terms[a * n_irr + b]
                    raised += shifted[a]
            out[i, irr[b]] = scale * ((base - column) + raised)
