"""What weak learners a run used, in words a reader can compare: the label a report's row carries.

Our boosters take theirs from the run's ``learner`` config: the ``configs/learner/`` file it
matches (``hoeffding_tree``: the papers' trees, per-tree draws of delta, tau, grace period and
weight; ``hoeffding_tree_defaults``: river's Hoeffding-tree defaults; ``hoeffding_tree_moa``: MOA's,
whose naive Bayes differs), with the keys
where it differs from that file. A peer (river's, MOA's, VW's ensembles) brings its own learners
and ignores the ``learner`` config: its label says which, from its library's defaults
(river's ``river.ensemble`` / ``river.forest``, capymoa's wrappers of MOA).

A label has two parts: the ``kind`` of trees, equal for any two runs whose trees are built alike
whichever library builds them (ours on ``hoeffding_tree_defaults`` and river's AdaBoost both
grow Hoeffding trees with grace 200, delta 1e-7, tau 0.05 and naive-Bayes-adaptive leaves with
river's naive Bayes; ours on ``hoeffding_tree_moa`` and MOA's OzaBoost the same with MOA's), and
the ``label`` shown, which also names a peer's library.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omegaconf import OmegaConf

from boostbench.system.paths import CONFIG_DIR

#: The kind of trees river's Hoeffding trees have at their defaults (grace period 200, split
#: confidence 1e-7, tie threshold 0.05, naive-Bayes-adaptive leaves with river's naive Bayes)
HT_DEFAULTS = "HT defaults"
#: MOA's at its defaults: the same, but MOA's naive Bayes (Laplace-corrected nominal counts, MOA's
#: Gaussian estimator), which predicts otherwise on nominal attributes
HT_DEFAULTS_MOA = "HT defaults, MOA's naive Bayes"
#: A ``configs/learner/`` file's name in a report (files not listed: their own name)
LEARNER_NAMES = {
    "hoeffding_tree": "papers' trees",
    "hoeffding_tree_mlr": "papers' trees",
    "hoeffding_tree_defaults": HT_DEFAULTS,
    "hoeffding_tree_moa": HT_DEFAULTS_MOA,
}
#: Keys of a learner config that do not change its trees: how they are computed (the same
#: numbers from the compiled pool and from river's)
NOT_TREES = ("backend",)
#: Per peer, its library and the kind of its learners (the defaults its library builds it with)
PEER_LEARNERS: dict[str, tuple[str, str]] = {
    **{
        f"river_{name}": ("river", HT_DEFAULTS) for name in ("adaboost", "adwin_boosting", "bole", "leveraging_bagging")
    },
    "river_srp": ("river", "HT grace 50, delta 0.01"),
    "river_arf": ("river", "ARF trees"),
    **{
        f"moa_{name}": ("MOA", HT_DEFAULTS_MOA)
        for name in ("ozaboost", "ozaboost_adwin", "ocboost", "online_smooth_boost", "leveraging_bagging")
    },
    # MOA's ADOB and BOLE wrap each tree in a drift detector that replaces it (SingleClassifierDrift)
    "moa_adob": ("MOA", "HT defaults, replaced on drift (ADWIN)"),
    "moa_bole": ("MOA", "HT defaults, replaced on drift (DDM)"),
    # ARF's and SRP's trees have naive-Bayes-adaptive leaves in both libraries, each with its own
    # naive Bayes, so river's and MOA's are not of a kind (as at the Hoeffding-tree defaults)
    "moa_srp": ("MOA", "HT grace 50, delta 0.01, MOA's naive Bayes"),
    "moa_dems": ("MOA", "HT grace 50, delta 0.01, MOA's naive Bayes"),
    "moa_arf": ("MOA", "ARF trees, MOA's naive Bayes"),
    "moa_sgbt": ("MOA", "FIMT-DD regression trees"),
    "vw_boosting": ("VW", "linear learners"),
    # multi-label peers: river's trees one per label; MOA's multi-label trees (majority label set
    # at the leaves), alone or bagged; MOA's iSOUP multi-target regression trees
    **{
        f"river_{name}": ("river", "HT defaults, one per label")
        for name in ("binary_relevance", "classifier_chain", "mc_classifier_chain")
    },
    **{
        f"moa_{name}": ("MOA", "multi-label HT defaults")
        for name in ("ml_hoeffding_tree", "ozabag_ml", "ozabag_adwin_ml")
    },
    "moa_isoup_tree": ("MOA", "iSOUP regression trees"),
}


@dataclass(frozen=True)
class WeakLearners:
    """A run's weak learners: ``kind`` (runs of one kind grow the same trees) and ``label`` (what
    a report shows: the kind, and for a peer its library).
    """

    kind: str
    label: str


@functools.cache
def learner_files() -> dict[str, dict[str, Any]]:
    """Every ``configs/learner/*.yaml`` as plain data, by file stem."""
    return {
        path.stem: OmegaConf.to_container(OmegaConf.load(path), resolve=True)
        for path in sorted((CONFIG_DIR / "learner").glob("*.yaml"))
    }


def _text(value: Any) -> str:
    return json.dumps(value) if isinstance(value, list | dict) else str(value)


def _differences(learner: Mapping[str, Any], default: Mapping[str, Any]) -> list[str]:
    """``key=value`` for each key of ``learner`` (a record's) whose value is not ``default``'s;
    keys the record lacks (written before they existed) are not differences.
    """
    return [
        f"{key}={_text(value)}"
        for key, value in learner.items()
        if key not in NOT_TREES and key != "name" and (key not in default or default[key] != value)
    ]


def learner_file(learner: Mapping[str, Any]) -> str | None:
    """The ``configs/learner/`` file (its stem, the ``learner=`` option) of a ``learner`` config (a
    record's): among the files of its ``name`` (any file when none has it) the one it differs
    least from, among equals the file named as the learner; None when there is no file.
    """
    files = learner_files()
    name = str(learner.get("name", ""))
    candidates = {stem: spec for stem, spec in files.items() if spec.get("name") == name} or files
    if not candidates:
        return None
    return min(candidates, key=lambda s: (len(_differences(learner, candidates[s])), s != name, s))


def of_learner(learner: Mapping[str, Any]) -> WeakLearners:
    """The weak learners of a ``learner`` config (a record's): its ``configs/learner/`` file
    (:func:`learner_file`), named as :data:`LEARNER_NAMES` says, followed by the keys where the
    config differs from it.
    """
    stem = learner_file(learner)
    if stem is None:
        name = str(learner.get("name", ""))
        return WeakLearners(name, name)
    diffs = _differences(learner, learner_files()[stem])
    text = ", ".join([LEARNER_NAMES.get(stem, stem), *diffs])
    return WeakLearners(text, text)


def of_peer(algorithm: str) -> WeakLearners:
    """A peer's own learners (:data:`PEER_LEARNERS`; another peer: its library's own learners,
    the library read from the name's prefix).
    """
    if algorithm not in PEER_LEARNERS:  # built alike by no other algorithm we know of
        label = f"{algorithm.split('_')[0]}'s own learners"
        return WeakLearners(f"{label} ({algorithm})", label)
    library, kind = PEER_LEARNERS[algorithm]
    return WeakLearners(kind, f"{library}'s {kind}")


def of_config(config: Mapping[str, Any]) -> WeakLearners:
    """The weak learners of a run's config: its peer's own (:func:`of_peer`) or its ``learner``
    config's (:func:`of_learner`).
    """
    from boostbench.algorithms import ALGORITHMS

    name = str(config["algorithm"]["name"])
    spec = ALGORITHMS.get(name)
    if spec is not None and spec.peer:
        return of_peer(name)
    return of_learner(config.get("learner") or {})
