"""The peers' own contracts: a binary peer (vw_boosting) refused on a k > 2 data set in one line
at validation, and marked n/a in a sweep; VW's text encoding of an example; MOA's failures in one
line; a MOA command line (algorithm=moa) is code, and builds what the named ensembles do."""

import numpy as np
import pytest
from conftest import skip_without_peer
from typer.testing import CliRunner

from boostbench.boosters.peers.vw_boosting import vw_features
from boostbench.cli import app
from boostbench.errors import ConfigError
from boostbench.runner.config import compose_config, incompatibility
from boostbench.runner.sweep import run_sweep, summarize


def test_a_binary_peer_is_refused_on_a_multiclass_data_set_in_one_line(tmp_path):
    assert incompatibility(compose_config(["algorithm=vw_boosting", "dataset=german"])) is None
    assert (
        incompatibility(compose_config(["algorithm=vw_boosting", "dataset=car"]))
        == "algorithm 'vw_boosting' is binary; dataset 'car' has 4 classes"
    )
    result = CliRunner().invoke(app, ["run", "algorithm=vw_boosting", "dataset=car", f"results_dir={tmp_path}"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: algorithm 'vw_boosting' is binary; dataset 'car' has 4 classes"
    ]
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_a_sweep_marks_a_binary_peer_na_on_multiclass_data(tmp_path):
    """car declares its 4 classes (n/a before any work); led_drift's 10 are known once generated."""
    skip_without_peer("vw_boosting")
    outcome = summarize(
        run_sweep(
            ["algorithm=vw_boosting", "dataset=german,car,led_drift", "n_learners=2", f"results_dir={tmp_path}"],
            n_jobs=1,
        )
    )
    assert outcome == {"done": 1, "n/a": 2}
    assert not (tmp_path / "failed").exists() or not list((tmp_path / "failed").iterdir())


def test_vw_features_write_numeric_nominal_and_missing_values():
    x = np.array([0.25, 2.0, np.nan, -1.5])
    assert vw_features(x, [0, 3, 0, 0]) == "| 0:0.25 1=2 3:-1.5"


def test_a_moa_peer_that_cannot_start_says_why_in_one_line(monkeypatch, tmp_path):
    """A MOA Python without capymoa (a half-made .venv-moa): the reason is the child's error, not
    its traceback (it lands in failed/ and in the leaderboard's "not run" row)."""
    import sys

    from boostbench.boosters.peers import moa_peers

    worker = tmp_path / "worker.py"
    worker.write_text("import sys\n\ndef main():\n    import capymoa_absent\n\nmain()\n")
    monkeypatch.setattr(moa_peers, "moa_python", lambda: sys.executable)
    monkeypatch.setattr(moa_peers, "WORKER", worker)
    with pytest.raises(ValueError) as caught:
        moa_peers.MOAEnsemble(None, 2, np.random.default_rng(0), ensemble="ozaboost", n_learners=3, n_categories=[0, 0])
    message = str(caught.value)
    assert message.endswith("ModuleNotFoundError: No module named 'capymoa_absent'")
    assert "Traceback" not in message and "\n" not in message and sys.executable in message
    assert (
        moa_peers.last_error("Exception in thread main\n  java.lang.OutOfMemoryError\n")
        == "Exception in thread main java.lang.OutOfMemoryError"
    )


def test_a_moa_peer_that_stops_mid_stream_names_the_root_cause(monkeypatch, tmp_path):
    """MOA raising inside the worker (SGBT's FIMT-DD trees on a missing value: a Java
    NullPointerException under JPype's wrappers) ends the run with a PeerError naming the first
    cause, not a traceback nor a TypeError on a missing answer."""
    import sys

    from boostbench.boosters.peers import moa_peers, moa_worker
    from boostbench.errors import PeerError

    worker = tmp_path / "worker.py"
    worker.write_text(
        f"import sys\nsys.path.insert(0, {str(moa_peers.WORKER.parent)!r})\nimport moa_worker as w\n\n"
        "def main():\n    inp, out = sys.stdin.buffer, sys.stdout.buffer\n    w._read(inp)\n"
        "    w._write(out, 'ready')\n    w._read(inp)\n    try:\n        raise KeyError('node 3 is null')\n"
        "    except KeyError as exc:\n        raise RuntimeError('Java Exception') from exc\n\n"
        "w.main = main\nw.serve()\n"
    )
    monkeypatch.setattr(moa_peers, "moa_python", lambda: sys.executable)
    monkeypatch.setattr(moa_peers, "WORKER", worker)
    peer = moa_peers.MOAEnsemble(None, 2, np.random.default_rng(0), ensemble="sgbt", n_learners=3, n_categories=[0, 0])
    with pytest.raises(PeerError) as caught:
        peer.test_then_train(np.zeros((4, 2)), np.zeros(4, dtype=np.int64))
    assert str(caught.value) == "MOA's StreamingGradientBoostedTrees stopped: KeyError: 'node 3 is null'"
    assert moa_worker.root_cause(RuntimeError("outer")) == "RuntimeError: outer"


def test_a_peers_crash_exits_1_in_one_line_not_2(monkeypatch, tmp_path):
    """A peer's own failure is no user mistake: `boostbench run` prints it on one line and exits 1."""
    import boostbench.runner.experiment
    from boostbench.errors import PeerError

    def crash(*args, **kwargs):
        raise PeerError("MOA's OzaBoost stopped: java.lang.OutOfMemoryError")

    monkeypatch.setattr(boostbench.runner.experiment, "run_experiment", crash)
    result = CliRunner().invoke(app, ["run", "dataset=balance", f"results_dir={tmp_path}"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == ["error: MOA's OzaBoost stopped: java.lang.OutOfMemoryError"]


def test_a_moa_command_line_is_code_and_needs_the_flag(tmp_path):
    """algorithm=moa takes any MOA class its command line names: an override of it is refused
    without --allow-code-overrides (in one line), as Hydra's code-running keys are."""
    from boostbench.runner.checks import check_overrides
    from boostbench.runner.config import validate

    override = "algorithm.cli=meta.OzaBoostAdwin -s 10"
    result = CliRunner().invoke(app, ["run", "algorithm=moa", override, f"results_dir={tmp_path}"])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: override {override!r} runs code of the command line's choice")
    check_overrides(["algorithm=moa", override], allow_code=True)
    with pytest.raises(ConfigError, match=r"algorithm.cli must be a MOA classifier's command line .*got '-s 10'"):
        validate(compose_config(["algorithm=moa", "algorithm.cli=-s 10"]))


def test_a_moa_command_line_builds_what_the_named_ensemble_does():
    """moa_ozaboost_adwin is `meta.OzaBoostAdwin -s N`: the same predictions through algorithm=moa;
    a class MOA does not have is refused with MOA's own reason, in one line."""
    from boostbench.boosters.peers.moa_peers import MOAEnsemble, MOALearner

    skip_without_peer("moa_ozaboost_adwin")
    X = np.random.default_rng(0).normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(np.int64)
    named = MOAEnsemble(None, 2, np.random.default_rng(4), ensemble="ozaboost_adwin", n_learners=3, n_categories=[0, 0])
    given = MOALearner(
        None, 2, np.random.default_rng(4), cli="meta.OzaBoostAdwin -s 3", n_learners=3, n_categories=[0, 0]
    )
    predicted = named.test_then_train(X, y)
    np.testing.assert_array_equal(given.test_then_train(X, y), predicted)
    assert (predicted[100:] == y[100:]).mean() > 0.9
    with pytest.raises(
        ValueError, match=r"MOA did not start \(.*\): java.lang.Exception: Class not found: meta.NoSuch$"
    ):
        MOALearner(None, 2, np.random.default_rng(0), cli="meta.NoSuch -s 3", n_learners=3, n_categories=[0, 0])


def test_the_root_cause_of_a_java_exception_is_itself_not_jpypes_stack():
    """JPype hangs a Java exception's stack under it as Exception("Java Exception"): the reason is the
    Java exception's own message."""
    from boostbench.boosters.peers.moa_worker import root_cause

    JavaException = type("java.lang.Exception", (Exception,), {})  # JPype's class, as named

    try:
        try:
            raise Exception("Java Exception")
        except Exception as stack:
            raise JavaException("java.lang.Exception: Class not found: meta.NoSuch") from stack
    except Exception as exc:
        assert root_cause(exc) == "java.lang.Exception: Class not found: meta.NoSuch"


@pytest.mark.parametrize("leaves", ["mc", "nba"])
def test_river_adaboost_takes_the_trees_leaves_for_equal_work(leaves):
    """``algorithm.leaf_prediction`` reaches river's trees (benchmarks/bench.py's equal-work rows);
    an unknown leaf rule is refused by name."""
    from boostbench.boosters.peers.river_peers import RiverEnsemble

    booster = RiverEnsemble(
        None, 3, np.random.default_rng(0), ensemble="adaboost", n_learners=2, n_categories=[0], leaf_prediction=leaves
    )
    assert booster.model.model.leaf_prediction == leaves
    with pytest.raises(ValueError, match="leaf_prediction"):
        RiverEnsemble(
            None, 3, np.random.default_rng(0), ensemble="adaboost", n_learners=2, n_categories=[0], leaf_prediction="x"
        )
