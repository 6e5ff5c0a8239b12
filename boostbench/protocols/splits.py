"""Seeded train/test splits for the batch protocols: stratified k-fold and a stratified holdout."""

from __future__ import annotations

import warnings

import numpy as np

from boostbench.errors import ConfigError

Split = tuple[np.ndarray, np.ndarray]


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**31 - 1))


def kfold_splits(y: np.ndarray, n_splits: int, rng: np.random.Generator) -> list[Split]:
    """Stratified k-fold cross-validation (scikit-learn's ``StratifiedKFold``, shuffled, seeded).

    Args:
        y: ``(n,)`` int64 labels.
        n_splits: k >= 2 folds.

    Returns:
        k ``(train, test)`` pairs of int64 index arrays; the test parts partition ``0..n-1``.

    Raises:
        ConfigError: ``n_splits < 2`` or larger than the smallest class (stratification would
            leave a fold without that class; scikit-learn only warns).
    """
    counts = np.bincount(y)
    smallest = int(counts[counts > 0].min())
    if n_splits < 2 or n_splits > smallest:
        raise ConfigError(
            f"protocol.n_splits must be in 2..{smallest} (the smallest class has {smallest} examples), got {n_splits}"
        )
    from sklearn.model_selection import StratifiedKFold  # here: an online run need not load scikit-learn

    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=_seed(rng))
    return [(train.astype(np.int64), test.astype(np.int64)) for train, test in folds.split(np.zeros(len(y)), y)]


def holdout_split(y: np.ndarray, test_fraction: float, rng: np.random.Generator) -> list[Split]:
    """One stratified, seeded train/test split (scikit-learn's ``train_test_split``).

    Raises:
        ConfigError: ``test_fraction`` outside (0, 1), or too small/large to hold every class.
    """
    if not 0.0 < test_fraction < 1.0:
        raise ConfigError(f"protocol.test_fraction must be in (0, 1), got {test_fraction!r}")
    from sklearn.model_selection import train_test_split

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            train, test = train_test_split(
                np.arange(len(y)), test_size=test_fraction, stratify=y, random_state=_seed(rng)
            )
    except (ValueError, UserWarning) as exc:
        raise ConfigError(f"protocol.test_fraction={test_fraction}: {exc}") from None
    return [(np.sort(train).astype(np.int64), np.sort(test).astype(np.int64))]
