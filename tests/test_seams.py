"""The seams between the runner, the store and the reports: every protocol and every task written
into one store, then every report over it, and no record skipped, no measure refused.
"""

import json

import pytest
from typer.testing import CliRunner

from boostbench import measures
from boostbench.cli import app
from boostbench.reporting import summary
from boostbench.reporting.console import metric_problem
from boostbench.reporting.records import load_runs
from boostbench.reporting.report import REPORTS
from boostbench.runner.record import SCHEMA_VERSION

runner = CliRunner()
_STREAM = ["dataset=balance", "n_learners=2", "protocol.max_examples=90"]
#: One run per protocol, variant of the prequential pass and task: (what, overrides)
RUNS = (
    ("prequential", [*_STREAM, "algorithm=online_boosting"]),
    ("prequential, another algorithm", [*_STREAM, "algorithm=vfdt"]),
    ("prequential_cv", [*_STREAM, "algorithm=online_boosting", "protocol=prequential_cv", "protocol.n_folds=3"]),
    ("fading", [*_STREAM, "algorithm=online_boosting", "protocol.fading=0.99"]),
    ("windowed", [*_STREAM, "algorithm=online_boosting", "protocol.window=10"]),
    ("delayed labels", [*_STREAM, "algorithm=online_boosting", "protocol.delay=3"]),
    ("one example", [*_STREAM, "algorithm=vfdt", "protocol.max_examples=1"]),
    ("holdout, batch", ["dataset=heart", "algorithm=adaboost_m1", "learner=tree", "n_rounds=3", "protocol=holdout"]),
    ("kfold, batch", ["dataset=heart", "algorithm=adaboost_m1", "learner=tree", "n_rounds=3", "protocol=kfold"]),
    ("kfold, online", ["dataset=balance", "algorithm=vfdt", "protocol=kfold", "protocol.n_splits=3"]),
    (
        "train_test, multi-label on the MULAN split",
        ["dataset=emotions", "algorithm=ada_olmr", "learner=hoeffding_tree_mlr", "n_learners=2", "protocol=train_test"],
    ),
)


@pytest.mark.slow
def test_every_protocol_and_task_in_one_store_is_reported_by_every_report(tmp_path):
    from boostbench.runner.config import compose_config
    from boostbench.runner.experiment import run_experiment, save

    store = tmp_path / "store"
    for _, overrides in RUNS:
        save(run_experiment(compose_config([*overrides, f"results_dir={store}"])), str(store))
    written = [json.loads(p.read_text()) for p in sorted((store / "runs").glob("*.json"))]
    assert len(written) == len(RUNS)
    for record in written:
        assert record["schema_version"] == SCHEMA_VERSION  # every record names its version
        unknown = [name for name in record["metrics"] if measures.lookup(name) is None]
        assert not unknown, f"{record['config']['protocol']['name']} writes measures the registry lacks: {unknown}"
    runs = load_runs(store)  # raises on a record it cannot read
    assert len(runs) == len(RUNS)
    assert set(runs["protocol"]) == {"prequential", "prequential_cv", "holdout", "kfold", "train_test"}
    # every scalar final_*, fading_* and cumulative_* measure the records hold can be summarized
    held = {name for record in written for name, value in record["metrics"].items() if not isinstance(value, list)}
    for metric in sorted(n for n in held if n.startswith(measures.SUMMARIZED_PREFIXES)):
        assert metric_problem(metric, runs) is None, metric
        frame = summary.summarize(runs, metric)
        assert frame["mean"].notna().any(), metric
    out = tmp_path / "out"
    for report in ["all", "summary", "leaderboard", *REPORTS]:
        result = runner.invoke(app, ["report", report, "--results-dir", str(store), "--out-dir", str(out)])
        assert result.exit_code == 0, (report, result.output)
        assert "skipped:" not in result.output and "Traceback" not in result.output, (report, result.output)
    shown = (out / "tables" / "summary.md").read_text()
    for protocol in ("prequential_cv", "kfold", "holdout", "train_test"):
        assert f"| {protocol} |" in shown, protocol
    ranked = (out / "tables" / "leaderboard.csv").read_text()
    assert "protocol.name=prequential_cv" in ranked and "fading accuracy" in ranked


def test_a_whole_pass_or_fading_measure_is_titled_as_its_final_part_one():
    """The leaderboard heads a section with the measure's title: "cumulative kappa-M" beside
    "kappa-M", not the column's name in words.
    """
    for name in measures.MEASURES:
        for prefix in ("cumulative_", "fading_"):
            final = "final_" + name.removeprefix(prefix)
            if name.startswith(prefix) and final in measures.MEASURES:
                expected = f"{prefix.rstrip('_')} {measures.title(final)}"
                assert measures.title(name) == expected, (name, measures.title(name))
