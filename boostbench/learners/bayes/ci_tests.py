"""BAN from conditional-independence tests (Cheng & Greiner 1999, after Cheng, Bell & Liu's CBL).

With the class ``C`` a parent of every attribute, two attributes are taken as dependent when
their conditional mutual information given the class (and a cut-set ``Z``) exceeds a threshold:
``I(X_i; X_j | C, Z) > epsilon`` (nats). CBL's threshold is a fixed ``epsilon``; by default
(``epsilon=None``) ours is the G-test's at level ``alpha``: ``2 N I`` is asymptotically
chi-square with ``(r_i - 1)(r_j - 1)`` degrees of freedom per (class, cut-set) configuration
seen, so ``epsilon = chi2_{1-alpha}(df) / 2N``. A fixed ``epsilon`` ignores the estimate's
upward bias of about ``df / 2N``, which on small data (promoters: 84 rows, 57 attributes of 4
values) makes nearly every pair dependent. The skeleton is built in CBL's three phases:

1. *Drafting*: the pairs with ``I(X_i; X_j | C) > epsilon``, strongest first, become edges when no
   path joins them yet (a forest).
2. *Thickening*: each remaining such pair becomes an edge unless a cut-set separates it.
3. *Thinning*: each edge with another path between its ends is dropped when a cut-set separates
   its ends.

A pair's cut-set is the smaller of its two ends' neighbour sets on paths to the other end, cut
to the ``max_cut`` neighbours with the most mutual information with that end (a larger set
splits the rows into cells too sparse to test). The skeleton is then oriented along the order in
which a breadth-first search from the attribute with the largest summed ``I(X_i; X_j | C)``
reaches the attributes (earlier to later, so the result is acyclic). CBL orients by colliders
instead; among the orientations of a tree every one gives the same likelihood. An attribute
keeps at most ``max_parents`` parents, the strongest. Cheng & Greiner choose ``epsilon`` by a
wrapper; ours is a fixed parameter or the G-test's.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from scipy.stats import chi2

from boostbench.learners.bayes.network import family_counts
from boostbench.learners.bayes.structure import conditional_mutual_information, reaches


def cut_conditional_mi(
    codes: np.ndarray, y: np.ndarray, w: np.ndarray, cards: np.ndarray, k: int, i: int, j: int, cut: tuple[int, ...]
) -> float:
    """``I(X_i; X_j | C, X_cut)`` in nats, maximum-likelihood from the weighted rows ``codes (n, d)``,
    ``y (n,)``, ``w (n,)`` (rows with any of the variables missing left out).
    """
    return _cmi_and_configs(codes, y, w, cards, k, i, j, cut)[0]


def _cmi_and_configs(codes, y, w, cards, k, i, j, cut) -> tuple[float, int]:
    """The CMI and the number of (class, cut-set) configurations with positive weight."""
    joint = family_counts(codes, y, w, j, (*cut, i), cards, k)  # (k, n_cut * card_i, card_j)
    joint = joint.reshape(-1, cards[i], cards[j])  # condition on (C, Z) jointly
    total = joint.sum()
    if total <= 0:
        return 0.0, 0
    p = joint / total
    pz = p.sum(axis=(1, 2), keepdims=True)
    pzi = p.sum(axis=2, keepdims=True)
    pzj = p.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p * pz / (pzi * pzj)), 0.0)
    return float(np.nansum(terms)), int(np.count_nonzero(pz))


def _cut_set(adjacent: list[set[int]], cmi: np.ndarray, i: int, j: int, max_cut: int) -> tuple[int, ...]:
    """The smaller of i's and j's neighbour sets on paths to the other end, strongest ``max_cut``."""

    def on_paths(a: int, b: int) -> list[int]:
        return [n for n in adjacent[a] if n != b and reaches(adjacent, n, b, banned=a)]

    sides = sorted(((on_paths(i, j), i), (on_paths(j, i), j)), key=lambda side: len(side[0]))
    neighbours, end = sides[0]
    neighbours.sort(key=lambda n: (-cmi[end, n], n))
    return tuple(sorted(neighbours[:max_cut]))


def ban_ci_parents(
    codes: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    cards: np.ndarray,
    k: int,
    epsilon: float | None = None,
    max_parents: int = 2,
    max_cut: int = 2,
    alpha: float = 0.01,
) -> list[tuple[int, ...]]:
    """BAN's attribute parents from CI tests (see module doc); deterministic given the counts.

    Args:
        codes: ``(n, d)`` int64 attribute codes.
        y: ``(n,)`` int64 labels.
        w: ``(n,)`` float64 weights.
        cards: ``(d,)`` values per attribute.
        k: the number of classes.
        epsilon: the CI tests' fixed threshold on conditional mutual information, in nats; None:
            the G-test's threshold at level ``alpha``.
        max_parents: attribute parents per attribute (0: Naive Bayes).
        max_cut: largest cut-set a test conditions on (besides the class).

    Raises:
        ValueError: a negative ``epsilon``, ``max_parents`` or ``max_cut``, or ``alpha`` outside (0, 1).
    """
    if (epsilon is not None and epsilon < 0) or max_parents < 0 or max_cut < 0 or not 0 < alpha < 1:
        raise ValueError(
            f"epsilon, max_parents and max_cut must be >= 0 and alpha in (0, 1), got {epsilon}, "
            f"{max_parents}, {max_cut}, {alpha}"
        )
    d = len(cards)
    n = float(w.sum())
    columns = np.asfortranarray(codes)  # each test reads a few attributes of every row

    def dependent(i: int, j: int, cut: tuple[int, ...]) -> bool:
        value, configs = _cmi_and_configs(columns, y, w, cards, k, i, j, cut)
        if epsilon is not None:
            return value > epsilon
        df = max(configs, 1) * (cards[i] - 1) * (cards[j] - 1)
        return n > 0 and 2 * n * value > chi2.ppf(1 - alpha, df)

    cmi = conditional_mutual_information(codes, y, w, cards, k)
    pairs = sorted(
        ((cmi[i, j], i, j) for i in range(d) for j in range(i + 1, d) if dependent(i, j, ())),
        key=lambda pair: (-pair[0], pair[1], pair[2]),
    )
    adjacent: list[set[int]] = [set() for _ in range(d)]

    def separated(i: int, j: int) -> bool:
        return not dependent(i, j, _cut_set(adjacent, cmi, i, j, max_cut))

    later = []
    for _, i, j in pairs:  # 1. drafting
        if reaches(adjacent, i, j):
            later.append((i, j))
        else:
            adjacent[i].add(j)
            adjacent[j].add(i)
    for i, j in later:  # 2. thickening
        if not separated(i, j):
            adjacent[i].add(j)
            adjacent[j].add(i)
    edges = sorted((cmi[a, b], a, b) for a in range(d) for b in adjacent[a] if a < b)
    for _, i, j in edges:  # 3. thinning
        adjacent[i].discard(j)
        adjacent[j].discard(i)
        if not (reaches(adjacent, i, j) and separated(i, j)):
            adjacent[i].add(j)
            adjacent[j].add(i)
    return _orient(adjacent, cmi, max_parents)


def _orient(adjacent: list[set[int]], cmi: np.ndarray, max_parents: int) -> list[tuple[int, ...]]:
    """Parents along a breadth-first order from the strongest attribute (see module doc)."""
    d = len(adjacent)
    position = np.full(d, -1)
    order = 0
    for root in sorted(range(d), key=lambda a: (-cmi[a].sum(), a)):
        if position[root] >= 0:
            continue
        queue = deque([root])
        position[root] = order
        order += 1
        while queue:
            node = queue.popleft()
            for other in sorted(adjacent[node], key=lambda n: (-cmi[node, n], n)):
                if position[other] < 0:
                    position[other] = order
                    order += 1
                    queue.append(other)
    parents = []
    for i in range(d):
        earlier = sorted((n for n in adjacent[i] if position[n] < position[i]), key=lambda n: (-cmi[i, n], n))
        parents.append(tuple(sorted(earlier[:max_parents])))
    return parents
