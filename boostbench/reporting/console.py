"""The reports on screen: what ``boostbench run`` prints of a record and what ``boostbench report``
prints of a store, and the report command itself (:func:`report`), which reads the store once.

The command line (:mod:`boostbench.cli`) parses and calls; this module chooses, writes and prints.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from boostbench import measures
from boostbench.errors import ConfigError, DataError


def metric_problem(metric: str, runs=None) -> str | None:
    """Why ``report summary --metric metric`` cannot show ``metric`` (None: it can): it is not a
    number of the registry of measures (:mod:`boostbench.measures`; a per-fold list is shown as
    its mean) nor a numeric column of the store's ``runs`` (a plugin's measure), or, with runs,
    no run holds it.
    """
    from boostbench.suggest import did_you_mean

    found = measures.lookup(metric)
    if found is not None and found.kind != "scalar":
        mean = metric.removeprefix(measures.FOLD_PREFIX)
        return f"metric {metric!r} is one value per fold: its mean is {mean!r} (its interval over folds is shown)"
    if runs is None:
        return None
    columns = [c for c in runs.columns if c not in measures.MEASURES and runs[c].dtype.kind in "fiu"]
    columns = [c for c in columns if runs[c].notna().any() and not measures.lookup(c)]
    if found is None and metric not in columns:
        known = [*measures.names("scalar"), *columns]
        return f"unknown metric {metric!r}{did_you_mean(metric, known)} (available: {', '.join(known)})"
    if not runs.empty and not runs[metric].notna().any():
        return (
            f"no run of the store has metric {metric!r} ({found.meaning}; written by "
            f"{', '.join(found.protocols)} runs of {', '.join(found.tasks)} data)"
        )
    return None


def report(
    table: str,
    results_dir: str,
    out_dir: str | None,
    n_learners: int,
    backend: str | None,
    metric: str | None,
    rope: float,
    console: Console,
    on_skip: Callable[[DataError], None],
) -> None:
    """``boostbench report``: report ``table`` (a name of :data:`boostbench.reporting.report.REPORTS`
    or ``all``) of the store ``results_dir`` under ``out_dir`` (default: the store), printing each
    on ``console``. The store is read once (:func:`boostbench.runner.store.remembered`): a record
    is parsed and checked once whatever reads it; one that cannot be read is passed to ``on_skip``
    and left out.

    Raises:
        ConfigError: an unknown report or metric, an output directory that cannot be written, a
            store without runs (one line each).
    """
    from boostbench.reporting.records import load_runs
    from boostbench.reporting.report import REPORTS, export_tidy
    from boostbench.runner.checks import path_problem
    from boostbench.runner.store import remembered
    from boostbench.suggest import did_you_mean
    from boostbench.system.files import writable_dir_problem

    names = list(REPORTS) if table == "all" else [table]
    if any(name not in REPORTS for name in names):
        hint = did_you_mean(table, [*REPORTS, "all"])
        raise ConfigError(f"unknown report {table!r}{hint} (available: {', '.join(REPORTS)}, all)")
    problem = path_problem("--out-dir", out_dir) or writable_dir_problem(out_dir or results_dir)
    if problem is not None:  # before reading the store: nothing is written halfway
        raise ConfigError(
            f"cannot write the report under {out_dir or results_dir}: {problem} (give a directory: --out-dir DIR)"
        )
    problem = metric_problem(metric) if metric is not None else None
    if problem is not None:
        raise ConfigError(problem)
    with remembered():
        runs = load_runs(results_dir, on_error=on_skip)
        if backend is not None:
            runs = runs[runs["backend"] == backend]
        problem = metric_problem(metric, runs) if metric is not None else None
        if problem is not None:  # an unknown metric first: said even of an empty store
            raise ConfigError(problem)
        if runs.empty:
            with_backend = f" with backend {backend}" if backend else ""
            raise ConfigError(f"no run records under {Path(results_dir) / 'runs'}{with_backend}")
        target = Path(out_dir or results_dir)
        export_tidy(results_dir, runs, target)  # first: the page links these exports
        for name in names:
            _report_one(name, table, results_dir, target, runs, n_learners, metric, rope, console)


def _report_one(name, table, results_dir, target, runs, n_learners, metric, rope, console: Console) -> None:
    """Write report ``name`` of ``runs`` under ``target`` and print it."""
    from boostbench.reporting import leaderboard, leaderboard_text, summary, tables
    from boostbench.reporting.report import REPORTS

    report = REPORTS[name]
    if name == "summary":
        frame, written = summary.write(results_dir, target, runs, metric)
        print_runs(console, frame, str(results_dir))
        console.print(f"wrote {len(written)} files under {target} ({name}): {target / 'summary.html'}", highlight=False)
        return
    if name == "leaderboard":
        board, written = leaderboard.write(results_dir, target, runs, rope)
        if not board.tables:
            console.print(f"[dim]{name}: no prequential runs of online algorithms in {escape(str(results_dir))}[/]")
            return
        for shown in leaderboard_text.rich_tables(board):
            console.print(shown)
        console.print(f"wrote {len(written)} files under {target} ({name})")
        return
    why = tables.unfilled(name, runs, n_learners) if report.paper_table and table == "all" else None
    if why:
        console.print(f"[dim]{name}: {why} in {escape(str(results_dir))}[/]", highlight=False)
        return
    # a paper table shows each preset apart; the studies are of the defaults
    chosen = runs if report.paper_table else runs[runs["preset"] == "paper"]
    frame, written = report.write(results_dir, target, chosen, n_learners)
    if report.paper_table:
        print_table(console, name, frame)
    elif frame.empty:
        console.print(f"[dim]{name}: no runs for it in {escape(str(results_dir))}[/]")
        return
    else:
        from rich.markdown import Markdown

        for path in written:
            if path.suffix == ".md":  # rich draws its tables as tables
                console.print(Markdown(path.read_text(encoding="utf-8")))
    console.print(f"wrote {len(written)} files under {target} ({name})")


def print_run(console: Console, record: dict, path, spec) -> None:
    """A run's record on screen: its headline measures, its costs and where it was written."""
    m, c = record["metrics"], record["config"]
    table = Table(title=f"{c['algorithm']['name']} on {c['dataset']['name']} (seed {c['seed']})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    split = "test_error" in m
    if split:
        rounds = sorted(set(m["n_rounds_fitted"]))
        rows = [
            (
                "test error",
                f"{m['test_error']:.4f} ± {m['test_error_std']:.4f} ({m['n_folds']} "
                f"{'folds' if m['n_folds'] > 1 else 'split'})",
            ),
            ("train error", f"{m['train_error']:.4f}"),
            ("training examples (all parts)", f"{m['n_examples']:,}"),
        ]
        if c["learner"]["name"] == "tree":
            rows.insert(2, ("rounds kept", ", ".join(map(str, rounds))))
    elif record["dataset"]["task"] == "multilabel":
        rows = [
            ("test rank loss", f"{m['test_rank_loss']:.4f}"),
            ("train rank loss", f"{m['train_rank_loss']:.4f}"),
            ("examples (train + test)", f"{m['n_train']:,} + {m['n_test']:,}"),
        ]
        if "test_hamming_loss" in m:  # the label-set measures (records before them have none)
            rows[1:1] = [
                (
                    "test Hamming loss, subset accuracy",
                    f"{m['test_hamming_loss']:.4f}, {m['test_subset_accuracy']:.4f}",
                ),
                (
                    "test F1: example-based, micro, macro",
                    ", ".join(f"{m[f'test_{name}_f1']:.4f}" for name in ("example", "micro", "macro")),
                ),
            ]
    else:
        rows = [
            ("final accuracy (last {:.0%})".format(c["protocol"]["final_fraction"]), f"{m['final_accuracy']:.4f}"),
            ("cumulative accuracy", f"{m['cumulative_accuracy']:.4f}"),
            ("examples", f"{m['n_examples']:,}"),
        ]
        if "final_kappa" in m:
            kappa = "undefined" if m["final_kappa"] is None else f"{m['final_kappa']:.4f}"
            rows.insert(1, ("final kappa, macro-F1", f"{kappa}, {m['final_macro_f1']:.4f}"))
        if "final_kappa_m" in m:  # records before the stream metrics have none
            shown = ["undefined" if m[key] is None else f"{m[key]:.4f}" for key in ("final_kappa_m", "final_kappa_t")]
            rows.insert(2, ("final kappa-M, kappa-T", ", ".join(shown)))
        if "fading_accuracy" in m:
            kappa = "undefined" if m["fading_kappa"] is None else f"{m['fading_kappa']:.4f}"
            alpha = c["protocol"]["fading"]
            rows.append((f"fading accuracy, kappa (alpha {alpha})", f"{m['fading_accuracy']:.4f}, {kappa}"))
        if "fold_final_accuracy" in m:  # prequential_cv: the copies' mean above, each copy's here
            low, high = m["final_accuracy_ci_low"], m["final_accuracy_ci_high"]
            rows.insert(1, ("final accuracy, 95% interval", f"[{low:.4f}, {high:.4f}] over {m['n_folds']} copies"))
            rows.insert(2, ("final accuracy per copy", " ".join(f"{v:.4f}" for v in m["fold_final_accuracy"])))
    has_n = spec.single_learner or "n_learners" in spec.uses  # a peer with a tree per label has no N
    if (not split or c["learner"]["name"] != "tree") and spec.family == "online" and has_n:
        rows.append(("weak learners", str(spec.pool_size(c["n_learners"]))))
    rows += [
        ("runtime (s)", f"{m['runtime_s']:.2f}" + (f" wall, {m['cpu_s']:.2f} CPU" if "cpu_s" in m else "")),
        ("µs per example", f"{m['us_per_example']:,.0f}"),
        ("peak RSS (MiB)", f"{m['peak_rss_bytes'] / 2**20:,.0f}"),
    ]
    if "ram_hours" in m:
        rows.append(("RAM-hours (GiB h)", f"{m['ram_hours']:.3g}"))
    if "final_accuracy_member_mean" in m:
        rows.insert(1, ("mean tree accuracy (final)", f"{m['final_accuracy_member_mean']:.4f}"))
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
    console.print(f"record: {path}")


def print_runs(console: Console, frame, store: str) -> None:
    """The summary on screen, a table per protocol: a row per group of runs, its mean, interval
    and seeds (the gamma, preset and variant columns only where they vary).
    """
    from boostbench.reporting.intervals import caption, interval_cell
    from boostbench.reporting.records import varying

    for (protocol, metric), group in frame.groupby(["protocol", "metric"], sort=True):
        optional = varying(group)
        shown = Table(title=f"{escape(store)}: {protocol}, {metric} ({len(group)} groups of runs)", box=box.SIMPLE_HEAD)
        for column in ("data set", "algorithm", "learner", "N", *optional):
            shown.add_column(column, no_wrap=True)
        for column in ("mean", "95% interval", "seeds", "runtime (s)"):
            shown.add_column(column, justify="right")
        for row in group.itertuples():
            cells = {
                "gamma": "" if row.gamma != row.gamma else f"{row.gamma:g}",
                "preset": row.preset,
                "variant": str(row.variant),
            }
            shown.add_row(
                row.dataset,
                row.algorithm,
                row.learner,
                str(row.n_learners),
                *(cells[name] for name in optional),
                f"{row.mean:.4f}",
                escape(interval_cell(row)),
                str(row.n_seeds),
                f"{row.runtime_s:.2f}",
            )
        print_wide(console, shown)
    console.print(caption(folds=True), highlight=False)


def print_wide(console: Console, table: Table) -> None:
    """A table on screen; into a file or pipe (80 columns to rich) at its natural width, so
    that no name or interval is cut in a log.
    """
    if console.is_terminal:
        console.print(table)
        return
    from rich.measure import Measurement

    width = Measurement.get(console, console.options.update_width(10_000), table).maximum
    Console(width=max(console.width, width), color_system=None).print(table)


def print_table(console: Console, name, frame) -> None:
    """A paper table on screen: ours with its interval beside the paper's number, per preset."""
    import pandas as pd

    from boostbench.reporting.tables import TABLES, caption, cell_interval, cell_rows, runtime_text, table_columns

    spec = TABLES[name]
    digits = 3 if spec.higher_is_better else 4

    def cell(row) -> str:
        paper = "—" if row.paper != row.paper else f"{row.paper:.{digits}f}"
        if row.n_seeds == 0:
            return f"[dim]- ({paper})\n{row.note}[/]"
        worse = -row.diff if spec.higher_is_better else row.diff
        colour = "white" if row.diff != row.diff or not row.flagged else "red" if worse > 0 else "green"
        interval = escape(cell_interval(row._asdict(), digits))
        return (
            f"[{colour}]{row.ours:.{digits}f}[/] {interval} ({paper}){' ⚑' if row.flagged else ''}\n"
            f"{runtime_text(row._asdict())} ({'—' if pd.isna(row.paper_runtime_s) else row.paper_runtime_s} s)"
            + (f"\n[dim]{row.note}[/]" if row.note else "")
        )

    for preset, table in frame.groupby("preset", sort=False):
        shown = Table(
            title=escape(caption(name, table, preset)),
            caption=f"ours [95% CI over seeds, clipped to the metric's range (*)] (paper; ⚑ outside the "
            f"CI and the tolerance {spec.tolerance:g}), runtime s (paper's)",
        )
        shown.add_column("data set")
        for column in table_columns(table):
            shown.add_column(column, justify="right")
        for dataset, cells in cell_rows(table, cell):
            shown.add_row(dataset, *cells)
        print_wide(console, shown)
