"""The compiled pool: N Hoeffding trees in flat numpy arrays, trained by numba kernels.

Same interface and semantics as :class:`~boostbench.learners.river_pool.RiverHoeffdingTreePool`
(the reference it is tested against, see ``tests/test_compiled_pool.py``), without a Python-level
loop over trees: one kernel call predicts or trains all N trees on an example.
"""

from __future__ import annotations

import ctypes
import functools
import mmap
import sys

import numba
import numpy as np

from boostbench.learners.pool import HoeffdingTreeParams, WeakLearnerPool
from boostbench.learners.vfdt import budget, layout, routing, training

LEAF_KINDS = {"mc": layout.MC, "nb": layout.NB, "nba": layout.NBA}  # river's leaf_prediction values
NB_RULES = {"river": layout.RIVER_NB, "moa": layout.MOA_NB}  # whose naive Bayes the leaves use


class CompiledHoeffdingTreePool(WeakLearnerPool):
    """N VFDTs with per-tree delta, tau, grace period and weight scale c_i, in numba.

    Args:
        params: the drawn parameters, arrays ``(N,)``.
        n_classes: k; labels are ints ``0..k-1``.
        n_categories: ``(d,)`` number of categories of each attribute (0 = numeric).
        feature_subsets: ``(N, m)`` attribute indices each tree sees, or None for all.
        capacity: initial number of nodes (arrays double when full).
        max_size: memory budget of the pool in MiB, or None for none: past it, the least
            promising leaves are deactivated (river's ``max_size`` rule over all N trees, see
            :mod:`~boostbench.learners.vfdt.budget`); :attr:`size_bytes` is what is counted.
        n_threads: threads that train the trees of one example together (numba's, at most
            ``numba.config.NUMBA_NUM_THREADS``); any number gives the same trees to the bit.
        screen_splits: split attempts evaluate exactly only the numeric attributes whose merit
            bounds can reach the decision (:mod:`~boostbench.learners.vfdt.merit_bounds`); False
            evaluates every one. The trees are the same either way (the reference for tests).
            With at least ``layout.SCREEN_CACHE_MIN_CLASSES`` classes, each active leaf also keeps
            its bounds' sums between attempts (30 floats per numeric attribute, against the
            statistics' 5 per class), which makes an attempt after one new example cheap.
        leaf_prediction: river's ``'mc'`` (majority class), ``'nb'`` (naive Bayes) or ``'nba'``
            (naive Bayes adaptive: each leaf's two running correct weights, 16 bytes more per node
            in the budget's count), as :mod:`~boostbench.learners.vfdt.naive_bayes` describes.
        nb_threshold: river's ``nb_threshold``: ``'nb'`` leaves with less weight predict their
            majority class.
        naive_bayes: whose naive Bayes ``'nb'`` and ``'nba'`` leaves use: ``'river'`` (river's
            trees to the bit) or ``'moa'`` (MOA's HoeffdingTree's: Laplace-corrected counts, MOA's
            Gaussian estimator; :mod:`~boostbench.learners.vfdt.moa_naive_bayes`).

    Raises:
        ValueError: an unknown ``leaf_prediction`` or ``naive_bayes``.
    """

    def __init__(
        self,
        params: HoeffdingTreeParams,
        n_classes: int,
        n_categories,
        feature_subsets: np.ndarray | None = None,
        capacity: int = 1024,
        max_size: float | None = None,
        n_threads: int = 1,
        screen_splits: bool = True,
        leaf_prediction: str = "mc",
        nb_threshold: float = 0.0,
        naive_bayes: str = "river",
    ):
        if leaf_prediction not in LEAF_KINDS:
            raise ValueError(f"leaf_prediction must be one of {', '.join(LEAF_KINDS)}, got {leaf_prediction!r}")
        if naive_bayes not in NB_RULES:
            raise ValueError(f"naive_bayes must be one of {', '.join(NB_RULES)}, got {naive_bayes!r}")
        n = len(params.delta)
        self.leaf_prediction, self.naive_bayes = leaf_prediction, naive_bayes
        # (3,) entries LEAF_KIND, NB_THRESHOLD, NB_RULE (vfdt.layout): fixed for the pool; the kernels read
        # the kind and rule from kind_tag and rule_tag
        self.leaf_params = np.array(
            [LEAF_KINDS[leaf_prediction], nb_threshold, NB_RULES[naive_bayes]], dtype=np.float64
        )
        self.screen_splits = bool(screen_splits)
        n_categories = np.asarray(n_categories, dtype=np.int64)
        self.n_learners = n
        self._subsets = feature_subsets is not None
        self.feat_map = None if feature_subsets is None else np.ascontiguousarray(feature_subsets, dtype=np.int64)
        # (N, 3) columns GRACE, DELTA, TAU (vfdt.layout): one argument for the kernels, not three
        self.split_params = np.column_stack([params.grace_period, params.delta, params.tau]).astype(np.float64)
        self.weight_scale = params.weight_scale.astype(np.float64)
        self.n_threads = int(n_threads)
        self._set_shapes(int(n_classes), n_categories)
        self._counts = np.zeros(n)  # per-tree weights of a single tree's training (scratch)
        self._forest = None
        self.counters = np.zeros(4, dtype=np.int64)  # entries NODES_USED ... ENFORCEMENTS (vfdt.layout)
        self.max_size = max_size
        max_bytes = np.iinfo(np.int64).max // 4 if max_size is None else int(max_size * 2**20)
        self.limits = np.array([0, 0, max_bytes], dtype=np.int64)
        self._set_limits()
        self._allocate_nodes(max(capacity, 4 * n, self._budget_rows(layout.NODE_BYTES)))
        self._allocate_slots(max(capacity, 4 * n, self._budget_rows(layout.SLOT_BYTES)))
        # where the last example predicted for every tree ends (columns ROUTE_LEAF ... ROUTE_CHOICE)
        self.route = np.zeros((n, 5), dtype=np.int64)
        self.route_x = np.full(len(n_categories), np.nan)
        self.pending = np.zeros((n, 5), dtype=np.int64)
        self.pending_value = np.zeros(n)
        self.root = np.empty(n, dtype=np.int64)
        layout.plant(self.kernel_state())

    def _set_shapes(self, k: int, n_categories: np.ndarray) -> None:
        """Everything whose shape follows k and the attributes: the shapes of the statistics
        arrays, the trees' attribute maps, the scratch.
        """
        n = self.n_learners
        self.n_classes, self.n_categories = k, n_categories
        if not self._subsets:
            self.feat_map = np.tile(np.arange(len(n_categories), dtype=np.int64), (n, 1))
        self.feat_nominal = n_categories[self.feat_map] > 0
        d_local = self.feat_map.shape[1]
        self.width = max(2, int(n_categories.max(initial=0)))  # children per node (multiway)
        # statistics shapes: nominal (slots, k, d_local, values); numeric (slots, k, d_local, 5);
        # first-seen ranks, last column a count: each attribute's classes (slots, d_local, k + 1),
        # the attributes (slots, d_local + 1), each (class, nominal attribute)'s values
        # (slots, k, d_local, values + 1). Class first: training reads one class's entries of
        # every attribute, so they share cache lines and pages (as do the int16 ranks), and a
        # reset empties only the blocks of the classes the slot holds (layout.reset_splitters)
        n_values = max(1, int(n_categories.max(initial=0)))
        # an attribute kind the trees never see takes no room in a slot (a slot's bytes are what
        # a memory budget counts, and what a stream of new leaves makes the machine zero)
        d_nominal = d_local if self.feat_nominal.any() else 0
        numeric = bool((~self.feat_nominal).any())
        self._nominal_shape = (k, d_nominal, n_values)
        self._numeric_shape = (k, d_local if numeric else 0, layout.NUMERIC_COLUMNS)
        self._ranks_shape = (d_local, k + 1)
        self._value_ranks_shape = (k, d_nominal, n_values + 1)
        self._rank_dtype = np.int16 if max(k, d_local, n_values) < np.iinfo(np.int16).max else np.int32
        # the screen's cache per slot, when it pays (its size is fixed, the statistics' grow with
        # k); allocated whether or not it is used, so that screening never changes what a memory
        # budget admits (without a cache, one row: the bounds' scratch takes it as an argument)
        cache = numeric and k >= layout.SCREEN_CACHE_MIN_CLASSES
        self._screen_shape = self._numeric_shape[1] if cache else int(numeric)
        self.work, self.iwork = layout.scratch(k, d_local, n_values, self.n_threads, self.screen_splits, cache)

    def _set_limits(self) -> None:
        self.limits[layout.NODE_BYTES] = self._row_bytes(self._node_arrays())
        self.limits[layout.SLOT_BYTES] = self._row_bytes(self._slot_arrays())
        # compact once the free slots hold a sixteenth of the budget (checked per training call)
        self._compact_after = int(self.limits[layout.MAX_BYTES] // 16 // self.limits[layout.SLOT_BYTES])

    def grow(self, n_classes: int | None = None, n_categories=None) -> None:
        """Make room for more classes, attributes or nominal values, keeping every tree as it is.

        A pool grown to ``k`` classes and ``d`` attributes predicts and learns exactly as one built
        with them from the start that has not seen the new classes, values or attributes yet (a
        new attribute reads as missing until then): zero weights and unseen ranks are what the
        kernels hold for those. Used by the river estimators (:mod:`boostbench.estimators`),
        which learn classes and attributes as they come.

        Args:
            n_classes: the new k (>= the current one); None keeps it.
            n_categories: ``(d',)`` the category counts of every attribute, the current ones first
                (an attribute stays numeric or nominal; a nominal one may gain values); None keeps them.

        Raises:
            ValueError: fewer classes or attributes than now, or an attribute that changes kind
                or loses values. (Trees with feature subsets keep theirs: they never see a new
                attribute.)
        """
        k2 = self.n_classes if n_classes is None else int(n_classes)
        cats = self.n_categories if n_categories is None else np.asarray(n_categories, dtype=np.int64)
        d = len(self.n_categories)
        if k2 < self.n_classes or len(cats) < d:
            raise ValueError(f"a pool grows only: {self.n_classes} classes, {d} attributes -> {k2}, {len(cats)}")
        if ((cats[:d] > 0) != (self.n_categories > 0)).any() or (cats[:d] < self.n_categories).any():
            raise ValueError("an attribute cannot change kind (numeric / nominal) or lose values")
        if k2 == self.n_classes and np.array_equal(cats, self.n_categories):
            return
        k, width, had_nominal, had_numeric = (
            self.n_classes,
            self.width,
            self.feat_nominal.any(),
            (~self.feat_nominal).any(),
        )
        used_nodes, used_slots = self._used(layout.NODES_USED), self._used(layout.SLOTS_USED)
        old = {
            name: getattr(self, name)[:used]
            for names, used in ((self._node_arrays(), used_nodes), (self._slot_arrays(), used_slots))
            for name in names
        }
        self._set_shapes(k2, cats)
        self._set_limits()
        for name in (*self._node_arrays(), *self._slot_arrays()):
            delattr(self, name)
        self._allocate_nodes(max(2 * used_nodes, self._budget_rows(layout.NODE_BYTES)))
        self._allocate_slots(max(2 * used_slots, self._budget_rows(layout.SLOT_BYTES)))
        n, s = used_nodes, used_slots
        self.node_nav[:n, : 1 + width] = old["node_nav"]
        self.node_nav[:n, 1 + width :] = -1  # no children for the new values yet
        for name in ("node_value", "_node_i", "sort_keys", "sort_ids"):
            getattr(self, name)[:n] = old[name]
        # per-class rows end with a count (node_classes) or the two floats after the weights (_node_f)
        self.node_classes[:n, :k], self.node_classes[:n, -1] = old["node_classes"][:, :k], old["node_classes"][:, -1]
        self._node_f[:n, :k], self._node_f[:n, k2:] = old["_node_f"][:, :k], old["_node_f"][:, k:]
        dl = old["ranks"].shape[1]
        self.ranks[:s, :dl, :k], self.ranks[:s, :dl, -1] = old["ranks"][:, :, :k], old["ranks"][:, :, -1]
        self.attr_ranks[:s, :dl], self.attr_ranks[:s, -1] = old["attr_ranks"][:, :dl], old["attr_ranks"][:, -1]
        self.free_slots[:s] = old["free_slots"]
        # The slots' screen caches start afresh (INVALID), but a slot keeps its flag of missing
        # values, and a leaf's slot counts as having missed some when attributes are added (they
        # lack its earlier examples): the early KEEP and the emptying by class block rely on it.
        flags = old["screen_state"][:, layout.HISTORY] & layout.MISSING
        self.screen_state[:s, layout.HISTORY] = flags if self.feat_map.shape[1] == dl else layout.MISSING
        self.screen_state[self.free_slots[: int(self.counters[layout.FREE_SLOTS])], layout.HISTORY] = 0
        if had_numeric:
            self.numeric_stats[:s, :k, :dl] = old["numeric_stats"]
        if had_nominal:
            _, _, dn, v = old["nominal_counts"].shape
            self.nominal_counts[:s, :k, :dn, :v] = old["nominal_counts"]
            self.value_ranks[:s, :k, :dn, :v] = old["value_ranks"][..., :v]
            self.value_ranks[:s, :k, :dn, -1] = old["value_ranks"][..., -1]
        self.route[:, layout.ROUTE_VALID] = 0  # the kept routes were for the old attributes
        self.route_x = np.full(len(cats), np.nan)

    # -- storage --------------------------------------------------------------------------
    # What training reads of a leaf shares a row: its class weights with the weight at its last
    # split attempt and its subtree sum (floats), its parent, slot, active flag and depth (ints).
    # The kernels see each field as its own array: views into these blocks (rebuilt on growth
    # and after unpickling).

    def _node_arrays(self) -> dict:
        k = self.n_classes
        return {
            "node_nav": (np.int64, (1 + self.width,)),  # test (leaf, or feature and kind), children
            "node_value": (np.float64, ()),  # threshold or value of the test
            "node_classes": (np.int32, (k + 1,)),  # classes by first sight, count
            # class weights, weight at last attempt, subtree sum (and an NBA leaf's correct weights)
            "_node_f": (np.float64, (k + 2 + self._correct_columns,)),
            "_node_i": (np.int64, (4,)),  # parent, slot, active, depth
            "sort_keys": (np.float64, ()),
            "sort_ids": (np.int64, ()),  # ranking the leaves (budget)
        }

    @property
    def _correct_columns(self) -> int:
        """Columns MC_CORRECT, NB_CORRECT of ``node_correct``: NBA leaves only."""
        return 2 if self.leaf_params[layout.LEAF_KIND] == layout.NBA else 0

    def _slot_arrays(self) -> dict:
        return {
            "nominal_counts": (np.float64, self._nominal_shape),
            "numeric_stats": (np.float64, self._numeric_shape),
            "ranks": (self._rank_dtype, self._ranks_shape),
            "attr_ranks": (self._rank_dtype, (self.feat_map.shape[1] + 1,)),
            "value_ranks": (self._rank_dtype, self._value_ranks_shape),
            "free_slots": (np.int64, ()),
            # the split screen's cache (merit_bounds): sums per threshold, their range and
            # totals, the one changed class's estimators before its change, the cache's state
            "screen_sums": (np.float64, (self._screen_shape, 2, layout.N_SPLIT_POINTS)),
            "screen_grid": (np.float64, (self._screen_shape, 5)),
            "screen_base": (np.float64, (self._screen_shape, layout.NUMERIC_COLUMNS)),
            "screen_state": (np.int64, (2,)),
        }

    @staticmethod
    def _row_bytes(arrays: dict) -> int:
        """Bytes of one row across the arrays ``{name: (dtype, row shape)}``."""
        return sum(np.dtype(dtype).itemsize * int(np.prod(tail)) for dtype, tail in arrays.values())

    @property
    def size_bytes(self) -> int:
        """The pool's size as its budget counts it, in bytes: nodes times a node row (every node
        array) plus active leaves times a statistics slot (every slot array).
        """
        return int(budget.size_bytes(self.counters, self.limits))

    @property
    def enforcements(self) -> int:
        """How many times the pool went past its budget and deactivated leaves."""
        return int(self.counters[layout.ENFORCEMENTS])

    def _used(self, entry: int) -> int:
        """Rows in use of the nodes (``entry`` NODES_USED) or slots (SLOTS_USED), at least one."""
        return max(int(self.counters[entry]), 1)

    def _allocate_nodes(self, size: int) -> None:
        self._grow(self._node_arrays(), size)
        self._node_views()

    def _node_views(self) -> None:
        k = self.n_classes
        self.node_stats, self.node_last, self.node_sub = self._node_f[:, :k], self._node_f[:, k], self._node_f[:, k + 1]
        self.node_correct = self._node_f[:, k + 2 :]  # (capacity, 2) with NBA leaves, else (capacity, 0)
        self.node_parent, self.node_slot, self.node_active, self.node_depth = (self._node_i[:, c] for c in range(4))

    def _budget_rows(self, entry: int) -> int:
        """With a budget, the rows (nodes or slots) it can ever hold, with room for a training
        call's splits past it: allocated at once, so the arrays never grow by copying (which
        would need the old and the new array at once). The operating system backs a page only
        when it is first written, so the rows cost memory only as they are used. 0 without one.
        """
        if self.max_size is None:
            return 0
        return int(self.limits[layout.MAX_BYTES] // self.limits[entry]) + 2 * self.room_per_example

    def __getstate__(self):
        views = (
            "node_stats",
            "node_last",
            "node_correct",
            "node_sub",
            "node_parent",
            "node_slot",
            "node_active",
            "node_depth",
            "_forest",
        )
        state = {name: value for name, value in self.__dict__.items() if name not in views}
        for names, used in ((self._node_arrays(), layout.NODES_USED), (self._slot_arrays(), layout.SLOTS_USED)):
            for name in names:  # the rows in use only: a budget's preallocated rows are empty
                state[name] = state[name][: self._used(used)].copy()
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._forest = None
        self._node_views()
        self._allocate_nodes(max(2 * len(self.node_nav), self._budget_rows(layout.NODE_BYTES)))
        self._allocate_slots(max(2 * len(self.nominal_counts), self._budget_rows(layout.SLOT_BYTES)))

    @property
    def kind_tag(self) -> np.ndarray:
        """The leaves' kind as the kernels read it, in an array's type (:func:`~.vfdt.layout.type_tag`)."""
        return layout.type_tag(int(self.leaf_params[layout.LEAF_KIND]))

    @property
    def rule_tag(self) -> np.ndarray:
        """The naive-Bayes rule as the kernels read it (:func:`~.vfdt.layout.type_tag`)."""
        return layout.type_tag(int(self.leaf_params[layout.NB_RULE]))

    @functools.cached_property  # read per example from Python: derived once
    def nb_leaves(self) -> bool | None:
        """The kernels' ``nb_leaves`` argument: None for majority-class leaves, whose kernels then
        compile without the naive-Bayes code (:func:`~.vfdt.routing.predict_all`), else True.
        """
        return None if int(self.leaf_params[layout.LEAF_KIND]) == layout.MC else True

    def kernel_state(self) -> tuple:
        """The arrays as the kernels take them: a plain tuple in the field order of
        :class:`~boostbench.learners.vfdt.layout.Forest`, valid until the pool grows (training
        calls :meth:`reserve` first, which returns it anew).
        """
        if self._forest is None:
            self._forest = tuple(getattr(self, name) for name in layout.Forest._fields)
        return self._forest

    def compiling_ahead(self):
        """A context in which a second process compiles most of the split attempt's kernels for
        this pool's arrays (:data:`~boostbench.learners.vfdt.training.AHEAD_KERNELS`) while this
        one compiles the rest: for a first run on an empty kernel cache
        (:mod:`boostbench.system.compile_ahead`).
        """
        from boostbench.system.compile_ahead import compiling_ahead

        index = numba.types.int64
        return compiling_ahead(
            training.split_attempt_probe,
            (numba.typeof(self.kernel_state()), index, index, index),
            list(training.AHEAD_KERNELS),
        )

    def _allocate_slots(self, size: int) -> None:
        self._grow(self._slot_arrays(), size)

    def _grow(self, fields: dict, size: int) -> None:
        """Give each ``name: (dtype, row shape)`` a zeroed ``(size, *row shape)`` array that starts
        with the current one's rows (if any).
        """
        for name, (dtype, tail) in fields.items():
            fresh = fresh_zeros((size, *tail), dtype)
            small_pages(fresh)
            current = getattr(self, name, None)
            if current is not None:
                fresh[: len(current)] = current
            setattr(self, name, fresh)
        self._forest = None  # it holds the old arrays

    def _ensure(self, trees: int) -> None:
        """Room for ``trees`` trees each to split once and add a leaf in this call."""
        extra = trees * (self.width + 1)  # as room_per_example for all trees
        if self.counters[layout.FREE_SLOTS] > self._compact_after:
            self._compact_slots()
        if self.counters[layout.NODES_USED] + extra > len(self.node_nav):
            self._allocate_nodes(2 * (len(self.node_nav) + extra))
        if self.counters[layout.SLOTS_USED] + extra > len(self.nominal_counts):
            self._allocate_slots(2 * (len(self.nominal_counts) + extra))

    def _compact_slots(self) -> None:
        """Move the active leaves' statistics to the lowest slots and give the rest back to the
        operating system. Deactivated leaves free slots in the middle of the arrays, whose pages
        stay resident; without this a pool at its budget would keep up to twice the budget in
        memory (its nodes, plus every slot it ever used). Slot ids change; nothing else does.
        """
        used, high = int(self.counters[layout.NODES_USED]), int(self.counters[layout.SLOTS_USED])
        nodes = np.flatnonzero(self.node_slot[:used] >= 0)
        nodes = nodes[np.argsort(self.node_slot[nodes], kind="stable")]
        old = self.node_slot[nodes]
        active = len(nodes)
        for name in self._slot_arrays():
            if name == "free_slots":  # the free list, not a slot's contents: emptied below
                continue
            array = getattr(self, name)
            rows = max(1, (16 << 20) // max(1, array.strides[0]))  # 16 MiB at a time: the copy's temporary
            for start in range(0, active, rows):  # ascending: a row is read before it is overwritten
                chunk = old[start : start + rows]
                array[start : start + len(chunk)] = array[chunk]
            release_rows(array, active, high)
        self.node_slot[nodes] = np.arange(active)
        self.counters[layout.SLOTS_USED], self.counters[layout.FREE_SLOTS] = active, 0

    @property
    def node_leaf(self) -> np.ndarray:
        """``(capacity,)`` bool: which node slots hold a leaf (slots past ``n_nodes`` are unused)."""
        return self.node_nav[:, layout.TEST] == layout.LEAF

    @property
    def n_nodes(self) -> int:
        return int(self.counters[layout.NODES_USED])

    # -- the pool interface -----------------------------------------------------------------
    compiled = True

    def prepare(self, x: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(x, dtype=np.float64)

    def predict_proba(self, xp: np.ndarray) -> np.ndarray:
        out = np.empty((self.n_learners, self.n_classes))
        routing.predict_all(xp, out, self.kernel_state(), False, self.nb_leaves)
        return out

    def predict_proba_member(self, i: int, xp: np.ndarray) -> np.ndarray:
        out = np.empty(self.n_classes)
        routing.predict_tree(i, xp, out, self.kernel_state(), False, self.nb_leaves)
        return out

    @property
    def room_per_example(self) -> int:
        """Free nodes (and as many free slots) an example may need: every tree splits once.
        Kernels that train on many examples stop before one without that room.
        """
        return self.n_learners * (self.width + 1)

    def reserve(self) -> tuple:
        """Room for every tree to split once in the next training call; returns
        :meth:`kernel_state` (the arrays may have grown).
        """
        self._ensure(self.n_learners)
        return self.kernel_state()

    def _label(self, y: int) -> int:
        """``y`` as the kernels take it. Raises ValueError outside ``0..k-1``: the kernels check
        no bounds, so an unknown class would write past its statistics (:meth:`grow` first).
        """
        label = int(y)
        if not 0 <= label < self.n_classes:
            raise ValueError(f"class {label} is outside this pool's 0..{self.n_classes - 1}: grow() it first")
        return label

    def learn(self, xp: np.ndarray, y: int, weights: np.ndarray) -> None:
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        y = self._label(y)
        if self.n_threads > 1:  # numba's thread ids index the scratch: no more threads than it has
            numba.set_num_threads(min(self.n_threads, numba.config.NUMBA_NUM_THREADS))
            numba.set_parallel_chunksize(1)  # a tree at a time to the next free thread
            training.learn_trees_threaded(0, self.n_learners, xp, int(y), weights, self.reserve(), self.nb_leaves)
        else:
            training.learn_all(xp, int(y), weights, self.reserve(), self.nb_leaves)

    def learn_member(self, i: int, xp: np.ndarray, y: int, weight: float) -> None:
        y = self._label(y)
        if weight <= 0:
            return
        self._ensure(1)
        forest = self.kernel_state()
        routing.forget_routes_unless(xp, forest)
        self._counts[i] = weight
        training.learn_trees(i, i + 1, xp, int(y), self._counts, forest, self.nb_leaves)


def release_rows(array: np.ndarray, start: int, stop: int) -> None:
    """Zero rows ``start:stop`` of a C-contiguous ``array``, giving their whole pages back to the
    operating system (Linux ``madvise(MADV_DONTNEED)``: private anonymous pages read as zeros
    afterwards and are not resident until written); elsewhere, or for the partial pages at the
    ends, by writing zeros.
    """
    if stop <= start:
        return
    row = array.strides[0]
    base = array.ctypes.data
    lo, hi = base + start * row, base + stop * row
    page = mmap.PAGESIZE
    first, last = -(-lo // page) * page, hi // page * page
    if _MADVISE is None or last - first < page:
        array[start:stop] = 0
        return
    array[start : -(-(first - base) // row)] = 0  # rows reaching into the partial first page
    array[(last - base) // row : stop] = 0  # and the last
    if _MADVISE(ctypes.c_void_p(first), ctypes.c_size_t(last - first), 4) != 0:  # 4: MADV_DONTNEED
        array[start:stop] = 0


HUGE_PAGE = 2 << 20  # bytes: x86-64's transparent huge page


def fresh_zeros(shape: tuple[int, ...], dtype) -> np.ndarray:
    """``np.zeros(shape, dtype)`` in pages of its own from the operating system (an anonymous
    ``mmap``) when it spans a huge page or more, resident only as rows are written.
    ``np.zeros`` (``calloc``) serves a block from the heap when the heap has room, and then
    writes zeros over all of it: in a sweep's worker whose earlier jobs grew the heap, a pool's
    preallocated rows would all be resident at once (balance, one VFDT, after 400 MB freed: a
    184 MiB peak read 594), where a fresh process's are not.
    """
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes < HUGE_PAGE:
        return np.zeros(shape, dtype)
    # private (Python's default is shared memory, which madvise(MADV_DONTNEED) does not give back)
    pages = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE)
    return np.frombuffer(pages, dtype=dtype).reshape(shape)  # unmapped with the array


def small_pages(array: np.ndarray) -> None:
    """Keep ``array`` (C-contiguous, not yet written) in ordinary pages: undo the transparent
    huge pages numpy asks Linux for on large arrays (``madvise(MADV_NOHUGEPAGE)``; elsewhere
    nothing). The pool's arrays fill row by row, fifteen of them at once, so the first write to a
    huge page would zero (and on a virtual machine, have the host back) 2 MiB long before the
    rows use it, which slows a small run's pass (README, "Memory and threads", has the figures).
    """
    if _MADVISE is None or array.nbytes < HUGE_PAGE:
        return
    base = array.ctypes.data
    first, last = -(-base // mmap.PAGESIZE) * mmap.PAGESIZE, (base + array.nbytes) // mmap.PAGESIZE * mmap.PAGESIZE
    if last > first:
        _MADVISE(ctypes.c_void_p(first), ctypes.c_size_t(last - first), 15)  # 15: MADV_NOHUGEPAGE


def _libc_madvise():
    if not sys.platform.startswith("linux"):
        return None
    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    madvise.restype = ctypes.c_int
    return madvise


_MADVISE = _libc_madvise()
