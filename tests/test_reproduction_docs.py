"""The committed reproduction (docs/reproduction/): its tables parse and carry every cell of the
papers' tables, each page carries its provenance, and the writer's pieces (grids, timings)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from boostbench.data.registry import GENERATED, available_datasets
from boostbench.reporting import reproduction_docs as docs
from boostbench.reporting import sun_tables, tables
from boostbench.system.paths import REPO_ROOT, VENDORED_DATA_DIR

DOCS = REPO_ROOT / "docs" / "reproduction"
#: Why a paper cell may have no number of ours
REASONS = ("data set not available offline", "paper only (not an online algorithm)")
NUMBER = re.compile(r"^(\d+\.\d+)\b")


def vendored() -> set[str]:
    """The data sets every checkout has (vendored files, or generated): their cells need our number."""
    return {
        i.name
        for i in available_datasets()
        if i.location is not None
        and (i.location == GENERATED or VENDORED_DATA_DIR.resolve() in Path(i.location).resolve().parents)
    }


def markdown_tables(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """The first Markdown table under each ``###`` heading: heading -> data set -> column -> cell
    (a rebuilt paper table's footnotes resolved: a missing cell reads ``— (reason) / paper``).
    """
    found, heading, header, done = {}, None, None, set()
    notes = dict(re.findall(r"^- \[(\w+)\] (.+)$", text, flags=re.M))
    for line in text.splitlines():
        if line.startswith("### "):
            heading, header = line[4:].strip(), None
        elif heading in found and not line.strip():
            done.add(heading)
        elif line.startswith("|") and heading is not None and heading not in done:
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if header is None:
                header = cells
            elif not set(line) <= set("|-: "):
                assert len(cells) == len(header), f"{heading}: a row with {len(cells)} cells under {len(header)}"
                cells = [re.sub(r"^— \[(\w+)\] / ", lambda m: f"— ({notes[m.group(1)]}) / ", c) for c in cells]
                found.setdefault(heading, {})[cells[0]] = dict(zip(header[1:], cells[1:]))
        elif not line.strip().startswith("|"):
            header = None if not line.strip() else header
    return found


def check_cell(
    where: str, cell: str, paper: float, digits: int, dataset: str, here: set[str], provisional: bool = False
) -> None:
    """A paper cell: our number beside the paper's, or a dash with an accepted reason (on a
    provisional page, whose sample run may have stopped short, also "not run")."""
    assert f"{paper:.{digits}f}" in cell, f"{where}: the paper's {paper} is not in {cell!r}"
    if NUMBER.match(cell):
        return
    reason = re.match(r"^— \((.*)\) / ", cell)
    assert reason, f"{where}: a missing cell without its reason: {cell!r}"
    why = reason.group(1)
    if why == "paper only (not an online algorithm)" or (provisional and why == "not run" and dataset in here):
        return
    assert dataset not in here, f"{where}: {dataset} is vendored, yet the cell has no number: {cell!r}"
    assert why in REASONS, f"{where}: a missing cell without its reason: {cell!r}"


def is_provisional(page: str) -> bool:
    """Whether the committed page says it is provisional (fewer seeds than its grid)."""
    return "> **Provisional**" in (DOCS / f"{page}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["jung2017_table1", "jung_tewari2018_table3"])
@pytest.mark.parametrize("preset", ["paper", "jung_reference"])
def test_committed_jung_tables_carry_every_paper_cell(name, preset):
    spec = tables.TABLES[name]
    paper = tables.paper_tables()[spec.key]
    stem = name if preset == "paper" else f"{name}.{preset}"
    parsed = markdown_tables((DOCS / "tables" / f"{stem}.md").read_text(encoding="utf-8"))
    ((heading, rows),) = parsed.items()
    assert f"preset {preset}" in heading
    here = vendored()
    digits = 3 if spec.higher_is_better else 4
    for paper_name, dataset in spec.datasets.items():
        for j, column in enumerate(spec.columns):
            value = paper["rows"][paper_name][spec.paper_value][j]
            if value is not None:
                check_cell(
                    f"{stem} {paper_name} {column}",
                    rows[paper_name][column],
                    value,
                    digits,
                    dataset,
                    here,
                    is_provisional(name),
                )


def test_committed_sun_tables_carry_every_paper_cell():
    parsed = markdown_tables((DOCS / "tables" / "sun_tables.md").read_text(encoding="utf-8"))
    paper = tables.paper_tables()[sun_tables.KEY]
    here = vendored()
    for table, heading in (("tan", "Table 2: TAN"), ("ban", "Table 3: BAN")):
        for paper_name, values in paper[table].items():
            for column, value in zip(sun_tables.COLUMNS, values):
                check_cell(
                    f"sun {table} {paper_name} {column}",
                    parsed[heading][paper_name][column],
                    value,
                    1,
                    sun_tables.DATASETS[paper_name],
                    here,
                    is_provisional("sun_tables"),
                )


def test_committed_pages_carry_provenance_and_their_figures():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for page in docs.PAGES:
        assert f"]({page.name}.md)" in index, f"the index does not link {page.name}"
        text = (DOCS / f"{page.name}.md").read_text(encoding="utf-8")
        fields = dict(re.findall(r"^\| ([^|]+?) \| (.*?) \|$", text, flags=re.M))
        for field in (
            "command",
            "written",
            "git commit (checkout)",
            "code fingerprint",
            "seeds",
            "machine: CPU",
            "machine: cores",
            "machine: Python",
            "machine: packages",
        ):
            assert fields.get(field, "unknown") != "unknown", f"{page.name}: no {field} in its provenance"
        seeds = r"(\d+ \(1 seed\)|[\d, -]+ \(\d+ seeds\))"
        assert re.fullmatch(rf"{seeds}( in \d+ of \d+ cells; every cell has {seeds})?", fields["seeds"]), fields[
            "seeds"
        ]
        for link in re.findall(r"!\[[^]]*\]\(([^)]+)\)", text):
            assert (DOCS / link).is_file(), f"{page.name}: figure {link} missing"
        if page.name == "combessie_heart":  # the slides have curves, not numbers: the page is its figures
            assert "figures/combessie_heart/errors.png" in text
    for study in docs.STUDIES:
        assert re.search(rf"^\| {study} \| \d+ \| \d+ \|", index, flags=re.M), f"no time row for {study}"
    top = (REPO_ROOT / "README.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    assert "docs/reproduction/README.md" in top, "README's top does not link the reproduction"


def test_markdown_tables_parse_a_rebuilt_table():
    frame = pd.DataFrame(
        [
            {
                "dataset": "balance",
                "column": "adaboost_olm",
                "ours": 0.75,
                "std": 0.01,
                "n_seeds": 3,
                "ci_low": 0.74,
                "ci_high": 0.76,
                "paper": 0.754,
                "diff": -0.004,
                "clipped": False,
                "flagged": False,
                "gamma": float("nan"),
                "held_out": float("nan"),
                "runtime_s": 1.0,
                "cpu_s": 2.0,
                "peak_mib": 10.0,
                "paper_runtime_s": 20,
                "note": "",
                "n_learners": 100,
            },
            {
                "dataset": "isolet",
                "column": "adaboost_olm",
                "ours": float("nan"),
                "std": 0.0,
                "n_seeds": 0,
                "ci_low": float("nan"),
                "ci_high": float("nan"),
                "paper": 0.521,
                "diff": float("nan"),
                "clipped": False,
                "flagged": False,
                "gamma": float("nan"),
                "held_out": float("nan"),
                "runtime_s": float("nan"),
                "cpu_s": float("nan"),
                "peak_mib": float("nan"),
                "paper_runtime_s": 2422,
                "note": "data set not available offline",
                "n_learners": 100,
            },
        ]
    )
    ((_, rows),) = markdown_tables(tables.to_markdown("jung2017_table1", frame)).items()
    check_cell("balance", rows["balance"]["adaboost_olm"], 0.754, 3, "balance", {"balance"})
    check_cell("isolet", rows["isolet"]["adaboost_olm"], 0.521, 3, "isolet", {"balance"})
    with pytest.raises(AssertionError, match="is vendored"):
        check_cell("isolet", rows["isolet"]["adaboost_olm"], 0.521, 3, "isolet", {"isolet"})
    with pytest.raises(AssertionError, match="without its reason"):
        check_cell("x", "— (not run) / 0.521", 0.521, 3, "isolet", set())
    with pytest.raises(AssertionError, match="is vendored"):  # a final page runs every vendored cell
        check_cell("x", "— (not run) / 0.754", 0.754, 3, "balance", {"balance"})
    check_cell("x", "— (not run) / 0.754", 0.754, 3, "balance", {"balance"}, provisional=True)


def test_study_runs_follow_each_grid():
    runs = pd.DataFrame(
        [
            # Table 1's grid, either preset
            {
                "key": "a",
                "dataset": "car",
                "algorithm": "online_boosting",
                "learner": "hoeffding_tree",
                "protocol": "prequential",
                "n_learners": 100,
                "preset": "jung_reference",
                "seed": 3,
            },
            # Sun's online boosting on car: same algorithm and data set, another learner and protocol
            {
                "key": "b",
                "dataset": "car",
                "algorithm": "online_boosting",
                "learner": "tan",
                "protocol": "kfold",
                "n_learners": 10,
                "preset": "paper",
                "seed": 0,
            },
            # Mukherjee & Schapire's AdaBoost.M1 (trees) beside Sun's (Naive Bayes)
            {
                "key": "c",
                "dataset": "car",
                "algorithm": "adaboost_m1",
                "learner": "tree",
                "protocol": "kfold",
                "n_learners": 100,
                "preset": "paper",
                "seed": 0,
            },
            {
                "key": "d",
                "dataset": "car",
                "algorithm": "adaboost_m1",
                "learner": "naive_bayes",
                "protocol": "kfold",
                "n_learners": 10,
                "preset": "paper",
                "seed": 1,
            },
        ]
    )
    found = {study: set(docs.study_runs(study, runs)["key"]) for study in docs.STUDIES}
    assert found["jung2017_table1"] == {"a"}
    assert found["sun_tables"] == {"b", "d"}
    assert found["mukherjee_schapire"] == {"c"}
    assert not found["combessie_heart"] and not found["sun_tables_fixed_split"]
    assert docs.study_grid("jung2017_table1")["seed"] == list(range(10))
    assert docs.study_grid("sun_tables")["seed"] == [0, 1, 2]


def test_time_study_records_wall_cpu_and_exit_code(tmp_path):
    code = docs.time_study("sun_tables", tmp_path, [sys.executable, "-c", "sum(range(10**6)); raise SystemExit(3)"])
    assert code == 3
    recorded = json.loads((tmp_path / docs.TIMINGS).read_text())["sun_tables"]
    assert recorded["exit_code"] == 3 and recorded["wall_s"] >= 0 and recorded["process_cpu_s"] >= 0
    docs.time_study("combessie_heart", tmp_path, [sys.executable, "-c", "pass"])
    assert set(docs.read_timings(tmp_path)) == {"sun_tables", "combessie_heart"}  # one file, every study


def test_timing_table_sums_each_studys_runs():
    runs = pd.DataFrame(
        [
            {
                "key": "a",
                "dataset": "heart",
                "algorithm": "adaboost_m1",
                "learner": "tree",
                "protocol": "holdout",
                "n_learners": 100,
                "preset": "paper",
                "seed": 0,
                "cpu_s": 2.0,
                "runtime_s": 1.5,
            },
            {
                "key": "b",
                "dataset": "heart",
                "algorithm": "one_vs_all",
                "learner": "tree",
                "protocol": "holdout",
                "n_learners": 100,
                "preset": "paper",
                "seed": 0,
                "cpu_s": float("nan"),
                "runtime_s": 3.0,
            },
        ]
    )  # a batch run: no cpu_s
    facts = pd.DataFrame(
        [{"key": "a", "compile_s": 0.5, "cache_fill_s": 0.0}, {"key": "b", "compile_s": 0.0, "cache_fill_s": 1.0}]
    )
    table = docs.timing_table(runs, facts, {"combessie_heart": {"wall_s": 4.0, "process_cpu_s": 9.0}}).set_index(
        "study"
    )
    heart = table.loc["combessie_heart"]
    assert (heart["runs"], heart["seeds"], heart["runs_cpu_s"], heart["overhead_cpu_s"]) == (2, 1, 5.0, 4.0)
    assert (
        table.loc["sun_tables", "runs"] == 0
        and table.loc["sun_tables", "sweep_wall_s"] != table.loc["sun_tables", "sweep_wall_s"]
    )  # not timed: NaN


def test_stream_benchmark_collection_keeps_its_own_runs():
    runs = pd.DataFrame(
        [
            # the stream benchmark: N = 10 on a stream and on a vendored set
            {
                "key": "s",
                "dataset": "sea_drift",
                "algorithm": "moa_sgbt",
                "learner": "hoeffding_tree",
                "protocol": "prequential",
                "n_learners": 10,
                "preset": "paper",
                "seed": 0,
                "cpu_s": 4.0,
                "runtime_s": 5.0,
            },
            {
                "key": "c",
                "dataset": "car",
                "algorithm": "online_boosting",
                "learner": "hoeffding_tree",
                "protocol": "prequential",
                "n_learners": 10,
                "preset": "paper",
                "seed": 1,
                "cpu_s": 1.0,
                "runtime_s": 1.0,
            },
            # Table 1's Oza on car (N = 100): not the bench's
            {
                "key": "t",
                "dataset": "car",
                "algorithm": "online_boosting",
                "learner": "hoeffding_tree",
                "protocol": "prequential",
                "n_learners": 100,
                "preset": "paper",
                "seed": 0,
                "cpu_s": 2.0,
                "runtime_s": 2.0,
            },
        ]
    )
    title, pages = docs.COLLECTIONS["stream_benchmark"]
    studies = docs.studies_of(pages)
    assert set(docs.study_runs("stream_benchmark", runs)["key"]) == {"s", "c"}
    facts = pd.DataFrame({"key": ["s", "c", "t"], "compile_s": 0.0, "cache_fill_s": 0.0})
    table = docs.timing_table(runs, facts, {}, studies).set_index("study")
    assert list(table.index) == ["stream_benchmark"] and table.loc["stream_benchmark", "runs_cpu_s"] == 5.0
    assert "stream_benchmark" not in docs.STUDIES  # the reproduction's index does not list it
    writing = docs.Writing("make stream-benchmark", "now", "abc", {"CPU": "x", "cores": "2", "Python": "3"})
    text = docs.index([], table.reset_index(), writing, title)
    assert text.startswith("# The stream benchmark\n")
    assert "No sweep was timed whole" in text and "timings.json" not in text  # no file to point to
    timed = docs.timing_table(runs, facts, {"stream_benchmark": {"wall_s": 9.0, "process_cpu_s": 8.0}}, studies)
    text = docs.index([], timed, writing, title)
    assert "timings.json" in text and "No sweep was timed whole" not in text


def _bench_run(key: str, algorithm: str, seed: int) -> dict:
    return {
        "key": key,
        "dataset": "car",
        "algorithm": algorithm,
        "learner": "hoeffding_tree",
        "trees": "papers' trees",
        "protocol": "prequential",
        "n_learners": 10,
        "gamma": float("nan"),
        "preset": "paper",
        "settings": "s",
        "seed": seed,
        "code": "c",
        "cpu_s": 1.0,
        "runtime_s": 1.0,
    }


def test_a_page_of_a_seed_done_in_some_cells_only_says_so():
    """A sweep stopped part-way through seeds 1 and 2: Oza on car has seeds 0-2, OLM only seed 0.
    The page must not claim 3 seeds: it names the seed every cell has, and is provisional.
    """
    runs = pd.DataFrame(
        [_bench_run(f"o{s}", "online_boosting", s) for s in range(3)] + [_bench_run("a0", "adaboost_olm", 0)]
    )
    coverage = docs.SeedCoverage.of(runs)
    assert (coverage.seeds, coverage.common, coverage.full, coverage.cells) == ([0, 1, 2], [0], 1, 2)
    facts = pd.DataFrame(
        {"key": runs["key"], "finished_utc": "t", "git_commit": "g", "host": "h", "cores": 2, "software": ""}
    )
    _, pages = docs.COLLECTIONS["stream_benchmark"]
    writing = docs.Writing("make stream-benchmark SEEDS=3", "now", "abc", {"CPU": "x"})
    lines = docs.provenance_block(pages[0], runs, facts, writing)
    fields = dict(re.findall(r"^\| ([^|]+?) \| (.*?) \|$", "\n".join(lines), flags=re.M))
    assert fields["seeds"] == "0-2 (3 seeds) in 1 of 2 cells; every cell has 0 (1 seed)"
    assert lines[0].startswith("> **Provisional**")
    assert "stream_benchmark: 1 of its 10 seeds in every cell, 3 in 1 of 2" in lines[0]
    even = docs.SeedCoverage.of(runs[runs["seed"] == 0])
    assert even.even and even.text() == "0 (1 seed)"
    table = docs.timing_table(runs, facts.assign(compile_s=0.0, cache_fill_s=0.0), {}, ("stream_benchmark",))
    assert table.loc[0, "seeds"] == 1 and table.loc[0, "runs"] == 4
