"""Paper tables rebuilt from the result store, next to the papers' own numbers.

The papers' values come from ``paper_tables.yaml`` beside this module (transcribed by hand from
the papers). A cell is the mean over seeds of one metric with its 95% confidence interval
(Student's t); a column tuned over an edge gamma ("Best MBBM", "best BMR") takes, per data set,
the gamma whose mean is best, and also shows the honest version of that choice: gamma chosen on
half the seeds and scored on the other half. A cell is flagged when the paper's value lies
outside the interval and differs from our mean by more than the table's tolerance. One table per
preset (``configs/preset/``): the papers' text, and the authors' code.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from boostbench import measures
from boostbench.data.registry import available_datasets
from boostbench.reporting.intervals import clipped, confidence_interval, interval_text, metric_range
from boostbench.reporting.wording import plural

PAPER_TABLES = Path(__file__).with_name("paper_tables.yaml")


@dataclass(frozen=True)
class TableSpec:
    """How a paper table maps onto our runs.

    Attributes:
        key: the table's key in ``paper_tables.yaml``.
        datasets: paper row name -> our registry name.
        columns: paper column -> our algorithm (None: a column we do not reproduce).
        metric: the run metric shown (``final_accuracy`` or ``test_rank_loss``).
        paper_value: the key of the paper's values in a row (``accuracy`` or ``rank_loss``).
        protocol: the protocol of the runs that count (the same algorithm may also have been run
            under another protocol, e.g. k-fold cross-validation).
        peers: column -> algorithm of other libraries' ensembles (river's, MOA's), shown after
            the paper's columns when the store has runs of them (the paper has no value there).
        tolerance: a difference to the paper within it is never flagged (metric units).
        paper_n_learners: the paper's N; cells rebuilt at another N are shown, not compared.
    """

    key: str
    datasets: dict[str, str]
    columns: dict[str, str | None]
    metric: str
    paper_value: str
    protocol: str
    peers: dict[str, str] = field(default_factory=dict)
    tolerance: float = 0.03
    paper_n_learners: int = 100

    @property
    def higher_is_better(self) -> bool:
        """The metric's direction, from the registry of measures (it chooses the best gamma)."""
        return bool(measures.higher_is_better(self.metric))


PEERS = {
    name: name
    for name in ("river_adaboost", "river_adwin_boosting", "river_bole", "moa_ozaboost", "moa_online_smooth_boost")
}

TABLES = {
    "jung2017_table1": TableSpec(
        key="jung2017_table1",
        datasets={
            "balance": "balance",
            "mice": "mice",
            "cars": "car",
            "mushroom": "mushroom",
            "nursery": "nursery",
            "isolet": "isolet",
            "movement": "movement",
        },
        columns={
            "best_decision_tree": "best_vfdt",
            "online_boosting": "online_boosting",
            "adaboost_olm": "adaboost_olm",
            "best_mbbm": "online_mbbm",
        },
        metric="final_accuracy",
        paper_value="accuracy",
        protocol="prequential",
        peers=PEERS,
        tolerance=0.03,
    ),
    "jung_tewari2018_table3": TableSpec(
        key="jung_tewari2018_table3",
        datasets={
            "emotions": "emotions",
            "scene": "scene",
            "yeast": "yeast",
            "mediamill": "mediamill",
            "m_reduced": "mediamill_reduced",
        },
        columns={"batch": None, "ada_olmr": "ada_olmr", "best_bmr": "online_bmr"},
        metric="test_rank_loss",
        paper_value="rank_loss",
        protocol="train_test",
        tolerance=0.015,
    ),
}


def table_columns(frame: pd.DataFrame) -> list[str]:
    """A rebuilt table's columns, in order (the paper's, then the peers that were run)."""
    return list(dict.fromkeys(frame["column"]))


def cell_rows(frame: pd.DataFrame, cell) -> list[tuple[str, list[str]]]:
    """A rebuilt table's rows for display: ``(data set, [cell(row) for each of its columns])``, in
    the frame's order (a rebuilt table has one row per data set and column).
    """
    return [
        (dataset, [cell(row) for row in group.itertuples()]) for dataset, group in frame.groupby("dataset", sort=False)
    ]


def paper_tables() -> dict:
    """The transcribed paper values."""
    return OmegaConf.to_container(OmegaConf.load(PAPER_TABLES))


def held_out_gamma_score(subset: pd.DataFrame, metric: str, higher_is_better: bool) -> float:
    """The best-gamma score without hindsight: split the seeds in two halves (sorted seeds, first
    half and second half), choose gamma by its mean on one half, score it on the other, both ways,
    and average the two scores. NaN with fewer than 2 seeds.
    """
    seeds = np.sort(subset["seed"].unique())
    if len(seeds) < 2:
        return float("nan")
    halves = (seeds[: len(seeds) // 2], seeds[len(seeds) // 2 :])
    scores = []
    for choose, score in (halves, halves[::-1]):
        means = subset[subset["seed"].isin(choose)].groupby("gamma")[metric].mean()
        gamma = means.idxmax() if higher_is_better else means.idxmin()
        scored = subset[subset["seed"].isin(score) & (subset["gamma"] == gamma)][metric]
        scores.append(float(scored.mean()))
    return float(np.mean(scores))


@functools.cache
def expected_settings(dataset: str, algorithm: str, preset: str) -> str:
    """The settings (:func:`~boostbench.reporting.records.settings_key`) of a paper cell's runs:
    the defaults of ``dataset`` and ``algorithm`` under ``preset``.
    """
    from boostbench.reporting.records import settings_key
    from boostbench.runner.config import compose_config

    overrides = [f"dataset={dataset}", f"algorithm={algorithm}", *([f"+preset={preset}"] if preset != "paper" else [])]
    return settings_key(OmegaConf.to_container(compose_config(overrides), resolve=True))


def table_runs(name: str, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of table ``name``'s data sets and algorithms (its columns and peers) under its
    protocol, at any N and preset.
    """
    spec = TABLES[name]
    algorithms = [a for a in {**spec.columns, **spec.peers}.values() if a]
    return runs[
        runs["dataset"].isin(spec.datasets.values())
        & runs["algorithm"].isin(algorithms)
        & (runs["protocol"] == spec.protocol)
    ]


def unfilled(name: str, runs: pd.DataFrame, n_learners: int = 100) -> str | None:
    """Why table ``name`` would have no cell filled from ``runs`` at ``n_learners`` under any
    preset (``report all`` then writes no table of empty cells), or None when one is filled.
    """
    mine = table_runs(name, runs)
    if mine.empty:
        return "no runs of its data sets and algorithms"
    for preset in presets(mine):
        if (rebuild(name, runs, n_learners=n_learners, preset=preset)["n_seeds"] > 0).any():
            return None
    ns = sorted(int(n) for n in mine["n_learners"].unique() if n != n_learners)
    if ns:
        return f"no cell filled at N = {n_learners}; its runs have N = {', '.join(map(str, ns))} (--n-learners {ns[0]})"
    return f"no cell filled at N = {n_learners} (its runs have other settings)"


def presets(runs: pd.DataFrame) -> list[str]:
    """The presets the store has runs of, ``paper`` (the defaults) first, always."""
    return ["paper", *sorted(set(runs["preset"]) - {"paper"})]


def rebuild(name: str, runs: pd.DataFrame, n_learners: int = 100, preset: str = "paper") -> pd.DataFrame:
    """Rebuild paper table ``name`` from ``runs`` (see :func:`records.load_runs`).

    Only runs with ``n_learners`` Hoeffding trees under the table's protocol and ``preset`` count;
    at an N other than the paper's no cell is flagged (its note says so). Returns one row per
    (data set, column): ours (mean, std with ddof 1, the 95% interval ``ci_low``/``ci_high``
    clipped to the metric's range and whether it was ``clipped``, NaN below 3 seeds, n seeds, mean runtime in
    seconds, largest peak RSS in MiB), the paper's
    value and runtime, the difference ours − paper, ``flagged`` (the paper outside the interval
    and farther than the tolerance), for a gamma-tuned column the chosen ``gamma`` and the
    ``held_out`` score (:func:`held_out_gamma_score`), and a note (the chosen gamma, or why a
    cell is empty).

    Raises:
        KeyError: unknown table name.
    """
    spec = TABLES[name]
    paper = paper_tables()[spec.key]
    here = {info.name: info.location is not None for info in available_datasets()}
    every = runs
    runs = runs[
        (runs["n_learners"] == n_learners)
        & (runs["protocol"] == spec.protocol)
        & runs["learner"].str.startswith("hoeffding_tree")  # the papers' VFDT weak learners
        & (runs["preset"] == preset)
    ]
    columns = {
        **spec.columns,
        **{column: algorithm for column, algorithm in spec.peers.items() if (runs["algorithm"] == algorithm).any()},
    }
    bounds = metric_range(spec.metric)
    # at another N the paper's value is another experiment's: shown beside ours, never flagged
    compared = n_learners == spec.paper_n_learners
    rows = []
    for paper_name, dataset in spec.datasets.items():
        paper_row = paper["rows"][paper_name]
        for j, (column, algorithm) in enumerate(columns.items()):
            in_paper = column in spec.columns
            subset = runs[(runs["dataset"] == dataset) & (runs["algorithm"] == algorithm)]
            note, gamma, held_out = "", float("nan"), float("nan")
            if algorithm is not None:  # runs with other settings (a lever switched, a key changed) are another cell
                matching = subset[subset["settings"] == expected_settings(dataset, algorithm, preset)]
                if len(matching) < len(subset):
                    note = f"{plural(len(subset) - len(matching), 'run')} with other settings left out"
                subset = matching
            if algorithm is None:
                note = "paper only (not an online algorithm)"
            elif subset.empty:
                note = (
                    (note or elsewhere(every, dataset, algorithm, n_learners, spec.protocol, preset))
                    if here.get(dataset, False)
                    else "data set not available offline"
                )
            elif subset["gamma"].notna().any():
                by_gamma = subset.groupby("gamma")[spec.metric].mean()
                gamma = float(by_gamma.idxmax() if spec.higher_is_better else by_gamma.idxmin())
                held_out = held_out_gamma_score(subset, spec.metric, spec.higher_is_better)
                note = f"gamma={gamma:g} (best of {len(by_gamma)})" + (f"; {note}" if note else "")
                subset = subset[subset["gamma"] == gamma]
            values = subset[spec.metric].to_numpy(dtype=float) if algorithm else np.array([])
            n = len(values)
            mean = float(values.mean()) if n else float("nan")
            paper_value = paper_row[spec.paper_value][j] if in_paper else None
            low, high = confidence_interval(values, bounds=bounds)
            diff = mean - paper_value if n and paper_value is not None else float("nan")
            if n and paper_value is not None and not compared:
                note = "; ".join(
                    filter(None, [note, f"N = {n_learners} (paper {spec.paper_n_learners}): not compared"])
                )
            rows.append(
                {
                    "dataset": paper_name,
                    "column": column,
                    "ours": mean,
                    "std": float(values.std(ddof=1)) if n > 1 else 0.0,
                    "n_seeds": n,
                    "ci_low": low,
                    "ci_high": high,
                    "paper": float("nan") if paper_value is None else float(paper_value),
                    "diff": diff,
                    "clipped": n > 0 and clipped(values, bounds),
                    "flagged": bool(
                        compared
                        and paper_value is not None
                        and low == low  # no interval (n < 3): nothing to be outside of
                        and abs(diff) > spec.tolerance
                        and not low <= paper_value <= high
                    ),
                    "gamma": gamma,
                    "held_out": held_out,
                    "runtime_s": float(subset["runtime_s"].mean()) if n else float("nan"),
                    "cpu_s": float(subset["cpu_s"].mean()) if n and "cpu_s" in subset else float("nan"),
                    "peak_mib": float(subset["peak_rss_bytes"].max()) / 2**20 if n else float("nan"),
                    "paper_runtime_s": paper_row["runtime_s"][j] if in_paper else None,
                    "note": note,
                    "n_learners": n_learners,
                }
            )
    return pd.DataFrame(rows)


def caption(name: str, table: pd.DataFrame, preset: str = "paper") -> str:
    """What a rebuilt table's cells are: the table, preset, N (and the paper's), protocol and
    the seeds per cell, in one line (the title of every rendering).
    """
    spec = TABLES[name]
    n = int(table["n_learners"].iloc[0]) if len(table) else spec.paper_n_learners
    seeds = sorted({int(v) for v in table["n_seeds"] if v > 0})
    seeds_text = (
        "no runs"
        if not seeds
        else f"{seeds[0]} seeds per cell"
        if len(seeds) == 1
        else f"{seeds[0]}-{seeds[-1]} seeds per cell"
    )
    n_text = (
        f"N = {n} weak learners"
        if n == spec.paper_n_learners
        else f"N = {n} weak learners (the paper's: {spec.paper_n_learners}; cells not compared)"
    )
    return f"{name}, preset {preset}: {n_text}, {spec.protocol} protocol, {seeds_text}"


def elsewhere(runs: pd.DataFrame, dataset: str, algorithm: str, n_learners: int, protocol: str, preset: str) -> str:
    """Why a paper cell is empty: "not run", or where the store has runs of its data set and
    algorithm instead (another N, protocol, preset or weak learner) and how to see them.
    """
    other = runs[(runs["dataset"] == dataset) & (runs["algorithm"] == algorithm)]
    if other.empty:
        return "not run"
    found = []
    ns = sorted(int(n) for n in other["n_learners"].unique() if n != n_learners)
    if ns:
        found.append(f"N = {', '.join(map(str, ns))} (report --n-learners {ns[0]})")
    for column, wanted in (("protocol", protocol), ("preset", preset)):
        values = sorted(set(other[column]) - {wanted})
        if values:
            found.append(f"{column} {', '.join(values)}")
    if not other["learner"].str.startswith("hoeffding_tree").all():
        found.append("other weak learners")
    return "not run; the store has runs with " + "; ".join(found) if found else "not run"


def cell_interval(row, digits: int) -> str:
    """A cell's interval as text (``[low, high]``, ``*`` when clipped, or ``n < 3``)."""
    text = interval_text(row["ci_low"], row["ci_high"], int(row["n_seeds"]), digits)
    return text + ("*" if row.get("clipped", False) and text.startswith("[") else "")


def _fmt(value: float, digits: int) -> str:
    return "—" if value != value else f"{value:.{digits}f}"


def cell_text(row, digits: int, footnote: str = "") -> str:
    """A rebuilt cell as ``ours [interval] / paper`` (``⚑`` after a flagged one; ``— [a] / paper``
    for ours without runs, ``footnote`` the mark of its reason), the rest of the cell in
    :func:`details`.
    """
    paper = _fmt(row["paper"], digits)
    if row["n_seeds"] == 0:
        return f"—{f' [{footnote}]' if footnote else ''} / {paper}"
    interval = cell_interval(row, digits)
    return f"{_fmt(row['ours'], digits)}{f' {interval}' if interval else ''} / {paper}{' ⚑' if row['flagged'] else ''}"


#: :func:`details`' columns: title -> (the rebuilt table's column, decimals; None: text)
DETAIL_COLUMNS = {
    "seeds": ("n_seeds", 0),
    "ours − paper": ("diff", None),
    "held-out gamma score": ("held_out", None),
    "wall s": ("runtime_s", 1),
    "CPU s": ("cpu_s", 1),
    "peak MiB": ("peak_mib", 0),
    "paper's s": ("paper_runtime_s", 0),
}


def footnotes(table: pd.DataFrame) -> dict[str, str]:
    """Why cells are empty, each reason once: reason -> its mark (``a``, ``b``, ...), in order."""
    reasons = dict.fromkeys(table.loc[table["n_seeds"] == 0, "note"].fillna("").replace("", "not run"))
    return {reason: chr(ord("a") + i) if i < 26 else str(i + 1) for i, reason in enumerate(reasons)}


def details(name: str, table: pd.DataFrame) -> pd.DataFrame:
    """What a cell holds besides ``ours [interval] / paper``, one row per cell with runs: data set,
    column, seeds, ours − paper, the held-out score of a gamma-tuned column, mean wall and CPU
    seconds, largest peak memory (MiB), the paper's runtime (seconds, the authors' machine) and
    the note; numbers as numbers (NaN: none; a column empty in every cell left out).
    """
    spec = TABLES[name]
    digits = 3 if spec.higher_is_better else 4
    shown = table[table["n_seeds"] > 0]
    frame = pd.DataFrame({"data set": shown["dataset"], "column": shown["column"]})
    for title, (column, decimals) in DETAIL_COLUMNS.items():
        values = pd.to_numeric(shown[column], errors="coerce").where(shown["n_seeds"] > 0)
        frame[title] = values.round(digits if decimals is None else decimals)
    frame["note"] = shown["note"].fillna("")
    # a column no cell has (no gamma-tuned column, records from before cpu_s) says nothing
    return frame.dropna(axis=1, how="all").reset_index(drop=True)


def _markdown_number(value, decimals: int, signed: bool = False) -> str:
    return "" if value != value else f"{value:{'+' if signed else ''}.{decimals}f}"


def to_markdown(name: str, table: pd.DataFrame, preset: str = "paper") -> str:
    """The rebuilt table as Markdown: one row per data set, ``ours [95% CI] / paper`` per cell
    (:func:`cell_text`), then the cells' seeds, differences, costs and notes in a table of their
    own (:func:`details`), numbers right-aligned.
    """
    spec = TABLES[name]
    digits = 3 if spec.higher_is_better else 4
    columns = table_columns(table)
    lines = [
        f"### {caption(name, table, preset)}",
        "",
        f"Preset `{preset}`"
        + (" (the papers' text: every config's defaults)" if preset == "paper" else f" (configs/preset/{preset}.yaml)"),
        "",
        "| data set | " + " | ".join(columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    notes = footnotes(table)

    def cell(row) -> str:
        row = row._asdict()
        return cell_text(row, digits, notes.get(row["note"] or "not run", "") if row["n_seeds"] == 0 else "")

    for dataset, cells in cell_rows(table, cell):
        lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Cells: ours, the mean over seeds of `{spec.metric}` [its 95% interval over seeds, Student's t clipped "
        f"to the metric's range (*: clipped); \"n < 3\": too few seeds for one] / the paper's value; ⚑: the "
        f"paper's value is outside the interval and more than {spec.tolerance:g} from our mean (docs/deviations.md "
        "explains each); — [a]: no run, for the reason marked a below.",
        "",
        *(f"- [{mark}] {reason}" for reason, mark in notes.items()),
        "",
    ]
    extra = details(name, table)
    if not extra.empty:
        titles = list(extra.columns)
        numeric = [t for t in titles if t in DETAIL_COLUMNS]
        lines += [
            "| " + " | ".join(titles) + " |",
            "|---|---|" + "---:|" * len(numeric) + "---|",
        ]
        for row in extra.itertuples(index=False):
            values = dict(zip(titles, row))
            numbers = [
                _markdown_number(
                    values[t], digits if DETAIL_COLUMNS[t][1] is None else DETAIL_COLUMNS[t][1], t == "ours − paper"
                )
                for t in numeric
            ]
            lines.append(
                f"| {values['data set']} | {values['column']} | " + " | ".join(numbers) + f" | {values['note']} |"
            )
        lines += [
            "",
            "Per cell: its seeds; ours − the paper's value; for a gamma-tuned column the held-out score (gamma "
            "chosen on half the seeds, scored on the other half; the note names the gamma of best mean); our "
            "mean wall seconds and CPU seconds of every thread (where the runs measured them), the largest peak "
            "memory (RSS of the run's pass, MiB); the paper's runtime in seconds (the authors' machine).",
        ]
    return "\n".join(lines) + "\n"


def runtime_text(row) -> str:
    """A cell's mean wall seconds, with its CPU seconds beside when the runs measured them (records
    from before cpu_s have none).
    """
    wall = f"{row['runtime_s']:.1f} s"
    return wall if pd.isna(row.get("cpu_s", float("nan"))) else f"{wall} wall, {row['cpu_s']:.1f} s CPU"


def to_latex(name: str, table: pd.DataFrame, preset: str = "paper") -> str:
    """The rebuilt table as a LaTeX ``tabular``: ours ± std (paper) per cell, its caption
    (:func:`caption`) in a comment above.
    """
    spec = TABLES[name]
    digits = 3 if spec.higher_is_better else 4
    columns = table_columns(table)
    lines = [
        f"% {caption(name, table, preset)}",
        r"\begin{tabular}{l" + "c" * len(columns) + "}",
        r"\hline",
        "data set & " + " & ".join(c.replace("_", r"\_") for c in columns) + r" \\",
        r"\hline",
    ]
    for dataset, group in table.groupby("dataset", sort=False):
        cells = []
        for column in columns:
            row = group[group["column"] == column].iloc[0]
            paper = _fmt(row["paper"], digits)
            ours = "--" if row["n_seeds"] == 0 else f"{row['ours']:.{digits}f} $\\pm$ {row['std']:.{digits}f}"
            cells.append(f"{ours} ({paper})")
        lines.append(dataset.replace("_", r"\_") + " & " + " & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
