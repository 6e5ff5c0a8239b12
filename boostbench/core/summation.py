"""numpy's sums, to the bit, for the kernels that must reproduce a numpy reference."""

from __future__ import annotations

from boostbench.system.kernel_cache import njit


@njit(cache=True, _nrt=False)
def numpy_sum(values):  # pragma: no cover - compiled
    """``values.sum()`` of a contiguous float64 ``(n,)`` to the bit: numpy's pairwise summation
    (eight running sums over blocks of at most 128, halves above that).
    """
    n = values.shape[0]
    if n < 8:
        total = 0.0
        for i in range(n):
            total += values[i]
        return total
    if n <= 128:
        r0, r1, r2, r3 = values[0], values[1], values[2], values[3]
        r4, r5, r6, r7 = values[4], values[5], values[6], values[7]
        i = 8
        while i < n - n % 8:
            r0 += values[i]
            r1 += values[i + 1]
            r2 += values[i + 2]
            r3 += values[i + 3]
            r4 += values[i + 4]
            r5 += values[i + 5]
            r6 += values[i + 6]
            r7 += values[i + 7]
            i += 8
        total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            total += values[i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return numpy_sum(values[:half]) + numpy_sum(values[half:])
