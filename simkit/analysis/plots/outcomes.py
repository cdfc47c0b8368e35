"""Final outcomes as bars: one point (:func:`outcome_bars`) or stacked over a grid column."""

from __future__ import annotations

import numpy as np

from simkit.analysis.plots.frames import (
    axis_order,
    check_outcomes,
    check_single,
    filter_rows,
    is_numeric,
    lead_columns,
    model_of,
    n_text,
    numeric,
    tick,
)
from simkit.analysis.plots.style import (
    label_for,
    outcome_color,
    outcome_label,
    place_legend,
    pyplot,
    wrap_label,
)
from simkit.analysis.plots.titles import chart_title

__all__ = [
    "final_rows",
    "legend_for_stack",
    "outcome_bars",
    "stacked_outcomes",
    "stacked_panels",
]


def final_rows(surv):
    """The absorbing outcomes of a one-step survival frame, as a summary (no time columns)."""
    d = surv[(surv["outcome"] != "active") & (surv["time"] == surv["time"].max())]
    return d.drop(columns=[c for c in ("stage", "time_unit", "time") if c in d])


def _bar_text(v: float, exact: float) -> str:
    """A bar's percentage: "never" when exactly impossible, "<0.1%" when it rounds to 0,
    "none seen" for a Monte Carlo 0 with no exact value."""
    if v == 0 and np.isfinite(exact) and exact == 0:
        return "never"
    if 0 < v < 0.0005 or (v == 0 and np.isfinite(exact) and exact > 0):
        return "<0.1%"
    if v == 0:
        return "none seen"
    return f"{v:.1%}"


def _final_outcomes(df) -> list[str]:
    """The frame's outcomes that end a track (the model's declared ones and ``unresolved``),
    not its events (``any_death``, ``death:fighter``) or means, which overlap them."""
    from simkit.models import REGISTRY

    names = list(dict.fromkeys(map(str, df["outcome"])))
    cls = REGISTRY.get(str(model_of(df)))
    if cls is None:
        return names
    final = [o for o in names if o in cls.outcomes or o == "unresolved"]
    return final or names


def outcome_bars(
    df,
    ax=None,
    outcomes=None,
    where: dict | None = None,
    value: str = "p",
    exact: bool = True,
    drop_empty: tuple = ("unresolved",),
    title: str | None = None,
):
    """P(each outcome) as bars with 95% whiskers, exact values as diamonds.

    ``df`` is a summary or sweep table at one point (``outcome, p, ci_low,
    ci_high`` and optionally ``exact``, ``n``): the chart for a one-step model
    (a fall) or for a model's final outcomes. Each bar is labelled with its
    percentage ("never" when the exact value is 0, "<0.1%" for what merely rounds to
    0); outcomes in ``drop_empty`` are left out when they never happen. Tick labels are
    wrapped, never rotated into each other; the legend sits under the chart. ``title``:
    default the model, n and the fixed settings; ``""`` for none.
    """
    plt = pyplot()
    df = filter_rows(df, where)
    if "outcome" not in df or value not in df:
        raise ValueError(f"outcome bars need columns outcome and {value}")
    if "stage" in df:
        raise ValueError("outcome bars: give the final outcomes (a summary), not per-stage rows")
    check_single(df, [], "outcome bars")
    rows = df.groupby("outcome", sort=False).first()
    names = list(dict.fromkeys(outcomes or _final_outcomes(df)))
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
        _, ax = plt.subplots(figsize=(max(4.5, 1.5 + 1.1 * len(names)), 4.8))
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
    exacts = rows["exact"].to_numpy(dtype=float) if "exact" in rows else np.full(len(names), np.nan)
    for x, v, e in zip(pos, p, exacts):
        ax.annotate(
            _bar_text(v, e),
            (x, v),
            xytext=(0, 4),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize="small",
        )
    ax.set_xticks(pos, [wrap_label(outcome_label(o)) for o in names])
    _fit_tick_labels(ax)
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
    place_legend(ax, handles, labels)
    if title is None:
        title = chart_title(df, "P(each outcome)")
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def _share_text(v: float) -> str:
    """A thin share with two significant digits under 1% (0.46%, not 0.5%)."""
    return f"{v:.2%}" if v < 0.01 else f"{v:.1%}"


def stacked_outcomes(
    df,
    x: str,
    outcomes=None,
    ax=None,
    where: dict | None = None,
    value: str = "p",
    legend: bool = True,
    title: str | None = None,
):
    """Stacked bars of P(each outcome) over a grid column ``x``.

    Every outcome at once (a fall's standing / knocked out / dead add up to 1), on an
    evenly spaced ``x`` axis for numbers (bars at their values, gaps where the grid has
    none), choices in their declared order. A share under 2% but not zero, too thin to
    see, is written up its bar: its exact value where the table has one (so that two
    bars of one damage band read the same), else the Monte Carlo share. Where the bars
    are Monte Carlo and the exact values are known, short black dashes mark the exact
    boundaries. Other grid columns must have one value (``where``). ``title`` as in
    :func:`outcome_bars`.
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
    if outcomes:
        check_outcomes(df, outcomes, "stacked outcomes")
    d = df.assign(**{x: numeric(df[x])})
    order = axis_order(d, x)
    table = d.pivot_table(index=x, columns="outcome", values=value, aggfunc="first")
    table = table.reindex(order)
    has_exact = value == "p" and "exact" in d and d["exact"].notna().any()
    exact = (
        d.pivot_table(index=x, columns="outcome", values="exact", aggfunc="first").reindex(order)
        if has_exact
        else None
    )
    mc = has_exact and "n" in d and d["n"].notna().any()
    names = list(dict.fromkeys(outcomes or d["outcome"]))
    names = [
        o for o in names if o in table.columns and (outcomes or table[o].fillna(0).gt(0).any())
    ]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.8))
    numbers = is_numeric(d, x)
    xs = np.asarray(order, dtype=float) if numbers else np.arange(len(order), dtype=float)
    width = 0.8 * (float(np.min(np.diff(xs))) if len(xs) > 1 else 1.0)
    bottom = np.zeros(len(xs))
    top_exact = np.zeros(len(xs))
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
        if mc and exact is not None and o in exact and o != names[-1]:
            top_exact += exact[o].fillna(0).to_numpy(dtype=float)
            ax.plot(xs, top_exact, "_", color="black", ms=width * 14, mew=1.2)
    thin_seen = False
    for j, xv in enumerate(xs):  # a share too thin to see gets its number, written up the bar
        shares = {
            o: float(exact[o].iloc[j])
            if exact is not None and o in exact and np.isfinite(exact[o].iloc[j])
            else float(table[o].fillna(0).iloc[j])
            for o in names
        }
        thin = [f"{_share_text(v)} {outcome_label(o)}" for o, v in shares.items() if 0 < v < 0.02]
        if thin:
            thin_seen = True
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
    ax.set_xticks(xs, [tick(v) for v in order])
    ax.set_xlabel(label_for(x))
    ax.set_ylabel("probability" if value == "p" else f"probability ({value})")
    ax.set_ylim(0, 1.0)
    ax.grid(alpha=0.3, axis="y")
    if legend:
        legend_for_stack(ax, mc=mc, thin=thin_seen, exact=has_exact, n=n_text(d) if mc else "")
    if title is None:
        title = chart_title(d, f"P(each outcome) by {x}")
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def legend_for_stack(ax, *, mc: bool, thin: bool, exact: bool, n: str = "", align="center"):
    """The legend of stacked bars: the outcomes (top first), then what the marks mean."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    handles, labels = handles[::-1], labels[::-1]
    if mc:
        handles.append(Line2D([], [], ls="none"))
        labels.append("bars: Monte Carlo" + (f", {n}" if n else ""))
        handles.append(Line2D([], [], marker="_", ls="none", color="black", ms=12, mew=1.2))
        labels.append("black dashes: exact boundaries")
    if thin:
        handles.append(Line2D([], [], ls="none"))
        labels.append("numbers up a bar: shares under 2%" + (", exact" if exact else ""))
    return place_legend(ax, handles, labels, align=align)


def _span(values) -> str:
    """``2-20`` for a run of whole numbers, else ``2, 3, 5``."""
    vals = [tick(v) for v in values]
    try:
        ints = [int(v) for v in vals]
    except ValueError:
        return ", ".join(vals)
    if len(ints) > 2 and ints == list(range(ints[0], ints[-1] + 1)):
        return f"{ints[0]}-{ints[-1]}"
    return ", ".join(vals)


def stacked_panels(
    df,
    x: str,
    by: str,
    outcomes=None,
    where: dict | None = None,
    panel_title=None,
    title: str | None = None,
):
    """:func:`stacked_outcomes` over ``x``, one panel for each distinct result over ``by``.

    Values of ``by`` whose rows are the same (the exact values where the table has
    them, else the shares) share one panel, titled for all of them (``levels 2-20``), so
    that no two panels are identical. ``panel_title(values)`` gives a panel's title
    (default ``by`` and the values); ``title`` the figure's (default: the model, n and
    the fixed settings). Returns ``(figure, axes)``; one legend, under the first panel.
    """
    plt = pyplot()
    df = filter_rows(df, where)
    for c in (x, by):
        if c not in df:
            raise ValueError(
                f"stacked panels: no column {c!r}; grid columns: {', '.join(lead_columns(df))}"
            )
    col = "exact" if "exact" in df and df["exact"].notna().all() else "p"
    groups: dict[tuple, list] = {}
    d = df.assign(**{by: numeric(df[by]), x: numeric(df[x])})
    for v in axis_order(d, by):
        rows = d[d[by].astype(str) == str(v)].sort_values([x, "outcome"], kind="stable")
        key = tuple(np.round(rows[col].astype(float).to_numpy(), 12))
        groups.setdefault(key, []).append(v)
    panels = list(groups.values())
    fig, axs = plt.subplots(
        1, len(panels), figsize=(3.6 * len(panels) + 1.0, 5.0), sharey=True, squeeze=False
    )
    axes = list(axs[0])
    for i, (ax, values) in enumerate(zip(axes, panels)):
        stacked_outcomes(
            d[d[by].astype(str) == str(values[0])],
            x,
            outcomes=outcomes,
            ax=ax,
            legend=False,
            title="",
        )
        name = panel_title(values) if panel_title else f"{by} {_span(values)}"
        ax.set_title(name, fontsize="medium")
        if i:
            ax.set_ylabel("")
    first = d[d[by].astype(str) == str(panels[0][0])]
    mc = col == "exact" and "n" in d and d["n"].notna().any()
    thin = any(t.get_text() for ax in axes for t in ax.texts)
    legend_for_stack(
        axes[0], mc=mc, thin=thin, exact=col == "exact", n=n_text(first) if mc else "", align="left"
    )
    if title is None:
        title = chart_title(d, f"P(each outcome) by {x}, one panel for each different {by}")
    if title:
        fig.suptitle(title, fontsize="medium")
    return fig, axes


def _fit_tick_labels(ax, sizes=(10.0, 9.0, 8.0), gap: float = 5.0) -> None:
    """The x tick labels at the largest of ``sizes`` (points) at which no two neighbours
    come closer than ``gap`` pixels ("standing" and "knocked out (0 HP)" side by side in
    a narrow panel); the smallest size if none fits; unchanged without a renderer."""
    get = getattr(ax.figure.canvas, "get_renderer", None)
    labels = ax.get_xticklabels()
    if get is None or len(labels) < 2:
        return
    renderer = get()
    for size in sizes:
        for t in labels:
            t.set_fontsize(size)
        boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
        if all(a.x1 + gap <= b.x0 for a, b in zip(boxes, boxes[1:])):
            return
