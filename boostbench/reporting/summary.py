"""The report of any store: every group of runs that differ only by seed, as a table (mean and 95%
interval over seeds of any metric), learning curves with seed bands, and a one-page HTML summary.

The paper tables (:mod:`boostbench.reporting.tables`) pick cells out of the same runs; this
report leaves nothing out: a sweep over data sets, N or settings no paper used shows here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.reporting import figures, page
from boostbench.reporting.intervals import caption, clipped, confidence_interval, interval_cell, metric_range
from boostbench.system.files import atomic_write_text

#: A protocol's headline metric and whether higher is better
PRIMARY = {
    "prequential": ("final_accuracy", True),
    "train_test": ("test_rank_loss", False),
    "kfold": ("test_error", False),
    "holdout": ("test_error", False),
}
#: The curve of a protocol's main figure; the others get a figure each, named after them
PRIMARY_CURVES = ("cumulative_accuracy", "test_rank_loss")
#: What a group of runs shares: everything but the seed (``settings`` holds every other key)
GROUP = ["dataset", "protocol", "algorithm", "learner", "n_learners", "gamma", "preset", "settings"]
SHOWN = ["dataset", "protocol", "algorithm", "learner", "n_learners", "gamma", "preset"]


def summarize(runs: pd.DataFrame, metric: str | None = None) -> pd.DataFrame:
    """One row per group of runs (:data:`GROUP`): ``metric`` (default: each protocol's headline,
    :data:`PRIMARY`) as ``mean``, ``ci_low``, ``ci_high`` (95%, Student's t over seeds, clipped to the
    metric's range and then ``clipped``; NaN below 3 seeds), ``n_seeds`` (the seeds with a value),
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
        bounds = metric_range(name)
        low, high = confidence_interval(values, bounds=bounds)
        rows.append(
            {
                **dict(zip(GROUP, key)),
                "metric": name,
                "mean": float(values.mean()) if len(values) else np.nan,
                "ci_low": low,
                "ci_high": high,
                "clipped": clipped(values, bounds),
                "n_seeds": int(group.loc[group[name].notna(), "seed"].nunique()),  # those the mean has
                "runtime_s": float(group["runtime_s"].mean()),
                "code": ", ".join(sorted(c or "(before fingerprints)" for c in group["code"].unique())),
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    # settings digests are unreadable: number the variants of one data set x algorithm instead
    frame["variant"] = frame.groupby(["dataset", "protocol", "algorithm"])["settings"].transform(
        lambda s: pd.factorize(s)[0] + 1
    )
    return frame


def to_markdown(frame: pd.DataFrame, store: str) -> str:
    """The summary as Markdown: one line per group, ``mean [95% CI] (n seeds)``."""
    lines = [
        f"# Runs in {store}",
        "",
        "| " + " | ".join([*SHOWN, "variant", "metric", "mean [95% CI]", "seeds", "runtime (s)", "code"]) + " |",
        "|" + "---|" * (len(SHOWN) + 6),
    ]
    for row in frame.itertuples():
        gamma = "" if row.gamma != row.gamma else f"{row.gamma:g}"
        interval = interval_cell(row)
        interval = f" {interval}" if interval else ""
        lines.append(
            f"| {row.dataset} | {row.protocol} | {row.algorithm} | {row.learner} | {row.n_learners} | {gamma} "
            f"| {row.preset} | {row.variant} | {row.metric} | {row.mean:.4f}{interval} | {row.n_seeds} "
            f"| {row.runtime_s:.2f} | {row.code} |"
        )
    lines += [
        "",
        "One line per group of runs that differ only by seed; variant numbers the settings of one data "
        "set and algorithm (any key besides seed, gamma, N and preset). "
        + caption()
        + " code: the fingerprint of the code that computed the runs.",
    ]
    return "\n".join(lines) + "\n"


def curve_figures(
    results_dir: str | Path, runs: pd.DataFrame, out_dir: Path
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Learning curves of every online group (PNG and PDF), one figure per data set, protocol,
    N and curve: a line per algorithm, gamma, preset and variant with its 95% band over seeds (no
    windowed-accuracy figure where the window spans the stream: it is the cumulative one).

    Returns:
        The paths written, and each PNG with its caption (:func:`figure_caption`).
    """
    online = runs[runs["protocol"].isin(["prequential", "train_test"])]
    if online.empty:
        return [], []
    long = figures.curves(results_dir, online).merge(online, on="key")
    variants = summarize(online)[GROUP + ["variant"]]
    long = long.merge(variants, on=GROUP, how="left")
    written, shown = [], []
    for (dataset, protocol, n, metric), group in long.groupby(["dataset", "protocol", "n_learners", "metric"]):
        window = group["window"].max()
        whole = metric in figures.WINDOWED and window >= group["x"].max()  # the window spans the stream
        if whole and metric == "windowed_accuracy":
            continue  # it is the cumulative accuracy: that figure is drawn already
        fig, ax = figures.new_figure((7.5, 4.5))
        for (algorithm, gamma, preset, variant), sub in group.groupby(
            ["algorithm", "gamma", "preset", "variant"], dropna=False
        ):
            label = algorithm + (f" ({figures.CURVE_NOTES[algorithm]})" if algorithm in figures.CURVE_NOTES else "")
            label += "".join(
                [
                    f", gamma={gamma:g}" if gamma == gamma else "",
                    f", {preset}" if preset != "paper" else "",
                    f", variant {variant}" if variant > 1 else "",
                ]
            )
            figures.plot_band(ax, sub, label)
        xlabel, ylabel = figures.LABELS[metric]
        caption = figure_caption(dataset, protocol, n, metric, group)
        ax.set(xlabel=xlabel, ylabel=ylabel, title=caption)
        figures.fit_y(ax, bounds=metric_range(metric))
        ax.grid(alpha=0.3)
        figures.style_legend(ax)
        fig.tight_layout()
        suffix = "" if metric in PRIMARY_CURVES else f".{metric}"
        paths = figures.save_figure(fig, out_dir / f"{dataset}.{protocol}.N{n}{suffix}")
        written += paths
        shown.append((paths[0], caption.replace("\n", "; ")))
    return written, shown


def figure_caption(dataset: str, protocol: str, n: int, metric: str, group: pd.DataFrame) -> str:
    """A summary figure's title: data set, what is plotted, N, protocol, seeds and window."""
    what = figures.LABELS[metric][1]
    seeds = sorted(group.groupby(["algorithm", "gamma", "preset", "variant"], dropna=False)["seed"].nunique().unique())
    seeds_text = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
    window = ""
    if metric in figures.WINDOWED:
        w = int(group["window"].max())
        window = f", window {w}" if w < group["x"].max() else f", window {w} (longer than the stream: cumulative)"
    return f"{dataset}: {what}\nN = {n}, {protocol}, {seeds_text} seeds{window}"


def write(
    results_dir: str | Path, out_dir: Path, runs: pd.DataFrame, metric: str | None = None
) -> tuple[pd.DataFrame, list[Path]]:
    """Write ``tables/summary.{md,csv}``, ``figures/summary/<dataset>.<protocol>.N<n>.{png,pdf}`` and
    ``summary.html`` (:mod:`boostbench.reporting.page`: it shows the paper tables and other
    tables already under ``out_dir`` too).

    Returns:
        The summary frame (:func:`summarize`) and the paths written.
    """
    frame = summarize(runs, metric)
    if frame.empty:
        return frame, []
    out_dir = Path(out_dir)
    written = [
        atomic_write_text(out_dir / "tables" / "summary.md", to_markdown(frame, str(results_dir))),
        atomic_write_text(out_dir / "tables" / "summary.csv", frame.to_csv(index=False)),
    ]
    images, shown = curve_figures(results_dir, runs, out_dir / "figures" / "summary")
    written += images
    written.append(atomic_write_text(out_dir / "summary.html", page.render(frame, str(results_dir), shown, out_dir)))
    return frame, written
