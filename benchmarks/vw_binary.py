"""Adaboost.OLM and OnlineMBBM at k = 2 beside Vowpal Wabbit's binary online boosters, AdaBoost.OL
(``vw_boosting`` alg=adaptive) and OnlineBBM (alg=bbm), on the binary data sets: the vendored
mushroom, german and breast_cancer_w, and river's bundled Phishing and Bananas (the registry's
``phishing`` and ``bananas``). Each run is the runner's prequential pass (seeded shuffle, final
accuracy over the last 20%); the table is mean ± standard deviation over the seeds, in Markdown.

    python benchmarks/vw_binary.py --seeds 5 --n-learners 100
    python benchmarks/vw_binary.py --datasets breast_cancer_w     # one row
"""

from __future__ import annotations

import argparse

import numpy as np

from boostbench.data import load_dataset
from boostbench.data.registry import registry_specs
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment

DATASETS = ("mushroom", "german", "breast_cancer_w", "phishing", "bananas")
ALGORITHMS = {
    "Adaboost.OLM": ["algorithm=adaboost_olm"],
    "OnlineMBBM (γ=0.1)": ["algorithm=online_mbbm"],
    "VW AdaBoost.OL": ["algorithm=vw_boosting", "algorithm.alg=adaptive"],
    "VW OnlineBBM": ["algorithm=vw_boosting", "algorithm.alg=bbm"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n-learners", type=int, default=100)
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    args = parser.parse_args()
    specs = registry_specs()
    data = {name: load_dataset(specs[name]) for name in args.datasets}
    print(f"| data set (n × d) | {' | '.join(ALGORITHMS)} |")
    print("|---|" + "---:|" * len(ALGORITHMS))
    for name, dataset in data.items():
        cells = []
        for overrides in ALGORITHMS.values():
            accuracy = [
                run_experiment(
                    compose_config(
                        [
                            *overrides,
                            f"dataset={name}",
                            f"n_learners={args.n_learners}",
                            f"seed={seed}",
                            "progress=false",
                            "n_threads=1",
                        ]
                    ),
                    dataset=dataset,
                )["metrics"]["final_accuracy"]
                for seed in range(args.seeds)
            ]
            cells.append(f"{np.mean(accuracy):.3f} ± {np.std(accuracy):.3f}")
        print(f"| {name} ({dataset.n_examples} × {dataset.n_features}) | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
