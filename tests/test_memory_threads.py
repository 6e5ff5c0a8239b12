"""The pool's memory budget and its threads, through the runner.

- Threads: any ``n_threads`` gives the same record (metrics and curves) to the bit; unset, a
  lone run threads only examples large enough to repay it.
- Budget: the default ``learner.max_size`` is never reached on the vendored data sets at the
  paper's settings; the heaviest pools (nursery's and mice's, measured over every Table 1 / 3
  configuration with ``benchmarks/pool_sizes.py``) stay under it, so their numbers are those of
  an unbounded pool.
"""

from __future__ import annotations

import os

import pytest
from conftest import learner_file

import boostbench.runner.experiment as experiment
from boostbench.learners.vfdt.layout import MAX_BYTES
from boostbench.runner.config import compose_config
from boostbench.system.resources import MACHINE_DEPENDENT as TIMING


def _numbers(record: dict) -> dict:
    return {
        "metrics": {k: v for k, v in record["metrics"].items() if k not in TIMING},
        "curve": record["curve"],
        "config_hash": record["config_hash"],
    }


@pytest.mark.parametrize(
    "dataset,algorithm",
    [
        ("balance", "online_mbbm"),
        ("mushroom", "online_boosting"),  # make test; all five in make test-slow
        *(
            pytest.param(*case, marks=pytest.mark.slow)
            for case in [("car", "adaboost_olm"), ("mice", "best_vfdt"), ("emotions", "ada_olmr")]
        ),
    ],
)
def test_threads_give_the_same_numbers(dataset, algorithm):
    common = [f"dataset={dataset}", f"algorithm={algorithm}", "n_learners=12", "seed=3", "progress=false"]
    one = experiment.run_experiment(compose_config([*common, "n_threads=1"]))
    three = experiment.run_experiment(compose_config([*common, "n_threads=3"]))
    assert _numbers(one) == _numbers(three)


@pytest.mark.parametrize(
    "shape,threaded",
    [((6, 4), False), ((18, 5), False), ((77, 8), False), ((617, 26), True)],  # car, Movement, mice, ISOLET
)
def test_a_lone_run_threads_only_large_examples(shape, threaded):
    import numba

    before = numba.get_num_threads()
    try:
        threads = experiment.run_threads(learner_file("hoeffding_tree"), None, *shape)
        every_core = min(len(os.sched_getaffinity(0)), numba.config.NUMBA_NUM_THREADS)
        assert threads == (every_core if threaded else 1)
        assert experiment.run_threads(learner_file("hoeffding_tree"), 1, *shape) == 1  # n_threads=1: one
        assert experiment.run_threads(learner_file("tan"), None, *shape) == 1  # no compiled pool: one
    finally:
        numba.set_num_threads(before)


class _Pools:
    """Keeps the pools the runner builds (its warm-up builds one too: a run's pass uses the last)."""

    def __init__(self, monkeypatch):
        self.pools = []
        real = experiment.make_pool

        def capture(*args, **kwargs):
            self.pools.append(real(*args, **kwargs))
            return self.pools[-1]

        monkeypatch.setattr(experiment, "make_pool", capture)


@pytest.mark.slow  # whole data sets at the paper's settings: make test-slow
@pytest.mark.parametrize("dataset,algorithm,seed", [("nursery", "best_vfdt", 0), ("mice", "adaboost_olm", 0)])
def test_default_budget_is_never_reached_on_vendored_data(monkeypatch, dataset, algorithm, seed):
    kept = _Pools(monkeypatch)
    cfg = compose_config([f"dataset={dataset}", f"algorithm={algorithm}", f"seed={seed}", "progress=false"])
    experiment.run_experiment(cfg)
    pool = kept.pools[-1]
    assert cfg.learner.max_size == 640 and pool.limits[MAX_BYTES] == 640 * 2**20
    assert pool.enforcements == 0
    assert (
        0.3 * pool.limits[MAX_BYTES] < pool.size_bytes < 0.9 * pool.limits[MAX_BYTES]
    )  # the heaviest: near, not at, the budget


def test_a_reached_budget_bounds_the_pool_and_keeps_learning(monkeypatch):
    kept = _Pools(monkeypatch)
    common = ["dataset=nursery", "algorithm=adaboost_olm", "n_learners=20", "seed=0", "progress=false"]
    free = experiment.run_experiment(compose_config(common))
    unbounded = kept.pools[-1]
    tight = experiment.run_experiment(compose_config([*common, "learner.max_size=4"]))
    bounded = kept.pools[-1]
    assert unbounded.enforcements == 0 and bounded.enforcements > 0
    assert bounded.size_bytes <= 4 * 2**20 < unbounded.size_bytes
    assert tight["metrics"]["final_accuracy"] > 0.8 * free["metrics"]["final_accuracy"]
