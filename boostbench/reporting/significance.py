"""Significance across data sets: average ranks, Friedman test, Nemenyi critical differences.

Demšar (2006)'s procedure with maintained libraries: ``scipy.stats.friedmanchisquare`` and
``scikit_posthocs`` (Nemenyi post-hoc, critical-difference diagram).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import scikit_posthocs as sp
from scipy.stats import friedmanchisquare, studentized_range

from boostbench.reporting.figures import new_figure, save_figure


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


#: The level of the Friedman test and the Nemenyi critical difference
ALPHA = 0.05


def critical_difference(k: int, n: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of average ranks for ``k`` algorithms on ``n`` data sets
    (Demšar 2006, eq. 5): q_alpha sqrt(k (k + 1) / (6 n)), q_alpha the studentized range quantile
    over sqrt 2 (2.343 for k = 3, 2.569 for k = 4 at alpha = 0.05).
    """
    q = studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(k * (k + 1) / (6 * n)))


def _cd_size(labels: pd.Index) -> tuple[float, float]:
    """Inches (width, height) of a critical-difference diagram: half the labels hang on each side,
    one text line apart, with their ranks beside them; wide enough for the longest on both sides.
    """
    longest = max((len(str(label)) for label in labels), default=0) + 6  # " (12.5)"
    return max(7.0, 4.0 + 2 * 0.085 * longest), max(2.6, 1.3 + 0.24 * int(np.ceil(len(labels) / 2)))


def cd_figure(scores: pd.DataFrame, higher_is_better: bool, title: str, p_value: float):
    """The critical-difference diagram (Nemenyi) of ``scores`` (data sets × algorithms) as
    ``(figure, axes)``, its CD in the title, sized so that no two labels overlap (:func:`_cd_size`).
    """
    oriented = scores if higher_is_better else -scores
    pvalues = sp.posthoc_nemenyi_friedman(oriented.to_numpy())
    pvalues.index = pvalues.columns = scores.columns
    ranks = scores.rank(axis=1, ascending=not higher_is_better).mean(axis=0)
    fig, ax = new_figure(_cd_size(ranks.index))
    sp.critical_difference_diagram(ranks, pvalues, ax=ax)
    cd = critical_difference(scores.shape[1], scores.shape[0])
    ax.set_title(f"{title} (Friedman p = {p_value:.3g}, Nemenyi CD = {cd:.2f} at alpha = {ALPHA:g})")
    # twice: the labels hang from the ends of the rank axis, so narrowing the axes moves them
    fig.tight_layout()
    fig.tight_layout()
    return fig, ax


def cd_diagram(
    scores: pd.DataFrame, higher_is_better: bool, stem: Path, title: str, p_value: float, caption: str | None = None
) -> list[Path]:
    """:func:`cd_figure` as PNG and PDF (``caption`` inside the files); drawn only when the
    Friedman test rejects equal ranks (``p_value`` < :data:`ALPHA`), since without that the
    post-hoc differences mean nothing. Returns the paths (none: not drawn).
    """
    if scores.shape[1] < 3 or scores.shape[0] < 3 or not p_value < ALPHA:
        return []
    fig, _ = cd_figure(scores, higher_is_better, title, p_value)
    return save_figure(fig, stem, caption or title)


def to_markdown(name: str, result: dict) -> str:
    """The ranks and the test as Markdown."""
    lines = [
        f"### {name}: average ranks over {result['n_datasets']} data sets (1 = best)",
        "",
        "| algorithm | average rank |",
        "|---|---:|",
    ]
    lines += [f"| {algorithm} | {rank:.2f} |" for algorithm, rank in result["ranks"].items()]
    if result["statistic"] != result["statistic"]:
        lines += ["", "Friedman test: too few algorithms or data sets."]
        return "\n".join(lines) + "\n"
    k, n = len(result["ranks"]), result["n_datasets"]
    lines += [
        "",
        f"Friedman chi-square = {result['statistic']:.3f}, p = {result['p_value']:.4f}; "
        + (
            f"Nemenyi critical difference {critical_difference(k, n):.2f} (alpha = {ALPHA:g}): ranks "
            "farther apart than that differ"
            if result["p_value"] < ALPHA
            else f"equal ranks are not rejected at alpha = {ALPHA:g}, so no post-hoc test or diagram"
        ),
    ]
    return "\n".join(lines) + "\n"
