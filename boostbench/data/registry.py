"""The data-set registry: one Hydra config per data set under ``configs/dataset/``.

A data set is found, in order: as an absolute ``file``; under the data directory
(``data_dir`` in the config, or ``$BOOSTBENCH_DATA_DIR``); under the repository's vendored
``datasets/``; and, failing all, through OpenML by its integer id, in openml-python's own cache
(which works offline once filled: ``boostbench datasets --fetch NAME``).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from omegaconf import DictConfig, OmegaConf

from boostbench.data.config import DatasetConfig
from boostbench.data.dataset import Dataset, MultilabelDataset

if TYPE_CHECKING:
    from boostbench.data.loaders import RawTable
from boostbench.errors import ConfigError, DataError
from boostbench.system.paths import CONFIG_DIR, VENDORED_DATA_DIR


@dataclass(frozen=True)
class DatasetInfo:
    """One registry entry and whether its file can be read here."""

    name: str
    task: str
    openml_id: int | None
    file: str | None
    location: Path | None  # the local file found, None if absent
    description: str
    ordered: bool = False  # a stream: its order is the data: never shuffled (see is_stream)


GENERATED = Path("(generated)")  # the "location" of a data set made by a generator


def data_dirs(data_dir: str | os.PathLike | None) -> list[Path]:
    """Directories searched for relative data files, most specific first: ``data_dir``,
    ``$BOOSTBENCH_DATA_DIR``, the working directory (a user's ``dataset.file=mine.csv``), then
    the vendored data inside the package.
    """
    dirs = []
    for candidate in (data_dir, os.environ.get("BOOSTBENCH_DATA_DIR")):
        if candidate:
            dirs.append(Path(candidate).expanduser())
    dirs += [Path.cwd(), VENDORED_DATA_DIR]
    return dirs


def locate(file: str, data_dir: str | os.PathLike | None) -> Path | None:
    """The first existing path for ``file`` (absolute, or relative to a data directory), a regular
    file or not (a reader names what it is: a directory, a FIFO...).
    """
    path = Path(file).expanduser()
    if path.is_absolute():
        return path if path.exists() else None
    for directory in data_dirs(data_dir):
        if (directory / path).exists():
            return directory / path
    return None


def registry_specs() -> dict[str, DictConfig]:
    """Every ``configs/dataset/*.yaml``, by file stem (templates such as ``csv`` included)."""
    specs = {}
    for path in sorted((CONFIG_DIR / "dataset").glob("*.yaml")):
        specs[path.stem] = OmegaConf.load(path)
    return specs


def dataset_spec(name: str) -> DictConfig:
    """The registry entry ``configs/dataset/<name>.yaml``, as a run's ``dataset`` config holds it.

    Raises:
        ConfigError: an unknown name (the message lists the known ones).
    """
    from boostbench.constraints import entry

    return entry("dataset", name, registry_specs())


def spec_files(spec: DictConfig | DatasetConfig) -> dict[str, str]:
    """The files an entry reads, by role: ``{"data": file}``, or MULAN's train/test/labels."""
    return DatasetConfig.of(spec).source_files


def available_datasets(data_dir: str | None = None) -> list[DatasetInfo]:
    """The registry with, for each entry, the local file found (if any)."""
    infos = []
    for stem, entry in registry_specs().items():
        spec = DatasetConfig.of(entry)
        files = spec.source_files
        found = {role: locate(path, data_dir) for role, path in files.items()}
        if spec.generator:
            files, found = {"data": f"generator:{spec.generator}"}, {"data": GENERATED}
        elif spec.river_dataset:
            from boostbench.data.drift import bundled_path

            files, found = {"data": f"river:{spec.river_dataset}"}, {"data": bundled_path(str(spec.river_dataset))}
        infos.append(
            DatasetInfo(
                name=stem,
                task=str(spec.task),
                openml_id=spec.openml_id,
                file=next(iter(files.values()), None),
                location=next(iter(found.values())) if files and all(found.values()) else None,
                description=str(spec.description),
                ordered=spec.ordered,
            )
        )
    return infos


def is_stream(spec: DictConfig | dict) -> bool:
    """Whether a data set is a stream whose order is the data (``ordered: true`` in its registry
    entry: the generated and drifting streams): a protocol never shuffles it.
    """
    return bool(spec.get("ordered", False))


def _check_sha256(path: Path, expected: str | None) -> None:
    from boostbench.data.loaders import sha256_of

    if expected and sha256_of(path) != expected:
        raise DataError(
            f"{path}: sha256 does not match the registry ({expected[:12]}...): "
            "the file is not the one the configuration describes"
        )


def file_format(path: Path, spec: DictConfig | DatasetConfig) -> str:
    """How a data file is read: ``dataset.format`` (``csv``, ``arff``), or for ``auto`` (the
    default) its suffix (``.arff``: ARFF, else CSV).
    """
    kind = str(DatasetConfig.of(spec).format)
    return ("arff" if path.suffix.lower() == ".arff" else "csv") if kind == "auto" else kind


def _read_local(path: Path, spec: DatasetConfig) -> RawTable:
    # the readers (and encoding) use pandas: imported when a file is read, not for a generated set
    from boostbench.data.loaders import check_data_file, expand_characters, read_arff_table, read_csv_table

    check_data_file(path)  # before its digest: /dev/zero has no end
    _check_sha256(path, spec.sha256)
    kind = file_format(path, spec)
    if kind == "arff":
        if spec.csv_only:
            unused = spec.csv_only[0]
            value = getattr(spec, unused)
            raise ConfigError(
                f"dataset.{unused}={list(value) if isinstance(value, tuple) else value!r} is for a CSV file; "
                f"{path} is read as ARFF (its header declares the attributes): leave dataset.{unused} out"
            )
        return read_arff_table(path)
    if kind != "csv":
        raise ConfigError(f"dataset.format must be csv, arff or auto, not {kind!r}")
    sep = spec.sep
    raw = read_csv_table(
        path,
        sep=None if sep is None else "\t" if sep == "\\t" else str(sep),  # None: sniffed; \t typed: a tab
        header=bool(spec.header),
        columns=list(spec.columns) if spec.columns else None,
        skip_rows=int(spec.skip_rows),
        comment=spec.comment,
    )
    for column, prefix in (spec.expand_characters or {}).items():
        raw = expand_characters(raw, str(column), str(prefix))
    return raw


def load_raw(spec: DictConfig | DatasetConfig, data_dir: str | None = None) -> RawTable:
    """Read the data set's cells from its local file, or else from OpenML.

    Raises:
        DataError: not found locally and not obtainable from OpenML (the message says where it
            looked and why the download failed), or the file is malformed.
    """
    spec = DatasetConfig.of(spec)
    name, file, openml_id = spec.name, spec.file, spec.openml_id
    if file is None and openml_id is None:
        raise ConfigError(f"data set {name!r} needs dataset.file=<path> (or an openml_id)")
    path = locate(str(file), data_dir) if file is not None else None
    if path is not None:
        return _read_local(path, spec)
    if file is not None and Path(str(file)).is_absolute():
        raise DataError(f"{file}: file not found")
    looked = looked_in(data_dir)
    if openml_id is None:
        raise DataError(f"data file {file!r} not found in {looked}: give its path, or its folder as data_dir=...")
    try:
        from boostbench.data.loaders import fetch_openml_table

        return fetch_openml_table(int(openml_id))
    except DataError as exc:
        where = f"file {file!r} not found in {looked}" if file is not None else "it is not vendored"
        raise DataError(f"data set {name!r} is not available here: {where}; {exc}") from None


def looked_in(data_dir: str | os.PathLike | None) -> str:
    """The directories a relative data file is looked for in (:func:`data_dirs`), each with what it is."""
    roles = {Path.cwd(): "the working directory", VENDORED_DATA_DIR: "the vendored data"}
    if data_dir:
        roles.setdefault(Path(data_dir).expanduser(), "data_dir")
    if os.environ.get("BOOSTBENCH_DATA_DIR"):
        roles.setdefault(Path(os.environ["BOOSTBENCH_DATA_DIR"]).expanduser(), "$BOOSTBENCH_DATA_DIR")
    return ", ".join(f"{roles[d]} {d}" for d in data_dirs(data_dir))


def load_multilabel(spec: DictConfig | DatasetConfig, data_dir: str | None = None) -> MultilabelDataset:
    """Load a MULAN entry (``files: {train, test, labels}``, optional ``sha256`` per role).

    Raises:
        DataError: a file is absent here (the message says where it looked), fails its sha256,
            or is malformed.
    """
    spec = DatasetConfig.of(spec)
    files = spec.source_files
    if set(files) != {"train", "test", "labels"}:
        raise ConfigError(f"multilabel data set {spec.name!r} needs files: {{train, test, labels}}")
    paths = {}
    for role, file in files.items():
        path = locate(file, data_dir)
        if path is None:
            raise DataError(
                f"data set {spec.name!r} is not available here: {role} file {file!r} "
                f"not found in {looked_in(data_dir)} (put MULAN's files there, or set data_dir=)"
            )
        _check_sha256(path, (spec.sha256 or {}).get(role))
        paths[role] = path
    from boostbench.data.mulan import load_mulan

    return load_mulan(str(spec.name), paths["train"], paths["test"], paths["labels"])


ENCODINGS = ("nominal", "reference")


def _recode(spec: DatasetConfig) -> dict | None:
    """The words to read as numbers: ``dataset.recode`` under ``dataset.encoding: reference``
    (the authors' loader; see ``configs/dataset/car.yaml``), else none.

    Raises:
        ConfigError: an unknown encoding, or ``reference`` without a ``recode`` mapping.
    """
    encoding = spec.encoding
    if encoding not in ENCODINGS:
        raise ConfigError(f"dataset.encoding must be one of {', '.join(ENCODINGS)}, got {encoding!r}")
    if encoding == "nominal":
        return None
    if not spec.recode:
        raise ConfigError(f"dataset.encoding=reference needs dataset.recode for data set {spec.name!r}")
    return {str(column): dict(words) for column, words in spec.recode.items()}


def load_dataset(spec: DictConfig, data_dir: str | None = None, seed: int = 0) -> Dataset | MultilabelDataset:
    """Load and encode the data set a ``configs/dataset`` entry describes.

    Args:
        seed: the run's seed; a river generator draws its stream with ``generator_seed + seed``
            (:func:`boostbench.data.drift.stream_seed`), other data sets ignore it.

    Returns:
        The data set, a :class:`Dataset` (``task: multiclass``) or a :class:`MultilabelDataset` (``multilabel``).

    Raises:
        DataError / ConfigError: see :func:`load_raw` and :func:`boostbench.data.encoding.encode`.
    """
    typed = DatasetConfig.of(spec)  # what follows reads; a generator reads its own keys of ``spec``
    if typed.generator == "random_bn":
        from boostbench.data.synthetic import synthetic_dataset

        return synthetic_dataset(
            str(spec.name), int(spec.level), int(spec.n_train), int(spec.n_test), int(spec.generator_seed)
        )
    if typed.generator == "river":
        from boostbench.data.drift import drift_dataset

        return drift_dataset(spec, seed)
    if typed.generator == "moa_multilabel":
        from boostbench.data.moa_multilabel_stream import moa_multilabel_dataset

        return moa_multilabel_dataset(spec, seed)
    if typed.river_dataset:
        from boostbench.data.drift import bundled_dataset

        return bundled_dataset(spec)
    if typed.generator:
        from boostbench.data.shaped import shaped_dataset

        return shaped_dataset(spec)
    if typed.task == "multilabel":
        return load_multilabel(typed, data_dir)
    raw = load_raw(typed, data_dir)
    class_column = typed.class_column
    if raw.source.startswith("openml:"):  # the registry's name for it, else OpenML's default target
        class_column = typed.openml_target or raw.default_target or class_column
    if class_column is None:
        raise ConfigError(f"data set {typed.name!r} needs dataset.class_column")
    from boostbench.data.encoding import encode

    dataset = encode(
        raw,
        name=str(typed.name),
        class_column=class_column,
        nominal=typed.nominal if isinstance(typed.nominal, str) else list(typed.nominal),
        drop_columns=list(typed.drop_columns),
        missing=list(typed.missing),
        class_names=list(typed.class_names) if typed.class_names else None,
        drop_classes=list(typed.drop_classes),
        max_classes=int(typed.max_classes),
        recode=_recode(typed),
        decimal=str(typed.decimal),
    )
    if typed.n_train is not None:  # a fixed train/test split: the first n_train rows train
        dataset = dataclasses.replace(dataset, n_train=int(typed.n_train))
    return dataset
