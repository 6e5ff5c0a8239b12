"""Each peer is scored as its own library scores it: a MOA peer's predictions equal capymoa's
``prequential_evaluation`` (MOA's own loop and evaluator) example for example, its empty votes
class 0; river's ``None`` is a miss, and a class of its own in kappa and macro-F1, as river's
metrics count it; VW's score of 0 is class 0, as VW's ``--binary`` scores it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import skip_without_peer

from boostbench.boosters.peers.moa_peers import MOAEnsemble
from boostbench.boosters.peers.moa_worker import CLI_ENSEMBLES, ENSEMBLES
from boostbench.boosters.peers.river_peers import RiverEnsemble
from boostbench.data import load_dataset
from boostbench.data.registry import dataset_spec
from boostbench.metrics import NO_PREDICTION, classification_metrics, cohen_kappa
from boostbench.protocols import prequential

HELPER = Path(__file__).with_name("moa_prequential.py")


def _stream(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, list[int], int]:
    dataset = load_dataset(dataset_spec(name))
    order = np.random.default_rng(seed).permutation(dataset.n_examples)
    y = np.asarray(dataset.y)[order].astype(np.int64)
    return dataset.X[order], y, list(dataset.n_categories), dataset.n_classes


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["car", "phishing"])
@pytest.mark.parametrize("ensemble", sorted({*ENSEMBLES, *CLI_ENSEMBLES}))
def test_a_moa_peer_is_capymoas_own_prequential_evaluation(tmp_path, dataset, ensemble):
    """Every MOA peer of the grid (N = 10, MOA's defaults) on car and phishing, shuffled."""
    from boostbench.boosters.peers.moa_peers import moa_python

    skip_without_peer(f"moa_{ensemble}")
    X, y, n_categories, k = _stream(dataset, 3)
    peer = MOAEnsemble(None, k, np.random.default_rng(5), ensemble=ensemble, n_learners=10, n_categories=n_categories)
    try:
        ours = prequential(peer, X, y, np.arange(len(y)))
    finally:
        peer.close()
    setup = {
        "ensemble": ensemble,
        "n_learners": 10,
        "seed": int(np.random.default_rng(5).integers(2**31)),  # the peer's first draw, as _start makes it
        "n_classes": k,
        "n_categories": n_categories,
    }
    np.savez(tmp_path / "stream.npz", X=X, y=y)
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    done = subprocess.run(
        [moa_python(), str(HELPER), str(tmp_path / "stream.npz"), str(tmp_path / "setup.json")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    moa = json.loads(done.stdout)
    assert moa["truth"] == y.tolist()
    assert ours.predicted.tolist() == moa["predictions"]  # example for example
    metrics = classification_metrics(ours.truth, ours.predicted, k, 0)
    assert ours.cumulative_accuracy == pytest.approx(moa["accuracy"] / 100, abs=1e-12)
    assert metrics["cumulative_kappa_m"] == pytest.approx(moa["kappa_m"] / 100, abs=1e-12)


def _river_sequence() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    truth = rng.integers(3, size=300)
    predicted = np.where(rng.random(300) < 0.7, truth, rng.integers(3, size=300))
    predicted[[0, 5, 9, 200]] = NO_PREDICTION
    return truth.astype(np.int64), predicted.astype(np.int64)


def test_a_no_prediction_is_scored_as_rivers_metrics_score_none():
    from river import metrics

    truth, predicted = _river_sequence()
    theirs = {name: getattr(metrics, name)() for name in ("Accuracy", "CohenKappa", "MacroF1")}
    for label, guess in zip(truth.tolist(), predicted.tolist()):
        for metric in theirs.values():
            metric.update(label, None if guess == NO_PREDICTION else guess)
    ours = classification_metrics(truth, predicted, 3, 0)
    assert float(np.mean(truth == predicted)) == pytest.approx(theirs["Accuracy"].get(), abs=1e-12)
    assert ours["cumulative_kappa"] == pytest.approx(theirs["CohenKappa"].get(), abs=1e-12)
    assert cohen_kappa(truth, predicted, 3) == pytest.approx(theirs["CohenKappa"].get(), abs=1e-12)
    assert ours["cumulative_macro_f1"] == pytest.approx(theirs["MacroF1"].get(), abs=1e-12)
    # a miss: never class 0's hit, which a wrapped index (-1 -> k - 1) or a default would make it
    scored = predicted.copy()
    scored[predicted == NO_PREDICTION] = truth[predicted == NO_PREDICTION]
    assert np.mean(truth == scored) - np.mean(truth == predicted) == pytest.approx(4 / 300)


def test_a_river_peer_before_it_has_learnt_predicts_no_class_and_draws_nothing():
    rng = np.random.default_rng(7)
    peer = RiverEnsemble(None, 3, rng, ensemble="adaboost", n_learners=3, n_categories=[0, 0])
    state = rng.bit_generator.state
    assert peer.predict(np.array([0.5, 1.0])) == NO_PREDICTION
    assert rng.bit_generator.state == state  # no draw
    peer.update(2)
    assert peer.predict(np.array([0.5, 1.0])) == 2


def test_vw_boosting_scores_as_vws_own_binary_reduction():
    pytest.importorskip("vowpalwabbit", reason="vw_boosting needs vowpalwabbit")  # an optional extra
    from vowpalwabbit import Workspace

    from boostbench.boosters.peers.vw_boosting import VWBoosting, vw_features

    X, y, n_categories, _ = _stream("phishing", 0)
    X, y = X[:400], y[:400]
    rng = np.random.default_rng(2)
    peer = VWBoosting(None, 2, rng, alg="bbm", n_learners=5, n_categories=n_categories)
    seed = int(np.random.default_rng(2).integers(2**31))
    binary = Workspace(f"--boosting 5 --alg BBM --random_seed {seed} --quiet --binary")
    ours, theirs = [], []
    for x, label in zip(X, y.tolist()):
        ours.append(peer.predict(x))
        peer.update(label)
        features = vw_features(x, n_categories)
        theirs.append(int(binary.predict(features) > 0))  # VW's own 0/1 reading: -1 or +1
        binary.learn(f"{1 if label == 1 else -1} {features}")
    binary.finish()
    peer.close()
    assert ours[0] == 0  # a score of 0 before any learning: VW's -1
    assert ours == theirs
