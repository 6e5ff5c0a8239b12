"""The warm-up before a run's timed pass compiles the kernels the pass calls, and no others."""

import gc

import numpy as np
import pytest

from boostbench.data import load_dataset
from boostbench.learners.vfdt import training
from boostbench.protocols import prequential
from boostbench.runner.config import compose_config, validate
from boostbench.runner.experiment import _online_booster, warm_up_kernels
from boostbench.seeding import run_generators
from boostbench.system.kernel_cache import KernelDispatcher


def _signatures() -> dict:
    """``{kernel name: signatures it holds (compiled or loaded)}`` of every kernel declared so far."""
    return {
        f"{d.py_func.__module__}.{d.__name__}": tuple(d.signatures)
        for d in gc.get_objects()
        if type(d) is KernelDispatcher
    }  # (isinstance fails on dead weak proxies)


@pytest.mark.parametrize("algorithm", ["adaboost_olm", "online_mbbm", "online_boosting"])
def test_the_pass_compiles_nothing_the_warm_up_did_not(algorithm):
    run = validate(compose_config(["dataset=balance", f"algorithm={algorithm}", "n_learners=4", "n_threads=1"]))
    dataset = load_dataset(run.dataset, None, 0)
    k = dataset.n_classes
    run.spec.load_caches(k, run.algorithm, 4)
    threaded = training.learn_trees_threaded.signatures
    warm_up_kernels(run, dataset, k)
    # one thread: the threaded training is neither compiled nor loaded
    assert training.learn_trees_threaded.signatures == threaded
    before = _signatures()
    generators = run_generators(1)
    _, booster = _online_booster(run, dataset, k, generators.learners, generators.booster)
    prequential(booster, dataset.X, dataset.y, np.arange(200))
    compiled_in_pass = {name: sigs for name, sigs in _signatures().items() if sigs != before.get(name, ())}
    assert compiled_in_pass == {}
