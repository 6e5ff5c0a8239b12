"""One owner per knob: ``gamma`` and ``n_rounds`` are the algorithms' hyper-parameters, the top-level
spelling a short form; stored runs keep their hashes (boostbench.runner.identity's migrations).

``published_configs.json`` was written at 4a3cff3, the commit the published pages
(docs/reproduction, docs/stream-benchmark) were made from: every distinct grid point, at seed 0, of
their experiments (configs/experiment/), as its overrides and config hash, and for one point per
experiment, algorithm and learner the whole config as its record stored it (the old form: a
top-level ``gamma`` and ``n_rounds`` in every run).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.errors import ConfigError
from boostbench.runner.config import compose_config, config_hash, validate

PUBLISHED = json.loads((Path(__file__).parent / "published_configs.json").read_text())


@pytest.mark.parametrize("stored", PUBLISHED["configs"], ids=lambda s: s["config"]["algorithm"]["name"])
def test_a_stored_config_in_its_old_form_keeps_its_hash(stored):
    assert "gamma" in stored["config"] and "n_rounds" in stored["config"]  # the old form indeed
    assert config_hash(stored["config"]) == stored["config_hash"]


def _composed_hash(overrides):
    return config_hash(compose_config(overrides, strict=False))  # as a sweep's grid point composes


@pytest.mark.parametrize("point", PUBLISHED["points"][::40], ids=lambda p: " ".join(p["overrides"]))
def test_a_published_grid_point_composes_to_its_stored_hash(point):
    cfg = compose_config(point["overrides"], strict=False)
    assert "gamma" not in cfg and "n_rounds" not in cfg  # the new form: in the algorithm section
    assert config_hash(cfg) == point["config_hash"]


@pytest.mark.slow
def test_every_published_grid_point_composes_to_its_stored_hash():
    moved = [p["overrides"] for p in PUBLISHED["points"] if _composed_hash(p["overrides"]) != p["config_hash"]]
    assert not moved, moved[:3]


def test_the_short_form_and_the_long_form_are_one_run():
    short = compose_config(["dataset=car", "algorithm=online_mbbm", "gamma=0.05"])
    long = compose_config(["dataset=car", "algorithm=online_mbbm", "algorithm.gamma=0.05"])
    assert short.algorithm.gamma == long.algorithm.gamma == 0.05 and "gamma" not in short
    assert config_hash(short) == config_hash(long) == "3d71f4c200a8fee6"  # the hash stored runs carry
    batch = compose_config(["algorithm=samme", "n_rounds=7"])
    assert batch.algorithm.n_rounds == 7 and config_hash(batch) == config_hash(
        compose_config(["algorithm=samme", "algorithm.n_rounds=7"])
    )


def test_a_short_form_the_algorithm_lacks_is_dropped_from_a_grid_point_and_refused_in_a_run():
    point = compose_config(["algorithm=online_boosting", "gamma=0.3"], strict=False)
    assert config_hash(point) == config_hash(compose_config(["algorithm=online_boosting"]))
    result = CliRunner().invoke(app, ["run", "algorithm=online_boosting", "gamma=0.3"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "gamma=0.3: algorithm 'online_boosting' has no gamma (its parameters: compiled," in result.output


def test_an_old_form_config_validates_with_its_short_forms_moved():
    """A config given whole (a stored record's, the Python API's): its top-level gamma is the
    algorithm's, and a knob the algorithm lacks (the old form's ``n_rounds``) is dropped."""
    old = next(s["config"] for s in PUBLISHED["configs"] if s["config"]["algorithm"]["name"] == "online_mbbm")
    run = validate({**old, "gamma": 0.05, "algorithm": {**old["algorithm"], "gamma": 0.1}})
    assert run.algorithm["gamma"] == 0.05 and "gamma" not in run.resolved and "n_rounds" not in run.resolved


@pytest.mark.parametrize(
    "overrides,message",
    [
        (["algorithm=vfdt", "algorithm.gamma=0.5"], "'algorithm.gamma': algorithm 'vfdt' takes name"),
        (["learner=naive_bayes", "learner.grace_period=5"], "'learner.grace_period': learner 'naive_bayes' takes"),
        (["protocol=prequential", "protocol.validation=bootstrap"], "'protocol.validation': protocol 'prequential'"),
    ],
)
def test_a_key_of_another_option_is_refused(overrides, message):
    result = CliRunner().invoke(app, ["run", *overrides])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()) and len(result.output.strip().splitlines()) == 1


def test_a_typo_in_an_experiment_file_is_refused_as_on_the_command_line(tmp_path):
    """A user's experiment (a configs folder of their own, $BOOSTBENCH_CONFIG_DIR) with
    ``algorithm.hedge_etaa``: refused with the did-you-mean the same typo gets on the command line."""
    import os
    import shutil
    import subprocess
    import sys

    from boostbench.system.paths import CONFIG_DIR

    configs = tmp_path / "configs"
    shutil.copytree(CONFIG_DIR, configs)
    (configs / "experiment" / "typo.yaml").write_text("# @package _global_\nalgorithm:\n  hedge_etaa: 2.0\n")
    env = {**os.environ, "BOOSTBENCH_CONFIG_DIR": str(configs)}
    lines = {}
    for typo in ("+experiment=typo", "algorithm.hedge_etaa=2"):
        done = subprocess.run(
            [sys.executable, "-m", "boostbench", "run", typo, f"results_dir={tmp_path}"],
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        lines[typo] = (done.stdout + done.stderr).strip()
    assert lines["+experiment=typo"] == lines["algorithm.hedge_etaa=2"]
    assert "'algorithm.hedge_etaa' (did you mean 'algorithm.hedge_eta'?)" in lines["+experiment=typo"]


def test_an_empty_grid_is_refused_in_one_line(tmp_path):
    result = CliRunner().invoke(app, ["sweep", "seed=range(0,0)", f"results_dir={tmp_path}"])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == "error: the grid is empty: 'seed=range(0,0)' has no values"


@pytest.mark.parametrize(
    "name,text,message",
    [
        ("measured.arff", "@attribute c numeric\n@data\n" + "".join(f"{i / 10},{i * 1.5}\n" for i in range(40)), None),
        ("measured.csv", "a,c\n" + "".join(f"{i / 10},{i * 1.5}\n" for i in range(40)), None),
        ("coded.arff", "@attribute c numeric\n@data\n" + "".join(f"{i / 10},{i % 3}\n" for i in range(40)), 3),
    ],
)
def test_a_numeric_class_is_refused_unless_a_few_integers(name, text, message, tmp_path):
    from boostbench.data import load_dataset
    from boostbench.errors import DataError

    path = tmp_path / name
    path.write_text(("@relation r\n@attribute a numeric\n" if name.endswith(".arff") else "") + text)
    spec = compose_config(["dataset=csv", f"dataset.file={path}", "dataset.class_column=c"]).dataset
    if message is None:
        with pytest.raises(DataError, match=r"column 'c': the class is numeric \(40 distinct values: 0, 1.5, 3, ...\)"):
            load_dataset(spec)
    else:
        dataset = load_dataset(spec)
        assert dataset.class_names == ("0", "1", "2") and dataset.n_classes == message


def test_a_sweeps_lines_name_every_setting_that_differs_between_points(tmp_path):
    """Two tracks of a grid (two learners) and a swept algorithm key: each point's label names
    them, so no two points look alike (here every point is n/a: nothing runs)."""
    from boostbench.runner.sweep import run_sweep

    sizes, seen = [], []
    outcomes = run_sweep(
        [
            "algorithm=samme,adaboost_m1",
            "protocol=prequential",  # a batch algorithm under a streaming protocol: n/a, found at triage
            "learner=tree,naive_bayes",
            "algorithm.n_rounds=3,5",
            f"results_dir={tmp_path}",
        ],
        n_jobs=1,
        on_outcome=seen.append,
        on_size=sizes.append,
    )
    assert sizes == [8]  # the sweeper's count, reported once, before the points' lines
    assert [o["label"] for o in seen] == [o.label for o in outcomes]
    labels = [o.label for o in outcomes]
    assert {o.status for o in outcomes} == {"n/a"} and len(set(labels)) == len(labels) == 8
    assert labels[:2] == [
        "samme balance seed=0 learner=tree algorithm.n_rounds=3",
        "samme balance seed=0 learner=tree algorithm.n_rounds=5",
    ]


def test_an_experiments_short_form_is_grid_wide_the_command_lines_is_refused():
    """smoke_batch sets n_rounds for its grid, base among it: base's run drops it; the same value
    typed on the command line for base is refused."""
    cfg = compose_config(["+experiment=smoke_batch", "algorithm=base"])
    assert "n_rounds" not in cfg and "n_rounds" not in cfg.algorithm
    assert compose_config(["+experiment=smoke_batch", "algorithm=samme"]).algorithm.n_rounds == 5
    with pytest.raises(ConfigError, match=r"n_rounds=5: algorithm 'base' has no n_rounds"):
        compose_config(["+experiment=smoke_batch", "algorithm=base", "n_rounds=5"])
