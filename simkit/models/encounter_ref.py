"""Scalar reference of the encounter: one track, one round, plain Python, on the loop's dice.

Written from the rules in :mod:`simkit.models.encounter`'s docstring, one event at a time,
for tests; independent of the compiled loop that plays the encounter
(:mod:`simkit.fight.encounter`). It reads each die when the rules need it, from the loop's
dice contract (:class:`simkit.models.party_replay.CounterDice`, a named contract, not shared
code): so :func:`play` on a track's dice key must end the track as the loop does, outcome,
end round, marks and end fields (tests/test_encounter.py, track by track). Slow on purpose;
not used by the engine.

The draws, in the order the rules read them (:class:`LoopDice`): a d20 is one integer below
20; a chance ``p`` (the healer's arrival, the end of the fight, an effect, a strike at a PC
at 0 HP) one 32-bit word below its edge; a sum of dice one integer below ``sides ** count``
(its base-``sides`` digits) when that is at most 65,536, else one integer a die. A strike
rolls its damage only when it hits; an effect its damage before the save; every hour of
seed 001's long-term checks rolls the Constitution d20 then the Medicine d20. A round in
which nothing can happen to the PC until the fight's last round (:func:`quiet`: stable, not
aimed at, no healer to act, no end chance, no getting up) draws nothing: the track goes to
the end of the fight at once.
"""

from __future__ import annotations

from simkit.models.encounter import (
    DEAD,
    DYING,
    REVIVED,
    STABLE,
    STANDING,
    Encounter,
)
from simkit.models.party_replay import CounterDice
from simkit.rules import hero_points as hp_rule
from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, MAX_DICE_TABLE, Dice, degree, dice_value
from simkit.rules.dying_damage import hit_while_dying, knockout_value
from simkit.rules.guide import cell_guide
from simkit.rules.hourly import AWAKE, hourly_result
from simkit.rules.hourly import DEAD as HOURLY_DEAD
from simkit.rules.hourly import WAKE_HOURS as HOURS
from simkit.rules.massive_damage import is_massive, take_damage
from simkit.rules.recovery_check import kept_roll, recovery_delta
from simkit.rules.strike import basic_damage, strike_ac, strike_damage

__all__ = ["LoopDice", "new_track", "play", "quiet", "ref_init", "ref_round"]


class _Dead(Exception):
    """Raised inside a round when the character dies: the track ends."""


class LoopDice:
    """One track's draws by the loop's dice contract (see the module's docstring)."""

    def __init__(self, key63: int):
        self.dice = CounterDice(key63)

    def d20(self) -> int:
        return self.dice.below(20) + 1

    def chance(self, p: float) -> bool:
        """Whether an event of probability ``p`` happens: one 32-bit word below its edge."""
        edge = int(cell_guide((p, 1.0 - p))[0][1])
        return self.dice.below(1 << 32) < edge

    def roll(self, text: str) -> int:
        """One sum of ``text`` dice."""
        d = Dice.parse(text)
        width = d.sides**d.count if d.count else 0
        if d.count and width <= MAX_DICE_TABLE:
            return dice_value(text, self.dice.below(width))
        return d.bonus + sum(self.dice.below(d.sides) + 1 for _ in range(d.count))


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


def ref_init(r: Encounter, d: LoopDice):
    """(outcome or None, track) at step 0."""
    tr = new_track(r)
    try:
        if r.start_hp == 0:
            if r.trait == "death":
                raise _Dead
            _knock_out(
                r, tr, crit=False, src_dc=r.strike_dc, enemy=0, t=0, move=True, dying=r.start_dying
            )
        return _end(r, tr, d), tr
    except _Dead:
        return DEAD, tr


def quiet(r: Encounter, tr: dict) -> bool:
    """Whether nothing can happen to the PC until the fight ends after ``fight_rounds``:
    stable, never aimed at while down, no end chance, no getting up (R1-05), and no healer
    to come or able to heal."""
    if not tr["down"] or tr["dying_now"] or not tr["fight"] or r.fight_rounds is None:
        return False
    if r.target_downed != "never" or r.end_chance > 0:
        return False
    if not r.seed000 and r.back_in_fight:
        return False
    if tr["healer"]:
        return tr["heals"] == 0
    return not r.healer_possible


def ref_round(r: Encounter, tr: dict, t: int, d: LoopDice):
    """Play round ``t`` on one track (``tr`` is updated); return the outcome or None."""
    try:
        if not tr["healer"]:
            if r.healer_round is not None:
                arrives = t >= r.healer_round
            else:
                arrives = r.healer_chance > 0 and d.chance(r.healer_chance)
            if arrives:
                tr["healer"] = True
                if r.until == "healer":
                    if not tr["down"]:
                        return REVIVED if tr["knocked_out"] else STANDING
                    return DYING if tr["dying_now"] else STABLE
        if tr["healer"]:
            _healer(r, tr, d)
        fight = tr["fight"]
        for slot in range(r.enemies + 1):
            if tr["pos"] == slot:
                _pc_turn(r, tr, d)
            if slot < r.enemies and fight:
                _enemy(r, tr, d, slot, t)
        if tr["fight"]:
            if r.fight_rounds is not None and t >= r.fight_rounds:
                tr["fight"] = False
            elif r.end_chance > 0 and d.chance(r.end_chance):
                tr["fight"] = False
        return _end(r, tr, d)
    except _Dead:
        return DEAD


def play(r: Encounter, key63: int) -> dict:
    """Track ``key63`` (its dice key) of ``r`` from its start to its end or the horizon: its
    state, with ``code`` (the outcome, -1 unresolved) and ``step`` (the round it ended)."""
    d = LoopDice(key63)
    code, tr = ref_init(r, d)
    step = 0
    while code is None and step < r.max_rounds:
        step += 1
        if quiet(r, tr):  # to the end of the fight's last round (nothing drawn)
            last = int(r.fight_rounds or 0)  # (quiet: a fight with a last round)
            if last <= r.max_rounds:
                step = last
                tr["fight"] = False
                code = _end(r, tr, d)
            else:
                step = r.max_rounds
            break
        code = ref_round(r, tr, step, d)
    tr.update(code=-1 if code is None else code, step=step)
    return tr


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
        healer = r.medicine if (r.medicine is not None and tr["healer"]) else None
        con, med = d.d20(), d.d20()
        res = hourly_result(
            con,
            med if healer is not None else 0,
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
            tr.update(hp=0, hours=h + 1)
            return DEAD
    tr.update(hp=min(r.level, r.max_hp), down=False, hours=HOURS)  # R1-07 (R0-01)
    return REVIVED


def _lose_dying(r, tr):
    if r.wounded_rule and tr["dying_now"]:
        tr["wounded"] += 1
    tr["dying_now"] = False
    tr["dying"] = 0


def _healer(r, tr, d):
    if tr["down"] and tr["heals"] > 0:
        _lose_dying(r, tr)
        tr.update(hp=min(r.max_hp, d.roll(r.heal)), down=False, nl=False)
        tr["heals"] -= 1
    elif tr["dying_now"] and r.medicine is not None:
        if d.d20() + r.medicine + r.check_penalty >= r.first_aid_dc:
            _lose_dying(r, tr)
    elif (
        r.heal_when == "wounded" and not tr["down"] and tr["heals"] > 0 and 2 * tr["hp"] <= r.max_hp
    ):
        tr["hp"] = min(r.max_hp, tr["hp"] + d.roll(r.heal))
        tr["heals"] -= 1


def _pc_turn(r, tr, d):
    if r.dying_rules == "seed000":
        if not tr["dying_now"]:
            return
        dying, o = tr["dying"], r.pf2e
        roll = d.d20()
        roll2 = d.d20() if o["two"] else None  # P-15, P-16: a second d20

        def delta(natural):  # R0-05..R0-07, A0-4; P-13 Toughness
            return recovery_delta(
                natural, dying, check=r.check, bonus=r.save("fort"), dc=tr["dcs"],
                toughness=o["toughness"],
            )  # fmt: skip

        change = delta(kept_roll(roll, roll2, o["fortune"]))
        if o["rerolls"] and tr["hero"] > 0 and change > 0:  # P-16: the reroll stands
            change = delta(roll2)
            tr["hero"] -= 1
            tr["hero_spent"] += 1
        _new_dying(r, tr, dying + change)
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
    o = r.pf2e  # P-14 Diehard's death value, P-16's threshold (none when points reroll)
    res = hp_rule.rise(
        old,
        new,
        threshold=o["threshold"] if tr["hero"] > 0 else None,
        death_at=o["death_at"],
        knockout=knockout,
        hero_knockout=r.hero_knockout,
    )
    if res == hp_rule.STABLE:
        _lose_dying(r, tr)
        return
    if res == hp_rule.HERO:
        if r.hero_effect == "revive":  # dying lost: wounded + 1 (A0-2), if it was dying
            # (AP-28: a point spent at the knock-out itself, never dying: no wounded gained)
            tr["wounded"] += int(r.wounded_rule and tr["dying_now"])
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
        tr["hp"] = 0
        raise _Dead
    if not tr["down"]:
        hp, tmp = take_damage(tr["hp"], tr["tmp"], dmg)  # R0-14: temporary HP first
        tr.update(hp=int(hp), tmp=int(tmp))
        if tr["hp"] == 0:
            if r.trait == "death":  # R0-12
                raise _Dead
            _knock_out(r, tr, crit, src_dc, enemy, t, move=True)
        return
    # R0-09: damage while unconscious (temporary HP untouched)
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


def _aims(r, tr, d):
    """Whether an action goes to the PC (at 0 HP: as ``target_downed`` says)."""
    if not tr["down"]:
        return True
    if r.target_downed == "sometimes":
        return d.chance(r.downed_chance)
    return r.target_downed == "always"


def _enemy(r, tr, d, e, t):
    if r.effect_chance > 0 and d.chance(r.effect_chance):
        if _aims(r, tr, d):
            rolled = d.roll(r.effect_dice)
            deg = degree(d.d20(), r.save(r.effect_save), r.spell_dc)
            dmg = basic_damage(deg, rolled)  # P-04
            if dmg > 0:
                _hit(r, tr, dmg, deg == CRIT_FAIL, r.spell_dc, e, t)
        return
    for a in range(r.attacks):
        if not _aims(r, tr, d):
            continue
        ac = strike_ac(r.armor, tr["down"])  # R0-11
        deg = degree(d.d20(), r.strike_bonus - r.strike_penalty(a), ac)
        if strike_damage(deg, 1) == 0:  # a miss: no damage rolled
            continue
        dmg = strike_damage(deg, d.roll(r.strike_dice))  # P-03
        if dmg > 0:
            _hit(r, tr, dmg, deg == CRIT_SUCCESS, r.strike_dc, e, t)
