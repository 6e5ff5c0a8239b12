"""The compiled pool's size on every vendored data set at the paper's settings.

Runs each Table 1 / Table 3 configuration (every data set, algorithm and gamma of
``configs/experiment/jung2017_table1.yaml`` and ``jung_tewari2018_table3*.yaml``, plus the other
vendored multiclass sets) with the default memory budget and prints the pool's size as the
budget counts it and whether the budget was ever reached. The default ``learner.max_size`` must
stay above the largest (``tests/test_memory_threads.py`` pins the heaviest).

    python benchmarks/pool_sizes.py --seeds 0 1 2
"""

from __future__ import annotations

import argparse

import boostbench.runner.experiment as experiment
from boostbench.runner.config import compose_config

MULTICLASS = ("balance", "car", "mice", "mushroom", "nursery", "german", "heart", "breast_cancer_w", "promoters")
GRID = (
    # gamma None: an algorithm without an edge (only OnlineMBBM and OnlineBMR take one)
    [(d, a, (None,)) for d in MULTICLASS for a in ("best_vfdt", "online_boosting", "adaboost_olm")]
    + [(d, "online_mbbm", (0.1, 0.05, 0.01, 0.005, 0.001)) for d in MULTICLASS]
    + [(d, "ada_olmr", (None,)) for d in ("emotions", "scene", "yeast", "mediamill_reduced")]
    + [(d, "online_bmr", (0.2, 0.1, 0.01, 0.001)) for d in ("emotions", "scene", "yeast")]
    + [("mediamill_reduced", "online_bmr", (0.05, 0.01, 0.005, 0.001))]
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--datasets", nargs="+", help="only these data sets")
    args = parser.parse_args()
    pools = []
    real = experiment.make_pool

    def capture(*a, **k):
        pools.append(real(*a, **k))
        return pools[-1]

    experiment.make_pool = capture
    largest = (0.0, "")
    for dataset, algorithm, gammas in GRID:
        if args.datasets and dataset not in args.datasets:
            continue
        for gamma in gammas:
            for seed in args.seeds:
                pools.clear()
                cfg = compose_config(
                    [
                        f"dataset={dataset}",
                        f"algorithm={algorithm}",
                        *([] if gamma is None else [f"gamma={gamma}"]),
                        f"seed={seed}",
                        "progress=false",
                        "n_threads=1",
                    ]
                )
                experiment.run_experiment(cfg)
                mib = max(p.size_bytes for p in pools) / 2**20
                hits = sum(p.enforcements for p in pools)
                largest = max(largest, (mib, f"{dataset} {algorithm} gamma={gamma} seed={seed}"))
                print(
                    f"{dataset:18s} {algorithm:16s} gamma={gamma!s:<6} seed={seed}  pool {mib:8.1f} MiB  "
                    f"budget reached {hits} times",
                    flush=True,
                )
    print(f"largest: {largest[0]:.1f} MiB ({largest[1]}); budget {cfg.learner.max_size} MiB")


if __name__ == "__main__":
    main()
