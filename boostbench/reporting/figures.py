"""Learning curves from the result store: one figure per data set with every algorithm, the mean
over seeds and its 95% band, as PNG and PDF.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from boostbench.reporting.intervals import confidence_interval, metric_range
from boostbench.runner.store import read_record
from boostbench.system.files import atomic_write_bytes


def new_figure(figsize: tuple[float, float]):
    """``(figure, axes)`` drawn for a file: matplotlib's object API, no pyplot and so no display
    backend to choose (nothing global changes).
    """
    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


def curves(results_dir: str | Path, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs' curves in long form: ``key, x, value, metric`` (one row per checkpoint; ``key`` is
    the run's store key; ``x`` is examples seen, or the boosting round for ``train_error`` /
    ``test_error``; a prequential run has ``cumulative_accuracy`` and the :data:`WINDOWED` curves,
    NaN where a kappa is undefined).
    """
    rows = []
    for key in runs["key"]:
        record = read_record(results_dir, key)
        curve = record["curve"]
        if "rounds" in curve:  # split protocols: errors against boosting rounds
            for metric in ("train_error", "test_error"):
                rows.append(pd.DataFrame({"key": key, "x": curve["rounds"], "value": curve[metric], "metric": metric}))
            continue
        if "cumulative_accuracy" in curve:
            for metric in ("cumulative_accuracy", *WINDOWED):
                if metric in curve:  # records before the windowed curves have none
                    rows.append(
                        pd.DataFrame(
                            {
                                "key": key,
                                "x": curve["examples_seen"],
                                "metric": metric,
                                "value": pd.array(curve[metric], dtype="Float64").astype(float),
                            }
                        )
                    )
        else:
            rows.append(
                pd.DataFrame(
                    {
                        "key": key,
                        "x": curve["test_examples_seen"],
                        "value": curve["test_rank_loss"],
                        "metric": "test_rank_loss",
                    }
                )
            )
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["key", "x", "value", "metric"])


#: The sliding-window curves of a prequential record
WINDOWED = ("windowed_accuracy", "windowed_kappa")
#: What a curve's label says of an algorithm whose curve is not what its table cell is
CURVE_NOTES = {"best_vfdt": "online choice of tree; the table's is the best in hindsight"}
LABELS = {
    "cumulative_accuracy": ("examples seen", "cumulative accuracy"),
    "test_rank_loss": ("test examples seen", "mean test rank loss"),
    "windowed_accuracy": ("examples seen", "accuracy over the last window"),
    "windowed_kappa": ("examples seen", "Cohen's kappa over the last window"),
    "test_error": ("boosting rounds", "test error"),
    "train_error": ("boosting rounds", "training error"),
}
#: A cumulative curve's first checkpoints (one or two examples: accuracy 0 or 1) say nothing and
#: squash the axis; the plot starts after this fraction of the stream
BURN_IN = 0.01


def seed_band(values: pd.DataFrame, bounds: tuple[float, float] | None = None) -> pd.DataFrame:
    """Per checkpoint ``x``: the mean over seeds of ``value`` and its 95% Student-t interval
    clipped to ``bounds`` (``low``, ``high``; the mean where there are fewer than 3 seeds, see
    :mod:`boostbench.reporting.intervals`).
    """
    rows = []
    for x, group in values.groupby("x"):
        v = group["value"].to_numpy(dtype=float)
        v = v[~np.isnan(v)]  # an undefined kappa
        if not len(v):
            continue
        low, high = confidence_interval(v, bounds=bounds)
        mean = float(v.mean())
        rows.append((x, mean, mean if low != low else low, mean if high != high else high))
    return pd.DataFrame(rows, columns=["x", "mean", "low", "high"])


def plot_band(ax, sub: pd.DataFrame, label: str) -> None:
    """Draw the mean curve of ``sub`` (long curves, several seeds) with its 95% band inside the
    metric's range (no band below 3 seeds); the first :data:`BURN_IN` of the stream is left out.
    """
    metric = sub["metric"].iloc[0]
    band = seed_band(sub, metric_range(metric))
    band = band[band["x"] >= BURN_IN * band["x"].max()] if metric != "test_error" else band
    n = sub["seed"].nunique()
    (line,) = ax.plot(band["x"], band["mean"], label=f"{label}, {n} seed{'s' if n > 1 else ''}")
    ax.fill_between(band["x"], band["low"], band["high"], color=line.get_color(), alpha=0.2, linewidth=0)


def fit_y(ax, bounds: tuple[float, float] = (0.0, 1.0)) -> None:
    """The y axis from the data: the whole range of the mean curves (their start included),
    padded by a tenth, inside ``bounds``; a band may leave it.
    """
    ys = [np.asarray(line.get_data()[1], dtype=float) for line in ax.get_lines()]
    ys = np.concatenate(ys) if ys else np.array([])
    ys = ys[~np.isnan(ys)]
    if len(ys):
        low, high = float(ys.min()), float(ys.max())
        pad = max(0.1 * (high - low), 0.005)
        ax.set_ylim(max(low - pad, bounds[0]), min(high + pad, bounds[1]))


def style_legend(ax) -> None:
    """A legend readable at the page's width: 9 pt, below the axes (off the curves) when it has
    more than two entries.
    """
    n = len(ax.get_legend_handles_labels()[0])
    if n > 2:
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    else:
        ax.legend(fontsize=9)


def title(dataset: str, runs: pd.DataFrame, metric: str) -> str:
    """A figure title: the data set, the curve, N, the protocol and the seeds of its runs."""
    n = ", ".join(str(int(v)) for v in sorted(runs["n_learners"].unique()))
    seeds = sorted(runs.groupby(["algorithm", "gamma"], dropna=False)["seed"].nunique().unique())
    seeds_text = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
    return (
        f"{dataset}: {LABELS[metric][1]}\nN = {n}, {', '.join(sorted(runs['protocol'].unique()))}, {seeds_text} seeds"
    )


def learning_curves(
    results_dir: str | Path, runs: pd.DataFrame, out_dir: str | Path, higher_is_better: dict[str, bool]
) -> list[Path]:
    """One figure per data set (PNG and PDF): the mean curve over seeds of each algorithm (its best
    gamma if tuned) with its 95% band over seeds.

    Args:
        results_dir: the store the runs come from.
        runs: tidy runs (see :func:`boostbench.reporting.records.load_runs`).
        out_dir: where the figures go (``<out_dir>/<dataset>.png`` and ``.pdf``).
        higher_is_better: per curve metric, whether higher is better (picks the best gamma).
    """
    long = curves(results_dir, runs).merge(runs, on="key")
    long = long[long["metric"].isin(list(higher_is_better))]
    written = []
    for dataset, group in long.groupby("dataset"):
        metric = group["metric"].iloc[0]
        final = "final_accuracy" if metric == "cumulative_accuracy" else "test_rank_loss"
        fig, ax = new_figure((7, 4.2))
        for algorithm, sub in group.groupby("algorithm"):
            label = algorithm + (f" ({CURVE_NOTES[algorithm]})" if algorithm in CURVE_NOTES else "")
            if sub["gamma"].notna().any():
                by_gamma = (
                    runs[(runs["dataset"] == dataset) & (runs["algorithm"] == algorithm)].groupby("gamma")[final].mean()
                )
                best = by_gamma.idxmax() if higher_is_better[metric] else by_gamma.idxmin()
                sub = sub[sub["gamma"] == best]
                label = f"{algorithm} (gamma={best:g})"
            plot_band(ax, sub, label)
        xlabel, ylabel = LABELS[metric]
        ax.set(xlabel=xlabel, ylabel=ylabel, title=title(dataset, runs[runs["dataset"] == dataset], metric))
        fit_y(ax, metric_range(metric))
        ax.grid(alpha=0.3)
        style_legend(ax)
        fig.tight_layout()
        written += save_figure(fig, Path(out_dir) / dataset)
    return written


def save_figure(fig, stem: Path, formats: tuple[str, ...] = ("png", "pdf")) -> list[Path]:
    """Write ``fig`` atomically as ``<stem>.<format>`` for each format (PNG at 110 dpi; PDF and SVG
    are vector); returns the paths.
    """
    return [atomic_write_bytes(stem.with_name(f"{stem.name}.{fmt}"), figure_bytes(fig, fmt)) for fmt in formats]


def figure_bytes(fig, fmt: str = "png") -> bytes:
    """A matplotlib figure as ``fmt`` bytes (png at 110 dpi, pdf, svg), for an atomic write."""
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=110, bbox_inches="tight")  # a legend below the axes included
    return buffer.getvalue()
