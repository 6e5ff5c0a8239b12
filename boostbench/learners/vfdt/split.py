"""A split attempt: its decision (river's Hoeffding test, screened by merit bounds), and the split.

With ``eps = sqrt(R^2 ln(1/delta) / (2 W))``, ``R = log2(max(classes seen, 2))``, the best split
is taken when ``best - second > eps`` or ``eps < tau``; if the best merit is -inf (the null split
wins) or a class holds more than 99% of the weight, the leaf's attribute statistics are discarded
and it starts gathering them afresh. (river deactivates the leaf, and its memory manager, called
right after, reactivates every inactive leaf with empty splitters while the tree is under its
size limit: the net effect is this reset.) Children start from the split's class distributions.
"""

from __future__ import annotations

import math

import numpy as np

from boostbench.learners.vfdt.layout import (
    ATTRIBUTES,
    CACHE,
    CLASS_IDS,
    CLASSES,
    CLASSWISE,
    CLASSWISE_ROWS,
    CLEAN,
    DELTA,
    DIRTY,
    FEATURE_KIND,
    FEATURE_VALUE,
    GRID,
    HALF,
    HISTORY,
    KEPT,
    MEMO_TERM,
    MEMO_WEIGHT,
    MERIT_HIGH,
    MERIT_LOW,
    MISSING,
    MULTIWAY,
    N_SPLIT_POINTS,
    NOMINAL_BINARY,
    PAIR_ENTROPY,
    PAIR_WEIGHT,
    POINTS,
    PREFIX_UNIT,
    SCREEN,
    SETTINGS,
    SIDES,
    SIGMAS,
    STATUS,
    SUMS,
    TAU,
    TERMS,
    TEST,
    TOUCHED,
    VALUE_COUNTS,
    VALUE_ORDERS,
    add_class,
    copy_into,
    in_rank_order,
    new_node,
    node_weight,
    release,
)
from boostbench.learners.vfdt.merit_bounds import MERIT_SLACK, REFRESH_AFTER, VALID, cached_range, numeric_merit_bounds
from boostbench.learners.vfdt.merits import (
    entropy_in_order,
    nominal_best,
    numeric_best,
    numeric_split,
    rest_of,
    sigma_of,
    thresholds,
    thresholds_in,
    value_orders,
)
from boostbench.learners.vfdt.nominal_bounds import nominal_merit_bounds
from boostbench.system.kernel_cache import inlined_kernel, kernel

KEEP, RESET, SPLIT = 0, 1, 2  # what a split attempt decides (best_split)
MAX_SHARE_TO_SPLIT = 0.99  # a leaf whose majority class holds more does not split (only the null split)
TOUCH_AT_MOST = 1024  # estimators (40 KiB) _touch reads ahead of an attempt; beyond, an early KEEP may read far fewer
# an attribute's kind in best_split: its merit an interval (numeric, nominal); not needed
BOUNDED, OUT_OF_REACH, BOUNDED_NOMINAL = -2, -3, -4


@kernel
def best_split(
    stats,
    classes_seen,
    total,
    nominal_counts,
    numeric_stats,
    ranks,
    attr_ranks,
    value_ranks,
    feat_nominal,
    split_params,
    work,
    iwork,
    screen_sums,
    screen_grid,
    screen_base,
    screen_state,
):  # pragma: no cover - compiled
    """The decision of a split attempt on a leaf with class weights ``stats`` (``(k,)``, summing to
    ``total``), its classes by first sight ``classes_seen``, its statistics slot's arrays, and
    its tree's rows of ``feat_nominal`` and ``split_params``: ``(KEEP | RESET | SPLIT, feature,
    kind, value)``. ``work``/``iwork`` are a thread's scratch (:func:`~.layout.scratch`). (Hot:
    it takes the arrays it reads, not the Forest, whose fields a call that is not inlined would
    all pass.)

    Attributes are first bounded (numeric: :mod:`~.merit_bounds`; nominal: :mod:`~.nominal_bounds`),
    and only those whose interval can reach the decision are evaluated exactly: the decision is river's, at a fraction
    of the cost. On numeric data without missing values the bounding stops as soon as the
    attributes bounded so far show that the leaf waits (:func:`_merit_ceiling`): on the ISOLET-shaped
    stream a third of the attempts that are not decided stop early. Without the scratch's SCREEN
    setting every attribute is evaluated (the reference the tests compare with).
    """
    k = stats.shape[0]
    n_seen = 0
    majority = 0.0
    for c in range(k):
        if stats[c] > 0.0:
            n_seen += 1
        if stats[c] > majority:
            majority = stats[c]
    if n_seen <= 1:  # pure: river does not try
        return KEEP, -1, -1, 0.0
    if majority / total > MAX_SHARE_TO_SPLIT:  # only the null split is proposed, and it wins
        return RESET, -1, -1, 0.0
    n_keys = classes_seen[-1]
    pre_entropy, _ = entropy_in_order(stats, classes_seen, n_keys)
    # river's range of merit counts the classes its statistics hold, with weight 0 or not
    bound = math.sqrt(math.log2(max(n_keys, 2)) ** 2 * math.log(1.0 / split_params[DELTA]) / (2.0 * total))
    decided = bound < split_params[TAU]  # the best split is taken whatever the second
    screen = work[SETTINGS, SCREEN] > 0.0
    cached = work[SETTINGS, CACHE] > 0.0
    # the slot's cached sums: updated for the one class trained since the last screen, or afresh
    changed = -1
    missing = screen_state[HISTORY] & MISSING
    screens = screen_state[HISTORY] % PREFIX_UNIT
    if cached and screen_state[STATUS] >= DIRTY and screens < REFRESH_AFTER:
        changed = screen_state[STATUS] - DIRTY
        screens += 1
    else:
        screens = 0
    n_local = feat_nominal.shape[0]
    attributes = iwork[ATTRIBUTES, :n_local]
    merit_low, merit_high = work[MERIT_LOW, :n_local], work[MERIT_HIGH, :n_local]
    feature_values, feature_kinds = work[FEATURE_VALUE, :n_local], work[FEATURE_KIND, :n_local]
    points = work[POINTS, :N_SPLIT_POINTS]
    n_attributes = in_rank_order(attr_ranks, attributes)
    if not cached and numeric_stats.shape[0] * numeric_stats.shape[1] <= TOUCH_AT_MOST:
        _touch(numeric_stats, work[SETTINGS, TOUCHED:])
    # the cached sums are current for the attributes the last screen reached (in rank order)
    prefix = (screen_state[HISTORY] - missing) // PREFIX_UNIT if changed >= 0 else 0
    # An early KEEP: no binary split's merit exceeds the ceiling of _merit_ceiling, which holds
    # for every numeric attribute at once when none missed a value (they all hold the same class
    # weights); once the second best lower bound is within the Hoeffding bound of it, the leaf
    # waits, whatever the attributes not yet bounded hold. (Multiway nominal splits can exceed it.)
    may_stop = screen and not decided and nominal_counts.shape[1] == 0 and missing == 0
    ceiling = np.inf
    if may_stop and n_attributes > 1:
        memo_weight, memo_term = work[CLASSWISE + MEMO_WEIGHT], work[CLASSWISE + MEMO_TERM]
        ceiling = _merit_ceiling(numeric_stats[:, attributes[0]], pre_entropy, memo_weight, memo_term)
    top, second, top_high = -np.inf, -np.inf, -np.inf
    n_done = n_attributes
    # 1. Each attribute's best split, or when screening an interval that the exact merit is
    # certain to lie in (merit_bounds, nominal_bounds).
    for a in range(n_attributes):
        if may_stop and a > 0:
            top, second, top_high = _fold(merit_low[a - 1], merit_high[a - 1], top, second, top_high)
            if max(top_high, ceiling) - second <= bound:
                n_done = a
                break
        j = attributes[a]
        feature_best, feature_kind, feature_value = -np.inf, -1, 0.0
        if feat_nominal[j]:
            if screen:
                low, high = nominal_merit_bounds(nominal_counts[:, j].T, pre_entropy, work)
                if high > -np.inf:  # else every proposal is -inf: river keeps the multiway split
                    merit_low[a], merit_high[a], feature_kinds[a] = low, high, BOUNDED_NOMINAL
                    continue
                feature_best, feature_kind = -np.inf, MULTIWAY
            else:
                feature_best, feature_kind, feature_value = nominal_best(
                    nominal_counts[:, j].T, ranks[j], value_ranks[:, j], pre_entropy, work, iwork
                )
        else:
            if screen and _one_value(ranks[j], numeric_stats[:, j]):  # no threshold: no finite merit
                if cached:  # its sums were not brought up to date
                    screen_grid[j, VALID] = 0.0
                merit_low[a], merit_high[a] = -np.inf, -np.inf
                feature_values[a], feature_kinds[a] = 0.0, -1
                continue
            cache_current = changed >= 0 and a < prefix
            if cache_current and screen_grid[j, VALID] == 1.0:  # the range from the slot's cache
                lo, hi = cached_range(screen_grid[j], numeric_stats[changed, j])
                n_points = thresholds_in(lo, hi, points)
            else:
                n_points, lo, hi = thresholds(numeric_stats[:, j], points)
            if screen:
                low, high = _bounds(
                    j,
                    numeric_stats[:, j],
                    n_points,
                    lo,
                    hi,
                    pre_entropy,
                    work,
                    cached,
                    screen_sums,
                    screen_grid,
                    screen_base,
                    changed if cache_current else -1,
                )
                if high > -np.inf:  # else certainly -inf: no finite candidate, the null split
                    merit_low[a], merit_high[a], feature_kinds[a] = low, high, BOUNDED
                    continue
            else:
                feature_best, feature_kind, feature_value = _numeric_exact(
                    numeric_stats[:, j], ranks[j], n_points, pre_entropy, work, iwork
                )
        merit_low[a], merit_high[a] = feature_best, feature_best
        feature_values[a], feature_kinds[a] = feature_value, feature_kind
    screen_state[HISTORY] = missing + screens
    if cached:
        screen_state[STATUS] = CLEAN
        screen_state[HISTORY] += n_done * PREFIX_UNIT
    if n_done < n_attributes:
        return KEEP, -1, -1, 0.0
    if screen and not _evaluate_within_reach(
        n_attributes,
        attributes,
        nominal_counts,
        numeric_stats,
        ranks,
        value_ranks,
        pre_entropy,
        bound,
        decided,
        work,
        iwork,
    ):
        return KEEP, -1, -1, 0.0
    return _decide(n_attributes, attributes, bound, decided, work)


@inlined_kernel
def _fold(low, high, top, second, top_high):  # pragma: no cover - compiled
    """One attribute's merit interval ``[low, high]`` folded into the running highest and second
    highest lower bounds and the highest upper bound (a tie moves the old top to second).
    """
    if low >= top:
        top, second = low, top
    elif low > second:
        second = low
    return top, second, max(top_high, high)


@kernel
def _touch(numeric_stats, sink):  # pragma: no cover - compiled
    """Read every estimator's weight in a slot's class-major ``numeric_stats`` (``(k, d, 5)``) into
    ``sink[0]``, all at once: without the screen's cache an attempt reads each attribute's classes,
    lines apart, and the loads issued together overlap their cache misses.
    """
    total = 0.0
    for c in range(numeric_stats.shape[0]):
        for j in range(numeric_stats.shape[1]):
            total += numeric_stats[c, j, 0]
    sink[0] = total


@kernel
def _merit_ceiling(stats, pre_entropy, memo_weight, memo_term):  # pragma: no cover - compiled
    """An upper bound on the merit of every binary split of attributes holding the class weights
    ``stats[:, 0]`` (``(k, 5)`` estimators) under a leaf of entropy ``pre_entropy`` (bits), with
    room for rounding. River's merit is ``pre_entropy - H(Y | side)``, and ``H(Y | side) = H(Y) -
    I(Y; side)`` with ``I(Y; side) <= min(H(Y), H(side)) <= min(H(Y), 1)`` for two sides: so the
    merit is at most ``pre_entropy - max(H(Y) - 1, 0)`` (``inf`` without weight). ``memo_weight``
    and ``memo_term`` (``(>= k,)`` float64) are the screen's memo of ``w log2 w`` by class
    (:func:`~.merit_bounds.numeric_merit_bounds`): read, and brought up to date.
    """
    total, terms = 0.0, 0.0
    for c in range(stats.shape[0]):
        w = stats[c, 0]
        if w > 0.0:
            total += w
            if memo_weight[c] != w:
                memo_weight[c], memo_term[c] = w, w * math.log2(w)
            terms += memo_term[c]
    if total <= 0.0:
        return np.inf
    h = math.log2(total) - terms / total
    return pre_entropy - max(h - 1.0, 0.0) + MERIT_SLACK


@kernel
def _one_value(class_ranks, stats):  # pragma: no cover - compiled
    """Whether a numeric attribute (its classes' first-seen ranks ``class_ranks`` ``(k + 1,)`` and
    estimators ``stats`` ``(k, 5)``) holds one class at one value: then its range is empty, it has
    no threshold, and its merit is -inf (as :func:`~.merits.thresholds` would find, reading every
    class). A leaf that keeps resetting (its statistics hold one example) is all such attributes.
    """
    k = stats.shape[0]
    if class_ranks[k] != 1:
        return False
    for c in range(k):
        if class_ranks[c] != 0:
            return stats[c, 3] == stats[c, 4]
    return False


@kernel
def _bounds(
    j, stats, n_points, lo, hi, pre_entropy, work, cached, screen_sums, screen_grid, screen_base, changed
):  # pragma: no cover - compiled
    """:func:`~.merit_bounds.numeric_merit_bounds` of numeric attribute ``j`` (estimators
    ``stats``, thresholds in the scratch's POINTS row), with the slot's cache of its sums, or
    without one (``cached`` False) sums in the scratch, taken afresh.
    """
    at = j if cached else 0
    sums = screen_sums[at] if cached else work[SUMS : SUMS + 2, :N_SPLIT_POINTS]
    grid = screen_grid[at] if cached else work[GRID, :5]
    return numeric_merit_bounds(
        stats,
        work[POINTS, :N_SPLIT_POINTS],
        n_points,
        lo,
        hi,
        pre_entropy,
        work[CLASSWISE : CLASSWISE + CLASSWISE_ROWS],
        sums,
        grid,
        screen_base[at],
        changed,
    )


@kernel
def _numeric_exact(stats, class_ranks, n_points, pre_entropy, work, iwork):  # pragma: no cover - compiled
    """:func:`~.merits.numeric_best` of a numeric attribute (estimators ``stats`` ``(k, 5)``, its
    classes' first-seen ranks ``class_ranks``) over the thresholds in the scratch's POINTS row.
    """
    k = stats.shape[0]
    classes = iwork[CLASSES, :k]
    return numeric_best(
        stats,
        work[POINTS, :N_SPLIT_POINTS],
        n_points,
        classes,
        in_rank_order(class_ranks, classes),
        pre_entropy,
        work[PAIR_ENTROPY, :2],
        work[PAIR_WEIGHT, :2],
        work[SIGMAS, :k],
        work[TERMS, :k],
        work[SETTINGS, HALF],
    )


@kernel
def _evaluate_within_reach(
    n_attributes,
    attributes,
    nominal_counts,
    numeric_stats,
    ranks,
    value_ranks,
    pre_entropy,
    bound,
    decided,
    work,
    iwork,
):  # pragma: no cover - compiled
    """Step 2 of :func:`best_split`: evaluate exactly the bounded attributes that can matter.
    With the decision taken by the best alone, those that can reach the highest certain merit;
    else those that can reach the second highest; the others are OUT_OF_REACH. False (nothing
    evaluated) when the gap is certainly within the Hoeffding bound: the leaf waits.
    """
    merit_low, merit_high = work[MERIT_LOW, :n_attributes], work[MERIT_HIGH, :n_attributes]
    feature_values, feature_kinds = work[FEATURE_VALUE, :n_attributes], work[FEATURE_KIND, :n_attributes]
    top, runner_up, top_high = -np.inf, -np.inf, -np.inf
    for a in range(n_attributes):
        top, runner_up, top_high = _fold(merit_low[a], merit_high[a], top, runner_up, top_high)
    if not decided and (top_high == -np.inf or top_high - runner_up <= bound):
        return False
    reach = top if decided else runner_up
    for a in range(n_attributes):
        if feature_kinds[a] == BOUNDED or feature_kinds[a] == BOUNDED_NOMINAL:
            if merit_high[a] >= reach:
                j = attributes[a]
                if feature_kinds[a] == BOUNDED_NOMINAL:
                    m, kind, value = nominal_best(
                        nominal_counts[:, j].T, ranks[j], value_ranks[:, j], pre_entropy, work, iwork
                    )
                else:
                    n_points, _, _ = thresholds(numeric_stats[:, j], work[POINTS, :N_SPLIT_POINTS])
                    m, kind, value = _numeric_exact(numeric_stats[:, j], ranks[j], n_points, pre_entropy, work, iwork)
                merit_low[a], feature_kinds[a], feature_values[a] = m, kind, value
            else:  # certainly below both the best and the second: changes neither
                feature_kinds[a] = OUT_OF_REACH
    return True


@kernel
def _decide(n_attributes, attributes, bound, decided, work):  # pragma: no cover - compiled
    """Step 3 of :func:`best_split`: river's Hoeffding test over the attributes' proposals.

    River ranks [null split, its splitters in the order their attributes were first seen] by
    merit with a stable sort: among equal merits the later attribute ranks higher. A nominal
    attribute always proposes its multiway split (even at -inf merit); a numeric one without a
    finite candidate proposes the null split.
    """
    best, second = -np.inf, -np.inf
    best_feature, best_kind, best_value = -1, -1, 0.0
    for a in range(n_attributes):
        feature_kind = int(work[FEATURE_KIND, a])
        if feature_kind == OUT_OF_REACH:
            continue
        feature_best = work[MERIT_LOW, a]
        if feature_best >= best:
            second = best
            best, best_kind, best_value = feature_best, feature_kind, work[FEATURE_VALUE, a]
            best_feature = attributes[a] if feature_kind >= 0 else -1
        elif feature_best > second:
            second = feature_best
    if not (best - second > bound or decided):  # -inf - -inf is nan: no
        return KEEP, -1, -1, 0.0
    if best_feature < 0:  # the null split wins: start the attribute statistics afresh
        return RESET, -1, -1, 0.0
    return SPLIT, best_feature, best_kind, best_value


@inlined_kernel
def _add_child(F, leaf, branch, dist, keys, classes, n_classes, depth):  # pragma: no cover - compiled
    """A new leaf under ``leaf`` at ``branch``, starting from class weights ``dist`` (``(k,)``) that
    holds the classes with ``keys > 0`` (``(k,)``; one may hold weight 0, as in river) in the order
    ``classes[:n_classes]``.
    """
    child = new_node(F, leaf, depth)
    copy_into(F.node_stats[child], dist)
    for i in range(n_classes):
        if keys[classes[i]] > 0.0:
            add_class(F.node_classes[child], classes[i])
    F.node_last[child] = node_weight(child, F.node_stats, F.node_classes)
    F.node_nav[leaf, 1 + branch] = child


@kernel
def split_leaf(F, leaf, slot, best_feature, best_kind, best_value):  # pragma: no cover - compiled
    """Split ``leaf`` (statistics ``slot``) on ``best_feature`` as :func:`best_split` chose:
    the split's class distributions become the children's statistics.
    """
    nominal_counts, numeric_stats = F.nominal_counts, F.numeric_stats
    work, iwork = F.work[0], F.iwork[0]  # the serial part's scratch
    k = F.node_stats.shape[1]
    n_values = nominal_counts.shape[3]
    classes = iwork[CLASSES, :k]
    counts, orders = iwork[VALUE_COUNTS, :k], iwork[VALUE_ORDERS : VALUE_ORDERS + k, :n_values]
    depth = F.node_depth[leaf] + 1
    if best_kind == MULTIWAY:
        table = work[TERMS : TERMS + n_values, :k]
        for v in range(n_values):
            copy_into(table[v], nominal_counts[slot, :, best_feature, v])
        release(F, leaf)
        for v in range(n_values):
            if table[v].sum() > 0.0:  # classes in index order
                _add_child(F, leaf, v, table[v], table[v], iwork[CLASS_IDS, :k], k, depth)
    else:
        post = work[SIDES : SIDES + 2, :k]
        keys = work[KEPT : KEPT + 2, :k]
        n_classes = in_rank_order(F.ranks[slot, best_feature], classes)
        if best_kind == NOMINAL_BINARY:
            table = nominal_counts[slot, :, best_feature].T
            v = int(best_value)
            copy_into(post[0], table[v])
            value_orders(F.value_ranks[slot, :, best_feature], classes, n_classes, orders, counts)
            rest_of(table, v, classes, n_classes, orders, counts, post[1])
            copy_into(keys[0], post[0])
            copy_into(keys[1], post[1])
        else:
            stats_j = numeric_stats[slot, :, best_feature]
            sigmas = work[SIGMAS, :k]
            for c in range(k):
                if stats_j[c, 0] > 0.0:
                    sigmas[c] = sigma_of(stats_j[c], work[SETTINGS, HALF])
            numeric_split(stats_j, sigmas, best_value, post)
            keys[:] = 0.0
            for c in range(k):  # river's split keeps a class on each side its range reaches
                if stats_j[c, 0] > 0.0:
                    keys[0, c] = 0.0 if best_value < stats_j[c, 3] else 1.0
                    keys[1, c] = 0.0 if best_value >= stats_j[c, 4] else 1.0
        release(F, leaf)
        for b in range(2):
            _add_child(F, leaf, b, post[b], keys[b], classes, n_classes, depth)
    F.node_nav[leaf, TEST] = best_feature * 4 + best_kind
    F.node_active[leaf] = False
    F.node_value[leaf] = best_value
