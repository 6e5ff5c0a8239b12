"""The effect of each deviation from the paper, one lever at a time (docs/deviations.md).

    python benchmarks/deviations.py --results-dir results/reproduce-compiled [--seeds 10]

For each lever (a config override that takes one of the authors' choices), runs the cell with
and without it over the seeds through ``boostbench sweep`` (resumable: records already in the
store, e.g. the paper-preset runs of ``make reproduce-tables``, are reused) and prints a Markdown
table: the cell's mean and 95% interval under the defaults and under the lever, the effect,
and the paper's value. ``--write FILE`` also writes the table (atomically).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass

import numpy as np

from boostbench.reporting.tables import confidence_interval, paper_tables
from boostbench.runner.config import compose_config, config_hash
from boostbench.runner.store import has_record, read_record
from boostbench.system.files import atomic_write_text
from boostbench.system.fingerprint import run_key


@dataclass(frozen=True)
class Lever:
    """One deviation: ``overrides`` of one cell (``cell``) and the lever's own ``change``."""

    what: str
    cell: tuple[str, ...]
    change: tuple[str, ...]
    paper: tuple[str, str, int] | None  # (table, row, column index) of the paper's value
    metric: str = "final_accuracy"


T1, T3 = "jung2017_table1", "jung_tewari2018_table3"
LEVERS = (
    Lever(
        "car: doors, persons numeric",
        ("dataset=car", "algorithm=best_vfdt"),
        ("dataset.encoding=reference",),
        (T1, "cars", 0),
    ),
    Lever(
        "car: doors, persons numeric",
        ("dataset=car", "algorithm=online_mbbm", "gamma=0.1"),
        ("dataset.encoding=reference",),
        (T1, "cars", 3),
    ),
    Lever(
        "nursery: children numeric",
        ("dataset=nursery", "algorithm=adaboost_olm"),
        ("dataset.encoding=reference",),
        (T1, "nursery", 2),
    ),
    Lever(
        "Adaboost.OLM: the authors' gradient",
        ("dataset=mice", "algorithm=adaboost_olm"),
        ("algorithm.gradient=reference",),
        (T1, "mice", 2),
    ),
    Lever(
        "Adaboost.OLM: authors' gradient + first weight 5",
        ("dataset=mice", "algorithm=adaboost_olm"),
        ("algorithm.gradient=reference", "algorithm.first_weight=5.0"),
        (T1, "mice", 2),
    ),
    Lever(
        "Adaboost.OLM: authors' gradient + first weight 5",
        ("dataset=nursery", "algorithm=adaboost_olm"),
        ("algorithm.gradient=reference", "algorithm.first_weight=5.0"),
        (T1, "nursery", 2),
    ),
    Lever(
        "best tree: weight 1", ("dataset=mice", "algorithm=best_vfdt"), ("algorithm.tree_weight=one",), (T1, "mice", 0)
    ),
    Lever(
        "Oza: trees without c_i",
        ("dataset=mice", "algorithm=online_boosting"),
        ("algorithm.tree_weight=one",),
        (T1, "mice", 1),
    ),
    Lever("Oza: soft votes", ("dataset=mice", "algorithm=online_boosting"), ("algorithm.vote=soft",), (T1, "mice", 1)),
    Lever("Oza: MOA's vote", ("dataset=mice", "algorithm=online_boosting"), ("algorithm.vote=moa",), (T1, "mice", 1)),
    Lever(
        "OnlineMBBM: N - i + 1 learners left",
        ("dataset=mice", "algorithm=online_mbbm", "gamma=0.1"),
        ("algorithm.learners_left=reference",),
        (T1, "mice", 3),
    ),
    Lever(
        "OnlineMBBM: argmin p^T C",
        ("dataset=mice", "algorithm=online_mbbm", "gamma=0.1"),
        ("algorithm.cost_argmin=raw",),
        (T1, "mice", 3),
    ),
    Lever(
        "multi-label: file order",
        ("dataset=scene", "algorithm=online_bmr", "gamma=0.1"),
        ("protocol.shuffle=false",),
        (T3, "scene", 2),
        "test_rank_loss",
    ),
    Lever(
        "multi-label: file order",
        ("dataset=scene", "algorithm=ada_olmr"),
        ("protocol.shuffle=false",),
        (T3, "scene", 1),
        "test_rank_loss",
    ),
    Lever(
        "OnlineBMR: hinge margin 0",
        ("dataset=emotions", "algorithm=online_bmr", "gamma=0.1"),
        ("algorithm.hinge_margin=0.0",),
        (T3, "emotions", 2),
        "test_rank_loss",
    ),
    *(
        Lever(
            "balance: the authors' one shuffle",
            ("dataset=balance", f"algorithm={name}", *preset),
            ("protocol.shuffle_seed=357",),
            (T1, "balance", column),
        )
        for preset in ((), ("+preset=jung_reference",))
        for column, name in enumerate(("best_vfdt", "online_boosting", "adaboost_olm"))
    ),
    Lever(
        "the authors' tree rules",
        ("dataset=balance", "algorithm=best_vfdt", "+preset=jung_reference", "protocol.shuffle_seed=357"),
        ("learner.backend=river", "learner.rules=reference"),
        (T1, "balance", 0),
    ),
    Lever(
        "the authors' tree rules",
        ("dataset=mice", "algorithm=best_vfdt", "+preset=jung_reference"),
        ("learner.backend=river", "learner.rules=reference"),
        (T1, "mice", 0),
    ),
    Lever(
        "OnlineMBBM: the authors' Monte Carlo potentials",
        ("dataset=mice", "algorithm=online_mbbm", "gamma=0.1", "+preset=jung_reference"),
        ("algorithm.potentials=monte_carlo", "algorithm.mc_draws=100"),
        (T1, "mice", 3),
    ),
    Lever(
        "mice: the authors' one shuffle",
        ("dataset=mice", "algorithm=best_vfdt", "+preset=jung_reference"),
        ("protocol.shuffle_seed=357",),
        (T1, "mice", 0),
    ),
    Lever(
        "the authors' tree rules, in their order",
        ("dataset=mice", "algorithm=best_vfdt", "+preset=jung_reference", "protocol.shuffle_seed=357"),
        ("learner.backend=river", "learner.rules=reference"),
        (T1, "mice", 0),
    ),
)


def sweep(overrides: tuple[str, ...], seeds: int, results_dir: str) -> None:
    command = [
        sys.executable,
        "-m",
        "boostbench",
        "sweep",
        *overrides,
        f"seed=range(0,{seeds})",
        f"results_dir={results_dir}",
        "n_learners=100",
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def values(overrides: tuple[str, ...], seeds: int, results_dir: str, metric: str) -> np.ndarray:
    found = []
    for seed in range(seeds):
        key = run_key(config_hash(compose_config([*overrides, f"seed={seed}", "n_learners=100"])))
        if has_record(results_dir, key):
            found.append(read_record(results_dir, key).metrics[metric])
    return np.array(found, dtype=float)


def cell(v: np.ndarray, digits: int) -> str:
    low, high = confidence_interval(v)
    return f"{v.mean():.{digits}f} [{low:.{digits}f}, {high:.{digits}f}] (n={len(v)})" if len(v) else "—"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results-dir", required=True)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--write", help="also write the table to this file")
    parser.add_argument("--only", default="", help="only the levers whose name contains this text")
    args = parser.parse_args(argv)
    papers = paper_tables()
    lines = [
        "| deviation | cell | defaults (paper's text) | with the lever | effect | paper |",
        "|---|---|---|---|---|---|",
    ]
    for lever in (lever for lever in LEVERS if args.only in lever.what):
        for overrides in (lever.cell, lever.cell + lever.change):
            sweep(overrides, args.seeds, args.results_dir)
        digits = 3 if lever.metric == "final_accuracy" else 4
        base = values(lever.cell, args.seeds, args.results_dir, lever.metric)
        moved = values(lever.cell + lever.change, args.seeds, args.results_dir, lever.metric)
        table, row, column = lever.paper
        key = "accuracy" if lever.metric == "final_accuracy" else "rank_loss"
        paper = papers[table]["rows"][row][key][column]
        where = " ".join(o.split("=")[1] for o in lever.cell)
        lines.append(
            f"| {lever.what} (`{' '.join(lever.change)}`) | {where} | {cell(base, digits)} | "
            f"{cell(moved, digits)} | {moved.mean() - base.mean():+.{digits}f} | {paper} |"
        )
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.write:
        atomic_write_text(args.write, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
