"""Plots: ``ax=None`` in, axes out; matplotlib is imported here only, lazily.

Every function takes tidy frames (``Result.survival()``, sweep tables) so that it
plots a saved CSV as well as a live result.
"""

from __future__ import annotations

__all__ = ["survival_curves", "heatmap", "save"]

COLORS = {"dead": "#b2182b", "active": "#2166ac", "stable": "#4d9221", "revived": "#e08214"}


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        try:
            import matplotlib.pyplot as plt  # noqa: F401
        except ImportError:  # pragma: no cover
            matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def survival_curves(surv, outcomes=("active", "dead"), ax=None, label: str | None = None,
                    band: bool = True, exact: bool = True, linestyle="-"):
    """Probability by time of each outcome in ``outcomes`` with its CI band.

    ``surv`` is a frame of :meth:`simkit.Result.survival` (columns ``time, outcome,
    p, ci_low, ci_high`` and optionally ``exact``). ``active`` is P(still in the
    track, e.g. still dying); an absorbing outcome is P(absorbed in it by then).
    """
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    unit = surv.attrs.get("time_unit", "steps")
    names = {"active": "still dying" if unit == "rounds" else "still in the track"}
    for o in outcomes:
        d = surv[surv["outcome"] == o]
        if d.empty:
            continue
        name = names.get(o, o)
        lab = f"{label}: P({name})" if label else f"P({name})"
        color = COLORS.get(o)
        ax.step(d["time"], d["p"], where="post", color=color, label=lab, linestyle=linestyle)
        if band:
            ax.fill_between(d["time"], d["ci_low"], d["ci_high"], step="post", color=color, alpha=0.2, lw=0)
        if exact and "exact" in d:
            ax.plot(d["time"], d["exact"], ".", color=color, ms=3)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("probability")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize="small", loc="center right")
    return ax


def heatmap(df, x: str, y: str, value: str = "p", outcome: str = "dead", ax=None, fmt: str = ".0%",
            annotate: bool = True, cmap: str = "Reds"):
    """Heatmap of ``value`` (default P(dead)) over two grid columns ``x`` and ``y``."""
    plt = _pyplot()
    d = df[df["outcome"] == outcome] if "outcome" in df else df
    table = d.pivot_table(index=y, columns=x, values=value, aggfunc="mean").sort_index(ascending=False)
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.55 * table.shape[1], 1 + 0.4 * table.shape[0]))
    im = ax.imshow(table.to_numpy(), aspect="auto", cmap=cmap, vmin=0, vmax=max(1e-9, float(table.to_numpy().max())))
    ax.set_xticks(range(table.shape[1]), [str(c) for c in table.columns])
    ax.set_yticks(range(table.shape[0]), [str(i) for i in table.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if annotate and table.size <= 600:
        vmax = table.to_numpy().max()
        for i in range(table.shape[0]):
            for j in range(table.shape[1]):
                v = table.to_numpy()[i, j]
                ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=7,
                        color="white" if v > 0.6 * vmax else "black")
    ax.figure.colorbar(im, ax=ax, label=f"P({outcome})")
    return ax


def save(ax, path) -> None:
    """Save the figure of ``ax`` atomically as PNG (complete or absent)."""
    from .io import atomic_write

    fig = ax.figure
    fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    _pyplot().close(fig)
