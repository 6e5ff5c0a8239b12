"""Adaboost.OLM and OnlineMBBM at k = 2 beside Vowpal Wabbit's binary online boosters, AdaBoost.OL
(``vw_boosting`` alg=adaptive) and OnlineBBM (alg=bbm), on the binary data sets: the vendored
mushroom, german and breast_cancer_w, and river's bundled Phishing and Bananas (read here
straight from river's wheel). Each run is the runner's prequential pass (seeded shuffle, final
accuracy over the last 20%); the table is mean ± standard deviation over the seeds, in Markdown.

    python benchmarks/vw_binary.py --seeds 5 --n-learners 100
"""

from __future__ import annotations

import argparse

import numpy as np

from boostbench.config import compose_config
from boostbench.data import load_dataset
from boostbench.data.dataset import Dataset
from boostbench.data.registry import registry_specs
from boostbench.experiment import run_experiment

VENDORED = ("mushroom", "german", "breast_cancer_w")
RIVER = {"phishing": "Phishing", "bananas": "Bananas"}
ALGORITHMS = {"Adaboost.OLM": ["algorithm=adaboost_olm"], "OnlineMBBM (γ=0.1)": ["algorithm=online_mbbm"],
              "VW AdaBoost.OL": ["algorithm=vw_boosting", "algorithm.alg=adaptive"],
              "VW OnlineBBM": ["algorithm=vw_boosting", "algorithm.alg=bbm"]}


def river_dataset(name: str) -> Dataset:
    """One of river's bundled binary data sets as a numeric :class:`Dataset` (classes sorted)."""
    from river import datasets

    rows = list(getattr(datasets, RIVER[name])())
    features = tuple(rows[0][0])
    X = np.array([[float(x[f]) for f in features] for x, _ in rows])
    labels = [str(y) for _, y in rows]
    classes = tuple(sorted(set(labels)))
    y = np.array([classes.index(label) for label in labels], dtype=np.int64)
    return Dataset(name=name, X=X, y=y, feature_names=features, nominal=np.zeros(len(features), dtype=bool),
                   categories=(None,) * len(features), class_names=classes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n-learners", type=int, default=100)
    args = parser.parse_args()
    specs = registry_specs()
    data = {name: load_dataset(specs[name]) for name in VENDORED} | {name: river_dataset(name) for name in RIVER}
    print(f"| data set (n × d) | {' | '.join(ALGORITHMS)} |")
    print("|---|" + "---:|" * len(ALGORITHMS))
    for name, dataset in data.items():
        cells = []
        for overrides in ALGORITHMS.values():
            accuracy = [run_experiment(compose_config([*overrides, "dataset=mushroom", f"n_learners={args.n_learners}",
                                                       f"seed={seed}", "progress=false", "n_threads=1"]),
                                       dataset=dataset)["metrics"]["final_accuracy"]
                        for seed in range(args.seeds)]
            cells.append(f"{np.mean(accuracy):.3f} ± {np.std(accuracy):.3f}")
        print(f"| {name} ({dataset.n_examples} × {dataset.n_features}) | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
