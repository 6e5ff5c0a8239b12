"""The ``boostbench`` command line: thin wrappers that parse, call and print.

A user mistake (bad override, unknown name, bad data file) prints one line on stderr and
exits with code 2, leaving no result file.
"""

from __future__ import annotations

import errno
import time

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from boostbench.errors import BoostbenchError, environment_problem
from boostbench.runner.checks import ALLOW_CODE_FLAG
from boostbench.system.paths import CONFIG_DIR


def _untyped_flags(params: list) -> list:
    """``params`` with no type shown beside a flag in the help (typer writes ``<bool>`` there)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class _Group(typer.core.TyperGroup):
    """The app: its flags' help without a type (:func:`_untyped_flags`)."""

    def get_params(self, ctx):
        return _untyped_flags(super().get_params(ctx))


class _Command(typer.core.TyperCommand):
    """A command: its flags' help without a type (:func:`_untyped_flags`); run under the machine's
    memory (:func:`boostbench.system.resources.limit_memory`), and a config file that is no
    plain YAML or a disk that is full or read-only told in one line
    (:func:`boostbench.errors.environment_problem`).
    """

    def get_params(self, ctx):
        return _untyped_flags(super().get_params(ctx))

    def invoke(self, ctx):
        from boostbench.system.resources import limit_memory

        limit_memory()
        try:
            return super().invoke(ctx)
        except Exception as exc:
            problem = environment_problem(exc)
            if problem is None:
                raise
            _fail(problem)


class _RunCommand(_Command):
    """``run``: its help's epilog (the groups' options) read when the help is shown, not when the
    CLI starts (listing them reads the configs folder and the plugins' names).
    """

    def format_help(self, ctx, formatter):
        self.epilog = self.epilog or _groups_epilog()
        return super().format_help(ctx, formatter)


app = typer.Typer(cls=_Group, no_args_is_help=True, help="Reproducible experiments for online boosting.")
console = Console()
err_console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        import boostbench

        console.print(f"boostbench {boostbench.__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
):
    """Reproducible experiments for online boosting."""


def _groups_epilog() -> str:
    """``run --help``'s list of config groups and their options (read from the config directory)."""
    from boostbench.runner.config import GROUPS, group_options

    lines = [f"[bold]Config groups[/] (pick one: group=option; files under {escape(str(CONFIG_DIR))}):"]
    for group in GROUPS:
        prefix = "+" if group in ("experiment", "preset") else ""
        lines.append(f"{prefix}{group}: {', '.join(group_options(group))}")
    lines.append(
        "Keys: n_learners, seed, gamma, n_rounds, results_dir, data_dir, progress, n_threads, and any "
        "key of a group (algorithm.vote=soft, protocol.final_fraction=0.3). "
        "Hydra's flags: --cfg job|hydra|all (print the config, run nothing), --info, -m (a sweep)."
    )
    return "\n\n".join(lines)


def _complete_override(incomplete: str) -> list[str]:
    """Shell completion of an override: a group's options after ``group=`` (``+experiment=``
    too), a group's keys after ``group.`` (``protocol.window=``), else the groups.
    """
    from boostbench.runner.config import GROUPS, group_options

    key, eq, value = incomplete.partition("=")
    group = key.lstrip("+")
    if eq and group in GROUPS:
        return [f"{key}={option}" for option in group_options(group) if option.startswith(value)]
    section, dot, _ = group.partition(".")
    if not eq and dot and section in GROUPS:
        return [f"{section}.{name}=" for name in _group_keys(section) if f"{section}.{name}".startswith(group)]
    return [
        f"{'+' if g in ('experiment', 'preset') else ''}{g}="
        for g in GROUPS
        if g.startswith(group) or f"+{g}".startswith(incomplete)
    ]


def _group_keys(group: str) -> list[str]:
    """The keys the options of a config group set (``protocol``: final_fraction, window, ...;
    ``algorithm``: the plugins' hyper-parameters too).
    """
    from omegaconf import OmegaConf

    keys = set()
    for path in (CONFIG_DIR / group).glob("*.yaml"):
        node = OmegaConf.load(path)
        keys |= {str(k) for k in node if not str(k).startswith(("_", "defaults", "hydra"))}
    if group == "algorithm":
        from boostbench.algorithms import ALGORITHMS

        for spec in ALGORITHMS.plugins().values():
            keys |= set(spec.params)
    return sorted(keys - {"name"})


def _complete_report(incomplete: str) -> list[str]:
    """Shell completion of ``report``'s argument: the reports and ``all``."""
    from boostbench.reporting.report import REPORTS

    return [name for name in [*REPORTS, "all"] if name.startswith(incomplete)]


ALLOW_CODE_HELP = (
    "accept overrides that run code: _target_, hydra.callbacks, a job's environment, the "
    "config search path, a SLURM setup (refused without it)"
)
OUT_OF_MEMORY = "out of memory: lower n_learners or the data set's size, or run on a larger machine"


def _warn_plugins() -> None:
    """One line on stderr for each plugin algorithm left out (it failed to import, took a name or
    broke the interface; :attr:`boostbench.algorithms.Registry.problems`).
    """
    from boostbench.algorithms import ALGORITHMS

    for problem in ALGORITHMS.problems_so_far:  # a plugin is imported when it is used, not here
        err_console.print(f"[bold yellow]warning:[/] {escape(problem)}", highlight=False, soft_wrap=True)


def _finite_positive(flag: str, value: float) -> float:
    """``value`` of ``flag`` if it is a finite number above 0 (``inf`` would call every pair
    equivalent, ``nan`` no pair); else one line and exit 2.
    """
    import math

    if not (math.isfinite(value) and value > 0):
        _fail(f"{flag} {value}: give a finite number above 0")
    return value


def _fail(message: str, code: int = 2) -> None:
    # the message is text, not markup: "[low, high]" must print as it is
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _say_protocol(cfg, overrides: list[str]) -> None:
    """Say which protocol a batch algorithm runs under, when the command line chose none."""
    from boostbench.runner.notes import batch_protocol_note

    note = batch_protocol_note(cfg, overrides)
    if note is not None:
        err_console.print(escape(note), highlight=False, soft_wrap=True)


class _RateColumn(ProgressColumn):
    """Examples per second."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} ex/s" if speed else "- ex/s", style="cyan")


@app.command(cls=_RunCommand, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(
    overrides: list[str] | None = typer.Argument(
        None, help="Hydra overrides, e.g. dataset=car seed=3", autocompletion=_complete_override
    ),
    allow_code_overrides: bool = typer.Option(False, ALLOW_CODE_FLAG, help=ALLOW_CODE_HELP),
):
    """Run one experiment and write its record under results/runs/."""
    from boostbench.runner.checks import check_overrides
    from boostbench.runner.config import compose_config, hydra_flags, validate
    from boostbench.runner.store import check_writable

    try:
        flags, overrides = hydra_flags(overrides or [])
        if flags.multirun:
            return sweep(overrides, flags.jobs, allow_code_overrides, max_jobs=None)
        _warn_plugins()
        check_overrides(overrides, allow_code_overrides)
        if flags.info:
            return _print_info(overrides)
        cfg = compose_config(overrides)
        if flags.cfg:
            return _print_config(cfg, flags.cfg, overrides)
        run_config = validate(cfg)  # before the heavy imports: a mistake is reported at once
        _say_protocol(cfg, overrides)
        check_writable(cfg.results_dir)  # before the work, not after it
        from boostbench.runner.experiment import run_experiment, save

        show = bool(cfg.progress) and console.is_terminal
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TextColumn("{task.fields[metric]} {task.fields[value]:.3f}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            disable=not show,
        )
        task = None
        stage = progress.add_task("starting", total=None, metric="", value=0.0)  # a pulsing bar

        def on_stage(text):
            progress.update(stage, description=text)

        def on_start(dataset, n):
            nonlocal task
            progress.remove_task(stage)
            metric = "rank loss" if cfg.dataset.get("task") == "multilabel" else "acc"
            task = progress.add_task(f"{cfg.algorithm.name} on {dataset.name}", total=n, metric=metric, value=0.0)

        def on_progress(done, value):
            progress.update(task, completed=done, value=value)

        with progress:
            record = run_experiment(run_config, on_start=on_start, on_progress=on_progress, on_stage=on_stage)
        path = save(record, str(cfg.results_dir))
    except BoostbenchError as exc:
        _fail(str(exc), code=exc.exit_code)
    except (MemoryError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno != errno.ENOMEM:
            raise
        _fail(OUT_OF_MEMORY)  # numpy raises MemoryError, an mmap ENOMEM
    except KeyboardInterrupt:
        _fail("interrupted; no result written", code=130)
    from boostbench.reporting.console import print_run

    print_run(console, record, path, run_config.spec)


def eta_minutes(elapsed: float, ran: int, ended: int, total: int) -> float:
    """Minutes left in a sweep of ``total`` points ``elapsed`` seconds after its start, of which
    ``ended`` have ended and ``ran`` of those ran: the points still to come all run (the sweeper
    reports the done, n/a and repeated ones before it launches any), at the pace of those that ran.
    """
    return elapsed / max(ran, 1) * (total - ended) / 60


@app.command(cls=_Command, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def sweep(
    overrides: list[str] | None = typer.Argument(
        None,
        help="Hydra sweep overrides, e.g. dataset=balance,car seed='range(0,5)'",
        autocompletion=_complete_override,
    ),
    n_jobs: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        help="parallel jobs: joblib workers (default: all cores), a SLURM array's tasks at once, "
        "a local Ray cluster's CPUs",
    ),
    allow_code_overrides: bool = typer.Option(False, ALLOW_CODE_FLAG, help=ALLOW_CODE_HELP),
    max_jobs: int | None = typer.Option(
        None, "--max-jobs", min=1, help="refuse a larger grid (default: hydra.sweeper.max_jobs, 100,000)"
    ),
):
    """Run a grid of experiments (Hydra multirun); jobs whose record exists are skipped."""
    from boostbench.runner.sweep import failure_line, run_sweep, summarize

    _warn_plugins()
    began = time.perf_counter()
    total = None  # the sweeper counts the grid (on_size)
    live = console.is_terminal
    progress = Progress(
        TextColumn("[bold]sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=not live,
    )
    task = progress.add_task("sweep", total=total)
    ended = {"n": 0, "ran": 0}

    def on_size(size: int) -> None:
        nonlocal total
        total = size
        progress.update(task, total=size)

    def on_outcome(outcome: dict) -> None:
        ended["n"] += 1
        progress.update(task, advance=1)
        if outcome["status"] not in ("done", "error"):
            return
        ended["ran"] += 1
        counter = f"[{ended['n']}/{total if total else '?'}]"
        line = f"{counter} {outcome['status']:<5} {outcome['label']} ({outcome['seconds']:.1f} s) {outcome['message']}"
        if not live and total:  # a log: the ETA on each line
            line += f" ETA {eta_minutes(time.perf_counter() - began, ended['ran'], ended['n'], total):.0f} min"
        progress.console.print(escape(line.rstrip()), highlight=False, soft_wrap=True)

    try:
        with progress:
            outcomes = run_sweep(
                overrides or [],
                n_jobs,
                on_outcome=on_outcome,
                allow_code=allow_code_overrides,
                max_jobs=max_jobs,
                on_size=on_size,
            )
    except BoostbenchError as exc:
        _fail(str(exc))
    except (MemoryError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno != errno.ENOMEM:
            raise
        _fail(OUT_OF_MEMORY)  # numpy raises MemoryError, an mmap ENOMEM
    except KeyboardInterrupt:
        _fail("interrupted; finished runs are kept, run the same sweep again to resume", code=130)
    table = Table(title="sweep")
    for column in ("status", "run", "seconds", "note"):
        table.add_column(column)
    for outcome in outcomes:
        if outcome.status in ("done", "error", "busy"):
            table.add_row(outcome.status, escape(outcome.label), f"{outcome.seconds:.1f}", escape(outcome.message))
    if table.row_count:
        console.print(table)
    counts = summarize(outcomes)
    console.print(
        ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) + f" in {time.perf_counter() - began:.0f} s"
    )
    failed = failure_line(outcomes, overrides or [])
    if failed:
        _fail(failed)
    busy = [outcome.label for outcome in outcomes if outcome.status == "busy"]
    if busy:  # another sweep runs them: this one is not complete
        _fail(
            f"{len(busy)} job(s) still running in another sweep ({', '.join(busy[:3])}"
            f"{', ...' if len(busy) > 3 else ''}): run the same sweep again when it ends",
            code=1,
        )


def _print_config(cfg, which: str, overrides: list[str]) -> None:
    """``--cfg job|hydra|all``: the composed config as YAML (the job's: after the preset), as Hydra
    prints it; nothing runs.
    """
    from omegaconf import OmegaConf

    from boostbench.runner.config import hydra_config

    if which in ("job", "all"):
        console.print(OmegaConf.to_yaml(cfg), markup=False, highlight=False, end="", soft_wrap=True)
    if which in ("hydra", "all"):
        console.print(
            OmegaConf.to_yaml({"hydra": hydra_config(overrides)}), markup=False, highlight=False, end="", soft_wrap=True
        )


def _print_info(overrides: list[str]) -> None:
    """``--info``: where configs come from, the groups and their options, the defaults chosen, and
    the installed plugins' algorithms (and those left out, with why).
    """
    from boostbench.algorithms import ALGORITHMS, shipped_config
    from boostbench.runner.config import GROUPS, compose_config, group_options

    cfg = compose_config(overrides)
    table = Table(title="boostbench configuration")
    for column in ("group", "chosen", "options"):
        table.add_column(column)
    for group in GROUPS:
        chosen = cfg.get(group, {})
        name = chosen if isinstance(chosen, str) else chosen.get("name", "-") if chosen else "-"
        table.add_row(group, str(name), ", ".join(group_options(group)))
    console.print(f"config search path: file://{CONFIG_DIR} (BOOSTBENCH_CONFIG_DIR overrides it)", highlight=False)
    console.print(table)
    plugins = ALGORITHMS.plugins()
    if plugins or ALGORITHMS.problems:
        shown = Table(title="plugin algorithms (entry points of group boostbench.algorithms)")
        for column in ("algorithm", "package", "class", "config"):
            shown.add_column(column, overflow="fold")
        for name, spec in plugins.items():
            config = shipped_config(name, spec)
            shown.add_row(
                name,
                f"{spec.plugin.distribution} {spec.plugin.version}",
                spec.plugin.value,
                escape(str(config)) if config else "made from the class",
            )
        console.print(shown)
        for problem in ALGORITHMS.problems:
            console.print(f"[red]left out:[/] {escape(problem)}", highlight=False, soft_wrap=True)


@app.command("new-algorithm", cls=_Command)
def new_algorithm(
    name: str = typer.Argument(..., help="the algorithm's name: lower-case letters, digits and _ (my_boost)"),
    directory: str = typer.Option(".", "--dir", help="where the project's folder (NAME) goes"),
    task: str = typer.Option("multiclass", help="multiclass (a booster) or multilabel (a ranker of the labels)"),
):
    """Write an installable package that adds the online booster NAME to the bench (a booster to
    fill in, its entry point, a test running boostbench.testing.check_booster, a README).
    """
    from boostbench.scaffold import new_algorithm as write

    try:
        root = write(name, directory, task)
    except BoostbenchError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write the project under {directory}: {exc.strerror or exc}")
    import sys

    python = sys.executable  # boostbench's own environment: a bare pip may install elsewhere
    for line in (
        f"wrote {root}: edit {root / 'src' / f'boostbench_{name}' / 'booster.py'}",
        f"  cd {root} && {python} -m pip install --no-deps -e . && {python} -m pytest",
        f"  {python} -m boostbench run algorithm={name} dataset={'emotions' if task == 'multilabel' else 'car'}",
    ):
        console.print(line, highlight=False, soft_wrap=True)


@app.command(cls=_Command)
def datasets(
    data_dir: str | None = typer.Option(None, help="extra data directory to search"),
    fetch: list[str] | None = typer.Option(
        None,
        "--fetch",
        help="download these data sets into openml's cache now (for offline runs later); repeat for several",
    ),
):
    """List the data-set registry and where each data set is found here (or --fetch one from OpenML)."""
    from boostbench.data import available_datasets
    from boostbench.data.loaders import openml_cache_dir, openml_cached
    from boostbench.data.registry import GENERATED
    from boostbench.system.paths import VENDORED_DATA_DIR

    infos = {info.name: info for info in available_datasets(data_dir)}
    if fetch:
        return _fetch(fetch, infos)
    table = Table(title="boostbench data sets")
    table.add_column("name", no_wrap=True)  # a name is typed: never broken
    for column in ("task", "OpenML id", "where", "description"):
        table.add_column(column, overflow="fold")
    for info in infos.values():
        if info.location == GENERATED:
            status = "[green]generated[/]"
        elif info.location is not None and str(info.file).startswith("river:"):
            status = "[green]river (bundled)[/]"
        elif info.location is not None:
            inside = info.location.is_relative_to(VENDORED_DATA_DIR)
            status = "[green]vendored[/]" if inside else f"[green]{escape(str(info.location))}[/]"
        elif info.file in (None, "???") and not info.openml_id:
            status = "[dim]your file: dataset.file=PATH[/]"
        elif info.openml_id and openml_cached(info.openml_id):
            status = "[green]openml cache[/]"
        elif info.openml_id:
            status = f"[yellow]OpenML: boostbench datasets --fetch {info.name}[/]"
        else:
            status = "[yellow]not here: data_dir=... or $BOOSTBENCH_DATA_DIR[/]"
        table.add_row(info.name, info.task, str(info.openml_id or "-"), status, info.description)
    from boostbench.reporting.console import print_wide

    print_wide(console, table)
    console.print(f"vendored: {VENDORED_DATA_DIR}; openml cache: {openml_cache_dir()}", highlight=False, soft_wrap=True)


def _fetch(names: list[str], infos: dict) -> None:
    """``datasets --fetch``: each data set into openml's cache (or where it already is)."""
    from boostbench.data.loaders import fetch_openml_table
    from boostbench.suggest import did_you_mean

    for name in names:
        info = infos.get(name)
        if info is None:
            _fail(f"unknown data set {name!r}{did_you_mean(name, infos)} (available: {', '.join(infos)})")
        if info.location is not None:
            console.print(f"{name}: already here ({info.location})", highlight=False)
            continue
        if not info.openml_id:
            _fail(f"data set {name!r} has no OpenML id: put its file under a data directory (data_dir=...)")
        with console.status(f"fetching OpenML data set {info.openml_id} ({name})"):
            try:
                raw = fetch_openml_table(int(info.openml_id))
            except BoostbenchError as exc:
                _fail(str(exc))
        console.print(
            f"{name}: {len(raw.frame):,} rows x {raw.frame.shape[1]} columns in openml's cache "
            f"(target {raw.default_target!r})",
            highlight=False,
        )


@app.command(cls=_Command)
def report(
    table: str = typer.Argument(
        "all",
        help="summary (every run of the store), leaderboard, jung2017_table1, "
        "jung_tewari2018_table3, combessie_heart, mukherjee_schapire, sun_tables, "
        "or all (the default)",
        autocompletion=_complete_report,
    ),
    results_dir: str = typer.Option("results", help="the store to read (<dir>/runs/*.json)"),
    out_dir: str | None = typer.Option(None, help="where tables and figures go (default: the results dir)"),
    n_learners: int = typer.Option(100, help="paper tables: only runs with this many weak learners"),
    backend: str | None = typer.Option(None, help="only runs with this learner backend (river, compiled)"),
    metric: str | None = typer.Option(
        None,
        help="summary: the metric shown, any number of the registry of measures (default: each "
        "protocol's headline; e.g. cumulative_accuracy, final_kappa, fading_accuracy, runtime_s)",
    ),
    rope: float = typer.Option(
        0.01,
        callback=lambda value: _finite_positive("--rope", value),
        help="leaderboard: the Bayesian signed-rank test's region of practical equivalence, "
        "+/- this accuracy difference (0.01: one accuracy point)",
    ),
):
    """Report a result store: every run's summary and the paper tables beside the papers' numbers.

    The summary is a table, curves and summary.html; each paper table comes with its figures.
    """
    from boostbench.reporting.console import report as write_reports

    def skipped(exc: BoostbenchError) -> None:
        err_console.print(f"[yellow]skipped:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)

    try:
        write_reports(table, results_dir, out_dir, n_learners, backend, metric, rope, console, skipped)
    except BoostbenchError as exc:
        _fail(str(exc))


def main() -> None:  # pragma: no cover - console entry for `python -m boostbench`
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
