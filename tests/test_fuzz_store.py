"""Property: whatever a store's entries hold (a record changed anywhere, any JSON, any bytes), its
reader yields records or skips entries with one line each, and what it yields the summary report
reads: never another exception, never a hang (make fuzz runs these at length)."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

from conftest import valid_record
from hypothesis import given
from hypothesis import strategies as st

from boostbench.errors import DataError
from boostbench.reporting import figures
from boostbench.reporting.records import load_runs
from boostbench.reporting.summary import summarize
from boostbench.runner.store import iter_records, record_path, write_record

GENUINE = valid_record(
    metrics={"final_accuracy": 0.75, "cumulative_accuracy": 0.7, "final_kappa": None, "runtime_s": 1.5},
    curve={"examples_seen": [1, 5, 10], "cumulative_accuracy": [0.0, 0.6, 0.7], "windowed_kappa": [None, 0.1, 0.2]},
    provenance={"finished_utc": "2026-01-01T00:00:00"},
)
KEY = GENUINE["config_hash"]

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


def _below(parent, key):
    """``parent[key]`` (a dict's or a list's), None where there is none."""
    return parent.get(key) if isinstance(parent, dict) else parent[key] if key < len(parent) else None


@st.composite
def changed_records(draw) -> dict:
    """The genuine record with one to three places changed: a value replaced or a key deleted,
    anywhere in it (its metrics and curve mostly, where a changed record still hashes as genuine)."""
    record = copy.deepcopy(GENUINE)
    for _ in range(draw(st.integers(1, 3))):
        parent, key = (
            record,
            draw(st.sampled_from(["metrics", "curve", "curve", "provenance", "config", "config_hash"])),
        )
        while isinstance(_below(parent, key), (dict, list)) and _below(parent, key) and draw(st.booleans()):
            parent = parent[key]
            key = draw(st.sampled_from(list(parent.keys() if isinstance(parent, dict) else range(len(parent)))))
        if isinstance(parent, dict) and draw(st.integers(0, 4)) == 0:
            parent.pop(key, None)
        else:
            parent[key] = draw(JSON)
    return record


ENTRIES = st.one_of(
    changed_records().map(lambda record: json.dumps(record, allow_nan=True).encode()),
    JSON.map(lambda value: json.dumps(value, allow_nan=True).encode()),
    st.binary(max_size=200),
    st.integers(1, 5000).map(lambda depth: b"[" * depth + b"]" * depth),
)


@given(st.lists(st.tuples(ENTRIES, st.sampled_from([KEY, "x", f"{KEY}.abc", "0" * 16])), max_size=4))
def test_any_store_entries_are_read_or_skipped_in_one_line(entries):
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder)
        write_record(GENUINE, record_path(store, KEY))
        for content, name in entries:
            (store / "runs" / f"{name}.json").write_bytes(content)
        errors: list[DataError] = []
        records = list(iter_records(store, on_error=errors.append))
        assert all("\n" not in str(error).strip() for error in errors)
        assert len(records) + len(errors) == len(list((store / "runs").glob("*.json")))
        runs = load_runs(store, on_error=lambda exc: None)
        assert len(runs) <= 1  # an accepted record is the genuine run (changed where its hash allows)
        summarize(runs)
        summarize(runs, "final_kappa")
        figures.curves(store, runs)
