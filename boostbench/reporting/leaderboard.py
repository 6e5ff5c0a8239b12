"""The leaderboard of a store: every online algorithm ranked over its data sets on the stream
papers' measures (accuracy, kappa-M, kappa-T, CPU seconds, RAM-hours, and any other final-part
measure the records hold).

A row is an algorithm on its weak learners (``adaboost_olm [papers' trees]``, ``adaboost_olm [HT
defaults]``, ``river_adaboost [river's HT defaults]``: :mod:`boostbench.reporting.weak_learners`),
and its N, gamma, preset or other settings where the store has several. For each measure: per
row, the mean over data sets of its mean over seeds with a 95% interval over data sets
(:func:`~boostbench.reporting.intervals.measure_interval`), and its mean rank (1 = best) over the
data sets every row ran on; Friedman's test with Nemenyi's critical-difference diagram (Demšar
2006, :mod:`~boostbench.reporting.significance`), pairwise Wilcoxon signed-rank tests with Holm's
correction, and for accuracy the Bayesian signed-rank test with a ROPE
(:mod:`~boostbench.reporting.pairwise`, Benavoli et al. 2016, 2017); and the boosters compared at
equal trees alone. Per data set, accuracy against CPU seconds with the Pareto front marked, and
per stream its learning curves with the drift marked (:mod:`~boostbench.reporting.leaderboard_figures`).
A registered algorithm without runs says why it has none (the reason of its failed jobs, e.g. a
peer whose library is absent), and so does each data set a row that ran elsewhere has no run on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.reporting import leaderboard_figures, pairwise, significance
from boostbench.reporting.intervals import measure_interval, metric_range
from boostbench.reporting.records import describe, differing_keys
from boostbench.reporting.wording import column_format, plural
from boostbench.system.files import atomic_write_text


@dataclass(frozen=True)
class Measure:
    """A leaderboard measure: the record's metric, its title, its direction, what it measures
    (plain text: the pages mark the metric's name up themselves) and its number format (None:
    one chosen for the column, :func:`~boostbench.reporting.wording.column_format`).
    """

    metric: str
    title: str
    higher_is_better: bool
    what: str
    fmt: str | None = ".4f"


_FINAL = "over the final part of each pass (the protocol's final_fraction: the last 20% of a prequential pass)"
#: The stream papers' measures, in the leaderboard's order
MEASURES = (
    Measure("final_accuracy", "accuracy", True, f"accuracy {_FINAL}"),
    Measure(
        "final_kappa_m",
        "kappa-M",
        True,
        "the accuracy gained over the majority-class classifier, same part (Bifet et al. 2015)",
    ),
    Measure(
        "final_kappa_t",
        "kappa-T",
        True,
        "the accuracy gained over the no-change classifier, same part (Žliobaitė et al. 2015)",
    ),
    Measure(
        "cpu_s",
        "CPU s",
        False,
        "CPU seconds of the pass, every thread (kernel compilation and cache fills left out)",
        None,
    ),
    Measure("ram_hours", "RAM-hours", False, "MOA's RAM-hours, GiB of model memory x hours of CPU time", None),
)
#: Words in a metric's name that make lower better
LOWER_IS_BETTER = ("error", "loss")
#: The measure the Bayesian test, the Pareto plots and the equal-trees table use
ACCURACY = "accuracy"


def measures(runs: pd.DataFrame) -> list[Measure]:
    """:data:`MEASURES`, then every other ``final_*`` measure of the runs whose range its name
    tells (an accuracy, kappa, F1, error or loss: :func:`~boostbench.reporting.intervals.metric_range`;
    a measure new records hold shows up without a line here, a count such as
    ``final_window_examples`` does not), titled after its name.
    """
    known = {m.metric for m in MEASURES}
    extra = [
        Measure(
            column,
            column.removeprefix("final_").replace("_", " "),
            not any(word in column for word in LOWER_IS_BETTER),
            f"{column.removeprefix('final_').replace('_', ' ')} {_FINAL}",
        )
        for column in runs.columns
        if column.startswith("final_")
        and column not in known
        and np.isfinite(metric_range(column)[1])
        and pd.api.types.is_numeric_dtype(runs[column])
    ]
    return [*MEASURES, *extra]


@dataclass
class Leaderboard:
    """What :func:`build` finds in a store (and :func:`write` puts in files).

    Attributes:
        measures: the measures shown, in order (:func:`measures`).
        rows: one row per leaderboard row (``entry``): its ``algorithm``, ``trees`` (the label
            shown), ``tree_kind`` (equal for rows on trees built alike) and ``peer``.
        scores: per measure title, a data sets × rows frame of means over seeds.
        tables: per measure title, one row per leaderboard row: ``algorithm`` (the row's name),
            ``trees``, ``mean``, ``ci_low``, ``ci_high`` (95%, over data sets), ``mean_rank``
            (over the data sets every row ran on, 1 = best), ``n_datasets``, sorted by rank.
        tests: per measure title, :func:`significance.friedman`'s result.
        wilcoxon: per measure title, :func:`pairwise.wilcoxon_holm`'s table.
        bayesian: for accuracy, :func:`pairwise.bayesian_signed_rank`'s table.
        equal_trees: per tree kind run by two rows or more, their accuracy table (as ``tables``,
            ranks among them alone) and its Friedman test.
        not_run: algorithm -> why it has no run (``"not run: <reason>"``).
        gaps: ``(row, data set)`` -> why a row with runs elsewhere has none on that data set of
            the store (``"not run: <reason>"``), in row then data set order.
        rope: the Bayesian test's ROPE (accuracy units).
        figures: the paths written (CD diagrams, pairwise matrices, Pareto plots, learning
            curves), by :func:`write`.
    """

    measures: list[Measure]
    rows: pd.DataFrame
    scores: dict[str, pd.DataFrame]
    tables: dict[str, pd.DataFrame]
    tests: dict[str, dict]
    wilcoxon: dict[str, pd.DataFrame]
    bayesian: dict[str, pd.DataFrame]
    equal_trees: dict[str, tuple[pd.DataFrame, dict]]
    not_run: dict[str, str]
    gaps: dict[tuple[str, str], str] = field(default_factory=dict)
    rope: float = pairwise.ROPE
    figures: list[Path] = field(default_factory=list)


def _items_without(items: str, prefixes: tuple[str, ...], keep: bool = False) -> str:
    """A run's settings (JSON, :func:`records.settings_items`) with the keys under ``prefixes``
    left out (``keep``: only those kept).
    """
    flat = json.loads(items)
    chosen = {k: v for k, v in flat.items() if k.startswith(prefixes) == keep}
    return json.dumps(chosen, sort_keys=True, default=str)


def _labelled(frame: pd.DataFrame, by: list[str], items: str, within: str | None = None) -> pd.Series:
    """Per run, what sets its ``items`` apart from the others' of the same ``by`` values: the keys
    that differ (among the runs of one ``within`` value each, when given: a key that only follows
    the data set, e.g. ``protocol.shuffle`` off for a stream, tells no two rows apart), with the
    run's values.
    """
    labels = pd.Series("", index=frame.index)
    for _, same in frame.groupby(by, dropna=False):
        parts = [same] if within is None else [part for _, part in same.groupby(within)]
        keys = sorted({key for part in parts for key in differing_keys(list(part[items]))})
        labels[same.index] = same[items].map(describe(list(same[items]), keys))
    return labels


def online_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The prequential runs of multiclass online algorithms, each with its leaderboard row
    (``entry``: the algorithm, its weak learners in brackets, then its N, gamma, preset and
    other settings where the store has several of them for that algorithm and weak learners)
    and its data set as shown (``shown_dataset``: the name, and what sets its config apart when
    the store has several under one name, e.g. ``iris (dataset.file=iris.arff)``).
    """
    from boostbench.algorithms import ALGORITHMS

    online = [name for name, spec in ALGORITHMS.items() if spec.family == "online" and spec.task == "multiclass"]
    chosen = runs[(runs["protocol"] == "prequential") & runs["algorithm"].isin(online)].copy()
    if chosen.empty:
        return chosen.assign(entry=pd.Series(dtype=str), shown_dataset=pd.Series(dtype=str))
    chosen["dataset_items"] = chosen["settings_items"].map(lambda t: _items_without(t, ("dataset.",), keep=True))
    # the weak learners are in the name already; the data set is a column of its own
    chosen["method_items"] = chosen["settings_items"].map(lambda t: _items_without(t, ("dataset.", "learner.")))
    dataset_label = _labelled(chosen, ["dataset"], "dataset_items")
    chosen["shown_dataset"] = chosen["dataset"].where(
        dataset_label == "", chosen["dataset"] + " (" + dataset_label + ")"
    )
    same = ["algorithm", "trees"]
    parts = [chosen["algorithm"] + " [" + chosen["trees"] + "]"]
    for column, text in (
        ("n_learners", lambda v: f"N={v:g}"),
        ("gamma", lambda v: "" if v != v else f"gamma={v:g}"),
        ("preset", lambda v: f"preset {v}"),
    ):
        several = chosen.groupby(same)[column].transform(lambda s: s.nunique(dropna=False) > 1)
        parts.append(chosen[column].map(text).where(several, ""))
    # other settings: the keys that differ on one data set (the data set's own keys left out)
    parts.append(_labelled(chosen, [*same, "n_learners", "gamma", "preset"], "method_items", within="shown_dataset"))
    chosen["entry"] = [
        names[0] + "".join(f" ({p})" for p in names[1:] if p) for names in zip(*(p.tolist() for p in parts))
    ]
    return chosen.drop(columns=["dataset_items", "method_items"])


NO_RUN = "no run in this store"


def _failures(results_dir: str | Path) -> dict[tuple[str, str | None], str]:
    """The reason of the latest failed job (``failed/*.json``) of each algorithm, keyed
    ``(algorithm, data set)`` and ``(algorithm, None)`` (any data set), as one readable line
    (:func:`readable_reason`).
    """
    latest: dict[tuple[str, str | None], tuple[float, str]] = {}
    for path in sorted((Path(results_dir) / "failed").glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            name = str(record["config"]["algorithm"]["name"])
            dataset = record["config"].get("dataset", {}).get("name")
            when = path.stat().st_mtime
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # a damaged failure note says nothing
        reason = readable_reason(str(record.get("reason", "")))
        for key in ((name, None), (name, None if dataset is None else str(dataset))):
            if when >= latest.get(key, (-1.0, ""))[0]:
                latest[key] = (when, reason)
    return {key: reason for key, (_, reason) in latest.items()}


#: A failure's reason as published, at most this many characters
REASON_CHARS = 200


#: A peer's library stopped with an error of its own (:class:`~boostbench.errors.PeerError`):
#: ``MOA's StreamingGradientBoostedTrees stopped: java.lang.NullPointerException: ...``
_PEER_STOP = r"(\w+)'s (\w+) stopped: (.*)"
#: What a peer's own error means, where it is known (the library's class, a word of its message)
PEER_STOPS = {
    ("StreamingGradientBoostedTrees", "NullPointerException"): "on a missing value, which its FIMT-DD trees do not take"
}


def readable_reason(reason: str) -> str:
    """A failed job's reason as one line a reader can act on, naming no exception of the code:
    whitespace collapsed; the runner's note of an error it did not expect (``TypeError: '<' not
    supported ... (moa_peers.py:125)``: a bug, not a user's mistake) said as what it is; a peer's
    library's own error (``MOA's StreamingGradientBoostedTrees stopped: java.lang...``) as that
    library stopping, with what it means where known (:data:`PEER_STOPS`); the messages left to
    the store's ``failed/`` note; cut to :data:`REASON_CHARS` characters.
    """
    import re

    text = " ".join(reason.split())
    crash = re.fullmatch(r"[A-Z]\w*(?:Error|Exception|Warning): .*? \(([\w.-]+\.py):(\d+)\)", text)
    stop = re.search(_PEER_STOP, text)
    if crash:
        where, line = crash.groups()
        text = f"an internal error in {where}, line {line} (a bug; the store's failed/ note has its message)"
    elif stop:
        library, name, said = stop.groups()
        known = next((m for (n, word), m in PEER_STOPS.items() if n == name and word in said), None)
        text = f"{library}'s {name} stopped with an error of its own" + (
            f" {known}" if known else f" (the store's failed/ note has {library}'s message)"
        )
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1].rstrip() + "…"


def not_run_reasons(results_dir: str | Path, ran: set[str]) -> dict[str, str]:
    """``"not run: <reason>"`` for each registered multiclass online algorithm without runs: the
    reason its latest failed job gave (``failed/*.json``), else that the store has none.
    """
    from boostbench.algorithms import ALGORITHMS

    failures = _failures(results_dir)
    return {
        name: "not run: " + failures.get((name, None), NO_RUN)
        for name, spec in ALGORITHMS.items()
        if spec.family == "online" and spec.task == "multiclass" and name not in ran
    }


def gap_reasons(results_dir: str | Path, chosen: pd.DataFrame) -> dict[tuple[str, str], str]:
    """``"not run: <reason>"`` for each (row, data set) of the store's online runs where that row
    has runs on other data sets but none on this one (``chosen``: :func:`online_runs`).
    """
    failures = _failures(results_dir)
    ran = chosen.groupby("entry")["algorithm"].first()
    names = chosen.groupby("shown_dataset")["dataset"].first()
    cells = set(zip(chosen["entry"], chosen["shown_dataset"]))
    return {
        (entry, dataset): "not run: " + failures.get((ran[entry], names[dataset]), NO_RUN)
        for entry in sorted(ran.index)
        for dataset in sorted(names.index)
        if (entry, dataset) not in cells
    }


def ranked(scores: pd.DataFrame, measure: Measure, trees: pd.Series) -> tuple[pd.DataFrame, dict]:
    """Per row of ``scores`` (data sets × rows): its mean over data sets, interval, mean rank over
    the complete data sets and the number of its data sets; and the Friedman test.
    """
    complete = scores.dropna(axis=0, how="any")
    test = significance.friedman(complete, measure.higher_is_better)
    rows = []
    for entry in scores.columns:
        values = scores[entry].dropna().to_numpy(dtype=float)
        low, high, _ = measure_interval(values, measure.metric)
        rows.append(
            {
                "algorithm": entry,
                "trees": trees.get(entry, ""),
                "mean": float(values.mean()) if len(values) else np.nan,
                "ci_low": low,
                "ci_high": high,
                "mean_rank": float(test["ranks"].get(entry, np.nan)),
                "n_datasets": len(values),
            }
        )
    table = pd.DataFrame(rows).sort_values(["mean_rank", "mean"], ascending=[True, not measure.higher_is_better])
    return table.reset_index(drop=True), test


def build(results_dir: str | Path, runs: pd.DataFrame, rope: float = pairwise.ROPE) -> Leaderboard:
    """The leaderboard of the store's prequential runs (``runs``: :func:`records.load_runs`).

    Args:
        rope: the Bayesian signed-rank test's region of practical equivalence, ``[-rope, rope]``
            in accuracy units (0.01: one accuracy point).

    Returns:
        A :class:`Leaderboard` (its ``figures`` empty: :func:`write` draws them).
    """
    from boostbench.algorithms import ALGORITHMS

    chosen = online_runs(runs)
    rows = chosen.groupby("entry")[["algorithm", "trees", "tree_kind"]].first()
    rows["peer"] = [bool(getattr(ALGORITHMS.get(a), "peer", False)) for a in rows["algorithm"]]
    shown = measures(runs)
    board = Leaderboard(shown, rows, {}, {}, {}, {}, {}, {}, {}, rope=rope)
    for measure in shown:
        wide = chosen.groupby(["shown_dataset", "entry"])[measure.metric].mean().unstack("entry")
        wide = wide.dropna(axis=1, how="all")  # records older than the measure have none
        if wide.empty:
            continue
        wide.index.name = "dataset"
        board.scores[measure.title] = wide
        board.tables[measure.title], board.tests[measure.title] = ranked(wide, measure, rows["trees"])
        board.wilcoxon[measure.title] = pairwise.wilcoxon_holm(
            wide[board.tables[measure.title]["algorithm"]], measure.higher_is_better
        )
        if measure.title == ACCURACY:
            board.bayesian[measure.title] = pairwise.bayesian_signed_rank(
                wide[board.tables[measure.title]["algorithm"]], measure.higher_is_better, rope
            )
    if ACCURACY in board.scores:
        accuracy = board.scores[ACCURACY]
        for kind, same in rows[rows.index.isin(accuracy.columns)].groupby("tree_kind"):
            if len(same) >= 2:
                board.equal_trees[kind] = ranked(accuracy[same.index], shown[0], rows["trees"])
    board.not_run = not_run_reasons(results_dir, set(chosen["algorithm"]))
    board.gaps = gap_reasons(results_dir, chosen)
    return board


# --- text -----------------------------------------------------------------------------------------

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
        "(ROPE) of ±{rope:g} in accuracy: how probable is it that the row is better by more than the ROPE, "
        "that the two are practically equivalent, or that the column is better? Verdict where one of the "
        "three has posterior probability ≥ {decisive:g}; cell: the probability that the row is better; "
        "green, the row is better; red, worse; blue, practically equivalent; grey, undecided."
    ),
    "equal_trees": (
        "The rows compared at equal trees alone: each table holds the rows whose weak learners are built alike "
        "(our boosters on the papers' trees; ours on river's and MOA's Hoeffding-tree defaults beside the peers "
        "on theirs), ranked among themselves, so that a rank says which booster is better and not which trees."
    ),
}


def tests_text(name: str, rope: float = pairwise.ROPE) -> str:
    """:data:`TESTS_TEXT` ``[name]`` with its numbers filled in."""
    return TESTS_TEXT[name].format(alpha=pairwise.ALPHA, rope=rope, decisive=pairwise.DECISIVE)


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
        return f"Friedman test: too few rows or data sets ({plural(test['n_datasets'], 'complete data set')})."
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


def to_markdown(board: Leaderboard, store: str) -> str:
    """The leaderboard as Markdown: per measure its table, Friedman test and the pairs the
    pairwise tests decide; the equal-trees tables; the gaps and the algorithms not run.
    """
    lines = [f"# Leaderboard of {Path(store).name}", "", intro(board), "", "Tests:", ""]  # no local path
    lines += [f"- {tests_text(name, board.rope)}" for name in ("friedman", "wilcoxon", "bayesian")]
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
                found = tests[measure.title]
                lines += [f"{name}: {pairwise_summary(found)}", ""]
                pairs = _pairs_markdown(found, bayesian, fmt)
                lines += [*pairs, ""] if pairs else []
    if board.equal_trees:
        lines += ["## Boosters at equal trees (accuracy)", "", tests_text("equal_trees"), ""]
        for kind, (table, test) in board.equal_trees.items():
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


#: The files under ``tables/`` that :func:`write` makes and the page's leaderboard section shows
FILES = (
    "leaderboard",
    "leaderboard_scores",
    "leaderboard_tests",
    "leaderboard_wilcoxon",
    "leaderboard_bayesian",
    "leaderboard_equal_trees",
    "leaderboard_not_run",
    "leaderboard_notes",
)


def write(
    results_dir: str | Path, out_dir: str | Path, runs: pd.DataFrame, rope: float = pairwise.ROPE
) -> tuple[Leaderboard, list[Path]]:
    """Build the leaderboard and write it under ``out_dir``: ``tables/leaderboard.md``, and as CSV
    (one row per measure and leaderboard row, which the page reads: :data:`FILES`)
    ``leaderboard.csv``, ``leaderboard_scores.csv`` (per data set), ``leaderboard_tests.csv``
    (Friedman), ``leaderboard_wilcoxon.csv`` and ``leaderboard_bayesian.csv`` (every pair),
    ``leaderboard_equal_trees.csv``, ``leaderboard_not_run.csv`` (the gaps, then the
    algorithms not run, with their reasons) and ``leaderboard_notes.csv`` (the texts that say
    what the numbers are and which test answers which question); and under ``figures/leaderboard/``: per measure
    ``cd_<metric>`` (when the Friedman test rejects equal ranks), ``wilcoxon_<metric>``,
    ``bayesian_final_accuracy``, per data set ``pareto_<dataset>`` and per stream
    ``curves_<dataset>`` (PNG and PDF, their captions inside).

    Returns:
        The :class:`Leaderboard` (its ``figures`` filled) and every path written.
    """
    out = Path(out_dir)
    board = build(results_dir, runs, rope)
    tables = out / "tables"
    written = [atomic_write_text(tables / "leaderboard.md", to_markdown(board, str(results_dir)))]
    if board.tables:

        def long(parts: dict[str, pd.DataFrame]) -> pd.DataFrame:
            return pd.concat([t.assign(measure=m) for m, t in parts.items()], ignore_index=True)

        by_title = {m.title: m for m in board.measures}
        ranks = pd.concat(
            [
                t.assign(
                    measure=m,
                    metric=by_title[m].metric,
                    higher_is_better=by_title[m].higher_is_better,
                    what=by_title[m].what,
                    shown=cells(t, by_title[m]),
                )
                for m, t in board.tables.items()
            ],
            ignore_index=True,
        )
        per_dataset = pd.concat(
            [s.stack().rename("mean").reset_index().assign(measure=m) for m, s in board.scores.items()],
            ignore_index=True,
        )
        tests = pd.DataFrame(
            [
                {
                    "measure": m,
                    "statistic": t["statistic"],
                    "p_value": t["p_value"],
                    "n_datasets": t["n_datasets"],
                    "text": test_line(t, len(board.tables[m])),
                    "wilcoxon": pairwise_summary(board.wilcoxon[m]),
                    "bayesian": pairwise_summary(board.bayesian[m]) if m in board.bayesian else "",
                }
                for m, t in board.tests.items()
            ]
        )
        equal = pd.concat(
            [
                t.assign(kind=k, text=test_line(test, len(t)), shown=cells(t, board.measures[0]))
                for k, (t, test) in board.equal_trees.items()
            ]
            or [pd.DataFrame(columns=["kind"])],
            ignore_index=True,
        )
        for name, frame in (
            ("leaderboard", ranks),
            ("leaderboard_scores", per_dataset),
            ("leaderboard_tests", tests),
            ("leaderboard_wilcoxon", long(board.wilcoxon)),
            ("leaderboard_bayesian", long(board.bayesian) if board.bayesian else pd.DataFrame(columns=["measure"])),
            ("leaderboard_equal_trees", equal),
        ):
            written.append(atomic_write_text(tables / f"{name}.csv", frame.to_csv(index=False)))
        notes = [("intro", intro(board)), *((n, tests_text(n, rope)) for n in TESTS_TEXT)]
        notes.append(("rope", f"{rope:g}"))
        written.append(
            atomic_write_text(
                tables / "leaderboard_notes.csv", pd.DataFrame(notes, columns=["part", "text"]).to_csv(index=False)
            )
        )
    missing = [{"algorithm": e, "dataset": d, "why": why} for (e, d), why in board.gaps.items()]
    missing += [{"algorithm": names, "dataset": "", "why": why} for names, why in not_run_rows(board.not_run)]
    written.append(
        atomic_write_text(
            tables / "leaderboard_not_run.csv",
            pd.DataFrame(missing, columns=["algorithm", "dataset", "why"]).to_csv(index=False),
        )
    )
    board.figures += leaderboard_figures.draw(
        board, results_dir, online_runs(runs), out / "figures" / "leaderboard", ACCURACY
    )
    return board, written + board.figures


def rich_tables(board: Leaderboard) -> list:
    """The leaderboard as rich tables, one per measure, and one of the algorithms not run."""
    from rich.table import Table

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
        rich = Table(
            title=f"{measure.title} ({'higher' if measure.higher_is_better else 'lower'} is better)", caption=caption
        )
        for column in ("algorithm", "mean [95% interval]", "mean rank", "data sets"):
            rich.add_column(column, justify="left" if column == "algorithm" else "right")
        for row, cell in zip(table.itertuples(), cells(table, measure)):
            rich.add_row(row.algorithm, cell, rank_text(row.mean_rank), str(row.n_datasets))
        shown.append(rich)
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


def html_section(out: Path) -> str | None:
    """The leaderboard's section of ``summary.html`` (:mod:`boostbench.reporting.leaderboard_page`)."""
    from boostbench.reporting.leaderboard_page import html_section as section

    return section(out)
