"""The short forms of the algorithms' knobs: ``gamma=0.05`` and ``n_rounds=50`` on the command
line, folded into the algorithm section (``algorithm.gamma``, ``algorithm.n_rounds``) of the
algorithms that take them (:data:`boostbench.algorithms.SHORT_FORMS`), refused in one line for
one that does not.
"""

from __future__ import annotations

from typing import Any

from boostbench.algorithms import SHORT_FORMS, algorithm_spec
from boostbench.errors import ConfigError


def fold_short_forms(cfg: Any, strict: bool | frozenset[str] = True) -> Any:
    """Move each top-level short form (``gamma=0.05``, :data:`SHORT_FORMS`) of a config (a
    DictConfig, changed in place, or a resolved dict, copied) into its algorithm section as that
    hyper-parameter, and drop the top-level key (null: the algorithm's own value).

    Args:
        strict: refuse a short form given to an algorithm without that parameter (a run; a set:
            those short forms only, the ones its command line gave); else drop it (a grid point of
            such an algorithm is the point without it, as is an experiment's grid-wide value).

    Raises:
        ConfigError: ``strict`` and the algorithm has no such parameter (the line names the
            algorithm and the parameters it takes).
    """
    from contextlib import nullcontext

    from omegaconf import DictConfig, open_dict

    given = [key for key in SHORT_FORMS if key in cfg]
    if not given:
        return cfg
    if isinstance(cfg, DictConfig):
        opened = open_dict(cfg)
    else:
        cfg, opened = {**cfg, "algorithm": dict(cfg["algorithm"])}, nullcontext()
    with opened:
        for key in given:
            value, algorithm = cfg[key], cfg["algorithm"]
            del cfg[key]
            if value is None:
                continue
            if key in algorithm:
                algorithm[key] = value
            elif strict is True or (not isinstance(strict, bool) and key in strict):
                raise ConfigError(short_form_refusal(key, value, str(algorithm["name"])))
    return cfg


def short_form_refusal(key: str, value: Any, algorithm: str) -> str:
    """The one line refusing ``key=value`` (a short form) for an algorithm without that parameter."""
    spec = algorithm_spec(algorithm)
    takes = sorted(set(spec.params) - set(spec.fixed))
    return (
        f"{key}={value}: algorithm {algorithm!r} has no {key} "
        f"({'its parameters: ' + ', '.join(takes) if takes else 'it takes no parameters'})"
    )
