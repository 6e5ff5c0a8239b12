"""The leaderboard of a store: every online algorithm ranked over its data sets on the stream
papers' measures (accuracy, kappa-M, kappa-T, CPU seconds, RAM-hours).

For each measure: per algorithm, the mean over data sets of its mean over seeds, with a 95%
Student's t interval over data sets, and its mean rank (1 = best) over the data sets every
algorithm ran on; the Friedman test and the Nemenyi critical-difference diagram
(:mod:`boostbench.reporting.significance`, Demšar 2006). Per data set, accuracy against CPU
seconds with the Pareto front marked. A registered algorithm without runs says why it has none
(the reason of its failed jobs, e.g. a peer whose library is absent), and so does each data set an
algorithm that ran elsewhere has no run on (a gap in its mean).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.reporting import significance
from boostbench.reporting.figures import new_figure, save_figure
from boostbench.reporting.html_parts import esc, figure, html_table, link
from boostbench.reporting.tables import confidence_interval
from boostbench.system.files import atomic_write_text


@dataclass(frozen=True)
class Measure:
    """A leaderboard column: the record's metric, its title, its direction, its number format
    (RAM-hours of a small model are around 1e-8: significant digits) and what it measures.
    """

    metric: str
    title: str
    higher_is_better: bool
    fmt: str
    what: str


_FINAL = "over the final part of each pass (the protocol's final_fraction: the last 20% of a prequential pass)"
MEASURES = (
    Measure("final_accuracy", "accuracy", True, ".4f", f"`final_accuracy`: accuracy {_FINAL}"),
    Measure(
        "final_kappa_m",
        "kappa-M",
        True,
        ".4f",
        "`final_kappa_m`: the accuracy gained over the majority-class classifier, same part (Bifet et al. 2015)",
    ),
    Measure(
        "final_kappa_t",
        "kappa-T",
        True,
        ".4f",
        "`final_kappa_t`: the accuracy gained over the no-change classifier, same part (Žliobaitė et al. 2015)",
    ),
    Measure(
        "cpu_s",
        "CPU s",
        False,
        ".3g",
        "`cpu_s`: CPU seconds of the pass, every thread (kernel compilation and cache fills left out)",
    ),
    Measure(
        "ram_hours",
        "RAM-hours",
        False,
        ".3g",
        "`ram_hours`: MOA's RAM-hours, GiB of model memory x hours of CPU time, over the pass",
    ),
)


@dataclass
class Leaderboard:
    """What :func:`build` finds in a store (and :func:`write` puts in files).

    Attributes:
        scores: per measure title, a data sets × algorithms frame of means over seeds.
        tables: per measure title, one row per algorithm: ``mean``, ``ci_low``, ``ci_high`` (95%,
            over data sets), ``mean_rank`` (over the data sets every algorithm ran on, 1 = best),
            ``n_datasets``, sorted by rank.
        tests: per measure title, :func:`significance.friedman`'s result.
        not_run: algorithm -> why it has no run (``"not run: <reason>"``).
        gaps: ``(algorithm, data set)`` -> why an algorithm with runs elsewhere has none on that
            data set of the store (``"not run: <reason>"``), in algorithm then data set order.
        figures: the paths written (CD diagrams, Pareto plots), by :func:`write`.
    """

    scores: dict[str, pd.DataFrame]
    tables: dict[str, pd.DataFrame]
    tests: dict[str, dict]
    not_run: dict[str, str]
    gaps: dict[tuple[str, str], str] = field(default_factory=dict)
    figures: list[Path] = field(default_factory=list)


def _online_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The prequential runs of multiclass online algorithms, labelled by algorithm (and N where
    the store has several).
    """
    from boostbench.algorithms import ALGORITHMS

    online = [name for name, spec in ALGORITHMS.items() if spec.family == "online" and spec.task == "multiclass"]
    chosen = runs[(runs["protocol"] == "prequential") & runs["algorithm"].isin(online)].copy()
    several = chosen.groupby("algorithm")["n_learners"].transform("nunique") > 1
    chosen["entry"] = chosen["algorithm"].where(
        ~several, chosen["algorithm"] + " N=" + chosen["n_learners"].astype(str)
    )
    return chosen


NO_RUN = "no run in this store"


def _failures(results_dir: str | Path) -> dict[tuple[str, str | None], str]:
    """The reason of the latest failed job (``failed/*.json``) of each algorithm, keyed
    ``(algorithm, data set)`` and ``(algorithm, None)`` (any data set).
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
        reason = " ".join(str(record.get("reason", "")).split())
        for key in ((name, None), (name, None if dataset is None else str(dataset))):
            if when >= latest.get(key, (-1.0, ""))[0]:
                latest[key] = (when, reason)
    return {key: reason for key, (_, reason) in latest.items()}


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
    """``"not run: <reason>"`` for each (algorithm, data set) of the store's online runs where that
    algorithm has runs on other data sets but none on this one (``chosen``: :func:`_online_runs`).
    """
    failures = _failures(results_dir)
    ran = chosen.groupby("entry")["algorithm"].first()
    cells = set(zip(chosen["entry"], chosen["dataset"]))
    return {
        (entry, dataset): "not run: " + failures.get((ran[entry], dataset), NO_RUN)
        for entry in sorted(ran.index)
        for dataset in sorted(chosen["dataset"].unique())
        if (entry, dataset) not in cells
    }


def _ranked(scores: pd.DataFrame, measure: Measure) -> tuple[pd.DataFrame, dict]:
    complete = scores.dropna(axis=0, how="any")
    test = significance.friedman(complete, measure.higher_is_better)
    rows = []
    for entry in scores.columns:
        values = scores[entry].dropna().to_numpy(dtype=float)
        low, high = confidence_interval(values)
        rows.append(
            {
                "algorithm": entry,
                "mean": float(values.mean()) if len(values) else np.nan,
                "ci_low": low,
                "ci_high": high,
                "mean_rank": float(test["ranks"].get(entry, np.nan)),
                "n_datasets": len(values),
            }
        )
    table = pd.DataFrame(rows).sort_values(["mean_rank", "mean"], ascending=[True, not measure.higher_is_better])
    return table.reset_index(drop=True), test


def build(results_dir: str | Path, runs: pd.DataFrame) -> Leaderboard:
    """The leaderboard of the store's prequential runs (``runs``: :func:`records.load_runs`).

    Returns:
        A :class:`Leaderboard` (its ``figures`` empty: :func:`write` draws them).
    """
    chosen = _online_runs(runs)
    scores, tables, tests = {}, {}, {}
    for measure in MEASURES:
        wide = chosen.groupby(["dataset", "entry"])[measure.metric].mean().unstack("entry")
        wide = wide.dropna(axis=1, how="all")  # records older than the measure have none
        if wide.empty:
            continue
        scores[measure.title] = wide
        tables[measure.title], tests[measure.title] = _ranked(wide, measure)
    return Leaderboard(
        scores, tables, tests, not_run_reasons(results_dir, set(chosen["algorithm"])), gap_reasons(results_dir, chosen)
    )


def _cell(mean: float, low: float, high: float, fmt: str, n: int) -> str:
    """``mean ± half-width``; without an interval (fewer than 3 data sets) ``mean (n < 3)``."""
    if mean != mean:
        return "—"
    if low != low:
        return f"{mean:{fmt}} (n < 3)" if n < 3 else f"{mean:{fmt}}"
    return f"{mean:{fmt}} ± {(high - low) / 2:{fmt}}"


def _rank(rank: float) -> str:
    return "—" if rank != rank else f"{rank:.2f}"


def to_markdown(board: Leaderboard, store: str) -> str:
    """The leaderboard as Markdown: one table per measure, its Friedman test, the algorithms not run."""
    lines = [
        f"# Leaderboard of {store}",
        "",
        "Mean over data sets of each algorithm's mean over seeds ± the half-width of its 95% Student's t "
        "interval over data sets; mean rank (1 = best) over the data sets every algorithm ran on.",
        "",
    ]
    for measure in MEASURES:
        if measure.title not in board.tables:
            continue
        lines += [
            f"## {measure.title} ({'higher' if measure.higher_is_better else 'lower'} is better)",
            "",
            measure.what + ".",
            "",
            "| algorithm | mean ± 95% CI | mean rank | data sets |",
            "|---|---|---|---|",
        ]
        for row in board.tables[measure.title].itertuples():
            lines.append(
                f"| {row.algorithm} | {_cell(row.mean, row.ci_low, row.ci_high, measure.fmt, row.n_datasets)} "
                f"| {_rank(row.mean_rank)} | {row.n_datasets} |"
            )
        lines += ["", _test_line(board.tests[measure.title], len(board.tables[measure.title])), ""]
    if board.gaps:
        lines += [
            "## Gaps (an algorithm without runs on a data set: its mean is over fewer data sets)",
            "",
            "| algorithm | data set | why |",
            "|---|---|---|",
        ]
        lines += [f"| {entry} | {dataset} | {why} |" for (entry, dataset), why in board.gaps.items()]
        lines.append("")
    if board.not_run:
        lines += ["## Not run", "", "| algorithm | why |", "|---|---|"]
        lines += [f"| {names} | {why} |" for names, why in not_run_rows(board.not_run)]
    return "\n".join(lines) + "\n"


def not_run_rows(not_run: dict[str, str]) -> list[tuple[str, str]]:
    """``(algorithms, why)`` rows: one per reason, its algorithms comma-separated (a store that
    ran a few algorithms leaves most of the registry with the one reason that it has no run).
    """
    grouped: dict[str, list[str]] = {}
    for name, why in not_run.items():
        grouped.setdefault(why, []).append(name)
    return [(", ".join(names), why) for why, names in grouped.items()]


def _test_line(test: dict, k: int) -> str:
    if test["statistic"] != test["statistic"]:
        return f"Friedman test: too few algorithms or data sets ({test['n_datasets']} complete)."
    line = (
        f"Friedman chi-square = {test['statistic']:.3f}, p = {test['p_value']:.4g} over {test['n_datasets']} data sets"
    )
    if test["p_value"] < significance.ALPHA:
        cd = significance.critical_difference(k, test["n_datasets"])
        return line + f"; Nemenyi critical difference {cd:.2f} (alpha = {significance.ALPHA:g})."
    return line + f"; equal ranks not rejected at alpha = {significance.ALPHA:g} (no post-hoc test)."


def pareto_front(cost: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats on both axes (lower ``cost``, higher ``score``;
    ties in both count as not beaten), in increasing cost.

    Args:
        cost, score: ``(m,)`` float64.
    """
    order = np.lexsort((-score, cost))  # by cost, the better score first among equal costs
    front, best = [], -np.inf
    for i in order:
        if score[i] > best:
            front.append(int(i))
            best = score[i]
    return np.asarray(front, dtype=np.int64)


def pareto_plot(scores: pd.Series, costs: pd.Series, stem: Path, dataset: str) -> list[Path]:
    """Accuracy (``scores``, per algorithm) against CPU seconds (``costs``, log scale) on one data
    set, the Pareto front drawn as a step line through its points. PNG and PDF; the paths.
    """
    both = pd.concat({"score": scores, "cost": costs}, axis=1).dropna()
    if both.empty:
        return []
    cost, score = both["cost"].to_numpy(dtype=float), both["score"].to_numpy(dtype=float)
    front = pareto_front(cost, score)
    fig, ax = new_figure((6.4, 4.2))
    ax.scatter(cost, score, color="0.55", zorder=2)
    ax.step(cost[front], score[front], where="post", color="tab:red", zorder=1, label="Pareto front")
    ax.scatter(cost[front], score[front], color="tab:red", zorder=3)
    for name, x, y in zip(both.index, cost, score):
        ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
    if cost.min() > 0:
        ax.set_xscale("log")
    ax.margins(x=0.15, y=0.1)  # room for the names of the outermost points
    ax.set_xlabel("CPU seconds of the pass (mean over seeds)")
    ax.set_ylabel("accuracy, final window (mean over seeds)")
    ax.set_title(f"{dataset}: accuracy against CPU time")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, stem)


def write(results_dir: str | Path, out_dir: str | Path, runs: pd.DataFrame) -> tuple[Leaderboard, list[Path]]:
    """Build the leaderboard and write it: ``tables/leaderboard.md``, ``tables/leaderboard.csv``
    (one row per measure and algorithm), ``tables/leaderboard_scores.csv`` (per data set),
    ``tables/leaderboard_tests.csv`` (the Friedman tests) and ``tables/leaderboard_not_run.csv``
    (the gaps, then the algorithms not run, with their reasons; :func:`html_section` reads them),
    ``figures/leaderboard/cd_<measure>.{png,pdf}`` (when the Friedman test rejects equal ranks)
    and ``figures/leaderboard/pareto_<dataset>.{png,pdf}``.

    Returns:
        The :class:`Leaderboard` (its ``figures`` filled: the summary page includes them) and
        every path written.
    """
    out = Path(out_dir)
    board = build(results_dir, runs)
    written = [atomic_write_text(out / "tables" / "leaderboard.md", to_markdown(board, str(results_dir)))]
    if board.tables:
        long = pd.concat([t.assign(measure=m) for m, t in board.tables.items()], ignore_index=True)
        written.append(atomic_write_text(out / "tables" / "leaderboard.csv", long.to_csv(index=False)))
        per_dataset = pd.concat(
            [s.stack().rename("mean").reset_index().assign(measure=m) for m, s in board.scores.items()],
            ignore_index=True,
        )
        written.append(atomic_write_text(out / "tables" / "leaderboard_scores.csv", per_dataset.to_csv(index=False)))
        tests = pd.DataFrame(
            [
                {
                    "measure": m,
                    "statistic": t["statistic"],
                    "p_value": t["p_value"],
                    "n_datasets": t["n_datasets"],
                    "text": _test_line(t, len(board.tables[m])),
                }
                for m, t in board.tests.items()
            ]
        )
        written.append(atomic_write_text(out / "tables" / "leaderboard_tests.csv", tests.to_csv(index=False)))
    missing = [{"algorithm": e, "dataset": d, "why": why} for (e, d), why in board.gaps.items()]
    missing += [{"algorithm": names, "dataset": "", "why": why} for names, why in not_run_rows(board.not_run)]
    written.append(
        atomic_write_text(
            out / "tables" / "leaderboard_not_run.csv",
            pd.DataFrame(missing, columns=["algorithm", "dataset", "why"]).to_csv(index=False),
        )
    )
    figures = out / "figures" / "leaderboard"
    for measure in MEASURES:
        if measure.title in board.scores:
            complete = board.scores[measure.title].dropna(axis=0, how="any")
            board.figures += significance.cd_diagram(
                complete,
                measure.higher_is_better,
                figures / f"cd_{measure.metric}",
                f"{measure.title}: mean ranks",
                board.tests[measure.title]["p_value"],
            )
    if "accuracy" in board.scores and "CPU s" in board.scores:
        for dataset in board.scores["accuracy"].index:
            board.figures += pareto_plot(
                board.scores["accuracy"].loc[dataset],
                board.scores["CPU s"].loc[dataset],
                figures / f"pareto_{dataset}",
                dataset,
            )
    return board, written + board.figures


def rich_tables(board: Leaderboard) -> list:
    """The leaderboard as rich tables, one per measure, and one of the algorithms not run."""
    from rich.table import Table

    shown = []
    for measure in MEASURES:
        if measure.title not in board.tables:
            continue
        table = Table(
            title=f"{measure.title} ({'higher' if measure.higher_is_better else 'lower'} is better)",
            caption=_test_line(board.tests[measure.title], len(board.tables[measure.title])),
        )
        for column in ("algorithm", "mean ± 95% CI", "mean rank", "data sets"):
            table.add_column(column, justify="left" if column == "algorithm" else "right")
        for row in board.tables[measure.title].itertuples():
            table.add_row(
                row.algorithm,
                _cell(row.mean, row.ci_low, row.ci_high, measure.fmt, row.n_datasets),
                _rank(row.mean_rank),
                str(row.n_datasets),
            )
        shown.append(table)
    if board.gaps:
        table = Table(title="gaps (an algorithm without runs on a data set: its mean is over fewer data sets)")
        for column in ("algorithm", "data set", "why"):
            table.add_column(column)
        for (entry, dataset), why in board.gaps.items():
            table.add_row(entry, dataset, why)
        shown.append(table)
    if board.not_run:
        table = Table(title="not run")
        table.add_column("algorithm")
        table.add_column("why")
        for names, why in not_run_rows(board.not_run):
            table.add_row(names, why)
        shown.append(table)
    return shown


#: The files under ``tables/`` that :func:`write` makes and :func:`html_section` shows
FILES = ("leaderboard", "leaderboard_scores", "leaderboard_tests", "leaderboard_not_run")


def html_section(out: Path) -> str | None:
    """The leaderboard's section of ``summary.html``, from the files :func:`write` put under
    ``out``: per measure its table (in the measure's number format), Friedman test and CD
    diagram; the gaps and algorithms not run with their reasons; the Pareto plots. None when
    ``out`` has no leaderboard.
    """
    tables, figures = out / "tables", out / "figures" / "leaderboard"
    try:
        long = pd.read_csv(tables / "leaderboard.csv")
        tests = pd.read_csv(tables / "leaderboard_tests.csv").set_index("measure")["text"]
        missing = pd.read_csv(tables / "leaderboard_not_run.csv", keep_default_na=False)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, KeyError):
        return None
    parts = [
        "<section id='leaderboard'><h3>Leaderboard</h3><p class='caption'>Mean over data sets of each "
        "algorithm's mean over seeds ± the half-width of its 95% Student's t interval over data sets (none "
        "below 3 data sets: n &lt; 3); mean rank (1 = best) over the data sets every algorithm ran on. "
        f"Exports: {', '.join(link(tables / f'leaderboard{s}', out, f'leaderboard{s}') for s in ('.md', '.csv'))}"
        ".</p>"
    ]
    for measure in MEASURES:
        rows = long[long["measure"] == measure.title]
        if rows.empty:
            continue
        shown = pd.DataFrame(
            {
                "algorithm": rows["algorithm"],
                "mean ± 95% CI": [
                    _cell(r.mean, r.ci_low, r.ci_high, measure.fmt, r.n_datasets) for r in rows.itertuples()
                ],
                "mean rank": [_rank(r) for r in rows["mean_rank"]],
                "data sets": rows["n_datasets"],
            }
        )
        cd = figures / f"cd_{measure.metric}.png"
        parts += [
            f"<h4>{esc(measure.title)} ({'higher' if measure.higher_is_better else 'lower'} is better)</h4>",
            f"<p class='caption'>{esc(measure.what)}.</p>",
            html_table(shown),
            f"<p class='caption'>{esc(tests.get(measure.title, ''))}</p>",
            figure(cd, out, f"{measure.title}: Nemenyi critical-difference diagram") if cd.is_file() else "",
        ]
    gaps, not_run = missing[missing["dataset"] != ""], missing[missing["dataset"] == ""]
    if len(gaps):
        parts += [
            "<h4>Gaps (an algorithm without runs on a data set: its mean is over fewer data sets)</h4>",
            html_table(gaps),
        ]
    if len(not_run):
        parts += ["<h4>Not run</h4>", html_table(not_run[["algorithm", "why"]])]
    pareto = sorted(figures.glob("pareto_*.png"))
    if pareto:
        parts.append("<h4>Accuracy against CPU seconds per data set (Pareto front in red)</h4>")
        parts += [figure(p, out, f"{p.stem.removeprefix('pareto_')}: accuracy against CPU seconds") for p in pareto]
    return "".join(parts) + "</section>"
