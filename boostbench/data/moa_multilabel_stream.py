"""MOA's multi-label stream generator as data sets: ``generator: moa_multilabel`` configs draw
MetaMultilabelGenerator's stream (label priors, pairwise label dependencies, and a binary
generator's attributes per frequent label combination), without drift or drifting to a second
generator of the same meta seed whose label dependencies change (``drift_to``: its ``-r`` ratio,
as MOA's option text says to make label-dependence drift),
through MOA's ConceptDriftStream's switch (:mod:`~boostbench.data.moa_stream_worker`).

The stream is drawn once per (its parameters, drift, seed, ``n_examples``) by a Python that has
capymoa (:func:`~boostbench.boosters.peers.moa_peers.moa_python`) and kept in the stream cache
(``$BOOSTBENCH_CACHE/streams``), as the river streams are (:mod:`boostbench.data.drift`). Run seed
``s`` draws with seed ``generator_seed + s`` (MOA's meta, tree and instance seeds, and the
switch's); a stream is ordered (never shuffled): its first ``n_train`` examples (a share below 1)
are the train part of the train -> test protocol, the rest its test part.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from boostbench.data.dataset import MultilabelDataset
from boostbench.data.drift import _examples, _generating, _plain, drift_region, stream_seed
from boostbench.errors import ConfigError, DataError
from boostbench.system.disk_cache import load_arrays, save_arrays
from boostbench.system.paths import cache_dir

WORKER = Path(__file__).with_name("moa_stream_worker.py")
#: MetaMultilabelGenerator's options by config name, with MOA's letters
OPTIONS = {"n_labels": "-c", "cardinality": "-z", "dependency": "-u", "dependency_change": "-r"}


def command_line(params: Any, seed: int) -> str:
    """MetaMultilabelGenerator's MOA command line for ``params`` (:data:`OPTIONS`, and
    ``binary_generator``: its binary stream's command line, ``{seed}`` standing for the seed).

    Raises:
        ConfigError: an unknown parameter, or a label cardinality above the number of labels
            (MOA would end the process).
    """
    params = dict(_plain(params) or {})
    unknown = sorted(set(params) - {*OPTIONS, "binary_generator"})
    if unknown:
        raise ConfigError(
            f"dataset.stream.{unknown[0]}: MetaMultilabelGenerator takes {', '.join(OPTIONS)}, binary_generator"
        )
    if float(params.get("cardinality", 1.5)) > int(params.get("n_labels", 10)):
        raise ConfigError("dataset.stream.cardinality must not exceed dataset.stream.n_labels")
    binary = str(params.pop("binary_generator", "generators.RandomTreeGenerator -r {seed} -i {seed} -c 2")).format(
        seed=seed
    )
    options = " ".join(f"{OPTIONS[key]} {value}" for key, value in sorted(params.items()))
    return f"generators.multilabel.MetaMultilabelGenerator -m {seed} {options} -s ({binary})"


def moa_multilabel_dataset(spec: Any, run_seed: int = 0) -> MultilabelDataset:
    """The stream a ``generator: moa_multilabel`` config describes, drawn once (or read back from
    the stream cache).

    Returns:
        The stream, a :class:`MultilabelDataset`: ``X`` ``(n_examples, d)`` float64 (nominal attributes as
        codes), ``Y`` ``(n_examples, k)`` bool, ``n_train`` its first part.

    Raises:
        ConfigError: a bad ``n_examples``, ``n_train``, ``position``, ``width`` or generator
            parameter. DataError: no Python with capymoa, or MOA failed (its reason).
    """
    seed = stream_seed(spec, run_seed)
    n = int(spec.get("n_examples") or 0)
    n_train = _examples(spec, "n_train", 0.5, n)
    if n < 2 or not 0 < n_train < n:
        raise ConfigError(f"dataset.n_examples must be at least 2 and n_train in (0, n_examples), got {n}, {n_train}")
    drift = drift_region(spec)
    if drift is not None and not (0 < drift[0] < n and drift[1] > 0):
        raise ConfigError(f"dataset.position must be in (0, {n}) and dataset.width positive, got {drift}")
    job = {
        "stream": command_line(spec.stream, seed),
        "drift_to": None if drift is None else command_line({**_plain(spec.stream), **_plain(spec.drift_to)}, seed),
        "n": n,
        "seed": seed,
        "position": None if drift is None else drift[0],
        "width": None if drift is None else drift[1],
    }
    key = json.dumps(job, sort_keys=True)
    path = cache_dir("streams") / f"{spec.name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npz"
    with _generating(path):  # a sweep's jobs wait for the one drawing the stream, then read it
        arrays = load_arrays(path, key)
        if arrays is None:
            arrays = _draw(job)
            save_arrays(path, key, **arrays)  # best effort: a read-only cache draws again
    d, k = arrays["X"].shape[1], arrays["Y"].shape[1]
    categories = tuple(tuple(str(v) for v in range(m)) if m else None for m in arrays["n_categories"].tolist())
    return MultilabelDataset(
        name=str(spec.name),
        X=arrays["X"],
        Y=arrays["Y"].astype(bool),
        feature_names=tuple(f"x{j}" for j in range(d)),
        nominal=arrays["n_categories"] > 0,
        categories=categories,
        label_names=tuple(f"class{j}" for j in range(k)),
        n_train=n_train,
    )


def _draw(job: dict) -> dict[str, np.ndarray]:
    """The stream drawn by the MOA worker (in a Python that has capymoa)."""
    from boostbench.boosters.peers.moa_peers import last_error, moa_python

    try:
        python = moa_python()
    except ValueError as exc:
        raise DataError(f"MOA's multi-label generator: {exc}") from None
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "stream.npz"
        done = subprocess.run(
            [python, str(WORKER)], input=json.dumps({**job, "out": str(out)}), capture_output=True, text=True
        )
        if done.returncode != 0 or not out.exists():
            raise DataError(f"MOA's multi-label generator failed: {last_error(done.stderr)}")
        with np.load(out) as drawn:
            return {name: drawn[name] for name in ("X", "Y", "n_categories")}
