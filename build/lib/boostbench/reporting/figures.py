"""Learning curves from the result store: one PNG per data set with every algorithm."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from boostbench.store import atomic_write_bytes, read_record


def new_figure(figsize: tuple[float, float]):
    """``(figure, axes)`` drawn for a file: matplotlib's object API, no pyplot and so no display
    backend to choose (nothing global changes)."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


def curves(results_dir: str | Path, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs' curves in long form: ``key, x, value, metric`` (one row per checkpoint; ``key`` is
    the run's store key; ``x`` is examples seen, or the boosting round for ``train_error`` /
    ``test_error``)."""
    rows = []
    for key in runs["key"]:
        record = read_record(results_dir, key)
        curve = record["curve"]
        if "rounds" in curve:  # split protocols: errors against boosting rounds
            for metric in ("train_error", "test_error"):
                rows.append(pd.DataFrame({"key": key, "x": curve["rounds"], "value": curve[metric],
                                          "metric": metric}))
            continue
        if "cumulative_accuracy" in curve:
            x, y, metric = curve["examples_seen"], curve["cumulative_accuracy"], "cumulative_accuracy"
        else:
            x, y, metric = curve["test_examples_seen"], curve["test_rank_loss"], "test_rank_loss"
        rows.append(pd.DataFrame({"key": key, "x": x, "value": y, "metric": metric}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["key", "x", "value", "metric"])


def learning_curves(results_dir: str | Path, runs: pd.DataFrame, out_dir: str | Path,
                    higher_is_better: dict[str, bool]) -> list[Path]:
    """One PNG per data set: mean curve over seeds of each algorithm (its best gamma if tuned).

    Args:
        results_dir: the store the runs come from.
        runs: tidy runs (see :func:`boostbench.reporting.records.load_runs`).
        out_dir: where the PNGs go (``<out_dir>/<dataset>.png``).
        higher_is_better: per curve metric, whether higher is better (picks the best gamma).
    """
    long = curves(results_dir, runs).merge(runs, on="key")
    written = []
    for dataset, group in long.groupby("dataset"):
        metric = group["metric"].iloc[0]
        final = "final_accuracy" if metric == "cumulative_accuracy" else "test_rank_loss"
        fig, ax = new_figure((7, 4.2))
        for algorithm, sub in group.groupby("algorithm"):
            if sub["gamma"].notna().any():
                by_gamma = runs[(runs["dataset"] == dataset) & (runs["algorithm"] == algorithm)].groupby("gamma")[final].mean()
                best = by_gamma.idxmax() if higher_is_better[metric] else by_gamma.idxmin()
                sub = sub[sub["gamma"] == best]
                algorithm = f"{algorithm} (gamma={best:g})"
            mean = sub.groupby("x")["value"].mean()
            ax.plot(mean.index, mean.to_numpy(), label=f"{algorithm}, {sub['seed'].nunique()} seeds")
        ax.set_xlabel("examples seen" if metric == "cumulative_accuracy" else "test examples seen")
        ax.set_ylabel("cumulative accuracy" if metric == "cumulative_accuracy" else "mean test rank loss")
        ax.set_title(dataset)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = Path(out_dir) / f"{dataset}.png"
        written.append(atomic_write_bytes(path, png_bytes(fig)))
    return written


def png_bytes(fig) -> bytes:
    """A matplotlib figure as PNG bytes (110 dpi), for an atomic write."""
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
