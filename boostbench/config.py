"""Compose a run configuration with Hydra, validate it, and hash it.

Hydra's compose API does the composition (``configs/config.yaml`` and its groups) and parses
command-line overrides; its errors become one-line :class:`ConfigError` messages.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf

from boostbench.errors import ConfigError
from boostbench.paths import CONFIG_DIR

# Keys that say where things go or how they are shown, not what is computed. The top-level
# gamma is only a default: an algorithm that uses it holds the resolved value itself, so a gamma
# grid swept over an algorithm without gamma maps onto one record.
NON_SEMANTIC_KEYS = ("data_dir", "results_dir", "progress", "gamma", "n_rounds")  # n_rounds: as gamma
SPLIT_PROTOCOLS = ("kfold", "holdout")
BATCH_LEARNERS = ("tree", "naive_bayes", "tan", "ban")


def _group_options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))


GROUPS = ("dataset", "algorithm", "learner", "protocol", "experiment")


def check_group_overrides(overrides: Sequence[str]) -> None:
    """Check that every config-group choice (``dataset=car``, ``dataset=car,nursery``) exists.

    Raises:
        ConfigError: an unknown option; the message lists the available ones.
    """
    for item in overrides:
        key, _, value = item.partition("=")
        key = key.lstrip("+~")
        if not _ or key not in GROUPS or "(" in value:  # sweep functions are left to Hydra
            continue
        for choice in value.split(","):
            if choice.strip() not in _group_options(key):
                raise ConfigError(f"unknown {key} {choice.strip()!r} (available: {', '.join(_group_options(key))})")


def compose_config(overrides: Sequence[str] = ()) -> DictConfig:
    """Compose ``configs/config.yaml`` with Hydra ``overrides`` (``key=value`` strings).

    Raises:
        ConfigError: an override does not parse, names an unknown group option (the message
            lists the available ones) or an unknown key.
    """
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException, MissingConfigException
    from omegaconf.errors import OmegaConfBaseException

    check_group_overrides(overrides)
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            cfg = compose(config_name="config", overrides=list(overrides))
    except MissingConfigException as exc:
        raise ConfigError(str(exc).splitlines()[0]) from None
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        message = " ".join(str(exc).split())
        raise ConfigError(f"bad override: {message}") from None
    return cfg


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def validate(cfg: DictConfig) -> None:
    """Check the values a run depends on.

    Raises:
        ConfigError: n_learners < 1, a negative or non-integer seed, gamma outside (0, 1),
            final_fraction outside (0, 1], an unknown algorithm, n_rounds < 1, or a combination
            the algorithm cannot run (see :func:`incompatibility`).
    """
    from boostbench.boosters import algorithm_spec

    try:
        resolved = OmegaConf.to_container(cfg, resolve=True)
    except Exception as exc:  # interpolation errors
        raise ConfigError(f"cannot resolve configuration: {' '.join(str(exc).split())}") from None
    n_learners = resolved.get("n_learners")
    _require(isinstance(n_learners, int) and not isinstance(n_learners, bool) and n_learners >= 1,
             f"n_learners must be an integer >= 1, got {n_learners!r}")
    seed = resolved.get("seed")
    _require(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0,
             f"seed must be an integer >= 0, got {seed!r}")
    gamma = resolved.get("gamma")
    _require(isinstance(gamma, (int, float)) and not isinstance(gamma, bool) and 0.0 < gamma < 1.0,
             f"gamma must be in (0, 1), got {gamma!r}")
    fraction = resolved["protocol"].get("final_fraction", 0.2)
    _require(isinstance(fraction, (int, float)) and 0.0 < fraction <= 1.0,
             f"protocol.final_fraction must be in (0, 1], got {fraction!r}")
    reason = incompatibility(resolved)
    _require(reason is None, reason or "")
    spec = algorithm_spec(str(resolved["algorithm"]["name"]))
    if spec.family == "batch":
        rounds = resolved["algorithm"].get("n_rounds", 1)  # base: a single model
        _require(isinstance(rounds, int) and not isinstance(rounds, bool) and rounds >= 1,
                 f"n_rounds must be an integer >= 1, got {rounds!r}")


def incompatibility(cfg: DictConfig | dict) -> str | None:
    """Why the algorithm cannot run with this data set, learner or protocol (None if it can).

    These are combinations a grid over several axes produces (the sweep marks them n/a):
    a multiclass algorithm on multi-label data, a batch algorithm under an online protocol or
    over Hoeffding trees, an online algorithm over batch trees, a tree-only booster over a
    Bayesian network, a multi-label algorithm under k-fold.
    """
    from boostbench.boosters import algorithm_spec

    resolved = OmegaConf.to_container(cfg, resolve=True) if isinstance(cfg, DictConfig) else cfg
    name = str(resolved["algorithm"]["name"])
    spec = algorithm_spec(name)
    task = resolved["dataset"].get("task", "multiclass")
    protocol, learner = resolved["protocol"]["name"], resolved["learner"]["name"]
    if task != spec.task:
        return f"algorithm {name!r} is for {spec.task} data; dataset {resolved['dataset'].get('name')!r} is {task}"
    if spec.family == "batch":
        if protocol not in SPLIT_PROTOCOLS:
            return f"algorithm {name!r} is a batch algorithm: use protocol=kfold or protocol=holdout, not {protocol!r}"
        if learner not in BATCH_LEARNERS:
            return f"algorithm {name!r} is a batch algorithm: it needs learner={', '.join(BATCH_LEARNERS)}, not {learner!r}"
        if learner != "tree" and spec.cls.needs_trees:
            return f"algorithm {name!r} fits per-label tree hypotheses: it needs learner=tree, not {learner!r}"
        return None
    if learner == "tree":
        return (f"algorithm {name!r} is online: it needs online weak learners (learner=hoeffding_tree, "
                "naive_bayes, tan or ban), not learner=tree")
    if protocol in SPLIT_PROTOCOLS and task != "multiclass":
        return f"protocol {protocol!r} is for multiclass data; multi-label algorithms use protocol=train_test"
    return None


def resolved_dict(cfg: DictConfig) -> dict[str, Any]:
    """The configuration as plain JSON-able data, interpolations resolved."""
    return OmegaConf.to_container(cfg, resolve=True)


def config_hash(cfg: DictConfig | dict) -> str:
    """SHA-256 (hex, first 16 chars) of the resolved config without non-semantic keys.

    Two runs with the same hash compute the same numbers (up to timing).
    """
    data = resolved_dict(cfg) if isinstance(cfg, DictConfig) else dict(cfg)
    semantic = {k: v for k, v in data.items() if k not in NON_SEMANTIC_KEYS}
    text = json.dumps(semantic, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
