"""Help for a mistyped name: the closest known names (difflib) and the quoting Hydra's grammar
needs for a separator typed as it is.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

#: Characters Hydra's override grammar reserves: a value made of one of them is quoted for it
RESERVED = set(";|,'\"()[]{}= \t")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices`` to ``word``, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


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
