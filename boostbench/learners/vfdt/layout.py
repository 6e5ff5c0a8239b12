"""The trees' arrays as the kernels see them, their constants, and allocating nodes and slots.

Nodes of all trees share arrays indexed by node id; active leaves own a "slot" in the statistics
arrays (released when they split or are deactivated). The Python side
(:mod:`boostbench.learners.compiled_pool`) allocates the arrays and grows them before each call;
the kernels allocate nothing: their scratch space is the pool's too (:func:`scratch`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from boostbench.system.kernel_cache import inlined_kernel, kernel

NUMERIC, NOMINAL_BINARY, MULTIWAY = 0, 1, 2  # a split's kind
# A node's row of ``node_nav`` holds what a walk down the tree reads, in one cache line for small
# widths: column TEST is LEAF or ``feature * 4 + kind``, columns 1.. the children by branch.
TEST, LEAF = 0, -1
N_SPLIT_POINTS = 10  # candidate thresholds of a numeric attribute (river's Gaussian splitter)
GRACE, DELTA, TAU = 0, 1, 2  # columns of a pool's per-tree ``split_params``
# What a leaf predicts (a pool's, river's ``leaf_prediction``): majority class, naive Bayes, or
# naive Bayes adaptive (:mod:`~.naive_bayes`); entries of a pool's ``leaf_params``: its kind,
# river's ``nb_threshold`` (the weight from which a naive-Bayes leaf predicts by naive Bayes), and
# whose naive Bayes: river's or MOA's (:mod:`~.moa_naive_bayes`)
MC, NB, NBA = 0, 1, 2
LEAF_KIND, NB_THRESHOLD, NB_RULE = 0, 1, 2
RIVER_NB, MOA_NB = 0, 1
MC_CORRECT, NB_CORRECT = 0, 1  # columns of ``node_correct`` (NBA leaves): weight each got right
NODE_BYTES, SLOT_BYTES, MAX_BYTES = 0, 1, 2  # entries of a pool's ``limits``
NODES_USED, SLOTS_USED, FREE_SLOTS, ENFORCEMENTS = 0, 1, 2, 3  # entries of a pool's ``counters``
# columns of a pool's ``route[tree]``: where the last predicted example ends (routing.predict_all),
# and the class naive Bayes chose there (NO_CHOICE: it did not predict; naive_bayes.tally)
ROUTE_LEAF, ROUTE_PARENT, ROUTE_BRANCH, ROUTE_VALID, ROUTE_CHOICE = 0, 1, 2, 3, 4
NO_CHOICE = -2
NUMERIC_COLUMNS = 5  # a class's Gaussian estimator (numeric_stats[slot, c, j]): weight, mean, S, min, max
STATUS, HISTORY = 0, 1  # columns of a slot's ``screen_state[slot]``
INVALID, CLEAN, DIRTY = 0, 1, 2  # a slot's screen cache (screen_state[slot, STATUS]; DIRTY + class)
# screen_state[slot, HISTORY] packs three things: the screens since the sums were last taken afresh
# (below PREFIX_UNIT), how many attributes in rank order the last screen brought up to date (times
# PREFIX_UNIT), and MISSING: a value was missing since the slot was emptied. One column, not three:
# a slot's bytes are what a memory budget counts, and the screen must not change what it admits.
PREFIX_UNIT = 1 << 20  # above REFRESH_AFTER
MISSING = 1 << 60
SCREEN_CACHE_MIN_CLASSES = 16  # fewer classes: the slots keep no screen cache (it would cost more than it saves)

# A thread's float scratch ``work[thread]`` (:func:`scratch`), by row; the rows' width is
# ``max(k, attributes, values, N_SPLIT_POINTS)``, and each row's use reads the columns it needs.
SETTINGS = 0  # columns HALF ... TOUCHED below
REST = 1  # (k,) a one-vs-rest split's class weights on the side of the other values
SIDES = 2  # 2 rows (k,): a split's class weights by side, its children's start
KEPT = 4  # 2 rows (k,): which classes each side holds (> 0), as river's split keeps them
SIGMAS = 6  # (k,) each class's standard deviation in a numeric attribute
PAIR_ENTROPY, PAIR_WEIGHT = 7, 8  # (2,) a binary split's sides
VALUE_ENTROPY, VALUE_WEIGHT, VALUE_LOG = 9, 10, 11  # (values,) a multiway split's branches (log2 of weight)
MERIT_LOW, MERIT_HIGH = 12, 13  # (attributes,) each attribute's best merit, or an interval that holds it
FEATURE_VALUE, FEATURE_KIND = 14, 15  # (attributes,) its best split's value and kind (or BOUNDED ...)
POINTS = 16  # (N_SPLIT_POINTS,) a numeric attribute's thresholds
CLASSWISE = 17  # 7 rows (k,): merit_bounds' per-class scratch (its last two rows a memo kept between calls)
CLASSWISE_ROWS = 7
MEMO_WEIGHT, MEMO_TERM = 5, 6  # rows of the CLASSWISE block: a class's weight and its w log2 w, kept between calls
SUMS = 24  # 2 rows (N_SPLIT_POINTS,): merit_bounds' sums without a slot's cache
GRID = 26  # (5,) their range and totals
VOTES = 27  # (k,) a naive-Bayes leaf's class probabilities (an NBA leaf's tally in training)
TERMS = 28  # one row (k,) per nominal value: its class weights' w log2 w; a multiway split's table
FLOAT_ROWS = 28  # rows before TERMS's
# columns of the SETTINGS row: 0.5 (merits.sigma_of) and 2.0 (naive_bayes.log_pdf), exponents
# read at run time; flags 1.0 / 0.0; a sink (split._touch)
HALF, TWO, SCREEN, CACHE, TOUCHED = 0, 1, 2, 3, 4
# A thread's int scratch ``iwork[thread]``, by row:
ATTRIBUTES = 0  # (attributes,) a slot's attributes in the order first seen
CLASSES = 1  # (k,) a splitter's classes in the order first seen
VALUE_COUNTS = 2  # (k,) each class's number of values seen (a nominal attribute)
CLASS_IDS = 3  # (k,) 0..k-1: the classes in index order
VALUE_ORDERS = 4  # k rows (values,): each class's values in the order first seen
INT_ROWS = 4  # rows before VALUE_ORDERS's


class Forest(NamedTuple):
    """The compiled pool's N trees as the kernels see them, fields by name.

    The public kernels (:func:`~.routing.predict_all`, :func:`~.routing.predict_tree`,
    :func:`~.training.learn_trees`, :func:`~.training.learn_all`,
    :func:`~.routing.write_distribution`, :func:`~.routing.forget_routes_unless`) take ``trees``:
    the pool's :meth:`~boostbench.learners.compiled_pool.CompiledHoeffdingTreePool.kernel_state`,
    a plain tuple of these fields in this order, and name them with ``F = Forest(*trees)`` (free
    in compiled code). Plain, because numba's dispatcher types a plain tuple of arrays in C and a
    named one in Python, 2 µs more per call from Python. A booster kernel passes ``trees`` on.
    A new field is added here only: the pool fills the tuple by these names.

    Inside, the helpers called per node, per tree of a walk or recursively (the walk, subtree
    weights, a leaf's distribution, a split attempt's merits) take the arrays they read instead:
    a call that is not inlined passes every field of a tuple argument (over 200 machine words),
    which doubled the cost of :func:`~.routing.predict_all`.

    Nodes (all trees, by node id, ``capacity`` rows): ``node_nav`` int64 ``(capacity, 1 + width)``
    (TEST, children), ``node_value`` float64 (threshold or value), ``node_stats`` float64
    ``(capacity, k)`` class weights, ``node_classes`` int32 ``(capacity, k + 1)`` classes by first
    sight and their count, ``node_sub`` float64 cached subtree weight (NaN: stale),
    ``node_last`` float64 weight at the last split attempt, ``node_correct`` float64
    ``(capacity, 2)`` with NBA leaves (columns MC_CORRECT, NB_CORRECT: the weight each of the
    leaf's predictions got right while active), else ``(capacity, 0)``, ``node_parent``,
    ``node_slot``, ``node_depth`` int64, ``node_active`` bool-like int64. Statistics slots (active leaves):
    ``nominal_counts``, ``numeric_stats`` (per class and attribute, class first, a Gaussian estimator
    ``[weight, mean, S, min, max]``), ``ranks``, ``attr_ranks``, ``value_ranks`` (first-seen
    orders, :func:`first_seen`), ``free_slots``.
    Per tree: ``root``, ``feat_map`` int64 ``(N, d_local)`` the attributes each tree sees,
    ``feat_nominal`` bool ``(N, d_local)``, ``split_params`` float64 ``(N, 3)`` (columns GRACE,
    DELTA, TAU), ``weight_scale`` float64 ``(N,)`` (c_i); ``leaf_params`` float64 ``(3,)`` what the
    leaves predict (entries LEAF_KIND: MC, NB or NBA; NB_THRESHOLD; NB_RULE: RIVER_NB or MOA_NB),
    whose kind and rule the kernels read from ``kind_tag`` and ``rule_tag`` (:func:`type_tag`).
    ``counters`` int64 ``(4,)`` nodes used, slots used, free slots, budget enforcements (entries
    NODES_USED, SLOTS_USED, FREE_SLOTS, ENFORCEMENTS);
    ``limits`` int64 ``(3,)`` bytes of a node row, of a statistics slot and the pool's budget
    (entries NODE_BYTES, SLOT_BYTES, MAX_BYTES); ``sort_keys`` float64, ``sort_ids`` int64
    ``(capacity,)`` scratch for ranking the leaves (:mod:`~.budget`); ``pending`` int64 ``(N, 5)``
    and ``pending_value`` float64 ``(N,)`` a split attempt decided, not yet made
    (:mod:`~.training`); ``route`` int64 ``(N, 5)`` (columns ROUTE_LEAF, ROUTE_PARENT, ROUTE_BRANCH,
    ROUTE_VALID, ROUTE_CHOICE) and ``route_x`` float64 ``(d,)`` where the
    last predicted example ends in each tree (:func:`~.routing.predict_all`); ``work``/``iwork``
    scratch (:func:`scratch`). Per slot, the split screen's cache (:mod:`~.merit_bounds`):
    ``screen_sums`` float64 ``(d_numeric, 2, N_SPLIT_POINTS)``, ``screen_grid`` and ``screen_base``
    float64 ``(d_numeric, 5)``, ``screen_state`` int64 ``(2,)`` (STATUS: INVALID, CLEAN or DIRTY + the
    one class trained since the last screen; HISTORY: screens since the sums were last taken afresh, how many
    attributes the last screen reached, and whether a value was missing: see PREFIX_UNIT).
    """

    root: np.ndarray
    node_nav: np.ndarray
    node_value: np.ndarray
    node_stats: np.ndarray
    node_classes: np.ndarray
    node_sub: np.ndarray
    node_last: np.ndarray
    node_correct: np.ndarray
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
    leaf_params: np.ndarray
    kind_tag: np.ndarray
    rule_tag: np.ndarray
    route: np.ndarray
    route_x: np.ndarray
    work: np.ndarray
    iwork: np.ndarray
    screen_sums: np.ndarray
    screen_grid: np.ndarray
    screen_base: np.ndarray
    screen_state: np.ndarray


def scratch(
    n_classes: int, n_local: int, n_values: int, threads: int = 1, screen: bool = True, cache: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Scratch space for the training kernels, one per thread: float64
    ``(threads, FLOAT_ROWS + values, w)`` (row SETTINGS: columns HALF and TWO hold 0.5 and 2.0,
    see :func:`~.merits.sigma_of`; SCREEN 1.0 if ``screen``: split attempts screen with merit bounds,
    see :func:`~.split.best_split`; CACHE 1.0 if ``cache``: the slots keep the screen's sums) and
    int64 ``(threads, INT_ROWS + k, w)`` (row CLASS_IDS holds ``0..k-1``),
    ``w = max(k, attributes, values, N_SPLIT_POINTS)``.
    """
    width = max(n_classes, n_local, n_values, N_SPLIT_POINTS)
    iwork = np.zeros((threads, INT_ROWS + n_classes, width), dtype=np.int64)
    iwork[:, CLASS_IDS, :n_classes] = np.arange(n_classes)
    work = np.zeros((threads, FLOAT_ROWS + n_values, width))
    work[:, SETTINGS, HALF] = 0.5
    work[:, SETTINGS, TWO] = 2.0
    work[:, SETTINGS, SCREEN] = float(screen)
    work[:, SETTINGS, CACHE] = float(screen and cache)
    return work, iwork


def type_tag(value: int) -> np.ndarray:
    """An empty float64 array of ``value + 1`` dimensions: a small int ``value`` carried in the
    array's numba type, so that a kernel given it compiles for that value alone (:func:`leaf_kind`,
    :func:`nb_rule`). A pool's leaf kind and naive-Bayes rule travel so: LLVM then drops the
    other kinds' branches, whose inlined code slowed the loops over the trees even unrun.
    """
    return np.empty((0,) * (value + 1))


@inlined_kernel
def leaf_kind(F):  # pragma: no cover - compiled
    """The leaves' kind (MC, NB or NBA) of the Forest ``F``: a constant of the compiled code."""
    return F.kind_tag.ndim - 1


@inlined_kernel
def nb_rule(F):  # pragma: no cover - compiled
    """Whose naive Bayes the leaves of ``F`` use (RIVER_NB or MOA_NB): a compile-time constant."""
    return F.rule_tag.ndim - 1


@kernel
def copy_into(dst, src):  # pragma: no cover - compiled
    """``dst[:] = src`` for 1-d arrays, without the temporary numba's slice assignment may need."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@inlined_kernel
def node_weight(node, node_stats, node_classes):  # pragma: no cover - compiled
    """A leaf's total class weight, summed in the order its classes were first seen (river's
    ``sum(stats.values())``: near-equal totals then compare as in river).
    """
    row = node_classes[node]
    total = 0.0
    for i in range(row[-1]):
        total += node_stats[node, row[i]]
    return total


@kernel
def add_class(row, c):  # pragma: no cover - compiled
    """Append class ``c`` to a node's classes in first-seen order (``row``: classes, then their count)."""
    n = row[-1]
    for i in range(n):
        if row[i] == c:
            return
    row[n] = c
    row[-1] = n + 1


@kernel
def first_seen(row, item):  # pragma: no cover - compiled
    """Give ``item`` the next rank in ``row`` (last entry: the count) if it has none yet.

    A slot keeps the order in which its attributes, each attribute's classes and each (nominal
    attribute, class)'s values were first seen (``attr_ranks``, ``ranks``, ``value_ranks``):
    river's splitters are dicts in that order, and summing in the same order gives the same
    merits to the last bit, so that the frequent exact ties break alike.
    """
    if row[item] == 0:
        row[-1] += 1
        row[item] = row[-1]


@kernel
def in_rank_order(row, out):  # pragma: no cover - compiled
    """The items ranked in ``row`` (see :func:`first_seen`), in rank order, into ``out``; their count
    (int64 whatever the ranks' dtype: callers pass it on with other counts, one type for both).
    """
    for item in range(row.shape[0] - 1):
        if row[item] > 0:
            out[row[item] - 1] = item
    return int(row[-1])


@inlined_kernel
def new_node(F, parent, depth):  # pragma: no cover - compiled
    """A new empty, active leaf under ``parent`` (-1 for a root) with a statistics slot; its id."""
    counters = F.counters
    node = counters[NODES_USED]
    counters[NODES_USED] += 1
    F.node_parent[node] = parent
    F.node_sub[node] = np.nan
    F.node_active[node] = True
    F.node_depth[node] = depth
    F.node_nav[node, :] = -1  # a leaf (TEST = LEAF) without children
    F.node_stats[node, :] = 0.0
    F.node_classes[node, -1] = 0
    F.node_last[node] = 0.0
    F.node_correct[node, :] = 0.0
    F.node_slot[node] = take_slot(counters, F.free_slots)
    return node


@kernel
def take_slot(counters, free_slots):  # pragma: no cover - compiled
    """A free statistics slot (zeroed), or a new one."""
    if counters[FREE_SLOTS] > 0:
        counters[FREE_SLOTS] -= 1
        return free_slots[counters[FREE_SLOTS]]
    counters[SLOTS_USED] += 1
    return counters[SLOTS_USED] - 1


@kernel
def reset_splitters(F, slot):  # pragma: no cover - compiled
    """Empty a statistics slot: the leaf that holds it gathers its attribute statistics afresh.
    The statistics are class-major, and when no value was missing every attribute holds the
    classes the first one holds: only their blocks are zeroed (a leaf caught in resets holds
    one class of 26 on ISOLET-shaped data).
    """
    classes = F.ranks[slot, 0]
    if (F.screen_state[slot, HISTORY] & MISSING) == 0:
        for c in range(classes.shape[0] - 1):
            if classes[c] != 0:
                F.nominal_counts[slot, c] = 0
                F.numeric_stats[slot, c] = 0.0
                F.value_ranks[slot, c] = 0
    else:
        F.nominal_counts[slot] = 0
        F.numeric_stats[slot] = 0.0
        F.value_ranks[slot] = 0
    F.ranks[slot] = 0
    F.attr_ranks[slot] = 0
    # the slot's next leaf starts its screen cache afresh, also for attributes it sees late
    F.screen_state[slot, STATUS], F.screen_state[slot, HISTORY] = INVALID, 0
    F.screen_grid[slot] = 0.0


@inlined_kernel
def release(F, node):  # pragma: no cover - compiled
    """Give ``node``'s statistics slot (if any) back, emptied."""
    slot = F.node_slot[node]
    if slot >= 0:
        reset_splitters(F, slot)
        F.free_slots[F.counters[FREE_SLOTS]] = slot
        F.counters[FREE_SLOTS] += 1
        F.node_slot[node] = -1


@kernel
def plant(trees):  # pragma: no cover - compiled
    """Give every tree a root: an empty leaf (``root`` ``(N,)`` is written)."""
    F = Forest(*trees)
    for tree in range(F.root.shape[0]):
        F.root[tree] = new_node(F, -1, 0)
