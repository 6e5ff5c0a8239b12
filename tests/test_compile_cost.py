"""What a first run compiles: majority-class pools type no naive-Bayes code, and numba's inliner
builds each inlined kernel's IR without copying it (:mod:`boostbench.system.numba_inlining`)."""

import numba
import numpy as np
import pytest
from numba.core import inline_closurecall, ir

from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
from boostbench.learners.pool import HoeffdingTreeParams
from boostbench.learners.vfdt import naive_bayes, training
from boostbench.system import kernel_cache, numba_inlining

NAIVE_BAYES_KERNELS = {  # those naive_bayes defines, not those it imports
    name
    for name, value in vars(naive_bayes).items()
    if isinstance(value, kernel_cache.KernelDispatcher) and value.py_func.__module__ == naive_bayes.__name__
}


def _pool(leaves):  # two trees, three classes, a nominal and a numeric attribute
    n = 2
    params = HoeffdingTreeParams(
        delta=np.full(n, 0.1), tau=np.full(n, 0.05), grace_period=np.full(n, 5), weight_scale=np.ones(n)
    )
    return CompiledHoeffdingTreePool(params, 3, [3, 0], leaf_prediction=leaves)


def _typed_calls(monkeypatch, kernel, args) -> set[str]:
    """The kernels a fresh, uncached compile of ``kernel`` for ``args`` types on its way."""
    calls = set()
    template = kernel_cache.KernelDispatcher.get_call_template

    def recorded(self, call_args, kws):
        calls.add(self.py_func.__name__)
        return template(self, call_args, kws)

    monkeypatch.setattr(kernel_cache.KernelDispatcher, "get_call_template", recorded)
    kernel_cache.njit(kernel.py_func, _nrt=False).compile(tuple(numba.typeof(a) for a in args))
    return calls


@pytest.mark.parametrize("leaves", ["mc", "nba"])
def test_only_naive_bayes_pools_type_the_naive_bayes_kernels(monkeypatch, leaves):
    pool = _pool(leaves)
    x = pool.prepare(np.array([1.0, 0.5]))
    typed = _typed_calls(monkeypatch, training.learn_all, (x, 1, np.ones(2), pool.reserve(), pool.nb_leaves))
    assert "best_split" in typed  # the training, inlined, was typed down to its split attempt
    assert bool(typed & NAIVE_BAYES_KERNELS) == (leaves == "nba")
    assert (pool.nb_leaves is None) == (leaves == "mc")


def test_the_inliner_copies_no_ir_and_compiles_the_same_function(monkeypatch):
    numba_inlining.install()
    assert inline_closurecall.InlineWorker.inline_function is numba_inlining._inline_fresh_ir

    @numba.njit(inline="always")
    def leaf(a, i):
        return a[i] * 2.0 if a[i] > 0 else -a[i]

    @numba.njit(inline="always")
    def branch(a, i):
        return leaf(a, i) + leaf(a, i + 1)

    @numba.njit
    def root(a):
        return branch(a, 0) + branch(a, 1) + branch(a, 2)

    copies = []
    deepcopy = ir.Var.__deepcopy__

    def counted(self, memo):
        copies.append(self.name)
        return deepcopy(self, memo)

    monkeypatch.setattr(ir.Var, "__deepcopy__", counted)
    a = np.array([1.0, -2.0, 3.0, -4.0])
    assert root(a) == root.py_func(a) == 2.0 + 2.0 + 2.0 + 6.0 + 6.0 + 4.0
    assert copies == []  # numba's own inline_function deep-copies every block's variables twice
    assert inline_closurecall.copy.deepcopy is not numba_inlining._NO_COPIES.deepcopy  # restored
