"""Read the result store into a tidy pandas frame: one row per run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from boostbench import measures
from boostbench.errors import BoostbenchError, DataError
from boostbench.reporting import weak_learners
from boostbench.runner.record import RunRecord
from boostbench.runner.store import iter_records

COLUMNS = [
    "key",
    "config_hash",
    "code",
    "schema_version",
    "settings",
    "dataset",
    "algorithm",
    "learner",
    "trees",
    "tree_kind",
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
]
#: The measures of the registry (:mod:`boostbench.measures`): each number a column, and the one
#: per-fold list of the split protocols (fold_test_error) as a list per run
METRICS = [name for name, m in measures.MEASURES.items() if m.kind == "scalar" or name == "fold_test_error"]
COLUMNS += METRICS
#: What the data set is, after the metrics: a stream (its order is the data: never shuffled), and
#: where its drift is centred and how wide it is, in examples (NaN: no ``drift_to``)
DATASET_FACTS = ["stream", "drift_position", "drift_width"]
#: The columns after the metrics: the data set's facts, the settings as JSON (:func:`settings_items`)
COLUMNS += [*DATASET_FACTS, "settings_items"]


def load_runs(results_dir: str | Path, on_error: Callable[[DataError], None] | None = None) -> pd.DataFrame:
    """Every record under ``<results_dir>/runs/`` as one row (columns: :data:`COLUMNS`).

    ``gamma`` is filled only for algorithms that use it, ``max_depth`` / ``n_rounds`` only for the
    batch boosters' trees, and each metric only for the protocol that has it (NaN otherwise;
    ``fold_test_error`` is a list per run under the split protocols). ``learner`` is the learner
    config's name, ``trees`` and ``tree_kind`` what weak learners the run had
    (:mod:`boostbench.reporting.weak_learners`: a peer's own, not the learner config), and
    ``settings_items`` the settings as JSON (:func:`settings_items`); after :data:`COLUMNS`, any
    other numeric metric the records hold (:func:`extra_metrics`). Records that compute the
    same numbers and hold the same curves (:func:`run_identity`, e.g. written before an algorithm
    declared a knob unused) count once: the one made by today's code
    (:func:`boostbench.system.fingerprint.code_fingerprint`)
    if there is one, else the latest. ``key`` is the record's store key, ``code`` the fingerprint of
    the code that made it (empty for records older than fingerprints).

    Args:
        on_error: called with the error of each record that cannot be read, which is left out
            (None: the error is raised).

    Raises:
        DataError: a record is not valid (its path is named), without ``on_error``.
    """
    from boostbench.system.fingerprint import fingerprints

    rows: dict[str, dict] = {}
    today = fingerprints()
    for record in iter_records(results_dir, on_error):
        config, metrics = record.config, record.metrics
        key = _identity(record)
        rank = (record.code in today, record.finished)
        if key in rows and rows[key]["_rank"] >= rank:
            continue
        algorithm = config["algorithm"]
        trees = weak_learners.of_config(config)
        rows[key] = {
            "_rank": rank,
            "key": record.key,
            "config_hash": record.config_hash,
            "code": record.code,
            "schema_version": record.schema_version,
            "settings": settings_key(config),
            "dataset": config["dataset"]["name"],
            "algorithm": algorithm["name"],
            "seed": config["seed"],
            "n_learners": config["n_learners"],
            "learner": config["learner"]["name"],
            "trees": trees.label,
            "tree_kind": trees.kind,
            "backend": config["learner"]["backend"],
            "protocol": config["protocol"]["name"],
            "delay": config["protocol"].get("delay", 0),
            "window": config["protocol"].get("window", _default_window(record)),
            "preset": config.get("preset") or "paper",  # no preset: the papers' defaults
            "gamma": algorithm.get("gamma", float("nan")),
            "max_depth": config["learner"].get("max_depth", float("nan"))
            if config["learner"]["name"] == "tree"
            else float("nan"),
            "n_rounds": algorithm.get("n_rounds", float("nan")),
            **{name: float("nan") if metrics.get(name) is None else metrics[name] for name in METRICS},
            **dataset_facts(config["dataset"]),
            "settings_items": settings_items(config),
            **extra_metrics(metrics),
            **fold_intervals(metrics),
        }
    extra = sorted({name for row in rows.values() for name in row} - set(COLUMNS) - {"_rank"})
    return pd.DataFrame(list(rows.values()), columns=[*COLUMNS, *extra])


def _default_window(record) -> float:
    """The window of a record whose protocol config has none: the protocol's default where its
    curves are windowed (MULAN's train -> test pass), else NaN (no window).
    """
    from boostbench.runner.sections import ProtocolConfig

    windowed = any(name.startswith("windowed_") for name in record.curve or {})
    return float(ProtocolConfig.window) if windowed else float("nan")


def extra_metrics(metrics: dict) -> dict[str, float]:
    """The record's numeric metrics that :data:`METRICS` does not list (a per-copy interval of
    k-fold distributed validation, a plugin's measure the registry does not know), so that the
    reports show them too.
    """
    return {
        name: float(value)
        for name, value in metrics.items()
        if name not in METRICS and isinstance(value, int | float) and not isinstance(value, bool)
    }


def fold_intervals(metrics: dict) -> dict[str, float]:
    """For each per-fold list ``fold_<m>`` of a record whose ``m_ci_low`` and ``m_ci_high`` it does
    not hold (the split protocols' ``fold_test_error``): its Student-t interval over the folds
    (:func:`boostbench.metrics.fold_summary`), as those two columns.
    """
    from boostbench.metrics import fold_summary

    out = {}
    for name, values in metrics.items():
        base = name.removeprefix(measures.FOLD_PREFIX)
        if base != name and isinstance(values, list) and f"{base}_ci_low" not in metrics:
            _, low, high = fold_summary(values)
            out[f"{base}_ci_low"] = float("nan") if low is None else low
            out[f"{base}_ci_high"] = float("nan") if high is None else high
    return out


# What computes the same numbers into the same record (compiled kernels): not part of a run's
# identity. The checkpoints and the window of the curves are: they change what a record holds.
_SHOWN = {"algorithm": ("compiled",)}
# What a table compares runs across, so not part of their settings: the seed, the edge (a
# best-gamma column chooses it), N (a table filter), the preset's name (its values are in the
# config), and the pool's backend (the same numbers)
_ACROSS = {
    "": ("seed", "gamma", "n_learners", "preset"),
    "algorithm": ("gamma", "compiled"),
    "learner": ("backend",),
}
# Keys added after records were written, at the value that computes what the records computed
# without them (or their default when reports left them out): left out at that value, so old and
# new records of one setting compare equal
_NEUTRAL = {
    "protocol": {"delay": 0, "shuffle_seed": None, "window": 1000, "curve_points": 100, "fading": None},
    "learner": {"rules": "river", "binning": "frequency", "missing": "value", "bin_rows": 10_000},
    "algorithm": {"presentations": "poisson"},
}


def dataset_facts(dataset: dict) -> dict:
    """:data:`DATASET_FACTS` of a run's ``dataset`` config (:func:`boostbench.data.drift.drift_region`)."""
    from boostbench.data.drift import drift_region
    from boostbench.data.registry import is_stream

    region = drift_region(dataset) or (float("nan"), float("nan"))
    return dict(zip(DATASET_FACTS, (is_stream(dataset), *region)))


def settings_items(config: dict) -> str:
    """The settings :func:`settings_key` digests, as JSON of ``{"section.key": value}`` (sorted):
    what :func:`variant_labels` reads to say how two settings differ.
    """
    flat: dict[str, object] = {}

    def walk(node, prefix: str) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                walk(value, f"{prefix}{key}.")
            else:
                flat[f"{prefix}{key}"] = value

    try:
        walk(_settings(config, _ACROSS), "")
    except BoostbenchError:  # an algorithm no longer known: its raw config
        walk(config, "")
    return json.dumps(flat, sort_keys=True, default=str)


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
    text = json.dumps(_settings(config, dropped), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _settings(config: dict, dropped: dict[str, tuple[str, ...]]) -> dict:
    """The semantic config without the ``dropped`` keys and without the :data:`_NEUTRAL` keys at
    their neutral value.
    """
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
    return data


def _identity(record: RunRecord) -> str:
    """The record's :func:`run_identity` as computed today (its config hash for an algorithm no
    longer known).
    """
    try:
        return run_identity(record.config)
    except BoostbenchError:
        return record.config_hash


#: Digests of the content a setting names (a user file's sha256): shown only when nothing else
#: tells two settings apart, and cut to :data:`DIGEST_CHARS` characters
DIGEST_KEYS = ("dataset.sha256",)
DIGEST_CHARS = 10


def differing_keys(items: list[str]) -> list[str]:
    """The keys whose value is not the same in all of several settings (:func:`settings_items`,
    JSON), sorted; a content digest (:data:`DIGEST_KEYS`) only when nothing else differs.
    """
    parsed = [json.loads(text) for text in dict.fromkeys(items)]
    keys = sorted({key for flat in parsed for key in flat})
    differing = [k for k in keys if len({json.dumps(flat.get(k), default=str) for flat in parsed}) > 1]
    if any(k not in DIGEST_KEYS for k in differing):
        differing = [k for k in differing if k not in DIGEST_KEYS]
    return differing


def describe(items: list[str], keys: list[str]) -> dict[str, str]:
    """Per settings (:func:`settings_items`, JSON), ``key=value`` for each of ``keys``,
    comma-separated: a key left out at its neutral value (or written before it existed) at that
    value, a digest cut short, a file path as its name when the names tell the files apart.
    """
    parsed = {text: json.loads(text) for text in dict.fromkeys(items)}

    def shown(key: str, flat: dict) -> str:
        value = flat.get(key)
        if key not in flat:
            section, _, name = key.rpartition(".")
            value = _NEUTRAL.get(section, {}).get(name, "—")
        text = json.dumps(value, default=str) if isinstance(value, list | dict) else str(value)
        if key in DIGEST_KEYS:
            return text[:DIGEST_CHARS] + "…"
        if key.endswith("file") and isinstance(value, str):
            paths = {str(other.get(key)) for other in parsed.values()}
            return Path(text).name if len({Path(p).name for p in paths}) == len(paths) else text
        return text

    return {text: ", ".join(f"{key}={shown(key, flat)}" for key in keys) for text, flat in parsed.items()}


def variant_labels(items: list[str]) -> dict[str, str]:
    """What sets each of several settings apart (:func:`describe` of their
    :func:`differing_keys`): e.g. ``dataset.file=iris.tsv`` and ``dataset.file=iris.arff``; ""
    for all when there is one.
    """
    return describe(items, differing_keys(items))


def varying(group: pd.DataFrame) -> list[str]:
    """The columns among gamma, preset and variant worth showing for ``group`` (a slice of the
    summary): gamma where some algorithm has one, preset where one is not the default
    (``paper``), variant where a data set and algorithm have several settings.
    """
    shown = {
        "gamma": group["gamma"].notna().any(),
        "preset": (group["preset"] != "paper").any(),
        "variant": (group["variant"] != "").any(),
    }
    return [name for name, show in shown.items() if show]
