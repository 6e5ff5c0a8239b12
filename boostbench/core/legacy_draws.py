"""Draws from numba's legacy NumPy stream (``np.random`` inside a kernel), one call fewer a draw.

numba compiles ``np.random.random()`` and ``np.random.poisson(lam)`` as functions of their own,
and each call looks the thread's stream up again. A booster that draws some 300 uniforms per
example pays two calls per draw. Here the stream is looked up once (:func:`stream_state`) and
each draw is numba's own code for it, inlined: the Mersenne Twister step and the double of
NumPy's ``RandomState``, and Poisson's two algorithms (the product of uniforms below
``lam = 10``, numba's ``numba_poisson_ptrs`` above). The numbers are those ``np.random`` gives:
``tests/test_legacy_draws.py`` compares them draw for draw.
"""

from __future__ import annotations

import math

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import intrinsic
from numba.cpython.randomimpl import get_next_double, rnd_state_ptr_t
from numba.np.random.legacy import get_np_state_ptr

from boostbench.system.kernel_cache import inlined_kernel

POISSON_PTRS_FROM = 10.0  # NumPy's (and numba's) switch to the PTRS algorithm


@intrinsic
def stream_state(typingcontext):
    """The thread's ``np.random`` state (a pointer), for :func:`next_double` and :func:`poisson`.

    ``np.random.seed`` re-seeds that same state, so a pointer taken before a seed stays valid.
    """

    def codegen(context, builder, signature, args):
        return builder.bitcast(get_np_state_ptr(context, builder), cgutils.voidptr_t)

    return types.voidptr(), codegen


@intrinsic
def next_double(typingcontext, state):
    """``np.random.random()`` from ``state``: a float64 in [0, 1), 53 random bits."""

    def codegen(context, builder, signature, args):
        return get_next_double(context, builder, builder.bitcast(args[0], rnd_state_ptr_t))

    return types.float64(types.voidptr), codegen


@intrinsic
def _poisson_ptrs(typingcontext, state, lam):
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), (rnd_state_ptr_t, ir.DoubleType()))
        fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_poisson_ptrs")
        return builder.call(fn, (builder.bitcast(args[0], rnd_state_ptr_t), args[1]))

    return types.int64(types.voidptr, types.float64), codegen


@inlined_kernel
def poisson(state, lam):  # pragma: no cover - compiled
    """``np.random.poisson(lam)`` from ``state``: an int64 count, for a float64 ``lam >= 0``.

    NumPy's legacy ``random_poisson``, as numba compiles it: below :data:`POISSON_PTRS_FROM`,
    Knuth's product of uniforms (TAOCP vol. 2), stopping at the first product at or below
    ``exp(-lam)`` (one uniform more than the count); from there, Hörmann's PTRS. ``lam = 0``
    draws nothing. A negative ``lam`` is not checked (numba's raises ``ValueError``): the caller's
    weights are positive.
    """
    if lam >= POISSON_PTRS_FROM:
        return _poisson_ptrs(state, lam)
    if lam == 0.0:
        return 0
    enlam = math.exp(-lam)
    count = 0
    product = next_double(state)
    while product > enlam:
        count += 1
        product *= next_double(state)
    return count
