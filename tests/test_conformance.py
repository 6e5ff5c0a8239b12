"""One conformance suite over every registered algorithm (online multiclass, rankers, batch), and
every experiment grid composed and smoke-run.

Golden numbers: each algorithm's main metric on a tiny seeded run (``tests/golden_metrics.json``),
for both tree pools, so that a change shared by the reference and a kernel cannot pass unnoticed.
After a deliberate change of numbers, rewrite the file with
``BOOSTBENCH_REGEN_GOLDEN=1 pytest tests/test_conformance.py -k golden`` and say why in the commit.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import learner_file, missing_peer, skip_without_peer
from omegaconf import OmegaConf

from boostbench.algorithms import ALGORITHMS, algorithm_spec, build_batch_booster, build_booster
from boostbench.data import load_dataset
from boostbench.data.registry import registry_specs
from boostbench.learners.registry import make_batch_learner, make_pool
from boostbench.runner.config import CONFIG_DIR, compose_config, incompatibility
from boostbench.runner.experiment import run_experiment
from boostbench.system.resources import MACHINE_DEPENDENT

GOLDEN = Path(__file__).with_name("golden_metrics.json")
ONLINE = sorted(name for name, spec in ALGORITHMS.items() if spec.family == "online")
OURS = [name for name in ONLINE if not ALGORITHMS[name].peer]  # over our pools (peers bring their own trees)

BATCH = sorted(name for name, spec in ALGORITHMS.items() if spec.family == "batch")
METRIC = {"multiclass": "final_accuracy", "multilabel": "test_rank_loss", "batch": "test_error"}


def tiny_overrides(name: str, backend: str = "compiled") -> list[str]:
    """A seconds-long run of ``name``: balance (multiclass; german for a binary one), emotions
    (multi-label) or heart under holdout (batch), three weak learners or rounds."""
    spec = algorithm_spec(name)
    common = [f"algorithm={name}", "n_learners=3", "n_rounds=3", "seed=0", "progress=false"]
    if spec.family == "batch":
        return [*common, f"dataset={'german' if spec.max_classes == 2 else 'heart'}", "protocol=holdout"]
    dataset = f"dataset={'emotions' if spec.task == 'multilabel' else 'german' if spec.max_classes == 2 else 'balance'}"
    return [*common, dataset] if spec.peer else [*common, dataset, f"learner.backend={backend}"]


def main_metric(name: str, record: dict) -> float:
    spec = algorithm_spec(name)
    return record["metrics"][METRIC["batch" if spec.family == "batch" else spec.task]]


def without_timing(record: dict) -> dict:
    metrics = {k: v for k, v in record["metrics"].items() if k not in MACHINE_DEPENDENT}
    return {"metrics": metrics, "curve": record["curve"], "config_hash": record["config_hash"]}


def _golden_cases():
    cases = [(name, "compiled") for name in OURS] + [(name, "river") for name in OURS]
    return cases + [(name, "peer") for name in ONLINE if name not in OURS] + [(name, "sklearn") for name in BATCH]


@pytest.mark.parametrize(
    "name,backend",
    [pytest.param(*case, marks=pytest.mark.slow) if case[1] == "river" else case for case in _golden_cases()],
)  # river's pool: make test-slow
def test_golden_metrics_and_determinism(name, backend):
    """Every registered algorithm through the runner: the same numbers twice, and the golden ones."""
    if backend == "river" and sys.version_info >= (3, 12):
        pytest.skip("river's sums are compensated from Python 3.12: its trees differ in the last bits")
    skip_without_peer(name)
    key = f"{name}/{backend}"
    cfg = compose_config(tiny_overrides(name, backend))
    record = run_experiment(cfg)
    if backend != "river":  # (the river pool is as deterministic, and slower)
        assert without_timing(run_experiment(cfg)) == without_timing(record), "same config and seed, same numbers"
    value = main_metric(name, record)
    assert 0.0 <= value <= 1.0
    if os.environ.get("BOOSTBENCH_REGEN_GOLDEN"):
        table = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        table[key] = value
        GOLDEN.write_text(json.dumps(dict(sorted(table.items())), indent=1) + "\n")
        return
    golden = json.loads(GOLDEN.read_text())
    assert key in golden, f"no golden value for {key}: regenerate (see the module docstring)"
    assert value == pytest.approx(golden[key], abs=1e-12), f"{key}: {value} != golden {golden[key]}"


def test_the_pools_agree_on_the_golden_runs():
    """The compiled pool is river's trees to the bit: both columns of the table must agree."""
    golden = json.loads(GOLDEN.read_text())
    for name in OURS:
        assert golden[f"{name}/compiled"] == golden[f"{name}/river"], name


# -- the booster objects ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    specs = registry_specs()
    return {
        "multiclass": load_dataset(specs["balance"]),
        "multilabel": load_dataset(specs["emotions"]),
        "batch": load_dataset(specs["heart"]),
        "binary": load_dataset(specs["german"]),
    }


def _online(name, data, seed=0):
    spec = algorithm_spec(name)
    dataset = data["binary" if spec.max_classes == 2 else spec.task]
    k = dataset.n_labels if spec.task == "multilabel" else dataset.n_classes
    learner = learner_file("hoeffding_tree_mlr" if spec.task == "multilabel" else "hoeffding_tree")
    rngs = np.random.SeedSequence(seed).spawn(2)
    pool = (
        None
        if spec.peer
        else make_pool(learner, spec.pool_size(3), k, dataset.n_categories, np.random.default_rng(rngs[0]))
    )
    peer = {"n_learners": 3, "n_categories": list(dataset.n_categories)} if spec.peer else {}
    cfg = OmegaConf.load(CONFIG_DIR / "algorithm" / f"{name}.yaml")
    cfg = cfg.get("algorithm", cfg)  # a multi-label algorithm's file also sets its learner
    cfg = OmegaConf.to_container(cfg, resolve=False)
    cfg = {key: (0.1 if isinstance(value, str) and "${" in value else value) for key, value in cfg.items()}
    return build_booster(cfg, pool, k, np.random.default_rng(rngs[1]), **peer), dataset


def _stream(booster, dataset, rows):
    """Predictions (multiclass labels, or label scores) then updates on ``rows``."""
    out = []
    for i in rows:
        x = dataset.X[i]
        if hasattr(dataset, "Y"):
            out.append(booster.predict_scores(x))
            booster.update(dataset.Y[i])
        else:
            out.append(booster.predict(x))
            booster.update(int(dataset.y[i]))
    return np.array(out)


@pytest.mark.parametrize("name", ONLINE)
def test_online_booster_conformance(name, data):
    skip_without_peer(name)
    booster, dataset = _online(name, data)
    rows = np.random.default_rng(0).permutation(dataset.n_examples)[:60]
    X_before = dataset.X.copy()
    first = _stream(booster, dataset, rows)
    again = _stream(_online(name, data)[0], dataset, rows)
    np.testing.assert_array_equal(first, again)  # determinism under a seed
    np.testing.assert_array_equal(dataset.X, X_before)  # no input mutation
    if hasattr(dataset, "Y"):
        assert first.shape == (len(rows), dataset.n_labels) and np.isfinite(first).all()
    else:
        assert first.min() >= 0 and first.max() < dataset.n_classes  # labels in range
    # pickling: the copy goes on exactly as the original (a MOA peer lives in a Java process)
    if name.startswith(("moa_", "vw_")):  # in a Java process; in VW's C++ workspace
        with pytest.raises(TypeError, match="does not pickle"):
            pickle.dumps(booster)
        return
    copied = pickle.loads(pickle.dumps(booster))
    more = rows[:20]
    np.testing.assert_array_equal(_stream(copied, dataset, more), _stream(booster, dataset, more))


@pytest.mark.parametrize("name", BATCH)
def test_batch_booster_conformance(name, data):
    dataset = data["binary" if algorithm_spec(name).max_classes == 2 else "batch"]
    learner_cfg = learner_file("tree")
    X, y = dataset.X, dataset.y
    X_before = X.copy()

    def fit(seed):
        learner = make_batch_learner(learner_cfg, X, np.asarray(dataset.n_categories), np.random.default_rng(seed))
        return build_batch_booster(
            {"name": name, "n_rounds": 4}, learner, dataset.n_classes, np.random.default_rng(seed)
        ).fit(X, y)

    booster = fit(0)
    predictions = booster.predict(X)
    np.testing.assert_array_equal(predictions, fit(0).predict(X))  # determinism under a seed
    np.testing.assert_array_equal(X, X_before)  # no input mutation
    assert predictions.min() >= 0 and predictions.max() < dataset.n_classes
    assert 1 <= booster.n_rounds_fitted <= 4
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(booster)).predict(X), predictions)
    np.testing.assert_array_equal(copy.deepcopy(booster).predict(X), predictions)


# -- every experiment grid ---------------------------------------------------------------------------


def _grid_sample(experiment: str) -> list[list[str]]:
    """For each algorithm of an experiment's grid, its first data set, learner and protocol
    values, as overrides on top of ``+experiment=<name>`` (tiny N and rounds)."""
    params = OmegaConf.load(CONFIG_DIR / "experiment" / f"{experiment}.yaml").hydra.sweeper.params
    first = {
        axis: str(values).split(",")[0].strip()
        for axis, values in params.items()
        if axis not in ("algorithm", "seed", "gamma")
    }
    algorithms = str(params.get("algorithm", "adaboost_olm")).split(",")
    return [
        [
            f"+experiment={experiment}",
            f"algorithm={a.strip()}",
            *(f"{k}={v}" for k, v in first.items()),
            "n_learners=2",
            "n_rounds=2",
            "seed=0",
            "progress=false",
        ]
        for a in algorithms
    ]


EXPERIMENTS = sorted(p.stem for p in (CONFIG_DIR / "experiment").glob("*.yaml"))
#: Grids whose first point takes minutes (100,000 synthetic rows; 101 labels), or that repeat another's
#: boosters on its data (Table 3's on emotions; river's peers): make test-slow
SLOW_EXPERIMENTS = (
    "sun_tables_fixed_split",
    "jung_tewari2018_table3_large_k",
    "equivalence_multilabel",
    "jung2017_table1_peers",
    "stream_benchmark",
)


@pytest.mark.parametrize(
    "experiment", [pytest.param(e, marks=pytest.mark.slow) if e in SLOW_EXPERIMENTS else e for e in EXPERIMENTS]
)
def test_every_experiment_config_composes_and_runs(experiment):
    ran = 0
    for overrides in _grid_sample(experiment):
        cfg = compose_config(overrides)
        if incompatibility(cfg) is not None:
            continue
        if missing_peer(str(cfg.algorithm.name)) is not None and os.environ.get("CI") != "true":
            continue  # its library is absent here (CI installs it, and there it must run)
        record = run_experiment(cfg)
        assert record["metrics"]["n_examples"] > 0
        ran += 1
    assert ran > 0, f"{experiment}: no grid point could run"
