"""The runner and the CLI: records, determinism, and bad input ending in exit code 2."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from boostbench.algorithms import ALGORITHMS
from boostbench.cli import app
from boostbench.config import compose_config, config_hash
from boostbench.experiment import run_experiment
from conftest import skip_without_moa

runner = CliRunner()
MULTICLASS = sorted(name for name, spec in ALGORITHMS.items() if spec.task == "multiclass" and spec.family == "online")


@pytest.mark.parametrize("name", MULTICLASS)
def test_every_algorithm_runs_on_real_data(name):
    skip_without_moa(name)
    cfg = compose_config([f"algorithm={name}", "dataset=balance", "n_learners=3", "gamma=0.05", "seed=4"])
    record = run_experiment(cfg)
    m = record["metrics"]
    assert m["n_examples"] == 625 and m["final_window_examples"] == 125
    assert 0.4 < m["final_accuracy"] <= 1.0 and m["runtime_s"] > 0 and m["peak_rss_bytes"] > 0
    curve = record["curve"]
    assert curve["examples_seen"][-1] == 625
    assert curve["cumulative_accuracy"][-1] == pytest.approx(m["cumulative_accuracy"])
    assert record["provenance"]["seed"] == 4 and record["config_hash"] == config_hash(cfg)
    if name == "best_vfdt":
        assert m["final_accuracy"] >= m["final_accuracy_member_mean"]


def test_same_seed_same_numbers_other_seed_other_numbers():
    def curve(seed):
        cfg = compose_config(["algorithm=adaboost_olm", "dataset=car", "n_learners=3", f"seed={seed}"])
        return np.array(run_experiment(cfg)["curve"]["cumulative_accuracy"])

    assert np.array_equal(curve(1), curve(1))
    assert not np.array_equal(curve(1), curve(2))


def test_config_hash_ignores_where_results_go():
    a = compose_config(["results_dir=/tmp/a", "progress=false"])
    b = compose_config(["results_dir=/tmp/b"])
    assert config_hash(a) == config_hash(b) != config_hash(compose_config(["seed=9"]))


def test_cli_run_writes_one_record(tmp_path):
    result = runner.invoke(app, ["run", "dataset=balance", "algorithm=online_boosting", "n_learners=2",
                                 f"results_dir={tmp_path}"])
    assert result.exit_code == 0, result.output
    files = list((tmp_path / "runs").glob("*.json"))
    assert len(files) == 1 and "final accuracy" in result.output
    record = json.loads(files[0].read_text())
    assert record["config"]["algorithm"]["name"] == "online_boosting"
    assert not list((tmp_path / "runs").glob(".*tmp"))


def test_cli_datasets_lists_the_registry():
    result = runner.invoke(app, ["datasets"])
    assert result.exit_code == 0
    for name in ("balance", "car", "nursery", "mushroom", "mice", "isolet"):
        assert name in result.output


@pytest.fixture
def one_class_csv(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("a,label\n1,x\n2,x\n")
    return path


@pytest.fixture
def malformed_csv(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,label\n1,x\n2\n3,y\n")
    return path


BAD_INPUTS = [
    (["dataset=nope"], "unknown dataset 'nope'"),
    (["algorithm=nope"], "unknown algorithm 'nope'"),
    (["gamma=1.5", "algorithm=online_mbbm"], "gamma must be a number in (0, 1), got"),
    (["gamma=0"], "gamma must be a number in (0, 1), got"),
    (["n_learners=0"], "n_learners must be an integer >= 1"),
    (["seed=-1"], "seed must be"),
    (["dataset=csv", "dataset.file=/no/such/file.csv", "dataset.class_column=label"], "file not found"),
    (["dataset=csv", "dataset.file={malformed}", "dataset.class_column=label"], "line 3: 1 fields, expected 2"),
    (["dataset=csv", "dataset.file={one_class}", "dataset.class_column=label"], "has 1 class"),
    (["dataset=csv", "dataset.file={one_class}", "dataset.class_column=target"], "class column 'target' does not exist"),
    (["no_such_key=3"], "bad override"),
]


@pytest.mark.parametrize("overrides,message", BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_2(overrides, message, tmp_path, malformed_csv, one_class_csv):
    overrides = [o.format(malformed=malformed_csv, one_class=one_class_csv) for o in overrides]
    result = runner.invoke(app, ["run", *overrides, "n_learners=2" if "n_learners=0" not in overrides else "seed=0",
                                 f"results_dir={tmp_path / 'results'}"])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert not (tmp_path / "results").exists()


def test_records_get_the_usual_file_permissions(tmp_path):
    import os
    import stat

    from boostbench.store import atomic_write_text

    path = atomic_write_text(tmp_path / "x.json", "{}")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_a_message_with_brackets_prints_whole(tmp_path):
    """Messages are text, not rich markup: '[low, high]' must not vanish."""
    result = runner.invoke(app, ["run", "learner.delta=[0.5,0.1]", f"results_dir={tmp_path}"])
    assert result.exit_code == 2
    assert "learner.delta must be [low, high] with low <= high" in " ".join(result.output.split())
