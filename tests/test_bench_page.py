"""The stream benchmark's page: the Pareto plots' numbers clear of each other and of the other
points, each algorithm's share of the CPU time, the streams' curves (the drift marked, or left unmarked beyond a
cut-short pass; the y axis fitted where the windows are full),
and the published page's tables naming no exception of the code."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from boostbench.reporting import leaderboard_figures
from boostbench.reporting.reproduction_docs import cpu_shares


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_pareto_plots_numbers_do_not_overlap(seed):
    """A dozen rows within a few hundredths of accuracy and a factor of 1.6 of CPU (our boosters'
    cluster on the stream benchmark), and a dozen spread out."""
    rng = np.random.default_rng(seed)
    names = [f"algorithm_{i} [papers' trees]" for i in range(25)]
    score = np.concatenate([rng.uniform(0.85, 0.87, 12), rng.uniform(0.7, 0.9, 13)])
    cost = np.concatenate([rng.uniform(0.5, 0.8, 12), 10 ** rng.uniform(-1, 2, 13)])
    _, ax, texts, x, y = leaderboard_figures.pareto_figure(
        pd.Series(score, index=names), pd.Series(cost, index=names), "crowded", names
    )
    assert len(texts) == 25
    assert leaderboard_figures.label_overlaps(ax, texts, x, y) == []


def test_label_overlaps_finds_labels_on_each_other():
    from boostbench.reporting import figures

    _, ax = figures.new_figure((4, 3))
    x, y = np.array([1.0, 1.0, 5.0]), np.array([1.0, 1.0, 5.0])
    ax.set(xlim=(0, 6), ylim=(0, 6))
    texts = [ax.text(a, b, "10") for a, b in zip(x, y)]
    found = leaderboard_figures.label_overlaps(ax, texts, x, y)
    assert (0, 1) in found and all(i != 2 and j != 2 for i, j in found)


def test_each_algorithms_share_of_the_cpu_time():
    runs = pd.DataFrame(
        {"algorithm": ["a", "a", "b", "c"], "cpu_s": [1.0, 2.0, np.nan, 6.0], "runtime_s": [9.0, 9.0, 1.0, 9.0]}
    )
    lines = cpu_shares(runs)
    assert lines[2:] == [
        "| c | 1 | 6.0 | 60.0% |",
        "| a | 2 | 3.0 | 30.0% |",
        "| b | 1 | 1.0 | 10.0% |",  # no CPU measured: its wall seconds
        "| total | 4 | 10.0 | 100% |",
    ]


def test_the_not_run_table_names_no_exception_of_the_code(tmp_path):
    from boostbench.reporting import leaderboard

    reasons = [
        "TypeError: '<' not supported between 'NoneType' and 'int' (moa_peers.py:125)",
        "MOA's StreamingGradientBoostedTrees stopped: java.lang.NullPointerException: Cannot invoke x",
        "MOA's ADOB stopped: java.lang.ArrayIndexOutOfBoundsException: Index 3",
    ]
    for reason in reasons:
        text = leaderboard.readable_reason(reason)
        assert not re.search(r"\w+(Error|Exception)\b|java\.|\.py:\d", text), text
        assert "\n" not in text and len(text) <= leaderboard.REASON_CHARS


def test_a_study_pages_not_run_list_holds_its_grids_algorithms_alone(tmp_path):
    """A registered algorithm outside the study's grid (hedge, online_bagging on the stream
    benchmark) is not listed as not run on the study's page; one of the grid without runs is."""
    from boostbench.reporting import leaderboard
    from boostbench.reporting.reproduction_docs import study_grid

    grid = set(study_grid("stream_benchmark")["algorithm"])
    assert {"vfdt", "moa_dems", "river_srp"} <= grid and "hedge" not in grid
    everything = leaderboard.not_run_reasons(tmp_path, {"vfdt"})
    assert {"hedge", "moa_dems"} <= set(everything) and "vfdt" not in everything
    study = leaderboard.not_run_reasons(tmp_path, {"vfdt"}, among=grid)
    assert set(study) == grid - {"vfdt"}
    assert study["moa_dems"] == "not run: " + leaderboard.NO_RUN


def _stream_figure(tmp_path, monkeypatch, overrides: list[str]):
    """The windowed-accuracy figure of a small sea_drift sweep (VFDT and Oza's boosting), its axes
    and caption caught on their way to the files."""
    from boostbench.reporting.leaderboard import online_runs
    from boostbench.reporting.records import load_runs
    from boostbench.runner.sweep import run_sweep, summarize

    grid = ["dataset=sea_drift", "algorithm=vfdt,online_boosting", "n_learners=3", "learner.backend=river"]
    assert summarize(run_sweep([*grid, *overrides, f"results_dir={tmp_path}"], n_jobs=1)) == {"done": 2}
    caught = []
    monkeypatch.setattr(
        leaderboard_figures.figures, "save_figure", lambda fig, stem, caption: caught.append((fig, caption)) or []
    )
    leaderboard_figures.stream_curves(tmp_path, online_runs(load_runs(tmp_path)), tmp_path, "about")
    ((fig, caption),) = caught
    return fig.axes[0], caption


def test_the_stream_figures_mark_the_drift_and_fit_the_full_windows(tmp_path, monkeypatch):
    """The drift shaded and its centre drawn; the y axis from the curves where their window is
    full (a window of the first few examples reads near 0 or 1 and would squeeze the rest)."""
    ax, caption = _stream_figure(
        tmp_path, monkeypatch, ["dataset.n_examples=4000", "dataset.position=2000", "dataset.width=200"]
    )
    assert "the drift centred at example 2,000, 200 examples wide (shaded)" in caption
    assert "the y axis fits the curves from example 1,000 on, where the window is full" in caption
    (span,) = ax.patches
    assert span.get_x() == 1900 and span.get_width() == 200
    curves = [line for line in ax.get_lines() if "seed" in line.get_label()]
    assert len(curves) == 2
    x, y = np.concatenate([c.get_xdata() for c in curves]), np.concatenate([c.get_ydata() for c in curves])
    full, early = y[x >= 1000], y[x < 1000]
    low, high = ax.get_ylim()
    pad = max(0.1 * (full.max() - full.min()), 0.005)
    assert (low, high) == pytest.approx((max(full.min() - pad, 0), min(full.max() + pad, 1)))
    assert early.min() < low or early.max() > high  # the early windows left off the scale


def test_a_drift_beyond_a_cut_short_pass_is_left_unmarked(tmp_path, monkeypatch):
    ax, caption = _stream_figure(tmp_path, monkeypatch, ["protocol.max_examples=3000"])
    assert "the drift, centred at example 50,000, lies beyond the 3,000 examples run" in caption
    assert not ax.patches and all("drift" not in line.get_label() for line in ax.get_lines())
