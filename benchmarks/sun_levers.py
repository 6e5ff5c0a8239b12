"""What each of Sun's levers moves (docs/sun.md).

    python benchmarks/sun_levers.py --results-dir DIR [--seeds 1] [--datasets promoters,car] [--run]

A lever is a config override that turns one of our choices the other way (or sets one Sun leaves
open: the order of the online pass, n0, the bins, missing values, Oza's Poisson draws, M). With
``--run``, the runs of the affected columns (and data sets) are made first through
``boostbench sweep +experiment=sun_tables`` (resumable), for seeds ``0 .. seeds-1``. Then, from
the store and on those seeds only (the defaults and the levers paired seed by seed and fold by
fold), Sun's table is rebuilt under the defaults and under each lever
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
    datasets: tuple[str, ...] | None = None  # None: every data set asked for


ONLINE = ("online_base", "online_boosting")
ALL = ("base", "online_base", "adaboost_m1", "online_boosting")
NUMERIC = ("breast_cancer_w", "german")  # the data sets with numeric attributes to bin
LEVERS = (
    Lever(
        "online TAN/BAN lossless (converge to batch)", ("tan", "ban"), ONLINE, ("learner.online_structure=lossless",)
    ),
    Lever(
        "online TAN/BAN re-learned from the last 300 examples",
        ("tan", "ban"),
        ONLINE,
        ("learner.online_structure=window", "learner.window=300"),
    ),
    *(
        Lever(
            f"BAN by hill climbing on {score.upper()}",
            ("ban",),
            ("base", "adaboost_m1"),
            (f"learner.structure={score}",),
        )
        for score in ("bic", "bdeu", "k2")
    ),
    Lever("the online pass in file order (no shuffle)", ("tan", "ban"), ONLINE, ("protocol.shuffle=false",)),
    *(
        Lever(
            f"frozen structure from the first n0 = {n0} examples",
            ("tan", "ban"),
            ONLINE,
            (f"learner.relearn_first={n0}",),
        )
        for n0 in (20, 200)
    ),
    Lever(
        "Oza with K = lambda (expected presentations, no Poisson draw)",
        ("tan", "ban"),
        ("online_boosting",),
        ("algorithm.presentations=expected",),
    ),
    Lever(
        "M = 30 members / rounds",
        ("tan", "ban"),
        ("adaboost_m1", "online_boosting"),
        ("n_learners=30", "n_rounds=30"),
        ("promoters", "german"),
    ),
    Lever(
        "online bins from 50 rows (an online learner's first n0)",
        ("tan", "ban"),
        ONLINE,
        ("learner.bin_rows=50",),
        NUMERIC,
    ),
    Lever("equal-width bins", ("tan", "ban"), ALL, ("learner.binning=width",), NUMERIC),
    *(Lever(f"{n} equal-frequency bins", ("tan", "ban"), ALL, (f"learner.n_bins={n}",), NUMERIC) for n in (3, 10)),
    Lever(
        "a missing value left out (not a value of its own)",
        ("tan", "ban"),
        ALL,
        ("learner.missing=skip",),
        ("breast_cancer_w",),
    ),
    Lever(
        "10 equal-width bins (breast-cancer-w: one per score 1..10, i.e. nominal)",
        ("tan", "ban"),
        ALL,
        ("learner.binning=width", "learner.n_bins=10"),
        NUMERIC,
    ),
    Lever(
        "MOA's OzaBoost vote (no member votes after the first with eps outside (0, 1/2))",
        ("tan", "ban"),
        ("online_boosting",),
        ("algorithm.vote=moa",),
    ),
    *(
        Lever(f"cells smoothed toward {toward} with weight n0 = 5", ("tan", "ban"), ALL, (f"learner.smoothing={name}",))
        for name, toward in (("marginal", "P(x_i) (Friedman et al.)"), ("class_marginal", "P(x_i | c)"))
    ),
    Lever(
        "batch boosting by resampling (each round fits on n rows drawn from D_t)",
        ("tan", "ban"),
        ("adaboost_m1",),
        ("algorithm.resample=true",),
    ),
    Lever(
        "file order and K = lambda together",
        ("tan", "ban"),
        ("online_boosting",),
        ("protocol.shuffle=false", "algorithm.presentations=expected"),
        ("promoters",),
    ),
)
COLUMN_OF = {
    "base": "base",
    "online_base": "online_base",
    "adaboost_m1": "boosting",
    "online_boosting": "online_boosting",
}


def sweep(results_dir: str, datasets: list[str], seeds: int, lever: Lever | None) -> None:
    if lever is not None and lever.datasets is not None:
        datasets = [d for d in datasets if d in lever.datasets]
    if not datasets:
        return
    overrides = [
        f"results_dir={results_dir}",
        f"dataset={','.join(datasets)}",
        f"seed=range(0,{seeds})",
        "progress=false",
    ]
    # one sweep per learner: Hydra checks a learner.* override against the primary config, whose
    # learner is only chosen by a single value, not by a list swept over
    for learner in lever.learners if lever is not None else (None,):
        changes = (
            [] if lever is None else [f"learner={learner}", f"algorithm={','.join(lever.algorithms)}", *lever.change]
        )
        subprocess.run(
            [sys.executable, "-m", "boostbench.cli", "sweep", "+experiment=sun_tables", *overrides, *changes],
            check=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", required=True)
    parser.add_argument("--seeds", type=int, default=1, help="seeds 0 .. seeds-1, for the defaults and the levers")
    parser.add_argument("--datasets", default="promoters,breast_cancer_w,german,car")
    parser.add_argument("--levers", default=None, help="comma-separated indices into LEVERS (default: all)")
    parser.add_argument("--run", action="store_true", help="make the runs first (boostbench sweep)")
    args = parser.parse_args(argv)
    datasets = args.datasets.split(",")
    levers = LEVERS if args.levers is None else tuple(LEVERS[int(i)] for i in args.levers.split(","))
    if args.run:
        sweep(args.results_dir, datasets, args.seeds, None)
        for lever in levers:
            sweep(args.results_dir, datasets, args.seeds, lever)
    runs = load_runs(args.results_dir)
    runs = runs[(runs["seed"] < args.seeds) & runs["dataset"].isin(datasets)]
    default = rebuild(runs)
    keys = ["learner", "dataset", "column"]
    print("| lever | column | defaults → with the lever (effect; paper) | cells flagged (defaults → lever) |")
    print("|---|---|---|---|")
    for lever in levers:
        columns = [COLUMN_OF[a] for a in lever.algorithms]
        merged = pd.merge(default, rebuild(runs, lever.change, lever.algorithms), on=keys, suffixes=("", "_lever"))
        merged = merged[
            merged["learner"].isin(lever.learners)
            & merged["column"].isin(columns)
            & (merged["n"] > 0)
            & (merged["n_lever"] > 0)
        ]
        flags = f"{int(merged['flagged'].sum())} → {int(merged['flagged_lever'].sum())} of {len(merged)}"
        for (learner, column), block in merged.groupby(["learner", "column"], sort=False):
            moves = "; ".join(
                f"{row.dataset} {row.ours:.1f} → {row.ours_lever:.1f} ({row.ours_lever - row.ours:+.1f}; "
                f"{row.paper:.1f})"
                for row in block.itertuples()
            )
            print(f"| {lever.what} (`{' '.join(lever.change)}`) | {learner} {column} | {moves} | {flags} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
