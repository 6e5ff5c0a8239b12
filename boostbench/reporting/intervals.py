"""Intervals over seeds (or data sets) that stay inside the measure's range.

A mean of a bounded measure (an accuracy in [0, 1], a kappa in [-1, 1]) gets Student's t
interval (95%), clipped to the range: with few, spread seeds the t interval runs past it, and a
bound no run can reach is not a statement about the runs. A positive measure with no upper
bound (seconds, bytes, RAM-hours, counts) gets the bootstrap percentile interval of its mean
(``scipy.stats.bootstrap``, seeded): it lies between the smallest and the largest value, so
above zero, where a t interval over skewed times runs below zero (``4.46e-09 ± 1.65e-08``).
Below :data:`MIN_SEEDS` values there is no interval: a t interval over two seeds (t = 12.7)
covers nearly any range and reads as a result; the reports print "n < 3" instead.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from boostbench import measures

#: Values below which no interval is given (t with 1 degree of freedom is 12.7: no information)
MIN_SEEDS = 3
#: The bootstrap of a positive measure's mean: resamples and the seed of their generator
BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_SEED = 0


def positive(metric: str) -> bool:
    """Whether ``metric`` is a time, size or count: positive, with no upper bound (``runtime_s``,
    ``cpu_s``, ``ram_hours``, ``peak_rss_bytes``, ``n_examples``, ...: :func:`boostbench.measures.positive`).
    """
    return measures.positive(metric)


def metric_range(metric: str) -> tuple[float, float]:
    """The values ``metric`` (a measure or a curve) can take: its domain in the registry of
    measures (:func:`boostbench.measures.domain`); ``(-inf, inf)`` for a name it does not know.
    """
    return measures.domain(metric)


def confidence_interval(
    values: np.ndarray, level: float = 0.95, bounds: tuple[float, float] | None = None
) -> tuple[float, float]:
    """Student's t interval of the mean of ``values`` (one per seed), clipped to ``bounds`` (None:
    not clipped); ``(nan, nan)`` below :data:`MIN_SEEDS` values, the mean twice when they are all
    equal.
    """
    n = len(values)
    if n < MIN_SEEDS:
        return float("nan"), float("nan")
    mean = float(np.mean(values))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * np.std(values, ddof=1) / np.sqrt(n))
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return low, high


def bootstrap_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The bootstrap percentile interval of the mean of ``values`` (``scipy.stats.bootstrap``,
    :data:`BOOTSTRAP_RESAMPLES` resamples from a generator seeded :data:`BOOTSTRAP_SEED`: the same
    values give the same interval); ``(nan, nan)`` below :data:`MIN_SEEDS` values, the mean twice
    when they are all equal.
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) < MIN_SEEDS:
        return float("nan"), float("nan")
    if np.ptp(values) == 0:
        return float(values[0]), float(values[0])
    result = stats.bootstrap(
        (values,),
        np.mean,
        confidence_level=level,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def measure_interval(values: np.ndarray, metric: str, level: float = 0.95) -> tuple[float, float, bool]:
    """The interval of the mean of ``values`` of ``metric``: a bootstrap percentile interval for a
    positive measure (:func:`positive`), else Student's t clipped to :func:`metric_range`.

    Returns:
        ``(low, high, clipped)``: NaN bounds below :data:`MIN_SEEDS` values; ``clipped`` whether
        the t interval had to be clipped to the measure's range.
    """
    values = np.asarray(values, dtype=np.float64)
    if positive(metric):
        return (*bootstrap_interval(values, level), False)
    bounds = metric_range(metric)
    return (*confidence_interval(values, level, bounds), clipped(values, bounds, level))


def clipped(values: np.ndarray, bounds: tuple[float, float], level: float = 0.95) -> bool:
    """Whether the t interval of ``values`` had to be clipped to ``bounds``."""
    raw = confidence_interval(values, level)
    return raw[0] == raw[0] and (raw[0] < bounds[0] or raw[1] > bounds[1])


def interval_text(low: float, high: float, n: int, digits: int = 4) -> str:
    """``[low, high]``, or ``n < 3`` where there are too few seeds for an interval ("" for none)."""
    if low == low:
        return f"[{low:.{digits}f}, {high:.{digits}f}]"
    return f"n < {MIN_SEEDS}" if 0 < n < MIN_SEEDS else ""


def caption(bounds_note: bool = True, over: str = "seeds", folds: bool = False) -> str:
    """How the reports' intervals are made, for a table's caption (``over``: what the values are
    one per; ``folds``: the table may hold an interval over one run's folds, :func:`interval_cell`).
    """
    text = (
        f"Interval: 95% over {over}: Student's t for an accuracy, kappa or other bounded measure; "
        f"for a time, memory or count the bootstrap percentile interval of the mean "
        f"({BOOTSTRAP_RESAMPLES:,} resamples), which stays above zero; none below {MIN_SEEDS} {over} "
        f'("n < {MIN_SEEDS}")'
    )
    if bounds_note:
        text += (
            "; a t interval is clipped to the measure's range (accuracy [0, 1], kappa [-1, 1], kappa-M and "
            "kappa-T at most 1; * marks a clipped one)"
        )
    if folds:
        text += '; "over folds": for a group of one seed, over its folds or copies (Student\'s t)'
    return text + "."


def interval_cell(row) -> str:
    """A summary row's interval as text: ``[low, high]`` (``*``: clipped to the metric's range;
    ``over folds``: over one run's folds or copies, not over seeds), ``n < 3``, or empty.
    """
    text = interval_text(row.ci_low, row.ci_high, row.n_seeds)
    if not text.startswith("["):
        return text
    folds = " over folds" if getattr(row, "interval_over", "seeds") == "folds" else ""
    return text + ("*" if row.clipped else "") + folds
