"""Cheap bounds on a numeric attribute's split merit (the information gain of river's Gaussian
splitter, ``InfoGainSplitCriterion``), to skip exact evaluations that cannot change a split
attempt's decision. The bounds rest on the tables' interpolation error, measured at 15
points per cell and padded fourfold, not proven: the tests compare whole trees with the exact path.

A split attempt on a numeric attribute evaluates, at each of 10 thresholds, every class's Gaussian
CDF (an ``erf``) and the entropies of both sides (two ``log2`` per class): on ISOLET-shaped data
that is 617 x 10 x 26 transcendental triples per attempt, nearly all of the run. The decision
rarely needs them: the Hoeffding test only asks whether ``best - second > eps``.

With ``p_c = w_c / N`` a class's share, ``Phi_c`` the share of it left of the threshold and
``h2`` the binary entropy, the information gain of a binary split is exactly

    merit = pre - H(class) + h2(sum_c p_c Phi_c) - sum_c p_c psi(t_c),   psi(t) = h2(Phi(t)),

with ``t_c`` the threshold's z-score in class c's Gaussian. Both ``Phi`` and ``psi`` are smooth
functions of one variable: tabulated once, linearly interpolated, they give the merit to within
a bound :data:`MERIT_SLACK` measured on the tables (and padded): an interval that contains the
value river's arithmetic gives. :func:`numeric_merit_bounds` returns, per attribute, the interval
of its best threshold's merit; the caller evaluates exactly only the attributes whose interval
can reach the decision (:func:`boostbench.learners.vfdt.split.best_split`). Decisions are
therefore unchanged, bit for bit; the tests compare against the unscreened attempt.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from boostbench.learners.vfdt.layout import MEMO_TERM, MEMO_WEIGHT
from boostbench.learners.vfdt.merits import MIN_BRANCH_FRACTION
from boostbench.system.kernel_cache import kernel, njit

Z_MIN, Z_STEPS_PER_UNIT = -9.0, 1024.0  # tables over z in [-9, 9]; beyond, Phi is 0 or 1 to 1e-18


def _h2(p: np.ndarray) -> np.ndarray:
    """Binary entropy in bits, 0 at 0 and 1."""
    out = np.zeros_like(p)
    inner = (p > 0) & (p < 1)
    q = p[inner]
    out[inner] = -q * np.log2(q) - (1 - q) * np.log2(1 - q)
    return out


def _tables() -> tuple[np.ndarray, np.ndarray, float, float]:
    """``Phi`` and ``psi = h2(Phi)`` on the grid, and each one's interpolation error bound: the
    largest error seen at 15 points inside every cell, times 4, plus a floor for the rounding of
    river's own CDF (``0.5 * (1 + erf)``, absolute error below 1e-16).
    """
    z = Z_MIN + np.arange(int(-2 * Z_MIN * Z_STEPS_PER_UNIT) + 1) / Z_STEPS_PER_UNIT
    phi, psi = ndtr(z), _h2(ndtr(z))
    inner = (np.arange(1, 16) / 16.0)[None, :]
    zz = (z[:-1, None] + inner / Z_STEPS_PER_UNIT).ravel()
    frac = np.broadcast_to(inner, (len(z) - 1, 15)).ravel()
    lo = np.repeat(np.arange(len(z) - 1), 15)
    phi_err = np.abs(phi[lo] + frac * (phi[lo + 1] - phi[lo]) - ndtr(zz)).max()
    psi_err = np.abs(psi[lo] + frac * (psi[lo + 1] - psi[lo]) - _h2(ndtr(zz))).max()
    # psi's modulus of continuity at Phi's rounding (h2 is steep near 0 and 1): 1e-16 * 60 bits
    return phi, psi, 4.0 * phi_err + 1e-15, 4.0 * psi_err + 1e-13


PHI_TABLE, PSI_TABLE, PHI_SLACK, PSI_SLACK = _tables()
# the left share q's error, with room for the sums' rounding; and the merit's: psi's, h2's slope
# (at most log2(99) < 7 where both branches certainly hold over 1%) times q's, and rounding
SHARE_SLACK = PHI_SLACK + 1e-10  # rounding, with up to REFRESH_AFTER updates of the sums
MERIT_SLACK = PSI_SLACK + 7.0 * SHARE_SLACK + 1e-9

REFRESH_AFTER = 1000  # a leaf's cached sums are taken afresh after this many updates (rounding)


def _h2_table() -> tuple[np.ndarray, float]:
    """``h2`` on ``H2_STEPS + 1`` evenly spaced shares in [0, 1], and the bound on its chords'
    error where the 1% rule lets a split through: ``h2`` is concave, so a chord lies below it by
    at most ``step^2 / 8 * max |h2''|`` over the cell, ``h2''(q) = -1 / (ln 2 q (1 - q))``, largest
    at the cells' outer edge ``MIN_BRANCH_FRACTION - step``; plus a floor for rounding.
    """
    step = 1.0 / H2_STEPS
    edge = MIN_BRANCH_FRACTION - step
    return _h2(np.arange(H2_STEPS + 1) * step), step**2 / 8.0 / (math.log(2.0) * edge * (1.0 - edge)) + 1e-12


H2_STEPS = 8192  # cells of the binary-entropy table (64 KiB): chord error below 3e-7 bits
H2_TABLE, H2_SLACK = _h2_table()

# The bounds tolerate rounding far above reassociation's (MERIT_SLACK): let the class sums
# vectorise. No nnan/ninf: the intervals use infinities.
vector_kernel = njit(cache=True, _nrt=False, fastmath={"reassoc", "contract"})


@vector_kernel
def _point_sums(point, n, weights, means, inverses, lows, highs):  # pragma: no cover - compiled
    """``(left weight, sum of w psi)`` at a threshold over ``n`` classes with positive deviation
    (columns of :func:`numeric_merit_bounds`' scratch): branch-free, so the loop vectorises.
    """
    last = PHI_TABLE.shape[0] - 1
    left = 0.0
    spread = 0.0
    for c in range(n):
        u = min(max((point - means[c]) * inverses[c] - Z_MIN, 0.0) * Z_STEPS_PER_UNIT, last - 1.0)
        i = int(u)
        frac = u - i
        phi = PHI_TABLE[i] + frac * (PHI_TABLE[i + 1] - PHI_TABLE[i])
        psi = PSI_TABLE[i] + frac * (PSI_TABLE[i + 1] - PSI_TABLE[i])
        inside = (point >= lows[c]) & (point < highs[c])  # as river: none below the minimum, all from the maximum
        left += weights[c] * (phi if inside else (1.0 if point >= highs[c] else 0.0))
        spread += weights[c] * psi if inside else 0.0
    return left, spread


@kernel
def _full_sums(stats, points, n_points, classwise, sums):  # pragma: no cover - compiled
    """Every class's share of each threshold's left weight and ``w psi`` into ``sums`` (``(2, >=
    n_points)``); returns ``(total weight, h = -sum w log2 w, ok)``, ``ok`` False where river's
    CDF is NaN (a class with zero deviation exactly at a threshold: on neither side).
    ``classwise`` is :func:`numeric_merit_bounds`' scratch (rows MEMO_WEIGHT and MEMO_TERM: the memo of ``w log2 w``).
    """
    weights, means, inverses, lows, highs = classwise[0], classwise[1], classwise[2], classwise[3], classwise[4]
    memo_weight, memo_term = classwise[MEMO_WEIGHT], classwise[MEMO_TERM]
    k = stats.shape[0]
    n, n_steps = 0, 0  # Gaussians from the front of the scratch, zero deviations from the back
    total = 0.0
    h = 0.0
    for c in range(k):
        st = stats[c]
        w = st[0]
        if w <= 0.0:
            continue
        total += w
        # a leaf's attributes mostly hold the same class weights (those without missing values):
        # one logarithm per class and attempt, not one per attribute
        if memo_weight[c] != w:
            memo_weight[c], memo_term[c] = w, w * math.log2(w)
        h -= memo_term[c]
        variance = st[2] / (w - 1.0) if w > 1.0 else 0.0  # river's (ddof 1); zero: a step
        if variance > 0.0:  # gathered for the vectorised sums
            weights[n], means[n], inverses[n], lows[n], highs[n] = w, st[1], 1.0 / math.sqrt(variance), st[3], st[4]
            n += 1
        else:
            n_steps += 1
            weights[k - n_steps], means[k - n_steps], lows[k - n_steps], highs[k - n_steps] = st[0], st[1], st[3], st[4]
    for i in range(n_points):
        point = points[i]
        sums[0, i], sums[1, i] = _point_sums(point, n, weights, means, inverses, lows, highs)
        for c in range(k - n_steps, k):  # zero deviation: river's CDF is a step at the mean
            if point >= lows[c]:
                if point >= highs[c] or point > means[c]:
                    sums[0, i] += weights[c]
                elif point == means[c]:
                    return total, h, False
    return total, h, True


@kernel
def _shift_class(st, sign, points, n_points, sums):  # pragma: no cover - compiled
    """Add ``sign`` (+1 or -1) times one class's part of :func:`_full_sums` (its estimator ``st``,
    ``[weight, mean, S, min, max]``); returns False where river's CDF is NaN.
    """
    w = st[0]
    if w <= 0.0:
        return True
    last = PHI_TABLE.shape[0] - 1
    variance = st[2] / (w - 1.0) if w > 1.0 else 0.0
    inverse = 1.0 / math.sqrt(variance) if variance > 0.0 else 0.0
    for i in range(n_points):
        point = points[i]
        if point < st[3]:
            continue
        if point >= st[4] or (variance <= 0.0 and point > st[1]):
            sums[0, i] += sign * w
        elif variance > 0.0:
            u = min(max((point - st[1]) * inverse - Z_MIN, 0.0) * Z_STEPS_PER_UNIT, last - 1.0)
            j = int(u)
            frac = u - j
            sums[0, i] += sign * w * (PHI_TABLE[j] + frac * (PHI_TABLE[j + 1] - PHI_TABLE[j]))
            sums[1, i] += sign * w * (PSI_TABLE[j] + frac * (PSI_TABLE[j + 1] - PSI_TABLE[j]))
        elif point == st[1]:
            return False
    return True


@kernel
def _merit_bounds(sums, n_points, total, h, pre_entropy):  # pragma: no cover - compiled
    """The interval of :func:`numeric_merit_bounds` from ``sums`` (``(2, >= n_points)`` float64: each
    threshold's left weight and sum of ``w psi``), the total weight and ``h = -sum w log2 w``.
    """
    low, high = -np.inf, -np.inf
    if total <= 0.0:
        return low, high
    # The merit's threshold-dependent part, h2(q) - sum w psi / W, with h2 from its table's chords
    # (below h2 by at most H2_SLACK): its maximum bounds the best threshold's from above; the
    # threshold that reaches it, evaluated with exact logarithms, bounds it from below: three
    # logarithms per attribute instead of two per threshold.
    best, best_i = -np.inf, -1
    for i in range(n_points):
        q = sums[0, i] / total
        if q - SHARE_SLACK > MIN_BRANCH_FRACTION and 1.0 - q - SHARE_SLACK > MIN_BRANCH_FRACTION:
            u = q * H2_STEPS
            cell = min(int(u), H2_STEPS - 1)
            frac = u - cell
            chord = H2_TABLE[cell] + frac * (H2_TABLE[cell + 1] - H2_TABLE[cell]) - sums[1, i] / total
            if chord > best:
                best, best_i = chord, i
        elif q + SHARE_SLACK >= MIN_BRANCH_FRACTION and 1.0 - q + SHARE_SLACK >= MIN_BRANCH_FRACTION:
            high = np.inf  # at the rule's edge: either side of it
    if best_i < 0:
        return low, high
    gain = pre_entropy - (h + total * math.log2(total)) / total  # pre_entropy - the class entropy
    q = sums[0, best_i] / total
    merit = gain - sums[1, best_i] / total - q * math.log2(q) - (1.0 - q) * math.log2(1.0 - q)
    return merit - MERIT_SLACK, max(high, gain + best + H2_SLACK + MERIT_SLACK)


# a leaf's cache of the sums (``screen_grid`` columns): valid, the thresholds' range, total, h
VALID, GRID_LO, GRID_HI, TOTAL, ENTROPY_SUM = range(5)


@kernel
def cached_range(grid, st):  # pragma: no cover - compiled
    """The range ``(lo, hi)`` :func:`~.merits.thresholds` finds for an attribute whose cached sums
    are valid (``grid[VALID] == 1``) when one class alone, now with estimator ``st``, changed since:
    minima and maxima only extend, so the cached range widened by that class's is the same range,
    to the bit, without reading the other classes' estimators (a slot's largest array).
    """
    lo, hi = grid[GRID_LO], grid[GRID_HI]
    if st[0] > 0.0:
        lo = min(lo, st[3])
        hi = max(hi, st[4])
    return lo, hi


@kernel
def numeric_merit_bounds(
    stats, points, n_points, lo, hi, pre_entropy, classwise, sums, grid, base, changed
):  # pragma: no cover - compiled
    """An interval ``(low, high)`` holding the best merit river's arithmetic gives a numeric
    attribute over the thresholds ``points[:n_points]`` (those strictly inside its range
    ``(lo, hi)``).

    ``stats`` is the attribute's ``(k, 5)`` per-class Gaussian estimators ``[weight, mean, S, min,
    max]`` (:mod:`~boostbench.learners.vfdt.layout`), ``pre_entropy`` the leaf's class entropy in
    bits; ``classwise`` (``(7, >= k)`` float64, C-contiguous rows) is scratch, whose rows
    MEMO_WEIGHT and MEMO_TERM carry a memo of ``w log2 w`` by class from call to call (zeros: empty).

    The leaf's cache for the attribute: ``sums`` (``(2, N_SPLIT_POINTS)``: left weight and ``w psi``
    per threshold), ``grid`` (``(5,)``, columns VALID ... ENTROPY_SUM) and ``base`` (``(5,)``, the
    estimator of class ``changed`` when the sums were taken). With ``changed >= 0`` and the same
    thresholds, only that class is taken out and put back (with the paper's grace periods a leaf
    attempts after nearly every example, which changed one class); ``changed = -1``: the sums
    are taken afresh. Either way the cache is left up to date (or invalid).

    ``(-inf, -inf)``: every threshold certainly fails the 1% rule, the merit is -inf.
    ``high = inf``: not bounded here (a class with zero deviation exactly at a threshold, or a
    threshold at the 1% rule's edge): evaluate exactly.
    """
    if changed >= 0 and grid[VALID] == 1.0 and grid[GRID_LO] == lo and grid[GRID_HI] == hi:
        st = stats[changed]
        ok = _shift_class(base, -1.0, points, n_points, sums) and _shift_class(st, 1.0, points, n_points, sums)
        if base[0] > 0.0:
            grid[TOTAL] -= base[0]
            grid[ENTROPY_SUM] += base[0] * math.log2(base[0])
        if st[0] > 0.0:
            grid[TOTAL] += st[0]
            grid[ENTROPY_SUM] -= st[0] * math.log2(st[0])
    else:
        grid[TOTAL], grid[ENTROPY_SUM], ok = _full_sums(stats, points, n_points, classwise, sums)
        grid[GRID_LO], grid[GRID_HI] = lo, hi
    grid[VALID] = 1.0 if ok else 0.0
    if not ok:  # river's CDF is NaN: the class is on neither side
        return -np.inf, np.inf
    return _merit_bounds(sums, n_points, grid[TOTAL], grid[ENTROPY_SUM], pre_entropy)
