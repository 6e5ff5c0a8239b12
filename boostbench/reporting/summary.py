"""The report of any store: every group of runs that differ only by seed, as a table (mean and 95%
interval over seeds of any metric), learning curves with seed bands, and a one-page HTML summary.

The paper tables (:mod:`boostbench.reporting.tables`) pick cells out of the same runs; this
report leaves nothing out: a sweep over data sets, N or settings no paper used shows here.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.reporting import figures
from boostbench.reporting.tables import confidence_interval
from boostbench.store import atomic_write_text

#: A protocol's headline metric and whether higher is better
PRIMARY = {"prequential": ("final_accuracy", True), "train_test": ("test_rank_loss", False),
           "kfold": ("test_error", False), "holdout": ("test_error", False)}
#: The curve of a protocol's main figure; the others get a figure each, named after them
PRIMARY_CURVES = ("cumulative_accuracy", "test_rank_loss")
#: What a group of runs shares: everything but the seed (``settings`` holds every other key)
GROUP = ["dataset", "protocol", "algorithm", "learner", "n_learners", "gamma", "preset", "settings"]
SHOWN = ["dataset", "protocol", "algorithm", "learner", "n_learners", "gamma", "preset"]


def summarize(runs: pd.DataFrame, metric: str | None = None) -> pd.DataFrame:
    """One row per group of runs (:data:`GROUP`): ``metric`` (default: each protocol's headline,
    :data:`PRIMARY`) as ``mean``, ``ci_low``, ``ci_high`` (95%, Student's t over seeds), ``n_seeds``,
    mean ``runtime_s`` (seconds), the code fingerprints that made the runs (``code``), and
    ``variant`` (1, 2, ... when one data set and algorithm has several settings).

    Raises:
        KeyError: ``metric`` is not a column of the runs (see :data:`records.COLUMNS`).
    """
    if metric is not None and metric not in runs.columns:
        raise KeyError(metric)
    rows = []
    for key, group in runs.groupby(GROUP, dropna=False, sort=True):
        name = metric or PRIMARY.get(group["protocol"].iloc[0], ("final_accuracy", True))[0]
        values = group[name].to_numpy(dtype=float)
        values = values[~np.isnan(values)]
        low, high = confidence_interval(values)
        rows.append({**dict(zip(GROUP, key)), "metric": name, "mean": float(values.mean()) if len(values) else np.nan,
                     "ci_low": low, "ci_high": high, "n_seeds": int(group["seed"].nunique()),
                     "runtime_s": float(group["runtime_s"].mean()),
                     "code": ", ".join(sorted(c or "(before fingerprints)" for c in group["code"].unique()))})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    # settings digests are unreadable: number the variants of one data set x algorithm instead
    frame["variant"] = frame.groupby(["dataset", "protocol", "algorithm"])["settings"].transform(
        lambda s: pd.factorize(s)[0] + 1)
    return frame


def to_markdown(frame: pd.DataFrame, store: str) -> str:
    """The summary as Markdown: one line per group, ``mean [95% CI] (n seeds)``."""
    lines = [f"# Runs in {store}", "", "| " + " | ".join([*SHOWN, "variant", "metric", "mean [95% CI]", "seeds",
                                                          "runtime (s)", "code"]) + " |",
             "|" + "---|" * (len(SHOWN) + 6)]
    for row in frame.itertuples():
        gamma = "" if row.gamma != row.gamma else f"{row.gamma:g}"
        interval = "" if row.ci_low != row.ci_low else f" [{row.ci_low:.4f}, {row.ci_high:.4f}]"
        lines.append(f"| {row.dataset} | {row.protocol} | {row.algorithm} | {row.learner} | {row.n_learners} | {gamma} "
                     f"| {row.preset} | {row.variant} | {row.metric} | {row.mean:.4f}{interval} | {row.n_seeds} "
                     f"| {row.runtime_s:.2f} | {row.code} |")
    lines += ["", "One line per group of runs that differ only by seed; variant numbers the settings of one data "
              "set and algorithm (any key besides seed, gamma, N and preset). Interval: 95%, Student's t over "
              "seeds (none below 2 seeds). code: the fingerprint of the code that computed the runs."]
    return "\n".join(lines) + "\n"


def curve_figures(results_dir: str | Path, runs: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Learning curves of every online group (PNG and PDF), one figure per data set, protocol and
    N: a line per algorithm, gamma, preset and variant with its 95% band over seeds."""
    online = runs[runs["protocol"].isin(["prequential", "train_test"])]
    if online.empty:
        return []
    long = figures.curves(results_dir, online).merge(online, on="key")
    variants = summarize(online)[GROUP + ["variant"]]
    long = long.merge(variants, on=GROUP, how="left")
    written = []
    for (dataset, protocol, n, metric), group in long.groupby(["dataset", "protocol", "n_learners", "metric"]):
        fig, ax = figures.new_figure((7.5, 4.5))
        for (algorithm, gamma, preset, variant), sub in group.groupby(["algorithm", "gamma", "preset", "variant"],
                                                                       dropna=False):
            label = algorithm + (f" ({figures.CURVE_NOTES[algorithm]})" if algorithm in figures.CURVE_NOTES else "")
            label += "".join([f", gamma={gamma:g}" if gamma == gamma else "", f", {preset}" if preset != "paper" else "",
                              f", variant {variant}" if variant > 1 else ""])
            figures.plot_band(ax, sub, label)
        xlabel, ylabel = figures.LABELS[metric]
        window = f", window {int(group['window'].iloc[0])}" if metric in figures.WINDOWED else ""
        ax.set(xlabel=xlabel, ylabel=ylabel, title=f"{dataset}: N = {n}, {protocol}{window}")
        figures.fit_y(ax, bounds=figures.RANGES.get(metric, (0.0, 1.0)))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
        fig.tight_layout()
        suffix = "" if metric in PRIMARY_CURVES else f".{metric}"
        written += figures.save_figure(fig, out_dir / f"{dataset}.{protocol}.N{n}{suffix}")
    return written


def to_html(frame: pd.DataFrame, store: str, images: list[Path], tables: list[Path], out: Path) -> str:
    """A one-page HTML summary of a store: the table, the figures, links to the paper tables."""
    table = frame.drop(columns=["settings"]).to_html(index=False, float_format=lambda v: f"{v:.4f}", na_rep="",
                                                     border=0, classes="runs")
    parts = [f"<!doctype html><meta charset='utf-8'><title>boostbench: {html.escape(store)}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table.runs{border-collapse:collapse;font-size:13px}"
             "td,th{padding:2px 8px;border-bottom:1px solid #ddd}img{max-width:48%}</style>",
             f"<h1>Runs in {html.escape(store)}</h1>", table,
             "<p>One row per group of runs that differ only by seed; interval: 95% over seeds.</p>"]
    if tables:
        parts.append("<h2>Paper tables</h2><ul>" + "".join(
            f"<li><a href='{html.escape(p.relative_to(out).as_posix())}'>{html.escape(p.name)}</a></li>" for p in tables)
            + "</ul>")
    if images:
        parts.append("<h2>Learning curves</h2>" + "".join(
            f"<img src='{html.escape(p.relative_to(out).as_posix())}' alt='{html.escape(p.stem)}'>" for p in images))
    return "\n".join(parts) + "\n"


def write(results_dir: str | Path, out_dir: Path, runs: pd.DataFrame, metric: str | None = None
          ) -> tuple[pd.DataFrame, list[Path]]:
    """Write ``tables/summary.{md,csv}``, ``figures/summary/<dataset>.<protocol>.N<n>.{png,pdf}`` and
    ``summary.html`` (which links the paper tables already under ``out_dir``).

    Returns:
        The summary frame (:func:`summarize`) and the paths written.
    """
    frame = summarize(runs, metric)
    if frame.empty:
        return frame, []
    out_dir = Path(out_dir)
    written = [atomic_write_text(out_dir / "tables" / "summary.md", to_markdown(frame, str(results_dir))),
               atomic_write_text(out_dir / "tables" / "summary.csv", frame.to_csv(index=False))]
    images = curve_figures(results_dir, runs, out_dir / "figures" / "summary")
    written += images
    papers = sorted(p for p in (out_dir / "tables").glob("*.md") if p.stem != "summary")
    page = to_html(frame, str(results_dir), [p for p in images if p.suffix == ".png"], papers, out_dir)
    written.append(atomic_write_text(out_dir / "summary.html", page))
    return frame, written
