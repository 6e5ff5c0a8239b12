"""Where boostbench finds its configs and vendored data.

In a checkout (and its editable install) ``configs/`` and ``datasets/`` sit at the repository root
beside ``boostbench/``; a wheel (``pip install .``) carries them inside the package
(``boostbench/configs``, ``boostbench/datasets``; pyproject.toml's wheel sources), so an installed
boostbench works from any directory. ``BOOSTBENCH_CONFIG_DIR`` replaces the configs folder.
Also where runs keep their caches (:func:`cache_dir`).
"""

from __future__ import annotations

import os
from pathlib import Path

#: The ``boostbench`` package's folder
PACKAGE_DIR = Path(__file__).resolve().parent.parent
#: The checkout (for its git commit and a MOA venv beside it); outside one, site-packages
REPO_ROOT = PACKAGE_DIR.parent


def shipped_dir(name: str) -> Path:
    """The folder ``name`` (``configs`` or ``datasets``): inside the package when installed from a
    wheel, else at the checkout's root. Inside is tried first: site-packages may hold another
    distribution's top-level ``configs``.
    """
    inside = PACKAGE_DIR / name
    return inside if inside.is_dir() else REPO_ROOT / name


CONFIG_DIR = Path(os.environ.get("BOOSTBENCH_CONFIG_DIR") or shipped_dir("configs")).resolve()
VENDORED_DATA_DIR = shipped_dir("datasets")


def cache_dir(kind: str) -> Path:
    """``$BOOSTBENCH_CACHE/<kind>`` (default ``~/.cache/boostbench/<kind>``): compiled kernels
    (:mod:`boostbench.system.kernel_cache`) and computed arrays (:mod:`boostbench.system.disk_cache`).
    """
    root = os.environ.get("BOOSTBENCH_CACHE") or Path.home() / ".cache" / "boostbench"
    return Path(root) / kind
