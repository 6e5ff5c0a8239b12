"""The reproduction, published: every study's tables and figures as Markdown pages that carry their
provenance, and an index with each study's time (``make reproduce-tables REPRO_DOCS=docs/reproduction``).

The tables and figures are the reporters' own (:data:`boostbench.reporting.report.REPORTS`); a page
puts them together under its provenance: the code fingerprints and git commits of the runs, the
seeds, the date and the machine (CPU model, cores, Python and the libraries that compute the
numbers or draw them), and the command. A page whose runs have fewer seeds than its study's grid
says it is provisional.

Two commands, run by the Makefile:

```sh
python -m boostbench.reporting.reproduction_docs time STUDY --results-dir R -- CMD...
python -m boostbench.reporting.reproduction_docs write --results-dir R --docs D --command "..." \
    [--collection stream_benchmark|multilabel_benchmark] [--seeds N]
```

``time`` runs one study's sweep and records in ``R/timings.json`` its wall seconds and the CPU
seconds of all its processes (user + system of every child waited for: the workers' start-up,
imports and kernel loading included); ``write`` adds the runs' own CPU seconds (their records'
``cpu_s``), compilation and cache fills, and writes the pages (``--seeds N``: of seeds 0 to N-1
alone, as ``SEEDS=N`` sweeps them).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from boostbench.reporting.figures import caption_of
from boostbench.runner.store import TIMINGS, read_timings
from boostbench.system.files import atomic_write_text
from boostbench.system.paths import CONFIG_DIR
from boostbench.system.resources import usable_cores

#: Libraries named in a page's provenance: those the fingerprint covers, and those drawing the tables
LIBRARIES = ("numpy", "scipy", "scikit-learn", "river", "numba", "pandas", "matplotlib", "hydra-core")
#: The run columns a study's grid is matched on (a grid key, or its composed default)
GRID_COLUMNS = {
    "dataset": "dataset.name",
    "algorithm": "algorithm.name",
    "learner": "learner.name",
    "protocol": "protocol.name",
    "n_learners": "n_learners",
}


@dataclass(frozen=True)
class Page:
    """One page of ``docs/reproduction/``: the studies (``configs/experiment/<name>.yaml``) whose
    runs it shows, and the report (:data:`~boostbench.reporting.report.REPORTS`) that draws them.
    """

    name: str
    title: str
    studies: tuple[str, ...]
    report: str


PAGES = (
    Page(
        "jung2017_table1", "Jung, Goetz & Tewari 2017, Table 1 (both presets)", ("jung2017_table1",), "jung2017_table1"
    ),
    Page(
        "jung_tewari2018_table3",
        "Jung & Tewari 2018, Table 3 (both presets, small and large k)",
        ("jung_tewari2018_table3", "jung_tewari2018_table3_large_k"),
        "jung_tewari2018_table3",
    ),
    Page(
        "sun_tables", "Sun, Tables 2-3 (TAN, BAN, Naive Bayes)", ("sun_tables", "sun_tables_fixed_split"), "sun_tables"
    ),
    Page("combessie_heart", "Combessie & Machraoui, Heart Disease", ("combessie_heart",), "combessie_heart"),
    Page(
        "mukherjee_schapire",
        "Mukherjee & Schapire, AdaBoost.MM vs M1 vs MH",
        ("mukherjee_schapire",),
        "mukherjee_schapire",
    ),
)


def studies_of(pages: tuple[Page, ...]) -> tuple[str, ...]:
    """The studies (``configs/experiment/<name>.yaml``) whose runs ``pages`` show, in page order."""
    return tuple(study for page in pages for study in page.studies)


#: The stream benchmark's page (``make stream-benchmark STREAM_DOCS=docs/stream-benchmark``)
BENCH_PAGES = (
    Page(
        "stream_benchmark",
        "The stream benchmark: every online booster, ours and the peers, ranked",
        ("stream_benchmark",),
        "leaderboard",
    ),
)
#: The multi-label benchmark's page (``make multilabel-benchmark MULTILABEL_DOCS=docs/multilabel-benchmark``)
MULTILABEL_PAGES = (
    Page(
        "multilabel_benchmark",
        "The multi-label benchmark: online multi-label rankers, ours and the peers, ranked",
        ("multilabel_benchmark",),
        "leaderboard",
    ),
)
#: What ``write`` can publish: the index's title and its pages
COLLECTIONS = {
    "reproduction": ("The reproduction", PAGES),
    "stream_benchmark": ("The stream benchmark", BENCH_PAGES),
    "multilabel_benchmark": ("The multi-label benchmark", MULTILABEL_PAGES),
}
#: The collections published with their per-run table and records (:mod:`~boostbench.reporting.run_table`):
#: each one's page, its make target and docs folder (its name, hyphenated) and its make variables'
#: prefix (``<prefix>_FROM``, ``<prefix>_DOCS``)
BENCHMARKS = {"stream_benchmark": "STREAM", "multilabel_benchmark": "MULTILABEL"}
STUDIES = studies_of(PAGES)


def _grid_values(key: str, text) -> list:
    """One sweeper value list (``a,b,c``, ``range(0,10)`` or one value) as Hydra reads it."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    override = OverridesParser.create().parse_overrides([f"{key}={text}"])[0]
    return list(override.sweep_iterator()) if override.is_sweep_override() else [override.value()]


def study_grid(study: str) -> dict[str, list]:
    """The values a study's grid takes per run column (:data:`GRID_COLUMNS`, ``preset`` and
    ``seed``): the experiment's sweeper values, else the value its config composes to.
    """
    from boostbench.runner.config import compose_config

    params = {
        key.lstrip("+"): _grid_values(key, value)
        for key, value in (
            OmegaConf.load(CONFIG_DIR / "experiment" / f"{study}.yaml").hydra.sweeper.params or {}
        ).items()
    }
    first = [
        f"{key}={values[0]}" for key, values in params.items() if key in ("dataset", "algorithm", "learner", "protocol")
    ]
    composed = compose_config([f"+experiment={study}", *first])
    grid = {column: params.get(column, [OmegaConf.select(composed, path)]) for column, path in GRID_COLUMNS.items()}
    grid["preset"] = params.get("preset", ["paper"])
    grid["seed"] = params.get("seed", [int(composed.seed)])
    return grid


def study_runs(study: str, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of ``runs`` that belong to ``study``'s grid, at any seed (``SEEDS=n`` changes them)."""
    grid = study_grid(study)
    keep = pd.Series(True, index=runs.index)
    for column in (*GRID_COLUMNS, "preset"):
        keep &= runs[column].isin(grid[column])
    return runs[keep]


# --- timing ---------------------------------------------------------------------------------------


def time_study(study: str, results_dir: Path, command: list[str]) -> int:
    """Run ``command`` (one study's sweep), then record its wall and all-process CPU seconds under
    ``study`` in ``<results_dir>/timings.json``. Returns the command's exit code.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    code = subprocess.call(command)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    timings = read_timings(results_dir)
    timings[study] = {
        "wall_s": round(wall, 1),
        "process_cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 1),
        "exit_code": code,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "finished_utc": _now(),
    }
    atomic_write_text(results_dir / TIMINGS, json.dumps(timings, indent=1, sort_keys=True) + "\n")
    return code


def timing_table(
    runs: pd.DataFrame, facts: pd.DataFrame, timings: dict, studies: tuple[str, ...] = STUDIES
) -> pd.DataFrame:
    """One row per study of ``studies``: its runs in the store, their summed ``cpu_s`` (``runtime_s`` for a run
    without it) and the kernel compilation and cache fills their records timed apart
    (``compile_s``, ``cache_fill_s``; ``facts``: see :func:`record_facts`), the sweep's wall and all-process CPU
    seconds (NaN: not timed by this
    store's sweeps), and what is left (process CPU − the runs' CPU): compilation, cache fills, worker
    start-up, imports, composing every grid point, the skipped ones included.
    """
    rows = []
    for study in studies:
        mine = study_runs(study, runs)
        extra = facts[facts["key"].isin(mine["key"])]
        timed = timings.get(study, {})
        rows.append(
            {
                "study": study,
                "runs": len(mine),
                "seeds": len(SeedCoverage.of(mine).common),  # those every cell has
                # a split-protocol batch run measures no CPU: its wall seconds stand in
                "runs_cpu_s": float(mine["cpu_s"].fillna(mine["runtime_s"]).sum()),
                "runs_wall_s": float(mine["runtime_s"].sum()),
                "compile_s": float(extra["compile_s"].sum()),
                "cache_fill_s": float(extra["cache_fill_s"].sum()),
                "sweep_wall_s": timed.get("wall_s", float("nan")),
                "process_cpu_s": timed.get("process_cpu_s", float("nan")),
            }
        )
    table = pd.DataFrame(rows)
    # compile_s and cache_fill_s are wall seconds (inflated on a loaded machine): shown, not subtracted
    table["overhead_cpu_s"] = table["process_cpu_s"] - table["runs_cpu_s"]
    return table


#: The versions a run's record carries in its provenance: (name shown, provenance key)
RECORDED = (("Python", "python"), ("numpy", "numpy"), ("river", "river"))


def record_facts(results_dir: Path, runs: pd.DataFrame) -> pd.DataFrame:
    """What only the runs' records hold, one row per run (``key``): ``git_commit``, ``host``,
    ``cores``, ``finished_utc`` and ``software`` (Python's, numpy's and river's versions) of their
    provenance, ``compile_s`` and ``cache_fill_s`` (seconds; 0 when absent) of their metrics.
    """
    from boostbench.runner.store import read_record

    rows = []
    for key in runs["key"]:
        record = read_record(results_dir, key)
        made, metrics = record.provenance, record.metrics
        rows.append(
            {
                "key": key,
                "git_commit": str(made.get("git_commit")),
                "host": str(made.get("host")),
                "cores": made.get("cores"),
                "finished_utc": made.get("finished_utc") or "",
                "software": ", ".join(f"{name} {made[key]}" for name, key in RECORDED if made.get(key)),
                "compile_s": float(metrics.get("compile_s") or 0.0),
                "cache_fill_s": float(metrics.get("cache_fill_s") or 0.0),
            }
        )
    return pd.DataFrame(
        rows, columns=["key", "git_commit", "host", "cores", "finished_utc", "software", "compile_s", "cache_fill_s"]
    )


# --- provenance -----------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    """This machine: CPU model, cores (usable / online), OS, Python and :data:`LIBRARIES` versions."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = usable_cores()
    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} absent")
    return {
        "CPU": model,
        "cores": f"{usable} usable of {os.cpu_count()}",
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "packages": ", ".join(versions),
    }


def git_commit() -> str:
    """The checkout's commit (``-dirty`` with uncommitted changes to tracked files), or "unknown"."""
    from boostbench.runner.experiment import _git_commit  # the one the run records carry

    return _git_commit() or "unknown"


def _runs_provenance(runs: pd.DataFrame, facts: pd.DataFrame) -> dict[str, str]:
    """What the runs' records say made them: code fingerprints, commits, hosts, first and last finish."""
    mine = facts[facts["key"].isin(runs["key"])]
    finished = sorted(f for f in mine["finished_utc"] if f)
    return {
        "code fingerprint": ", ".join(sorted(set(runs["code"]) - {""})) or "unknown",
        "git commit of the runs": ", ".join(sorted(set(mine["git_commit"]))),
        "hosts": ", ".join(sorted({f"{h} ({c} cores)" for h, c in zip(mine["host"], mine["cores"])})),
        "runs' Python and libraries": "; ".join(sorted(set(mine["software"]) - {""})) or "unknown",
        "runs finished": f"{finished[0]} to {finished[-1]}" if finished else "unknown",
    }


def _seeds_text(seeds: list[int]) -> str:
    if not seeds:
        return "none"
    if len(seeds) == 1:
        return f"{seeds[0]} (1 seed)"
    listed = f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else ", ".join(map(str, seeds))
    return f"{listed} ({len(seeds)} seeds)"


@dataclass(frozen=True)
class SeedCoverage:
    """Which seeds the runs have: ``seeds``, every seed of any run; ``common``, those every cell
    has (a cell: the runs that differ only in their seed, :data:`~boostbench.reporting.summary.GROUP`);
    ``full``, the cells that have every one of ``seeds``, of ``cells``. A sweep stopped part-way
    through a seed leaves ``common`` shorter than ``seeds``: a mean over seeds then averages
    more seeds in some cells than in others.
    """

    seeds: list[int]
    common: list[int]
    full: int
    cells: int

    @classmethod
    def of(cls, runs: pd.DataFrame) -> SeedCoverage:
        from boostbench.reporting.summary import GROUP

        if runs.empty:
            return cls([], [], 0, 0)
        by = [c for c in GROUP if c in runs.columns]
        per_cell = [set(map(int, group)) for _, group in runs.groupby(by, dropna=False)["seed"]]
        seeds = set().union(*per_cell)
        return cls(sorted(seeds), sorted(set.intersection(*per_cell)), sum(s == seeds for s in per_cell), len(per_cell))

    @property
    def even(self) -> bool:
        return self.full == self.cells

    def text(self) -> str:
        """The provenance's seeds: the seeds, and when cells differ, how many have them all and
        which every cell has.
        """
        text = _seeds_text(self.seeds)
        if self.even:
            return text
        return f"{text} in {self.full} of {self.cells} cells; every cell has {_seeds_text(self.common)}"


def provisional(page: Page, runs: pd.DataFrame) -> str | None:
    """Why ``page`` is provisional (fewer seeds in some cell of its runs than its studies'
    grids have: :class:`SeedCoverage`), or None.
    """
    short = []
    for study in page.studies:
        wanted, have = len(study_grid(study)["seed"]), SeedCoverage.of(study_runs(study, runs))
        if len(have.common) < wanted:
            more = "" if have.even else f" in every cell, {len(have.seeds)} in {have.full} of {have.cells}"
            short.append(f"{study}: {len(have.common)} of its {wanted} seeds{more}")
    return "; ".join(short) or None


@dataclass(frozen=True)
class Writing:
    """Who writes the pages: the command that made the runs, when (``utc``, ISO 8601), from which
    checkout (``commit``), on which machine (``host``: :func:`machine`); ``rendered``: from
    published files, so that machine is not the one that made the runs.
    """

    command: str
    utc: str
    commit: str
    host: dict[str, str]
    rendered: bool = False

    @property
    def where(self) -> str:
        """What the host fields are called: the runs' machine, or only the page's."""
        return "page rendered on" if self.rendered else "machine"


def provenance_block(page: Page, runs: pd.DataFrame, facts: pd.DataFrame, writing: Writing) -> list[str]:
    """The page's provenance as Markdown lines (a table of field and value)."""
    fields = {
        "command": f"`{writing.command}`",
        "written": writing.utc,
        "git commit (checkout)": writing.commit,
        **_runs_provenance(runs, facts),
        "runs": str(len(runs)),
        "seeds": SeedCoverage.of(runs).text(),
        **{f"{writing.where}: {k}": v for k, v in writing.host.items()},
    }
    lines = ["| provenance | |", "|---|---|", *(f"| {k} | {v} |" for k, v in fields.items())]
    why = provisional(page, runs)
    if why:
        lines = [
            f"> **Provisional**: fewer seeds than the study's grid ({why}); the same command without "
            "`SEEDS` writes the final page.",
            "",
            *lines,
        ]
    return lines


def cpu_shares(runs: pd.DataFrame) -> list[str]:
    """Each algorithm's share of the runs' CPU seconds (``cpu_s``; ``runtime_s`` where a run
    measured none), most first, as Markdown lines: what a sweep of the grid spends where.
    """
    cpu = runs.assign(cpu=runs["cpu_s"].fillna(runs["runtime_s"])).groupby("algorithm")["cpu"].agg(["size", "sum"])
    cpu = cpu.sort_values("sum", ascending=False)
    total = float(cpu["sum"].sum())
    lines = ["| algorithm | runs | CPU s | share |", "|---|---:|---:|---:|"]
    for name, row in cpu.iterrows():
        share = f"{100 * row['sum'] / total:.1f}%" if total > 0 else "—"
        lines.append(f"| {name} | {int(row['size'])} | {row['sum']:,.1f} | {share} |")
    return [*lines, f"| total | {int(cpu['size'].sum())} | {total:,.1f} | 100% |"]


def run_table_lines(runs: pd.DataFrame, collection: str) -> list[str]:
    """A benchmark's section on its published store (``collection``, one of :data:`BENCHMARKS`):
    the per-run table, the records, how to re-render the page, resume a sweep and re-make a run,
    and each algorithm's share of the CPU time (:func:`cpu_shares`).
    """
    from boostbench.reporting.run_table import RECORDS, TABLE

    target = collection.replace("_", "-")
    folder, prefix = f"docs/{target}", BENCHMARKS[collection]
    return [
        "## Every run, and the CPU time by algorithm",
        "",
        f"[{TABLE}]({TABLE}): one row per run ({len(runs)}), every measure, the costs (`cpu_s`, `wall_s`, "
        f"`ram_hours`, `peak_mib`: the sweep worker's peak, which depends on its earlier jobs, docs/benchmark.md), "
        "algorithm, learner, data set, seed, and `overrides`: `boostbench run "
        f"<overrides>` makes the run again. [{RECORDS}]({RECORDS}): the store they are derived from (every "
        "record with its config hash, curves and provenance; the failed jobs' reasons). This page again from "
        f"those files alone: `python -m boostbench.reporting.reproduction_docs render --collection {collection} "
        f"--from {folder} --docs {folder}`; a sweep that continues them: `make {target} "
        f"{prefix}_FROM={folder} {prefix}_DOCS={folder}` (the runs made by today's code are kept; "
        "docs/benchmark.md).",
        "",
        *cpu_shares(runs),
        "",
    ]


# --- pages ----------------------------------------------------------------------------------------


def _page_runs(page: Page, runs: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([study_runs(study, runs) for study in page.studies]).drop_duplicates("key")


def write_page(
    page: Page,
    results_dir: Path,
    out: Path,
    runs: pd.DataFrame,
    facts: pd.DataFrame,
    writing: Writing,
) -> Path | None:
    """Write ``page``'s tables and figures (its report's own files) under ``out``, then
    ``<out>/<page>.md``: the provenance, the report's Markdown tables in order, its figures, each
    numbered and captioned (the caption its files carry: :func:`figures.caption_of`).
    Returns the page's path, or None when the store has no runs for it.
    """
    from boostbench.reporting.report import REPORTS

    mine = _page_runs(page, runs)
    if mine.empty:
        return None
    report = REPORTS[page.report]
    # as `boostbench report`: a paper table shows each preset apart; the studies are of the defaults
    chosen = mine if report.paper_table else mine[mine["preset"] == "paper"]
    options = {}
    if page.report == "leaderboard":  # named by its studies; its not-run list: their grids' algorithms alone
        options = {
            "among": {a for study in page.studies for a in study_grid(study)["algorithm"]},
            "title": f"Leaderboard of {', '.join(page.studies)}",
        }
    _, written = report.write(results_dir, out, chosen, 100, **options)
    lines = [f"# {page.title}", "", *provenance_block(page, mine, facts, writing), ""]
    if page.name in BENCHMARKS:
        lines += run_table_lines(chosen, page.name)
    for path in written:
        if path.suffix == ".md":
            lines += [path.read_text(encoding="utf-8").rstrip(), ""]
    figures = [p for p in written if p.suffix == ".png"]
    if figures:
        lines += ["## Figures", ""]
        for number, path in enumerate(figures, 1):
            caption = caption_of(path) or path.stem.replace("_", " ")
            pdf = path.with_suffix(".pdf")
            vector = f" ([PDF]({pdf.relative_to(out).as_posix()}))" if pdf.is_file() else ""
            lines += [
                f"![{caption}]({path.relative_to(out).as_posix()})",
                "",
                f"*Figure {number}. {caption}*{vector}",
                "",
            ]
    return atomic_write_text(out / f"{page.name}.md", "\n".join(lines).rstrip() + "\n")


def index(pages: list[Path], timings: pd.DataFrame, writing: Writing, title: str = "The reproduction") -> str:
    """The index page (``README.md``): the pages, and each study's time."""
    host = writing.host
    made = (
        f"Rendered {writing.utc} from the published runs of `{writing.command}`, by commit {writing.commit}"
        if writing.rendered
        else f"Written {writing.utc} by `{writing.command}` from commit {writing.commit}"
    )
    lines = [
        f"# {title}",
        "",
        f"{made}, on {host['CPU']} ({host['cores']} cores), Python {host['Python']}.",
        "",
        *(f"- [{p.stem}]({p.name})" for p in pages),
        "",
        "## Time per study",
        "",
        "| study | runs | seeds | sweep wall s | all processes' CPU s | runs' CPU s | compiling, cache fills, "
        "wall s | not in the runs' CPU s |",
        "|---|" + "---:|" * 7,
    ]

    def fmt(value: float) -> str:
        return "—" if value != value else f"{value:,.0f}"

    timings = timings.assign(prepared_s=timings["compile_s"] + timings["cache_fill_s"])
    columns = ["sweep_wall_s", "process_cpu_s", "runs_cpu_s", "prepared_s", "overhead_cpu_s"]
    for row in timings.itertuples():
        lines.append(
            f"| {row.study} | {row.runs} | {row.seeds} | " + " | ".join(fmt(getattr(row, c)) for c in columns) + " |"
        )
    total = timings[columns].sum(min_count=1)
    lines += [
        f"| total | {timings['runs'].sum()} | | " + " | ".join(fmt(total[c]) for c in columns) + " |",
        "",
        "Seeds: those every cell of the study (its runs that differ only in their seed) has. "
        "Sweep wall: this store's last timed sweep of the study (a resumed sweep counts "
        "only what it ran; —: not timed). All processes' CPU: user + system seconds of the sweep and its "
        "workers. Runs' CPU: the sum of the study's records' `cpu_s` (every run of its grid in the store, "
        "whenever made; `runtime_s` for the batch runs, which measure no CPU), which leaves out the kernel "
        "compilation and the cache fills the records time "
        "apart (`compile_s`, `cache_fill_s`: wall seconds, so inflated on a loaded machine). The last "
        "column is all processes' CPU less the runs': compilation, cache fills, worker start-up, imports, "
        "composing every grid point (those skipped as another's duplicate too). "
        + (
            "The machine's load at each timed sweep's end is in `timings.json` of the store."
            if timings["sweep_wall_s"].notna().any()
            else "No sweep was timed whole (the runs were made by sweeps stopped and resumed): "
            "the runs' CPU seconds are their records' own."
        ),
    ]
    return "\n".join(lines) + "\n"


def write(
    results_dir: str | Path,
    docs: str | Path,
    command: str,
    collection: str = "reproduction",
    rendered: bool = False,
    seeds: int | None = None,
) -> list[Path]:
    """Write every page of ``collection`` (:data:`COLLECTIONS`) with runs in ``results_dir`` and the
    index under ``docs``, replacing what was there (built beside it, then swapped in: a failure
    leaves the old pages whole) but a sweep's checkpoint in its ``in-progress/`` folder
    (:data:`~boostbench.reporting.run_table.CHECKPOINT`), which goes only when the new page holds
    every run of it. Pages, table and records are made from one copy of the store, so
    a sweep still writing to it cannot give one a run the others lack. ``seeds``: only the runs
    of seeds 0 to ``seeds`` - 1 (a page of the seeds a sweep has completed while it runs the next).
    ``rendered``: the runs were made elsewhere (:func:`render`), so the pages call this machine
    the page's, not the runs'.

    Raises:
        DataError: a record cannot be read (:func:`~boostbench.reporting.records.load_runs`).
    """
    import tempfile

    from boostbench.reporting.run_table import snapshot

    with tempfile.TemporaryDirectory(prefix="boostbench-pages-") as temporary:
        store = snapshot(Path(results_dir), Path(temporary), seeds)
        return _write(store, Path(docs), Writing(command, _now(), git_commit(), machine(), rendered), collection)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _write(results_dir: Path, docs: Path, writing: Writing, collection: str) -> list[Path]:
    from boostbench.reporting.records import load_runs

    title, chosen = COLLECTIONS[collection]
    command = writing.command
    runs = load_runs(results_dir)
    docs.parent.mkdir(parents=True, exist_ok=True)
    build = docs.with_name(f".{docs.name}.{os.getpid()}.new")
    shutil.rmtree(build, ignore_errors=True)
    try:
        facts = record_facts(results_dir, runs)
        pages = [p for page in chosen if (p := write_page(page, results_dir, build, runs, facts, writing))]
        if collection in BENCHMARKS:  # the per-run table and its records beside the page
            from boostbench.reporting.run_table import CHECKPOINT, export, superseded

            export(results_dir, build, command)
            checkpoint = docs / CHECKPOINT
            if checkpoint.is_dir() and not superseded(checkpoint, results_dir):  # a sweep's, still ahead
                shutil.copytree(checkpoint, build / CHECKPOINT)
        timings = timing_table(runs, facts, read_timings(results_dir), studies_of(chosen))
        atomic_write_text(build / "README.md", index(pages, timings, writing, title))
        atomic_write_text(build / "timings.csv", timings.to_csv(index=False))
        old = docs.with_name(f".{docs.name}.{os.getpid()}.old")
        if docs.exists():
            docs.rename(old)
        build.rename(docs)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return sorted(docs.rglob("*"))


def render(
    folder: str | Path,
    docs: str | Path,
    command: str | None = None,
    collection: str = "stream_benchmark",
    seeds: int | None = None,
) -> list[Path]:
    """Re-write a benchmark's page (``collection``, one of :data:`BENCHMARKS`) under ``docs`` from
    the published files of ``folder`` alone (a store imported into a temporary folder,
    :func:`~boostbench.reporting.run_table.import_store`), with the command that made the runs
    (or ``command``); ``seeds``: as :func:`write`'s.

    Raises:
        DataError: a published file is missing or damaged, or a record fails the store's checks.
    """
    import tempfile

    from boostbench.reporting.run_table import import_store

    with tempfile.TemporaryDirectory(prefix="boostbench-store-") as temporary:
        store = Path(temporary) / "store"
        _, made_by = import_store(folder, store)
        return write(store, docs, command or made_by or "unknown", collection, rendered=True, seeds=seeds)


def _positive(text: str) -> int:
    value = int(text) if text.strip().isdigit() else 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a number of seeds is a whole number from 1: {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m boostbench.reporting.reproduction_docs", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="what", required=True)
    timed = sub.add_parser("time", help="run one study's sweep and record its times")
    timed.add_argument("study", choices=[s for _, pages in COLLECTIONS.values() for s in studies_of(pages)])
    timed.add_argument("--results-dir", required=True, type=Path)
    timed.add_argument("sweep", nargs=argparse.REMAINDER, help="-- then the sweep's command")
    pages = sub.add_parser("write", help="write the pages and the index")
    pages.add_argument("--results-dir", required=True, type=Path)
    pages.add_argument("--docs", required=True, type=Path)
    pages.add_argument("--command", required=True, help="the command that made the runs, shown on every page")
    pages.add_argument("--collection", choices=COLLECTIONS, default="reproduction", help="which pages to write")
    again = sub.add_parser("render", help="re-write a benchmark's page from its published files alone")
    again.add_argument("--from", dest="folder", required=True, type=Path)
    again.add_argument("--collection", choices=BENCHMARKS, default="stream_benchmark", help="which benchmark")
    again.add_argument("--docs", required=True, type=Path)
    again.add_argument("--command", help="the command shown on the page (default: the published one)")
    for sub_parser in (pages, again):
        sub_parser.add_argument(
            "--seeds", type=_positive, metavar="N", help="only the runs of seeds 0 to N-1 (as SEEDS=N sweeps them)"
        )
    args = parser.parse_args(argv)
    if args.what == "time":
        command = args.sweep[1:] if args.sweep[:1] == ["--"] else args.sweep
        if not command:
            parser.error("time: no sweep command after --")
        args.results_dir.mkdir(parents=True, exist_ok=True)
        return time_study(args.study, args.results_dir, command)
    from boostbench.errors import BoostbenchError

    try:
        if args.what == "render":
            written = render(args.folder, args.docs, args.command, args.collection, args.seeds)
        else:
            written = write(args.results_dir, args.docs, args.command, args.collection, seeds=args.seeds)
    except BoostbenchError as exc:
        print(f"reproduction_docs: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files under {args.docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
