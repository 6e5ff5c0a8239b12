"""Naive-Bayes leaves: river's ``leaf_prediction='nb'`` and ``'nba'``, to the last bit.

A leaf predicts by naive Bayes over its attribute statistics as river's
``tree.utils.do_naive_bayes_prediction`` does: for each class it holds with weight > 0, the log
prior ``log(w_c / W)`` plus, for each attribute its splitters hold and ``x`` has, the log
likelihood of ``x``'s value: a numeric attribute's Gaussian ``log_pdf`` (skipped while the
class's estimator holds weight <= 1 or no variance), a nominal attribute's ``log(n_cv / n_c)``,
or 0 when the class never had the value. (River counts that zero probability as 1: a class that
never had the value gains on those that had it, which on nominal data can favour rare classes.)
A class held with weight 0 votes 0. The votes are normalised by log-sum-exp. River's nominal
splitter also files a class under the attribute when naive Bayes asks for its probability (a
``defaultdict``), and that order is its one-vs-rest splits' class order: kept too
(:func:`~.layout.first_seen` on the attribute's class ranks).

- ``'nb'`` (NB): an active leaf with at least ``nb_threshold`` weight predicts by naive Bayes;
- ``'nba'`` (NBA, river's and MOA's default): before learning each example, an active leaf adds
  its weight to MC_CORRECT if its majority class is the label (or it holds no class yet), and to
  NB_CORRECT if its naive Bayes' most probable class is (ties: the class first held, as
  river's ``max`` over a dict); it predicts by naive Bayes while NB_CORRECT >= MC_CORRECT.

Other leaves, and inactive ones (the memory budget's), predict their normalised class weights.
Sums run in river's dict orders (classes as the leaf first held them, attributes and values as
its splitters first saw them), as Python <= 3.11's ``sum`` adds.
"""

from __future__ import annotations

import math

import numpy as np

from boostbench.learners.vfdt.layout import (
    ATTRIBUTES,
    HISTORY,
    LEAF_KIND,
    MC,
    MC_CORRECT,
    MISSING,
    MOA_NB,
    NB,
    NB_CORRECT,
    NB_RULE,
    NB_THRESHOLD,
    NO_CHOICE,
    SETTINGS,
    TWO,
    VALUE_ORDERS,
    VOTES,
    first_seen,
    in_rank_order,
    node_weight,
)
from boostbench.learners.vfdt.moa_naive_bayes import moa_majority_is, moa_naive_bayes_into
from boostbench.system.kernel_cache import inlined_kernel, kernel

HALF_LOG_TAU = 0.5 * math.log(math.tau)  # river.proba.gaussian's constant


@kernel
def log_pdf(st, value, two):  # pragma: no cover - compiled
    """River's ``Gaussian.log_pdf`` of a class's estimator ``st`` (``[weight, mean, S, min, max]``,
    variance with ddof 1) at ``value``; -inf while its weight is <= 1 or its variance 0. ``two``
    is 2.0 read at run time: river squares with C's ``pow``, which is not ``x * x`` to the last
    bit, and a literal exponent lets the compiler multiply.
    """
    n = st[0]
    if n > 1.0:
        variance = st[2] / (n - 1.0)
        if variance > 0.0:
            return (value - st[1]) ** two / (-2.0 * variance) - HALF_LOG_TAU - 0.5 * math.log(variance)
    return -np.inf


@inlined_kernel
def _log_votes(
    leaf,
    x,
    node_stats,
    node_classes,
    nominal_counts,
    numeric_stats,
    ranks,
    attr_ranks,
    value_ranks,
    feat_map,
    feat_nominal,
    two,
    attributes,
    values,
    out,
):  # pragma: no cover - compiled
    """River's naive-Bayes log votes of ``leaf`` for ``x`` into ``out`` (``(k,)``: the held
    classes' entries; 0 for a class held without weight), before river's log-sum-exp. The leaf
    holds weight. See :func:`naive_bayes_into` for the arguments.
    """
    row = node_classes[leaf]
    n_held = row[-1]
    total = node_weight(leaf, node_stats, node_classes)
    n_attributes = in_rank_order(attr_ranks, attributes)
    for i in range(n_held):
        c = row[i]
        weight = node_stats[leaf, c]
        if weight <= 0.0:  # river: a vote of 0 for a class held without weight
            out[c] = 0.0
            continue
        vote = math.log(weight / total)
        for a in range(n_attributes):
            j = attributes[a]
            value = x[feat_map[j]]
            if value != value:  # missing: not in river's x
                continue
            if feat_nominal[j]:
                first_seen(ranks[j], c)  # river's defaultdict files the class (module docstring)
                vote += _nominal_log_proba(nominal_counts, value_ranks, c, j, value, values)
            elif ranks[j, c] != 0:  # the class has a Gaussian for the attribute
                log_p = log_pdf(numeric_stats[c, j], value, two)
                if log_p > -np.inf:
                    vote += log_p
        out[c] = vote


@kernel
def naive_bayes_into(
    leaf,
    x,
    node_stats,
    node_classes,
    nominal_counts,
    numeric_stats,
    ranks,
    attr_ranks,
    value_ranks,
    feat_map,
    feat_nominal,
    two,
    attributes,
    values,
    out,
):  # pragma: no cover - compiled
    """River's naive-Bayes prediction of ``leaf`` for ``x`` into ``out`` (``(k,)``: 0 for the
    classes the leaf does not hold); uniform when the leaf holds no weight.

    ``nominal_counts`` ... ``value_ranks`` are the leaf's statistics slot's arrays (the slot's
    rows), ``feat_map`` and ``feat_nominal`` its tree's rows; ``two`` is 2.0 (:func:`log_pdf`);
    ``attributes`` (``(>= d_local,)``) and ``values`` (``(>= values,)``) int64 scratch. A nominal
    attribute's class ranks gain the classes voted on (river's ``defaultdict``: module docstring).

    Returns:
        False for a leaf without weight (river's empty prediction), else True.
    """
    if not _has_weight(leaf, node_stats, node_classes, out):
        return False
    _log_votes(
        leaf,
        x,
        node_stats,
        node_classes,
        nominal_counts,
        numeric_stats,
        ranks,
        attr_ranks,
        value_ranks,
        feat_map,
        feat_nominal,
        two,
        attributes,
        values,
        out,
    )
    _normalise(node_classes[leaf], out)
    return True


@kernel
def naive_bayes_choice(
    leaf,
    x,
    node_stats,
    node_classes,
    nominal_counts,
    numeric_stats,
    ranks,
    attr_ranks,
    value_ranks,
    feat_map,
    feat_nominal,
    two,
    attributes,
    values,
    out,
    complete,
):  # pragma: no cover - compiled
    """The class :func:`naive_bayes_into` gives the highest probability (ties: the class first
    held, river's ``max`` over a dict), or -1 for a leaf without weight; ``out`` is scratch.

    ``complete``: no value was missing (or out of range) in the leaf's statistics since they
    were emptied, so each class's weight is the same at every attribute (:func:`_nominal_choice`).

    The probabilities are ``exp(vote - lse)``, which keeps the votes' order but may round two
    near-equal votes to one probability: the log-sum-exp is taken only when a vote lies within
    a billionth (relative) of the top one. Otherwise the top vote's class is the answer, as the
    normalised votes would give (2k ``exp`` and a ``log`` fewer per tree and example).
    """
    if not _has_weight(leaf, node_stats, node_classes, out):
        return -1
    quick = _nominal_choice(
        leaf,
        x,
        node_stats,
        node_classes,
        nominal_counts,
        ranks,
        attr_ranks,
        value_ranks,
        feat_map,
        feat_nominal,
        attributes,
        values,
        complete,
    )
    if quick >= 0:
        return quick
    _log_votes(
        leaf,
        x,
        node_stats,
        node_classes,
        nominal_counts,
        numeric_stats,
        ranks,
        attr_ranks,
        value_ranks,
        feat_map,
        feat_nominal,
        two,
        attributes,
        values,
        out,
    )
    row = node_classes[leaf]
    best = first_max(out, row)
    top = out[best]
    margin = 1e-9 * (1.0 + abs(top))
    for i in range(row[-1]):
        c = row[i]
        if c != best and top - out[c] <= margin:  # a near tie: as river, through the probabilities
            _normalise(row, out)
            return first_max(out, row)
    return best


#: products of naive Bayes' factors further apart than this (relative) rank as their logs do
CLEAR_LEAD = 1e-6
#: and within these bounds, no product under- or overflows
TINY, HUGE = 1e-250, 1e250


@inlined_kernel
def _nominal_choice(
    leaf,
    x,
    node_stats,
    node_classes,
    nominal_counts,
    ranks,
    attr_ranks,
    value_ranks,
    feat_map,
    feat_nominal,
    found,
    codes,
    complete,
):  # pragma: no cover - compiled
    """:func:`naive_bayes_choice` without a logarithm, when the answer is clear: each class's
    prior times its nominal attributes' probabilities (1 for a value it never had, river's zero
    counted as 1; 1 for a class held without weight, river's vote 0). The exact log votes differ
    from these products' logs by a few ulps; a class whose product leads every other by more
    than CLEAR_LEAD is the one they rank first too, and its probability is not rounded onto
    another's (:func:`naive_bayes_choice`). Returns that class, or -1 (a closer race, a product
    out of range, a numeric attribute): then the exact votes decide. ``found`` and ``codes``
    int64 scratch ``(>= d_local,)``. When ``complete`` (no value missing in the leaf's
    statistics), a class's weight at one attribute stands for its weight at every other (the same
    examples' weights, summed in another order).

    Files the classes under the nominal attributes as :func:`_log_votes` does.
    """
    n_values = nominal_counts.shape[2]
    n_found = 0  # the attributes x has a value of, and the values' codes
    for j in range(attr_ranks.shape[0] - 1):
        if attr_ranks[j] == 0:
            continue
        value = x[feat_map[j]]
        if value != value:
            continue
        if not feat_nominal[j]:
            return -1
        found[n_found], codes[n_found] = j, int(value)
        n_found += 1
    row = node_classes[leaf]
    total = node_weight(leaf, node_stats, node_classes)
    best, best_q, second_q = -1, -1.0, -1.0
    for i in range(row[-1]):
        c = row[i]
        weight = node_stats[leaf, c]
        q = 1.0
        if weight > 0.0:
            num, den, seen = weight, total, -1.0
            for f in range(n_found):
                j, code = found[f], codes[f]
                first_seen(ranks[j], c)
                if code < 0 or code >= n_values or value_ranks[c, j, code] == 0:
                    continue
                if seen < 0.0 or not complete:
                    seen = 0.0
                    for v in range(n_values):
                        seen += nominal_counts[c, j, v]
                num *= nominal_counts[c, j, code]
                den *= seen
            q = num / den
        if q > best_q:
            best, best_q, second_q = c, q, best_q
        elif q > second_q:
            second_q = q
    if not TINY < best_q < HUGE or second_q * (1.0 + CLEAR_LEAD) >= best_q:
        return -1
    return best


@inlined_kernel
def _has_weight(leaf, node_stats, node_classes, out):  # pragma: no cover - compiled
    """Whether ``leaf`` holds weight; if not, ``out`` uniform (river's empty prediction), else 0."""
    k = out.shape[0]
    total = node_weight(leaf, node_stats, node_classes)
    if node_classes[leaf, -1] == 0 or total == 0.0:
        for c in range(k):
            out[c] = 1.0 / k
        return False
    for c in range(k):
        out[c] = 0.0
    return True


@inlined_kernel
def _normalise(row, out):  # pragma: no cover - compiled
    """River's log-sum-exp over the held classes' votes (``row``: classes, then their count)."""
    n_held = row[-1]
    top = -np.inf
    for i in range(n_held):
        top = max(top, out[row[i]])
    spread = 0.0
    for i in range(n_held):
        spread += math.exp(out[row[i]] - top)
    lse = top + math.log(spread)
    for i in range(n_held):
        out[row[i]] = math.exp(out[row[i]] - lse)


@inlined_kernel
def _nominal_log_proba(counts, value_ranks, c, j, value, order):  # pragma: no cover - compiled
    """``log`` of a nominal attribute ``j``'s ``P(value | class c)``, the class's weight at the
    value over its weight at every value seen (summed in the order they were first seen), or 0
    when the class never had the value (river's ``cond_proba`` 0, counted as 1). ``counts``
    ``(k, d, values)`` and ``value_ranks`` ``(k, d, values + 1)`` are the slot's; ``order``
    int64 scratch.
    """
    code = int(value)
    n_values = counts.shape[2]
    if code < 0 or code >= n_values or value_ranks[c, j, code] == 0:
        return 0.0
    n_seen = value_ranks[c, j, n_values]
    if n_seen == 1:  # the only value seen: its weight over itself, log 1 (weights are > 0)
        return 0.0
    for v in range(n_values):
        r = value_ranks[c, j, v]
        if r > 0:
            order[r - 1] = v
    seen = 0.0
    for r in range(n_seen):
        seen += counts[c, j, order[r]]
    p = counts[c, j, code] / seen
    return math.log(p) if p > 0.0 else 0.0


@kernel
def first_max(scores, row):  # pragma: no cover - compiled
    """The class of ``row`` (classes, then their count) with the highest score (``(k,)``), the
    first one of equal scores: Python's ``max(d, key=d.get)`` over a dict in that order.
    """
    best = row[0]
    for i in range(1, row[-1]):
        if scores[row[i]] > scores[best]:
            best = row[i]
    return best


@inlined_kernel
def predicts_by_naive_bayes(leaf, node_stats, node_classes, node_active, node_correct, leaf_params):  # pragma: no cover
    """Whether ``leaf`` predicts by naive Bayes now (river's ``prediction`` of its leaf kind)."""
    kind = leaf_params[LEAF_KIND]
    if kind == MC or not node_active[leaf]:
        return False
    if kind == NB:
        return node_weight(leaf, node_stats, node_classes) >= leaf_params[NB_THRESHOLD]
    return node_correct[leaf, NB_CORRECT] >= node_correct[leaf, MC_CORRECT]


@kernel
def _majority_is(leaf, y, node_stats, node_classes):  # pragma: no cover - compiled
    """Whether the majority class of ``leaf`` (river's normalised class weights, ties to the class
    first held) is ``y``, or the leaf holds no class (river's NBA counts that as right).
    """
    row = node_classes[leaf]
    if row[-1] == 0:
        return True
    total = node_weight(leaf, node_stats, node_classes)
    scale = 1.0 / total if total != 0.0 else 1.0  # river leaves a zero total's weights as they are
    best, best_p = row[0], node_stats[leaf, row[0]] * scale
    for i in range(1, row[-1]):
        p = node_stats[leaf, row[i]] * scale
        if p > best_p:
            best, best_p = row[i], p
    return best == y


@inlined_kernel
def _leaf_arguments(F, tree, leaf, x, thread, out):  # pragma: no cover - compiled
    """:func:`naive_bayes_into`'s (and :func:`naive_bayes_choice`'s) arguments for ``leaf`` of
    ``tree`` in the Forest ``F``, with ``thread``'s scratch.
    """
    slot = F.node_slot[leaf]
    return (
        leaf,
        x,
        F.node_stats,
        F.node_classes,
        F.nominal_counts[slot],
        F.numeric_stats[slot],
        F.ranks[slot],
        F.attr_ranks[slot],
        F.value_ranks[slot],
        F.feat_map[tree],
        F.feat_nominal[tree],
        F.work[thread, SETTINGS, TWO],
        F.iwork[thread, ATTRIBUTES],
        F.iwork[thread, VALUE_ORDERS],
        out,
    )


@inlined_kernel
def leaf_naive_bayes(F, tree, leaf, x, thread, out):  # pragma: no cover - compiled
    """The naive-Bayes prediction of ``leaf`` of ``tree`` in the Forest ``F`` into ``out``, with
    ``thread``'s scratch: river's (:func:`naive_bayes_into`) or MOA's
    (:func:`~.moa_naive_bayes.moa_naive_bayes_into`), as the pool's NB_RULE says.

    Returns:
        The class it chose (river's: the first held of the highest probability, -1 for a leaf
        without weight; MOA's: see its module).
    """
    if F.leaf_params[NB_RULE] == MOA_NB:
        return _moa_naive_bayes(F, tree, leaf, x, out)
    if naive_bayes_into(*_leaf_arguments(F, tree, leaf, x, thread, out)):
        return first_max(out, F.node_classes[leaf])
    return -1


@inlined_kernel
def _moa_naive_bayes(F, tree, leaf, x, out):  # pragma: no cover - compiled
    slot = F.node_slot[leaf]
    return moa_naive_bayes_into(
        leaf,
        x,
        F.node_stats,
        F.node_classes,
        F.nominal_counts[slot],
        F.numeric_stats[slot],
        F.attr_ranks[slot],
        F.value_ranks[slot],
        F.feat_map[tree],
        F.feat_nominal[tree],
        out,
    )


@inlined_kernel
def tally(F, tree, leaf, x, y, w, thread, choice):  # pragma: no cover - compiled
    """An active NBA leaf's bookkeeping before it learns ``(x, y)`` with weight ``w`` (river's
    ``LeafNaiveBayesAdaptive.learn_one``): ``w`` to MC_CORRECT if its majority class is ``y``,
    to NB_CORRECT if its naive Bayes predicts ``y``: ``choice``, the class it chose predicting
    ``x`` (:func:`~.routing.predict_all`), or when NO_CHOICE, :func:`naive_bayes_choice` (with
    ``thread``'s VOTES scratch).
    """
    node_stats, node_classes = F.node_stats, F.node_classes
    moa = F.leaf_params[NB_RULE] == MOA_NB
    if moa_majority_is(leaf, y, node_stats, node_classes) if moa else _majority_is(leaf, y, node_stats, node_classes):
        F.node_correct[leaf, MC_CORRECT] += w
    if choice == NO_CHOICE:
        votes = F.work[thread, VOTES, : node_stats.shape[1]]
        if moa:
            choice = _moa_naive_bayes(F, tree, leaf, x, votes)
        else:
            complete = (F.screen_state[F.node_slot[leaf], HISTORY] & MISSING) == 0
            choice = naive_bayes_choice(*_leaf_arguments(F, tree, leaf, x, thread, votes), complete)
    if choice == y:
        F.node_correct[leaf, NB_CORRECT] += w
