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
    LEAF_KIND,
    MC,
    MC_CORRECT,
    NB,
    NB_CORRECT,
    NB_THRESHOLD,
    SETTINGS,
    TWO,
    VALUE_ORDERS,
    VOTES,
    first_seen,
    in_rank_order,
    node_weight,
)
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
    k = out.shape[0]
    row = node_classes[leaf]
    n_held = row[-1]
    total = node_weight(leaf, node_stats, node_classes)
    if n_held == 0 or total == 0.0:
        for c in range(k):
            out[c] = 1.0 / k
        return False
    for c in range(k):
        out[c] = 0.0
    n_attributes = in_rank_order(attr_ranks, attributes)
    for i in range(n_held):
        c = row[i]
        weight = node_stats[leaf, c]
        if weight <= 0.0:  # river: a vote of 0 for a class held without weight
            continue
        vote = math.log(weight / total)
        for a in range(n_attributes):
            j = attributes[a]
            value = x[feat_map[j]]
            if value != value:  # missing: not in river's x
                continue
            if feat_nominal[j]:
                first_seen(ranks[j], c)
                vote += _nominal_log_proba(nominal_counts[c, j], value_ranks[c, j], value, values)
            elif ranks[j, c] != 0:  # the class has a Gaussian for the attribute
                log_p = log_pdf(numeric_stats[c, j], value, two)
                if log_p > -np.inf:
                    vote += log_p
        out[c] = vote
    top = -np.inf
    for i in range(n_held):
        top = max(top, out[row[i]])
    spread = 0.0
    for i in range(n_held):
        spread += math.exp(out[row[i]] - top)
    lse = top + math.log(spread)
    for i in range(n_held):
        out[row[i]] = math.exp(out[row[i]] - lse)
    return True


@kernel
def _nominal_log_proba(counts, value_ranks, value, order):  # pragma: no cover - compiled
    """``log`` of a nominal attribute's ``P(value | class)``, the class's weight at the value over
    its weight at every value seen (summed in the order they were first seen), or 0 when the
    class never had the value (river's ``cond_proba`` 0, counted as 1). ``counts`` ``(values,)``
    and ``value_ranks`` ``(values + 1,)`` are the class's; ``order`` int64 scratch.
    """
    code = int(value)
    if code < 0 or code >= counts.shape[0] or value_ranks[code] == 0:
        return 0.0
    seen = 0.0
    for r in range(in_rank_order(value_ranks, order)):
        seen += counts[order[r]]
    p = counts[code] / seen
    return math.log(p) if p > 0.0 else 0.0


@kernel
def _first_max(scores, row):  # pragma: no cover - compiled
    """The class of ``row`` (classes, then their count) with the highest score (``(k,)``), the
    first one of equal scores: Python's ``max(d, key=d.get)`` over a dict in that order.
    """
    best = row[0]
    for i in range(1, row[-1]):
        if scores[row[i]] > scores[best]:
            best = row[i]
    return best


@kernel
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
def leaf_naive_bayes(F, tree, leaf, x, thread, out):  # pragma: no cover - compiled
    """:func:`naive_bayes_into` for ``leaf`` of ``tree`` in the Forest ``F``, with ``thread``'s
    scratch; returns its result.
    """
    slot = F.node_slot[leaf]
    return naive_bayes_into(
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
def tally(F, tree, leaf, x, y, w, thread):  # pragma: no cover - compiled
    """An active NBA leaf's bookkeeping before it learns ``(x, y)`` with weight ``w`` (river's
    ``LeafNaiveBayesAdaptive.learn_one``): ``w`` to MC_CORRECT if its majority class is ``y``,
    to NB_CORRECT if its naive Bayes predicts ``y`` (:func:`leaf_naive_bayes`, into ``thread``'s
    VOTES scratch).
    """
    node_stats, node_classes = F.node_stats, F.node_classes
    if _majority_is(leaf, y, node_stats, node_classes):
        F.node_correct[leaf, MC_CORRECT] += w
    votes = F.work[thread, VOTES, : node_stats.shape[1]]
    if leaf_naive_bayes(F, tree, leaf, x, thread, votes) and _first_max(votes, node_classes[leaf]) == y:
        F.node_correct[leaf, NB_CORRECT] += w
