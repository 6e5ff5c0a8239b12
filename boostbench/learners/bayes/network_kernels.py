"""Compiled twins of one example's steps in :class:`~.network.BayesNetModel` and
:class:`~.discretize.Discretizer`, the online learners' per-example work, where numpy's fixed
cost per call is nearly all of it (Sun's streams: 80,000 examples, N members each).

The numpy methods are the reference (the tests compare the two to the bit) and serve batches.
The logarithms and exponentials stay numpy's (its SIMD functions are not libm's to the last
bit): a prediction is :func:`log_arguments`, one ``np.log``, :func:`log_joint_rows`, one
``np.exp`` (for a pool's N members at once: N calls of the first, one of each other). The sums
over attributes are numpy's pairwise sums (:func:`~boostbench.core.summation.numpy_sum`).
"""

from __future__ import annotations

from boostbench.core.summation import numpy_sum
from boostbench.system.kernel_cache import kernel


@kernel
def transform_row(x, binned, cut_matrix, nominal, cards, missing_code, codes):  # pragma: no cover - compiled
    """:meth:`~.discretize.Discretizer.transform` of one row ``x`` (``(d,)`` float64) into ``codes``
    (``(d,)`` int64): a binned attribute's code is the number of its cut points ``<= x`` (its row of
    ``cut_matrix``, padded with +inf), a nominal one's its value; a missing value of a discrete
    attribute gets ``card - 1`` (``missing_code`` True) or -1; numeric attributes -1.
    """
    codes[:] = -1
    for r in range(binned.shape[0]):
        j = binned[r]
        count = 0
        for c in range(cut_matrix.shape[1]):
            if x[j] >= cut_matrix[r, c]:
                count += 1
        codes[j] = count
    for r in range(nominal.shape[0]):
        j = nominal[r]
        codes[j] = -1 if x[j] != x[j] else int(x[j])
    for j in range(x.shape[0]):
        if x[j] != x[j] and cards[j] > 0:
            codes[j] = cards[j] - 1 if missing_code else -1


@kernel
def _cell(codes, i, parent_matrix, strides, cards):  # pragma: no cover - compiled
    """Attribute ``i``'s parents' mixed-radix configuration and whether its family counts this
    row (its value and its parents' present), as ``BayesNetModel._cells`` finds them.
    """
    pa = 0
    used = codes[i] >= 0
    for p in range(parent_matrix.shape[1]):
        value = codes[parent_matrix[i, p]]
        pa += value * strides[i, p]
        if value < 0 and strides[i, p] > 0:
            used = False
    return pa, used


@kernel
def add_row(codes, y, weight, model, counts, totals, marginal, marginal_totals, class_weight):  # pragma: no cover
    """:meth:`~.network.BayesNetModel.add` of one example's discrete attributes (``codes``
    ``(d,)`` int64, label ``y``, ``weight``): its family cells, the marginals when ``marginal`` is
    kept (non-empty), and the class weight. ``model``: the model's index arrays
    (:meth:`~.network.BayesNetModel._index_arrays`).
    """
    attrs, parent_matrix, strides, cards, n_pa, offset, total_offset, marginal_offset = model
    keeps_marginal = marginal.shape[0] > 0
    for a in range(attrs.shape[0]):
        i = attrs[a]
        pa, used = _cell(codes, i, parent_matrix, strides, cards)
        if not used:
            continue
        counts[offset[i] + pa * cards[i] + codes[i] + y * n_pa[i] * cards[i]] += weight
        totals[total_offset[i] + pa + y * n_pa[i]] += weight
        if keeps_marginal:
            marginal[marginal_offset[i] + y * cards[i] + codes[i]] += weight
            marginal_totals[y, i] += weight
    class_weight[y] += weight


@kernel
def log_arguments(codes, alpha, model, counts, totals, class_weight, args, used):  # pragma: no cover - compiled
    """What ``BayesNetModel.log_joint`` takes logarithms of for one row (Laplace smoothing), into
    ``args`` (``(2 k A + k + 1,)`` float64, A the discrete attributes): ``N(c, pa, x_i) + alpha``
    (``[c A + a]``), ``N(c, pa) + alpha card_i`` (``[k A + c A + a]``), the prior's
    ``N(c) + alpha`` (``[2 k A + c]``) and ``sum_c N(c) + k alpha`` (last); ``used`` (``(A,)``
    bool) receives whether each family counts the row (else its cells are read at 0, unused).
    """
    attrs, parent_matrix, strides, cards, n_pa, offset, total_offset, _ = model
    k, n_attrs = class_weight.shape[0], attrs.shape[0]
    for a in range(n_attrs):
        i = attrs[a]
        pa, ok = _cell(codes, i, parent_matrix, strides, cards)
        used[a] = ok
        cell = offset[i] + pa * cards[i] + codes[i] if ok else 0
        total = total_offset[i] + pa if ok else 0
        smoothing = alpha * cards[i]
        for c in range(k):
            args[c * n_attrs + a] = counts[cell + c * n_pa[i] * cards[i]] + alpha
            args[(k + c) * n_attrs + a] = totals[total + c * n_pa[i]] + smoothing
    prior = 2 * k * n_attrs
    for c in range(k):
        args[prior + c] = class_weight[c] + alpha
    args[prior + k] = numpy_sum(class_weight) + k * alpha


@kernel
def log_joint_rows(logs, used, terms, out):  # pragma: no cover - compiled
    """``BayesNetModel.log_joint`` of rows whose :func:`log_arguments` have logarithms ``logs``
    (``(m, 2 k A + k + 1)``; ``used`` ``(m, A)``): ``out[r, c] = log P(c) + sum_i log P(x_i | pa_i, c)``
    (``(m, k)``), the unused families' terms 0 and the sum numpy's pairwise one (``terms`` ``(A,)``
    scratch).
    """
    k, n_attrs = out.shape[1], used.shape[1]
    prior = 2 * k * n_attrs
    for r in range(out.shape[0]):
        for c in range(k):
            out[r, c] = logs[r, prior + c] - logs[r, prior + k]
            if n_attrs == 0:
                continue
            for a in range(n_attrs):
                terms[a] = logs[r, c * n_attrs + a] - logs[r, (k + c) * n_attrs + a] if used[r, a] else 0.0
            out[r, c] += numpy_sum(terms)
