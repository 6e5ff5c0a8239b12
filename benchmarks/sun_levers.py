"""What each of Sun's levers moves (README, "Deviations: Sun's Tables 2-3").

    python benchmarks/sun_levers.py --results-dir DIR [--seeds 3] [--datasets promoters,car] [--run]

A lever is a config override that turns one of our choices the other way. With ``--run``, the
runs of the affected columns are made first through ``boostbench sweep +experiment=sun_tables``
(resumable). Then, from the store, Sun's table is rebuilt under the defaults and under each lever
(:func:`boostbench.reporting.sun_tables.rebuild`) and printed as one Markdown row per lever and
column: each data set's mean both ways, the effect and the paper's value, and how many of the
lever's cells are flagged under the defaults and under the lever.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass

import pandas as pd

from boostbench.reporting.records import load_runs
from boostbench.reporting.sun_tables import rebuild


@dataclass(frozen=True)
class Lever:
    """One of our choices for Sun's tables, turned the other way by ``change``."""

    what: str
    learners: tuple[str, ...]
    algorithms: tuple[str, ...]
    change: tuple[str, ...]


LEVERS = (
    Lever("online TAN/BAN lossless (converge to batch)", ("tan", "ban"), ("online_base", "online_boosting"),
          ("learner.online_structure=lossless",)),
    Lever("online TAN/BAN re-learned from the last 300 examples", ("tan", "ban"), ("online_base", "online_boosting"),
          ("learner.online_structure=window", "learner.window=300")),
    *(Lever(f"BAN by hill climbing on {score.upper()}", ("ban",), ("base", "adaboost_m1"),
            (f"learner.structure={score}",)) for score in ("bic", "bdeu", "k2")),
)
COLUMN_OF = {"base": "base", "online_base": "online_base", "adaboost_m1": "boosting",
             "online_boosting": "online_boosting"}


def sweep(results_dir: str, datasets: str, seeds: int, lever: Lever | None) -> None:
    overrides = [f"results_dir={results_dir}", f"dataset={datasets}", f"seed=range(0,{seeds})"]
    if lever is not None:
        overrides += [f"learner={','.join(lever.learners)}", f"algorithm={','.join(lever.algorithms)}", *lever.change]
    subprocess.run([sys.executable, "-m", "boostbench.cli", "sweep", "+experiment=sun_tables", *overrides], check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", required=True)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--datasets", default="promoters,breast_cancer_w,german,car")
    parser.add_argument("--run", action="store_true", help="make the runs first (boostbench sweep)")
    args = parser.parse_args(argv)
    if args.run:
        sweep(args.results_dir, args.datasets, args.seeds, None)
        for lever in LEVERS:
            sweep(args.results_dir, args.datasets, args.seeds, lever)
    runs = load_runs(args.results_dir)
    default = rebuild(runs)
    keys = ["learner", "dataset", "column"]
    print("| lever | column | defaults → with the lever (effect; paper) | cells flagged (defaults → lever) |")
    print("|---|---|---|---|")
    for lever in LEVERS:
        columns = [COLUMN_OF[a] for a in lever.algorithms]
        merged = pd.merge(default, rebuild(runs, lever.change), on=keys, suffixes=("", "_lever"))
        merged = merged[merged["learner"].isin(lever.learners) & merged["column"].isin(columns)
                        & (merged["n"] > 0) & (merged["n_lever"] > 0)]
        flags = f"{int(merged['flagged'].sum())} → {int(merged['flagged_lever'].sum())} of {len(merged)}"
        for (learner, column), block in merged.groupby(["learner", "column"], sort=False):
            moves = "; ".join(f"{row.dataset} {row.ours:.1f} → {row.ours_lever:.1f} ({row.ours_lever - row.ours:+.1f}; "
                              f"{row.paper:.1f})" for row in block.itertuples())
            print(f"| {lever.what} (`{' '.join(lever.change)}`) | {learner} {column} | {moves} | {flags} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
