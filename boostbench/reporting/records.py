"""Read the result store into a tidy pandas frame: one row per run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from boostbench.errors import BoostbenchError, DataError
from boostbench.runner.store import iter_records

COLUMNS = [
    "key",
    "config_hash",
    "code",
    "settings",
    "dataset",
    "algorithm",
    "learner",
    "backend",
    "protocol",
    "delay",
    "window",
    "preset",
    "seed",
    "n_learners",
    "gamma",
    "max_depth",
    "n_rounds",
    "final_accuracy",
    "final_accuracy_member_mean",
    "cumulative_accuracy",
    "final_kappa",
    "final_macro_f1",
    "cumulative_kappa",
    "cumulative_macro_f1",
    "final_kappa_m",
    "final_kappa_t",
    "cumulative_kappa_m",
    "cumulative_kappa_t",
    "test_rank_loss",
    "test_error",
    "test_error_std",
    "test_accuracy",
    "train_error",
    "fold_test_error",
    "n_test",
    "runtime_s",
    "cpu_s",
    "ram_hours",
    "us_per_example",
    "peak_rss_bytes",
    "n_examples",
]
METRICS = COLUMNS[COLUMNS.index("final_accuracy") :]


def load_runs(results_dir: str | Path, on_error: Callable[[DataError], None] | None = None) -> pd.DataFrame:
    """Every record under ``<results_dir>/runs/`` as one row (columns: :data:`COLUMNS`).

    ``gamma`` is filled only for algorithms that use it, ``max_depth`` / ``n_rounds`` only for the
    batch boosters' trees, and each metric only for the protocol that has it (NaN otherwise;
    ``fold_test_error`` is a list per run under the split protocols). Records that compute the
    same numbers (:func:`run_identity`, e.g. written before an algorithm declared a knob unused
    or before a display key existed) count once: the one made by today's code
    (:func:`boostbench.system.fingerprint.code_fingerprint`)
    if there is one, else the latest. ``key`` is the record's store key, ``code`` the fingerprint of
    the code that made it (empty for records older than fingerprints).

    Args:
        on_error: called with the error of each record that cannot be read, which is left out
            (None: the error is raised).

    Raises:
        DataError: a record is not valid (its path is named), without ``on_error``.
    """
    from boostbench.system.fingerprint import code_fingerprint, run_key

    rows: dict[str, dict] = {}
    today = code_fingerprint()
    for record in iter_records(results_dir, on_error):
        config, metrics = record["config"], record["metrics"]
        key = _identity(record)
        code = record.get("code", "")
        rank = (code == today, record.get("provenance", {}).get("finished_utc", ""))
        if key in rows and rows[key]["_rank"] >= rank:
            continue
        algorithm = config["algorithm"]
        rows[key] = {
            "_rank": rank,
            "key": run_key(record["config_hash"], code) if code else record["config_hash"],
            "config_hash": record["config_hash"],
            "code": code,
            "settings": settings_key(config),
            "dataset": config["dataset"]["name"],
            "algorithm": algorithm["name"],
            "seed": config["seed"],
            "n_learners": config["n_learners"],
            "learner": config["learner"]["name"],
            "backend": config["learner"]["backend"],
            "protocol": config["protocol"]["name"],
            "delay": config["protocol"].get("delay", 0),
            "window": config["protocol"].get("window", float("nan")),
            "preset": config.get("preset") or "paper",  # no preset: the papers' defaults
            "gamma": algorithm.get("gamma", float("nan")),
            "max_depth": config["learner"].get("max_depth", float("nan"))
            if config["learner"]["name"] == "tree"
            else float("nan"),
            "n_rounds": algorithm.get("n_rounds", float("nan")),
            **{name: float("nan") if metrics.get(name) is None else metrics[name] for name in METRICS},
        }
    return pd.DataFrame(list(rows.values()), columns=COLUMNS)


# What only shows the numbers (checkpoints, the sliding window of the windowed curves) or computes
# the same ones (compiled kernels): not part of a run's identity
_SHOWN = {"algorithm": ("compiled",), "protocol": ("curve_points", "window")}
# What a table compares runs across, so not part of their settings: the seed, the edge (a
# best-gamma column chooses it), N (a table filter), the preset's name (its values are in the
# config), and the pool's backend (the same numbers)
_ACROSS = {
    "": ("seed", "gamma", "n_learners", "preset"),
    "algorithm": ("gamma", "compiled"),
    "learner": ("backend",),
    "protocol": ("curve_points", "window"),
}
# Keys added after records were written, at the value that computes what the records computed
# without them: left out at that value, so old and new records of one setting compare equal
_NEUTRAL = {
    "protocol": {"delay": 0, "shuffle_seed": None, "fading": None},
    "learner": {"rules": "river", "binning": "frequency", "missing": "value", "bin_rows": 10_000},
    "algorithm": {"presentations": "poisson"},
}


def settings_key(config: dict) -> str:
    """A digest of what decides a run's numbers besides its seed, its edge gamma and N: two runs
    of one paper-table cell count together only when their settings are equal (a run with one
    of the authors' choices switched on, or any other changed key, is another cell). Records
    written before a key existed have other settings than today's, unless that key is at its
    neutral value (:data:`_NEUTRAL`).
    """
    return _digest(config, _ACROSS)


def run_identity(config: dict) -> str:
    """A digest of what decides a run's numbers, seed included: two records with one identity are
    one run done twice (by other code, or before a display key existed).
    """
    return _digest(config, _SHOWN)


def _digest(config: dict, dropped: dict[str, tuple[str, ...]]) -> str:
    from boostbench.runner.config import semantic_config

    data = semantic_config(config)
    for section in sorted(set(dropped) | set(_NEUTRAL)):
        keys = dropped.get(section, ())
        node = data if not section else dict(data.get(section) or {})
        for key in keys:
            node.pop(key, None)
        for key, value in _NEUTRAL.get(section, {}).items():
            if node.get(key, value) == value:
                node.pop(key, None)
        if section:
            data[section] = node
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _identity(record: dict) -> str:
    """The record's :func:`run_identity` as computed today (its config hash for an algorithm no
    longer known).
    """
    try:
        return run_identity(record["config"])
    except BoostbenchError:
        return record["config_hash"]


def varying(group: pd.DataFrame) -> list[str]:
    """The columns among gamma, preset and variant worth showing for ``group`` (a slice of the
    summary): gamma where some algorithm has one, preset and variant where one is not the
    default (``paper``, 1).
    """
    shown = {
        "gamma": group["gamma"].notna().any(),
        "preset": (group["preset"] != "paper").any(),
        "variant": (group["variant"] > 1).any(),
    }
    return [name for name, show in shown.items() if show]
