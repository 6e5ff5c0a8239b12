"""Sun, Tables 2-3: base model, online base model, batch boosting and online boosting per base
learner (TAN, BAN, and Naive Bayes, which the paper discusses without a table), beside the paper.

A cell is the test accuracy in percent: the mean and its 95% Student-t interval over the folds
of every seed (k-fold CV; 3 seeds x 5 folds = 15 values) or over seeds (a fixed split). It is
flagged (⚑) when the paper's value lies outside the interval and more than ``TOLERANCE`` points
from our mean, as in the Jung tables. A ``−`` after the online-boosting cell marks where it is significantly worse than
batch boosting (p < 0.05, one-sided): a paired t-test over folds under k-fold CV, as the paper;
for a fixed split a paired t-test over seeds (the seeds share one test set, so its examples are
not independent draws per seed), and with one seed statsmodels' two-proportion z-test on the
test set.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from boostbench.data.registry import available_datasets
from boostbench.reporting.tables import cell_rows, confidence_interval, paper_tables
from boostbench.system.files import atomic_write_text

KEY = "sun_online_boosting_tables_2_3"
DATASETS = {
    "promoters": "promoters",
    "breast_cancer_w": "breast_cancer_w",
    "german": "german",
    "car": "car",
    "mushroom": "mushroom",
    "synthetic_1": "synthetic_1",
    "synthetic_2": "synthetic_2",
    "synthetic_3": "synthetic_3",
    "census_income": "census_income",
    "covertype": "covertype",
}
COLUMNS = {
    "base": "base",
    "online_base": "online_base",
    "boosting": "adaboost_m1",
    "online_boosting": "online_boosting",
}
LEARNERS = {"tan": "tan", "ban": "ban", "naive_bayes": None}  # our learner -> paper table (None: none)
FIXED_SPLIT = ("synthetic_1", "synthetic_2", "synthetic_3", "census_income")  # the rest: 5-fold CV
ALPHA = 0.05
TOLERANCE = 3.0  # accuracy points: a difference to the paper within it is never flagged


def _fold_accuracies(group: pd.DataFrame) -> np.ndarray:
    """Accuracies of every fold of every seed, in (seed, fold) order, so columns pair up."""
    ordered = group.sort_values("seed")["fold_test_error"]
    return 1.0 - np.concatenate([np.asarray(v, dtype=float) for v in ordered])


def online_worse(batch: np.ndarray, online: np.ndarray, n_test: int | None) -> tuple[bool, float]:
    """Whether online boosting's accuracies are significantly below batch boosting's, and the p-value.

    Args:
        batch: batch boosting's per-fold accuracies, or for a fixed split the accuracy of each
            seed.
        online: online boosting's, paired with ``batch`` (same seeds and folds; by seed).
        n_test: test-set size for a fixed split (used by the z-test of a single seed), None for folds.
    """
    if n_test is not None and len(batch) == 1:
        from statsmodels.stats.proportion import proportions_ztest

        counts = np.round(np.array([online[0], batch[0]]) * n_test)
        if counts[0] == counts[1]:
            return False, 0.5
        p = float(proportions_ztest(counts, [n_test, n_test], alternative="smaller")[1])
    else:
        diff = online - batch
        if np.allclose(diff, diff[0]):  # no spread: the t statistic is undefined
            return bool(diff[0] < 0), 0.0 if diff[0] < 0 else 1.0
        p = float(stats.ttest_rel(online, batch, alternative="less").pvalue)
    return p < ALPHA, p


def expected_settings(dataset: str, algorithm: str, learner: str, overrides: tuple[str, ...] = ()) -> str:
    """The settings (:func:`~boostbench.reporting.records.settings_key`) of a cell's runs: Sun's
    experiment config (``sun_tables``, or ``sun_tables_fixed_split`` for a fixed split) with
    ``overrides`` (a lever, e.g. ``learner.online_structure=lossless``).
    """
    return _expected(dataset, algorithm, learner, overrides)[0]


@functools.cache
def _expected(dataset: str, algorithm: str, learner: str, overrides: tuple[str, ...]) -> tuple[str, int]:
    """The settings and M (``n_learners``: settings leave it out, tables filter on it) of a cell."""
    from omegaconf import OmegaConf

    from boostbench.reporting.records import settings_key
    from boostbench.runner.config import compose_config

    fixed = dataset in FIXED_SPLIT
    cfg = compose_config(
        [
            f"+experiment=sun_tables{'_fixed_split' if fixed else ''}",
            f"dataset={dataset}",
            f"algorithm={algorithm}",
            f"learner={learner}",
            f"protocol={'holdout' if fixed else 'kfold'}",
            *overrides,
        ]
    )
    return settings_key(OmegaConf.to_container(cfg, resolve=True)), int(cfg.n_learners)


def rebuild(
    runs: pd.DataFrame, overrides: tuple[str, ...] = (), algorithms: tuple[str, ...] | None = None
) -> pd.DataFrame:
    """One row per (learner, data set, column): ours (mean %, std %, 95% interval %, folds), the
    paper's, ``flagged`` (the paper outside the interval and more than ``TOLERANCE`` away), the test.

    ``overrides`` (a lever) select the runs of the ``algorithms`` they apply to (None: all); the
    other columns keep the defaults' runs (a key only online boosting has, say).
    """
    paper = paper_tables()[KEY]
    here = {info.name: info.location is not None for info in available_datasets()}
    mine = runs[runs["protocol"].isin(["kfold", "holdout"])]
    rows = []
    for learner, table in LEARNERS.items():
        for paper_name, dataset in DATASETS.items():
            accuracy = {}
            for column, algorithm in COLUMNS.items():
                group = mine[
                    (mine["dataset"] == dataset) & (mine["algorithm"] == algorithm) & (mine["learner"] == learner)
                ]
                if not group.empty:
                    changed = overrides if algorithms is None or algorithm in algorithms else ()
                    settings, n_learners = _expected(dataset, algorithm, learner, changed)
                    group = group[(group["settings"] == settings) & (group["n_learners"] == n_learners)]
                values = _fold_accuracies(group) if not group.empty else np.array([])
                accuracy[column] = values
                paper_value = paper[table][paper_name][list(COLUMNS).index(column)] if table else None
                ours = 100 * values.mean() if len(values) else float("nan")
                low, high = (100 * v for v in confidence_interval(values))
                rows.append(
                    {
                        "learner": learner,
                        "dataset": paper_name,
                        "column": column,
                        "ours": ours,
                        "std": 100 * values.std(ddof=1) if len(values) > 1 else 0.0,
                        "n": len(values),
                        "low": low,
                        "high": high,
                        "paper": float("nan") if paper_value is None else float(paper_value),
                        "flagged": bool(
                            paper_value is not None
                            and len(values) > 1
                            and abs(ours - paper_value) > TOLERANCE
                            and not low <= paper_value <= high
                        ),
                        "n_test": (
                            int(group["n_test"].iloc[0])
                            if len(values) and (group["protocol"] == "holdout").all()
                            else None
                        ),
                        "note": ""
                        if len(values)
                        else ("not run" if here.get(dataset) else "data set not available offline"),
                        "online_worse": False,
                        "p_value": float("nan"),
                    }
                )
            batch, online = accuracy["boosting"], accuracy["online_boosting"]
            if len(batch) and len(batch) == len(online):
                worse, p = online_worse(batch, online, rows[-1]["n_test"])
                rows[-1].update(online_worse=worse, p_value=p)
    return pd.DataFrame(rows)


def to_markdown(table: pd.DataFrame) -> str:
    """The three tables (TAN, BAN, Naive Bayes) as Markdown."""

    def cell(row) -> str:
        paper = "" if row.paper != row.paper else f" / {row.paper:.1f}"
        if row.n == 0:
            return f"— ({row.note}){paper}"
        spread = f" [{row.low:.1f}, {row.high:.1f}]" if row.n > 1 else ""  # folds x seeds, or seeds
        return f"{row.ours:.1f}{spread}{' −' if row.online_worse else ''}{paper}{' ⚑' if row.flagged else ''}"

    lines = []
    titles = {"tan": "Table 2: TAN", "ban": "Table 3: BAN", "naive_bayes": "Naive Bayes (no table in the paper)"}
    for learner, block in table.groupby("learner", sort=False):
        lines += [
            f"### {titles[learner]}",
            "",
            "| data set | " + " | ".join(COLUMNS) + " |",
            "|---|" + "---:|" * len(COLUMNS),
        ]
        for dataset, cells in cell_rows(block, cell):
            lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
        lines.append("")
    run = table[table["n"] > 0]
    folds = run.loc[run["n_test"].isna(), "n"]
    lines.append(
        f"Cells: our test accuracy (%), mean [95% Student-t interval] over every fold of every seed "
        f"(k-fold CV: {int(folds.min()) if len(folds) else 0}–{int(folds.max()) if len(folds) else 0} "
        f"values a cell), or over seeds for a fixed "
        f"split (no interval with one seed) / the paper's. ⚑: the paper's value is outside the interval "
        f"and more than {TOLERANCE:g} points from our mean ({int(table['flagged'].sum())} of "
        f"{int(run['paper'].notna().sum())} cells with a paper value). `−`: online boosting "
        "significantly worse than batch boosting (p < 0.05; paired t-test over (seed, fold), or a "
        "two-proportion z-test for a fixed split). Synthetic-1/2/3 are our own random-network data "
        "(the paper does not define its own)."
    )
    return "\n".join(lines) + "\n"


def write(runs: pd.DataFrame, out_dir: str | Path) -> tuple[pd.DataFrame, list[Path]]:
    """Write ``tables/sun_tables.{md,csv}`` (Sun's experiment settings); returns the table (empty:
    no runs) and the paths.
    """
    table = rebuild(runs)
    if table["n"].sum() == 0:
        return pd.DataFrame(), []
    out = Path(out_dir)
    return table, [
        atomic_write_text(out / "tables" / "sun_tables.md", to_markdown(table)),
        atomic_write_text(out / "tables" / "sun_tables.csv", table.to_csv(index=False)),
    ]
