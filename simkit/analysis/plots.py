"""Plots: ``ax=None`` in, axes out; matplotlib is imported here only, lazily.

Every function takes tidy frames (``Result.survival()``, sweep and compare tables)
so that it plots a saved CSV as well as a live result. Axis labels say what a
parameter means and in which unit (:data:`LABELS`), probabilities read "P(dead)",
and times carry the model's unit (rounds, hours, days), so a figure can go into a
rules document as it is.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LABELS", "compare_chart", "heatmap", "label_for", "save", "survival_curves", "survival_sweep"]

COLORS = {"dead": "#b2182b", "active": "#2166ac", "stable": "#4d9221", "revived": "#e08214",
          "awake": "#4d9221", "rested": "#1b7837", "back": "#e08214", "recovered": "#4d9221",
          "exhausted": "#762a83", "ko": "#e08214", "standing": "#4d9221"}

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

#: How "still in the track" reads for a model, else in a time unit.
ACTIVE_BY_MODEL = {"dying": "still dying", "perseverance": "still agonising", "agony": "still agonising",
                   "recovery": "still unconscious", "encounter": "still in the fight",
                   "fatigue": "still lost", "dnd5e": "still dying", "dnd4e": "still dying"}
ACTIVE_NAMES = {"rounds": "still dying"}


def label_for(key: str) -> str:
    """The axis label of a parameter or sweep key (its name when unknown)."""
    return LABELS.get(key, key.replace("_", " "))


def _outcome_label(outcome: str, unit: str | None = None, model: str | None = None) -> str:
    if outcome == "active":
        if model in ACTIVE_BY_MODEL:
            return ACTIVE_BY_MODEL[model]
        return ACTIVE_NAMES.get(unit or "", "still in the track")
    return outcome


def _model_of(frame) -> str | None:
    """The model a frame describes: ``attrs["model"]`` (live) or a ``model`` column (CSV)."""
    model = frame.attrs.get("model")
    if model is None and "model" in frame and len(frame):
        model = frame["model"].iloc[0]
    return model


def _lead_columns(df) -> list[str]:
    """Grid (and derived) columns: those before ``stage``/``outcome``, without ``variant``."""
    cols = list(df.columns)
    stop = min(cols.index(c) for c in ("stage", "time_unit", "time", "outcome") if c in cols) if any(
        c in cols for c in ("stage", "time_unit", "time", "outcome")) else len(cols)
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
                mask = np.isclose(col.astype(float), float(v))
            except (TypeError, ValueError):
                pass
        if not np.any(mask):
            raise ValueError(f"where {k}={v}: no such rows; values: {', '.join(map(str, col.unique()[:20]))}")
        df = df[np.asarray(mask)]
    return df


def _check_single(df, keep: list[str], what: str) -> None:
    """Raise when a grid column other than ``keep`` varies within the plotted cells."""
    others = [c for c in _lead_columns(df) if c not in keep]
    if not others:
        return
    g = df.groupby(keep, dropna=False, sort=False)[others].nunique(dropna=False) if keep else \
        df[others].nunique(dropna=False).to_frame().T
    varying = [c for c in others if (g[c] > 1).any()]
    if varying:
        hint = " ".join(f"--where {c}={df[c].iloc[0]}" for c in varying)
        raise ValueError(f"{what}: columns {', '.join(varying)} also vary; pick one value of each "
                         f"(where=..., e.g. {hint})")


def _time_unit(surv) -> str:
    if "time_unit" in surv and len(surv):
        return str(surv["time_unit"].iloc[0])
    return surv.attrs.get("time_unit", "steps")


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        try:
            import matplotlib.pyplot as plt
        except ImportError:  # pragma: no cover
            matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def survival_curves(surv, outcomes=("active", "dead"), ax=None, label: str | None = None,
                    band: bool = True, exact: bool = True, linestyle="-", stage: str | None = None,
                    color=None, legend: bool = True):
    """Probability by time of each outcome in ``outcomes`` with its CI band.

    ``surv`` is a frame of :meth:`simkit.Result.survival` (columns ``time, outcome,
    p, ci_low, ci_high`` and optionally ``exact``, ``stage``, ``time_unit``), live
    or read from CSV. ``active`` is P(still in the track, e.g. still dying); an
    absorbing outcome is P(absorbed in it by then). For a chain, ``stage`` picks
    one stage (default: the first); the x axis is in that stage's unit. Exact
    values, when present, are dots.
    """
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
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
            raise ValueError(f"outcome {o!r}: not in the frame; outcomes: {', '.join(sorted(known))}")
    for o in outcomes:
        d = surv[surv["outcome"] == o]
        name = _outcome_label(o, unit, _model_of(surv))
        lab = f"{label}: P({name})" if label else f"P({name})"
        c = color if color is not None else COLORS.get(o)
        line = ax.step(d["time"], d["p"], where="post", color=c, label=lab, linestyle=linestyle)[0]
        c = line.get_color()
        if band:
            ax.fill_between(d["time"], d["ci_low"].astype(float), d["ci_high"].astype(float), step="post",
                            color=c, alpha=0.2, lw=0)
        if exact and "exact" in d and d["exact"].notna().any():
            ax.plot(d["time"], d["exact"], ".", color=c, ms=3)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("probability")
    ax.set_ylim(-0.02, 1.02)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # whole rounds, hours, days
    ax.grid(alpha=0.3)
    if legend:
        _legend(ax, exact and "exact" in surv and surv["exact"].notna().any())
    return ax


def _legend(ax, exact_dots: bool) -> None:
    _, labels = ax.get_legend_handles_labels()
    if exact_dots and "exact (dots)" not in labels:
        ax.plot([], [], ".", color="0.3", label="exact (dots)")
    if len(labels) > 4:  # many curves: the legend goes beside the plot, not over it
        ax.legend(frameon=False, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(frameon=False, fontsize="small", loc="best")


def _point_label(row, keys) -> str:
    parts = []
    for k in keys:
        v = row[k]
        short = {"dc": "DC", "save_bonus": "save", "level": "level", "monster_level": "monster level",
                 "level_diff": "level diff"}.get(k, k.replace("_", " "))
        parts.append(f"{short} {'+' if k in ('save_bonus', 'level_diff') and float(v) >= 0 else ''}{v}")
    return ", ".join(parts)


def survival_sweep(df, outcomes=("dead",), ax=None, stage: str | None = None, band: bool = True,
                   exact: bool = True, where: dict | None = None, by: list[str] | None = None):
    """One survival curve per grid point of a survival sweep (``sweep(..., survival=True)``).

    ``by`` names the grid columns that tell the curves apart (default: every
    grid column that varies); the legend reads e.g. "DC 18: P(dead)".
    """
    plt = _pyplot()
    df = _filter(df, where)
    if "time" not in df:
        raise ValueError("a survival plot needs per-step rows (columns time, outcome, p): "
                         "write them with `simkit sweep ... --survival`")
    lead = _lead_columns(df)
    if by is None:
        by = [c for c in lead if df[c].nunique(dropna=False) > 1]
        derived = set()
        for c in by:  # keep grid keys, drop columns that follow from them (derived)
            rest = [b for b in by if b != c and b not in derived]
            if rest and (df.groupby(rest, dropna=False)[c].nunique(dropna=False) <= 1).all():
                derived.add(c)
        by = [c for c in by if c not in derived]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    groups = [((), df)] if not by else list(df.groupby(by, dropna=False, sort=False))
    cmap = plt.get_cmap("viridis")
    styles = ["-", "--", ":", "-."]
    for gi, (_, d) in enumerate(groups):
        color = cmap(gi / max(1, len(groups) - 1) * 0.9)
        label = _point_label(d.iloc[0], by) if by else None
        for oi, o in enumerate(outcomes):
            survival_curves(d, outcomes=(o,), ax=ax, label=label, band=band, exact=exact, stage=stage,
                            color=color if len(groups) > 1 else None, linestyle=styles[oi % len(styles)],
                            legend=False)
    _legend(ax, exact and "exact" in df and df["exact"].notna().any())
    return ax


def _numeric(col):
    """A grid column as numbers when every value reads as one (heights stored as text)."""
    import pandas as pd

    conv = pd.to_numeric(col, errors="coerce")
    return conv if conv.notna().sum() == col.notna().sum() else col


def _tick(v) -> str:
    """A grid value as a designer reads it: ``none`` for a missing value, 12 not 12.0."""
    if v is None or (isinstance(v, float) and v != v):
        return "none"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def heatmap(df, x: str, y: str, value: str = "p", outcome: str = "dead", ax=None, fmt: str = ".0%",
            annotate: bool = True, cmap: str = "Reds", where: dict | None = None, title: str | None = None):
    """Heatmap of ``value`` (default P(dead)) over two grid columns ``x`` and ``y``.

    Other grid columns must have one value per cell (pick one with ``where``); the
    colour bar reads P(outcome), and "exact" when ``value="exact"``.
    """
    plt = _pyplot()
    df = _filter(df, where)
    for c in (x, y):
        if c not in df:
            raise ValueError(f"heatmap: no column {c!r}; grid columns: {', '.join(_lead_columns(df))}")
    if value not in df:
        raise ValueError(f"heatmap: no column {value!r}")
    d = df[df["outcome"] == outcome] if "outcome" in df else df
    if d.empty:
        raise ValueError(f"heatmap: no rows for outcome {outcome!r}")
    if "variant" in d and d["variant"].nunique() > 1:
        raise ValueError("heatmap: several variants in the frame; pick one with where={'variant': ...}")
    _check_single(d, [x, y], "heatmap")
    d = d.assign(**{c: _numeric(d[c]) for c in (x, y)})  # "10" after "9", not after "1"
    table = d.pivot_table(index=y, columns=x, values=value, aggfunc="first", dropna=False)
    table = table.sort_index(ascending=False).sort_index(axis=1)
    vals = table.to_numpy(dtype=float)
    if ax is None:
        _, ax = plt.subplots(figsize=(min(16, 2 + 0.55 * table.shape[1]), min(12, 1.5 + 0.4 * table.shape[0])))
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
                    ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=7,
                            color="white" if v > 0.6 * vmax else "black")
    what = f"P({outcome})" + (" (exact)" if value == "exact" else "")
    ax.figure.colorbar(im, ax=ax, label=what)
    if title:
        ax.set_title(title)
    return ax


def compare_chart(df, outcome: str = "dead", x: str | None = None, ax=None, value: str = "p",
                  where: dict | None = None, exact: bool = True):
    """P(outcome) under each rule variant of a :func:`simkit.analysis.compare.compare` table.

    Without ``x``: one bar per variant with its 95% interval (exact values as
    diamonds). With ``x`` (a grid column): one line per variant against ``x``, with
    its band.
    """
    plt = _pyplot()
    df = _filter(df, where)
    if "variant" not in df:
        raise ValueError("a compare chart needs a 'variant' column: write it with `simkit compare`")
    d = df[df["outcome"] == outcome]
    if d.empty:
        raise ValueError(f"compare chart: no rows for outcome {outcome!r}; outcomes: "
                         f"{', '.join(map(str, df['outcome'].unique()))}")
    keep = ["variant"] + ([x] if x else [])
    if x and x not in d:
        raise ValueError(f"compare chart: no column {x!r}; grid columns: {', '.join(_lead_columns(d))}")
    _check_single(d, keep, "compare chart")
    names = list(dict.fromkeys(d["variant"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.2) if x else (max(4.5, 1.2 + 1.1 * len(names)), 4.2))
    colors = plt.get_cmap("tab10")
    if x is None:
        rows = d.groupby("variant", sort=False).first().loc[names]
        pos = np.arange(len(names))
        p = rows[value].to_numpy(dtype=float)
        err = np.vstack([p - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - p])
        ax.bar(pos, p, color=[colors(i % 10) for i in range(len(names))], alpha=0.8,
               yerr=np.clip(err, 0, None), capsize=4, label=f"P({outcome}), 95% interval")
        if exact and "exact" in rows and rows["exact"].notna().any():
            ax.plot(pos, rows["exact"].to_numpy(dtype=float), "D", color="black", ms=5, label="exact")
        ax.set_xticks(pos, names, rotation=20 if len(names) > 3 else 0, ha="right" if len(names) > 3 else "center")
        ax.set_xlabel("rule variant")
    else:
        for i, name in enumerate(names):
            v = d[d["variant"] == name].sort_values(x)
            c = colors(i % 10)
            ax.plot(v[x], v[value], "-o", ms=3, color=c, label=name)
            ax.fill_between(v[x], v["ci_low"].astype(float), v["ci_high"].astype(float), color=c, alpha=0.2, lw=0)
            if exact and "exact" in v and v["exact"].notna().any():
                ax.plot(v[x], v["exact"], "D", color=c, ms=3, mfc="none")
        ax.set_xlabel(label_for(x))
        if np.issubdtype(np.asarray(d[x]).dtype, np.integer):
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(f"P({outcome})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(frameon=False, fontsize="small")
    return ax


def save(ax, path) -> None:
    """Save the figure of ``ax`` atomically as PNG (complete or absent)."""
    from simkit.core.io import atomic_write

    fig = ax.figure
    fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    _pyplot().close(fig)
