"""Measured threat: the band a lineup's simulated danger falls in (issue 21 item 4).

The encounter budget (P-06, :mod:`simkit.rules.pf2e.budget`) says how much XP a lineup
costs; this module says how dangerous it plays. For a party at its level, the
**benchmarks** are the budget's own lineups for each threat (trivial .. extreme, the
``boss`` template by default: one creature of the party's level +0, +1, +2, +3, +4 for
four PCs), fought by the same party under the same options. Each measure (P(a PC dies),
P(defeat)) of a lineup is placed among the benchmarks' values: the **cut point** between
two consecutive threats is the midpoint of their benchmark probabilities; a threat whose
benchmark is not above the band below it by ``z`` standard errors of the difference
(not separated, or lower) joins that band, which is then named by both, e.g.
``"trivial-low"``. ``docs/threat.md`` states the derivation and how to read it.

- :func:`bands`: the cut points of one measure from the benchmarks' counts;
- :func:`measured_threat`: one lineup, its budgeted threat and its measured bands
  (:class:`MeasuredThreat`, with the numbers and their 95% intervals);
- :func:`budget_audit` and :func:`budget_audit_figure`: the standard report
  ``party_budget_audit`` (threat x level x lineup template, and the bundled creatures as
  solo bosses at their level +2..+4).

Every run's seed is the one :func:`simkit.sweep` gives the same point
(:func:`simkit.core.streams.point_seed` of the run's seed and the point's parameters),
so ``measured_threat(Party(level=9, threat="severe"), n, rng=s)`` repeats the audit's
row of that point for the seed ``s``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simkit.rules.pf2e import budget as pf2e_budget

__all__ = [
    "AUDIT_LEVELS",
    "MEASURES",
    "SOLO_OFFSETS",
    "Z",
    "Bands",
    "MeasuredThreat",
    "bands",
    "budget_audit",
    "budget_audit_figure",
    "measured_threat",
    "threat_frame",
    "threat_lines",
    "THREAT_N",
]

THREATS = pf2e_budget.THREATS
#: The measures, by the name of their row (party_summary's quantity) -> how a designer says it.
MEASURES = {"any_death": "P(a PC dies)", "defeat": "P(defeat)"}
#: Standard errors of the difference by which a benchmark must exceed the band below it
#: to have a band of its own (1.96: the 95% level of every interval here).
Z = 1.96
#: Fights a run of ``simkit threat`` (and of the measured-threat line of ``simkit run
#: party``, at most): six runs of it take about a second on one core (bench/bench_threat.py).
THREAT_N = 20_000
#: Party levels of the audit (every level of the PC tables).
AUDIT_LEVELS = tuple(range(1, 21))
#: Levels above the party's at which the audit fights each bundled creature alone (for
#: four PCs: +2 moderate, +3 severe, +4 extreme; Table 10-2).
SOLO_OFFSETS = (2, 3, 4)


@dataclass(frozen=True, slots=True)
class Bands:
    """The measured-threat bands of one measure at one party level.

    ``labels`` are the bands from the safest up (a threat, or threats merged where their
    benchmarks are not separated: ``"trivial-low"``); ``cuts`` the probabilities between
    consecutive bands (one fewer than ``labels``, increasing): the midpoint of the highest
    benchmark of the band below and the lowest of the band above; ``p`` the benchmark
    probability of each threat of ``THREATS``. A probability below ``cuts[0]`` is in the
    first band, one at or above ``cuts[-1]`` in the last (open-ended: "extreme" is
    "like extreme or deadlier")."""

    measure: str
    labels: tuple[str, ...]
    cuts: tuple[float, ...]
    p: tuple[float, ...]

    def band(self, p: float) -> str:
        """The band ``p`` falls in (a probability, 0..1)."""
        return self.labels[bisect_right(self.cuts, float(p))]

    def span(self, label: str) -> tuple[int, int]:
        """First and last index in ``THREATS`` of the threats a band names."""
        names = label.split("-")
        return THREATS.index(names[0]), THREATS.index(names[-1])


def _se(count, n) -> np.ndarray:
    """Plug-in standard error of a binomial proportion (0 at 0 and 1)."""
    n = np.asarray(n, dtype=np.float64)
    p = np.asarray(count, dtype=np.float64) / n
    return np.sqrt(p * (1.0 - p) / n)


def _check_bands(measure, counts, ns, z) -> tuple[np.ndarray, np.ndarray]:
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}; got {measure!r}")
    c = np.asarray(counts, dtype=np.int64)
    n = np.asarray(ns, dtype=np.int64)
    if c.shape != (len(THREATS),) or n.shape != c.shape:
        raise ValueError(f"counts and n must have one value per threat ({len(THREATS)})")
    if (n < 1).any() or (c < 0).any() or (c > n).any():
        raise ValueError("counts must be in [0, n] and n at least 1")
    if not 0 <= float(z) <= 10:
        raise ValueError(f"z must be in [0, 10] standard errors, got {z!r}")
    return c, n


def bands(measure: str, counts: Sequence[int], n: Sequence[int], z: float = Z) -> Bands:
    """The bands of ``measure`` from the benchmarks' counts (one per threat of ``THREATS``,
    of ``n`` fights each).

    A threat starts a band of its own when its benchmark probability exceeds the highest
    of the band below by more than ``z`` standard errors of the difference
    (``sqrt(se1**2 + se2**2)``, plug-in); else it joins that band. The cut between two
    bands is the midpoint of the highest probability below and the lowest above.

    Examples
    --------
    >>> b = bands("any_death", [0, 40, 200, 500, 800], [1000] * 5)
    >>> b.labels, b.cuts
    (('trivial', 'low', 'moderate', 'severe', 'extreme'), (0.02, 0.12, 0.35, 0.65))
    >>> bands("defeat", [0, 1, 3, 30, 90], [1000] * 5).labels
    ('trivial-low-moderate', 'severe', 'extreme')
    """
    c, nn = _check_bands(measure, counts, n, z)
    p = c / nn
    se = _se(c, nn)
    groups: list[list[int]] = [[0]]
    for t in range(1, len(THREATS)):
        top = max(groups[-1], key=lambda i: p[i])
        if p[t] - p[top] > z * np.hypot(se[t], se[top]):
            groups.append([t])
        else:
            groups[-1].append(t)
    labels = tuple("-".join(THREATS[i] for i in g) for g in groups)
    cuts = tuple(
        float((max(p[i] for i in lo) + min(p[i] for i in hi)) / 2)
        for lo, hi in zip(groups, groups[1:])
    )
    return Bands(measure, labels, cuts, tuple(float(x) for x in p))


def shift(label: str, budgeted: str) -> int:
    """Threat steps from ``budgeted`` to a measured band: 0 where the band names it, else
    the signed distance to the nearest threat the band names (+: deadlier than budgeted).
    ``budgeted`` beyond the table (``"beyond extreme"``, ``"unrated"``) counts as extreme."""
    b = THREATS.index(budgeted) if budgeted in THREATS else len(THREATS) - 1
    names = label.split("-")
    lo, hi = THREATS.index(names[0]), THREATS.index(names[-1])
    return 0 if lo <= b <= hi else (lo - b if lo > b else hi - b)


@dataclass(frozen=True, slots=True)
class MeasuredThreat:
    """A lineup's budgeted threat and the bands its simulated danger falls in.

    ``death`` / ``defeat``: the band of P(a PC dies) / P(defeat) (:class:`Bands`);
    ``death_range`` / ``defeat_range``: the bands of the 95% interval's ends (equal to
    the band where the measure is clear of the cuts). ``table``: one row per run (the
    lineup, then the benchmark of each threat) and measure, columns ``run, threat,
    lineup, measure, count, n, p, ci_low, ci_high, band, point_seed``."""

    level: int  # the party's level
    n_pcs: int
    lineup: str  # the lineup's description (Party.describe_lineup)
    template: str  # the benchmarks' lineup template
    budgeted: str  # the threat the budget gives the lineup (Lineup.threat)
    death: str
    defeat: str
    death_range: tuple[str, str]
    defeat_range: tuple[str, str]
    death_bands: Bands
    defeat_bands: Bands
    table: pd.DataFrame
    result: Any = None  # the lineup's run (a simkit Result): its other numbers

    def sentence(self) -> str:
        """One line, e.g. ``"budgeted severe; measured like extreme at level 9 by P(a PC
        dies) 31.2% [30.3, 32.1], like severe by P(defeat) 9.8% [9.2, 10.4]"``."""
        lin = self.table[self.table["run"] == "lineup"].set_index("measure")
        parts = []
        for m, band, rng in (
            ("any_death", self.death, self.death_range),
            ("defeat", self.defeat, self.defeat_range),
        ):
            r = lin.loc[m]
            unsure = "" if rng[0] == rng[1] else f" (interval: {rng[0]} to {rng[1]})"
            parts.append(
                f"like {band} by {MEASURES[m]} {100 * r['p']:.1f}% "
                f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]{unsure}"
            )
        pcs = f"{self.n_pcs} PC" + ("" if self.n_pcs == 1 else "s")
        return (
            f"budgeted {self.budgeted}; measured {parts[0]}, {parts[1]}, at level {self.level} "
            f"for {pcs} (against the {self.template} benchmarks)"
        )


def _check_measured(model, n, template) -> str:
    from simkit.models.party import Party

    if not isinstance(model, Party):
        raise ValueError(
            f"model must be a party model (simkit.models.party.Party), got {type(model).__name__}"
        )
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 10**8:
        raise ValueError(f"n must be an integer in [1, 100000000] fights per run, got {n!r}")
    template = model.lineup if template is None else template
    if template == "bestiary":  # real creatures (AP-19): against the benchmarks of their template
        from simkit.rules.pf2e import bestiary

        template = bestiary.TEMPLATE
    if template not in pf2e_budget.LINEUPS:
        raise ValueError(
            f"template must be one of {', '.join(pf2e_budget.LINEUPS)}; got {template!r}"
        )
    return template


def _seed_of(model, seed: int) -> int:
    """The seed :func:`simkit.sweep` gives this point (its parameters but those declared
    ``seed_neutral`` at their default: :func:`~simkit.core.params.seed_params`)."""
    from simkit.core.params import seed_params
    from simkit.core.streams import point_seed

    return point_seed(seed, {"model": model.name, **seed_params(model)})


def _rows(res, run: str, threat: str, lineup: str, seed: int) -> list[dict]:
    from simkit.analysis.party_report import party_summary

    s = party_summary(res).set_index("quantity")
    return [
        dict(
            run=run,
            threat=threat,
            lineup=lineup,
            measure=m,
            count=int(s.loc[m, "count"]),
            n=int(s.loc[m, "n"]),
            p=float(s.loc[m, "p"]),
            ci_low=float(s.loc[m, "ci_low"]),
            ci_high=float(s.loc[m, "ci_high"]),
            point_seed=seed,
        )
        for m in MEASURES
    ]


def measured_threat(
    model, n: int = 20_000, rng=None, *, template: str | None = None, z: float = Z
) -> MeasuredThreat:
    """The threat band a party lineup's simulated danger falls in.

    Parameters
    ----------
    model : simkit.models.party.Party
        The fight: its party, level, options and lineup (``monsters=`` or a budget's).
    n : int
        Fights per run; six runs (the lineup and one benchmark per threat), fewer where
        the lineup is itself a benchmark (its run is reused). A benchmark's standard
        error is ``sqrt(p (1 - p) / n)``.
    rng : None, int, SeedSequence or Generator
        The seed; each run's stream is the one :func:`simkit.sweep` gives its point.
    template : str, optional
        The benchmarks' lineup template (default: the model's ``lineup``): each benchmark
        is ``model`` with ``threat`` set, that template, and no ``monsters`` or
        ``xp_budget`` (P-06; its XP budget for the party's size and the ``budget`` edition).
    z : float
        Standard errors of the difference that separate two benchmarks (:func:`bands`).

    Returns
    -------
    MeasuredThreat
        The budgeted threat (:attr:`simkit.rules.pf2e.budget.Lineup.threat`), the band of
        each measure (P(a PC dies), P(defeat)) and of its 95% interval's ends, the bands,
        and the numbers.
    """
    from simkit.core.engine import simulate
    from simkit.core.streams import resolve_seed

    template = _check_measured(model, n, template)
    seed = resolve_seed(rng)
    rows: list[dict] = []
    done: dict[object, tuple[Any, int]] = {}
    for t in THREATS:
        bench = model.replace(monsters=None, xp_budget=None, threat=t, lineup=template)
        s = _seed_of(bench, seed)
        res = simulate(bench, int(n), rng=s)
        done[bench] = (res, s)
        rows += _rows(res, "benchmark", t, bench.describe_lineup(notes=False), s)
    budgeted = model.fighters.lineup.threat
    if model in done:
        res, s = done[model]
    else:
        s = _seed_of(model, seed)
        res = simulate(model, int(n), rng=s)
    rows = _rows(res, "lineup", budgeted, model.describe_lineup(notes=False), s) + rows
    table = pd.DataFrame(rows)
    found: dict[str, tuple[Bands, str, tuple[str, str]]] = {}
    for m in MEASURES:
        b = table[(table["run"] == "benchmark") & (table["measure"] == m)]
        bb = bands(m, b["count"].to_numpy(), b["n"].to_numpy(), z)
        lin = table[(table["run"] == "lineup") & (table["measure"] == m)].iloc[0]
        found[m] = (bb, bb.band(lin["p"]), (bb.band(lin["ci_low"]), bb.band(lin["ci_high"])))
    table["band"] = [found[m][0].band(p) for m, p in zip(table["measure"], table["p"])]
    table = table[[*table.columns[:-2], "band", "point_seed"]]
    table.attrs.update(seed=seed, level=model.level, template=template)
    return MeasuredThreat(
        level=model.level,
        n_pcs=model.n_pcs,
        lineup=model.describe_lineup(notes=False),
        template=template,
        budgeted=budgeted,
        death=found["any_death"][1],
        defeat=found["defeat"][1],
        death_range=found["any_death"][2],
        defeat_range=found["defeat"][2],
        death_bands=found["any_death"][0],
        defeat_bands=found["defeat"][0],
        table=table,
        result=res,
    )


#: The measures of :func:`threat_frame`, by row: the name a designer reads.
FRAME_MEASURES = {
    "any_death": "P(a PC dies)",
    "defeat": "P(defeat)",
    "expected_deaths": "expected deaths",
}


def threat_frame(m: MeasuredThreat, confidence: float = 0.95) -> pd.DataFrame:
    """``simkit threat``'s numbers as a tidy frame, one row per measure (P(a PC dies),
    P(defeat), expected deaths).

    Columns: ``level, n_pcs, lineup, xp`` (the lineup's XP, P-07), ``budgeted`` (simkit's
    convention: the highest threat whose budget the XP reaches,
    :func:`simkit.rules.pf2e.budget.threat_of`), ``budgeted_foundry`` (Foundry's: the lowest
    threat whose budget covers it, :func:`~simkit.rules.pf2e.budget.foundry_threat_of`),
    ``measure, name, value, ci_low, ci_high`` (a probability with its Wilson interval, or
    the mean deaths with its interval), ``measured`` (the band of the value among the
    budget's benchmarks; empty for expected deaths), ``measured_low, measured_high`` (the
    bands of the interval's ends), ``n`` (fights a run), ``template``, ``point_seed``.
    """
    from simkit.core.result import event_values

    res = m.result
    if res is None:
        raise ValueError("m must come from measured_threat (its result is missing)")
    lineup = res.model.fighters.lineup
    xp = int(lineup.xp)
    edition = lineup.edition
    s = event_values(res, confidence)
    seed = int(m.table.loc[m.table["run"] == "lineup", "point_seed"].iloc[0])
    rows = []
    lin = m.table[m.table["run"] == "lineup"].set_index("measure")
    for measure, name in FRAME_MEASURES.items():
        if measure in lin.index:  # measured_threat's own numbers
            value, lo, hi = (float(lin.loc[measure, c]) for c in ("p", "ci_low", "ci_high"))
        else:
            value, lo, hi = s[measure]
        band, span = {
            "any_death": (m.death, m.death_range),
            "defeat": (m.defeat, m.defeat_range),
        }.get(measure, ("", ("", "")))
        rows.append(
            dict(
                level=m.level,
                n_pcs=m.n_pcs,
                lineup=m.lineup,
                xp=xp,
                budgeted=pf2e_budget.threat_of(xp, m.n_pcs, edition),
                budgeted_foundry=pf2e_budget.foundry_threat_of(xp, m.n_pcs, edition),
                measure=measure,
                name=name,
                value=value,
                ci_low=lo,
                ci_high=hi,
                measured=band,
                measured_low=span[0],
                measured_high=span[1],
                n=res.n,
                template=m.template,
                point_seed=seed,
            )
        )
    return pd.DataFrame(rows)


def threat_lines(m: MeasuredThreat, frame: pd.DataFrame) -> list[str]:
    """The lines above ``simkit threat``'s table: the lineup and party, the XP against the
    budgets, the budget's threat in both conventions, and the measured threat."""
    model = m.result.model
    edition = model.fighters.lineup.edition
    r = frame.iloc[0]
    budgets = ", ".join(f"{t} {pf2e_budget.xp_budget(t, m.n_pcs, edition)}" for t in THREATS)
    pcs = f"{m.n_pcs} PC" + ("" if m.n_pcs == 1 else "s")
    same = r["budgeted"] == r["budgeted_foundry"]
    foundry = "the same" if same else r["budgeted_foundry"]
    return [
        f"lineup: {m.lineup}; party: {pcs} at level {m.level} ({model.party}), rules {model.rules}",
        f"XP {r['xp']} against the {edition} budgets for {pcs}: {budgets}",
        f"budgeted {r['budgeted']} (simkit: the highest threat whose budget the XP reaches); "
        f"Foundry: {foundry} (the lowest threat whose budget covers it)",
        f"budgeted {r['budgeted']}, measures like {m.death} by P(a PC dies) and like "
        f"{m.defeat} by P(defeat) (against the {m.template} benchmarks at level {m.level}, "
        f"{int(r['n']):,} fights a run)",
    ]


# -- the standard report: party_budget_audit ---------------------------------------------
#: A threat in a heatmap cell: short words a designer reads without a key.
_CELL_WORDS = {
    "trivial": "triv",
    "low": "low",
    "moderate": "mod",
    "severe": "sev",
    "extreme": "ext",
}


def _cell_words(label: str) -> str:
    """``"trivial-low-moderate"`` -> ``"triv–mod"`` (bands not told apart: the first and
    the last), ``"severe"`` -> ``"sev"``."""
    if not label:
        return ""
    parts = label.split("-")
    words = [_CELL_WORDS.get(t, t) for t in (parts[0], parts[-1])]
    return words[0] if len(parts) == 1 else "–".join(words)


def budget_audit(
    n: int = 4000,
    rng=0,
    *,
    levels: Sequence[int] = AUDIT_LEVELS,
    templates: Sequence[str] = pf2e_budget.LINEUPS,
    creatures: Sequence[str] | None = None,
    offsets: Sequence[int] = SOLO_OFFSETS,
    z: float = Z,
) -> pd.DataFrame:
    """The encounter budget audited by simulation: the default party (fighter, rogue,
    cleric, wizard; every default option) against each threat x party level x lineup
    template, and against each bundled creature alone at its level +2..+4 above the
    party's (``creatures``: slugs, default every bundled one; a party level outside
    ``levels`` is skipped).

    A sweep table (:func:`simkit.sweep`: ``lineup, threat, level, outcome, count, n, p,
    ci_low, ci_high, exact, model, seed, point_seed, version, params``) with an
    ``any_death`` row per point and the columns ``monsters`` (the creature fought alone,
    ``lineup`` is then ``"solo"``), ``level_vs_party`` (its level minus the party's),
    ``budgeted`` (the lineup's threat by its XP, :attr:`simkit.rules.pf2e.budget.Lineup.
    threat`), and on the ``any_death`` and ``defeat`` rows ``measured`` (the band of that
    measure against the ``boss`` benchmarks of the same party level, :func:`bands`) and
    ``shift`` (threat steps from budgeted to measured, :func:`shift`). ``boss`` must be
    among ``templates`` (it is the benchmark)."""
    from simkit.analysis.sweep import sweep
    from simkit.rules.pf2e import foundry

    if "boss" not in templates:
        raise ValueError("templates must include boss (the benchmark lineups)")
    levels = [int(v) for v in levels]
    grid = {"lineup": list(templates), "threat": list(THREATS), "level": levels}
    built = sweep("party", grid, n, rng)
    built.insert(1, "monsters", "")
    built.insert(4, "level_vs_party", pd.array([pd.NA] * len(built), dtype="Int64"))
    built["budgeted"] = [
        pf2e_budget.lineup(lin, pf2e_budget.xp_budget(t), lvl).threat
        for lin, t, lvl in zip(built["lineup"], built["threat"], built["level"])
    ]
    frames = [built]
    beasts = foundry.bestiary()
    names = sorted(beasts, key=lambda s: (beasts[s].level, s)) if creatures is None else creatures
    for slug in names:
        c = foundry.bundled(slug)
        at = [c.level - k for k in offsets if c.level - k in levels]
        if not at:
            continue
        d = sweep("party", {"level": at}, n, rng, fixed={"monsters": slug})
        d.insert(0, "lineup", "solo")
        d.insert(1, "monsters", c.slug)
        d.insert(3, "threat", "")
        d.insert(4, "level_vs_party", pd.array(c.level - d["level"], dtype="Int64"))
        d["threat"] = [
            pf2e_budget.threat_of(pf2e_budget.creature_xp(k)) for k in c.level - d["level"]
        ]
        d["budgeted"] = d["threat"]
        frames.append(d)
    df = pd.concat(frames, ignore_index=True)
    from simkit.models.party import Party

    df = df[df["outcome"].isin([*Party.outcomes, "unresolved", "any_death"])]
    cols = ["lineup", "monsters", "threat", "level", "level_vs_party"]
    df = df[cols + [c for c in df.columns if c not in cols]]
    bench = df[(df["lineup"] == "boss") & df["outcome"].isin(list(MEASURES))]
    found: dict[tuple[str, int], Bands] = {}
    for (m, lvl), g in bench.groupby(["outcome", "level"]):
        g = g.set_index("threat").loc[list(THREATS)]
        found[(str(m), int(lvl))] = bands(str(m), g["count"].to_numpy(), g["n"].to_numpy(), z)
    measured, shifts = [], []
    for o, lvl, p, b in zip(df["outcome"], df["level"], df["p"], df["budgeted"]):
        if o in MEASURES:
            band = found[(o, int(lvl))].band(p)
            measured.append(band)
            shifts.append(shift(band, b))
        else:
            measured.append("")
            shifts.append(pd.NA)
    df["measured"] = measured
    df["shift"] = pd.array(shifts, dtype="Int64")
    df.attrs.update(n=n, z=z)
    return df.reset_index(drop=True)


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def _pct(p: float) -> str:
    return f"{100 * p:.0f}%" if p >= 0.1 else f"{100 * p:.1f}%"


def budget_audit_figure(df: pd.DataFrame):
    """The ``party_budget_audit`` chart: (figure, axes, sentences).

    Top row, one panel per template: P(a PC dies) (solid) and P(defeat) (dashed) by party
    level, one colour per threat. Bottom row: the measured threat of the other templates'
    lineups against the ``boss`` benchmarks (rows template x threat, columns level). Right:
    the bundled creatures alone at +2..+4 (rows creature, columns level above the party).
    Each heatmap cell reads the threat the lineup plays like by P(a PC dies) (``triv``,
    ``low``, ``mod``, ``sev``, ``ext``; bands the benchmarks cannot tell apart joined,
    ``triv–low``); its colour, the steps from the budgeted threat (red: deadlier). The band
    by P(defeat) is in the table (``measured`` on the ``defeat`` rows). ``sentences``: one
    per panel, what it shows (computed from ``df``), also under each panel's title."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import BoundaryNorm

    templates = [t for t in dict.fromkeys(df["lineup"]) if t != "solo"]
    n = int(df["n"].iloc[0])
    fig = plt.figure(figsize=(22, 14), layout="constrained")
    gs = fig.add_gridspec(
        2, len(templates) + 1, width_ratios=[1] * len(templates) + [0.9], height_ratios=[1, 1.1]
    )
    line_axes = [fig.add_subplot(gs[0, i]) for i in range(len(templates))]
    heat = fig.add_subplot(gs[1, : len(templates)])
    solo_ax = fig.add_subplot(gs[:, len(templates)])
    colours = plt.get_cmap("viridis")(np.linspace(0.0, 0.9, len(THREATS)))
    sentences = []
    for ax in line_axes[1:]:
        ax.sharey(line_axes[0])
    for ax, tpl in zip(line_axes, templates):
        d = df[df["lineup"] == tpl]
        for colour, th in zip(colours, THREATS):
            for outcome, style in (("any_death", "-"), ("defeat", "--")):
                e = d[(d["threat"] == th) & (d["outcome"] == outcome)].sort_values("level")
                label = f"{th}: a PC dies" if outcome == "any_death" else None
                ax.plot(e["level"], e["p"], style, color=colour, marker="o", ms=2.5, label=label)
                ax.fill_between(e["level"], e["ci_low"], e["ci_high"], color=colour, alpha=0.15)
        dd = d[d["outcome"] == "any_death"].set_index(["threat", "level"])["p"]
        lo, hi = int(d["level"].min()), int(d["level"].max())
        sev = dd.loc["severe"]
        text = (
            f"{tpl}: a PC dies in {_pct(sev.loc[lo])} of severe fights at level {lo} and "
            f"{_pct(sev.loc[hi])} at level {hi} (from {_pct(sev.min())} at level "
            f"{int(sev.idxmin())} to {_pct(sev.max())} at level {int(sev.idxmax())}); "
            f"extreme: {_pct(dd.loc['extreme'].loc[lo])} at level {lo}, "
            f"{_pct(dd.loc['extreme'].loc[hi])} at level {hi}."
        )
        sentences.append(text)
        ax.set_title(f"lineup {tpl}\n" + _wrap(text, 62), fontsize="small", loc="left")
        ax.set_xlabel("party level")
        ax.set_xticks(sorted(set(d["level"])))
        ax.tick_params(axis="x", labelsize="x-small")
        ax.grid(alpha=0.3)
    line_axes[0].set_ylabel("probability (solid: a PC dies; dashed: defeat)")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles, labels = line_axes[-1].get_legend_handles_labels()
    extra = [
        (Line2D([], [], color="grey", ls="-"), "solid: P(a PC dies)"),
        (Line2D([], [], color="grey", ls="--"), "dashed: P(defeat)"),
        (Patch(color="grey", alpha=0.3), f"shaded: 95% interval (n = {n:,} fights a point)"),
    ]
    line_axes[0].legend(  # the boss panel's upper right is empty (high levels, low odds)
        handles + [h for h, _ in extra],
        labels + [t for _, t in extra],
        fontsize="x-small",
        loc="upper right",
    )
    cmap = plt.get_cmap("RdBu_r")
    norm = BoundaryNorm(np.arange(-3.5, 4.5, 1.0), cmap.N)

    def cells(d: pd.DataFrame, rows: list, row_key, col_key, cols: list):
        death = d[d["outcome"] == "any_death"].set_index([row_key, col_key])
        grid = np.full((len(rows), len(cols)), np.nan)
        text = [["" for _ in cols] for _ in rows]
        for i, r in enumerate(rows):
            for j, c in enumerate(cols):
                if (r, c) in death.index:
                    grid[i, j] = float(death.loc[(r, c), "shift"])
                    text[i][j] = _cell_words(death.loc[(r, c), "measured"])
        return grid, text

    def draw(ax, grid, text, size):
        im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="auto")
        for i, row in enumerate(text):
            for j, t in enumerate(row):
                if t:  # white on the two darkest steps each way
                    dark = abs(grid[i, j]) >= 2
                    ax.text(
                        j, i, t, ha="center", va="center", fontsize=size,
                        color="white" if dark else "black",
                    )  # fmt: skip
        return im

    others = [t for t in templates if t != "boss"]
    d = df[df["lineup"].isin(others)].assign(row=lambda x: x["lineup"] + " " + x["threat"])
    rows = [f"{t} {th}" for t in others for th in THREATS]
    lvls = sorted(set(df.loc[df["lineup"] != "solo", "level"]))
    grid, text = cells(d, rows, "row", "level", lvls)
    im = draw(heat, grid, text, 8)
    heat.set_xticks(range(len(lvls)), [str(v) for v in lvls])
    heat.set_yticks(range(len(rows)), rows, fontsize="small")
    heat.set_xlabel("party level")
    g = d[d["outcome"] == "any_death"]
    up, down, total = int((g["shift"] > 0).sum()), int((g["shift"] < 0).sum()), len(g)
    worst = g.loc[g["shift"].astype(float).abs().idxmax()] if total else None
    text_h = (
        f"Against the boss benchmarks of each level, {up} of {total} {' and '.join(others)} "
        f"lineups play deadlier than budgeted by P(a PC dies) and {down} safer"
        + (
            f"; the largest shift: {worst['lineup']} {worst['threat']} at level "
            f"{int(worst['level'])}, budgeted {worst['budgeted']}, measured like "
            f"{worst['measured']}."
            if worst is not None
            else "."
        )
    )
    sentences.append(text_h)
    heat.set_title(
        "measured threat of the other templates: each cell, the threat the lineup plays like "
        "by P(a PC dies) against the boss benchmarks of its level (triv, low, mod, sev, ext; "
        "‘triv–low’: not told apart there);\nits colour, the steps from its "
        "budgeted threat (red: deadlier, blue: safer). " + _wrap(text_h, 150),
        fontsize="small",
        loc="left",
    )
    s = df[df["lineup"] == "solo"]
    beasts = list(dict.fromkeys(s["monsters"]))
    level_of = {
        b: int(
            s.loc[s["monsters"] == b, "level"].iloc[0]
            + s.loc[s["monsters"] == b, "level_vs_party"].iloc[0]
        )
        for b in beasts
    }
    offs = sorted(set(int(v) for v in s["level_vs_party"].dropna()))
    grid, text = cells(s, beasts, "monsters", "level_vs_party", offs)
    draw(solo_ax, grid, text, 8.5)
    budg = {k: pf2e_budget.threat_of(pf2e_budget.creature_xp(k)) for k in offs}
    solo_ax.set_xticks(range(len(offs)), [f"+{k}\n(budget:\n{budg[k]})" for k in offs])
    solo_ax.set_yticks(
        range(len(beasts)), [f"{b} ({level_of[b]})" for b in beasts], fontsize="small"
    )
    solo_ax.set_xlabel("creature level - party level")
    g = s[s["outcome"] == "any_death"]
    up, down, total = int((g["shift"] > 0).sum()), int((g["shift"] < 0).sum()), len(g)
    most = g.loc[g["shift"].astype(float).idxmax()] if total else None
    least = g.loc[g["shift"].astype(float).idxmin()] if total else None
    text_s = (
        f"{up} of {total} solo fights play deadlier than budgeted by P(a PC dies), {down} safer"
    )
    if most is not None and least is not None:
        text_s += (
            f"; deadliest for its budget: {most['monsters']} at +{int(most['level_vs_party'])} "
            f"(budgeted {most['budgeted']}, like {most['measured']}); safest: "
            f"{least['monsters']} at +{int(least['level_vs_party'])} (budgeted "
            f"{least['budgeted']}, like {least['measured']})."
        )
    text_s += (
        " The fight leaves out most of a creature's special abilities (reactions, spells "
        "beyond their DC, gazes; each creature's note lists them), which makes some safer "
        "than at the table."
    )
    sentences.append(text_s)
    solo_ax.set_title(
        "bundled creatures alone (creature level in brackets), each cell read the same way\n"
        + _wrap(text_s, 60),
        fontsize="small",
        loc="left",
    )
    bar = fig.colorbar(im, ax=[heat, solo_ax], location="bottom", shrink=0.5, aspect=40)
    bar.set_ticks(range(-3, 4))
    bar.set_label("threat steps from budgeted to measured by P(a PC dies) (red: deadlier)")
    fig.suptitle(
        "The encounter budget audited by simulation: the default party (fighter, rogue, cleric, "
        "wizard; seed000) by threat, level and lineup\nmonsters: the benchmark creature of each "
        "level (GM Core's tables, area effect calibrated on the bundled bestiary, AP-20); right: "
        "each bundled creature alone; bands calibrated on the boss benchmarks of each level "
        f"(n = {n:,} fights a point)",
        fontsize="medium",
    )
    return fig, [*line_axes, heat, solo_ax], sentences
