"""A run's peak RSS in a reused process against a fresh one: make the ``--before`` runs in this
process, then the measured one, and print each run's ``peak_rss_bytes`` and what its pass added to
the process (:func:`~boostbench.system.resources.pass_added_bytes`). Each run is given by its
overrides, as ``boostbench run`` takes them:

    python benchmarks/peak_rss_reuse.py                                                  # VFDT alone
    python benchmarks/peak_rss_reuse.py --before "algorithm=river_adaboost dataset=balance"
    python benchmarks/peak_rss_reuse.py --before "algorithm=online_mbbm dataset=nursery learner=hoeffding_tree_defaults"

``peak_rss_bytes`` adds the pass to the floor the process took at its first run, so the measured
run's figure moves with what ran first; what its pass added does not (docs/benchmark.md, the
per-run table).
"""

from __future__ import annotations

import argparse
import shlex

from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment
from boostbench.system.resources import pass_added_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", action="append", default=[], help="a run made first in this process (repeatable)")
    parser.add_argument("--measured", default="algorithm=vfdt dataset=agrawal_drift learner=hoeffding_tree seed=0")
    args = parser.parse_args()
    for overrides in [*args.before, args.measured]:
        record = run_experiment(compose_config([*shlex.split(overrides), "progress=false"]))
        print(
            f"{overrides}: peak RSS {record['metrics']['peak_rss_bytes'] / 2**20:,.0f} MiB, "
            f"its pass added {pass_added_bytes() / 2**20:,.0f} MiB",
            flush=True,
        )


if __name__ == "__main__":
    main()
