"""Prequential k-fold distributed validation (Bifet et al., KDD 2015; MOA's EvaluatePrequentialCV):

- which copy trains on which example, as MOA chooses (cross-validation, split, bootstrap);
- a small stream's k-fold figures by hand, with a majority-class learner;
- a copy trained on every example is the prequential pass, bit for bit;
- the runner's record (per-fold lists, mean, interval), ours and a peer, and its refusals.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import skip_without_peer

from boostbench.boosters.base import OnlineBooster
from boostbench.errors import ConfigError
from boostbench.metrics import fold_summary
from boostbench.protocols import prequential, prequential_cv
from boostbench.protocols.prequential_cv import copy_pass, training_counts
from boostbench.runner.config import compose_config, incompatibility, validate
from boostbench.runner.experiment import run_experiment


class MajorityClass(OnlineBooster):
    """The most frequent label it was trained on (the lowest on ties; class 0 before any)."""

    def __init__(self, n_classes: int):
        super().__init__(None, n_classes, np.random.default_rng(0))
        self.counts = np.zeros(n_classes, dtype=np.int64)

    def predict_proba(self, x):
        return self.counts / max(1, self.counts.sum())

    def predict(self, x):
        return int(self.counts.argmax())

    def update(self, y, w=1.0):
        self.counts[y] += 1


def test_which_copy_trains_on_which_example_as_moa_chooses():
    rng = np.random.default_rng(0)
    # MOA counts the examples before the t-th (0-based t): example t is copy (t mod k)'s own
    assert training_counts("cross_validation", 7, 3, 0, rng).tolist() == [0, 1, 1, 0, 1, 1, 0]
    assert training_counts("cross_validation", 7, 3, 2, rng).tolist() == [1, 1, 0, 1, 1, 0, 1]
    assert training_counts("split", 7, 3, 1, rng).tolist() == [0, 1, 0, 0, 1, 0, 0]
    draws = training_counts("bootstrap", 20_000, 3, 0, np.random.default_rng(5))
    assert draws.min() == 0 and abs(draws.mean() - 1.0) < 0.03 and abs(draws.var() - 1.0) < 0.05  # Poisson(1)
    with pytest.raises(ValueError, match="unknown validation 'loo'"):
        training_counts("loo", 7, 3, 0, rng)


def test_a_small_streams_k_fold_figures_by_hand():
    y = np.array([0, 1, 1, 2, 1, 0, 1])
    X = np.zeros((7, 1))
    rngs = np.random.default_rng(0).spawn(3)
    folds = prequential_cv(lambda fold: MajorityClass(3), X, y, np.arange(7), 3, "cross_validation", rngs)
    # copy 0 trains on examples 1, 2, 4, 5: predicts 0, 0, then 1 once it has seen a 1
    # copy 1 trains on 0, 2, 3, 5: class 0 leads or ties (lowest) throughout
    # copy 2 trains on 0, 1, 3, 4: 0 while tied, 1 after example 4 (1, 1 against 0 and 2)
    assert [f.predicted.tolist() for f in folds] == [
        [0, 0, 1, 1, 1, 1, 1],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1, 1],
    ]
    accuracy = [f.cumulative_accuracy for f in folds]
    assert accuracy == pytest.approx([4 / 7, 2 / 7, 2 / 7])
    mean, low, high = fold_summary(accuracy)
    half = 4.302652729749464 * np.std([4 / 7, 2 / 7, 2 / 7], ddof=1) / np.sqrt(3)  # t(0.975, 2 df)
    assert (mean, low, high) == pytest.approx((8 / 21, 8 / 21 - half, 8 / 21 + half))
    # split: copy 0 trains on examples 0, 3, 6 only: 0 throughout (a tie 0/2 after example 3)
    split = prequential_cv(lambda fold: MajorityClass(3), X, y, np.arange(7), 3, "split", rngs)
    assert split[0].predicted.tolist() == [0] * 7 and split[0].cumulative_accuracy == pytest.approx(2 / 7)


def test_a_bootstrap_copy_is_trained_on_each_example_its_poisson_count_of_times():
    rng = np.random.default_rng(2)
    y = rng.integers(3, size=300)
    counts = training_counts("bootstrap", 300, 4, 1, np.random.default_rng(9))
    booster = MajorityClass(3)
    result = copy_pass(booster, np.zeros((300, 1)), y, np.arange(300), counts, progress_every=7)
    assert booster.counts.tolist() == np.bincount(y, weights=counts, minlength=3).astype(int).tolist()
    seen = np.zeros(3, dtype=np.int64)  # what the copy knew before each example
    expected = []
    for label, times in zip(y, counts):
        expected.append(int(seen.argmax()))
        seen[label] += times
    assert result.predicted.tolist() == expected


def test_a_copy_trained_on_every_example_is_the_prequential_pass():
    from conftest import learner_file

    from boostbench.algorithms import algorithm_spec, build_booster
    from boostbench.data import load_dataset
    from boostbench.data.registry import registry_specs
    from boostbench.learners.registry import make_pool

    dataset = load_dataset(registry_specs()["balance"])
    order = np.random.default_rng(1).permutation(dataset.n_examples)

    def booster():
        rngs = np.random.SeedSequence(4).spawn(2)
        pool = make_pool(learner_file("hoeffding_tree"), 5, 3, dataset.n_categories, np.random.default_rng(rngs[0]))
        return build_booster("adaboost_olm", pool, 3, np.random.default_rng(rngs[1]), algorithm_spec("adaboost_olm"))

    ones = np.ones(len(order), dtype=np.int64)
    copy = copy_pass(booster(), dataset.X, dataset.y, order, ones)
    plain = prequential(booster(), dataset.X, dataset.y, order)
    assert np.array_equal(copy.predicted, plain.predicted)


def _record(*overrides):
    return run_experiment(
        compose_config(["dataset=balance", "n_learners=3", "progress=false", "protocol=prequential_cv", *overrides])
    )


@pytest.mark.parametrize("validation", ["cross_validation", "bootstrap", "split"])
def test_the_record_holds_each_folds_measures_their_mean_and_interval(validation):
    overrides = ["algorithm=adaboost_olm", "protocol.n_folds=4", f"protocol.validation={validation}"]
    record = _record(*overrides)
    m = record["metrics"]
    assert m["n_folds"] == 4 and len(m["fold_final_accuracy"]) == 4 and len(m["fold_cumulative_kappa_m"]) == 4
    for name in ("final_accuracy", "cumulative_accuracy", "final_kappa", "cumulative_kappa_t"):
        assert m[name] == pytest.approx(np.mean(m[f"fold_{name}"]))
        assert m[f"{name}_ci_low"] <= m[name] <= m[f"{name}_ci_high"]
    assert len(set(m["fold_cumulative_accuracy"])) > 1  # the copies learn from other examples
    seen = record["curve"]["examples_seen"]
    assert seen[-1] == 625 and len(record["curve"]["windowed_accuracy"]) == len(seen)
    assert record["curve"]["cumulative_accuracy"][-1] == pytest.approx(m["cumulative_accuracy"])
    again = _record(*overrides)["metrics"]  # seeded: every copy's generators, the bootstrap's draws
    assert again["fold_cumulative_accuracy"] == m["fold_cumulative_accuracy"]


def test_fading_measures_per_fold():
    m = _record("algorithm=online_boosting", "protocol.n_folds=2", "protocol.fading=0.999")["metrics"]
    assert len(m["fold_fading_accuracy"]) == 2
    assert m["fading_accuracy"] == pytest.approx(np.mean(m["fold_fading_accuracy"]))


def test_a_peer_runs_as_k_copies():
    skip_without_peer("river_adaboost")
    m = _record("algorithm=river_adaboost", "protocol.n_folds=2")["metrics"]
    assert len(m["fold_final_accuracy"]) == 2 and 0.5 < m["final_accuracy"] <= 1.0


@pytest.mark.slow
def test_a_moa_peer_runs_as_k_copies():
    skip_without_peer("moa_ozaboost")
    m = _record("algorithm=moa_ozaboost", "protocol.n_folds=2", "protocol.validation=bootstrap")["metrics"]
    assert len(m["fold_final_accuracy"]) == 2 and 0.5 < m["final_accuracy"] <= 1.0


def test_what_prequential_cv_refuses():
    cv = ["protocol=prequential_cv"]
    assert "is for multiclass data" in incompatibility(compose_config([*cv, "algorithm=ada_olmr", "dataset=emotions"]))
    assert "best tree in hindsight" in incompatibility(compose_config([*cv, "algorithm=best_vfdt", "dataset=car"]))
    with pytest.raises(ConfigError, match=r"protocol\.validation must be one of cross_validation, bootstrap, split"):
        validate(compose_config([*cv, "protocol.validation=loo"]))
    with pytest.raises(ConfigError, match=r"protocol\.n_folds must be an integer >= 2"):
        validate(compose_config([*cv, "protocol.n_folds=1"]))
