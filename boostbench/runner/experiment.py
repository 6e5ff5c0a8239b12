"""One run: data set -> stream -> pool + booster -> protocol -> result record.

Protocols: prequential (multiclass online), prequential_cv (its k-fold distributed validation),
train_test (MULAN multi-label), and the split protocols kfold / holdout (batch boosters, and
online learners with one pass per training part).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from omegaconf import DictConfig

import boostbench
from boostbench.algorithms import build_batch_booster, build_booster
from boostbench.data import load_dataset, stream_order
from boostbench.data.dataset import Dataset, MultilabelDataset
from boostbench.data.stream import source_rows
from boostbench.errors import BoosterOutputError, NotApplicable
from boostbench.learners.config import HoeffdingTreeConfig, LearnerConfig
from boostbench.learners.registry import make_batch_learner, make_pool
from boostbench.metrics import classification_metrics, fading_curves, fold_summary, windowed_curves
from boostbench.multilabel_metrics import set_measures
from boostbench.multilabel_metrics import windowed_curves as multilabel_windowed_curves
from boostbench.protocols import (
    FoldResult,
    PrequentialResult,
    TrainTestResult,
    fit_batch,
    fit_online,
    holdout_split,
    kfold_splits,
    prequential,
    prequential_cv,
    train_then_test,
)
from boostbench.runner.config import SPLIT_PROTOCOLS, config_hash, too_many_classes, validate
from boostbench.runner.record import SCHEMA_VERSION
from boostbench.runner.sections import ProtocolConfig, RunConfig
from boostbench.runner.store import record_path, write_record
from boostbench.seeding import run_generators
from boostbench.system.fingerprint import code_fingerprint, run_key
from boostbench.system.paths import REPO_ROOT
from boostbench.system.resources import peak_rss_bytes, reset_peak_rss, usable_cores


@functools.cache  # per process, as the code fingerprint: a process runs the code it loaded
def _git_commit() -> str | None:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(seed: int, started: dt.datetime, finished: dt.datetime) -> dict[str, Any]:
    """Versions, commit, host and times of a run."""
    import river

    return {
        "boostbench_version": boostbench.__version__,
        "git_commit": _git_commit(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "river": river.__version__,
        "host": platform.node(),
        "cores": usable_cores(),
        # the machine's load as the run ended (1-minute average): runs beside others share the cores
        "load_avg_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "seed": seed,
        "started_utc": started.isoformat(),
        "finished_utc": finished.isoformat(),
    }


def _prequential_measures(protocol: ProtocolConfig, result: PrequentialResult, k: int) -> tuple[dict, dict]:
    """The measures of one prequential pass's predictions (``k`` classes) and their curves."""
    metrics: dict[str, Any] = {
        "final_accuracy": result.final_accuracy,
        "cumulative_accuracy": result.cumulative_accuracy,
        **classification_metrics(result.truth, result.predicted, k, result.final_start),
    }
    seen, accuracy = result.curve(protocol.curve_points)
    curve = {
        "examples_seen": seen.tolist(),
        "cumulative_accuracy": accuracy.tolist(),
        **windowed_curves(result.truth, result.predicted, k, seen, protocol.window),
    }
    if protocol.fading is not None:
        fading = fading_curves(result.truth, result.predicted, k, seen, protocol.fading)
        curve.update(fading)
        metrics.update({name: values[-1] for name, values in fading.items()})  # the last checkpoint: n
    return metrics, curve


def _cost_metrics(result: PrequentialResult | TrainTestResult, booster) -> dict[str, Any]:
    """A single pass's cost: wall and CPU seconds, RAM-hours, model bytes and examples. The
    booster's cache fill is timed apart (``cache_fill_s``), as the compilation is (``compile_s``):
    both times are the pass's less the fill (the CPU seconds of every thread and child, less the
    fill's own).
    """
    return {
        "runtime_s": result.runtime_s - booster.cache_fill_s,
        "cpu_s": max(0.0, result.cpu_s - booster.cache_fill_cpu_s),
        "ram_hours": result.ram_hours,
        "model_bytes": result.model_bytes,
        "cache_fill_s": booster.cache_fill_s,
        "n_examples": result.n_examples,
    }


def _multiclass_pass(
    protocol: ProtocolConfig, dataset: Dataset, booster, order: np.ndarray, on_progress, track_members: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Prequential pass (Jung et al. 2017): metrics and curve."""
    result = prequential(
        booster,
        dataset.X,
        dataset.y,
        order,
        protocol.final_fraction,
        on_progress,
        track_members=track_members,
        delay=protocol.delay,
    )
    metrics, curve = _prequential_measures(protocol, result, dataset.n_classes)
    metrics.update(_cost_metrics(result, booster))
    metrics["final_window_examples"] = result.n_examples - result.final_start
    if result.member_correct_final is not None:
        member_accuracy = result.member_correct_final / (result.n_examples - result.final_start)
        metrics.update(
            {
                # Table 1's "Best decision tree": the best member in hindsight.
                "final_accuracy": float(member_accuracy.max()),
                "final_accuracy_online_choice": result.final_accuracy,
                "final_accuracy_member_mean": float(member_accuracy.mean()),
                "final_accuracy_member_std": float(member_accuracy.std()),
                "best_member": int(member_accuracy.argmax()),
            }
        )
    return metrics, curve


def _fold_mean(values: list) -> float | None:
    """The mean of the folds' values at one checkpoint, over those defined (None: none is)."""
    defined = [v for v in values if v is not None]
    return float(np.mean(defined)) if defined else None


def _prequential_cv_pass(
    run: RunConfig, dataset: Dataset, k: int, generators, order: np.ndarray, on_progress
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Prequential k-fold distributed validation (Bifet et al., KDD 2015): every measure of the
    prequential pass per copy (``fold_<measure>``), their mean (``<measure>``) and its Student-t
    interval (``<measure>_ci_low``, ``_ci_high``); the curves are the copies' means.
    """
    protocol = run.protocol
    learner_rngs = generators.learners.spawn(protocol.n_folds)
    booster_rngs = generators.booster.spawn(protocol.n_folds)
    count_rngs = generators.stream.spawn(protocol.n_folds)  # the bootstrap's Poisson draws
    folds = prequential_cv(
        lambda fold: _online_booster(run, dataset, k, learner_rngs[fold], booster_rngs[fold])[1],
        dataset.X,
        dataset.y,
        order,
        protocol.n_folds,
        protocol.validation,
        count_rngs,
        protocol.final_fraction,
        on_progress,
    )
    measured = [_prequential_measures(protocol, result, k) for result in folds]
    metrics: dict[str, Any] = {}
    for name in measured[0][0]:
        values = [fold_metrics[name] for fold_metrics, _ in measured]
        mean, low, high = fold_summary(values)
        metrics.update({name: mean, f"{name}_ci_low": low, f"{name}_ci_high": high, f"fold_{name}": values})
    n = len(order)
    metrics.update(
        {
            "n_folds": protocol.n_folds,
            "runtime_s": float(sum(result.runtime_s for result in folds)),
            "cpu_s": float(sum(result.cpu_s for result in folds)),
            "ram_hours": float(sum(result.ram_hours for result in folds)),
            "model_bytes": int(max(result.model_bytes for result in folds)),  # one copy's model, the largest
            "n_examples": n,
            "final_window_examples": n - folds[0].final_start,
        }
    )
    curve = {"examples_seen": measured[0][1]["examples_seen"]}
    for name in measured[0][1]:
        if name != "examples_seen":
            curve[name] = [_fold_mean(list(point)) for point in zip(*(fold_curve[name] for _, fold_curve in measured))]
    return metrics, curve


def _multilabel_pass(
    protocol: ProtocolConfig, dataset: MultilabelDataset, booster, order: np.ndarray, on_progress
) -> tuple[dict[str, Any], dict[str, Any]]:
    """MULAN train -> test pass (Jung & Tewari 2018): metrics and test rank-loss curve, and the
    label-set measures of :mod:`boostbench.multilabel_metrics` over the test part (``test_<name>``)
    and over the sliding window before each test checkpoint (curves ``windowed_<name>``).
    """
    train = order[order < dataset.n_train]  # the seeded order, kept within each part
    test = order[order >= dataset.n_train]
    result = train_then_test(booster, dataset.X, dataset.Y, train, test, on_progress)
    metrics = {
        "test_rank_loss": float(result.test_loss.mean()),
        "train_rank_loss": float(result.train_loss.mean()),
        **_cost_metrics(result, booster),
        "n_train": len(train),
        "n_test": len(test),
    }
    seen, loss = result.curve(protocol.curve_points)
    curve = {"test_examples_seen": seen.tolist(), "test_rank_loss": loss.tolist()}
    if len(test):
        truth, predicted = dataset.Y[test], result.predicted[len(train) :]
        metrics.update({f"test_{name}": value for name, value in set_measures(truth, predicted).items()})
        curve.update(multilabel_windowed_curves(truth, predicted, result.test_loss, seen, protocol.window))
    return metrics, curve


def _online_booster(
    run: RunConfig,
    dataset,
    k: int,
    learners_rng: np.random.Generator,
    booster_rng: np.random.Generator,
    X_train: np.ndarray | None = None,
):
    """``(pool, booster)`` of an online algorithm; a peer (river's or MOA's ensembles) builds its
    own learners: no pool, and it is told the data set's attribute kinds instead.
    """
    spec = run.spec
    n = spec.pool_size(run.n_learners)
    if spec.peer:
        return None, build_booster(
            run.algorithm, None, k, booster_rng, spec, n_learners=n, n_categories=list(dataset.n_categories)
        )
    pool = make_pool(
        run.learner,
        n,
        k,
        dataset.n_categories,
        learners_rng,
        X_train=X_train,
        n_threads=run_threads(run.learner, run.n_threads, dataset.n_features, k),
    )
    return pool, build_booster(run.algorithm, pool, k, booster_rng, spec)


def _fit_one_split(
    run: RunConfig,
    dataset: Dataset,
    train: np.ndarray,
    test: np.ndarray,
    learners_rng: np.random.Generator,
    booster_rng: np.random.Generator,
    stream_rng: np.random.Generator,
) -> FoldResult:
    k = dataset.n_classes
    if run.spec.family == "batch":
        learner = make_batch_learner(run.learner, dataset.X[train], np.asarray(dataset.n_categories), learners_rng)
        booster = build_batch_booster(run.algorithm, learner, k, booster_rng, run.spec)
        return fit_batch(booster, dataset.X, dataset.y, train, test)
    _, booster = _online_booster(run, dataset, k, learners_rng, booster_rng, dataset.X[train])
    order = stream_rng.permutation(train) if run.protocol.shuffle else train
    return fit_online(booster, dataset.X, dataset.y, order, test)


def _split_pass(
    run: RunConfig, dataset: Dataset, generators, on_start, on_progress
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """k-fold cross-validation or one holdout split: metrics, error-vs-rounds curve, extras."""
    protocol = run.protocol
    if protocol.name == "kfold":
        splits = kfold_splits(dataset.y, protocol.n_splits, generators.stream)
    elif dataset.n_train is not None and protocol.use_dataset_split:
        splits = [(np.arange(dataset.n_train), np.arange(dataset.n_train, dataset.n_examples))]
    else:
        splits = holdout_split(dataset.y, protocol.test_fraction, generators.stream)
    if on_start is not None:
        on_start(dataset, len(splits))
    learner_rngs = generators.learners.spawn(len(splits))
    booster_rngs = generators.booster.spawn(len(splits))
    folds: list[FoldResult] = []
    for f, (train, test) in enumerate(splits):
        folds.append(_fit_one_split(run, dataset, train, test, learner_rngs[f], booster_rngs[f], generators.stream))
        if on_progress is not None:
            on_progress(f + 1, 1.0 - float(np.mean([r.test_error[-1] for r in folds])))
    test_final = np.array([r.test_error[-1] for r in folds])
    train_final = np.array([r.train_error[-1] for r in folds])
    metrics = {
        "test_error": float(test_final.mean()),
        "test_error_std": float(test_final.std(ddof=1)) if len(folds) > 1 else 0.0,
        "test_accuracy": float(1.0 - test_final.mean()),
        "train_error": float(train_final.mean()),
        "fold_test_error": test_final.tolist(),
        "n_rounds_fitted": [r.n_rounds_fitted for r in folds],
        "n_folds": len(folds),
        "runtime_s": float(sum(r.runtime_s for r in folds)),
        # measured over the fits, as runtime_s is (the prequential pass's meter, per fold)
        "cpu_s": float(sum(r.cpu_s for r in folds)),
        "ram_hours": float(sum(r.ram_hours for r in folds)),
        "model_bytes": int(max(r.model_bytes for r in folds)),  # the largest fold's model
        "n_examples": int(sum(len(train) for train, _ in splits)),
        "n_test": int(sum(len(test) for _, test in splits)),
    }
    curve = {
        "rounds": list(range(1, len(folds[0].test_error) + 1)),
        "train_error": np.mean([r.train_error for r in folds], axis=0).tolist(),
        "test_error": np.mean([r.test_error for r in folds], axis=0).tolist(),
    }
    extras = {}
    if protocol.keep_weights and folds[0].weights is not None:
        extras["weights"] = {
            "fold": 1,
            "train_index": splits[0][0].tolist(),
            "values": np.round(folds[0].weights, 10).tolist(),
        }
    return metrics, curve, extras


# ``n_threads: null`` uses every core when a tree sees at least this many attributes x classes: a
# threaded step has a fixed cost (waking the threads, joining them) that only the split attempts
# of a large example repay: ISOLET-shaped ones (617 x 26) do, Movement-shaped (18 x 5) and mice
# (77 x 8) do not (README, "Memory and threads", has the measurements). The numbers are the same
# either way.
THREADS_PAY_FROM = 4096


def run_threads(learner: LearnerConfig, wanted: int | None, n_features: int, k: int) -> int:
    """The threads that train a run's trees (``n_features`` attributes, ``k`` classes or labels):
    ``wanted`` (the ``n_threads`` knob), or (None) every core this process may use when a tree's
    split attempts are big enough to repay them (:data:`THREADS_PAY_FROM`), else 1; at most numba's
    thread count; 1 for any pool but the compiled one. Sets numba's count for the compiled pool.
    """
    if not isinstance(learner, HoeffdingTreeConfig) or learner.backend != "compiled":
        return 1
    if wanted is None:
        seen = min(n_features, learner.feature_subset_size or n_features)
        wanted = usable_cores() if seen * k >= THREADS_PAY_FROM else 1
    import numba

    threads = max(1, min(int(wanted), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)
    return threads


WARM_UP_EXAMPLES = 3  # the throwaway pass's length (past any label delay): every entry point is called


def warm_up_kernels(run: RunConfig, dataset: Dataset | MultilabelDataset, k: int) -> float:
    """Compile (or load from numba's disk cache) the kernels this run calls, before its timed
    pass; returns the seconds taken (long only on an empty kernel cache).

    A throwaway booster, with generators of its own (the run's draws stay as they are), runs the
    run's own protocol over the data set's first examples: exactly the kernel entry points and
    argument types the pass uses compile, and none it does not (another thread count's training,
    another booster's per-member calls). The registry's ``warm_up`` entries add the paths a short
    pass may not take. The run's booster caches must be loaded first (the pass adds to them).
    """
    began = time.perf_counter()
    spec = run.spec
    if spec.family != "online" or spec.peer:  # batch boosters and the peers' learners: no kernels
        return 0.0
    from boostbench.learners.vfdt.training import learn_all
    from boostbench.system.kernel_cache import announce_compilation, compile_lock

    with compile_lock():  # one process at a time fills the cache (a sweep's jobs start together)
        cold = announce_compilation(learn_all)  # inside the lock: the sweep's first job only
        for warm_up in spec.warm_ups(run.algorithm):
            warm_up()
        delay = run.protocol.delay
        rows = np.arange(min(dataset.n_examples, WARM_UP_EXAMPLES + delay))
        train, test = rows[:-1], rows[-1:]
        generators = run_generators(run.seed)
        split = run.protocol.name in SPLIT_PROTOCOLS
        X_train = dataset.X[train] if split else None
        if run.protocol.name == "prequential_cv":  # two copies: each predicts alone, and trains
            learners, boosters = generators.learners.spawn(2), generators.booster.spawn(2)
            prequential_cv(
                lambda fold: _online_booster(run, dataset, k, learners[fold], boosters[fold])[1],
                dataset.X,
                dataset.y,
                rows,
                2,
                "cross_validation",
                generators.stream.spawn(2),
            )
            return time.perf_counter() - began
        pool, booster = _online_booster(run, dataset, k, generators.learners, generators.booster, X_train)
        # on an empty cache, a second core compiles the trees' split attempt meanwhile
        ahead = pool.compiling_ahead() if cold and pool.compiled else contextlib.nullcontext()
        with ahead:
            if split:  # as _run_pass chooses
                fit_online(booster, dataset.X, dataset.y, train, test)
            elif isinstance(dataset, MultilabelDataset):
                train_then_test(booster, dataset.X, dataset.Y, train, test)
            else:
                prequential(booster, dataset.X, dataset.y, rows, track_members=spec.tracks_members, delay=delay)
    return time.perf_counter() - began


def _run_pass(run: RunConfig, dataset, k, generators, on_start, on_progress):
    """The protocol's pass over ``dataset`` (``k`` classes or labels): ``(metrics, curve, extras)``."""
    protocol = run.protocol
    if protocol.name in SPLIT_PROTOCOLS:
        return _split_pass(run, dataset, generators, on_start, on_progress)
    shuffle_seed = protocol.shuffle_seed
    rows = None if shuffle_seed is None else source_rows(dataset.n_examples, run.dataset.get("moved_rows") or ())
    order = stream_order(dataset.n_examples, generators.stream, protocol.shuffle, shuffle_seed, rows)
    order = order[: protocol.max_examples or len(order)]
    if protocol.name == "prequential_cv":
        if on_start is not None:
            on_start(dataset, protocol.n_folds * len(order))  # each copy's pass
        metrics, curve = _prequential_cv_pass(run, dataset, k, generators, order, on_progress)
        return metrics, curve, {}
    pool, booster = _online_booster(run, dataset, k, generators.learners, generators.booster)
    if on_start is not None:
        on_start(dataset, len(order))
    if isinstance(dataset, MultilabelDataset):
        metrics, curve = _multilabel_pass(protocol, dataset, booster, order, on_progress)
    else:
        metrics, curve = _multiclass_pass(protocol, dataset, booster, order, on_progress, run.spec.tracks_members)
    if hasattr(pool, "size_bytes"):  # the compiled pool's memory, as its budget counts it
        metrics["pool_bytes"] = pool.size_bytes
        metrics["budget_enforcements"] = pool.enforcements
    return metrics, curve, {}


@contextlib.contextmanager
def _naming_the_algorithm(run: RunConfig):
    """Put the algorithm's name (and a plugin's package) before a refused prediction's message:
    the protocols, which refuse it, know only the booster.
    """
    try:
        yield
    except BoosterOutputError as exc:
        plugin = run.spec.plugin
        who = f" (package {plugin.distribution} {plugin.version})" if plugin else ""
        raise BoosterOutputError(f"algorithm {run.algorithm['name']!r}{who}: {exc}") from None


def run_experiment(
    cfg: DictConfig | RunConfig,
    dataset: Dataset | MultilabelDataset | None = None,
    on_start: Callable[[Any, int], None] | None = None,
    on_progress: Callable[[int, float], None] | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the experiment ``cfg`` describes and return its result record (not yet written).

    Args:
        cfg: a composed configuration (see :func:`boostbench.runner.config.compose_config`),
            validated here, or the :class:`~boostbench.runner.sections.RunConfig`
            :func:`boostbench.runner.config.validate` returned for it (the caller validated it).
        dataset: the encoded data set, if already loaded (else loaded from ``cfg.dataset``).
        on_start: called with ``(dataset, stream length)`` before the pass.
        on_progress: called with ``(examples done, running accuracy or rank loss)``.
        on_stage: called with what the run does before its pass (loading data, compiling kernels).

    Raises:
        ConfigError, DataError: invalid configuration or data.
        BoosterOutputError: the booster returned a prediction the protocol cannot score (its
            message names the algorithm, a plugin's package, what came back and what was expected).
    """
    run = cfg if isinstance(cfg, RunConfig) else validate(cfg)
    spec = run.spec
    started = dt.datetime.now(dt.UTC)
    stage = on_stage or (lambda _: None)
    if dataset is None:
        stage(f"loading {run.dataset.name}")
        dataset = load_dataset(run.dataset, run.data_dir, run.seed)
    run.protocol.check_size(dataset.n_examples)  # before a fold is allocated
    multilabel = isinstance(dataset, MultilabelDataset)
    k = dataset.n_labels if multilabel else dataset.n_classes
    generators = run_generators(run.seed)
    if spec.max_classes is not None and k > spec.max_classes:
        raise NotApplicable(too_many_classes(str(run.algorithm["name"]), dataset.name, k, spec.max_classes))
    spec.load_caches(k, run.algorithm, run.n_learners)  # what earlier runs computed (booster: no I/O)
    stage("compiling the numba kernels (cached after the first run)")
    with _naming_the_algorithm(run):
        compile_s = warm_up_kernels(run, dataset, k)
        # this run's peak, as a fresh process would read it (a sweep's worker ran others before); it
        # collects the garbage and freezes what is left (modules, data, compiled kernels), which
        # outlives the pass: the collector need not scan it again and again while the pass is timed
        reset_peak_rss(sum(getattr(dataset, name).nbytes for name in ("X", "y", "Y") if hasattr(dataset, name)))
        metrics, curve, extras = _run_pass(run, dataset, k, generators, on_start, on_progress)
    spec.save_caches()  # what this run computed serves later runs
    metrics["us_per_example"] = 1e6 * metrics["runtime_s"] / metrics["n_examples"]
    metrics["peak_rss_bytes"] = peak_rss_bytes()
    metrics["compile_s"] = compile_s  # numba compilation before the timed pass (0 when cached)
    finished = dt.datetime.now(dt.UTC)
    names = dataset.label_names if multilabel else dataset.class_names
    return {
        "schema_version": SCHEMA_VERSION,  # the form of the record (boostbench.runner.record)
        "config": run.resolved,
        "config_hash": config_hash(run.resolved, spec),
        "code": code_fingerprint(spec),  # which code computed the numbers (the store key has it)
        **({"plugin": spec.plugin.provenance()} if spec.plugin else {}),  # a plugin's package and version
        "dataset": {
            "name": dataset.name,
            "task": "multilabel" if multilabel else "multiclass",
            "n_examples": dataset.n_examples,
            "n_features": dataset.n_features,
            "n_classes": k,
            "class_names": list(names),
        },
        "metrics": metrics,
        "curve": curve,
        **extras,
        "provenance": provenance(run.seed, started, finished),
    }


def save(record: dict[str, Any], results_dir: str) -> Path:
    """Write ``record`` atomically under ``results_dir``, keyed by its config hash and code
    fingerprint (:func:`boostbench.system.fingerprint.run_key`); returns its path.
    """
    return write_record(record, record_path(results_dir, run_key(record["config_hash"], record["code"])))
