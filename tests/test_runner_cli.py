"""The runner and the CLI: records, determinism, and bad input ending in exit code 2."""

import dataclasses
import json

import numpy as np
import pytest
from conftest import skip_without_peer
from omegaconf import OmegaConf
from typer.testing import CliRunner

from boostbench.algorithms import ALGORITHMS
from boostbench.cli import app
from boostbench.constraints import typed_section
from boostbench.errors import ConfigError
from boostbench.learners.registry import learner_config
from boostbench.runner.config import compose_config, config_hash, group_options, resolved_dict, validate
from boostbench.runner.experiment import run_experiment
from boostbench.runner.sections import ProtocolConfig
from boostbench.system.paths import CONFIG_DIR

runner = CliRunner()
MULTICLASS = sorted(name for name, spec in ALGORITHMS.items() if spec.task == "multiclass" and spec.family == "online")


@pytest.mark.parametrize("name", MULTICLASS)
def test_every_algorithm_runs_on_real_data(name):
    skip_without_peer(name)
    dataset, n = ("german", 1000) if ALGORITHMS[name].max_classes == 2 else ("balance", 625)
    edge = ["gamma=0.05"] if "gamma" in ALGORITHMS[name].params else []  # a short form, for those with one
    cfg = compose_config([f"algorithm={name}", f"dataset={dataset}", "n_learners=3", *edge, "seed=4"])
    record = run_experiment(cfg)
    m = record["metrics"]
    assert m["n_examples"] == n and m["final_window_examples"] == n // 5
    assert 0.4 < m["final_accuracy"] <= 1.0 and m["runtime_s"] > 0 and m["peak_rss_bytes"] > 0
    curve = record["curve"]
    assert curve["examples_seen"][-1] == n
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


#: Hashes of shipped configurations, as stored records carry them: a change of the config files, of
#: the hash or of the sections validate builds must leave them (else every stored run is run again)
KNOWN_HASHES = {
    (): "1f966254ac523c03",
    ("dataset=car", "algorithm=online_mbbm", "gamma=0.05"): "3d71f4c200a8fee6",
    ("dataset=emotions", "algorithm=ada_olmr"): "2b571250718dfb0d",
    ("dataset=heart", "algorithm=adaboost_m1", "protocol=holdout"): "509d2e41155cd67a",
    ("dataset=mushroom", "algorithm=online_boosting", "learner=tan", "protocol=kfold"): "c8ca5f051a201ab7",
    ("dataset=car", "algorithm=river_arf"): "27927df5e7fa84e8",
    ("dataset=balance", "algorithm=adaboost_olm", "+preset=jung_reference"): "7ac56005b6b25b00",
    ("dataset=balance", "algorithm=vfdt", "protocol.shuffle_seed=357"): "4fbd5c92613e197a",
}


@pytest.mark.parametrize("overrides", KNOWN_HASHES)
def test_shipped_configs_keep_their_hashes(overrides):
    cfg = compose_config(list(overrides))
    run = validate(cfg)
    assert config_hash(cfg) == config_hash(run.resolved, run.spec) == KNOWN_HASHES[overrides]
    assert run.resolved == resolved_dict(cfg)  # the record's config


@pytest.mark.parametrize(
    "group,option", [(group, option) for group in ("learner", "protocol") for option in group_options(group)]
)
def test_each_config_file_builds_its_typed_section(group, option):
    """Each key of a learner or protocol file is a field of its typed section, with the file's
    value: none is read elsewhere with a default of its own."""
    values = OmegaConf.to_container(OmegaConf.load(CONFIG_DIR / group / f"{option}.yaml"))
    section = learner_config(values) if group == "learner" else typed_section(ProtocolConfig, group, values)
    fields = {field.name: getattr(section, field.name) for field in dataclasses.fields(section)}
    unused = {"backend"} - set(fields)  # the one backend of Bayesian networks and of sklearn's trees
    assert set(values) - unused <= set(fields)
    assert {key: values[key] for key in set(values) - unused} == {
        key: list(value) if isinstance(value, tuple) else value for key, value in fields.items() if key in values
    }


def test_a_deleted_key_is_refused_in_one_line():
    with pytest.raises(ConfigError, match=r"^missing configuration key 'learner\.alpha'$"):
        validate(compose_config(["learner=tan", "~learner.alpha"]))


def test_cli_run_writes_one_record(tmp_path):
    result = runner.invoke(
        app, ["run", "dataset=balance", "algorithm=online_boosting", "n_learners=2", f"results_dir={tmp_path}"]
    )
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
    (["gamma=0", "algorithm=online_bmr", "dataset=emotions"], "algorithm.gamma must be a number in (0, 1), got 0"),
    (["gamma=0.3", "algorithm=online_boosting"], "algorithm 'online_boosting' has no gamma (its parameters:"),
    (["n_rounds=5", "algorithm=vfdt"], "n_rounds=5: algorithm 'vfdt' has no n_rounds (it takes no parameters)"),
    (["algorithm=vfdt", "algorithm.gamma=0.5"], "unknown configuration key 'algorithm.gamma': algorithm 'vfdt' takes"),
    (["learner=naive_bayes", "learner.grace_period=5"], "key 'learner.grace_period': learner 'naive_bayes' takes"),
    (["protocol.validation=bootstrap"], "key 'protocol.validation': protocol 'prequential' takes curve_points,"),
    (["algorithm.hedge_etaa=2"], "'algorithm.hedge_etaa' (did you mean 'algorithm.hedge_eta'?)"),
    (["protocol=kfold", "protocol.n_folds=1000"], "'protocol.n_folds': protocol 'kfold' takes final_fraction,"),
    (["protocol=kfold", "protocol.n_splits=1000"], "protocol.n_splits=1000: more than the data set's 625 examples"),
    (["protocol=prequential_cv", "protocol.n_folds=1000000000"], "protocol.n_folds=1000000000: more than the"),
    (["learner.delta=2"], "learner.delta must be a number in (0, 1) or [low, high]"),
    (["n_learners=0"], "n_learners must be an integer >= 1"),
    (["seed=-1"], "seed must be"),
    (["dataset=csv", "dataset.file=/no/such/file.csv", "dataset.class_column=label"], "file not found"),
    (["dataset=csv", "dataset.file={malformed}", "dataset.class_column=label"], "line 3: 1 fields, expected 2"),
    (["dataset=csv", "dataset.file={one_class}", "dataset.class_column=label"], "has 1 class"),
    (
        ["dataset=csv", "dataset.file={one_class}", "dataset.class_column=target"],
        "class column 'target' does not exist",
    ),
    (["no_such_key=3"], "unknown configuration key 'no_such_key'"),
]


@pytest.mark.parametrize("overrides,message", BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_2(overrides, message, tmp_path, malformed_csv, one_class_csv):
    overrides = [o.format(malformed=malformed_csv, one_class=one_class_csv) for o in overrides]
    result = runner.invoke(
        app,
        [
            "run",
            *overrides,
            "n_learners=2" if "n_learners=0" not in overrides else "seed=0",
            f"results_dir={tmp_path / 'results'}",
        ],
    )
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert not (tmp_path / "results").exists()


def test_records_get_the_usual_file_permissions(tmp_path):
    import os
    import stat

    from boostbench.system.files import atomic_write_text

    path = atomic_write_text(tmp_path / "x.json", "{}")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_a_message_with_brackets_prints_whole(tmp_path):
    """Messages are text, not rich markup: '[low, high]' must not vanish."""
    result = runner.invoke(app, ["run", "learner.delta=[0.5,0.1]", f"results_dir={tmp_path}"])
    assert result.exit_code == 2
    assert "learner.delta must be a number in (0, 1) or [low, high] with low <= high" in " ".join(result.output.split())


def test_hydra_flags_print_the_config_and_run_nothing(tmp_path):
    import yaml

    job = runner.invoke(
        app, ["run", "--cfg", "job", "dataset=car", "+preset=jung_reference", f"results_dir={tmp_path}"]
    )
    assert job.exit_code == 0, job.output
    shown = yaml.safe_load(job.output)
    assert shown["dataset"]["encoding"] == "reference" and shown["preset"] == "jung_reference"  # after the preset
    from boostbench.cli import console

    width, console.width = console.width, 60
    try:
        long = runner.invoke(app, ["run", "--cfg", "job", "dataset=german"])  # a description of 86 characters
    finally:
        console.width = width
    assert "1000 x 20 attributes (13 nominal), 2 classes" in long.output  # not wrapped at the terminal's width
    assert not (tmp_path / "runs").exists()
    hydra = runner.invoke(app, ["run", "--cfg=hydra"])
    assert hydra.exit_code == 0 and "sweep:" in hydra.output and "dataset:" not in hydra.output.split("hydra:")[0]
    info = runner.invoke(app, ["run", "--info", "dataset=mice"])
    assert info.exit_code == 0 and "adaboost_olm" in info.output and "mice" in info.output
    bad = runner.invoke(app, ["run", "--cfg", "jobs"])
    assert bad.exit_code == 2 and "--cfg takes job, hydra or all, not 'jobs'" in bad.output
    lone = runner.invoke(app, ["run", "-j", "2"])
    assert lone.exit_code == 2 and "-j is for sweeps" in lone.output


def test_run_multirun_is_a_sweep_and_help_lists_the_groups(tmp_path):
    result = runner.invoke(
        app, ["run", "-m", "dataset=car,balance", "algorithm=vfdt", f"results_dir={tmp_path}", "-j", "1"]
    )
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "runs").glob("*.json"))) == 2
    help_text = runner.invoke(app, ["run", "--help"]).output
    assert "+preset: jung_reference, paper" in " ".join(help_text.split())
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0 and version.output.startswith("boostbench 0.")


def test_shell_completion_of_overrides():
    from boostbench.cli import _complete_override

    assert _complete_override("dataset=mu") == ["dataset=mushroom"]
    assert "+preset=" in _complete_override("+pre") and "algorithm=" in _complete_override("alg")


def test_each_run_reports_its_own_peak_memory_not_the_process_peak():
    import numpy as np

    from boostbench.runner.experiment import run_experiment
    from boostbench.system.resources import peak_rss_bytes, reset_peak_rss

    if not reset_peak_rss():
        pytest.skip("no /proc/self/clear_refs here: the peak is the process's")
    cfg = compose_config(["dataset=balance", "algorithm=vfdt"])
    run_experiment(cfg)  # the imports and kernels a first run loads stay; they are not the point
    big = np.ones(50_000_000)  # 400 MB touched, then freed: an earlier job's peak in a sweep's worker
    big += 1
    earlier_peak = peak_rss_bytes()
    del big
    record = run_experiment(cfg)
    assert earlier_peak > 400 * 10**6
    assert record["metrics"]["peak_rss_bytes"] < earlier_peak - 300 * 2**20


def test_what_a_pass_added_is_its_own_whatever_the_process_held_before():
    import numpy as np

    from boostbench.system.resources import pass_added_bytes, reset_peak_rss

    if not reset_peak_rss():  # no /proc/self/clear_refs: no pass can be told apart, and none is claimed
        assert pass_added_bytes() == 0
        return
    held = np.ones(20_000_000)  # 160 MB an earlier job left resident: not this pass's
    added = []
    for _ in range(2):
        reset_peak_rss()
        block = np.ones(10_000_000)  # the pass: 80 MB touched, then freed before the reading
        block += 1
        del block
        added.append(pass_added_bytes())
    assert held.sum() == 20_000_000
    assert all(79 * 10**6 < a < 100 * 10**6 for a in added), added
