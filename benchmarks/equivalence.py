"""Compiled pool vs river pool: per (data set, algorithm), the mean over seeds of each backend's
score and their difference, from an equivalence sweep's store (``+experiment=equivalence``).

    python benchmarks/equivalence.py results/equivalence
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from boostbench.reporting.records import load_runs


def main() -> None:
    runs = load_runs(sys.argv[1] if len(sys.argv) > 1 else "results/equivalence")
    runs = runs[runs["protocol"] == "prequential"]
    table = Table(title="final-window accuracy, mean over seeds: compiled vs river pool (|diff| <= 0.01 wanted)")
    for column in ("data set", "algorithm", "seeds (both)", "compiled", "river", "diff", "runtime s compiled/river"):
        table.add_column(column, justify="right")
    for (dataset, algorithm), group in runs.groupby(["dataset", "algorithm"]):
        by = {b: g.set_index("seed") for b, g in group.groupby("backend")}
        if set(by) != {"compiled", "river"}:
            continue
        seeds = sorted(set(by["compiled"].index) & set(by["river"].index))
        if not seeds:
            continue
        c = by["compiled"].loc[seeds, "final_accuracy"].mean()
        r = by["river"].loc[seeds, "final_accuracy"].mean()
        colour = "green" if abs(c - r) <= 0.01 else "red"
        table.add_row(dataset, algorithm, str(len(seeds)), f"{c:.4f}", f"{r:.4f}", f"[{colour}]{c - r:+.4f}[/]",
                      f"{by['compiled'].loc[seeds, 'runtime_s'].mean():.1f} / {by['river'].loc[seeds, 'runtime_s'].mean():.1f}")
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
