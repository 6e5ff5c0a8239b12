"""The scikit-learn example of README and docs/river.md, timed beside scikit-learn's own AdaBoostClassifier (SAMME).

``GridSearchCV`` over the number of rounds of ``make_pipeline(StandardScaler(), model)`` on
scikit-learn's digits (1,797 x 64, 10 classes), the same 5 stratified folds for every model, stumps:
our AdaBoost.MM and SAMME (:mod:`boostbench.sklearn`) and scikit-learn's ``AdaBoostClassifier``
(SAMME, learning rate 1: the rules our SAMME follows). The candidates run interleaved, several
repetitions in one process; the median wall time of each, and its ratio to scikit-learn's.

    python benchmarks/sklearn_grid_search.py --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from sklearn.datasets import load_digits
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from boostbench.sklearn import AdaBoostMMClassifier, SAMMEClassifier

ROUNDS = [25, 50, 100]
CANDIDATES = {
    "boostbench AdaBoostMMClassifier": (AdaBoostMMClassifier(random_state=0), "n_rounds"),
    "boostbench SAMMEClassifier": (SAMMEClassifier(random_state=0), "n_rounds"),
    "scikit-learn AdaBoostClassifier": (AdaBoostClassifier(random_state=0), "n_estimators"),
}


def search(model, key: str, X, y) -> tuple[GridSearchCV, float]:
    """The fitted grid search and its wall seconds."""
    step = type(model).__name__.lower()
    grid = GridSearchCV(
        make_pipeline(StandardScaler(), model),
        {f"{step}__{key}": ROUNDS},
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
    )
    began = time.perf_counter()
    grid.fit(X, y)
    return grid, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y = load_digits(return_X_y=True)
    seconds: dict[str, list[float]] = {name: [] for name in CANDIDATES}
    results = {}
    for _ in range(args.repeats):
        for name, (model, key) in CANDIDATES.items():
            results[name], elapsed = search(model, key, X, y)
            seconds[name].append(elapsed)
    reference = statistics.median(seconds["scikit-learn AdaBoostClassifier"])
    print(f"digits, GridSearchCV over {ROUNDS} rounds, 5 folds, stumps; median of {args.repeats}")
    for name, grid in results.items():
        median = statistics.median(seconds[name])
        best = next(iter(grid.best_params_.values()))
        print(
            f"{name:34s} best rounds {best:4d}  CV accuracy {grid.best_score_:.3f}  "
            f"{median:6.1f} s  x{median / reference:.2f}"
        )


if __name__ == "__main__":
    main()
