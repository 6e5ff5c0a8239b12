"""A sweep's grid point, validated once in the sweep's process and carried to the job that runs it.

The sweeper composes a point, completes and validates it and computes its store key (the config
hash and the code fingerprint) before it looks the point up in the store; a point still to run
goes to the launcher with one more override, :data:`RESERVED`, that carries the validated config,
its key and its label (JSON, compressed, as an override's quoted string: it travels wherever the
launcher sends a job's overrides, another process with joblib, another machine with submitit or
Ray). The job's config loader (:class:`boostbench.runner.grid.ReusingConfigLoader`) takes it
instead of composing the point again, and only if the config still hashes to the key it came
with (:func:`carried`: the worker's own code computes the key, so a worker running other code, or
a changed override, composes and validates the point itself). The job then reads the point from
its config's :data:`MARK` key (:func:`from_job_config`) and builds the typed run config without
checking it again (:func:`boostbench.runner.config.run_config`).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

#: The override a launched point carries its validated config in (no config key: the loader
#: takes it out before anything composes; a user's ``+_boostbench_point=`` is refused as unknown)
RESERVED = "+_boostbench_point"
#: The key of a job's config that holds the carried point's key and label (set by the loader only)
MARK = "_boostbench_point"


@dataclasses.dataclass(frozen=True)
class ValidatedPoint:
    """A grid point as the sweeper validated it.

    Attributes:
        key: its store key (:func:`boostbench.system.fingerprint.run_key`).
        label: its name in the sweep's lines (:func:`boostbench.runner.grid.point_label`).
        config: the resolved, validated config (:attr:`boostbench.runner.sections.RunConfig.resolved`).
        choices: its config-group choices (Hydra's ``hydra.runtime.choices``, for the job's Hydra node).
    """

    key: str
    label: str
    config: Mapping[str, Any]
    choices: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def point_key(config: Mapping[str, Any]) -> str:
    """The store key of a resolved config, computed by this process's code.

    Raises:
        ConfigError: an unknown algorithm.
    """
    from boostbench.algorithms import algorithm_spec
    from boostbench.runner.identity import config_hash
    from boostbench.system.fingerprint import run_key

    spec = algorithm_spec(str(config["algorithm"]["name"]))
    return run_key(config_hash(dict(config), spec), algorithm=spec)


def _literal(value: Any) -> bool:
    """Whether ``value`` holds no string OmegaConf would read as an interpolation (``${``)."""
    if isinstance(value, str):
        return "${" not in value
    if isinstance(value, Mapping):
        return all(_literal(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_literal(v) for v in value)
    return True


def to_override(point: ValidatedPoint) -> str | None:
    """The override that carries ``point`` to its job; None when its config cannot be carried
    (a string with ``${`` would become an interpolation in the job's config: the job composes it).
    """
    if not _literal(dict(point.config)):
        return None
    data = json.dumps(dataclasses.asdict(point), separators=(",", ":"))
    text = base64.urlsafe_b64encode(zlib.compress(data.encode(), 6)).decode()
    return f"{RESERVED}='{text}'"  # the alphabet holds no quote or backslash


def split(lines: Sequence[str]) -> tuple[list[str], str | None]:
    """A job's overrides without the carried point's, and that one's value (None: none)."""
    rest, carried_text = [], None
    for line in lines:
        if line.startswith(RESERVED + "="):
            carried_text = line[len(RESERVED) + 1 :].strip("'")
        else:
            rest.append(line)
    return rest, carried_text


def carried(text: str) -> ValidatedPoint | None:
    """The point an override carries, if its config hashes, with this process's code, to the key
    it came with (None: it does not, or the text is no such point).
    """
    from boostbench.errors import BoostbenchError

    try:
        data = json.loads(zlib.decompress(base64.urlsafe_b64decode(text)))
        point = ValidatedPoint(str(data["key"]), str(data["label"]), data["config"], dict(data["choices"]))
        return point if isinstance(point.config, dict) and point_key(point.config) == point.key else None
    except (BoostbenchError, ValueError, KeyError, TypeError, AttributeError, zlib.error):
        return None


def from_job_config(cfg: Any) -> ValidatedPoint | None:
    """The carried point of a job's config (None: the job's config was composed, not carried)."""
    from omegaconf import OmegaConf

    mark = cfg.get(MARK) if hasattr(cfg, "get") else None
    if mark is None:
        return None
    data = OmegaConf.to_container(cfg, resolve=False)  # a job's config: no Hydra node, no interpolation
    config = {k: v for k, v in data.items() if k not in (MARK, "hydra")}
    return ValidatedPoint(str(mark.key), str(mark.label), config)
