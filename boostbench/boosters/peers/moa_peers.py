"""MOA's online ensembles as runner algorithms: its boosting family (``moa_ozaboost``,
``moa_ozaboost_adwin``, ``moa_adob``, ``moa_bole``, ``moa_ocboost``, ``moa_online_smooth_boost``,
``moa_sgbt``), ``moa_dems``, and the stream-ensemble baselines (``moa_arf``,
``moa_srp``, ``moa_leveraging_bagging``); peers in the same tables as the papers' algorithms,
run as MOA ships them (its trees and defaults) through capymoa. ``moa`` runs any MOA classifier
its command line names (``algorithm.cli="meta.OzaBoostAdwin -s 10"``), as capymoa's
``MOAClassifier`` does: a class of the command line's choice, so an override of it is code
(``--allow-code-overrides``, :mod:`boostbench.runner.checks`).

capymoa needs Java and pins an older pandas than boostbench, so it usually lives in its own
environment (``make bench-moa-setup`` makes ``.venv-moa``): the ensemble runs in a child process
of that Python (:mod:`boostbench.boosters.peers.moa_worker`), fed the stream in chunks. The runner's
``runtime_s`` includes the pipe and capymoa's per-instance calls from Python; MOA's own Java
loop (``benchmarks/moa_ozaboost.py``) is faster.

A peer is scored as MOA scores it: empty votes predict class 0 (:data:`NO_VOTES_LABEL`), so its
predictions equal capymoa's ``prequential_evaluation`` (MOA's own loop) example for example.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.boosters.peers.moa_worker import CLI_ENSEMBLES, ENSEMBLES, ERROR_MARK, _read, _write, learner_name
from boostbench.constraints import Constraint, Matches, OneOf
from boostbench.errors import PeerError
from boostbench.system.paths import REPO_ROOT

WORKER = Path(__file__).with_name("moa_worker.py")
#: The label a MOA peer scores when its votes are empty or all zero (before it has learnt, or an
#: ensemble whose members all lost their weight): class 0, the first index of the largest vote, as
#: MOA's evaluators take it (``Utils.maxIndex`` in ``BasicClassificationPerformanceEvaluator`` and
#: ``EfficientEvaluationLoops``; capymoa's ``ClassificationEvaluator`` scores its ``None`` so too).
#: A uniform draw instead would miss MOA's own figures by an example or two.
NO_VOTES_LABEL = 0


def moa_python() -> str:
    """A Python that has capymoa: this one, ``$BOOSTBENCH_MOA_PYTHON``, or the checkout's
    ``.venv-moa``.

    Raises:
        ValueError: none (the message says how to make one).
    """
    if importlib.util.find_spec("capymoa") is not None:
        return sys.executable
    for candidate in (os.environ.get("BOOSTBENCH_MOA_PYTHON"), str(REPO_ROOT / ".venv-moa" / "bin" / "python")):
        if candidate and Path(candidate).exists():
            return candidate
    raise ValueError(
        "MOA's ensembles need capymoa and Java: `make bench-moa-setup` makes .venv-moa with capymoa, "
        "or set BOOSTBENCH_MOA_PYTHON to a Python that has it"
    )


def last_error(stderr: str, limit: int = 400) -> str:
    """A child process's ``stderr`` as one line for a failure's reason: the worker's marked error
    (:data:`~boostbench.boosters.peers.moa_worker.ERROR_MARK`), else the error a Python traceback ends
    with, else the last ``limit`` characters, whitespace collapsed.
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    marked = [line[len(ERROR_MARK) :] for line in lines if line.startswith(ERROR_MARK)]
    if marked:
        return marked[-1][:limit]
    if "Traceback (most recent call last):" in stderr and lines:
        return lines[-1]
    return " ".join(" ".join(lines).split())[-limit:]


class _MOAChild:
    """A MOA learner in a child process of a Python that has capymoa, running the script
    :attr:`_worker` (the process half of the MOA peers, multiclass and multi-label alike).
    """

    #: the worker script (None: :data:`WORKER`, looked up when the process starts)
    _worker: ClassVar[Path | None] = None

    def _start(self, setup: dict, n_classes: int, n_learners: int, n_categories) -> None:
        """Start the worker with ``setup`` (``ensemble`` or ``cli``, see
        :mod:`~boostbench.boosters.peers.moa_worker`) and wait for MOA to be ready.

        Raises:
            ValueError: no Python with capymoa (see :func:`moa_python`), or MOA did not start (its
                first cause in the message: an unknown class of a command line, say).
        """
        self._name = learner_name(setup)
        self._log = tempfile.TemporaryFile()  # the child's stderr (the JVM's messages), for errors
        self._process = subprocess.Popen(
            [moa_python(), str(self._worker or WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )
        self._x = None
        setup = {
            **setup,
            "n_learners": int(n_learners),
            "seed": int(self.rng.integers(2**31)),
            "n_classes": int(n_classes),
            "n_categories": [int(m) for m in n_categories],
        }
        try:
            ready = self._ask(("setup", setup), setup=True)
        except PeerError:
            ready = None
        if ready != "ready":
            raise ValueError(f"MOA did not start ({moa_python()}): {self._stderr()}")

    def _stderr(self) -> str:
        """What the child said last, on one line: a Python traceback's last line (its error), else
        the tail of its messages (the JVM's).
        """
        self._log.seek(0)
        return last_error(self._log.read().decode(errors="replace"))

    def _ask(self, message, setup: bool = False, answer: bool = True):
        try:
            _write(self._process.stdin, message[1] if setup else message)
            return _read(self._process.stdout) if answer else None
        except (BrokenPipeError, OSError, EOFError) as exc:
            raise PeerError(f"MOA's {self._name} stopped: {self._stderr()}") from exc

    def close(self) -> None:
        """End the MOA process (also when the booster is collected)."""
        process = getattr(self, "_process", None)
        if process is not None and process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

    def __del__(self) -> None:
        self.close()

    def __getstate__(self):
        raise TypeError("a MOA peer lives in its own Java process and does not pickle")


class _MOAProcess(_MOAChild, OnlineBooster):
    """A MOA classifier in a child process (a peer: no pool); the subclasses say which
    (:meth:`_start`).
    """

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        self._x = np.asarray(x, dtype=np.float64)
        proba = self._ask(("proba", self._x))
        if proba is None or not np.any(proba):
            return np.full(self.n_classes, 1.0 / self.n_classes)
        proba = np.resize(np.asarray(proba, dtype=np.float64), self.n_classes)
        return proba / proba.sum()

    def predict(self, x: np.ndarray) -> int:
        """MOA's prediction; class 0 while its votes are empty or all zero, as MOA's evaluators
        score it (:data:`NO_VOTES_LABEL`).
        """
        self._x = np.asarray(x, dtype=np.float64)
        label = int(self._ask(("predict", self._x)))
        return NO_VOTES_LABEL if label < 0 else label

    def update(self, y: int) -> None:
        self._ask(("learn", (self._x, int(y))), answer=False)

    def test_then_train(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """One message per chunk: MOA predicts then trains on each row in its process (a row it
        has no prediction for scores class 0, as :meth:`predict`).
        """
        labels = self._ask(("test_then_train", (np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64))))
        labels[labels < 0] = NO_VOTES_LABEL
        return labels


class MOAEnsemble(_MOAProcess):
    """One of MOA's ensembles over N of MOA's trees (a peer: no pool), each with MOA's defaults:
    through capymoa's classes, OzaBoost, OnlineSmoothBoost, StreamingGradientBoostedTrees (over
    FIMT-DD regression trees), AdaptiveRandomForest, StreamingRandomPatches, LeveragingBagging;
    through their MOA command lines, OzaBoostAdwin, ADOB, BOLE, OCBoost (MOA's purpose string: for
    two classes; run as shipped on any k) and DynamicEnsembleMemberSelection (over
    StreamingRandomPatches).

    Args:
        pool: None (the ensemble has its own trees).
        n_classes: k, the number of classes.
        rng: the generator the ensemble's seed is drawn from.
        ensemble: a key of :data:`~boostbench.boosters.peers.moa_worker.ENSEMBLES` or of
            :data:`~boostbench.boosters.peers.moa_worker.CLI_ENSEMBLES`.
        n_learners: N, MOA's ``boosting_iterations``, ``ensemble_size`` or ``-s``.
        n_categories: ``(d,)`` category counts (0 = numeric), MOA's attribute types.

    Raises:
        ValueError: an unknown ``ensemble``, no Python with capymoa (see :func:`moa_python`), or
            MOA did not start.
        PeerError: (from the methods) MOA stopped with an error of its own, its first cause in the
            message: SGBT's FIMT-DD trees raise a NullPointerException on some missing values.
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"ensemble": OneOf((*ENSEMBLES, *CLI_ENSEMBLES))}

    def __init__(self, pool, n_classes, rng, *, ensemble: str, n_learners: int, n_categories):
        super().__init__(pool, n_classes, rng)
        self._validate_params(ensemble=ensemble)
        self.ensemble = ensemble
        self._start({"ensemble": ensemble}, n_classes, n_learners, n_categories)


class MOALearner(_MOAProcess):
    """Any MOA classifier, named by its command line as MOA's own option parser reads it
    (``ClassOption.cliStringToObject``, what capymoa's ``MOAClassifier`` is given): e.g.
    ``meta.OzaBoostAdwin -s 10 -l (trees.HoeffdingTree -g 50)``. A peer: its own learners and
    defaults; N and the ``learner`` config do not apply.

    Args:
        pool: None. n_classes, rng: k and the generator MOA's seed is drawn from.
        cli: the classifier's command line: its class under ``moa.classifiers`` (or a full name),
            then its options.
        n_learners: unused (the command line says it). n_categories: as :class:`MOAEnsemble`'s.

    Raises:
        ValueError: a command line MOA refuses (its message), or see :class:`MOAEnsemble`.
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "cli": Matches(r"[A-Za-z_][\w.$]*(\s.*)?", "a MOA classifier's command line (class, then options)")
    }

    def __init__(self, pool, n_classes, rng, *, cli: str = "trees.HoeffdingTree", n_learners: int, n_categories):
        super().__init__(pool, n_classes, rng)
        self._validate_params(cli=cli)
        self.cli = cli
        self._start({"cli": cli}, n_classes, n_learners, n_categories)
