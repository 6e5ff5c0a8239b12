"""Read the result store into a tidy pandas frame: one row per run."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from boostbench.errors import DataError

COLUMNS = ["config_hash", "dataset", "algorithm", "learner", "backend", "protocol", "seed", "n_learners", "gamma",
           "max_depth", "n_rounds", "final_accuracy", "final_accuracy_member_mean", "cumulative_accuracy",
           "test_rank_loss", "test_error", "test_error_std", "test_accuracy", "train_error", "fold_test_error",
           "n_test", "runtime_s", "us_per_example", "peak_rss_bytes", "n_examples"]
METRICS = COLUMNS[COLUMNS.index("final_accuracy"):]


def load_runs(results_dir: str | Path) -> pd.DataFrame:
    """Every record under ``<results_dir>/runs/`` as one row (columns: :data:`COLUMNS`).

    ``gamma`` is filled only for algorithms that use it, ``max_depth`` / ``n_rounds`` only for the
    batch boosters' trees, and each metric only for the protocol that has it (NaN otherwise;
    ``fold_test_error`` is a list per run under the split protocols).

    Raises:
        DataError: a record is not valid JSON (its path is named).
    """
    rows = []
    for path in sorted(Path(results_dir, "runs").glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DataError(f"{path}: not a valid result record ({exc})") from None
        config, metrics = record["config"], record["metrics"]
        algorithm = config["algorithm"]
        rows.append({
            "config_hash": record["config_hash"],
            "dataset": config["dataset"]["name"],
            "algorithm": algorithm["name"],
            "seed": config["seed"],
            "n_learners": config["n_learners"],
            "learner": config["learner"]["name"],
            "backend": config["learner"]["backend"],
            "protocol": config["protocol"]["name"],
            "gamma": algorithm.get("gamma", float("nan")),
            "max_depth": config["learner"].get("max_depth", float("nan")) if config["learner"]["name"] == "tree"
            else float("nan"),
            "n_rounds": algorithm.get("n_rounds", float("nan")),
            **{key: metrics.get(key, float("nan")) for key in METRICS},
        })
    return pd.DataFrame(rows, columns=COLUMNS)
