"""Training the trees on an example, one tree after another or on numba's threads.

The semantics follow river's ``HoeffdingTreeClassifier`` (river 0.26, the reference pool): a
leaf keeps class weights; while active it also keeps, per attribute it sees, a nominal count
table or per-class Gaussian estimators (weighted mean/variance, min, max); when an active, impure
leaf has gained ``grace_period`` weight since its last attempt it tries to split
(:mod:`~.split`). A leaf reached by a detour (a missing value) learns from the example but does
not try to split on it, nor does a new leaf made for an unseen nominal value (as in river). An
active naive-Bayes-adaptive leaf first tallies which of its predictions would have been right
(:func:`~.naive_bayes.tally`).
"""

from __future__ import annotations

import numba

from boostbench.learners.vfdt.budget import limit_size, size_bytes
from boostbench.learners.vfdt.layout import (
    CACHE,
    CLEAN,
    DIRTY,
    GRACE,
    HISTORY,
    INVALID,
    MAX_BYTES,
    MISSING,
    MOA_NB,
    NBA,
    NO_CHOICE,
    ROUTE_BRANCH,
    ROUTE_CHOICE,
    ROUTE_LEAF,
    ROUTE_PARENT,
    ROUTE_VALID,
    SETTINGS,
    STATUS,
    Forest,
    add_class,
    copy_into,
    first_seen,
    leaf_kind,
    nb_rule,
    new_node,
    node_weight,
    reset_splitters,
)
from boostbench.learners.vfdt.naive_bayes import tally
from boostbench.learners.vfdt.routing import DETOUR, DIRECT, forget_routes_unless, leaf_for, mark_stale
from boostbench.learners.vfdt.split import KEEP, RESET, SPLIT, best_split, split_leaf
from boostbench.system.kernel_cache import inlined_kernel, kernel, njit, parallel_kernel

# ``pending[tree]``: what :func:`_train` left for :func:`_apply` (columns), and its states
PENDING, PENDING_LEAF, PENDING_FEATURE, PENDING_KIND, PENDING_RESULT = 0, 1, 2, 3, 4
DEFERRED = -1  # (PENDING) the tree needs a new node: trained again, serially


# inlined: a kernel compiles with all its callees, so a caller that calls it compiles them again
# (learn_all, the boosters' steps); a run compiles one caller, so inlining copies nothing
@inlined_kernel
def learn_trees(first, stop, x, y, weights, trees, nb_leaves):  # pragma: no cover
    """Train trees ``first..stop-1`` on ``(x, y)``, tree t with importance weight
    ``weights[t] * weight_scale[t]`` (c_i) when ``weights[t] > 0``. ``nb_leaves``: the pool's
    flag (None for majority-class leaves, :func:`~.routing.predict_all`).

    One call for many trees: the loop runs here, not in Python (:func:`learn_trees_threaded`
    is the same on several threads).

    ``route[tree]``, when flagged valid, is where ``x`` ends in this tree (kept by
    :func:`~.routing.predict_all`); training may change the tree, so the flag is cleared. A pool
    left past its memory budget deactivates its least promising leaves (:func:`~.budget.limit_size`).

    Returns:
        For the last tree trained: the leaf that now predicts for ``x`` when training left its
        path as it was (no split, no missing-value detour), else -1 (also when none trained).
    """
    F = Forest(*trees)
    result = -1
    for tree in range(first, stop):
        if weights[tree] > 0.0:
            result = _apply(F, tree, _train(F, tree, x, y, weights[tree], 0, True, nb_leaves))
    if size_bytes(F.counters, F.limits) > F.limits[MAX_BYTES]:
        limit_size(F)
    return result


@parallel_kernel
def learn_trees_threaded(first, stop, x, y, weights, trees, nb_leaves):  # pragma: no cover
    """:func:`learn_trees` on numba's threads (at most ``work.shape[0]``, the pool's
    ``n_threads``: one scratch each), with the same result to the bit: the threads take the trees
    one at a time as they finish the last (split attempts differ in cost, so a fixed share would
    wait for the slowest), update their statistics and decide their split attempts; then the
    splits are made, and the trees that need a new leaf trained, one tree after another in tree
    order. Trees share nothing but the node and slot allocators, which only that serial part
    uses, in the order one thread would: the same node ids, the same trees.

    Called from Python only, never from another kernel (see
    :func:`~boostbench.system.kernel_cache.parallel_kernel`).
    """
    F = Forest(*trees)
    _forget_routes_called(x, trees)
    for tree in numba.prange(first, stop):  # the caller sets numba's chunk size to 1 (dynamic)
        if weights[tree] > 0.0:
            _train_called(F, tree, x, y, weights[tree], numba.get_thread_id(), False, nb_leaves)
    for tree in range(first, stop):
        if weights[tree] > 0.0:
            if F.pending[tree, PENDING] == DEFERRED:
                _train_called(F, tree, x, y, weights[tree], 0, True, nb_leaves)
            _apply(F, tree, F.pending[tree, PENDING_RESULT])
    if size_bytes(F.counters, F.limits) > F.limits[MAX_BYTES]:
        limit_size(F)


@kernel
def learn_all(x, y, weights, trees, nb_leaves):  # pragma: no cover - compiled
    """Train every tree with ``weights[i] > 0`` on ``(x, y)`` with weight ``weights[i] * c_i``
    (``weights`` float64 ``(N,)``); the pool must have room (``CompiledHoeffdingTreePool.reserve``).
    """
    forget_routes_unless(x, trees)
    learn_trees(0, weights.shape[0], x, y, weights, trees, nb_leaves)


@inlined_kernel
def _train(F, tree, x, y, weight, thread, may_grow, nb_leaves):  # pragma: no cover
    """Add ``(x, y)`` with ``weight`` (times c_i) to the leaf ``x`` reaches in ``tree`` and, when
    due, decide its split attempt with the scratch of ``thread``. Leaves in ``pending[tree]`` the decision
    (KEEP, RESET, SPLIT; or DEFERRED, having changed nothing, when the tree needs a new leaf and
    ``may_grow`` is False), the leaf, the split and :func:`learn_trees`' result for the tree
    (``pending_value[tree]``: the split's value); returns that result.
    """
    node_nav, node_stats, node_classes, route, pending = F.node_nav, F.node_stats, F.node_classes, F.route, F.pending
    w = weight * F.weight_scale[tree]
    choice = NO_CHOICE  # naive Bayes' choice at the leaf, when prediction took it (naive_bayes.tally)
    if route[tree, ROUTE_VALID] == 1:
        leaf, parent, branch = route[tree, ROUTE_LEAF], route[tree, ROUTE_PARENT], route[tree, ROUTE_BRANCH]
        choice = route[tree, ROUTE_CHOICE]
    else:
        leaf, parent, branch = leaf_for(F, tree, x)
    pending[tree, PENDING] = KEEP
    if leaf < 0 and not may_grow:
        pending[tree, PENDING] = DEFERRED
        return -1
    route[tree, ROUTE_VALID], route[tree, ROUTE_CHOICE] = 0, NO_CHOICE  # a booster may restore the route
    may_split = branch == DIRECT  # river tries splits only at a leaf reached directly
    if leaf < 0:  # unseen nominal value under a multiway branch: a new leaf for it
        leaf = new_node(F, parent, F.node_depth[parent] + 1)
        node_nav[parent, 1 + branch] = leaf
        may_split = False
    result = leaf if branch != DETOUR else -1  # a detour may turn with the new weight
    pending[tree, PENDING_LEAF] = leaf
    pending[tree, PENDING_RESULT] = result
    if nb_leaves is not None and leaf_kind(F) == NBA and F.node_active[leaf]:  # MC pools: pruned
        tally(F, tree, leaf, x, y, w, thread, choice)
    node_stats[leaf, y] += w
    add_class(node_classes[leaf], y)
    mark_stale(F.node_parent[leaf], F.node_sub, F.node_parent)
    if not F.node_active[leaf]:
        return result
    slot = F.node_slot[leaf]
    _add_to_statistics(F, tree, slot, x, y, w, thread)
    total = node_weight(leaf, node_stats, node_classes)
    if not may_split or total - F.node_last[leaf] < F.split_params[tree, GRACE]:
        return result
    F.node_last[leaf] = total
    decision, feature, kind, value = best_split(*_split_arguments(F, tree, leaf, slot, thread, total))
    pending[tree, PENDING], pending[tree, PENDING_FEATURE], pending[tree, PENDING_KIND] = decision, feature, kind
    F.pending_value[tree] = value
    return result


@inlined_kernel
def _add_to_statistics(F, tree, slot, x, y, w, thread):  # pragma: no cover
    """Add ``(x, y)`` with weight ``w`` to the attribute statistics in ``slot`` (those of an active
    leaf of ``tree``) and to their first-seen orders (:func:`~.layout.first_seen`). With the
    slots' screen cache (the CACHE setting of ``thread``'s scratch), class ``y``'s estimators are
    kept as they were at the last screen: the cache stays usable while one class alone changes.
    """
    feat_map, feat_nominal = F.feat_map, F.feat_nominal
    nominal_counts, numeric_stats, ranks, value_ranks = F.nominal_counts, F.numeric_stats, F.ranks, F.value_ranks
    attr_ranks = F.attr_ranks
    moa = nb_rule(F) == MOA_NB  # MOA's GaussianEstimator updates its mean in its own order
    snapshot = False
    if F.work[thread][SETTINGS, CACHE] > 0.0:
        state = F.screen_state[slot]
        snapshot = state[STATUS] == CLEAN
        if snapshot:
            state[STATUS] = DIRTY + y
        elif state[STATUS] != DIRTY + y:
            state[STATUS] = INVALID
    for j in range(feat_map.shape[1]):
        value = x[feat_map[tree, j]]
        if snapshot and not feat_nominal[tree, j]:
            copy_into(F.screen_base[slot, j], numeric_stats[slot, y, j])
        if value != value:
            F.screen_state[slot, HISTORY] |= MISSING
            continue
        first_seen(attr_ranks[slot], j)
        if feat_nominal[tree, j]:
            first_seen(ranks[slot, j], y)
            code = int(value)
            if code < nominal_counts.shape[3]:
                first_seen(value_ranks[slot, y, j], code)
                nominal_counts[slot, y, j, code] += w
            else:  # not in the statistics: as a missing value (naive_bayes._nominal_choice)
                F.screen_state[slot, HISTORY] |= MISSING
        else:
            st = numeric_stats[slot, y, j]
            if st[0] == 0.0:  # the class is new to the attribute (no weight yet: no rank yet either)
                first_seen(ranks[slot, j], y)
                st[3] = value
                st[4] = value
            else:
                if value < st[3]:
                    st[3] = value
                if value > st[4]:
                    st[4] = value
            old_mean = st[1]
            st[0] += w
            if moa:
                st[1] += w * (value - old_mean) / st[0]
            else:
                st[1] += w / st[0] * (value - old_mean)
            st[2] += w * (value - old_mean) * (value - st[1])


@kernel
def _train_called(F, tree, x, y, weight, thread, may_grow, nb_leaves):  # pragma: no cover
    """:func:`_train` as a call, for the parallel loop (with :func:`_train` inlined into its body,
    numba 0.68 compiled a loop whose trees never split) and the serial part after it (one
    compiled copy of :func:`_train` for both: each copy costs seconds to compile).
    """
    return _train(F, tree, x, y, weight, thread, may_grow, nb_leaves)


@kernel
def _forget_routes_called(x, trees):  # pragma: no cover - compiled
    """:func:`~.routing.forget_routes_unless` as a call, for :func:`learn_trees_threaded`: numba
    drops stores made through the Forest's fields in code inlined outside a parallel loop (see
    :func:`~boostbench.system.kernel_cache.parallel_kernel`).
    """
    forget_routes_unless(x, trees)


@inlined_kernel
def _split_arguments(F, tree, leaf, slot, thread, total):  # pragma: no cover
    """:func:`~.split.best_split`'s arguments for ``leaf`` of ``tree`` (statistics ``slot``,
    weight ``total``) with the scratch of ``thread``.
    """
    return (
        F.node_stats[leaf],
        F.node_classes[leaf],
        total,
        F.nominal_counts[slot],
        F.numeric_stats[slot],
        F.ranks[slot],
        F.attr_ranks[slot],
        F.value_ranks[slot],
        F.feat_nominal[tree],
        F.split_params[tree],
        F.work[thread],
        F.iwork[thread],
        F.screen_sums[slot],
        F.screen_grid[slot],
        F.screen_base[slot],
        F.screen_state[slot],
    )


@njit(_nrt=False)
def split_attempt_probe(trees, tree, leaf, thread):  # pragma: no cover - compiled, never run
    """Calls :data:`AHEAD_KERNELS` as training does: compiling it compiles them with the argument
    types training gives them, for a pool's arrays ``trees``, so that a second process can compile
    them while a booster's first run compiles the rest (:mod:`boostbench.system.compile_ahead`).
    Not run: it would change the trees.
    """
    F = Forest(*trees)
    slot = F.node_slot[leaf]
    best_split(*_split_arguments(F, tree, leaf, slot, thread, 0.0))
    reset_splitters(F, slot)
    limit_size(F)


#: a split attempt's kernels a second process compiles on an empty kernel cache, in the order
#: numba reaches them compiling a booster's training: a third of the whole (:func:`_apply`'s
#: ``split_leaf``, reached between them, is this process's share)
AHEAD_KERNELS = (best_split, reset_splitters, limit_size)


@inlined_kernel
def _apply(F, tree, result):  # pragma: no cover
    """Carry out the split attempt :func:`_train` decided for ``tree``; returns ``result``, or -1
    when the leaf split (it no longer predicts).
    """
    pending = F.pending
    decision, leaf = pending[tree, PENDING], pending[tree, PENDING_LEAF]
    if decision == RESET:
        reset_splitters(F, F.node_slot[leaf])
    elif decision == SPLIT:
        split_leaf(
            F,
            leaf,
            F.node_slot[leaf],
            pending[tree, PENDING_FEATURE],
            pending[tree, PENDING_KIND],
            F.pending_value[tree],
        )
        return -1
    return result
