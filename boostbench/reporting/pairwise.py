"""Pairwise comparisons of algorithms over data sets, the tests Benavoli, Corani & Mangili (JMLR
17(5), 2016) recommend in place of mean-rank post-hoc tests (whose verdict on a pair depends on
which other algorithms are in the table):

- the Wilcoxon signed-rank test of each pair (``scipy.stats.wilcoxon``; Demšar 2006, Section
  3.1.3) with Holm's step-down correction over all pairs (``statsmodels``' ``multipletests``,
  as ``scikit_posthocs.posthoc_wilcoxon`` applies it): does one algorithm beat the other
  consistently over the data sets, the family-wise error held at alpha?
- the Bayesian signed-rank test with a region of practical equivalence (``baycomp``; Benavoli
  et al., ICML 2014; Benavoli, Corani, Demšar & Zaffalon, JMLR 18(77), 2017): how probable is
  it that one is better by more than the ROPE, that the two are practically equivalent, or that
  the other is better?

Each pair is compared on the data sets both algorithms ran on. The statistics are the libraries';
this module pairs the columns, orients them (higher is better) and draws the matrices.
"""

from __future__ import annotations

import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.reporting.figures import new_figure, save_figure

#: The level of the Wilcoxon-Holm verdicts and the posterior probability of a Bayesian one
ALPHA = 0.05
DECISIVE = 0.95
#: The Bayesian test's default ROPE: differences within [-ROPE, ROPE] are practically nothing
#: (1 accuracy point of an accuracy in [0, 1])
ROPE = 0.01
#: Posterior samples of each Bayesian test (baycomp's default is 50,000: 0.09 s a pair at 10,000,
#: and the probabilities within 0.005 of the exact ones), and their seed
BAYES_SAMPLES = 10_000
BAYES_SEED = 0


def _pairs(scores: pd.DataFrame, higher_is_better: bool):
    """Each pair ``(a, b)`` of columns in order with their scores on the data sets both have,
    oriented so that higher is better.
    """
    oriented = scores if higher_is_better else -scores
    for a, b in combinations(scores.columns, 2):
        both = oriented[[a, b]].dropna()
        yield a, b, both[a].to_numpy(dtype=float), both[b].to_numpy(dtype=float)


def wilcoxon_holm(scores: pd.DataFrame, higher_is_better: bool, alpha: float = ALPHA) -> pd.DataFrame:
    """The Wilcoxon signed-rank test of every pair of algorithms, Holm-corrected over the pairs.

    Args:
        scores: data sets × algorithms, one score per cell (NaN: not run there).
        higher_is_better: the measure's direction.
        alpha: the family-wise level of the verdicts.

    Returns:
        One row per pair ``a``, ``b`` (the columns' order): ``n_datasets`` both ran on,
        ``mean_difference`` (mean of a − b, in the measure's units), ``wins``, ``ties``,
        ``losses`` of a, ``statistic`` (scipy's W), ``p_value`` (two-sided; 1 when every
        difference is zero), ``p_holm`` and ``verdict`` (``"a better"``, ``"b better"``, or
        ``"no difference shown"`` at ``alpha`` after Holm's correction). Pairs with no data set
        in common have NaN p values and no verdict.
    """
    from scipy.stats import wilcoxon
    from statsmodels.stats.multitest import multipletests

    rows = []
    for a, b, x, y in _pairs(scores, higher_is_better):
        difference = x - y
        statistic = p_value = float("nan")
        a_ahead = False  # a's signed ranks outweigh b's
        if len(difference) and not np.any(difference):
            statistic, p_value = 0.0, 1.0
        elif len(difference):
            with warnings.catch_warnings():  # a normal approximation over few data sets warns; p stands
                warnings.simplefilter("ignore", RuntimeWarning)
                result = wilcoxon(x, y)
                a_ahead = wilcoxon(x, y, alternative="greater").pvalue < 0.5
            statistic, p_value = float(result.statistic), float(result.pvalue)
        sign = 1 if higher_is_better else -1
        rows.append(
            {
                "a": a,
                "b": b,
                "n_datasets": len(difference),
                "mean_difference": sign * float(difference.mean()) if len(difference) else float("nan"),
                "wins": int((difference > 0).sum()),
                "ties": int((difference == 0).sum()),
                "losses": int((difference < 0).sum()),
                "statistic": statistic,
                "p_value": p_value,
                "a_ahead": a_ahead,
            }
        )
    table = pd.DataFrame(
        rows,
        columns=[
            "a",
            "b",
            "n_datasets",
            "mean_difference",
            "wins",
            "ties",
            "losses",
            "statistic",
            "p_value",
            "a_ahead",
        ],
    )
    tested = table["p_value"].notna()
    table["p_holm"] = np.nan
    if tested.any():
        table.loc[tested, "p_holm"] = multipletests(table.loc[tested, "p_value"], method="holm")[1]
    table["verdict"] = [
        "" if p != p else "no difference shown" if p >= alpha else "a better" if ahead else "b better"
        for p, ahead in zip(table["p_holm"], table["a_ahead"])
    ]
    return table.drop(columns="a_ahead")


def bayesian_signed_rank(
    scores: pd.DataFrame,
    higher_is_better: bool,
    rope: float = ROPE,
    samples: int = BAYES_SAMPLES,
    seed: int = BAYES_SEED,
) -> pd.DataFrame:
    """The Bayesian signed-rank test with a ROPE of every pair of algorithms
    (``baycomp.SignedRankTest``, its prior's default strength 0.5).

    Args:
        scores: data sets × algorithms (NaN: not run there).
        higher_is_better: the measure's direction.
        rope: half-width of the region of practical equivalence, in the measure's units (0.01: one
            accuracy point).
        samples: baycomp's posterior samples.
        seed: the seed of baycomp's generator (the same scores give the same probabilities).

    Returns:
        One row per pair ``a``, ``b``: ``n_datasets``, ``mean_difference`` (a − b, the measure's
        units), ``p_a_better`` (a better by more than the ROPE), ``p_rope`` (practically
        equivalent), ``p_b_better``, and ``verdict`` (the outcome whose posterior probability is
        at least :data:`DECISIVE`: ``"a better"``, ``"equivalent"``, ``"b better"``, else
        ``"undecided"``). Pairs with fewer than 2 data sets in common have NaN probabilities.
    """
    from baycomp import SignedRankTest

    rows = []
    for a, b, x, y in _pairs(scores, higher_is_better):
        probabilities = (float("nan"),) * 3
        if len(x) >= 2:
            # baycomp's "left" is x better: the difference y - x below -rope; no ROPE, no middle
            found = [float(p) for p in SignedRankTest.probs(x, y, rope, nsamples=samples, random_state=seed)]
            probabilities = tuple(found) if len(found) == 3 else (found[0], 0.0, found[1])
        sign = 1 if higher_is_better else -1
        rows.append(
            {
                "a": a,
                "b": b,
                "n_datasets": len(x),
                "mean_difference": sign * float((x - y).mean()) if len(x) else float("nan"),
                "p_a_better": probabilities[0],
                "p_rope": probabilities[1],
                "p_b_better": probabilities[2],
            }
        )
    table = pd.DataFrame(
        rows, columns=["a", "b", "n_datasets", "mean_difference", "p_a_better", "p_rope", "p_b_better"]
    )
    outcomes = np.array(["a better", "equivalent", "b better"])
    probabilities = table[["p_a_better", "p_rope", "p_b_better"]].to_numpy(dtype=float)
    table["verdict"] = [
        "" if np.isnan(p).any() else outcomes[p.argmax()] if p.max() >= DECISIVE else "undecided" for p in probabilities
    ]
    return table


#: A matrix cell's colour by what the test says of the row against the column
COLOURS = {
    "better": "#1a9641",
    "worse": "#d7191c",
    "equivalent": "#4575b4",
    "no difference shown": "#e6e6e6",
    "undecided": "#e6e6e6",
    "": "#ffffff",
}
#: Above this many algorithms a matrix's cells carry no numbers (they would not be legible)
ANNOTATE_UP_TO = 16


def _row_view(table: pd.DataFrame) -> dict[tuple[str, str], tuple[str, float]]:
    """Per (row, column) algorithm: what the pair's verdict says of the row, and the number its
    cell shows (Holm's p, or the posterior probability that the row is better).
    """
    flip = {"a better": ("better", "worse"), "b better": ("worse", "better")}
    view = {}
    bayesian = "p_a_better" in table.columns
    for row in table.itertuples():
        row_word, column_word = flip.get(row.verdict, (row.verdict, row.verdict))
        if bayesian:
            view[(row.a, row.b)] = (row_word, row.p_a_better)
            view[(row.b, row.a)] = (column_word, row.p_b_better)
        else:
            view[(row.a, row.b)] = (row_word, row.p_holm)
            view[(row.b, row.a)] = (column_word, row.p_holm)
    return view


def matrix_figure(table: pd.DataFrame, order: list[str], stem: Path, title: str, caption: str) -> list[Path]:
    """The pairwise verdicts as a matrix, rows and columns in ``order`` (e.g. by mean rank): a cell
    green where the row algorithm is better than the column's, red where it is worse, blue where
    the two are practically equivalent (Bayesian), grey where the test does not decide; with up
    to :data:`ANNOTATE_UP_TO` algorithms each cell shows Holm's p (Wilcoxon) or the posterior
    probability that the row is better (Bayesian). PNG and PDF, ``caption`` inside them; the
    paths (none for fewer than 2 algorithms).
    """
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Patch

    k = len(order)
    view = _row_view(table)
    if k < 2 or not any(word for word, _ in view.values()):
        return []  # nothing tested
    image = np.ones((k, k, 3))
    for i, r in enumerate(order):
        for j, c in enumerate(order):
            if i != j:
                image[i, j] = to_rgb(COLOURS[view.get((r, c), ("", np.nan))[0]])
    side = max(3.5, 0.38 * k + 1.0)
    fig, ax = new_figure((side + 0.25 * max(len(o) for o in order) * 0.3 + 2.5, side))
    ax.imshow(image, interpolation="nearest")
    # the columns by number, the rows by number and name: the matrix keeps its width
    ax.set_xticks(range(k), [str(i + 1) for i in range(k)], fontsize=8)
    ax.set_yticks(range(k), [f"{name}  {i + 1}" for i, name in enumerate(order)], fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xlabel("column algorithm (number as the rows)")
    ax.set_ylabel("row algorithm")
    if k <= ANNOTATE_UP_TO:
        size = 8 if k <= 8 else 6
        for i, r in enumerate(order):
            for j, c in enumerate(order):
                value = view.get((r, c), ("", np.nan))[1]
                if i != j and value == value:
                    ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=size)
    shown = [
        w
        for w in ("better", "worse", "equivalent", "no difference shown", "undecided")
        if any(v[0] == w for v in view.values())
    ]
    ax.legend(
        handles=[Patch(color=COLOURS[w], label=f"row {w}" if w in ("better", "worse") else w) for w in shown],
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        fontsize=8,
        frameon=False,
    )
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem, caption)
