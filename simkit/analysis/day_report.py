"""Reports of the day model: the designer's summary and the notes of ``simkit run day``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.core.stats import confidence_of

__all__ = [
    "FIGHTS",
    "QUICK_FIGHTS",
    "QUICK_LEVELS",
    "REPORT_LEVELS",
    "REPORT_N",
    "REPORT_RULES",
    "REPORT_WORKERS",
    "SUMMARY_COLUMNS",
    "TARGET",
    "day_summary",
    "fights_by_level",
    "fights_by_level_figure",
    "run_notes",
]

#: Columns of :func:`day_summary`.
SUMMARY_COLUMNS = (
    "step",
    "step_text",
    "fight",
    "pc",
    "quantity",
    "n",
    "mean",
    "ci_low",
    "ci_high",
    "full",
)
#: At most this many steps in the notes' curve (a longer plan shows its fights).
NOTE_STEPS = 12


def _moments(counts: np.ndarray) -> tuple[int, float, float]:
    """(tracks, mean, variance) of a histogram ``counts[v]`` = tracks with value ``v``."""
    total = int(counts.sum())
    if not total:
        return 0, float("nan"), float("nan")
    v = np.arange(len(counts), dtype=np.float64)
    mean = float((v * counts).sum() / total)
    return total, mean, float(((v - mean) ** 2 * counts).sum() / total)


def day_summary(res, confidence: float = 0.95, *, level: float | None = None) -> pd.DataFrame:
    """What is left at the start of each fight of a day, with intervals.

    One row per fight of the plan and quantity: ``pc="party"``, ``quantity="going"``:
    P(the day is still going at that fight) over every track (``n`` the tracks, Wilson
    interval); then for each PC (its event name, ``fighter`` or ``fighter1``...) over the
    days still going (``n`` of them): ``alive`` (P(it is alive), Wilson), and the means of
    ``hp``, ``slots``, ``heals``, ``hero`` (hero points), ``pp`` (perseverance points) and
    ``pe`` (stamina, seed 001),
    a dead PC counting 0 of each, with the range-bound interval of
    :func:`simkit.core.result.mean_ci` (within ``[0, full]``). ``full`` is what the PC
    starts the day with (1 for ``alive``); a quantity a PC has none of (the fighter's
    slots) or the rules do not use (hero points under ``seed001``, PP under the others)
    is left out. Columns :data:`SUMMARY_COLUMNS`; ``mean`` is NaN at a fight no
    day reached.
    """
    level = confidence_of(confidence, level, "day_summary")
    from simkit.core.result import mean_ci
    from simkit.core.stats import proportion_ci
    from simkit.models.day_outcomes import PC_FIELDS
    from simkit.models.day_plan import FightStep

    model, n, obs = res.model, res.n, res.observed
    start = model.fresh_start(1)
    full_of = {
        "alive": [1] * model.n_pcs,
        **{q: [int(v) for v in getattr(start, q)[0]] for q in PC_FIELDS if q != "alive"},
    }
    unused: tuple[str, ...] = ("pp",) if model.base_party.seed000 else ("hero",)  # R0-10, R1-01
    if not model.base_party.pe_on:  # stamina only under seed001 with pe_damage=pe_first
        unused += ("pe",)
    fights = [t for t, s in enumerate(model.steps, 1) if isinstance(s, FightStep)]
    rows: list[tuple] = []
    for j, t in enumerate(fights, 1):
        text = model.steps[t - 1].text()
        hist = obs.get(f"alive:{model.pc_names[0]}")
        going = int(hist[t - 1].sum()) if hist is not None and len(hist) >= t else 0
        low, high = proportion_ci(going, n, level)
        rows.append((t, text, j, "party", "going", n, going / n, float(low), float(high), 1))
        for k, pc in enumerate(model.pc_names):
            for q in PC_FIELDS:
                full = full_of[q][k]
                if full <= 0 or q in unused:
                    continue
                h = obs.get(f"{q}:{pc}")
                m, mean, var = _moments(h[t - 1]) if h is not None else (0, np.nan, np.nan)
                if not m:
                    rows.append((t, text, j, pc, q, 0, np.nan, np.nan, np.nan, full))
                    continue
                if q == "alive":
                    lo, hi = proportion_ci(round(mean * m), m, level)
                else:
                    lo, hi = mean_ci(mean, var, m, level, upper=full)
                rows.append((t, text, j, pc, q, m, mean, float(lo), float(hi), full))
    df = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    df.attrs.update(model=model.name, seed=res.seed, n=n, plan=model.plan_text)
    return df


def _pct(p: float, lo: float, hi: float) -> str:
    return f"{100 * p:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"


def run_notes(res, level: float = 0.95) -> list[str]:
    """Lines for ``simkit run day`` (on stderr): the party, rules, rest and plan (and
    :attr:`~simkit.models.day.Day.rest_when_note` where ``rest_when`` adds no rest); the
    designer's odds over the day (the table's events and means: P(a PC dies), expected
    deaths, P(defeat)); P(a PC has died) by the end of each step
    (:func:`simkit.models.day.death_by_step`, with intervals; a plan longer than
    :data:`NOTE_STEPS` steps shows its fights, thinned to that many)."""
    from simkit.core.result import event_values
    from simkit.core.stats import proportion_ci
    from simkit.models.day import death_by_step
    from simkit.models.day_plan import FightStep

    model = res.model
    s = event_values(res, level)
    rest = "the published PF2e rest" if model.pf2e_rest else "the seeds' rest"
    plan = model.plan_text
    if len(plan) > 90:
        plan = plan[:80].rsplit(",", 1)[0] + ", ..."
    lo, hi = proportion_ci(res.counts["defeat"], res.n, level)
    m, mlo, mhi = s["expected_deaths"]
    odds = (
        f"P(a PC dies) {_pct(*s['any_death'])}; expected deaths {m:.3f} [{mlo:.3f}, {mhi:.3f}]; "
        f"P(defeat) {_pct(res['defeat'], float(lo), float(hi))}"
    )
    unresolved = res.counts["unresolved"]
    if unresolved:
        odds += f" ({100 * unresolved / res.n:.2f}% unresolved, counted as no death)"
    curve = death_by_step(res, confidence=level)
    shown = np.arange(len(curve))
    if len(shown) > NOTE_STEPS:
        shown = np.array(
            [t - 1 for t, st in enumerate(model.steps, 1) if isinstance(st, FightStep)]
        )
        if len(shown) > NOTE_STEPS:
            shown = shown[np.unique(np.linspace(0, len(shown) - 1, NOTE_STEPS).round().astype(int))]
    by_step = "; ".join(
        f"{r.step} {r.step_text} {_pct(r.p, r.ci_low, r.ci_high)}"
        for r in curve.iloc[shown].itertuples()
    )
    note = model.rest_when_note
    return [
        (
            f"party of {model.n_pcs} at level {model.level} ({model.party}), rules "
            f"{model.rules}, {rest}; plan ({model.horizon} step{'s' * (model.horizon != 1)}): "
            f"{plan}"
        ),
        *([f"note: {note}"] if note else []),
        *rest_notes(res),
        odds,
        f"P(a PC has died) by the end of step: {by_step}",
    ]


def rest_notes(res) -> list[str]:
    """One line for each rest of the plan that changed nothing in any day that reached it
    (the ``rest_changed`` observation of the ``day`` model: HP, PE, PP, slots, heals, hero
    points, wounded, deaths, fatigue), with why where the rules say so: under the seeds'
    rest a short rest heals no HP (R1-09), and Treat Wounds needs a PC with Medicine."""
    from simkit.models.day_plan import RestStep

    model, obs = res.model, res.observed.get("rest_changed")
    if obs is None:
        return []
    out = []
    for t, step in enumerate(model.steps, 1):
        if not isinstance(step, RestStep) or t >= len(obs):
            continue
        reached, changed = int(obs[t].sum()), int(obs[t, 1:].sum())
        if not reached or changed:
            continue
        why = ""
        if step.kind == "short_rest" and not model.pe_rest_on:
            if not model.pf2e_rest:
                why = (
                    ": under the seeds' rest a short rest heals no HP "
                    "(rest_rules=pf2e: Treat Wounds)"
                )
            elif not model.has_medic:
                why = ": no PC has Medicine to Treat Wounds (P-11)"
        out.append(
            f"note: step {t} ({step.text()}) changed nothing in any of the {reached:,} days "
            f"that reached it{why}"
        )
    return out


# -- the standard report: P(a PC dies over the day) by fights x level x rest x rules ------------
#: The numbers of moderate fights of ``day_fights_by_level``.
FIGHTS = tuple(range(1, 9))
#: Its party levels.
REPORT_LEVELS = (1, 5, 10, 15, 20)
#: Its rule sets (one panel each).
REPORT_RULES = ("seed000", "pf2e-core", "seed001")
#: Its days a point (the report: 41 s with 2 workers on a loaded 2-core machine).
REPORT_N = 20_000
#: Worker processes of the standard report.
REPORT_WORKERS = 2
#: A quick look (a test's build): these levels and fights only.
QUICK_LEVELS = (1, 5)
QUICK_FIGHTS = (1, 2, 3)
#: The death rate its sentences calibrate against: "before one day in ten loses a PC".
TARGET = 0.10


def fights_by_level(
    n: int = REPORT_N,
    rng=None,
    *,
    levels=REPORT_LEVELS,
    rules=REPORT_RULES,
    fights=FIGHTS,
    workers: int = 1,
) -> pd.DataFrame:
    """P(a PC dies over the day) by number of moderate fights x level x rest x rules.

    For each rule set, ``between`` (``none``; ``short_rest``: a short rest between two
    fights, under the PF2e rest the played one: Treat Wounds until healed within an hour,
    AP-18) and party level, one run of ``n`` days of ``max(fights)`` moderate fights (the
    ``day`` model, the default party, its seed :func:`~simkit.core.streams.point_seed` of
    the run's seed and the point's parameters); a day of ``K`` fights is its first ``K``
    fights (and the rests between them): every step draws on its own streams for the days
    still going, so those are, track by track, the days a plan of ``K`` fights gives on the
    same seed (a test checks it), and P(a PC dies over a day of ``K`` fights) is
    P(the first death comes by the ``K``-th fight). One row per point and ``K``: the grid
    columns ``rules, between, level, fights``, then ``outcome`` (``any_death``), ``count,
    n, p, ci_low, ci_high`` (Wilson), and the record ``model, seed, point_seed, version,
    params`` (the run's parameters). ``workers``: points in that many processes (the
    numbers do not change).
    """
    import json
    from functools import partial

    from simkit.core.stats import proportion_ci
    from simkit.core.streams import resolve_seed
    from simkit.core.version import __version__

    seed = resolve_seed(rng)
    K = max(int(k) for k in fights)
    points = [
        {"rules": r, "between": b, "level": int(L)}
        for r in rules
        for b in ("none", "short_rest")
        for L in levels
    ]
    run = partial(_first_deaths, n=n, seed=seed, fights=K)
    if workers > 1 and len(points) > 1:
        from simkit.core.pools import shared_pool

        found = list(shared_pool(min(workers, len(points))).map(run, points))
    else:
        found = [run(p) for p in points]
    rows = []
    for point, (params, ps, first) in zip(points, found):
        cum = np.cumsum(first)
        for k in sorted(int(x) for x in fights):
            t = k if point["between"] == "none" else 2 * k - 1  # the k-th fight's step
            count = int(cum[t])
            rows.append(
                {**point, "fights": k, "outcome": "any_death", "count": count, "n": n,
                 "p": count / n, "point_seed": ps, "params": json.dumps(params, sort_keys=True)}
            )  # fmt: skip
    df = pd.DataFrame(rows)
    low, high = proportion_ci(df["count"].to_numpy(), n)
    df.insert(df.columns.get_loc("p") + 1, "ci_low", low)
    df.insert(df.columns.get_loc("p") + 2, "ci_high", high)
    df.insert(df.columns.get_loc("point_seed"), "model", "day")
    df.insert(df.columns.get_loc("point_seed"), "seed", seed)
    df.insert(df.columns.get_loc("params"), "version", __version__)
    return df


def _first_deaths(point: dict, *, n: int, seed: int, fights: int):
    """One point of :func:`fights_by_level`: (its parameters, its seed, the days whose
    first death came at each step: ``[t]``, t = 0..steps, [0] none)."""
    from simkit.core.engine import simulate
    from simkit.core.streams import point_seed
    from simkit.models.day import Day

    params = {**point, "fights": fights, "fight": "moderate"}
    ps = point_seed(seed, params)
    day = Day(**params)
    res = simulate(day, n, ps)
    first = np.zeros(day.horizon + 1, dtype=np.int64)
    got = res.marks["first_death"].sum(axis=0)[: len(first)]  # type: ignore[attr-defined]
    first[: len(got)] = got
    first[0] = 0  # (no death: counted in no step)
    return params, ps, first


def _fights_before(p: pd.Series, target: float = TARGET) -> int:
    """The most fights (index) with P <= target before the first above it (0: none)."""
    k = 0
    for fights, value in p.sort_index().items():
        if value > target:
            break
        k = int(fights)
    return k


def _panel_sentence(d: pd.DataFrame, rule: str, rest_does: str | None) -> str:
    """What one rule set's panel shows (from its ``any_death`` rows): the fights each
    level takes before P(a PC dies) passes :data:`TARGET` (with a short rest between them
    too, where it does something: ``rest_does``, see :func:`_short_rest_does`), the
    spread after four fights, and what a short rest between fights changes (its largest
    effect, in SEs)."""
    p = d.set_index(["between", "level", "fights"])["p"]
    n = int(d["n"].iloc[0])
    levels = sorted(set(d["level"]))
    most = int(d["fights"].max())

    def told(between: str) -> str:
        ks = ((L, _fights_before(p.loc[between, L])) for L in levels)
        return ", ".join(f"{L}: {'none' if k == 0 else f'{k}+' if k == most else k}" for L, k in ks)

    k4 = min(4, most)
    four = p.loc["none"].xs(k4, level="fights")
    none, rest = p.loc["none"], p.loc["short_rest"]
    diff = (rest - none).sort_values()
    se = np.sqrt((none * (1 - none) + rest * (1 - rest)).clip(lower=1 / n) / n)
    z = (diff / se.reindex(diff.index)).abs()
    (L, k), gap = diff.index[0], float(diff.iloc[0])
    fights = f"level: {told('none')}"
    if rest_does and gap < 0 and z.loc[(L, k)] > 3:
        fights += f" (with a short rest between fights: {told('short_rest')})"
        effect = (
            f"a short rest between fights ({rest_does}) lowers it by at most "
            f"{100 * -gap:.1f} points (level {L}, {k} fights)"
        )
    elif rest_does:
        effect = f"a short rest between fights ({rest_does}) changes nothing beyond noise"
    else:
        effect = (
            "the dashed lines (a short rest between fights) are the same days on other dice: "
            f"the seeds' short rest heals no HP (largest gap {100 * float(diff.abs().max()):.1f} "
            "points)"
        )
    return (
        f"{rule}: how many moderate fights keep P(a PC dies) at or under one day in ten, by "
        f"{fights}. After {k4} fights a PC has died in {_share(four.min())} (level "
        f"{int(four.idxmin())}) to {_share(four.max())} (level {int(four.idxmax())}) of "
        f"days without rest; {effect}."
    )


def _panel_caption(d: pd.DataFrame, rest_does: str | None) -> str:
    """A panel's caption, a few short lines (the full sentence is :func:`_panel_sentence`):
    the fights each level takes at or under one day in ten, grouped (``1 at levels 5, 10``),
    and, with a short rest between fights, the same where it differs, else what the rest
    does."""
    p = d.set_index(["between", "level", "fights"])["p"]
    levels = sorted(set(d["level"]))
    most = int(d["fights"].max())

    def grouped(between: str) -> str:
        by: dict[str, list[int]] = {}
        for L in levels:
            k = _fights_before(p.loc[between, L])
            by.setdefault("none" if k == 0 else f"{k}+" if k == most else str(k), []).append(int(L))
        return "; ".join(
            f"{k} at level{'s' if len(v) > 1 else ''} {', '.join(map(str, v))}"
            for k, v in by.items()
        )

    lines = ["most fights with P(a PC dies) \u2264 one day in ten:", f"    {grouped('none')}"]
    rest = grouped("short_rest")
    if rest_does is None:
        lines.append("a short rest heals no HP here: dashed = solid (other dice)")
    elif rest != grouped("none"):
        lines += [f"with a short rest between fights ({rest_does}):", f"    {rest}"]
    else:
        lines.append(f"a short rest between fights ({rest_does}): the same counts")
    import textwrap

    return "\n".join("\n".join(textwrap.wrap(line, 84, subsequent_indent="    ")) for line in lines)


def _short_rest_does(rule: str) -> str | None:
    """What a short rest of the report's day does under ``rule`` (its default rest), in
    words, or None: Treat Wounds (the pf2e rest, P-11), stamina for a PP (seed 001, R1-09
    under ``pe_rest``, A1-8)."""
    from simkit.models.day import Day

    day = Day(rules=rule, fights=2, between="short_rest")  # type: ignore[call-arg]
    played = f"Treat Wounds until healed, {day.short_rest_minutes} min at most"
    does = [played] if day.pf2e_rest else []
    does += ["each PC's stamina back for a PP"] if day.pe_rest_on else []
    return " and ".join(does) or None


def _share(p: float) -> str:
    return f"{100 * p:.0f}%" if p >= 0.1 else f"{100 * p:.1f}%"


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def fights_by_level_figure(df: pd.DataFrame):
    """The ``day_fights_by_level`` chart: (figure, axes, sentences). Top row, one panel per
    rule set: P(a PC dies over the day) by number of moderate fights, one colour per party
    level, solid without rest, dashed with a short rest between fights, shaded 95%
    intervals, the 10% line dotted. Bottom row: the same for the first four fights up to
    30%, where the 10% line is crossed. ``sentences``: one per rule set (computed from
    ``df``; each top panel's title says it in a few short lines, :func:`_panel_caption`).
    ``axes``: the top row, then the bottom."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    rules = list(dict.fromkeys(df["rules"]))
    levels = sorted(set(df["level"]))
    n = int(df["n"].iloc[0])
    d = df[df["outcome"] == "any_death"]
    fig, grid = plt.subplots(
        2,
        len(rules),
        figsize=(5.8 * len(rules), 10.0),
        sharey="row",
        layout="constrained",
        height_ratios=[1.25, 1.0],
        squeeze=False,
    )
    top, zoom = list(grid[0]), list(grid[1])
    colours = plt.get_cmap("viridis")(np.linspace(0.0, 0.88, len(levels)))
    zoom_k = [k for k in sorted(set(d["fights"])) if k <= 4]
    sentences = []
    for ax, bx, rule in zip(top, zoom, rules):
        dr = d[d["rules"] == rule]
        for colour, L in zip(colours, levels):
            for between, style in (("none", "-"), ("short_rest", "--")):
                e = dr[(dr["level"] == L) & (dr["between"] == between)].sort_values("fights")
                for a, part in ((ax, e), (bx, e[e["fights"].isin(zoom_k)])):
                    a.plot(part["fights"], part["p"], style, color=colour, marker="o", ms=3)
                    a.fill_between(
                        part["fights"], part["ci_low"], part["ci_high"], color=colour, alpha=0.12
                    )
        text = _panel_sentence(dr, rule, _short_rest_does(rule))
        sentences.append(text)
        ax.set_title(
            f"rules {rule}\n" + _panel_caption(dr, _short_rest_does(rule)),
            fontsize="small",
            loc="left",
        )
        ax.set_xticks(sorted(set(dr["fights"])))
        ax.set_ylim(-0.02, 1.02)
        bx.set_title(f"rules {rule}: the first fights, up to 30%", fontsize="small", loc="left")
        bx.set_xticks(zoom_k)
        bx.set_ylim(0, 0.3)
        bx.set_xlabel("moderate fights in the day")
        for a in (ax, bx):
            a.axhline(TARGET, color="grey", ls=":", lw=1.2)
            a.grid(alpha=0.3)
    top[0].set_ylabel("P(a PC dies over the day)")
    zoom[0].set_ylabel("P(a PC dies over the day)")
    handles: list = [
        Line2D([], [], color=c, marker="o", ms=3, label=f"level {L}")
        for c, L in zip(colours, levels)
    ]
    handles += [
        Line2D([], [], color="grey", ls="-", label="no rest"),
        Line2D([], [], color="grey", ls="--", label="a short rest between fights"),
        Line2D([], [], color="grey", ls=":", label=f"{_share(TARGET)}: one day in ten"),
        Patch(color="grey", alpha=0.3, label=f"95% interval (n = {n:,} days a point)"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize="small")
    fig.suptitle(
        "An adventuring day of moderate fights: P(a PC dies over the day) by the number of "
        "fights, party level and rest\n(party of four: fighter, rogue, cleric, wizard; each "
        "fight a PF2e moderate boss, the benchmark creature (area effect AP-20);\n"
        "a short rest: under pf2e-core Treat Wounds on every hurt PC until healed, an hour "
        "at most; no HP under the seeds' rest; stamina for a PP "
        "under seed001)",
        fontsize="medium",
    )
    return fig, top + zoom, sentences
