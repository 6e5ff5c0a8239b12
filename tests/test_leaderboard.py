"""The leaderboard: rows named after their weak learners, intervals that respect their measure,
the pairwise tests against scipy's, scikit-posthocs' and baycomp's own outputs, the boosters at
equal trees, the figures, and the reasons of the runs missing.
"""

import json

import baycomp
import numpy as np
import pandas as pd
import pytest
import scikit_posthocs as sp
from rich.console import Console
from scipy import stats
from statsmodels.stats.multitest import multipletests
from typer.testing import CliRunner

from boostbench.cli import app
from boostbench.reporting import leaderboard, leaderboard_figures, leaderboard_text, pairwise
from boostbench.reporting.figures import caption_of

# scores of 4 algorithms on 8 data sets (a clear order with noise), fixed
SCORES = pd.DataFrame(
    {
        "a": [0.91, 0.85, 0.78, 0.88, 0.95, 0.70, 0.82, 0.90],
        "b": [0.90, 0.86, 0.75, 0.85, 0.93, 0.69, 0.80, 0.88],
        "c": [0.80, 0.78, 0.70, 0.79, 0.90, 0.60, 0.75, 0.81],
        "d": [0.905, 0.851, 0.779, 0.879, 0.951, 0.699, 0.821, 0.899],
    },
    index=[f"d{i}" for i in range(8)],
)


def test_wilcoxon_holm_is_scipys_test_with_holms_correction():
    table = pairwise.wilcoxon_holm(SCORES, higher_is_better=True)
    assert list(zip(table["a"], table["b"])) == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    raw = [stats.wilcoxon(SCORES[a], SCORES[b]).pvalue for a, b in zip(table["a"], table["b"])]
    assert table["p_value"].to_numpy() == pytest.approx(raw)
    assert table["p_holm"].to_numpy() == pytest.approx(multipletests(raw, method="holm")[1])
    # scikit-posthocs' all-pairs Wilcoxon with Holm's correction gives the same matrix
    matrix = sp.posthoc_wilcoxon(SCORES.to_numpy().T.tolist(), p_adjust="holm")
    matrix.index = matrix.columns = SCORES.columns
    assert table["p_holm"].to_numpy() == pytest.approx([matrix.loc[a, b] for a, b in zip(table["a"], table["b"])])
    by_pair = table.set_index(["a", "b"])
    assert by_pair.loc[("a", "c"), "verdict"] == "a better" and by_pair.loc[("a", "c"), "wins"] == 8
    assert by_pair.loc[("c", "d"), "verdict"] == "b better"  # c loses on every data set
    assert by_pair.loc[("a", "d"), "mean_difference"] == pytest.approx((SCORES["a"] - SCORES["d"]).mean())
    # a lower-is-better measure: the same pairs, the verdicts turned round, the difference in its units
    lower = pairwise.wilcoxon_holm(-SCORES, higher_is_better=False).set_index(["a", "b"])
    assert lower.loc[("a", "c"), "verdict"] == "a better" and lower.loc[("a", "c"), "mean_difference"] == pytest.approx(
        -(SCORES["a"] - SCORES["c"]).mean()
    )
    assert lower["p_holm"].to_numpy() == pytest.approx(by_pair["p_holm"].to_numpy())


def test_wilcoxon_holm_pairs_each_on_the_data_sets_both_ran_and_says_when_nothing_differs():
    gappy = SCORES.copy()
    gappy.loc["d0", "c"] = np.nan
    table = pairwise.wilcoxon_holm(gappy, True).set_index(["a", "b"])
    assert table.loc[("a", "c"), "n_datasets"] == 7 and table.loc[("a", "b"), "n_datasets"] == 8
    assert table.loc[("a", "c"), "p_value"] == pytest.approx(stats.wilcoxon(SCORES["a"][1:], SCORES["c"][1:]).pvalue)
    same = pd.DataFrame({"x": [0.5, 0.6, 0.7], "y": [0.5, 0.6, 0.7]})
    row = pairwise.wilcoxon_holm(same, True).iloc[0]
    assert row["p_value"] == 1.0 and row["verdict"] == "no difference shown"


def test_bayesian_signed_rank_is_baycomps():
    table = pairwise.bayesian_signed_rank(SCORES, higher_is_better=True, rope=0.01)
    for row in table.itertuples():
        expected = baycomp.SignedRankTest.probs(
            SCORES[row.a].to_numpy(),
            SCORES[row.b].to_numpy(),
            0.01,
            nsamples=pairwise.BAYES_SAMPLES,
            random_state=pairwise.BAYES_SEED,
        )
        assert (row.p_a_better, row.p_rope, row.p_b_better) == pytest.approx(expected)
        assert row.p_a_better + row.p_rope + row.p_b_better == pytest.approx(1.0)
    by_pair = table.set_index(["a", "b"])
    assert by_pair.loc[("a", "c"), "verdict"] == "a better"  # 5 to 10 points better everywhere
    assert by_pair.loc[("a", "d"), "verdict"] == "equivalent"  # within a tenth of a point everywhere
    # the ROPE is a parameter: none at all leaves no room for "equivalent"
    assert pairwise.bayesian_signed_rank(SCORES[["a", "d"]], True, rope=0.0)["p_rope"].iloc[0] == 0.0


def _runs(rows: list[dict]) -> pd.DataFrame:
    """A tidy runs frame (as records.load_runs gives) of prequential runs at N = 10."""
    frame = pd.DataFrame(
        [{"protocol": "prequential", "n_learners": 10, "gamma": np.nan, "preset": "paper", **r} for r in rows]
    )
    peer = frame["algorithm"].str.startswith("river_")
    frame["trees"] = np.where(peer, "river's HT defaults", frame.get("trees", "papers' trees"))
    frame["tree_kind"] = frame["trees"].str.replace("river's ", "", regex=False)
    frame["settings_items"] = [
        json.dumps({"dataset.name": d, "algorithm.name": a}, sort_keys=True)
        for d, a in zip(frame["dataset"], frame["algorithm"])
    ]
    frame["key"] = [f"k{i}" for i in range(len(frame))]
    return frame


def _bench_rows() -> list[dict]:
    rows = []
    for d, dataset in enumerate(["a", "b", "c", "d"]):
        for seed in (0, 1):
            for algorithm, trees, accuracy, cpu in (
                ("adaboost_olm", "papers' trees", 0.9, 2.0),
                ("adaboost_olm", "HT defaults", 0.85, 3.0),
                ("online_boosting", "HT defaults", 0.8, 1.0),
                ("vfdt", "papers' trees", 0.7, 0.1),
                ("river_adaboost", "", 0.6, 5.0),
            ):
                if (algorithm, dataset) == ("river_adaboost", "d"):
                    continue  # a gap, whose failed job says why
                rows.append(
                    {
                        "dataset": dataset,
                        "algorithm": algorithm,
                        "trees": trees,
                        "seed": seed,
                        "final_accuracy": accuracy + 0.01 * d + 0.001 * seed,
                        "final_kappa_m": accuracy - 0.5,
                        "final_kappa_t": np.nan,
                        "final_fading_error": 1 - accuracy,  # a measure added after the reports
                        "final_window_examples": 100,  # a count, not a measure to rank
                        "cpu_s": cpu * (1 + d),
                        "ram_hours": cpu * 1e-8 * (1 + 10 * d),
                    }
                )
    return rows


def test_leaderboard_rows_name_their_trees_and_compare_boosters_at_equal_trees(tmp_path):
    (tmp_path / "failed").mkdir()
    (tmp_path / "failed" / "x.json").write_text(
        json.dumps({"reason": "capymoa not installed", "config": {"algorithm": {"name": "moa_ozaboost"}}})
    )
    (tmp_path / "failed" / "y.json").write_text(
        json.dumps(
            {
                "reason": "TypeError: '<' not supported between 'NoneType' and 'int' (moa_peers.py:125)",
                "config": {"algorithm": {"name": "river_adaboost"}, "dataset": {"name": "d"}},
            }
        )
    )
    board = leaderboard.build(tmp_path, _runs(_bench_rows()))
    accuracy = board.tables["accuracy"]
    assert list(accuracy["algorithm"]) == [
        "adaboost_olm [papers' trees]",
        "adaboost_olm [HT defaults]",
        "online_boosting [HT defaults]",
        "vfdt [papers' trees]",
        "river_adaboost [river's HT defaults]",
    ]
    assert list(accuracy["mean_rank"]) == [1.0, 2.0, 3.0, 4.0, 5.0]  # over a, b, c: the data sets all share
    assert list(accuracy["n_datasets"]) == [4, 4, 4, 4, 3]
    assert accuracy["mean"].iloc[0] == pytest.approx(0.9 + 0.015 + 0.0005)
    assert "kappa-T" not in board.tables  # no run has it (records before the measure)
    # a measure the records hold shows up without a line for it (lower is better: an error)
    fading = board.tables["fading error"]
    assert fading["algorithm"].iloc[0] == "adaboost_olm [papers' trees]" and "window examples" not in board.tables
    # at equal trees alone: ours on HT defaults beside river's AdaBoost on river's; ours on the papers'
    assert set(board.equal_trees) == {"HT defaults", "papers' trees"}
    defaults, test, pairs = board.equal_trees["HT defaults"]
    assert list(defaults["algorithm"]) == [
        "adaboost_olm [HT defaults]",
        "online_boosting [HT defaults]",
        "river_adaboost [river's HT defaults]",
    ]
    assert list(defaults["mean_rank"]) == [1.0, 2.0, 3.0] and test["n_datasets"] == 3
    assert len(pairs) == 3 and set(pairs["a"]) | set(pairs["b"]) == set(defaults["algorithm"])
    # positive measures: a bootstrap percentile interval, inside the values' range (above zero)
    ram = board.tables["RAM-hours"].set_index("algorithm")
    values = board.scores["RAM-hours"]["vfdt [papers' trees]"].to_numpy()
    low, high = ram.loc["vfdt [papers' trees]", ["ci_low", "ci_high"]]
    assert values.min() <= low < values.mean() < high <= values.max()
    assert stats.t.interval(0.95, 3, values.mean(), stats.sem(values))[0] < 0 < low  # t would go below zero
    expected = stats.bootstrap((values,), np.mean, method="percentile", n_resamples=9999, rng=np.random.default_rng(0))
    assert (low, high) == pytest.approx(tuple(expected.confidence_interval))
    assert (board.tables["CPU s"]["ci_low"] > 0).all()
    # the pairwise tests are over each pair's common data sets, the Bayesian one on accuracy only
    assert set(board.wilcoxon) == {"accuracy", "kappa-M", "CPU s", "RAM-hours", "fading error"}
    assert set(board.bayesian) == {"accuracy"}
    pair = (
        board.wilcoxon["accuracy"]
        .set_index(["a", "b"])
        .loc[("adaboost_olm [papers' trees]", "river_adaboost [river's HT defaults]")]
    )
    assert pair["n_datasets"] == 3 and pair["wins"] == 3
    assert board.not_run["moa_ozaboost"] == "not run: capymoa not installed"
    assert board.gaps == {
        ("river_adaboost [river's HT defaults]", "d"): "not run: an internal error in moa_peers.py, line 125 "
        "(a bug; the store's failed/ note has its message)"
    }


def test_leaderboard_files_page_section_and_captioned_figures(tmp_path):
    _, written = leaderboard.write(tmp_path, tmp_path, _runs(_bench_rows()), rope=0.02)
    names = {p.name for p in written}
    for name in (
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard_wilcoxon.csv",
        "leaderboard_bayesian.csv",
        "leaderboard_equal_trees.csv",
        "cd_final_accuracy.png",
        "wilcoxon_final_accuracy.png",
        "bayesian_final_accuracy.png",
        "pareto_a.png",
    ):
        assert name in names, name
    figures = tmp_path / "figures" / "leaderboard"
    assert "ROPE of ±0.02" in caption_of(figures / "bayesian_final_accuracy.png")
    assert "N = 10, prequential, 2 seeds per row and data set, preset paper" in caption_of(figures / "pareto_a.png")
    text = (tmp_path / "tables" / "leaderboard.md").read_text()
    assert "| adaboost_olm [papers' trees] | 0.9155 (n < 3) |" not in text  # four data sets: an interval
    assert "| adaboost_olm [papers' trees] | 0.9155 [" in text
    assert "`final_accuracy`: accuracy over the final part" in text
    assert "Benavoli, Corani & Mangili, JMLR 17(5), 2016" in text and "JMLR 18(77), 2017" in text
    assert "Demšar, JMLR 7, 2006" in text and "## Boosters at equal trees (accuracy)" in text
    # one notation per column: RAM-hours all in scientific notation
    ram = text.split("## RAM-hours")[1].split("Friedman")[0]
    assert all("e-0" in line for line in ram.splitlines() if line.startswith("| ") and "algorithm" not in line)
    section = leaderboard.html_section(tmp_path)
    assert "`" not in section.split("Which test")[0].split("A row is")[0]  # no literal backticks
    assert "<code>final_accuracy</code>: accuracy over the final part" in section
    assert "figures/leaderboard/wilcoxon_final_accuracy.png" in section and "bayesian_final_accuracy.png" in section
    assert "Boosters at equal trees" in section and "HT defaults" in section
    assert "<td class='num'>0.9155 [" in section  # the cells right-aligned


def test_equal_trees_pairs_are_holm_corrected_among_their_table_alone(tmp_path):
    """Two boosters on the papers' trees, one ahead on each of 8 data sets (exact two-sided
    p = 2 / 2^8): alone in their table the pair is decided; among the board's 15 pairs it is not.
    """
    rng = np.random.default_rng(0)
    rows = []
    for d in range(8):
        for algorithm, trees, accuracy in (
            ("adaboost_olm", "papers' trees", 0.9 + 0.01 * d),
            ("online_boosting", "papers' trees", 0.85 - 0.01 * d),
            *((a, "HT defaults", 0.8 + rng.uniform(-0.05, 0.05)) for a in ("vfdt", "adaboost_olm", "online_mbbm")),
            ("river_adaboost", "", 0.8 + rng.uniform(-0.05, 0.05)),
        ):
            measures = {"final_accuracy": accuracy, "final_kappa_m": accuracy - 0.5, "final_kappa_t": np.nan}
            costs = {"cpu_s": 1 + accuracy, "ram_hours": accuracy * 1e-8}
            rows.append({"dataset": f"d{d}", "algorithm": algorithm, "trees": trees, "seed": 0} | measures | costs)
    board, _ = leaderboard.write(tmp_path, tmp_path, _runs(rows))
    a, b = "adaboost_olm [papers' trees]", "online_boosting [papers' trees]"
    table, test, pairs = board.equal_trees["papers' trees"]
    assert list(table["algorithm"]) == [a, b] and test["statistic"] != test["statistic"]  # no Friedman for 2
    pair = pairs.set_index(["a", "b"]).loc[(a, b)]
    scores = board.scores["accuracy"]
    assert pair["p_value"] == pytest.approx(stats.wilcoxon(scores[a], scores[b]).pvalue) == pytest.approx(2 / 2**8)
    assert pair["p_holm"] == pair["p_value"] and pair["verdict"] == "a better" and pair["wins"] == 8
    whole = board.wilcoxon["accuracy"].set_index(["a", "b"]).loc[(a, b)]
    assert len(board.wilcoxon["accuracy"]) == 15 and whole["p_value"] == pair["p_value"]
    assert whole["p_holm"] > 0.05 and whole["verdict"] == "no difference shown"
    # every reader: the Markdown, the CSVs, the page's section
    text = (tmp_path / "tables" / "leaderboard.md").read_text().split("### papers' trees")[1]
    assert "Friedman test: none for 2 rows (it needs three or more)." in text
    assert "Wilcoxon-Holm: 1 pair: 1 a better." in text and f"| {a} | {b} | 8 | +0.1" in text
    saved = pd.read_csv(tmp_path / "tables" / "leaderboard_equal_trees_wilcoxon.csv")
    assert set(saved["kind"]) == {"papers' trees", "HT defaults"} and len(saved) == 1 + 6
    equal = pd.read_csv(tmp_path / "tables" / "leaderboard_equal_trees.csv").set_index("algorithm")
    assert equal.loc[a, "pairs"] == "1 pair: 1 a better."
    section = leaderboard.html_section(tmp_path).split("Boosters at equal trees")[1]
    assert "Holm-corrected over this table's pairs" in section and "a better" in section
    console = Console(width=400, record=True, color_system=None)
    for shown in leaderboard_text.rich_tables(board):
        console.print(shown)
    screen = console.export_text()
    assert screen.count("accuracy at equal trees: ") == 2  # one table per kind of trees
    ours = screen.split("accuracy at equal trees: papers' trees")[1]
    assert ours.index("│ adaboost_olm ") < ours.index("│ online_boosting ") < ours.index("not run")
    assert "Wilcoxon-Holm over these pairs alone: 1 pair: 1 a better." in " ".join(ours.split())


def test_pareto_plot_numbers_its_points_and_keys_them(tmp_path):
    names = [f"algorithm_{i} [papers' trees]" for i in range(18)]
    rng = np.random.default_rng(0)
    scores = pd.Series(rng.uniform(0.7, 0.9, 18), index=names)
    costs = pd.Series(rng.uniform(0.1, 10, 18), index=names)
    written = leaderboard_figures.pareto_plot(scores, costs, tmp_path / "p", "x", names)
    assert [p.name for p in written] == ["p.png", "p.pdf"]
    assert caption_of(written[0]).startswith("x: final-part accuracy against CPU seconds of 18 rows")
    cost, score = np.array([2.0, 1.0, 0.1, 5.0]), np.array([0.9, 0.8, 0.7, 0.6])
    assert list(leaderboard_figures.pareto_front(cost, score)) == [2, 1, 0]


def test_a_failure_reason_is_one_readable_line():
    crash = "TypeError: '<' not supported between 'NoneType' and 'int' (moa_peers.py:125)"
    assert leaderboard.readable_reason(crash) == (
        "an internal error in moa_peers.py, line 125 (a bug; the store's failed/ note has its message)"
    )
    sgbt = (
        "MOA's StreamingGradientBoostedTrees stopped: java.lang.NullPointerException: Cannot invoke "
        '"moa.classifiers.trees.FIMTDD$Node.learn" because "node" is null'
    )
    assert leaderboard.readable_reason(sgbt) == (
        "MOA's StreamingGradientBoostedTrees stopped with an error of its own on a missing value, which its "
        "FIMT-DD trees do not take"
    )
    other = "MOA's OzaBoost stopped: java.lang.IllegalStateException: something"
    assert leaderboard.readable_reason(other) == (
        "MOA's OzaBoost stopped with an error of its own (the store's failed/ note has MOA's message)"
    )
    said = "algorithm moa_ozaboost: MOA's ensembles need capymoa and Java:\n  `make bench-moa-setup`"
    assert (
        leaderboard.readable_reason(said)
        == "algorithm moa_ozaboost: MOA's ensembles need capymoa and Java: `make bench-moa-setup`"
    )
    assert len(leaderboard.readable_reason("x" * 500)) == leaderboard.REASON_CHARS


def test_report_leaderboard_on_a_store_with_a_failed_peer(tmp_path):
    from boostbench.runner.sweep import run_sweep, summarize

    grid = [
        "dataset=balance,car",
        "algorithm=vfdt,online_boosting,river_adaboost",
        "n_learners=3",
        "seed=0,1",
        "protocol.max_examples=300",
        f"results_dir={tmp_path}",
    ]
    assert summarize(run_sweep(grid, n_jobs=2)).get("done") == 12
    # a peer whose library is absent leaves its reason in failed/ (where capymoa runs, it runs)
    try:
        from boostbench.boosters.peers.moa_peers import moa_python

        moa_python()
        moa_absent = False
    except ValueError:
        moa_absent = True
        run_sweep(["dataset=balance", "algorithm=moa_ozaboost", "n_learners=3", f"results_dir={tmp_path}"], n_jobs=1)
    result = CliRunner().invoke(app, ["report", "leaderboard", "--results-dir", str(tmp_path), "--rope", "0.02"])
    assert result.exit_code == 0, result.output
    assert "kappa-M" in result.output and "CPU s" in result.output and "RAM-hours" in result.output
    assert "online_mbbm" in result.output and "not run: no run in this store" in result.output
    assert "Bayesian (ROPE ±0.02)" in " ".join(result.output.split())
    text = (tmp_path / "tables" / "leaderboard.md").read_text()
    if moa_absent:
        assert "| moa_ozaboost | not run: algorithm moa_ozaboost: MOA's ensembles need capymoa" in text
    # the weak learners come from the records: ours the papers' trees, river's AdaBoost its own
    assert "| online_boosting [papers' trees] |" in text and "| river_adaboost [river's HT defaults] |" in text
    assert (tmp_path / "figures" / "leaderboard" / "pareto_car.png").stat().st_size > 1000
