"""Help for a mistyped name: the closest known names (difflib) and the quoting Hydra's grammar
needs for a separator typed as it is.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

#: Characters Hydra's override grammar reserves: a value made of one of them is quoted for it
RESERVED = set(";|,'\"()[]{}= \t")
#: How close (difflib's ratio, 0 to 1) a name must be to count as a likely typo of a choice, and how
#: much less close than the closest another may be and still be named beside it
CUTOFF, MARGIN = 0.6, 0.05


def closest(word: str, choices: Iterable[str]) -> list[str]:
    """The choices closest to ``word`` (difflib's ratio at least :data:`CUTOFF`), best first: the
    closest, and any about as close (within :data:`MARGIN`), at most two.
    """
    scored = sorted(
        ((difflib.SequenceMatcher(None, word, choice).ratio(), choice) for choice in set(choices) if choice != word),
        key=lambda pair: (-pair[0], pair[1]),
    )
    if not scored or scored[0][0] < CUTOFF:
        return []
    return [choice for ratio, choice in scored[:2] if ratio >= max(CUTOFF, scored[0][0] - MARGIN)]


def did_you_mean(word: str, choices: Iterable[str], prefix: str = "", suffix: str = "") -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices`` to ``word`` (:func:`closest`), each
    shown as ``prefix + choice + suffix`` (``protocol.`` + ``window``), or ``""``.
    """
    close = closest(word, choices)
    return f" (did you mean {' or '.join(repr(prefix + c + suffix) for c in close)}?)" if close else ""


def quote_separators(overrides: Sequence[str]) -> list[str]:
    """``dataset.sep=;`` (what the shell makes of ``dataset.sep=';'``) as Hydra needs it,
    ``dataset.sep=';'``, and so ``dataset.decimal=,``; any other override is left as it is.
    """
    quoted = []
    for item in overrides:
        key, eq, value = item.partition("=")
        if eq and key.lstrip("+~").endswith((".sep", ".decimal")) and len(value) == 1 and value in RESERVED:
            quote = '"' if value == "'" else "'"
            item = f"{key}={quote}{value}{quote}"
        quoted.append(item)
    return quoted
