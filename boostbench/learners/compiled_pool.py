"""The compiled pool: N Hoeffding trees in flat numpy arrays, trained by numba kernels.

Same interface and semantics as :class:`~boostbench.learners.river_pool.RiverHoeffdingTreePool`
(the reference it is tested against, see ``tests/test_compiled_pool.py``), without a Python-level
loop over trees: one kernel call predicts or trains all N trees on an example.
"""

from __future__ import annotations

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
        max_nodes: node budget per tree (None: unbounded, as river's default 100 MB in effect);
            a full tree stops growing and deactivates the leaves it trains.
    """

    def __init__(self, params: HoeffdingTreeParams, n_classes: int, n_categories,
                 feature_subsets: np.ndarray | None = None, capacity: int = 1024, max_nodes: int | None = None):
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
        # first-seen ranks, last column a count: attributes (row d_local) and each attribute's
        # classes (slots, d_local + 1, max(k, d_local) + 1), each (class, nominal attribute)'s
        # values (slots, k, d_local, values + 1). Class first: training reads one class's entries
        # of every attribute, so they share cache lines (as do the int16 ranks)
        n_values = max(1, int(n_categories.max(initial=0)))
        d_nominal = d_local if self.feat_nominal.any() else 1
        self._nominal_shape = (k, d_nominal, n_values)
        self._numeric_shape = (d_local if (~self.feat_nominal).any() else 1, k, 5)
        self._ranks_shape = (d_local + 1, max(k, d_local) + 1)
        self._value_ranks_shape = (k, d_nominal, n_values + 1)
        self._rank_dtype = np.int16 if max(k, d_local, n_values) < np.iinfo(np.int16).max else np.int32
        self.work, self.iwork = K.scratch(k, d_local, n_values)
        self._counts = np.zeros(n)  # per-tree weights of a single tree's training (scratch)
        self._forest = None
        self.counters = np.zeros(3, dtype=np.int64)  # nodes used, slots used, free slots
        self._allocate_nodes(max(capacity, 4 * n))
        self._allocate_slots(max(capacity, 4 * n))
        # where the last example predicted for every tree ends (leaf, parent, branch, valid)
        self.route = np.zeros((n, 4), dtype=np.int64)
        self.route_x = np.full(d, np.nan)
        self.tree_nodes = np.ones(n, dtype=np.int64)
        self.max_nodes = np.int64(np.iinfo(np.int64).max // 2 if max_nodes is None else max_nodes)
        self.root = np.empty(n, dtype=np.int64)
        K.plant(self.kernel_state())

    # -- storage --------------------------------------------------------------------------
    # What training reads of a leaf shares a row: its class weights with the weight at its last
    # split attempt and its subtree sum (floats), its parent, slot, active flag and depth (ints).
    # The kernels see each field as its own array: views into these blocks (rebuilt on growth
    # and after unpickling).

    def _allocate_nodes(self, size: int) -> None:
        k = self.n_classes
        shapes = {
            "node_nav": (np.int64, (1 + self.width,)),  # test (leaf, or feature and kind), children
            "node_value": (np.float64, ()),  # threshold or value of the test
            "node_classes": (np.int32, (k + 1,)),  # classes by first sight, count
            "_node_f": (np.float64, (k + 2,)),  # class weights, weight at last attempt, subtree sum
            "_node_i": (np.int64, (4,)),  # parent, slot, active, depth
        }
        self._grow(shapes, size)
        self._node_views()

    def _node_views(self) -> None:
        k = self.n_classes
        self.node_stats, self.node_last, self.node_sub = self._node_f[:, :k], self._node_f[:, k], self._node_f[:, k + 1]
        self.node_parent, self.node_slot, self.node_active, self.node_depth = (self._node_i[:, c] for c in range(4))

    def __getstate__(self):
        views = ("node_stats", "node_last", "node_sub", "node_parent", "node_slot", "node_active", "node_depth",
                 "_forest")
        return {name: value for name, value in self.__dict__.items() if name not in views}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._forest = None
        self._node_views()

    def kernel_state(self) -> tuple:
        """The arrays as the kernels take them: a plain tuple in the field order of
        :class:`~boostbench.learners.vfdt_kernels.Forest`, valid until the pool grows (training
        calls :meth:`reserve` first, which returns it anew)."""
        if self._forest is None:
            self._forest = tuple(getattr(self, name) for name in K.Forest._fields)
        return self._forest

    def _allocate_slots(self, size: int) -> None:
        fields = {"nominal_counts": (np.float64, self._nominal_shape), "numeric_stats": (np.float64, self._numeric_shape),
                  "ranks": (self._rank_dtype, self._ranks_shape), "value_ranks": (self._rank_dtype, self._value_ranks_shape),
                  "free_slots": (np.int64, ())}
        self._grow(fields, size)

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
        if self.counters[0] + extra > len(self.node_nav):
            self._allocate_nodes(2 * (len(self.node_nav) + extra))
        if self.counters[1] + extra > len(self.nominal_counts):
            self._allocate_slots(2 * (len(self.nominal_counts) + extra))

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
        K.learn_all(xp, int(y), np.ascontiguousarray(weights, dtype=np.float64), self.reserve())

    def learn_one(self, i: int, xp: np.ndarray, y: int, weight: float) -> None:
        if weight <= 0:
            return
        self._ensure(1)
        forest = self.kernel_state()
        K.forget_routes_unless(xp, forest)
        self._counts[i] = weight
        K.learn_trees(i, i + 1, xp, int(y), self._counts, forest)


def tiny_pool(n_classes: int) -> CompiledHoeffdingTreePool:
    """Two trees over a numeric and a nominal attribute: a throwaway pool that compiles the
    kernels with the types of a real run (warm-up)."""
    params = HoeffdingTreeParams(delta=np.full(2, 0.5), tau=np.full(2, 0.5),
                                 grace_period=np.full(2, 1), weight_scale=np.ones(2))
    return CompiledHoeffdingTreePool(params, n_classes, [0, 2], capacity=8)


def warm_up() -> None:
    """Compile (or load from numba's disk cache) every pool kernel on a throwaway pool."""
    pool = tiny_pool(2)
    x = pool.prepare(np.array([0.5, 1.0]))
    for y in (0, 1, 0, 1):
        pool.learn(x, y, np.ones(2))
        pool.learn_one(0, x, y, 1.0)
    pool.predict_proba(x)
    pool.predict_proba_one(1, x)
