"""``boostbench new-algorithm NAME``: a package that adds one online booster to the bench.

It writes an installable project (docs/bring-your-own-booster.md): ``pyproject.toml`` with the
entry point of group ``boostbench.algorithms``, a booster module (a working committee of the weak
learners with its docstring to fill in), a test that runs :func:`boostbench.testing.check_booster`
and the runner on it, and a README. ``pip install -e`` it and its ``pytest`` passes; then
``boostbench run algorithm=NAME`` and any sweep take it. ``--task multilabel`` writes a multi-label
ranker instead (an :class:`~boostbench.boosters.base.OnlineRanker`: scores for every label, run
under MULAN's train -> test protocol beside Ada.OLMR, OnlineBMR and the multi-label peers).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from boostbench.errors import ConfigError

PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{distribution}"
version = "0.1.0"
description = "{title}: an online booster for boostbench"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["boostbench"]

# boostbench finds the algorithm through this entry point: name = "module:class"
[project.entry-points."boostbench.algorithms"]
{name} = "{package}.booster:{cls}"

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

INIT = '''"""{title}: an online booster for boostbench (entry point ``{name}``)."""

from {package}.booster import {cls}

__all__ = ["{cls}"]
'''

BOOSTER = '''"""{title}: <authors, year, title>, Algorithm <n> (the source of each rule below)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import Constraint, Interval, OneOf


class {cls}(OnlineBooster):
    """{title}: <one paragraph: what it predicts and how it learns, with the paper's symbols>.

    This template is a committee: the prediction is the members' vote (``"soft"``: the mean of
    their class distributions; ``"hard"``: the share of their labels, ties broken with the
    booster's generator), and every member trains on every example with weight
    ``learning_rate * w``. Replace it with your algorithm; keep the interface.

    Args:
        pool: the N weak learners (:class:`~boostbench.learners.pool.WeakLearnerPool`): ``prepare(x)``,
            ``predict_proba(xp)`` ``(N, k)``, ``learn(xp, y, weights (N,))``, ``n_learners``.
        n_classes: k >= 2; labels are ints ``0..k-1``.
        rng: the booster's ``numpy.random.Generator``: draw every random number from it.
        vote: ``"soft"`` or ``"hard"``.
        learning_rate: the members' training weight per unit of example weight, > 0.

    Raises:
        InvalidParameterError: a value outside :attr:`_parameter_constraints` (a ValueError).
    """

    #: each hyper-parameter's valid values: the bench checks a config against them before a run
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {{
        "vote": OneOf(("soft", "hard")),
        "learning_rate": Interval(0.0),
    }}

    def __init__(self, pool, n_classes, rng, *, vote: str = "soft", learning_rate: float = 1.0):
        super().__init__(pool, n_classes, rng)
        self._validate_params(vote=vote, learning_rate=learning_rate)
        self.vote = vote
        self.learning_rate = float(learning_rate)
        self._xp = None

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """The committee's distribution over the k labels for ``x`` (``(d,)`` float64, NaN =
        missing): ``(k,)`` float64 summing to 1. Keeps ``x`` prepared for :meth:`update`.
        """
        self._xp = self.pool.prepare(x)
        P = self.pool.predict_proba(self._xp)  # (N, k): each member's distribution
        if self.vote == "soft":
            return P.mean(axis=0)
        top = P == P.max(axis=1, keepdims=True)  # each member's best labels (ties among them)
        labels = np.array([self.rng.choice(np.flatnonzero(row)) for row in top])
        return np.bincount(labels, minlength=self.n_classes) / self.pool.n_learners

    def update(self, y: int, w: float = 1.0) -> None:
        """Reveal the label ``y`` of the last predicted example; ``w`` (>= 0) is its weight (0:
        nothing changes).
        """
        if w == 0.0:
            return
        self.pool.learn(self._xp, int(y), np.full(self.pool.n_learners, self.learning_rate * w))
'''

RANKER = '''"""{title}: <authors, year, title>, Algorithm <n> (the source of each rule below)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineRanker
from boostbench.constraints import Constraint, Interval


class {cls}(OnlineRanker):
    """{title}: <one paragraph: how it scores the labels and how it learns, with the paper's symbols>.

    This template is a committee: a label's score is the members' mean probability of it (the
    pool has one class per label), and every member trains on each relevant label with weight
    ``learning_rate * w``. Its label set is :meth:`~boostbench.boosters.base.OnlineRanker.predict_labels`'s
    (the top-scored labels, as many as the sets seen so far hold on average): override that
    method if your algorithm predicts a set. Replace it with your algorithm; keep the interface.

    Args:
        pool: the N weak learners (:class:`~boostbench.learners.pool.WeakLearnerPool`) over the k
            labels: ``prepare(x)``, ``predict_proba(xp)`` ``(N, k)``, ``learn(xp, label, weights (N,))``.
        n_classes: k >= 2 labels, ints ``0..k-1``.
        rng: the booster's ``numpy.random.Generator``: draw every random number from it.
        learning_rate: the members' training weight per unit of example weight, > 0.

    Raises:
        InvalidParameterError: a value outside :attr:`_parameter_constraints` (a ValueError).
    """

    #: each hyper-parameter's valid values: the bench checks a config against them before a run
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {{"learning_rate": Interval(0.0)}}

    def __init__(self, pool, n_classes, rng, *, learning_rate: float = 1.0):
        super().__init__(pool, n_classes, rng)
        self._validate_params(learning_rate=learning_rate)
        self.learning_rate = float(learning_rate)
        self._xp = None

    def predict_scores(self, x: np.ndarray) -> np.ndarray:
        """Every label's score for ``x`` (``(d,)`` float64, NaN = missing): ``(k,)`` float64,
        higher = ranked higher. Keeps ``x`` prepared for :meth:`update`.
        """
        self._xp = self.pool.prepare(x)
        return self.pool.predict_proba(self._xp).mean(axis=0)

    def update(self, relevant: np.ndarray, w: float = 1.0) -> None:
        """Reveal the label set (``(k,)`` bool) of the last scored example; ``w`` (>= 0) is its
        weight (0: nothing changes).
        """
        if w == 0.0:
            return
        weights = np.full(self.pool.n_learners, self.learning_rate * w)
        for label in np.flatnonzero(relevant):
            self.pool.learn(self._xp, int(label), weights)
'''

RANKER_TEST = '''"""{title} passes boostbench's conformance checks and runs in the bench."""

from boostbench.testing import check_booster
from {package} import {cls}


def test_the_class_passes_boostbench_checks():
    """Determinism under a seed, scores and label sets of k labels, inputs untouched, pickling,
    growth, sample weights (boostbench.testing.CHECKS); an AssertionError names the check that failed."""
    check_booster({cls})


def test_the_installed_entry_point_runs_in_the_bench():
    """``pip install -e .`` registered it: the runner builds it from ``algorithm={name}``."""
    from boostbench.runner.config import compose_config, validate
    from boostbench.runner.experiment import run_experiment

    check_booster("{name}", checks=["interface"])
    cfg = compose_config(["algorithm={name}", "dataset=emotions", "n_learners=5", "progress=false"])
    record = run_experiment(validate(cfg))
    assert record["plugin"]["distribution"] == "{distribution}"
    assert 0.0 <= record["metrics"]["test_rank_loss"] <= 1.0
    assert 0.0 <= record["metrics"]["test_hamming_loss"] <= 1.0
'''

TEST = '''"""{title} passes boostbench's conformance checks and runs in the bench."""

from boostbench.testing import check_booster
from {package} import {cls}


def test_the_class_passes_boostbench_checks():
    """Determinism under a seed, labels in range, inputs untouched, pickling, growth, sample
    weights (boostbench.testing.CHECKS); an AssertionError names the check that failed."""
    check_booster({cls})


def test_the_installed_entry_point_runs_in_the_bench():
    """``pip install -e .`` registered it: the runner builds it from ``algorithm={name}``."""
    from boostbench.runner.config import compose_config, validate
    from boostbench.runner.experiment import run_experiment

    check_booster("{name}", checks=["interface"])
    cfg = compose_config(["algorithm={name}", "dataset=balance", "n_learners=5", "progress=false"])
    record = run_experiment(validate(cfg))
    assert record["plugin"]["distribution"] == "{distribution}"
    assert 0.0 <= record["metrics"]["final_accuracy"] <= 1.0
'''

README = """# {title}

An online booster for boostbench: the algorithm `{name}`
(`src/{package}/booster.py`, class `{cls}`), registered through the entry point
`{name}` of group `boostbench.algorithms` (`pyproject.toml`).

## Install and test

    pip install --no-deps -e .        # into boostbench's environment (setuptools builds it)
    pytest                            # boostbench.testing.check_booster, then a run in the bench

`pip`, `pytest` and `boostbench` are those of the environment boostbench is installed in: in a
checkout after `make run`, `source <checkout>/.venv/bin/activate` first (or call
`<checkout>/.venv/bin/pip`, `.venv/bin/pytest`, `.venv/bin/boostbench`); `boostbench new-algorithm`
prints the commands with that environment's Python.

## Run it in the bench

    boostbench run algorithm={name} dataset={dataset}             # its config: the class's defaults
    boostbench run algorithm={name} {knob}        # a hyper-parameter
    boostbench sweep algorithm={name},{peers} dataset={datasets} \\
        seed='range(0,5)' n_learners=10 results_dir=results/{name}
    boostbench report leaderboard --results-dir results/{name}

Each record names this package and its version; the package's sources enter the runs' code
fingerprint, so an edit reruns its runs on the next sweep and nothing else.
"""


def class_name(name: str) -> str:
    """``my_boost`` -> ``MyBoost``."""
    return "".join(part.capitalize() for part in name.split("_") if part)


#: Per task: the booster and test templates, and what the README runs it on and beside
TASKS = {
    "multiclass": (
        BOOSTER,
        TEST,
        {
            "dataset": "car",
            "knob": "algorithm.vote=hard",
            "peers": "adaboost_olm,online_boosting",
            "datasets": "car,balance",
        },
    ),
    "multilabel": (
        RANKER,
        RANKER_TEST,
        {
            "dataset": "emotions",
            "knob": "algorithm.learning_rate=0.5",
            "peers": "ada_olmr,online_bmr,river_binary_relevance",
            "datasets": "emotions,scene,yeast",
        },
    ),
}


def new_algorithm(name: str, directory: str | Path = ".", task: str = "multiclass") -> Path:
    """Write the project of a plugin algorithm ``name`` under ``directory`` (its folder: ``name``):
    a multiclass booster, or (``task="multilabel"``) a multi-label ranker.

    Returns:
        The project's folder.

    Raises:
        ConfigError: a name that cannot be an algorithm's (lower-case letters, digits and ``_``, a
            letter first) or that a registered algorithm has, a folder that exists already, or a
            task other than ``multiclass`` and ``multilabel``.
    """
    if task not in TASKS:
        raise ConfigError(f"--task must be multiclass or multilabel, not {task!r}")
    booster, test, examples = TASKS[task]
    from boostbench.algorithms import ALGORITHM_NAME, ALGORITHMS

    if not ALGORITHM_NAME.fullmatch(name):
        raise ConfigError(f"{name!r} cannot name an algorithm: use lower-case letters, digits and _, a letter first")
    if name in ALGORITHMS:
        raise ConfigError(f"algorithm {name!r} exists already: choose another name")
    root = Path(directory) / name
    if root.exists():
        raise ConfigError(f"{root} exists already: remove it or choose another --dir")
    fields = {
        "name": name,
        "package": f"boostbench_{name}",
        "distribution": f"boostbench-{name.replace('_', '-')}",
        "cls": class_name(name),
        "title": class_name(name),
        **examples,
    }
    files = {
        "pyproject.toml": PYPROJECT,
        "README.md": README,
        f"src/{fields['package']}/__init__.py": INIT,
        f"src/{fields['package']}/booster.py": booster,
        f"tests/test_{name}.py": test,
    }
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root.parent))  # whole or not at all
    try:
        for relative, template in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(template.format(**fields), encoding="utf-8")
        staging.rename(root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return root
