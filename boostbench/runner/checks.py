"""Checks on the inputs that reach the file system, run code or size a run's memory.

A result store or a cache may be shared (a cluster's file system, a lab's results directory), so
nothing read from one, and nothing typed on a command line, is trusted to name a path, to pick
code to run or to ask for more memory than the machine has:

- names that become file names (a data set's, an algorithm's, ...) are single safe path
  components (:func:`name_problem`), at config time and when a record is read;
- overrides that run code (``_target_``, ``hydra.callbacks``, a job's environment, ...) need the
  user's explicit opt-in, and none deletes a key (:func:`check_overrides`);
- a configuration holds every key it needs (:func:`check_required`), only declared keys, data-set
  values of their declared types, usable paths and seeds the generators take
  (:func:`check_config`), and a pool that cannot fit in memory is refused before it is built;
- a cache directory that other users can write is refused
  (:mod:`boostbench.system.cache_safety`).

Every check raises :class:`~boostbench.errors.ConfigError` (or returns a reason) in one line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from boostbench.algorithms import SHORT_FORMS
from boostbench.constraints import BOOLEAN, AnyOf, Interval, ListOf, OneOf, Text, check, positive_int
from boostbench.errors import ConfigError

# -- names that become file names -------------------------------------------------------------------
#: A word character first (no hidden file, no leading space or dash), then word characters and
#: ``. _ - + = @`` and spaces; never a separator, a control character or ``..``
# Keys that do not change the numbers (left out of the config hash): where data and results are,
# the progress bar, and the threads of a run (any number gives the same trees, bit for bit)
PRESENTATION_KEYS = ("data_dir", "results_dir", "progress", "n_threads")
# The keys a run configuration has (configs/config.yaml, and its groups)
TOP_LEVEL_KEYS = {
    "dataset",
    "learner",
    "protocol",
    "algorithm",
    "n_learners",
    "seed",
    *SHORT_FORMS,
    "preset",
    *PRESENTATION_KEYS,
}
_NAME = re.compile(r"\w[\w .+=@-]{0,127}")
#: The config sections whose ``name`` reaches a file name (figures, tables, the shaped data sets'
#: cache files)
NAMED_SECTIONS = ("dataset", "algorithm", "learner", "protocol")


def name_problem(value: Any) -> str | None:
    """Why ``value`` cannot be one component of a path (None: it can)."""
    if not isinstance(value, str):
        return f"{value!r} is not a string"
    if not _NAME.fullmatch(value) or ".." in value or value != value.rstrip(". "):
        return (
            f"{value!r} cannot name a file: use letters, digits, spaces and . _ - + = @ (no path separator, "
            f"no '..', at most 128 characters)"
        )
    return None


def config_name_problem(config: Mapping[str, Any]) -> str | None:
    """Why a run config's names cannot become file names (None: they can): each section's
    ``name`` (:data:`NAMED_SECTIONS`) and the preset's.
    """
    for section in NAMED_SECTIONS:
        part = config.get(section)
        if not isinstance(part, Mapping):
            return f"{section} is not a mapping"
        problem = name_problem(part.get("name"))
        if problem is not None:
            return f"{section}.name {problem}"
    preset = config.get("preset")
    if preset is not None and not isinstance(preset, Mapping):  # a mapping: not applied yet
        problem = name_problem(preset)
        if problem is not None:
            return f"preset {problem}"
    return None


def record_problem(record: Mapping[str, Any]) -> str | None:
    """Why a record read from a store must not be used (None: it can): its names would become
    paths (:func:`config_name_problem`), or its key is not a key.
    """
    if not isinstance(record.get("config"), Mapping):
        return "its config is not a mapping"
    for field in ("config_hash", "code"):  # they make the path of the record's curves
        value = record.get(field, "")
        if not isinstance(value, str) or not re.fullmatch(r"\w{0,64}", value) or (field == "config_hash" and not value):
            return f"{field} {value!r} is not a digest"
    if not isinstance(record["config"].get("n_learners"), int):
        return f"n_learners {record['config'].get('n_learners')!r} is not an integer"
    return config_name_problem(record["config"])


# -- overrides that run code --------------------------------------------------------------------------
ALLOW_CODE_FLAG = "--allow-code-overrides"
#: Override keys (and their sub-keys) that make Hydra run code or start processes of the user's
#: choice: callbacks, a job's environment (LD_PRELOAD, PYTHONPATH), where configs are searched,
#: the SLURM launcher's shell setup lines; and the MOA command line of algorithm=moa (any class
#: on MOA's class path, with its options)
CODE_KEYS = (
    "hydra",
    "hydra.callbacks",
    "hydra/callbacks",
    "hydra.job.env_set",
    "hydra.job.env_copy",
    "hydra.searchpath",
    "hydra.launcher.setup",
    "algorithm.cli",
)


def check_overrides(overrides: Sequence[str], allow_code: bool = False) -> None:
    """Refuse an override without a key (``=car``), one that deletes a key or a group
    (``~learner.max_size``, ``~algorithm``: a run needs every key its configs declare; its absence
    would change a default unseen), and
    overrides that run code unless the user opted in (:data:`ALLOW_CODE_FLAG`): any ``_target_``
    (Hydra instantiates it), and the keys of :data:`CODE_KEYS`.

    Raises:
        ConfigError: the first such override, what to do instead, or the flag that allows it.
    """
    for item in overrides:
        key, eq, _ = item.partition("=")
        if eq and not key.lstrip("+~"):
            raise ConfigError(f"override {item!r} names no key: write key=value (e.g. seed=3)")
        if item.startswith("~"):
            key = item[1:].partition("=")[0]
            instead = f"choose another option ({key}=...)" if key in NAMED_SECTIONS else f"set it ({key}=...)"
            raise ConfigError(
                f"override {item!r} deletes {key!r}: a run needs every key its configs declare; {instead}"
            )
    if allow_code:
        return
    for item in overrides:
        key = item.partition("=")[0].lstrip("+~")
        code = "_target_" in item or any(
            key == k if k == "hydra" else key == k or key.startswith(k + ".") for k in CODE_KEYS
        )
        if code:
            raise ConfigError(
                f"override {item!r} runs code of the command line's choice; if you mean it, add "
                f"{ALLOW_CODE_FLAG} (experiment configs are code too: see docs/running-experiments.md)"
            )


# -- the keys a configuration may have ----------------------------------------------------------------
#: Optional keys the data layer reads that no shipped config sets (declared extras)
DATASET_EXTRAS = (
    "max_classes",
    "sha256",
    "moved_rows",
    "drop_classes",
    "drop_columns",
    "class_names",
    "comment",
    "missing",
    "nominal",
    "recode",
    "skip_rows",
    "header",
    "sep",
    "columns",
    "expand_characters",
    "position",
    "width",
    "drift_to",
    "files",
    "format",
    "openml_target",
    "description",
    "encoding",
    "decimal",
)


#: What the data layer reads of a ``dataset`` section (:mod:`boostbench.data.registry`), as it must be
DATASET_CONSTRAINTS = {
    "header": BOOLEAN,
    "ordered": BOOLEAN,
    # one character; a tab typed as \t; null: sniffed
    "sep": AnyOf((OneOf((None, "whitespace", "\\t")), Text(length=1))),
    "decimal": OneOf((".", ",")),
    "skip_rows": positive_int(0),
    "comment": Text(nullable=True),
    "format": OneOf((None, "auto", "csv", "arff")),
    "columns": ListOf(Text(), nullable=True, distinct=True),
    "max_classes": positive_int(2),
    "nominal": AnyOf((OneOf(("auto", "all")), ListOf(AnyOf((Text(), positive_int(0)))))),
    "drop_columns": ListOf(AnyOf((Text(), Interval(integer=True)))),
    "class_names": ListOf(AnyOf((Text(), Interval(integer=True))), nullable=True, distinct=True),
    "drop_classes": ListOf(AnyOf((Text(), Interval(integer=True)))),
    "missing": ListOf(Text(empty=True)),
}


def check_required(config: Mapping[str, Any]) -> None:
    """Refuse a configuration without a key every run needs: the top-level keys of
    ``configs/config.yaml`` (a key or group deleted, say through the Python API), its sections
    mappings with a ``name``.

    Raises:
        ConfigError: the first missing key, in one line.
    """
    for key in sorted(TOP_LEVEL_KEYS - {"preset", *SHORT_FORMS}):  # a short form: in its algorithm's section
        if key not in config:
            raise ConfigError(f"missing configuration key {key!r} (every run needs the keys of configs/config.yaml)")
    for section in NAMED_SECTIONS:
        if not isinstance(config[section], Mapping):
            raise ConfigError(f"{section} must be a config group, got {config[section]!r} (choose one: {section}=...)")
        if "name" not in config[section]:
            raise ConfigError(f"missing configuration key '{section}.name'")


@functools.cache
def _declared_keys(config_dir: str) -> dict[str, frozenset[str]]:
    """The keys each section is given anywhere in the configs under ``config_dir``: its group's
    files, the presets' entries, the experiments' sections and sweep axes (``section.key``).
    """
    from omegaconf import OmegaConf

    root = Path(config_dir)
    keys: dict[str, set[str]] = {section: set() for section in NAMED_SECTIONS}
    for section in NAMED_SECTIONS:
        for path in (root / section).glob("*.yaml"):
            keys[section] |= set(OmegaConf.to_container(OmegaConf.load(path)) or {}) - {"defaults"}
    for path in [*(root / "preset").glob("*.yaml"), *(root / "experiment").glob("*.yaml")]:
        data = OmegaConf.to_container(OmegaConf.load(path)) or {}
        for section, entries in (((data.get("preset") or {}).get("overrides")) or {}).items():
            for entry in (entries or {}).values():
                keys.get(section, set()).update(entry or {})
        for section in NAMED_SECTIONS:
            if isinstance(data.get(section), dict):
                keys[section] |= set(data[section])
        for axis in ((data.get("hydra") or {}).get("sweeper") or {}).get("params") or {}:
            section, _, key = axis.lstrip("+").partition(".")
            if key and section in keys:
                keys[section].add(key.partition(".")[0])
    return {section: frozenset(found) for section, found in keys.items()}


#: The sections whose keys are those of the option chosen (``algorithm=vfdt`` takes no ``gamma``)
OPTION_SECTIONS = ("algorithm", "learner", "protocol")
#: Keys a protocol reads beyond its config file's: a multiclass stream under ``train_test`` is
#: scored as a prequential pass is
PROTOCOL_EXTRAS = {"train_test": ("shuffle_seed", "max_examples", "window", "delay", "fading")}


@functools.cache
def _option_keys(config_dir: str) -> dict[str, dict[str, frozenset[str]]]:
    """The keys each option of :data:`OPTION_SECTIONS` is given, by its ``name``: its files' (a
    global-package file's section), the presets' entries for it and :data:`PROTOCOL_EXTRAS`.
    """
    from omegaconf import OmegaConf

    root = Path(config_dir)
    keys: dict[str, dict[str, set[str]]] = {section: {} for section in OPTION_SECTIONS}
    for section in OPTION_SECTIONS:
        for path in (root / section).glob("*.yaml"):
            data = OmegaConf.to_container(OmegaConf.load(path)) or {}
            node = data.get(section) if "defaults" in data else data
            if isinstance(node, dict) and isinstance(node.get("name"), str):
                keys[section].setdefault(node["name"], set()).update(node)
    for path in (root / "preset").glob("*.yaml"):
        data = OmegaConf.to_container(OmegaConf.load(path)) or {}
        for section, entries in (((data.get("preset") or {}).get("overrides")) or {}).items():
            for option, entry in (entries or {}).items():
                if section in keys:
                    keys[section].setdefault(option, set()).update(entry or {})
    for option, extras in PROTOCOL_EXTRAS.items():
        keys["protocol"].setdefault(option, set()).update(extras)
    return {section: {o: frozenset(k) for o, k in found.items()} for section, found in keys.items()}


def section_keys(section: str, declared: Mapping[str, Iterable[str]] = {}, option: str | None = None) -> frozenset[str]:
    """The keys ``section`` may have: for the ``option`` chosen of :data:`OPTION_SECTIONS`, its
    own (:func:`_option_keys`) and ``declared``'s for it (the algorithm's or learner's
    parameters); else those the configs give it anywhere (:func:`_declared_keys`), the data
    layer's extras (:data:`DATASET_EXTRAS`) and ``declared``'s.
    """
    from boostbench.system.paths import CONFIG_DIR

    given = set(declared.get(section, ()))
    if option is not None and section in OPTION_SECTIONS:
        return _option_keys(str(CONFIG_DIR))[section].get(option, frozenset()) | given | {"name"}
    extras = {"dataset": DATASET_EXTRAS}
    return _declared_keys(str(CONFIG_DIR))[section] | given | set(extras.get(section, ()))


def unknown_key(config: Mapping[str, Any], declared: Mapping[str, Iterable[str]]) -> str | None:
    """The first key of a section that its option (or, for the data set, nothing) declares
    (``section.key``), or None.

    Args:
        declared: extra keys each section may have beyond the configs' (its constraints).
    """
    for section in NAMED_SECTIONS:
        allowed = section_keys(section, declared, option_name(config, section))
        for key in config.get(section) or {}:
            if key not in allowed:
                return f"{section}.{key}"
    return None


def option_name(config: Mapping[str, Any], section: str) -> str | None:
    """The option chosen for ``section`` (its ``name``; None: not a string)."""
    name = (config.get(section) or {}).get("name")
    return name if isinstance(name, str) else None


def unknown_key_message(key: str, config: Mapping[str, Any], declared: Mapping[str, Iterable[str]]) -> str:
    """The one line refusing ``key`` (``section.name...``): the closest key the section's option
    takes, or the keys it takes.
    """
    from boostbench.suggest import did_you_mean

    section, _, rest = key.partition(".")
    first = rest.partition(".")[0]
    option = option_name(config, section)
    allowed = section_keys(section, declared, option)
    hint = did_you_mean(first, allowed, prefix=f"{section}.")
    if option is not None and section in OPTION_SECTIONS:
        return f"unknown configuration key {key!r}{hint}: {section} {option!r} takes {', '.join(sorted(allowed))}"
    return f"unknown configuration key {key!r}" + (
        hint or " (a section takes its config's keys and its algorithm's or learner's parameters)"
    )


# -- paths and seeds -----------------------------------------------------------------------------------
#: The largest seed every generator takes: MOA's (a Java int); numpy's RandomState and
#: scikit-learn's random_state take < 2**32
MAX_SEED = 2**31 - 1
SEED_KEYS = (("seed",), ("protocol", "shuffle_seed"), ("dataset", "generator_seed"))


#: The longest file name (bytes) and path Linux file systems take (NAME_MAX, PATH_MAX)
NAME_MAX, PATH_MAX = 255, 4096


def check_paths(config: Mapping[str, Any]) -> None:
    """``results_dir`` and ``data_dir`` of a config (composed or resolved) checked as paths
    (:func:`path_problem`), before anything opens them.

    Raises:
        ConfigError: the first problem, in one line.
    """
    for name in ("results_dir", "data_dir"):
        problem = path_problem(name, config.get(name))
        if problem is not None:
            raise ConfigError(problem)


def path_problem(key: str, value: Any) -> str | None:
    """Why ``value`` cannot be the path ``key`` (None: it can): not a string (``[a,b]``), empty, a
    control character (a newline makes a second line of every log and a directory no shell
    names), or a name longer than a file system takes (:data:`NAME_MAX`, :data:`PATH_MAX` bytes).
    """
    if value is None:
        return None
    if not isinstance(value, (str, Path)):
        shown = list(value) if isinstance(value, Sequence) else dict(value) if isinstance(value, Mapping) else value
        return f"{key} must be one directory, a string, not {shown!r}: {key}=DIR"
    text = str(value)
    if not text.strip():
        return f"{key} is empty: give a directory"
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        return f"{key} {text!r} holds a control character ({bad!r})"
    sizes = {part: len(part.encode("utf-8", "surrogateescape")) for part in Path(text).parts}
    long = next((part for part, size in sizes.items() if size > NAME_MAX), None)
    if long is not None:
        return (
            f"{key}: the name {long[:40]}... is {sizes[long]} bytes, more than the {NAME_MAX} a file "
            f"system takes: give a shorter one"
        )
    if len(text.encode("utf-8", "surrogateescape")) >= PATH_MAX:
        return f"{key} is longer than a path may be ({PATH_MAX} bytes): give a shorter one"
    return None


def check_config(config: Mapping[str, Any], declared: Mapping[str, Iterable[str]] = {}) -> None:
    """Everything of a resolved run config that reaches a path, a generator or memory: names
    (:func:`config_name_problem`), declared keys only (:func:`unknown_key`), the data set's values
    (:data:`DATASET_CONSTRAINTS`) and ``progress`` of their types, ``results_dir`` and
    ``data_dir`` (:func:`path_problem`; ``data_dir`` must be a directory), the seeds
    (:data:`MAX_SEED`), the pool's memory (:func:`pool_memory_problem`).

    Raises:
        ConfigError: the first problem, in one line (an unknown key with the closest declared one).
    """
    problem = config_name_problem(config)
    if problem is not None:
        raise ConfigError(problem)
    key = unknown_key(config, declared)
    if key is not None:
        raise ConfigError(unknown_key_message(key, config, declared))
    check("", config, {"progress": BOOLEAN})
    check("dataset", config["dataset"], DATASET_CONSTRAINTS)
    check_paths(config)
    data_dir = config.get("data_dir")
    if data_dir is not None and not Path(str(data_dir)).expanduser().is_dir():
        reason = "does not exist" if not Path(str(data_dir)).expanduser().exists() else "is not a directory"
        raise ConfigError(f"data_dir {str(data_dir)!r} {reason}")
    for path in SEED_KEYS:
        value = functools.reduce(lambda part, k: part.get(k) if isinstance(part, Mapping) else None, path, config)
        if isinstance(value, int) and value > MAX_SEED:
            raise ConfigError(
                f"{'.'.join(path)} must be at most {MAX_SEED} (2**31 - 1, the largest seed every "
                f"generator takes), got {value}"
            )
    problem = pool_memory_problem(config)
    if problem is not None:
        raise ConfigError(problem)


# -- memory ------------------------------------------------------------------------------------------------
#: Bytes a Hoeffding tree takes at least, whichever backend, before it sees an example: the compiled
#: pool's 4 node rows and 4 statistics slots per tree (over 300 bytes each for 2 classes and one
#: attribute), or a river tree object (tests/test_safety.py measures both)
MIN_TREE_BYTES = 512


def available_memory_bytes() -> int | None:
    """The memory this process can still take, in bytes: the least of the kernel's
    ``MemAvailable``, the cgroup's limit less its use, and the address-space limit; None if none
    can be read.
    """
    import resource

    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text()))
    except (OSError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        found.append(soft)
    return min(found) if found else None


def pool_memory_problem(config: Mapping[str, Any], available: int | None = None) -> str | None:
    """Why the run's pool of Hoeffding trees cannot fit in memory (None: it may): its trees times
    :data:`MIN_TREE_BYTES` exceed :func:`available_memory_bytes` (or ``available``).
    """
    from boostbench.algorithms import algorithm_spec

    spec = algorithm_spec(str(config["algorithm"]["name"]))
    if (
        spec.family != "online"
        or spec.peer
        or config["learner"].get("name") not in ("hoeffding_tree", "hoeffding_tree_mlr")
    ):
        return None
    trees = spec.pool_size(int(config["n_learners"]))
    needed = trees * MIN_TREE_BYTES
    available = available_memory_bytes() if available is None else available
    if available is None or needed <= available:
        return None
    return (
        f"n_learners={config['n_learners']}: {trees:,} trees need at least {needed / 2**30:,.1f} GiB "
        f"({MIN_TREE_BYTES} bytes each), more than the {available / 2**30:,.1f} GiB available"
    )
