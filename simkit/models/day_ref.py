"""Scalar reference of the adventuring day: one track, one step at a time, plain Python.

Written from ``docs/rules.md`` (the section "The adventuring day" and the rules it names)
and the ``day`` model's docstring, not from the kernel's code. It is composed of other
scalar references: a fight is the party's (:mod:`simkit.models.party_ref`: ``new_track``,
``ref_init``, ``ref_round``), and so is the care of a PC knocked out outside a fight
(AP-7 with no monster); the seeds' rest is :func:`simkit.rules.rest.hp_after_rest` and
:func:`~simkit.rules.rest.pp_after_rest` (R1-10, A1-7); the published rest
:func:`simkit.rules.pf2e.rest.treat_wounds` and
:func:`~simkit.rules.pf2e.rest.night_rest_hp` (P-11, P-12); the road
:func:`simkit.rules.fatigue_day.fatigue_day` (R4-01..R4-06); a fall
:func:`simkit.rules.fall.fall_result` (R4-07, R0-13). It shares with the kernel only what
it must to be fed the same draws: the order of a track's draws and the streams' keys they
come from (:class:`Draws`), what a draw means (a d20 drawn as ``0..19``, four d8s packed
in ``0..4095``, four d6s in ``0..1295``, a height band by its guide words), and the
day's declarations the kernel reads too: the outcomes' and causes' names
(:mod:`simkit.models.day_outcomes`) and what a plan's steps are
(:mod:`simkit.models.day_plan`: the road's fatigue events, ``rest_when``'s cap). It
never imports the kernel (:mod:`simkit.models.day`): the ``day`` it is given is read as
rules (its parameters, its plan, :meth:`~simkit.models.day.Day.fight_rules`,
:meth:`~simkit.models.day.Day.care_rules`). Slow on purpose; not used by the engine.

The track (a dict, see :func:`new_day`): ``pcs`` (per PC: ``hp``, ``hp_max``, ``hero``,
``slots``, ``heals``, ``pp``, ``wounded``, ``dead``, ``wait``: short rests before Treat
Wounds can reach it again), ``base_pen`` (the start's check penalty), ``fatigue`` (the
counters ``(s, f, w, c)`` of R4-01..R4-05), ``outcome`` (a name of the day's outcomes or
``unresolved``, None while going), ``step`` (the step it ended at), ``first_death``,
the deaths by cause (``deaths_in_fight``...), ``dead0`` (dead before the day), and
``obs``: what it held before each step ``(step, {name: value})`` (the kernel's
observations, ``deaths`` the deaths of each step).
"""

from __future__ import annotations

import numpy as np

from simkit.models.day_outcomes import CAUSES, DAY_OUTCOMES, PC_FIELDS
from simkit.models.day_plan import (
    FATIGUE_START,
    MAX_EXTRA_RESTS,
    ROAD_EVENTS,
    FallStep,
    FightStep,
    RestStep,
    RoadStep,
    woken,
)
from simkit.models.fight_state import CARRIED
from simkit.models.party import Party, faces
from simkit.models.party_ref import WON, new_track, ref_init, ref_knock_out, ref_round
from simkit.rules import fatigue_day, perseverance
from simkit.rules.fall import (
    BAND_DEAD,
    BAND_KO,
    DEAD,
    FALL_EDGES,
    KO,
    band_of,
    fall_dice,
    fall_result,
)
from simkit.rules.guide import cell_guide, cell_of_draw
from simkit.rules.heights import parse_heights
from simkit.rules.pf2e import rest as pf2e_rest
from simkit.rules.rest import hp_after_rest, pe_after_short_rest_ref, pp_after_rest, recover_pe

__all__ = ["Draws", "new_day", "ref_day"]

#: What a PC carries from step to step (the fight state's per-PC fields).
_KEPT = CARRIED
#: The band code given to 10 to 12 m (stable at 0 HP, not knocked out), told apart from KO.
_BAND_KO = 3


class Draws:
    """One track's draws, in the order it saw them: ``(key, kind, value)`` each, ``key``
    the stream prefix they came from (a fight's: ``()`` for the first fight, ``(t,)``
    later; a rest's or a fall's ``(t,)``, their care ``(t, 1)``; ``rest_when``'s ``j``-th
    rest ``(t, 2, j)``; the played short rest's ``j``-th 10-minute rest after the first
    ``(t, 3, j)``, its care ``(t, 3, j, 1)``).

    ``play`` (optional): how the fights and the cares draw when their dice are not in the
    list (a day on the compiled loop draws them by counter from the track's key under the
    stream ``key``): ``play(rules, key, start, knocked)`` plays the party's reference on
    them from ``start`` (a fight's start row, None for the party's fresh start) and hands
    back its ended track; ``knocked`` (a bool a PC) for a care, None for a fight (the
    dice contract's adapter, :func:`simkit.models.party_replay.play`)."""

    def __init__(self, draws, play=None):
        self.draws = list(draws)
        self.at = 0
        self.play = play

    def take(self, key: tuple) -> np.ndarray:
        """The next draw's value; it must come from the stream ``key``."""
        if self.at >= len(self.draws):
            raise AssertionError(f"the reference wants a draw from {key}, the track has no more")
        got_key, kind, value = self.draws[self.at][:3]
        if tuple(got_key) != tuple(key):
            raise AssertionError(
                f"draw {self.at}: the reference wants one from {key}, the track's came from "
                f"{got_key} ({kind})"
            )
        self.at += 1
        return np.asarray(value)

    def left(self) -> int:
        return len(self.draws) - self.at


def new_day(day, start: dict | None = None) -> dict:
    """A track at the start of its day: the party's fresh start, or ``start`` (a
    :meth:`~simkit.models.fight_state.FightStart.row`)."""
    row = day.fresh_start(1).row(0) if start is None else start
    pcs = [
        {
            **{k: (bool if k == "dead" else int)(row[k][i]) for k in _KEPT},
            "wait": [0] * day.immunity_counters,
        }
        for i in range(day.n_pcs)
    ]
    return {
        "pcs": pcs,
        "base_pen": int(row["check_penalty"]),
        "fresh": start is None,
        "fatigue": FATIGUE_START,
        "outcome": None,
        "step": 0,
        "first_death": 0,
        **{c: 0 for c in CAUSES},
        "dead0": [pc["dead"] for pc in pcs],
        "obs": [],
    }


def ref_day(day, draws: Draws, start: dict | None = None) -> dict:
    """Play one track's day through every step of ``day``'s plan on its ``draws``."""
    tr = new_day(day, start)
    names = day.pc_names
    T = day.horizon
    for t, step in enumerate(day.steps, 1):
        if tr["outcome"] is not None:
            break
        pcs = tr["pcs"]
        obs = {q: sum(pc[q] for pc in pcs if not pc["dead"]) for q in PC_FIELDS[:-1]}
        if isinstance(step, FightStep):
            for k, pc in enumerate(pcs):
                for q in PC_FIELDS:
                    obs[f"{q}:{names[k]}"] = 0 if pc["dead"] else (1 if q == "alive" else pc[q])
        before = [pc["dead"] for pc in pcs]
        if isinstance(step, FightStep):
            if day.rest_when is not None:
                _rest_when(day, tr, draws, t)
            _fight(day, tr, draws, step, () if t == _first_fight(day) else (t,), t == 1)
        elif isinstance(step, RestStep):
            was = _rest_fields(tr)
            _rest(day, tr, draws, step, t)
            _wake(day, tr, step)
            obs["rest_changed"] = int(_rest_fields(tr) != was)
        elif isinstance(step, RoadStep):
            _road(tr, step.kind)
            _wake(day, tr, step)
        elif isinstance(step, FallStep):
            _fall(day, tr, draws, step, t)
        died = sum(pc["dead"] and not b for pc, b in zip(pcs, before))
        obs["deaths"] = died
        tr["obs"].append((t, obs))
        if died and not tr["first_death"]:
            tr["first_death"] = t
        if tr["outcome"] is None:
            if all(pc["dead"] for pc in pcs):
                tr["outcome"] = "defeat"
            elif died and day.after_death == "end":
                tr["outcome"] = "survived_with_deaths"
        if tr["outcome"] is not None and not tr["step"]:
            tr["step"] = t
    if tr["outcome"] is None:
        tr["outcome"] = "survived_with_deaths" if deaths(tr) else "survived"
        tr["step"] = T
    assert tr["outcome"] in DAY_OUTCOMES + ("unresolved",)
    return tr


def _wake(day, tr: dict, step) -> None:
    """R0-08's wake-up as ``day.wake_after`` reads it: at the end of a step at least that
    long (:func:`~simkit.models.day_plan.woken`), a PC alive at 0 HP (stable: between
    steps no PC is dying) wakes at 1 HP, on a day still going."""
    if tr["outcome"] is None and woken(day.wake_after, step, day.short_rest_minutes):
        for pc in tr["pcs"]:
            if not pc["dead"] and pc["hp"] == 0:
                pc["hp"] = 1


def _rest_fields(tr: dict) -> tuple:
    """What a rest can change: each PC's HP, PE, PP, slots, heals, hero points, wounded and
    death, and the fatigue counters."""
    keys = ("hp", "pe", "pp", "slots", "heals", "hero", "wounded", "dead")
    return tuple(tuple(pc.get(q) for q in keys) for pc in tr["pcs"]) + (tuple(tr["fatigue"]),)


def deaths(tr: dict) -> int:
    """PCs who died in the day."""
    return sum(pc["dead"] and not d0 for pc, d0 in zip(tr["pcs"], tr["dead0"]))


def _first_fight(day) -> int:
    return next(t for t, s in enumerate(day.steps, 1) if isinstance(s, FightStep))


def _penalty(tr: dict) -> int:
    """The check penalty: the start's plus a day without sleep or food each (R4-03)."""
    s, f, w, _ = tr["fatigue"]
    return max(tr["base_pen"] - (s + f + w), -50)


def _row(tr: dict) -> dict:
    """The track as a fight's start (a FightStart row)."""
    out: dict = {k: [pc[k] for pc in tr["pcs"]] for k in _KEPT}
    return {**out, "check_penalty": _penalty(tr), "fight": 0}


def _back(tr: dict, ftr: dict) -> None:
    """What a fight (or a care) left, back into the day's PCs."""
    for pc, f in zip(tr["pcs"], ftr["pcs"]):
        pc.update({k: f[k] for k in _KEPT if k in f and k != "dead"}, dead=f["cond"] == "dead")


def _round_draws(r: Party, draws: Draws, key) -> dict:
    return {name: faces(kind, draws.take(key)) for name, kind, _ in r.plan}


def _play(r: Party, ftr: dict, draws: Draws, key) -> None:
    """The party's rounds until the track ends or ``r.horizon`` (unresolved)."""
    t = 0
    while ftr["outcome"] is None and t < r.horizon:
        t += 1
        ref_round(r, ftr, _round_draws(r, draws, key))


# -- a fight ---------------------------------------------------------------------------------
def _fight(day, tr: dict, draws: Draws, step: FightStep, key, first: bool) -> None:
    """A fight (the party's scalar reference from the day's state); a party unconscious
    from fatigue (R4-04: the clock running) cannot fight: a defeat (``after_defeat``)."""
    if tr["fatigue"][3] >= 0:
        tr["outcome"] = "defeat"
        if getattr(day, "after_defeat") == "slain":
            for pc in tr["pcs"]:
                if not pc["dead"]:
                    pc.update(dead=True, hp=0)
                    tr["deaths_after_defeat"] += 1
        return
    r = day.fight_rules(step)
    fresh = first and tr["fresh"]
    if draws.play is not None:
        ftr = draws.play(r, key, None if fresh else _row(tr), None)
    else:
        ftr = new_track(r, draws.take(key), start=None if fresh else _row(tr))
        ref_init(r, ftr)
        _play(r, ftr, draws, key)
    _back(tr, ftr)
    for c in CAUSES[:3]:
        tr[c] += ftr[c]
    out = ftr["outcome"]
    if out in ("defeat", "retreat"):
        tr["outcome"] = out
    elif out is None:
        tr["outcome"] = "unresolved"


def _care(day, tr: dict, draws: Draws, knocked: list[bool], key, cause: str) -> None:
    """PCs knocked out outside a fight follow their dying rules with the party's care
    (AP-7, AP-11; no monster: the fight won before it starts), the recovery DC that of a
    creature of the party's level (R0-06)."""
    r = day.care_rules()
    before = [pc["dead"] for pc in tr["pcs"]]
    if draws.play is not None:
        ftr = draws.play(r, key, _row(tr), knocked)
    else:
        ftr = new_track(r, draws.take(key), start=_row(tr))
        ftr["mhp"] = [0] * len(ftr["mhp"])
        ftr["phase"] = WON
        for k, ko in enumerate(knocked):
            if ko:
                ref_knock_out(r, ftr, k, dc=r.start_dc, start=r.start_dying)
        if any(knocked):
            _play(r, ftr, draws, key)
    _back(tr, ftr)
    tr[cause] += sum(pc["dead"] and not b for pc, b in zip(tr["pcs"], before))
    if ftr["outcome"] is None and any(knocked):  # the dying rules cut at max_rounds
        tr["outcome"] = "unresolved"


# -- the rests -----------------------------------------------------------------------------------
def _medics(day) -> list[tuple[int, int]]:
    pcs = day.base_party.fighters.pcs
    return [(c, p.medicine) for c, p in enumerate(pcs) if p.medicine is not None]


def _treat(day, tr: dict, draws: Draws, key) -> None:
    """A 10-minute rest of Treat Wounds (P-11): each medic in the party's order, if alive
    and conscious, treats the living PC with the lowest HP fraction (the first of equals)
    that is hurt and not immune (treated within the hour: six short rests; by anyone, or
    under ``per_healer`` by this medic; one rest under ``ten_minutes``, AP-18); a critical
    failure bringing it to 0 HP knocks it out (R0-03)."""
    pcs = tr["pcs"]
    dead = [pc["dead"] for pc in pcs]
    knocked = [False] * len(pcs)
    pen = _penalty(tr)
    for j, (c, medicine) in enumerate(_medics(day)):
        w = j if day.immunity_counters > 1 else 0  # (per_healer: this medic's counter)
        roll = int(draws.take(key)) + 1
        packed = int(draws.take(key))
        d8s = [packed // 8**i % 8 + 1 for i in range(4)]
        change = pf2e_rest.treat_wounds(roll, d8s, medicine=medicine, check_penalty=pen)
        if dead[c] or pcs[c]["hp"] <= 0:
            continue
        hurt = [
            k
            for k, pc in enumerate(pcs)
            if not dead[k] and pc["hp"] < pc["hp_max"] and pc["wait"][w] == 0
        ]
        if not hurt:
            continue
        k = min(hurt, key=lambda q: (pcs[q]["hp"] / pcs[q]["hp_max"], q))
        pc = pcs[k]
        was = pc["hp"]
        pc["hp"] = min(max(was + change, 0), pc["hp_max"])
        pc["wait"][w] = day.immune_rests
        if change > 0:
            pc["wounded"] = 0
        if pc["hp"] == 0 and was > 0:
            knocked[k] = True
    for pc in pcs:
        pc["wait"] = [max(x - 1, 0) for x in pc["wait"]]
    if any(knocked):
        _care(day, tr, draws, knocked, key + (1,), "deaths_after_fight")


def _rested(tr: dict) -> None:
    """The wounded condition ends at full HP after a rest (A0-2's published rule, P-12)."""
    for pc in tr["pcs"]:
        if not pc["dead"] and pc["hp"] == pc["hp_max"]:
            pc["wounded"] = 0


def _pe_rest(day) -> bool:
    """Whether a short rest can give PE back for a PP: the fights spend PE (seed 001 with
    A1-5's ``pe_first``, AP-17) and ``pe_rest`` (A1-8) is not ``never``."""
    seed001 = getattr(day, "rules") == "seed001"
    return seed001 and getattr(day, "pe_damage") == "pe_first" and day.pe_rest != "never"


def _pe_after(day, k: int, pc: dict) -> tuple[int, int]:
    """PC ``k``'s ``(pe, pp)`` after a short rest's PP for its PE (R1-09 under A1-8),
    keeping its stabilisation cost (R1-04) under ``spare_pp``."""
    pp_max = day.base_party.fighters.pcs[k].pp_max
    keep = int(perseverance.stabilize_cost(pp_max, getattr(day, "stabilize_cap")))
    return pe_after_short_rest_ref(pc["pe"], pc["pe_max"], pc["pp"], keep, day.pe_rest)


def _spend_pp(day, tr: dict) -> None:
    """At a short rest's start, each living PC spends 1 PP for its PE as ``pe_rest``
    reads it (R1-09, A1-8)."""
    for k, pc in enumerate(tr["pcs"]):
        if not pc["dead"]:
            pc["pe"], pc["pp"] = _pe_after(day, k, pc)


def _can_help(day, tr: dict, left: int) -> bool:
    """Whether a Treat Wounds could still help within ``left`` more 10-minute rests: a
    medic alive and conscious and a living PC below its max HP whose immunity (to that
    medic, under ``per_healer``) ends within them (P-11, AP-18)."""
    pcs = tr["pcs"]
    for j, (c, _) in enumerate(_medics(day)):
        w = j if day.immunity_counters > 1 else 0
        if pcs[c]["dead"] or pcs[c]["hp"] <= 0:
            continue
        if any(not pc["dead"] and pc["hp"] < pc["hp_max"] and pc["wait"][w] < left for pc in pcs):
            return True
    return False


def _rest(day, tr: dict, draws: Draws, step, t: int) -> None:
    """A short rest (the seeds': PE for 1 PP, R1-09, A1-8, when the fights use PE; pf2e:
    the same, then Treat Wounds: one 10-minute rest under ``short_rest(once)``, else more
    while one could still help within ``short_rest_minutes``, AP-18), or a night / a day
    in bed: HP (R1-10 or P-12), slots and heals, hero points (``hero_refresh``), PP
    (A1-7), PE (R1-09), a night's sleep and a meal (R4-06)."""
    kind = step.kind
    if kind == "short_rest":
        if _pe_rest(day):
            _spend_pp(day, tr)
        if day.pf2e_rest and _medics(day):
            _treat(day, tr, draws, (t,))
            R = day.short_rest_minutes // 10
            for j in range(1, 0 if step.once else R):
                if tr["outcome"] is not None or not _can_help(day, tr, R - j):
                    break
                _treat(day, tr, draws, (t, 3, j))
    else:
        bed = kind == "bed_rest"
        night = "bed" if bed else "night"
        F = day.base_party.fighters
        for k, pc in enumerate(tr["pcs"]):
            if pc["dead"]:
                continue
            if day.pf2e_rest:
                hp = pf2e_rest.night_rest_hp(
                    pc["hp"], pc["hp_max"], F.pcs[k].con, getattr(day, "level"), bed
                )
            else:
                hp = hp_after_rest(pc["hp"], pc["hp_max"], getattr(day, "level"), rest=night)
            pc.update(hp=int(hp), slots=F.pcs[k].slots, heals=F.pcs[k].heals)
            pc["wait"] = [0] * day.immunity_counters
            if day.hero_refresh == "long_rest":
                pc["hero"] = getattr(day, "hero_points")
            pc["pp"] = int(pp_after_rest(pc["pp"], F.pcs[k].pp_max, night, day.pp_back))
            if "pe" in pc:  # stamina back in full after a night's rest (R1-09)
                pc["pe"] = int(recover_pe(pc["pe"], pc["pe_max"], pc["pp"], "night")[0])
        _road(tr, "rest")
    _rested(tr)


def _rest_when(day, tr: dict, draws: Draws, t: int) -> None:
    """Short rests before a fight (at most ``MAX_EXTRA_RESTS``) while a living PC is below
    ``rest_when`` of its max HP (of its max HP + max PE, with its PE, when the fights use
    PE) and the rest would help it: Treat Wounds can reach it (pf2e rest, not treated
    within the hour, a medic conscious) or it would spend a PP on its PE (R1-09, A1-8)."""
    treat = day.pf2e_rest and bool(_medics(day))
    pe = _pe_rest(day)
    if not (treat or pe):
        return
    pcs = tr["pcs"]
    for j in range(MAX_EXTRA_RESTS):
        medics = [  # (each conscious medic's immunity counter)
            i if day.immunity_counters > 1 else 0
            for i, (c, _) in enumerate(_medics(day))
            if not pcs[c]["dead"] and pcs[c]["hp"] > 0
        ]

        def low(pc: dict) -> bool:
            if pe:
                return pc["hp"] + pc["pe"] < day.rest_when * (pc["hp_max"] + pc["pe_max"])
            return pc["hp"] < day.rest_when * pc["hp_max"]

        def helped(k: int, pc: dict) -> bool:
            by_treat = treat and any(pc["wait"][w] == 0 for w in medics)
            return by_treat or (pe and _pe_after(day, k, pc)[0] > pc["pe"])

        need = any(not pc["dead"] and low(pc) and helped(k, pc) for k, pc in enumerate(pcs))
        if not need or tr["outcome"] is not None:
            return
        if pe:
            _spend_pp(day, tr)
        if treat:
            _treat(day, tr, draws, (t, 2, j))
        _rested(tr)


# -- the road and falls ----------------------------------------------------------------------------
def _road(tr: dict, kind: str) -> None:
    """A day without sleep or without food and water (R4-01, R4-02), or a night's sleep
    and a meal (R4-06); dead after three days unconscious (R4-05): every PC."""
    rest, eat, drink = ROAD_EVENTS[kind]
    out, *state = fatigue_day.fatigue_day(
        *tr["fatigue"], rescued=False, rest=rest, eat=eat, drink=drink
    )
    if out is None:
        tr["fatigue"] = tuple(state)
        return
    assert out == fatigue_day.DEAD
    tr["fatigue"] = FATIGUE_START
    for pc in tr["pcs"]:
        if not pc["dead"]:
            pc.update(dead=True, hp=0)
            tr["deaths_on_road"] += 1


def _band(draws: Draws, key, height: str) -> int:
    """The fall's band of R4-07: fixed by the height, or drawn (a list: one word picks the
    height; a range: the guide's words over the bands' probabilities)."""
    heights = parse_heights(height)
    probs = heights.band_probabilities(FALL_EDGES)
    if np.count_nonzero(probs) == 1:
        return int(np.flatnonzero(probs)[0])
    if heights.kind == "list":
        return band_of(heights.values[int(draws.take(key))])
    split = cell_guide(tuple(float(p) for p in probs))[2]
    hi = int(draws.take(key))
    lo = int(draws.take(key)) if split else 0
    return cell_of_draw(hi, lo, tuple(float(p) for p in probs))


def _fall(day, tr: dict, draws: Draws, step: FallStep, t: int) -> None:
    """Every living PC (or one at random) falls ``step.height`` metres (R4-07; massive
    damage R0-13); a PC brought to 0 HP by the dice is knocked out and cared for."""
    key = (t,)
    pcs = tr["pcs"]
    band = _band(draws, key, step.height)
    rolls = [int(x) for x in draws.take(key)]
    alive = [k for k, pc in enumerate(pcs) if not pc["dead"]]
    falls = alive
    if step.who == "one":
        pick = int(draws.take(key))
        falls = [alive[pick % len(alive)]] if alive else []
    knocked = [False] * len(pcs)
    n_dice = fall_dice(band)
    for k in falls:
        pc = pcs[k]
        total = sum(rolls[k] // 6**i % 6 + 1 for i in range(n_dice))
        code, damage = fall_result(
            band, total, hp=pc["hp"], hp_max=pc["hp_max"], massive_damage=True, band_ko=_BAND_KO
        )
        if code == DEAD:
            pc.update(dead=True, hp=0)
            tr["deaths_on_road"] += 1
        elif code == _BAND_KO:  # 10 to 12 m: 0 HP, stable (not dying)
            pc["hp"] = 0
        elif code == KO:
            pc["hp"] = 0
            knocked[k] = True
        else:
            pc["hp"] -= damage
    assert band not in (BAND_KO, BAND_DEAD) or not any(knocked)
    if any(knocked):
        _care(day, tr, draws, knocked, key + (1,), "deaths_on_road")
