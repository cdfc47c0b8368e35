"""The seed rules of issue 31 in the party fight's scalar reference, from the rule text.

Plain functions on one PC's dict of :mod:`simkit.models.party_ref` (its ``hp``, ``cond``,
``dying``, ``pp``, ``nonlethal`` and the fields these rules add: ``temp``, ``slowed``,
``back``), written from ``docs/rules.md`` and not from the fight loop's code:

- R0-04 / R0-10, slowed after waking (``slowed``, seed000's own track): a PC back at 1 HP or
  more from dying is slowed for a round by the dying value it held; its next turn has 3
  actions less that value. The fight models 2 of the 3 actions (two strikes, P-02; a
  spell, a heal or first aid costs 2); AP-21 says which go first: the spare third action
  (``slowed_loses=spare``) or a strike (``strike``: the spare one is always spent).
- R1-05 / A1-3 / A1-12, back in the fight (``back_in_fight``, seed001): a stable PC with
  ``enough_pp`` PP, or knocked out by nonlethal damage with 1 PP, spends 1 PP to be at
  1 HP, conscious; ``back_again``: 1 PP for 1 HP again on each later turn.
- R0-14, temporary HP (``temp_hp``): lost first, while the PC is conscious
  (:func:`simkit.rules.massive_damage.take_damage`); a PC's grant of them (its
  ``grant_temp_hp``, ``grant_uses`` a fight; AP-37): a 2-action activity, in place of its
  strikes or spell (a cleric's heal and first aid first), on the conscious PC it gives the
  most temporary HP to, as ``temp_keep`` reads "one source at a time"
  (:func:`simkit.rules.temp_hp.kept_temp`); none where it gives none.
- R1-12 / A1-4, Constitution damage (``con_damage``, seed001): each monster strike that
  hurts a living PC takes that many points of its Constitution score (taken as 10 + 2 x its
  modifier); the modifier is :func:`simkit.rules.rest.ability_modifier`'s under
  ``ability_reading``; the maximum PE fall by the level per modifier point lost
  (:func:`simkit.rules.rest.pe_max`: level x (PE per level + modifier)), the PE with them;
  the hourly checks (R1-06) take the lowered modifier.
- A1-11, a hit on an agonising PC (``agony_damage``, seed001): nothing more, 1 PP lost
  (dead when its PP fall to 0, as R1-01 says of the end of its turn), or dead on a critical
  (:func:`simkit.rules.perseverance.agony_hit`).
- A1-10, R1-07's wake-up after a night with no hourly result (``wake_restores``): HP only,
  or every PE and PP back as after a night's rest (:func:`simkit.rules.rest.wake_rest`).
- AP-35 with A0-9, a monster's effect that gives dying directly (``dying_effect``, R0-12):
  a chance a monster turn, instead of its strikes, at a conscious PC at random: a
  Fortitude save against the monster's spell DC, dying 1 on a failure, 2 on a critical
  failure (the knock-out's value, with the wounded value under A0-2); the PC keeps its HP
  and loses dying at once (``keep_hp``, R0-04: what losing dying does, the wounded value
  and slowed, still happen; dead if the value reaches its death value) or drops to 0 HP, a
  knock-out by the effect (``drop``: its DC the spell DC, R0-06; it moves before the
  monster, R0-03).
"""

from __future__ import annotations

import numpy as np

from simkit.rules import dying_damage, guide, hero_points, hourly, perseverance, rest
from simkit.rules.dice import CRIT_FAIL, SUCCESS, degree
from simkit.rules.massive_damage import take_damage
from simkit.rules.rest import ability_modifier
from simkit.rules.temp_hp import kept_temp

__all__ = [
    "ACTIONS",
    "COST",
    "actions_left",
    "agony_hit",
    "again",
    "con_hit",
    "con_now",
    "dying_effect",
    "get_up",
    "grant",
    "happens",
    "picked",
    "slowed_on_waking",
    "soak",
    "wake_rest",
]

#: A PC's actions a turn (PF2e), and what the fight's activities cost of them.
ACTIONS = 3
COST = {"strike": 1, "spell": 2, "heal": 2, "first_aid": 2, "grant": 2}


def picked(draw, count: int) -> int:
    """The chosen one (0-based) among ``count``: ``w mod count`` for an integer draw made
    below a multiple of ``count``; ``floor(u * count)`` for a uniform float."""
    if isinstance(draw, (float, np.floating)):
        return min(int(float(draw) * count), count - 1)
    return int(draw) % count


def happens(draw, p: float) -> bool:
    """A ``chance`` draw (two 16-bit words) falls in the event's cell of ``(p, 1 - p)``."""
    return guide.cell_of_draw(int(draw[0]), int(draw[1]), (p, 1.0 - p)) == 0


def slowed_on_waking(r, pc: dict) -> int:
    """The slowed value PC ``pc`` takes as it wakes at 1 HP or more (R0-04, R0-10): its dying
    value then, under seed000's own track with ``slowed``; else 0."""
    if not r.slowed or r.rules != "seed000" or r.dying is not None:
        return 0
    return pc["dying"] if pc["cond"] == "dying" else 0


def actions_left(r, pc: dict) -> int:
    """The actions of ``pc``'s turn the fight models (at most 2: two strikes), its slowed
    value spent (R0-04, AP-21)."""
    slowed, pc["slowed"] = pc["slowed"], 0
    left = ACTIONS - slowed
    if r.slowed_loses == "spare":
        return max(0, min(left, ACTIONS - 1))  # the unmodelled third action goes first
    return max(0, left - 1)  # the third is spent anyway: a strike goes first


def get_up(r, pc: dict) -> bool:
    """R1-05 with A1-3: a stable PC with enough PP (any 1 PP after a nonlethal knock-out,
    R1-11) spends 1 PP: 1 HP, conscious, fighting again. True if it did."""
    if not (r.back_in_fight and r.rules == "seed001" and pc["cond"] == "stable"):
        return False
    enough = 1 if pc["nonlethal"] else r.enough_pp
    if pc["pp"] < max(enough, 1):
        return False
    pc.update(pp=pc["pp"] - 1, hp=1, cond="up", nonlethal=False, back=True)
    return True


def again(r, pc: dict) -> None:
    """A1-12 ``back_again``: a PC up by R1-05 since its last knock-out, below its max HP,
    spends 1 PP for 1 HP at its turn (at most 1 HP a turn) while its PP are enough."""
    if r.back_again and pc["back"] and pc["hp"] < pc["hp_max"] and pc["pp"] >= r.enough_pp:
        pc.update(pp=pc["pp"] - 1, hp=pc["hp"] + 1)


def soak(pc: dict, dmg: int) -> int:
    """R0-14: a conscious PC's temporary HP take ``dmg`` first; the damage left for its PE
    and HP."""
    if pc["cond"] != "up" or pc["temp"] <= 0:
        return dmg
    # the rule's own function on a PC of ``dmg`` HP: the HP it loses are the damage left
    hp_after, pc["temp"] = (int(x) for x in take_damage(dmg, pc["temp"], dmg))
    return dmg - hp_after


def con_now(r, me, pc: dict) -> int:
    """PC ``pc``'s Constitution modifier after its damage (R1-12, A1-4); ``me``: its
    numbers (``con``, the modifier before any damage)."""
    score = 10 + 2 * me.con
    lost = ability_modifier(score, 0, r.ability_reading) - ability_modifier(
        score, pc["con_dmg"], r.ability_reading
    )
    return me.con - int(lost)


def con_hit(r, me, pc: dict) -> None:
    """R1-12: a monster's strike hurt ``pc``: ``con_damage`` points of Constitution; its
    maximum PE fall by its level per modifier point lost, its PE kept under them."""
    if r.rules != "seed001" or not r.con_damage or pc["cond"] == "dead":
        return
    pc["con_dmg"] += r.con_damage
    per_level = r.level * (me.con - con_now(r, me, pc))
    pc["pe_max"] = max(me.pe_max - per_level, 0)
    pc["pe"] = min(pc["pe"], pc["pe_max"])


def grant(fight, k: int, acts: int) -> bool:
    """R0-14, AP-37: PC ``k`` of ``fight`` (the reference's round: its rules ``r``, PCs'
    numbers ``F.pcs``, track ``tr``), with a grant left and ``acts`` actions enough, grants
    its ``grant_temp_hp`` temporary HP to the conscious PC they add the most to as
    ``temp_keep`` reads the rule (the first in the party's order of those), if they add
    any; True if it did (its turn's actions are spent; a row of the log)."""
    r, pcs, n = fight.r, fight.tr["pcs"], fight.F.pcs[k].grant_temp_hp
    if pcs[k]["grants"] <= 0 or acts < COST["grant"]:
        return False
    gains = {
        q: kept_temp(pc["temp"], n, r.temp_keep) - pc["temp"]
        for q, pc in enumerate(pcs)
        if pc["cond"] == "up"
    }
    best = max(gains, key=lambda q: (gains[q], -q), default=None)
    if best is None or gains[best] <= 0:
        return False
    old = pcs[best]["temp"]
    pcs[k]["grants"] -= 1
    pcs[best]["temp"] = kept_temp(old, n, r.temp_keep)
    fight.note(fight.name(k), "temporary HP", target=fight.name(best),
               note=f"temporary HP {old} -> {pcs[best]['temp']}", **fight.state(best))  # fmt: skip
    return True


def agony_hit(ref, k: int, crit) -> None:
    """A1-11: a hit on PC ``k``, agonising (seed001), under ``agony_damage``."""
    pc = ref.pc(k)
    dead, pc["pp"] = perseverance.agony_hit(pc["pp"], bool(crit), ref.r.agony_damage)
    if dead:
        ref.kill(k)


def wake_rest(r, me, pc: dict, results) -> dict:
    """A1-10: what PC ``pc`` woken after its night's ``results`` gets besides its HP: under
    ``wake_restores=all``, when no hour decided (R1-07), its PE and PP as after a night's
    rest (``me``: its numbers, ``pp_max``)."""
    if not hourly.slept_through(results, r.checks):
        return {}
    pe, pp = rest.wake_rest(
        pc["pe"], pc["pe_max"], pc["pp"], me.pp_max, r.wake_restores, r.wake_pp_back
    )
    return {"pe": pe, "pp": pp}


def dying_effect(ref, j: int) -> bool:
    """AP-35 with A0-9: monster ``j``'s dying effect, if it uses it this turn (its chance
    ``dying_effect``); True if it did (its turn is spent)."""
    r = ref.r
    if not r.dying_effect or not happens(ref.d["dying_u"][j], r.dying_effect):
        return False
    up = ref.party("up")
    if not up:
        return True
    k = up[picked(ref.d["dying_tgt"][j], len(up))]
    mo, pc = ref.F.monsters[j], ref.pc(k)
    roll = int(ref.d["dying_save"][j])
    deg = degree(roll, ref.F.pcs[k].fort + ref.pen, mo.spell_dc)
    ref.note(f"monster{j}", "dying effect", target=ref.name(k), roll=roll, dc=mo.spell_dc,
             **ref.state(k))  # fmt: skip
    if deg >= SUCCESS:
        return True
    crit = deg == CRIT_FAIL
    value = dying_damage.knockout_value(
        start=1, crit=crit, wounded=pc["wounded"], wounded_rule=ref.opts["wounded_rule"]
    )
    if dying_damage.dying_given(pc["hp"], value, r.dying_above_0)[0] == 0:  # drop
        ref.knock_out(k, crit=crit, dc=mo.spell_dc, by=j)
    elif hero_points.rise(0, value, threshold=None, death_at=r.pf2e_of(k)["death_at"],
                          knockout=True) == hero_points.DEAD:  # fmt: skip
        ref.kill(k)
    else:  # keep_hp: dying gained and lost at once (R0-04)
        pc.update(cond="dying", dying=value)
        pc["slowed"] = slowed_on_waking(r, pc)
        ref.leave_dying(k)
        pc["cond"] = "up"
    ref.check_defeat()
    return True
