"""Reports for the batch family: Combessie & Machraoui's Heart Disease curves and the Mukherjee &
Schapire comparison table (neither paper gives numbers to put beside ours: the slides show curves
and name the compared algorithms only).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.reporting.figures import figure_bytes, new_figure
from boostbench.reporting.wording import count_range
from boostbench.runner.record import RunRecord
from boostbench.runner.store import read_record
from boostbench.system.files import atomic_write_bytes, atomic_write_text

HEART_ALGORITHMS = ("adaboost_m1", "adaboost_m2", "one_vs_all")
MS_ALGORITHMS = ("adaboost_mm", "adaboost_m1", "adaboost_mh", "samme")


def combessie_heart(
    results_dir: str | Path, runs: pd.DataFrame, out_dir: str | Path
) -> tuple[pd.DataFrame, list[Path]]:
    """Train and test error against rounds on Heart Disease (holdout), and the weight evolution.

    Uses the ``holdout`` runs of :data:`HEART_ALGORITHMS` on ``heart`` (every seed for the table
    and the mean curves; the lowest seed for the weight figures). Writes
    ``figures/combessie_heart/errors.png``, ``figures/combessie_heart/weights_<algorithm>.png``
    (rounds x training examples sorted by the last round's weight, log colour scale, as the
    slides) and ``tables/combessie_heart.{md,csv}``.

    Returns:
        The summary table (one row per algorithm and tree depth) and the paths written.
    """
    out = Path(out_dir)
    mine = runs[
        (runs["dataset"] == "heart") & (runs["protocol"] == "holdout") & runs["algorithm"].isin(HEART_ALGORITHMS)
    ]
    rows, written = [], []
    fig, ax = new_figure((7.5, 4.5))
    for (algorithm, depth), group in mine.groupby(["algorithm", "max_depth"]):
        records = [read_record(results_dir, key) for key in group.sort_values("seed")["key"]]
        train = np.mean([r.curve["train_error"] for r in records], axis=0)
        test = np.mean([r.curve["test_error"] for r in records], axis=0)
        rounds = records[0].curve["rounds"]
        (line,) = ax.plot(rounds, test, label=f"{algorithm} (depth {depth:g}) test")
        ax.plot(rounds, train, linestyle="--", color=line.get_color(), label=f"{algorithm} (depth {depth:g}) train")
        kept = [k for r in records for k in r.metrics["n_rounds_fitted"]]
        rows.append(
            {
                "algorithm": algorithm,
                "max_depth": depth,
                "n_seeds": len(records),
                "train_error": float(train[-1]),
                "test_error": float(test[-1]),
                "test_error_std": float(np.std([r.metrics["test_error"] for r in records], ddof=1))
                if len(records) > 1
                else 0.0,
                "best_test_error": float(test.min()),
                "best_round": int(rounds[int(test.argmin())]),
                "rounds_kept_min": int(min(kept)),
                "rounds_kept_max": int(max(kept)),
            }
        )
        if records[0].weights is not None:
            written.append(
                _weights_figure(
                    records[0],
                    f"{algorithm} (depth {depth:g}, seed {group['seed'].min()})",
                    out / "figures" / "combessie_heart" / f"weights_{algorithm}_depth{depth:g}.png",
                )
            )
    table = pd.DataFrame(rows)
    if table.empty:
        return table, written
    ax.set_xlabel("boosting rounds T")
    ax.set_ylabel("error (mean over seeds)")
    ax.set_title("Heart Disease (Cleveland, 5 classes), holdout 75/25")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9, ncol=2)
    fig.tight_layout()
    seeds = count_range(table["n_seeds"], "seed")
    caption = (
        f"Heart Disease (Cleveland, 5 classes): training (dashed) and test error against boosting rounds T of "
        f"{', '.join(HEART_ALGORITHMS)}, mean over {seeds}, holdout 75/25, preset paper"
    )
    written.append(
        atomic_write_bytes(out / "figures" / "combessie_heart" / "errors.png", figure_bytes(fig, caption=caption))
    )
    lines = [
        "| algorithm | tree depth | train error | test error | best test error (round) | rounds kept | seeds |",
        "|---|" + "---:|" * 6,
    ]
    for r in rows:
        kept = f"{r['rounds_kept_min']}" + (
            f"-{r['rounds_kept_max']}" if r["rounds_kept_max"] != r["rounds_kept_min"] else ""
        )
        lines.append(
            f"| {r['algorithm']} | {r['max_depth']:g} | {r['train_error']:.3f} | {r['test_error']:.3f} ± "
            f"{r['test_error_std']:.3f} | {r['best_test_error']:.3f} ({r['best_round']}) | {kept} | {r['n_seeds']} |"
        )
    lines += [
        "",
        "Errors after the last round T (an algorithm that stopped early keeps its last ensemble), mean "
        "± std over seeds; the slides give curves only, no numbers.",
    ]
    written.append(atomic_write_text(out / "tables" / "combessie_heart.md", "\n".join(lines) + "\n"))
    written.append(atomic_write_text(out / "tables" / "combessie_heart.csv", table.to_csv(index=False)))
    return table, written


def _weights_figure(record: RunRecord, title: str, path: Path) -> Path:
    from matplotlib.colors import LogNorm

    W = np.asarray(record.weights["values"])
    order = np.argsort(W[-1])
    fig, ax = new_figure((7, 4))
    image = ax.imshow(
        W[:, order],
        aspect="auto",
        origin="lower",
        interpolation="nearest",
        norm=LogNorm(vmin=max(W[W > 0].min(), 1e-8), vmax=W.max()),
        cmap="viridis",
    )
    fig.colorbar(image, ax=ax, label="weight D_t(i)")
    ax.set_xlabel("training example (sorted by the last round's weight)")
    ax.set_ylabel("round t")
    ax.set_title(f"Evolution of the sample weights: {title}")
    fig.tight_layout()
    caption = f"Sample weights D_t(i) of every training example over the rounds (log scale): {title}"
    written = atomic_write_bytes(path, figure_bytes(fig, caption=caption))
    return written


def mukherjee_schapire(runs: pd.DataFrame, out_dir: str | Path) -> tuple[pd.DataFrame, list[Path]]:
    """AdaBoost.MM vs AdaBoost.M1 vs AdaBoost.MH (and SAMME): k-fold CV test error per data set.

    A cell is the mean ± std over all folds of all seeds of the test error after the last round,
    one table per tree size. Writes ``tables/mukherjee_schapire.{md,csv}``.
    """
    mine = runs[(runs["protocol"] == "kfold") & runs["algorithm"].isin(MS_ALGORITHMS)]
    rows = []
    for (depth, dataset, algorithm, n_rounds), group in mine.groupby(["max_depth", "dataset", "algorithm", "n_rounds"]):
        folds = np.concatenate([np.asarray(v, dtype=float) for v in group["fold_test_error"]])
        rows.append(
            {
                "max_depth": depth,
                "n_rounds": n_rounds,
                "dataset": dataset,
                "algorithm": algorithm,
                "test_error": float(folds.mean()),
                "std": float(folds.std(ddof=1)) if len(folds) > 1 else 0.0,
                "n_folds": len(folds),
                "runtime_s": float(group["runtime_s"].mean()),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table, []
    lines = []
    for (depth, n_rounds), block in table.groupby(["max_depth", "n_rounds"]):
        algorithms = [a for a in MS_ALGORITHMS if a in set(block["algorithm"])]
        lines += [
            f"### Trees of depth <= {depth:g}, T = {n_rounds:g} rounds",
            "",
            "| data set | " + " | ".join(algorithms) + " |",
            "|---|" + "---:|" * len(algorithms),
        ]
        for dataset, sub in block.groupby("dataset"):
            cells = {r["algorithm"]: r for _, r in sub.iterrows()}
            best = min(r["test_error"] for r in cells.values())
            text = []
            for a in algorithms:
                if a not in cells:
                    text.append("—")
                    continue
                r = cells[a]
                value = f"{r['test_error']:.3f} ± {r['std']:.3f}"
                text.append(f"**{value}**" if r["test_error"] == best else value)
            lines.append(f"| {dataset} | " + " | ".join(text) + " |")
        lines.append("")
    lines.append(
        "Cells: test error after the last round, mean ± std over the folds of every seed (stratified "
        "k-fold CV); the best of a row in bold. Mukherjee & Schapire's slides name the comparison "
        "but print no numbers."
    )
    out = Path(out_dir)
    written = [
        atomic_write_text(out / "tables" / "mukherjee_schapire.md", "\n".join(lines) + "\n"),
        atomic_write_text(out / "tables" / "mukherjee_schapire.csv", table.to_csv(index=False)),
    ]
    return table, written
