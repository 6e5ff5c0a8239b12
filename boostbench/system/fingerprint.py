"""The code fingerprint: which code computed a record's numbers.

The config hash says what was asked; the fingerprint says what answered. It is a digest of the
package's sources that compute the numbers (data, learners, boosters, protocols, the runner) and
of the versions of the libraries they lean on, so editing a booster or upgrading river gives
finished configs a new store key and a sweep runs them again instead of reusing old numbers.
The reporting, the CLI and the store are left out: changing how a table is drawn reruns nothing.
A peer (river's, MOA's, VW's ensembles) never runs our boosters, trees or their maths, and ours
never run a peer's wrapper: each side's fingerprint leaves the other's sources out, so a change to
our kernels reruns our runs and not the hours of the peers' (and the reverse).
A plugin algorithm's runs (:mod:`boostbench.algorithms`) also take its package's sources, name and
version: a changed plugin reruns its own runs, and installing one reruns nothing else.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from boostbench.system.paths import PACKAGE_DIR

if TYPE_CHECKING:
    from boostbench.algorithms import AlgorithmSpec

#: What computes a run's numbers: modules and subpackages of ``boostbench``
NUMERIC_SOURCES = (
    "algorithms.py",
    "runner/experiment.py",
    "seeding.py",
    "metrics.py",
    "multilabel_metrics.py",
    "system/kernel_cache.py",
    "system/disk_cache.py",
    "data",
    "learners",
    "boosters",
    "core",
    "batch",
    "protocols",
)
#: The sources only our own algorithms run (a peer's fingerprint leaves them out)
OURS_ONLY = ("learners", "core", "batch", "boosters")
#: What computes a peer's numbers: the numeric sources less :data:`OURS_ONLY`, plus the boosters'
#: common base and the peers' wrappers
PEER_SOURCES = (
    *(name for name in NUMERIC_SOURCES if name not in OURS_ONLY),
    "boosters/__init__.py",
    "boosters/base.py",
    "boosters/peers",
)
#: The peers' wrappers, which our own algorithms' fingerprint leaves out
PEERS_ONLY = "boosters/peers"
#: Libraries whose version can change the numbers (river's trees, numba's float maths, ...)
LIBRARIES = ("numpy", "scipy", "scikit-learn", "river", "numba", "pandas")


def digest_files(root: Path, files: Iterable[Path]) -> str:
    """sha256 (16 hex digits) of each file's path relative to ``root`` and its bytes, in path order."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def sources_digest(package: Path = PACKAGE_DIR, peer: bool = False) -> str:
    """:func:`digest_files` of the sources that compute our algorithms' numbers under ``package``
    (:data:`NUMERIC_SOURCES` less :data:`PEERS_ONLY`), or a peer's (:data:`PEER_SOURCES`).
    """
    files: list[Path] = []
    for name in PEER_SOURCES if peer else NUMERIC_SOURCES:
        path = package / name
        files += path.rglob("*.py") if path.is_dir() else [path]
    if not peer:
        files = [path for path in files if not path.is_relative_to(package / PEERS_ONLY)]
    return digest_files(package, files)


def _version(library: str) -> str:
    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return "absent"


def code_fingerprint(algorithm: AlgorithmSpec | None = None) -> str:
    """The fingerprint of this process's code (16 hex digits; computed once per process, ~5 ms):
    the code that computes our algorithms' numbers, a peer ``algorithm``'s (river's, MOA's, VW's:
    :func:`sources_digest` with ``peer``), and for a plugin's algorithm, that plugin's too
    (:func:`plugin_digest`).
    """
    ours = _own_fingerprint(bool(algorithm is not None and algorithm.peer))
    if algorithm is None or algorithm.plugin is None:
        return ours
    plugin = algorithm.plugin
    digest = hashlib.sha256(f"{ours}\0{plugin.distribution}\0{plugin.version}\0".encode())
    digest.update(plugin_digest(plugin.source).encode())
    return digest.hexdigest()[:16]


@functools.cache
def _own_fingerprint(peer: bool = False) -> str:
    libraries = ",".join(f"{name}={_version(name)}" for name in LIBRARIES)
    digest = hashlib.sha256(sources_digest(peer=peer).encode() + b"\0" + libraries.encode())
    return digest.hexdigest()[:16]


def peer_fingerprint() -> str:
    """This process's fingerprint of the code that computes a peer's numbers."""
    return _own_fingerprint(True)


def fingerprints() -> frozenset[str]:
    """This process's fingerprints of our algorithms' code and of the peers' (a record made by
    either is made by today's code).
    """
    return frozenset((_own_fingerprint(False), peer_fingerprint()))


@functools.cache
def plugin_digest(source: Path) -> str:
    """:func:`digest_files` of a plugin's sources: every ``.py`` file under its package's directory
    (``source``), or its module's file (once per process).
    """
    if source.is_dir():
        return digest_files(source, source.rglob("*.py"))
    return digest_files(source.parent, [source])


def run_key(config_hash: str, code: str | None = None, algorithm: AlgorithmSpec | None = None) -> str:
    """The store key of a run: ``<config hash>.<code fingerprint>`` (this process's code, and the
    plugin's of a plugin ``algorithm``, unless ``code`` is given). The record of a config made by
    other code has another key.
    """
    return f"{config_hash}.{code or code_fingerprint(algorithm)}"
