"""Significance across data sets: average ranks, Friedman test, Nemenyi critical differences.

Demšar (2006)'s procedure with maintained libraries: ``scipy.stats.friedmanchisquare`` and
``scikit_posthocs`` (Nemenyi post-hoc, critical-difference diagram).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import scikit_posthocs as sp
from scipy.stats import friedmanchisquare

from boostbench.reporting.figures import new_figure, png_bytes
from boostbench.store import atomic_write_bytes


def score_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """Data sets × columns of our means, from a rebuilt table; rows with a missing cell are dropped."""
    wide = table.pivot(index="dataset", columns="column", values="ours")
    return wide.dropna(axis=1, how="all").dropna(axis=0, how="any")


def friedman(scores: pd.DataFrame, higher_is_better: bool) -> dict:
    """Average ranks (1 = best) and the Friedman test over data sets (blocks) and algorithms.

    Returns:
        ``{"ranks": Series, "statistic": float, "p_value": float, "n_datasets": int}``; the test
        needs at least 3 algorithms and 2 data sets (statistic and p are NaN otherwise).
    """
    ranks = scores.rank(axis=1, ascending=not higher_is_better).mean(axis=0).sort_values()
    statistic = p_value = float("nan")
    if scores.shape[1] >= 3 and scores.shape[0] >= 2:
        statistic, p_value = friedmanchisquare(*[scores[c].to_numpy() for c in scores.columns])
    return {"ranks": ranks, "statistic": float(statistic), "p_value": float(p_value), "n_datasets": len(scores)}


def cd_diagram(scores: pd.DataFrame, higher_is_better: bool, path: Path, title: str) -> Path | None:
    """Critical-difference diagram (Nemenyi) as a PNG; None when there are too few data sets."""
    if scores.shape[1] < 3 or scores.shape[0] < 3:
        return None
    oriented = scores if higher_is_better else -scores
    pvalues = sp.posthoc_nemenyi_friedman(oriented.to_numpy())
    pvalues.index = pvalues.columns = scores.columns
    ranks = scores.rank(axis=1, ascending=not higher_is_better).mean(axis=0)
    fig, ax = new_figure((7, 2.6))
    sp.critical_difference_diagram(ranks, pvalues, ax=ax)
    ax.set_title(title)
    fig.tight_layout()
    data = png_bytes(fig)
    return atomic_write_bytes(path, data)


def to_markdown(name: str, result: dict) -> str:
    """The ranks and the test as Markdown."""
    lines = [f"### {name}: average ranks over {result['n_datasets']} data sets (1 = best)", "",
             "| algorithm | average rank |", "|---|---|"]
    lines += [f"| {algorithm} | {rank:.2f} |" for algorithm, rank in result["ranks"].items()]
    lines += ["", f"Friedman chi-square = {result['statistic']:.3f}, p = {result['p_value']:.4f}"
              if result["statistic"] == result["statistic"] else "Friedman test: too few algorithms or data sets."]
    return "\n".join(lines) + "\n"
