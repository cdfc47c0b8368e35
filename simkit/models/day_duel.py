"""Exact day duels: one PC who is not a cleric through a plan (seed 000, pf2e-core).

A ``day`` whose party is one PC without heals or Medicine (no cleric), whose every fight
is one monster (:func:`simkit.models.party_duel.duel_supported`; or none, a budget that
buys no creature: won at once unless the PC is down) and whose dying system
is ``seed000`` or ``pf2e-core`` is a finite absorbing chain over (plan step, PC HP, hero
points, spell slots, wounded, monster HP, dying state). :func:`day_duel_hist` pushes the
exact distribution of the PC's carried state through the plan, step by step, as the
Monte Carlo day (:mod:`simkit.models.day`) applies each step:

- **a fight** is the exact duel (:mod:`simkit.models.party_duel`) from each reachable
  start ``(HP, hero points, slots)``, the monster fresh, at the step's check penalty (the
  day's ``check_penalty`` plus the fatigue of R4-03); one round a step up to
  ``max_rounds`` (the mass still fighting then is ``unresolved``), a victory handing on
  the PC's end state (``duel_step(..., ends=True)``). The reachable starts are pushed
  through the rounds together on the duel's grid (:mod:`simkit.models.duel_grid`). A PC
  alive at 0 HP (stable after a fall) starts the fight down: a defeat, as is a PC
  exhausted by fatigue (R4-04).
- **a short rest** heals no one (no PC has Medicine: P-11 needs a healer; the seeds'
  rest heals only at night); the wounded condition ends at full HP (A0-2).
- **a long rest or a day in bed**: HP by :func:`simkit.rules.rest.hp_after_rest`
  (R1-10) or :func:`simkit.rules.pf2e.rest.night_rest_hp` (P-12), slots back, hero
  points back under ``hero_refresh=long_rest``, a night's sleep and a meal for the
  fatigue counters (R4-06), wounded ended at full HP.
- **R0-08's wake-up** (``wake_after``, AP-39): a PC stable at 0 HP (after a fall) wakes
  at 1 HP at the end of a rest or a day on the road at least that long
  (:func:`simkit.models.day_plan.woken`), as the Monte Carlo day does; by default
  (``long_rest``) only a long or bed rest's healing wakes it.
- **the road**: the fatigue counters of :func:`simkit.rules.fatigue_day.day_chain`, each
  step's events as the day reads them (:data:`simkit.models.day_plan.ROAD_EVENTS`)
  (deterministic: every living track of a plan step shares them); dead after three days
  unconscious (R4-05).
- **a fall** (R4-07, :func:`simkit.rules.fall.fall_cells`; R0-13 massive damage): dead,
  stable at 0 HP (10 to 12 m), or the damage; a PC knocked out by it follows the dying
  rules until stable, revived by a hero point or dead (the party's care with no
  monster, AP-7; R0-03..R0-10 through :func:`simkit.rules.dying_turn.turn_table`, with
  the PC's PF2e options P-13..P-15, AP-32), the recovery DC that of a creature of the
  party's level (R0-06), for at most ``max_rounds`` rounds (a care cut there ends the
  day ``unresolved``).

With one PC a death ends the day (every PC dead: ``defeat``), so the outcomes are
``survived`` (at the plan's last step), ``defeat`` (at the step it happened) and
``unresolved``; ``survived_with_deaths`` and ``retreat`` have probability 0.

The chain is refused (:class:`~simkit.core.exact.ExactTooLarge`) when one fight's duel
needs more than :data:`~simkit.models.party_duel.DUEL_MAX_CELLS` cells or the plan's
distinct fights (lineup, check penalty) more than :data:`DAY_DUEL_MAX_CELLS` together
(:func:`day_duel_cells`; the message gives their chain states too, :func:`day_duel_states`).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from functools import lru_cache

import numpy as np

from simkit.core.exact import ExactTooLarge
from simkit.models.day_plan import (
    FallStep,
    FightStep,
    RestStep,
    RoadStep,
    fatigue_exhausted,
    fatigue_next,
    fatigue_penalty,
    woken,
)
from simkit.models.downed_rule import EFFECTS, pc_table
from simkit.models.duel_grid import duel_grid
from simkit.models.party import Party
from simkit.models.party_duel import (
    DUEL_MAX_CELLS,
    duel_cells,
    duel_refusal,
    duel_states,
    wounds,
)
from simkit.rules import fall, hero_points
from simkit.rules.dying_damage import knockout_value, wounded_after_losing
from simkit.rules.dying_turn import turn_table
from simkit.rules.fall import FALL_EDGES, fall_cells
from simkit.rules.heights import parse_heights
from simkit.rules.pf2e.rest import night_rest_hp
from simkit.rules.recovery_check import kept_roll
from simkit.rules.rest import hp_after_rest

__all__ = [
    "DAY_DUEL_MAX_CELLS",
    "DAY_DUEL_MAX_STATES",
    "day_duel_cells",
    "day_duel_hist",
    "day_duel_refusal",
    "day_duel_states",
    "day_duel_supported",
]

#: Plans whose distinct fights need more solver cells than this together are refused (a
#: bound on the time: each fight is one grid at a time, :mod:`simkit.models.duel_grid`).
DAY_DUEL_MAX_CELLS = 100_000_000
#: The former bound on the fights' chain states together (kept for compatibility: the
#: bound is now on the cells, :data:`DAY_DUEL_MAX_CELLS`).
DAY_DUEL_MAX_STATES = DAY_DUEL_MAX_CELLS
#: The dying systems of an exact day duel.
_SYSTEMS = ("seed000", "pf2e-core")
_DEAD = "dead"  # a care's outcome: the PC died
_End = tuple[int, int, int] | str  # a care's end: the PC's (hp, hero, wounded), or dead


# -- which days, and how large -------------------------------------------------------------------
@lru_cache(maxsize=256)
def _fight_rules(day, step: FightStep) -> Party:
    """The party of fight ``step`` (:meth:`simkit.models.day.Day.fight_rules`)."""
    return day.fight_rules(step)


@lru_cache(maxsize=256)
def _duel_rules(day, step: FightStep, pen: int) -> Party:
    """The fight of ``step`` at check penalty ``pen`` (P-10, R4-03)."""
    rules = _fight_rules(day, step)
    return rules if rules.check_penalty == pen else dataclasses.replace(rules, check_penalty=pen)


@lru_cache(maxsize=64)
def _care_rules(day) -> Party:
    """The care outside a fight (AP-7, no monster; :meth:`simkit.models.day.Day.care_rules`):
    recovery DC of a creature of the party's level (R0-06)."""
    return day.care_rules()


def day_duel_supported(day) -> bool:
    """Whether ``day`` is an exact day duel: one PC who is not a cleric (no heals, no
    Medicine), rules seed000 or pf2e-core, one monster (or none) in every fight (R0-08's
    wake-up, ``wake_after``, as the day reads it, AP-39); PF2e's options (AP-26, AP-32) in
    its fights and in the care after a fall (P-13..P-15), a hero point's reroll (P-16) only
    in a plan without falls (the care has no rerolls). Slowed (R0-04) changes
    nothing here (a lone PC wakes in a fight only by a hero point at its knock-out, dying 0;
    slowed is not carried from a fall's care to the next fight); temporary HP (R0-14) are
    the first fight's when it is the plan's first step (a fresh start, AP-23). A custom
    track at 0 HP (``dying=``, or the PC's own) is played in the care after a fall (AP-32);
    a grant of temporary HP is not (:attr:`Party.beyond_duels`)."""
    return day_duel_refusal(day) is None


def day_duel_refusal(day) -> str | None:
    """Why ``day`` is not an exact day duel, in a few words (None when it is one:
    :func:`day_duel_supported`)."""
    if getattr(day, "rules") not in _SYSTEMS:
        return f"rules={getattr(day, 'rules')}; a day duel is under seed000 or pf2e-core"
    if any(isinstance(s, FallStep) for s in day.steps) and day.base_party.pf2e_of(0)["rerolls"]:
        return "hero_use=reroll with a fall (the care after it has no rerolls, AP-32)"
    pcs = day.base_party.fighters.pcs
    if len(pcs) != 1:
        return f"{len(pcs)} PCs; a day duel is one PC"
    if getattr(pcs[0], "grant_temp_hp", 0):
        return "a PC's grant of temporary HP (grant_temp_hp, AP-37: solved in a party duel only)"
    if pcs[0].heal is not None or pcs[0].medicine is not None:
        return "a PC who heals or has Medicine; a day duel's PC has neither"
    for step in day.steps:
        if isinstance(step, FightStep):
            r = _fight_rules(day, step)
            why = None if _no_monster(r) else duel_refusal(r)
            if why is not None:
                return f"fight {step.text()!r}: {why}"
    return None


def _no_monster(r: Party) -> bool:
    """A fight whose budget buys no creature (a low threat for one PC): won at once."""
    return not r.fighters.monsters


def _road(fat: int, kind: str) -> tuple[int, bool]:
    """The fatigue state after a day ``kind`` (a road step or ``rest``) and whether the
    PC died (R4-05): the rule's table (:func:`simkit.rules.fatigue_day.day_chain`)."""
    nxt, dead = fatigue_next(fat, kind)
    return int(nxt), bool(dead)


def _penalty(day, fat: int) -> int:
    """The check penalty of the PC's d20s at fatigue state ``fat`` (R4-03, P-10)."""
    return int(fatigue_penalty(int(getattr(day, "check_penalty")), fat))


def _exhausted(fat: int) -> bool:
    """Unconscious from fatigue (R4-04): the PC cannot fight."""
    return bool(fatigue_exhausted(fat))


def _fights(day) -> list[tuple[FightStep, int]]:
    """The plan's fights as (step, check penalty), the exhausted ones left out."""
    out = []
    fat = 0
    for step in day.steps:
        if isinstance(step, FightStep):
            if not _exhausted(fat):
                out.append((step, _penalty(day, fat)))
        elif isinstance(step, RoadStep):
            fat = _road(fat, step.kind)[0]
        elif isinstance(step, RestStep) and step.kind != "short_rest":
            fat = _road(fat, "rest")[0]
    return out


def _duels(day) -> list[Party]:
    """The plan's distinct fights with a monster (lineup and check penalty)."""
    rules = {_duel_rules(day, s, pen) for s, pen in _fights(day)}
    return [r for r in rules if not _no_monster(r)]


def day_duel_states(day) -> tuple[int, int]:
    """``(total, largest)``: upper bounds on the transient states of the plan's distinct
    fights (lineup and check penalty) together, and of its largest
    (:func:`simkit.models.party_duel.duel_states`)."""
    counts = [duel_states(r) for r in _duels(day)] or [0]
    return sum(counts), max(counts)


def day_duel_cells(day) -> tuple[int, int]:
    """``(total, largest)``: the solver cells of the plan's distinct fights together, and of
    its largest (:func:`simkit.models.party_duel.duel_cells`)."""
    counts = [duel_cells(r) for r in _duels(day)] or [0]
    return sum(counts), max(counts)


def _check_size(day) -> None:
    total, largest = day_duel_cells(day)
    states, most = day_duel_states(day)
    if largest > DUEL_MAX_CELLS:
        raise ExactTooLarge(
            f"the exact day duel has a fight of up to {most} states that needs {largest} "
            f"cells (more than {DUEL_MAX_CELLS} a fight); use Monte Carlo (simkit run day ...)"
        )
    if total > DAY_DUEL_MAX_CELLS:
        raise ExactTooLarge(
            f"the exact day duel has up to {states} states over its fights, {total} cells "
            f"(more than {DAY_DUEL_MAX_CELLS}); use Monte Carlo (simkit run day ...)"
        )


# -- the day ---------------------------------------------------------------------------------
def day_duel_hist(day) -> np.ndarray:
    """Exact P(the day ends in each outcome at each plan step): shape (outcomes, steps + 1).

    Rows in ``day.outcomes`` order; ``unresolved`` (a fight still going at
    ``max_rounds``) is the mass missing from the total. Raises
    :class:`~simkit.core.exact.ExactTooLarge` for plans too large (one line with the
    state count) and NotImplementedError when ``day`` is not a day duel.
    """
    if not day_duel_supported(day):
        raise NotImplementedError(
            "day: exact only for day duels (one PC who is not a cleric, one monster a "
            "fight, rules seed000 or pf2e-core)"
        )
    _check_size(day)
    steps = day.steps
    T = len(steps)
    outcomes = tuple(day.outcomes)
    survived, defeat = outcomes.index("survived"), outcomes.index("defeat")
    hist = np.zeros((len(outcomes), T + 1))
    pc = day.base_party.fighters.pcs[0]
    # the PC's carried state: (hp, hero, slots, wounded) -> p (alive, day still going)
    dist: dict = {(pc.hp, int(getattr(day, "hero_points")), pc.slots, 0): 1.0}
    fat = 0  # the fatigue state (the same for every living track at a step)
    for t, step in enumerate(steps, 1):
        if not dist:
            break
        lost = 0.0
        if isinstance(step, FightStep):
            if _exhausted(fat):  # R4-04: a defeat (after_defeat)
                lost, dist = sum(dist.values()), {}
            else:
                dist, lost = _fight(_duel_rules(day, step, _penalty(day, fat)), dist, t == 1)
        elif isinstance(step, RestStep):
            dist, fat, lost = _rest(day, step.kind, dist, fat)
            dist = _woken(day, step, dist)
        elif isinstance(step, RoadStep):
            fat, died = _road(fat, step.kind)
            if died:
                lost, dist = sum(dist.values()), {}
            dist = _woken(day, step, dist)
        elif isinstance(step, FallStep):
            dist, lost = _fall(day, step, dist, _penalty(day, fat))
        hist[defeat, t] = lost
    hist[survived, T] += sum(dist.values())
    return hist


def _rest(day, kind: str, dist: dict, fat: int) -> tuple[dict, int, float]:
    """A rest (see the module docstring): (the new distribution, fatigue state, P(died))."""
    pc = day.base_party.fighters.pcs[0]
    hp_max = pc.hp
    lost = 0.0
    if kind != "short_rest":
        bed = kind == "bed_rest"
        level = int(getattr(day, "level"))
        refresh = getattr(day, "hero_refresh") == "long_rest"
        fat, died = _road(fat, "rest")
        if died:
            return {}, fat, sum(dist.values())
        out: dict = defaultdict(float)
        for (hp, hero, _slots, w), p in dist.items():
            if day.pf2e_rest:
                new = int(night_rest_hp(hp, hp_max, pc.con, level, bed))
            else:
                new = int(hp_after_rest(hp, hp_max, level, rest="bed" if bed else "night"))
            hero = int(getattr(day, "hero_points")) if refresh else hero
            out[(new, hero, pc.slots, w)] += p
        dist = out
    # wounded ends at full HP after a rest (A0-2, the published rule)
    ended: dict = defaultdict(float)
    for (hp, hero, slots, w), p in dist.items():
        ended[(hp, hero, slots, 0 if hp == hp_max else w)] += p
    return dict(ended), fat, lost


def _woken(day, step, dist: dict) -> dict:
    """R0-08's wake-up as ``wake_after`` reads it (:func:`simkit.models.day_plan.woken`): at
    the end of a step at least that long, a PC alive at 0 HP (stable: between steps no PC
    is dying) wakes at 1 HP."""
    if not woken(day.wake_after, step, day.short_rest_minutes):
        return dist
    out: dict = defaultdict(float)
    for (hp, hero, slots, w), p in dist.items():
        out[(max(hp, 1), hero, slots, w)] += p
    return dict(out)


def _fall(day, step: FallStep, dist: dict, pen: int) -> tuple[dict, float]:
    """A fall of the PC (R4-07, R0-13; the one living PC under ``fall(H, one)``)."""
    hp_max = day.base_party.fighters.pcs[0].hp
    probs = parse_heights(step.height).band_probabilities(FALL_EDGES)
    cells = fall_cells(probs, hp=10**6, hp_max=10**6)  # the dice's totals by band
    out: dict = defaultdict(float)
    lost = 0.0
    for (hp, hero, slots, w), p in dist.items():
        for q, _code, total, band in cells:
            pq = p * q
            code, damage = fall.fall_result(
                band, total, hp=hp, hp_max=hp_max, massive_damage=True, band_ko=fall.STABLE
            )
            if code == fall.DEAD:
                lost += pq
            elif code == fall.STABLE:  # 10 to 12 m: 0 HP, stable (no HP deterioration)
                out[(0, hero, slots, w)] += pq
            elif code == fall.KO:
                for r, end in _care(day, hero, w, pen):  # knocked out: the dying rules
                    if isinstance(end, str):  # dead
                        lost += pq * r
                    else:
                        h2, he2, w2 = end
                        out[(h2, he2, slots, w2)] += pq * r
            else:
                out[(hp - damage, hero, slots, w)] += pq
    return dict(out), lost


@lru_cache(maxsize=1024)
def _care(day, hero: int, wounded: int, pen: int) -> tuple[tuple[float, _End], ...]:
    """The PC knocked out outside a fight, dying until stable, revived or dead (the
    party's care with no monster, AP-7): ``((p, end), ...)``, ``end`` ``"dead"`` or the
    PC's ``(hp, hero, wounded)`` after it; the mass still dying after ``max_rounds``
    rounds is left out (the day ends ``unresolved``)."""
    r = _care_rules(day)
    pc = r.fighters.pcs[0]
    opts = r.dying_options
    wounded_rule = bool(opts.get("wounded_rule", False))
    revive = opts.get("hero_effect", "revive") == "revive"
    if r.trait == "death":  # R0-12
        return ((1.0, _DEAD),)
    if r.trait == "nonlethal":  # R0-02: stable at 0 HP
        return ((1.0, (0, hero, wounded)),)
    table = pc_table(r, 0, pen)  # (the PC's own track, else the day's)
    if table is not None:  # a custom track at 0 HP (dying=, AP-32)
        return _custom_care(table, hero, wounded, r.max_rounds)
    ends: dict = defaultdict(float)

    def stable(p: float) -> None:  # R0-08 (A0-2: wounded + 1)
        ends[(0, hero, wounded_after_losing(wounded, wounded_rule))] += p

    def hero_spent(p: float) -> None:  # R0-10: revive at 1 HP, or stable spending all
        if revive:
            ends[(1, hero - 1, wounded_after_losing(wounded, wounded_rule))] += p
        else:
            ends[(0, 0, wounded)] += p

    own = r.pf2e_of(0)  # P-13..P-15: the PC's death value, hero threshold, check, d20s
    threshold = own["threshold"] if hero > 0 else None
    gain = knockout_value(start=r.start_dying, wounded=wounded, wounded_rule=wounded_rule)
    res = hero_points.rise(
        0,
        gain,
        threshold=threshold,
        death_at=own["death_at"],
        knockout=True,
        hero_knockout=r.hero_knockout,
    )
    dying: dict[int, float] = {}
    if res == hero_points.STABLE:
        stable(1.0)
    elif res == hero_points.HERO:
        hero_spent(1.0)
    elif res == hero_points.DEAD:
        ends[_DEAD] += 1.0
    else:
        dying = {gain: 1.0}
    # one recovery check a round (R0-05..R0-08; Fortitude + penalty against the DC)
    margin = pc.fort + pen - r.start_dc
    check, death_at = opts.get("check", "save"), own["death_at"]
    table = turn_table(
        check, margin, death_at, own["threshold"], r.hero_knockout, own["toughness"]
    ).reshape(2, death_at, 20)[int(hero > 0)]
    weight = _roll_weights(own["fortune"])
    for _ in range(r.max_rounds):
        if not dying:
            break
        nxt: dict[int, float] = defaultdict(float)
        for d, p in dying.items():
            for value, w in zip(table[d].tolist(), weight, strict=True):
                q = p * w
                if value >= 1:
                    nxt[value] += q
                elif value == 0:
                    stable(q)
                elif value == -1:
                    hero_spent(q)
                else:
                    ends[_DEAD] += q
        dying = nxt
    # (the mass still dying after max_rounds rounds: the day ends unresolved)
    return tuple((p, end) for end, p in ends.items())


def _custom_care(table, hero: int, wounded: int, rounds: int) -> tuple[tuple[float, _End], ...]:
    """:func:`_care` on a custom track at 0 HP (``dying=``,
    :class:`simkit.models.downed_rule.FightTable`): from its start, one equally likely face
    a round (the track's turn) for at most ``rounds`` rounds; dead, stable at 0 HP or
    revived at 1 HP (hero points and the wounded value are the seed-000 track's: kept as
    they are)."""
    dead, stable, revived = (-1 - EFFECTS.index(e) for e in ("dead", "stable", "revived"))
    ends: dict = defaultdict(float)
    dist: dict[int, float] = {int(table.start): 1.0}
    faces = len(table.rolls)
    for step in range(rounds + 1):
        nxt: dict[int, float] = defaultdict(float)
        for code, p in dist.items():
            if code == dead:
                ends[_DEAD] += p
            elif code == stable:
                ends[(0, hero, wounded)] += p
            elif code == revived:
                ends[(1, hero, wounded)] += p
            elif step < rounds:  # (still on the track: its turn)
                for face in range(faces):
                    nxt[int(table.next[code, face])] += p / faces
        dist = nxt
        if not dist:
            break
    # (the mass still on the track after ``rounds`` rounds: the day ends unresolved)
    return tuple((p, end) for end, p in ends.items())


@lru_cache(maxsize=4)
def _roll_weights(fortune: str) -> tuple[float, ...]:
    """P(the recovery check keeps each natural d20, 1..20): 1/20 each, or under P-15's
    fortune / misfortune the 400 pairs through :func:`simkit.rules.recovery_check.kept_roll`."""
    if fortune == "none":
        return (1 / 20,) * 20
    counts = [0] * 20
    for r1 in range(1, 21):
        for r2 in range(1, 21):
            counts[kept_roll(r1, r2, fortune) - 1] += 1
    return tuple(c / 400 for c in counts)


# -- a fight ---------------------------------------------------------------------------------
def _fight(r: Party, dist: dict, fresh: bool = False) -> tuple[dict, float]:
    """The duel ``r`` from every carried state of ``dist``: (the victories' end states,
    P(defeat)); ``fresh``: the plan's first step, the PC with its temporary HP (R0-14,
    AP-23; none are handed on); the mass still fighting after ``max_rounds`` rounds is dropped
    (``unresolved``). The carried states of one wounded value start the duel's grid
    together at that mark (it is linear in them, :mod:`simkit.models.duel_grid`), one grid
    pushed through the rounds for each; under the wounded rule (A0-2) the value is the
    grid's mark (:func:`simkit.models.party_duel.wounds`): a knock-out's dying value adds it
    (whether a hero point undoes it, R0-10) and a dying effect kept at its HP raises it
    (AP-35, AP-38); it is handed on as the fight leaves it (a revival at the knock-out adds
    none)."""
    lost = 0.0
    live: dict = defaultdict(lambda: defaultdict(float))  # wounded -> {(hp, hero, slots): p}
    for (hp, hero, slots, w), p in dist.items():
        if hp == 0:  # alive at 0 HP: stable, every PC down at the start (a defeat)
            lost += p
        else:
            live[w][(hp + (r.temp_hp_of(0) if fresh else 0), hero, slots)] += p
    if _no_monster(r):  # every PC up and no monster: won at round 0
        return {k + (w,): p for w, d in live.items() for k, p in d.items()}, lost
    out: dict = defaultdict(float)
    top = wounds(r) - 1  # (a dying effect kept at its HP raises the wounded value, AP-38)
    for w, starts in live.items():
        grid = duel_grid(r, starts)
        X = grid.initial(starts, mark=min(w, top))
        _won, defeat, _rest, ends = grid.run(X, r.max_rounds, ends=True, marks=True)
        lost += float(defeat.sum())
        for s, he, m, h in zip(*np.nonzero(ends), strict=True):
            # (from the top value on any failed save kills: the value stays the carried one)
            w2 = int(m) if w < top else w
            out[(int(h), int(he), int(s), w2)] += float(ends[s, he, m, h])
    return dict(out), lost
