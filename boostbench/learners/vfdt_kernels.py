"""Compiled Hoeffding-tree (VFDT) kernels for N trees held in flat arrays.

The semantics follow river's ``HoeffdingTreeClassifier`` (river 0.26, the reference pool):

- a leaf keeps class weights; while active it also keeps, per attribute it sees, a nominal
  count table or per-class Gaussian estimators (weighted mean/variance, min, max);
- when an active, impure leaf has gained ``grace_period`` weight since its last attempt it
  tries to split: each attribute proposes its best split by information gain (nominal: the
  multiway split and every one-vs-rest binary split; numeric: 10 evenly spaced thresholds
  between the observed min and max, class weights on each side from the Gaussian CDFs); a split
  needs two branches with more than 1% of the weight, else its merit is -inf;
- with ``eps = sqrt(R^2 ln(1/delta) / (2 W))``, ``R = log2(max(classes seen, 2))``, the best
  split is taken when ``best - second > eps`` or ``eps < tau``; if the best merit is -inf (the
  null split wins) or a class holds more than 99% of the weight, the leaf's attribute
  statistics are discarded and it starts gathering them afresh. (river deactivates the leaf, and
  its memory manager, called right after, reactivates every inactive leaf with empty splitters
  while the tree is under its size limit: the net effect is this reset);
- children start from the split's class distributions; a missing value follows the child with
  the most weight (ties: the oldest child); in training, an unseen nominal value gets a new leaf
  under a multiway branch, in prediction it follows the heaviest child; a leaf reached by a
  detour learns from the example but does not try to split on it (as in river);
- leaves predict their normalised class weights (majority-class leaves, ``'mc'``).

Bit for bit: split merits tie often (a multiway split with two values seen and its binary
split; equal counts), and which one wins then depends on rounding. So every sum is taken in the
order river's dicts would give: attributes, classes and nominal values in the order a leaf's
splitters first saw them, a leaf's classes in the order it first held them (a class can be held
with weight 0 after a numeric split, and counts in the Hoeffding bound's range), children by
age. With that, the compiled trees predict exactly what river's trees predict (tested on every
vendored data set, with unit and random weights). This holds for Python <= 3.11, whose ``sum``
adds floats one by one (3.12 compensates: there the trees agree to rounding, not to the bit).

Memory: a budget for the whole pool in bytes (``limits``), river's ``max_size`` rule applied
to the N trees as one model. The size is counted exactly: nodes times the bytes of a node row
plus active leaves times the bytes of a statistics slot. When a training call leaves the pool
past its budget, river's rule (Kirkby 2007; river's ``_enforce_size_limit``) runs over every
leaf: leaves are ranked by promise (weight not of the majority class, divided by the tree's
c_i so that trees compare), as many of the most promising as fit in 90% of the budget beside the
nodes stay (or become again) active, and the others are deactivated: they keep their class
weights and lose their attribute statistics. (The 10% slack makes the ranking run once per
tenth of the budget grown, not at every split; river instead measures its size every
``memory_estimate_period`` units of weight, so with the boosters' real-valued weights its
manager seldom runs.) A pool whose nodes alone fill the budget grows no more. Unbounded in the
kernels unless given; the configs set a budget that no vendored data set reaches.

Layout: nodes of all trees share arrays indexed by node id; active leaves own a "slot" in the
statistics arrays (released when they split or are deactivated). The Python side
(:mod:`boostbench.learners.compiled_pool`) grows the arrays before each call.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from boostbench.kernel_cache import njit
from boostbench.learners.merit_bounds import REFRESH_AFTER, numeric_merit_bounds

# No reference counting in the kernels: numba would otherwise increment and decrement each of a
# call's ~30 array arguments, which costs more than a tree's training step. So the kernels
# allocate nothing: scratch space comes from the pool (:func:`scratch`).
kernel = njit(cache=True, _nrt=False)
# Called per tree per example with the whole Forest: inlined, or every call would copy its fields.
inlined_kernel = njit(cache=True, _nrt=False, inline="always")
# The one kernel with a parallel loop (threads over trees, :func:`learn_trees_threaded`). In it,
# numba drops a store made through a field of the Forest tuple in code inlined outside the loop
# (numba#5872, #7135): such stores belong in a kernel it calls.
parallel_kernel = njit(cache=True, _nrt=False, parallel=True)


class Forest(NamedTuple):
    """The compiled pool's N trees as the kernels see them, fields by name.

    The public kernels (:func:`predict_all`, :func:`predict_tree`, :func:`learn_trees`,
    :func:`learn_all`, :func:`write_distribution`, :func:`forget_routes_unless`) take ``trees``:
    the pool's :meth:`~boostbench.learners.compiled_pool.CompiledHoeffdingTreePool.kernel_state`,
    a plain tuple of these fields in this order, and name them with ``F = Forest(*trees)`` (free
    in compiled code). Plain, because numba's dispatcher types a plain tuple of arrays in C and a
    named one in Python, 2 µs more per call from Python. A booster kernel passes ``trees`` on.
    A new field is added here only: the pool fills the tuple by these names.

    Inside, the helpers called per node, per tree of a walk or recursively (the walk, subtree
    weights, a leaf's distribution, a split attempt's merits) take the arrays they read instead:
    a call that is not inlined passes every field of a tuple argument (over 200 machine words),
    which doubled the cost of :func:`predict_all`.

    Nodes (all trees, by node id, ``capacity`` rows): ``node_nav`` int64 ``(capacity, 1 + width)``
    (test, children), ``node_value`` float64 (threshold or value), ``node_stats`` float64
    ``(capacity, k)`` class weights, ``node_classes`` int32 ``(capacity, k + 1)`` classes by first
    sight and their count, ``node_sub`` float64 cached subtree weight (NaN: stale),
    ``node_last`` float64 weight at the last split attempt, ``node_parent``, ``node_slot``,
    ``node_depth`` int64, ``node_active`` bool-like int64. Statistics slots (active leaves):
    ``nominal_counts``, ``numeric_stats`` (per attribute and class a Gaussian estimator
    ``[weight, mean, S, min, max]``), ``ranks``, ``value_ranks``, ``free_slots``.
    Per tree: ``root``, ``feat_map`` int64 ``(N, d_local)`` the attributes each tree sees,
    ``feat_nominal`` bool ``(N, d_local)``, ``split_params`` float64 ``(N, 3)`` (columns GRACE,
    DELTA, TAU), ``weight_scale`` float64 ``(N,)`` (c_i).
    ``counters`` int64 ``(4,)`` nodes used, slots used, free slots, budget enforcements;
    ``limits`` int64 ``(3,)`` bytes of a node row, of a statistics slot and the pool's budget
    (entries NODE_BYTES, SLOT_BYTES, MAX_BYTES); ``sort_keys`` float64, ``sort_ids`` int64
    ``(capacity,)`` scratch for ranking the leaves; ``pending`` int64 ``(N, 5)`` and
    ``pending_value`` float64 ``(N,)`` a split attempt decided, not yet made (:func:`_train`);
    ``route`` int64 ``(N, 4)`` and ``route_x`` float64 ``(d,)`` where the last
    predicted example ends in each tree (:func:`predict_all`); ``work``/``iwork`` scratch
    (:func:`scratch`). Per slot, the split screen's cache (:mod:`~boostbench.learners.merit_bounds`):
    ``screen_sums`` float64 ``(d_numeric, 2, N_SPLIT_POINTS)``, ``screen_grid`` and ``screen_base``
    float64 ``(d_numeric, 5)``, ``screen_state`` int64 ``(2,)`` (INVALID, CLEAN or DIRTY + the one
    class trained since the last screen; screens since the sums were last taken afresh).
    """

    root: np.ndarray
    node_nav: np.ndarray
    node_value: np.ndarray
    node_stats: np.ndarray
    node_classes: np.ndarray
    node_sub: np.ndarray
    node_last: np.ndarray
    node_parent: np.ndarray
    node_slot: np.ndarray
    node_active: np.ndarray
    node_depth: np.ndarray
    nominal_counts: np.ndarray
    numeric_stats: np.ndarray
    ranks: np.ndarray
    attr_ranks: np.ndarray
    value_ranks: np.ndarray
    free_slots: np.ndarray
    counters: np.ndarray
    pending: np.ndarray
    pending_value: np.ndarray
    limits: np.ndarray
    sort_keys: np.ndarray
    sort_ids: np.ndarray
    feat_map: np.ndarray
    feat_nominal: np.ndarray
    split_params: np.ndarray
    weight_scale: np.ndarray
    route: np.ndarray
    route_x: np.ndarray
    work: np.ndarray
    iwork: np.ndarray
    screen_sums: np.ndarray
    screen_grid: np.ndarray
    screen_base: np.ndarray
    screen_state: np.ndarray


@kernel
def copy_into(dst, src):  # pragma: no cover - compiled
    """``dst[:] = src`` for 1-d arrays, without the temporary numba's slice assignment may need."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]

NUMERIC, NOMINAL_BINARY, MULTIWAY = 0, 1, 2
# A node's row of ``node_nav`` holds what a walk down the tree reads, in one cache line for small
# widths: column TEST is LEAF or ``feature * 4 + kind``, columns 1.. the children by branch.
TEST, LEAF = 0, -1
MIN_BRANCH_FRACTION = 0.01
MAX_SHARE_TO_SPLIT = 0.99
N_SPLIT_POINTS = 10
GRACE, DELTA, TAU = 0, 1, 2  # columns of a pool's per-tree ``split_params``
NODE_BYTES, SLOT_BYTES, MAX_BYTES = 0, 1, 2  # entries of a pool's ``limits``
NUMERIC_COLUMNS = 5  # a class's Gaussian estimator (numeric_stats[slot, j, c]): weight, mean, S, min, max


@kernel
def _merit_of_branches(pre_entropy, entropies, weights):  # pragma: no cover - compiled
    """Information gain of a split whose branches have these entropies and weights; -inf if
    fewer than two branches hold more than 1% of the weight. Zero-weight branches count for
    nothing, so every value of a nominal attribute can be passed."""
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
def _sigma(stats, half):  # pragma: no cover - compiled
    """Standard deviation of a Gaussian estimator ``[weight, mean, S, min, max]`` (variance
    ddof 1), 0 when the variance is 0, in river's steps.

    ``half`` is 0.5, passed at run time: river takes ``var ** 0.5`` with C's ``pow``, which is
    not ``sqrt`` to the last bit, and a literal 0.5 lets the compiler turn it into ``sqrt``.
    """
    n, s = stats[0], stats[2]
    var = s / (n - 1.0) if n > 1.0 else 0.0
    return var ** half if var > 0.0 else 0.0


@kernel
def _gaussian_cdf(stats, sigma, value):  # pragma: no cover - compiled
    """CDF at ``value`` of a Gaussian estimator with standard deviation ``sigma`` (:func:`_sigma`),
    as river computes it (split merits tie often; the same rounding breaks ties alike). A zero
    deviation gives river a step (0 or 1), or NaN exactly at the mean (0 / 0)."""
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
    ``st`` is the class's ``[weight, mean, S, min, max]``, ``sigma`` its deviation (:func:`_sigma`)."""
    if point < st[3]:
        return 0.0
    if point >= st[4]:
        return st[0]
    return _gaussian_cdf(st, sigma, point) * st[0]


@kernel
def _numeric_split(stats, sigmas, point, post):  # pragma: no cover - compiled
    """Class weights left (``x <= point``) and right of a threshold, from per-class Gaussians.

    ``stats`` is ``(k, 5)`` ``[weight, mean, S, min, max]``, ``sigmas`` ``(k,)`` their deviations
    (:func:`_sigma`); ``post`` ``(2, k)`` is overwritten.
    """
    post[:] = 0.0
    for c in range(stats.shape[0]):
        st = stats[c]
        if st[0] > 0.0:
            post[0, c] = _left_weight(st, sigmas[c], point)
            post[1, c] = st[0] - post[0, c]


@kernel
def _node_weight(node, node_stats, node_classes):  # pragma: no cover - compiled
    """A leaf's total class weight, summed in the order its classes were first seen (river's
    ``sum(stats.values())``: near-equal totals then compare as in river)."""
    row = node_classes[node]
    total = 0.0
    for i in range(row[-1]):
        total += node_stats[node, row[i]]
    return total


@kernel
def _next_child(node, node_nav, after):  # pragma: no cover - compiled
    """The child of ``node`` with the lowest node id above ``after`` (-1 if none): children by age,
    the order river keeps them in."""
    child = -1
    for b in range(1, node_nav.shape[1]):
        c = node_nav[node, b]
        if c > after and (child < 0 or c < child):
            child = c
    return child


@kernel
def _subtree_weight(node, node_nav, node_stats, node_classes, node_sub,
                    node_parent):  # pragma: no cover - compiled
    """Class weight held by the leaves under ``node``, summed child by child in age order (river's
    ``total_weight`` of a branch: the statistics a branch kept from its split do not count).

    A branch keeps its sum in ``node_sub`` (NaN when stale: training marks the path up from the
    leaf it changes), so a detour costs the children's sums, not a walk over the subtree. The
    cached value is the one the same additions give, so it is exact."""
    if node_nav[node, TEST] == LEAF:
        return _node_weight(node, node_stats, node_classes)
    cached = node_sub[node]
    if cached == cached:
        return cached
    total = 0.0
    child = _next_child(node, node_nav, -1)
    while child >= 0:
        total += _subtree_weight(child, node_nav, node_stats, node_classes, node_sub, node_parent)
        child = _next_child(node, node_nav, child)
    node_sub[node] = total
    return total


@kernel
def _mark_stale(node, node_sub, node_parent):  # pragma: no cover - compiled
    """The subtree sums of ``node`` and its ancestors are stale. A stale node's ancestors are all
    stale (sums are refreshed top-down), so the walk up stops at the first stale one."""
    while node >= 0 and node_sub[node] == node_sub[node]:
        node_sub[node] = np.nan
        node = node_parent[node]


@kernel
def _heaviest_child(node, node_nav, node_stats, node_classes, node_sub, node_parent):  # pragma: no cover - compiled
    """river's most common path: the child whose leaves hold the most weight; ties go to the
    oldest child."""
    heaviest = -1
    best = -1.0
    child = _next_child(node, node_nav, -1)
    while child >= 0:
        w = _subtree_weight(child, node_nav, node_stats, node_classes, node_sub, node_parent)
        if w > best:
            best = w
            heaviest = child
        child = _next_child(node, node_nav, child)
    return heaviest


@kernel
def _branch(node, value, node_nav, node_value):  # pragma: no cover - compiled
    """The branch the internal ``node``'s test sends ``value`` down: numeric ``value <= threshold``
    -> 0, else 1; nominal binary ``value == v`` -> 0, else 1; multiway the value's code. -1 for a
    missing value (NaN) or a code past the node's children."""
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
def _walk(node, parent, x, tree, node_nav, node_value,
          node_stats, node_classes, node_sub, node_parent, feat_map):  # pragma: no cover - compiled
    """Walk from ``node`` (child of ``parent``) down to a leaf; see :func:`_find_leaf`."""
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
    return node, parent, -2 if detour else -1


@kernel
def _find_leaf(tree, x, root, node_nav, node_value,
              node_stats, node_classes, node_sub, node_parent, feat_map):  # pragma: no cover - compiled
    """The leaf ``x`` reaches in ``tree`` when it trains (missing values follow the heaviest child).

    Returns ``(leaf, parent, branch)``; ``leaf = -1`` when a multiway branch has no child for
    the value, with ``parent`` that branch and ``branch`` the value's code (training adds a leaf
    there); ``branch = -2`` when the path took a missing value's detour.
    """
    return _walk(root[tree], -1, x, tree, node_nav, node_value,
                 node_stats, node_classes, node_sub, node_parent, feat_map)


@kernel
def _predicting_leaf(leaf, parent, tree, x, node_nav, node_value,
                     node_stats, node_classes, node_sub, node_parent, feat_map):  # pragma: no cover - compiled
    """The leaf that predicts for ``x`` given where training would end: at a multiway branch
    without a child for the value, river follows the most common path (and walks on)."""
    while leaf < 0:
        start = _heaviest_child(parent, node_nav, node_stats, node_classes, node_sub, node_parent)
        leaf, parent, _ = _walk(start, parent, x, tree, node_nav, node_value, node_stats, node_classes, node_sub, node_parent, feat_map)
    return leaf


@kernel
def predict_tree(tree, x, out, trees):  # pragma: no cover - compiled
    """Write tree ``tree``'s class distribution for ``x`` into ``out`` (``(k,)``; uniform if empty)."""
    F = Forest(*trees)
    leaf, parent, _ = _find_leaf(tree, x, F.root, F.node_nav, F.node_value, F.node_stats, F.node_classes, F.node_sub, F.node_parent, F.feat_map)
    leaf = _predicting_leaf(leaf, parent, tree, x, F.node_nav, F.node_value, F.node_stats, F.node_classes, F.node_sub, F.node_parent, F.feat_map)
    _write_distribution(F.node_stats, F.node_classes, leaf, out)


@kernel
def write_distribution(trees, source, out):  # pragma: no cover - compiled
    """Leaf ``source``'s class weights times 1 / their total into ``out`` (``(k,)``; river's
    normalisation, to the last bit), or uniform if empty."""
    F = Forest(*trees)
    _write_distribution(F.node_stats, F.node_classes, source, out)


@kernel
def _write_distribution(node_stats, node_classes, source, out):  # pragma: no cover - compiled
    # the arrays it reads, not the Forest: called per tree and per example, and a call that is
    # not inlined passes every field of its arguments
    total = _node_weight(source, node_stats, node_classes)
    k = out.shape[0]
    if total > 0.0:
        scale = 1.0 / total
        for c in range(k):
            out[c] = node_stats[source, c] * scale
    else:
        for c in range(k):
            out[c] = 1.0 / k


@kernel
def predict_all(x, out, trees):  # pragma: no cover - compiled
    """Every tree's class distribution for ``x``: ``out`` is ``(N, k)``.

    Also keeps each tree's path end ``(leaf, parent, branch)`` in ``route`` (``(N, 4)``, column 3
    = valid) and ``x`` in ``route_x``, so that training on the same ``x`` right after need not
    walk the trees again (:func:`learn_all` checks ``x`` and each tree's flag).

    The trees are walked side by side, a level of every tree at a time: a walk is a chain of
    dependent loads, and chains of different trees overlap. A tree whose walk meets a missing
    value or a multiway branch without a child for the value is walked alone afterwards
    (:func:`_find_leaf`, :func:`_predicting_leaf`), with the same result.
    """
    F = Forest(*trees)
    route, root, node_nav, node_value, feat_map = F.route, F.root, F.node_nav, F.node_value, F.feat_map
    route_x = F.route_x
    copy_into(route_x, x)
    n_trees = out.shape[0]
    for tree in range(n_trees):  # route[tree] = (node, parent, -1 while walking / -3 to redo, 0)
        route[tree, 0], route[tree, 1], route[tree, 2], route[tree, 3] = root[tree], -1, -1, 0
    walking = n_trees
    while walking > 0:
        walking = 0
        for tree in range(n_trees):
            node = route[tree, 0]
            if route[tree, 2] != -1 or node_nav[node, TEST] == LEAF:
                continue
            branch = _branch(node, x[feat_map[tree, node_nav[node, TEST] >> 2]], node_nav, node_value)
            child = node_nav[node, 1 + branch] if branch >= 0 else -1
            if child < 0:
                route[tree, 2] = -3
                continue
            route[tree, 0], route[tree, 1] = child, node
            walking += 1
    for tree in range(n_trees):
        if route[tree, 2] == -3:
            leaf, parent, branch = _find_leaf(tree, x, F.root, F.node_nav, F.node_value, F.node_stats, F.node_classes, F.node_sub, F.node_parent, F.feat_map)
            route[tree, 0], route[tree, 1], route[tree, 2] = leaf, parent, branch
            leaf = _predicting_leaf(leaf, parent, tree, x, F.node_nav, F.node_value, F.node_stats, F.node_classes, F.node_sub, F.node_parent, F.feat_map)
        else:
            leaf = route[tree, 0]
        route[tree, 3] = 1
        _write_distribution(F.node_stats, F.node_classes, leaf, out[tree])


@kernel
def same_example(x, route_x):  # pragma: no cover - compiled
    """Whether ``x`` is bit for bit the example whose routes are kept (NaN equals NaN)."""
    for j in range(x.shape[0]):
        if x[j] != route_x[j] and not (x[j] != x[j] and route_x[j] != route_x[j]):
            return False
    return True


@kernel
def _add_class(row, c):  # pragma: no cover - compiled
    """Append class ``c`` to a node's classes in first-seen order (``row``: classes, then their count)."""
    n = row[-1]
    for i in range(n):
        if row[i] == c:
            return
    row[n] = c
    row[-1] = n + 1


@kernel
def _new_node(F, parent, depth):  # pragma: no cover - compiled
    """A new empty, active leaf under ``parent`` (-1 for a root) with a statistics slot; its id."""
    counters = F.counters
    node = counters[0]
    counters[0] += 1
    F.node_parent[node] = parent
    F.node_sub[node] = np.nan
    F.node_active[node] = True
    F.node_depth[node] = depth
    F.node_nav[node, :] = -1  # a leaf (TEST = LEAF) without children
    F.node_stats[node, :] = 0.0
    F.node_classes[node, -1] = 0
    F.node_last[node] = 0.0
    F.node_slot[node] = _take_slot(counters, F.free_slots)
    return node


@kernel
def _take_slot(counters, free_slots):  # pragma: no cover - compiled
    """A free statistics slot (zeroed), or a new one."""
    if counters[2] > 0:
        counters[2] -= 1
        return free_slots[counters[2]]
    counters[1] += 1
    return counters[1] - 1


@kernel
def _add_child(F, leaf, branch, dist, keys, classes, n_classes, depth):  # pragma: no cover - compiled
    """A new leaf under ``leaf`` at ``branch``, starting from class weights ``dist`` (``(k,)``) that
    holds the classes with ``keys > 0`` (``(k,)``; one may hold weight 0, as in river) in the order
    ``classes[:n_classes]``."""
    child = _new_node(F, leaf, depth)
    copy_into(F.node_stats[child], dist)
    for i in range(n_classes):
        if keys[classes[i]] > 0.0:
            _add_class(F.node_classes[child], classes[i])
    F.node_last[child] = _node_weight(child, F.node_stats, F.node_classes)
    F.node_nav[leaf, 1 + branch] = child


@kernel
def _reset_splitters(F, slot):  # pragma: no cover - compiled
    F.nominal_counts[slot] = 0
    F.numeric_stats[slot] = 0.0
    F.ranks[slot] = 0
    F.attr_ranks[slot] = 0
    F.value_ranks[slot] = 0
    # the slot's next leaf starts its screen cache afresh, also for attributes it sees late
    F.screen_state[slot] = INVALID
    F.screen_grid[slot] = 0.0


@kernel
def _release(F, node):  # pragma: no cover - compiled
    slot = F.node_slot[node]
    if slot >= 0:
        _reset_splitters(F, slot)
        F.free_slots[F.counters[2]] = slot
        F.counters[2] += 1
        F.node_slot[node] = -1


@kernel
def _first_seen(row, item):  # pragma: no cover - compiled
    """Give ``item`` the next rank in ``row`` (last entry: the count) if it has none yet."""
    if row[item] == 0:
        row[-1] += 1
        row[item] = row[-1]


@kernel
def _in_rank_order(row, out):  # pragma: no cover - compiled
    """The items ranked in ``row`` (see :func:`_first_seen`), in rank order, into ``out``; their count."""
    n = row[-1]
    for item in range(row.shape[0] - 1):
        if row[item] > 0:
            out[row[item] - 1] = item
    return n


@kernel
def learn_trees(first, stop, x, y, weights, trees):  # pragma: no cover
    """Train trees ``first..stop-1`` on ``(x, y)``, tree t with importance weight
    ``weights[t] * weight_scale[t]`` (c_i) when ``weights[t] > 0``.

    One call for many trees: the loop runs here, not in Python (:func:`learn_trees_threaded`
    is the same on several threads).

    ``route[tree]``, when flagged valid, is where ``x`` ends in this tree (kept by
    :func:`predict_all`); training may change the tree, so the flag is cleared. A pool left past
    its memory budget deactivates its least promising leaves (:func:`_enforce_size_limit`).

    Besides the statistics, a slot keeps the order in which its attributes, each attribute's
    classes and each (nominal attribute, class)'s values were first seen (``ranks``,
    ``value_ranks``): river's splitters are dicts in that order, and summing in the same order
    gives the same merits to the last bit, so that the frequent exact ties break alike.

    Returns:
        For the last tree trained: the leaf that now predicts for ``x`` when training left its
        path as it was (no split, no missing-value detour), else -1 (also when none trained).
    """
    F = Forest(*trees)
    result = -1
    for tree in range(first, stop):
        if weights[tree] > 0.0:
            result = _apply(F, tree, _train(F, tree, x, y, weights[tree], 0, True))
    if size_bytes(F.counters, F.limits) > F.limits[MAX_BYTES]:
        _enforce_size_limit(F)
    return result


@parallel_kernel
def learn_trees_threaded(first, stop, x, y, weights, trees):  # pragma: no cover
    """:func:`learn_trees` on numba's threads (at most ``work.shape[0]``, the pool's
    ``n_threads``: one scratch each), with the same result to the bit: the threads take the trees
    one at a time as they finish the last (split attempts differ in cost, so a fixed share would
    wait for the slowest), update their statistics and decide their split attempts; then the
    splits are made, and the trees that need a new leaf trained, one tree after another in tree
    order. Trees share nothing but
    the node and slot allocators, which only that serial part uses, in the order one thread
    would: the same node ids, the same trees.

    Called from Python only, never from another kernel: numba's cache mishandles a cached kernel
    that calls a parallel one (numba#8578: the process that loads it may crash)."""
    F = Forest(*trees)
    forget_routes_unless(x, trees)
    for tree in numba.prange(first, stop):  # the caller sets numba's chunk size to 1 (dynamic)
        if weights[tree] > 0.0:
            _train_called(F, tree, x, y, weights[tree], numba.get_thread_id())
    for tree in range(first, stop):
        if weights[tree] > 0.0:
            if F.pending[tree, PENDING] == DEFERRED:
                _train(F, tree, x, y, weights[tree], 0, True)
            _apply(F, tree, F.pending[tree, PENDING_RESULT])
    if size_bytes(F.counters, F.limits) > F.limits[MAX_BYTES]:
        _enforce_size_limit(F)


# ``pending[tree]``: what :func:`_train` left for :func:`_apply` (columns), and its states
PENDING, PENDING_LEAF, PENDING_FEATURE, PENDING_KIND, PENDING_RESULT = 0, 1, 2, 3, 4
DEFERRED = -1  # (PENDING) the tree needs a new node: trained again, serially


@inlined_kernel
def _train(F, tree, x, y, weight, thread, may_grow):  # pragma: no cover
    """Add ``(x, y)`` with ``weight`` (times c_i) to the leaf ``x`` reaches in ``tree`` and, when
    due, decide its split attempt with the scratch of ``thread``. Leaves in ``pending[tree]`` the decision
    (KEEP, RESET, SPLIT; or DEFERRED, having changed nothing, when the tree needs a new leaf and
    ``may_grow`` is False), the leaf, the split and :func:`learn_trees`' result for the tree
    (``pending_value[tree]``: the split's value); returns that result."""
    node_nav, node_stats, node_classes, node_active = F.node_nav, F.node_stats, F.node_classes, F.node_active
    route, feat_map, feat_nominal = F.route, F.feat_map, F.feat_nominal
    nominal_counts, numeric_stats, ranks, value_ranks = F.nominal_counts, F.numeric_stats, F.ranks, F.value_ranks
    attr_ranks, pending = F.attr_ranks, F.pending
    n_local = feat_map.shape[1]
    w = weight * F.weight_scale[tree]
    if route[tree, 3] == 1:
        leaf, parent, branch = route[tree, 0], route[tree, 1], route[tree, 2]
    else:
        leaf, parent, branch = _find_leaf(tree, x, F.root, F.node_nav, F.node_value, F.node_stats, F.node_classes, F.node_sub, F.node_parent, F.feat_map)
    pending[tree, PENDING] = KEEP
    if leaf < 0 and not may_grow:
        pending[tree, PENDING] = DEFERRED
        return -1
    route[tree, 3] = 0
    may_split = branch == -1  # river tries splits only at a leaf reached directly
    if leaf < 0:  # unseen nominal value under a multiway branch: a new leaf for it
        leaf = _new_node(F, parent, F.node_depth[parent] + 1)
        node_nav[parent, 1 + branch] = leaf
        may_split = False
    result = leaf if branch != -2 else -1  # a detour may turn with the new weight
    pending[tree, PENDING_LEAF] = leaf
    pending[tree, PENDING_RESULT] = result
    node_stats[leaf, y] += w
    _add_class(node_classes[leaf], y)
    _mark_stale(F.node_parent[leaf], F.node_sub, F.node_parent)
    if not node_active[leaf]:
        return result
    slot = F.node_slot[leaf]
    # the split screen's cache stays usable while one class alone changes: keep that class's
    # estimators as they were at the last screen
    snapshot = False
    if F.work[thread][10, 2] > 0.0:
        state = F.screen_state[slot]
        snapshot = state[0] == CLEAN
        if snapshot:
            state[0] = DIRTY + y
        elif state[0] != DIRTY + y:
            state[0] = INVALID
    for j in range(n_local):
        value = x[feat_map[tree, j]]
        if snapshot and not feat_nominal[tree, j]:
            copy_into(F.screen_base[slot, j], numeric_stats[slot, j, y])
        if value != value:
            continue
        _first_seen(attr_ranks[slot], j)
        _first_seen(ranks[slot, j], y)
        if feat_nominal[tree, j]:
            code = int(value)
            if code < nominal_counts.shape[3]:
                _first_seen(value_ranks[slot, y, j], code)
                nominal_counts[slot, y, j, code] += w
        else:
            st = numeric_stats[slot, j, y]
            if st[0] == 0.0:
                st[3] = value
                st[4] = value
            else:
                if value < st[3]:
                    st[3] = value
                if value > st[4]:
                    st[4] = value
            old_mean = st[1]
            st[0] += w
            st[1] += w / st[0] * (value - old_mean)
            st[2] += w * (value - old_mean) * (value - st[1])
    total = _node_weight(leaf, node_stats, node_classes)
    if not may_split or total - F.node_last[leaf] < F.split_params[tree, GRACE]:
        return result
    F.node_last[leaf] = total
    decision, feature, kind, value = _best_split(
        tree, node_stats[leaf], node_classes[leaf], total, nominal_counts[slot], numeric_stats[slot],
        ranks[slot], attr_ranks[slot], value_ranks[slot], feat_nominal, F.split_params, F.work[thread], F.iwork[thread],
        F.screen_sums[slot], F.screen_grid[slot], F.screen_base[slot], F.screen_state[slot])
    pending[tree, PENDING], pending[tree, PENDING_FEATURE], pending[tree, PENDING_KIND] = decision, feature, kind
    F.pending_value[tree] = value
    return result


@kernel
def _train_called(F, tree, x, y, weight, thread):  # pragma: no cover
    """:func:`_train` as a call, without growing the tree, for the parallel loop: with
    :func:`_train` inlined into its body, numba 0.68 compiled a loop whose trees never split."""
    return _train(F, tree, x, y, weight, thread, False)


@inlined_kernel
def _apply(F, tree, result):  # pragma: no cover
    """Carry out the split attempt :func:`_train` decided for ``tree``; returns ``result``, or -1
    when the leaf split (it no longer predicts)."""
    pending = F.pending
    decision, leaf = pending[tree, PENDING], pending[tree, PENDING_LEAF]
    if decision == RESET:
        _reset_splitters(F, F.node_slot[leaf])
    elif decision == SPLIT:
        _split(F, leaf, F.node_slot[leaf], pending[tree, PENDING_FEATURE], pending[tree, PENDING_KIND],
               F.pending_value[tree])
        return -1
    return result


@kernel
def size_bytes(counters, limits):  # pragma: no cover - compiled
    """The pool's size as its budget counts it: nodes times a node row plus active leaves (slots
    in use) times a statistics slot, in bytes."""
    return counters[0] * limits[NODE_BYTES] + (counters[1] - counters[2]) * limits[SLOT_BYTES]


@kernel
def _leaves_of(root, node_nav, node_parent, out):  # pragma: no cover - compiled
    """The leaves under ``root`` in depth-first order, children by age, into ``out``; their number.
    (Without a stack: back up through the parents to the next younger sibling.)"""
    n = 0
    node = root
    while True:
        child = _next_child(node, node_nav, -1) if node_nav[node, TEST] != LEAF else -1
        if child >= 0:
            node = child
            continue
        if node_nav[node, TEST] == LEAF:
            out[n] = node
            n += 1
        while True:
            if node == root:
                return n
            parent = node_parent[node]
            sibling = _next_child(parent, node_nav, node)
            if sibling >= 0:
                node = sibling
                break
            node = parent


@kernel
def _before(keys, ids, a, b):  # pragma: no cover - compiled
    return keys[a] < keys[b] or (keys[a] == keys[b] and ids[a] < ids[b])


@kernel
def _sift_down(keys, ids, root, end):  # pragma: no cover - compiled
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and _before(keys, ids, child, child + 1):
            child += 1
        if not _before(keys, ids, root, child):
            return
        keys[root], keys[child] = keys[child], keys[root]
        ids[root], ids[child] = ids[child], ids[root]
        root = child


@kernel
def _sort_by_key(keys, ids, n):  # pragma: no cover - compiled
    """Sort ``keys[:n]`` ascending, ties by ``ids``, moving ``ids`` along (heap sort: in place)."""
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(keys, ids, start, n)
    for end in range(n - 1, 0, -1):
        keys[0], keys[end] = keys[end], keys[0]
        ids[0], ids[end] = ids[end], ids[0]
        _sift_down(keys, ids, 0, end)


@kernel
def _enforce_size_limit(F):  # pragma: no cover - compiled
    """river's memory manager over the pool: rank every leaf by promise (weight not of the
    majority class over its tree's c_i; ties by node id), keep as many of the most promising
    active as 90% of the budget holds beside the nodes, deactivate the rest and reactivate the
    inactive ones within the cut."""
    node_stats, node_classes, node_active = F.node_stats, F.node_classes, F.node_active
    keys, ids, limits = F.sort_keys, F.sort_ids, F.limits
    n = 0
    for tree in range(F.root.shape[0]):
        first = n
        n += _leaves_of(F.root[tree], F.node_nav, F.node_parent, ids[n:])
        for i in range(first, n):
            total = _node_weight(ids[i], node_stats, node_classes)
            majority = 0.0
            for c in range(node_stats.shape[1]):
                majority = max(majority, node_stats[ids[i], c])
            keys[i] = (total - majority) / F.weight_scale[tree] if total > 0.0 else 0.0
    _sort_by_key(keys, ids, n)
    room = limits[MAX_BYTES] - limits[MAX_BYTES] // 10 - F.counters[0] * limits[NODE_BYTES]
    cutoff = n - min(n, max(0, room // limits[SLOT_BYTES]))
    for i in range(cutoff):  # first release, so that the reactivated find free slots
        if node_active[ids[i]]:
            node_active[ids[i]] = False
            _release(F, ids[i])
    for i in range(cutoff, n):
        if not node_active[ids[i]]:
            node_active[ids[i]] = True
            F.node_slot[ids[i]] = _take_slot(F.counters, F.free_slots)
    F.counters[3] += 1


@kernel
def _entropy_in_order(dist, order, n):  # pragma: no cover - compiled
    """Entropy in bits of class weights ``dist`` (``(k,)``) and their total, summed over the
    classes ``order[:n]`` (a river dict's order; zero weights skipped), as river's
    ``InfoGainSplitCriterion`` computes it. Returns ``(entropy, total)``, ``(0, 0)`` if empty."""
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
def _threshold_merit(stats, sigmas, whole_terms, point, classes, n_classes, pre_entropy, pair_entropy,
                     pair_weight):  # pragma: no cover
    """Merit of the numeric split at ``point``: :func:`_numeric_split` and both sides'
    :func:`_entropy_in_order` in one pass over the splitter's classes ``classes[:n_classes]``
    (the same operations on the same values, each side summed in the same order). A class wholly
    on one side brings its ``w log2 w`` from ``whole_terms`` (``(k,)``), the same for every point.
    ``pair_entropy`` and ``pair_weight`` (``(2,)``) are overwritten."""
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
    return _merit_of_branches(pre_entropy, pair_entropy, pair_weight)


@kernel
def _entropy_keeping_terms(dist, terms):  # pragma: no cover - compiled
    """:func:`_entropy_in_order` over the classes in index order, keeping each class's term
    ``w log2 w`` in ``terms`` (``(k,)``) for :func:`_entropy_from_terms`.
    Returns ``(entropy, total, log2(total))``."""
    total = 0.0
    h = 0.0
    for c in range(dist.shape[0]):
        value = dist[c]
        if value > 0.0:
            terms[c] = value * math.log2(value)
            h -= terms[c]
            total += value
    if total <= 0.0:
        return 0.0, 0.0, 0.0
    log_total = math.log2(total)
    return (h + total * log_total) / total, total, log_total


@kernel
def _entropy_from_terms(dist, order, n, terms, known_total, known_log):  # pragma: no cover - compiled
    """:func:`_entropy_in_order` of ``dist`` in the class order ``order[:n]``, taking the terms
    ``w log2 w`` from ``terms`` and ``log2(total)`` from ``known_log`` when the total sums to
    ``known_total``: the same operations on the same values, without the logarithms.
    Returns ``(entropy, total)``."""
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
def _value_orders(value_ranks, classes, n_classes, orders, counts):  # pragma: no cover - compiled
    """For each class ``classes[:n_classes]`` of a nominal attribute, its values in the order they
    were first seen (``orders[c]``) and their number (``counts[c]``)."""
    for i in range(n_classes):
        c = classes[i]
        counts[c] = _in_rank_order(value_ranks[c], orders[c])


@kernel
def _rest_of(table, v, classes, n_classes, orders, counts, out):  # pragma: no cover - compiled
    """Class weights of every value but ``v`` (``out``, ``(k,)``), each class summed over its
    values in the order they were first seen (:func:`_value_orders`), as river's nominal
    splitter sums them."""
    out[:] = 0.0
    for i in range(n_classes):
        c = classes[i]
        for r in range(counts[c]):
            u = orders[c, r]
            if u != v:
                out[c] += table[u, c]


KEEP, RESET, SPLIT = 0, 1, 2  # what a split attempt decides (_best_split)
INVALID, CLEAN, DIRTY = 0, 1, 2  # a slot's screen cache (screen_state[slot, 0]; DIRTY + class)
SCREEN_CACHE_MIN_CLASSES = 16  # fewer classes: the slots keep no screen cache (it would cost more than it saves)
BOUNDED, OUT_OF_REACH = -2, -3  # an attribute's merit in _best_split: an interval; not needed


@kernel
def _thresholds(stats, points):  # pragma: no cover - compiled
    """A numeric attribute's candidate thresholds (river's: ``N_SPLIT_POINTS`` evenly spaced
    between the smallest minimum and largest maximum of its classes, ``stats`` ``(k, 5)``) that lie
    strictly inside that range, in ascending order into ``points``; returns their number and the
    range."""
    lo, hi = np.inf, -np.inf
    for c in range(stats.shape[0]):
        st = stats[c]
        if st[0] > 0.0:
            lo = min(lo, st[3])
            hi = max(hi, st[4])
    step = (hi - lo) / (N_SPLIT_POINTS + 1.0)
    n = 0
    for i in range(N_SPLIT_POINTS):
        point = lo + step * (i + 1)
        if lo < point < hi:
            points[n] = point
            n += 1
    return n, lo, hi


@kernel
def _numeric_best(stats, points, n_points, classes, n_classes, pre_entropy, pair_entropy, pair_weight,
                  sigmas, whole_terms, half):  # pragma: no cover
    """A numeric attribute's best split exactly, as river finds it: ``(merit, NUMERIC, threshold)``
    over ``points[:n_points]`` (:func:`_thresholds`), the first of equal merits; ``(-inf, -1, 0)``
    when none is finite. ``classes[:n_classes]``: the splitter's class order; ``sigmas`` and
    ``whole_terms`` (``(k,)``) are overwritten; ``half`` is 0.5 (:func:`_sigma`)."""
    feature_best, feature_kind, feature_value = -np.inf, -1, 0.0
    for c in range(stats.shape[0]):  # once per attribute, not per threshold
        st = stats[c]
        if st[0] > 0.0:
            sigmas[c] = _sigma(st, half)
            whole_terms[c] = st[0] * math.log2(st[0])
    for i in range(n_points):
        m = _threshold_merit(stats, sigmas, whole_terms, points[i], classes, n_classes,
                             pre_entropy, pair_entropy, pair_weight)
        if m > feature_best:
            feature_best, feature_kind, feature_value = m, NUMERIC, points[i]
    return feature_best, feature_kind, feature_value


@kernel
def _best_split(tree, stats, classes_seen, total, nominal_counts, numeric_stats, ranks, attr_ranks, value_ranks,
                feat_nominal, split_params, work, iwork, screen_sums, screen_grid, screen_base,
                screen_state):  # pragma: no cover - compiled
    """The decision of a split attempt on a leaf with class weights ``stats`` (``(k,)``, summing to
    ``total``), its classes by first sight ``classes_seen`` and its statistics slot's arrays:
    ``(KEEP | RESET | SPLIT, feature, kind, value)``. (Hot: it takes the arrays it reads, not the
    Forest, whose fields a call that is not inlined would all pass.)

    Numeric attributes are first bounded (:mod:`~boostbench.learners.merit_bounds`), and only those
    whose interval can reach the decision are evaluated exactly: the decision is river's, at a
    fraction of the cost. ``work[10, 1] = 0`` evaluates every attribute (the reference the tests
    compare with)."""
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
    pre_entropy, _ = _entropy_in_order(stats, classes_seen, n_keys)
    n_local = feat_nominal.shape[1]
    n_values = nominal_counts.shape[2]
    # river's range of merit counts the classes its statistics hold, with weight 0 or not
    bound = math.sqrt(math.log2(max(n_keys, 2)) ** 2 * math.log(1.0 / split_params[tree, DELTA]) / (2.0 * total))
    decided = bound < split_params[tree, TAU]  # the best split is taken whatever the second
    binary = work[0:2, :k]
    sigmas = work[11, :k]
    row_entropy, row_weight, row_log = work[4, :n_values], work[5, :n_values], work[12, :n_values]
    terms = work[13: 13 + n_values, :k]  # each value's w log2 w by class
    pair_entropy, pair_weight = work[6, :2], work[7, :2]
    rows = 13 + n_values  # per attribute (in rank order): merit interval, value, kind; per threshold
    merit_low, merit_high = work[rows, :n_local], work[rows + 1, :n_local]
    feature_values, feature_kinds = work[rows + 2, :n_local], work[rows + 3, :n_local]
    points = work[rows + 4, :N_SPLIT_POINTS]
    attributes, classes = iwork[0, :n_local], iwork[1, :k]
    value_counts, value_orders = iwork[2, :k], iwork[4: 4 + k, :n_values]
    screen = work[10, 1] > 0.0
    cached = work[10, 2] > 0.0
    # the slot's cached sums: updated for the one class trained since the last screen, or afresh
    changed = -1
    if cached and screen_state[0] >= DIRTY and screen_state[1] < REFRESH_AFTER:
        changed = screen_state[0] - DIRTY
        screen_state[1] += 1
    else:
        screen_state[1] = 0
    n_attributes = _in_rank_order(attr_ranks, attributes)
    # 1. Each attribute's best split: nominal ones exactly; numeric ones, when screening, as an
    # interval (merit_bounds) that the exact merit is certain to lie in.
    for a in range(n_attributes):
        j = attributes[a]
        feature_best, feature_kind, feature_value = -np.inf, -1, 0.0
        if feat_nominal[tree, j]:
            n_classes = _in_rank_order(ranks[j], classes)  # the splitter's class order
            table = nominal_counts[:, j].T  # (values, k); unseen values are zero rows
            # the multiway split: branches by value, classes in sorted order (iwork row 3: 0..k-1)
            for v in range(n_values):
                row_entropy[v], row_weight[v], row_log[v] = _entropy_keeping_terms(table[v], terms[v])
            feature_best = _merit_of_branches(pre_entropy, row_entropy, row_weight)
            feature_kind = MULTIWAY
            # one-vs-rest splits: the value's side has the multiway branch's terms, in the
            # splitter's class order
            _value_orders(value_ranks[:, j], classes, n_classes, value_orders, value_counts)
            for v in range(n_values):
                if row_weight[v] > 0.0:
                    _rest_of(table, v, classes, n_classes, value_orders, value_counts, binary[1])
                    pair_entropy[0], pair_weight[0] = _entropy_from_terms(table[v], classes, n_classes, terms[v], row_weight[v], row_log[v])
                    pair_entropy[1], pair_weight[1] = _entropy_in_order(binary[1], classes, n_classes)
                    m = _merit_of_branches(pre_entropy, pair_entropy, pair_weight)
                    if m > feature_best:
                        feature_best, feature_kind, feature_value = m, NOMINAL_BINARY, float(v)
        else:
            n_points, lo, hi = _thresholds(numeric_stats[j], points)
            if screen:
                at = j if cached else 0  # without a cache, sums in scratch (and always afresh)
                sums = screen_sums[at] if cached else work[rows + 12: rows + 14, :N_SPLIT_POINTS]
                grid = screen_grid[at] if cached else work[rows + 14, :5]
                low, high = numeric_merit_bounds(numeric_stats[j], points, n_points, lo, hi, pre_entropy,
                                                 work[rows + 5: rows + 12], sums, grid, screen_base[at], changed)
                if high > -np.inf:  # else certainly -inf: no finite candidate, the null split
                    merit_low[a], merit_high[a], feature_kinds[a] = low, high, BOUNDED
                    continue
            else:
                feature_best, feature_kind, feature_value = _numeric_best(
                    numeric_stats[j], points, n_points, classes, _in_rank_order(ranks[j], classes), pre_entropy,
                    pair_entropy, pair_weight, sigmas, terms[0], work[10, 0])
        merit_low[a], merit_high[a] = feature_best, feature_best
        feature_values[a], feature_kinds[a] = feature_value, feature_kind
    if cached:
        screen_state[0] = CLEAN
    # 2. Which bounded attributes can matter: with the decision taken by the best alone, those
    # that can reach the highest certain merit; else those that can reach the second highest
    # (or none: the gap is certainly within the Hoeffding bound, and the leaf waits).
    if screen:
        top, runner_up, top_high = -np.inf, -np.inf, -np.inf
        for a in range(n_attributes):
            if merit_low[a] >= top:
                top, runner_up = merit_low[a], top
            elif merit_low[a] > runner_up:
                runner_up = merit_low[a]
            top_high = max(top_high, merit_high[a])
        if not decided and (top_high == -np.inf or top_high - runner_up <= bound):
            return KEEP, -1, -1, 0.0
        reach = top if decided else runner_up
        for a in range(n_attributes):
            if feature_kinds[a] == BOUNDED:
                if merit_high[a] >= reach:
                    j = attributes[a]
                    n_points, _, _ = _thresholds(numeric_stats[j], points)
                    m, kind, value = _numeric_best(numeric_stats[j], points, n_points, classes,
                                                   _in_rank_order(ranks[j], classes), pre_entropy, pair_entropy,
                                                   pair_weight, sigmas, terms[0], work[10, 0])
                    merit_low[a], feature_kinds[a], feature_values[a] = m, kind, value
                else:  # certainly below both the best and the second: changes neither
                    feature_kinds[a] = OUT_OF_REACH
    # 3. River ranks [null split, its splitters in the order their attributes were first seen] by
    # merit with a stable sort: among equal merits the later attribute ranks higher. A nominal
    # attribute always proposes its multiway split (even at -inf merit); a numeric one without a
    # finite candidate proposes the null split.
    best, second = -np.inf, -np.inf
    best_feature, best_kind, best_value = -1, -1, 0.0
    for a in range(n_attributes):
        feature_kind = int(feature_kinds[a])
        if feature_kind == OUT_OF_REACH:
            continue
        feature_best = merit_low[a]
        if feature_best >= best:
            second = best
            best, best_kind, best_value = feature_best, feature_kind, feature_values[a]
            best_feature = attributes[a] if feature_kind >= 0 else -1
        elif feature_best > second:
            second = feature_best
    if not (best - second > bound or decided):  # -inf - -inf is nan: no
        return KEEP, -1, -1, 0.0
    if best_feature < 0:  # the null split wins: start the attribute statistics afresh
        return RESET, -1, -1, 0.0
    return SPLIT, best_feature, best_kind, best_value


@kernel
def _split(F, leaf, slot, best_feature, best_kind, best_value):  # pragma: no cover - compiled
    """Split ``leaf`` (statistics ``slot``) on ``best_feature`` as :func:`_best_split` chose:
    the split's class distributions become the children's statistics."""
    node_nav, nominal_counts, numeric_stats, ranks = F.node_nav, F.nominal_counts, F.numeric_stats, F.ranks
    value_ranks, work, iwork = F.value_ranks, F.work[0], F.iwork[0]  # the serial part's scratch
    k = F.node_stats.shape[1]
    n_values = nominal_counts.shape[3]
    classes = iwork[1, :k]
    value_counts, value_orders = iwork[2, :k], iwork[4: 4 + k, :n_values]
    depth = F.node_depth[leaf] + 1
    if best_kind == MULTIWAY:
        table = work[13: 13 + n_values, :k]
        for v in range(n_values):
            copy_into(table[v], nominal_counts[slot, :, best_feature, v])
        _release(F, leaf)
        for v in range(n_values):
            if table[v].sum() > 0.0:  # classes in sorted order (iwork row 3 is 0..k-1)
                _add_child(F, leaf, v, table[v], table[v], iwork[3, :k], k, depth)
    else:
        post = work[2:4, :k]
        keys = work[8:10, :k]
        n_classes = _in_rank_order(ranks[slot, best_feature], classes)
        if best_kind == NOMINAL_BINARY:
            table = nominal_counts[slot, :, best_feature].T
            v = int(best_value)
            copy_into(post[0], table[v])
            _value_orders(value_ranks[slot, :, best_feature], classes, n_classes, value_orders, value_counts)
            _rest_of(table, v, classes, n_classes, value_orders, value_counts, post[1])
            copy_into(keys[0], post[0])
            copy_into(keys[1], post[1])
        else:
            stats_j = numeric_stats[slot, best_feature]
            sigmas = work[11, :k]
            for c in range(k):
                if stats_j[c, 0] > 0.0:
                    sigmas[c] = _sigma(stats_j[c], work[10, 0])
            _numeric_split(stats_j, sigmas, best_value, post)
            keys[:] = 0.0
            for c in range(k):  # river's split keeps a class on each side its range reaches
                if stats_j[c, 0] > 0.0:
                    keys[0, c] = 0.0 if best_value < stats_j[c, 3] else 1.0
                    keys[1, c] = 0.0 if best_value >= stats_j[c, 4] else 1.0
        _release(F, leaf)
        for b in range(2):
            _add_child(F, leaf, b, post[b], keys[b], classes, n_classes, depth)
    node_nav[leaf, TEST] = best_feature * 4 + best_kind
    F.node_active[leaf] = False
    F.node_value[leaf] = best_value


@kernel
def learn_all(x, y, weights, trees):  # pragma: no cover - compiled
    """Train every tree with ``weights[i] > 0`` on ``(x, y)`` with weight ``weights[i] * c_i``
    (``weights`` float64 ``(N,)``); the pool must have room (``CompiledHoeffdingTreePool.reserve``)."""
    forget_routes_unless(x, trees)
    learn_trees(0, weights.shape[0], x, y, weights, trees)


@kernel
def forget_routes_unless(x, trees):  # pragma: no cover - compiled
    """Clear the kept routes (:func:`predict_all`) unless they were taken for ``x``."""
    F = Forest(*trees)
    if not same_example(x, F.route_x):
        F.route[:, 3] = 0


@kernel
def enforce_size_limit(trees):  # pragma: no cover - compiled
    """River's memory manager on the pool now (:func:`_enforce_size_limit`), over budget or not."""
    _enforce_size_limit(Forest(*trees))


@kernel
def plant(trees):  # pragma: no cover - compiled
    """Give every tree a root: an empty leaf (``root`` ``(N,)`` is written)."""
    F = Forest(*trees)
    for tree in range(F.root.shape[0]):
        F.root[tree] = _new_node(F, -1, 0)


def scratch(n_classes: int, n_local: int, n_values: int, threads: int = 1,
            screen: bool = True, cache: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Scratch space for :func:`learn_trees`, one per thread: float64 ``(threads, 28 + values, w)``
    (``[:, 10, 0]`` holds 0.5, see :func:`_sigma`; ``[:, 10, 1]`` 1.0 if ``screen``: split attempts
    screen with merit bounds, see :func:`_best_split`; ``[:, 10, 2]`` 1.0 if ``cache``: the slots
    keep the screen's sums) and int64 ``(threads, 4 + k, w)`` (``[:, 3]`` holds
    ``0..k-1``), ``w = max(k, attributes, values, N_SPLIT_POINTS)``."""
    width = max(n_classes, n_local, n_values, N_SPLIT_POINTS)
    iwork = np.zeros((threads, 4 + n_classes, width), dtype=np.int64)
    iwork[:, 3, :n_classes] = np.arange(n_classes)
    work = np.zeros((threads, 28 + n_values, width))
    work[:, 10, 0] = 0.5
    work[:, 10, 1] = float(screen)
    work[:, 10, 2] = float(screen and cache)
    return work, iwork
