"""Charts over grid columns: heatmaps, lines along one column, rule variants compared."""

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
from simkit.analysis.plots.style import label_for, legend_keys, outcome_color, outcome_label, pyplot

__all__ = ["compare_chart", "heatmap", "sweep_lines"]


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
    df = filter_rows(df, where)
    for c in (x, y):
        if c not in df:
            raise ValueError(
                f"heatmap: no column {c!r}; grid columns: {', '.join(lead_columns(df))}"
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
    check_single(d, [x, y], "heatmap")
    d = d.assign(**{c: numeric(d[c]) for c in (x, y)})  # "10" after "9", not after "1"
    table = d.pivot_table(index=y, columns=x, values=value, aggfunc="first", dropna=False)
    table = table.sort_index(ascending=False).sort_index(axis=1)
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
    df = filter_rows(df, where)
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
            f"compare chart: no column {x!r}; grid columns: {', '.join(lead_columns(d))}"
        )
    check_single(d, keep, "compare chart")
    names = list(dict.fromkeys(d["variant"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4.4) if x else (max(6.5, 3.7 + 1.1 * len(names)), 4.2))
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
                .assign(**{x: numeric(d.loc[d["variant"] == name, x])})
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
        if np.issubdtype(np.asarray(numeric(d[x])).dtype, np.number):
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(
                MaxNLocator(integer=bool(np.all(np.mod(numeric(d[x]), 1) == 0)))
            )
        legend_keys(
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
    outcomes = tuple(outcomes or ("dead",))
    known = list(dict.fromkeys(map(str, df["outcome"])))
    for o in outcomes:
        if o not in known:
            raise ValueError(f"line chart: no rows for outcome {o!r}; outcomes: {', '.join(known)}")
    d = df[df["outcome"].isin(outcomes)]
    check_single(d, [x, "outcome"], "line chart")
    mc = value == "p" and "n" in d and d["n"].notna().any()
    has_exact = exact and mc and "exact" in d and d["exact"].notna().any()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.4))
    for i, o in enumerate(outcomes):
        v = d[d["outcome"] == o]
        v = v.assign(**{x: numeric(v[x])}).sort_values(x)
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
    xs = numeric(d[x])
    if np.issubdtype(np.asarray(xs).dtype, np.number):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=bool(np.all(np.mod(xs, 1) == 0))))
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
    return ax
