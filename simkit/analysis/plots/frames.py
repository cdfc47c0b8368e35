"""Reading tidy frames for a chart: the rows kept, the grid columns, the model, n."""

from __future__ import annotations

import numpy as np

from simkit.core.numbers import ascii_number

__all__ = [
    "check_single",
    "filter_rows",
    "half_width",
    "lead_columns",
    "model_of",
    "n_text",
    "numeric",
    "tick",
    "time_unit",
]


def model_of(frame) -> str | None:
    """The model a frame describes: ``attrs["model"]`` (live) or a ``model`` column (CSV)."""
    model = frame.attrs.get("model")
    if model is None and "model" in frame and len(frame):
        model = frame["model"].iloc[0]
    return model


def lead_columns(df) -> list[str]:
    """Grid (and derived) columns: those before ``stage``/``outcome``, without ``variant``."""
    cols = list(df.columns)
    stop = (
        min(cols.index(c) for c in ("stage", "time_unit", "time", "outcome") if c in cols)
        if any(c in cols for c in ("stage", "time_unit", "time", "outcome"))
        else len(cols)
    )
    return [c for c in cols[:stop] if c != "variant"]


def filter_rows(df, where: dict | None):
    if not where:
        return df
    for k, v in where.items():
        if k not in df:
            raise ValueError(f"where: no column {k!r}; columns: {', '.join(map(str, df.columns))}")
        col = df[k]
        mask = col.astype(str) == str(v)
        if not mask.any():
            try:
                number = ascii_number(v) if isinstance(v, str) else float(v)  # one grammar
                mask = np.isclose(col.astype(float), number)
            except (TypeError, ValueError):
                pass
        if not np.any(mask):
            raise ValueError(
                f"where {k}={v}: no such rows; values: {', '.join(map(str, col.unique()[:20]))}"
            )
        df = df[np.asarray(mask)]
    return df


def check_single(df, keep: list[str], what: str) -> None:
    """Raise when a grid column other than ``keep`` varies within the plotted cells."""
    others = [c for c in lead_columns(df) if c not in keep]
    if not others:
        return
    g = (
        df.groupby(keep, dropna=False, sort=False)[others].nunique(dropna=False)
        if keep
        else df[others].nunique(dropna=False).to_frame().T
    )
    varying = [c for c in others if (g[c] > 1).any()]
    if varying:
        hint = " ".join(f"--where {c}={df[c].iloc[0]}" for c in varying)
        raise ValueError(
            f"{what}: columns {', '.join(varying)} also vary; pick one value of each "
            f"(where=..., e.g. {hint})"
        )


def time_unit(surv) -> str:
    if "time_unit" in surv and len(surv):
        return str(surv["time_unit"].iloc[0])
    return surv.attrs.get("time_unit", "steps")


def numeric(col):
    """A grid column as numbers when every value reads as one (heights stored as text)."""
    import pandas as pd

    conv = pd.to_numeric(col, errors="coerce")
    return conv if conv.notna().sum() == col.notna().sum() else col


def tick(v) -> str:
    """A grid value as a designer reads it: ``none`` for a missing value, 12 not 12.0."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "none"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def n_text(frame) -> str:
    """``n = 200,000 tracks`` (or a range) from a frame's ``n`` column."""
    if "n" not in frame:
        return ""
    ns = frame["n"].dropna()
    if not len(ns):
        return ""
    lo, hi = int(ns.min()), int(ns.max())
    points = [c for c in lead_columns(frame) if frame[c].nunique(dropna=False) > 1]
    each = " a point" if points or ("variant" in frame and frame["variant"].nunique() > 1) else ""
    return (f"n = {lo:,} tracks" if lo == hi else f"n = {lo:,}..{hi:,} tracks") + each


def half_width(frame) -> float:
    if "ci_low" not in frame or not len(frame):
        return 0.0
    return float(np.nanmax((frame["ci_high"].astype(float) - frame["ci_low"].astype(float)) / 2))
