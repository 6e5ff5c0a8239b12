"""Paper-shaped workloads: seeded stand-ins with the shape of the papers' largest data sets.

ISOLET, Movement, Covertype and the full mediamill (Jung et al. 2017, Table 1; Jung & Tewari
2018, Table 3) are where the papers' runtimes were spent, and they are not vendored. These
generators give streams of the same shape (rows, attributes and their kinds, classes and their
balance, label-set sizes) from scikit-learn's maintained generators, so that speed and memory can
be measured anywhere: ``dataset=isolet_like``, ``movement_like``, ``covertype_like``,
``mediamill_like`` (``configs/dataset/*_like.yaml``). Their accuracies say nothing about the
real data sets.

A config names the generator and passes its parameters straight through (``generator_params``),
with ``generator_seed`` as ``random_state``; ``binary_features: m`` turns the last m attributes
into nominal 0/1 attributes (each thresholded at its median, as Covertype's one-hot soil and
wilderness columns).

A generated set is kept in the disk cache (``$BOOSTBENCH_CACHE/datasets``, keyed by the
generator, its parameters, the seed and scikit-learn's version): later runs read it back
without generating it or importing scikit-learn (whose memory would count in their peak RSS).
"""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import version
from typing import Any

import numpy as np

from boostbench.data.dataset import Dataset, MultilabelDataset
from boostbench.errors import ConfigError
from boostbench.system.disk_cache import load_arrays, save_arrays
from boostbench.system.paths import cache_dir

GENERATORS = ("make_classification", "make_multilabel_classification")


def _params(spec: Any) -> dict[str, Any]:
    params = dict(spec.get("generator_params") or {})
    if "random_state" in params:
        raise ConfigError("generator_params.random_state: the seed is dataset.generator_seed")
    params["random_state"] = int(spec.get("generator_seed", 0))
    return params


def _features(X: np.ndarray, n_binary: int) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``X`` as float64 with its last ``n_binary`` columns made 0/1 codes; the nominal mask and
    the categories.
    """
    d = X.shape[1]
    if not 0 <= n_binary <= d:
        raise ConfigError(f"dataset.binary_features must be between 0 and {d}, got {n_binary}")
    X = np.asarray(X, dtype=np.float64)
    nominal = np.zeros(d, dtype=bool)
    if n_binary:
        tail = X[:, d - n_binary :]
        X[:, d - n_binary :] = (tail > np.median(tail, axis=0)).astype(np.float64)
        nominal[d - n_binary :] = True
    categories = tuple(("0", "1") if flag else None for flag in nominal)
    return X, nominal, categories


def _generate(kind: str, params: dict[str, Any], name: str) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ``kind(**params)``, from the disk cache when made before."""
    key = json.dumps([kind, params, version("scikit-learn")], sort_keys=True, default=str)
    path = cache_dir("datasets") / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npz"
    cached = load_arrays(path, key)
    if cached is not None:
        return cached["X"], cached["target"]
    from sklearn import datasets

    try:
        X, target = getattr(datasets, kind)(**params)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"dataset {name!r}: {kind}: {exc}") from None
    save_arrays(path, key, X=X, target=target)  # best effort: a read-only cache generates again
    return X, target


def shaped_dataset(spec: Any) -> Dataset | MultilabelDataset:
    """The data set a ``configs/dataset`` entry with ``generator: make_classification`` or
    ``make_multilabel_classification`` describes (see the module doc).

    Returns:
        The data set, a :class:`Dataset` (``X`` float64 ``(n, d)``, ``y`` int64) or, for the multi-label
        generator, a :class:`MultilabelDataset` (``Y`` bool ``(n, k)``) whose first ``n_train``
        rows train.

    Raises:
        ConfigError: an unknown generator, a parameter scikit-learn refuses (its message), or a
            bad ``binary_features`` / ``n_train``.
    """
    kind = str(spec.generator)
    if kind not in GENERATORS:
        raise ConfigError(f"unknown data generator {kind!r} (available: random_bn, {', '.join(GENERATORS)})")
    X, target = _generate(kind, _params(spec), str(spec.get("name")))
    X, nominal, categories = _features(X, int(spec.get("binary_features") or 0))
    names = tuple(f"x{j + 1}" for j in range(X.shape[1]))
    n_train = spec.get("n_train")
    if n_train is not None and not 0 < int(n_train) < len(X):
        raise ConfigError(f"dataset.n_train must be between 1 and {len(X) - 1}, got {n_train}")
    if kind == "make_multilabel_classification":
        if n_train is None:
            raise ConfigError(f"multi-label dataset {spec.get('name')!r} needs dataset.n_train (its train/test split)")
        Y = np.asarray(target, dtype=bool)
        return MultilabelDataset(
            name=str(spec.name),
            X=X,
            Y=Y,
            feature_names=names,
            nominal=nominal,
            categories=categories,
            label_names=tuple(f"l{c + 1}" for c in range(Y.shape[1])),
            n_train=int(n_train),
        )
    y = np.asarray(target, dtype=np.int64)
    return Dataset(
        name=str(spec.name),
        X=X,
        y=y,
        feature_names=names,
        nominal=nominal,
        categories=categories,
        class_names=tuple(str(c) for c in range(int(y.max()) + 1)),
        n_train=None if n_train is None else int(n_train),
    )
