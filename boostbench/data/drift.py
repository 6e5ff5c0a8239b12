"""Streams from river: its synthetic generators (``river.datasets.synth``) and the real data sets
bundled inside its wheel (``river.datasets``: Bananas, Phishing, ImageSegments, Shuttle), as data sets.

A config with ``generator: river`` names a generator and its parameters (``stream``), and
optionally a second one it drifts to (``drift_to``) through river's ``ConceptDriftStream``
(a sigmoid switch centred at ``position``, ``width`` examples wide), for ``n_examples`` examples.
``position`` and ``width`` are example counts, or shares of ``n_examples`` when below 1 (so that
``dataset.n_examples=`` resizes a stream with its drift at the same place). Run seed ``s`` draws
the stream with seed ``generator_seed + s`` (each seed its own stream, as MOA's runs draw theirs).
A config with ``river_dataset: <class>`` reads that bundled file (offline: it ships in the wheel).
The papers' boosters never met drift; these streams are how one studies it with the same runner.

A generated stream is drawn once per (generator and its parameters, drift, seed, ``n_examples``)
and kept in the disk cache (``$BOOSTBENCH_CACHE/streams``, :mod:`boostbench.system.disk_cache`:
written atomically, its key and sha256 checked on load), where every algorithm's run of it reads
it back: river draws 100,000 examples in seconds, the cache in milliseconds.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import inspect
import json
from collections.abc import Iterable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
from omegaconf import OmegaConf

from boostbench.data.dataset import Dataset
from boostbench.errors import ConfigError
from boostbench.system.disk_cache import load_arrays, save_arrays
from boostbench.system.paths import cache_dir

BUNDLED = ("Bananas", "Phishing", "ImageSegments", "Shuttle")  # river's real sets with their file in the wheel


def _generator(entry: Any, seed: int):
    from river.datasets import synth

    name = str(entry.get("name"))
    cls = getattr(synth, name, None)
    if cls is None or not isinstance(cls, type):
        raise ConfigError(
            f"unknown river generator {name!r} (river.datasets.synth: e.g. SEA, Agrawal, LEDDrift, "
            "Hyperplane, RandomRBFDrift, RandomTree, STAGGER)"
        )
    params = dict(entry.get("params") or {})
    # RandomRBFDrift and RandomTree take seed_model / seed_tree and seed_sample instead of seed
    seeds = {p: seed for p in inspect.signature(cls).parameters if p.startswith("seed") and p not in params}
    try:
        return cls(**params, **seeds)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"river generator {name}: {exc}") from None


def _examples(spec: Any, key: str, default: float, n: int) -> int:
    """``dataset.<key>`` in examples: a count, or a share of ``n`` when it lies in (0, 1)."""
    value = float(spec.get(key, default))
    return round(value * n) if 0 < value < 1 else int(value)


def drift_region(spec: Any) -> tuple[int, int] | None:
    """Where a stream's concept drift is: ``(position, width)`` in examples (river's switch is
    centred at ``position`` and ``width`` examples wide), or None for a config without
    ``drift_to``. Unchecked (:func:`drift_dataset` checks them).
    """
    if spec.get("drift_to") is None:
        return None
    n = int(spec.get("n_examples") or 0)
    return _examples(spec, "position", n // 2, n), _examples(spec, "width", 1, n)


def stream_seed(spec: Any, run_seed: int) -> int:
    """The seed of run ``run_seed``'s draw of a generated stream: ``generator_seed + run_seed``."""
    return int(spec.get("generator_seed") or 0) + int(run_seed)


def drift_dataset(spec: Any, run_seed: int = 0) -> Dataset:
    """The stream a ``generator: river`` config describes, drawn once into arrays (or read back
    from the stream cache: see the module doc).

    Args:
        spec: the ``dataset`` config.
        run_seed: the run's seed (see :func:`stream_seed`).

    Returns:
        The data set, a :class:`Dataset`: ``X`` float64 ``(n_examples, d)`` in the generator's feature order,
        ``y`` int64 (the generator's labels in sorted order; booleans as 0/1), the features listed
        in ``nominal`` coded as categories.

    Raises:
        ConfigError: an unknown generator or parameter, a bad ``n_examples``, ``position`` or
            ``width``, or an unknown nominal feature.
    """
    seed = stream_seed(spec, run_seed)
    n = int(spec.get("n_examples") or 0)
    if n < 2:
        raise ConfigError(f"dataset.n_examples must be at least 2, got {spec.get('n_examples')}")
    drift = drift_region(spec)
    if drift is not None:
        # river's switch is 1 / (1 + exp(-4 (t - position) / width)): math.exp overflows past 709
        narrowest = int(np.ceil(4 * max(drift[0], n - drift[0]) / 700))
        if not 0 < drift[0] < n or drift[1] < narrowest:
            raise ConfigError(
                f"dataset.position must be in (0, {n}) and dataset.width at least {narrowest} "
                f"(river's drift switch overflows below), got {drift[0]} and {drift[1]}"
            )
    key = json.dumps(
        [
            _plain(spec.stream),
            _plain(spec.get("drift_to")),
            drift,
            seed,
            n,
            _plain(spec.get("nominal")),
            version("river"),
        ],
        sort_keys=True,
    )
    path = cache_dir("streams") / f"{spec.name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npz"
    examples = _draw(spec, seed, n, drift)  # lazy: checks the generators' names and parameters
    with _generating(path):  # a sweep's jobs wait for the one drawing the stream, then read it
        cached = load_arrays(path, key)
        if cached is not None:
            return _from_arrays(str(spec.name), cached)
        dataset = _to_dataset(str(spec.name), examples, spec.get("nominal"))
        save_arrays(path, key, **_to_arrays(dataset))  # best effort: a read-only cache draws again
    return dataset


def _plain(value: Any) -> Any:
    """A config entry as plain containers (for the cache key)."""
    return OmegaConf.to_container(value) if OmegaConf.is_config(value) else value


def _draw(spec: Any, seed: int, n: int, drift: tuple[int, int] | None) -> Iterable[tuple[dict, Any]]:
    """River's ``n`` first examples of the stream (drifting at ``drift``: position, width), an
    iterator that draws them as it is read.
    """
    from river.datasets import synth

    stream = _generator(spec.stream, seed)
    if drift is not None:
        stream = synth.ConceptDriftStream(
            stream, _generator(spec.drift_to, seed + 1), position=drift[0], width=drift[1], seed=seed
        )
    return stream.take(n)


@contextlib.contextmanager
def _generating(path: Path) -> Iterator[None]:
    """Hold an exclusive lock beside ``path`` (best effort: none where the cache is read-only or
    the filesystem refuses locks; the atomic write keeps the file whole either way).
    """
    from boostbench.system.cache_safety import make_private_dirs

    try:
        make_private_dirs(path.parent)
        handle = open(path.with_suffix(".lock"), "a")
    except OSError:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            pass
        yield


def _to_arrays(dataset: Dataset) -> dict[str, np.ndarray]:
    """A drawn stream as the cache's arrays (no pickles: names as unicode, categories as JSON)."""
    return {
        "X": dataset.X,
        "y": dataset.y,
        "nominal": dataset.nominal,
        "feature_names": np.array(dataset.feature_names, dtype=np.str_),
        "class_names": np.array(dataset.class_names, dtype=np.str_),
        "categories": np.str_(json.dumps(dataset.categories)),
    }


def _from_arrays(name: str, arrays: dict[str, np.ndarray]) -> Dataset:
    categories = tuple(None if c is None else tuple(c) for c in json.loads(str(arrays["categories"])))
    return Dataset(
        name=name,
        X=arrays["X"],
        y=arrays["y"],
        feature_names=tuple(map(str, arrays["feature_names"])),
        nominal=arrays["nominal"],
        categories=categories,
        class_names=tuple(map(str, arrays["class_names"])),
        n_train=None,
    )


def bundled_dataset(spec: Any) -> Dataset:
    """The real data set a ``river_dataset: <class>`` config names, read from river's wheel
    (no network: :data:`BUNDLED` are the sets whose file ships inside it).

    Returns:
        The data set, a :class:`Dataset` in river's file order (features as river yields them; see
        :func:`drift_dataset`).

    Raises:
        ConfigError: a class that is not one of :data:`BUNDLED`.
    """
    from river import datasets

    name = str(spec.river_dataset)
    if name not in BUNDLED:
        raise ConfigError(
            f"dataset.river_dataset must be one of river's bundled sets ({', '.join(BUNDLED)}), not {name!r}"
        )
    return _to_dataset(str(spec.name), getattr(datasets, name)(), spec.get("nominal"))


def bundled_path(name: str):
    """Where river's wheel keeps bundled set ``name``'s file (a :class:`pathlib.Path`)."""
    from pathlib import Path

    from river import datasets

    return Path(getattr(datasets, name)().path)


def _to_dataset(name: str, pairs: Iterable[tuple[dict, Any]], nominal_features: Any) -> Dataset:
    """River's ``(x, y)`` pairs as a :class:`Dataset`, the features in ``nominal_features`` coded
    as categories (their values in sorted order).
    """
    rows = list(pairs)
    names = list(rows[0][0])
    X = np.array([[x[f] for f in names] for x, _ in rows], dtype=np.float64)
    labels = [y for _, y in rows]
    classes = sorted(set(labels), key=lambda v: (str(type(v)), v))
    index = {c: i for i, c in enumerate(classes)}
    nominal_names = [str(f) for f in nominal_features or []]
    unknown = sorted(set(nominal_names) - {str(f) for f in names})
    if unknown:
        raise ConfigError(
            f"dataset.nominal: {unknown[0]!r} is not a feature of the stream (features: {', '.join(map(str, names))})"
        )
    nominal = np.array([str(f) in nominal_names for f in names])
    categories: list[tuple[str, ...] | None] = []  # a tuple in the Dataset
    for j, is_nominal in enumerate(nominal):
        if not is_nominal:
            categories.append(None)
            continue
        values, codes = np.unique(X[:, j], return_inverse=True)
        X[:, j] = codes
        categories.append(tuple(f"{v:g}" for v in values))
    return Dataset(
        name=name,
        X=X,
        y=np.array([index[v] for v in labels], dtype=np.int64),
        feature_names=tuple(str(f) for f in names),
        nominal=nominal,
        categories=tuple(categories),
        class_names=tuple(str(c) for c in classes),
        n_train=None,
    )
