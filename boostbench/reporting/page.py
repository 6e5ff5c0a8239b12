"""``summary.html``: a store's report as one static page, readable without a server.

Sections: one per data set and protocol (its table of groups and its curves, captioned with N,
protocol, seeds and window), the paper tables with intervals, flags and the papers' values (and
their significance tests and CD diagrams), every other table the report directory holds (the
studies, a leaderboard: any ``tables/<name>.csv`` with its ``figures/<name>/`` is shown), links
to every export, and the provenance. Figures are inlined (base64 PNG) and linked to their files
beside the page, so the page alone shows everything.
"""

from __future__ import annotations

import datetime
import os
import platform
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from boostbench import measures
from boostbench.reporting import intervals, significance, tables
from boostbench.reporting.html_parts import esc, figure, html_table, link
from boostbench.reporting.intervals import interval_cell
from boostbench.reporting.records import varying
from boostbench.reporting.wording import count_range, plural

#: The packages whose versions the provenance lists
PACKAGES = (
    "boostbench",
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "river",
    "numba",
    "hydra-core",
    "matplotlib",
    "scikit-posthocs",
)
#: Exports linked from the page, by suffix (figures are shown, their PDFs linked)
EXPORTS = (".csv", ".parquet", ".tex", ".md", ".pdf")

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:13px;margin:.5em 0 1em}
th,td{padding:3px 9px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
th{background:#f3f3f3;border-bottom:2px solid #bbb}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.flag{background:#fde8e8}.note{color:#666;font-size:12px}.caption{color:#444;font-size:13px}
figure{display:inline-block;margin:.5em;width:48%;vertical-align:top}figure img{width:100%}
figure.wide{width:90%}details{margin:.3em 0 1em}summary{cursor:pointer;font-size:13px}
figcaption{font-size:12px;color:#444}nav a{margin-right:1em}code{background:#f5f5f5;padding:0 3px}
"""


#: Decimals of the summary tables' numbers
NUMBERS = {"mean": 4, "runtime (s)": 2}


def _gamma(value: float) -> str:
    return "" if value != value else f"{value:g}"


def summary_sections(frame: pd.DataFrame, images: list[tuple[Path, str]], out: Path) -> list[str]:
    """A section per data set and protocol: its groups of runs and its figures."""
    parts = []
    for (dataset, protocol), group in frame.groupby(["dataset", "protocol"], sort=True):
        shown = pd.DataFrame(
            {
                "algorithm": group["algorithm"],
                "weak learners": group["learner"],
                "N": group["n_learners"],
                **{name: group[name].map(_gamma) if name == "gamma" else group[name] for name in varying(group)},
                "metric": group["metric"],
                "mean": group["mean"],
                "95% interval": [interval_cell(row) for row in group.itertuples()],
                "seeds": group["n_seeds"],
                "runtime (s)": group["runtime_s"],
            }
        )
        caption = (
            f"{plural(len(group), 'group')} of runs under the {protocol} protocol, N = "
            f"{', '.join(map(str, sorted(set(group['n_learners']))))}, "
            f"{count_range(group['n_seeds'], 'seed')} {'each' if len(group) > 1 else ''}".rstrip()
            + ". "
            + "; ".join(measures.describe(name) for name in dict.fromkeys(group["metric"]))
            + "."
        )
        mine = [figure(path, out, text) for path, text in images if path.name.startswith(f"{dataset}.{protocol}.")]
        parts.append(
            f"<section id='{esc(dataset)}-{esc(protocol)}'><h2>{esc(dataset)} ({esc(protocol)})</h2>"
            f"<p class='caption'>{esc(caption)}</p>"
            f"{html_table(shown, NUMBERS, right=('95% interval', 'gamma'))}{''.join(mine)}</section>"
        )
    return parts


def paper_table_html(name: str, frame: pd.DataFrame, preset: str) -> str:
    """A rebuilt paper table: per cell ``ours [interval] / paper`` (:func:`tables.cell_text`, a
    flagged one shaded), then each cell's seeds, difference, costs and note
    (:func:`tables.details`).
    """
    spec = tables.TABLES[name]
    digits = 3 if spec.higher_is_better else 4
    columns = tables.table_columns(frame)

    def cell(row) -> str:
        if not row["n_seeds"]:  # the reason under the dash
            why = row["note"] or "not run"
            return f"<td class='num note'>{esc(tables.cell_text(row, digits))}<br>{esc(why)}</td>"
        return f"<td class='num{' flag' if row['flagged'] else ''}'>{esc(tables.cell_text(row, digits))}</td>"

    head = "<th>data set</th>" + "".join(f"<th class='num'>{esc(c)}</th>" for c in columns)
    body = ""
    for dataset, group in frame.groupby("dataset", sort=False):
        by_column = {row["column"]: row for _, row in group.iterrows()}
        body += f"<tr><td>{esc(dataset)}</td>" + "".join(cell(by_column[c]) for c in columns) + "</tr>"
    extra = tables.details(name, frame)
    return (
        f"<h3>{esc(tables.caption(name, frame, preset))}</h3><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table><p class='caption'>Cells: our mean of <code>{esc(spec.metric)}</code> "
        f"over seeds [its interval] / the paper's value. ⚑ (shaded): the paper's value is outside the interval "
        f"and more than {spec.tolerance:g} away; —: no run. {esc(intervals.caption())}</p>"
        + (
            html_table(
                extra, {t: digits if d is None else d for t, (_, d) in tables.DETAIL_COLUMNS.items() if t in extra}
            )
            + "<p class='caption'>Per cell: seeds, ours − paper, the held-out score of a gamma-tuned column, our "
            "mean wall and CPU seconds, the largest peak memory (MiB), the paper's runtime in seconds (the "
            "authors' machine), and the note.</p>"
            if not extra.empty
            else ""
        )
    )


def significance_html(name: str, frame: pd.DataFrame) -> str:
    """Average ranks and the Friedman test of a rebuilt table ("" when there is nothing to rank)."""
    scores = significance.score_matrix(frame)
    if scores.shape[0] < 2 or scores.shape[1] < 2:
        return ""
    result = significance.friedman(scores, tables.TABLES[name].higher_is_better)
    ranks = pd.DataFrame({"algorithm": result["ranks"].index, "average rank": result["ranks"].to_numpy()})
    test = (
        "Friedman test: too few algorithms or data sets."
        if result["statistic"] != result["statistic"]
        else f"Friedman chi-square = {result['statistic']:.3f}, p = {result['p_value']:.4f}."
    )
    return (
        f"<p class='caption'>Average ranks over {result['n_datasets']} data sets (1 = best). {esc(test)}</p>"
        + html_table(ranks, 2)
    )


def paper_sections(out: Path) -> list[str]:
    """Each paper table written under ``out/tables`` (one per preset), with its significance and
    its figures.
    """
    parts = []
    for name in tables.TABLES:
        for path in sorted((out / "tables").glob(f"{name}*.csv")):
            preset = path.stem[len(name) + 1 :] if path.stem != name else "paper"
            if path.stem != name and not path.stem.startswith(f"{name}."):
                continue
            frame = pd.read_csv(path, keep_default_na=True)
            frame["note"] = frame["note"].fillna("")
            pictures = [
                figure(p, out, f"{path.stem}: {p.stem.replace('_', ' ')}")
                for p in sorted((out / "figures" / path.stem).glob("*.png"))
            ]
            exports = ", ".join(
                link(p, out, p.suffix[1:])
                for p in sorted(path.parent.glob(f"{path.stem}.*"))
                if p.suffix in (".md", ".tex", ".csv")
            )
            parts.append(
                f"<section id='{esc(path.stem)}'>{paper_table_html(name, frame, preset)}"
                f"<p>Exports: {exports}</p>{significance_html(name, frame)}{''.join(pictures)}</section>"
            )
    return parts


def other_sections(out: Path, known: set[str]) -> list[str]:
    """Any other table the report directory has (``tables/<name>.csv``: the studies, a
    leaderboard), with the figures under ``figures/<name>/``.
    """
    parts = []
    for path in sorted((out / "tables").glob("*.csv")):
        if path.stem in known or any(path.stem == n or path.stem.startswith(f"{n}.") for n in tables.TABLES):
            continue
        try:
            frame = pd.read_csv(path)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
            continue  # not a table this page can show; still linked among the exports
        count = next((c for c in ("n_seeds", "n") if c in frame.columns), None)
        ran = frame if count is None else frame[frame[count] > 0]
        if ran.empty:
            continue
        left = (
            f"<p class='caption'>{len(frame) - len(ran)} rows without runs left out "
            f"({link(path, out, path.name)} has them).</p>"
            if len(ran) < len(frame)
            else ""
        )
        pictures = [
            figure(p, out, f"{path.stem}: {p.stem.replace('_', ' ')}")
            for p in sorted((out / "figures" / path.stem).glob("*.png"))
        ]
        parts.append(
            f"<section id='{esc(path.stem)}'><h3>{esc(path.stem)}</h3>{html_table(ran)}{left}"
            f"{''.join(pictures)}</section>"
        )
    return parts


def exports(out: Path) -> str:
    """Links to every exported file under ``out`` (tables, parquet, PDFs)."""
    files = sorted(
        p for p in out.rglob("*") if p.is_file() and p.suffix in EXPORTS and "runs" not in p.relative_to(out).parts[:1]
    )
    return "<ul>" + "".join(f"<li>{link(p, out)}</li>" for p in files) + "</ul>"


def provenance(frame: pd.DataFrame, command: str) -> str:
    """Who made the page and the runs: the command, code fingerprints, package versions, machine,
    date.
    """
    from boostbench.system.fingerprint import code_fingerprint, peer_fingerprint

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    rows = [
        ("command", command),
        ("date (UTC)", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")),
        ("code fingerprint (this report)", f"{code_fingerprint()} (ours), {peer_fingerprint()} (peers')"),
        (
            "code fingerprints (the runs)",
            ", ".join(sorted(set(np.concatenate([c.split(", ") for c in frame["code"]])))),
        ),
        ("machine", f"{platform.node()}: {platform.platform()}, {os.cpu_count()} CPUs"),
        ("Python", platform.python_version()),
        *((name, version(name)) for name in PACKAGES),
    ]
    return html_table(pd.DataFrame(rows, columns=["what", "value"]))


def render(frame: pd.DataFrame, store: str, images: list[tuple[Path, str]], out: Path, command: str) -> str:
    """The page. ``frame``: the summary (:func:`boostbench.reporting.summary.summarize`);
    ``images``: the summary's PNGs with their captions; ``out``: the report directory (links
    are relative to it); ``command``: the command line that wrote the report (its provenance).
    """
    sections = summary_sections(frame, images, out)
    from boostbench.reporting import leaderboard

    papers = paper_sections(out)
    board = leaderboard.html_section(out)  # its own section: its tables in their measures' formats
    others = ([board] if board else []) + other_sections(out, {"summary", *leaderboard.FILES})
    nav = "".join(
        f"<a href='#{anchor}'>{text}</a>"
        for anchor, text, present in (
            ("runs", "runs", True),
            ("paper-tables", "paper tables", papers),
            ("other", "other tables", others),
            ("exports", "exports", True),
            ("provenance", "provenance", True),
        )
        if present
    )
    body = [
        f"<h1>boostbench report: {esc(store)}</h1>",
        f"<p class='caption'>{plural(len(frame), 'group')} of runs that differ only by seed, "
        f"{plural(int(frame['n_seeds'].sum()), 'run')}. {esc(intervals.caption(folds=True))}</p><nav>{nav}</nav>",
        "<h2 id='runs'>Runs by data set</h2>",
        *sections,
    ]
    if papers:
        body += ["<h2 id='paper-tables'>Paper tables</h2>", *papers]
    if others:
        body += ["<h2 id='other'>Other tables</h2>", *others]
    body += [
        "<h2 id='exports'>Exports</h2>",
        exports(out),
        "<h2 id='provenance'>Provenance</h2>",
        provenance(frame, command),
    ]
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>boostbench: {esc(store)}</title>"
        f"<style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n"
    )
