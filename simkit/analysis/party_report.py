"""Reports of the party model: the designer's numbers, and the threat x level x rules table."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "THREAT_LEVELS",
    "party_summary",
    "run_notes",
    "threat_by_level",
    "threat_by_level_figure",
]

#: Party levels of the standard ``party_threat_by_level`` report.
THREAT_LEVELS = (1, 3, 5, 7, 10, 13, 16, 20)


def party_summary(res, level: float = 0.95) -> pd.DataFrame:
    """The designer's numbers of a party result, one row each.

    Columns ``quantity, count, n, p, ci_low, ci_high`` (Wilson intervals) and ``mean``
    for the averages (with the range-bound interval of
    :func:`simkit.core.result.mean_ci` in ``ci_low``/``ci_high``). Rows: ``any_death``
    (P(at least one PC dies)), ``deaths=k`` for every k, ``defeat``, ``victory``,
    ``retreat``, ``dies:<k>:<role>`` (P(PC k dies)), ``knocked_out`` (P(a PC fell to 0
    HP)), then every event of :meth:`Result.summary` not named above (``tpk``,
    ``death:<pc>``, deaths by cause); means: ``expected_deaths``, ``rounds``,
    ``knockouts``, ``hero_spent``, ``heals_spent``. Every row is over all ``n`` tracks:
    marks are recorded when a track ends, so an ``unresolved`` track (none with the
    default horizon) counts as no death (``deaths=0``) and nothing spent, and as the
    horizon in ``rounds``.
    """
    from simkit.core.result import events_table
    from simkit.core.stats import proportion_ci

    model, n = res.model, res.n

    def mark(name: str) -> np.ndarray:
        """Counts of a mark's values over the tracks that ended (none: no value counted)."""
        counts = res.marks.get(name)
        return np.zeros(1, dtype=np.int64) if counts is None else counts.sum(axis=0)

    deaths = mark("deaths")
    mask = mark("dead_mask")
    kos = mark("knockouts")
    rows: dict[str, int] = {"any_death": int(deaths[1:].sum())}
    for k in range(model.n_pcs + 1):
        rows[f"deaths={k}"] = int(deaths[k]) if k < len(deaths) else 0
    rows["deaths=0"] += res.counts["unresolved"]  # no death recorded: none counted
    for o in ("victory", "victory_with_deaths", "retreat", "defeat", "unresolved"):
        rows[o] = int(res.counts[o])
    values = np.arange(len(mask))
    for k, role in enumerate(model.roles):
        rows[f"dies:{k}:{role}"] = int(mask[(values >> k) & 1 == 1].sum())
    rows["knocked_out"] = int(kos[1:].sum())
    c = np.array(list(rows.values()), dtype=np.int64)
    low, high = proportion_ci(c, n, level, "wilson")
    df = pd.DataFrame(
        {
            "quantity": list(rows),
            "count": c,
            "n": n,
            "p": c / n,
            "ci_low": low,
            "ci_high": high,
            "mean": np.nan,
        }
    )
    ev = events_table(res, level).rename(columns={"outcome": "quantity"})
    ev = ev[~ev["quantity"].isin(rows)]
    out = pd.concat([df, ev], ignore_index=True)
    out["count"] = out["count"].astype("Int64")
    out.attrs.update(model=model.name, seed=res.seed, n=n, lineup=model.describe_lineup())
    return out


def run_notes(res, level: float = 0.95) -> list[str]:
    """Lines for ``simkit run party`` (on stderr): the lineup used, a warning where its
    budget misbehaves (:attr:`simkit.rules.pf2e.budget.Lineup.warnings`), the designer's
    odds (the same numbers as the table's events and means: :meth:`Result.summary`)."""
    from simkit.core.result import events_table

    model = res.model
    s = events_table(res, level).set_index("outcome")

    def pct(q: str) -> str:
        r = s.loc[q]
        return f"{100 * r['p']:.2f}% [{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}]"

    def mean(q: str, digits: int) -> str:
        r = s.loc[q]
        return f"{r['mean']:.{digits}f} [{r['ci_low']:.{digits}f}, {r['ci_high']:.{digits}f}]"

    from simkit.core.stats import proportion_ci

    unresolved = res.counts["unresolved"]
    lo, hi = proportion_ci(res.counts["defeat"], res.n, level)
    defeat = f"{100 * res['defeat']:.2f}% [{100 * float(lo):.2f}, {100 * float(hi):.2f}]"
    odds = (
        f"P(a PC dies) {pct('any_death')}; expected deaths {mean('expected_deaths', 3)}; "
        f"P(defeat) {defeat}; rounds {s.loc['rounds', 'mean']:.2f}"
    )
    if unresolved == res.n:
        odds += " (no fight ended: the unresolved count as no death)"
    elif unresolved:
        odds += f" ({100 * unresolved / res.n:.2f}% unresolved, counted as no death)"
    return [
        (
            f"party of {model.n_pcs} at level {model.level} ({model.party}), rules {model.rules}; "
            f"lineup {model.describe_lineup(notes=False)}"
        ),
        *(f"warning: {w}" for w in model.fighters.lineup.warnings),  # the budget's gaps
        odds,
    ]


def threat_by_level(
    n: int = 20_000,
    rng: int = 0,
    levels=THREAT_LEVELS,
    threats=("trivial", "low", "moderate", "severe", "extreme"),
    rules=("seed000", "pf2e-core", "seed001"),
    **sweep_options,
) -> pd.DataFrame:
    """P(a PC dies) and P(defeat) of the default party by threat x level x rules.

    A sweep (:func:`simkit.sweep`) of the ``party`` model over ``threat``, ``level`` and
    ``rules`` (the outcome rows), plus one ``any_death`` row per point: ``victory_with_deaths``
    + ``defeat`` (with the defaults, ``after_defeat=slain`` and no retreat, a defeat kills
    every PC and a victory without deaths is ``victory``), with its Wilson interval.
    """
    from simkit.analysis.sweep import sweep
    from simkit.core.stats import proportion_ci

    grid = {"rules": list(rules), "threat": list(threats), "level": list(levels)}
    df = sweep("party", grid, n=n, rng=rng, **sweep_options)
    keys = ["rules", "threat", "level"]
    died = df[df["outcome"].isin(["victory_with_deaths", "defeat"])]
    agg = died.groupby(keys, sort=False).agg(count=("count", "sum"), n=("n", "first")).reset_index()
    first = df[df["outcome"] == "victory"].set_index(keys)
    extra = first.loc[list(map(tuple, agg[keys].to_numpy()))].reset_index().copy()
    extra["outcome"] = "any_death"
    extra["count"] = agg["count"].to_numpy()
    extra["p"] = agg["count"].to_numpy() / agg["n"].to_numpy()
    low, high = proportion_ci(agg["count"].to_numpy(np.int64), agg["n"].to_numpy(np.int64))
    extra["ci_low"], extra["ci_high"] = low, high
    if "exact" in extra:
        extra["exact"] = np.nan
    return pd.concat([df, extra[df.columns]], ignore_index=True)


def threat_by_level_figure(df: pd.DataFrame):
    """One panel per rule set: P(a PC dies) (solid) and P(defeat) (dashed) by level, one
    colour per threat. Returns (figure, axes)."""
    import matplotlib.pyplot as plt

    rules = list(dict.fromkeys(df["rules"]))
    threats = list(dict.fromkeys(df["threat"]))
    fig, grid = plt.subplots(
        1, len(rules), figsize=(4.2 * len(rules), 3.6), sharey=True, squeeze=False
    )
    axes = list(grid[0])
    colours = plt.get_cmap("viridis")(np.linspace(0.0, 0.9, len(threats)))
    for ax, r in zip(axes, rules):
        for colour, th in zip(colours, threats):
            for outcome, style, label in (
                ("any_death", "-", f"{th}: a PC dies"),
                ("defeat", "--", None),
            ):
                d = df[
                    (df["rules"] == r) & (df["threat"] == th) & (df["outcome"] == outcome)
                ].sort_values("level")
                ax.plot(
                    d["level"], d["p"], style, color=colour, label=label, marker="o", markersize=3
                )
                ax.fill_between(d["level"], d["ci_low"], d["ci_high"], color=colour, alpha=0.15)
        ax.set_title(f"rules {r}", fontsize="medium")
        ax.set_xlabel("party level")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("probability (solid: a PC dies; dashed: defeat)")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles, labels = axes[-1].get_legend_handles_labels()
    n = df["n"].dropna()
    n_text = f"n = {int(n.iloc[0]):,} encounters a point" if len(n) else "Monte Carlo"
    extra = [
        (Line2D([], [], color="grey", ls="-"), "solid: P(a PC dies)"),
        (Line2D([], [], color="grey", ls="--"), "dashed: P(defeat)"),
        (Patch(color="grey", alpha=0.3), f"shaded: 95% interval ({n_text})"),
    ]
    axes[-1].legend(
        handles + [h for h, _ in extra],
        labels + [text for _, text in extra],
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
    )
    fig.suptitle(
        "party of four (fighter, rogue, cleric, wizard) vs a boss, by PF2e threat",
        fontsize="medium",
    )
    fig.tight_layout()
    return fig, axes
