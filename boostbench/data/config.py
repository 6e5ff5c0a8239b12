"""The ``dataset`` config section, typed: what the data layer reads of a registry entry or a user's
file (``configs/dataset/*.yaml``), built once per load from the section
(:meth:`DatasetConfig.of`) and read by :mod:`boostbench.data.registry` instead of the mapping.

A field's default is what the key's absence means to the readers. A generator's own keys
(``stream``, ``drift_to``, ``generator_params``, ...) stay with the generator
(:mod:`boostbench.data.drift`, :mod:`boostbench.data.shaped`), which reads the section itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from omegaconf import DictConfig, OmegaConf

#: The keys only a CSV file's reader reads, at the values that mean nothing (``configs/dataset/csv.yaml``'s)
CSV_KEYS = {"sep": None, "header": True, "columns": None, "skip_rows": 0, "comment": None, "decimal": "."}
#: Keys whose null means their default (a list left empty, the class bound)
_NULL_IS_DEFAULT = ("nominal", "drop_columns", "missing", "drop_classes", "max_classes", "format", "encoding")


@dataclass(frozen=True)
class DatasetConfig:
    """The ``dataset`` section as the data layer reads it.

    Attributes:
        name: the data set's name (a file's stem for a user's file).
        task: ``"multiclass"`` or ``"multilabel"``.
        file: the data file (a path, found by :func:`boostbench.data.registry.locate`), or None.
        files: a MULAN entry's files by role (``train``, ``test``, ``labels``), or None.
        format: ``"auto"`` (by suffix), ``"csv"`` or ``"arff"``.
        sha256: the file's digest (a MULAN entry's: by role), checked before it is read.
        openml_id: where to fetch it when no file is here; ``openml_target`` its class there.
        class_column: the class attribute's name, or its position (negative: from the end).
        class_names: the classes in code order (None: the sorted values found).
        nominal: ``"auto"``, ``"all"`` or the nominal attributes' names.
        drop_columns: attributes that are not features; ``drop_classes``: classes whose rows go.
        missing: the cell values that mean missing.
        max_classes: more distinct class values than this are refused.
        encoding: ``"nominal"``, or ``"reference"`` (``recode``'s words read as numbers).
        recode: column -> {word: number}, for ``encoding: reference``.
        decimal: a CSV's decimal mark; ``sep`` its separator (None: sniffed; a backslash-t typed: a
            tab), ``header`` whether its first line names the columns, ``columns`` the names
            otherwise, ``skip_rows`` lines before the table, ``comment`` a comment marker,
            ``expand_characters`` column -> prefix of a column of characters spread into columns.
        n_train: a fixed split: the first n_train rows train (None: none).
        generator: a generator's name (``random_bn``, ``river``, a shaped one), or None.
        river_dataset: a river-bundled data set's name, or None.
        ordered: a stream whose order is the data (never shuffled).
        description: one line for ``boostbench datasets``.
        csv_only: the CSV-only keys given at a value that means something (an ARFF file refuses them).
    """

    name: str = "?"
    task: str = "multiclass"
    file: str | None = None
    files: Mapping[str, str] | None = None
    format: str = "auto"
    sha256: Any = None
    openml_id: int | None = None
    openml_target: str | None = None
    class_column: str | int | None = None
    class_names: tuple | None = None
    nominal: str | tuple = "auto"
    drop_columns: tuple = ()
    missing: tuple = ("?", "")
    drop_classes: tuple = ()
    max_classes: int = 100
    encoding: str = "nominal"
    recode: Mapping[str, Mapping[str, float]] | None = None
    decimal: str = "."
    sep: str | None = ","
    header: bool = False
    columns: tuple | None = None
    skip_rows: int = 0
    comment: str | None = None
    expand_characters: Mapping[str, str] | None = None
    n_train: int | None = None
    generator: str | None = None
    river_dataset: str | None = None
    ordered: bool = False
    description: str = ""
    csv_only: tuple[str, ...] = ()

    @classmethod
    def of(cls, section: DictConfig | Mapping[str, Any] | DatasetConfig) -> DatasetConfig:
        """The typed form of a ``dataset`` section (a typed one: as it is). Its values are the
        section's (checked by :func:`boostbench.runner.config.validate`); ``???`` (unset) and, for
        the keys of :data:`_NULL_IS_DEFAULT`, null mean the default.
        """
        if isinstance(section, DatasetConfig):
            return section
        data = OmegaConf.to_container(section, resolve=True) if isinstance(section, DictConfig) else dict(section)
        known = {f.name for f in fields(cls)} - {"csv_only"}
        values = {
            key: tuple(value) if isinstance(value, list) else value
            for key, value in data.items()
            if key in known and value != "???" and not (value is None and key in _NULL_IS_DEFAULT)
        }
        given = [k for k, neutral in CSV_KEYS.items() if data.get(k, neutral) not in (neutral, [])]
        if data.get("expand_characters"):
            given.append("expand_characters")
        return cls(**values, csv_only=tuple(given))

    @property
    def source_files(self) -> dict[str, str]:
        """The files it reads, by role: ``{"data": file}``, or MULAN's train/test/labels."""
        if self.files:
            return {str(role): str(path) for role, path in self.files.items()}
        return {} if self.file is None else {"data": str(self.file)}
