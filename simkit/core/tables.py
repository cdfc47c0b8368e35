"""The tidy tables every result gives: one survival-table helper for all of them.

A survival table has one row per (stage, time step, outcome): P(absorbed in the outcome by
the end of step ``time``) and, for ``active``, P(still in the track after it), with
columns ``stage, time_unit, time, outcome, count, n, p, ci_low, ci_high`` and ``exact``
where known. Monte Carlo, exact and chained results all build theirs here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.core.stats import proportion_ci

__all__ = [
    "SURVIVAL_COLUMNS",
    "result_summary",
    "summary_table",
    "survival_table",
    "with_active",
    "summary_html",
]

#: Columns of every ``survival()`` table (``exact`` is NaN where no exact answer is known).
SURVIVAL_COLUMNS = (
    "stage",
    "time_unit",
    "time",
    "outcome",
    "count",
    "n",
    "p",
    "ci_low",
    "ci_high",
    "exact",
)


def with_active(cum: np.ndarray, total: float) -> np.ndarray:
    """Stack the ``active`` row (``total`` minus everything absorbed) under ``cum``.

    ``cum`` has shape (n_outcomes, T): counts or probabilities absorbed by step t.
    """
    cum = np.asarray(cum)
    return np.vstack([cum, (total - cum.sum(axis=0))[None, :]])


def survival_table(
    outcomes: list[str] | tuple[str, ...],
    *,
    stage: str,
    time_unit: str,
    counts: np.ndarray | None = None,
    n: int | None = None,
    reached: int | None = None,
    exact: np.ndarray | None = None,
    exact_total: float = 1.0,
    level: float = 0.95,
    method: str = "wilson",
) -> pd.DataFrame:
    """Long survival table of one stage.

    Parameters
    ----------
    outcomes : sequence of str
        Absorbing outcomes (rows of ``counts`` / ``exact``); ``active`` is added.
    stage, time_unit : str
        The stage's name (the model's name, or ``"stable->recovery"`` in a chain) and
        the unit of ``time`` (rounds, hours, days, falls).
    counts : ndarray, shape (n_outcomes, T), optional
        Monte Carlo tracks absorbed by step t (cumulative), out of ``n`` tracks.
    n : int, optional
        Tracks of the run the probabilities are over (a chain's later stages use the
        whole chain's n, so that their probabilities are over all tracks).
    reached : int, optional
        Tracks that entered this stage (default ``n``): its ``active`` row counts
        ``reached`` minus the tracks absorbed.
    exact : ndarray, shape (n_outcomes, T), optional
        Exact probability absorbed by step t (cumulative). Without ``counts`` the table
        is the exact answer alone: ``p = ci_low = ci_high = exact``, no counts.
    exact_total : float
        The mass ``exact`` is out of: 1, or in a chain the probability of reaching
        the stage (its ``active`` row is ``exact_total`` minus what was absorbed).
    level, method :
        Confidence level and interval method of :func:`simkit.core.stats.proportion_ci`.
    """
    names = list(outcomes) + ["active"]
    if counts is not None:
        if n is None:
            raise ValueError("survival_table: counts need n")
        c = with_active(counts, n if reached is None else reached).astype(np.int64)
        T = c.shape[1]
        low, high = proportion_ci(c, n, level, method)
        cols = {
            "count": c.ravel(),
            "n": np.full(c.size, n, dtype=np.int64),
            "p": (c / n).ravel(),
            "ci_low": low.ravel(),
            "ci_high": high.ravel(),
        }
        ex = (
            with_active(exact, exact_total).ravel()
            if exact is not None
            else np.full(c.size, np.nan)
        )
    elif exact is not None:
        e = with_active(exact, exact_total)
        T = e.shape[1]
        p = e.ravel()
        cols = {
            "count": pd.array([pd.NA] * p.size, dtype="Int64"),
            "n": pd.array([pd.NA] * p.size, dtype="Int64"),
            "p": p,
            "ci_low": p,
            "ci_high": p,
        }
        ex = p
    else:
        raise ValueError("survival_table needs counts or exact")
    df = pd.DataFrame(
        {
            "stage": stage,
            "time_unit": time_unit,
            "time": np.tile(np.arange(T), len(names)),
            "outcome": np.repeat(names, T),
            **cols,
            "exact": ex,
        }
    )
    return df[list(SURVIVAL_COLUMNS)]


def summary_html(title: str, summary: pd.DataFrame) -> str:
    """A result's summary as a small styled HTML table (Jupyter's ``_repr_html_``)."""
    frame = summary.copy()
    for col in ("p", "ci_low", "ci_high", "exact", "mean"):
        if col in frame:
            frame[col] = frame[col].map(lambda v: "" if pd.isna(v) else f"{v:.4f}")
    if "count" in frame:
        frame["count"] = frame["count"].map(lambda v: "" if pd.isna(v) else f"{v:,}")
    frame = frame.astype(object).where(frame.notna(), "")  # no NaN or <NA> for a reader
    if "n" in frame:
        frame = frame.drop(columns="n")
    table = frame.to_html(index=False, border=0, classes="simkit-summary", escape=True)
    style = (
        "<style>.simkit-summary td, .simkit-summary th {text-align: right; padding: 2px 8px}"
        ".simkit-summary td:first-child {text-align: left}</style>"
    )
    return f"{style}<div><strong>{title}</strong>{table}</div>"


def result_summary(result, level: float = 0.95, method: str = "wilson", exact: bool = True):
    """:func:`summary_table` of a Monte Carlo result (one model or a chain): its counts,
    ``n``, its exact answer when ``exact`` and it has one, the model's name and the seed."""
    ex = result.exact if exact else None
    return summary_table(
        result.counts,
        result.n,
        exact=None if ex is None else ex.probabilities,
        level=level,
        method=method,
        attrs={"model": result.model.name, "seed": result.seed},
    )


def summary_table(
    counts: dict[str, int],
    n: int,
    *,
    exact: dict[str, float] | None = None,
    level: float = 0.95,
    method: str = "wilson",
    attrs: dict | None = None,
) -> pd.DataFrame:
    """One row per outcome: ``outcome, kind, count, n, p, ci_low, ci_high`` (+ ``exact``
    when known): every Monte Carlo result's ``summary()``. ``kind`` is ``"outcome"`` on
    every row: the outcomes are exclusive and their ``p`` add up to 1."""
    c = np.array(list(counts.values()), dtype=np.int64)
    low, high = proportion_ci(c, n, level, method)
    df = pd.DataFrame(
        {
            "outcome": list(counts),
            "kind": "outcome",
            "count": c,
            "n": np.full(len(c), n, dtype=np.int64),
            "p": c / n,
            "ci_low": low,
            "ci_high": high,
        }
    )
    if exact is not None:
        df["exact"] = [exact[o] for o in df["outcome"]]
    df.attrs.update(attrs or {}, n=n, level=level)
    return df
