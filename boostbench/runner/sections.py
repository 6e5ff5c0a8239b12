"""A validated run configuration, in typed sections: what a run reads, built once by
:func:`boostbench.runner.config.validate` from the resolved config, and passed down instead of it.

The values, defaults included, are the config files' (``configs/``); a field has a default here
only where some files of its group do not have the key, and the default is what its absence means.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omegaconf import DictConfig

    from boostbench.algorithms import AlgorithmSpec
    from boostbench.learners.config import LearnerConfig


@dataclass(frozen=True)
class ProtocolConfig:
    """The ``protocol`` section (``configs/protocol/*.yaml``): how the examples reach the booster.

    Attributes:
        name: ``"prequential"``, ``"prequential_cv"``, ``"train_test"``, ``"kfold"`` or ``"holdout"``.
        shuffle: a seeded order of the examples (False: the file's).
        final_fraction: the final part of the stream the final accuracy averages (prequential).
        curve_points: the checkpoints of the stored curve (the online passes).
        window: the examples of the windowed curves' sliding window (a multiclass online pass).
        delay: the examples between a prediction and its label (0: labels at once).
        max_examples: the first m examples of the pass (None: all of them).
        shuffle_seed: one shuffle for every run seed, numpy's legacy one (None: the run seed's).
        n_splits: the folds of ``kfold``.
        test_fraction: the held-out part of ``holdout``.
        use_dataset_split: ``holdout`` takes a data set's own train/test split when it has one.
        keep_weights: the record keeps fold 1's per-round example distribution (split protocols).
        fading: the fading factor alpha of the fading-factor accuracy and kappa (None: not measured).
        n_folds: the learner's copies of ``prequential_cv``.
        validation: how ``prequential_cv`` trains its copies: ``"cross_validation"``,
            ``"bootstrap"`` or ``"split"``.
    """

    name: str
    shuffle: bool
    final_fraction: float
    curve_points: int = 100
    window: int = 1000
    delay: int = 0
    max_examples: int | None = None
    shuffle_seed: int | None = None
    n_splits: int | None = None
    test_fraction: float | None = None
    use_dataset_split: bool = True
    keep_weights: bool = False
    fading: float | None = None
    n_folds: int | None = None
    validation: str | None = None

    def check_size(self, n_examples: int) -> None:
        """Refuse more folds (``n_splits`` of ``kfold``, ``n_folds`` of ``prequential_cv``) than
        the data set has examples, before a fold is made.

        Raises:
            ConfigError: the key, its value and the examples, in one line.
        """
        from boostbench.errors import ConfigError

        for key in ("n_splits", "n_folds"):
            value = getattr(self, key)
            if value is not None and value > n_examples:
                raise ConfigError(
                    f"protocol.{key}={value}: more than the data set's {n_examples} examples (2..{n_examples})"
                )


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """A validated run configuration: its typed sections, and the resolved config they come from.

    Attributes:
        spec: the algorithm's registry entry.
        algorithm: the ``algorithm`` section: ``name`` and the booster's constructor arguments,
            checked against its class's constraints (the class is their typed form).
        learner: the ``learner`` section, typed by its kind (:mod:`boostbench.learners.config`;
            a peer's is checked but not used: it brings its own learners).
        protocol: the ``protocol`` section.
        dataset: the ``dataset`` section as the data layer reads it
            (:func:`boostbench.data.load_dataset`; its keys are the data registry's).
        seed: the run seed (stream order, learner parameters, booster draws).
        n_learners: N, the ``n_learners`` knob (:meth:`AlgorithmSpec.pool_size` gives the pool's size).
        n_threads: the threads training the trees (None: :func:`boostbench.runner.experiment.run_threads` chooses).
        data_dir: an extra data directory (None: the vendored ones and ``$BOOSTBENCH_DATA_DIR``).
        resolved: the whole config, interpolations resolved: the record's ``config``, and its hash's source.
    """

    spec: AlgorithmSpec
    algorithm: Mapping[str, Any]
    learner: LearnerConfig
    protocol: ProtocolConfig
    dataset: DictConfig
    seed: int
    n_learners: int
    n_threads: int | None
    data_dir: str | None
    resolved: Mapping[str, Any]
