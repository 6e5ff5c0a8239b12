"""A run's identity: the part of its config that decides its numbers, and the hash of it.

A stored run is found again by its hash, so the hash of a configuration must not move when the
config's form does. The form changed twice since runs were first stored, and each change is a
step of :func:`hash_form`, which turns today's config into the form the stored runs were hashed
in (a stored run's config, in its own form, passes through unchanged):

1. keys added to a section later (:data:`ADDED_KEYS`, :data:`ADDED_ALGORITHM_KEYS`) are left out at
   the value that computes what the runs before them computed;
2. ``gamma`` and ``n_rounds`` moved from the top level into the ``algorithm`` section
   (:data:`boostbench.algorithms.SHORT_FORMS`): an algorithm that declares it uses one
   (:attr:`~boostbench.algorithms.AlgorithmSpec.uses`) is hashed with it at the top level too, as
   the top-level key was then interpolated into its section.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig

from boostbench.runner.checks import PRESENTATION_KEYS

if TYPE_CHECKING:
    from boostbench.algorithms import AlgorithmSpec

#: Keys added after runs were stored, at the value that computes what those runs computed: left
#: out of the hash at that value, so a stored run keeps its hash (by section; and by algorithm, in
#: its section)
ADDED_KEYS = {"protocol": {"fading": None}, "learner": {"naive_bayes": "river"}}
ADDED_ALGORITHM_KEYS = {
    "ada_olmr": {"compiled": True},
    **{
        f"river_{name}": {"leaf_prediction": None}
        for name in ("adaboost", "adwin_boosting", "bole", "arf", "srp", "leveraging_bagging")
    },
}


def resolved_dict(cfg: DictConfig | dict) -> dict[str, Any]:
    """The configuration as plain JSON-able data, interpolations resolved (a dict: as it is).

    Raises:
        ConfigError: an interpolation cannot be resolved.
    """
    from omegaconf import OmegaConf

    from boostbench.errors import ConfigError

    if not isinstance(cfg, DictConfig):
        return cfg
    try:
        return OmegaConf.to_container(cfg, resolve=True)
    except Exception as exc:  # interpolation errors
        raise ConfigError(f"cannot resolve configuration: {' '.join(str(exc).split())}") from None


def hash_form(data: dict[str, Any], spec: AlgorithmSpec) -> dict[str, Any]:
    """``data`` (a resolved config) in the form stored runs were hashed in: step 2 of the module's
    migrations (a short-form knob the algorithm uses, copied to the top level from its section,
    unless the config holds it there already, as a stored run's does).
    """
    from boostbench.algorithms import SHORT_FORMS

    algorithm = data.get("algorithm") or {}
    moved = {k: algorithm[k] for k in SHORT_FORMS if k in spec.uses and k in algorithm and data.get(k) is None}
    return {**data, **moved} if moved else data


def semantic_config(cfg: DictConfig | dict, spec: AlgorithmSpec | None = None) -> dict[str, Any]:
    """The part of a resolved config that decides the numbers, in :func:`hash_form`: without the
    presentation keys and without the top-level knobs (:data:`boostbench.algorithms.KNOBS`) the
    algorithm does not declare it uses (e.g. ``n_learners`` for one VFDT), and without the
    ``learner`` for a peer (it brings its own), without a key of :data:`ADDED_KEYS` (or
    :data:`ADDED_ALGORITHM_KEYS`) at its neutral value; a data set's ``moved_rows`` only under a
    fixed shuffle (``protocol.shuffle_seed``), the one order it decides. ``spec``: the algorithm's
    registry entry, if resolved already.

    Raises:
        ConfigError: unknown algorithm.
    """
    from boostbench.algorithms import KNOBS, algorithm_spec

    data = resolved_dict(cfg) if isinstance(cfg, DictConfig) else dict(cfg)
    spec = spec or algorithm_spec(str(data["algorithm"]["name"]))
    data = hash_form(data, spec)
    semantic = {
        k: v
        for k, v in data.items()
        if k not in PRESENTATION_KEYS and (k not in KNOBS or k in spec.uses) and not (k == "learner" and spec.peer)
    }
    added = {**ADDED_KEYS, "algorithm": ADDED_ALGORITHM_KEYS.get(str(data["algorithm"]["name"]), {})}
    for section, keys in added.items():
        if isinstance(semantic.get(section), dict):
            semantic[section] = {k: v for k, v in semantic[section].items() if k not in keys or v != keys[k]}
    if (semantic.get("protocol") or {}).get("shuffle_seed") is None and "moved_rows" in (semantic.get("dataset") or {}):
        # the source's row order decides only a fixed shuffle (protocol.shuffle_seed)
        semantic["dataset"] = {k: v for k, v in semantic["dataset"].items() if k != "moved_rows"}
    return semantic


def config_hash(cfg: DictConfig | dict, spec: AlgorithmSpec | None = None) -> str:
    """SHA-256 (hex, first 16 chars) of :func:`semantic_config`.

    Two runs with the same hash compute the same numbers (up to timing).

    Raises:
        ConfigError: unknown algorithm.
    """
    text = json.dumps(semantic_config(cfg, spec), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
