"""The leaderboard's section of ``summary.html``, assembled from the files
:func:`boostbench.reporting.leaderboard.write` put under the report directory (it computes
nothing: the numbers, their cells and the texts are the CSVs').
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from boostbench.reporting.figures import caption_of
from boostbench.reporting.html_parts import esc, figure, html_table, link

#: What a pairs table shows of a verdict's pairs (the rest: "no difference shown", "undecided")
DECIDED = ("a better", "b better", "equivalent")


def _read(tables: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(tables / f"{name}.csv", keep_default_na=True)


def _figure(path: Path, out: Path, wide: bool = False) -> str:
    return figure(path, out, caption_of(path) or path.stem.replace("_", " "), wide) if path.is_file() else ""


def _pairs(table: pd.DataFrame, summary: str, bayesian: bool) -> str:
    """The decided pairs of one measure, in a collapsed block under its ``summary``."""
    shown = table[table["verdict"].isin(DECIDED)]
    if shown.empty:
        return f"<p class='caption'>{esc(summary)}</p>"
    columns = (
        ["a", "b", "n_datasets", "mean_difference", "p_a_better", "p_rope", "p_b_better", "verdict"]
        if bayesian
        else ["a", "b", "n_datasets", "mean_difference", "wins", "ties", "losses", "p_value", "p_holm", "verdict"]
    )
    titles = {
        "n_datasets": "data sets",
        "mean_difference": "mean a − b",
        "p_a_better": "P(a better)",
        "p_rope": "P(equivalent)",
        "p_b_better": "P(b better)",
        "p_value": "p",
        "p_holm": "Holm's p",
    }
    frame = shown[columns].rename(columns=titles)
    return f"<details><summary>{esc(summary)} The decided pairs:</summary>{html_table(frame)}</details>"


def html_section(out: Path) -> str | None:
    """Per measure its table, Friedman test, CD diagram and the pairwise tests' matrices and
    decided pairs; the boosters at equal trees; the gaps and algorithms not run with their
    reasons; the Pareto plots and the streams' learning curves. None when ``out`` has no
    leaderboard.
    """
    tables, figures = out / "tables", out / "figures" / "leaderboard"
    try:
        long = _read(tables, "leaderboard")
        tests = pd.read_csv(tables / "leaderboard_tests.csv", keep_default_na=False).set_index("measure")
        wilcoxon = _read(tables, "leaderboard_wilcoxon")
        bayesian = _read(tables, "leaderboard_bayesian")
        equal = _read(tables, "leaderboard_equal_trees")
        equal_pairs = _read(tables, "leaderboard_equal_trees_wilcoxon")
        notes = _read(tables, "leaderboard_notes").set_index("part")["text"]
        missing = pd.read_csv(tables / "leaderboard_not_run.csv", keep_default_na=False)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, KeyError):
        return None
    exports = ", ".join(
        link(tables / f"{name}.csv", out, f"{name}.csv")
        for name in ("leaderboard", "leaderboard_scores", "leaderboard_wilcoxon", "leaderboard_bayesian")
    )
    parts = [
        "<section id='leaderboard'><h3>Leaderboard</h3>",
        f"<p class='caption'>{esc(notes.get('intro', ''))} Exports: "
        f"{link(tables / 'leaderboard.md', out, 'leaderboard.md')}, {exports}.</p>",
        "<p class='caption'>Which test answers which question:</p><ul class='caption'>",
        *(f"<li>{esc(notes.get(name, ''))}</li>" for name in ("friedman", "wilcoxon", "bayesian")),
        "</ul>",
    ]
    for measure, rows in long.groupby("measure", sort=False):
        first = rows.iloc[0]
        shown = pd.DataFrame(
            {
                "algorithm": rows["algorithm"],
                "mean [95% interval]": rows["shown"],
                "mean rank": rows["mean_rank"],
                "data sets": rows["n_datasets"],
            }
        )
        metric = str(first["metric"])
        parts += [
            f"<h4>{esc(measure)} ({'higher' if first['higher_is_better'] else 'lower'} is better)</h4>",
            f"<p class='caption'><code>{esc(metric)}</code>: {esc(first['what'])}.</p>",
            html_table(shown, {"mean rank": 2}, right=("mean [95% interval]",)),
            f"<p class='caption'>{esc(tests.loc[measure, 'text'] if measure in tests.index else '')}</p>",
            _figure(figures / f"cd_{metric}.png", out),
            _figure(figures / f"wilcoxon_{metric}.png", out),
            _figure(figures / f"bayesian_{metric}.png", out),
            "<p class='caption'>Wilcoxon signed-rank, Holm-corrected:</p>"
            + _pairs(wilcoxon[wilcoxon["measure"] == measure], tests.loc[measure, "wilcoxon"], bayesian=False),
        ]
        mine = bayesian[bayesian["measure"] == measure] if "measure" in bayesian else bayesian.iloc[0:0]
        if len(mine):
            parts.append(
                f"<p class='caption'>Bayesian signed-rank, ROPE ±{esc(notes.get('rope', ''))}:</p>"
                + _pairs(mine, tests.loc[measure, "bayesian"], bayesian=True)
            )
    if len(equal) and "algorithm" in equal:
        parts += [
            f"<h4>Boosters at equal trees ({esc(notes.get('primary', 'accuracy'))})</h4>",
            f"<p class='caption'>{esc(notes.get('equal_trees', ''))}</p>",
        ]
        for kind, rows in equal.groupby("kind", sort=False):
            frame = pd.DataFrame(
                {
                    "algorithm": rows["algorithm"],
                    "mean [95% interval]": rows["shown"],
                    "mean rank": rows["mean_rank"],
                    "data sets": rows["n_datasets"],
                }
            )
            parts += [
                f"<h5>{esc(kind)}</h5>",
                html_table(frame, {"mean rank": 2}, right=("mean [95% interval]",)),
                f"<p class='caption'>{esc(rows['text'].iloc[0])}</p>",
                "<p class='caption'>Wilcoxon signed-rank, Holm-corrected over this table's pairs:</p>"
                + _pairs(equal_pairs[equal_pairs["kind"] == kind], rows["pairs"].iloc[0], bayesian=False),
            ]
    gaps, not_run = missing[missing["dataset"] != ""], missing[missing["dataset"] == ""]
    if len(gaps):
        parts += [
            "<h4>Gaps (a row without runs on a data set: its mean is over fewer data sets, its rank over the "
            "data sets all rows share)</h4>",
            html_table(gaps.rename(columns={"dataset": "data set"})),
        ]
    if len(not_run):
        parts += ["<h4>Not run</h4>", html_table(not_run[["algorithm", "why"]])]
    pareto = sorted(figures.glob("pareto_*.png"))
    if pareto:
        parts.append("<h4>Accuracy against CPU seconds per data set (Pareto front in red)</h4>")
        parts += [_figure(p, out, wide=True) for p in pareto]
    curves = sorted(figures.glob("curves_*.png"))
    if curves:
        parts.append("<h4>Learning curves of the streams (windowed accuracy; the drift shaded)</h4>")
        parts += [_figure(p, out, wide=True) for p in curves]
    return "".join(parts) + "</section>"
