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

__all__ = ["format_output", "kind_blocks", "kind_table", "term_width", "wrap_prose", "wrap_table"]

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

    A tidy frame with a ``kind`` column prints as blocks (:func:`kind_table`): its
    headline, its probabilities, its means, without empty ``NaN`` cells.

    Only a ``table`` bound for standard output (``output`` None or ``-``) is wrapped,
    and only when a line is wider than :func:`term_width`.
    """
    from simkit.core.io import format_frame

    if fmt == "table" and "kind" in df.columns and "outcome" in df.columns and len(df):
        return kind_table(df, term_width() if output in (None, "-") else None)
    text = format_frame(df, fmt)
    if fmt != "table" or (output not in (None, "-")):
        return text
    width = term_width()
    if width is None or max((len(x) for x in text.splitlines()), default=0) <= width:
        return text
    return wrap_table(df, width)


def _cell(v, blank: bool = False) -> str:
    """A cell's text; ``blank``: a missing value (None, ``<NA>``, NaN) as an empty cell."""
    if blank and (v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and v != v)):
        return ""
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


def wrap_table(df: pd.DataFrame, width: int, blank: bool = False) -> str:
    """``df`` as an aligned text table no wider than ``width`` (where the cells allow).

    Text columns are left-aligned and their long cells wrap within the column;
    numbers are right-aligned. Columns that still do not fit go to further blocks
    (separated by a blank line), each starting with the first column again. ``blank``:
    missing values as empty cells (the tables of :func:`kind_table`).
    """
    cols = [str(c) for c in df.columns]
    if not cols:
        return "\n"
    cells = {c: [_cell(v, blank) for v in df[orig]] for c, orig in zip(cols, df.columns)}
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


#: Columns a printed table leaves out (where each row comes from: kept in CSV and JSON).
_RECORD_COLUMNS = ("model", "seed", "point_seed", "version", "params")


def _aligned(df: pd.DataFrame, width: int | None = None) -> str:
    """``df`` as aligned text: missing values as empty cells (no ``NaN`` or ``<NA>``),
    floats to six decimals, text left-aligned and numbers right-aligned; columns missing
    on every row are left out; wrapped to ``width`` (:func:`wrap_table`) where wider."""
    cells, text = {}, set()
    for c in df.columns:
        s = df[c]
        if s.isna().all():
            continue
        if pd.api.types.is_float_dtype(s.dtype):
            cells[c] = ["" if v != v else f"{v:.6f}" for v in s.to_numpy(dtype=float)]
        else:
            cells[c] = ["" if v is None or v is pd.NA or v != v else str(v) for v in s]
            if _is_text(s):
                text.add(c)
    w = {c: max([len(str(c))] + [len(x) for x in v]) for c, v in cells.items()}

    def line(values: dict) -> str:
        return " ".join(
            values[c].ljust(w[c]) if c in text else values[c].rjust(w[c]) for c in cells
        ).rstrip()

    lines = [line({c: str(c) for c in cells})]
    lines += [line({c: cells[c][i] for c in cells}) for i in range(len(df))]
    if width is not None and max(len(x) for x in lines) > width:
        return wrap_table(df[list(cells)], width, blank=True)
    return "\n".join(lines) + "\n"


def _reads(name: str) -> str:
    from simkit.core.result import NAME_READS

    shown = NAME_READS.get(name)
    return f"{name} ({shown})" if shown else name


def kind_blocks(df: pd.DataFrame) -> list[pd.DataFrame]:
    """A tidy frame with a ``kind`` column cut into the blocks a person reads.

    A single result with a headline (the model's ``headline``: the party's P(a PC dies),
    P(defeat), expected deaths) starts with it; then the probabilities (the outcomes,
    whose ``p`` add up to 1, then the events), then the means, each block with only its
    own columns. Several variants (``compare``): rows ordered by grid point, then name
    (the headline's first), then variant, with the value, its interval and the difference
    from the baseline (the counts and the independent test are in CSV and JSON). Empty
    cells instead of ``NaN`` / ``<NA>``; the record columns (model, seed, version,
    params) are left out.
    """
    from simkit.models import REGISTRY

    model = REGISTRY.get(df.attrs.get("model", ""))
    headline = [h for h in getattr(model, "headline", ()) if h in set(df["outcome"])]
    cols = [c for c in df.columns if c not in _RECORD_COLUMNS]
    if "variant" in df:  # compare: the value, its interval and the difference (CSV: all)
        cols = [
            c
            for c in cols
            if c not in ("count", "n", "paired", "diff_exact") and "_independent" not in c
        ]
    lead = cols[: cols.index("outcome")]
    names = list(dict.fromkeys(df["outcome"]))
    rank = {n: i for i, n in enumerate(headline + [n for n in names if n not in headline])}
    kind_rank = {"outcome": 0, "event": 1, "mean": 2}
    grid = [c for c in lead if c not in ("variant", "stage", "time_unit")]
    kind = df["kind"].map(kind_rank).fillna(0).to_numpy()
    if "variant" in df:  # compare: one line per variant and name, the headline's first
        point = df.groupby(grid, sort=False, dropna=False).ngroup().to_numpy() if grid else 0
        variants = {v: i for i, v in enumerate(dict.fromkeys(df["variant"]))}
        keys = pd.DataFrame(
            {
                "point": point,
                "kind": np.where(kind == 2, 2, 0),
                "name": df["outcome"].map(rank).to_numpy(),
                "variant": df["variant"].map(variants).to_numpy(),
            }
        )
        at = keys.sort_values(list(keys.columns), kind="stable").index.to_numpy()
    elif not lead:  # one result: the outcomes, then the events, then the means
        at = np.argsort(kind, kind="stable")
    else:  # a sweep, a calibration, a sensitivity: the frame's own order
        at = np.arange(len(df))
    d = df.iloc[at]
    d = d[cols].assign(outcome=[_reads(n) for n in d["outcome"]])
    blocks = []
    if headline and "variant" not in df and not grid and "ci_low" in df:
        rows = df.set_index("outcome")
        value = [
            rows.at[h, "mean"] if rows.at[h, "kind"] == "mean" else rows.at[h, "p"]
            for h in headline
        ]
        from simkit.core.result import HEADLINE_READS

        blocks.append(
            pd.DataFrame(
                {
                    "headline": [HEADLINE_READS.get(h, h) for h in headline],
                    "name": headline,
                    "value": np.asarray(value, dtype=float),
                    "ci_low": rows.loc[headline, "ci_low"].to_numpy(dtype=float),
                    "ci_high": rows.loc[headline, "ci_high"].to_numpy(dtype=float),
                }
            )
        )
    probs = d[d["kind"] != "mean"].drop(columns=[c for c in ("mean",) if c in d])
    if len(probs):
        blocks.append(probs)
    means = d[d["kind"] == "mean"].drop(columns=[c for c in ("count", "p", "exact") if c in d])
    if "mean" in means:  # the value before its interval
        at = list(means.columns).index("ci_low")
        rest = [c for c in means.columns if c != "mean"]
        means = means[rest[:at] + ["mean"] + rest[at:]]
    if len(means):
        blocks.append(means)
    return blocks


def kind_table(df: pd.DataFrame, width: int | None = None) -> str:
    """:func:`kind_blocks` as aligned text, a blank line between blocks (each wrapped to
    ``width`` where given)."""
    return "\n".join(_aligned(b, width) for b in kind_blocks(df))
