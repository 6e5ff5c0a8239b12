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
    MC,
    MC_CORRECT,
    MISSING,
    MOA_NB,
    NB,
    NB_CORRECT,
    NB_THRESHOLD,
    NO_CHOICE,
    SETTINGS,
    TWO,
    VALUE_ORDERS,
    VOTES,
    first_seen,
    in_rank_order,
    leaf_kind,
    nb_rule,
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
):  # pragma: no cover - compiled
    """The class :func:`naive_bayes_into` gives the highest probability (ties: the class first
    held, river's ``max`` over a dict), or -1 for a leaf without weight; ``out`` is scratch.
    (:func:`clear_choice` first: this takes the exact votes.)

    The probabilities are ``exp(vote - lse)``, which keeps the votes' order but may round two
    near-equal votes to one probability: the log-sum-exp is taken only when a vote lies within
    a billionth (relative) of the top one. Otherwise the top vote's class is the answer, as the
    normalised votes would give (2k ``exp`` and a ``log`` fewer per tree and example).
    """
    if not _has_weight(leaf, node_stats, node_classes, out):
        return -1
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


#: scores further apart than this (relative: products, or log scores over their terms' sizes)
#: rank as river's log votes do, and their probabilities stay apart by more than the boosters'
#: tie tolerance (1e-9) while a leaf holds at most MAX_CLEAR classes
CLEAR_LEAD = 1e-6
MAX_CLEAR = 100
#: and within these bounds, no product under- or overflows
TINY, HUGE = 1e-250, 1e250
#: clear_choice's answers besides a class: a leaf without weight, a race too close to call, and
#: (asked about a target class) a class other than the target
EMPTY, UNCLEAR, OTHER = -1, -3, -4
NUMERIC_CODE = -2  # clear_choice's code of a numeric attribute's value


@inlined_kernel
def clear_choice(F, tree, leaf, x, thread, target):  # pragma: no cover - compiled
    """River's naive-Bayes choice of the active ``leaf`` of ``tree`` for ``x``
    (:func:`naive_bayes_choice`) when the race is clear, with ``thread``'s int scratch: the class,
    EMPTY (-1) for a leaf without weight, or UNCLEAR; then the exact votes decide. Given a
    ``target`` class (>= 0; an NBA leaf's tally asks whether naive Bayes predicts its label), the
    answer may be OTHER instead of a class other than the target: the target's score, then the
    others' until one clearly beats it.

    Without a logarithm per factor (:func:`_score`): a class leading another by CLEAR_LEAD
    (relative) ranks above it in river's votes too, with no near tie, and its probability leads
    the other's by more than 1e-9. UNCLEAR: a closer race, a product out of range, more than
    MAX_CLEAR classes. Files the classes under the nominal attributes as :func:`_log_votes` does,
    in the leaf's class order.
    """
    node_stats, node_classes = F.node_stats, F.node_classes
    row = node_classes[leaf]
    n_held = row[-1]
    total = node_weight(leaf, node_stats, node_classes)
    if n_held == 0 or total == 0.0:
        return EMPTY
    if n_held > MAX_CLEAR:
        return UNCLEAR
    slot = F.node_slot[leaf]
    ranks, attr_ranks = F.ranks[slot], F.attr_ranks[slot]
    feat_map, feat_nominal = F.feat_map[tree], F.feat_nominal[tree]
    found, codes = F.iwork[thread, ATTRIBUTES], F.iwork[thread, VALUE_ORDERS]
    n_values = F.nominal_counts.shape[3]
    n_found, numeric = 0, False  # the attributes x has a value of; their values' codes
    for j in range(attr_ranks.shape[0] - 1):
        if attr_ranks[j] == 0:
            continue
        value = x[feat_map[j]]
        if value != value:
            continue
        code = NUMERIC_CODE
        if feat_nominal[j]:
            code = int(value)
            if code < 0 or code >= n_values:
                code = -1  # not in the statistics: no factor
            if ranks[j, -1] != n_held:  # river's defaultdict files the held classes (module docstring)
                for i in range(n_held):
                    if node_stats[leaf, row[i]] > 0.0:
                        first_seen(ranks[j], row[i])
        else:
            numeric = True
        found[n_found], codes[n_found] = j, code
        n_found += 1
    complete = (F.screen_state[slot, HISTORY] & MISSING) == 0
    if target >= 0:
        held = False
        for i in range(n_held):
            held = held or row[i] == target
        if not held:
            return OTHER
        s_t, size_t = _score(F, tree, leaf, slot, x, target, total, found, codes, n_found, numeric, complete)
        if not size_t >= 0.0:
            return UNCLEAR
        for i in range(n_held):
            c = row[i]
            if c == target:
                continue
            s, size = _score(F, tree, leaf, slot, x, c, total, found, codes, n_found, numeric, complete)
            if not size >= 0.0:
                return UNCLEAR
            margin = CLEAR_LEAD * (1.0 + max(size, size_t)) if numeric else CLEAR_LEAD * s_t
            if s - s_t > margin:
                return OTHER
            if s - s_t >= -margin:
                return UNCLEAR
        return target
    best, best_s, second_s, largest = EMPTY, -np.inf, -np.inf, 0.0
    for i in range(n_held):
        c = row[i]
        s, size = _score(F, tree, leaf, slot, x, c, total, found, codes, n_found, numeric, complete)
        if not size >= 0.0:
            return UNCLEAR
        largest = max(largest, size)
        if s > best_s:
            best, best_s, second_s = c, s, best_s
        elif s > second_s:
            second_s = s
    margin = CLEAR_LEAD * (1.0 + largest) if numeric else CLEAR_LEAD * best_s
    return best if best_s - second_s > margin else UNCLEAR


@inlined_kernel
def _score(F, tree, leaf, slot, x, c, total, found, codes, n_found, numeric, complete):  # pragma: no cover
    """Class ``c``'s score in :func:`clear_choice` and the size of its terms (NaN: out of range).

    Its prior times its nominal attributes' probabilities (1 for a value it never had, river's
    zero counted as 1): with a numeric attribute among ``found``, that product over the square
    root of its numeric attributes' variances takes one ``log``, plus the Gaussians' exponents
    ``-(x - mean)^2 / 2 var`` and ``-log(2 pi) / 2`` each (river's ``log_pdf`` terms, added in
    another order); else the product itself (size 0: products compare relatively). A class held
    without weight scores river's vote 0. When ``complete`` (no value missing in the leaf's
    statistics), a class's weight at one nominal attribute stands for its weight at every other
    (the same examples' weights, summed in another order).
    """
    weight = F.node_stats[leaf, c]
    if weight <= 0.0:
        return (0.0 if numeric else 1.0), 0.0
    counts, stats, feat_map = F.nominal_counts, F.numeric_stats, F.feat_map
    num, den, seen, var_prod, lin, spread, m = weight, total, -1.0, 1.0, 0.0, 0.0, 0
    for f in range(n_found):
        j, code = found[f], codes[f]
        if code == NUMERIC_CODE:
            if F.ranks[slot, j, c] != 0 and stats[slot, c, j, 0] > 1.0:
                variance = stats[slot, c, j, 2] / (stats[slot, c, j, 0] - 1.0)
                if variance > 0.0:
                    d = x[feat_map[tree, j]] - stats[slot, c, j, 1]
                    t = d * d / (-2.0 * variance)
                    lin += t
                    spread -= t
                    var_prod *= variance
                    m += 1
        elif code >= 0:
            count = counts[slot, c, j, code]
            if count > 0.0:  # ranked exactly when counted: weights are > 0
                if seen < 0.0 or not complete:
                    seen = 0.0
                    for v in range(counts.shape[3]):
                        seen += counts[slot, c, j, v]
                num *= count
                den *= seen
    if not (num > TINY and den < HUGE):
        return 0.0, np.nan
    if not numeric:
        q = num / den
        return q, (0.0 if TINY < q < HUGE else np.nan)
    if not (TINY < var_prod < HUGE and lin > -HUGE):
        return 0.0, np.nan
    log_p = math.log(num / den / math.sqrt(var_prod))
    return log_p + lin - m * HALF_LOG_TAU, spread + abs(log_p) + m * (1.0 + HALF_LOG_TAU)


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
def predicts_by_naive_bayes(F, leaf):  # pragma: no cover - compiled
    """Whether ``leaf`` of the Forest ``F`` predicts by naive Bayes now (river's ``prediction``
    of its leaf kind).
    """
    kind = leaf_kind(F)
    if kind == MC or not F.node_active[leaf]:
        return False
    if kind == NB:
        return node_weight(leaf, F.node_stats, F.node_classes) >= F.leaf_params[NB_THRESHOLD]
    return F.node_correct[leaf, NB_CORRECT] >= F.node_correct[leaf, MC_CORRECT]


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
def leaf_naive_bayes(F, tree, leaf, x, thread, out, labels_only):  # pragma: no cover - compiled
    """The naive-Bayes prediction of ``leaf`` of ``tree`` in the Forest ``F`` into ``out``, with
    ``thread``'s scratch: river's (:func:`naive_bayes_into`) or MOA's
    (:func:`~.moa_naive_bayes.moa_naive_bayes_into`), as the pool's NB_RULE says. With
    ``labels_only``, river's rule writes its choice one-hot when it is clear
    (:func:`clear_choice`): for a caller that reads only the most probable class, ties within
    1e-9 (the probabilities would then have one class within 1e-9 of the top, as one-hot has).

    Returns:
        The class it chose (river's: the first held of the highest probability, -1 for a leaf
        without weight; MOA's: see its module).
    """
    if nb_rule(F) == MOA_NB:
        return _moa_naive_bayes(F, tree, leaf, x, out)
    if labels_only:
        choice = clear_choice(F, tree, leaf, x, thread, -1)
        if choice >= 0:
            for c in range(out.shape[0]):
                out[c] = 0.0
            out[choice] = 1.0
            return choice
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
    ``x`` (:func:`~.routing.predict_all`), or when NO_CHOICE, :func:`clear_choice` or else
    :func:`naive_bayes_choice` (with ``thread``'s scratch).
    """
    node_stats, node_classes = F.node_stats, F.node_classes
    moa = nb_rule(F) == MOA_NB
    if moa_majority_is(leaf, y, node_stats, node_classes) if moa else _majority_is(leaf, y, node_stats, node_classes):
        F.node_correct[leaf, MC_CORRECT] += w
    if choice == NO_CHOICE:
        votes = F.work[thread, VOTES, : node_stats.shape[1]]
        if moa:
            choice = _moa_naive_bayes(F, tree, leaf, x, votes)
        else:
            choice = clear_choice(F, tree, leaf, x, thread, y)
            if choice == UNCLEAR:
                choice = naive_bayes_choice(*_leaf_arguments(F, tree, leaf, x, thread, votes))
    if choice == y:
        F.node_correct[leaf, NB_CORRECT] += w
