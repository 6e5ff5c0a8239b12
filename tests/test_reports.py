"""Reports of any store: the summary table and curves, the paper cells' hints, significance."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.reporting import figures, page_check, significance, summary, tables
from boostbench.reporting.records import load_runs
from boostbench.runner.sweep import run_sweep, summarize

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A sweep no paper made: german and balance, N = 3, three seeds, two settings of one booster,
    and one run beside them with a window of 10 (its windowed curves are other curves).
    """
    path = tmp_path_factory.mktemp("store")
    grid = ["dataset=german,balance", "algorithm=online_boosting", "n_learners=3", "seed=0,1,2", f"results_dir={path}"]
    assert summarize(run_sweep(grid, n_jobs=2)).get("done") == 6
    assert (
        summarize(
            run_sweep([*grid[:-1], "algorithm.vote=soft", "dataset=balance", f"results_dir={path}"], n_jobs=2)
        ).get("done")
        == 3
    )
    window = ["dataset=balance", "algorithm=online_boosting", "n_learners=3", "seed=0", "protocol.window=10"]
    assert summarize(run_sweep([*window, f"results_dir={path}"], n_jobs=1)).get("done") == 1
    return path


def test_summary_groups_runs_by_everything_but_the_seed(store):
    runs = load_runs(store)
    assert len(runs) == 10  # every record: the window-10 run is not seed 0's window-1000 run done twice
    frame = summary.summarize(runs)
    assert len(frame) == 4 and set(frame["dataset"]) == {"german", "balance"}
    balance = frame[frame["dataset"] == "balance"].sort_values("variant")
    # the soft vote and the window are other settings, each its own group, said in words
    assert list(balance["variant"]) == [
        "algorithm.vote=hard, protocol.window=10",
        "algorithm.vote=hard, protocol.window=1000",
        "algorithm.vote=soft, protocol.window=1000",
    ]
    assert list(balance["n_seeds"]) == [1, 3, 3] and set(frame["learner"]) == {"papers' trees"}
    for row in frame[frame["n_seeds"] == 3].itertuples():
        values = runs[(runs["dataset"] == row.dataset) & (runs["settings"] == row.settings)]["final_accuracy"]
        assert row.mean == pytest.approx(values.mean()) and row.n_seeds == 3
        low, high = tables.confidence_interval(values.to_numpy())
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high)) and low < row.mean < high
    timing = summary.summarize(runs, "runtime_s")
    assert (timing["metric"] == "runtime_s").all()
    with pytest.raises(KeyError):
        summary.summarize(runs, "nope")


def test_report_all_shows_a_non_paper_sweep_as_table_figures_and_page(store, tmp_path):
    result = runner.invoke(app, ["report", "all", "--results-dir", str(store), "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert len(pd.read_parquet(tmp_path / "runs.parquet")) == 10  # no record dropped
    text = (tmp_path / "tables" / "summary.md").read_text()
    assert "| german | prequential | online_boosting | papers' trees | 3 |" in text
    for name in ("german.prequential.N3.png", "german.prequential.N3.pdf", "balance.prequential.N3.png"):
        assert (tmp_path / "figures" / "summary" / name).stat().st_size > 1000
    # a window (1000) as long as the stream: no windowed-accuracy figure repeating the cumulative one
    assert not (tmp_path / "figures" / "summary" / "german.prequential.N3.windowed_accuracy.png").exists()
    # the window-10 run's windowed curves have a figure of their own, titled with their window
    tens = tmp_path / "figures" / "summary" / "balance.prequential.N3.windowed_kappa.window10.png"
    assert "window 10," in figures.caption_of(tens) + "," and "1 seed" in figures.caption_of(tens)
    thousands = tmp_path / "figures" / "summary" / "balance.prequential.N3.windowed_kappa.window1000.png"
    assert "window 1000 (longer than the stream: cumulative)" in figures.caption_of(thousands)
    assert "groups of runs" in result.output and "online_boosting" in result.output  # the summary on screen
    page = (tmp_path / "summary.html").read_text()
    assert "figures/summary/german.prequential.N3.png" in page
    for part in (
        "<section id='german-prequential'>",
        "id='provenance'",
        "href='runs.parquet'",
        "code fingerprint (this report)",
        "3 seeds.",  # german: one group, its seeds
        "1-3 seeds each.",  # balance: three groups
        "<td>command</td>",
    ):
        assert part in page, part
    assert "1 groups" not in page and "1 seeds" not in page
    assert page_check.problems(tmp_path / "summary.html", page_check.parse(page)) == []
    # no paper cell is filled at N = 100: no paper table of empty cells, and the screen says where the runs are
    assert not (tmp_path / "tables" / "jung2017_table1.md").exists()
    assert "jung2017_table1: no cell filled at N = 100; its runs have N = 3 (--n-learners 3)" in result.output
    assert "jung_tewari2018_table3: no runs of its data sets and algorithms" in result.output
    # asked for by name, the table is written, and its empty cells say where the runs are
    named = runner.invoke(app, ["report", "jung2017_table1", "--results-dir", str(store), "--out-dir", str(tmp_path)])
    assert named.exit_code == 0, named.output
    table1 = (tmp_path / "tables" / "jung2017_table1.md").read_text()
    assert "not run; the store has runs with N = 3 (report --n-learners 3)" in table1
    # nothing to rank (no cell filled at N = 100): no significance file
    assert not (tmp_path / "tables" / "jung2017_table1_significance.md").exists()
    bad = runner.invoke(app, ["report", "summary", "--results-dir", str(store), "--metric", "nope"])
    assert bad.exit_code == 2 and "unknown metric 'nope'" in bad.output


def test_seed_band_is_the_t_interval_per_checkpoint():
    long = pd.DataFrame({"x": [10, 10, 10, 20, 20, 20], "value": [0.5, 0.6, 0.7, 0.8, 0.8, 0.8]})
    band = figures.seed_band(long)
    assert band["mean"].tolist() == pytest.approx([0.6, 0.8])
    # t(0.975, 2) s / sqrt(n), s = 0.1
    assert band["high"].iloc[0] - 0.6 == pytest.approx(4.302653 * 0.1 / np.sqrt(3), rel=1e-5)
    assert (band["low"].iloc[1], band["high"].iloc[1]) == pytest.approx((0.8, 0.8))  # no spread, no band


def test_critical_difference_matches_demsar():
    # Demšar 2006, Table 5(a): q_0.05 = 2.343 (k = 3), 2.569 (4), 2.728 (5)
    for k, q in ((3, 2.343), (4, 2.569), (5, 2.728)):
        assert significance.critical_difference(k, 10) == pytest.approx(q * np.sqrt(k * (k + 1) / 60), abs=2e-3)


def test_the_cd_diagram_needs_a_significant_friedman_test(tmp_path):
    rng = np.random.default_rng(0)
    clear = pd.DataFrame(
        {"a": rng.uniform(0.8, 0.9, 8), "b": rng.uniform(0.6, 0.7, 8), "c": rng.uniform(0.3, 0.4, 8)},
        index=[f"d{i}" for i in range(8)],
    )
    result = significance.friedman(clear, higher_is_better=True)
    assert result["p_value"] < 0.05
    drawn = significance.cd_diagram(clear, True, tmp_path / "cd", "t", result["p_value"])
    assert sorted(p.name for p in drawn) == ["cd.pdf", "cd.png"]
    assert "Nemenyi critical difference 1.17" in significance.to_markdown("t", result)
    latin = pd.DataFrame([[3, 2, 1], [1, 3, 2], [2, 1, 3]], columns=list("abc"), dtype=float)  # equal mean ranks
    flat = significance.friedman(latin, higher_is_better=True)
    assert flat["p_value"] == pytest.approx(1.0)
    assert significance.cd_diagram(latin, True, tmp_path / "none", "t", flat["p_value"]) == []
    assert "no post-hoc test or diagram" in significance.to_markdown("t", flat)
    assert significance.cd_diagram(clear, True, tmp_path / "forced", "t", 0.2) == []


def test_a_paper_cell_shows_cpu_seconds_beside_wall_when_the_runs_measured_them():
    from boostbench.reporting.tables import runtime_text

    assert runtime_text({"runtime_s": 2.04, "cpu_s": 3.96}) == "2.0 s wall, 4.0 s CPU"
    assert runtime_text({"runtime_s": 2.04, "cpu_s": float("nan")}) == "2.0 s"  # records from before cpu_s
    assert runtime_text({"runtime_s": 2.04}) == "2.0 s"


@pytest.mark.parametrize("k", [3, 12, 29])
def test_the_cd_diagrams_labels_clear_of_each_other_and_inside_the_figure(k):
    """The stream benchmark ranks 29 rows with labels such as "moa_ozaboost [MOA's HT defaults,
    MOA's naive Bayes]": every label drawn, none on another, none cut by the figure's edge."""
    rng = np.random.default_rng(k)
    names = [f"algorithm_{i} [MOA's HT defaults, MOA's naive Bayes]" for i in range(k)]
    scores = pd.DataFrame(rng.uniform(0, 1, (12, k)) + np.linspace(0, 1, k), columns=names)
    fig, ax = significance.cd_figure(scores, True, "accuracy", 1e-5)
    renderer = fig._get_renderer()
    labels = [t for t in ax.texts if t.get_text().strip()]
    assert len(labels) == k
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert [(i, j) for i, a in enumerate(boxes) for j in range(i + 1, k) if a.overlaps(boxes[j])] == []
    assert all(fig.bbox.contains(b.x0, b.y0) and fig.bbox.contains(b.x1, b.y1) for b in boxes)
