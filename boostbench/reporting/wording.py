"""How the reports write counts and numbers: a noun that agrees with its count, and one notation
per column (a column of RAM-hours all in scientific notation, never ``2.02e-05`` beside
``0.000183``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: A column is written in fixed notation when its non-zero magnitudes lie in [FIXED_LOW, FIXED_HIGH)
FIXED_LOW, FIXED_HIGH = 1e-3, 1e6
#: Significant digits of a column's smallest non-zero magnitude (fixed) or of every value (scientific)
SIGNIFICANT = 3


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``"1 seed"``, ``"3 seeds"`` (``many``: the plural when it is not ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else many or noun + 's'}"


def count_range(values: Iterable[int], noun: str, many: str | None = None) -> str:
    """``"3 seeds"``, or ``"2-5 seeds"`` when the counts differ (``"1 seed"`` for one)."""
    counts = sorted({int(v) for v in values})
    if not counts:
        return plural(0, noun, many)
    if len(counts) == 1:
        return plural(counts[0], noun, many)
    return f"{counts[0]}-{counts[-1]} {many or noun + 's'}"


def column_format(values: Iterable[float]) -> str:
    """One format spec for a column of numbers: fixed point when every non-zero magnitude lies in
    [:data:`FIXED_LOW`, :data:`FIXED_HIGH`), with enough decimals for :data:`SIGNIFICANT`
    significant digits of the smallest (at most 4 decimals), else scientific notation with
    :data:`SIGNIFICANT` significant digits for all.
    """
    magnitudes = [abs(float(v)) for v in values if v == v and not math.isinf(float(v)) and float(v) != 0]
    if not magnitudes:
        return ".4f"
    low, high = min(magnitudes), max(magnitudes)
    if low < FIXED_LOW or high >= FIXED_HIGH:
        return f".{SIGNIFICANT - 1}e"
    return f".{min(4, max(0, SIGNIFICANT - 1 - math.floor(math.log10(low))))}f"


def number(value: float, fmt: str, missing: str = "—") -> str:
    """``value`` in format ``fmt``; ``missing`` for NaN."""
    return missing if value != value else f"{value:{fmt}}"
