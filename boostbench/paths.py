"""Where the package keeps its configs and vendored data: inside it (package data), so that an
installed boostbench (``pip install .``) finds them as an editable checkout does; and where runs
keep their caches (:func:`cache_dir`)."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
#: The checkout (for its git commit and a MOA venv beside it); outside one, site-packages
REPO_ROOT = PACKAGE_DIR.parent
CONFIG_DIR = Path(os.environ.get("BOOSTBENCH_CONFIG_DIR", PACKAGE_DIR / "configs")).resolve()
VENDORED_DATA_DIR = PACKAGE_DIR / "datasets"


def cache_dir(kind: str) -> Path:
    """``$BOOSTBENCH_CACHE/<kind>`` (default ``~/.cache/boostbench/<kind>``): compiled kernels
    (:mod:`boostbench.kernel_cache`) and computed arrays (:mod:`boostbench.core.disk_cache`)."""
    root = os.environ.get("BOOSTBENCH_CACHE") or Path.home() / ".cache" / "boostbench"
    return Path(root) / kind
