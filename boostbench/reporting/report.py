"""Write everything a paper table needs: tables (Markdown, LaTeX, CSV), curves, significance."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from boostbench.reporting import (
    batch_reports,
    figures,
    leaderboard,
    significance,
    summary,
    sun_tables,
    tables,
)
from boostbench.reporting.records import load_runs
from boostbench.system.files import atomic_write_bytes, atomic_write_text


def export_tidy(results_dir: str | Path, runs: pd.DataFrame, out_dir: Path) -> list[Path]:
    """``runs.parquet`` (one row per run) and ``curves.parquet`` (one row per checkpoint)."""
    written = []
    for name, frame in (("runs", runs), ("curves", figures.curves(results_dir, runs))):
        written.append(atomic_write_bytes(out_dir / f"{name}.parquet", frame.to_parquet(index=False)))
    return written


def write_report(
    name: str, results_dir: str | Path, out_dir: str | Path, runs: pd.DataFrame | None = None, n_learners: int = 100
) -> tuple[pd.DataFrame, list[Path]]:
    """Rebuild table ``name`` once per preset the store has runs of (``paper`` always) and write
    the files under ``out_dir``.

    For preset ``paper`` writes ``tables/<name>.{md,tex,csv}``, ``figures/<name>/<dataset>.png``
    (learning curves), ``tables/<name>_significance.md`` (when two data sets or more have two
    columns or more filled) and ``figures/<name>/critical_difference.png``; another preset's files have
    ``<name>.<preset>``
    in their names.

    Returns:
        The rebuilt tables (a ``preset`` column tells them apart) and the paths written.
    """
    spec = tables.TABLES[name]
    runs = load_runs(results_dir) if runs is None else runs
    frames, written = [], []
    for preset in tables.presets(runs[runs["protocol"] == spec.protocol]):
        frame = tables.rebuild(name, runs, n_learners=n_learners, preset=preset)
        written += _write_preset(name, preset, frame, results_dir, Path(out_dir), runs, n_learners)
        frames.append(frame.assign(preset=preset))
    return pd.concat(frames, ignore_index=True), written


def _write_preset(
    name: str, preset: str, frame: pd.DataFrame, results_dir: str | Path, out: Path, runs: pd.DataFrame, n_learners: int
) -> list[Path]:
    spec = tables.TABLES[name]
    stem = name if preset == "paper" else f"{name}.{preset}"
    written = [
        atomic_write_text(out / "tables" / f"{stem}.md", tables.to_markdown(name, frame, preset)),
        atomic_write_text(out / "tables" / f"{stem}.tex", tables.to_latex(name, frame, preset)),
        atomic_write_text(out / "tables" / f"{stem}.csv", frame.to_csv(index=False)),
    ]
    mine = tables.table_runs(name, runs)
    mine = mine[
        (mine["n_learners"] == n_learners)
        & mine["learner"].str.startswith("hoeffding_tree")
        & (mine["preset"] == preset)
    ]
    if not mine.empty:
        written += figures.learning_curves(
            results_dir, mine, out / "figures" / stem, {"cumulative_accuracy": True, "test_rank_loss": False}
        )
    scores = significance.score_matrix(frame)
    if scores.shape[0] < 2 or scores.shape[1] < 2:  # nothing to rank: no file (nor an earlier one's)
        (out / "tables" / f"{stem}_significance.md").unlink(missing_ok=True)
        return written
    result = significance.friedman(scores, spec.higher_is_better)
    written.append(
        atomic_write_text(out / "tables" / f"{stem}_significance.md", significance.to_markdown(stem, result))
    )
    written += significance.cd_diagram(
        scores,
        spec.higher_is_better,
        out / "figures" / stem / "critical_difference",
        f"{stem}: average ranks",
        result["p_value"],
    )
    return written


@dataclass(frozen=True)
class Report:
    """One report of the registry: ``write(results_dir, out_dir, runs, n_learners)`` writes its
    files and returns ``(summary frame, paths)`` (an empty frame: no runs for it); a paper table
    is shown on screen cell by cell next to the paper's values, a study as its Markdown. The
    leaderboard's also takes ``among=`` (:func:`~boostbench.reporting.leaderboard.build`) and ``title=``.
    """

    title: str
    write: Callable[[str | Path, Path, pd.DataFrame, int], tuple[pd.DataFrame, list[Path]]]
    paper_table: bool = False


def _paper_table(name: str) -> Callable:
    return lambda results_dir, out_dir, runs, n_learners: write_report(name, results_dir, out_dir, runs, n_learners)


def _leaderboard(
    results_dir: str | Path,
    out_dir: Path,
    runs: pd.DataFrame,
    among: Collection[str] | None = None,
    title: str | None = None,
) -> tuple[pd.DataFrame, list[Path]]:
    board, written = leaderboard.write(results_dir, out_dir, runs, among=among, title=title)
    frames = [t.assign(measure=m) for m, t in board.tables.items()]
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()), written


REPORTS: dict[str, Report] = {
    "jung2017_table1": Report(
        "Jung, Goetz & Tewari 2017, Table 1 (accuracy on the last 20%, runtime)",
        _paper_table("jung2017_table1"),
        paper_table=True,
    ),
    "jung_tewari2018_table3": Report(
        "Jung & Tewari 2018, Table 3 (test rank loss, runtime)",
        _paper_table("jung_tewari2018_table3"),
        paper_table=True,
    ),
    "combessie_heart": Report(
        "Combessie & Machraoui, Heart Disease curves",
        lambda results_dir, out_dir, runs, _: batch_reports.combessie_heart(results_dir, runs, out_dir),
    ),
    "mukherjee_schapire": Report(
        "Mukherjee & Schapire, AdaBoost.MM vs M1 vs MH (k-fold CV)",
        lambda results_dir, out_dir, runs, _: batch_reports.mukherjee_schapire(runs, out_dir),
    ),
    "sun_tables": Report(
        "Sun, Tables 2-3: online vs batch boosting with TAN / BAN / Naive Bayes",
        lambda results_dir, out_dir, runs, _: sun_tables.write(runs, out_dir),
    ),
    "leaderboard": Report(
        "every online algorithm on its weak learners ranked over the store's streams: accuracy, kappa-M, "
        "kappa-T, CPU s, RAM-hours; Friedman + Nemenyi, Wilcoxon-Holm, Bayesian signed-rank (ROPE); the "
        "boosters at equal trees; accuracy against CPU s; the streams' learning curves",
        lambda results_dir, out_dir, runs, _, **options: _leaderboard(results_dir, out_dir, runs, **options),
    ),
    # last: its HTML page links the tables written before it
    "summary": Report(
        "every run of the store: mean and 95% CI per group, curves with seed bands, summary.html",
        lambda results_dir, out_dir, runs, _: summary.write(results_dir, out_dir, runs),
    ),
}
