"""The report of any store: every group of runs that differ only by seed, as a table (mean and 95%
interval over seeds of any metric), learning curves with seed bands, and a one-page HTML summary.

The paper tables (:mod:`boostbench.reporting.tables`) pick cells out of the same runs; this
report leaves nothing out: a sweep over data sets, N or settings no paper used shows here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from boostbench import measures
from boostbench.reporting import figures, page
from boostbench.reporting.intervals import caption, interval_cell, measure_interval, metric_range
from boostbench.reporting.records import variant_labels
from boostbench.reporting.wording import count_range
from boostbench.system.files import atomic_write_text

#: A protocol's headline metric (its direction: :func:`boostbench.measures.higher_is_better`)
PRIMARY = {
    "prequential": "final_accuracy",
    "prequential_cv": "final_accuracy",
    "train_test": "test_rank_loss",
    "kfold": "test_error",
    "holdout": "test_error",
}
#: The protocols whose runs have curves along the examples seen (one figure per curve)
ONLINE_PROTOCOLS = ("prequential", "prequential_cv", "train_test")
#: The curve of a protocol's main figure; the others get a figure each, named after them
PRIMARY_CURVES = ("cumulative_accuracy", "test_rank_loss")
#: What a group of runs shares: everything but the seed (``settings`` holds every other key;
#: ``trees`` the weak learners, a peer's own)
GROUP = ["dataset", "protocol", "algorithm", "trees", "n_learners", "gamma", "preset", "settings"]
SHOWN = ["dataset", "protocol", "algorithm", "learner", "n_learners", "gamma", "preset"]


def summarize(runs: pd.DataFrame, metric: str | None = None) -> pd.DataFrame:
    """One row per group of runs (:data:`GROUP`): ``metric`` (default: each protocol's headline,
    :data:`PRIMARY`) as ``mean``, ``ci_low``, ``ci_high`` (95% over seeds,
    :func:`~boostbench.reporting.intervals.measure_interval`: Student's t clipped to the metric's
    range and then ``clipped``, or a bootstrap percentile interval for a time, memory or count;
    NaN below 3 seeds; for one seed with folds or copies, over those: :func:`fold_interval`, and
    ``interval_over`` says which), ``n_seeds`` (the seeds with a value), mean ``runtime_s`` (seconds), the code
    fingerprints that made the runs (``code``), ``learner`` (the weak learners:
    :mod:`~boostbench.reporting.weak_learners`, a peer's own) and ``variant`` (what sets the
    group's settings apart from the other groups of its data set, algorithm and learners, e.g.
    ``dataset.file=iris.arff``; "" when it has one).

    Raises:
        KeyError: ``metric`` is not a column of the runs (see :data:`records.COLUMNS`).
    """
    if metric is not None and metric not in runs.columns:
        raise KeyError(metric)
    rows = []
    for key, group in runs.groupby(GROUP, dropna=False, sort=True):
        name = metric or PRIMARY.get(group["protocol"].iloc[0], "final_accuracy")
        values = group[name].to_numpy(dtype=float)
        values = values[~np.isnan(values)]
        low, high, was_clipped = measure_interval(values, name)
        over = "seeds"
        if len(values) == 1:  # one seed: the interval over its folds or copies, when it has them
            folds = fold_interval(group, name)
            if folds is not None:
                (low, high, was_clipped), over = folds, "folds"
        rows.append(
            {
                **dict(zip(GROUP, key)),
                "learner": key[GROUP.index("trees")],
                "settings_items": group["settings_items"].iloc[0],
                "metric": name,
                "mean": float(values.mean()) if len(values) else np.nan,
                "ci_low": low,
                "ci_high": high,
                "clipped": was_clipped,
                "interval_over": over,
                "n_seeds": int(group.loc[group[name].notna(), "seed"].nunique()),  # those the mean has
                "runtime_s": float(group["runtime_s"].mean()),
                "code": ", ".join(sorted(c or "(before fingerprints)" for c in group["code"].unique())),
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    labels = {}
    for _, same in frame.groupby(["dataset", "protocol", "algorithm", "trees"]):
        labels.update(variant_labels(list(same["settings_items"])))
    frame["variant"] = frame["settings_items"].map(labels)
    return frame.drop(columns="settings_items")


def fold_interval(group: pd.DataFrame, name: str) -> tuple[float, float, bool] | None:
    """The interval over the folds (or copies) of a group's one run: its ``<name>_ci_low`` and
    ``_ci_high`` (Student's t over the folds, :func:`boostbench.reporting.records.fold_intervals`)
    clipped to the measure's range, and whether it was clipped; None when it has none.
    """
    columns = [f"{name}_ci_low", f"{name}_ci_high"]
    if not all(c in group for c in columns):
        return None
    bounds = group[columns].dropna()
    if bounds.empty:
        return None
    raw_low, raw_high = (float(v) for v in bounds.iloc[0])
    domain = metric_range(name)
    low, high = max(raw_low, domain[0]), min(raw_high, domain[1])
    return low, high, (low, high) != (raw_low, raw_high)


def to_markdown(frame: pd.DataFrame, store: str) -> str:
    """The summary as Markdown: one line per group, ``mean [95% CI]``, numbers right-aligned."""
    numeric = {"N", "mean [95% CI]", "seeds", "runtime (s)"}
    columns = [*SHOWN, "variant", "metric", "mean [95% CI]", "seeds", "runtime (s)", "code"]
    shown = {"learner": "weak learners", "n_learners": "N"}
    lines = [
        f"# Runs in {store}",
        "",
        "| " + " | ".join(shown.get(c, c) for c in columns) + " |",
        "|" + "".join("---:|" if shown.get(c, c) in numeric else "---|" for c in columns),
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
        "One line per group of runs that differ only by seed; weak learners: the trees our boosters grew "
        "(the learner config's, named after its configs/learner/ file, with the keys set otherwise), or a "
        "peer's own library's; variant: what sets a group's settings apart from the other groups of its "
        "data set, algorithm and weak learners (any key besides seed, gamma, N and preset). "
        + caption(folds=True)
        + " code: the fingerprint of the code that computed the runs.",
        "",
        *(f"- {measures.describe(name)}" for name in dict.fromkeys(frame["metric"])),
    ]
    return "\n".join(lines) + "\n"


#: What tells a figure's lines apart, besides the algorithm
LINE_KEYS = ["trees", "gamma", "preset", "variant"]


def curve_figures(
    results_dir: str | Path, runs: pd.DataFrame, out_dir: Path
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Learning curves of every online group (PNG and PDF), one figure per data set, protocol,
    N, curve and (for a windowed curve) window: a line per algorithm, weak learners, gamma,
    preset and variant with its 95% band over seeds (no windowed figure where the window spans
    the stream and the record has the cumulative curve it then is).

    Returns:
        The paths written, and each PNG with its caption (:func:`figure_caption`).
    """
    online = runs[runs["protocol"].isin(ONLINE_PROTOCOLS)]
    if online.empty:
        return [], []
    long = figures.curves(results_dir, online).merge(online, on="key")
    variants = summarize(online)[GROUP + ["variant"]]
    long = long.merge(variants, on=GROUP, how="left")
    # a windowed curve depends on its window: one figure per window, never two windows in one band
    long["shown_window"] = long["window"].where(long["metric"].map(figures.windowed))
    written, shown = [], []
    keys = ["dataset", "protocol", "n_learners", "metric", "shown_window"]
    windows = long.groupby(keys[:-1])["shown_window"].nunique()
    drawn = set(long["metric"])
    for (dataset, protocol, n, metric, window), group in long.groupby(keys, dropna=False):
        whole = window == window and window >= group["x"].max()  # the window spans the stream
        twin = "cumulative_" + metric.removeprefix(figures.WINDOWED_PREFIX)
        if whole and twin in drawn:
            continue  # it is the cumulative curve: that figure is drawn already
        fig, ax = figures.new_figure((7.5, 4.5))
        several_trees = group["trees"].nunique() > 1
        for (algorithm, trees, gamma, preset, variant), sub in group.groupby(["algorithm", *LINE_KEYS], dropna=False):
            label = algorithm + (f" ({figures.CURVE_NOTES[algorithm]})" if algorithm in figures.CURVE_NOTES else "")
            label += "".join(
                [
                    f" [{trees}]" if several_trees else "",
                    f", gamma={gamma:g}" if gamma == gamma else "",
                    f", {preset}" if preset != "paper" else "",
                    f", {variant}" if variant else "",
                ]
            )
            figures.plot_band(ax, sub, label)
        xlabel, ylabel = figures.label(metric)
        caption = figure_caption(dataset, protocol, n, metric, group)
        ax.set(xlabel=xlabel, ylabel=ylabel, title=caption)
        figures.fit_y(ax, bounds=metric_range(metric))
        ax.grid(alpha=0.3)
        figures.style_legend(ax)
        fig.tight_layout()
        suffix = "" if metric in PRIMARY_CURVES else f".{metric}"
        if windows[(dataset, protocol, n, metric)] > 1:
            suffix += f".window{int(window)}"
        paths = figures.save_figure(fig, out_dir / f"{dataset}.{protocol}.N{n}{suffix}", caption.replace("\n", "; "))
        written += paths
        shown.append((paths[0], caption.replace("\n", "; ")))
    return written, shown


def figure_caption(dataset: str, protocol: str, n: int, metric: str, group: pd.DataFrame) -> str:
    """A summary figure's title: data set, what is plotted, N, protocol, seeds, preset (when not
    the papers') and window.
    """
    what = figures.label(metric)[1]
    seeds = group.groupby(["algorithm", *LINE_KEYS], dropna=False)["seed"].nunique()
    presets = sorted(set(group["preset"]) - {"paper"})
    window = ""
    if figures.windowed(metric):
        w = int(group["window"].max())
        window = f", window {w}" if w < group["x"].max() else f", window {w} (longer than the stream: cumulative)"
    preset = f", preset {', '.join(presets)}" if presets else ""
    return f"{dataset}: {what}\nN = {n}, {protocol}, {count_range(seeds, 'seed')}{preset}{window}"


def write(
    results_dir: str | Path, out_dir: Path, runs: pd.DataFrame, metric: str | None = None, command: str | None = None
) -> tuple[pd.DataFrame, list[Path]]:
    """Write ``tables/summary.{md,csv}``, ``figures/summary/<dataset>.<protocol>.N<n>.{png,pdf}`` and
    ``summary.html`` (:mod:`boostbench.reporting.page`: it shows the paper tables and other
    tables already under ``out_dir`` too). ``command``: the command line the page's provenance
    shows (None: this process's, :func:`command_line`).

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
    html = page.render(frame, str(results_dir), shown, out_dir, command or command_line())
    written.append(atomic_write_text(out_dir / "summary.html", html))
    return frame, written


def command_line() -> str:
    """This process's command line as a shell would take it back (``boostbench report ...``)."""
    import shlex
    import sys

    return shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])
