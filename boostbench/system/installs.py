"""How a plugin's package was installed, and the command that installs it again.

An installed package's entry points are the ones its metadata recorded at install time: a class
or an entry point renamed in the sources since then is seen only once the package is installed
again. pip records where it installed from (``direct_url.json``, PEP 610), which names the
folder to reinstall from and the ``pyproject.toml`` that says what the sources declare now.
"""

from __future__ import annotations

import json
import sys
import tomllib
import urllib.request
from importlib import metadata
from pathlib import Path


def _origin(dist: metadata.Distribution) -> tuple[Path | None, bool]:
    """The folder pip installed ``dist`` from, and whether in editable mode (None: an index's)."""
    try:
        info = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return None, False
    url = info.get("url", "") if isinstance(info, dict) else ""
    if not url.startswith("file://"):
        return None, False
    editable = bool((info.get("dir_info") or {}).get("editable"))
    return Path(urllib.request.url2pathname(url.removeprefix("file://"))), editable


def reinstall_command(dist: metadata.Distribution) -> str:
    """The command that installs ``dist`` again into this Python's environment (the pip of the
    interpreter running boostbench, from the folder it was installed from if there is one).
    """
    folder, editable = _origin(dist)
    target = dist.name if folder is None else f"{'-e ' if editable else ''}{folder}"
    return f"{sys.executable} -m pip install {'--force-reinstall ' if folder is None else ''}{target}"


def declared_not_installed(name: str, group: str) -> str | None:
    """Why the entry point ``name`` of ``group`` is not installed although a plugin's sources
    declare it (its ``pyproject.toml`` names it, its installed metadata does not: renamed or
    added since the install), with the command to reinstall; None: no such sources.
    """
    dists = {point.dist.name: point.dist for point in metadata.entry_points(group=group) if point.dist is not None}
    for dist in dists.values():
        folder, _ = _origin(dist)
        if folder is None:
            continue
        try:
            project = tomllib.loads((folder / "pyproject.toml").read_text())
            declared = project["project"]["entry-points"][group]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(declared, dict) and name in declared:
            return (
                f"plugin algorithm {name!r} of package {dist.name} {dist.version} is declared in "
                f"{folder / 'pyproject.toml'} but not installed: reinstall the package ({reinstall_command(dist)})"
            )
    return None
