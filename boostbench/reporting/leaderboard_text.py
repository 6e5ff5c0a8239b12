"""The leaderboard as found (:class:`Leaderboard`, which :mod:`boostbench.reporting.leaderboard`
computes) and in words: what its numbers are, which question each test answers, its tables as
Markdown and as rich tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from boostbench.measures import Measure
from boostbench.reporting import pairwise, significance
from boostbench.reporting.wording import column_format, plural


@dataclass
class Leaderboard:
    """What :func:`boostbench.reporting.leaderboard.build` finds in a store (and
    :func:`~boostbench.reporting.leaderboard.write` puts in files).

    Attributes:
        measures: the measures shown, in order (:func:`~boostbench.reporting.leaderboard.measures`).
        rows: one row per leaderboard row (``entry``): its ``algorithm``, ``trees`` (the label
            shown), ``tree_kind`` (equal for rows on trees built alike) and ``peer``.
        scores: per measure title, a data sets × rows frame of means over seeds.
        tables: per measure title, one row per leaderboard row: ``algorithm`` (the row's name),
            ``trees``, ``mean``, ``ci_low``, ``ci_high`` (95%, over data sets), ``mean_rank``
            (over the data sets every row ran on, 1 = best), ``n_datasets``, sorted by rank.
        tests: per measure title, :func:`significance.friedman`'s result.
        wilcoxon: per measure title, :func:`pairwise.wilcoxon_holm`'s table.
        bayesian: for the primary measure, :func:`pairwise.bayesian_signed_rank`'s table.
        equal_trees: per tree kind run by two rows or more, their accuracy table (as ``tables``,
            ranks among them alone), its Friedman test and the Wilcoxon-Holm test of its pairs
            (:func:`pairwise.wilcoxon_holm`, Holm over that table's pairs alone).
        not_run: algorithm -> why it has no run (``"not run: <reason>"``).
        gaps: ``(row, data set)`` -> why a row with runs elsewhere has none on that data set of
            the store (``"not run: <reason>"``), in row then data set order.
        rope: the Bayesian test's ROPE (the primary measure's units).
        figures: the paths written (CD diagrams, pairwise matrices, Pareto plots, learning
            curves), by :func:`~boostbench.reporting.leaderboard.write`.
        task: ``"multiclass"`` or ``"multilabel"`` (:func:`~boostbench.reporting.leaderboard.store_task`).
        primary: the title of the measure the Bayesian test, Pareto plots and equal-trees table
            use (accuracy; rank loss for a multi-label board).
    """

    measures: list[Measure]
    rows: pd.DataFrame
    scores: dict[str, pd.DataFrame]
    tables: dict[str, pd.DataFrame]
    tests: dict[str, dict]
    wilcoxon: dict[str, pd.DataFrame]
    bayesian: dict[str, pd.DataFrame]
    equal_trees: dict[str, tuple[pd.DataFrame, dict, pd.DataFrame]]
    not_run: dict[str, str]
    gaps: dict[tuple[str, str], str] = field(default_factory=dict)
    rope: float = pairwise.ROPE
    figures: list[Path] = field(default_factory=list)
    task: str = "multiclass"
    primary: str = "accuracy"


#: Which question each test answers, and where it comes from (the pages show these)
TESTS_TEXT = {
    "friedman": (
        "Friedman's test and Nemenyi's critical difference (Demšar, JMLR 7, 2006): do the rows' mean ranks "
        "over the data sets every row ran on differ, and which are farther apart than the critical difference? "
        "A pair's verdict here depends on the other rows in the table (Benavoli, Corani & Mangili, JMLR 17(5), "
        "2016), which the pairwise tests below do not."
    ),
    "wilcoxon": (
        "Wilcoxon signed-rank test of each pair over the data sets both ran on, with Holm's correction over all "
        "pairs (Demšar 2006, Section 3.1.3; Benavoli, Corani & Mangili 2016): does one beat the other "
        "consistently, the chance of any false verdict held at alpha = {alpha:g}? Cell: Holm's p; green, the "
        "row algorithm is better; red, worse; grey, no difference shown."
    ),
    "bayesian": (
        "Bayesian signed-rank test (Benavoli, Mangili, Corani, Zaffalon & Ruggeri, ICML 2014; Benavoli, "
        "Corani, Demšar & Zaffalon, JMLR 18(77), 2017; baycomp) with a region of practical equivalence "
        "(ROPE) of ±{rope:g} in {primary}: how probable is it that the row is better by more than the ROPE, "
        "that the two are practically equivalent, or that the column is better? Verdict where one of the "
        "three has posterior probability ≥ {decisive:g}; cell: the probability that the row is better; "
        "green, the row is better; red, worse; blue, practically equivalent; grey, undecided."
    ),
    "equal_trees": (
        "The rows compared at equal trees alone: each table holds the rows whose weak learners are built alike "
        "(the kind in their brackets: our boosters on the papers' trees; ours on river's Hoeffding-tree defaults "
        "beside river's peers that grow them, and on MOA's, whose naive Bayes differs on nominal attributes, "
        "beside MOA's; peers of one library on the same trees), ranked among themselves, so that a rank says "
        "which ensemble is better and not which trees. Each table's pairs have their own Wilcoxon signed-rank "
        "test, Holm-corrected over that table's pairs alone (fewer than the whole board's, so a difference "
        "shows sooner), and its Friedman test where it has three rows or more."
    ),
}


def tests_text(name: str, rope: float = pairwise.ROPE, primary: str = "accuracy") -> str:
    """:data:`TESTS_TEXT` ``[name]`` with its numbers (and the primary measure's title) filled in."""
    return TESTS_TEXT[name].format(alpha=pairwise.ALPHA, rope=rope, decisive=pairwise.DECISIVE, primary=primary)


def intro(board: Leaderboard) -> str:
    """What the leaderboard's numbers are, for the top of its pages."""
    n_complete = {t["n_datasets"] for t in board.tests.values()}
    n_all = {len(s) for s in board.scores.values()}
    complete = f"the {plural(min(n_complete), 'data set')} every row ran on" if n_complete else "no data set"
    return (
        "A row is an algorithm on its weak learners (in brackets: the papers' trees, or river's and MOA's "
        "Hoeffding-tree defaults; a peer brings its own library's), with its N, gamma, preset or settings where "
        "the store has several. Mean: over the data sets the row ran on (the data sets column) of its mean over "
        "seeds, with its 95% interval over those data sets (Student's t for a bounded measure; for CPU seconds "
        "and RAM-hours the bootstrap percentile interval of the mean, which stays above zero; none below 3 data "
        f"sets). Mean rank (1 = best): over {complete}"
        + (
            f", fewer than the {max(n_all)} of the store: a row with gaps is ranked on the data sets all share "
            "(see Gaps)."
            if n_complete and n_all and max(n_all) > min(n_complete)
            else "."
        )
    )


def cells(table: pd.DataFrame, measure: Measure) -> list[str]:
    """A measure's table as text cells, ``mean [low, high]`` (``mean (n < 3)`` without an
    interval), in one notation for the whole column (the measure's format, else
    :func:`column_format` over its numbers).
    """
    fmt = measure.fmt or column_format(pd.concat([table["mean"], table["ci_low"], table["ci_high"]]))
    out = []
    for row in table.itertuples():
        if row.mean != row.mean:
            out.append("—")
        elif row.ci_low != row.ci_low:
            out.append(f"{row.mean:{fmt}} (n < 3)" if row.n_datasets < 3 else f"{row.mean:{fmt}}")
        else:
            out.append(f"{row.mean:{fmt}} [{row.ci_low:{fmt}}, {row.ci_high:{fmt}}]")
    return out


def rank_text(rank: float) -> str:
    return "—" if rank != rank else f"{rank:.2f}"


def test_line(test: dict, k: int) -> str:
    """A Friedman test in one line (with Nemenyi's critical difference when it rejects)."""
    if test["statistic"] != test["statistic"]:
        if k < 3:  # a pair: the Wilcoxon test beside it is the one that compares them
            return f"Friedman test: none for {plural(k, 'row')} (it needs three or more)."
        return f"Friedman test: too few data sets ({plural(test['n_datasets'], 'complete data set')})."
    line = (
        f"Friedman chi-square = {test['statistic']:.3f}, p = {test['p_value']:.4g} over "
        f"{plural(test['n_datasets'], 'data set')}"
    )
    if test["p_value"] < significance.ALPHA:
        cd = significance.critical_difference(k, test["n_datasets"])
        return line + f"; Nemenyi critical difference {cd:.2f} (alpha = {significance.ALPHA:g})."
    return line + f"; equal ranks not rejected at alpha = {significance.ALPHA:g} (no post-hoc test)."


def pairwise_summary(table: pd.DataFrame) -> str:
    """How many pairs each verdict has, in one line; for the Wilcoxon test over fewer than 6 data
    sets, that no pair can be found to differ (its smallest two-sided p over n data sets is
    2^(1 - n), above 0.05 up to n = 5).
    """
    counts = table["verdict"].replace("", "not tested").value_counts()
    text = f"{plural(len(table), 'pair')}: " + ", ".join(f"{n} {v}" for v, n in counts.items()) + "."
    most = int(table["n_datasets"].max()) if len(table) else 0
    if "p_holm" in table and most > 0 and 2.0 ** (1 - most) >= pairwise.ALPHA:
        text += f" Over {plural(most, 'data set')} its smallest p is {2.0 ** (1 - most):.3g}: no pair can differ."
    return text


def decided(table: pd.DataFrame) -> pd.DataFrame:
    """The pairs a test decides: every verdict but "no difference shown" and "undecided"."""
    mask = ~table["verdict"].isin(["", "no difference shown", "undecided"])
    return table[mask]


def _markdown_table(header: list[str], rows: list[list[str]], numeric: set[str]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "".join("---:|" if h in numeric else "---|" for h in header),
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def _pairs_markdown(table: pd.DataFrame, bayesian: bool, fmt: str) -> list[str]:
    shown = decided(table)
    if shown.empty:
        return []
    if bayesian:
        header = ["a", "b", "data sets", "mean a − b", "P(a better)", "P(equivalent)", "P(b better)", "verdict"]
        rows = [
            [r.a, r.b, str(r.n_datasets), f"{r.mean_difference:+{fmt}}"]
            + [f"{p:.3f}" for p in (r.p_a_better, r.p_rope, r.p_b_better)]
            + [r.verdict]
            for r in shown.itertuples()
        ]
    else:
        header = ["a", "b", "data sets", "mean a − b", "wins/ties/losses of a", "p", "Holm's p", "verdict"]
        rows = [
            [
                r.a,
                r.b,
                str(r.n_datasets),
                f"{r.mean_difference:+{fmt}}",
                f"{r.wins}/{r.ties}/{r.losses}",
                f"{r.p_value:.4f}",
                f"{r.p_holm:.4f}",
                r.verdict,
            ]
            for r in shown.itertuples()
        ]
    numeric = {"data sets", "mean a − b", "P(a better)", "P(equivalent)", "P(b better)", "p", "Holm's p"}
    return _markdown_table(header, rows, numeric)


def _pairs_section(name: str, table: pd.DataFrame, bayesian: bool, fmt: str) -> list[str]:
    """A pairwise test's summary line, then the table of the pairs it decides (if any)."""
    lines = [f"{name}: {pairwise_summary(table)}", ""]
    pairs = _pairs_markdown(table, bayesian, fmt)
    return lines + ([*pairs, ""] if pairs else [])


def to_markdown(board: Leaderboard, title: str) -> str:
    """The leaderboard as Markdown under the heading ``title``: per measure its table, Friedman
    test and the pairs the pairwise tests decide; the equal-trees tables; the gaps and the
    algorithms not run.
    """
    lines = [f"# {title}", "", intro(board), "", "Tests:", ""]
    lines += [f"- {tests_text(name, board.rope, board.primary)}" for name in ("friedman", "wilcoxon", "bayesian")]
    lines.append("")
    for measure in board.measures:
        if measure.title not in board.tables:
            continue
        table = board.tables[measure.title]
        lines += [
            f"## {measure.title} ({'higher' if measure.higher_is_better else 'lower'} is better)",
            "",
            f"`{measure.metric}`: {measure.what}.",
            "",
            *_markdown_table(
                ["algorithm", "mean [95% interval]", "mean rank", "data sets"],
                [
                    [r.algorithm, c, rank_text(r.mean_rank), str(r.n_datasets)]
                    for r, c in zip(table.itertuples(), cells(table, measure))
                ],
                {"mean [95% interval]", "mean rank", "data sets"},
            ),
            "",
            test_line(board.tests[measure.title], len(table)),
            "",
        ]
        fmt = measure.fmt or column_format(board.wilcoxon[measure.title]["mean_difference"])
        for name, tests, bayesian in (("Wilcoxon-Holm", board.wilcoxon, False), ("Bayesian", board.bayesian, True)):
            if measure.title in tests:
                lines += _pairs_section(name, tests[measure.title], bayesian, fmt)
    if board.equal_trees:
        lines += [f"## Boosters at equal trees ({board.primary})", "", tests_text("equal_trees"), ""]
        for kind, (table, test, pairs) in board.equal_trees.items():
            lines += [
                f"### {kind}",
                "",
                *_markdown_table(
                    ["algorithm", "mean [95% interval]", "mean rank", "data sets"],
                    [
                        [r.algorithm, c, rank_text(r.mean_rank), str(r.n_datasets)]
                        for r, c in zip(table.itertuples(), cells(table, board.measures[0]))
                    ],
                    {"mean [95% interval]", "mean rank", "data sets"},
                ),
                "",
                test_line(test, len(table)),
                "",
            ]
            fmt = board.measures[0].fmt or column_format(pairs["mean_difference"])
            lines += _pairs_section("Wilcoxon-Holm", pairs, False, fmt)
    if board.gaps:
        lines += [
            "## Gaps (a row without runs on a data set: its mean is over fewer data sets, its rank over the "
            "data sets all rows share)",
            "",
            *_markdown_table(["algorithm", "data set", "why"], [[e, d, w] for (e, d), w in board.gaps.items()], set()),
            "",
        ]
    if board.not_run:
        lines += [
            "## Not run",
            "",
            *_markdown_table(["algorithm", "why"], [list(r) for r in not_run_rows(board.not_run)], set()),
        ]
    return "\n".join(lines) + "\n"


def not_run_rows(not_run: dict[str, str]) -> list[tuple[str, str]]:
    """``(algorithms, why)`` rows: one per reason, its algorithms comma-separated (a store that
    ran a few algorithms leaves most of the registry with the one reason that it has no run).
    """
    grouped: dict[str, list[str]] = {}
    for name, why in not_run.items():
        grouped.setdefault(why, []).append(name)
    return [(", ".join(names), why) for why, names in grouped.items()]


def rich_tables(board: Leaderboard) -> list:
    """The leaderboard as rich tables: one per measure, one per kind of trees its boosters share
    (the equal-trees tables, ranked among themselves), the gaps and the algorithms not run.
    """
    from rich.table import Table

    def ranking(title: str, caption: str, table: pd.DataFrame, measure: Measure) -> Table:
        rich = Table(title=title, caption=caption)
        for column in ("algorithm", "mean [95% interval]", "mean rank", "data sets"):
            rich.add_column(column, justify="left" if column == "algorithm" else "right")
        for row, cell in zip(table.itertuples(), cells(table, measure)):
            rich.add_row(row.algorithm, cell, rank_text(row.mean_rank), str(row.n_datasets))
        return rich

    shown = []
    for measure in board.measures:
        if measure.title not in board.tables:
            continue
        table = board.tables[measure.title]
        caption = test_line(board.tests[measure.title], len(table))
        if measure.title in board.wilcoxon:
            caption += f" Wilcoxon-Holm: {pairwise_summary(board.wilcoxon[measure.title])}"
        if measure.title in board.bayesian:
            caption += f" Bayesian (ROPE ±{board.rope:g}): {pairwise_summary(board.bayesian[measure.title])}"
        better = "higher" if measure.higher_is_better else "lower"
        shown.append(ranking(f"{measure.title} ({better} is better)", caption, table, measure))
    for kind, (table, test, pairs) in board.equal_trees.items():
        caption = f"{test_line(test, len(table))} Wilcoxon-Holm over these pairs alone: {pairwise_summary(pairs)}"
        shown.append(ranking(f"{board.primary} at equal trees: {kind}", caption, table, board.measures[0]))
    if board.gaps:
        rich = Table(title="gaps (a row without runs on a data set: its mean is over fewer data sets)")
        for column in ("algorithm", "data set", "why"):
            rich.add_column(column)
        for (entry, dataset), why in board.gaps.items():
            rich.add_row(entry, dataset, why)
        shown.append(rich)
    if board.not_run:
        rich = Table(title="not run")
        rich.add_column("algorithm")
        rich.add_column("why")
        for names, why in not_run_rows(board.not_run):
            rich.add_row(names, why)
        shown.append(rich)
    return shown
