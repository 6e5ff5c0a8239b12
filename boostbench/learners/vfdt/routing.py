"""Walking the trees: the leaf an example reaches, and the trees' predictions.

As river's trees: a missing value follows the child with the most weight (ties: the oldest
child); in training, an unseen nominal value gets a new leaf under a multiway branch, in
prediction it follows the heaviest child. Leaves predict their normalised class weights
(majority-class leaves, ``'mc'``), or by naive Bayes (``'nb'``, ``'nba'``: :mod:`~.naive_bayes`).
"""

from __future__ import annotations

import numpy as np

from boostbench.learners.vfdt.layout import (
    LEAF,
    NO_CHOICE,
    NOMINAL_BINARY,
    NUMERIC,
    ROUTE_BRANCH,
    ROUTE_CHOICE,
    ROUTE_LEAF,
    ROUTE_PARENT,
    ROUTE_VALID,
    TEST,
    Forest,
    copy_into,
    node_weight,
)
from boostbench.learners.vfdt.naive_bayes import leaf_naive_bayes, predicts_by_naive_bayes
from boostbench.system.kernel_cache import inlined_kernel, kernel

# How a walk reached its leaf (find_leaf's branch, and a route's ROUTE_BRANCH): directly (in
# predict_all also: still walking), by a missing value's detour, or not yet (predict_all walks the
# tree again alone); a branch >= 0 is a multiway value's code without a child
DIRECT, DETOUR, REWALK = -1, -2, -3


@kernel
def next_child(node, node_nav, after):  # pragma: no cover - compiled
    """The child of ``node`` with the lowest node id above ``after`` (-1 if none): children by age,
    the order river keeps them in.
    """
    child = -1
    for b in range(1, node_nav.shape[1]):
        c = node_nav[node, b]
        if c > after and (child < 0 or c < child):
            child = c
    return child


@kernel
def _subtree_weight(node, node_nav, node_stats, node_classes, node_sub, node_parent):  # pragma: no cover - compiled
    """Class weight held by the leaves under ``node``, summed child by child in age order (river's
    ``total_weight`` of a branch: the statistics a branch kept from its split do not count).

    A branch keeps its sum in ``node_sub`` (NaN when stale: training marks the path up from the
    leaf it changes), so a detour costs the children's sums, not a walk over the subtree. The
    cached value is the one the same additions give, so it is exact.
    """
    if node_nav[node, TEST] == LEAF:
        return node_weight(node, node_stats, node_classes)
    cached = node_sub[node]
    if cached == cached:
        return cached
    total = 0.0
    child = next_child(node, node_nav, -1)
    while child >= 0:
        total += _subtree_weight(child, node_nav, node_stats, node_classes, node_sub, node_parent)
        child = next_child(node, node_nav, child)
    node_sub[node] = total
    return total


@kernel
def mark_stale(node, node_sub, node_parent):  # pragma: no cover - compiled
    """The subtree sums of ``node`` and its ancestors are stale. A stale node's ancestors are all
    stale (sums are refreshed top-down), so the walk up stops at the first stale one.
    """
    while node >= 0 and node_sub[node] == node_sub[node]:
        node_sub[node] = np.nan
        node = node_parent[node]


@kernel
def _heaviest_child(node, node_nav, node_stats, node_classes, node_sub, node_parent):  # pragma: no cover - compiled
    """River's most common path: the child whose leaves hold the most weight; ties go to the
    oldest child.
    """
    heaviest = -1
    best = -1.0
    child = next_child(node, node_nav, -1)
    while child >= 0:
        w = _subtree_weight(child, node_nav, node_stats, node_classes, node_sub, node_parent)
        if w > best:
            best = w
            heaviest = child
        child = next_child(node, node_nav, child)
    return heaviest


@kernel
def _branch(node, value, node_nav, node_value):  # pragma: no cover - compiled
    """The branch the internal ``node``'s test sends ``value`` down: numeric ``value <= threshold``
    -> 0, else 1; nominal binary ``value == v`` -> 0, else 1; multiway the value's code. -1 for a
    missing value (NaN) or a code past the node's children.
    """
    if value != value:
        return -1
    kind = node_nav[node, TEST] & 3
    if kind == NUMERIC:
        return 0 if value <= node_value[node] else 1
    if kind == NOMINAL_BINARY:
        return 0 if value == node_value[node] else 1
    code = int(value)
    return code if code < node_nav.shape[1] - 1 else -1


@kernel
def _walk(
    node, parent, x, tree, node_nav, node_value, node_stats, node_classes, node_sub, node_parent, feat_map
):  # pragma: no cover - compiled
    """Walk from ``node`` (child of ``parent``) down to a leaf; see :func:`find_leaf`."""
    detour = False
    while node_nav[node, TEST] != LEAF:
        test = node_nav[node, TEST]
        branch = _branch(node, x[feat_map[tree, test >> 2]], node_nav, node_value)
        child = node_nav[node, 1 + branch] if branch >= 0 else -1
        if child < 0 and branch >= 0:  # multiway, no child for the value yet
            return -1, node, branch
        if child < 0:  # missing value (or a code past the children): the most traversed path
            detour = True
            child = _heaviest_child(node, node_nav, node_stats, node_classes, node_sub, node_parent)
        parent = node
        node = child
    return node, parent, DETOUR if detour else DIRECT


@kernel
def find_leaf(
    tree, x, root, node_nav, node_value, node_stats, node_classes, node_sub, node_parent, feat_map
):  # pragma: no cover - compiled
    """The leaf ``x`` reaches in ``tree`` when it trains (missing values follow the heaviest child).

    Returns ``(leaf, parent, branch)``; ``leaf = -1`` when a multiway branch has no child for
    the value, with ``parent`` that branch and ``branch`` the value's code (training adds a leaf
    there); ``branch`` DETOUR when the path took a missing value's detour, else DIRECT.
    """
    return _walk(
        root[tree], -1, x, tree, node_nav, node_value, node_stats, node_classes, node_sub, node_parent, feat_map
    )


@kernel
def _predicting_leaf(
    leaf, parent, tree, x, node_nav, node_value, node_stats, node_classes, node_sub, node_parent, feat_map
):  # pragma: no cover - compiled
    """The leaf that predicts for ``x`` given where training would end: at a multiway branch
    without a child for the value, river follows the most common path (and walks on).
    """
    while leaf < 0:
        start = _heaviest_child(parent, node_nav, node_stats, node_classes, node_sub, node_parent)
        leaf, parent, _ = _walk(
            start, parent, x, tree, node_nav, node_value, node_stats, node_classes, node_sub, node_parent, feat_map
        )
    return leaf


@inlined_kernel
def leaf_for(F, tree, x):  # pragma: no cover - compiled
    """:func:`find_leaf` over the Forest ``F``'s arrays (the call passes those, not every field)."""
    return find_leaf(
        tree, x, F.root, F.node_nav, F.node_value, F.node_stats, F.node_classes, F.node_sub, F.node_parent, F.feat_map
    )


@inlined_kernel
def predicting_leaf_for(F, tree, x, leaf, parent):  # pragma: no cover - compiled
    """:func:`_predicting_leaf` over the Forest ``F``'s arrays."""
    return _predicting_leaf(
        leaf,
        parent,
        tree,
        x,
        F.node_nav,
        F.node_value,
        F.node_stats,
        F.node_classes,
        F.node_sub,
        F.node_parent,
        F.feat_map,
    )


@inlined_kernel
def predict_tree(tree, x, out, trees, labels_only, nb_leaves):  # pragma: no cover - compiled
    """Write tree ``tree``'s class distribution for ``x`` into ``out`` (``(k,)``; uniform if empty);
    ``labels_only``, ``nb_leaves``: see :func:`predict_all`.
    """
    F = Forest(*trees)
    leaf, parent, _ = leaf_for(F, tree, x)
    leaf = predicting_leaf_for(F, tree, x, leaf, parent)
    _leaf_distribution(F, tree, leaf, x, out, labels_only, nb_leaves)


@inlined_kernel
def write_distribution(trees, tree, source, x, out, labels_only, nb_leaves):  # pragma: no cover - compiled
    """Write what leaf ``source`` of tree ``tree`` predicts for ``x`` into ``out`` (``(k,)``), to
    the last bit as river's leaf: its class weights times 1 / their total (river's
    normalisation), or uniform if empty; or its naive Bayes (:mod:`~.naive_bayes`);
    ``labels_only``, ``nb_leaves``: see :func:`predict_all`.
    """
    _leaf_distribution(Forest(*trees), tree, source, x, out, labels_only, nb_leaves)


@inlined_kernel
def _leaf_distribution(F, tree, leaf, x, out, labels_only, nb_leaves):  # pragma: no cover - compiled
    """:func:`write_distribution` inside the kernels (prediction is serial: thread 0's scratch).
    Returns the class naive Bayes chose (:func:`~.naive_bayes.leaf_naive_bayes`), or NO_CHOICE
    when the leaf predicted its class weights.
    """
    if nb_leaves is not None and predicts_by_naive_bayes(F, leaf):
        return leaf_naive_bayes(F, tree, leaf, x, 0, out, labels_only)
    _write_distribution(F.node_stats, F.node_classes, leaf, out)
    return NO_CHOICE


@inlined_kernel
def _write_distribution(node_stats, node_classes, source, out):  # pragma: no cover - compiled
    # inlined (as node_weight): called per tree and per example, where a call cost as much as
    # the work it did
    total = node_weight(source, node_stats, node_classes)
    k = out.shape[0]
    if total > 0.0:
        scale = 1.0 / total
        for c in range(k):
            out[c] = node_stats[source, c] * scale
    else:
        for c in range(k):
            out[c] = 1.0 / k


@inlined_kernel
def predict_all(x, out, trees, labels_only, nb_leaves):  # pragma: no cover - compiled
    """Every tree's class distribution for ``x``: ``out`` is ``(N, k)``. With ``labels_only``, a
    row is read only for its most probable class, ties within 1e-9 (Oza's boosting): a
    naive-Bayes leaf may write its choice one-hot (:func:`~.naive_bayes.leaf_naive_bayes`),
    without a logarithm per class and attribute. ``nb_leaves`` is the pool's
    :attr:`~boostbench.learners.compiled_pool.CompiledHoeffdingTreePool.nb_leaves`: None for
    majority-class leaves, whose kernels then compile without the naive-Bayes code (numba prunes a
    branch on an argument's None before typing it: half of a cold start's compile).

    Also keeps each tree's path end ``(leaf, parent, branch)`` in ``route`` (``(N, 5)``, columns
    ROUTE_LEAF, ROUTE_PARENT, ROUTE_BRANCH and ROUTE_VALID = 1) and ``x`` in ``route_x``, so that
    training on the same ``x`` right after need not walk the trees again
    (:func:`~.training.learn_all` checks ``x`` and each tree's flag); and in ROUTE_CHOICE the class
    a naive-Bayes leaf at that end chose, which an NBA leaf's tally then need not take again.

    The trees are walked side by side, a level of every tree at a time: a walk is a chain of
    dependent loads, and chains of different trees overlap. A tree whose walk meets a missing
    value or a multiway branch without a child for the value is walked alone afterwards
    (:func:`find_leaf`, :func:`_predicting_leaf`), with the same result.
    """
    F = Forest(*trees)
    route, root, node_nav, node_value, feat_map = F.route, F.root, F.node_nav, F.node_value, F.feat_map
    route_x = F.route_x
    copy_into(route_x, x)
    n_trees = out.shape[0]
    for tree in range(n_trees):  # each walk starts at its root, DIRECT while walking
        route[tree, ROUTE_LEAF], route[tree, ROUTE_PARENT] = root[tree], -1
        route[tree, ROUTE_BRANCH], route[tree, ROUTE_VALID] = DIRECT, 0
    walking = n_trees
    while walking > 0:
        walking = 0
        for tree in range(n_trees):
            node = route[tree, ROUTE_LEAF]
            if route[tree, ROUTE_BRANCH] != DIRECT or node_nav[node, TEST] == LEAF:
                continue
            branch = _branch(node, x[feat_map[tree, node_nav[node, TEST] >> 2]], node_nav, node_value)
            child = node_nav[node, 1 + branch] if branch >= 0 else -1
            if child < 0:
                route[tree, ROUTE_BRANCH] = REWALK
                continue
            route[tree, ROUTE_LEAF], route[tree, ROUTE_PARENT] = child, node
            walking += 1
    for tree in range(n_trees):
        if route[tree, ROUTE_BRANCH] == REWALK:
            leaf, parent, branch = leaf_for(F, tree, x)
            route[tree, ROUTE_LEAF], route[tree, ROUTE_PARENT], route[tree, ROUTE_BRANCH] = leaf, parent, branch
            leaf = predicting_leaf_for(F, tree, x, leaf, parent)
        else:
            leaf = route[tree, ROUTE_LEAF]
        route[tree, ROUTE_VALID], route[tree, ROUTE_CHOICE] = 1, NO_CHOICE
        if nb_leaves is None or not predicts_by_naive_bayes(F, leaf):
            _write_distribution(F.node_stats, F.node_classes, leaf, out[tree])
        else:
            choice = leaf_naive_bayes(F, tree, leaf, x, 0, out[tree], labels_only)
            if leaf == route[tree, ROUTE_LEAF]:  # the leaf training will reach
                route[tree, ROUTE_CHOICE] = choice


@kernel
def same_example(x, route_x):  # pragma: no cover - compiled
    """Whether ``x`` is bit for bit the example whose routes are kept (NaN equals NaN)."""
    for j in range(x.shape[0]):
        if x[j] != route_x[j] and not (x[j] != x[j] and route_x[j] != route_x[j]):
            return False
    return True


@inlined_kernel
def forget_routes_unless(x, trees):  # pragma: no cover - compiled
    """Clear the kept routes (:func:`predict_all`) unless they were taken for ``x``."""
    F = Forest(*trees)
    if not same_example(x, F.route_x):
        F.route[:, ROUTE_VALID] = 0
