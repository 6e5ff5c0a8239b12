"""A sweep's grid: its axes in Hydra's override grammar, counted without being built, expanded
lazily, and each point's config composed once per choice of config groups.

The axes and their order are those of Hydra's basic sweeper (the experiment's
``hydra.sweeper.params``, then the command line's overrides, a later value of a key replacing an
earlier one in its place; the last axis varies fastest). Composing a config from its files is
most of what a job cost the sweep (Hydra composed it twice, ~65 ms CPU each); here a point's
config is the composition of its config-group choices (``dataset=car``, ``+preset=...``, the
``hydra/...`` groups), made once and copied, with the point's value overrides (``seed=3``,
``algorithm.vote=soft``, ``~learner.max_size``) applied by Hydra's own code, as Hydra applies
them after composing.
"""

from __future__ import annotations

import copy
import decimal
import itertools
import math
import pickle
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hydra.core.config_loader import ConfigLoader

from boostbench.errors import ConfigError

if TYPE_CHECKING:
    from hydra.core.override_parser.types import Override
    from omegaconf import DictConfig

    from boostbench.runner.point import ValidatedPoint

#: A grid larger than this is refused before anything is built (``hydra.sweeper.max_jobs``)
MAX_JOBS = 100_000


def grid_axes(
    arguments: Sequence[str], params: Mapping[str, Any] | None = None, config_loader: ConfigLoader | None = None
) -> list[Override]:
    """The axes of a grid, one parsed override per key, in Hydra's basic sweeper's order.

    Args:
        arguments: the command line's overrides (``seed=range(0,5)``, ``dataset=car,balance``).
        params: the sweeper's ``params`` (an experiment's grid), before the arguments.
        config_loader: what expands a ``glob(...)`` over a config group's options.

    Raises:
        ConfigError: an axis that cannot be enumerated (``interval(...)``).
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser

    lines = [*(f"{key}={value}" for key, value in (params or {}).items()), *arguments]
    axes: dict[str, Override] = {}
    for override in OverridesParser.create(config_loader=config_loader).parse_overrides(lines):
        if override.is_sweep_override() and not override.is_discrete_sweep():
            raise ConfigError(
                f"cannot enumerate {override.input_line!r}: a sweep takes lists (a=1,2), choice(), range() "
                f"and glob(), not {override.value_type.name.lower()}"
            )
        axes[override.get_key_element()] = override  # a later value replaces an earlier one, in its place
    return list(axes.values())


def axis_length(axis: Override) -> int:
    """How many values an axis has; a range's by arithmetic, without listing it."""
    from hydra.core.override_parser.types import RangeSweep

    if not axis.is_sweep_override():
        return 1
    value = axis.value()
    if isinstance(value, RangeSweep):
        values = value.range()
        if isinstance(values, range):
            return len(values)
        count = (values.stop - values.start) / values.step  # FloatRange: exact decimals
        return max(0, int(count.to_integral_value(rounding=decimal.ROUND_CEILING)))
    return sum(1 for _ in axis.sweep_string_iterator())  # listed on the command line, or a group's options


def grid_size(axes: Sequence[Override]) -> int:
    """The number of points of a grid: the product of its axes' lengths."""
    return math.prod(axis_length(axis) for axis in axes)


def check_size(axes: Sequence[Override], max_jobs: int) -> int:
    """The grid's size, checked against ``max_jobs`` before anything is built.

    Raises:
        ConfigError: more points than ``max_jobs`` (the message names the largest axis), or none
            (an axis without values, ``seed='range(0,0)'``: named).
    """
    size = grid_size(axes)
    if size == 0:
        empty = next(axis for axis in axes if axis_length(axis) == 0)
        raise ConfigError(f"the grid is empty: {empty.input_line!r} has no values")
    if size > max_jobs:
        largest = max(axes, key=axis_length)
        raise ConfigError(
            f"the grid has {size:,} jobs, more than hydra.sweeper.max_jobs={max_jobs:,} "
            f"({largest.input_line!r} alone has {axis_length(largest):,} values): narrow it, "
            f"or raise the bound with --max-jobs"
        )
    return size


def grid_points(axes: Sequence[Override]) -> Iterator[list[str]]:
    """Each point of the grid as the overrides of one job (``["dataset=car", "seed=3"]``), the last
    axis varying fastest, as Hydra's basic sweeper orders them; one at a time.
    """
    values = []
    for axis in axes:
        key = axis.get_key_element()
        if axis.is_sweep_override():
            values.append([f"{key}={value}" for value in axis.sweep_string_iterator()])
        else:
            values.append([f"{key}={axis.get_value_element_as_str()}"])
    for point in itertools.product(*values):
        yield list(point)


#: Compositions a process keeps (a worker serves many jobs, a sweep many points): a grid's
#: config-group choices, e.g. 21 data sets x 16 algorithms, run in order, the last axis fastest
_COMPOSED: OrderedDict[tuple, bytes] = OrderedDict()  # pickled
_COMPOSED_KEPT = 64
_CHOICES: dict[tuple, dict[str, Any]] = {}  # each kept job composition's hydra.runtime.choices


class ReusingConfigLoader(ConfigLoader):
    """Hydra's config loader, composing each set of config-group choices once per process.

    A job's config is Hydra's composition of its group overrides, copied, with its value
    overrides applied by Hydra's ``ConfigLoaderImpl._apply_overrides_to_config``: what Hydra's
    ``load_sweep_config`` returns, for a copy and a few assignments instead of reading and merging
    the config files again. Which override is a group's is Hydra's own answer (its defaults
    list's ``config_overrides``), asked once per key. The sweeper hands this loader to the
    launcher, so every launcher's workers (joblib's, Ray's, submitit's) load their jobs' configs
    through it: a point the sweeper validated and carried in the job's overrides
    (:mod:`boostbench.runner.point`) is not composed at all. The other methods of Hydra's loader
    interface are the wrapped loader's.
    """

    def __init__(self, loader: ConfigLoader):
        self._loader = loader
        self._token = uuid.uuid4().hex  # this sweep's: a reused worker may have served another
        self._is_value: dict[tuple[str, bool], bool] = {}

    def load_configuration(self, *args: Any, **kwargs: Any) -> DictConfig:
        return self._loader.load_configuration(*args, **kwargs)

    def get_search_path(self) -> Any:
        return self._loader.get_search_path()

    def get_sources(self) -> list:
        return self._loader.get_sources()

    def list_groups(self, parent_name: str) -> list[str]:
        return self._loader.list_groups(parent_name)

    def get_group_options(self, *args: Any, **kwargs: Any) -> list[str]:
        return self._loader.get_group_options(*args, **kwargs)

    def compute_defaults_list(self, *args: Any, **kwargs: Any) -> Any:
        return self._loader.compute_defaults_list(*args, **kwargs)

    def load_sweep_config(self, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        """A job's whole config, Hydra node included (what the launchers ask for)."""
        return self._compose(master_config, list(sweep_overrides), keep_hydra=True)

    def load_job_config(self, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        """A job's config as its task function receives it: without the ``hydra`` node."""
        return self._compose(master_config, list(sweep_overrides), keep_hydra=False)

    def _compose(self, master: DictConfig, lines: list[str], keep_hydra: bool) -> DictConfig:
        from hydra._internal.config_loader_impl import ConfigLoaderImpl
        from hydra.errors import ConfigCompositionException
        from omegaconf import OmegaConf, open_dict, read_write
        from omegaconf.errors import OmegaConfBaseException

        from boostbench.runner.point import carried, split

        lines, text = split(lines)
        point = carried(text) if text is not None and keep_hydra else None
        parsed = _parse(lines)
        if point is not None:  # validated in the sweep's process: not composed again
            return self._carrying(master, parsed, point)
        key = self._key(master, lines, parsed, keep_hydra)
        values = [o for o in parsed if o.input_line not in key[2:]]
        base = _COMPOSED.get(key)
        if base is None:
            composed = self._loader.load_sweep_config(master, list(key[2:]))
            if not keep_hydra:
                _CHOICES[key] = OmegaConf.to_container(composed.hydra.runtime.choices)
                with read_write(composed), open_dict(composed):  # as Hydra's run_job hands it to the task
                    del composed["hydra"]
            base = _COMPOSED[key] = pickle.dumps(composed, protocol=pickle.HIGHEST_PROTOCOL)
            while len(_COMPOSED) > _COMPOSED_KEPT:
                _CHOICES.pop(_COMPOSED.popitem(last=False)[0], None)
        _COMPOSED.move_to_end(key)
        cfg = pickle.loads(base)  # a copy: a third of deepcopy's time
        if values:
            try:
                ConfigLoaderImpl._apply_overrides_to_config(values, cfg)
            except OmegaConfBaseException as exc:  # as Hydra's load_configuration says it
                raise ConfigCompositionException(str(exc)) from exc
        if keep_hydra and values:
            _record_overrides(cfg, parsed)
        OmegaConf.copy_cache(from_config=master, to_config=cfg)
        return cfg

    def group_choices(self, master: DictConfig, sweep_overrides: list[str]) -> dict[str, Any]:
        """The config-group choices of a job (Hydra's ``hydra.runtime.choices``) whose config
        :meth:`load_job_config` composed last.
        """
        lines = list(sweep_overrides)
        return dict(_CHOICES[self._key(master, lines, _parse(lines), keep_hydra=False)])

    def _key(self, master: DictConfig, lines: list[str], parsed: list[Override], keep_hydra: bool) -> tuple:
        """A composition's cache key: this sweep's, with or without the Hydra node, and the job's
        config-group overrides (the others are applied to a copy of it).
        """
        values = self._value_overrides(master, lines, parsed)
        return (self._token, keep_hydra, *(o.input_line for o in parsed if o not in values))

    def _carrying(self, master: DictConfig, parsed: list[Override], point: ValidatedPoint) -> DictConfig:
        """A launched point's job config from the point the sweeper validated: the sweep's config
        (its ``hydra`` node: the launcher's, the job's settings), the point's validated config in
        place of the rest, marked (:data:`boostbench.runner.point.MARK`) with its key and label.
        """
        from omegaconf import OmegaConf, open_dict, read_write

        from boostbench.runner.point import MARK

        cfg = copy.deepcopy(master)  # not pickled: its launcher's node is typed by a class Hydra reloaded
        with read_write(cfg), open_dict(cfg):
            for name in [name for name in cfg if name != "hydra"]:
                del cfg[name]
            for name, value in point.config.items():
                cfg[name] = value
            cfg[MARK] = {"key": point.key, "label": point.label}
            cfg.hydra.runtime.choices = point.choices
        _record_overrides(cfg, parsed)
        OmegaConf.copy_cache(from_config=master, to_config=cfg)
        return cfg

    def _value_overrides(self, master: DictConfig, lines: list[str], parsed: list[Override]) -> list[Override]:
        """The overrides Hydra applies to a composed config (neither a group's choice nor Hydra's own)."""
        from hydra.types import RunMode

        def kind(override: Override) -> tuple[str, bool]:
            return override.key_or_group, isinstance(override.value(), dict)

        if any(kind(o) not in self._is_value for o in parsed):
            hydra_lines = list(master.hydra.overrides.hydra)
            defaults = self._loader.compute_defaults_list(
                master.hydra.job.config_name, [*hydra_lines, *lines], RunMode.RUN
            )
            applied = {o.input_line for o in defaults.config_overrides}
            for override in parsed:
                self._is_value[kind(override)] = override.input_line in applied and not override.is_hydra_override()
        return [o for o in parsed if self._is_value[kind(o)]]


def _record_overrides(cfg: DictConfig, parsed: list[Override]) -> None:
    """What Hydra records of a job's overrides in its ``hydra`` node: all of them, in order."""
    from hydra._internal.config_loader_impl import get_overrides_dirname
    from omegaconf import open_dict, read_write

    task = [o for o in parsed if not o.is_hydra_override()]
    dirname = cfg.hydra.job.config.override_dirname
    with read_write(cfg.hydra), open_dict(cfg.hydra):
        cfg.hydra.overrides.task = [o.input_line for o in task]
        cfg.hydra.job.override_dirname = get_overrides_dirname(
            overrides=task, kv_sep=dirname.kv_sep, item_sep=dirname.item_sep, exclude_keys=list(dirname.exclude_keys)
        )


_PARSED: dict[str, Override] = {}


def _parse(lines: Sequence[str]) -> list[Override]:
    """Hydra's parse of each override line, remembered: a grid repeats each value over its points."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    missing = [line for line in lines if line not in _PARSED]
    if missing:
        if len(_PARSED) > 100_000:
            _PARSED.clear()
        _PARSED.update(zip(missing, OverridesParser.create().parse_overrides(missing)))
    return [_PARSED[line] for line in lines]


def point_label(cfg: DictConfig, varying: Sequence[str] | None = None) -> str:
    """A point's name in the sweep's lines: its algorithm, data set and seed, then each setting
    that differs between the grid's points (``varying``: the point's overrides on the axes with
    several values, ``learner=tan``, ``algorithm.vote=soft``); without them (a job that knows
    no grid) its learner, gamma and preset.
    """
    parts = [f"{cfg.algorithm.name}", f"{cfg.dataset.name}", f"seed={cfg.seed}"]
    if varying is not None:
        for line in varying:
            key, _, value = line.partition("=")
            if key.lstrip("+~") not in ("algorithm", "dataset", "seed"):
                parts.append(f"{key.lstrip('+~')}={value}")
        return " ".join(parts)
    parts.append(f"learner={cfg.learner.name}")
    if "gamma" in cfg.algorithm:
        parts.append(f"gamma={cfg.algorithm.gamma}")
    if cfg.get("preset"):
        parts.append(f"preset={cfg.preset}")
    return " ".join(parts)


#: The grid's label of each point launched, by its key: a job's progress line names its point as
#: the grid does (:func:`point_label` with the axes that vary), which the job alone cannot
GRID_LABELS: dict[str, str] = {}
