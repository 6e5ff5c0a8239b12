"""numba's ``inline="always"`` without its quadratic copies of the callee's IR.

numba's inliner (``numba.core.inline_closurecall.InlineWorker``) builds a callee's IR afresh for
every call site it inlines (``inline_function``: the untyped pipeline, which inlines the callee's
own callees), then ``inline_ir`` deep-copies that IR twice, block by block, each block with its
own memo. A block's variables hold the function's scope, and the scope every variable of the
function, so each block copies them all: the cost grows with blocks times variables, at every
level of a nest of inlined kernels. In our booster kernels, which inline the tree walk, the
training and the leaves, those copies were three quarters of a first run's compile
(``benchmarks/cold_start.py``, ``benchmarks/compile_times.py``).

An IR built afresh for one call site is held by nothing else, so :func:`install` lets
``inline_function`` hand it to ``inline_ir`` uncopied. Neither numba caller reads the unmutated
copy ``inline_ir`` returns (numba#8989, numba-cuda#688 describe the cost; numba-cuda#689 makes
the same change). ``inline_ir`` called directly (numba's overload inliner, whose IR is cached and
reused) still copies. The compiled code is the same: only copies are left out.
"""

from __future__ import annotations

import contextlib
import types

from numba.core import inline_closurecall

_NO_COPIES = types.SimpleNamespace(deepcopy=lambda value, memo=None: value)


@contextlib.contextmanager
def _uncopied():
    """``inline_closurecall``'s ``copy.deepcopy`` as the identity, for one ``inline_ir`` call."""
    module_copy = inline_closurecall.copy
    inline_closurecall.copy = _NO_COPIES
    try:
        yield
    finally:
        inline_closurecall.copy = module_copy


def _inline_fresh_ir(self, caller_ir, block, i, function, arg_typs=None):
    """``InlineWorker.inline_function``: the callee's IR, built for this call site alone, is
    inlined without the copies ``inline_ir`` makes of an IR it may not mutate.
    """
    callee_ir = self.run_untyped_passes(function)
    with _uncopied():
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars, arg_typs=arg_typs)


def install() -> None:
    """Replace ``InlineWorker.inline_function`` (once per process; idempotent)."""
    worker = inline_closurecall.InlineWorker
    if worker.inline_function is not _inline_fresh_ir:
        worker.inline_function = _inline_fresh_ir
