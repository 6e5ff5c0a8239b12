"""The algorithm registry: every algorithm the runner can build, and all it needs to know of it.

An entry (:class:`AlgorithmSpec`) owns what the runner would otherwise branch on by name: the
class, its task and family, which top-level knobs it computes with (so the config hash and a
sweep's "this axis is ignored" follow the declaration), whether it uses one weak learner whatever
N is, whether the protocol tracks its members, the kernels to compile before the timed pass, and
the caches the runner loads before the run and saves after it. The hyper-parameters are the
class's own (its constructor's keyword-only arguments with their defaults, and
``_parameter_constraints``): an entry reads them, it does not re-declare them; they are checked
once, in :func:`boostbench.runner.config.validate`.

Our algorithms (:data:`BUILT_IN`) and those of installed packages (plugins: the entry points of
group :data:`ENTRY_POINT_GROUP`, each a booster class or an :class:`AlgorithmSpec`) are entries of
one registry, :data:`ALGORITHMS`, looked up, checked, configured, built and fingerprinted the same
way; a built-in is a plugin that ships with us. An algorithm's ``algorithm=<name>`` config is the
YAML its package ships (ours: ``configs/algorithm/``; a plugin's: ``<package>/configs/algorithm/``),
else the one made from its class (:meth:`AlgorithmSpec.config`), which :func:`store_configs` puts in
Hydra's ConfigStore. A plugin that cannot be imported, takes a registered name or breaks the
interface (:func:`interface_problem`) is left out with one line naming its package
(:attr:`Registry.problems`); everything else keeps working. docs/bring-your-own-booster.md shows
how to write, test (:func:`boostbench.testing.check_booster`) and install one.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from boostbench.constraints import ANY, Constraint, entry, positive_int
from boostbench.errors import ConfigError
from boostbench.plugin_loading import (
    ENTRY_POINT_GROUP,
    chooses,
    entry_points,
    import_bounded,
    plugin_source,
    requested_plugins,
)
from boostbench.system.installs import declared_not_installed, reinstall_command

__all__ = [
    "ALGORITHMS",
    "BUILT_IN",
    "ENTRY_POINT_GROUP",
    "AlgorithmSpec",
    "Plugin",
    "algorithm_spec",
    "build_batch_booster",
    "build_booster",
    "interface_problem",
    "spec_of",
]

#: Knobs whose meaning belongs to some algorithms only: an algorithm declares the ones it uses
#: (:attr:`AlgorithmSpec.uses`). ``n_learners`` is a top-level key (the pool's size); ``gamma`` and
#: ``n_rounds`` are hyper-parameters of the algorithms that have them (``algorithm.gamma``), the
#: top-level spelling their short form (:data:`SHORT_FORMS`). ``uses`` keeps them in the config hash
#: at the top level, as the stored runs were hashed (:mod:`boostbench.runner.identity`).
KNOBS = ("n_learners", "gamma", "n_rounds")
#: Top-level short forms of hyper-parameters: ``gamma=0.05`` sets ``algorithm.gamma``; refused in a
#: run of an algorithm without that parameter. The value here is a class's default when it gives none.
SHORT_FORMS: dict[str, Any] = {"gamma": 0.1, "n_rounds": 100}
#: Constraints on the top-level knobs (a short form's value is checked as its algorithm's parameter)
KNOB_CONSTRAINTS: dict[str, Constraint] = {"n_learners": positive_int()}
#: What the runner gives a peer's constructor instead of a pool (not hyper-parameters)
PEER_ARGUMENTS = ("n_learners", "n_categories")
#: A plugin algorithm's name: it becomes a config option, a file name and a table's row
ALGORITHM_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def _resolve(target: str) -> Any:
    """``"package.module:attribute"`` -> the attribute (imported on first use: the registry
    imports no kernel module, so a bad value is reported before numba loads).
    """
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Plugin:
    """Where a plugin algorithm comes from: its distribution (``pip``'s package name) and version,
    its entry point's value (``"module:object"``) and the sources that enter the code fingerprint
    (the directory of its top-level package, or its module's file).
    """

    distribution: str
    version: str
    value: str
    source: Path

    def provenance(self) -> dict[str, str]:
        """What a run's record says of the plugin: its distribution, version and entry point."""
        return {"distribution": self.distribution, "version": self.version, "entry_point": self.value}


@dataclass(frozen=True, kw_only=True)
class AlgorithmSpec:
    """One algorithm of the registry: what a booster class alone cannot say.

    A plugin's entry point may name one of these instead of its class, e.g.
    ``AlgorithmSpec("my_package.booster:MyBooster", uses=("n_learners", "gamma"))``.

    Attributes:
        target: the booster class, or ``"module:Class"`` (imported on first use).
        fixed: constructor arguments the entry sets, for a class that serves several entries
            (a peer's ``ensemble``): the config must keep them.
        task: ``"multiclass"`` (an :class:`~boostbench.boosters.base.OnlineBooster`) or
            ``"multilabel"`` (an :class:`~boostbench.boosters.base.OnlineRanker`).
        family: ``"online"`` (a pool of weak learners, one pass) or ``"batch"`` (fitted on a
            training part; split protocols only).
        uses: the :data:`KNOBS` it computes with (``n_learners``; ``gamma`` or ``n_rounds``, a
            constructor argument of that name, hashed as the stored runs were).
        single_learner: uses one weak learner whatever ``n_learners`` is.
        max_classes: the most classes it handles (None: any k >= 2; binary AdaBoost: 2).
        tracks_members: the protocol scores every member (``member_predictions``), e.g. for the
            best tree in hindsight.
        warm_up: ``"module:function"`` compiling kernels it may run that a short pass need not
            reach (the runner's warm-up pass compiles the others); ``compiled_warm_up`` those of
            ``compiled=true``.
        caches: ``"module:function"`` pair (load, save): ``load(k, hyperparameters, n_learners)``
            fills the process's caches from disk before the booster is built (``hyperparameters``:
            :meth:`hyperparameters`), ``save()`` writes what the run added. The booster itself
            does no I/O.
        peer: another library's ensemble with its own weak learners (river's, MOA's): the runner
            builds no pool (the ``learner`` config does not apply) and passes ``n_learners`` and
            the attributes' ``n_categories`` to the constructor (keyword arguments).
        plugin: where a plugin comes from (set by the registry; None for ours).
    """

    target: str | type = field(kw_only=False)
    fixed: Mapping[str, Any] = field(default_factory=dict)
    task: str = "multiclass"
    family: str = "online"
    uses: tuple[str, ...] = ("n_learners",)
    single_learner: bool = False
    max_classes: int | None = None
    tracks_members: bool = False
    warm_up: tuple[str, ...] = ()
    compiled_warm_up: tuple[str, ...] = ()
    caches: tuple[str, str] | None = None
    peer: bool = False
    plugin: Plugin | None = None

    @property
    def cls(self) -> type:
        return self.target if isinstance(self.target, type) else _resolve(self.target)

    def _keywords(self) -> list[inspect.Parameter]:
        """The constructor's keyword-only arguments (a batch booster's: those after its four)."""
        parameters = list(inspect.signature(self.cls.__init__).parameters.values())[1:]
        if self.family == "batch":
            return [p for p in parameters[4:] if p.kind is not p.VAR_KEYWORD]
        skip = PEER_ARGUMENTS if self.peer else ()
        return [p for p in parameters if p.kind is p.KEYWORD_ONLY and p.name not in skip]

    @property
    def params(self) -> Mapping[str, Constraint]:
        """The keys of the ``algorithm`` config passed to the constructor, with their constraints:
        the constructor's keyword-only arguments and the class's ``_parameter_constraints``
        (an argument it declares none for takes any value).
        """
        constraints = self.cls._parameter_constraints
        return {**{p.name: constraints.get(p.name, ANY) for p in self._keywords()}, **constraints}

    @property
    def defaults(self) -> dict[str, Any]:
        """The constructor's defaults of its hyper-parameters (those it has one for)."""
        return {p.name: p.default for p in self._keywords() if p.default is not p.empty}

    def hyperparameters(self, algorithm_cfg: Mapping[str, Any]) -> dict[str, Any]:
        """The constructor's arguments for an ``algorithm`` config: its values, the defaults for the
        keys it leaves out.
        """
        return {**self.defaults, **{key: algorithm_cfg[key] for key in self.params if key in algorithm_cfg}}

    def config(self, name: str) -> dict[str, Any]:
        """The ``algorithm`` section of its config, made from the class: its name, the fixed
        arguments and each hyper-parameter at its default (a short form's, :data:`SHORT_FORMS`,
        for a knob it uses without a default).
        """
        defaults, values = self.defaults, {}
        for key in self.params:
            if key in defaults:
                values[key] = defaults[key]
            elif key in SHORT_FORMS and key in self.uses:
                values[key] = SHORT_FORMS[key]
        return {"name": name, **self.fixed, **values}

    @property
    def config_defaults(self) -> list[str]:
        """The other groups its config chooses (as Hydra's ``defaults`` overrides): a multi-label
        algorithm's trees and protocol, a batch algorithm's.
        """
        if self.family == "batch":
            return ["override /learner: tree", "override /protocol: kfold"]
        if self.task == "multilabel":
            return ["override /learner: hoeffding_tree_mlr", "override /protocol: train_test"]
        return []

    def pool_size(self, n_learners: int) -> int:
        """The number of weak learners it builds for a config's ``n_learners``."""
        return 1 if self.single_learner else n_learners

    def warm_ups(self, algorithm_cfg: Mapping[str, Any]) -> list[Any]:
        """The warm-up functions a run with this config calls before its timed pass."""
        names = list(self.warm_up)
        if self.hyperparameters(algorithm_cfg).get("compiled", False):
            names += self.compiled_warm_up
        return [_resolve(name) for name in names]

    def load_caches(self, k: int, algorithm_cfg: Mapping[str, Any], n_learners: int) -> None:
        if self.caches is not None:
            _resolve(self.caches[0])(k, self.hyperparameters(algorithm_cfg), self.pool_size(n_learners))

    def save_caches(self) -> None:
        if self.caches is not None:
            _resolve(self.caches[1])()


_B = "boostbench.boosters"
_BATCH = {"family": "batch", "uses": ("n_rounds",)}

#: Our algorithms (targets by name: reading the registry imports no booster module)
BUILT_IN: dict[str, AlgorithmSpec] = {
    "adaboost_olm": AlgorithmSpec(f"{_B}.adaboost_olm:AdaboostOLM"),
    "online_mbbm": AlgorithmSpec(
        f"{_B}.online_mbbm:OnlineMBBM",
        uses=("n_learners", "gamma"),
        warm_up=(f"{_B}.online_mbbm:warm_up",),
        compiled_warm_up=(f"{_B}.online_mbbm_kernels:warm_up",),
        caches=(f"{_B}.online_mbbm:load_caches", f"{_B}.online_mbbm:save_caches"),
    ),
    "online_boosting": AlgorithmSpec(f"{_B}.online_boosting:OnlineBoosting"),
    "vfdt": AlgorithmSpec(f"{_B}.vfdt:VFDT", uses=(), single_learner=True),
    # any learner
    "online_base": AlgorithmSpec(f"{_B}.vfdt:VFDT", uses=(), single_learner=True),
    "best_vfdt": AlgorithmSpec(f"{_B}.vfdt:BestVFDT", tracks_members=True),
    "hedge": AlgorithmSpec(f"{_B}.hedge:HedgeExperts"),
    "online_bagging": AlgorithmSpec(f"{_B}.online_bagging:OnlineBagging"),
    "ada_olmr": AlgorithmSpec(f"{_B}.ada_olmr:AdaOLMR", task="multilabel"),
    "online_bmr": AlgorithmSpec(f"{_B}.online_bmr:OnlineBMR", task="multilabel", uses=("n_learners", "gamma")),
    # batch boosters (boostbench.batch): fitted on a training part under kfold / holdout
    **{
        name: AlgorithmSpec(f"boostbench.batch.{module}:{cls}", **_BATCH)
        for name, module, cls in (
            ("adaboost_m1", "adaboost_m1", "AdaBoostM1"),
            ("adaboost_m2", "adaboost_m2", "AdaBoostM2"),
            ("samme", "samme", "SAMME"),
            ("adaboost_mh", "adaboost_mh", "AdaBoostMH"),
            ("adaboost_mm", "adaboost_mm", "AdaBoostMM"),
            ("one_vs_all", "one_vs_all", "OneVsAll"),
        )
    },
    "adaboost": AlgorithmSpec("boostbench.batch.adaboost:AdaBoost", **_BATCH, max_classes=2),
    "base": AlgorithmSpec("boostbench.batch.base_model:BaseModel", family="batch", uses=()),
    # peers: river's and MOA's online ensembles as shipped (their own trees and defaults)
    **{
        f"river_{name}": AlgorithmSpec(f"{_B}.peers.river_peers:RiverEnsemble", fixed={"ensemble": name}, peer=True)
        for name in ("adaboost", "adwin_boosting", "bole", "arf", "srp", "leveraging_bagging")
    },
    **{
        f"moa_{name}": AlgorithmSpec(f"{_B}.peers.moa_peers:MOAEnsemble", fixed={"ensemble": name}, peer=True)
        for name in ("ozaboost", "online_smooth_boost", "sgbt", "arf", "srp", "leveraging_bagging")
    },
    # the rest of MOA's online boosting family, and DEMS (an ensemble that picks the members that vote)
    **{
        f"moa_{name}": AlgorithmSpec(f"{_B}.peers.moa_peers:MOAEnsemble", fixed={"ensemble": name}, peer=True)
        for name in ("ozaboost_adwin", "adob", "bole", "ocboost", "dems")
    },
    # any MOA classifier by its command line (algorithm.cli: code, see runner.checks.CODE_KEYS)
    "moa": AlgorithmSpec(f"{_B}.peers.moa_peers:MOALearner", peer=True, uses=()),
    # Vowpal Wabbit's binary online boosting (Beygelzimer, Kale & Luo 2015) over its linear learners
    "vw_boosting": AlgorithmSpec(f"{_B}.peers.vw_boosting:VWBoosting", max_classes=2, peer=True),
    # multi-label peers of Ada.OLMR and OnlineBMR: river's and MOA's online multi-label learners
    **{
        f"river_{name}": AlgorithmSpec(
            f"{_B}.peers.river_multilabel:RiverMultilabel",
            fixed={"learner": name},
            task="multilabel",
            uses=(),
            peer=True,
        )
        for name in ("binary_relevance", "classifier_chain", "mc_classifier_chain")
    },
    **{
        f"moa_{name}": AlgorithmSpec(
            f"{_B}.peers.moa_multilabel:MOAMultilabel",
            fixed={"learner": name},
            task="multilabel",
            uses=uses,
            peer=True,
        )
        for name, uses in (
            ("ml_hoeffding_tree", ()),
            ("ozabag_ml", ("n_learners",)),
            ("ozabag_adwin_ml", ("n_learners",)),
            ("isoup_tree", ()),
        )
    },
}


def spec_of(obj: Any) -> AlgorithmSpec | None:
    """The registry entry an entry point's object stands for: an :class:`AlgorithmSpec` as it is,
    a booster class as the entry of its defaults (``OnlineRanker``: a multi-label one); None for
    anything else.
    """
    from boostbench.boosters.base import OnlineRanker

    if isinstance(obj, AlgorithmSpec):
        return obj
    if isinstance(obj, type):
        return AlgorithmSpec(obj, task="multilabel" if issubclass(obj, OnlineRanker) else "multiclass")
    return None


def _config_value(value: Any) -> bool:
    """Whether ``value`` can stand in a YAML config as it is (OmegaConf's primitives, lists, dicts)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_config_value(v) for v in value)
    return isinstance(value, dict) and all(isinstance(k, str) and _config_value(v) for k, v in value.items())


def interface_problem(spec: AlgorithmSpec) -> str | None:
    """What breaks the interface the runner builds an algorithm through (None: nothing): a class of
    the wrong kind or with abstract methods left, a constructor not ``(pool, n_classes, rng, *,
    hyper-parameters)``, a hyper-parameter without a default, a constraint on no argument, or a
    default that its constraint refuses or that no config can hold. Imports the class.
    """
    from boostbench.batch.base import BatchModel
    from boostbench.boosters.base import OnlineBooster, OnlineRanker
    from boostbench.constraints import Constraint

    if spec.task not in ("multiclass", "multilabel") or spec.family not in ("online", "batch"):
        return f"task {spec.task!r} / family {spec.family!r}: not multiclass or multilabel / online or batch"
    if not set(spec.uses) <= set(KNOBS):
        return f"uses {spec.uses!r}: the knobs are {', '.join(KNOBS)}"
    try:
        cls = spec.cls
    except Exception as exc:
        return f"cannot import {spec.target}: {type(exc).__name__}: {exc}"
    base = BatchModel if spec.family == "batch" else OnlineRanker if spec.task == "multilabel" else OnlineBooster
    if not (isinstance(cls, type) and issubclass(cls, base)):
        return f"{cls!r} is not a subclass of {base.__module__}.{base.__name__}"
    if inspect.isabstract(cls):
        return f"{cls.__name__} does not define {', '.join(sorted(cls.__abstractmethods__))}"
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if spec.family == "online" and (
        len(positional) != 3 or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)
    ):
        return f"{cls.__name__}.__init__ must be (self, pool, n_classes, rng, *, <hyper-parameters>)"
    names = {p.name for p in parameters}
    constraints = getattr(cls, "_parameter_constraints", None)
    if not isinstance(constraints, Mapping) or not all(isinstance(c, Constraint) for c in constraints.values()):
        return f"{cls.__name__}._parameter_constraints is not a dict of boostbench.constraints.Constraint"
    unknown = sorted(set(constraints) - names)
    if unknown:
        return f"{cls.__name__}._parameter_constraints names {unknown[0]!r}, which __init__ does not take"
    defaults = spec.defaults
    for key in spec.params:
        if key not in defaults and key not in spec.fixed and key not in spec.uses:  # a knob: its top-level value
            return f"{cls.__name__}.__init__ gives hyper-parameter {key!r} no default"
    for key, value in defaults.items():
        if not _config_value(value):
            return f"{cls.__name__}.__init__'s default {key}={value!r} is not a config value (number, string, ...)"
        if key in constraints and not constraints[key].ok(value):
            return f"{cls.__name__}.__init__'s default {key}={value!r} is not {constraints[key].describe()}"
    return None


def _load_plugins(taken: Mapping[str, AlgorithmSpec]) -> tuple[dict[str, AlgorithmSpec], list[str]]:
    """The installed plugins' entries, and one line for each one left out (naming its package)."""
    found: dict[str, AlgorithmSpec] = {}
    problems = []
    for point in entry_points():
        dist = point.dist
        who = f"{dist.name} {dist.version}" if dist is not None else "?"
        problem = None
        if point.name in taken:
            problem = "takes the name of a built-in algorithm"
        elif point.name in found:
            problem = f"takes the name package {found[point.name].plugin.distribution} registered"
        elif not ALGORITHM_NAME.fullmatch(point.name):
            problem = "is not named as an algorithm can be (lower-case letters, digits and _, a letter first)"
        else:
            try:
                spec = spec_of(import_bounded(point))
            except ImportError as exc:
                problem = f"fails to import ({point.value}): {exc}"
                if isinstance(exc.__cause__, (ImportError, AttributeError)) and dist is not None:  # renamed since
                    problem += f"; if its module or class was renamed, reinstall it ({reinstall_command(dist)})"
            else:
                problem = (
                    f"names {point.value}, neither a booster class nor an AlgorithmSpec"
                    if spec is None
                    else interface_problem(spec)
                )
        if problem is not None:
            problems.append(f"plugin algorithm {point.name!r} of package {who} left out: it {problem}")
            continue
        plugin = Plugin(dist.name, dist.version, point.value, plugin_source(spec.cls)) if dist else None
        found[point.name] = replace(spec, plugin=plugin)
    return found, problems


class Registry(Mapping[str, AlgorithmSpec]):
    """Every algorithm: :data:`BUILT_IN`, then the installed plugins, imported on first use of
    one of them (or of the whole list): looking up a built-in, listing the options by name
    (:meth:`plugin_names`) or printing the help imports no plugin.

    Attributes:
        problems: one line for each plugin left out (it failed to import, took a name or broke the
            interface), naming its package.
    """

    def __init__(self, built_in: Mapping[str, AlgorithmSpec]):
        self._built_in = dict(built_in)
        self._entries: dict[str, AlgorithmSpec] | None = None
        self._problems: list[str] = []

    def _all(self) -> dict[str, AlgorithmSpec]:
        if self._entries is None:
            plugins, self._problems = _load_plugins(self._built_in)
            self._entries = {**self._built_in, **plugins}
        return self._entries

    def refresh(self) -> None:
        """Find the plugins again on next use (after a package was installed or removed)."""
        self._entries = None

    @property
    def problems(self) -> list[str]:
        self._all()
        return list(self._problems)

    @property
    def problems_so_far(self) -> list[str]:
        """:attr:`problems`, if the plugins were imported (else none: nothing imports them here)."""
        return [] if self._entries is None else list(self._problems)

    def plugins(self) -> dict[str, AlgorithmSpec]:
        """The entries of installed packages (ours left out)."""
        return {name: spec for name, spec in self._all().items() if spec.plugin is not None}

    def plugin_names(self) -> list[str]:
        """The names the installed plugins register, as their packages' metadata says (none of
        them imported: some may be left out once they are).
        """
        return sorted(
            {p.name for p in entry_points() if p.name not in self._built_in and ALGORITHM_NAME.fullmatch(p.name)}
        )

    def __getitem__(self, name: str) -> AlgorithmSpec:
        if name in self._built_in:  # ours: no plugin imported
            return self._built_in[name]
        return self._all()[name]

    def __contains__(self, name: object) -> bool:
        return name in self._built_in or name in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


ALGORITHMS = Registry(BUILT_IN)


def algorithm_spec(name: str) -> AlgorithmSpec:
    """The registry entry for ``name``.

    Raises:
        ConfigError: unknown algorithm (the message lists the known ones, or says why the plugin
            of that name was left out).
    """
    reason = left_out(name)
    if reason is not None:
        raise ConfigError(f"unknown algorithm {name!r}: the {reason}")
    return entry("algorithm", name, ALGORITHMS)


def left_out(name: str) -> str | None:
    """Why the plugin algorithm ``name`` was left out of the registry, or is declared by a
    plugin's sources but not installed (None: neither).
    """
    if name in ALGORITHMS:
        return None
    found = next((line for line in ALGORITHMS.problems if line.startswith(f"plugin algorithm {name!r} ")), None)
    return found or declared_not_installed(name, ENTRY_POINT_GROUP)


def shipped_config(name: str, spec: AlgorithmSpec) -> Path | None:
    """The YAML a plugin ships for its algorithm, ``<its package>/configs/algorithm/<name>.yaml``
    (None: its config is made from the class). Ours are under the configs folder.
    """
    if spec.plugin is None or not spec.plugin.source.is_dir():
        return None
    path = spec.plugin.source / "configs" / "algorithm" / f"{name}.yaml"
    return path if path.is_file() else None


def store_configs(overrides: Sequence[str] | None = None) -> None:
    """Put plugin algorithms' configs (:func:`shipped_config`, else :meth:`AlgorithmSpec.config`
    with :attr:`AlgorithmSpec.config_defaults`) in Hydra's ConfigStore, group ``algorithm``, where
    ``compose`` and a sweep's jobs (which get the store with Hydra's state) find ``algorithm=<name>``:
    every plugin's (None), or those ``overrides`` may choose
    (:func:`boostbench.plugin_loading.requested_plugins`).

    Raises:
        ConfigError: a plugin ``overrides`` chooses was left out (why, in one line).
    """
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf

    if overrides is None:
        chosen = ALGORITHMS.plugins()
    else:
        wanted = requested_plugins(ALGORITHMS.plugin_names(), overrides)
        if not wanted:
            return
        plugins = ALGORITHMS.plugins()
        for name in wanted:
            reason = left_out(name)
            if reason is not None and chooses(overrides, name):
                raise ConfigError(f"unknown algorithm {name!r}: the {reason}")
        chosen = {name: plugins[name] for name in wanted if name in plugins}
    store = ConfigStore.instance()
    for name, spec in chosen.items():
        path = shipped_config(name, spec)
        if path is not None:  # Hydra's header, which the loaded node loses, says where it goes
            package = "_global_" if path.read_text(encoding="utf-8").startswith("# @package _global_") else None
            store.store(group="algorithm", name=name, node=OmegaConf.load(path), package=package)
        elif spec.config_defaults:  # the other groups' choices: a global package, as our YAML files
            node = {"defaults": [_override(line) for line in spec.config_defaults], "algorithm": spec.config(name)}
            store.store(group="algorithm", name=name, node=node, package="_global_")
        else:
            store.store(group="algorithm", name=name, node=spec.config(name))


def _override(line: str) -> dict[str, str]:
    """``"override /learner: tree"`` as a defaults-list entry."""
    key, _, value = line.partition(": ")
    return {key: value}


def build_booster(
    cfg: Any, pool: Any, n_classes: int, rng: np.random.Generator, spec: AlgorithmSpec | None = None, **peer_args: Any
) -> Any:
    """Build the online booster an ``algorithm`` config names over ``pool``
    (:class:`~boostbench.learners.pool.WeakLearnerPool`) for ``n_classes`` labels
    (a peer: no pool, ``peer_args`` ``n_learners`` and ``n_categories`` instead).

    Args:
        spec: its registry entry, when the run resolved it already (else looked up by name).

    Raises:
        ConfigError: the constructor refused a value (its message, prefixed by the algorithm).
    """
    spec = spec or algorithm_spec(str(cfg["name"]))
    params = {key: cfg[key] for key in spec.params if key in cfg}
    try:
        return spec.cls(pool, n_classes, rng, **peer_args, **params)
    except ValueError as exc:
        raise ConfigError(f"algorithm {cfg['name']}: {exc}") from None


def build_batch_booster(
    cfg: Any, learner: Any, n_classes: int, rng: np.random.Generator, spec: AlgorithmSpec | None = None
) -> Any:
    """Build the batch booster an ``algorithm`` config names over ``learner`` (a
    :class:`~boostbench.batch.TreeParams` or :class:`~boostbench.learners.bayes.pool.BayesParams`).

    Args:
        spec: its registry entry, when the run resolved it already (else looked up by name).

    Raises:
        ConfigError: not a batch algorithm, or a class count the algorithm does not handle
            (binary ``adaboost`` on k > 2).
    """
    spec = spec or algorithm_spec(str(cfg["name"]))
    if spec.family != "batch":
        raise ConfigError(f"algorithm {cfg['name']} is not a batch algorithm")
    try:
        options = {key: cfg[key] for key in spec.params if key != "n_rounds" and key in cfg}
        return spec.cls(n_classes, int(cfg.get("n_rounds", 1)), learner, rng, **options)
    except ValueError as exc:
        raise ConfigError(f"algorithm {cfg['name']}: {exc}") from None
