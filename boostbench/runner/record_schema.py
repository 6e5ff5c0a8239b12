"""What a result record must be before a report or a sweep believes it.

A store may be shared, copied, hand-edited or forged: a record is read only if its shape is the
one :func:`boostbench.runner.experiment.run_experiment` writes (:func:`schema_problem`: finite
numbers where numbers go, a curve with its x axis, nesting no deeper than a record's) and its
``config_hash`` is the hash of its config (:func:`hash_problem`), so a changed record cannot pass
for the run it claims to be. Each check returns the reason in words, or None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Deeper than any record nests (config.dataset.recode.<column>.<word> is 5): a bound for the walk
MAX_DEPTH = 32
#: The curves a record may hold: its x axis, then the curves over it (the first is required)
CURVES = (
    ("examples_seen", "cumulative_accuracy"),  # prequential
    ("test_examples_seen", "test_rank_loss"),  # multi-label train then test
    ("rounds", "train_error", "test_error"),  # the split protocols, by boosting round
)
#: The metrics that are lists (one value per fold); every other is a number or null
LIST_METRICS = ("fold_test_error", "n_rounds_fitted")
#: Config entries the reports read, with the type each must have when present
_CONFIG_TYPES = {
    ("seed",): int,
    ("n_learners",): int,
    ("learner", "backend"): str,
    ("protocol", "delay"): int,
    ("protocol", "window"): int,
    ("algorithm", "n_rounds"): int,
}


#: The integers a record holds fit in 64 bits (JSON's may not: 1e400 written out is an int)
MAX_INT = 2**63


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def structure_problem(value: Any) -> str | None:
    """Why ``value`` (a parsed JSON document) is no record's structure: nested deeper than
    :data:`MAX_DEPTH`, or a number that is not finite (NaN, infinity, ``1e999``) or an integer
    beyond 64 bits anywhere.
    Walks iteratively: no recursion limit to hit.
    """
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        node, depth, where = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels (at {where})"
        if isinstance(node, float) and not math.isfinite(node):
            return f"{where or 'it'} is {node}, not a finite number"
        if isinstance(node, int) and not -MAX_INT <= node < MAX_INT:
            return f"{where or 'it'} is an integer beyond 64 bits"
        if isinstance(node, dict):
            stack.extend((v, depth + 1, f"{where}.{k}" if where else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            containers = (v for v in enumerate(node) if isinstance(v[1], (dict, list, float, int)))
            stack.extend((v, depth + 1, f"{where}[{i}]") for i, v in containers)
    return None


def _numbers(values: Any, nullable: bool) -> bool:
    return isinstance(values, list) and all(_is_number(v) or (nullable and v is None) for v in values)


def _curve_problem(curve: Any) -> str | None:
    if not isinstance(curve, Mapping):
        return "its curve is not a mapping"
    shape = next((names for names in CURVES if any(name in curve for name in names[1:])), None)
    if shape is None:
        return f"its curve has none of {', '.join(names[1] for names in CURVES)}"
    missing = [name for name in shape if name not in curve]
    if missing:
        return f"its curve has {shape[1]} but no {missing[0]}"
    length = len(curve[shape[0]]) if isinstance(curve[shape[0]], list) else -1
    for name, values in curve.items():
        if not _numbers(values, nullable=name != shape[0]):
            return f"its curve {name} is not a list of numbers"
        if len(values) != length:
            return f"its curve {name} has {len(values)} points, its {shape[0]} {length}"
    return None


def schema_problem(record: Any) -> str | None:
    """Why ``record`` is not shaped as a result record (None: it is): a mapping with ``config``,
    ``metrics`` and ``curve`` mappings and a ``config_hash``; each metric a number or null (a list
    of numbers for :data:`LIST_METRICS`); a curve of one of the :data:`CURVES` shapes, its lists of
    numbers of one length; kept ``weights`` rows of numbers of one length; the config entries the
    reports read of their types; ``provenance`` a mapping; and :func:`structure_problem`.
    """
    if not isinstance(record, Mapping):
        return "it is not a JSON object"
    for field in ("config", "metrics", "curve"):
        if not isinstance(record.get(field), Mapping):
            return f"its {field} is {'missing' if field not in record else 'not a mapping'}"
    problem = structure_problem(record)
    if problem is not None:
        return problem
    for name, value in record["metrics"].items():
        if name in LIST_METRICS and not _numbers(value, nullable=False):
            return f"metric {name} is {value!r}, not a list of numbers"
        if name not in LIST_METRICS and not (_is_number(value) or value is None):
            return f"metric {name} is {value!r}, not a number"
    problem = _curve_problem(record["curve"])
    if problem is not None:
        return problem
    for path, kind in _CONFIG_TYPES.items():
        node = record["config"]
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, Mapping) else None
        if isinstance(node, Mapping) and path[-1] in node:
            value = node[path[-1]]
            if not isinstance(value, kind) or isinstance(value, bool):
                return f"config {'.'.join(path)} is {value!r}, not {'an integer' if kind is int else 'a string'}"
    weights = record.get("weights")
    if weights is not None and not (
        isinstance(weights, Mapping)
        and isinstance(weights.get("values"), list)
        and all(_numbers(row, nullable=False) for row in weights["values"])
        and len({len(row) for row in weights["values"]}) <= 1
    ):
        return "its weights are not rows of numbers of one length"
    provenance = record.get("provenance", {})
    if not isinstance(provenance, Mapping) or not isinstance(provenance.get("finished_utc", ""), str):
        return "its provenance is not a mapping with a finished_utc time"
    return None


def hash_problem(record: Mapping[str, Any], path: Path) -> str | None:
    """Why ``record``, read from ``path``, is not the run it claims to be (None: it is): its
    ``config_hash`` is not the hash of its config, or the file is not named after its key
    (:func:`boostbench.system.fingerprint.run_key`). Its config must be usable first
    (:func:`boostbench.runner.checks.record_problem`).
    """
    from boostbench.errors import BoostbenchError
    from boostbench.runner.config import config_hash
    from boostbench.system.fingerprint import run_key

    try:
        expected = config_hash(dict(record["config"]))
    except BoostbenchError as exc:
        return f"its config cannot be hashed ({exc})"
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        return f"its config cannot be hashed ({type(exc).__name__}: {exc})"
    if record["config_hash"] != expected:
        return f"its config_hash {record['config_hash']} is not its config's ({expected}): a changed or forged record"
    code = record.get("code")
    key = run_key(expected, code) if code else expected
    if path.name != f"{key}.json":
        return f"its key is {key}: a record is named {key}.json"
    return None
