"""Compose a run configuration with Hydra, validate it, and hash it.

Hydra's compose API does the composition (``configs/config.yaml`` and its groups) and parses
command-line overrides; its errors become one-line :class:`ConfigError` messages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig, OmegaConf

from boostbench.errors import ConfigError, NotApplicable
from boostbench.runner.checks import TOP_LEVEL_KEYS

# a run's identity, read here by many: boostbench.runner.identity owns it
from boostbench.runner.identity import config_hash as config_hash
from boostbench.runner.identity import resolved_dict as resolved_dict
from boostbench.runner.identity import semantic_config as semantic_config
from boostbench.system.paths import CONFIG_DIR

if TYPE_CHECKING:
    from boostbench.algorithms import AlgorithmSpec
    from boostbench.runner.sections import RunConfig

SPLIT_PROTOCOLS = ("kfold", "holdout")
#: How prequential_cv trains its copies (Bifet et al., KDD 2015; boostbench.protocols.prequential_cv)
VALIDATIONS = ("cross_validation", "bootstrap", "split")


def group_options(group: str) -> list[str]:
    """The options of a config group: the file stems under ``configs/<group>/``, and for
    ``algorithm`` the installed plugins' (:mod:`boostbench.algorithms`).
    """
    options = {p.stem for p in (CONFIG_DIR / group).glob("*.yaml")}
    if group == "algorithm":
        from boostbench.algorithms import ALGORITHMS

        options |= set(ALGORITHMS.plugin_names())  # by name: none imported until one is used
    return sorted(options)


GROUPS = ("dataset", "algorithm", "learner", "protocol", "experiment", "preset")
#: The sections a preset (configs/preset/) changes, each by the name of the chosen config
PRESET_SECTIONS = ("algorithm", "dataset", "protocol")


def check_group_overrides(overrides: Sequence[str]) -> None:
    """Check that every config-group choice (``dataset=car``, ``dataset=car,nursery``) exists and
    that every key names a top-level key or a section of the run configuration
    (:func:`key_problem`; a section's own keys are checked once composed: :func:`check_added_keys`).

    Raises:
        ConfigError: an unknown option (the message lists the available ones and the closest),
            or an unknown key (``sed=3``, ``protocl.window=10``: the closest named).
    """
    from boostbench.suggest import did_you_mean

    for item in overrides:
        key, _, value = item.partition("=")
        key = key.lstrip("+~")
        problem = key_problem(key) if _ else None
        if problem is not None:
            raise ConfigError(problem)
        if not _ or key not in GROUPS or "(" in value:  # sweep functions are left to Hydra
            continue
        for choice in value.split(","):
            if choice.strip() not in group_options(key):
                reason = None
                if key == "algorithm":  # a plugin of that name left out of the registry: why
                    from boostbench.algorithms import left_out

                    reason = left_out(choice.strip())
                if reason is not None:
                    raise ConfigError(f"unknown algorithm {choice.strip()!r}: the {reason}")
                raise ConfigError(
                    f"unknown {key} {choice.strip()!r}{did_you_mean(choice.strip(), group_options(key))} "
                    f"(available: {', '.join(group_options(key))})"
                )


def key_problem(key: str) -> str | None:
    """Why ``key`` (of an override, without its ``+``) is no key of a run configuration, naming the
    closest that is (None: it is one, or it is Hydra's own, ``hydra.*`` or ``group/option``): a
    top-level key ``configs/config.yaml`` lacks, or a section that is none.
    """
    from boostbench.runner.checks import NAMED_SECTIONS
    from boostbench.suggest import did_you_mean

    head, dot, rest = key.partition(".")
    if head == "hydra" or set("/@") & set(key):
        return None
    if not dot:
        if key in GROUPS or key in TOP_LEVEL_KEYS:
            return None
        hint = (
            did_you_mean(key, [*TOP_LEVEL_KEYS, *GROUPS]) or f" (top-level keys: {', '.join(sorted(TOP_LEVEL_KEYS))})"
        )
        return f"unknown configuration key {key!r}{hint}"
    if head in NAMED_SECTIONS:
        return None
    sections = f"the sections: {', '.join(NAMED_SECTIONS)}"
    if head in GROUPS or head in TOP_LEVEL_KEYS:
        return f"unknown configuration key {key!r}: {head!r} has no keys of its own ({sections})"
    hint = did_you_mean(head, NAMED_SECTIONS, suffix=f".{rest}") or f" ({sections})"
    return f"unknown configuration key {key!r}{hint}"


def section_parameters(algorithm: str, learner: str, spec: AlgorithmSpec | None = None) -> dict[str, Any]:
    """The keys the chosen algorithm and learner take beyond their config files: their constraints
    (the booster class's ``_parameter_constraints``, the learner registry's). ``spec``: the
    algorithm's registry entry, if resolved already.

    Raises:
        ConfigError: an unknown algorithm or learner.
    """
    from boostbench.algorithms import algorithm_spec
    from boostbench.learners.registry import learner_spec

    return {"algorithm": (spec or algorithm_spec(algorithm)).params, "learner": learner_spec(learner).params}


def check_added_keys(cfg: DictConfig, keys: Sequence[str]) -> None:
    """Refuse a key added to a section (``+learner.grace_perod=5``, or a key its config file lacks)
    that the section does not declare (:func:`boostbench.runner.checks.section_keys`, with the
    chosen algorithm's and learner's parameters), naming the closest declared one.

    Raises:
        ConfigError: the first such key.
    """
    from boostbench.runner.checks import NAMED_SECTIONS, option_name, section_keys, unknown_key_message

    declared = None
    for key in keys:
        section, dot, name = key.partition(".")
        if not dot or section not in NAMED_SECTIONS:
            continue
        if declared is None:
            declared = section_parameters(str(cfg.algorithm.name), str(cfg.learner.name))
        if name.partition(".")[0] not in section_keys(section, declared, option_name(cfg, section)):
            raise ConfigError(unknown_key_message(key, cfg, declared))


@dataclass(frozen=True)
class HydraFlags:
    """The flags of a Hydra app that ``boostbench run`` honours: ``--cfg job|hydra|all`` (print the
    config), ``--info`` and ``-m``/``--multirun`` (a sweep, with ``-j N`` parallel jobs).
    """

    cfg: str | None = None
    info: bool = False
    multirun: bool = False
    jobs: int | None = None


def hydra_flags(arguments: Sequence[str]) -> tuple[HydraFlags, list[str]]:
    """Split Hydra's command-line flags from the overrides.

    Raises:
        ConfigError: ``--cfg`` without one of job, hydra, all; a flag of Hydra's that ``run``
            does not take (named, with what to do instead).
    """
    flags, rest, items = {}, [], list(arguments)
    while items:
        item = items.pop(0)
        if item in ("--cfg", "-c"):
            which = items.pop(0) if items else None
            if which not in ("job", "hydra", "all"):
                raise ConfigError(f"--cfg takes job, hydra or all, not {which!r}")
            flags["cfg"] = which
        elif item.startswith("--cfg="):
            items.insert(0, item.partition("=")[2])
            items.insert(0, "--cfg")
        elif item in ("--info", "-i"):
            flags["info"] = True
        elif item in ("-m", "--multirun"):
            flags["multirun"] = True
        elif item in ("-j", "--jobs"):
            value = items.pop(0) if items else ""
            if not value.isdigit() or int(value) < 1:
                raise ConfigError(f"-j takes a number of jobs (1 or more), not {value!r}")
            flags["jobs"] = int(value)
        elif item.startswith("-") and "=" not in item:
            raise ConfigError(
                f"unknown flag {item!r} for run (Hydra's flags here: --cfg job|hydra|all, --info, -m; "
                f"see boostbench run --help)"
            )
        else:
            rest.append(item)
    if flags.get("jobs") and not flags.get("multirun"):
        raise ConfigError("-j is for sweeps: add -m (or use boostbench sweep)")
    return HydraFlags(**flags), rest


def hydra_config(overrides: Sequence[str]) -> dict[str, Any]:
    """Hydra's own config for a run with ``overrides`` (what ``--cfg hydra`` prints), resolved where
    it can be outside a running app.
    """
    from hydra import compose, initialize_config_dir

    from boostbench.algorithms import store_configs

    store_configs(overrides)
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=list(overrides), return_hydra_config=True)
    return OmegaConf.to_container(cfg.hydra, resolve=False)


def compose_config(overrides: Sequence[str] = (), strict: bool = True) -> DictConfig:
    """Compose ``configs/config.yaml`` with Hydra ``overrides`` (``key=value`` strings).

    A key the chosen option's file lacks but its section declares (``+`` in Hydra's grammar) is
    added without the ``+``, and one it holds already is set with it. ``strict``: a short form
    (``gamma=0.05``) given in ``overrides`` to an algorithm without that parameter is refused, else
    dropped as a sweep's grid point drops it (:func:`boostbench.runner.knobs.fold_short_forms`).

    Raises:
        ConfigError: an override does not parse, names an unknown group option (the message
            lists the available ones) or an unknown key (the closest declared one named).
    """
    from hydra.errors import HydraException, MissingConfigException
    from omegaconf.errors import OmegaConfBaseException

    from boostbench.algorithms import store_configs
    from boostbench.suggest import quote_separators

    overrides = quote_separators(overrides)
    check_group_overrides(overrides)
    store_configs(overrides)  # the algorithm configs of the plugins they choose
    try:
        cfg, added = _compose(overrides)
    except MissingConfigException as exc:
        raise ConfigError(str(exc).splitlines()[0]) from None
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        raise ConfigError(override_message(overrides, " ".join(str(exc).split()))) from None
    check_added_keys(cfg, added)
    given = frozenset(o.partition("=")[0].lstrip("+~") for o in overrides)  # an experiment's: grid-wide
    return complete(cfg, given if strict else False)


#: Hydra's refusals of an override for a key the composed config lacks (``key=value``) or holds
#: already (``+key=value``)
_ABSENT = re.compile(r"Could not override '([^']+)'\.\s*To append to your config use \+")
_PRESENT = re.compile(r"Could not append to config\. An item is already at '([^']+)'")


def _compose(overrides: Sequence[str]) -> tuple[DictConfig, list[str]]:
    """Hydra's composition of ``overrides``, a key absent from the config added (as ``+key=value``)
    and a key present set (as ``key=value``): the overrides as meant, the declared keys checked
    after (:func:`check_added_keys`). Returns the config and the keys added.
    """
    from hydra import compose, initialize_config_dir
    from hydra.errors import ConfigCompositionException

    overrides = list(overrides)
    added = [o.partition("=")[0][1:] for o in overrides if o.startswith("+") and not o.startswith("++")]
    mended: set[int] = set()
    while True:
        try:
            with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
                return compose(config_name="config", overrides=overrides), added
        except ConfigCompositionException as exc:
            absent, present = _ABSENT.search(str(exc)), _PRESENT.search(str(exc))
            typed = absent[1] if absent else f"+{present[1]}" if present else None
            index = next((i for i, o in enumerate(overrides) if o.partition("=")[0] == typed), None)
            if index is None or index in mended:
                raise
            mended.add(index)
            if absent:
                overrides[index] = f"+{overrides[index]}"
                added.append(typed)
            else:
                overrides[index] = overrides[index][1:]
                added.remove(typed[1:])


def complete(cfg: DictConfig, strict: bool | frozenset[str] = True) -> DictConfig:
    """What a composed config needs before it is validated and hashed: its paths checked
    (:func:`~boostbench.runner.checks.check_paths`), the preset applied (:func:`apply_preset`), the
    short forms moved into the algorithm section (:func:`~boostbench.runner.knobs.fold_short_forms`;
    ``strict``: as a run's), a user's data file pinned (:func:`pin_user_file`) and a stream kept in its order
    (:func:`boostbench.data.stream.keep_stream_order`).

    Raises:
        ConfigError: ``results_dir`` or ``data_dir`` is no path; a short form the algorithm does
            not take (``strict``).
    """
    from boostbench.data.stream import keep_stream_order
    from boostbench.runner.checks import check_paths
    from boostbench.runner.knobs import fold_short_forms

    check_paths(cfg)  # a list or mapping for a path is refused before a file is looked for
    return keep_stream_order(pin_user_file(fold_short_forms(apply_preset(cfg), strict)))


def apply_preset(cfg: DictConfig) -> DictConfig:
    """Merge a preset's entries (``+preset=jung_reference``, ``configs/preset/``) into the
    algorithm, data set and protocol configs they name, and leave ``preset`` as its name (none
    for ``paper``, the defaults, so that its runs are the runs without a preset). A config whose
    preset is already a name (a stored record's) is returned as it is.

    Raises:
        ConfigError: a preset entry is not a mapping of known sections.
    """
    from omegaconf import open_dict

    preset = cfg.get("preset")
    if not isinstance(preset, DictConfig):
        return cfg
    overrides = preset.get("overrides") or {}
    unknown = sorted(set(overrides) - set(PRESET_SECTIONS))
    if unknown:
        raise ConfigError(
            f"preset {preset.get('name')!r}: unknown section {unknown[0]!r} (sections: {', '.join(PRESET_SECTIONS)})"
        )
    cfg = cfg.copy()
    with open_dict(cfg):
        for section in PRESET_SECTIONS:
            entry = (overrides.get(section) or {}).get(str(cfg[section].get("name")))
            if entry:
                cfg[section] = OmegaConf.merge(cfg[section], entry)
        if preset.get("name") in (None, "paper"):
            del cfg["preset"]
        else:
            cfg.preset = str(preset.name)
    return cfg


def override_message(overrides: Sequence[str], message: str, what: str = "override") -> str:
    """Hydra's errors on ``overrides`` in our terms (``what``: ``override``, or ``sweep`` for a
    sweep's): ``run`` has no ``--multirun`` (``sweep`` is ours); a character of Hydra's grammar
    (``;``, ``|``, ...) must be quoted; a key the chosen configs lack is either declared by one of
    its section's options (add it with ``+``) or unknown (the closest declared key named).
    """
    if "--multirun" in message:
        item = next((o for o in overrides if "," in o), "")
        return (
            f"bad override {item!r}: several values are a sweep: `boostbench sweep {item}` (or quote the "
            f"value for a string: key='a,b')"
        )
    if "LexerNoViableAltException" in message:
        item = message.partition("LexerNoViableAltException: ")[2].partition(" ^")[0]
        key, _, value = item.partition("=")
        return (
            f"bad override {item!r}: Hydra's grammar reserves a character in {value!r}; quote it, "
            f"e.g. {key}=\"'{value}'\""
        )
    from boostbench.runner.checks import NAMED_SECTIONS

    absent, present = _ABSENT.search(message), _PRESENT.search(message)
    if absent and absent[1].partition(".")[0] in NAMED_SECTIONS:
        item = next((o for o in overrides if o.partition("=")[0] == absent[1]), absent[1])
        return _absent_key(absent[1], item)
    if present:
        return f"bad {what}: {present[1]!r} is set already: leave out the + (write {present[1]}=...)"
    return f"bad {what}: {message}"


def _absent_key(key: str, item: str) -> str:
    """Why ``key`` (of the override ``item``) is absent from a sweep's configs: unknown to every
    option of its section (the closest declared key named), or not in some chosen option's file
    (added with ``+``).
    """
    from boostbench.algorithms import ALGORITHMS
    from boostbench.learners.registry import LEARNERS
    from boostbench.runner.checks import section_keys
    from boostbench.suggest import did_you_mean

    section, _, name = key.partition(".")
    table = {"algorithm": ALGORITHMS, "learner": LEARNERS}.get(section, {})
    allowed = section_keys(section, {section: {k for spec in table.values() for k in spec.params}})
    first = name.partition(".")[0]
    if first in allowed:
        return f"{key!r} is not in the config file of every {section} chosen: to add it there, write +{item}"
    hint = did_you_mean(first, allowed, prefix=f"{section}.") or f" ({section} keys: {', '.join(sorted(allowed))})"
    return f"unknown configuration key {key!r}{hint}"


def pin_user_file(cfg: DictConfig) -> DictConfig:
    """A user's own data file (``dataset=csv dataset.file=...``) enters the config by content:
    ``dataset.sha256`` (so the hash, and a sweep's "done", follow the file, not its name: a file
    changed in place runs again) and, for the template's name ``custom``, the file's stem as the
    data set's name. A file without ``dataset.class_column`` gets its last column (an ARFF file's
    last attribute, as Weka and MOA take it; said once on stderr; the record's config names it). Registry entries carry
    their sha256 already; a missing file is left for the loader to report.
    """
    if OmegaConf.is_missing(cfg.dataset, "file") or cfg.dataset.get("file") is None:
        return cfg
    from omegaconf import open_dict

    from boostbench.data.registry import file_format, locate
    from boostbench.system.notices import say_once

    path = locate(str(cfg.dataset.file), cfg.get("data_dir"))
    if path is None or not path.is_file():
        return cfg
    unnamed = OmegaConf.is_missing(cfg.dataset, "class_column") or cfg.dataset.get("class_column") is None
    arff = unnamed and file_format(path, cfg.dataset) == "arff"
    if cfg.dataset.get("sha256") and not unnamed:  # a registry entry: pinned already
        return cfg
    from boostbench.data.loaders import arff_class_attribute, csv_last_column, sha256_of  # pandas: a user's file

    column = None if not unnamed else arff_class_attribute(path) if arff else csv_last_column(path, cfg.dataset)
    if cfg.dataset.get("sha256") and column is None:
        return cfg
    with open_dict(cfg):
        if not cfg.dataset.get("sha256"):
            cfg.dataset.sha256 = sha256_of(path)
            if cfg.dataset.get("name") == "custom":
                cfg.dataset.name = path.stem
        if column is not None:
            cfg.dataset.class_column = column
            taken = "attribute" if arff else "column"
            say_once(
                f"note: {path}: the class is the last {taken}, {column!r} (as Weka and MOA take it; "
                f"another: dataset.class_column=NAME)"
            )
    return cfg


def validate(cfg: DictConfig | dict) -> RunConfig:
    """Check every value a run depends on, against the declarations of the registries
    (:mod:`boostbench.algorithms`, whose entries read the booster classes' constraints, and
    :mod:`boostbench.learners.registry`): the one place where configuration values are checked.
    Imports nothing heavy for an online algorithm, so a mistake is reported at once.

    Returns:
        The configuration in typed sections (:class:`~boostbench.runner.sections.RunConfig`,
        with the algorithm's registry entry, resolved once), which the run reads instead of ``cfg``.

    Raises:
        ConfigError: a value outside its declared range (``n_learners``, ``seed``, ``gamma``,
            ``n_rounds``, ``protocol.final_fraction``, the algorithm's and the learner's keys), a
            missing key, an unknown algorithm or learner; what :func:`boostbench.runner.checks.check_config`
            refuses (names that cannot be file names, undeclared keys, bad paths and seeds, a pool
            beyond memory) and a cache other users can write (:func:`boostbench.system.cache_safety.check_caches`).
        NotApplicable: a combination the algorithm cannot run (:func:`incompatibility`; a
            :class:`ConfigError` too).
    """
    from boostbench.algorithms import KNOB_CONSTRAINTS, algorithm_spec
    from boostbench.constraints import Interval, OneOf, check, positive_int, typed_section
    from boostbench.data.registry import ENCODINGS
    from boostbench.learners.registry import learner_config
    from boostbench.runner.checks import check_config, check_required
    from boostbench.runner.knobs import fold_short_forms
    from boostbench.runner.sections import ProtocolConfig
    from boostbench.system.cache_safety import check_caches

    resolved = resolved_dict(cfg)
    check_required(resolved)  # a key or group deleted (~algorithm) is refused, not a KeyError
    # a config given whole, not composed (a stored record's old form carries both knobs for every
    # algorithm): its short forms moved, those its algorithm lacks dropped
    resolved = fold_short_forms(resolved, strict=False)
    unknown = sorted(set(resolved) - TOP_LEVEL_KEYS)
    if unknown:  # e.g. +foo=1: it would change the config hash and nothing else
        raise ConfigError(
            f"unknown configuration key {unknown[0]!r} (top-level keys: {', '.join(sorted(TOP_LEVEL_KEYS))})"
        )
    check("", resolved, {**KNOB_CONSTRAINTS, "seed": positive_int(0), "n_threads": positive_int(nullable=True)})
    protocol = {
        "final_fraction": Interval(0.0, 1.0, closed_high=True),
        "curve_points": positive_int(2),
        "max_examples": positive_int(nullable=True),
        "window": positive_int(1),
        "delay": positive_int(0),
        "shuffle_seed": positive_int(0, nullable=True),
        "fading": Interval(0.0, 1.0, closed_high=True, nullable=True),
        "n_folds": positive_int(2),
        "validation": OneOf(VALIDATIONS),
    }
    check("protocol", resolved["protocol"], protocol)
    protocol_config = typed_section(ProtocolConfig, "protocol", resolved["protocol"])
    if protocol_config.shuffle_seed is not None and not protocol_config.shuffle:
        raise ConfigError("protocol.shuffle_seed fixes a shuffle; it needs protocol.shuffle=true")
    check("dataset", resolved["dataset"], {"encoding": OneOf(ENCODINGS)})
    spec = algorithm_spec(str(resolved["algorithm"]["name"]))
    check("algorithm", resolved["algorithm"], {**spec.params, **{k: OneOf((v,)) for k, v in spec.fixed.items()}})
    learner = learner_config(resolved["learner"])
    reason = incompatibility(resolved, spec)
    if reason is not None:  # a combination, not a value: a sweep's n/a
        raise NotApplicable(reason)
    # names that become paths, declared keys only, paths, seeds, the pool's memory, the caches
    declared = section_parameters(str(resolved["algorithm"]["name"]), str(resolved["learner"]["name"]), spec)
    check_config(resolved, {**declared, "protocol": protocol})
    check_caches()
    return run_config(resolved, spec, protocol_config, learner)


def run_config(resolved: dict[str, Any], spec: AlgorithmSpec, protocol: Any = None, learner: Any = None) -> RunConfig:
    """The typed sections of ``resolved``, a config :func:`validate` has checked (a sweep's point,
    validated in the sweep's process: :mod:`boostbench.runner.point`), without checking it again.
    ``protocol`` and ``learner``: their typed sections, if built already.

    Raises:
        ConfigError: a section's key missing or of another type (a config nothing validated).
    """
    from boostbench.constraints import typed_section
    from boostbench.learners.registry import learner_spec
    from boostbench.runner.sections import ProtocolConfig, RunConfig

    if protocol is None:
        protocol = typed_section(ProtocolConfig, "protocol", resolved["protocol"])
    if learner is None:
        learner = typed_section(learner_spec(str(resolved["learner"]["name"])).config, "learner", resolved["learner"])
    return RunConfig(
        spec=spec,
        algorithm=resolved["algorithm"],
        learner=learner,
        protocol=protocol,
        dataset=OmegaConf.create(resolved["dataset"], flags={"struct": True}),  # as composed
        seed=resolved["seed"],
        n_learners=resolved["n_learners"],
        n_threads=resolved["n_threads"],
        data_dir=resolved["data_dir"],
        resolved=resolved,
    )


def incompatibility(cfg: DictConfig | dict, spec: AlgorithmSpec | None = None) -> str | None:
    """Why the algorithm cannot run with this data set, learner or protocol (None if it can).

    These are combinations a grid over several axes produces (the sweep marks them n/a):
    a multiclass algorithm on multi-label data, a binary algorithm on a data set that declares
    more classes (``class_names`` or ``n_classes``; otherwise refused once loaded, as
    :class:`~boostbench.errors.NotApplicable`), a batch algorithm under an online protocol or
    with an online-only learner, an online algorithm over batch trees, a tree-only booster over a
    Bayesian network, a multi-label algorithm under k-fold or prequential cross-validation, a
    best-tree-in-hindsight row (``tracks_members``) under prequential cross-validation.
    ``spec``: the algorithm's registry entry, if resolved already.
    """
    from boostbench.algorithms import algorithm_spec
    from boostbench.learners.registry import learner_spec, names

    resolved = resolved_dict(cfg)
    name = str(resolved["algorithm"]["name"])
    spec = spec or algorithm_spec(name)
    task = resolved["dataset"].get("task", "multiclass")
    protocol, learner = resolved["protocol"]["name"], resolved["learner"]["name"]
    if task != spec.task:
        return f"algorithm {name!r} is for {spec.task} data; dataset {resolved['dataset'].get('name')!r} is {task}"
    declared = declared_classes(resolved["dataset"])
    if spec.max_classes is not None and declared is not None and declared > spec.max_classes:
        return too_many_classes(name, resolved["dataset"].get("name"), declared, spec.max_classes)
    if spec.family == "batch" and learner != "tree" and spec.cls.needs_trees:
        return f"algorithm {name!r} fits per-label tree hypotheses: it needs learner=tree, not {learner!r}"
    if not getattr(learner_spec(learner), spec.family):
        return f"algorithm {name!r} is {spec.family}: it needs learner={', '.join(names(spec.family))}, not {learner!r}"
    if spec.family == "batch":
        if protocol not in SPLIT_PROTOCOLS:
            return f"algorithm {name!r} is a batch algorithm: use protocol=kfold or protocol=holdout, not {protocol!r}"
        return None
    if protocol in (*SPLIT_PROTOCOLS, "prequential_cv") and task != "multiclass":
        return f"protocol {protocol!r} is for multiclass data; multi-label algorithms use protocol=train_test"
    if protocol == "prequential_cv" and spec.tracks_members:
        return f"algorithm {name!r} picks its best tree in hindsight over one pass: use protocol=prequential"
    return None


def declared_classes(dataset_cfg: dict) -> int | None:
    """K as a data set's config declares it (``n_classes``, or its ``class_names`` in code
    order); None when only loading it tells (a generator, a user's file).
    """
    if dataset_cfg.get("n_classes") is not None:
        return int(dataset_cfg["n_classes"])
    names = dataset_cfg.get("class_names")
    return len(names) if names else None


def too_many_classes(algorithm: str, dataset: str | None, k: int, most: int) -> str:
    """The one line refusing a binary (``most`` = 2) algorithm on a k-class data set."""
    kind = "binary" if most == 2 else f"for at most {most} classes"
    return f"algorithm {algorithm!r} is {kind}; dataset {dataset!r} has {k} classes"
