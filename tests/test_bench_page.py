"""The stream benchmark's page: the Pareto plots' numbers clear of each other and of the other
points, each algorithm's share of the CPU time, a drift beyond a cut-short pass left unmarked,
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
