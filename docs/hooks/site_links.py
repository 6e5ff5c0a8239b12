"""MkDocs hook: after the build, every local link of the site must open a file.

The site is read from disk (``site/index.html``) as well as served: there a link to a folder opens
a folder listing, and a link to nothing an error page. So each ``href`` and ``src`` of every HTML
page that points inside the site (no scheme, no leading ``//``) must name a file that exists, its
``#fragment`` and ``?query`` aside. The build stops (``make docs`` fails) on the first pages'
broken links, each named with its page.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [value for name, value in attrs if name in ("href", "src") and value]


def broken_links(site_dir: str | Path) -> list[str]:
    """The local links of ``site_dir``'s HTML pages that do not open a file.

    Returns:
        ``"<page>: <link> (<why>)"`` for each, ``why`` being "a folder" or "missing"; pages and
        links in sorted order.
    """
    root = Path(site_dir).resolve()
    problems = []
    for page in sorted(root.rglob("*.html")):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:  # elsewhere, or an anchor of the page
                continue
            path = unquote(parts.path)
            target = (root / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
            target = target.resolve()
            if target.is_file():
                continue
            why = "a folder" if target.is_dir() else "missing"
            problems.append(f"{page.relative_to(root)}: {link} ({why})")
    return problems


def on_post_build(config, **kwargs) -> None:
    from mkdocs.exceptions import PluginError

    problems = broken_links(config["site_dir"])
    if problems:
        shown = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise PluginError(f"{len(problems)} local links of the site open no file:\n  {shown}{more}")
