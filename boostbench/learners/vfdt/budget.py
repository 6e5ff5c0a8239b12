"""The pool's memory budget: river's ``max_size`` rule applied to the N trees as one model.

The budget (``limits``) is for the whole pool, in bytes. The size is counted exactly: nodes times
the bytes of a node row plus active leaves times the bytes of a statistics slot. When a training
call leaves the pool past its budget, river's rule (Kirkby 2007; river's ``_enforce_size_limit``)
runs over every leaf: leaves are ranked by promise (weight not of the majority class, divided by
the tree's c_i so that trees compare), as many of the most promising as fit in 90% of the budget
beside the nodes stay (or become again) active, and the others are deactivated: they keep their
class weights and lose their attribute statistics. (The 10% slack makes the ranking run once per
tenth of the budget grown, not at every split; river instead measures its size every
``memory_estimate_period`` units of weight, so with the boosters' real-valued weights its manager
seldom runs.) A pool whose nodes alone fill the budget grows no more. Unbounded in the kernels
unless given; the configs set a budget that no vendored data set reaches.
"""

from __future__ import annotations

from boostbench.learners.vfdt.layout import (
    ENFORCEMENTS,
    FREE_SLOTS,
    LEAF,
    MAX_BYTES,
    NODE_BYTES,
    NODES_USED,
    SLOT_BYTES,
    SLOTS_USED,
    TEST,
    Forest,
    node_weight,
    release,
    take_slot,
)
from boostbench.learners.vfdt.routing import next_child
from boostbench.system.kernel_cache import kernel


@kernel
def size_bytes(counters, limits):  # pragma: no cover - compiled
    """The pool's size as its budget counts it: nodes times a node row plus active leaves (slots
    in use) times a statistics slot, in bytes.
    """
    active = counters[SLOTS_USED] - counters[FREE_SLOTS]
    return counters[NODES_USED] * limits[NODE_BYTES] + active * limits[SLOT_BYTES]


@kernel
def _leaves_of(root, node_nav, node_parent, out):  # pragma: no cover - compiled
    """The leaves under ``root`` in depth-first order, children by age, into ``out``; their number.
    (Without a stack: back up through the parents to the next younger sibling.)
    """
    n = 0
    node = root
    while True:
        child = next_child(node, node_nav, -1) if node_nav[node, TEST] != LEAF else -1
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
            sibling = next_child(parent, node_nav, node)
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
def limit_size(F):  # pragma: no cover - compiled
    """River's memory manager over the pool: rank every leaf by promise (weight not of the
    majority class over its tree's c_i; ties by node id), keep as many of the most promising
    active as 90% of the budget holds beside the nodes, deactivate the rest and reactivate the
    inactive ones within the cut.
    """
    node_stats, node_classes, node_active = F.node_stats, F.node_classes, F.node_active
    keys, ids, limits = F.sort_keys, F.sort_ids, F.limits
    n = 0
    for tree in range(F.root.shape[0]):
        first = n
        n += _leaves_of(F.root[tree], F.node_nav, F.node_parent, ids[n:])
        for i in range(first, n):
            total = node_weight(ids[i], node_stats, node_classes)
            majority = 0.0
            for c in range(node_stats.shape[1]):
                majority = max(majority, node_stats[ids[i], c])
            keys[i] = (total - majority) / F.weight_scale[tree] if total > 0.0 else 0.0
    _sort_by_key(keys, ids, n)
    room = limits[MAX_BYTES] - limits[MAX_BYTES] // 10 - F.counters[NODES_USED] * limits[NODE_BYTES]
    cutoff = n - min(n, max(0, room // limits[SLOT_BYTES]))
    for i in range(cutoff):  # first release, so that the reactivated find free slots
        if node_active[ids[i]]:
            node_active[ids[i]] = False
            release(F, ids[i])
    for i in range(cutoff, n):
        if not node_active[ids[i]]:
            node_active[ids[i]] = True
            F.node_slot[ids[i]] = take_slot(F.counters, F.free_slots)
    F.counters[ENFORCEMENTS] += 1


@kernel
def enforce_size_limit(trees):  # pragma: no cover - compiled
    """River's memory manager on the pool now (:func:`limit_size`), over budget or not."""
    limit_size(Forest(*trees))
