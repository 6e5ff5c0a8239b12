"""The pieces of an HTML report page (``summary.html``) that its sections share: escaped text,
links relative to the page, inlined figures and tables. Kept below the sections (the page and
the leaderboard both use them) so neither imports the other for them.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import pandas as pd

from boostbench.reporting.wording import column_format


def esc(value) -> str:
    return html.escape(str(value))


def link(path: Path, out: Path, text: str | None = None) -> str:
    href = path.relative_to(out).as_posix()
    return f"<a href='{esc(href)}'>{esc(text or href)}</a>"


def figure(path: Path, out: Path, caption: str, wide: bool = False) -> str:
    """A PNG inlined, its caption, and links to it and to its PDF twin when there is one (``wide``:
    the page's whole width, for a figure with a key beside it).
    """
    data = base64.b64encode(path.read_bytes()).decode()
    links = [link(p, out, p.suffix[1:]) for p in (path, path.with_suffix(".pdf")) if p.is_file()]
    kind = " class='wide'" if wide else ""
    return (
        f"<figure{kind}><img src='data:image/png;base64,{data}' alt='{esc(caption)}'>"
        f"<figcaption>{esc(caption)} ({', '.join(links)})</figcaption></figure>"
    )


def html_table(frame: pd.DataFrame, digits: int | dict[str, int] | None = None, right: tuple[str, ...] = ()) -> str:
    """A frame as an HTML table: text left-aligned (but the ``right`` columns: numbers written
    as text), numbers right-aligned in one notation per column: ``digits`` decimals (one for all,
    or per column title), else whole numbers without decimals and other columns as
    :func:`~boostbench.reporting.wording.column_format` chooses (fixed point, or scientific
    notation when the magnitudes call for it); NaN empty.
    """
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns
    ]

    def column_spec(column) -> str:
        values = frame[column].dropna().to_numpy(dtype=float)
        fixed = digits.get(column) if isinstance(digits, dict) else digits
        if fixed is not None:
            return f",.{fixed}f"
        if (values == values.round()).all() and (abs(values) < 1e15).all():
            return ",.0f"
        return column_format(values)

    formats = [column_spec(c) if is_num else "" for c, is_num in zip(frame.columns, numeric)]
    aligned = [n or c in right for c, n in zip(frame.columns, numeric)]

    def cell(value, is_num: bool, fmt: str, align: bool) -> str:
        if is_num:
            return f"<td class='num'>{'' if value != value else format(value, fmt)}</td>"
        text = esc("" if value is None or value != value else value)
        return f"<td class='num'>{text}</td>" if align else f"<td>{text}</td>"

    head = "".join(f"<th class='{'num' if a else ''}'>{esc(c)}</th>" for c, a in zip(frame.columns, aligned))
    body = "".join(
        "<tr>" + "".join(cell(v, n, f, a) for v, n, f, a in zip(row, numeric, formats, aligned)) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
