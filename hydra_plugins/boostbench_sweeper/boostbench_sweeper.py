"""boostbench's Hydra sweeper (``hydra/sweeper=boostbench``, what ``boostbench sweep`` uses).

Hydra's basic sweeper composes every job's config twice (once to check the batch, once in the
job) and launches every point, done or not. This one counts the grid before building it
(``max_jobs``), composes each choice of config groups once, looks each point's hash up in the
result store and hands the launcher only the points still to run, each validated once
(:func:`boostbench.runner.sweep.sweep_grid`); its launcher's jobs take that validated config
instead of composing it again (:class:`boostbench.runner.grid.ReusingConfigLoader`). Hydra
requires a plugin to live in the ``hydra_plugins`` package; the module imports nothing of
boostbench until a sweep starts.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, List, Optional  # noqa: UP035 (OmegaConf's structured configs read these)

from hydra.core.config_store import ConfigStore
from hydra.plugins.sweeper import Sweeper


@dataclass
class BoostbenchSweeperConf:
    """The sweeper's settings: ``hydra.sweeper.params`` (an experiment's grid, as the basic
    sweeper's), ``max_batch_size`` (the points handed to the launcher at once; None: all),
    ``max_jobs`` (a larger grid is refused before it is built) and ``job_timeout`` (seconds: a
    job running longer is ended and recorded as failed; None: no limit).
    """

    _target_: str = "hydra_plugins.boostbench_sweeper.boostbench_sweeper.BoostbenchSweeper"
    max_batch_size: Optional[int] = None  # noqa: UP045
    params: Optional[Dict[str, str]] = None  # noqa: UP006, UP045
    max_jobs: int = 100_000
    job_timeout: Optional[float] = None  # noqa: UP045


ConfigStore.instance().store(
    group="hydra/sweeper", name="boostbench", node=BoostbenchSweeperConf, provider="boostbench"
)


class BoostbenchSweeper(Sweeper):
    """The grid, triaged in the sweep's process, the rest launched (see the module's docstring)."""

    def __init__(
        self,
        max_batch_size: Optional[int] = None,  # noqa: UP045
        params: Optional[Dict[str, str]] = None,  # noqa: UP006, UP045
        max_jobs: int = 100_000,
        job_timeout: Optional[float] = None,  # noqa: UP045
    ) -> None:
        import math

        from boostbench.errors import ConfigError

        super().__init__()
        if job_timeout is not None and not (math.isfinite(job_timeout) and job_timeout > 0):
            raise ConfigError(f"hydra.sweeper.job_timeout={job_timeout}: give a positive number of seconds")
        self.max_batch_size, self.params, self.max_jobs = max_batch_size, dict(params or {}), max_jobs
        self.config = self.hydra_context = self.launcher = None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        from hydra.core.plugins import Plugins

        from boostbench.runner.grid import ReusingConfigLoader

        self.config = config
        self.hydra_context = dataclasses.replace(
            hydra_context, config_loader=ReusingConfigLoader(hydra_context.config_loader)
        )
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=self.hydra_context, task_function=task_function, config=config
        )

    def sweep(self, arguments: List[str]) -> Any:  # noqa: UP006
        from boostbench.runner.sweep import sweep_grid

        return sweep_grid(
            self.config,
            self.hydra_context.config_loader,
            self.launcher,
            arguments,
            params=self.params,
            max_jobs=self.max_jobs,
            max_batch_size=self.max_batch_size,
        )
