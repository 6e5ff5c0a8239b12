"""A run's peak RSS in a reused process against a fresh one: run the given algorithms
on a data set in this process, then the measured one, and print each run's peak_rss_bytes.

    python benchmarks/peak_rss_reuse.py                                   # fresh: best_vfdt alone
    python benchmarks/peak_rss_reuse.py online_mbbm adaboost_olm online_boosting   # after three others

The two figures of best_vfdt should agree within 15% (nursery: 669 MiB fresh, 688 after three).
"""

from __future__ import annotations

import argparse

from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", nargs="*", help="algorithms run first in this process")
    parser.add_argument("--dataset", default="nursery")
    parser.add_argument("--measured", default="best_vfdt")
    args = parser.parse_args()
    for algorithm in [*args.before, args.measured]:
        record = run_experiment(compose_config([f"dataset={args.dataset}", f"algorithm={algorithm}", "progress=false"]))
        print(f"{algorithm}: peak RSS {record['metrics']['peak_rss_bytes'] / 2**20:,.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
