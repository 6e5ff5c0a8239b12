"""A result store published as files a repository can hold, and back: the per-run table and the
records it is derived from.

``export`` writes two files, each byte for byte the same for the same store (sorted rows, gzip
without a time stamp), so an unchanged store commits no change:

- :data:`TABLE` (``runs.csv.gz``): one row per run (:func:`~boostbench.reporting.records.load_runs`'s
  rows, the runs a report reads), with every metric, the cost columns (``cpu_s``, ``wall_s``,
  ``ram_hours``, ``peak_mib``), algorithm, learner, data set and seed, and ``overrides``: the
  command line that makes the run again, ``boostbench run <overrides>`` (shell-quoted; checked on
  export: it composes to the record's config hash). For analysis: pandas, R or a spreadsheet.
- :data:`RECORDS` (``records.jsonl.gz``): the store itself, one JSON document per line: every
  run record as the store holds it (config, hash, metrics, curves, provenance), every failed
  job's note (``failed/``), the sweeps' ``timings.json`` and the command that made them.

The table is derived from the records, not the other way round: a row cannot carry what a report
and a sweep must trust (the learning curves, the provenance, the failures' reasons), and a
record carries its config and its config hash, which ``import`` checks as the store's reader
does (:mod:`boostbench.runner.record`): a record edited after it was published is
refused in one line. ``import`` rebuilds the store from :data:`RECORDS`; a sweep over it runs only
the grid points it lacks (made by the same code: a record's key holds its code fingerprint);
:mod:`boostbench.reporting.reproduction_docs` ``render`` re-writes the page from the published
files alone.

    python -m boostbench.reporting.run_table export --results-dir results/stream-benchmark --out docs/stream-benchmark
    python -m boostbench.reporting.run_table import --from docs/stream-benchmark --results-dir results/stream-benchmark
    python -m boostbench.reporting.reproduction_docs render --from docs/stream-benchmark --docs docs/stream-benchmark
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from boostbench.errors import BoostbenchError, DataError

TABLE = "runs.csv.gz"
RECORDS = "records.jsonl.gz"
#: A page folder's subfolder holding a sweep's store as it stands before its seed completes
CHECKPOINT = "in-progress"
#: The cost columns the table adds to the store's (``runtime_s`` is the pass's wall time)
COSTS = {"wall_s": "runtime_s", "peak_mib": "peak_rss_bytes"}
#: The groups whose option a run names first (``dataset=car``), then the values that differ
GROUPS = ("dataset", "algorithm", "learner", "protocol")
#: A string Hydra reads as itself without quotes (and not as a number, bool or null)
_PLAIN = re.compile(r"[A-Za-z_][\w./-]*")
_KEYWORDS = {"true", "false", "null", "inf", "nan", "none"}


def hydra_value(value: Any) -> str:
    """``value`` (JSON data) in Hydra's override grammar: ``null``, ``true``, numbers as Python
    writes them (exact), a string plain when Hydra reads it back as that string, else quoted;
    lists ``[a,b]`` and mappings ``{k:v}``.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if _PLAIN.fullmatch(value) and value.lower() not in _KEYWORDS:
            return value
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{hydra_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no override for a {type(value).__name__}")


def _differences(wanted: dict, composed: dict, prefix: str = "") -> list[str]:
    """The overrides that turn ``composed`` into ``wanted`` (both plain dicts), leaf by leaf: a
    changed value ``key=v``, a key only ``wanted`` has ``+key=v``, one only ``composed`` has
    ``~key``.
    """
    out = []
    for key, value in wanted.items():
        path = f"{prefix}{key}"
        if key not in composed:
            out.append(f"+{path}={hydra_value(value)}")
        elif isinstance(value, dict) and isinstance(composed[key], dict):
            out += _differences(value, composed[key], f"{path}.")
        elif value != composed[key] or type(value) is not type(composed[key]):
            out.append(f"{path}={hydra_value(value)}")
    out += [f"~{prefix}{key}" for key in composed if key not in wanted]
    return out


def run_overrides(record: dict) -> list[str]:
    """The overrides that make ``record``'s run again (``boostbench run <overrides>``): its groups'
    options, its preset, then every value of its config that differs from what they compose to
    (the keys that decide no number, :data:`~boostbench.runner.checks.PRESENTATION_KEYS`, left out).

    Raises:
        DataError: they do not compose to the record's config hash (a config no command line of
            today's configs makes: a plugin's algorithm not installed, a data file moved).
    """
    from boostbench.reporting.weak_learners import learner_file
    from boostbench.runner.config import compose_config, config_hash, semantic_config

    config = record["config"]
    options = {group: config[group]["name"] for group in GROUPS}
    options["learner"] = learner_file(config["learner"]) or options["learner"]  # the name is the trees'
    base = [f"{group}={option}" for group, option in options.items()]
    if config.get("preset"):
        base.append(f"+preset={config['preset']}")
    try:
        composed = semantic_config(compose_config(base))
        overrides = base + _differences(semantic_config(config), composed)
        made = config_hash(compose_config(overrides))
    except BoostbenchError as exc:
        raise DataError(f"run {record['config_hash']}: its config does not compose here ({exc})") from None
    if made != record["config_hash"]:
        raise DataError(f"run {record['config_hash']}: its overrides compose to {made}: {shlex.join(overrides)}")
    return overrides


def run_table(results_dir: str | Path) -> pd.DataFrame:
    """The store's runs as the reports read them (:func:`~boostbench.reporting.records.load_runs`),
    with ``wall_s``, ``peak_mib`` (MiB) and ``overrides`` (shell-quoted), sorted by ``key``;
    ``learner`` is the ``learner=`` option (``hoeffding_tree_defaults``; the store's column holds
    the config's name, which both tracks share).

    Raises:
        DataError: a record cannot be read, or its overrides do not make it (:func:`run_overrides`).
    """
    from boostbench.reporting.records import load_runs
    from boostbench.reporting.weak_learners import learner_file
    from boostbench.runner.store import iter_records

    runs = load_runs(results_dir)
    by_hash = {r.config_hash: r.to_dict() for r in iter_records(results_dir)}
    records = [by_hash[h] for h in runs["config_hash"]]
    runs["learner"] = [learner_file(r["config"]["learner"]) or r["config"]["learner"]["name"] for r in records]
    runs["wall_s"] = runs[COSTS["wall_s"]]
    runs["peak_mib"] = runs[COSTS["peak_mib"]] / 2**20
    runs["overrides"] = [shlex.join(run_overrides(r)) for r in records]
    return runs.sort_values("key", kind="stable").reset_index(drop=True)


def _gzip(text: str) -> bytes:
    """``text`` gzipped without a time stamp or a file name: the same text, the same bytes."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as handle:
        handle.write(text.encode("utf-8"))
    return buffer.getvalue()


def store_lines(results_dir: str | Path, command: str | None = None) -> list[str]:
    """The store as :data:`RECORDS`' lines: the command, ``timings.json``, the failed jobs' notes
    and the records, each a JSON document (sorted keys), in file-name order.

    Raises:
        DataError: a record cannot be read (the store's reader: shape and hash checked).
    """
    from boostbench.runner.store import iter_failures, iter_records, read_timings

    results_dir = Path(results_dir)
    lines = [{"kind": "command", "command": command or ""}, {"kind": "timings", "timings": read_timings(results_dir)}]
    # a damaged failure note says nothing (as the leaderboard reads them)
    lines += [{"kind": "failed", "name": path.name, "note": note} for path, note in iter_failures(results_dir)]
    runs = sorted(((f"{r.key}.json", r.to_dict()) for r in iter_records(results_dir)), key=lambda run: run[0])
    lines += [{"kind": "run", "name": name, "record": record} for name, record in runs]
    return [json.dumps(line, sort_keys=True, separators=(",", ":"), allow_nan=False) for line in lines]


def snapshot(results_dir: Path, into: Path, seeds: int | None = None) -> Path:
    """``into``, a copy of the store's records, failure notes and timings as they are now (less
    the temporaries of writes under way, which a rename may take away mid-copy). ``seeds``: only
    the records and notes of seeds 0 to ``seeds`` - 1 (what ``SEEDS=n`` sweeps); a file whose
    seed cannot be read is copied, for the store's checks to name.
    """
    from boostbench.runner.store import TIMINGS, failures_dir, runs_dir

    def ignored(folder: str, names: list[str]) -> set[str]:
        return {
            n for n in names if n.startswith(".") or (seeds is not None and not _seed_kept(Path(folder) / n, seeds))
        }

    for folder in (runs_dir(results_dir), failures_dir(results_dir)):
        if folder.is_dir():
            shutil.copytree(folder, into / folder.name, ignore=ignored)
    if (results_dir / TIMINGS).is_file():
        shutil.copyfile(results_dir / TIMINGS, into / TIMINGS)
    return into


def _seed_kept(path: Path, seeds: int) -> bool:
    try:
        seed = json.loads(path.read_text(encoding="utf-8"))["config"]["seed"]
    except (OSError, ValueError, KeyError, TypeError):
        return True
    return not isinstance(seed, int) or 0 <= seed < seeds


def export(results_dir: str | Path, out: str | Path, command: str | None = None) -> list[Path]:
    """Write :data:`TABLE` and :data:`RECORDS` of the store ``results_dir`` under ``out``
    (atomically), both from one copy of the store: a sweep still writing to it (a store
    committed as it stands) cannot give the table a run the records lack, or the other way round.
    Returns their paths.

    Raises:
        DataError: see :func:`run_table` and :func:`store_lines`.
    """
    from boostbench.system.files import atomic_write_bytes

    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="boostbench-export-") as temporary:
        store = snapshot(Path(results_dir), Path(temporary))
        table = run_table(store).to_csv(index=False, lineterminator="\n")
        records = "\n".join(store_lines(store, command)) + "\n"
    return [atomic_write_bytes(out / TABLE, _gzip(table)), atomic_write_bytes(out / RECORDS, _gzip(records))]


def read_table(folder: str | Path) -> pd.DataFrame:
    """:data:`TABLE` of a published folder as a frame (the ``overrides`` a string per run)."""
    return pd.read_csv(Path(folder) / TABLE, keep_default_na=True)


def import_store(folder: str | Path, results_dir: str | Path) -> tuple[int, str]:
    """Rebuild a store under ``results_dir`` from the published :data:`RECORDS` of ``folder``:
    each record written under its name, then read back through the store's checks (its shape, and
    that its config hash is its config's and its name its hash's); the failed jobs' notes and
    ``timings.json`` beside them. What the store has already (a record, a note, its timings) is
    left as it is.

    Returns:
        ``(records written, the command that made them)``.

    Raises:
        DataError: the file is missing or damaged, a name is no store name, or a record fails the
            store's checks (the record removed again, its line named).
    """
    from boostbench.runner.store import failures_dir, read_record, record_path, write_record
    from boostbench.system.files import atomic_write_text

    source, results_dir = Path(folder) / RECORDS, Path(results_dir)
    written, command = 0, ""
    for number, kind, name, item in _published_lines(source):
        if kind == "command":
            command = str(item.get("command", ""))
        elif kind == "timings" and not (results_dir / "timings.json").exists():  # the store's own are newer
            timings = json.dumps(item["timings"], indent=1, sort_keys=True) + "\n"
            atomic_write_text(results_dir / "timings.json", timings)
        elif kind == "failed" and not (failures_dir(results_dir) / name).exists():
            atomic_write_text(failures_dir(results_dir) / name, json.dumps(item["note"], indent=1) + "\n")
        elif kind == "run":
            key = name[: -len(".json")]
            path = record_path(results_dir, key)
            if path.exists():
                continue
            write_record(item["record"], path)
            try:
                read_record(results_dir, key)
            except DataError as exc:
                path.unlink(missing_ok=True)
                raise DataError(f"{source}, line {number}: {exc}") from None
            written += 1
    return written, command


def _published_lines(source: Path) -> Iterator[tuple[int, str, str, dict[str, Any]]]:
    """``(line number, kind, name, item)`` of each line of a published :data:`RECORDS` file.

    Raises:
        DataError: the file cannot be read, a line is no store line, or a name no store file name.
    """
    try:
        lines = gzip.decompress(source.read_bytes()).decode("utf-8").splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DataError(f"{source}: cannot be read ({exc})") from None
    for number, line in enumerate(lines, 1):
        try:
            item = json.loads(line)
            kind = item["kind"]
        except (ValueError, KeyError, TypeError):
            raise DataError(f"{source}, line {number}: not a published store line") from None
        name = str(item.get("name", ""))
        if kind in ("run", "failed") and not re.fullmatch(r"[0-9a-f]{16}(\.[0-9a-f]{16})?\.json", name):
            raise DataError(f"{source}, line {number}: {name!r} is no store file name")
        yield number, kind, name, item


def superseded(checkpoint: str | Path, results_dir: str | Path) -> bool:
    """Whether a checkpoint folder (:data:`CHECKPOINT`, a store exported before its seed
    completed) is superseded by the store ``results_dir``: every run of its :data:`RECORDS` is a
    record there. A page written from that store holds them all and the checkpoint can go; a page
    of fewer seeds, or one re-rendered from its own published files, does not.

    Raises:
        DataError: the checkpoint's records cannot be read (:func:`import_store`).
    """
    from boostbench.runner.store import runs_dir

    held = {path.name for path in runs_dir(results_dir).glob("*.json")}
    return all(name in held for _, kind, name, _ in _published_lines(Path(checkpoint) / RECORDS) if kind == "run")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m boostbench.reporting.run_table", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="what", required=True)
    made = sub.add_parser("export", help=f"write {TABLE} and {RECORDS} of a store")
    made.add_argument("--results-dir", required=True, type=Path)
    made.add_argument("--out", required=True, type=Path)
    made.add_argument("--command", help="the command that made the runs (the page shows it)")
    back = sub.add_parser("import", help=f"rebuild a store from {RECORDS}, for a sweep to resume")
    back.add_argument("--from", dest="folder", required=True, type=Path)
    back.add_argument("--results-dir", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        if args.what == "export":
            paths = export(args.results_dir, args.out, args.command)
            print(f"wrote {', '.join(str(p) for p in paths)}")
        else:
            written, _ = import_store(args.folder, args.results_dir)
            print(f"imported {written} records into {args.results_dir}")
    except BoostbenchError as exc:
        print(f"run_table: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
