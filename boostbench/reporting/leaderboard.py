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

A store of multi-label runs (MULAN's train -> test protocol, no multiclass online run) gets the
same board over the multi-label measures (:data:`TASKS`): the seed's rank loss first, in place of
accuracy for the Bayesian test, the Pareto plots and the equal-trees table.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from boostbench import measures as registry
from boostbench.measures import Measure
from boostbench.reporting import leaderboard_figures, pairwise, significance
from boostbench.reporting.intervals import measure_interval
from boostbench.reporting.leaderboard_text import (
    TESTS_TEXT,
    Leaderboard,
    cells,
    intro,
    not_run_rows,
    pairwise_summary,
    test_line,
    tests_text,
    to_markdown,
)
from boostbench.reporting.records import describe, differing_keys
from boostbench.system.files import atomic_write_text

#: The stream papers' measures, in the leaderboard's order (:mod:`boostbench.measures`)
LEADING = ("final_accuracy", "final_kappa_m", "final_kappa_t", "cpu_s", "ram_hours")
MEASURES = tuple(registry.MEASURES[name] for name in LEADING)
#: The measure the Bayesian test, the Pareto plots and the equal-trees table use (its title)
ACCURACY = "accuracy"


def _multilabel_measures() -> tuple[Measure, ...]:
    """The multi-label measures over the test part (:data:`boostbench.measures.MULTILABEL_SET`),
    then CPU s and RAM-hours.
    """
    return (*(registry.MEASURES[name] for name in registry.MULTILABEL_SET), *MEASURES[-2:])


def store_task(runs: pd.DataFrame) -> str:
    """The task a store's leaderboard ranks: multiclass when it has a multiclass online run, else
    multi-label when it has a multi-label one, else multiclass (an empty board).
    """
    if online_runs(runs).empty and not online_runs(runs, "multilabel").empty:
        return "multilabel"
    return "multiclass"


def measures(runs: pd.DataFrame, task: str = "multiclass") -> list[Measure]:
    """:data:`MEASURES`, then every other number of the runs named ``final_*``, ``fading_*`` or
    ``cumulative_*`` (:data:`boostbench.measures.SUMMARIZED_PREFIXES`) with a direction: the
    registry's, or for a measure it does not know one its name tells
    (:func:`boostbench.measures.guess`: an accuracy, kappa, F1, error or loss; a count such as
    ``final_window_examples`` has none). For ``task="multilabel"``: the multi-label measures,
    CPU s and RAM-hours.
    """
    if task == "multilabel":
        return list(_multilabel_measures())
    known = {m.metric for m in MEASURES}
    extra = []
    for column in runs.columns:
        if not column.startswith(registry.SUMMARIZED_PREFIXES) or column in known:
            continue
        found = registry.known(column)
        if found is None or not found.rankable or not pd.api.types.is_numeric_dtype(runs[column]):
            continue
        extra.append(found if found.title else replace(found, title=registry.title(column)))
    return [*MEASURES, *extra]


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


def online_runs(runs: pd.DataFrame, task: str = "multiclass") -> pd.DataFrame:
    """The prequential (and prequential-CV) runs of multiclass online algorithms
    (``task="multilabel"``: the train -> test runs of the multi-label ones), each with its leaderboard row
    (``entry``: the algorithm, its weak learners in brackets, then its N, gamma, preset and
    other settings where the store has several of them for that algorithm and weak learners)
    and its data set as shown (``shown_dataset``: the name, and what sets its config apart when
    the store has several under one name, e.g. ``iris (dataset.file=iris.arff)``).
    """
    from boostbench.algorithms import ALGORITHMS

    online = [name for name, spec in ALGORITHMS.items() if spec.family == "online" and spec.task == task]
    chosen = runs[runs["protocol"].isin(TASKS[task][0]) & runs["algorithm"].isin(online)].copy()
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
#: The protocols whose runs the leaderboard ranks: a prequential pass, alone or as the copies of a
#: k-fold distributed validation (their mean)
PROTOCOLS = ("prequential", "prequential_cv")
#: Per task: the protocols of its runs and the board's first measure (its primary one's title)
TASKS = {"multiclass": (PROTOCOLS, ACCURACY), "multilabel": (("train_test",), "rank loss")}


def _failures(results_dir: str | Path) -> dict[tuple[str, str | None], str]:
    """The reason of the latest failed job (``failed/*.json``) of each algorithm, keyed
    ``(algorithm, data set)`` and ``(algorithm, None)`` (any data set), as one readable line
    (:func:`readable_reason`).
    """
    from boostbench.runner.store import iter_failures

    latest: dict[tuple[str, str | None], tuple[float, str]] = {}
    for path, record in iter_failures(results_dir):  # a FIFO or /dev/zero there is skipped
        try:
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


def not_run_reasons(
    results_dir: str | Path, ran: set[str], task: str = "multiclass", among: Collection[str] | None = None
) -> dict[str, str]:
    """``"not run: <reason>"`` for each registered online algorithm of ``task`` without runs (of
    those in ``among``, a study's grid, when given): the reason its latest failed job gave
    (``failed/*.json``), else that the store has none.
    """
    from boostbench.algorithms import ALGORITHMS

    failures = _failures(results_dir)
    return {
        name: "not run: " + failures.get((name, None), NO_RUN)
        for name, spec in ALGORITHMS.items()
        if spec.family == "online" and spec.task == task and name not in ran and (among is None or name in among)
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


def build(
    results_dir: str | Path, runs: pd.DataFrame, rope: float = pairwise.ROPE, among: Collection[str] | None = None
) -> Leaderboard:
    """The leaderboard of the store's prequential runs (``runs``: :func:`records.load_runs`), or
    of its multi-label runs (:func:`store_task`).

    Args:
        rope: the Bayesian signed-rank test's region of practical equivalence, ``[-rope, rope]``
            in the primary measure's units (0.01: one accuracy or rank-loss point).
        among: a study's algorithms (its grid's): the others without runs are not listed as not
            run (None: every registered one of the task is).

    Returns:
        The leaderboard, a :class:`Leaderboard` (its ``figures`` empty: :func:`write` draws them).
    """
    from boostbench.algorithms import ALGORITHMS

    task = store_task(runs)
    chosen = online_runs(runs, task)
    rows = chosen.groupby("entry")[["algorithm", "trees", "tree_kind"]].first()
    rows["peer"] = [bool(getattr(ALGORITHMS.get(a), "peer", False)) for a in rows["algorithm"]]
    shown = measures(runs, task)
    board = Leaderboard(shown, rows, {}, {}, {}, {}, {}, {}, {}, rope=rope, task=task, primary=TASKS[task][1])
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
        if measure.title == board.primary:
            board.bayesian[measure.title] = pairwise.bayesian_signed_rank(
                wide[board.tables[measure.title]["algorithm"]], measure.higher_is_better, rope
            )
    if board.primary in board.scores:
        accuracy = board.scores[board.primary]
        for kind, same in rows[rows.index.isin(accuracy.columns)].groupby("tree_kind"):
            if len(same) >= 2:
                table, test = ranked(accuracy[same.index], shown[0], rows["trees"])
                # Holm over this table's pairs alone: the question is which ensemble, at equal trees
                pairs = pairwise.wilcoxon_holm(accuracy[table["algorithm"]], shown[0].higher_is_better)
                board.equal_trees[kind] = (table, test, pairs)
    board.not_run = not_run_reasons(results_dir, set(chosen["algorithm"]), task, among)
    board.gaps = gap_reasons(results_dir, chosen)
    return board


#: The files under ``tables/`` that :func:`write` makes and the page's leaderboard section shows
FILES = (
    "leaderboard",
    "leaderboard_scores",
    "leaderboard_tests",
    "leaderboard_wilcoxon",
    "leaderboard_bayesian",
    "leaderboard_equal_trees",
    "leaderboard_equal_trees_wilcoxon",
    "leaderboard_not_run",
    "leaderboard_notes",
)


def write(
    results_dir: str | Path,
    out_dir: str | Path,
    runs: pd.DataFrame,
    rope: float = pairwise.ROPE,
    among: Collection[str] | None = None,
    title: str | None = None,
) -> tuple[Leaderboard, list[Path]]:
    """Build the leaderboard and write it under ``out_dir``: ``tables/leaderboard.md``, and as CSV
    (one row per measure and leaderboard row, which the page reads: :data:`FILES`)
    ``leaderboard.csv``, ``leaderboard_scores.csv`` (per data set), ``leaderboard_tests.csv``
    (Friedman), ``leaderboard_wilcoxon.csv`` and ``leaderboard_bayesian.csv`` (every pair),
    ``leaderboard_equal_trees.csv`` and ``leaderboard_equal_trees_wilcoxon.csv`` (each tree kind's
    rows and pairs), ``leaderboard_not_run.csv`` (the gaps, then the
    algorithms not run, with their reasons) and ``leaderboard_notes.csv`` (the texts that say
    what the numbers are and which test answers which question); and under ``figures/leaderboard/``: per measure
    ``cd_<metric>`` (when the Friedman test rejects equal ranks), ``wilcoxon_<metric>``,
    ``bayesian_final_accuracy``, per data set ``pareto_<dataset>`` and per stream
    ``curves_<dataset>`` (PNG and PDF, their captions inside). ``title`` heads the Markdown
    (default: "Leaderboard of" the store's folder name, never its local path).

    Returns:
        The leaderboard, a :class:`Leaderboard` (its ``figures`` filled), and every path written.
    """
    out = Path(out_dir)
    board = build(results_dir, runs, rope, among)
    tables = out / "tables"
    title = title or f"Leaderboard of {Path(results_dir).name}"
    written = [atomic_write_text(tables / "leaderboard.md", to_markdown(board, title))]
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
                t.assign(
                    kind=k, text=test_line(test, len(t)), pairs=pairwise_summary(p), shown=cells(t, board.measures[0])
                )
                for k, (t, test, p) in board.equal_trees.items()
            ]
            or [pd.DataFrame(columns=["kind"])],
            ignore_index=True,
        )
        equal_pairs = pd.concat(
            [p.assign(kind=k) for k, (_, _, p) in board.equal_trees.items()] or [pd.DataFrame(columns=["kind"])],
            ignore_index=True,
        )
        for name, frame in (
            ("leaderboard", ranks),
            ("leaderboard_scores", per_dataset),
            ("leaderboard_tests", tests),
            ("leaderboard_wilcoxon", long(board.wilcoxon)),
            ("leaderboard_bayesian", long(board.bayesian) if board.bayesian else pd.DataFrame(columns=["measure"])),
            ("leaderboard_equal_trees", equal),
            ("leaderboard_equal_trees_wilcoxon", equal_pairs),
        ):
            written.append(atomic_write_text(tables / f"{name}.csv", frame.to_csv(index=False)))
        notes = [("intro", intro(board)), *((n, tests_text(n, rope, board.primary)) for n in TESTS_TEXT)]
        notes += [("rope", f"{rope:g}"), ("primary", board.primary)]
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
        board, results_dir, online_runs(runs, board.task), out / "figures" / "leaderboard", board.primary
    )
    return board, written + board.figures


def html_section(out: Path) -> str | None:
    """The leaderboard's section of ``summary.html`` (:mod:`boostbench.reporting.leaderboard_page`)."""
    from boostbench.reporting.leaderboard_page import html_section as section

    return section(out)
