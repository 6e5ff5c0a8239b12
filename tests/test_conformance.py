"""One conformance suite over every registered algorithm (online multiclass, rankers, batch), and
every experiment grid composed and smoke-run.

Golden numbers: each algorithm's main metric on a tiny seeded run (``tests/golden_metrics.json``),
for both tree pools, so that a change shared by the reference and a kernel cannot pass unnoticed.
After a deliberate change of numbers, rewrite the file with
``BOOSTBENCH_REGEN_GOLDEN=1 pytest tests/test_conformance.py -k golden`` and say why in the commit.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import missing_peer, skip_without_peer
from omegaconf import OmegaConf

from boostbench.algorithms import BUILT_IN, algorithm_spec
from boostbench.boosters.base import OnlineBooster
from boostbench.runner.config import CONFIG_DIR, compose_config, incompatibility
from boostbench.runner.experiment import run_experiment
from boostbench.system.resources import MACHINE_DEPENDENT
from boostbench.testing import CHECKS, check_booster

GOLDEN = Path(__file__).with_name("golden_metrics.json")
ONLINE = sorted(name for name, spec in BUILT_IN.items() if spec.family == "online")
OURS = [name for name in ONLINE if not BUILT_IN[name].peer]  # over our pools (peers bring their own trees)

BATCH = sorted(name for name, spec in BUILT_IN.items() if spec.family == "batch")
METRIC = {"multiclass": "final_accuracy", "multilabel": "test_rank_loss", "batch": "test_error"}


def tiny_overrides(name: str, backend: str = "compiled") -> list[str]:
    """A seconds-long run of ``name``: balance (multiclass; german for a binary one), emotions
    (multi-label) or heart under holdout (batch), three weak learners or rounds."""
    spec = algorithm_spec(name)
    rounds = ["n_rounds=3"] if "n_rounds" in spec.params else []  # a short form: for those with rounds
    common = [f"algorithm={name}", "n_learners=3", *rounds, "seed=0", "progress=false"]
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


# -- the booster objects: boostbench.testing.check_booster, as a plugin's own tests run it ----------

#: One MOA peer in make test (each check starts MOA's Java process again), the others in make test-slow
FAST_MOA = "moa_ozaboost"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.slow) if n.startswith("moa_") and n != FAST_MOA else n
        for n in sorted(BUILT_IN)
    ],
)
def test_check_booster_passes_on_every_built_in(name):
    """Determinism under a seed, labels in range, inputs untouched, pickling, growth, sample
    weights: every registered booster, online (ours and the peers) and batch."""
    skip_without_peer(name)
    report = check_booster(name, checks=[c for c in CHECKS if c != "river_estimator"])
    assert set(report) == set(CHECKS) - {"river_estimator"}
    spec = algorithm_spec(name)
    if spec.family == "online" and not spec.peer:  # ours grow, take weights, pickle (VFDTs: weight 1)
        applies = {"grow", "pickling"} | ({"sample_weights"} if "vfdt" not in name and name != "online_base" else set())
        assert all(report[check] == "passed" for check in applies), report
    if name.startswith(("moa_", "vw_")):  # a Java process; VW's C++ workspace
        assert report["pickling"].startswith("not applicable: refuses to pickle"), report


@pytest.mark.parametrize(
    "name",
    [
        n if n == "adaboost_olm" else pytest.param(n, marks=pytest.mark.slow)
        for n in ("adaboost_olm", "online_mbbm", "online_boosting", "online_bagging", "hedge", "ada_olmr", "online_bmr")
    ],
)  # one in make test, all in make test-slow
def test_check_booster_runs_rivers_checks_on_the_estimator(name):
    assert check_booster(name, checks=["river_estimator"]) == {"river_estimator": "passed"}
    assert check_booster("vfdt", checks=["river_estimator"])["river_estimator"].startswith("not applicable")


class _Broken(OnlineBooster):
    """A working booster (the members' mean distribution), broken below one check at a time."""

    def __init__(self, pool, n_classes, rng, *, beta: float = 0.5):
        super().__init__(pool, n_classes, rng)
        self.beta = beta

    def predict_proba(self, x):
        self._xp = self.pool.prepare(x)
        return self.pool.predict_proba(self._xp).mean(axis=0)

    def update(self, y, w=1.0):
        if w:
            self.pool.learn(self._xp, y, np.full(self.pool.n_learners, w))


class _Unseeded(_Broken):
    def predict(self, x):
        self.predict_proba(x)
        return int(np.random.default_rng().integers(self.n_classes))  # not the booster's generator


class _OutOfRange(_Broken):
    def predict(self, x):
        return super().predict(x) + self.n_classes


class _Unnormalised(_Broken):
    def predict_proba(self, x):
        return 2 * super().predict_proba(x)


class _Mutating(_Broken):
    def predict_proba(self, x):
        x[0] = 0.0  # writes into the caller's row
        return super().predict_proba(x)


class _Unpicklable(_Broken):
    def predict_proba(self, x):
        self.hook = lambda: None  # a local lambda does not pickle
        return super().predict_proba(x)


class _StaleAfterGrowth(_Broken):
    def grow(self, n_classes=None, n_categories=None):  # says it grew, keeps predicting old labels only
        self.n_classes = n_classes


class _WeightBlind(_Broken):
    def update(self, y, w=1.0):
        super().update(y, 1.0)  # ignores w: an example of weight 0 still trains


class _Positional(_Broken):
    def __init__(self, pool, n_classes, rng, beta=0.5):
        super().__init__(pool, n_classes, rng, beta=beta)


@pytest.mark.parametrize(
    "cls, check, message",
    [
        (_Positional, "interface", r"_Positional.__init__ must be \(self, pool, n_classes, rng, \*, <hyper-param"),
        (_Unseeded, "determinism", "the same seed gave other predictions"),
        (_OutOfRange, "labels", r"predict returned label [3-5] for 3 classes; expected a label in 0..2"),
        (_Unnormalised, "labels", "predict_proba sums to 2.0"),
        (_Mutating, "inputs", "the booster changed the examples it was given"),
        (_Unpicklable, "pickling", "Can't pickle"),
        (_StaleAfterGrowth, "grow", "predict_proba of shape"),
        (_WeightBlind, "sample_weights", "an example of weight 0 changed the booster"),
    ],
)
def test_check_booster_names_the_check_a_broken_class_fails(cls, check, message):
    assert check_booster(_Broken, checks=[c for c in CHECKS if c != "river_estimator"])["grow"] == "passed"
    with pytest.raises(AssertionError, match=rf"^check_booster\(.*{cls.__name__}\): {check}: .*{message}"):
        check_booster(cls, checks=[c for c in CHECKS if c != "river_estimator"])


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
            *(["n_rounds=2"] if "n_rounds" in algorithm_spec(a.strip()).params else []),
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
    "multilabel_benchmark",
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
