"""The pieces of an HTML report page (``summary.html``) that its sections share: escaped text,
links relative to the page, inlined figures and tables. Kept below the sections (the page and
the leaderboard both use them) so neither imports the other for them.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import pandas as pd


def esc(value) -> str:
    return html.escape(str(value))


def link(path: Path, out: Path, text: str | None = None) -> str:
    href = path.relative_to(out).as_posix()
    return f"<a href='{esc(href)}'>{esc(text or href)}</a>"


def figure(path: Path, out: Path, caption: str) -> str:
    """A PNG inlined, its caption, and links to it and to its PDF twin when there is one."""
    data = base64.b64encode(path.read_bytes()).decode()
    links = [link(p, out, p.suffix[1:]) for p in (path, path.with_suffix(".pdf")) if p.is_file()]
    return (
        f"<figure><img src='data:image/png;base64,{data}' alt='{esc(caption)}'>"
        f"<figcaption>{esc(caption)} ({', '.join(links)})</figcaption></figure>"
    )


def html_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """A frame as an HTML table: text left-aligned, numbers right-aligned, NaN empty."""
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns
    ]

    def cell(value, is_num: bool) -> str:
        if is_num:
            text = "" if value != value else f"{value:,.{digits}f}".rstrip("0").rstrip(".")
            return f"<td class='num'>{text}</td>"
        return f"<td>{esc('' if value is None or value != value else value)}</td>"

    head = "".join(f"<th class='{'num' if n else ''}'>{esc(c)}</th>" for c, n in zip(frame.columns, numeric))
    body = "".join(
        "<tr>" + "".join(cell(v, n) for v, n in zip(row, numeric)) + "</tr>" for row in frame.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
