"""Intervals over seeds that stay inside the metric's range.

A mean over seeds gets Student's t interval (95%), clipped to the range the metric can take
(an accuracy to [0, 1], a kappa to [-1, 1]): with few, spread seeds the t interval runs past
the range, and a bound no run can reach is not a statement about the runs. Below
:data:`MIN_SEEDS` seeds there is no interval: a t interval over two seeds (t = 12.7) covers
nearly any range and reads as a result; the reports print "n < 3" instead.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

#: Seeds below which no interval is given (t with 1 degree of freedom is 12.7: no information)
MIN_SEEDS = 3
#: Where each metric lies; a metric not listed is in [0, 1] unless it is a count, time or size
#: (:data:`UNBOUNDED_ABOVE`)
RANGES = {name: (-1.0, 1.0) for name in ("final_kappa", "cumulative_kappa", "windowed_kappa")}
UNBOUNDED_ABOVE = ("runtime_s", "us_per_example", "peak_rss_bytes", "n_examples", "n_test", "n_rounds", "max_depth")


def metric_range(metric: str) -> tuple[float, float]:
    """The values ``metric`` can take (``(0, inf)`` for a time, size or count)."""
    if metric in UNBOUNDED_ABOVE:
        return 0.0, math.inf
    return RANGES.get(metric, (0.0, 1.0))


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


def clipped(values: np.ndarray, bounds: tuple[float, float], level: float = 0.95) -> bool:
    """Whether the t interval of ``values`` had to be clipped to ``bounds``."""
    raw = confidence_interval(values, level)
    return raw[0] == raw[0] and (raw[0] < bounds[0] or raw[1] > bounds[1])


def interval_text(low: float, high: float, n: int, digits: int = 4) -> str:
    """``[low, high]``, or ``n < 3`` where there are too few seeds for an interval ("" for none)."""
    if low == low:
        return f"[{low:.{digits}f}, {high:.{digits}f}]"
    return f"n < {MIN_SEEDS}" if 0 < n < MIN_SEEDS else ""


def caption(bounds_note: bool = True) -> str:
    """How the reports' intervals are made, for a table's caption."""
    text = f'Interval: 95% over seeds, Student\'s t; none below {MIN_SEEDS} seeds ("n < {MIN_SEEDS}")'
    if bounds_note:
        text += ", clipped to the metric's range (accuracy [0, 1], kappa [-1, 1]; * marks a clipped one)"
    return text + "."


def interval_cell(row) -> str:
    """A summary row's interval as text: ``[low, high]`` (``*``: clipped to the metric's range),
    ``n < 3``, or empty.
    """
    text = interval_text(row.ci_low, row.ci_high, row.n_seeds)
    return text + ("*" if row.clipped and text.startswith("[") else "")
