"""Regenerates the tables and the figure of README.md (seed 004 section).

Run from the repo root.
"""

import pandas as pd

from simkit import simulate, solve
from simkit.models.fall import Fall, FallDying
from simkit.models.fatigue import Fatigue


def md(df, index=True):
    """A pipe table (pandas' to_markdown needs tabulate, not a simkit dependency)."""
    df = df.reset_index() if index else df
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


heights = ["1.99", "2", "4", "6", "8", "9.99", "10", "11.99", "12"]
levels = [1, 2, 3, 5, 8]


def by_height(columns, cell):
    """One row per height; ``columns`` maps a column name to its model at that height."""
    rows = []
    for h in heights:
        row = {"height (m)": h}
        for name, make in columns.items():
            row[name] = cell(solve(make(h)).probabilities)
        rows.append(row)
    return md(pd.DataFrame(rows), index=False)


def ko_dead(p):
    return f"{p['ko']:.1%} / {p['dead']:.1%}"


print("fall: P(ko) / P(dead), exact, table reading (A4-1), full HP from level")
print(
    by_height(
        {
            f"L{lv} ({Fall(level=lv).max_hp} HP)": (lambda h, lv=lv: Fall(height=h, level=lv))
            for lv in levels
        },
        ko_dead,
    )
)
print(
    "\nfall: P(ko) / P(dead), exact, a faller with that many HP (hp = max HP), "
    "massive damage on (R0-13)"
)
print(
    by_height(
        {
            f"{hp} HP": (lambda h, hp=hp: Fall(height=h, hp=hp, massive_damage=True))
            for hp in (4, 8, 12, 16, 20)
        },
        ko_dead,
    )
)
print("\nfall_dying: P(dead), exact (massive damage on; dying: save +11 vs DC 22)")
print(
    by_height(
        {f"L{lv}": (lambda h, lv=lv: FallDying(height=h, level=lv)) for lv in levels},
        lambda p: f"{p['dead']:.1%}",
    )
)

m = Fatigue()
res = simulate(m, 1_000_000, rng=2026)
surv = res.survival()
wide = surv.pivot(index="time", columns="outcome", values="p")[
    ["dead", "recovered", "exhausted", "active"]
]
ex = surv.pivot(index="time", columns="outcome", values="exact")[["dead", "active"]]
wide["dead (exact)"] = ex["dead"]
wide["active (exact)"] = ex["active"]
print("\nfatigue defaults: cumulative P by day, n=1e6, seed 2026")
print(md(wide.loc[[0, 2, 4, 6, 8, 10, 14, 20, 30]].round(4)))

pen = res.observed["penalty"][[0, 2, 4, 6, 8, 10]] / res.n
print("\nP(still out there with penalty -k) after day t")
print(md(pd.DataFrame(pen, index=pd.Index([0, 2, 4, 6, 8, 10], name="day")).round(3).iloc[:, :13]))

try:
    import matplotlib

    matplotlib.use("Agg")
    from simkit.analysis.plots import survival_curves

    ax = None
    for (label, model), style in zip(
        [
            ("p_food=0.3 (default)", m),
            ("p_food=0.1", m.replace(p_food=0.1)),
            ("care=rescue", m.replace(care="rescue")),
        ],
        ["-", "--", ":"],
    ):
        ax = survival_curves(
            simulate(model, 200_000, rng=1).survival(),
            outcomes=("dead", "recovered"),
            ax=ax,
            label=label,
            linestyle=style,
        )
    ax.legend(frameon=False, fontsize="small", loc="upper left")
    ax.set_title("fatigue: P(dead) and P(rescued) by day, p_sleep=0.5, p_rescue=0.05")
    ax.figure.savefig("docs/fatigue-survival.png", dpi=110, bbox_inches="tight")
except ImportError:
    pass
