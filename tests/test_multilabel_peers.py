"""The multi-label peers: registered as multi-label peers and listed by ``run --info``; river's
score each label with river's probability and predict river's own set; MOA's predict the set
MOA's evaluator reads from its votes, the same on a second run of a seed; a run's record carries
every multi-label measure, test part and windowed curves.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import skip_without_peer
from typer.testing import CliRunner

from boostbench.algorithms import ALGORITHMS
from boostbench.cli import app
from boostbench.data import load_dataset
from boostbench.data.registry import dataset_spec
from boostbench.multilabel_metrics import MEASURES
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment
from boostbench.runner.record import schema_problem

RIVER = ("river_binary_relevance", "river_classifier_chain", "river_mc_classifier_chain")
MOA = ("moa_ml_hoeffding_tree", "moa_ozabag_ml", "moa_ozabag_adwin_ml", "moa_isoup_tree")


def test_the_peers_are_registered_multilabel_peers_and_listed():
    for name in (*RIVER, *MOA):
        spec = ALGORITHMS[name]
        assert spec.task == "multilabel" and spec.peer and spec.family == "online"
    listed = CliRunner().invoke(app, ["run", "--info"]).output  # rich wraps between names, not in one
    for name in (*RIVER, *MOA):
        assert name in listed


def _build(name: str, k: int, n_categories, seed: int = 0):
    from boostbench.algorithms import build_booster

    spec = ALGORITHMS[name]
    config = spec.config(name)
    return build_booster(
        config, None, k, np.random.default_rng(seed), spec, n_learners=3, n_categories=list(n_categories)
    )


@pytest.mark.parametrize("name", ["river_binary_relevance", "river_classifier_chain"])
def test_a_river_peer_scores_with_rivers_probabilities_and_predicts_rivers_set(name):
    data = load_dataset(dataset_spec("emotions"))
    peer = _build(name, data.n_labels, data.n_categories)
    for t in range(150):
        scores = peer.predict_scores(data.X[t])
        river_set = peer.model.predict_one(peer._x)
        proba = peer.model.predict_proba_one(peer._x)
        expected = [proba.get(label, {}).get(True, 0.0) for label in peer.labels]
        assert scores.tolist() == expected
        assert peer.predict_labels(scores, 2.0).tolist() == [bool(river_set.get(lb, False)) for lb in peer.labels]
        peer.update(data.Y[t])


def test_a_river_peers_record_carries_every_measure(tmp_path):
    from boostbench.reporting.records import load_runs
    from boostbench.runner.experiment import save

    record = run_experiment(
        compose_config(["algorithm=river_binary_relevance", "dataset=emotions", "n_learners=5", "progress=false"])
    )
    assert schema_problem(record) is None
    for measure in MEASURES:
        assert 0.0 <= record["metrics"][f"test_{measure.name}"] <= 1.0
        curve = record["curve"][f"windowed_{measure.name}"]
        assert len(curve) == len(record["curve"]["test_examples_seen"])
    # the whole test part fits in the default window: the last windowed value is the test part's
    for measure in MEASURES:
        assert record["curve"][f"windowed_{measure.name}"][-1] == pytest.approx(
            record["metrics"][f"test_{measure.name}"], abs=1e-12
        )
    # the store's reader: every measure a column, and the window its curves used (the default)
    save(record, str(tmp_path))
    runs = load_runs(tmp_path)
    assert runs["window"].tolist() == [1000.0]
    assert runs["test_macro_f1"].tolist() == [record["metrics"]["test_macro_f1"]]


@pytest.mark.slow  # two JVMs per peer
@pytest.mark.parametrize("name", MOA)
def test_a_moa_peer_predicts_the_set_its_votes_say_and_repeats_a_seed(name):
    skip_without_peer(name)
    data = load_dataset(dataset_spec("emotions"))
    runs = []
    for _ in range(2):
        peer = _build(name, data.n_labels, data.n_categories, seed=4)
        scores_seen = []
        for t in range(120):
            scores = peer.predict_scores(data.X[t])
            assert peer.predict_labels(scores, 2.0).tolist() == (scores > 0).tolist()
            scores_seen.append(scores)
            peer.update(data.Y[t])
        peer.close()
        runs.append(np.array(scores_seen))
    assert np.array_equal(runs[0], runs[1])
    assert np.any(runs[0] != 0)  # it learnt something to vote with


def test_a_moa_peer_that_cannot_start_says_why_in_one_line(monkeypatch):
    """A Python without capymoa (a half-made .venv-moa): the worker's own error, on one line."""
    import importlib.util
    import sys

    from boostbench.boosters.peers import moa_peers

    if importlib.util.find_spec("capymoa") is not None:
        pytest.skip("this Python has capymoa: the worker would start")
    monkeypatch.setattr(moa_peers, "moa_python", lambda: sys.executable)
    from boostbench.errors import ConfigError

    with pytest.raises(ConfigError) as caught:  # the runner's one line: the algorithm, then MOA's reason
        _build("moa_ozabag_ml", 6, [0, 0])
    message = str(caught.value)
    assert message.startswith("algorithm moa_ozabag_ml: MOA did not start") and "\n" not in message
    assert message.endswith("No module named 'capymoa'")
