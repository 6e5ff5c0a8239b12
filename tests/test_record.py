"""The run record (boostbench.runner.record) and the registry of measures (boostbench.measures):
a store written by main 4a3cff3 reads back with its numbers and keys, every record names its
schema version, each measure is checked against its domain, and the reports read the registry.
"""

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boostbench import measures
from boostbench.cli import app
from boostbench.reporting import intervals, leaderboard, summary
from boostbench.reporting.records import load_runs
from boostbench.runner import record as record_module
from boostbench.runner import store
from boostbench.runner.record import SCHEMA_VERSION, RunRecord, migrate, schema_problem

runner = CliRunner()
#: Records a small sweep on main 4a3cff3 wrote (before schema versions): prequential (two seeds,
#: one with a fading factor and a label delay, one of a single example), prequential_cv (vfdt and
#: online_boosting on balance and car), kfold, holdout and train_test
OLD_STORE = Path(__file__).parent / "data" / "store_4a3cff3"


@pytest.fixture
def old_store(tmp_path) -> Path:
    shutil.copytree(OLD_STORE, tmp_path / "store")
    return tmp_path / "store"


def _raw(path: Path) -> dict:
    return json.loads(path.read_text())


def test_a_store_of_4a3cff3_reads_back_with_its_numbers_and_keys(old_store):
    paths = sorted((old_store / "runs").glob("*.json"))
    errors = []
    read = list(store.iter_records(old_store, on_error=errors.append))
    assert errors == [] and len(read) == len(paths) == 13
    for path, record in zip(paths, read):
        raw = _raw(path)
        assert "schema_version" not in raw and record.schema_version == 1  # no version: version 1
        assert record.metrics == raw["metrics"] and record.curve == raw["curve"] and record.config == raw["config"]
        assert record.config_hash == raw["config_hash"] and record.key == path.stem  # its hash and key stay
        assert {k: v for k, v in record.to_dict().items() if k != "schema_version"} == raw
    protocols = {r.config["protocol"]["name"] for r in read}
    assert protocols == {"prequential", "prequential_cv", "kfold", "holdout", "train_test"}
    runs = load_runs(old_store)
    assert len(runs) == 13 and set(runs["schema_version"]) == {1}
    cv = runs[runs["protocol"] == "prequential_cv"]
    assert len(cv) == 4 and cv["final_accuracy_ci_low"].notna().all()  # its interval over the copies


def test_every_record_names_its_schema_version_and_migrates_from_each_earlier_one():
    assert set(record_module.MIGRATIONS) == set(range(1, SCHEMA_VERSION))  # one migration per version
    raw = _raw(next((OLD_STORE / "runs").glob("*.json")))
    assert migrate(raw)["schema_version"] == 1 and migrate({**raw, "schema_version": 2})["schema_version"] == 2
    assert schema_problem({**raw, "schema_version": SCHEMA_VERSION + 1}).endswith(
        f"written by a newer boostbench (this one reads up to {SCHEMA_VERSION})"
    )
    assert "not a version" in schema_problem({**raw, "schema_version": "2"})
    assert RunRecord.parse({**raw, "schema_version": 2}).schema_version == 2


def test_the_schema_is_the_types():
    raw = _raw(next((OLD_STORE / "runs").glob("*.json")))
    assert schema_problem({k: v for k, v in raw.items() if k != "config_hash"}) == "its config_hash is missing"
    assert schema_problem({**raw, "code": 7}) == "its code is not a string"
    assert schema_problem({**raw, "dataset": [1]}) == "its dataset is not a mapping"
    assert schema_problem({**raw, "dataset": None}) is None  # optional
    # a per-fold list of any measure of the registry, a kappa undefined in one fold
    metrics = {"fold_final_kappa": [0.5, None], "fold_cumulative_accuracy": [0.8, 0.7], "final_kappa_ci_high": 1.3}
    assert schema_problem({**raw, "metrics": metrics}) is None
    assert "not a list of numbers" in schema_problem({**raw, "metrics": {"fold_final_accuracy": 0.8}})
    # a plugin's own measure: a number, no domain
    assert schema_problem({**raw, "metrics": {"final_acme_score": 12.0}}) is None


def test_a_forged_record_with_a_valid_hash_is_refused_and_the_summary_still_made(tmp_path, old_store):
    path = next(p for p in sorted((old_store / "runs").glob("*.json")) if _raw(p)["metrics"].get("fading_accuracy"))
    raw = _raw(path)
    path.write_text(json.dumps({**raw, "metrics": {**raw["metrics"], "final_accuracy": 7.5}}))
    with pytest.raises(Exception, match=r"metric final_accuracy is 7.5, outside \[0, 1\]"):
        store.read_record(old_store, path.stem)
    for other in (old_store / "runs").glob("*.json"):  # the one-example run and a normal one stay
        if other != path and _raw(other)["config"]["protocol"]["name"] not in ("prequential",):
            other.unlink()
    result = runner.invoke(app, ["report", "summary", "--results-dir", str(old_store), "--out-dir", str(tmp_path)])
    flat = " ".join(result.output.split())
    assert result.exit_code == 0, result.output
    assert flat.count("skipped:") == 1 and "final_accuracy is 7.5, outside [0, 1]" in flat
    assert (tmp_path / "summary.html").exists()


def test_each_measure_a_record_holds_is_in_the_registry_with_its_kind_and_domain(old_store):
    for record in store.iter_records(old_store):
        for name, value in record.metrics.items():
            found = measures.lookup(name)
            assert found is not None, f"{name} is not in the registry of measures"
            assert found.kind == ("per_fold" if isinstance(value, list) else "scalar"), name
        for name in record.curve:
            assert name in measures.CURVE_AXES or measures.curve(name) is not None, name
    assert measures.lookup("fold_cumulative_accuracy").kind == "per_fold"
    assert measures.lookup("final_accuracy_ci_low").domain == measures.ANY  # a t interval runs past [0, 1]
    assert measures.domain("final_kappa_m") == (-float("inf"), 1.0) and measures.positive("ram_hours")
    assert measures.higher_is_better("test_rank_loss") is False and measures.higher_is_better("n_examples") is None


def test_a_report_reads_each_record_once(old_store, tmp_path, monkeypatch):
    parsed = []
    parse = RunRecord.parse.__func__
    monkeypatch.setattr(
        RunRecord, "parse", classmethod(lambda cls, data, path=None: parsed.append(path) or parse(cls, data, path))
    )
    runs = load_runs(old_store)
    with store.remembered():
        load_runs(old_store)
        from boostbench.reporting import figures

        figures.curves(old_store, runs)
        figures.curves(old_store, runs)
    n = len(list((old_store / "runs").glob("*.json")))
    assert len(parsed) == 2 * n  # once without remembering, once within
    assert len(set(parsed[n:])) == n


def test_summary_metric_reads_the_registry(old_store, tmp_path):
    def report(*args):
        return runner.invoke(
            app, ["report", "summary", "--results-dir", str(old_store), "--out-dir", str(tmp_path), *args]
        )

    for path in (old_store / "runs").glob("*.json"):  # a small store: the fading run and one other
        if "fading_accuracy" not in _raw(path)["metrics"] and _raw(path)["config"]["protocol"]["name"] != "kfold":
            path.unlink()
    fading = report("--metric", "fading_accuracy")
    assert fading.exit_code == 0, fading.output
    assert "fading_accuracy" in fading.output
    folds = report("--metric", "fold_final_accuracy")
    assert folds.exit_code == 2 and "is one value per fold: its mean is 'final_accuracy'" in " ".join(
        folds.output.split()
    )
    typo = report("--metric", "fading_acuracy")
    assert typo.exit_code == 2 and "did you mean 'fading_accuracy'" in " ".join(typo.output.split())
    absent = report("--metric", "test_rank_loss")
    assert absent.exit_code == 2 and "no run of the store has metric 'test_rank_loss'" in " ".join(
        absent.output.split()
    )


def test_a_prequential_cv_sweep_over_two_algorithms_and_two_data_sets_is_ranked(old_store):
    runs = load_runs(old_store)
    cv = runs[runs["protocol"] == "prequential_cv"]
    board = leaderboard.build(old_store, cv)
    accuracy = board.tables["accuracy"]
    assert len(accuracy) == 2 and list(accuracy["n_datasets"]) == [2, 2]
    assert accuracy["mean_rank"].sum() == 3.0 and board.tests["accuracy"]["n_datasets"] == 2
    expected = cv.groupby("algorithm")["final_accuracy"].mean()
    by_row = dict(zip(accuracy["algorithm"].str.split().str[0], accuracy["mean"]))
    assert by_row == pytest.approx(expected.to_dict())
    assert "cumulative accuracy" in board.tables  # every scalar cumulative_* measure is ranked too


def test_a_run_of_one_seed_shows_its_interval_over_folds(old_store):
    from boostbench.metrics import fold_summary

    runs = load_runs(old_store)
    frame = summary.summarize(runs).set_index(["protocol", "algorithm", "dataset"])
    cv = frame.loc[("prequential_cv", "vfdt", "car")]
    raw = next(
        r
        for r in store.iter_records(old_store)
        if r.config["protocol"]["name"] == "prequential_cv"
        and r.config["algorithm"]["name"] == "vfdt"
        and r.config["dataset"]["name"] == "car"
    )
    assert cv["interval_over"] == "folds" and cv["n_seeds"] == 1
    assert cv["mean"] == raw.metrics["final_accuracy"]
    assert (cv["ci_low"], cv["ci_high"]) == (
        raw.metrics["final_accuracy_ci_low"],
        min(1.0, raw.metrics["final_accuracy_ci_high"]),
    )
    kfold = frame.loc[("kfold", "adaboost_m1", "heart")]
    folds = next(r for r in store.iter_records(old_store) if r.config["protocol"]["name"] == "kfold").metrics
    _, low, high = fold_summary(folds["fold_test_error"])
    assert kfold["interval_over"] == "folds" and (kfold["ci_low"], kfold["ci_high"]) == pytest.approx((low, high))
    assert intervals.interval_cell(next(frame.loc[[("kfold", "adaboost_m1", "heart")]].itertuples())).endswith(
        "over folds"
    )
    # several seeds: over seeds, as before
    assert set(frame.loc[("prequential", "vfdt", "balance")]["interval_over"]) == {"seeds"}


def test_a_curve_undefined_at_every_checkpoint_draws_nothing_and_raises_nothing():
    import pandas as pd

    from boostbench.reporting import figures

    one = pd.DataFrame({"x": [1], "value": [float("nan")], "metric": "cumulative_kappa_m", "seed": 0})
    assert figures.seed_band(one).empty and figures.seed_band(one).dtypes.eq(float).all()
    _, ax = figures.new_figure((3, 2))
    figures.plot_band(ax, one, "vfdt")  # a one-example run's kappa-M: undefined
    figures.style_legend(ax)
    assert ax.get_lines() == []
    point = one.assign(value=[0.0], metric="cumulative_accuracy")
    figures.plot_band(ax, point, "vfdt")
    assert len(ax.get_lines()) == 1 and ax.get_lines()[0].get_marker() == "o"  # one checkpoint: a point
