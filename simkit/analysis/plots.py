"""Plots: ``ax=None`` in, axes out; matplotlib is imported here only, lazily.

Every function takes tidy frames (``Result.survival()``, sweep and compare tables)
so that it plots a saved CSV as well as a live result. Axis labels say what a
parameter means and in which unit (:data:`LABELS`), probabilities read "P(dead)",
and times carry the model's unit (rounds, hours, days), so a figure can go into a
rules document as it is.
"""

from __future__ import annotations

import numpy as np

from simkit.core.numbers import ascii_number

__all__ = [
    "LABELS",
    "OUTCOME_NAMES",
    "compare_chart",
    "fixed_text",
    "heatmap",
    "label_for",
    "outcome_bars",
    "outcome_color",
    "outcome_label",
    "pyplot",
    "save",
    "settled_time",
    "stacked_outcomes",
    "survival_curves",
    "survival_sweep",
    "survival_title",
    "sweep_lines",
]

COLORS = {
    "dead": "#b2182b",
    "active": "#2166ac",
    "stable": "#4d9221",
    "revived": "#e08214",
    "awake": "#4d9221",
    "rested": "#8073ac",
    "back": "#fdb863",
    "recovered": "#4d9221",
    "exhausted": "#762a83",
    "ko": "#e08214",
    "standing": "#35978f",
    "dying": "#f4a582",
    "ko_not_dying": "#e08214",
    "unresolved": "#999999",
    "victory": "#4d9221",
    "victory_with_deaths": "#fdb863",
    "retreat": "#8073ac",
    "defeat": "#b2182b",
}
#: Colours for outcomes not in :data:`COLORS`, none of them a colour listed there.
SPARE_COLORS = (
    "#01665e",
    "#c51b7d",
    "#8c510a",
    "#5ab4ac",
    "#de77ae",
    "#bf812d",
    "#542788",
    "#7fbc41",
)


def outcome_color(outcome: str, others=()) -> str:
    """The colour of an outcome: its own (:data:`COLORS`), else a spare one.

    ``others`` lists the outcomes drawn on the same chart: an unlisted outcome takes
    the spare colour of its rank among the unlisted ones, so two never share one.
    """
    if outcome in COLORS:
        return COLORS[outcome]
    unlisted = [o for o in dict.fromkeys([*others, outcome]) if o not in COLORS]
    return SPARE_COLORS[unlisted.index(outcome) % len(SPARE_COLORS)]


#: How an outcome reads on a chart (its name when not listed).
OUTCOME_NAMES = {"ko": "knocked out (0 HP)", "ko_not_dying": "knocked out, not dying"}

#: Axis labels of parameters and sweep keys a designer can read.
LABELS = {
    "dc": "DC of the source (recovery DC = DC + dying)",
    "save_bonus": "Fortitude save modifier",
    "level": "character level",
    "monster_level": "monster level",
    "level_diff": "monster level \u2212 character level",
    "hit_chance": "chance per round of a hit on the downed character",
    "crit_chance": "chance per round of a critical hit",
    "hero_points": "hero points",
    "heal_round": "round healing arrives",
    "check_penalty": "check penalty (fatigue, hunger)",
    "con": "Constitution modifier",
    "healer": "healer's Medicine modifier",
    "pp": "perseverance points (PP)",
    "pp_max": "maximum PP",
    "height": "fall height (m)",
    "pc_con": "Constitution modifier at level 1",
}

#: How "still in the track" reads in a time unit, for a frame that does not name its model.
ACTIVE_NAMES = {"rounds": "still dying"}


def label_for(key: str) -> str:
    """The axis label of a parameter or sweep key (its name when unknown)."""
    return LABELS.get(key, key.replace("_", " "))


def outcome_label(outcome: str, unit: str | None = None, model: str | None = None) -> str:
    """How an outcome reads on a chart.

    ``still dying`` for ``active`` of a dying track, ``knocked out (0 HP)`` for ``ko``.
    """
    if outcome == "active":
        from simkit.models import REGISTRY

        if model in REGISTRY:  # the model's own words (Model.active_label)
            return REGISTRY[model].active_label
        if model is None:  # a frame that does not say its model: guess from the unit
            return ACTIVE_NAMES.get(unit or "", "still in the track")
        return "still in the track"
    return OUTCOME_NAMES.get(outcome, str(outcome).replace("_", " "))


def _model_of(frame) -> str | None:
    """The model a frame describes: ``attrs["model"]`` (live) or a ``model`` column (CSV)."""
    model = frame.attrs.get("model")
    if model is None and "model" in frame and len(frame):
        model = frame["model"].iloc[0]
    return model


def _lead_columns(df) -> list[str]:
    """Grid (and derived) columns: those before ``stage``/``outcome``, without ``variant``."""
    cols = list(df.columns)
    stop = (
        min(cols.index(c) for c in ("stage", "time_unit", "time", "outcome") if c in cols)
        if any(c in cols for c in ("stage", "time_unit", "time", "outcome"))
        else len(cols)
    )
    return [c for c in cols[:stop] if c != "variant"]


def _filter(df, where: dict | None):
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


def _check_single(df, keep: list[str], what: str) -> None:
    """Raise when a grid column other than ``keep`` varies within the plotted cells."""
    others = [c for c in _lead_columns(df) if c not in keep]
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


def _time_unit(surv) -> str:
    if "time_unit" in surv and len(surv):
        return str(surv["time_unit"].iloc[0])
    return surv.attrs.get("time_unit", "steps")


def pyplot():
    """``matplotlib.pyplot``, imported on first use (Agg when there is no display)."""
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        try:
            import matplotlib.pyplot as plt
        except ImportError:  # pragma: no cover
            matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


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
    keys = [c for c in _lead_columns(d) if d[c].nunique(dropna=False) > 1]
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


def _cut_axis(ax, surv, cut: float | None) -> None:
    """The time axis from 0 to where the curves settled (or the horizon)."""
    times = surv["time"].astype(float)
    end = float(times.max()) if len(times) else 1.0
    if cut is not None:
        t = settled_time(surv, cut)
        if t is not None:
            end = min(end, max(float(t), 2.0) + 1.0)
    ax.set_xlim(-0.3, max(end, 1.0) + 0.3)


def _n_text(frame) -> str:
    """``n = 200,000 tracks`` (or a range) from a frame's ``n`` column."""
    if "n" not in frame:
        return ""
    ns = frame["n"].dropna()
    if not len(ns):
        return ""
    lo, hi = int(ns.min()), int(ns.max())
    points = [c for c in _lead_columns(frame) if frame[c].nunique(dropna=False) > 1]
    each = " a point" if points or ("variant" in frame and frame["variant"].nunique() > 1) else ""
    return (f"n = {lo:,} tracks" if lo == hi else f"n = {lo:,}..{hi:,} tracks") + each


def _half_width(frame) -> float:
    if "ci_low" not in frame or not len(frame):
        return 0.0
    return float(np.nanmax((frame["ci_high"].astype(float) - frame["ci_low"].astype(float)) / 2))


def survival_curves(
    surv,
    outcomes=("active", "dead"),
    ax=None,
    label: str | None = None,
    band: bool = True,
    exact: bool = True,
    linestyle="-",
    stage: str | None = None,
    color=None,
    legend: bool = True,
    cut: float | None = 0.999,
):
    """Probability by time of each outcome in ``outcomes`` with its CI band.

    ``surv`` is a frame of :meth:`simkit.Result.survival` (columns ``time, outcome,
    p, ci_low, ci_high`` and optionally ``exact``, ``stage``, ``time_unit``), live
    or read from CSV. ``active`` is P(still in the track, e.g. still dying); an
    absorbing outcome is P(absorbed in it by then). For a chain, ``stage`` picks
    one stage (default: the first); the x axis is in that stage's unit. Lines are
    Monte Carlo, shaded bands their 95% intervals, dots the exact values; the
    legend says so. ``cut``: the time axis ends once that share of the tracks has
    left the track (:func:`settled_time`; ``None``: the whole horizon).
    """
    plt = pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(9.5, 4.4))
    if "stage" in surv and len(surv):
        stages = list(dict.fromkeys(surv["stage"]))
        stage = stages[0] if stage is None else stage
        if stage not in stages:
            raise ValueError(f"stage {stage!r}: not in the frame; stages: {', '.join(stages)}")
        surv = surv[surv["stage"] == stage]
    unit = _time_unit(surv)
    known = set(surv["outcome"])
    for o in outcomes:
        if o not in known:
            raise ValueError(
                f"outcome {o!r}: not in the frame; outcomes: {', '.join(sorted(known))}"
            )
    if surv["time"].nunique() <= 1 and label is None:  # one step (a fall): nothing to follow
        return outcome_bars(_final_rows(surv), ax=ax, exact=exact)
    for o in outcomes:
        d = surv[surv["outcome"] == o]
        name = outcome_label(o, unit, _model_of(surv))
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
    _cut_axis(ax, surv, cut)
    ax.grid(alpha=0.3)
    if legend:
        _legend(
            ax,
            exact and "exact" in surv and surv["exact"].notna().any(),
            surv[surv["outcome"].isin(outcomes)] if band else None,
        )
    return ax


def _legend(
    ax,
    exact_dots: bool,
    banded=None,
    line_text: str = "lines: Monte Carlo",
    exact_text: str = "dots: exact (Markov chain)",
    marker: str = "o",
) -> None:
    """The curves' entries, then what every mark means: lines, bands, exact dots."""
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    keys = []
    if banded is not None and len(banded):
        n = _n_text(banded)
        keys.append(
            (ax.plot([], [], "-", color="0.35")[0], f"{line_text}" + (f", {n}" if n else ""))
        )
        hw = _half_width(banded)
        width = f"at most \u00b1{hw:.1%}" if hw >= 0.001 else "under \u00b10.1%"
        keys.append(
            (
                Patch(color="0.35", alpha=0.3, lw=0),
                f"shaded: 95% interval ({width}"
                + ("; thinner than the line)" if hw < 0.006 else ")"),
            )
        )
    if exact_dots:
        keys.append(
            (
                ax.plot(
                    [], [], marker, color="0.35", ms=4, mfc="0.35" if marker == "o" else "none"
                )[0],
                exact_text,
            )
        )
    handles, labels = handles + [h for h, _ in keys], labels + [t for _, t in keys]
    if len(labels) > 4:  # many entries: the legend goes beside the plot, not over it
        ax.legend(
            handles,
            labels,
            frameon=False,
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
    else:
        ax.legend(handles, labels, frameon=False, fontsize="small", loc="best")


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
    outcomes=("dead",),
    ax=None,
    stage: str | None = None,
    band: bool = True,
    exact: bool = True,
    where: dict | None = None,
    by: list[str] | None = None,
    cut: float | None = 0.999,
):
    """One survival curve per grid point of a survival sweep (``sweep(..., survival=True)``).

    ``by`` names the grid columns that tell the curves apart (default: every
    grid column that varies); the legend reads e.g. "DC 18: P(dead)", then what
    the lines, bands and dots are. ``cut`` as in :func:`survival_curves`, over
    every curve.
    """
    plt = pyplot()
    df = _filter(df, where)
    if "time" not in df:
        raise ValueError(
            "a survival plot needs per-step rows (columns time, outcome, p): "
            "write them with `simkit sweep ... --survival`"
        )
    lead = _lead_columns(df)
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
        staged = df[df["stage"] == (stage if stage is not None else stages[0])]
    if len(staged) and staged["time"].nunique() <= 1:  # one step (a fall): bars, not curves
        final = _final_rows(staged)
        if not by:
            return outcome_bars(final, ax=ax, exact=exact)
        if len(by) == 1:
            return stacked_outcomes(final, by[0], ax=ax)
        raise ValueError(
            f"one-step model: its outcomes are bars, over one grid column at a time; "
            f"pick the others with where=... (columns {', '.join(by)})"
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4.6))
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
            )
    _cut_axis(ax, staged, cut)
    _legend(
        ax,
        exact and "exact" in df and df["exact"].notna().any(),
        staged[staged["outcome"].isin(outcomes)] if band else None,
    )
    return ax


def fixed_text(df, skip=()) -> str:
    """The non-default parameters every row of ``df`` shares (its ``params`` JSON), as ``k=v, ...``.

    What a chart's title should name besides its axes: e.g. ``hit_chance=0.3`` for a
    sweep run with ``--set hit_chance=0.3``. Grid columns and ``skip`` are left out;
    ``""`` when there is no ``params`` column or nothing is shared.
    """
    import json

    if "params" not in df or not len(df):
        return ""
    shared = None
    for text in dict.fromkeys(df["params"].dropna().astype(str)):
        try:
            items = {(k, str(v)) for k, v in json.loads(text).items()}
        except (ValueError, TypeError, AttributeError):
            return ""
        shared = items if shared is None else shared & items
    leave = set(_lead_columns(df)) | set(skip) | {"variant"}
    return ", ".join(f"{k}={v}" for k, v in sorted(shared or ()) if k not in leave)


def survival_title(df, outcomes=("active", "dead"), stage: str | None = None) -> str:
    """A title that says what :func:`survival_sweep` drew from ``df``.

    ``fall_dying (ko->dying stage): P(still dying), P(dead) by round``; for a one-step
    stage, whose chart is outcome bars: ``fall_dying: outcomes of one fall``.
    """
    model = _model_of(df) or "model"
    staged, where = df, ""
    if "stage" in df and len(df):
        stages = list(dict.fromkeys(df["stage"]))
        stage = stages[0] if stage is None or stage not in stages else stage
        staged = df[df["stage"] == stage]
        where = f" ({stage} stage)" if len(stages) > 1 else ""
    unit = _time_unit(staged)
    step = unit.removesuffix("s")
    fixed = fixed_text(df)
    fixed = f"\n({fixed})" if fixed else ""
    if len(staged) and staged["time"].nunique() <= 1:
        return f"{model}{where}: outcomes of one {step}{fixed}"
    names = ", ".join(f"P({outcome_label(o, unit, model)})" for o in outcomes)
    return f"{model}{where}: {names} by {step}{fixed}"


def _final_rows(surv):
    """The absorbing outcomes of a one-step survival frame, as a summary (no time columns)."""
    d = surv[(surv["outcome"] != "active") & (surv["time"] == surv["time"].max())]
    return d.drop(columns=[c for c in ("stage", "time_unit", "time") if c in d])


def outcome_bars(
    df,
    ax=None,
    outcomes=None,
    where: dict | None = None,
    value: str = "p",
    exact: bool = True,
    drop_empty: tuple = ("unresolved",),
):
    """P(each outcome) as bars with 95% whiskers, exact values as diamonds.

    ``df`` is a summary or sweep table at one point (``outcome, p, ci_low,
    ci_high`` and optionally ``exact``, ``n``): the chart for a one-step model
    (a fall) or for a model's final outcomes. Each bar is labelled with its
    percentage; outcomes in ``drop_empty`` are left out when they never happen.
    """
    plt = pyplot()
    df = _filter(df, where)
    if "outcome" not in df or value not in df:
        raise ValueError(f"outcome bars need columns outcome and {value}")
    if "stage" in df:
        raise ValueError("outcome bars: give the final outcomes (a summary), not per-stage rows")
    _check_single(df, [], "outcome bars")
    rows = df.groupby("outcome", sort=False).first()
    names = list(dict.fromkeys(outcomes or df["outcome"]))
    missing = [o for o in names if o not in rows.index]
    if missing:
        raise ValueError(
            f"outcome {missing[0]!r}: not in the frame; outcomes: {', '.join(rows.index)}"
        )

    def never(o):
        r = rows.loc[o]
        e = float(r["exact"]) if "exact" in rows and np.isfinite(float(r["exact"])) else 0.0
        return float(r[value]) == 0 and e < 1e-9

    names = [o for o in names if not (o in drop_empty and never(o))]
    rows = rows.loc[names]
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.5, 1.5 + 1.1 * len(names)), 4.2))
    pos = np.arange(len(names))
    p = rows[value].to_numpy(dtype=float)
    colors = [outcome_color(o, names) for o in names]
    ax.bar(pos, p, color=colors, alpha=0.85)
    mc = value == "p" and "ci_low" in rows
    if mc:
        err = np.vstack(
            [p - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - p]
        )
        ax.errorbar(pos, p, yerr=np.clip(err, 0, None), fmt="none", ecolor="black", capsize=4, lw=1)
    has_exact = exact and value == "p" and "exact" in rows and rows["exact"].notna().any()
    if has_exact:
        ax.plot(pos, rows["exact"].to_numpy(dtype=float), "D", color="black", mfc="none", ms=7)
    for x, v in zip(pos, p):
        ax.annotate(
            f"{v:.1%}",
            (x, v),
            xytext=(0, 4),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize="small",
        )
    ax.set_xticks(
        pos,
        [outcome_label(o) for o in names],
        rotation=25 if len(names) > 3 else 0,
        ha="right" if len(names) > 3 else "center",
        rotation_mode="anchor",
    )
    ax.set_ylabel("probability")
    ax.set_ylim(0, min(1.12, max(0.1, float(np.nanmax(p)) * 1.18 + 0.02)))
    ax.grid(alpha=0.3, axis="y")
    from matplotlib.patches import Patch

    handles, labels = [], []
    if mc:
        n = _n_text(df)
        handles.append(Patch(color="0.6"))
        labels.append("bars: Monte Carlo" + (f", {n}" if n else ""))
        handles.append(ax.errorbar([], [], yerr=[], fmt="none", ecolor="black", capsize=4, lw=1))
        labels.append("whiskers: 95% interval")
    if has_exact:
        handles.append(ax.plot([], [], "D", color="black", mfc="none", ms=7)[0])
        labels.append("hollow diamonds: exact")
    if handles:
        ax.legend(
            handles,
            labels,
            frameon=False,
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
    return ax


def stacked_outcomes(
    df,
    x: str,
    outcomes=None,
    ax=None,
    where: dict | None = None,
    value: str = "p",
    legend: bool = True,
):
    """Stacked bars of P(each outcome) over a numeric grid column ``x``.

    Every outcome at once (a fall's standing / knocked out / dead add up to 1),
    on an evenly spaced ``x`` axis (bars at their values, gaps where the grid has
    none); a share under 2% but not zero, too thin to see, is written up its bar.
    Other grid columns must have one value (``where``).
    """
    plt = pyplot()
    df = _filter(df, where)
    if x not in df:
        raise ValueError(
            f"stacked outcomes: no column {x!r}; grid columns: {', '.join(_lead_columns(df))}"
        )
    if "variant" in df and df["variant"].nunique() > 1:
        raise ValueError(
            "stacked outcomes: several variants in the frame; pick one with where={'variant': ...}"
        )
    _check_single(df, [x], "stacked outcomes")
    d = df.assign(**{x: _numeric(df[x])})
    table = d.pivot_table(index=x, columns="outcome", values=value, aggfunc="first").sort_index()
    names = list(dict.fromkeys(outcomes or d["outcome"]))
    names = [
        o for o in names if o in table.columns and (outcomes or table[o].fillna(0).gt(0).any())
    ]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    xs = table.index.to_numpy(dtype=float)
    width = 0.8 * (float(np.min(np.diff(xs))) if len(xs) > 1 else 1.0)
    bottom = np.zeros(len(xs))
    for o in names:
        v = table[o].fillna(0).to_numpy(dtype=float)
        ax.bar(
            xs,
            v,
            width=width,
            bottom=bottom,
            color=outcome_color(o, names),
            label=outcome_label(o),
            alpha=0.9,
        )
        bottom += v
    for j, xv in enumerate(xs):  # a share too thin to see gets its number, written up the bar
        thin = [
            f"{float(table[o].iloc[j]):.1%} {outcome_label(o)}"
            for o in names
            if 0 < float(table[o].fillna(0).iloc[j]) < 0.02
        ]
        if thin:
            ax.text(
                xv,
                0.5,
                ", ".join(thin),
                rotation=90,
                ha="center",
                va="center",
                fontsize=7,
                color="white",
                fontweight="bold",
            )
    ax.set_xticks(xs, [_tick(v) for v in table.index])
    ax.set_xlabel(label_for(x))
    ax.set_ylabel("probability" if value == "p" else f"probability ({value})")
    ax.set_ylim(0, 1.0)
    ax.grid(alpha=0.3, axis="y")
    if legend:
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(
            handles[::-1],
            labels[::-1],
            frameon=False,
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
    return ax


def _numeric(col):
    """A grid column as numbers when every value reads as one (heights stored as text)."""
    import pandas as pd

    conv = pd.to_numeric(col, errors="coerce")
    return conv if conv.notna().sum() == col.notna().sum() else col


def _tick(v) -> str:
    """A grid value as a designer reads it: ``none`` for a missing value, 12 not 12.0."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "none"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _cell_text(v: float, fmt: str) -> str:
    """A cell's percentage; never "0%" or "100%" for what merely rounds there ("<1%", ">99%")."""
    if fmt == ".0%" and 0 < v < 0.005:
        return "<1%"
    if fmt == ".0%" and 0.995 <= v < 1:
        return ">99%"
    return format(v, fmt)


def heatmap(
    df,
    x: str,
    y: str,
    value: str = "p",
    outcome: str = "dead",
    ax=None,
    fmt: str = ".0%",
    annotate: bool = True,
    cmap: str = "Reds",
    where: dict | None = None,
    title: str | None = None,
):
    """Heatmap of ``value`` (default P(dead)) over two grid columns ``x`` and ``y``.

    Other grid columns must have one value per cell (pick one with ``where``); the
    colour bar reads P(outcome), and "exact" when ``value="exact"``.
    """
    plt = pyplot()
    df = _filter(df, where)
    for c in (x, y):
        if c not in df:
            raise ValueError(
                f"heatmap: no column {c!r}; grid columns: {', '.join(_lead_columns(df))}"
            )
    if value not in df:
        raise ValueError(f"heatmap: no column {value!r}")
    d = df[df["outcome"] == outcome] if "outcome" in df else df
    if d.empty:
        raise ValueError(f"heatmap: no rows for outcome {outcome!r}")
    if "variant" in d and d["variant"].nunique() > 1:
        raise ValueError(
            "heatmap: several variants in the frame; pick one with where={'variant': ...}"
        )
    _check_single(d, [x, y], "heatmap")
    d = d.assign(**{c: _numeric(d[c]) for c in (x, y)})  # "10" after "9", not after "1"
    table = d.pivot_table(index=y, columns=x, values=value, aggfunc="first", dropna=False)
    table = table.sort_index(ascending=False).sort_index(axis=1)
    vals = table.to_numpy(dtype=float)
    if ax is None:
        _, ax = plt.subplots(
            figsize=(min(16, 2 + 0.55 * table.shape[1]), min(12, 1.5 + 0.4 * table.shape[0]))
        )
    vmax = max(1e-9, float(np.nanmax(vals))) if np.isfinite(vals).any() else 1.0
    im = ax.imshow(vals, aspect="auto", cmap=cmap, vmin=0, vmax=vmax)
    ax.set_xticks(range(table.shape[1]), [_tick(c) for c in table.columns])
    ax.set_yticks(range(table.shape[0]), [_tick(i) for i in table.index])
    ax.set_xlabel(label_for(x))
    ax.set_ylabel(label_for(y))
    if annotate and table.size <= 600:
        for i in range(table.shape[0]):
            for j in range(table.shape[1]):
                v = vals[i, j]
                if np.isfinite(v):
                    ax.text(
                        j,
                        i,
                        _cell_text(v, fmt),
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if v > 0.6 * vmax else "black",
                    )
    ns = d["n"].dropna() if "n" in d else d[value].iloc[:0]
    if value == "exact" or (value == "p" and not len(ns)):  # an exact-only sweep's p is exact
        what = f"P({outcome_label(outcome)}), exact"
    elif value == "p":
        each = (
            f"{int(ns.min()):,}"
            if ns.min() == ns.max()
            else f"{int(ns.min()):,}..{int(ns.max()):,}"
        )
        what = f"P({outcome_label(outcome)}), Monte Carlo, n = {each} a cell"
    else:
        what = f"P({outcome_label(outcome)}) ({value})"
    ax.figure.colorbar(im, ax=ax, label=what)
    if title:
        ax.set_title(title)
    return ax


def compare_chart(
    df,
    outcome: str = "dead",
    x: str | None = None,
    ax=None,
    value: str = "p",
    where: dict | None = None,
    exact: bool = True,
):
    """P(outcome) under each rule variant of a :func:`simkit.analysis.compare.compare` table.

    Without ``x``: one bar per variant with its 95% interval (exact values as
    diamonds). With ``x`` (a grid column): one line per variant against ``x``, with
    its band.
    """
    plt = pyplot()
    df = _filter(df, where)
    if "variant" not in df:
        raise ValueError("a compare chart needs a 'variant' column: write it with `simkit compare`")
    d = df[df["outcome"] == outcome]
    if d.empty:
        raise ValueError(
            f"compare chart: no rows for outcome {outcome!r}; outcomes: "
            f"{', '.join(map(str, df['outcome'].unique()))}"
        )
    keep = ["variant"] + ([x] if x else [])
    if x and x not in d:
        raise ValueError(
            f"compare chart: no column {x!r}; grid columns: {', '.join(_lead_columns(d))}"
        )
    _check_single(d, keep, "compare chart")
    names = list(dict.fromkeys(d["variant"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4.4) if x else (max(6.5, 3.7 + 1.1 * len(names)), 4.2))
    colors = plt.get_cmap("tab10")
    from matplotlib.patches import Patch

    n = _n_text(d) if value == "p" else ""
    has_exact = exact and value == "p" and "exact" in d and d["exact"].notna().any()
    if x is None:
        rows = d.groupby("variant", sort=False).first().loc[names]
        pos = np.arange(len(names))
        p = rows[value].to_numpy(dtype=float)
        err = np.vstack(
            [p - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - p]
        )
        ax.bar(
            pos,
            p,
            color=[colors(i % 10) for i in range(len(names))],
            alpha=0.8,
            yerr=np.clip(err, 0, None),
            capsize=4,
        )
        if has_exact:
            ax.plot(pos, rows["exact"].to_numpy(dtype=float), "D", color="black", mfc="none", ms=7)
        ax.set_xticks(
            pos,
            names,
            rotation=20 if len(names) > 3 else 0,
            ha="right" if len(names) > 3 else "center",
        )
        ax.set_xlabel("rule variant")
        handles = [
            Patch(color="0.6"),
            ax.errorbar([], [], yerr=[], fmt="none", ecolor="black", capsize=4),
        ]
        labels = ["bars: Monte Carlo" + (f", {n}" if n else ""), "whiskers: 95% interval"]
        if has_exact:
            handles.append(ax.plot([], [], "D", color="black", mfc="none", ms=7)[0])
            labels.append("hollow diamonds: exact")
        ax.legend(
            handles,
            labels,
            frameon=False,
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
    else:
        for i, name in enumerate(names):
            v = (
                d[d["variant"] == name]
                .assign(**{x: _numeric(d.loc[d["variant"] == name, x])})
                .sort_values(x)
            )
            c = colors(i % 10)
            ax.plot(v[x], v[value], "-o", ms=3, color=c, label=name)
            ax.fill_between(
                v[x],
                v["ci_low"].astype(float),
                v["ci_high"].astype(float),
                color=c,
                alpha=0.3,
                lw=0,
            )
            if has_exact:
                ax.plot(v[x], v["exact"], "D", color=c, ms=6, mfc="none")
        ax.set_xlabel(label_for(x))
        if np.issubdtype(np.asarray(_numeric(d[x])).dtype, np.number):
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(
                MaxNLocator(integer=bool(np.all(np.mod(_numeric(d[x]), 1) == 0)))
            )
        _legend(
            ax,
            has_exact,
            d if value == "p" else None,
            line_text="lines and small dots: Monte Carlo",
            exact_text="hollow diamonds: exact",
            marker="D",
        )
    ax.set_ylabel(f"P({outcome_label(outcome)})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, axis="y")
    return ax


def sweep_lines(
    df,
    x: str,
    outcomes=("dead",),
    ax=None,
    where: dict | None = None,
    value: str = "p",
    exact: bool = True,
):
    """P(outcome) against one grid column ``x`` of a sweep table: a line per outcome.

    Each Monte Carlo line carries its confidence band (shaded) and, where the sweep
    has an ``exact`` column, the exact values as hollow diamonds; an exact-only sweep
    draws its exact lines alone. Other grid columns must have one value (``where``).
    ``simkit plot FILE.csv --kind line --x KEY``.
    """
    plt = pyplot()
    df = _filter(df, where)
    if x not in df:
        raise ValueError(
            f"line chart: no column {x!r}; grid columns: {', '.join(_lead_columns(df))}"
        )
    if "variant" in df and df["variant"].nunique() > 1:
        raise ValueError(
            "line chart: several variants in the frame: draw them with --kind compare --x "
            f"{x}, or pick one with --where variant=..."
        )
    outcomes = tuple(outcomes or ("dead",))
    known = list(dict.fromkeys(map(str, df["outcome"])))
    for o in outcomes:
        if o not in known:
            raise ValueError(f"line chart: no rows for outcome {o!r}; outcomes: {', '.join(known)}")
    d = df[df["outcome"].isin(outcomes)]
    _check_single(d, [x, "outcome"], "line chart")
    mc = value == "p" and "n" in d and d["n"].notna().any()
    has_exact = exact and mc and "exact" in d and d["exact"].notna().any()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.4))
    for i, o in enumerate(outcomes):
        v = d[d["outcome"] == o]
        v = v.assign(**{x: _numeric(v[x])}).sort_values(x)
        c = outcome_color(o, outcomes)
        ax.plot(v[x], v[value].astype(float), "-o", ms=3, color=c, label=f"P({outcome_label(o)})")
        if mc:
            ax.fill_between(
                v[x],
                v["ci_low"].astype(float),
                v["ci_high"].astype(float),
                color=c,
                alpha=0.3,
                lw=0,
            )
        if has_exact:
            ax.plot(v[x], v["exact"].astype(float), "D", color=c, ms=6, mfc="none")
    ax.set_xlabel(label_for(x))
    xs = _numeric(d[x])
    if np.issubdtype(np.asarray(xs).dtype, np.number):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=bool(np.all(np.mod(xs, 1) == 0))))
    ax.set_ylabel(f"P({outcome_label(outcomes[0])})" if len(outcomes) == 1 else "probability")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, axis="y")
    if mc:
        _legend(
            ax,
            has_exact,
            d,
            line_text="lines and small dots: Monte Carlo",
            exact_text="hollow diamonds: exact",
            marker="D",
        )
    else:
        ax.legend(
            frameon=False, fontsize="small", loc="best", title="exact" if value == "p" else value
        )
    return ax


def save(ax, path) -> None:
    """Save the figure of ``ax`` (an Axes or a Figure) atomically as PNG (complete or absent)."""
    from simkit.core.io import atomic_write

    fig = (
        ax
        if not hasattr(ax, "get_figure") or ax.get_figure() is None or ax.get_figure() is ax
        else ax.get_figure()
    )
    if hasattr(fig, "get_suptitle") and fig.get_suptitle():
        fig.tight_layout(rect=(0, 0, 1, 0.92 if "\n" in fig.get_suptitle() else 0.95))
    else:
        fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    pyplot().close(fig)
