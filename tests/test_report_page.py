"""What a reader of a report sees: intervals inside the metric's range, captions that state N,
protocol and seeds, the report page whole, and the friction of a first run (a relative
semicolon-separated file, a typo in a group, completion)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from boostbench.cli import _complete_override, _complete_report, app
from boostbench.data.loaders import read_csv_table, sniff_separator
from boostbench.data.registry import locate
from boostbench.errors import ConfigError
from boostbench.reporting import figures, intervals, page_check, summary, tables
from boostbench.runner.config import compose_config

runner = CliRunner()


# -- intervals ---------------------------------------------------------------------------------
def test_an_interval_never_leaves_the_metrics_range():
    accuracies = np.array([0.99, 1.0, 0.62])  # the raw t interval runs to 1.41
    raw = intervals.confidence_interval(accuracies)
    assert raw[1] > 1.0
    low, high = intervals.confidence_interval(accuracies, bounds=intervals.metric_range("final_accuracy"))
    assert (low, high) == pytest.approx((raw[0], 1.0)) and intervals.clipped(accuracies, (0.0, 1.0))
    assert intervals.metric_range("final_kappa") == (-1.0, 1.0)
    assert intervals.metric_range("runtime_s") == (0.0, np.inf)  # a time is not clipped at 1


def test_below_three_seeds_there_is_no_interval_but_n_lt_3():
    two = np.array([0.70, 0.95])
    assert np.isnan(intervals.confidence_interval(two, bounds=(0.0, 1.0))).all()
    assert intervals.interval_text(float("nan"), float("nan"), 2) == "n < 3"
    assert intervals.interval_text(float("nan"), float("nan"), 0) == ""
    assert intervals.interval_text(0.5, 0.75, 3, 2) == "[0.50, 0.75]"


def _runs(values, metric="final_accuracy", dataset="car", algorithm="adaboost_olm", n=100):
    return pd.DataFrame(
        {
            "dataset": dataset,
            "protocol": "prequential",
            "algorithm": algorithm,
            "learner": "hoeffding_tree",
            "trees": "papers' trees",
            "settings_items": "{}",
            "n_learners": n,
            "gamma": np.nan,
            "preset": "paper",
            "settings": tables.expected_settings(dataset, algorithm, "paper"),
            "seed": range(len(values)),
            metric: values,
            "runtime_s": 1.0,
            "code": "abc",
            "peak_rss_bytes": 2**20,
        }
    )


def test_the_summary_clips_and_marks_its_intervals():
    frame = summary.summarize(_runs([0.99, 1.0, 0.62]))
    row = next(frame.itertuples())
    assert row.ci_high == 1.0 and row.clipped and intervals.interval_cell(row).endswith("*")
    two = next(summary.summarize(_runs([0.9075 - 0.2, 0.9075 + 0.2])).itertuples())  # the car, 2 seeds
    assert np.isnan(two.ci_low) and intervals.interval_cell(two) == "n < 3"


def test_seed_bands_stay_in_range_and_need_three_seeds():
    long = pd.DataFrame({"x": [10] * 3 + [20] * 2, "value": [0.99, 1.0, 0.62, 0.5, 0.9]})
    band = figures.seed_band(long, (0.0, 1.0))
    assert band["high"].max() <= 1.0
    assert (band["low"].iloc[1], band["high"].iloc[1]) == pytest.approx((0.7, 0.7))  # two seeds: the mean only


# -- paper tables ------------------------------------------------------------------------------
def test_a_paper_table_at_another_n_says_so_and_flags_nothing():
    runs = _runs([0.5, 0.52, 0.51], n=10)  # far from the paper's 0.930 (N = 100)
    frame = tables.rebuild("jung2017_table1", runs, n_learners=10)
    cell = frame[(frame["dataset"] == "cars") & (frame["column"] == "adaboost_olm")].iloc[0]
    assert not cell["flagged"] and "N = 10 (paper 100): not compared" in cell["note"]
    caption = tables.caption("jung2017_table1", frame)
    assert "N = 10 weak learners (the paper's: 100; cells not compared)" in caption
    assert "prequential protocol" in caption and "3 seeds per cell" in caption
    markdown = tables.to_markdown("jung2017_table1", frame)
    assert markdown.startswith(f"### {caption}") and "⚑" not in markdown.split("| cars |")[1].splitlines()[0]
    assert tables.to_latex("jung2017_table1", frame).startswith(f"% {caption}")
    at_100 = tables.rebuild("jung2017_table1", _runs([0.5, 0.52, 0.51]))
    assert at_100[(at_100["dataset"] == "cars") & (at_100["column"] == "adaboost_olm")]["flagged"].item()


# -- figures -----------------------------------------------------------------------------------
def test_the_y_axis_holds_the_start_of_the_mean_curve():
    _, ax = figures.new_figure((4, 3))
    ax.plot(np.arange(100), np.r_[0.2, np.full(99, 0.9)])  # a low start, then settled
    figures.fit_y(ax)
    low, high = ax.get_ylim()
    assert low <= 0.2 and high >= 0.9 and high <= 1.0


def test_figure_titles_name_the_metric_and_a_window_longer_than_the_stream():
    group = pd.DataFrame(
        {
            "algorithm": "a",
            "trees": "papers' trees",
            "gamma": np.nan,
            "preset": "paper",
            "variant": "",
            "seed": [0, 1, 2],
            "window": 1000,
            "x": 625,
        }
    )
    titles = {
        m: summary.figure_caption("balance", "prequential", 3, m, group)
        for m in ("cumulative_accuracy", "windowed_accuracy", "windowed_kappa")
    }
    assert len(set(titles.values())) == 3 and "3 seeds" in titles["windowed_kappa"]
    assert "window 1000 (longer than the stream: cumulative)" in titles["windowed_kappa"]


# -- the page ----------------------------------------------------------------------------------
def test_report_check_finds_broken_links_images_and_empty_tables(tmp_path):
    check = page_check
    (tmp_path / "t.csv").write_text("a\n1\n")
    good = (
        "<h2 id='x'>x</h2><a href='t.csv'>t</a><a href='#x'>x</a><table><tr><td>1</td></tr></table>"
        "<img src='data:image/png;base64,iVBORw0KGgo='>"
    )
    path = tmp_path / "page.html"
    assert check.problems(path, check.parse(good)) == []
    bad = "<a href='missing.csv'>m</a><a href='#nowhere'>n</a><img src='gone.png'><table><tr></tr></table>"
    found = " ".join(check.problems(path, check.parse(bad)))
    for text in (
        "broken link: missing.csv",
        "missing anchor: #nowhere",
        "broken image: 'gone.png'",
        "table 1 has no cells",
    ):
        assert text in found


# -- friction ----------------------------------------------------------------------------------
ROWS = [f"{i % 5};{(i * 7) % 11};{'yes' if i % 3 else 'no'}" for i in range(40)]


def test_the_separator_is_sniffed(tmp_path):
    for sep in (";", "\t", ",", "|"):
        path = tmp_path / "data.csv"
        path.write_text(sep.join(["a", "b", "label"]) + "\n" + "\n".join(r.replace(";", sep) for r in ROWS) + "\n")
        assert sniff_separator(path) == sep
        raw = read_csv_table(path, sep=None, header=True)
        assert list(raw.frame.columns) == ["a", "b", "label"] and len(raw.frame) == 40


def test_a_relative_semicolon_file_runs_from_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.csv").write_text("a;b;label\n" + "\n".join(ROWS) + "\n")
    assert locate("mine.csv", None) == tmp_path / "mine.csv"
    args = [
        "run",
        "dataset=csv",
        "dataset.file=mine.csv",
        "dataset.class_column=label",
        "algorithm=vfdt",
        "results_dir=results",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "results" / "runs").rglob("*.json"))) == 1
    typed = runner.invoke(app, [*args, "dataset.sep=;", "seed=1"])  # as the shell passes dataset.sep=';'
    assert typed.exit_code == 0, typed.output


def test_a_wrong_separator_gets_a_hint(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a;b;label\n" + "\n".join(ROWS) + "\n")
    result = runner.invoke(
        app,
        [
            "run",
            "dataset=csv",
            f"dataset.file={path}",
            "dataset.class_column=label",
            "dataset.sep=,",
            "algorithm=vfdt",
            f"results_dir={tmp_path / 'results'}",
        ],
    )
    assert result.exit_code == 2 and "semicolon-separated: dataset.sep=';'" in " ".join(result.output.split())


def test_a_separator_hydra_reserves_works_as_typed():
    assert compose_config(["dataset=csv", "dataset.sep=;"]).dataset.sep == ";"
    assert compose_config(["dataset=csv", "dataset.sep=|"]).dataset.sep == "|"


def test_a_mistyped_group_gets_a_did_you_mean():
    with pytest.raises(ConfigError, match="did you mean 'dataset'"):
        compose_config(["datset=car"])
    with pytest.raises(ConfigError, match="unknown dataset 'carr' \\(did you mean 'car'"):
        compose_config(["dataset=carr"])
    compose_config(["seed=3", "data_dir=/tmp"])  # real keys close to a group are left alone


def test_completion_covers_experiments_protocol_keys_and_reports():
    assert "+experiment=smoke" in _complete_override("+experiment=sm")
    assert "protocol.window=" in _complete_override("protocol.win")
    assert "protocol.final_fraction=" in _complete_override("protocol.")
    assert set(_complete_report("jung")) == {"jung2017_table1", "jung_tewari2018_table3"}
    assert "summary" in _complete_report("") and "all" in _complete_report("")
