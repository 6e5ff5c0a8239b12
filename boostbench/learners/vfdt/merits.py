"""Split merits as river's ``InfoGainSplitCriterion`` computes them: entropies in bits, the
information gain of a split's branches, and each attribute's best split.

Each attribute proposes its best split by information gain (nominal: the multiway split and
every one-vs-rest binary split; numeric: ``N_SPLIT_POINTS`` evenly spaced thresholds between the
observed min and max, class weights on each side from the Gaussian CDFs); a split needs two
branches with more than 1% of the weight, else its merit is -inf.

Bit for bit: split merits tie often (a multiway split with two values seen and its binary
split; equal counts), and which one wins then depends on rounding. So every sum is taken in the
order river's dicts would give: attributes, classes and nominal values in the order a leaf's
splitters first saw them (:func:`~.layout.first_seen`), a leaf's classes in the order it first
held them (a class can be held with weight 0 after a numeric split, and counts in the Hoeffding
bound's range), children by age. With that, the compiled trees predict exactly what river's trees
predict (tested on every vendored data set, with unit and random weights). This holds for Python
<= 3.11, whose ``sum`` adds floats one by one (3.12 compensates: there the trees agree to
rounding, not to the bit).
"""

from __future__ import annotations

import math

import numpy as np

from boostbench.learners.vfdt.layout import (
    CLASSES,
    MULTIWAY,
    N_SPLIT_POINTS,
    NOMINAL_BINARY,
    NUMERIC,
    PAIR_ENTROPY,
    PAIR_WEIGHT,
    REST,
    TERMS,
    VALUE_COUNTS,
    VALUE_ENTROPY,
    VALUE_LOG,
    VALUE_ORDERS,
    VALUE_WEIGHT,
    in_rank_order,
)
from boostbench.system.kernel_cache import kernel

MIN_BRANCH_FRACTION = 0.01  # a split needs two branches with more than this share of the weight


@kernel
def merit_of_branches(pre_entropy, entropies, weights):  # pragma: no cover - compiled
    """Information gain of a split whose branches have these entropies and weights; -inf if
    fewer than two branches hold more than 1% of the weight. Zero-weight branches count for
    nothing, so every value of a nominal attribute can be passed.
    """
    total = 0.0
    for b in range(weights.shape[0]):
        total += weights[b]
    if total <= 0.0:
        return -np.inf
    big = 0
    h = 0.0
    for b in range(weights.shape[0]):
        if weights[b] / total > MIN_BRANCH_FRACTION:
            big += 1
        h += weights[b] * entropies[b]
    if big < 2:
        return -np.inf
    return pre_entropy - h / total


@kernel
def sigma_of(stats, half):  # pragma: no cover - compiled
    """Standard deviation of a Gaussian estimator ``[weight, mean, S, min, max]`` (variance
    ddof 1), 0 when the variance is 0, in river's steps.

    ``half`` is 0.5, passed at run time: river takes ``var ** 0.5`` with C's ``pow``, which is
    not ``sqrt`` to the last bit, and a literal 0.5 lets the compiler turn it into ``sqrt``.
    """
    n, s = stats[0], stats[2]
    var = s / (n - 1.0) if n > 1.0 else 0.0
    return var**half if var > 0.0 else 0.0


@kernel
def gaussian_cdf(stats, sigma, value):  # pragma: no cover - compiled
    """CDF at ``value`` of a Gaussian estimator with standard deviation ``sigma`` (:func:`sigma_of`),
    as river computes it (split merits tie often; the same rounding breaks ties alike). A zero
    deviation gives river a step (0 or 1), or NaN exactly at the mean (0 / 0).
    """
    mean = stats[1]
    if sigma <= 0.0:
        if value == mean:
            return np.nan
        return 1.0 if value > mean else 0.0
    return 0.5 * (1.0 + math.erf((value - mean) / sigma / math.sqrt(2.0)))


@kernel
def _left_weight(st, sigma, point):  # pragma: no cover - compiled
    """A class's weight left of a threshold (``x <= point``; the right gets ``weight - left``):
    all of it from its maximum on, none below its minimum, else the Gaussian CDF's share.
    ``st`` is the class's ``[weight, mean, S, min, max]``, ``sigma`` its deviation (:func:`sigma_of`).
    """
    if point < st[3]:
        return 0.0
    if point >= st[4]:
        return st[0]
    return gaussian_cdf(st, sigma, point) * st[0]


@kernel
def numeric_split(stats, sigmas, point, post):  # pragma: no cover - compiled
    """Class weights left (``x <= point``) and right of a threshold, from per-class Gaussians.

    ``stats`` is ``(k, 5)`` ``[weight, mean, S, min, max]``, ``sigmas`` ``(k,)`` their deviations
    (:func:`sigma_of`); ``post`` ``(2, k)`` is overwritten.
    """
    post[:] = 0.0
    for c in range(stats.shape[0]):
        st = stats[c]
        if st[0] > 0.0:
            post[0, c] = _left_weight(st, sigmas[c], point)
            post[1, c] = st[0] - post[0, c]


@kernel
def entropy_in_order(dist, order, n):  # pragma: no cover - compiled
    """Entropy in bits of class weights ``dist`` (``(k,)``) and their total, summed over the
    classes ``order[:n]`` (a river dict's order; zero weights skipped), as river's
    ``InfoGainSplitCriterion`` computes it. Returns ``(entropy, total)``, ``(0, 0)`` if empty.
    """
    total = 0.0
    h = 0.0
    for i in range(n):
        value = dist[order[i]]
        if value > 0.0:
            h -= value * math.log2(value)
            total += value
    return _entropy_of_sums(h, total)


@kernel
def _entropy_of_sums(h, total):  # pragma: no cover - compiled
    """``(entropy, total)`` from ``h = -sum w log2 w`` and ``total = sum w``; ``(0, 0)`` if empty."""
    if total <= 0.0:
        return 0.0, 0.0
    return (h + total * math.log2(total)) / total, total


@kernel
def _threshold_merit(
    stats, sigmas, whole_terms, point, classes, n_classes, pre_entropy, pair_entropy, pair_weight
):  # pragma: no cover
    """Merit of the numeric split at ``point``: :func:`numeric_split` and both sides'
    :func:`entropy_in_order` in one pass over the splitter's classes ``classes[:n_classes]``
    (the same operations on the same values, each side summed in the same order). A class wholly
    on one side brings its ``w log2 w`` from ``whole_terms`` (``(k,)``), the same for every point.
    ``pair_entropy`` and ``pair_weight`` (``(2,)``) are overwritten.
    """
    h_left, total_left, h_right, total_right = 0.0, 0.0, 0.0, 0.0
    for i in range(n_classes):
        c = classes[i]
        st = stats[c]
        weight = st[0]
        if weight <= 0.0:
            continue
        left = _left_weight(st, sigmas[c], point)
        if left == 0.0:
            h_right -= whole_terms[c]
            total_right += weight
        elif left == weight:
            h_left -= whole_terms[c]
            total_left += weight
        else:  # NaN (a zero deviation at the mean) goes to neither side, as in river's sums
            right = weight - left
            if left > 0.0:
                h_left -= left * math.log2(left)
                total_left += left
            if right > 0.0:
                h_right -= right * math.log2(right)
                total_right += right
    pair_entropy[0], pair_weight[0] = _entropy_of_sums(h_left, total_left)
    pair_entropy[1], pair_weight[1] = _entropy_of_sums(h_right, total_right)
    return merit_of_branches(pre_entropy, pair_entropy, pair_weight)


@kernel
def cell_terms(table, terms):  # pragma: no cover - compiled
    """``terms[v, c] = w log2 w`` of each positive class weight ``w = table[v, c]`` (both
    ``(values, k)``; the other entries are left as they are).
    """
    for v in range(table.shape[0]):
        for c in range(table.shape[1]):
            if table[v, c] > 0.0:
                terms[v, c] = table[v, c] * math.log2(table[v, c])


@kernel
def entropy_of_terms(dist, terms):  # pragma: no cover - compiled
    """:func:`entropy_in_order` over the classes in index order, with each class's term
    ``w log2 w`` taken from ``terms`` (``(k,)``): the same operations on the same values as
    computing them. Returns ``(entropy, total, log2(total))``.
    """
    total = 0.0
    h = 0.0
    for c in range(dist.shape[0]):
        if dist[c] > 0.0:
            h -= terms[c]
            total += dist[c]
    if total <= 0.0:
        return 0.0, 0.0, 0.0
    log_total = math.log2(total)
    return (h + total * log_total) / total, total, log_total


@kernel
def _entropy_from_terms(dist, order, n, terms, known_total, known_log):  # pragma: no cover - compiled
    """:func:`entropy_in_order` of ``dist`` in the class order ``order[:n]``, taking the terms
    ``w log2 w`` from ``terms`` and ``log2(total)`` from ``known_log`` when the total sums to
    ``known_total``: the same operations on the same values, without the logarithms.
    Returns ``(entropy, total)``.
    """
    total = 0.0
    h = 0.0
    for i in range(n):
        c = order[i]
        if dist[c] > 0.0:
            h -= terms[c]
            total += dist[c]
    if total <= 0.0:
        return 0.0, 0.0
    log_total = known_log if total == known_total else math.log2(total)
    return (h + total * log_total) / total, total


@kernel
def value_orders(value_ranks, classes, n_classes, orders, counts):  # pragma: no cover - compiled
    """For each class ``classes[:n_classes]`` of a nominal attribute, its values in the order they
    were first seen (``orders[c]``) and their number (``counts[c]``).
    """
    for i in range(n_classes):
        c = classes[i]
        counts[c] = in_rank_order(value_ranks[c], orders[c])


@kernel
def rest_of(table, v, classes, n_classes, orders, counts, out):  # pragma: no cover - compiled
    """Class weights of every value but ``v`` (``out``, ``(k,)``), each class summed over its
    values in the order they were first seen (:func:`value_orders`), as river's nominal
    splitter sums them.
    """
    out[:] = 0.0
    for i in range(n_classes):
        c = classes[i]
        for r in range(counts[c]):
            u = orders[c, r]
            if u != v:
                out[c] += table[u, c]


@kernel
def nominal_best(table, class_ranks, class_value_ranks, pre_entropy, work, iwork):  # pragma: no cover - compiled
    """A nominal attribute's best split exactly, as river finds it: ``(merit, kind, value)``, the
    multiway split (``(merit, MULTIWAY, 0)``, proposed even at -inf merit) unless a one-vs-rest
    split on a value beats it (``(merit, NOMINAL_BINARY, value)``).

    ``table`` is the attribute's class weights by value ``(values, k)`` (unseen values are zero
    rows), ``class_ranks`` its classes' first-seen ranks, ``class_value_ranks`` ``(k, values + 1)``
    each class's values' ranks; ``work``/``iwork`` a thread's scratch (:func:`~.layout.scratch`).
    """
    n_values, k = table.shape
    terms = work[TERMS : TERMS + n_values, :k]  # each value's w log2 w by class
    cell_terms(table, terms)
    classes = iwork[CLASSES, :k]
    n_classes = in_rank_order(class_ranks, classes)  # the splitter's class order
    entropies, weights, logs = work[VALUE_ENTROPY, :n_values], work[VALUE_WEIGHT, :n_values], work[VALUE_LOG, :n_values]
    pair_entropy, pair_weight = work[PAIR_ENTROPY, :2], work[PAIR_WEIGHT, :2]
    # the multiway split: branches by value, classes in index order
    for v in range(n_values):
        entropies[v], weights[v], logs[v] = entropy_of_terms(table[v], terms[v])
    best, kind, value = merit_of_branches(pre_entropy, entropies, weights), MULTIWAY, 0.0
    # one-vs-rest splits: the value's side has the multiway branch's terms, in the splitter's
    # class order
    counts, orders = iwork[VALUE_COUNTS, :k], iwork[VALUE_ORDERS : VALUE_ORDERS + k, :n_values]
    value_orders(class_value_ranks, classes, n_classes, orders, counts)
    rest = work[REST, :k]
    for v in range(n_values):
        if weights[v] > 0.0:
            rest_of(table, v, classes, n_classes, orders, counts, rest)
            pair_entropy[0], pair_weight[0] = _entropy_from_terms(
                table[v], classes, n_classes, terms[v], weights[v], logs[v]
            )
            pair_entropy[1], pair_weight[1] = entropy_in_order(rest, classes, n_classes)
            m = merit_of_branches(pre_entropy, pair_entropy, pair_weight)
            if m > best:
                best, kind, value = m, NOMINAL_BINARY, float(v)
    return best, kind, value


@kernel
def thresholds(stats, points):  # pragma: no cover - compiled
    """A numeric attribute's candidate thresholds (river's: ``N_SPLIT_POINTS`` evenly spaced
    between the smallest minimum and largest maximum of its classes, ``stats`` ``(k, 5)``) that lie
    strictly inside that range, in ascending order into ``points``; returns their number and the
    range.
    """
    lo, hi = np.inf, -np.inf
    for c in range(stats.shape[0]):
        st = stats[c]
        if st[0] > 0.0:
            lo = min(lo, st[3])
            hi = max(hi, st[4])
    return thresholds_in(lo, hi, points), lo, hi


@kernel
def thresholds_in(lo, hi, points):  # pragma: no cover - compiled
    """:func:`thresholds` of the range ``(lo, hi)`` into ``points``; their number."""
    step = (hi - lo) / (N_SPLIT_POINTS + 1.0)
    n = 0
    for i in range(N_SPLIT_POINTS):
        point = lo + step * (i + 1)
        if lo < point < hi:
            points[n] = point
            n += 1
    return n


@kernel
def numeric_best(
    stats, points, n_points, classes, n_classes, pre_entropy, pair_entropy, pair_weight, sigmas, whole_terms, half
):  # pragma: no cover
    """A numeric attribute's best split exactly, as river finds it: ``(merit, NUMERIC, threshold)``
    over ``points[:n_points]`` (:func:`thresholds`), the first of equal merits; ``(-inf, -1, 0)``
    when none is finite. ``classes[:n_classes]``: the splitter's class order; ``sigmas`` and
    ``whole_terms`` (``(k,)``) are overwritten; ``half`` is 0.5 (:func:`sigma_of`).
    """
    feature_best, feature_kind, feature_value = -np.inf, -1, 0.0
    for c in range(stats.shape[0]):  # once per attribute, not per threshold
        st = stats[c]
        if st[0] > 0.0:
            sigmas[c] = sigma_of(st, half)
            whole_terms[c] = st[0] * math.log2(st[0])
    for i in range(n_points):
        m = _threshold_merit(
            stats, sigmas, whole_terms, points[i], classes, n_classes, pre_entropy, pair_entropy, pair_weight
        )
        if m > feature_best:
            feature_best, feature_kind, feature_value = m, NUMERIC, points[i]
    return feature_best, feature_kind, feature_value
