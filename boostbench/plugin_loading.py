"""Finding and importing the installed plugins' algorithms (entry points of group
:data:`ENTRY_POINT_GROUP`), for :data:`boostbench.algorithms.ALGORITHMS`, which reads them.

A plugin is listed by its entry point's name (its package's metadata: nothing imported) and
imported only when one is used: each in a thread bounded in time, any exception at import
(``SystemExit`` included) its own failure, told in one line naming its package. A run chooses
its plugins by name (:func:`requested_plugins`), so a run of the built-ins imports none.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from boostbench.system.paths import CONFIG_DIR

#: The entry-point group a plugin registers its algorithms under (its pyproject.toml's
#: ``[project.entry-points."boostbench.algorithms"]``)
ENTRY_POINT_GROUP = "boostbench.algorithms"


def plugin_source(cls: type) -> Path:
    """The sources of the package ``cls`` comes from: its top-level package's directory, or the file
    of a top-level module.
    """
    top = sys.modules[cls.__module__.partition(".")[0]]
    path = Path(top.__file__).resolve()
    return path.parent if path.name == "__init__.py" else path


#: Seconds a plugin may take to import before it is left out (``BOOSTBENCH_PLUGIN_IMPORT_TIMEOUT``)
PLUGIN_IMPORT_TIMEOUT_S = 60.0


def import_bounded(point: metadata.EntryPoint) -> Any:
    """``point.load()``, bounded in time and in what it may do to this process: run in a thread
    (a plugin that hangs at import is left out after :data:`PLUGIN_IMPORT_TIMEOUT_S`; the thread,
    a daemon, is abandoned), and any exception, ``SystemExit`` included, is the plugin's failure.

    Raises:
        ImportError: it raised (its type and message) or did not finish in time.
    """
    import os
    import threading

    outcome: dict[str, Any] = {}

    def load() -> None:
        try:
            outcome["value"] = point.load()
        except BaseException as exc:  # sys.exit at import is the plugin's failure, not ours
            outcome["error"] = exc

    try:
        limit = float(os.environ.get("BOOSTBENCH_PLUGIN_IMPORT_TIMEOUT") or PLUGIN_IMPORT_TIMEOUT_S)
    except ValueError:
        limit = PLUGIN_IMPORT_TIMEOUT_S
    thread = threading.Thread(target=load, name=f"import {point.value}", daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        raise ImportError(f"did not finish importing in {limit:g} s (BOOSTBENCH_PLUGIN_IMPORT_TIMEOUT)")
    if "error" in outcome:
        exc = outcome["error"]
        raise ImportError(f"{type(exc).__name__}: {' '.join(str(exc).split())}") from exc
    return outcome["value"]


def entry_points() -> list[metadata.EntryPoint]:
    """The installed entry points of group :data:`ENTRY_POINT_GROUP`, by name (nothing imported)."""
    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name)


def requested_plugins(names: Sequence[str], overrides: Sequence[str] = ()) -> list[str]:
    """The plugin algorithms among ``names`` (the installed ones', by
    :meth:`boostbench.algorithms.Registry.plugin_names`) that ``overrides`` may choose: those whose
    name appears in an override, or in an experiment file it names (a word of its text). A
    built-in run names none, so it imports no plugin.
    """
    if not names:
        return []
    text = " ".join(overrides)
    for item in overrides:
        key, _, value = item.partition("=")
        if key.lstrip("+") == "experiment":
            for choice in value.split(","):
                path = CONFIG_DIR / "experiment" / f"{choice.strip()}.yaml"
                try:
                    text += " " + path.read_text(encoding="utf-8")
                except (OSError, ValueError):
                    pass  # an unknown experiment is refused where it is composed
    words = set(re.findall(r"[A-Za-z0-9_]+", text))
    return [name for name in names if name in words]


def chooses(overrides: Sequence[str], name: str) -> bool:
    """Whether an ``algorithm=`` override of ``overrides`` names ``name`` among its choices."""
    for item in overrides:
        key, _, value = item.partition("=")
        if key.lstrip("+") == "algorithm" and name in (c.strip() for c in value.split(",")):
            return True
    return False
