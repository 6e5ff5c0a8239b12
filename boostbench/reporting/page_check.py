"""Check a report page the way a reader sees it: ``make report-check``.

Parses ``summary.html`` (html.parser) for broken links and images (a relative file that is
missing, an inline image that is not a PNG, an anchor with no target) and empty tables, then
opens it in headless Chromium: ``--dump-dom`` must hold every table, with rows, and
``--screenshot`` saves what the page looks like. Exit status 1 names each problem.

    python -m boostbench.reporting.page_check results/report-check/summary.html --screenshot page.png
"""

from __future__ import annotations

import argparse
import base64
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
PNG = b"\x89PNG\r\n\x1a\n"


class Page(HTMLParser):
    """The links, images, ids and tables (cells per table) of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.images: list[str] = []
        self.ids: set[str] = set()
        self.tables: list[int] = []  # data cells of each table
        self._open: list[int] = []  # indexes into tables of the tables being read

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
        elif tag == "img":
            self.images.append(attrs.get("src") or "")
        elif tag == "table":
            self.tables.append(0)
            self._open.append(len(self.tables) - 1)
        elif tag == "td" and self._open:
            self.tables[self._open[-1]] += 1

    def handle_endtag(self, tag):
        if tag == "table" and self._open:
            self._open.pop()


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


def problems(html_path: Path, page: Page) -> list[str]:
    """Broken links and images, empty tables; [] when the page is whole."""
    found = []
    for href in page.links:
        url = urlparse(href)
        if url.scheme in ("http", "https", "mailto"):
            continue
        if href.startswith("#"):
            if href[1:] not in page.ids:
                found.append(f"link to a missing anchor: {href}")
        elif not (html_path.parent / unquote(url.path)).is_file():
            found.append(f"broken link: {href}")
    for src in page.images:
        if src.startswith("data:image/png;base64,"):
            if not base64.b64decode(src.partition(",")[2]).startswith(PNG):
                found.append("an inline image that is not a PNG")
        elif not src or not (html_path.parent / unquote(urlparse(src).path)).is_file():
            found.append(f"broken image: {src[:80]!r}")
    found += [f"table {i + 1} has no cells" for i, cells in enumerate(page.tables) if cells == 0]
    if not page.tables:
        found.append("no table on the page")
    return found


def chromium(html_path: Path, *arguments: str, timeout_s: float = 180.0) -> str:
    """Run headless Chromium on the page with a fresh profile; its stdout."""
    binary = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory(prefix="report-check-") as profile:
        done = subprocess.run(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments, html_path.resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    if done.returncode:
        raise RuntimeError(f"chromium exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--screenshot", type=Path, required=True)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=9000)
    args = parser.parse_args()
    source = parse(args.page.read_text(encoding="utf-8"))
    found = problems(args.page, source)
    rendered = parse(chromium(args.page, "--dump-dom"))
    if len(rendered.tables) != len(source.tables) or any(cells == 0 for cells in rendered.tables):
        found.append(
            f"the browser's page has {len(rendered.tables)} tables "
            f"({sum(c > 0 for c in rendered.tables)} with cells); the file has {len(source.tables)}"
        )
    args.screenshot.parent.mkdir(parents=True, exist_ok=True)
    chromium(args.page, f"--screenshot={args.screenshot.resolve()}", f"--window-size={args.width},{args.height}")
    if not args.screenshot.is_file() or not args.screenshot.read_bytes().startswith(PNG):
        found.append(f"no screenshot at {args.screenshot}")
    for problem in found:
        print(f"report-check: {problem}", file=sys.stderr)
    if not found:
        print(
            f"report-check: {args.page}: {len(source.tables)} tables, {len(source.images)} images, "
            f"{len(source.links)} links, all whole in Chromium; screenshot {args.screenshot}"
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
