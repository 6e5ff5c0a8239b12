"""One run: data set -> stream -> pool + booster -> protocol -> result record.

Protocols: prequential (multiclass online), train_test (MULAN multi-label), and the split
protocols kfold / holdout (batch boosters, and online learners with one pass per training part).
"""

from __future__ import annotations

import datetime as dt
import gc
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
from boostbench.algorithms import AlgorithmSpec, build_batch_booster, build_booster
from boostbench.data import load_dataset, stream_order
from boostbench.data.dataset import Dataset, MultilabelDataset
from boostbench.data.stream import source_rows
from boostbench.errors import NotApplicable
from boostbench.learners.registry import make_batch_learner, make_pool
from boostbench.metrics import classification_metrics, windowed_curves
from boostbench.protocols import (
    FoldResult,
    fit_batch,
    fit_online,
    holdout_split,
    kfold_splits,
    prequential,
    train_then_test,
)
from boostbench.runner.config import SPLIT_PROTOCOLS, config_hash, resolved_dict, too_many_classes, validate
from boostbench.runner.store import record_path, write_record
from boostbench.seeding import run_generators
from boostbench.system.fingerprint import code_fingerprint, run_key
from boostbench.system.paths import REPO_ROOT
from boostbench.system.resources import peak_rss_bytes, reset_peak_rss


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
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        # the machine's load as the run ended (1-minute average): runs beside others share the cores
        "load_avg_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "seed": seed,
        "started_utc": started.isoformat(),
        "finished_utc": finished.isoformat(),
    }


def _multiclass_pass(
    cfg: DictConfig, dataset: Dataset, booster, order: np.ndarray, on_progress, spec: AlgorithmSpec
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Prequential pass (Jung et al. 2017): metrics and curve."""
    result = prequential(
        booster,
        dataset.X,
        dataset.y,
        order,
        float(cfg.protocol.final_fraction),
        on_progress,
        track_members=spec.tracks_members,
        delay=int(cfg.protocol.get("delay", 0)),
    )
    metrics: dict[str, Any] = {
        "final_accuracy": result.final_accuracy,
        "cumulative_accuracy": result.cumulative_accuracy,
        **classification_metrics(result.truth, result.predicted, dataset.n_classes, result.final_start),
        # the caches' fill is timed apart (cache_fill_s), as the compilation is (compile_s)
        "runtime_s": result.runtime_s - booster.cache_fill_s,
        # CPU seconds of every thread and child, less the caches' fill (its own CPU seconds)
        "cpu_s": max(0.0, result.cpu_s - booster.cache_fill_cpu_s),
        "ram_hours": result.ram_hours,
        "model_bytes": result.model_bytes,
        "cache_fill_s": booster.cache_fill_s,
        "n_examples": result.n_examples,
        "final_window_examples": result.n_examples - result.final_start,
    }
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
    seen, accuracy = result.curve(int(cfg.protocol.get("curve_points", 100)))
    windowed = windowed_curves(
        result.truth, result.predicted, dataset.n_classes, seen, int(cfg.protocol.get("window", 1000))
    )
    return metrics, {"examples_seen": seen.tolist(), "cumulative_accuracy": accuracy.tolist(), **windowed}


def _multilabel_pass(
    cfg: DictConfig, dataset: MultilabelDataset, booster, order: np.ndarray, on_progress, spec: AlgorithmSpec
) -> tuple[dict[str, Any], dict[str, Any]]:
    """MULAN train -> test pass (Jung & Tewari 2018): metrics and test rank-loss curve."""
    train = order[order < dataset.n_train]  # the seeded order, kept within each part
    test = order[order >= dataset.n_train]
    result = train_then_test(booster, dataset.X, dataset.Y, train, test, on_progress)
    metrics = {
        "test_rank_loss": float(result.test_loss.mean()),
        "train_rank_loss": float(result.train_loss.mean()),
        "runtime_s": result.runtime_s - booster.cache_fill_s,
        "cpu_s": max(0.0, result.cpu_s - booster.cache_fill_cpu_s),
        "ram_hours": result.ram_hours,
        "model_bytes": result.model_bytes,
        "cache_fill_s": booster.cache_fill_s,
        "n_examples": result.n_examples,
        "n_train": len(train),
        "n_test": len(test),
    }
    seen, loss = result.curve(int(cfg.protocol.get("curve_points", 100)))
    return metrics, {"test_examples_seen": seen.tolist(), "test_rank_loss": loss.tolist()}


def _online_booster(
    cfg: DictConfig,
    spec: AlgorithmSpec,
    dataset,
    k: int,
    learners_rng: np.random.Generator,
    booster_rng: np.random.Generator,
    X_train: np.ndarray | None = None,
):
    """``(pool, booster)`` of an online algorithm; a peer (river's or MOA's ensembles) builds its
    own learners: no pool, and it is told the data set's attribute kinds instead.
    """
    n = spec.pool_size(int(cfg.n_learners))
    if spec.peer:
        return None, build_booster(
            cfg.algorithm, None, k, booster_rng, spec, n_learners=n, n_categories=list(dataset.n_categories)
        )
    pool = make_pool(
        cfg.learner,
        n,
        k,
        dataset.n_categories,
        learners_rng,
        X_train=X_train,
        n_threads=run_threads(cfg, dataset.n_features, k),
    )
    return pool, build_booster(cfg.algorithm, pool, k, booster_rng, spec)


def _fit_one_split(
    cfg: DictConfig,
    dataset: Dataset,
    spec: AlgorithmSpec,
    train: np.ndarray,
    test: np.ndarray,
    learners_rng: np.random.Generator,
    booster_rng: np.random.Generator,
    stream_rng: np.random.Generator,
) -> FoldResult:
    k = dataset.n_classes
    if spec.family == "batch":
        learner = make_batch_learner(cfg.learner, dataset.X[train], np.asarray(dataset.n_categories), learners_rng)
        booster = build_batch_booster(cfg.algorithm, learner, k, booster_rng, spec)
        return fit_batch(booster, dataset.X, dataset.y, train, test)
    _, booster = _online_booster(cfg, spec, dataset, k, learners_rng, booster_rng, dataset.X[train])
    order = stream_rng.permutation(train) if bool(cfg.protocol.get("shuffle", True)) else train
    return fit_online(booster, dataset.X, dataset.y, order, test)


def _split_pass(
    cfg: DictConfig, dataset: Dataset, spec: AlgorithmSpec, generators, on_start, on_progress
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """k-fold cross-validation or one holdout split: metrics, error-vs-rounds curve, extras."""
    if cfg.protocol.name == "kfold":
        splits = kfold_splits(dataset.y, int(cfg.protocol.n_splits), generators.stream)
    elif dataset.n_train is not None and bool(cfg.protocol.get("use_dataset_split", True)):
        splits = [(np.arange(dataset.n_train), np.arange(dataset.n_train, dataset.n_examples))]
    else:
        splits = holdout_split(dataset.y, float(cfg.protocol.test_fraction), generators.stream)
    if on_start is not None:
        on_start(dataset, len(splits))
    learner_rngs = generators.learners.spawn(len(splits))
    booster_rngs = generators.booster.spawn(len(splits))
    folds: list[FoldResult] = []
    for f, (train, test) in enumerate(splits):
        folds.append(
            _fit_one_split(cfg, dataset, spec, train, test, learner_rngs[f], booster_rngs[f], generators.stream)
        )
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
    if bool(cfg.protocol.get("keep_weights", False)) and folds[0].weights is not None:
        extras["weights"] = {
            "fold": 1,
            "train_index": splits[0][0].tolist(),
            "values": np.round(folds[0].weights, 10).tolist(),
        }
    return metrics, curve, extras


# ``n_threads: null`` uses every core when a tree sees at least this many attributes x classes: a
# threaded step costs about 25 us more, which a small example's training does not repay (car,
# 6 x 4: 59 -> 83 us per example on 2 threads) and a large one's does (movement_like, 18 x 5:
# 1,049 -> 690 us; mice, 77 x 8: 2,719 -> 2,347 us). The numbers are the same either way.
THREADS_PAY_FROM = 64


def run_threads(cfg: DictConfig, n_features: int, k: int) -> int:
    """The threads that train a run's trees (``n_features`` attributes, ``k`` classes or labels):
    ``n_threads``, or (null) every core this process may use when a tree's split attempts are
    big enough to repay them (:data:`THREADS_PAY_FROM`), else 1; at most numba's thread count.
    Sets numba's count for the compiled pool.
    """
    if cfg.learner.get("backend") != "compiled":
        return 1
    wanted = cfg.get("n_threads")
    if wanted is None:
        seen = min(n_features, cfg.learner.get("feature_subset_size") or n_features)
        wanted = len(os.sched_getaffinity(0)) if seen * k >= THREADS_PAY_FROM else 1
    import numba

    threads = max(1, min(int(wanted), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)
    return threads


WARM_UP_EXAMPLES = 3  # the throwaway pass's length (past any label delay): every entry point is called


def warm_up_kernels(cfg: DictConfig, spec: AlgorithmSpec, dataset: Dataset | MultilabelDataset, k: int) -> float:
    """Compile (or load from numba's disk cache) the kernels this run calls, before its timed
    pass; returns the seconds taken (long only on an empty kernel cache).

    A throwaway booster, with generators of its own (the run's draws stay as they are), runs the
    run's own protocol over the data set's first examples: exactly the kernel entry points and
    argument types the pass uses compile, and none it does not (another thread count's training,
    another booster's per-member calls). The registry's ``warm_up`` entries add the paths a short
    pass may not take. The run's booster caches must be loaded first (the pass adds to them).
    """
    began = time.perf_counter()
    if spec.family != "online" or spec.peer:  # batch boosters and the peers' learners: no kernels
        return 0.0
    from boostbench.system.kernel_cache import compile_lock, note_if_compiling

    with compile_lock():  # one process at a time fills the cache (a sweep's jobs start together)
        note_if_compiling()  # on stderr, when the cache is empty: only the first job's is
        for warm_up in spec.warm_ups(cfg.algorithm):
            warm_up()
        delay = int(cfg.protocol.get("delay", 0))
        rows = np.arange(min(dataset.n_examples, WARM_UP_EXAMPLES + delay))
        train, test = rows[:-1], rows[-1:]
        generators = run_generators(int(cfg.seed))
        X_train = dataset.X[train] if cfg.protocol.name in SPLIT_PROTOCOLS else None
        _, booster = _online_booster(cfg, spec, dataset, k, generators.learners, generators.booster, X_train)
        if cfg.protocol.name in SPLIT_PROTOCOLS:  # as _run_pass chooses
            fit_online(booster, dataset.X, dataset.y, train, test)
        elif isinstance(dataset, MultilabelDataset):
            train_then_test(booster, dataset.X, dataset.Y, train, test)
        else:
            prequential(booster, dataset.X, dataset.y, rows, track_members=spec.tracks_members, delay=delay)
    return time.perf_counter() - began


def _run_pass(cfg, dataset, k, spec, generators, on_start, on_progress):
    """The protocol's pass over ``dataset`` (``k`` classes or labels): ``(metrics, curve, extras)``."""
    if cfg.protocol.name in SPLIT_PROTOCOLS:
        return _split_pass(cfg, dataset, spec, generators, on_start, on_progress)
    multilabel = isinstance(dataset, MultilabelDataset)
    shuffle_seed = cfg.protocol.get("shuffle_seed")
    rows = None if shuffle_seed is None else source_rows(dataset.n_examples, cfg.dataset.get("moved_rows") or ())
    order = stream_order(dataset.n_examples, generators.stream, bool(cfg.protocol.shuffle), shuffle_seed, rows)
    order = order[: cfg.protocol.get("max_examples") or len(order)]
    pool, booster = _online_booster(cfg, spec, dataset, k, generators.learners, generators.booster)
    if on_start is not None:
        on_start(dataset, len(order))
    run_pass = _multilabel_pass if multilabel else _multiclass_pass
    metrics, curve = run_pass(cfg, dataset, booster, order, on_progress, spec)
    if hasattr(pool, "size_bytes"):  # the compiled pool's memory, as its budget counts it
        metrics["pool_bytes"] = pool.size_bytes
        metrics["budget_enforcements"] = pool.enforcements
    return metrics, curve, {}


def run_experiment(
    cfg: DictConfig,
    dataset: Dataset | MultilabelDataset | None = None,
    on_start: Callable[[Any, int], None] | None = None,
    on_progress: Callable[[int, float], None] | None = None,
    on_stage: Callable[[str], None] | None = None,
    spec: AlgorithmSpec | None = None,
) -> dict[str, Any]:
    """Run the experiment ``cfg`` describes and return its result record (not yet written).

    Args:
        cfg: a composed configuration (see :func:`boostbench.runner.config.compose_config`).
        spec: the algorithm's registry entry :func:`boostbench.runner.config.validate` returned for
            ``cfg`` (the caller validated it); None: validated here.
        dataset: the encoded data set, if already loaded (else loaded from ``cfg.dataset``).
        on_start: called with ``(dataset, stream length)`` before the pass.
        on_progress: called with ``(examples done, running accuracy or rank loss)``.
        on_stage: called with what the run does before its pass (loading data, compiling kernels).

    Raises:
        ConfigError, DataError: invalid configuration or data.
    """
    spec = spec or validate(cfg)
    started = dt.datetime.now(dt.UTC)
    stage = on_stage or (lambda _: None)
    if dataset is None:
        stage(f"loading {cfg.dataset.name}")
        dataset = load_dataset(cfg.dataset, cfg.get("data_dir"), int(cfg.seed))
    multilabel = isinstance(dataset, MultilabelDataset)
    k = dataset.n_labels if multilabel else dataset.n_classes
    generators = run_generators(int(cfg.seed))
    if spec.max_classes is not None and k > spec.max_classes:
        raise NotApplicable(too_many_classes(str(cfg.algorithm.name), dataset.name, k, spec.max_classes))
    spec.load_caches(k, cfg.algorithm, int(cfg.n_learners))  # what earlier runs computed (booster: no I/O)
    stage("compiling the numba kernels (cached after the first run)")
    compile_s = warm_up_kernels(cfg, spec, dataset, k)
    # this run's peak, as a fresh process would read it (a sweep's worker ran others before); it
    # collects the garbage, so what is left (modules, data, compiled kernels) outlives the pass and
    # is frozen: the collector need not scan it again and again while the pass is timed
    reset_peak_rss(sum(getattr(dataset, name).nbytes for name in ("X", "y", "Y") if hasattr(dataset, name)))
    gc.freeze()
    try:
        metrics, curve, extras = _run_pass(cfg, dataset, k, spec, generators, on_start, on_progress)
    finally:
        gc.unfreeze()
    spec.save_caches()  # what this run computed serves later runs
    metrics["us_per_example"] = 1e6 * metrics["runtime_s"] / metrics["n_examples"]
    metrics["peak_rss_bytes"] = peak_rss_bytes()
    metrics["compile_s"] = compile_s  # numba compilation before the timed pass (0 when cached)
    finished = dt.datetime.now(dt.UTC)
    config = resolved_dict(cfg)
    names = dataset.label_names if multilabel else dataset.class_names
    return {
        "config": config,
        "config_hash": config_hash(config, spec),
        "code": code_fingerprint(),  # which code computed the numbers (the store key has it)
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
        "provenance": provenance(int(cfg.seed), started, finished),
    }


def save(record: dict[str, Any], results_dir: str) -> Path:
    """Write ``record`` atomically under ``results_dir``, keyed by its config hash and code
    fingerprint (:func:`boostbench.system.fingerprint.run_key`); returns its path.
    """
    return write_record(record, record_path(results_dir, run_key(record["config_hash"], record["code"])))
