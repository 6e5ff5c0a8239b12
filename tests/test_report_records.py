"""What the reports read from a record: the weak learners a row names, what sets two settings
apart, the intervals of positive measures, and one notation per column.
"""

import json

import numpy as np
import pytest
from scipy import stats

from boostbench.reporting import intervals, records, weak_learners, wording
from boostbench.runner.config import compose_config, resolved_dict


def _config(*overrides: str) -> dict:
    return resolved_dict(compose_config(list(overrides)))


def test_our_boosters_name_their_trees_from_the_learner_config():
    assert weak_learners.of_config(_config("algorithm=adaboost_olm")).label == "papers' trees"
    # the multi-label trees are the papers' too (another file with the same name)
    assert weak_learners.of_config(_config("algorithm=ada_olmr", "learner=hoeffding_tree_mlr")).label == "papers' trees"
    # computed by river's pool or ours: the same trees
    assert weak_learners.of_config(_config("algorithm=adaboost_olm", "learner.backend=river")).label == "papers' trees"
    changed = weak_learners.of_config(_config("algorithm=adaboost_olm", "learner.leaf_prediction=nb"))
    assert changed.label == changed.kind == "papers' trees, leaf_prediction=nb"
    grace = weak_learners.of_config(_config("algorithm=adaboost_olm", "learner.grace_period=[5,10]"))
    assert grace.label == "papers' trees, grace_period=[5, 10]"
    assert weak_learners.of_config(_config("algorithm=adaboost_m1", "learner=tree", "learner.max_depth=3")).label == (
        "tree, max_depth=3"
    )


def test_a_learner_config_of_the_peers_defaults_is_named_as_theirs(monkeypatch):
    """The file ``hoeffding_tree_defaults`` (river's and MOA's defaults) names its trees as the
    peers' kind, so that our boosters on it compare with the peers at equal trees."""
    files = dict(weak_learners.learner_files())
    files["hoeffding_tree_defaults"] = {
        **files["hoeffding_tree"],
        "leaf_prediction": "nba",
        "delta": 1e-7,
        "tau": 0.05,
        "grace_period": 200,
    }
    monkeypatch.setattr(weak_learners, "learner_files", lambda: files)
    ours = weak_learners.of_learner(files["hoeffding_tree_defaults"] | {"backend": "river"})
    peer = weak_learners.of_peer("river_adaboost")
    assert ours.kind == peer.kind == weak_learners.HT_DEFAULTS
    assert (ours.label, peer.label) == ("HT defaults", "river's HT defaults")


def test_ours_on_moas_trees_share_a_kind_with_moas_peers_not_rivers():
    """MOA's OzaBoost and its kin grow the Hoeffding-tree defaults with MOA's naive Bayes, which
    predicts otherwise than river's on nominal attributes: our boosters on ``hoeffding_tree_moa``
    are compared with them, on ``hoeffding_tree_defaults`` with river's."""
    moa = weak_learners.of_config(_config("algorithm=online_boosting", "learner=hoeffding_tree_moa"))
    river = weak_learners.of_config(_config("algorithm=online_boosting", "learner=hoeffding_tree_defaults"))
    assert moa.kind == weak_learners.HT_DEFAULTS_MOA == weak_learners.of_peer("moa_ozaboost_adwin").kind
    assert river.kind == weak_learners.HT_DEFAULTS == weak_learners.of_peer("river_adaboost").kind
    assert weak_learners.of_peer("moa_adob").kind not in (moa.kind, river.kind)


def test_rivers_and_moas_forests_differ_in_their_leaves_so_not_in_their_kind():
    """ARF and SRP grow naive-Bayes-adaptive leaves in both libraries, each with its own naive
    Bayes: river's and MOA's are ranked apart; MOA's DEMS grows SRP's trees, so ranks with it."""
    kind = {name: weak_learners.of_peer(name).kind for name in ("river_arf", "moa_arf", "river_srp", "moa_srp")}
    assert kind["river_arf"] != kind["moa_arf"] and kind["river_srp"] != kind["moa_srp"]
    assert weak_learners.of_peer("moa_dems").kind == kind["moa_srp"]
    assert weak_learners.of_peer("moa_arf").label == "MOA's ARF trees, MOA's naive Bayes"


def test_a_peer_names_its_own_trees_not_the_learner_config():
    config = _config("algorithm=river_arf", "learner.leaf_prediction=nb")  # ignored by a peer
    assert weak_learners.of_config(config).label == "river's ARF trees"
    assert weak_learners.of_peer("moa_ozaboost").label == "MOA's HT defaults, MOA's naive Bayes"
    assert weak_learners.of_peer("vw_boosting").label == "VW's linear learners"
    unknown = weak_learners.of_peer("acme_boost")
    assert unknown.label == "acme's own learners" and unknown.kind != weak_learners.of_peer("acme_other").kind


def test_a_key_that_changes_what_a_record_holds_is_part_of_its_identity():
    plain = _config("dataset=balance", "algorithm=online_boosting")
    window = _config("dataset=balance", "algorithm=online_boosting", "protocol.window=10")
    points = _config("dataset=balance", "algorithm=online_boosting", "protocol.curve_points=20")
    compiled = _config("dataset=balance", "algorithm=online_boosting", "algorithm.compiled=true")
    assert len({records.run_identity(c) for c in (plain, window, points)}) == 3
    assert records.run_identity(compiled) == records.run_identity(plain)  # the same numbers, the same record
    # a record written before the window existed, at the default window, is today's run
    old = json.loads(json.dumps(plain))
    del old["protocol"]["window"]
    assert records.run_identity(old) == records.run_identity(plain)


def test_variants_say_what_differs():
    tsv = _config("dataset=csv", "dataset.file=/data/iris.tsv", "dataset.class_column=label", "algorithm=vfdt")
    arff = _config("dataset=csv", "dataset.file=/data/iris.arff", "dataset.class_column=label", "algorithm=vfdt")
    for config, digest in ((tsv, "a" * 64), (arff, "b" * 64)):
        config["dataset"]["sha256"] = digest  # as pin_user_file sets it
    items = [records.settings_items(c) for c in (tsv, arff)]
    assert records.variant_labels(items) == {items[0]: "dataset.file=iris.tsv", items[1]: "dataset.file=iris.arff"}
    # one file changed in place: only its content tells the two apart
    same = json.loads(items[0])
    same["dataset.sha256"] = "c" * 64
    changed = json.dumps(same, sort_keys=True)
    assert records.variant_labels([items[0], changed])[changed] == "dataset.sha256=cccccccccc…"
    # a key left out at its neutral value reads as that value
    window = records.settings_items(_config("dataset=balance", "algorithm=vfdt", "protocol.window=10"))
    default = records.settings_items(_config("dataset=balance", "algorithm=vfdt"))
    assert records.variant_labels([window, default]) == {window: "protocol.window=10", default: "protocol.window=1000"}
    assert records.variant_labels([default, default]) == {default: ""}


def test_a_metric_the_records_hold_is_loaded_without_a_line_for_it():
    metrics = {"final_accuracy": 0.9, "final_fading_accuracy": 0.91, "model_bytes": 2048, "kept": True, "x": "a"}
    # a registered measure has its column (records.METRICS); an unregistered number is added
    assert "model_bytes" in records.METRICS and "final_fading_accuracy" not in records.METRICS
    assert records.extra_metrics(metrics) == {"final_fading_accuracy": 0.91}


def test_positive_measures_get_a_bootstrap_interval_above_zero():
    cpu = np.array([4.46e-09, 1.2e-09, 5.0e-08, 2.0e-09])  # skewed, as RAM-hours of small models are
    t_low = stats.t.interval(0.95, len(cpu) - 1, cpu.mean(), stats.sem(cpu))[0]
    low, high, clipped = intervals.measure_interval(cpu, "ram_hours")
    assert t_low < 0 < cpu.min() <= low < high <= cpu.max() and not clipped
    expected = stats.bootstrap((cpu,), np.mean, method="percentile", n_resamples=9999, rng=np.random.default_rng(0))
    assert (low, high) == pytest.approx(tuple(expected.confidence_interval))
    assert intervals.measure_interval(cpu, "ram_hours") == (low, high, clipped)  # seeded: the same again
    accuracy = np.array([0.99, 1.0, 0.62])
    assert intervals.measure_interval(accuracy, "final_accuracy")[1:] == (1.0, True)
    assert np.isnan(intervals.measure_interval(cpu[:2], "cpu_s")[:2]).all()  # below 3 values: none
    # the ranges, from the measures' names
    assert intervals.metric_range("final_kappa_m") == (-np.inf, 1.0)  # worse than the majority class: below -1
    assert intervals.metric_range("windowed_kappa") == (-1.0, 1.0)
    assert intervals.metric_range("cpu_s") == intervals.metric_range("peak_rss_bytes") == (0.0, np.inf)
    assert intervals.metric_range("fading_accuracy") == (0.0, 1.0)  # a measure new records hold


def test_counts_agree_with_their_nouns_and_columns_keep_one_notation():
    assert wording.plural(1, "group") == "1 group" and wording.plural(3, "seed") == "3 seeds"
    assert wording.count_range([1, 3, 3], "seed") == "1-3 seeds" and wording.count_range([1], "seed") == "1 seed"
    assert wording.column_format([2.02e-05, 0.000183]) == ".2e"  # one notation for both
    assert wording.column_format([0.0178, 0.636]) == ".4f" and wording.column_format([1.5, 300.0]) == ".2f"
