"""Plugins: an installed package's algorithms (entry points of group boostbench.algorithms) run,
sweep, show and fingerprint as ours do; a broken one is left out in one line naming its package."""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from boostbench.algorithms import ALGORITHMS, algorithm_spec
from boostbench.cli import _complete_override, app
from boostbench.errors import ConfigError
from boostbench.runner.config import compose_config, resolved_dict, validate
from boostbench.system import fingerprint

BOOSTER = '''
import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import Interval


class BarMajority(OnlineBooster):
    """The members' mean distribution; member i trains with weight ``scale`` (times its c_i)."""

    _parameter_constraints = {"scale": Interval(0.0)}

    def __init__(self, pool, n_classes, rng, *, scale: float = 1.0):
        super().__init__(pool, n_classes, rng)
        self._validate_params(scale=scale)
        self.scale = scale

    def predict_proba(self, x):
        self._xp = self.pool.prepare(x)
        return self.pool.predict_proba(self._xp).mean(axis=0)

    def update(self, y, w=1.0):
        if w:
            self.pool.learn(self._xp, y, np.full(self.pool.n_learners, self.scale * w))


class Positional(BarMajority):
    def __init__(self, pool, n_classes, rng, scale=1.0):
        super().__init__(pool, n_classes, rng, scale=scale)
'''


def install(root, distribution: str, package: str, points: dict[str, str], source: str = BOOSTER, files=None):
    """A package on ``root`` as pip leaves one: its module and a dist-info with its entry points."""
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text(textwrap.dedent(source))
    for name, text in (files or {}).items():
        (root / package / name).parent.mkdir(parents=True, exist_ok=True)
        (root / package / name).write_text(text)
    info = root / f"{distribution}-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.3\n")
    lines = "".join(f"{name} = {value}\n" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[boostbench.algorithms]\n{lines}")


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """Install fake plugins on ``sys.path`` (``install(...)`` through the fixture), and leave the
    registry, Hydra's ConfigStore and ``sys.modules`` as they were."""
    from hydra.core.config_store import ConfigStore

    monkeypatch.syspath_prepend(str(tmp_path))
    stored = dict(ConfigStore.instance().repo.get("algorithm", {}))
    packages = []

    def add(distribution, package, *args, **kwargs):
        install(tmp_path, distribution, package, *args, **kwargs)
        packages.append(package)
        ALGORITHMS.refresh()
        fingerprint.plugin_digest.cache_clear()

    yield add
    ALGORITHMS.refresh()
    for name in [m for m in sys.modules if m.partition(".")[0] in packages]:
        del sys.modules[name]
    ConfigStore.instance().repo["algorithm"] = stored


def test_a_plugins_class_runs_with_its_defaults_and_its_record_names_its_package(plugins, tmp_path):
    from boostbench.runner.experiment import run_experiment, save

    plugins("bar-boosting", "bar_boosting", {"bar_majority": "bar_boosting:BarMajority"})
    cfg = compose_config(["algorithm=bar_majority", "dataset=balance", "n_learners=3", "progress=false"])
    assert resolved_dict(cfg)["algorithm"] == {"name": "bar_majority", "scale": 1.0}  # no YAML: the class's
    run = validate(cfg)
    record = run_experiment(run)
    assert record["plugin"] == {
        "distribution": "bar-boosting",
        "version": "0.3",
        "entry_point": "bar_boosting:BarMajority",
    }
    assert 0.5 < record["metrics"]["final_accuracy"] <= 1.0
    assert record["code"] == fingerprint.code_fingerprint(run.spec) != fingerprint.code_fingerprint()
    path = save(record, str(tmp_path / "store"))
    assert path.name.endswith(f".{record['code']}.json")
    with pytest.raises(ConfigError, match=r"algorithm.scale must be a number > 0, got -1"):
        validate(compose_config(["algorithm=bar_majority", "algorithm.scale=-1"]))


def test_a_broken_plugin_is_left_out_in_one_line_and_the_rest_works(plugins):
    plugins(
        "bar-boosting",
        "bar_boosting",
        {
            "bar_majority": "bar_boosting:BarMajority",
            "adaboost_olm": "bar_boosting:BarMajority",  # takes a built-in's name
            "missing": "bar_boosting:Missing",  # fails to import
            "positional": "bar_boosting:Positional",  # breaks the interface
            "Bad-Name": "bar_boosting:BarMajority",
        },
    )
    problems = ALGORITHMS.problems
    assert len(problems) == 4 and all("\n" not in line and "package bar-boosting 0.3" in line for line in problems)
    assert problems == [
        "plugin algorithm 'Bad-Name' of package bar-boosting 0.3 left out: it is not named as an algorithm can be "
        "(lower-case letters, digits and _, a letter first)",
        "plugin algorithm 'adaboost_olm' of package bar-boosting 0.3 left out: it takes the name of a built-in "
        "algorithm",
        "plugin algorithm 'missing' of package bar-boosting 0.3 left out: it fails to import "
        "(bar_boosting:Missing): AttributeError: module 'bar_boosting' has no attribute 'Missing'; if its module "
        f"or class was renamed, reinstall it ({sys.executable} -m pip install --force-reinstall bar-boosting)",
        "plugin algorithm 'positional' of package bar-boosting 0.3 left out: it Positional.__init__ must be "
        "(self, pool, n_classes, rng, *, <hyper-parameters>)",
    ]
    assert ALGORITHMS["adaboost_olm"].plugin is None and ALGORITHMS["bar_majority"].plugin is not None
    validate(compose_config(["algorithm=adaboost_olm"]))  # ours, untouched
    with pytest.raises(ConfigError, match=r"^unknown algorithm 'missing': the plugin algorithm 'missing' of pa"):
        compose_config(["algorithm=missing"])
    result = CliRunner().invoke(app, ["run", "algorithm=positional"])
    assert result.exit_code == 2
    assert "warning: plugin algorithm 'positional' of package bar-boosting 0.3 left out" in result.output


def test_plugins_show_in_info_completion_and_did_you_mean(plugins):
    plugins("bar-boosting", "bar_boosting", {"bar_majority": "bar_boosting:BarMajority"})
    result = CliRunner().invoke(app, ["run", "--info"])
    assert result.exit_code == 0
    assert "bar_majority" in result.output.split("algorithm")[1]  # among the group's options
    assert "bar-boosting 0.3" in result.output and "made from the class" in result.output
    assert _complete_override("algorithm=bar") == ["algorithm=bar_majority"]
    assert "algorithm.scale=" in _complete_override("algorithm.sc")
    with pytest.raises(ConfigError, match=r"unknown algorithm 'bar_majorty' \(did you mean 'bar_majority'\?\)"):
        compose_config(["algorithm=bar_majorty"])


def test_a_changed_plugin_has_another_fingerprint_and_ours_is_unmoved(plugins, tmp_path):
    plugins("bar-boosting", "bar_boosting", {"bar_majority": "bar_boosting:BarMajority"})
    spec = algorithm_spec("bar_majority")
    ours, theirs = fingerprint.code_fingerprint(), fingerprint.code_fingerprint(spec)
    with open(tmp_path / "bar_boosting" / "__init__.py", "a") as handle:
        handle.write("\n# a changed booster\n")
    fingerprint.plugin_digest.cache_clear()
    assert fingerprint.code_fingerprint(spec) != theirs
    assert fingerprint.code_fingerprint() == ours == fingerprint.code_fingerprint(algorithm_spec("adaboost_olm"))


def test_an_entry_point_may_name_an_algorithm_spec_or_ship_a_config(plugins):
    """An AlgorithmSpec says what the class cannot (a knob it uses: gamma); a YAML the package
    ships under configs/algorithm/ is the algorithm's config."""
    source = BOOSTER.replace("scale: float = 1.0", "scale: float = 1.0, gamma: float = 0.2") + (
        "\nfrom boostbench.algorithms import AlgorithmSpec\n"
        "SPEC = AlgorithmSpec(BarMajority, uses=('n_learners', 'gamma'))\n"
    )
    files = {"configs/algorithm/bar_shipped.yaml": "name: bar_shipped\nscale: 2.5   # ours\ngamma: 0.3\n"}
    plugins(
        "bar-boosting",
        "bar_boosting",
        {"bar_gamma": "bar_boosting:SPEC", "bar_shipped": "bar_boosting:BarMajority"},
        source=source,
        files=files,
    )
    assert ALGORITHMS.problems == []
    section = resolved_dict(compose_config(["algorithm=bar_gamma", "gamma=0.05"]))["algorithm"]
    assert section == {"name": "bar_gamma", "scale": 1.0, "gamma": 0.05}  # the short form sets its own
    assert resolved_dict(compose_config(["algorithm=bar_gamma"]))["algorithm"]["gamma"] == 0.2  # its default
    assert resolved_dict(compose_config(["algorithm=bar_shipped"]))["algorithm"] == {
        "name": "bar_shipped",
        "scale": 2.5,
        "gamma": 0.3,
    }


@pytest.mark.slow  # a sweep's joblib workers: other processes
def test_a_plugin_sweeps_beside_ours_and_reaches_the_leaderboard(plugins, tmp_path):
    from boostbench.runner.sweep import run_sweep, summarize

    plugins("bar-boosting", "bar_boosting", {"bar_majority": "bar_boosting:BarMajority"})
    store = tmp_path / "store"
    grid = [
        "algorithm=bar_majority,adaboost_olm",
        "dataset=balance,car",
        "seed=0",
        "n_learners=3",
        f"results_dir={store}",
    ]
    assert summarize(run_sweep(grid, n_jobs=2)) == {"done": 4}
    assert summarize(run_sweep(grid, n_jobs=2)) == {"skipped": 4}
    records = [json.loads(p.read_text()) for p in (store / "runs").glob("*.json")]
    assert (
        sorted(r.get("plugin", {}).get("distribution", "ours") for r in records) == ["bar-boosting"] * 2 + ["ours"] * 2
    )
    result = CliRunner().invoke(app, ["report", "leaderboard", "--results-dir", str(store)])
    assert result.exit_code == 0 and "bar_majority" in result.output


def test_new_algorithm_writes_a_package_whose_booster_passes_check_booster(tmp_path, monkeypatch):
    """The scaffold: pyproject with the entry point, a booster that passes every check, a test
    and a README; bad names and an existing folder are refused in one line. (Installed with pip and
    its own pytest run: make plugin-example.)"""
    import importlib
    import tomllib

    from boostbench.testing import CHECKS, check_booster

    result = CliRunner().invoke(app, ["new-algorithm", "my_boost", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"{sys.executable} -m pip install --no-deps -e ." in result.output  # boostbench's own pip
    root = tmp_path / "my_boost"
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) == [
        "README.md",
        "pyproject.toml",
        "src/boostbench_my_boost/__init__.py",
        "src/boostbench_my_boost/booster.py",
        "tests/test_my_boost.py",
    ]
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["boostbench.algorithms"] == {
        "my_boost": "boostbench_my_boost.booster:MyBoost"
    }
    assert "check_booster(MyBoost)" in (root / "tests" / "test_my_boost.py").read_text()
    monkeypatch.syspath_prepend(str(root / "src"))
    booster = importlib.import_module("boostbench_my_boost.booster")
    try:
        report = check_booster(booster.MyBoost, checks=[c for c in CHECKS if c != "river_estimator"])
    finally:
        for name in [m for m in sys.modules if m.startswith("boostbench_my_boost")]:
            del sys.modules[name]
    assert set(report.values()) == {"passed"}
    for args, message in (
        (["my_boost", "--dir", str(tmp_path)], f"error: {root} exists already"),
        (["My-Boost"], "error: 'My-Boost' cannot name an algorithm"),
        (["online_mbbm"], "error: algorithm 'online_mbbm' exists already"),
    ):
        refused = CliRunner().invoke(app, ["new-algorithm", *args])
        assert refused.exit_code == 2 and refused.output.startswith(message), refused.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_boost"]  # nothing half-written


WRONG_OUTPUTS = (
    BOOSTER
    + """

class Wide(BarMajority):
    def predict_proba(self, x):
        return np.append(super().predict_proba(x), [0.0, 0.0])  # k + 2 values


class Negative(BarMajority):
    def predict_proba(self, x):
        proba = super().predict_proba(x)
        proba[1] = -0.25
        return proba


class OutOfRange(BarMajority):
    def predict(self, x):
        self.predict_proba(x)
        return self.n_classes + 1
"""
)


def test_a_plugins_wrong_prediction_is_refused_in_one_line_naming_it(plugins):
    """A (k+2,) distribution: exit 2, no traceback, the algorithm, its package and both shapes."""
    plugins("bar-boosting", "bar_boosting", {"bar_wide": "bar_boosting:Wide"}, source=WRONG_OUTPUTS)
    result = CliRunner().invoke(app, ["run", "algorithm=bar_wide", "dataset=balance", "n_learners=3"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) <= 3 and "Traceback" not in result.output
    assert lines[-1] == (
        "error: algorithm 'bar_wide' (package bar-boosting 0.3): predict_proba returned an array of shape (5,) "
        "for 3 classes; expected shape (3,), a finite, non-negative probability per class"
    )


@pytest.mark.parametrize(
    ("entry", "what"),
    [
        ("Negative", "predict_proba returned -0.25 at index 1 of 3 classes; expected shape (3,), a finite"),
        ("OutOfRange", "predict returned label 4 for 3 classes; expected a label in 0..2"),
    ],
)
def test_the_runner_refuses_a_negative_probability_and_a_label_out_of_range(plugins, entry, what):
    from boostbench.errors import BoosterOutputError
    from boostbench.runner.experiment import run_experiment

    plugins("bar-boosting", "bar_boosting", {"bar_bad": f"bar_boosting:{entry}"}, source=WRONG_OUTPUTS)
    for protocol in ("prequential", "prequential_cv"):
        cfg = compose_config(["algorithm=bar_bad", "dataset=balance", "n_learners=3", f"protocol={protocol}"])
        with pytest.raises(BoosterOutputError) as refused:
            run_experiment(validate(cfg))
        assert str(refused.value).startswith("algorithm 'bar_bad' (package bar-boosting 0.3): " + what)


def test_check_booster_reports_a_wrong_shape_under_its_labels_check(plugins):
    from boostbench.testing import check_booster

    plugins("bar-boosting", "bar_boosting", {"bar_wide": "bar_boosting:Wide"}, source=WRONG_OUTPUTS)
    import bar_boosting

    for booster in (bar_boosting.Wide, "bar_wide"):
        with pytest.raises(AssertionError) as failed:
            check_booster(booster)
        name = "Wide" if booster is bar_boosting.Wide else "bar_wide"
        assert str(failed.value) == (
            f"check_booster({name}): labels: predict_proba returned an array of shape (5,) for 3 classes; "
            "expected shape (3,), a finite, non-negative probability per class"
        )
    assert check_booster(bar_boosting.BarMajority, checks=["labels", "determinism"]) == {
        "labels": "passed",
        "determinism": "passed",
    }


def test_a_rankers_scores_are_checked_where_the_protocol_takes_them():
    from boostbench.boosters.base import OnlineRanker
    from boostbench.errors import BoosterOutputError
    from boostbench.protocols import train_then_test

    class Short(OnlineRanker):
        def predict_scores(self, x):
            return np.array([0.5, np.nan, -1.0])[: self.n_classes]

        def update(self, relevant, w=1.0):
            pass

    X, Y = np.zeros((4, 2)), np.eye(4, 3, dtype=bool)
    with pytest.raises(BoosterOutputError, match=r"^predict_scores returned nan at index 1 of 3 labels; expected"):
        train_then_test(Short(None, 3, np.random.default_rng(0)), X, Y, np.arange(2), np.arange(2, 4))


def test_an_entry_point_renamed_without_reinstalling_says_to_reinstall(plugins, tmp_path):
    """The sources' pyproject.toml declares a name the installed metadata lacks (pip's
    direct_url.json says where the package was installed from): the message says to reinstall."""
    plugins("bar-boosting", "bar_boosting", {"bar_majority": "bar_boosting:BarMajority"})
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[project]\nname = "bar-boosting"\n[project.entry-points."boostbench.algorithms"]\n'
        'bar_renamed = "bar_boosting:BarMajority"\n'
    )
    direct_url = {"url": project.as_uri(), "dir_info": {"editable": True}}
    (tmp_path / "bar-boosting-0.3.dist-info" / "direct_url.json").write_text(json.dumps(direct_url))
    expected = (
        f"unknown algorithm 'bar_renamed': the plugin algorithm 'bar_renamed' of package bar-boosting 0.3 is "
        f"declared in {project / 'pyproject.toml'} but not installed: reinstall the package "
        f"({sys.executable} -m pip install -e {project})"
    )
    for ask in (lambda: compose_config(["algorithm=bar_renamed"]), lambda: algorithm_spec("bar_renamed")):
        with pytest.raises(ConfigError) as refused:
            ask()
        assert str(refused.value) == expected


GAMMA_BOOSTER = BOOSTER.replace('"scale": Interval(0.0)', '"scale": Interval(0.0), "gamma": Interval(0.0, 1.0)')
GAMMA_BOOSTER = GAMMA_BOOSTER.replace("*, scale: float = 1.0):", "*, scale: float = 1.0, gamma: float = 0.5):")


def test_a_plugins_own_gamma_is_its_own_and_the_short_form_sets_it(plugins):
    """A plugin with a ``gamma`` of its own: its default stands, ``algorithm.gamma`` is received as
    given, and the short form ``gamma=`` sets that parameter (no top-level value shadows it)."""
    plugins("gamma-boosting", "gamma_boosting", {"gamma_majority": "gamma_boosting:BarMajority"}, GAMMA_BOOSTER)

    def gamma(*overrides):
        run = validate(compose_config(["algorithm=gamma_majority", *overrides]))
        assert "gamma" not in run.resolved  # one owner: the algorithm section
        return run.algorithm["gamma"]

    assert gamma() == 0.5
    assert gamma("algorithm.gamma=0.3") == 0.3
    assert gamma("gamma=0.3") == 0.3


@pytest.mark.slow
def test_a_plugins_gamma_grid_runs_each_value(plugins, tmp_path):
    """A sweep over ``algorithm.gamma`` (or its short form) for a plugin with its own gamma: one key
    per value, each run (not one job and the other skipped as done)."""
    from boostbench.algorithms import algorithm_spec as spec_named
    from boostbench.runner.config import config_hash
    from boostbench.runner.sweep import run_sweep, summarize

    plugins("gamma-boosting", "gamma_boosting", {"gamma_majority": "gamma_boosting:BarMajority"}, GAMMA_BOOSTER)
    spec = spec_named("gamma_majority")
    hashes = {
        config_hash(compose_config(["algorithm=gamma_majority", f"{key}={value}"]), spec)
        for key in ("algorithm.gamma", "gamma")
        for value in (0.05, 0.3)
    }
    assert len(hashes) == 2  # one per value, the short form the same run as the long
    store = tmp_path / "store"
    grid = ["algorithm=gamma_majority", "algorithm.gamma=0.05,0.3", "protocol.max_examples=50", "n_learners=2"]
    assert summarize(run_sweep([*grid, f"results_dir={store}"], n_jobs=1)) == {"done": 2}
    gammas = sorted(json.loads(p.read_text())["config"]["algorithm"]["gamma"] for p in (store / "runs").glob("*.json"))
    assert gammas == [0.05, 0.3]
