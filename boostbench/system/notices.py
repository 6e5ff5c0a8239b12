"""One-line notices on stderr, each said once per process: what a user should know of a run
whatever its output is (a terminal, a CI log, a cluster job's file), without repeating it.
"""

from __future__ import annotations

import sys

#: The notices this process has said
_SAID: set[str] = set()


def say_once(text: str) -> None:
    """Print ``text`` on stderr, unless this process has said it already."""
    if text not in _SAID:
        _SAID.add(text)
        print(text, file=sys.stderr, flush=True)
