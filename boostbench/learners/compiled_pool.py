"""The compiled pool: N Hoeffding trees in flat numpy arrays, trained by numba kernels.

Same interface and semantics as :class:`~boostbench.learners.river_pool.RiverHoeffdingTreePool`
(the reference it is tested against, see ``tests/test_compiled_pool.py``), without a Python-level
loop over trees: one kernel call predicts or trains all N trees on an example.
"""

from __future__ import annotations

import ctypes
import mmap
import sys

import numba
import numpy as np

from boostbench.learners import vfdt_kernels as K
from boostbench.learners.pool import HoeffdingTreeParams, WeakLearnerPool


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
            :mod:`~boostbench.learners.vfdt_kernels`); :attr:`size_bytes` is what is counted.
        n_threads: threads that train the trees of one example together (numba's, at most
            ``numba.config.NUMBA_NUM_THREADS``); any number gives the same trees to the bit.
    """

    def __init__(self, params: HoeffdingTreeParams, n_classes: int, n_categories,
                 feature_subsets: np.ndarray | None = None, capacity: int = 1024, max_size: float | None = None,
                 n_threads: int = 1):
        n = len(params.delta)
        n_categories = np.asarray(n_categories, dtype=np.int64)
        d = len(n_categories)
        self.n_learners, self.n_classes = n, int(n_classes)
        self.feat_map = (np.tile(np.arange(d, dtype=np.int64), (n, 1)) if feature_subsets is None
                         else np.ascontiguousarray(feature_subsets, dtype=np.int64))
        self.feat_nominal = n_categories[self.feat_map] > 0
        d_local = self.feat_map.shape[1]
        self.width = max(2, int(n_categories.max(initial=0)))  # children per node (multiway)
        # (N, 3) columns K.GRACE, K.DELTA, K.TAU: one argument for the kernels, not three
        self.split_params = np.column_stack([params.grace_period, params.delta, params.tau]).astype(np.float64)
        self.weight_scale = params.weight_scale.astype(np.float64)
        k = self.n_classes
        # statistics shapes: nominal (slots, k, d_local, values); numeric (slots, d_local, k, 5);
        # first-seen ranks, last column a count: each attribute's classes (slots, d_local, k + 1),
        # the attributes (slots, d_local + 1), each (class, nominal attribute)'s values
        # (slots, k, d_local, values + 1). Class first: training reads one class's entries of
        # every attribute, so they share cache lines (as do the int16 ranks)
        n_values = max(1, int(n_categories.max(initial=0)))
        d_nominal = d_local if self.feat_nominal.any() else 1
        self._nominal_shape = (k, d_nominal, n_values)
        self._numeric_shape = (d_local if (~self.feat_nominal).any() else 1, k, 5)
        self._ranks_shape = (d_local, k + 1)
        self._value_ranks_shape = (k, d_nominal, n_values + 1)
        self._rank_dtype = np.int16 if max(k, d_local, n_values) < np.iinfo(np.int16).max else np.int32
        self.n_threads = int(n_threads)
        self.work, self.iwork = K.scratch(k, d_local, n_values, self.n_threads)
        self._counts = np.zeros(n)  # per-tree weights of a single tree's training (scratch)
        self._forest = None
        self.counters = np.zeros(4, dtype=np.int64)  # nodes used, slots used, free slots, enforcements
        self.max_size = max_size
        budget = np.iinfo(np.int64).max // 4 if max_size is None else int(max_size * 2**20)
        self.limits = np.array([self._row_bytes(self._node_arrays()), self._row_bytes(self._slot_arrays()), budget],
                               dtype=np.int64)
        # compact once the free slots hold a sixteenth of the budget (checked per training call)
        self._compact_after = int(self.limits[K.MAX_BYTES] // 16 // self.limits[K.SLOT_BYTES])
        self._allocate_nodes(max(capacity, 4 * n, self._budget_rows(K.NODE_BYTES)))
        self._allocate_slots(max(capacity, 4 * n, self._budget_rows(K.SLOT_BYTES)))
        # where the last example predicted for every tree ends (leaf, parent, branch, valid)
        self.route = np.zeros((n, 4), dtype=np.int64)
        self.route_x = np.full(d, np.nan)
        self.tree_nodes = np.ones(n, dtype=np.int64)
        self.pending = np.zeros((n, 5), dtype=np.int64)
        self.pending_value = np.zeros(n)
        self.root = np.empty(n, dtype=np.int64)
        K.plant(self.kernel_state())

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
            "_node_f": (np.float64, (k + 2,)),  # class weights, weight at last attempt, subtree sum
            "_node_i": (np.int64, (4,)),  # parent, slot, active, depth
            "sort_keys": (np.float64, ()), "sort_ids": (np.int64, ()),  # ranking the leaves (budget)
        }

    def _slot_arrays(self) -> dict:
        return {"nominal_counts": (np.float64, self._nominal_shape), "numeric_stats": (np.float64, self._numeric_shape),
                "ranks": (self._rank_dtype, self._ranks_shape), "attr_ranks": (self._rank_dtype, (self.feat_map.shape[1] + 1,)),
                "value_ranks": (self._rank_dtype, self._value_ranks_shape), "free_slots": (np.int64, ())}

    @staticmethod
    def _row_bytes(arrays: dict) -> int:
        """Bytes of one row across the arrays ``{name: (dtype, row shape)}``."""
        return sum(np.dtype(dtype).itemsize * int(np.prod(tail)) for dtype, tail in arrays.values())

    @property
    def size_bytes(self) -> int:
        """The pool's size as its budget counts it, in bytes: nodes times a node row (every node
        array) plus active leaves times a statistics slot (every slot array)."""
        return int(K.size_bytes(self.counters, self.limits))

    @property
    def enforcements(self) -> int:
        """How many times the pool went past its budget and deactivated leaves."""
        return int(self.counters[3])

    def _allocate_nodes(self, size: int) -> None:
        self._grow(self._node_arrays(), size)
        self._node_views()

    def _node_views(self) -> None:
        k = self.n_classes
        self.node_stats, self.node_last, self.node_sub = self._node_f[:, :k], self._node_f[:, k], self._node_f[:, k + 1]
        self.node_parent, self.node_slot, self.node_active, self.node_depth = (self._node_i[:, c] for c in range(4))

    def _budget_rows(self, entry: int) -> int:
        """With a budget, the rows (nodes or slots) it can ever hold, with room for a training
        call's splits past it: allocated at once, so the arrays never grow by copying (which
        would need the old and the new array at once). The operating system backs a page only
        when it is first written, so the rows cost memory only as they are used. 0 without one."""
        if self.max_size is None:
            return 0
        return int(self.limits[K.MAX_BYTES] // self.limits[entry]) + 2 * self.room_per_example

    def __getstate__(self):
        views = ("node_stats", "node_last", "node_sub", "node_parent", "node_slot", "node_active", "node_depth",
                 "_forest")
        state = {name: value for name, value in self.__dict__.items() if name not in views}
        for names, used in ((self._node_arrays(), self.counters[0]), (self._slot_arrays(), self.counters[1])):
            for name in names:  # the rows in use only: a budget's preallocated rows are empty
                state[name] = state[name][:max(int(used), 1)].copy()
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._forest = None
        self._node_views()
        self._allocate_nodes(max(2 * len(self.node_nav), self._budget_rows(K.NODE_BYTES)))
        self._allocate_slots(max(2 * len(self.nominal_counts), self._budget_rows(K.SLOT_BYTES)))

    def kernel_state(self) -> tuple:
        """The arrays as the kernels take them: a plain tuple in the field order of
        :class:`~boostbench.learners.vfdt_kernels.Forest`, valid until the pool grows (training
        calls :meth:`reserve` first, which returns it anew)."""
        if self._forest is None:
            self._forest = tuple(getattr(self, name) for name in K.Forest._fields)
        return self._forest

    def _allocate_slots(self, size: int) -> None:
        self._grow(self._slot_arrays(), size)

    def _grow(self, fields: dict, size: int) -> None:
        """Give each ``name: (dtype, row shape)`` a zeroed ``(size, *row shape)`` array that starts
        with the current one's rows (if any)."""
        for name, (dtype, tail) in fields.items():
            fresh = np.zeros((size, *tail), dtype=dtype)
            current = getattr(self, name, None)
            if current is not None:
                fresh[: len(current)] = current
            setattr(self, name, fresh)
        self._forest = None  # it holds the old arrays

    def _ensure(self, trees: int) -> None:
        """Room for ``trees`` trees each to split once and add a leaf in this call."""
        extra = trees * (self.width + 1)  # as room_per_example for all trees
        if self.counters[2] > self._compact_after:
            self._compact_slots()
        if self.counters[0] + extra > len(self.node_nav):
            self._allocate_nodes(2 * (len(self.node_nav) + extra))
        if self.counters[1] + extra > len(self.nominal_counts):
            self._allocate_slots(2 * (len(self.nominal_counts) + extra))

    def _compact_slots(self) -> None:
        """Move the active leaves' statistics to the lowest slots and give the rest back to the
        operating system. Deactivated leaves free slots in the middle of the arrays, whose pages
        stay resident; without this a pool at its budget would keep up to twice the budget in
        memory (its nodes, plus every slot it ever used). Slot ids change; nothing else does."""
        used, high = int(self.counters[0]), int(self.counters[1])
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
                chunk = old[start:start + rows]
                array[start:start + len(chunk)] = array[chunk]
            release_rows(array, active, high)
        self.node_slot[nodes] = np.arange(active)
        self.counters[1], self.counters[2] = active, 0

    @property
    def node_leaf(self) -> np.ndarray:
        """``(capacity,)`` bool: which node slots hold a leaf (slots past ``n_nodes`` are unused)."""
        return self.node_nav[:, K.TEST] == K.LEAF

    @property
    def n_nodes(self) -> int:
        return int(self.counters[0])

    # -- the pool interface -----------------------------------------------------------------
    compiled = True

    def prepare(self, x: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(x, dtype=np.float64)

    def predict_proba(self, xp: np.ndarray) -> np.ndarray:
        out = np.empty((self.n_learners, self.n_classes))
        K.predict_all(xp, out, self.kernel_state())
        return out

    def predict_proba_one(self, i: int, xp: np.ndarray) -> np.ndarray:
        out = np.empty(self.n_classes)
        K.predict_tree(i, xp, out, self.kernel_state())
        return out

    @property
    def room_per_example(self) -> int:
        """Free nodes (and as many free slots) an example may need: every tree splits once.
        Kernels that train on many examples stop before one without that room."""
        return self.n_learners * (self.width + 1)

    def reserve(self) -> tuple:
        """Room for every tree to split once in the next training call; returns
        :meth:`kernel_state` (the arrays may have grown)."""
        self._ensure(self.n_learners)
        return self.kernel_state()

    def learn(self, xp: np.ndarray, y: int, weights: np.ndarray) -> None:
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if self.n_threads > 1:  # numba's thread ids index the scratch: no more threads than it has
            numba.set_num_threads(min(self.n_threads, numba.config.NUMBA_NUM_THREADS))
            numba.set_parallel_chunksize(1)  # a tree at a time to the next free thread
            K.learn_trees_threaded(0, self.n_learners, xp, int(y), weights, self.reserve())
        else:
            K.learn_all(xp, int(y), weights, self.reserve())

    def learn_one(self, i: int, xp: np.ndarray, y: int, weight: float) -> None:
        if weight <= 0:
            return
        self._ensure(1)
        forest = self.kernel_state()
        K.forget_routes_unless(xp, forest)
        self._counts[i] = weight
        K.learn_trees(i, i + 1, xp, int(y), self._counts, forest)


def release_rows(array: np.ndarray, start: int, stop: int) -> None:
    """Zero rows ``start:stop`` of a C-contiguous ``array``, giving their whole pages back to the
    operating system (Linux ``madvise(MADV_DONTNEED)``: private anonymous pages read as zeros
    afterwards and are not resident until written); elsewhere, or for the partial pages at the
    ends, by writing zeros."""
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
    array[start:-(-(first - base) // row)] = 0  # rows reaching into the partial first page
    array[(last - base) // row:stop] = 0  # and the last
    if _MADVISE(ctypes.c_void_p(first), ctypes.c_size_t(last - first), 4) != 0:  # 4: MADV_DONTNEED
        array[start:stop] = 0


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


def tiny_pool(n_classes: int, n_threads: int = 1) -> CompiledHoeffdingTreePool:
    """Two trees over a numeric and a nominal attribute: a throwaway pool that compiles the
    kernels with the types of a real run (warm-up)."""
    params = HoeffdingTreeParams(delta=np.full(2, 0.5), tau=np.full(2, 0.5),
                                 grace_period=np.full(2, 1), weight_scale=np.ones(2))
    return CompiledHoeffdingTreePool(params, n_classes, [0, 2], capacity=8, n_threads=n_threads)


def warm_up() -> None:
    """Compile (or load from numba's disk cache) every pool kernel on a throwaway pool."""
    pool = tiny_pool(2)
    x = pool.prepare(np.array([0.5, 1.0]))
    threaded = tiny_pool(2, n_threads=2)
    for y in (0, 1, 0, 1):
        pool.learn(x, y, np.ones(2))
        pool.learn_one(0, x, y, 1.0)
        threaded.learn(x, y, np.ones(2))
    pool.predict_proba(x)
    pool.predict_proba_one(1, x)
