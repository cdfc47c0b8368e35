"""Text output that fits the terminal: wrapped tables and wrapped prose.

A ``--format table`` output printed to a terminal (or with ``COLUMNS`` set) is wrapped
to its width (:func:`term_width`, from :func:`shutil.get_terminal_size`): long text
cells (an ambiguity's readings, a note) wrap inside their column, and a table still
too wide is split into blocks of columns, each repeating the first column. Output
written with ``-o FILE`` or piped elsewhere is never wrapped (the full lines of
:func:`simkit.core.io.format_frame`), so files and scripts see the same bytes as
before.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap

import numpy as np
import pandas as pd

from simkit.core.numbers import ascii_int, is_ascii_int

__all__ = ["format_output", "term_width", "wrap_prose", "wrap_table"]

#: Width of prose (``simkit models``) when the output is not a terminal.
PROSE_WIDTH = 100


def term_width(default: int | None = None) -> int | None:
    """Columns to wrap to: ``COLUMNS`` if set, the terminal's width if standard output is
    one, else ``default`` (None: do not wrap)."""
    cols = os.environ.get("COLUMNS", "")
    if is_ascii_int(cols) and ascii_int(cols) > 0:  # not '²' ('²'.isdigit(), int('²') fails)
        return max(ascii_int(cols), 20)
    try:
        if sys.stdout is not None and sys.stdout.isatty():
            return max(shutil.get_terminal_size((PROSE_WIDTH, 24)).columns, 20)
    except (AttributeError, ValueError, OSError):
        pass
    return default


def format_output(df: pd.DataFrame, fmt: str, output=None) -> str:
    """:func:`simkit.core.io.format_frame`, with a table wrapped to the terminal.

    Only a ``table`` bound for standard output (``output`` None or ``-``) is wrapped,
    and only when a line is wider than :func:`term_width`.
    """
    from simkit.core.io import format_frame

    text = format_frame(df, fmt)
    if fmt != "table" or (output not in (None, "-")):
        return text
    width = term_width()
    if width is None or max((len(x) for x in text.splitlines()), default=0) <= width:
        return text
    return wrap_table(df, width)


def _cell(v) -> str:
    if v is None:
        return "None"
    if v is pd.NA:
        return "<NA>"
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        return "NaN" if v != v else f"{float(v):.6f}"
    return str(v)


def _is_text(s: pd.Series) -> bool:
    if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        return False
    return not all(
        isinstance(v, (int, float, np.number, bool)) or v is None or v is pd.NA for v in s
    )


def wrap_table(df: pd.DataFrame, width: int) -> str:
    """``df`` as an aligned text table no wider than ``width`` (where the cells allow).

    Text columns are left-aligned and their long cells wrap within the column;
    numbers are right-aligned. Columns that still do not fit go to further blocks
    (separated by a blank line), each starting with the first column again.
    """
    cols = [str(c) for c in df.columns]
    if not cols:
        return "\n"
    cells = {c: [_cell(v) for v in df[orig]] for c, orig in zip(cols, df.columns)}
    text = {c for c, orig in zip(cols, df.columns) if _is_text(df[orig])}
    natural = {c: max([len(c)] + [len(x) for x in cells[c]]) for c in cols}
    cap = max(16, min(40, width // 3))
    w = {c: max(len(c), min(natural[c], cap)) if c in text else natural[c] for c in cols}
    blocks, cur = [], [cols[0]]
    for c in cols[1:]:
        if len(cur) > 1 and sum(w[x] for x in cur) + len(cur) + w[c] > width:
            blocks.append(cur)
            cur = [cols[0], c]
        else:
            cur.append(c)
    blocks.append(cur)
    for b in blocks:  # room left in a block: give its text columns back their width
        spare = width - (sum(w[c] for c in b) + len(b) - 1)
        growable = [c for c in b if c in text and (c != cols[0] or len(blocks) == 1)]
        for c in sorted(growable, key=lambda c: natural[c] - w[c]):
            grow = min(max(spare, 0), natural[c] - w[c])
            w[c] += grow
            spare -= grow

    def fmt(c, s):
        return s.ljust(w[c]) if c in text else s.rjust(w[c])

    out: list[str] = []
    for b in blocks:
        if out:
            out.append("")
        out.append(" ".join(fmt(c, c) for c in b).rstrip())
        for i in range(len(df)):
            parts = {
                c: textwrap.wrap(cells[c][i], w[c], break_long_words=True, break_on_hyphens=False)
                or [""]
                if c in text
                else [cells[c][i]]
                for c in b
            }
            for j in range(max(len(p) for p in parts.values())):
                out.append(
                    " ".join(fmt(c, parts[c][j] if j < len(parts[c]) else "") for c in b).rstrip()
                )
    return "\n".join(out) + "\n"


def wrap_prose(line: str, width: int, indent: int = 0, hang: int | None = None) -> list[str]:
    """``line`` (after ``indent`` spaces) wrapped to ``width``; continuation lines are
    indented by ``hang`` spaces (default ``indent``)."""
    pad = " " * indent
    more = " " * (indent if hang is None else hang)
    return textwrap.wrap(
        line,
        max(width, len(more) + 20),
        initial_indent=pad,
        subsequent_indent=more,
        break_on_hyphens=False,
    ) or [pad.rstrip()]
