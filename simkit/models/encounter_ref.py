"""Scalar reference of the encounter kernel: one track, one round, plain Python.

Written from the rules in :mod:`simkit.models.encounter`'s docstring, one event at a
time, for tests: fed the same draws as the vectorised kernel (one row of each array
of :meth:`~simkit.models.encounter.Encounter.draw_plan`), it must end every track
the same way. Slow on purpose; not used by the engine.
"""

from __future__ import annotations

from simkit.models.encounter import (
    DEAD,
    DYING,
    HOURS,
    REVIVED,
    STABLE,
    STANDING,
    Encounter,
)
from simkit.rules import hero_points as hp_rule
from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, degree, dice_value
from simkit.rules.dying_damage import hit_while_dying, knockout_value
from simkit.rules.hourly import AWAKE, hourly_result
from simkit.rules.hourly import DEAD as HOURLY_DEAD
from simkit.rules.massive_damage import is_massive, take_damage
from simkit.rules.recovery_check import recovery_delta
from simkit.rules.strike import basic_damage, strike_ac, strike_damage

__all__ = ["new_track", "ref_init", "ref_round"]


class _Dead(Exception):
    """Raised inside a round when the character dies: the track ends."""


def new_track(r: Encounter) -> dict:
    """The state of one track at the start, before any knock-out."""
    return dict(
        hp=r.start_hp,
        tmp=r.temp_hp,
        down=False,
        dying_now=False,
        dying=0,
        wounded=r.wounded,
        dcs=r.strike_dc,
        pos=0 if r.initiative == "pc_first" else r.enemies,
        hero=r.hero_points,
        hero_spent=0,
        pp=r.start_pp,
        turns=0,
        nl=False,
        healer=False,
        heals=r.heals,
        fight=r.enemies > 0,
        knocked_out=0,
        ko_round=0,
        hours=0,
    )


def _roll(d: dict, name: str, *index):
    x = d[name]
    for k in index:
        x = x[k]
    return int(x) if "roll" in name else x


def ref_init(r: Encounter, d: dict | None = None):
    """(outcome or None, track) at step 0; ``d`` holds the step-0 draws of this track."""
    tr = new_track(r)
    try:
        if r.start_hp == 0:
            if r.trait == "death":
                raise _Dead
            _knock_out(
                r, tr, crit=False, src_dc=r.strike_dc, enemy=0, t=0, move=True, dying=r.start_dying
            )
        return _end(r, tr, d or {}), tr
    except _Dead:
        return DEAD, tr


def ref_round(r: Encounter, tr: dict, t: int, d: dict):
    """Play round ``t`` on one track (``tr`` is updated); return the outcome or None."""
    try:
        was_here = tr["healer"]
        if r.healer_round is not None and t >= r.healer_round:
            tr["healer"] = True
        if r.healer_chance > 0 and _roll(d, "arrive") < r.healer_chance:
            tr["healer"] = True
        if r.until == "healer" and tr["healer"] and not was_here:
            if not tr["down"]:
                return REVIVED if tr["knocked_out"] else STANDING
            return DYING if tr["dying_now"] else STABLE
        if tr["healer"]:
            _healer(r, tr, d)
        for slot in range(r.enemies + 1):
            if tr["pos"] == slot:
                _pc_turn(r, tr, d)
            if slot < r.enemies and tr["fight"]:
                _enemy(r, tr, d, slot, t)
        if r.enemies:
            if r.fight_rounds is not None and t >= r.fight_rounds:
                tr["fight"] = False
            if r.end_chance > 0 and _roll(d, "end_u") < r.end_chance:
                tr["fight"] = False
        return _end(r, tr, d)
    except _Dead:
        return DEAD


# -- events -------------------------------------------------------------------------------------


def _end(r, tr, d):
    if tr["fight"]:
        return None
    if not tr["down"]:
        return REVIVED if tr["knocked_out"] else STANDING
    if tr["dying_now"]:
        return None
    if r.dying_rules == "seed000" or not r.long_term:
        return STABLE
    # R1-06..R1-08: one Constitution check an hour (simkit.rules.hourly)
    for h in range(HOURS):
        if h >= r.checks:
            break
        healer = r.medicine if ("med_roll" in d and tr["healer"]) else None
        res = hourly_result(
            _roll(d, "con_roll", h),
            _roll(d, "med_roll", h) if healer is not None else 0,
            con=r.con_mod,
            healer=healer,
            check_penalty=r.check_penalty,
            natural=r.natural,
            lethal=r.trait != "nonlethal",
        )
        if res == AWAKE:
            tr.update(hp=1, down=False, hours=h + 1)
            return REVIVED
        if res == HOURLY_DEAD:
            tr["hours"] = h + 1
            return DEAD
    tr.update(hp=min(r.level, r.max_hp), down=False, hours=HOURS)  # R1-07 (R0-01)
    return REVIVED


def _lose_dying(r, tr):
    if r.wounded_rule and tr["dying_now"]:
        tr["wounded"] += 1
    tr["dying_now"] = False
    tr["dying"] = 0


def _healer(r, tr, d):
    amount = dice_value(r.heal, _roll(d, "heal_u"))
    if tr["down"] and tr["heals"] > 0:
        _lose_dying(r, tr)
        tr.update(hp=min(r.max_hp, amount), down=False, nl=False)
        tr["heals"] -= 1
    elif tr["dying_now"] and r.medicine is not None:
        if _roll(d, "aid_roll") + r.medicine + r.check_penalty >= r.first_aid_dc:
            _lose_dying(r, tr)
    elif (
        r.heal_when == "wounded" and not tr["down"] and tr["heals"] > 0 and 2 * tr["hp"] <= r.max_hp
    ):
        tr["hp"] = min(r.max_hp, tr["hp"] + amount)
        tr["heals"] -= 1


def _pc_turn(r, tr, d):
    if r.dying_rules == "seed000":
        if not tr["dying_now"]:
            return
        dying = tr["dying"]
        _new_dying(
            r,
            tr,
            dying
            + recovery_delta(
                _roll(d, "check_roll") + 1, dying, check=r.check, bonus=r.save("fort"), dc=tr["dcs"]
            ),
        )
        return
    spent = False
    if tr["dying_now"] and r.spend != "never":
        cost = r.stabilize_cost
        last = tr["pp"] == cost
        wants = {"asap": True, "last": last}.get(r.spend, None)
        if wants is None:
            wants = tr["turns"] >= int(r.spend) or last
        if wants and tr["pp"] >= cost:
            tr["pp"] -= cost
            tr["dying_now"] = False
            spent = True
    if tr["down"] and not tr["dying_now"] and r.back_in_fight:
        if tr["pp"] >= r.enough_pp or (tr["nl"] and tr["pp"] >= 1):
            tr["pp"] -= 1
            tr.update(hp=1, down=False, nl=False)
    if not tr["dying_now"] or spent:
        return
    tr["pp"] = max(tr["pp"] - 1, 0)
    tr["turns"] += 1
    if tr["pp"] == 0:
        raise _Dead


def _new_dying(r, tr, new, knockout=False):
    """Dying changes to ``new`` (seed 000): stable, hero point, death or carry on
    (:mod:`simkit.rules.hero_points`)."""
    old = tr["dying"] if tr["dying_now"] else 0
    res = hp_rule.rise(
        old,
        new,
        threshold=r.threshold if tr["hero"] > 0 else None,
        death_at=r.death_at,
        knockout=knockout,
        hero_knockout=r.hero_knockout,
    )
    if res == hp_rule.STABLE:
        _lose_dying(r, tr)
        return
    if res == hp_rule.HERO:
        if r.hero_effect == "revive":  # dying was gained (or rose), then lost: wounded + 1 (A0-2)
            tr["wounded"] += int(r.wounded_rule)
            tr.update(dying_now=False, dying=0)
            tr["hero"] -= 1
            tr["hero_spent"] += 1
            tr.update(hp=1, down=False)
        else:
            tr["hero_spent"] += tr["hero"]
            tr.update(hero=0, dying_now=False, dying=0)
        return
    if res == hp_rule.DEAD:
        raise _Dead
    tr.update(dying=new, dying_now=True)


def _knock_out(r, tr, crit, src_dc, enemy, t, move, dying=1):
    if move:
        tr["pos"] = enemy
    if not tr["knocked_out"]:
        tr.update(knocked_out=1, ko_round=t)
    tr.update(hp=0, down=True)
    if r.trait == "nonlethal":
        tr.update(dying_now=False, dying=0, nl=True)
        return
    if r.dying_rules == "seed000":
        tr["dcs"] = src_dc
        tr["dying_now"] = False
        _new_dying(
            r,
            tr,
            knockout_value(
                start=dying, crit=crit, wounded=tr["wounded"], wounded_rule=r.wounded_rule
            ),
            knockout=True,
        )
        return
    tr.update(dying_now=True, turns=0, nl=False)
    if r.zero_pp == "at_once" and tr["pp"] == 0:
        raise _Dead


def _hit(r, tr, dmg, crit, src_dc, enemy, t):
    if is_massive(dmg, r.max_hp):  # R0-13
        tr.update(hp=0, tmp=0)
        raise _Dead
    if not tr["down"]:
        hp, tmp = take_damage(tr["hp"], tr["tmp"], dmg)  # R0-14
        tr.update(hp=int(hp), tmp=int(tmp))
        if tr["hp"] == 0:
            if r.trait == "death":  # R0-12
                raise _Dead
            _knock_out(r, tr, crit, src_dc, enemy, t, move=True)
        return
    # R0-09: damage while unconscious
    if r.trait == "death":
        raise _Dead
    if r.trait == "nonlethal":
        return
    if not tr["dying_now"]:
        _knock_out(r, tr, crit, src_dc, enemy, t, move=False)
        return
    if r.dying_rules == "seed001":
        return
    new = hit_while_dying(
        tr["dying"],
        crit,
        on_damage=r.on_damage,
        wounded=tr["wounded"],
        wounded_rule=r.wounded_rule,
        wounded_adds=r.wounded_adds,
    )
    tr["dcs"] = max(tr["dcs"], src_dc)
    _new_dying(r, tr, new)


def _aims(r, tr, d, e, a):
    if not tr["down"]:
        return True
    if r.target_downed == "sometimes":
        return _roll(d, "target_u", e, a) < r.downed_chance
    return r.target_downed == "always"


def _enemy(r, tr, d, e, t):
    if r.effect_chance > 0 and _roll(d, "eff_u", e) < r.effect_chance:
        if _aims(r, tr, d, e, 0):
            deg = degree(_roll(d, "save_roll", e), r.save(r.effect_save), r.spell_dc)
            dmg = basic_damage(deg, dice_value(r.effect_dice, _roll(d, "eff_dmg_u", e)))  # P-04
            if dmg > 0:
                _hit(r, tr, dmg, deg == CRIT_FAIL, r.spell_dc, e, t)
        return
    for a in range(r.attacks):
        if not _aims(r, tr, d, e, a):
            continue
        ac = strike_ac(r.armor, tr["down"])  # R0-11
        if f"strike{e}_{a}" in d:  # one draw: natural roll r % 20 + 1, damage dice from r // 20
            draw = int(_roll(d, f"strike{e}_{a}"))
            roll, dmg_draw = draw % 20 + 1, draw // 20
        else:
            roll, dmg_draw = _roll(d, "atk_roll", e, a), _roll(d, "dmg_u", e, a)
        deg = degree(roll, r.strike_bonus - r.strike_penalty(a), ac)
        dmg = strike_damage(deg, dice_value(r.strike_dice, dmg_draw))  # P-03
        if dmg > 0:
            _hit(r, tr, dmg, deg == CRIT_SUCCESS, r.strike_dc, e, t)
