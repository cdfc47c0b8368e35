"""Reports of the party model: the designer's numbers, and the threat x level x rules table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.core.stats import confidence_of

__all__ = [
    "CAUSES",
    "MONSTERS_CAPTION",
    "QUICK_LEVELS",
    "QUICK_N",
    "THREAT_LEVELS",
    "changes_text",
    "level_changes",
    "party_summary",
    "run_notes",
    "threat_by_level",
    "threat_by_level_figure",
]

#: Party levels of the standard ``party_threat_by_level`` report: every one, so that a
#: jump between two levels shows (and :func:`level_changes` says why).
THREAT_LEVELS = tuple(range(1, 21))
#: The levels of a quick look (fewer than :data:`QUICK_N` encounters a point: a test's
#: report, where a point costs its fixed ~0.3 s whatever n).
QUICK_LEVELS = (1, 3, 5, 7, 10, 13, 16, 20)
QUICK_N = 2_000

#: Which monsters a party chart assumes, for its caption (AP-19, AP-20).
MONSTERS_CAPTION = (
    "monsters: the benchmark creature of each level (GM Core's creature tables; "
    "area effect calibrated on the bundled bestiary, AP-20)"
)

#: The party's deaths by cause (means of the ``deaths_<cause>`` marks), in stacking order.
CAUSES = (
    ("expected_deaths_in_fight", "in the fight"),
    ("expected_deaths_after_defeat", "after a defeat (slain)"),
    ("expected_deaths_after_fight", "after the fight (care)"),
)

#: The numbers :func:`level_changes` follows: a PC's and a creature's.
PC_STATS = (
    "hp",
    "ac",
    "attack",
    "fort",
    "reflex",
    "will",
    "perception",
    "spell_dc",
    "heals",
    "slots",
)
MONSTER_STATS = ("hp", "ac", "attack", "fort", "reflex", "will", "spell_dc", "recovery_dc")


def party_summary(res, confidence: float = 0.95, *, level: float | None = None) -> pd.DataFrame:
    """The designer's numbers of a party result, one row each.

    Columns ``quantity, kind, count, n, p, ci_low, ci_high`` (Wilson intervals) and ``mean``
    for the averages (with the range-bound interval of
    :func:`simkit.core.result.mean_ci` in ``ci_low``/``ci_high``). Rows: ``any_death``
    (P(at least one PC dies)), ``deaths=k`` for every k, ``defeat``, ``victory``,
    ``retreat``, ``unresolved``, ``knocked_out`` (P(a PC fell to 0 HP)), then every
    event of :meth:`Result.summary` not named above, by the names ``simkit run`` uses
    (``tpk``, ``death:<pc>``: P(that PC dies), deaths by cause, ``won``); means:
    ``expected_deaths``, ``rounds``,
    ``knockouts``, ``hero_spent``, ``heals_spent``. Every row is over all ``n`` tracks:
    marks are recorded when a track ends, so an ``unresolved`` track (none with the
    default horizon) counts as no death (``deaths=0``) and nothing spent, and as the
    horizon in ``rounds``.
    """
    level = confidence_of(confidence, level, "party_summary")
    from simkit.core.result import events_table
    from simkit.core.stats import proportion_ci

    model, n = res.model, res.n

    def mark(name: str) -> np.ndarray:
        """Counts of a mark's values over the tracks that ended (none: no value counted)."""
        counts = res.marks.get(name)
        return np.zeros(1, dtype=np.int64) if counts is None else counts.sum(axis=0)

    deaths = mark("deaths")
    kos = mark("knockouts")
    rows: dict[str, int] = {"any_death": int(deaths[1:].sum())}
    for k in range(model.n_pcs + 1):
        rows[f"deaths={k}"] = int(deaths[k]) if k < len(deaths) else 0
    rows["deaths=0"] += res.counts["unresolved"]  # no death recorded: none counted
    for o in ("victory", "victory_with_deaths", "retreat", "defeat", "unresolved"):
        rows[o] = int(res.counts[o])
    rows["knocked_out"] = int(kos[1:].sum())
    c = np.array(list(rows.values()), dtype=np.int64)
    low, high = proportion_ci(c, n, level, "wilson")
    outcomes = set(res.outcomes)
    df = pd.DataFrame(
        {
            "quantity": list(rows),
            "kind": ["outcome" if q in outcomes else "event" for q in rows],
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
    from simkit.core.result import event_values

    model = res.model
    s = event_values(res, level)

    def pct(q: str) -> str:
        p, lo, hi = s[q]
        return f"{100 * p:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"

    def mean(q: str, digits: int) -> str:
        m, lo, hi = s[q]
        return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"

    from simkit.core.stats import proportion_ci

    unresolved = res.counts["unresolved"]
    lo, hi = proportion_ci(res.counts["defeat"], res.n, level)
    defeat = f"{100 * res['defeat']:.2f}% [{100 * float(lo):.2f}, {100 * float(hi):.2f}]"
    odds = (
        f"P(a PC dies) {pct('any_death')}; expected deaths {mean('expected_deaths', 3)}; "
        f"P(defeat) {defeat}; rounds {s['rounds'][0]:.2f}"
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


def _dice_part(text) -> str:
    """``"2d12+7"`` -> ``"2d12"`` (the dice of a damage, without its bonus)."""
    return str(text).split("+")[0].split("-")[0] if text else ""


def level_changes(
    party: str = "fighter,rogue,cleric,wizard",
    threat: str = "severe",
    lineup: str = "boss",
    levels=THREAT_LEVELS,
) -> pd.DataFrame:
    """What steps between consecutive party levels, from the package's tables.

    For each level ``L`` of ``levels`` after the first, every PC number of
    :func:`simkit.rules.pf2e.pcs.role` and every number of the lineup's first creature
    (:func:`simkit.rules.pf2e.creatures.monster`, via the party model's lineup at
    ``threat``) whose step from ``L - 1`` differs from that number's usual step (its
    median over ``levels``), and a damage whose dice change (a striking rune: 1d12 ->
    2d12). Columns ``level, who, stat, before, after, step, usual``; ``attrs["who"]``: the
    PCs in the party's order, then the creature. A spike in the odds at a level has its
    reason here: at 9 -> 10 the fighter's attack goes +20 -> +23.
    """
    from simkit.models.party import Party
    from simkit.rules.pf2e import pcs

    levels = sorted(set(int(x) for x in levels))
    roles = [r for r, _ in pcs.party_members(party)]
    who: dict[str, list[dict]] = {}
    for L in levels:
        for k, name in enumerate(pc_names_of(roles)):
            st = pcs.role(roles[k], L)
            who.setdefault(name, []).append(
                {**{f: getattr(st, f) for f in PC_STATS}, "damage": _dice_part(st.damage)}
            )
        mo = Party(level=L, threat=threat, lineup=lineup, party=party).fighters.monsters[0]
        who.setdefault(f"{threat} {lineup} (creature)", []).append(
            {
                **{f: getattr(mo, f) for f in MONSTER_STATS},
                "level": mo.level,
                "damage": _dice_part(mo.damage),
            }
        )
    rows = []
    boss = who[f"{threat} {lineup} (creature)"]
    pcs_ = [v for k, v in who.items() if k != f"{threat} {lineup} (creature)"]
    margins = {  # d20 margins of the party against the creature (+1 = 5 points a roll)
        "PCs' strikes (attack - its AC)": [
            float(np.mean([p[j]["attack"] for p in pcs_])) - boss[j]["ac"]
            for j in range(len(levels))
        ],
        "its strikes (attack - PCs' AC)": [
            boss[j]["attack"] - float(np.mean([p[j]["ac"] for p in pcs_]))
            for j in range(len(levels))
        ],
        "its area (DC - PCs' Reflex)": [
            boss[j]["spell_dc"] - float(np.mean([p[j]["reflex"] for p in pcs_]))
            for j in range(len(levels))
        ],
    }
    for name, values in margins.items():
        for j in range(1, len(values)):
            step = round(values[j] - values[j - 1], 2)
            if step:
                rows.append(
                    (
                        levels[j],
                        "margin",
                        name,
                        round(values[j - 1], 2),
                        round(values[j], 2),
                        step,
                        0.0,
                    )
                )
    for name, stats in who.items():
        fields = [f for f in stats[0] if f != "damage"]
        for f in fields:
            values = [s[f] for s in stats]
            if any(v is None for v in values):
                continue
            steps = np.diff(np.asarray(values, dtype=np.int64))
            usual = float(np.median(steps)) if len(steps) else 0.0
            for j, step in enumerate(steps):
                if step != usual:
                    rows.append(
                        (levels[j + 1], name, f, values[j], values[j + 1], int(step), usual)
                    )
        for j in range(1, len(stats)):
            a, b = stats[j - 1]["damage"], stats[j]["damage"]
            if a != b:
                rows.append((levels[j], name, "damage dice", a, b, pd.NA, pd.NA))
    df = pd.DataFrame(rows, columns=["level", "who", "stat", "before", "after", "step", "usual"])
    df = df[df["level"].isin([L for i, L in enumerate(levels) if i and levels[i - 1] == L - 1])]
    df = df.sort_values(["level", "who"], kind="stable").reset_index(drop=True)
    df.attrs["who"] = list(who)  # the PCs in the party's order, then the creature
    return df


def pc_names_of(roles) -> tuple[str, ...]:
    """The PCs' names in events and in :func:`level_changes` (role, or role + index)."""
    from simkit.core.result import pc_names

    return pc_names(roles)


def changes_text(changes: pd.DataFrame, width: int = 58, most: int = 4) -> list[str]:
    """One entry per level of :func:`level_changes`: ``L-1->L: what; what; ...``, the
    steps of the d20 margins first, then the largest steps of attack, AC and damage dice
    (at least one; at most ``most`` parts in all; a tie by the party's order, so at 9 -> 10
    the fighter's attack +20 -> +23 comes first). Wrapped, not cut, at ``width``
    characters: an entry longer than that goes on, indented, on more lines of the same
    entry (joined by newlines)."""
    import textwrap

    order = {w: i for i, w in enumerate(changes.attrs.get("who", ()))}
    out = []
    for L, d in changes.groupby("level", sort=True):
        m = d[d["who"] == "margin"]
        parts = [f"{r.stat.split(' (')[0]} {float(r.step):+g}" for r in m.itertuples()]
        other = d[(d["who"] != "margin") & (d["stat"].isin(["attack", "ac", "damage dice"]))]
        other = other.assign(
            size=pd.to_numeric(other["step"], errors="coerce").abs().fillna(9),
            rank=[order.get(w, len(order)) for w in other["who"]],
        )
        other = other.sort_values(["size", "rank"], ascending=[False, True], kind="stable")
        parts += [
            f"{str(r.who).split(' ')[0] if 'creature' not in r.who else 'creature'} {r.stat} "
            f"{r.before}->{r.after}"
            for r in other.head(max(most - len(parts), 1)).itertuples()
        ]
        head = f"{int(L) - 1}->{int(L)}: "
        lines = textwrap.wrap(
            head + "; ".join(parts),
            width,
            subsequent_indent=" " * len(head),
            break_long_words=False,
            break_on_hyphens=False,
        )
        out.append("\n".join(lines))
    return out


def threat_by_level(
    n: int = 20_000,
    rng: int = 0,
    levels=None,
    threats=("trivial", "low", "moderate", "severe", "extreme"),
    rules=("seed000", "pf2e-core", "seed001"),
    bestiary=(),
    **sweep_options,
) -> pd.DataFrame:
    """P(a PC dies), P(defeat) and deaths by cause of the default party by threat x
    level x rules, against the benchmark boss (``lineup`` column ``boss``) and, at the
    threats of ``bestiary``, against real bundled creatures (``lineup=bestiary``, AP-19; the
    levels whose boss the bundled bestiary covers).

    A sweep (:func:`simkit.sweep`) of the ``party`` model over ``threat``, ``level`` and
    ``rules`` (``levels`` None: every level 1..20, :data:`THREAT_LEVELS`; with fewer
    than :data:`QUICK_N` encounters a point, a quick look, :data:`QUICK_LEVELS`): each
    point's outcome rows, then its events
    (``any_death``, ``tpk``, ``death:<pc>``, ``death_<cause>``... over every track) and
    means (``expected_deaths`` and by cause, ``rounds``..., in the ``mean`` column).
    ``df.attrs["changes"]`` is :func:`level_changes` at the same levels (why the odds
    step between two levels).
    """
    from simkit.analysis.sweep import sweep

    if levels is None:
        levels = THREAT_LEVELS if n >= QUICK_N else QUICK_LEVELS
    grid = {"rules": list(rules), "threat": list(threats), "level": list(levels)}
    df = sweep("party", grid, n=n, rng=rng, **sweep_options)
    df.insert(0, "lineup", "boss")
    if bestiary:
        real = bestiary_sweep(n, rng, levels, bestiary, rules, **sweep_options)
        df = pd.concat([df, real], ignore_index=True)
    df.attrs["changes"] = level_changes(levels=levels)
    return df


def bestiary_sweep(n, rng, levels, threats, rules, **sweep_options) -> pd.DataFrame:
    """:func:`threat_by_level`'s rows against real creatures (``lineup=bestiary``) at
    ``threats``, at the levels whose boss the bundled bestiary covers (AP-19)."""
    from simkit.analysis.sweep import sweep
    from simkit.core.params import ParamError
    from simkit.models.party import Party

    frames = []
    for th in threats:
        covered = []
        for L in levels:
            try:
                Party(level=int(L), threat=th, lineup="bestiary")
            except ParamError:
                continue
            covered.append(int(L))
        if covered:
            grid = {"rules": list(rules), "threat": [th], "level": covered}
            fixed = {"lineup": "bestiary"}
            frames.append(sweep("party", grid, n=n, rng=rng, fixed=fixed, **sweep_options))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(out):
        out.insert(0, "lineup", "bestiary")
    return out


def _real_caption(real: pd.DataFrame, df: pd.DataFrame) -> str:
    """The caption's words on the real creatures' line: what it is, and where it stops
    (a boss above level 21 has no bundled creature, AP-19)."""
    text = ";\nblack dotted: a real bundled creature of the moderate boss's level (lineup=bestiary)"
    shown, every = sorted(set(real["level"])), sorted(set(df["level"]))
    if shown != every:
        text += f", party levels {shown[0]}-{shown[-1]} (the bundled creatures reach level 21)"
    return text


def _defeat_note(df: pd.DataFrame) -> str:
    """A panel's note when its dashed P(defeat) runs on its solid P(a PC dies) (at most 2
    points apart at four in five of its levels and threats): nearly every death there
    follows a defeat."""
    dies = df[df["outcome"] == "any_death"].set_index(["threat", "level"])["p"]
    lost = df[df["outcome"] == "defeat"].set_index(["threat", "level"])["p"]
    gap = (dies - lost).dropna()
    if len(gap) and float((gap.abs() <= 0.02).mean()) >= 0.8:
        return (
            "dashed P(defeat) (hollow dots) runs on\nthe solid lines: nearly every death "
            "here\nfollows a defeat (grey bars below)"
        )
    return ""


def zigzag_text(changes: pd.DataFrame, levels) -> str:
    """Why a party's odds zigzag by level, in words, with this report's largest steps of
    the PCs' strikes against the boss's AC (from :func:`level_changes`)."""
    import textwrap

    head = (
        "The odds follow the d20 margins between the PCs and the boss (+1 = 5 percentage "
        "points on every roll), and PF2e's tables step them unevenly from level to level. "
    )
    m = changes[(changes["who"] == "margin") & changes["stat"].str.startswith("PCs' strikes")]
    if len(m):
        up = m.loc[m["step"].astype(float).idxmax()]
        down = m.loc[m["step"].astype(float).idxmin()]
        head += (
            f"Where the PCs gain (at {int(up['level']) - 1}->{int(up['level'])} their strikes "
            f"{float(up['step']):+g} against its AC) the lines drop; where the boss gains "
            f"({int(down['level']) - 1}->{int(down['level'])}: {float(down['step']):+g}) "
            "they rise. Each level's steps (margins, then the largest steps of attack, AC, "
            "damage dice):"
        )
    else:
        shown = ", ".join(str(v) for v in levels)
        head += (
            f"The levels here ({shown}) are not consecutive, so their steps are not "
            "listed: level_changes() over consecutive levels, or the full report "
            "(levels 1-20), gives each level's steps."
        )
    return "\n".join(textwrap.wrap(head, 62))


def threat_by_level_figure(df: pd.DataFrame, bars_threat: str = "severe"):
    """The party report's figure. Top row, one panel per rule set: P(a PC dies) (solid)
    and P(defeat) (dashed) by level, one colour per threat, with their intervals. Bottom
    row: the expected deaths of ``bars_threat`` (else the last threat) by cause, stacked
    (in the fight, after a defeat, after the fight: they add up to the expected deaths).
    Right: what changes at each level (:func:`level_changes`: the d20 margins of the PCs
    against the creature and the largest steps), so a spike has its reason beside it.
    Returns (figure, the top row's axes)."""
    import matplotlib.pyplot as plt

    real = df[df["lineup"] == "bestiary"] if "lineup" in df else df.iloc[:0]
    df = df[df["lineup"] != "bestiary"] if "lineup" in df else df
    rules = list(dict.fromkeys(df["rules"]))
    threats = list(dict.fromkeys(df["threat"]))
    if bars_threat not in threats:
        bars_threat = threats[-1]
    # laid out by its own engine: the report writes it as it is (no tight_layout warning)
    fig = plt.figure(figsize=(4.0 * len(rules) + 5.2, 7.6), layout="constrained")
    gs = fig.add_gridspec(
        2,
        len(rules) + 1,
        width_ratios=[1.0] * len(rules) + [1.45],
        height_ratios=[1.3, 1.0],
    )
    axes = [fig.add_subplot(gs[0, 0])]
    axes += [fig.add_subplot(gs[0, j], sharey=axes[0]) for j in range(1, len(rules))]
    bars = [fig.add_subplot(gs[1, 0])]
    bars += [fig.add_subplot(gs[1, j], sharey=bars[0]) for j in range(1, len(rules))]
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
                # the dashed line on top, its dots hollow: visible where it runs on the solid
                on_top = outcome == "defeat"
                ax.plot(
                    d["level"],
                    d["p"],
                    style,
                    color=colour,
                    label=label,
                    marker="o",
                    markersize=4.5 if on_top else 3,
                    mfc="white" if on_top else colour,
                    lw=1.2 if on_top else 2.2,
                    alpha=1.0 if on_top else 0.75,
                    zorder=3 if on_top else 2,
                )
                ax.fill_between(d["level"], d["ci_low"], d["ci_high"], color=colour, alpha=0.15)
        for th in dict.fromkeys(real["threat"]):  # real creatures (AP-19): a black line
            d = real[
                (real["rules"] == r) & (real["threat"] == th) & (real["outcome"] == "any_death")
            ].sort_values("level")
            ax.plot(
                d["level"], d["p"], ":", color="black", marker="D", markersize=3.5, lw=1.8,
                label=f"{th}, real creatures: a PC dies", zorder=4,
            )  # fmt: skip
            ax.fill_between(d["level"], d["ci_low"], d["ci_high"], color="black", alpha=0.1)
        ax.set_title(f"rules {r}", fontsize="medium")
        ax.grid(alpha=0.3)
        note = _defeat_note(df[df["rules"] == r])
        if note:
            ax.text(
                0.98, 0.97, note, transform=ax.transAxes, ha="right", va="top",
                fontsize="small", bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9),
            )  # fmt: skip
    axes[0].set_ylabel("probability")
    cause_colours = ("#c0392b", "#7f8c8d", "#e67e22")
    tallest = 0.0  # the highest stack of any panel: the shared y axis holds every bar
    for ax, r in zip(bars, rules):
        bottom = None
        for (name, label), colour in zip(CAUSES, cause_colours):
            d = df[(df["rules"] == r) & (df["threat"] == bars_threat) & (df["outcome"] == name)]
            if d.empty or "mean" not in d:
                continue
            d = d.sort_values("level")
            y = d["mean"].to_numpy(np.float64)
            base = np.zeros(len(y)) if bottom is None else bottom
            ax.bar(d["level"], y, bottom=base, color=colour, label=label, width=0.8)
            bottom = base + y
        if bottom is not None and len(bottom):
            tallest = max(tallest, float(np.nanmax(bottom)))
        ax.set_title(f"rules {r}: deaths by cause, {bars_threat}", fontsize="small")
        ax.set_xlabel("party level")
        ax.grid(alpha=0.3, axis="y")
    if tallest > 0:
        bars[0].set_ylim(0.0, 1.06 * tallest)  # shared: every panel's bars inside
    bars[0].set_ylabel("expected deaths per fight")
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
    side = fig.add_subplot(gs[:, -1])
    side.axis("off")
    changes = df.attrs.get("changes")
    if changes is None:
        changes = level_changes(levels=sorted(set(df["level"])))
    side.text(
        0.0, 1.0, "Why the lines zigzag", fontsize="medium", fontweight="bold",
        va="top", ha="left", transform=side.transAxes,
    )  # fmt: skip
    why = side.text(
        0.0, 0.955, zigzag_text(changes, sorted(set(df["level"]))), fontsize=8.5,
        va="top", ha="left", transform=side.transAxes, linespacing=1.3,
    )  # fmt: skip
    lines = changes_text(changes, width=74, most=3)  # wrapped, never cut
    if lines:  # just under the words (placed from their drawn box)
        side.annotate(
            "\n".join(lines), xy=(0.0, 0.0), xycoords=why, xytext=(0, -6),
            textcoords="offset points", fontsize=7.3, va="top", ha="left", linespacing=1.25,
        )  # fmt: skip
    cause_handles, cause_labels = bars[-1].get_legend_handles_labels()
    side.legend(
        handles + [h for h, _ in extra] + cause_handles,
        labels + [text for _, text in extra] + [f"bars: deaths {c}" for c in cause_labels],
        fontsize="x-small",
        loc="lower left",
        ncol=2,
        frameon=False,
    )
    fig.suptitle(
        "party of four (fighter, rogue, cleric, wizard) vs a boss, by PF2e threat and level\n"
        + MONSTERS_CAPTION
        + (_real_caption(real, df) if len(real) else ""),
        fontsize="medium",
    )
    from matplotlib.ticker import MaxNLocator

    shown = sorted(int(x) for x in set(df["level"]))
    for ax in axes + bars:
        if len(shown) <= 10:  # a few levels: a tick at each, none between
            ax.set_xticks(shown)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in axes[1:] + bars[1:]:
        ax.tick_params(labelleft=False)
    return fig, axes
