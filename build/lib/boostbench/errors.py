"""Exceptions for user mistakes: the CLI prints their message on one line and exits with code 2."""


class BoostbenchError(Exception):
    """A user-facing error (bad config, bad data file, data set unavailable)."""


class ConfigError(BoostbenchError):
    """The resolved configuration is invalid (unknown name, value out of range)."""


class StoreError(BoostbenchError):
    """The result store cannot be written (read-only, not a directory, disk full); nothing was
    left half-written."""


class DataError(BoostbenchError):
    """A data file is missing, malformed or unusable; the message names file, line, column, value."""
