"""Structure learning for the Bayesian-network classifiers, from weighted counts.

* TAN (Friedman, Geiger & Goldszmidt 1997): the maximum spanning tree over the attributes with
  edge weights ``I(X_i; X_j | C)`` (conditional mutual information), directed away from
  attribute 0; each attribute gets its tree parent (and the class).
* BAN, score-based: an unrestricted DAG among the attributes (class a parent of each), found by
  greedy hill climbing from the empty graph (Naive Bayes) over single-edge additions, deletions
  and reversals, with at most ``max_parents`` attribute parents per attribute, scored by one of
  (Heckerman, Geiger & Chickering 1995 for the Bayesian scores):

  - ``bic``: log-likelihood minus ``log(N)/2`` per free parameter;
  - ``bdeu``: the log marginal likelihood under a Dirichlet prior of equivalent sample size
    ``ess`` spread uniformly over a family's cells;
  - ``k2``: the same with every cell's pseudo-count 1 (Cooper & Herskovits 1992).

  Cheng & Greiner's own BAN is built from CI tests instead: :mod:`boostbench.learners.bayes.ci_tests`.

Both read the data as weighted rows ``(codes, y, w)`` (e.g. a :class:`~boostbench.learners.bayes.network.RowTable`),
so the online learners and the batch ones learn the same structure from the same counts.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from boostbench.learners.bayes.network import family_counts

SCORES = ("bic", "bdeu", "k2")


def conditional_mutual_information(
    codes: np.ndarray, y: np.ndarray, w: np.ndarray, cards: np.ndarray, k: int
) -> np.ndarray:
    """``(d, d)`` float64 symmetric matrix of ``I(X_i; X_j | C)`` in nats (0 on the diagonal).

    Maximum-likelihood estimates from the weighted rows; a pair's rows with either value
    missing are left out of that pair. Every pair's joint counts come from one product per
    class of the rows' one-hot codes, ``(sum card, sum card)``.
    """
    d = len(cards)
    starts = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
    width = int(starts[-1])
    block = np.repeat(np.arange(d), cards)  # one-hot column -> attribute
    joints = np.zeros((k, width, width))  # N(c, x_i = a, x_j = b), all pairs
    for c in range(k):
        rows = np.flatnonzero(y == c)
        onehot = np.zeros((len(rows), width))
        r, a = np.nonzero(codes[rows] >= 0)
        onehot[r, starts[a] + codes[rows][r, a]] = 1.0
        joints[c] = (onehot * w[rows, None]).T @ onehot
    # per pair, the marginals over the rows where both are present
    by_j = np.add.reduceat(joints, starts[:-1], axis=2)  # (k, width, d): N(c, x_i = a) with j present
    by_i = np.add.reduceat(joints, starts[:-1], axis=1)  # (k, d, width)
    class_totals = np.add.reduceat(by_j, starts[:-1], axis=1)  # (k, d, d)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = joints * class_totals[:, block][:, :, block] / (by_j[:, :, block] * by_i[:, block, :])
        terms = np.where(joints > 0, joints * np.log(ratio), 0.0).sum(axis=0)
    sums = np.add.reduceat(np.add.reduceat(terms, starts[:-1], axis=1), starts[:-1], axis=0)
    totals = class_totals.sum(axis=0)
    out = np.where(totals > 0, sums / np.where(totals > 0, totals, 1.0), 0.0)
    np.fill_diagonal(out, 0.0)
    return (out + out.T) / 2


def tan_parents(codes: np.ndarray, y: np.ndarray, w: np.ndarray, cards: np.ndarray, k: int) -> list[tuple[int, ...]]:
    """TAN's attribute parents: Prim's maximum spanning tree on the CMI matrix, rooted at 0.

    Ties go to the lowest attribute index, so the structure is a deterministic function of the counts.
    """
    d = len(cards)
    weights = conditional_mutual_information(codes, y, w, cards, k)
    parents: list[tuple[int, ...]] = [()] * d
    in_tree = np.zeros(d, dtype=bool)
    in_tree[0] = True
    best = weights[0].copy()
    link = np.zeros(d, dtype=np.int64)
    for _ in range(d - 1):
        candidates = np.where(in_tree, -np.inf, best)
        v = int(np.argmax(candidates))
        parents[v] = (int(link[v]),)
        in_tree[v] = True
        better = ~in_tree & (weights[v] > best)
        best[better] = weights[v][better]
        link[better] = v
    return parents


def family_score(counts: np.ndarray, score: str, log_n: float, ess: float = 1.0) -> float:
    """The decomposable score of one family from its counts ``N(c, pa, x_i)`` ``(k, n_pa, card_i)``.

    ``log_n``: log of the sample size (BIC's penalty); ``ess``: BDeu's equivalent sample size.

    Raises:
        ValueError: an unknown score.
    """
    if score == "bic":
        totals = counts.sum(axis=2, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            loglik = float(np.sum(np.where(counts > 0, counts * np.log(counts / totals), 0.0)))
        return loglik - 0.5 * log_n * counts.shape[0] * counts.shape[1] * (counts.shape[2] - 1)
    if score == "bdeu":
        cell = ess / counts.size
    elif score == "k2":
        cell = 1.0
    else:
        raise ValueError(f"unknown structure score {score!r} (known: {', '.join(SCORES)})")
    row = cell * counts.shape[2]
    totals = counts.sum(axis=2)
    return float(np.sum(gammaln(row) - gammaln(row + totals)) + np.sum(gammaln(cell + counts) - gammaln(cell)))


def reaches(graph: list[set[int]], start: int, target: int, banned: int | None = None) -> bool:
    """Whether a path leads from ``start`` to ``target`` in ``graph`` (node -> set of next nodes:
    children, or neighbours of an undirected graph) without passing through ``banned``.
    """
    stack, seen = [start], {start}
    while stack:
        node = stack.pop()
        if node == target:
            return True
        for other in graph[node] - seen:
            if other != banned:
                seen.add(other)
                stack.append(other)
    return False


def ban_parents(
    codes: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    cards: np.ndarray,
    k: int,
    max_parents: int = 2,
    max_iterations: int = 1000,
    score: str = "bic",
    ess: float = 1.0,
) -> list[tuple[int, ...]]:
    """BAN's attribute parents by hill climbing on ``score`` (see module doc); deterministic given the counts.

    Raises:
        ValueError: ``max_parents`` < 0, or an unknown score.
    """
    if score not in SCORES:
        raise ValueError(f"unknown structure score {score!r} (known: {', '.join(SCORES)})")
    if max_parents < 0:
        raise ValueError(f"max_parents must be >= 0, got {max_parents}")
    d = len(cards)
    log_n = float(np.log(max(w.sum(), 2.0)))
    cache: dict[tuple[int, tuple[int, ...]], float] = {}
    columns = np.asfortranarray(codes)  # each family reads a few attributes of every row

    def family(i: int, pa: tuple[int, ...]) -> float:
        key = (i, pa)
        if key not in cache:
            cache[key] = family_score(family_counts(columns, y, w, i, pa, cards, k), score, log_n, ess)
        return cache[key]

    parents: list[tuple[int, ...]] = [()] * d
    children: list[set[int]] = [set() for _ in range(d)]
    for _ in range(max_iterations):
        best_gain, best_move = 1e-9, None
        for i in range(d):
            current = family(i, parents[i])
            for j in range(d):
                if j == i:
                    continue
                if j in parents[i]:
                    removed = tuple(p for p in parents[i] if p != j)
                    gain = family(i, removed) - current  # delete j -> i
                    if gain > best_gain:
                        best_gain, best_move = gain, ("delete", j, i)
                    if len(parents[j]) < max_parents:  # reverse to i -> j
                        children[j].discard(i)
                        acyclic = not reaches(children, j, i)
                        children[j].add(i)
                        if acyclic:
                            gain_rev = gain + family(j, tuple(sorted(parents[j] + (i,)))) - family(j, parents[j])
                            if gain_rev > best_gain:
                                best_gain, best_move = gain_rev, ("reverse", j, i)
                elif len(parents[i]) < max_parents and not reaches(children, i, j):
                    gain = family(i, tuple(sorted(parents[i] + (j,)))) - current  # add j -> i
                    if gain > best_gain:
                        best_gain, best_move = gain, ("add", j, i)
        if best_move is None:
            break
        kind, j, i = best_move
        if kind in ("delete", "reverse"):
            parents[i] = tuple(p for p in parents[i] if p != j)
            children[j].discard(i)
        if kind == "add":
            parents[i] = tuple(sorted(parents[i] + (j,)))
            children[j].add(i)
        if kind == "reverse":
            parents[j] = tuple(sorted(parents[j] + (i,)))
            children[i].add(j)
    return parents
