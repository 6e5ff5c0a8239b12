"""Drift streams: river's synthetic generators (``river.datasets.synth``) as data sets.

A config with ``generator: river`` names a generator and its parameters (``stream``), and
optionally a second one it drifts to (``drift_to``) through river's ``ConceptDriftStream``
(a sigmoid switch centred at ``position``, ``width`` examples wide), for ``n_examples`` examples.
``generator_seed`` seeds every generator. The papers' boosters never met drift; these streams
are how one studies it with the same runner (``dataset=sea_drift``, ``agrawal_drift``,
``led_drift``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boostbench.data.dataset import Dataset
from boostbench.errors import ConfigError


def _generator(entry: Any, seed: int):
    from river.datasets import synth

    name = str(entry.get("name"))
    cls = getattr(synth, name, None)
    if cls is None or not isinstance(cls, type):
        raise ConfigError(f"unknown river generator {name!r} (river.datasets.synth: e.g. SEA, Agrawal, LEDDrift, "
                          "Hyperplane, RandomRBFDrift, STAGGER)")
    try:
        return cls(**{**dict(entry.get("params") or {}), "seed": seed})
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"river generator {name}: {exc}") from None


def drift_dataset(spec: Any) -> Dataset:
    """The stream a ``generator: river`` config describes, drawn once into arrays.

    Returns:
        A :class:`Dataset`: ``X`` float64 ``(n_examples, d)`` in the generator's feature order,
        ``y`` int64 (the generator's labels in sorted order; booleans as 0/1), the features listed
        in ``nominal`` coded as categories.

    Raises:
        ConfigError: an unknown generator or parameter, a bad ``n_examples``, ``position`` or
            ``width``, or an unknown nominal feature.
    """
    from river.datasets import synth

    seed = int(spec.get("generator_seed") or 0)
    n = int(spec.get("n_examples") or 0)
    if n < 2:
        raise ConfigError(f"dataset.n_examples must be at least 2, got {spec.get('n_examples')}")
    stream = _generator(spec.stream, seed)
    if spec.get("drift_to") is not None:
        position, width = int(spec.get("position", n // 2)), int(spec.get("width", 1))
        # river's switch is 1 / (1 + exp(-4 (t - position) / width)): math.exp overflows past 709
        narrowest = int(np.ceil(4 * max(position, n - position) / 700))
        if not 0 < position < n or width < narrowest:
            raise ConfigError(f"dataset.position must be in (0, {n}) and dataset.width at least {narrowest} "
                              f"(river's drift switch overflows below), got {position} and {width}")
        stream = synth.ConceptDriftStream(stream, _generator(spec.drift_to, seed + 1), position=position, width=width,
                                          seed=seed)
    rows = list(stream.take(n))
    names = list(rows[0][0])
    X = np.array([[x[f] for f in names] for x, _ in rows], dtype=np.float64)
    labels = [y for _, y in rows]
    classes = sorted(set(labels), key=lambda v: (str(type(v)), v))
    index = {c: i for i, c in enumerate(classes)}
    nominal_names = [str(f) for f in spec.get("nominal") or []]
    unknown = sorted(set(nominal_names) - {str(f) for f in names})
    if unknown:
        raise ConfigError(f"dataset.nominal: {unknown[0]!r} is not a feature of the stream (features: "
                          f"{', '.join(map(str, names))})")
    nominal = np.array([str(f) in nominal_names for f in names])
    categories: list[tuple[str, ...] | None] = []  # a tuple in the Dataset
    for j, is_nominal in enumerate(nominal):
        if not is_nominal:
            categories.append(None)
            continue
        values, codes = np.unique(X[:, j], return_inverse=True)
        X[:, j] = codes
        categories.append(tuple(f"{v:g}" for v in values))
    return Dataset(name=str(spec.name), X=X, y=np.array([index[v] for v in labels], dtype=np.int64),
                   feature_names=tuple(str(f) for f in names), nominal=nominal, categories=tuple(categories),
                   class_names=tuple(str(c) for c in classes), n_train=None)
