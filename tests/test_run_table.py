"""The per-run table and the published store (boostbench.reporting.run_table): each row's
overrides make its run again (the same final accuracy and kappa-M, to 1e-12), the export is the
same bytes for the same store, an imported store is the store (a sweep over it runs nothing), a
record edited after publication is refused, and Hydra reads each override value back as itself.
"""

from __future__ import annotations

import gzip
import json
import re
import shlex

import pytest

from boostbench.errors import DataError
from boostbench.reporting.run_table import (
    RECORDS,
    TABLE,
    export,
    hydra_value,
    import_store,
    read_table,
    run_overrides,
)
from boostbench.runner.config import compose_config, config_hash, resolved_dict
from boostbench.runner.experiment import run_experiment
from boostbench.runner.sweep import run_sweep, summarize

GRID = [
    "+experiment=stream_benchmark",
    "dataset=balance,sea_drift",
    "algorithm=vfdt,online_boosting",
    "learner=hoeffding_tree,hoeffding_tree_defaults",
    "seed=1",
    "protocol.max_examples=300",
]


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    assert set(summarize(run_sweep([*GRID, f"results_dir={store}"], n_jobs=1))) <= {"done", "skipped"}
    out = tmp_path_factory.mktemp("published")
    export(store, out, command="boostbench sweep (a test's grid)")
    return store, out


@pytest.mark.slow
def test_each_row_carries_the_runs_measures_costs_and_names(published):
    _, out = published
    table = read_table(out)
    assert len(table) == 8  # two algorithms on two learners' trees, on two data sets
    for column in ("final_accuracy", "final_kappa_m", "cumulative_kappa_t", "final_macro_f1", "cpu_s", "wall_s"):
        assert table[column].notna().all(), column
    assert (table["peak_mib"] > 0).all() and (table["ram_hours"] >= 0).all()
    assert set(table["learner"]) == {"hoeffding_tree", "hoeffding_tree_defaults"}
    assert set(table["dataset"]) == {"balance", "sea_drift"} and set(table["seed"]) == {1}


@pytest.mark.slow
def test_a_row_rerun_by_its_overrides_gives_its_numbers(published, tmp_path):
    _, out = published
    table = read_table(out)
    for row in table.iloc[[0, len(table) - 1]].itertuples():
        record = run_experiment(compose_config([*shlex.split(row.overrides), f"results_dir={tmp_path}"]))
        assert record["config_hash"] == row.config_hash
        assert record["metrics"]["final_accuracy"] == pytest.approx(row.final_accuracy, abs=1e-12)
        assert record["metrics"]["final_kappa_m"] == pytest.approx(row.final_kappa_m, abs=1e-12)


@pytest.mark.slow
def test_the_export_is_the_same_bytes_for_the_same_store(published, tmp_path):
    store, out = published
    export(store, tmp_path, command="boostbench sweep (a test's grid)")
    for name in (TABLE, RECORDS):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


@pytest.mark.slow
def test_a_run_finished_during_the_export_is_in_both_files_or_in_neither(published, tmp_path, monkeypatch):
    """A store committed as it stands is exported while its sweep writes: the table and the
    records come from one copy of the store, so they hold the same runs."""
    import shutil

    from boostbench.reporting import run_table as module

    store, _ = published
    live = tmp_path / "live"
    shutil.copytree(store, live)
    moved, made = sorted((live / "runs").glob("*.json"))[0], {}
    (tmp_path / moved.name).write_bytes(moved.read_bytes())
    moved.unlink()  # a run the sweep has not finished yet
    read = module.run_table

    def then_the_run_finishes(results_dir):
        table = read(results_dir)
        made["again"] = (tmp_path / moved.name).replace(live / "runs" / moved.name)
        return table

    monkeypatch.setattr(module, "run_table", then_the_run_finishes)
    export(live, tmp_path / "out")
    assert made  # the run finished between the two files' reads
    table = read_table(tmp_path / "out")
    lines = gzip.decompress((tmp_path / "out" / RECORDS).read_bytes()).decode().splitlines()
    names = {json.loads(line)["name"] for line in lines if json.loads(line)["kind"] == "run"}
    assert {f"{key}.json" for key in table["key"]} == names and moved.name not in names


@pytest.mark.slow
def test_an_imported_store_is_the_store_and_a_sweep_resumes_from_it(published, tmp_path):
    store, out = published
    written, command = import_store(out, tmp_path)
    assert written == 8 and command == "boostbench sweep (a test's grid)"
    for path in (store / "runs").glob("*.json"):
        assert json.loads((tmp_path / "runs" / path.name).read_text()) == json.loads(path.read_text())
    assert set(summarize(run_sweep([*GRID, f"results_dir={tmp_path}"], n_jobs=1))) == {"skipped"}


@pytest.mark.slow
def test_a_record_edited_after_publication_is_refused(published, tmp_path):
    _, out = published
    lines = gzip.decompress((out / RECORDS).read_bytes()).decode().splitlines()
    edited = []
    for line in lines:
        item = json.loads(line)
        if item["kind"] == "run" and not edited:
            item["record"]["metrics"]["final_accuracy"] = 1.0
            item["record"]["config"]["seed"] = 7  # a better number claimed for another run
            edited.append(item["name"])
        edited_line = json.dumps(item, sort_keys=True, separators=(",", ":"))
        lines[lines.index(line)] = edited_line
    folder = tmp_path / "published"
    folder.mkdir()
    (folder / RECORDS).write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    with pytest.raises(DataError, match=r"line \d+: .*refused"):
        import_store(folder, tmp_path / "store")
    assert not (tmp_path / "store" / "runs" / edited[0]).exists()


@pytest.mark.parametrize("value", [None, True, 0, -3, 1e-07, 0.05, "nba", "a b", "it's", "1.5", "null", [1, 2.5], ""])
def test_hydra_reads_each_override_value_back_as_itself(value):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    read = OverridesParser.create().parse_overrides([f"+tag={hydra_value(value)}"])[0].value()
    assert read == value and type(read) is type(value)


def test_overrides_that_do_not_make_the_config_are_refused():
    config = resolved_dict(compose_config(["dataset=car", "algorithm=online_mbbm"]))
    with pytest.raises(DataError, match="compose to"):
        run_overrides({"config": config, "config_hash": "0" * 16})
    assert config_hash(compose_config(run_overrides({"config": config, "config_hash": config_hash(config)}))) == (
        config_hash(config)
    )


@pytest.mark.slow
def test_the_page_is_rendered_from_the_published_files_alone(published, tmp_path):
    from boostbench.reporting.reproduction_docs import render

    _, out = published
    render(out, tmp_path / "docs")
    page = (tmp_path / "docs" / "stream_benchmark.md").read_text()
    assert "`boostbench sweep (a test's grid)`" in page  # the command that made the runs
    assert "| online_boosting | 4 |" in page and "| total | 8 |" in page  # the CPU time by algorithm
    assert "# Leaderboard of stream_benchmark" in page.splitlines()  # its study's, not a folder's
    fields = dict(re.findall(r"^\| ([^|]+?) \| (.*?) \|$", page, flags=re.M))
    # the machine that renders is not the one that ran: the runs' software is their records'
    assert "page rendered on: CPU" in fields and "machine: CPU" not in fields
    assert re.fullmatch(r"Python 3\.\d+\.\d+, numpy [\d.]+, river [\d.]+", fields["runs' Python and libraries"])
    readme = (tmp_path / "docs" / "README.md").read_text()
    assert readme.splitlines()[2].startswith("Rendered ") and "from the published runs of" in readme
    for name in (TABLE, RECORDS):  # the page's table and records again, to the byte
        assert (tmp_path / "docs" / name).read_bytes() == (out / name).read_bytes(), name


@pytest.mark.slow
def test_the_multilabel_benchmark_is_published_and_rendered_as_the_stream_benchmark(tmp_path):
    from boostbench.reporting.reproduction_docs import render, write

    store = tmp_path / "multilabel-benchmark"
    grid = ["+experiment=multilabel_benchmark", "algorithm=ada_olmr,online_bmr", "dataset=emotions", "seed=0"]
    assert summarize(run_sweep([*grid, f"results_dir={store}"], n_jobs=1)) == {"done": 2}  # the study's N
    # published under the store's name, as make does (results/ and docs/multilabel-benchmark)
    published, again = tmp_path / "docs" / store.name, tmp_path / "again"
    write(store, published, "a test's multi-label grid", "multilabel_benchmark")
    render(published, again, collection="multilabel_benchmark")
    pages = [(folder / "multilabel_benchmark.md").read_text().splitlines() for folder in (published, again)]
    assert any(line.startswith("| total | 2 |") for line in pages[0]) and "## rank loss (lower is better)" in pages[0]
    assert "# Leaderboard of multilabel_benchmark" in pages[1]  # named by its study, not a temporary folder
    commands = "\n".join(pages[0])  # its own, not the stream benchmark's
    assert "render --collection multilabel_benchmark --from docs/multilabel-benchmark" in commands
    assert "make multilabel-benchmark MULTILABEL_FROM=docs/multilabel-benchmark" in commands
    assert "stream" not in commands

    def stable(lines):  # less who wrote the page, when and where
        mutable = ("written", "git commit (checkout)", "| machine: ", "| page rendered on: ")
        return [line for line in lines if not any(m in line for m in mutable)]

    assert stable(pages[0]) == stable(pages[1])
    assert len(read_table(again)) == 2
    for name in (TABLE, RECORDS):
        assert (again / name).read_bytes() == (published / name).read_bytes(), name


def test_a_snapshot_of_the_first_seeds_keeps_their_records_and_notes_alone(tmp_path):
    from boostbench.reporting.run_table import snapshot

    store = tmp_path / "store"
    for folder, name, seed in (("runs", "a", 0), ("runs", "b", 3), ("failed", "c", 2), ("failed", "d", 1)):
        (store / folder).mkdir(parents=True, exist_ok=True)
        (store / folder / f"{name}.json").write_text(json.dumps({"config": {"seed": seed}}))
    (store / "runs" / "bad.json").write_text("{ cut short")  # for the store's checks to name, not to drop
    (store / "runs" / ".a.json.tmp").write_text("{}")  # a write under way
    kept = snapshot(store, tmp_path / "copy", seeds=2)
    assert sorted(p.name for p in (kept / "runs").iterdir()) == ["a.json", "bad.json"]
    assert sorted(p.name for p in (kept / "failed").iterdir()) == ["d.json"]
    every = snapshot(store, tmp_path / "all")
    assert len(list((every / "runs").iterdir())) == 3 and len(list((every / "failed").iterdir())) == 2


@pytest.mark.slow
def test_a_page_of_the_first_seeds_is_made_from_their_runs_alone(tmp_path, monkeypatch):
    """A sweep of seeds 0-1 has begun seed 1: `--seeds 1` publishes seed 0's runs, table and
    records alone; and a run the sweep finishes while the page is written is in none of them
    (page, table and records come from one copy of the store)."""
    from boostbench.reporting import reproduction_docs as docs

    store = tmp_path / "store"
    grid = [GRID[0], "dataset=balance", GRID[2], "learner=hoeffding_tree", "seed=0,1", GRID[-1], f"results_dir={store}"]
    assert summarize(run_sweep(grid, n_jobs=1)) == {"done": 4}
    late = next(p for p in sorted((store / "runs").glob("*.json")) if json.loads(p.read_text())["config"]["seed"] == 0)
    aside = late.replace(tmp_path / late.name)  # a run of seed 0 the sweep has not finished yet
    write_page = docs.write_page

    def the_sweep_finishes_it(*args, **kwargs):
        if not late.exists():
            aside.replace(late)
        return write_page(*args, **kwargs)

    monkeypatch.setattr(docs, "write_page", the_sweep_finishes_it)
    command = ["write", "--collection", "stream_benchmark", "--results-dir", str(store), "--command", "make"]
    assert docs.main([*command, "--docs", str(tmp_path / "docs"), "--seeds", "1"]) == 0
    assert late.exists()  # finished while the page was written
    page = (tmp_path / "docs" / "stream_benchmark.md").read_text()
    fields = dict(re.findall(r"^\| ([^|]+?) \| (.*?) \|$", page, flags=re.M))
    table = read_table(tmp_path / "docs")
    lines = gzip.decompress((tmp_path / "docs" / RECORDS).read_bytes()).decode().splitlines()
    assert fields["seeds"] == "0 (1 seed)" and fields["runs"] == "1"
    assert list(table["seed"]) == [0] and sum(json.loads(line)["kind"] == "run" for line in lines) == 1
    assert docs.main([*command, "--docs", str(tmp_path / "all")]) == 0  # every seed
    assert sorted(read_table(tmp_path / "all")["seed"]) == [0, 0, 1, 1]
    with pytest.raises(SystemExit):
        docs.main([*command, "--docs", str(tmp_path / "none"), "--seeds", "0"])


@pytest.mark.slow
def test_a_sweeps_checkpoint_stays_beside_the_page_until_a_page_holds_its_runs(tmp_path):
    """A sweep of seeds 0-1 checkpointed in the page's ``in-progress/``: a page of seed 0 alone
    and a page re-rendered from its own files keep the checkpoint, to the byte; the page of both
    seeds holds every run of it, and the checkpoint goes."""
    from boostbench.reporting import reproduction_docs as docs
    from boostbench.reporting.run_table import CHECKPOINT

    store, page = tmp_path / "store", tmp_path / "docs"
    grid = [GRID[0], "dataset=balance", GRID[2], "learner=hoeffding_tree", "seed=0,1", GRID[-1], f"results_dir={store}"]
    assert summarize(run_sweep(grid, n_jobs=1)) == {"done": 4}
    docs.write(store, page, "make", "stream_benchmark", seeds=1)
    export(store, page / CHECKPOINT, command="make (seed 1 under way)")
    (page / CHECKPOINT / "README.md").write_text("seed 1: 2 of 2 runs\n")
    kept = {p.name: p.read_bytes() for p in (page / CHECKPOINT).iterdir()}

    docs.write(store, page, "make", "stream_benchmark", seeds=1)  # the same seed's page again
    assert {p.name: p.read_bytes() for p in (page / CHECKPOINT).iterdir()} == kept
    docs.render(page, page)  # from its own published files, which lack seed 1
    assert {p.name: p.read_bytes() for p in (page / CHECKPOINT).iterdir()} == kept
    assert list(read_table(page)["seed"]) == [0, 0]
    docs.write(store, page, "make", "stream_benchmark", seeds=2)  # holds every run of the checkpoint
    assert not (page / CHECKPOINT).exists() and sorted(read_table(page)["seed"]) == [0, 0, 1, 1]
