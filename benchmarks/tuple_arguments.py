"""What passing the trees' Forest tuple costs numba's compiler (cold start).

The compiled pool hands its kernels one tuple of 35 arrays (``vfdt.layout.Forest``). A kernel
that takes it gets a wrapper that unboxes every field, and each call to it from another kernel
passes every field; both cost compile time, whatever the kernel does. This times, in a fresh
numba (no cache), the same one-line body taking one array or the whole tuple, and a caller that
calls it twice with each, so the figures of docs/architecture.md can be checked on another machine or numba:

    python benchmarks/tuple_arguments.py
"""

from __future__ import annotations

import time
from collections import namedtuple

import numba
import numpy as np

N_FIELDS = 35  # vfdt.layout.Forest's fields
Tuple35 = namedtuple("Tuple35", [f"a{i}" for i in range(N_FIELDS)])


def _array_body(a, i):
    a[i, 0] += 1.0
    return i


def _tuple_body(F, i):
    F.a1[i, 0] += 1.0
    return i


def _seconds(function, *args) -> float:
    """Compile seconds of ``function`` for ``args`` (its first call; the body runs in nanoseconds)."""
    start = time.perf_counter()
    numba.njit(function)(*args)
    return time.perf_counter() - start


def main() -> None:
    forest = Tuple35(*[np.zeros((3,) * (1 + i % 3)) for i in range(N_FIELDS)])  # 1-, 2- and 3-d, as Forest
    _seconds(lambda x: x + 1, 1)  # numba's own first-compile costs, not ours to count
    on_array = numba.njit(_array_body)
    on_tuple = numba.njit(_tuple_body)

    def calls_on_array(F, i):
        return on_array(F.a1, i) + on_array(F.a1, i + 1)

    def calls_on_tuple(F, i):
        return on_tuple(F, i) + on_tuple(F, i + 1)

    def takes_tuple_does_nothing(F, i):
        return i

    on_array(forest.a1, 1)  # the callees compiled before their callers are timed
    on_tuple(forest, 1)
    rows = [
        ("kernel(array)", _seconds(_array_body, forest.a1, 1)),
        ("kernel(35-array tuple), same body", _seconds(_tuple_body, forest, 1)),
        ("kernel(35-array tuple), empty body", _seconds(takes_tuple_does_nothing, forest, 1)),
        ("caller(tuple): 2 calls passing an array", _seconds(calls_on_array, forest, 1)),
        ("caller(tuple): 2 calls passing the tuple", _seconds(calls_on_tuple, forest, 1)),
    ]
    print(f"numba {numba.__version__}, compile seconds (callees compiled beforehand)")
    for name, seconds in rows:
        print(f"  {seconds:6.3f}  {name}")
    print(
        f"taking the tuple instead of an array: +{rows[1][1] - rows[0][1]:.3f} s a kernel; "
        f"passing it instead of an array: +{(rows[4][1] - rows[3][1]) / 2:.3f} s a call site"
    )


if __name__ == "__main__":
    main()
