"""The leaderboard's figures: per measure the critical-difference diagram and the pairwise
tests' matrices, per data set accuracy against CPU seconds (the Pareto front), and per stream the
learning curves of every row with the drift marked. Each is captioned (what it shows, N, the
protocol, the seeds, the preset), the caption inside its files (:func:`figures.save_figure`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.reporting import figures, pairwise, significance
from boostbench.reporting.wording import count_range, plural


def runs_text(chosen: pd.DataFrame) -> str:
    """N, protocol, seeds and preset of a figure's runs, for its caption."""
    ns = ", ".join(f"{int(n)}" for n in sorted(chosen["n_learners"].unique()))
    seeds = chosen.groupby(["entry", "shown_dataset"])["seed"].nunique()
    presets = ", ".join(sorted(chosen["preset"].unique()))
    protocols = ", ".join(sorted(chosen["protocol"].unique()))
    return f"N = {ns}, {protocols}, {count_range(seeds, 'seed')} per row and data set, preset {presets}"


def draw(board, results_dir: str | Path, chosen: pd.DataFrame, out: Path, accuracy: str) -> list[Path]:
    """Every figure of ``board`` (a :class:`~boostbench.reporting.leaderboard.Leaderboard`) under
    ``out``: ``cd_<metric>``, ``wilcoxon_<metric>``, ``bayesian_<metric>``, ``pareto_<data set>``
    (the board's ``accuracy`` table, its primary measure, against CPU seconds) and ``curves_<data set>`` (PNG and PDF).
    ``chosen``: the board's runs (:func:`~boostbench.reporting.leaderboard.online_runs`). Returns
    the paths.
    """
    about = runs_text(chosen) if not chosen.empty else ""
    written: list[Path] = []
    for measure in board.measures:
        if measure.title not in board.scores:
            continue
        order = list(board.tables[measure.title]["algorithm"])
        complete = board.scores[measure.title].dropna(axis=0, how="any")
        test = board.tests[measure.title]
        written += significance.cd_diagram(
            complete,
            measure.higher_is_better,
            out / f"cd_{measure.metric}",
            f"{measure.title}: mean ranks",
            test["p_value"],
            caption=f"{measure.title}: mean ranks over the {len(complete)} data sets every row ran on, Nemenyi's "
            f"critical difference; {about}.",
        )
        written += pairwise.matrix_figure(
            board.wilcoxon[measure.title],
            order,
            out / f"wilcoxon_{measure.metric}",
            f"{measure.title}: Wilcoxon signed-rank, Holm-corrected (alpha = {pairwise.ALPHA:g})",
            f"{measure.title}: pairwise Wilcoxon signed-rank tests over the data sets both rows ran on, Holm's "
            f"correction over {len(board.wilcoxon[measure.title])} pairs; rows and columns by mean rank; {about}.",
        )
        if measure.title in board.bayesian:
            written += pairwise.matrix_figure(
                board.bayesian[measure.title],
                order,
                out / f"bayesian_{measure.metric}",
                f"{measure.title}: Bayesian signed-rank, ROPE ±{board.rope:g}",
                f"{measure.title}: Bayesian signed-rank tests (baycomp) with a ROPE of ±{board.rope:g}, over the "
                f"data sets both rows ran on; a verdict at posterior probability ≥ {pairwise.DECISIVE:g}; {about}.",
            )
    if accuracy in board.scores and "CPU s" in board.scores:
        order = list(board.tables[accuracy]["algorithm"])
        higher = next(m.higher_is_better for m in board.measures if m.title == accuracy)
        for dataset in board.scores[accuracy].index:
            written += pareto_plot(
                board.scores[accuracy].loc[dataset],
                board.scores["CPU s"].loc[dataset],
                out / f"pareto_{_file_name(dataset)}",
                dataset,
                order,
                about,
                accuracy,
                higher,
            )
    written += stream_curves(results_dir, chosen, out, about)
    return written


def _file_name(dataset: str) -> str:
    """A data set's name as shown, fit for a file name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in dataset).strip("_")


def pareto_front(cost: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats on both axes (lower ``cost``, higher ``score``;
    ties in both count as not beaten), in increasing cost.

    Args:
        cost: ``(m,)`` float64, lower is better.
        score: ``(m,)`` float64, higher is better.
    """
    order = np.lexsort((-score, cost))  # by cost, the better score first among equal costs
    front, best = [], -np.inf
    for i in order:
        if score[i] > best:
            front.append(int(i))
            best = score[i]
    return np.asarray(front, dtype=np.int64)


#: adjustText's settings for the Pareto plots' numbers: pushed harder and further than its defaults,
#: which leave numbers on each other in a cluster of a dozen points (the stream benchmark's)
SPREAD = {
    "expand": (1.3, 1.5),
    "force_text": (0.3, 0.6),
    "force_static": (0.3, 0.6),
    "max_move": None,
    "iter_lim": 2000,
}


def label_overlaps(ax, texts: list, x: np.ndarray, y: np.ndarray) -> list[tuple[int, int | None]]:
    """Where the labels ``texts`` of the points ``(x, y)`` (data coordinates; label i is point
    i's) overlap, as drawn: ``(i, j)`` when label i covers label j, ``(i, None)`` when it covers
    another label's point. Empty: every label is clear.
    """
    renderer = ax.figure._get_renderer()
    boxes = [t.get_window_extent(renderer) for t in texts]
    points = ax.transData.transform(np.column_stack([x, y]))
    found = [(i, j) for i, a in enumerate(boxes) for j in range(i + 1, len(boxes)) if a.overlaps(boxes[j])]
    found += [
        (i, None)
        for i, a in enumerate(boxes)
        for j, (px, py) in enumerate(points)
        if j != i and a.x0 < px < a.x1 and a.y0 < py < a.y1
    ]
    return found


def pareto_figure(
    scores: pd.Series,
    costs: pd.Series,
    dataset: str,
    order: list[str],
    measure: str = "accuracy",
    higher_is_better: bool = True,
):
    """The figure of :func:`pareto_plot`, not saved: ``(figure, axes, labels, cost, score)``, the
    labels (``Text``) of the points ``(cost, score)`` in that order; None when no row has both.
    The numbers are placed last, in the axes' final pixels, off each other and off the other
    points (adjustText, :data:`SPREAD`).
    """
    from adjustText import adjust_text
    from matplotlib.lines import Line2D

    both = pd.concat({"score": scores, "cost": costs}, axis=1).dropna()
    if both.empty:
        return None
    number = {name: i + 1 for i, name in enumerate(order)}
    both = both.loc[sorted(both.index, key=lambda n: number.get(n, len(order) + 1))]
    cost, score = both["cost"].to_numpy(dtype=float), both["score"].to_numpy(dtype=float)
    front = pareto_front(cost, score if higher_is_better else -score)
    on_front = set(front.tolist())
    fig, ax = figures.new_figure((9.5, 5.0))
    ax.scatter(cost, score, color="0.55", zorder=2, s=18)
    ax.step(cost[front], score[front], where="post", color="tab:red", zorder=1)
    ax.scatter(cost[front], score[front], color="tab:red", zorder=3, s=22)
    if cost.min() > 0:
        ax.set_xscale("log")
    ax.margins(x=0.08, y=0.08)
    key = [
        Line2D([], [], linestyle="", marker="o", markersize=4, color="tab:red" if i in on_front else "0.55")
        for i in range(len(both))
    ]
    ax.legend(
        key,
        [f"{number.get(name, '?')}  {name}" for name in both.index],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=7,
        frameon=False,
        title="row (red: on the Pareto front)",
        title_fontsize=7,
    )
    ax.set_xlabel("CPU seconds of the pass (mean over seeds, log scale)")
    ax.set_ylabel(f"{measure}, {_part(measure)} (mean over seeds)")
    ax.set_title(f"{dataset}: {measure} against CPU seconds")
    ax.grid(alpha=0.3)
    fig.tight_layout()  # the axes' final size before the numbers are placed in its pixels
    texts = [
        ax.text(x, y, str(number.get(name, "?")), fontsize=8, color="tab:red" if i in on_front else "0.2")
        for i, (name, x, y) in enumerate(zip(both.index, cost, score))
    ]
    adjust_text(texts, x=cost, y=score, ax=ax, arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.5}, **SPREAD)
    return fig, ax, texts, cost, score


def _part(measure: str) -> str:
    return "final part" if measure == "accuracy" else "test part"


def pareto_plot(
    scores: pd.Series,
    costs: pd.Series,
    stem: Path,
    dataset: str,
    order: list[str],
    about: str = "",
    measure: str = "accuracy",
    higher_is_better: bool = True,
) -> list[Path]:
    """Accuracy (``scores``, per row; or another ``measure``, lower better unless
    ``higher_is_better``) against CPU seconds (``costs``, log scale) on one data set,
    the Pareto front drawn as a step line through its points. Each point carries its row's number
    in ``order`` (the leaderboard's, so a number means one row in every plot), placed off the
    others (:func:`pareto_figure`), and a key beside the axes names the rows. PNG and PDF; the paths.
    """
    drawn = pareto_figure(scores, costs, dataset, order, measure, higher_is_better)
    if drawn is None:
        return []
    fig, _, texts, _, _ = drawn
    caption = (
        f"{dataset}: {_part(measure).replace(' ', '-')} {measure} against CPU seconds of {len(texts)} rows, "
        f"the Pareto front in red (no row is both faster and better); {about}."
    )
    return figures.save_figure(fig, stem, caption)


#: The curve the stream figures show
STREAM_CURVE = "windowed_accuracy"


def stream_curves(results_dir: str | Path, chosen: pd.DataFrame, out: Path, about: str) -> list[Path]:
    """Per stream of ``chosen`` (:func:`leaderboard.online_runs`; an ordered data set,
    :func:`boostbench.data.registry.is_stream`): the windowed accuracy of every row,
    mean over seeds, against examples seen; the drift (``dataset.drift_to``, centred at
    ``position``, ``width`` examples wide: :func:`boostbench.data.drift.drift_region`) shaded and
    its centre drawn. Our boosters solid, the peers dashed. PNG and PDF; the paths.
    """
    if "stream" not in chosen:
        return []
    written = []
    for dataset, group in chosen[chosen["stream"].astype(bool)].groupby("shown_dataset"):
        long = figures.curves(results_dir, group)
        long = long[long["metric"] == STREAM_CURVE].merge(group[["key", "entry", "seed", "window"]], on="key")
        if long.empty:
            continue
        fig, ax = figures.new_figure((9.5, 5.0))
        entries = list(dict.fromkeys(group.sort_values("entry")["entry"]))
        colours = [figures.palette(i) for i in range(len(entries))]
        for colour, entry in zip(colours, entries):
            mine = long[long["entry"] == entry]
            if mine.empty:
                continue
            mean = mine.groupby("x")["value"].mean()
            ax.plot(
                mean.index,
                mean.to_numpy(),
                color=colour,
                linestyle="--" if _peer(group, entry) else "-",
                linewidth=1.2,
                label=f"{entry}, {plural(mine['seed'].nunique(), 'seed')}",
            )
        # from the curves alone (the drift's marks span the axes), once their windows are full: a
        # window of the first few examples reads 0 or 1 and would squeeze the curves into a band
        full = float(long["window"].max())
        figures.fit_y(ax, from_x=full)
        position, width = group["drift_position"].iloc[0], group["drift_width"].iloc[0]
        drift = ""
        seen = int(long["x"].max())
        if position == position and position - width / 2 > seen:  # a pass cut short (protocol.max_examples)
            drift = f"; the drift, centred at example {int(position):,}, lies beyond the {seen:,} examples run"
        elif position == position:
            position, width = int(position), int(width)
            ax.axvspan(position - width / 2, position + width / 2, color="0.85", zorder=0)
            ax.axvline(position, color="0.3", linestyle=":", linewidth=1, label="drift (centre; shaded: its width)")
            drift = f"; the drift centred at example {position:,}, {width:,} examples wide (shaded)"
        windows = ", ".join(f"{int(w):,}" for w in sorted(long["window"].unique()))
        ax.set(
            xlabel="examples seen",
            ylabel=f"accuracy over the last {windows} examples",
            title=f"{dataset}: windowed accuracy (mean over seeds)",
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        fig.tight_layout()
        caption = (
            f"{dataset}: accuracy over a sliding window of {windows} examples against examples seen, mean over "
            f"seeds, of {len(entries)} rows (ours solid, peers dashed){drift}; the y axis fits the curves from "
            f"example {int(full):,} on, where the window is full (before it, a curve may run off the axes); {about}."
        )
        written += figures.save_figure(fig, out / f"curves_{_file_name(dataset)}", caption)
    return written


def _peer(group: pd.DataFrame, entry: str) -> bool:
    from boostbench.algorithms import ALGORITHMS

    algorithm = group.loc[group["entry"] == entry, "algorithm"].iloc[0]
    return bool(getattr(ALGORITHMS.get(algorithm), "peer", False))
