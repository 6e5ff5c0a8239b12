"""The leaderboard of a store of multi-label runs: its rows ranked on the rank loss (lower is
better) first, then the other multi-label measures and the cost, with the same tests (Friedman,
Wilcoxon-Holm, the Bayesian one on the rank loss), the Pareto plots against CPU seconds with
the front of the lower rank loss, and the multi-label algorithms without runs said; a store with
multiclass runs keeps the multiclass board.
"""

import json

import numpy as np
import pandas as pd
import pytest

from boostbench.multilabel_metrics import MEASURES
from boostbench.reporting import leaderboard
from boostbench.reporting.figures import caption_of

# (algorithm, trees, rank loss, CPU s): a clear order, ours on the multi-label trees
ROWS = (
    ("ada_olmr", "papers' trees", 0.15, 4.0),
    ("online_bmr", "papers' trees", 0.18, 3.0),
    ("river_binary_relevance", "river's HT defaults, one per label", 0.22, 1.0),
    ("moa_ozabag_ml", "MOA's multi-label HT defaults", 0.40, 2.0),
)


def _runs(with_multiclass: bool = False) -> pd.DataFrame:
    rows = []
    for d, dataset in enumerate(["emotions", "scene", "yeast", "x4", "x5"]):
        for seed in (0, 1):
            for algorithm, trees, loss, cpu in ROWS:
                row = {
                    "dataset": dataset,
                    "algorithm": algorithm,
                    "trees": trees,
                    "tree_kind": trees.replace("river's ", "").replace("MOA's ", ""),
                    "protocol": "train_test",
                    "seed": seed,
                    "n_learners": 5,
                    "gamma": np.nan,
                    "preset": "paper",
                    "cpu_s": cpu * (1 + d),
                    "ram_hours": cpu * 1e-8,
                }
                for m in MEASURES:  # each measure ordered as the rank loss is (better rows better everywhere)
                    value = loss + 0.01 * d + 0.001 * seed
                    row[f"test_{m.name}"] = value if not m.higher_is_better else 1.0 - value
                rows.append(row)
    if with_multiclass:
        rows.append(
            {**rows[0], "algorithm": "vfdt", "protocol": "prequential", "final_accuracy": 0.8, "trees": "papers' trees"}
        )
    frame = pd.DataFrame(rows)
    for metric in ("final_accuracy", "final_kappa_m", "final_kappa_t"):  # as records.load_runs has every column
        frame[metric] = frame.get(metric, np.nan)
    frame["settings_items"] = [
        json.dumps({"dataset.name": d, "algorithm.name": a}, sort_keys=True)
        for d, a in zip(frame["dataset"], frame["algorithm"])
    ]
    frame["key"] = [f"k{i}" for i in range(len(frame))]
    return frame


def test_a_multilabel_store_is_ranked_on_the_rank_loss_first(tmp_path):
    board = leaderboard.build(tmp_path, _runs())
    assert board.task == "multilabel" and board.primary == "rank loss"
    titles = [m.title for m in board.measures]
    assert titles[:6] == [m.title for m in MEASURES] and titles[6:] == ["CPU s", "RAM-hours"]
    assert board.measures[0].metric == "test_rank_loss" and not board.measures[0].higher_is_better
    ranked = board.tables["rank loss"]
    assert list(ranked["algorithm"]) == [
        "ada_olmr [papers' trees]",
        "online_bmr [papers' trees]",
        "river_binary_relevance [river's HT defaults, one per label]",
        "moa_ozabag_ml [MOA's multi-label HT defaults]",
    ]
    assert list(ranked["mean_rank"]) == [1.0, 2.0, 3.0, 4.0]
    assert ranked["mean"].iloc[0] == pytest.approx(0.15 + 0.02 + 0.0005)
    for title in ("Hamming loss", "subset accuracy", "macro-F1"):  # the same order, whatever the direction
        assert list(board.tables[title]["mean_rank"]) == [1.0, 2.0, 3.0, 4.0]
    assert board.tests["rank loss"]["p_value"] < 0.05
    assert set(board.bayesian) == {"rank loss"}
    pair = (
        board.bayesian["rank loss"]
        .set_index(["a", "b"])
        .loc[("ada_olmr [papers' trees]", "moa_ozabag_ml [MOA's multi-label HT defaults]")]
    )
    assert pair["verdict"] == "a better"
    assert set(board.equal_trees) == {"papers' trees"}  # ours alone share their trees
    # the multi-label algorithms without runs, not the multiclass ones
    assert "river_classifier_chain" in board.not_run and "moa_isoup_tree" in board.not_run
    assert "vfdt" not in board.not_run and "ada_olmr" not in board.not_run


def test_a_multilabel_boards_files_and_pareto_plots(tmp_path):
    _, written = leaderboard.write(tmp_path, tmp_path, _runs())
    names = {p.name for p in written}
    for name in (
        "cd_test_rank_loss.png",
        "wilcoxon_test_rank_loss.png",
        "bayesian_test_rank_loss.png",
        "pareto_emotions.png",
    ):
        assert name in names, name
    caption = caption_of(tmp_path / "figures" / "leaderboard" / "pareto_emotions.png")
    assert caption.startswith("emotions: test-part rank loss against CPU seconds of 4 rows")
    assert "N = 5, train_test" in caption
    text = (tmp_path / "tables" / "leaderboard.md").read_text()
    assert "## rank loss (lower is better)" in text and "## Boosters at equal trees (rank loss)" in text
    assert "ROPE) of ±0.01 in rank loss" in text


def test_the_pareto_front_of_a_lower_is_better_measure():
    from boostbench.reporting import leaderboard_figures

    cost, loss = np.array([2.0, 1.0, 0.1, 5.0]), np.array([0.1, 0.2, 0.3, 0.4])
    assert list(leaderboard_figures.pareto_front(cost, -loss)) == [2, 1, 0]


def test_a_store_with_multiclass_runs_keeps_the_multiclass_board(tmp_path):
    board = leaderboard.build(tmp_path, _runs(with_multiclass=True))
    assert board.task == "multiclass" and "accuracy" in board.tables and "rank loss" not in board.tables
