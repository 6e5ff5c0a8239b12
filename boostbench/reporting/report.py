"""Write everything a paper table needs: tables (Markdown, LaTeX, CSV), curves, significance."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from boostbench.reporting import batch_reports, figures, significance, sun_tables, tables
from boostbench.reporting.records import load_runs
from boostbench.store import atomic_write_bytes, atomic_write_text


def export_tidy(results_dir: str | Path, runs: pd.DataFrame, out_dir: Path) -> list[Path]:
    """``runs.parquet`` (one row per run) and ``curves.parquet`` (one row per checkpoint)."""
    written = []
    for name, frame in (("runs", runs), ("curves", figures.curves(results_dir, runs))):
        written.append(atomic_write_bytes(out_dir / f"{name}.parquet", frame.to_parquet(index=False)))
    return written


def write_report(name: str, results_dir: str | Path, out_dir: str | Path, runs: pd.DataFrame | None = None,
                 n_learners: int = 100) -> tuple[pd.DataFrame, list[Path]]:
    """Rebuild table ``name`` and write its files under ``out_dir``.

    Writes ``tables/<name>.{md,tex,csv}``, ``figures/<name>/<dataset>.png`` (learning curves),
    ``tables/<name>_significance.md`` and ``figures/<name>/critical_difference.png``.

    Returns:
        The rebuilt table and the paths written.
    """
    out = Path(out_dir)
    spec = tables.TABLES[name]
    runs = load_runs(results_dir) if runs is None else runs
    frame = tables.rebuild(name, runs, n_learners=n_learners)
    written = [
        atomic_write_text(out / "tables" / f"{name}.md", tables.to_markdown(name, frame)),
        atomic_write_text(out / "tables" / f"{name}.tex", tables.to_latex(name, frame)),
        atomic_write_text(out / "tables" / f"{name}.csv", frame.to_csv(index=False)),
    ]
    algorithms = [a for a in spec.columns.values() if a]
    mine = runs[runs["dataset"].isin(spec.datasets.values()) & runs["algorithm"].isin(algorithms)
                & (runs["n_learners"] == n_learners) & (runs["protocol"] == spec.protocol)
                & runs["learner"].str.startswith("hoeffding_tree")]
    if not mine.empty:
        written += figures.learning_curves(results_dir, mine, out / "figures" / name,
                                           {"cumulative_accuracy": True, "test_rank_loss": False})
    scores = significance.score_matrix(frame)
    result = significance.friedman(scores, spec.higher_is_better)
    written.append(atomic_write_text(out / "tables" / f"{name}_significance.md", significance.to_markdown(name, result)))
    diagram = significance.cd_diagram(scores, spec.higher_is_better, out / "figures" / name / "critical_difference.png",
                                      f"{name}: average ranks")
    if diagram is not None:
        written.append(diagram)
    return frame, written


# Reports of studies that print no table of numbers to compare with (their own layouts).
REPORTS = {"combessie_heart": "Combessie & Machraoui, Heart Disease curves",
           "mukherjee_schapire": "Mukherjee & Schapire, AdaBoost.MM vs M1 vs MH (k-fold CV)",
           "sun_tables": "Sun, Tables 2-3: online vs batch boosting with TAN / BAN / Naive Bayes"}


def write_study_report(name: str, results_dir: str | Path, out_dir: str | Path,
                       runs: pd.DataFrame) -> tuple[pd.DataFrame, list[Path]]:
    """Write report ``name`` of :data:`REPORTS`; returns its summary frame (empty: no runs) and paths."""
    if name == "combessie_heart":
        return batch_reports.combessie_heart(results_dir, runs, out_dir)
    if name == "mukherjee_schapire":
        return batch_reports.mukherjee_schapire(runs, out_dir)
    if name == "sun_tables":
        return sun_tables.write(runs, out_dir)
    raise KeyError(name)
