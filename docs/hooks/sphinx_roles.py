"""MkDocs hook: the docstrings' Sphinx roles (:func:`name`, :class:`~pkg.Name`) read as code.

mkdocstrings renders Google-style docstrings as Markdown, where a role stays as typed
(":func:" before the code span). Here the role goes and a ``~`` shortens the name to its last
part, as Sphinx shows it.
"""

import re

_ROLE = re.compile(r":(?:py:)?(?:attr|class|data|exc|func|meth|mod|obj|const):<code>(~?)([^<]*)</code>")


def _code(match: re.Match) -> str:
    short, name = match.groups()
    return f"<code>{name.rsplit('.', 1)[-1] if short else name}</code>"


def on_page_content(html: str, **kwargs) -> str:
    return _ROLE.sub(_code, html)
