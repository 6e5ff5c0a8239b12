"""Exceptions for user mistakes: the CLI prints their message on one line and exits with code 2;
and the user mistakes other libraries raise as their own exceptions (:func:`environment_problem`).
"""

import errno


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


#: A write that failed for want of room or permission on the disk, not for a bug
DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)


def environment_problem(exc: Exception) -> str | None:
    """A user's mistake in the environment, in one line (None: none of these): a YAML file that
    does not load (a ``!!python/object`` tag, a syntax error; its file, line and column named), or
    a write to a full or read-only disk.
    """
    import yaml  # the configs' reader, already loaded wherever a config was read

    if isinstance(exc, yaml.YAMLError):
        mark = getattr(exc, "problem_mark", None)
        where = f"{mark.name}, line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        what = " ".join(str(getattr(exc, "problem", None) or exc).split())
        return f"config file {where}{what} (a config holds plain YAML values only)"
    if isinstance(exc, OSError) and exc.errno in DISK_ERRNOS:
        return f"cannot write {exc.filename or 'a file'}: {exc.strerror}; nothing more was written"
    return None


class BoosterOutputError(BoostbenchError):
    """A booster's prediction is not what the protocols take: a ``predict_proba`` that is not a
    ``(k,)`` array of finite, non-negative numbers, scores that are not one finite number per
    label, a label outside ``0..k-1``. The runner's message names the algorithm and its package.
    """
