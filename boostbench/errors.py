"""Exceptions for user mistakes: the CLI prints their message on one line and exits with code 2."""


class BoostbenchError(Exception):
    """A user-facing error (bad config, bad data file, data set unavailable)."""

    #: the CLI's exit code: 2, a user mistake
    exit_code = 2


class ConfigError(BoostbenchError):
    """The resolved configuration is invalid (unknown name, value out of range)."""


class NotApplicable(ConfigError):
    """The algorithm cannot run with this data set, learner or protocol, as the config says
    (:func:`boostbench.runner.config.incompatibility`) or found once the data set is loaded (a
    binary algorithm on a stream whose config does not declare its classes): a sweep marks the job n/a.
    """


class StoreError(BoostbenchError):
    """The result store cannot be written (read-only, not a directory, disk full); nothing was
    left half-written.
    """


class DataError(BoostbenchError):
    """A data file is missing, malformed or unusable; the message names file, line, column, value."""


class PeerError(BoostbenchError):
    """A peer's own library (MOA's Java process) stopped with an error of its own, not a mistake
    of the user's; the message gives that error. The CLI exits with code 1, a sweep records it as the
    job's reason.
    """

    exit_code = 1


class BoosterOutputError(BoostbenchError):
    """A booster's prediction is not what the protocols take: a ``predict_proba`` that is not a
    ``(k,)`` array of finite, non-negative numbers, scores that are not one finite number per
    label, a label outside ``0..k-1``. The runner's message names the algorithm and its package.
    """
