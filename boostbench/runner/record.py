"""The run record: what one run writes (:func:`boostbench.runner.experiment.run_experiment`) and
every reader believes, its schema version, and the migrations from each earlier form.

A record is a JSON object: the :class:`RunRecord` fields below, ``schema_version`` among them
(:data:`SCHEMA_VERSION`; a record without one is of version 1, the form every record had before
versions were written). Reading one (:meth:`RunRecord.parse`) migrates it to today's form
(:data:`MIGRATIONS`: a record keeps its keys and numbers, so its hash and store key stay) and
checks it against the type itself: each field of its JSON type, each metric of the kind and
domain the registry of measures gives it (:mod:`boostbench.measures`: a number, a list per
fold; an accuracy in [0, 1], a cost at least 0), a curve of one of the registered shapes
(:data:`boostbench.measures.CURVE_AXES`). A store may be shared, copied, hand-edited or forged,
so a record is also checked for its structure (:func:`structure_problem`) and for being the run
it claims to be (:func:`hash_problem`). Each check returns the reason in words, or None.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boostbench import measures

#: The form of the records this code writes; a record without ``schema_version`` is version 1
SCHEMA_VERSION = 2
#: Deeper than any record nests (config.dataset.recode.<column>.<word> is 5): a bound for the walk
MAX_DEPTH = 32
#: The integers a record holds fit in 64 bits (JSON's may not: 1e400 written out is an int)
MAX_INT = 2**63
#: Config entries the reports read, with the type each must have when present
_CONFIG_TYPES = {
    ("seed",): int,
    ("n_learners",): int,
    ("learner", "backend"): str,
    ("protocol", "delay"): int,
    ("protocol", "window"): int,
    ("algorithm", "n_rounds"): int,
}


@dataclass(frozen=True)
class RunRecord:
    """One run's result, as written under ``<store>/runs/<key>.json``.

    Attributes:
        config: the resolved run config (its :func:`~boostbench.runner.config.config_hash` is
            ``config_hash``).
        config_hash: 16 hex digits.
        metrics: measure name -> a number (null where undefined) or, for a per-fold measure, a
            list of numbers (:mod:`boostbench.measures`: names, kinds, domains and units).
        curve: the record's x axis (``examples_seen``, ``test_examples_seen`` or ``rounds``) and
            the curves along it, lists of one length (a value null where undefined).
        schema_version: the form the record was written in (:data:`SCHEMA_VERSION` for a new one,
            1 for one without it); its content is today's form whatever it says.
        code: the fingerprint of the code that computed the numbers ("" before fingerprints).
        dataset: what the data set was (``name``, ``task``, ``n_examples``, ``n_features``,
            ``n_classes``, ``class_names``).
        provenance: versions, commit, host, seed and times (``finished_utc``, ISO 8601).
        weights: a split protocol's kept example weights (``values``: rounds x examples).
        plugin: a plugin algorithm's package and version.
    """

    config: dict
    config_hash: str
    metrics: dict
    curve: dict
    schema_version: int = 1
    code: str = ""
    dataset: dict | None = None
    provenance: dict = field(default_factory=dict)
    weights: dict | None = None
    plugin: dict | None = None

    @property
    def key(self) -> str:
        """Its store key: the config hash and the code fingerprint
        (:func:`boostbench.system.fingerprint.run_key`), the hash alone before fingerprints.
        """
        from boostbench.system.fingerprint import run_key

        return run_key(self.config_hash, self.code) if self.code else self.config_hash

    @property
    def finished(self) -> str:
        """When the run ended (ISO 8601, "" when the record does not say)."""
        return str(self.provenance.get("finished_utc", ""))

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON data (the fields left at None out)."""
        data = dataclasses.asdict(self)
        return {name: value for name, value in data.items() if value is not None}

    @classmethod
    def parse(cls, data: Any, path: Path | None = None) -> RunRecord:
        """The typed record of ``data`` (a parsed JSON document), checked (:func:`schema_problem`;
        with its ``path``, also :func:`boostbench.runner.checks.record_problem` and
        :func:`hash_problem`) and migrated to today's form (:func:`migrate`).

        Raises:
            ValueError: ``not a valid result record (<why>)`` when it is no record, ``refused:
                <why>`` when it is not one to use or not the run it claims to be.
        """
        from boostbench.runner.checks import record_problem

        problem = schema_problem(data)
        if problem is not None:
            raise ValueError(f"not a valid result record ({problem})")
        if path is not None:
            # a shared store's record may be crafted: its names become paths
            problem = record_problem(data) or hash_problem(data, path)
            if problem is not None:
                raise ValueError(f"refused: {problem}")
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{name: value for name, value in migrate(data).items() if name in known})


# -- migrations ------------------------------------------------------------------------------------


def _from_version_1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (no ``schema_version``: every record before it was written) -> 2. The fields
    are the same; what a version-1 record may lack (``code`` before fingerprints, ``dataset``,
    ``provenance``) reads as :class:`RunRecord`'s default. No key or number changes, so its hash
    and store key stay.
    """
    return {**data, "schema_version": 2}


#: version -> the migration of a record of that version to the next one
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _from_version_1}


def version_of(data: Mapping[str, Any]) -> int:
    """The schema version ``data`` says it has (1 when it says none)."""
    return data.get("schema_version", 1)


def migrate(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` (a record of any version up to :data:`SCHEMA_VERSION`) in today's form, its
    ``schema_version`` the one it was written in.
    """
    written = version_of(data)
    current = dict(data)
    for version in range(written, SCHEMA_VERSION):
        current = MIGRATIONS[version](current)
    current["schema_version"] = written
    return current


# -- the checks ------------------------------------------------------------------------------------


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


#: A JSON type's name in a reason
_WORDS = {dict: "a mapping", str: "a string", int: "an integer", float: "a number"}


@functools.cache
def _field_types() -> dict[str, tuple[type, bool, bool]]:
    """Per :class:`RunRecord` field, from its annotation: ``(JSON type, required, nullable)``."""
    hints = typing.get_type_hints(RunRecord)
    out = {}
    for f in dataclasses.fields(RunRecord):
        hint = hints[f.name]
        args = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        kind = next(a for a in args if a is not type(None))
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out[f.name] = (kind, required, type(None) in args)
    return out


def _fields_problem(record: Mapping[str, Any]) -> str | None:
    for name, (kind, required, nullable) in _field_types().items():
        if name not in record:
            if required:
                return f"its {name} is missing"
            continue
        value = record[name]
        if value is None and nullable:
            continue
        ok = isinstance(value, Mapping) if kind is dict else isinstance(value, kind) and not isinstance(value, bool)
        if not ok:
            return f"its {name} is not {_WORDS.get(kind, kind.__name__)}"
    return None


def _curve_problem(curve: Mapping[str, Any]) -> str | None:
    axis = next((axis for axis, names in measures.CURVE_AXES.items() if any(n in curve for n in names)), None)
    if axis is None:
        return f"its curve has none of {', '.join(names[0] for names in measures.CURVE_AXES.values())}"
    first = measures.CURVE_AXES[axis][0]
    if first not in curve:
        return f"its curve has {measures.CURVE_AXES[axis][-1]} but no {first}"
    if axis not in curve:
        return f"its curve has {first} but no {axis}"
    length = len(curve[axis]) if isinstance(curve[axis], list) else -1
    for name, values in curve.items():
        if not _numbers(values, nullable=name != axis):
            return f"its curve {name} is not a list of numbers"
        if len(values) != length:
            return f"its curve {name} has {len(values)} points, its {axis} {length}"
        known = measures.curve(name)
        for value in values if known is not None else ():
            problem = known.problem(value)
            if problem is not None:
                return f"its curve {problem.removeprefix('metric ')}"
    return None


def _metrics_problem(metrics: Mapping[str, Any]) -> str | None:
    for name, value in metrics.items():
        if measures.kind(name) == "per_fold":
            if not _numbers(value, nullable=True):
                return f"metric {name} is {value!r}, not a list of numbers"
        elif not (_is_number(value) or value is None):
            return f"metric {name} is {value!r}, not a number"
        problem = measures.value_problem(name, value)
        if problem is not None:
            return problem
    return None


def schema_problem(record: Any) -> str | None:
    """Why ``record`` is not shaped as a :class:`RunRecord` (None: it is): a mapping with each
    field of its type (the required ones present), of a ``schema_version`` this code reads; each
    metric of its kind and inside its domain (:mod:`boostbench.measures`; a metric the registry
    does not know is a number or null); a curve of one of the registered shapes, its lists of
    numbers of one length; kept ``weights`` rows of numbers of one length; the config entries the
    reports read of their types; ``provenance`` with a ``finished_utc`` time; and
    :func:`structure_problem`.
    """
    if not isinstance(record, Mapping):
        return "it is not a JSON object"
    for name in ("config", "metrics", "curve"):  # first: the reason a foreign file is refused
        if not isinstance(record.get(name), Mapping):
            return f"its {name} is {'missing' if name not in record else 'not a mapping'}"
    version = version_of(record)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return f"its schema_version is {version!r}, not a version (1, 2, ...)"
    if version > SCHEMA_VERSION:
        return f"its schema_version is {version}: written by a newer boostbench (this one reads up to {SCHEMA_VERSION})"
    problem = structure_problem(record) or _fields_problem(record)
    problem = problem or _metrics_problem(record["metrics"]) or _curve_problem(record["curve"])
    if problem is not None:
        return problem
    for path, kind in _CONFIG_TYPES.items():
        node = record["config"]
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, Mapping) else None
        if isinstance(node, Mapping) and path[-1] in node:
            value = node[path[-1]]
            if not isinstance(value, kind) or isinstance(value, bool):
                return f"config {'.'.join(path)} is {value!r}, not {_WORDS[kind]}"
    weights = record.get("weights")
    if weights is not None and not (
        isinstance(weights.get("values"), list)
        and all(_numbers(row, nullable=False) for row in weights["values"])
        and len({len(row) for row in weights["values"]}) <= 1
    ):
        return "its weights are not rows of numbers of one length"
    if not isinstance(record.get("provenance", {}).get("finished_utc", ""), str):
        return "its provenance is not a mapping with a finished_utc time"
    return None


def hash_problem(record: RunRecord | Mapping[str, Any], path: Path) -> str | None:
    """Why ``record``, read from ``path``, is not the run it claims to be (None: it is): its
    ``config_hash`` is not the hash of its config, or the file is not named after its key
    (:func:`boostbench.system.fingerprint.run_key`). Its config must be usable first
    (:func:`boostbench.runner.checks.record_problem`).
    """
    from boostbench.errors import BoostbenchError
    from boostbench.runner.config import config_hash
    from boostbench.system.fingerprint import run_key

    if isinstance(record, RunRecord):
        config, claimed, code = record.config, record.config_hash, record.code
    else:
        config, claimed, code = record["config"], record["config_hash"], record.get("code")
    try:
        expected = config_hash(dict(config))
    except BoostbenchError as exc:
        return f"its config cannot be hashed ({exc})"
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        return f"its config cannot be hashed ({type(exc).__name__}: {exc})"
    if claimed != expected:
        return f"its config_hash {claimed} is not its config's ({expected}): a changed or forged record"
    key = run_key(expected, code) if code else expected
    if path.name != f"{key}.json":
        return f"its key is {key}: a record is named {key}.json"
    return None
