"""The lines a run says before it starts, when the configuration chose something the command
line did not say.
"""

from __future__ import annotations

from collections.abc import Sequence

from omegaconf import DictConfig

from boostbench.algorithms import algorithm_spec


def batch_protocol_note(cfg: DictConfig, overrides: Sequence[str]) -> str | None:
    """The one line saying which protocol a batch algorithm runs under when the command line
    chose none: its config's split protocol (``kfold``), not the streaming default (None: an
    online algorithm, or ``protocol=`` given; a streaming one is refused by
    :func:`~boostbench.runner.config.incompatibility`).
    """
    if any(item.lstrip("+~").partition("=")[0] == "protocol" for item in overrides):
        return None
    name = str(cfg.algorithm.name)
    if algorithm_spec(name).family != "batch":
        return None
    protocol = cfg.protocol
    kfold = protocol.name == "kfold"
    what = f"{protocol.n_splits}-fold cross-validation" if kfold else "one train/test split"
    other = "protocol=holdout: one train/test split" if kfold else "protocol=kfold: cross-validation"
    return (
        f"note: algorithm {name!r} is a batch algorithm: it runs under protocol={protocol.name} ({what}) "
        f"with learner={cfg.learner.name}, not the streaming protocol=prequential ({other})"
    )
