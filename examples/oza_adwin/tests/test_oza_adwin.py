"""OzaADWIN passes boostbench's conformance checks, runs in the bench, and follows a drift."""

import numpy as np
from oza_adwin import OzaADWIN

from boostbench.testing import check_booster


def test_the_class_passes_boostbench_checks():
    check_booster(OzaADWIN)


def test_the_installed_entry_point_runs_in_the_bench():
    from boostbench.runner.config import compose_config, validate
    from boostbench.runner.experiment import run_experiment

    cfg = compose_config(["algorithm=oza_adwin", "dataset=balance", "n_learners=5", "progress=false"])
    record = run_experiment(validate(cfg))
    assert record["plugin"]["distribution"] == "boostbench-oza-adwin"
    assert record["config"]["algorithm"] == {"name": "oza_adwin", "delta": 0.002, "eps_floor": 0.001}
    assert record["metrics"]["final_accuracy"] > 0.7


def test_a_member_wrong_since_a_drift_loses_its_vote_at_once():
    """After 500 right answers then 100 wrong ones, ADWIN's window holds the recent mistakes
    (an error near 1), where the error since the start would still be 1/6.
    """
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
    from boostbench.learners.pool import HoeffdingTreeParams

    params = HoeffdingTreeParams(
        delta=np.full(2, 0.5), tau=np.full(2, 0.5), grace_period=np.full(2, 1), weight_scale=np.ones(2)
    )
    pool = CompiledHoeffdingTreePool(params, 2, [0, 2], capacity=8)  # two trees: a numeric and a 2-valued attribute
    booster = OzaADWIN(pool, 2, np.random.default_rng(0))
    for wrong in [0] * 500 + [1] * 100:
        booster.errors[0].update(wrong)
    assert booster.error(0) > 0.9
