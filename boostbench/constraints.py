"""Declarative checks of configuration values, checked in one place (:func:`boostbench.runner.config.validate`).

Each booster class declares what a valid value of each hyper-parameter is
(``_parameter_constraints``, as scikit-learn's estimators), the learner registry does for the
learners' config keys; the runner checks a composed configuration against those declarations
before any heavy import or any work, and a bad value is one line naming the key, what it must
be, and the value given.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from boostbench.errors import ConfigError

T = TypeVar("T")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class Constraint:
    """What a valid value is; :meth:`ok` tests one, :meth:`describe` says it in words."""

    def ok(self, value: Any) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Interval(Constraint):
    """A finite number between ``low`` and ``high`` (None: unbounded), ends open or closed."""

    low: float | None = None
    high: float | None = None
    closed_low: bool = False
    closed_high: bool = False
    integer: bool = False
    nullable: bool = False

    def ok(self, value: Any) -> bool:
        if value is None:
            return self.nullable
        if not (_is_int(value) if self.integer else _is_number(value)):
            return False
        if self.low is not None and (value < self.low or (value == self.low and not self.closed_low)):
            return False
        return not (self.high is not None and (value > self.high or (value == self.high and not self.closed_high)))

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a number"
        if self.low is not None and self.high is not None:
            text = (
                f"{kind} in {'[' if self.closed_low else '('}{self.low:g}, {self.high:g}"
                f"{']' if self.closed_high else ')'}"
            )
        elif self.low is not None:
            text = f"{kind} {'>=' if self.closed_low else '>'} {self.low:g}"
        elif self.high is not None:
            text = f"{kind} {'<=' if self.closed_high else '<'} {self.high:g}"
        else:
            text = kind
        return text + (" or null" if self.nullable else "")


@dataclass(frozen=True)
class OneOf(Constraint):
    """One of the listed values."""

    values: tuple[Any, ...]

    def ok(self, value: Any) -> bool:
        return any(value == v and type(value) is type(v) for v in self.values)

    def describe(self) -> str:
        return "one of " + ", ".join(
            "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v) for v in self.values
        )


@dataclass(frozen=True)
class RangePair(Constraint):
    """``[low, high]`` with ``low <= high`` both inside ``bound`` (e.g. a parameter range to draw from),
    or with ``fixed`` also one value inside ``bound`` (the parameter fixed).
    """

    bound: Interval
    fixed: bool = False

    def ok(self, value: Any) -> bool:
        if self.fixed and not isinstance(value, (list, tuple)):
            return self.bound.ok(value)
        return (
            isinstance(value, (list, tuple))
            and len(value) == 2
            and all(self.bound.ok(v) for v in value)
            and value[0] <= value[1]
        )

    def describe(self) -> str:
        pair = f"[low, high] with low <= high, each {self.bound.describe()}"
        return f"{self.bound.describe()} or {pair}" if self.fixed else pair


@dataclass(frozen=True)
class Matches(Constraint):
    """A string the regular expression ``pattern`` matches whole; ``what`` says it in words."""

    pattern: str
    what: str

    def ok(self, value: Any) -> bool:
        return isinstance(value, str) and re.fullmatch(self.pattern, value) is not None

    def describe(self) -> str:
        return self.what


@dataclass(frozen=True)
class Anything(Constraint):
    """Any value: a plugin's hyper-parameter its class declares no constraint for (the constructor
    then checks it, once the run has started).
    """

    def ok(self, value: Any) -> bool:
        return True

    def describe(self) -> str:
        return "any value"


ANY = Anything()


@dataclass(frozen=True)
class Text(Constraint):
    """A string, non-empty unless ``empty`` (of exactly ``length`` characters, if given), or null if
    ``nullable``.
    """

    length: int | None = None
    nullable: bool = False
    empty: bool = False

    def ok(self, value: Any) -> bool:
        if value is None:
            return self.nullable
        return (
            isinstance(value, str)
            and (self.empty or bool(value))
            and (self.length is None or len(value) == self.length)
        )

    def describe(self) -> str:
        if self.length is not None:
            kind = f"a string of {self.length} character{'s' if self.length > 1 else ''}"
        else:
            kind = "a string" if self.empty else "a non-empty string"
        return kind + (" or null" if self.nullable else "")


@dataclass(frozen=True)
class ListOf(Constraint):
    """A list whose every item satisfies ``item`` (``distinct``: no item twice), or null if ``nullable``."""

    item: Constraint
    nullable: bool = False
    distinct: bool = False

    def ok(self, value: Any) -> bool:
        if value is None:
            return self.nullable
        return (
            isinstance(value, (list, tuple))
            and all(self.item.ok(v) for v in value)
            and (not self.distinct or len({repr(v) for v in value}) == len(value))
        )

    def describe(self) -> str:
        kind = f"a list of {'distinct ' if self.distinct else ''}items, each {self.item.describe()}"
        return kind + (", or null" if self.nullable else "")


@dataclass(frozen=True)
class AnyOf(Constraint):
    """A value that satisfies one of ``options``."""

    options: tuple[Constraint, ...]

    def ok(self, value: Any) -> bool:
        return any(option.ok(value) for option in self.options)

    def describe(self) -> str:
        return " or ".join(option.describe() for option in self.options)


POSITIVE = Interval(0.0)
PROBABILITY = Interval(0.0, 1.0)  # open: an edge, a fraction strictly inside
BOOLEAN = OneOf((True, False))
#: a fidelity variant (docs/deviations.md): the paper's text or the authors' code
PAPER_OR_REFERENCE = OneOf(("paper", "reference"))


def positive_int(minimum: int = 1, nullable: bool = False) -> Interval:
    """An integer >= ``minimum`` (or null)."""
    return Interval(minimum, closed_low=True, integer=True, nullable=nullable)


def entry(kind: str, name: str, table: Mapping[str, Any]) -> Any:
    """``table[name]``, the registry entry of an algorithm, learner, ... (``kind`` names it).

    Raises:
        ConfigError: unknown name; the message lists the known ones.
    """
    if name not in table:
        raise ConfigError(f"unknown {kind} {name!r} (available: {', '.join(table)})")
    return table[name]


class InvalidParameterError(ConfigError, ValueError):
    """A value outside its declared constraint: a :class:`ConfigError` for the runner (one line,
    exit code 2) and a ``ValueError`` for a booster's or estimator's caller, as scikit-learn's.
    """


def check(section: str, values: Mapping[str, Any], constraints: Mapping[str, Constraint]) -> None:
    """Check every key of ``constraints`` that ``values`` holds.

    Args:
        section: the config path or class shown in the message (``"algorithm"``, ``"learner"``,
            ``"AdaboostOLM"``, ``""``).

    Raises:
        InvalidParameterError: ``<section>.<key> must be <what>, got <value>``.
    """
    for key, constraint in constraints.items():
        if key in values and not constraint.ok(values[key]):
            name = f"{section}.{key}" if section else key
            quoted = " (a quoted string: write it without quotes)" if constraint.ok(_unquoted(values[key])) else ""
            raise InvalidParameterError(f"{name} must be {constraint.describe()}, got {values[key]!r}{quoted}")


def _unquoted(value: Any) -> Any:
    """What a string means unquoted (``'false'``: False, ``'3'``: 3), else a value no constraint
    takes: to tell a user a quote made their value a string.
    """
    import json

    if not isinstance(value, str):
        return _NOTHING
    try:
        return json.loads(value.strip().lower())
    except ValueError:
        return _NOTHING


_NOTHING = object()


def typed_section(cls: type[T], section: str, values: Mapping[str, Any]) -> T:
    """A config section as the frozen dataclass ``cls`` (its typed form), from checked ``values``:
    the keys that are its fields, each of its declared type (``int``, ``float``, ``str``, ``bool``,
    ``tuple``; None only where the type allows it), never converted from another (the string
    ``'false'`` is no boolean: it would be true); other keys are left out (a key no config declares
    is refused by :func:`boostbench.runner.checks.unknown_key`). A field with a default may be absent.

    Raises:
        ConfigError: ``missing configuration key '<section>.<field>'``, or
            ``<section>.<field> must be <type>, got <value>``.
    """
    hints = typing.get_type_hints(cls)
    given = {}
    for field in dataclasses.fields(cls):
        if field.name in values:
            given[field.name] = _as_type(hints[field.name], values[field.name], f"{section}.{field.name}")
        elif field.default is dataclasses.MISSING:
            raise ConfigError(f"missing configuration key '{section}.{field.name}'")
    return cls(**given)


#: A field's type in words
_TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string", tuple: "a list"}


def _as_type(kind: Any, value: Any, name: str) -> Any:
    """``value`` as ``kind`` (``int | None``: an int or None; ``tuple[float, float]``: a tuple of
    floats), if it is of that type (an int is a float; nothing else converts).

    Raises:
        InvalidParameterError: ``<name> must be <type>, got <value>``.
    """
    options = typing.get_args(kind) if isinstance(kind, types.UnionType) else (kind,)
    if value is None and type(None) in options:
        return None
    choices = [k for k in options if k is not type(None)]
    pair = isinstance(value, (list, tuple))  # a range's pair, or one fixed value
    kind = next((k for k in choices if (typing.get_origin(k) is tuple) == pair), choices[0])
    origin = typing.get_origin(kind) or kind
    if origin is tuple and isinstance(value, (list, tuple)):
        items = [k for k in typing.get_args(kind) if k is not Ellipsis]
        return tuple(_as_type(items[0], v, f"{name}[{i}]") if items else v for i, v in enumerate(value))
    if origin in (int, float) and isinstance(value, bool):
        pass
    elif origin is float and isinstance(value, (int, float)):
        return float(value)
    elif origin in _TYPE_WORDS and isinstance(value, origin):
        return value
    elif origin not in _TYPE_WORDS:
        return origin(value)
    words = _TYPE_WORDS[origin] + (" or null" if type(None) in options else "")
    quoted = ""
    if _unquoted(value) is not _NOTHING:
        try:
            _as_type(kind, _unquoted(value), name)
            quoted = " (a quoted string: write it without quotes)"
        except InvalidParameterError:
            pass
    raise InvalidParameterError(f"{name} must be {words}, got {'null' if value is None else repr(value)}{quoted}")
