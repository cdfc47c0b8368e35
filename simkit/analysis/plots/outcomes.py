"""Final outcomes as bars: one point (:func:`outcome_bars`) or stacked over a grid column."""

from __future__ import annotations

import numpy as np

from simkit.analysis.plots.frames import (
    check_single,
    filter_rows,
    lead_columns,
    n_text,
    numeric,
    tick,
)
from simkit.analysis.plots.style import label_for, outcome_color, outcome_label, pyplot

__all__ = ["final_rows", "outcome_bars", "stacked_outcomes"]


def final_rows(surv):
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
    df = filter_rows(df, where)
    if "outcome" not in df or value not in df:
        raise ValueError(f"outcome bars need columns outcome and {value}")
    if "stage" in df:
        raise ValueError("outcome bars: give the final outcomes (a summary), not per-stage rows")
    check_single(df, [], "outcome bars")
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
        n = n_text(df)
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
    df = filter_rows(df, where)
    if x not in df:
        raise ValueError(
            f"stacked outcomes: no column {x!r}; grid columns: {', '.join(lead_columns(df))}"
        )
    if "variant" in df and df["variant"].nunique() > 1:
        raise ValueError(
            "stacked outcomes: several variants in the frame; pick one with where={'variant': ...}"
        )
    check_single(df, [x], "stacked outcomes")
    d = df.assign(**{x: numeric(df[x])})
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
    ax.set_xticks(xs, [tick(v) for v in table.index])
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
