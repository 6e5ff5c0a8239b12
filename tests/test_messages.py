"""Messages a user can trust: a mistyped key, column, file, report or metric gets the closest
real one; advice, once followed, works; an ARFF file's class is its last attribute; a first
compilation is announced; the help shows what the command takes.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import typer
from omegaconf import open_dict
from rich.console import Console
from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.errors import ConfigError, DataError
from boostbench.runner.config import compose_config, config_hash, override_message, validate
from boostbench.suggest import closest

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_closest_names_the_best_match_and_ties_only():
    assert closest("n_learner", ["learner", "n_learners", "seed"]) == ["n_learners"]
    assert closest("sed", ["seed", "gamma"]) == ["seed"]
    assert closest("kappa", ["final_kappa", "cumulative_kappa", "runtime_s"]) == ["final_kappa"]
    assert closest("ab", ["abc", "abd"]) == ["abc", "abd"]  # as close: both named
    assert closest("xyz", ["seed", "gamma"]) == []


@pytest.mark.parametrize(
    "override,closest_key",
    [
        ("protocl.window=10", "protocol.window"),
        ("+protocl.window=10", "protocol.window"),
        ("sed=3", "seed"),
        ("+sed=3", "seed"),
        ("gama=0.1", "gamma"),
        ("n_learner=10", "n_learners"),
        ("learner.grace_perod=5", "learner.grace_period"),
        ("+learner.grace_perod=5", "learner.grace_period"),
        ("dataset.clas_column=x", "dataset.class_column"),
        ("algorithm.alpha_bnd=1", "algorithm.alpha_bound"),
    ],
)
def test_a_mistyped_key_at_any_depth_gets_the_closest_declared_key(override, closest_key):
    with pytest.raises(ConfigError) as error:
        compose_config([override])
    message = str(error.value)
    assert f"did you mean {closest_key!r}?" in message, message
    assert "To append" not in message and "+" + closest_key not in message  # no advice that fails
    fixed = override.lstrip("+").replace(override.lstrip("+").partition("=")[0], closest_key)
    chosen = ["algorithm=online_mbbm"] if closest_key == "gamma" else []  # an algorithm with an edge
    compose_config([*chosen, fixed])  # the suggestion, followed, composes


def test_a_declared_key_its_option_lacks_is_added_without_a_plus():
    """adaboost_m1 declares ``resample`` (its class's constraints), its config file does not hold it;
    ``+`` before a key the file holds sets it: either way the override means what it says."""
    cfg = compose_config(["algorithm=adaboost_m1", "protocol=kfold", "learner=tree", "algorithm.resample=true"])
    assert cfg.algorithm.resample is True
    validate(cfg)
    assert compose_config(["+protocol.window=10"]).protocol.window == 10
    with pytest.raises(ConfigError, match=re.escape("did you mean 'algorithm.resample'")):
        compose_config(["algorithm=adaboost_m1", "protocol=kfold", "learner=tree", "algorithm.resampel=true"])


def test_an_unknown_key_of_a_config_gets_the_closest_declared_key_when_validated():
    cfg = compose_config(["algorithm=vfdt"])
    with open_dict(cfg):
        cfg.learner.grace_perod = 5
    with pytest.raises(ConfigError, match=re.escape("unknown configuration key 'learner.grace_perod' (did you mean")):
        validate(cfg)


def test_a_sweeps_absent_key_is_named_with_the_closest_or_the_plus_it_needs():
    hydra = "Could not override '{}'. To append to your config use +{}"
    typo = override_message(["learner.grace_perod=5"], hydra.format("learner.grace_perod", "learner.grace_perod=5"))
    assert typo == "unknown configuration key 'learner.grace_perod' (did you mean 'learner.grace_period'?)"
    declared = override_message(["learner.max_depth=3"], hydra.format("learner.max_depth", "learner.max_depth=3"))
    assert "to add it there, write +learner.max_depth=3" in declared  # the tree learner's key
    present = "Could not append to config. An item is already at 'seed'. Either remove + prefix: 'seed=3'"
    assert "leave out the +" in override_message(["+seed=3"], present, "sweep")


@pytest.fixture
def labelled_csv(tmp_path):
    path = tmp_path / "wide.csv"
    names = [f"attribute_{j}" for j in range(15)] + ["label"]
    rows = [",".join(names)] + [",".join([str(i + j) for j in range(15)] + ["ab"[i % 2]]) for i in range(6)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_mistyped_class_column_gets_the_closest_column_beyond_the_listed_ones(labelled_csv):
    from boostbench.data.registry import load_dataset

    cfg = compose_config(["dataset=csv", f"dataset.file={labelled_csv}", "dataset.class_column=lable"])
    with pytest.raises(DataError) as error:
        load_dataset(cfg.dataset)
    message = str(error.value)
    assert "(did you mean 'label'?)" in message and message.endswith("attribute_14, label)")  # all 16 listed
    wide = labelled_csv.with_name("wide.csv")
    wide.write_text("".join(",".join([f"c{j}" for j in range(29)] + ["category"]) + "\n1" + ",1" * 29 + "\n"))
    with pytest.raises(DataError) as error:
        load_dataset(compose_config(["dataset=csv", f"dataset.file={wide}", "dataset.class_column=x"]).dataset)
    assert str(error.value).endswith(
        "(columns: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, ... 16 more, c28, category)"
    )


def test_a_missing_data_file_is_named_with_the_places_looked_in(tmp_path, monkeypatch):
    from boostbench.data.registry import load_dataset
    from boostbench.system.paths import VENDORED_DATA_DIR

    monkeypatch.chdir(tmp_path)
    cfg = compose_config(["dataset=csv", "dataset.file=nothere.csv", "dataset.class_column=label"])
    with pytest.raises(DataError) as error:
        load_dataset(cfg.dataset)
    message = str(error.value)
    assert message.startswith("data file 'nothere.csv' not found in the working directory")
    assert str(tmp_path) in message and f"the vendored data {VENDORED_DATA_DIR}" in message
    assert "custom" not in message and "OpenML" not in message


ARFF = """% a user's file
@relation tiny
@attribute 'a b' numeric
@attribute colour {red, green}
@attribute outcome {yes, no}
@data
1,red,yes
2,green,no
3,red,yes
4,green,no
"""


def test_an_arff_without_a_class_column_takes_its_last_attribute_as_weka_and_moa(tmp_path, capsys):
    from boostbench.data.registry import load_dataset

    path = tmp_path / "tiny.arff"
    path.write_text(ARFF)
    cfg = compose_config(["dataset=csv", f"dataset.file={path}"])
    assert cfg.dataset.class_column == "outcome"
    note = capsys.readouterr().err
    assert "the class is the last attribute, 'outcome'" in note and "Weka and MOA" in note
    compose_config(["dataset=csv", f"dataset.file={path}"])
    assert capsys.readouterr().err == ""  # said once
    typed = compose_config(["dataset=csv", f"dataset.file={path}", "dataset.class_column=outcome"])
    assert config_hash(typed) == config_hash(cfg)  # the same run as the column typed
    dataset = load_dataset(cfg.dataset)
    assert set(dataset.class_names) == {"yes", "no"} and dataset.feature_names == ("a b", "colour")
    chosen = compose_config(["dataset=csv", f"dataset.file={path}", "dataset.class_column=colour"])
    assert chosen.dataset.class_column == "colour"  # a named column stays


@pytest.mark.parametrize(
    ("text", "extra", "column"),
    [
        ("a;colour;outcome\n1;red;yes\n2;green;no\n", [], "outcome"),  # a header, its separator sniffed
        (
            "% made by hand\n1 red yes\n2 green no\n",
            ["dataset.header=false", "dataset.sep=whitespace", "dataset.comment=%"],
            "2",
        ),
        ("1,red,yes\n2,green,no\n", ["dataset.header=false", "dataset.columns=[a,colour,outcome]"], "outcome"),
    ],
)
def test_a_csv_without_a_class_column_takes_its_last_column_and_says_so(tmp_path, capsys, text, extra, column):
    from boostbench.data.registry import load_dataset

    path = tmp_path / "tiny.csv"
    path.write_text(text)
    cfg = compose_config(["dataset=csv", f"dataset.file={path}", *extra])
    assert cfg.dataset.class_column == column
    note = capsys.readouterr().err.strip()
    assert note == (
        f"note: {path}: the class is the last column, {column!r} (as Weka and MOA take it; "
        "another: dataset.class_column=NAME)"
    )
    assert set(load_dataset(cfg.dataset).class_names) == {"yes", "no"}
    chosen = compose_config(["dataset=csv", f"dataset.file={path}", *extra, "dataset.class_column=1"])
    assert set(load_dataset(chosen.dataset).class_names) == {"red", "green"}  # another, as the note says


def test_an_empty_kernel_cache_is_announced_once_on_stderr(tmp_path, monkeypatch, capsys):
    from boostbench.system import kernel_cache, notices

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(notices, "_SAID", set())
    kernel_cache.announce_compilation()
    assert "compiling the numba kernels" in capsys.readouterr().err
    kernel_cache.announce_compilation()
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(notices, "_SAID", set())
    (tmp_path / "vfdt_another_checkout").mkdir()
    (tmp_path / "vfdt_another_checkout" / "kernel-1.py311.nbi").write_bytes(b"")
    assert not kernel_cache.announce_compilation()  # a cache that holds kernels: nothing to say
    assert capsys.readouterr().err == ""
    from boostbench.learners.vfdt.training import learn_all  # this checkout's folder, told by a kernel

    assert kernel_cache.announce_compilation(learn_all)  # another checkout's kernels: this one compiles
    assert "compiling the numba kernels" in capsys.readouterr().err
    monkeypatch.setattr(notices, "_SAID", set())
    mine = tmp_path / Path(learn_all._cache._cache_path).name
    mine.mkdir()
    (mine / "kernel-1.py311.nbi").write_bytes(b"")
    assert not kernel_cache.announce_compilation(learn_all)
    assert capsys.readouterr().err == ""


def test_help_shows_no_type_on_flags_and_an_example_metric_that_works():
    from boostbench.reporting.records import METRICS

    for command in ([], ["run"], ["sweep"], ["datasets"], ["report"]):
        shown = runner.invoke(app, [*command, "--help"], terminal_width=100)
        assert shown.exit_code == 0 and "<bool>" not in shown.output, shown.output
    report = typer.main.get_command(app).commands["report"]
    shown = next(param.help for param in report.params if param.name == "metric")
    examples = re.search(r"e\.g\. ([\w, ]+)\)", shown)[1].split(", ")
    assert examples and set(examples) <= set(METRICS)


def test_report_names_metrics_and_data_sets_get_a_did_you_mean(tmp_path):
    metric = runner.invoke(app, ["report", "summary", "--metric", "kappa", "--results-dir", str(tmp_path)])
    assert metric.exit_code == 2
    text = _flat(metric.output)
    assert "unknown metric 'kappa' (did you mean 'final_kappa'?)" in text
    assert not {"key", "config_hash", "code", "seed"} & set(text.partition("available: ")[2].rstrip(")").split(", "))
    report = runner.invoke(app, ["report", "leaderbord", "--results-dir", str(tmp_path)])
    assert report.exit_code == 2 and "(did you mean 'leaderboard'?)" in _flat(report.output)
    fetch = runner.invoke(app, ["datasets", "--fetch", "nurser"])
    assert fetch.exit_code == 2 and "unknown data set 'nurser' (did you mean 'nursery'?)" in _flat(fetch.output)


def test_data_set_names_are_never_broken_in_the_table(monkeypatch):
    from boostbench import cli
    from boostbench.data.registry import registry_specs

    screen = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=screen, width=80, force_terminal=True, color_system=None))
    cli.datasets(data_dir=None, fetch=None)
    names = {line.split("│")[1].strip() for line in screen.getvalue().splitlines() if line.startswith("│")}
    assert set(registry_specs()) <= names  # each name whole on its line (mediamill_reduced too)


@pytest.mark.slow
def test_the_docstrings_figure_with_rivers_trees():
    """OnlineBoostingClassifier's docstring: 71.42% with the paper's trees (its doctest), 87.66%
    with river's default Hoeffding trees on river's ImageSegments."""
    from river import datasets, evaluate, metrics, tree

    from boostbench.estimators import OnlineBoostingClassifier

    model = OnlineBoostingClassifier(model=tree.HoeffdingTreeClassifier(), n_models=10, seed=42)
    accuracy = evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
    assert f"{accuracy.get():.4f}" == "0.8766"


def test_a_batch_algorithm_says_which_protocol_it_ran_and_a_streaming_one_is_refused(tmp_path):
    """algorithm=samme alone runs its config's 5-fold cross-validation and says so in one line;
    protocol=prequential typed is refused with the protocols that fit."""
    common = ["algorithm=samme", "dataset=heart", "n_rounds=3", f"results_dir={tmp_path}"]
    note = (
        "note: algorithm 'samme' is a batch algorithm: it runs under protocol=kfold (5-fold cross-validation) "
        "with learner=tree, not the streaming protocol=prequential (protocol=holdout: one train/test split)"
    )
    result = runner.invoke(app, ["run", *common])
    assert result.exit_code == 0 and result.output.count(note) == 1
    holdout = runner.invoke(app, ["run", *common, "protocol=holdout"])
    assert holdout.exit_code == 0 and "note: algorithm" not in holdout.output  # chosen: nothing to say
    refused = runner.invoke(app, ["run", *common, "protocol=prequential"])
    assert refused.exit_code == 2 and refused.output.strip() == (
        "error: algorithm 'samme' is a batch algorithm: use protocol=kfold or protocol=holdout, not 'prequential'"
    )
