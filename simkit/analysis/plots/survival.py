"""Survival curves: P(still in the track) and P(absorbed) by time, one curve per grid point."""

from __future__ import annotations

import numpy as np

from simkit.analysis.plots.frames import (
    check_outcomes,
    default_outcome,
    filter_rows,
    lead_columns,
    phase_ends,
    stage_model,
    survival_stage,
    time_unit,
)
from simkit.analysis.plots.outcomes import final_rows, outcome_bars, stacked_outcomes
from simkit.analysis.plots.style import legend_keys, outcome_color, outcome_label, pyplot
from simkit.analysis.plots.titles import survival_title

__all__ = ["mark_phases", "settled_time", "survival_curves", "survival_sweep"]


def settled_time(surv, cut: float = 0.999) -> int | None:
    """The first time by which a share ``cut`` of every track has left the track.

    ``surv`` is a survival frame (one or several curves, e.g. a survival sweep, or
    one stage of a chain); the time is the first at which P(still in the track),
    Monte Carlo and exact alike, is at most ``1 - cut`` in every curve. ``None``
    when some curve never gets there (the horizon is the right end then).
    """
    d = surv[surv["outcome"] == "active"]
    if d.empty:
        return None
    left = d["p"].astype(float)
    if "exact" in d:
        left = np.fmax(left, d["exact"].astype(float).fillna(0.0))
    settled = d.loc[np.asarray(left <= 1.0 - cut + 1e-12), "time"]
    keys = [c for c in lead_columns(d) if d[c].nunique(dropna=False) > 1]
    if not keys:
        return int(settled.min()) if len(settled) else None
    firsts = []
    for _, g in d.groupby(keys, dropna=False, sort=False):
        gl = left.loc[g.index]
        t = g.loc[np.asarray(gl <= 1.0 - cut + 1e-12), "time"]
        if not len(t):
            return None
        firsts.append(int(t.min()))
    return max(firsts)


def cut_axis(ax, surv, cut: float | None) -> None:
    """The time axis from 0 to where the curves settled (or the horizon)."""
    times = surv["time"].astype(float)
    end = float(times.max()) if len(times) else 1.0
    if cut is not None:
        t = settled_time(surv, cut)
        if t is not None:
            end = min(end, max(float(t), 2.0) + 1.0)
    ax.set_xlim(-0.3, max(end, 1.0) + 0.3)


def survival_curves(
    surv,
    outcomes=None,
    ax=None,
    label: str | None = None,
    band: bool = True,
    exact: bool = True,
    linestyle="-",
    stage: str | None = None,
    color=None,
    legend: bool = True,
    cut: float | None = 0.999,
    title: str | None = None,
):
    """Probability by time of each outcome in ``outcomes`` with its CI band.

    ``surv`` is a frame of :meth:`simkit.Result.survival` (columns ``time, outcome,
    p, ci_low, ci_high`` and optionally ``exact``, ``stage``, ``time_unit``), live
    or read from CSV. ``active`` is P(still in the track, e.g. still dying); an
    absorbing outcome is P(absorbed in it by then). For a chain, ``stage`` picks
    one stage (default: :func:`~simkit.analysis.plots.frames.survival_stage`, where the
    outcome drawn happens); the x axis is in that stage's unit. Lines are Monte Carlo,
    shaded bands their 95% intervals, dots the exact values; the
    legend says so. ``cut``: the time axis ends once that share of the tracks has
    left the track (:func:`settled_time`; ``None``: the whole horizon). ``outcomes``:
    default ``active`` and the model's outcome (``dead``; a party's ``any_death``). A
    change of phase on the time axis (a ``phase`` column, or a model's parameter such
    as encounter's ``fight_rounds``: :data:`~simkit.analysis.plots.frames.PHASE_ENDS`)
    is drawn as a dotted line that the legend explains. ``title``: default the model,
    what is drawn, n and the fixed settings (:func:`survival_title`); ``""`` for none.
    """
    plt = pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 5.2))
    whole = surv
    if "stage" in surv and len(surv):
        stages = list(dict.fromkeys(surv["stage"]))
        stage = survival_stage(surv, outcomes) if stage is None else stage
        if stage not in stages:
            raise ValueError(f"stage {stage!r}: not in the frame; stages: {', '.join(stages)}")
        surv = surv[surv["stage"] == stage]
    unit = time_unit(surv)
    outcomes = tuple(outcomes or ("active", default_outcome(surv)))
    check_outcomes(surv, outcomes, "survival chart")
    if surv["time"].nunique() <= 1 and label is None:  # one step (a fall): nothing to follow
        return outcome_bars(final_rows(surv), ax=ax, exact=exact, title=title)
    for o in outcomes:
        d = surv[surv["outcome"] == o]
        name = outcome_label(o, unit, stage_model(surv))
        lab = f"{label}: P({name})" if label else f"P({name})"
        c = color if color is not None else outcome_color(o, outcomes)
        line = ax.step(d["time"], d["p"], where="post", color=c, label=lab, linestyle=linestyle)[0]
        c = line.get_color()
        if band:
            ax.fill_between(
                d["time"],
                d["ci_low"].astype(float),
                d["ci_high"].astype(float),
                step="post",
                color=c,
                alpha=0.3,
                lw=0,
            )
        if exact and "exact" in d and d["exact"].notna().any():
            ax.plot(d["time"], d["exact"], "o", color=c, ms=3.5, mec="white", mew=0.5)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("probability")
    ax.set_ylim(-0.02, 1.02)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # whole rounds, hours, days
    cut_axis(ax, surv, cut)
    ax.grid(alpha=0.3)
    if legend:
        mark_phases(ax, surv)
        legend_keys(
            ax,
            exact and "exact" in surv and surv["exact"].notna().any(),
            surv[surv["outcome"].isin(outcomes)] if band else None,
        )
    if title is None:
        title = survival_title(whole, outcomes, stage)
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def mark_phases(ax, surv) -> None:
    """A dotted vertical line at each phase boundary of the time axis, with its legend text."""
    for t, text in phase_ends(surv):
        ax.axvline(t, color="0.25", ls=":", lw=1.2, label=f"dotted line: {text}")


def _point_label(row, keys) -> str:
    parts = []
    for k in keys:
        v = row[k]
        short = {
            "dc": "DC",
            "save_bonus": "save",
            "level": "level",
            "monster_level": "monster level",
            "level_diff": "level diff",
        }.get(k, k.replace("_", " "))
        parts.append(
            f"{short} {'+' if k in ('save_bonus', 'level_diff') and float(v) >= 0 else ''}{v}"
        )
    return ", ".join(parts)


def survival_sweep(
    df,
    outcomes=None,
    ax=None,
    stage: str | None = None,
    band: bool = True,
    exact: bool = True,
    where: dict | None = None,
    by: list[str] | None = None,
    cut: float | None = 0.999,
    title: str | None = None,
):
    """One survival curve per grid point of a survival sweep (``sweep(..., survival=True)``).

    ``by`` names the grid columns that tell the curves apart (default: every
    grid column that varies); the legend reads e.g. "DC 18: P(dead)", then what
    the lines, bands and dots are. ``cut`` as in :func:`survival_curves`, over
    every curve. ``outcomes``: default the model's outcome; ``title`` as in
    :func:`survival_curves`.
    """
    plt = pyplot()
    df = filter_rows(df, where)
    if "time" not in df:
        raise ValueError(
            "a survival plot needs per-step rows (columns time, outcome, p): "
            "write them with `simkit sweep ... --survival`"
        )
    outcomes = tuple(outcomes or (default_outcome(df),))
    check_outcomes(df, outcomes, "survival chart")
    lead = lead_columns(df)
    if by is None:
        by = [c for c in lead if df[c].nunique(dropna=False) > 1]
        derived = set()
        for c in by:  # keep grid keys, drop columns that follow from them (derived)
            rest = [b for b in by if b != c and b not in derived]
            if rest and (df.groupby(rest, dropna=False)[c].nunique(dropna=False) <= 1).all():
                derived.add(c)
        by = [c for c in by if c not in derived]
    staged = df
    if "stage" in df and len(df):
        stages = list(dict.fromkeys(df["stage"]))
        if stage is not None and stage not in stages:
            raise ValueError(f"stage {stage!r}: not in the frame; stages: {', '.join(stages)}")
        stage = survival_stage(df, outcomes) if stage is None else stage
        staged = df[df["stage"] == stage]
    if len(staged) and staged["time"].nunique() <= 1:  # one step (a fall): bars, not curves
        final = final_rows(staged)
        if not by:
            return outcome_bars(final, ax=ax, exact=exact)
        if len(by) == 1:
            return stacked_outcomes(final, by[0], ax=ax)
        raise ValueError(
            f"one-step model: its outcomes are bars, over one grid column at a time; "
            f"pick the others with where=... (columns {', '.join(by)})"
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 5.4))
    groups = [((), staged)] if not by else list(staged.groupby(by, dropna=False, sort=False))
    cmap = plt.get_cmap("viridis")
    styles = ["-", "--", ":", "-."]
    for gi, (_, d) in enumerate(groups):
        color = cmap(gi / max(1, len(groups) - 1) * 0.9)
        label = _point_label(d.iloc[0], by) if by else None
        for oi, o in enumerate(outcomes):
            survival_curves(
                d,
                outcomes=(o,),
                ax=ax,
                label=label,
                band=band,
                exact=exact,
                stage=stage,
                color=color if len(groups) > 1 else None,
                linestyle=styles[oi % len(styles)],
                legend=False,
                cut=None,
                title="",
            )
    cut_axis(ax, staged, cut)
    mark_phases(ax, staged)
    legend_keys(
        ax,
        exact and "exact" in df and df["exact"].notna().any(),
        staged[staged["outcome"].isin(outcomes)] if band else None,
    )
    if title is None:
        title = survival_title(df, outcomes, stage)
    if title:
        ax.set_title(title, fontsize="medium")
    return ax
