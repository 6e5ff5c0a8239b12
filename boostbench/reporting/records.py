"""Read the result store into a tidy pandas frame: one row per run."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from boostbench.errors import DataError

COLUMNS = ["config_hash", "dataset", "algorithm", "backend", "seed", "n_learners", "gamma",
           "final_accuracy", "final_accuracy_member_mean", "cumulative_accuracy", "test_rank_loss",
           "runtime_s", "us_per_example", "peak_rss_bytes", "n_examples"]
METRICS = COLUMNS[7:]


def load_runs(results_dir: str | Path) -> pd.DataFrame:
    """Every record under ``<results_dir>/runs/`` as one row (columns: :data:`COLUMNS`).

    ``gamma`` is filled only for algorithms that use it, and each metric only for the task that
    has it (NaN otherwise).

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
            "backend": config["learner"]["backend"],
            "gamma": algorithm.get("gamma", float("nan")),
            **{key: metrics.get(key, float("nan")) for key in METRICS},
        })
    return pd.DataFrame(rows, columns=COLUMNS)
