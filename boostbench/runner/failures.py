"""Why a sweep's jobs failed: the reason of an exception, the note each failed job keeps under
``<results_dir>/failed/`` (read back by :func:`boostbench.runner.store.iter_failures`), the time
limit a job runs under, and the sweep's closing line naming its failed points.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from boostbench.errors import BoostbenchError, ConfigError
from boostbench.runner.store import failure_path, write_record


def exception_reason(exc: BaseException) -> str:
    """What a job's exception says, in one line: a user's mistake (a :class:`BoostbenchError`) its
    message; anything else (a bug, a plugin's ``sys.exit``) its type, message and where it was raised.
    """
    if isinstance(exc, BoostbenchError):
        return " ".join(str(exc).split())
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__}: {' '.join(str(exc).split())} ({Path(frame.filename).name}:{frame.lineno})"


def keep_failure(results_dir: str, key: str, label: str, reason: str, config: dict[str, Any]) -> None:
    """Keep why the job of ``key`` failed in ``failed/<key>.json`` (a cluster job's terminal is
    seldom watched); a later sweep runs it again, and removes the note once it succeeds. A note
    that cannot be written is left out (the job's outcome still says it).
    """
    try:
        write_record({"key": key, "label": label, "reason": reason, "config": config}, failure_path(results_dir, key))
    except BoostbenchError:
        pass


def job_timeout() -> float | None:
    """``hydra.sweeper.job_timeout`` of the Hydra job running here, in seconds (None: no limit, or
    no Hydra job).
    """
    from hydra.core.hydra_config import HydraConfig

    try:
        value = HydraConfig.get().sweeper.get("job_timeout")
    except (ValueError, AttributeError):
        return None
    return None if value is None else float(value)


def check_job_timeout(overrides: Sequence[str]) -> None:
    """Refuse a ``hydra.sweeper.job_timeout`` override that is no finite number of seconds above 0.

    Raises:
        ConfigError: the override and what it must be.
    """
    import math

    for item in overrides:
        key, _, value = item.partition("=")
        if key.lstrip("+") != "hydra.sweeper.job_timeout" or value in ("null", ""):
            continue
        try:
            seconds = float(value)
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds > 0):
            raise ConfigError(f"{item}: give the seconds a job may run, a finite number above 0 (or null)")


def closing_line(outcomes: Sequence[Any], results_dir: str | None) -> str | None:
    """One line naming the failed points of a sweep's ``outcomes`` (status "error"; the first
    three by label) and where their causes are kept; None when none failed.
    """
    failed = [o.label for o in outcomes if o.status == "error"]
    if not failed:
        return None
    names = ", ".join(failed[:3]) + (f" and {len(failed) - 3} more" if len(failed) > 3 else "")
    where = f" (causes in {Path(results_dir) / 'failed'})" if results_dir else ""
    return f"{len(failed)} job(s) failed: {names}{where}; run the same sweep again to retry them"
