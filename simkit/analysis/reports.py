"""The README's main job: regenerate the standard reports in a folder.

``python -m simkit.analysis.reports reports`` writes, each CSV with its PNG (every CSV is a
sweep table: grid columns, ``outcome, count, n, p, ci_low, ci_high, exact`` and the
``model, seed, point_seed, version, params`` record of each row):

- ``dying_dc_by_level``: seed 000, P(dead) by the source's DC (14..44) x the
  character's level (1..20; a fighter's Fortitude save, :mod:`simkit.rules.pf2e.levels`);
- ``dying_dc_by_save``: the same over DC x raw save bonus;
- ``dying_survival``: P(still dying) and P(dead) by round for three DCs (per-step
  rows, :func:`simkit.analysis.sweep.sweep` with ``survival=True``);
- ``dying_seed_vs_pf2e``: the seed as written against ``pf2e-core`` by level, the
  knock-out coming from a monster of the character's level, with differences and
  tests (:func:`simkit.analysis.compare.compare`);
- once those models are registered: ``agony_con_by_healer`` (the seed-001 chain by
  Constitution and healer), ``fall_height_by_level`` (standing / knocked out / dead
  by height, one panel per level), ``fatigue_*``; and, for any other registered model,
  ``<model>_defaults`` (its final odds as bars and, for a model that runs over time,
  its survival curves up to the step where 99.9% of the tracks have ended);
- ``party_threat_by_level``: the party model's P(a PC dies) and P(defeat) by PF2e threat x
  party level, one panel per rule set (:mod:`simkit.analysis.party_report`).
- ``party_budget_audit``: the encounter budget audited by simulation: P(a PC dies) and
  P(defeat) by threat x party level x lineup template, the measured threat of each lineup
  against the budget's ``boss`` benchmarks, and the bundled creatures as solo bosses at
  their level +2..+4 (:mod:`simkit.analysis.threat`, ``docs/threat.md``; ``AUDIT_N``
  fights a point, party levels 1..20; a build with fewer tracks than ``N`` audits
  ``QUICK_LEVELS`` with ``3 n / 100`` fights a point).
- survival curves for every track model: ``dying_survival`` above,
  ``perseverance_survival`` (round by round, never spending PP, by the helper's Medicine),
  ``agony_survival`` (the recovery stage, hour by hour, where the chain's deaths are, by
  Constitution), ``fatigue_survival`` (day by day, by the daily chance of food),
  ``day_survival`` (a day's plan step by step: P(a PC has died) and P(defeat) by the end
  of each step, seed 000 vs pf2e-core; :func:`day_by_step`), and each ``<model>_defaults``
  below that runs over time;
- ``day_fights_by_level``: P(a PC dies over the day) by number of moderate fights (1..8) x
  party level x a short rest between fights or none, one panel per rule set
  (:mod:`simkit.analysis.day_report`; ``REPORT_N`` days a point, 2 workers; a build with
  fewer tracks than ``N`` takes ``n / 50`` days a point of its ``QUICK_LEVELS`` and
  ``QUICK_FIGHTS`` in this process).

Each report is built as a :class:`Report` (its tables and its matplotlib figure) by
:func:`build_reports`, so that tests can read what a chart shows; :func:`standard_reports`
writes them. Every number comes from ``SEED``: rerunning gives the same files.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd

from simkit.analysis.sweep import sweep, to_csv_text
from simkit.core.io import atomic_write
from simkit.core.params import ParamError, spec

__all__ = [
    "AUDIT_N",
    "DEFAULT_KEYS",
    "QUICK_LEVELS",
    "SEED",
    "N",
    "Report",
    "build_reports",
    "day_by_step",
    "defaults_report",
    "defaults_text",
    "level_pairing",
    "main",
    "standard_reports",
    "write_csv",
]

SEED = 20261129
#: Tracks per grid point of the standard reports.
N = 100_000
#: Fights per point of ``party_budget_audit`` (389 points; docs/threat.md gives the errors).
AUDIT_N = 3000
#: Party levels a quick build (fewer tracks than ``N``) of ``party_budget_audit`` audits.
QUICK_LEVELS = (1, 15)
#: Share of tracks that must have ended before a survival chart's time axis stops.
SETTLED = 0.999


class _HeadlineParams(Mapping):
    """Model name -> the parameters its ``<model>_defaults`` title names
    (``Model.headline_params``, read from the registered model classes)."""

    def __getitem__(self, name: str) -> tuple[str, ...]:
        from simkit.models import REGISTRY

        return REGISTRY[name].headline_params

    def __iter__(self) -> Iterator[str]:
        from simkit.models import REGISTRY

        return iter(REGISTRY)

    def __len__(self) -> int:
        from simkit.models import REGISTRY

        return len(REGISTRY)


#: The defaults a ``<model>_defaults`` title names: a view of ``Model.headline_params``.
DEFAULT_KEYS: Mapping[str, tuple[str, ...]] = _HeadlineParams()

#: What ``none`` means for the parameters whose default is "absent".
_NONE_MEANS = {
    "medic_bonus": "no helper",
    "healer": "no healer",
    "healer_round": "no healer",
    "monster_level": "= level",
    "dc": "22 by default",
    "hit_chance": "no hits",
}


@dataclass
class Report:
    """One standard report: its CSV tables and its figure.

    ``tables`` maps a file suffix (``""`` for ``STEM.csv``, ``"_survival"`` for
    ``STEM_survival.csv``) to a frame; ``figure`` is the matplotlib figure written as
    ``STEM.png``; ``axes`` its data axes (the ones tests read: titles, legends, ranges).
    """

    stem: str
    tables: dict
    figure: object
    axes: list = field(default_factory=list)

    def write(self, out: Path) -> None:
        from matplotlib.layout_engine import ConstrainedLayoutEngine

        from simkit.analysis import plots

        for suffix, df in self.tables.items():
            write_csv(df, out / f"{self.stem}{suffix}.csv")
        fig = self.figure
        if isinstance(getattr(fig, "get_layout_engine", lambda: None)(), ConstrainedLayoutEngine):
            # laid out by its own engine (plots.save's tight_layout would refuse it)
            with atomic_write(out / f"{self.stem}.png", "wb") as fh:
                fig.savefig(fh, format="png", dpi=120)  # type: ignore[attr-defined]
            plots.pyplot().close(fig)
        else:
            plots.save(fig, out / f"{self.stem}.png")


def write_csv(df: pd.DataFrame, path: Path) -> None:
    with atomic_write(path) as fh:
        fh.write(to_csv_text(df))


def _spell(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def defaults_text(cls, keys=None, values=None) -> str:
    """``pp=3, pp_max=6, spend=last, medic_bonus=none (no helper)``: a model's defaults
    (``values``: those that replace a default, with what they are in brackets, see
    :func:`level_pairing`)."""
    s = spec(cls)
    keys = [k for k in (keys or cls.headline_params) if k in s] or [
        k for k in s if k != "max_rounds"
    ][:4]
    values = values or {}
    parts = []
    for k in keys:
        if k in values:
            v, why = values[k]
            parts.append(f"{k}={_spell(v)} ({why})")
            continue
        v = s[k]["default"]
        text = f"{k}={_spell(v)}"
        if v is None and k in _NONE_MEANS:
            text += f" ({_NONE_MEANS[k]})"
        parts.append(text)
    return ", ".join(parts)


def level_pairing(cls) -> dict:
    """For a model that takes a character's ``level`` and a ``save_bonus`` (``fall_dying``:
    the fall's level, the dying track's save), the save of a fighter of the default level
    (:func:`simkit.rules.pf2e.levels.fortitude_save`), as ``{"save_bonus": (value, why)}``:
    its defaults report does not pair a level-1 character with the dying track's default
    save (+11, a level-5 fighter's). ``{}`` for any other model."""
    from simkit.rules.pf2e import levels

    s = spec(cls)
    if "level" not in s or "save_bonus" not in s or s["level"]["default"] is None:
        return {}
    lvl = int(s["level"]["default"])
    save = levels.fortitude_save(lvl)
    return {
        "save_bonus": (
            save,
            f"a level-{lvl} fighter's Fortitude, not the default {s['save_bonus']['default']}",
        )
    }


def _title(ax, title: str) -> None:
    ax.set_title(title, fontsize="medium")


def _dying_dc_by_level(n: int) -> Report:
    from simkit.analysis import plots

    grid = sweep("dying", {"dc": range(14, 45, 2), "level": range(1, 21)}, n, SEED)
    ax = plots.heatmap(grid, "level", "dc")
    _title(
        ax,
        "Seed 000: P(dead) once knocked out, by source DC and level\n"
        "(fighter's Fortitude: expert, master at 9, Con +2 with boosts, resilient runes;\n"
        "no hits while down, no hero points: the dying defaults)",
    )
    return Report("dying_dc_by_level", {"": grid}, ax.figure, [ax])


def _dying_dc_by_save(n: int) -> Report:
    from simkit.analysis import plots

    grid = sweep("dying", {"dc": range(14, 31, 2), "save_bonus": range(0, 21, 2)}, n // 2, SEED)
    ax = plots.heatmap(grid, "save_bonus", "dc")
    _title(
        ax,
        "Seed 000: P(dead) once knocked out, by source DC and save\n"
        "(no hits while down, no hero points: the dying defaults)",
    )
    return Report("dying_dc_by_save", {"": grid}, ax.figure, [ax])


def _dying_survival(n: int) -> Report:
    from simkit.analysis import plots

    surv = sweep(
        "dying",
        {"dc": [18, 22, 26]},
        2 * n,
        SEED,
        fixed={"save_bonus": 11, "max_rounds": 20},
        survival=True,
    )
    ax = plots.survival_sweep(surv, outcomes=("active", "dead"), cut=SETTLED)
    _title(
        ax,
        "Seed 000 dying track, save +11, no hits while down:\n"
        "P(still dying) and P(dead) by round, until 99.9% of the tracks have ended",
    )
    return Report("dying_survival", {"": surv}, ax.figure, [ax])


def _dying_seed_vs_pf2e(n: int) -> Report:
    from simkit.analysis import plots
    from simkit.analysis.compare import compare, variants
    from simkit.rules.pf2e.levels import monster_high_dc

    cmp = compare(
        variants("dying", ("seed", "pf2e-core")),
        {"level": range(1, 21)},
        n,
        SEED,
        fixed={"level_diff": 0},
    )
    plt = plots.pyplot()
    fig, (ax, diff) = plt.subplots(
        2, 1, figsize=(9, 8.2), sharex=True, gridspec_kw={"height_ratios": [1.5, 1]}
    )
    plots.compare_chart(cmp, outcome="dead", x="level", ax=ax, title="")
    # the seed's zigzag: its P(dead) is set by the monster's DC minus the fighter's save
    rows = cmp[(cmp["variant"] == "seed") & (cmp["outcome"] == "dead")].sort_values("level")
    gaps = [
        monster_high_dc(int(m)) - int(b) for m, b in zip(rows["monster_level"], rows["save_bonus"])
    ]
    levels = rows["level"].astype(int).tolist()
    plots.compare_differences(
        cmp,
        outcome="dead",
        x="level",
        ax=diff,
        title="",
        tick_labels={lv: f"{lv}\n{g}" for lv, g in zip(levels, gaps)},
        xlabel="character level\n(under it: the monster's DC \u2212 the fighter's save)",
    )
    ax.set_xlabel("")
    fig.suptitle(
        "P(dead) once knocked out by a monster of the same level: seed 000 (save vs the\n"
        "monster's high DC) vs pf2e-core (flat check DC 10 + dying). The seed's zigzag is that\n"
        "gap: DC \u2212 save 8, 9, 10, 11 give 18%, 24%, 31%, 39%, whatever the level",
        fontsize="medium",
    )
    return Report("dying_seed_vs_pf2e", {"": cmp}, fig, [ax, diff])


def _candidates(cls, wanted: dict) -> dict:
    """The axes of ``wanted`` whose keys the model takes (parameters or sweep keys)."""
    from simkit.analysis.grid import sweep_keys_for

    known = set(spec(cls)) | set(sweep_keys_for(cls))
    return {k: v for k, v in wanted.items() if k in known}


def _grid_report(
    name: str, stem: str, axes: dict, n: int, title: str, outcome: str = "dead", fixed=None
) -> Report | None:
    """A sweep of ``axes`` (two: heatmap; one: line of P(outcome)), ``fixed`` held; None if
    it cannot run."""
    from simkit.analysis import plots
    from simkit.models import REGISTRY

    cls = REGISTRY[name]
    axes = _candidates(cls, axes)
    if not axes:
        return None
    try:
        df = sweep(name, axes, n, SEED, fixed=fixed)
    except ParamError as exc:
        print(f"note: {stem}: {exc}; writing {name}_defaults instead", file=sys.stderr)
        return None
    outcome = outcome if outcome in set(df["outcome"]) else df["outcome"].iloc[0]
    keys = list(axes)
    if len(keys) >= 2:
        where = {k: axes[k][0] for k in keys[2:]}
        ax = plots.heatmap(df, keys[0], keys[1], outcome=outcome, where=where or None)
    else:
        ax = plots.compare_chart(df.assign(variant=name), outcome=outcome, x=keys[0])
    _title(ax, title)
    return Report(stem, {"": df}, ax.figure, [ax])


def _fall_height_by_level(n: int, levels=tuple(range(1, 21))) -> Report | None:
    """Standing / knocked out / dead by height (1..13 m, every metre), one panel for each
    different result over the levels (levels with the same odds share a panel)."""
    from simkit.analysis import plots
    from simkit.models import REGISTRY
    from simkit.models.fall import Fall

    cls = REGISTRY["fall"]
    axes = _candidates(cls, {"height": list(range(1, 14)), "level": list(levels)})
    if set(axes) != {"height", "level"}:
        return None
    df = sweep("fall", axes, n, SEED)

    def panel(values) -> str:
        hps = [Fall(level=int(v)).max_hp for v in values]
        if len(values) == 1:
            return f"level {values[0]} ({hps[0]} HP)"
        return f"levels {values[0]}-{values[-1]} ({min(hps)}-{max(hps)} HP): the same odds"

    fig, axs = plots.stacked_panels(
        df, "height", "level", outcomes=("standing", "ko", "dead"), panel_title=panel, title=""
    )
    fig.suptitle(
        "Seed 004 falls from full HP: standing, knocked out (0 HP) or dead, by height\n"
        f"(Monte Carlo, n = {n:,} a bar; table reading of 8 m (A4-1), no massive damage)",
        fontsize="medium",
    )
    return Report("fall_height_by_level", {"": df}, fig, list(axs))


def _stage_to_plot(surv) -> str | None:
    """The first stage of a survival frame that runs over time (more than one step)."""
    for stage in dict.fromkeys(surv["stage"]):
        if surv.loc[surv["stage"] == stage, "time"].nunique() > 2:
            return stage
    return None


def defaults_report(name: str, n: int) -> Report:
    """A model at its defaults: final odds as bars, beside survival curves if it runs over time."""
    from simkit.analysis import plots
    from simkit.models import REGISTRY

    cls = REGISTRY[name]
    paired = level_pairing(cls)
    fixed = {k: v for k, (v, _) in paired.items()} or None
    df = sweep(name, {}, n, SEED, fixed=fixed)
    surv = sweep(name, {}, n, SEED, survival=True, fixed=fixed)
    stage = _stage_to_plot(surv)
    plt = plots.pyplot()
    if stage is None:
        fig, ax0 = plt.subplots(figsize=(7.5, 5.0))
        axs = [ax0]
    else:
        fig, axs = plt.subplots(1, 2, figsize=(14, 5.4), gridspec_kw={"width_ratios": [1.15, 1.35]})
        axs = list(axs)
    plots.outcome_bars(df, ax=axs[0])
    _title(axs[0], "final outcomes")
    if stage is not None:
        d = surv[surv["stage"] == stage]
        last = d[d["time"] == d["time"].max()]
        happened = [
            o
            for o in dict.fromkeys(d["outcome"])
            if o != "active" and (last.loc[last["outcome"] == o, "p"] > 0).any()
        ]
        plots.survival_curves(
            surv, outcomes=("active", *happened), stage=stage, ax=axs[1], cut=SETTLED
        )
        if stage != surv["stage"].iloc[0]:
            axs[1].set_ylabel(f"probability (of all tracks, {surv['stage'].iloc[0]} included)")
        staged = " (" + stage + ")" if surv["stage"].nunique() > 1 else ""
        unit = str(d["time_unit"].iloc[0])
        _title(axs[1], f"by {unit.removesuffix('s')}{staged}, until 99.9% of the tracks have ended")
    monsters = (  # which monsters a fight's report assumes (AP-19, AP-20)
        "\nmonsters: the benchmark creature of its level (GM Core's tables, area effect "
        "calibrated on the bundled bestiary, AP-20)"
        if name == "party"
        else ""
    )
    fig.suptitle(
        f"{name} at its defaults: {defaults_text(cls, values=paired)}"
        f"{monsters}{_certain_text(df, surv, stage)}",
        fontsize="medium",
    )
    return Report(f"{name}_defaults", {"": df, "_survival": surv}, fig, axs)


def _certain_text(df, surv, stage) -> str:
    """A second title line when the defaults leave nothing to chance (an outcome of exact 1)."""
    sure = df[(df["exact"] == 1)] if "exact" in df else df.iloc[:0]
    if sure.empty:
        return ""
    outcome = str(sure["outcome"].iloc[0])
    when = ""
    if stage is not None:
        d = surv[(surv["stage"] == stage) & (surv["outcome"] == outcome)]
        t = d.loc[d["exact"] >= 1, "time"]
        when = (
            f" at {str(d['time_unit'].iloc[0]).removesuffix('s')} {int(t.min())}" if len(t) else ""
        )
    return (
        f"\nno roll decides it: every track ends {outcome}{when} (the bars are exact, "
        "the curves one step)"
    )


def _probability_params(cls) -> list[str]:
    return [
        k for k, m in spec(cls).items() if m["kind"] == "float" and m["lo"] == 0 and m["hi"] == 1
    ]


def _fatigue(n: int) -> Report | None:
    from simkit.models import REGISTRY

    probs = _probability_params(REGISTRY["fatigue"])[:2]
    if not probs:
        return None
    return _grid_report(
        "fatigue",
        "fatigue_" + "_by_".join(probs),
        {p: [0.0, 0.25, 0.5, 0.75, 1.0] for p in probs},
        n,
        "Seed 004 fatigue and hunger: P(dead) by daily chances\n"
        f"(other defaults: {defaults_text(REGISTRY['fatigue'], ('p_rescue', 'care', 'max_days'))})",
    )


def _perseverance(n: int) -> Report | None:
    """``perseverance_medic_by_pp``: at its defaults every track spends its PP at the last
    chance and ends stable at round 3 (nothing random); the question a designer asks is how
    good a helper must be when the character does not stabilise itself."""
    from simkit.models import REGISTRY

    return _grid_report(
        "perseverance",
        "perseverance_medic_by_pp",
        {"medic_bonus": list(range(0, 13, 2)), "pp": list(range(1, 7))},
        n,
        "Seed 001 agony, never spending PP to stabilise: P(dead)\n"
        "by the helper's Medicine (first aid DC 15 each round) and PP\n"
        f"({defaults_text(REGISTRY['perseverance'], ('pp_max', 'medic_from', 'zero_pp'))})",
        fixed={"spend": "never"},
    )


def _agony(n: int) -> Report | None:
    from simkit.models import REGISTRY

    # the first aid of the agonising rounds (none: none), apart from the hourly checks' healer
    medic = _spell(spec(REGISTRY["agony"]).get("medic_bonus", {}).get("default"))
    return _grid_report(
        "agony",
        "agony_con_by_healer",
        {"con": list(range(-1, 6)), "healer": [None, 0, 3, 6, 9, 12]},
        n,
        "Seed 001, knock-out to waking: P(dead) by Constitution\n"
        "and by the healer of the hourly checks (none: no healer)\n"
        f"(first aid in the agonising rounds: medic_bonus={medic}; "
        f"{defaults_text(REGISTRY['agony'], ('pp', 'spend'))})",
    )


def _survival_report(
    name: str,
    stem: str,
    grid: dict,
    n: int,
    title: str,
    fixed=None,
    stage: str | None = None,
    outcomes=("active", "dead"),
) -> Report | None:
    """Survival curves (``sweep(..., survival=True)``), one per point of ``grid`` (the keys
    the model takes), ``fixed`` held, ``stage`` of a chain (default:
    :func:`~simkit.analysis.plots.frames.survival_stage`); None if the model takes no key."""
    from simkit.analysis import plots
    from simkit.models import REGISTRY

    grid = _candidates(REGISTRY[name], grid)
    if not grid:
        return None
    surv = sweep(name, grid, n, SEED, fixed=fixed, survival=True)
    ax = plots.survival_sweep(surv, outcomes=outcomes, stage=stage, cut=SETTLED)
    _title(ax, title)
    return Report(stem, {"": surv}, ax.figure, [ax])


def _perseverance_survival(n: int) -> Report | None:
    """``perseverance_survival``: the agonising turns round by round, never spending PP to
    stabilise, by the helper's Medicine (at the defaults every track ends stable at round 3)."""
    from simkit.models import REGISTRY

    return _survival_report(
        "perseverance",
        "perseverance_survival",
        {"medic_bonus": [2, 6, 10]},
        n,
        "Seed 001 agony, never spending PP to stabilise, a helper's first aid (DC 15) each round:\n"
        "P(still agonising) and P(dead) by round, by the helper's Medicine bonus\n"
        f"({defaults_text(REGISTRY['perseverance'], ('pp', 'pp_max', 'zero_pp'))})",
        fixed={"spend": "never"},
    )


def _agony_survival(n: int) -> Report | None:
    """``agony_survival``: the chain's recovery stage (the hours after the agonising turns,
    where its deaths are) by Constitution."""
    from simkit.models import REGISTRY

    return _survival_report(
        "agony",
        "agony_survival",
        {"con": [0, 2, 4]},
        n,
        "Seed 001, knock-out to waking: once stable, the hourly Constitution checks,\n"
        "P(still unconscious) and P(dead) by hour, by Constitution (P(still unconscious)\n"
        "halves each hour whatever the Constitution: its three lines are one)\n"
        f"(other defaults: {defaults_text(REGISTRY['agony'], ('pp', 'spend', 'healer'))})",
        stage="stable->recovery",
    )


def _fatigue_survival(n: int) -> Report | None:
    """``fatigue_survival``: day by day, by the daily chance of food."""
    from simkit.models import REGISTRY

    return _survival_report(
        "fatigue",
        "fatigue_survival",
        {"p_food": [0.15, 0.3, 0.6]},
        n,
        "Seed 004 fatigue and hunger: P(still lost) and P(dead) by day,\n"
        "by the daily chance of food\n"
        f"(other defaults: {defaults_text(REGISTRY['fatigue'], ('p_sleep', 'p_rescue', 'care'))})",
    )


#: The plan of ``day_survival``: the tutorial's day (notebooks/05).
DAY_PLAN = "moderate, short_rest, low, long_rest, moderate, short_rest, low"


def day_by_step(n: int, rules=("seed000", "pf2e-core"), plan: str = DAY_PLAN, level: int = 5):
    """A level-``level`` party's day under ``plan``, step by step, for each of ``rules``: a
    tidy frame ``rules, step, step_text, quantity, p, ci_low, ci_high, n`` where
    ``quantity`` is ``any_death`` (a PC has died by the end of the step,
    :func:`simkit.models.day.death_by_step`) or ``defeat`` (the party defeated by then);
    ``n`` days a rule set, each from ``SEED``."""
    from simkit.core.engine import simulate
    from simkit.models import make_model
    from simkit.models.day import death_by_step

    frames = []
    for r in rules:
        model = make_model("day", level=level, rules=r, plan=plan)
        res = simulate(model, n, SEED)
        died = death_by_step(res).assign(quantity="any_death")
        surv = res.survival()
        lost = surv[(surv["outcome"] == "defeat") & (surv["time"] >= 1)]
        lost = lost.assign(
            step=lost["time"].astype(int),
            step_text=[died["step_text"].iloc[t - 1] for t in lost["time"].astype(int)],
            quantity="defeat",
        )
        cols = ["step", "step_text", "quantity", "p", "ci_low", "ci_high"]
        for d in (died[cols], lost[cols]):
            frames.append(d.assign(rules=r, n=n))
    df = pd.concat(frames, ignore_index=True)
    df = df[["rules", "step", "step_text", "quantity", "p", "ci_low", "ci_high", "n"]]
    return df.assign(model="day", seed=SEED, level=level, plan=plan)


def _day_survival(n: int) -> Report:
    """``day_survival``: the tutorial's day step by step (each step named under its number),
    P(a PC has died) and P(defeat) by the end of each step, seed 000's dying rules against the
    published ones."""
    from simkit.analysis import plots

    df = day_by_step(n)
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.6))
    colours = {"seed000": "C0", "pf2e-core": "C3"}
    words = {"any_death": "P(a PC has died)", "defeat": "P(the party defeated)"}
    for (r, q), d in df.groupby(["rules", "quantity"], sort=False):
        style = "-" if q == "any_death" else "--"
        ax.errorbar(
            d["step"] + (0.06 if r == "pf2e-core" else -0.06),
            d["p"],
            yerr=[d["p"] - d["ci_low"], d["ci_high"] - d["p"]],
            color=colours.get(str(r)),
            ls=style,
            marker="o" if q == "any_death" else "s",
            ms=4,
            capsize=3,
            label=f"{r}: {words[str(q)]}",
        )
    steps = df.drop_duplicates("step")
    ax.set_xticks(
        steps["step"],
        [f"{s}\n{t.replace('_', ' ')}" for s, t in zip(steps["step"], steps["step_text"])],
    )
    ax.set_xlabel("by the end of plan step")
    ax.set_ylabel("probability (share of the days)")
    ax.set_ylim(0, None)
    ax.grid(alpha=0.3)
    ax.legend(
        title=f"whiskers: 95% interval, n = {n:,} days a rule set",
        frameon=False,
        fontsize="small",
        title_fontsize="small",
    )
    _title(
        ax,
        "A level-5 party's day (fighter, rogue, cleric, wizard), step by step:\n"
        "seed 000's dying rules vs the published ones (pf2e-core), each with its own rest\n"
        "(pf2e: a short rest is Treat Wounds until healed, an hour at most, AP-18;\n"
        "each fight a moderate boss: the benchmark creature, area effect AP-20)",
    )
    fig.tight_layout()
    return Report("day_survival", {"": df}, fig, [ax])


def _party_threat_by_level(n: int) -> Report:
    """``party_threat_by_level``: P(a PC dies) and P(defeat) by threat x level x rules."""
    from simkit.analysis.party_report import threat_by_level, threat_by_level_figure

    df = threat_by_level(n=n, rng=SEED, bestiary=("moderate",))
    fig, axes = threat_by_level_figure(df)
    return Report("party_threat_by_level", {"": df}, fig, axes)


def _party_budget_audit(n: int) -> Report:
    """``party_budget_audit``: threat x level x template, measured threat, solo creatures."""
    from simkit.analysis.threat import AUDIT_LEVELS, budget_audit, budget_audit_figure

    quick = n < N
    k = max(1, 3 * n // 100) if quick else AUDIT_N
    df = budget_audit(k, SEED, levels=QUICK_LEVELS if quick else AUDIT_LEVELS)
    fig, axes, _ = budget_audit_figure(df)
    return Report("party_budget_audit", {"": df}, fig, axes)


def _day_fights_by_level(n: int) -> Report:
    """``day_fights_by_level``: P(a PC dies over the day) by fights x level x rest x rules."""
    from simkit.analysis import day_report as dr

    if n < N:  # a quick look: fewer levels and fights, in this process
        df = dr.fights_by_level(
            max(1, n // 50), SEED, levels=dr.QUICK_LEVELS, fights=dr.QUICK_FIGHTS
        )
    else:
        df = dr.fights_by_level(dr.REPORT_N, SEED, workers=dr.REPORT_WORKERS)
    fig, axes, _ = dr.fights_by_level_figure(df)
    return Report("day_fights_by_level", {"": df}, fig, axes)


def _plans(n: int) -> Iterator[tuple[str, Callable[[], Report | None]]]:
    """(model, builder) for every standard report, in order; builders run lazily."""
    from simkit.models import REGISTRY

    small = max(1, n // 5)
    if "dying" in REGISTRY:
        for build in (_dying_dc_by_level, _dying_dc_by_save, _dying_survival, _dying_seed_vs_pf2e):
            yield "dying", partial(build, n)
    if "agony" in REGISTRY:
        yield "agony", partial(_or_defaults, _agony, "agony", small)
        yield "agony", partial(_agony_survival, small)
    if "perseverance" in REGISTRY:
        yield "perseverance", partial(_or_defaults, _perseverance, "perseverance", small)
        yield "perseverance", partial(_perseverance_survival, small)
    if "fall" in REGISTRY:
        yield "fall", partial(_or_defaults, _fall_height_by_level, "fall", small)
    if "fatigue" in REGISTRY:
        yield "fatigue", partial(_or_defaults, _fatigue, "fatigue", small)
        yield "fatigue", partial(_fatigue_survival, small)
    if "party" in REGISTRY:
        yield "party", partial(_party_threat_by_level, small)
        yield "party", partial(_party_budget_audit, n)
    if "day" in REGISTRY:
        yield "day", partial(_day_fights_by_level, n)
        yield "day", partial(_day_survival, max(1, n // 5))
    for name in REGISTRY:
        if name not in ("dying", "agony", "perseverance", "fall", "fatigue", "day"):
            yield name, partial(defaults_report, name, small)


def _or_defaults(build: Callable[[int], Report | None], name: str, n: int) -> Report:
    """``build(n)``, or the model's defaults report when its grid cannot run."""
    return build(n) or defaults_report(name, n)


def build_reports(n: int = N, models: list[str] | None = None) -> Iterator[Report]:
    """Each standard report (tables and figure), one at a time; ``models``: only theirs."""
    for model, build in _plans(n):
        if models is None or model in models:
            report = build()
            if report is not None:
                yield report


def standard_reports(out: Path, n: int = N, models: list[str] | None = None) -> list[str]:
    """Write the standard set (``models``: only theirs) into ``out``; the stems written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for report in build_reports(n, models):
        report.write(out)
        written.append(report.stem)
    return written


def main(argv=None) -> int:
    """``python -m simkit.analysis.reports [OUT] [--model NAME ...]``: the standard reports
    (all, or one model's) written into OUT (default ``reports``)."""
    import argparse

    names = list(dict.fromkeys(model for model, _ in _plans(N)))
    parser = argparse.ArgumentParser(
        prog="python -m simkit.analysis.reports",
        description="Regenerate the standard reports (a CSV and a PNG each); "
        "`python3 tasks.py report` runs this into reports/.",
    )
    parser.add_argument("out", nargs="?", default="reports", help="folder (default: reports)")
    parser.add_argument(
        "--model",
        action="append",
        choices=names,
        metavar="NAME",
        help=f"only this model's reports (repeatable): {', '.join(names)}",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    out = Path(args.out)
    t0 = time.perf_counter()
    stems = standard_reports(out, models=args.model)
    for s in stems:
        print(f"wrote {out / s}.csv and {out / s}.png")
    print(f"{len(stems)} reports in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
