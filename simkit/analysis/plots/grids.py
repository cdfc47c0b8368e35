"""Charts over grid columns: heatmaps, lines along one column, rule variants compared."""

from __future__ import annotations

import numpy as np

from simkit.analysis.plots.frames import (
    axis_order,
    check_outcomes,
    check_single,
    default_outcome,
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
    legend_keys,
    outcome_color,
    outcome_label,
    place_legend,
    pyplot,
    variant_label,
    wrap_label,
)
from simkit.analysis.plots.titles import chart_title

__all__ = ["compare_chart", "compare_differences", "heatmap", "sweep_lines"]


def _cell_text(v: float, fmt: str) -> str:
    """A cell's percentage; never "0%" or "100%" for what merely rounds there ("<1%", ">99%")."""
    if fmt == ".0%" and 0 < v < 0.005:
        return "<1%"
    if fmt == ".0%" and 0.995 <= v < 1:
        return ">99%"
    return format(v, fmt)


def _top_down(d, col) -> list:
    """A heatmap's rows top to bottom: numbers descending (missing last), choices declared
    first at the bottom, as on a y axis."""
    order = axis_order(d, col)
    if not is_numeric(d, col):
        return order[::-1]
    nan = [v for v in order if isinstance(v, float) and np.isnan(v)]
    return [v for v in order if v not in nan][::-1] + nan


def _x_positions(v, x: str, order: list):
    """Where each row of ``v`` sits on an x axis: its value (numbers) or its rank (choices)."""
    if order and not all(isinstance(o, (int, float, np.number)) for o in order):
        rank = {str(o): i for i, o in enumerate(order)}
        return v[x].astype(str).map(rank).to_numpy(dtype=float)
    return numeric(v[x]).to_numpy(dtype=float)


def _x_ticks(ax, d, x: str, order: list) -> None:
    """Ticks at every grid value (up to 25; whole numbers as such), choices by name."""
    from matplotlib.ticker import MaxNLocator

    if order and not all(isinstance(o, (int, float, np.number)) for o in order):
        ax.set_xticks(range(len(order)), [tick(o) for o in order])
        return
    xs = np.asarray([o for o in order if not (isinstance(o, float) and np.isnan(o))], float)
    if 0 < len(xs) <= 25:
        ax.set_xticks(xs, [tick(v) for v in xs])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=bool(np.all(np.mod(xs, 1) == 0))))


def heatmap(
    df,
    x: str,
    y: str,
    value: str = "p",
    outcome: str | None = None,
    ax=None,
    fmt: str = ".0%",
    annotate: bool = True,
    cmap: str = "Reds",
    where: dict | None = None,
    title: str | None = None,
):
    """Heatmap of ``value`` (default P(outcome)) over two grid columns ``x`` and ``y``.

    ``outcome``: default the model's (:func:`~simkit.analysis.plots.frames.default_outcome`:
    ``dead``, for a party ``any_death``). Other grid columns must have one value per cell
    (pick one with ``where``); categorical columns in their declared order; the colour
    bar reads P(outcome), and "exact" when ``value="exact"``. ``title``: default the
    model, the outcome, n and the fixed settings (:func:`chart_title`); ``""`` for none.
    """
    plt = pyplot()
    df = filter_rows(df, where)
    for c in (x, y):
        if c not in df:
            raise ValueError(
                f"heatmap: no column {c!r}; grid columns: {', '.join(lead_columns(df))}"
            )
    if value not in df:
        raise ValueError(f"heatmap: no column {value!r}")
    if "outcome" in df:
        outcome = outcome or default_outcome(df)
        check_outcomes(df, (outcome,), "heatmap")
    outcome = outcome or "dead"
    d = df[df["outcome"] == outcome] if "outcome" in df else df
    if "variant" in d and d["variant"].nunique() > 1:
        raise ValueError(
            "heatmap: several variants in the frame; pick one with where={'variant': ...}"
        )
    check_single(d, [x, y], "heatmap")
    d = d.assign(**{c: numeric(d[c]) for c in (x, y)})  # "10" after "9", not after "1"
    table = d.pivot_table(index=y, columns=x, values=value, aggfunc="first", dropna=False)
    table = table.reindex(index=_top_down(d, y), columns=axis_order(d, x))
    vals = table.to_numpy(dtype=float)
    if ax is None:
        _, ax = plt.subplots(
            figsize=(min(16, 2 + 0.55 * table.shape[1]), min(12, 1.5 + 0.4 * table.shape[0]))
        )
    vmax = max(1e-9, float(np.nanmax(vals))) if np.isfinite(vals).any() else 1.0
    im = ax.imshow(vals, aspect="auto", cmap=cmap, vmin=0, vmax=vmax)
    ax.set_xticks(range(table.shape[1]), [tick(c) for c in table.columns])
    ax.set_yticks(range(table.shape[0]), [tick(i) for i in table.index])
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
    if title is None:
        title = chart_title(d, f"P({outcome_label(outcome)}) by {x} and {y}")
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def _compare_rows(df, outcome, x, where, what: str):
    """The rows of one outcome of a compare table, checked; (rows, outcome, variants)."""
    df = filter_rows(df, where)
    if "variant" not in df:
        raise ValueError(f"a {what} needs a 'variant' column: write it with `simkit compare`")
    outcome = outcome or default_outcome(df)
    check_outcomes(df, (outcome,), what)
    d = df[df["outcome"] == outcome]
    if x and x not in d:
        raise ValueError(f"{what}: no column {x!r}; grid columns: {', '.join(lead_columns(d))}")
    check_single(d, ["variant"] + ([x] if x else []), what)
    return d, outcome, list(dict.fromkeys(d["variant"]))


def compare_chart(
    df,
    outcome: str | None = None,
    x: str | None = None,
    ax=None,
    value: str = "p",
    where: dict | None = None,
    exact: bool = True,
    title: str | None = None,
):
    """P(outcome) under each rule variant of a :func:`simkit.analysis.compare.compare` table.

    Without ``x``: one bar per variant with its 95% interval (exact values as
    diamonds). With ``x`` (a grid column): one line per variant against ``x``, with
    its band, a tick at every grid value (choices in their declared order). Variants in
    the table's order; ``seed`` reads as the seed it is (``seed 000 as written``).
    ``outcome``: default the model's; ``title`` as in :func:`heatmap`.
    :func:`compare_differences` draws the differences from the baseline.
    """
    plt = pyplot()
    d, outcome, names = _compare_rows(df, outcome, x, where, "compare chart")
    model = model_of(d)
    shown = [variant_label(v, model) for v in names]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.8) if x else (max(6.5, 3.7 + 1.1 * len(names)), 4.6))
    colors = plt.get_cmap("tab10")
    from matplotlib.patches import Patch

    n = n_text(d) if value == "p" else ""
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
        ax.set_xticks(pos, [wrap_label(v, 14) for v in shown])
        ax.set_xlabel("rule variant")
        handles = [
            Patch(color="0.6"),
            ax.errorbar([], [], yerr=[], fmt="none", ecolor="black", capsize=4),
        ]
        labels = ["bars: Monte Carlo" + (f", {n}" if n else ""), "whiskers: 95% interval"]
        if has_exact:
            handles.append(ax.plot([], [], "D", color="black", mfc="none", ms=7)[0])
            labels.append("hollow diamonds: exact")
        ax.set_ylabel(f"P({outcome_label(outcome)})")
        place_legend(ax, handles, labels)
    else:
        order = axis_order(d, x)
        for i, name in enumerate(names):
            v = d[d["variant"] == name]
            xs = _x_positions(v, x, order)
            at = np.argsort(xs, kind="stable")
            v, xs = v.iloc[at], xs[at]
            c = colors(i % 10)
            ax.plot(xs, v[value].astype(float), "-o", ms=3, color=c, label=shown[i])
            if value == "p":
                ax.fill_between(
                    xs,
                    v["ci_low"].astype(float),
                    v["ci_high"].astype(float),
                    color=c,
                    alpha=0.3,
                    lw=0,
                )
            if has_exact:
                ax.plot(xs, v["exact"].astype(float), "D", color=c, ms=6, mfc="none")
        ax.set_xlabel(label_for(x))
        _x_ticks(ax, d, x, order)
        ax.set_ylabel(f"P({outcome_label(outcome)})")
        legend_keys(
            ax,
            has_exact,
            d if value == "p" else None,
            line_text="lines and small dots: Monte Carlo",
            exact_text="hollow diamonds: exact",
            marker="D",
        )
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, axis="y")
    if title is None:
        by = f" by {x}" if x else ""
        title = chart_title(d, f"P({outcome_label(outcome)}) under {', '.join(shown)}{by}")
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def compare_differences(
    df,
    outcome: str | None = None,
    x: str | None = None,
    ax=None,
    where: dict | None = None,
    exact: bool = True,
    title: str | None = None,
    tick_labels: dict | None = None,
    xlabel: str | None = None,
):
    """Each variant's difference from the baseline in P(outcome), with its 95% interval.

    Reads the ``diff, diff_ci_low, diff_ci_high`` (and ``diff_exact``) columns of a
    compare table: one line (with ``x``) or bar (without) per variant other than the
    baseline (the variant whose differences are all 0, the first by default), and a
    zero line. In percentage points of probability. ``tick_labels`` (x value -> text)
    and ``xlabel`` replace the x axis's (set before the legend is placed under them).
    """
    plt = pyplot()
    d, outcome, names = _compare_rows(df, outcome, x, where, "differences chart")
    missing = [c for c in ("diff", "diff_ci_low", "diff_ci_high") if c not in d]
    if missing:
        raise ValueError(f"differences chart: no column {missing[0]!r}: a simkit compare table")
    model = model_of(d)
    base = next(
        (v for v in names if d.loc[d["variant"] == v, "diff_ci_low"].isna().all()), names[0]
    )
    others = [v for v in names if v != base]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.6))
    colors = plt.get_cmap("tab10")
    has_exact = exact and "diff_exact" in d and d["diff_exact"].notna().any()
    ax.axhline(0, color="0.3", lw=0.8)
    order = axis_order(d, x) if x else []
    for i, name in enumerate(names):
        if name == base:
            continue
        v = d[d["variant"] == name]
        c = colors(i % 10)
        label = f"{variant_label(name, model)} \u2212 {variant_label(base, model)}"
        if x:
            xs = _x_positions(v, x, order)
            at = np.argsort(xs, kind="stable")
            v, xs = v.iloc[at], xs[at]
            ax.plot(xs, 100 * v["diff"].astype(float), "-o", ms=3, color=c, label=label)
            ax.fill_between(
                xs,
                100 * v["diff_ci_low"].astype(float),
                100 * v["diff_ci_high"].astype(float),
                color=c,
                alpha=0.3,
                lw=0,
            )
            if has_exact:
                ax.plot(xs, 100 * v["diff_exact"].astype(float), "D", color=c, ms=6, mfc="none")
        else:
            j = others.index(name)
            dv = float(v["diff"].iloc[0])
            lo, hi = float(v["diff_ci_low"].iloc[0]), float(v["diff_ci_high"].iloc[0])
            ax.bar(j, 100 * dv, color=c, alpha=0.8, label=label)
            ax.errorbar(j, 100 * dv, yerr=[[100 * (dv - lo)], [100 * (hi - dv)]], color="k")
    if x:
        ax.set_xlabel(xlabel or label_for(x))
        _x_ticks(ax, d, x, order)
        if tick_labels:
            ax.set_xticks(list(tick_labels), list(tick_labels.values()))
    else:
        ax.set_xticks(range(len(others)), [wrap_label(variant_label(v, model)) for v in others])
    ax.set_ylabel(f"difference in P({outcome_label(outcome)})\n(percentage points)")
    ax.grid(alpha=0.3, axis="y")
    band = d[d["variant"] != base]
    legend_keys(
        ax,
        has_exact,
        band.assign(ci_low=band["diff_ci_low"], ci_high=band["diff_ci_high"]) if x else None,
        line_text="lines and small dots: Monte Carlo",
        exact_text="hollow diamonds: exact",
        marker="D",
        below=True,
    )
    if title is None:
        title = chart_title(d, f"differences in P({outcome_label(outcome)}) from {base}")
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def sweep_lines(
    df,
    x: str,
    outcomes=None,
    ax=None,
    where: dict | None = None,
    value: str = "p",
    exact: bool = True,
    title: str | None = None,
):
    """P(outcome) against one grid column ``x`` of a sweep table: a line per outcome.

    Each Monte Carlo line carries its confidence band (shaded) and, where the sweep
    has an ``exact`` column, the exact values as hollow diamonds; an exact-only sweep
    draws its exact lines alone. Other grid columns must have one value (``where``);
    a categorical ``x`` in its declared order (threat trivial -> extreme). ``outcomes``:
    default the model's outcome; ``title`` as in :func:`heatmap`.
    ``simkit plot FILE.csv --kind line --x KEY``.
    """
    plt = pyplot()
    df = filter_rows(df, where)
    if x not in df:
        raise ValueError(
            f"line chart: no column {x!r}; grid columns: {', '.join(lead_columns(df))}"
        )
    if "variant" in df and df["variant"].nunique() > 1:
        raise ValueError(
            "line chart: several variants in the frame: draw them with --kind compare --x "
            f"{x}, or pick one with --where variant=..."
        )
    outcomes = tuple(outcomes or (default_outcome(df),))
    check_outcomes(df, outcomes, "line chart")
    d = df[df["outcome"].isin(outcomes)]
    check_single(d, [x, "outcome"], "line chart")
    mc = value == "p" and "n" in d and d["n"].notna().any()
    has_exact = exact and mc and "exact" in d and d["exact"].notna().any()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.8))
    order = axis_order(d, x)
    for o in outcomes:
        v = d[d["outcome"] == o]
        xs = _x_positions(v, x, order)
        at = np.argsort(xs, kind="stable")
        v, xs = v.iloc[at], xs[at]
        c = outcome_color(o, outcomes)
        ax.plot(xs, v[value].astype(float), "-o", ms=3, color=c, label=f"P({outcome_label(o)})")
        if mc:
            ax.fill_between(
                xs,
                v["ci_low"].astype(float),
                v["ci_high"].astype(float),
                color=c,
                alpha=0.3,
                lw=0,
            )
        if has_exact:
            ax.plot(xs, v["exact"].astype(float), "D", color=c, ms=6, mfc="none")
    ax.set_xlabel(label_for(x))
    _x_ticks(ax, d, x, order)
    ax.set_ylabel(f"P({outcome_label(outcomes[0])})" if len(outcomes) == 1 else "probability")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, axis="y")
    if mc:
        legend_keys(
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
    if title is None:
        names = ", ".join(f"P({outcome_label(o)})" for o in outcomes)
        title = chart_title(d, f"{names} by {x}" + (", exact" if not mc else ""))
    if title:
        ax.set_title(title, fontsize="medium")
    return ax
