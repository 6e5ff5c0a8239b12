"""Compiled pool vs river pool: per (data set, algorithm), the mean over seeds of each backend's
score (final-window accuracy, or rank loss for multi-label data), their difference, and on how
many seeds the two runs scored exactly alike. Reads an equivalence sweep's store
(``+experiment=equivalence`` and ``+experiment=equivalence_multilabel``).

    python benchmarks/equivalence.py results/equivalence
"""

from __future__ import annotations

import sys

import pandas as pd
from rich.console import Console
from rich.table import Table

from boostbench.reporting.records import load_runs

TOLERANCE = 0.01  # |mean(compiled) - mean(river)| <= 0.01


def compare(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (data set, algorithm) run with both backends on common seeds."""
    rows = []
    for (dataset, algorithm), group in runs.groupby(["dataset", "algorithm"]):
        metric = "final_accuracy" if group["final_accuracy"].notna().all() else "test_rank_loss"
        twice = group.duplicated(subset=["backend", "seed"], keep=False)
        if twice.any():  # runs of the same seed under two configs (e.g. before a booster gained a key)
            print(
                f"{dataset} {algorithm}: several runs per seed "
                f"({', '.join(sorted(set(group.loc[twice, 'config_hash'])))}); skipped, remove the stale ones"
            )
            continue
        by = {b: g.set_index("seed") for b, g in group.groupby("backend")}
        if set(by) != {"compiled", "river"}:
            continue
        seeds = sorted(set(by["compiled"].index) & set(by["river"].index))
        if not seeds:
            continue
        c, r = by["compiled"].loc[seeds, metric], by["river"].loc[seeds, metric]
        rows.append(
            {
                "dataset": dataset,
                "algorithm": algorithm,
                "metric": metric,
                "seeds": len(seeds),
                "compiled": c.mean(),
                "river": r.mean(),
                "diff": c.mean() - r.mean(),
                "identical": int((c == r).sum()),
                "runtime_compiled_s": by["compiled"].loc[seeds, "runtime_s"].mean(),
                "runtime_river_s": by["river"].loc[seeds, "runtime_s"].mean(),
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    runs = load_runs(sys.argv[1] if len(sys.argv) > 1 else "results/equivalence")
    table = Table(title=f"compiled vs river pool, mean over seeds (|diff| <= {TOLERANCE} wanted)")
    for column in (
        "data set",
        "algorithm",
        "metric",
        "seeds",
        "compiled",
        "river",
        "diff",
        "identical runs",
        "runtime s compiled / river",
    ):
        table.add_column(column, justify="right")
    for row in compare(runs[runs["protocol"].isin(["prequential", "train_test"])]).itertuples():
        colour = "green" if abs(row.diff) <= TOLERANCE else "red"
        table.add_row(
            row.dataset,
            row.algorithm,
            row.metric.replace("_", " "),
            str(row.seeds),
            f"{row.compiled:.4f}",
            f"{row.river:.4f}",
            f"[{colour}]{row.diff:+.4f}[/]",
            f"{row.identical}/{row.seeds}",
            f"{row.runtime_compiled_s:.1f} / {row.runtime_river_s:.1f}",
        )
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
