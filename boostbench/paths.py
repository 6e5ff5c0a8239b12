"""Where the repository keeps configs and vendored data (the package is installed editable)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = Path(os.environ.get("BOOSTBENCH_CONFIG_DIR", REPO_ROOT / "configs")).resolve()
VENDORED_DATA_DIR = REPO_ROOT / "datasets"

