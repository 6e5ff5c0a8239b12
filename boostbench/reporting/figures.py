"""Learning curves from the result store: one figure per data set with every algorithm, the mean
over seeds and its 95% band, as PNG and PDF.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from boostbench.reporting.intervals import confidence_interval, metric_range
from boostbench.reporting.wording import count_range
from boostbench.runner.store import read_record
from boostbench.system.files import atomic_write_bytes


def new_figure(figsize: tuple[float, float]):
    """``(figure, axes)`` drawn for a file: matplotlib's object API, no pyplot and so no display
    backend to choose (nothing global changes).
    """
    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


#: A record's curve axes: the boosting rounds (split protocols), the examples seen
#: (prequential), the test examples seen (train/test); every other series of the curve as long as
#: its axis is a measure along it
CURVE_AXES = ("rounds", "examples_seen", "test_examples_seen")


def curves(results_dir: str | Path, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs' curves in long form: ``key, x, value, metric`` (one row per checkpoint; ``key`` is
    the run's store key; ``x`` is the curve's axis, :data:`CURVE_AXES`: the boosting round for
    ``train_error`` / ``test_error``, the examples seen for a prequential run's
    ``cumulative_accuracy``, its windowed curves and any other it holds, NaN where a kappa is
    undefined).
    """
    rows = []
    for key in runs["key"]:
        curve = read_record(results_dir, key).curve
        axis = next((name for name in CURVE_AXES if name in curve), None)
        if axis is None:
            continue
        x = curve[axis]
        for metric, values in curve.items():
            if metric in CURVE_AXES or not isinstance(values, list) or len(values) != len(x):
                continue
            if not all(v is None or isinstance(v, int | float) for v in values):
                continue  # not one number per checkpoint (e.g. a value per member)
            rows.append(
                pd.DataFrame(
                    {
                        "key": key,
                        "x": x,
                        "metric": metric,
                        "value": pd.array(values, dtype="Float64").astype(float),
                    }
                )
            )
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["key", "x", "value", "metric"])


#: The sliding-window curves of a prequential record: their names' prefix
WINDOWED_PREFIX = "windowed_"


def windowed(metric: str) -> bool:
    """Whether a curve is over a sliding window (``protocol.window`` examples)."""
    return metric.startswith(WINDOWED_PREFIX)


#: What a curve's label says of an algorithm whose curve is not what its table cell is
CURVE_NOTES = {"best_vfdt": "online choice of tree; the table's is the best in hindsight"}
LABELS = {
    "cumulative_accuracy": ("examples seen", "cumulative accuracy"),
    "test_rank_loss": ("test examples seen", "mean test rank loss"),
    "windowed_accuracy": ("examples seen", "accuracy over the last window"),
    "windowed_kappa": ("examples seen", "Cohen's kappa over the last window"),
    "windowed_kappa_m": ("examples seen", "kappa-M over the last window"),
    "windowed_kappa_t": ("examples seen", "kappa-T over the last window"),
    "cumulative_kappa_m": ("examples seen", "cumulative kappa-M"),
    "cumulative_kappa_t": ("examples seen", "cumulative kappa-T"),
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
    # float columns even with no row (a curve undefined at every checkpoint: a one-example run's kappa)
    return pd.DataFrame(rows, columns=["x", "mean", "low", "high"], dtype=float)


def palette(i: int):
    """The ``i``-th line colour from matplotlib's tab20: its 10 dark hues first, then their light
    twins (then again): 20 distinct colours, neighbours far apart.
    """
    from matplotlib import colormaps

    return colormaps["tab20"]((2 * i) % 20 + (i // 10) % 2)


def label(metric: str) -> tuple[str, str]:
    """A curve's axis labels (x, y): :data:`LABELS`, else its axis and its name in words."""
    return LABELS.get(metric, ("examples seen", metric.replace("_", " ")))


def plot_band(ax, sub: pd.DataFrame, label: str) -> None:
    """Draw the mean curve of ``sub`` (long curves, several seeds) with its 95% band inside the
    metric's range (no band below 3 seeds); the first :data:`BURN_IN` of the stream is left out (a
    curve of one checkpoint is drawn as a point). A curve undefined at every checkpoint (a
    one-example run's kappa-M) draws nothing.
    """
    metric = sub["metric"].iloc[0]
    band = seed_band(sub, metric_range(metric))
    if band.empty:
        return
    band = band[band["x"] >= BURN_IN * band["x"].max()] if metric != "test_error" else band
    n = sub["seed"].nunique()
    marker = "o" if len(band) == 1 else None
    (line,) = ax.plot(band["x"], band["mean"], marker=marker, label=f"{label}, {n} seed{'s' if n > 1 else ''}")
    ax.fill_between(band["x"], band["low"], band["high"], color=line.get_color(), alpha=0.2, linewidth=0)


def fit_y(ax, bounds: tuple[float, float] = (0.0, 1.0), from_x: float = -np.inf) -> None:
    """The y axis from the data: the whole range of the mean curves (their start included) at
    x ≥ ``from_x``, padded by a tenth, inside ``bounds``; a band, or a point before ``from_x``,
    may leave it.
    """
    points = [np.asarray(line.get_data(), dtype=float) for line in ax.get_lines()]
    ys = np.concatenate([y[x >= from_x] for x, y in points]) if points else np.array([])
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
    if n == 0:  # nothing drawn (every curve undefined)
        return
    if n > 2:
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    else:
        ax.legend(fontsize=9)


def title(dataset: str, runs: pd.DataFrame, metric: str) -> str:
    """A figure title: the data set, the curve, N, the protocol, the seeds and the preset of its
    runs (the two presets' figures of one table titled apart).
    """
    n = ", ".join(str(int(v)) for v in sorted(runs["n_learners"].unique()))
    seeds = runs.groupby(["algorithm", "gamma"], dropna=False)["seed"].nunique()
    protocols = ", ".join(sorted(runs["protocol"].unique()))
    presets = ", ".join(sorted(runs["preset"].unique()))
    return f"{dataset}: {label(metric)[1]}\nN = {n}, {protocols}, {count_range(seeds, 'seed')}, preset {presets}"


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
            name = algorithm + (f" ({CURVE_NOTES[algorithm]})" if algorithm in CURVE_NOTES else "")
            if sub["gamma"].notna().any():
                by_gamma = (
                    runs[(runs["dataset"] == dataset) & (runs["algorithm"] == algorithm)].groupby("gamma")[final].mean()
                )
                best = by_gamma.idxmax() if higher_is_better[metric] else by_gamma.idxmin()
                sub = sub[sub["gamma"] == best]
                name = f"{algorithm} (gamma={best:g})"
            plot_band(ax, sub, name)
        xlabel, ylabel = label(metric)
        heading = title(dataset, runs[runs["dataset"] == dataset], metric)
        ax.set(xlabel=xlabel, ylabel=ylabel, title=heading)
        fit_y(ax, metric_range(metric))
        ax.grid(alpha=0.3)
        style_legend(ax)
        fig.tight_layout()
        caption = heading.replace("\n", "; ") + "; mean over seeds with its 95% band (t, none below 3 seeds)"
        written += save_figure(fig, Path(out_dir) / dataset, caption)
    return written


def save_figure(fig, stem: Path, caption: str | None = None, formats: tuple[str, ...] = ("png", "pdf")) -> list[Path]:
    """Write ``fig`` atomically as ``<stem>.<format>`` for each format (PNG at 110 dpi; PDF and SVG
    are vector); returns the paths. ``caption`` (what the figure shows, its N, protocol, seeds and
    preset) travels inside the files (PNG ``Description``, PDF ``Subject``): the pages that
    show the figure read it there (:func:`caption_of`).
    """
    return [
        atomic_write_bytes(stem.with_name(f"{stem.name}.{fmt}"), figure_bytes(fig, fmt, caption)) for fmt in formats
    ]


#: Where a caption is kept in each format's metadata
CAPTION_KEY = {"png": "Description", "pdf": "Subject", "svg": "Description"}


def figure_bytes(fig, fmt: str = "png", caption: str | None = None) -> bytes:
    """A matplotlib figure as ``fmt`` bytes (png at 110 dpi, pdf, svg), for an atomic write;
    ``caption`` in its metadata (:data:`CAPTION_KEY`).
    """
    import io

    buffer = io.BytesIO()
    metadata = {CAPTION_KEY[fmt]: caption} if caption and fmt in CAPTION_KEY else None
    fig.savefig(buffer, format=fmt, dpi=110, bbox_inches="tight", metadata=metadata)  # a legend below the axes included
    return buffer.getvalue()


def caption_of(png: Path) -> str:
    """The caption :func:`save_figure` put in a PNG ("" when it has none)."""
    from PIL import Image

    with Image.open(png) as image:
        return str(getattr(image, "text", {}).get(CAPTION_KEY["png"], ""))
