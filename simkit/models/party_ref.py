"""Scalar reference of the party fight: one track, one round, plain Python.

Written from the rules as ``docs/rules.md`` states them (seed 000 R0-01..R0-13 with
A0-1..A0-7, seed 001 R1-01..R1-08 and R1-11 with A1-1, A1-2, A1-6, the fight rules
P-01..P-10 and the party model's readings AP-1..AP-11) and from the round told in
docs/explanation/models.md ("The ``party`` fight"); not from the engines' code (0.3's
kernel, the compiled loop). One combatant at a time, the acting order a list of
combatants, every rule through its scalar reference in :mod:`simkit.rules`. It shares
with the engines only what it must to be fed the same draws:
the names and shapes of a round's draws (:attr:`~simkit.models.party.Party.plan`), what a
pick draw means (:func:`picked`), a chance draw (:func:`happens`) and a dice draw
(:func:`simkit.rules.dice.dice_value`). Slow on purpose; not used by the engine.

The track (a dict, see :func:`new_track`):

- ``pcs``: one dict per PC, in the party's order: ``hp``, ``hp_max``, ``pe``, ``pe_max``
  (stamina, seed 001, A1-5), ``cond`` (``up``,
  ``dying`` — agonising under seed 001 —, ``stable``, ``dead``), ``dying`` (seed 000's
  value), ``dc`` (the recovery DC before dying, R0-06), ``wounded`` (A0-2), ``hero``,
  ``pp``, ``agony_turns`` (turns agonising since the knock-out, R1-04), ``nonlethal``
  (down by nonlethal damage, R1-11), ``slots``, ``heals``;
- ``mhp`` (each monster's HP), ``area_left`` (its area effects left, AP-10);
- ``order``: the acting order, ``("pc", k)`` / ``("monster", j)``, first to act first
  (P-01, AP-1); a knock-out moves the PC in it during the round (R0-03, AP-2);
- ``check_penalty`` (P-10), ``given`` (it began from a start), ``fight`` (its lineup:
  the monsters are ``r.lineup_rules[fight]``'s; the draws of a monster's dice are named by
  :meth:`~simkit.models.party.Party.monster_draw`), ``phase`` (``fight``,
  ``won``, ``fled``), ``outcome``;
- the marks: ``deaths``, ``knockouts``, ``rounds``, ``dead_mask``, ``hero_spent``,
  ``heals_spent``; ``deaths`` by cause: ``deaths_in_fight`` (a death while the fight is
  on), ``deaths_after_defeat`` (the downed killed at a defeat, AP-9 ``slain``),
  ``deaths_after_fight`` (a death in the care after it, AP-7, AP-11).
"""

from __future__ import annotations

import simkit.models.party_ref_seeds as seeds
from simkit.models.party import OUTCOMES, Party
from simkit.models.party_ref_seeds import happens, picked
from simkit.rules import (
    dying_damage,
    first_aid,
    hero_points,
    hourly,
    initiative,
    massive_damage,
    perseverance,
    recovery_check,
)
from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, DEGREES, degree, dice_value
from simkit.rules.rest import split_damage_ref
from simkit.rules.strike import (
    STRIKE_MULT,
    basic_damage,
    map_penalty,
    pc_map,
    strike_ac,
    strike_damage,
)

__all__ = ["new_track", "ref_init", "ref_knock_out", "ref_round"]

UP, DYING, STABLE, DEAD = "up", "dying", "stable", "dead"
FIGHT, WON, FLED = "fight", "won", "fled"
#: Strikes a PC makes in a turn (P-02: two strikes, the third action is not modelled).
PC_STRIKES = 2


# -- what a draw means (the draw conventions of the plan, simkit.models.party_plan) ---------------
# -- the start -----------------------------------------------------------------------------------
def new_track(r: Party, init_rolls, start: dict | None = None) -> dict:
    """A track at the start of its fight.

    Parameters
    ----------
    r : Party
        The rules.
    init_rolls : sequence of int
        The natural initiative d20s: the PCs', then the monsters' (P-01).
    start : dict, optional
        This track's starting values: per PC lists ``hp``, ``hp_max``, ``hero``,
        ``slots``, ``heals``, ``pp``, ``wounded``, ``pe``, ``pe_max`` (ints) and ``dead``
        (bools), and
        ``check_penalty`` (int, P-10), and optionally ``fight`` (int: the track's lineup,
        an index into ``r.lineup_rules``; default 0). A dead PC stays dead (R0-15); an
        alive PC at 0 HP starts stable; ``r.hp`` does not apply. None: every PC at its
        role's numbers, ``r.hero_points``, unwounded, alive, ``r.check_penalty``, fight 0.
    """
    fight = 0 if start is None else int(start.get("fight", 0))
    lu = r.lineup_rules[fight]  # the rules of this track's lineup (its monsters)
    F = lu.fighters
    P, M = len(F.pcs), len(F.monsters)
    if start is None:
        start = {
            "hp": [p.hp for p in F.pcs],
            "hp_max": [p.hp for p in F.pcs],
            "hero": [r.hero_points] * P,
            "slots": [p.slots for p in F.pcs],
            "heals": [p.heals for p in F.pcs],
            "pp": [p.pp_max for p in F.pcs],
            "pe": [p.pe_max for p in F.pcs],
            "pe_max": [p.pe_max for p in F.pcs],
            "wounded": [0] * P,
            "dead": [False] * P,
            "check_penalty": r.check_penalty,
        }
        given = False
    else:
        given = True
    pen = int(start["check_penalty"])
    pcs_ = []
    for k in range(P):
        dead = bool(start["dead"][k])
        hp = 0 if dead else int(start["hp"][k])
        pcs_.append(
            {
                "hp": hp,
                "hp_max": int(start["hp_max"][k]),
                "cond": DEAD if dead else (UP if hp > 0 else STABLE),
                "dying": 0,
                "trk": None,  # the state on a designer's track at 0 HP (``dying``)
                "dc": 0,
                "wounded": int(start["wounded"][k]),
                "hero": int(start["hero"][k]),
                "pp": int(start["pp"][k]),
                "pe": int(start["pe"][k]),
                "pe_max": int(start["pe_max"][k]),
                "agony_turns": 0,
                "nonlethal": False,
                "slots": int(start["slots"][k]),
                "heals": int(start["heals"][k]),
                "temp": 0 if given else r.temp_hp_of(k),  # R0-14: a fresh start's
                "grants": F.pcs[k].grant_uses if F.pcs[k].grant_temp_hp else 0,  # AP-37
                "slowed": 0,  # R0-04
                "back": False,  # up by R1-05 since the last knock-out (A1-12)
                "con_dmg": 0,  # Constitution damage (R1-12)
            }
        )
    order = initiative.initiative_order(  # P-01, AP-1; a PC's roll takes the penalty (P-10)
        [int(init_rolls[k]) + F.pcs[k].perception + pen for k in range(P)],
        [int(init_rolls[P + j]) + F.monsters[j].perception for j in range(M)],
    )
    return {
        "pcs": pcs_,
        "mhp": [mo.hp for mo in F.monsters],
        "area_left": list(lu.area_uses_of),
        "order": order,
        "check_penalty": pen,
        "given": given,
        "fight": fight,
        "phase": FIGHT if M else WON,
        "outcome": None,
        "deaths": 0,
        "knockouts": 0,
        "rounds": 0,
        "dead_mask": 0,
        "hero_spent": 0,
        "heals_spent": 0,
        "deaths_in_fight": 0,
        "deaths_after_defeat": 0,
        "deaths_after_fight": 0,
    }


def _code(tr: dict):
    return None if tr["outcome"] is None else OUTCOMES.index(tr["outcome"])


def ref_init(r: Party, tr: dict):
    """Step 0 of a track made by :func:`new_track`; returns the outcome index or None.

    Without a start, ``hp`` caps every PC's HP (R0-01); ``hp=0`` knocks every PC out
    before round 1 (R0-03 with the lineup's trait, dying ``start_dying``, the recovery DC
    of :attr:`~simkit.models.party.Party.start_dc`; no move in the order, not counted in
    ``knockouts``). With a monster and no PC conscious, the fight is lost at once (AP-9).
    Without a monster the fight is won before it starts: the track ends now when every PC
    starts conscious; with a PC down or dead at the start (``hp=0``, or the start's) it
    ends in round 1, after the care of AP-7 and AP-11 (which take that round's draws; a
    convention of the step count, no rule's: the outcome is the same).
    """
    T = _Fight(r, tr, {})
    lu = r.lineup_rules[tr["fight"]]
    knocked = not tr["given"] and r.hp == 0
    if not tr["given"] and r.hp is not None:
        for pc in tr["pcs"]:
            pc["hp"] = min(pc["hp"], r.hp)
        if knocked:
            for k in range(len(tr["pcs"])):
                T.knock_out(k, crit=False, dc=lu.start_dc, by=None, start=r.start_dying)
            tr["knockouts"] = 0
    T.check_defeat()
    if tr["outcome"] is None and tr["phase"] == WON:
        if not T.party(DYING, STABLE, DEAD):
            tr["outcome"] = T.victory()
    return _code(tr)


def ref_knock_out(r: Party, tr: dict, k: int, *, dc: int, start: int = 1) -> None:
    """PC ``k`` of track ``tr`` falls to 0 HP before a round, with no move in the order and
    no draw (R0-03, R1-01; as ``hp=0`` at a fight's start, see :func:`ref_init`): the
    recovery DC ``dc`` (R0-06), dying ``start``. The day's reference knocks out this way the
    PCs a fall or a Treat Wounds critical failure brings to 0 HP."""
    _Fight(r, tr, {}).knock_out(k, crit=False, dc=dc, by=None, start=start)


def ref_round(r: Party, tr: dict, d: dict):
    """One round of one track (``tr`` updated) on this round's draws ``d`` (name -> the
    track's value, d20s as faces 1..20); returns the outcome index or None."""
    T = _Fight(r, tr, d)
    if tr["phase"] == FIGHT:
        tr["rounds"] += 1
        T.fight_round()
        down = sum(pc["cond"] != UP for pc in tr["pcs"])
        if tr["phase"] == FIGHT and tr["outcome"] is None:  # AP-8: the end of the round
            if r.retreat_at is not None and down >= r.retreat_at:
                tr["phase"] = FLED
    elif tr["outcome"] is None:
        T.care_round()  # AP-7
    if tr["outcome"] is None and tr["phase"] != FIGHT and not T.anyone(DYING):
        if r.hourly_on:  # AP-11
            T.night()
        tr["outcome"] = T.victory() if tr["phase"] == WON else "retreat"
    return _code(tr)


class _Fight:
    """One track's fight in one round: the rules ``r``, the track ``tr``, the draws ``d``."""

    def __init__(self, r: Party, tr: dict, d: dict):
        self.r, self.tr, self.d = r, tr, d
        self.lu = r.lineup_rules[tr["fight"]]  # the track's lineup (its rules)
        self.F = self.lu.fighters
        self.opts = r.dying_options
        self.pen = tr["check_penalty"]
        # each PC's designer's track at 0 HP (its own ``dying``, else the fight's), or None
        self.tracks = [r.pc_downed_track(k) for k in range(len(self.F.pcs))]
        for k, trk in enumerate(self.tracks):
            if trk is not None and hasattr(trk, "check_penalty"):  # P-10
                self.tracks[k] = trk.replace(check_penalty=trk.check_penalty + self.pen)

    # -- the log (a replay: ``tr["log"]``, a list, when the track keeps one) -----------------
    def note(self, actor: str, action: str, **row) -> None:
        """One row of the track's log: the round, who acted, what, and its numbers."""
        log = self.tr.get("log")
        if log is not None:
            log.append({"round": self.tr["rounds"], "actor": actor, "action": action, **row})

    def name(self, k) -> str:
        """PC ``k``'s name in a log (its role and position)."""
        return f"{self.F.pcs[k].role}{k}"

    def log_state(self, at: int, k) -> None:
        """Row ``at`` of the log takes PC ``k``'s state after the damage it dealt."""
        log = self.tr.get("log")
        if log is not None and at < len(log):
            log[at].update(self.state(k))

    def state(self, k) -> dict:
        """PC ``k``'s state after an action, for the log."""
        pc = self.pc(k)
        return {"hp": pc["hp"], "cond": pc["cond"], "dying": pc["dying"]}

    # -- who is where --------------------------------------------------------------------------
    def pc(self, k) -> dict:
        return self.tr["pcs"][k]

    def party(self, *conds) -> list[int]:
        """The PCs in one of ``conds``, in the party's order."""
        return [k for k, pc in enumerate(self.tr["pcs"]) if pc["cond"] in conds]

    def anyone(self, cond) -> bool:
        return bool(self.party(cond))

    def living_monsters(self) -> list[int]:
        return [j for j, hp in enumerate(self.tr["mhp"]) if hp > 0]

    def fighting(self) -> bool:
        return self.tr["phase"] == FIGHT and self.tr["outcome"] is None

    def victory(self) -> str:
        return "victory_with_deaths" if self.tr["deaths"] else "victory"

    # -- states of a PC ------------------------------------------------------------------------
    def kill(self, k, *, defeat=False):
        """PC ``k`` dies (R0-04, R0-12, R0-13, R1-01, R1-06): 0 HP, dead for good (R0-15).
        ``defeat``: slain because the party lost (AP-9); else the death is the fight's
        while it is on, else the care's after it."""
        pc = self.pc(k)
        if pc["cond"] == DEAD:
            return
        pc.update(cond=DEAD, hp=0, dying=0)
        self.note(self.name(k), "dies", target=self.name(k), **self.state(k))
        self.tr["deaths"] += 1
        if defeat:
            cause = "deaths_after_defeat"
        else:
            cause = "deaths_in_fight" if self.tr["phase"] == FIGHT else "deaths_after_fight"
        self.tr[cause] += 1
        self.tr["dead_mask"] |= 1 << k

    def leave_dying(self, k):
        """PC ``k``, dying, loses the dying condition (seed 000 track): its wounded value
        rises by 1 under the wounded rule (A0-2)."""
        pc = self.pc(k)
        if self.r.seed000 and self.tracks[k] is None and pc["cond"] == DYING:
            pc["wounded"] = dying_damage.wounded_after_losing(
                pc["wounded"], self.opts["wounded_rule"]
            )
        pc["dying"] = 0

    def track_to(self, k, value):
        """PC ``k`` on the designer's track goes to ``value`` (its ``transition`` or
        ``on_hit``): a state (dying on), or an outcome meaning dead, stable or revived (1 HP,
        conscious), by name or through the track's ``fight_outcomes``."""
        pc = self.pc(k)
        if not isinstance(value, str):
            pc.update(cond=DYING, trk=value)
            return
        meaning = (getattr(self.tracks[k], "fight_outcomes", None) or {}).get(value, value)
        if meaning == "dead":
            self.kill(k)
        elif meaning == "stable":
            self.stabilize(k)
        else:  # revived
            self.leave_dying(k)
            pc.update(cond=UP, hp=1)

    def stabilize(self, k):
        """Stable at 0 HP, unconscious (R0-08, R1-02, R1-04)."""
        self.leave_dying(k)
        self.pc(k)["cond"] = STABLE

    def dying_to(self, k, old, new, *, knockout):
        """Dying goes from ``old`` to ``new`` (seed 000 track; ``knockout``: from not dying):
        stable at 0 (R0-08), a hero point spent (R0-10, A0-3, A0-7), dead at ``death_at``
        (R0-04), else dying ``new``."""
        r, pc = self.r, self.pc(k)
        o = r.pf2e_of(k)  # its own death value and hero threshold (P-14, P-16)
        res = hero_points.rise(
            old,
            new,
            threshold=o["threshold"] if pc["hero"] > 0 else None,
            death_at=o["death_at"],
            knockout=knockout,
            hero_knockout=r.hero_knockout,
        )
        if res == hero_points.STABLE:
            self.stabilize(k)
        elif res == hero_points.HERO and self.opts["hero_effect"] == "revive":
            pc["slowed"] = seeds.slowed_on_waking(r, pc)  # R0-04
            self.leave_dying(k)  # R0-10: back at 1 HP, conscious, no longer dying
            pc["hero"] -= 1
            self.tr["hero_spent"] += 1
            pc.update(cond=UP, hp=1)
        elif res == hero_points.HERO:  # pf2e-core: every point, stable at 0 HP, no wounded
            self.tr["hero_spent"] += pc["hero"]
            pc.update(hero=0, cond=STABLE, dying=0)
        elif res == hero_points.DEAD:
            self.kill(k)
        else:
            pc.update(cond=DYING, dying=new)

    def knock_out(self, k, *, crit, dc, by, start=1):
        """PC ``k`` falls to 0 HP (R0-02, R0-03, R0-12, R1-01, R1-11) from a source of
        recovery DC ``dc``; ``by``: the monster whose turn it is (the PC then moves to just
        before it in the order, R0-03, AP-2), None for no move."""
        r, pc = self.r, self.pc(k)
        pc.update(hp=0, slowed=0, back=False)
        self.tr["knockouts"] += 1
        if by is not None:
            self.tr["order"] = initiative.move_before(self.tr["order"], k, by)
        if r.trait == "death":  # R0-12
            self.kill(k)
        elif r.trait == "nonlethal":  # R0-02, R0-03, R1-11: unconscious, no dying
            pc.update(cond=STABLE, dying=0, nonlethal=True)
        elif self.tracks[k] is not None:  # the PC's designer's track: its start
            pc.update(nonlethal=False)
            self.track_to(k, self.tracks[k].start())
        elif r.seed000:  # R0-03, R0-06, A0-2
            pc.update(dc=dc, nonlethal=False)
            gain = dying_damage.knockout_value(
                start=start,
                crit=crit,
                wounded=pc["wounded"],
                wounded_rule=self.opts["wounded_rule"],
            )
            self.dying_to(k, 0, gain, knockout=True)
        else:  # seed 001: agonising (R1-01), dead at once with no PP (A1-1)
            pc.update(cond=DYING, agony_turns=0, nonlethal=False)
            if r.zero_pp == "at_once" and pc["pp"] == 0:
                self.kill(k)

    def take_damage(self, k, dmg, *, crit, dc, by):
        """``dmg`` (> 0) HP of damage to PC ``k`` from monster ``by`` (R0-09, R0-13); under
        seed 001 with ``pe_damage=pe_first`` the PC's stamina points take it first (A1-5)."""
        r, pc = self.r, self.pc(k)
        if pc["cond"] == DEAD:
            return
        if massive_damage.is_massive(dmg, pc["hp_max"]):  # R0-13: the hit's whole damage
            self.kill(k)
            return
        dmg = seeds.soak(pc, dmg)  # R0-14: temporary HP first
        if dmg == 0:
            return
        if not r.seed000 and r.pe_damage == "pe_first":  # A1-5: stamina first
            pc["pe"], hp_left, excess = split_damage_ref(dmg, pc["pe"], pc["hp"], r.pe_damage)
            dmg = pc["hp"] - hp_left + excess  # what the PE did not take
            if dmg == 0:
                return
        if pc["cond"] == UP:
            pc["hp"] = max(pc["hp"] - dmg, 0)
            if pc["hp"] == 0:
                self.knock_out(k, crit=crit, dc=dc, by=by)
            return
        # at 0 HP: the effects of a knock-out by that damage, no move (R0-09)
        if r.trait == "death":
            self.kill(k)
        elif r.trait == "nonlethal":
            return
        elif pc["cond"] == STABLE:
            self.knock_out(k, crit=crit, dc=dc, by=None)
        elif self.tracks[k] is not None:  # the PC's designer's track: its on_hit
            self.track_to(k, self.tracks[k].on_hit(pc["trk"], bool(crit)))
        elif r.seed000:  # dying: A0-1, A0-2, A0-6; the higher DC (R0-09)
            old = pc["dying"]
            new = dying_damage.hit_while_dying(
                old,
                crit,
                on_damage=self.opts["on_damage"],
                wounded=pc["wounded"],
                wounded_rule=self.opts["wounded_rule"],
                wounded_adds=r.wounded_adds,
            )
            pc["dc"] = max(pc["dc"], dc)
            self.dying_to(k, old, new, knockout=False)
        else:  # agonising (seed 001): A1-11 (by default the damage changes nothing)
            seeds.agony_hit(self, k, crit)

    def check_defeat(self):
        """Every PC at 0 HP in the fight: defeat; ``slain`` kills the downed (AP-9)."""
        if not self.fighting() or self.anyone(UP):
            return
        if self.r.after_defeat == "slain":
            for k in self.party(DYING, STABLE):
                self.kill(k, defeat=True)
        self.tr["outcome"] = "defeat"

    # -- healing and first aid -----------------------------------------------------------------
    def heal(self, c, k):
        """Cleric ``c`` casts *heal* on PC ``k`` (P-05; R0-01, R0-04, R1-03)."""
        pc = self.pc(k)
        amount = dice_value(self.F.pcs[c].heal, self.d[f"heal{c}"])
        hp = min(pc["hp"] + amount, pc["hp_max"])
        if pc["cond"] != UP and hp >= 1:  # back at 1 HP or more: conscious, not dying
            pc["slowed"] = seeds.slowed_on_waking(self.r, pc)  # R0-04
            self.leave_dying(k)
            pc.update(cond=UP, nonlethal=False)
        pc["hp"] = hp
        self.pc(c)["heals"] -= 1
        self.tr["heals_spent"] += 1
        self.note(self.name(c), "heal", target=self.name(k), damage=-amount, **self.state(k))

    def first_aid(self, c, k):
        """Cleric ``c``'s first aid on dying PC ``k`` (R1-02, AP-4): stable on a success."""
        roll = int(self.d["aid"][self.r.clerics.index(c)])
        works = first_aid.first_aid_succeeds(
            roll,
            bonus=self.F.pcs[c].medicine,
            check_penalty=self.pen,
            dc=self.r.first_aid_dc,
            natural=self.r.first_aid_natural,
        )
        if works:
            self.stabilize(k)
        self.note(
            self.name(c), "first aid", target=self.name(k), roll=roll, dc=self.r.first_aid_dc,
            degree="success" if works else "failure", **self.state(k),
        )  # fmt: skip

    # -- the PCs' turns ------------------------------------------------------------------------
    def dying_turn(self, k):
        """The turn of a dying PC: the recovery check (R0-05..R0-07, A0-4) or, agonising,
        the perseverance turn (R1-01, R1-04)."""
        r, pc = self.r, self.pc(k)
        track = self.tracks[k]
        if track is not None:  # the PC's designer's track: a face of its dice
            rolls = track.faces()[0]
            roll = rolls[int(self.d["trk"][k]) % len(rolls)]  # (the draw: below trk_width)
            old = pc["trk"]
            self.track_to(k, track.transition(old, roll))
            self.note(
                self.name(k), "death save", target=self.name(k), roll=roll,
                note=f"{old} -> {pc['trk'] if pc['cond'] == DYING else pc['cond']}",
                **self.state(k),
            )  # fmt: skip
            return
        if r.seed000:
            old, o = pc["dying"], r.pf2e_of(k)
            roll = int(self.d["check"][k])
            roll2 = int(self.d["check2"][k]) if o["two"] else None  # P-15, P-16
            kw = dict(
                check=self.opts["check"],
                bonus=self.F.pcs[k].fort + self.pen,
                dc=pc["dc"],
                toughness=o["toughness"],  # P-13
            )
            delta = recovery_check.recovery_delta(
                recovery_check.kept_roll(roll, roll2, o["fortune"]), old, **kw
            )
            if o["rerolls"] and pc["hero"] > 0 and delta > 0:  # P-16: the reroll stands
                delta = recovery_check.recovery_delta(roll2, old, **kw)
                pc["hero"] -= 1
                self.tr["hero_spent"] += 1
            self.dying_to(k, old, old + delta, knockout=False)
            self.note(
                self.name(k), "recovery check", target=self.name(k), roll=roll,
                dc=pc["dc"], note=f"dying {old} -> {old + delta}", **self.state(k),
            )  # fmt: skip
            return
        pc["agony_turns"] += 1
        res, _, pc["pp"] = perseverance.perseverance_round(
            perseverance.AGONISING,
            pc["pp"],
            pc["agony_turns"],
            cost=r.stabilize_cost(k),
            spend=r.spend,
        )
        if res == perseverance.STABLE:
            pc["cond"] = STABLE
        elif res == perseverance.DEAD:
            self.kill(k)
        self.note(self.name(k), "agonising turn", target=self.name(k), note=f"PP {pc['pp']}",
                  **self.state(k))  # fmt: skip

    def pc_target(self, k, a) -> int | None:
        """The monster PC ``k``'s ``a``-th strike (or cantrip) goes to (AP-6)."""
        alive = self.living_monsters()
        if not alive:
            return None
        if self.r.pc_target == "focus":
            return min(alive, key=lambda j: (self.tr["mhp"][j], j))
        return alive[picked(self.d["pc_tgt"][k][a], len(alive))]

    def hit_monster(self, j, dmg):
        """``dmg`` to monster ``j``; at 0 HP it is dead (R0-02); none left: won."""
        self.tr["mhp"][j] = max(self.tr["mhp"][j] - dmg, 0)
        if not self.living_monsters():
            self.tr["phase"] = WON

    def strikes(self, k, acts=PC_STRIKES):
        """Two strikes (one an action: ``acts``) at the multiple attack penalty (P-02, P-03,
        P-10; AP-6)."""
        me = self.F.pcs[k]
        for a in range(min(PC_STRIKES, acts // seeds.COST["strike"])):
            if not self.fighting():
                return
            j = self.pc_target(k, a)
            if j is None:
                return
            bonus = me.attack + self.pen - map_penalty(pc_map(me.agile), a)
            roll = int(self.d["patk"][k][a])
            deg = degree(roll, bonus, self.F.monsters[j].ac)
            dmg = 0
            if STRIKE_MULT[deg]:  # (a miss: its damage dice are not rolled)
                dmg = strike_damage(deg, dice_value(me.damage, self.d[f"dmg{k}"][a]))
                if dmg > 0:
                    self.hit_monster(j, dmg)
            self.note(
                self.name(k), "strike", target=f"monster{j}", roll=roll, bonus=bonus,
                dc=self.F.monsters[j].ac, degree=DEGREES[deg], damage=dmg,
                hp=self.tr["mhp"][j],
            )  # fmt: skip

    def spell(self, k, j, base):
        """Monster ``j``'s basic Reflex against wizard ``k``'s spell DC (P-04, P-05)."""
        save = int(self.d["msave"][self.r.wizards.index(k)][j])
        deg = degree(save, self.F.monsters[j].reflex, self.F.pcs[k].spell_dc)
        dmg = basic_damage(deg, base)
        if dmg > 0:
            self.hit_monster(j, dmg)
        self.note(
            self.name(k), "spell", target=f"monster{j}", roll=save,
            bonus=self.F.monsters[j].reflex, dc=self.F.pcs[k].spell_dc,
            degree=DEGREES[deg], damage=dmg, hp=self.tr["mhp"][j],
        )  # fmt: skip

    def wizard(self, k, acts):
        """The area spell at every living monster while a slot is left, else the cantrip (P-05)."""
        me, pc = self.F.pcs[k], self.pc(k)
        if acts < seeds.COST["spell"]:
            return
        if pc["slots"] > 0:
            pc["slots"] -= 1
            base = dice_value(me.area, self.d[f"area{k}"])
            for j in self.living_monsters():
                self.spell(k, j, base)
            return
        j = self.pc_target(k, 0)
        if j is not None:
            self.spell(k, j, dice_value(me.cantrip, self.d[f"cantrip{k}"]))

    def cleric(self, c, acts):
        """AP-5: heal a PC at 0 HP, else a conscious one at or below ``heal_below``; else
        first aid on a dying PC; else two strikes (a heal, first aid: 2 actions, R0-04)."""
        if self.pc(c)["heals"] > 0 and acts >= seeds.COST["heal"]:
            down = self.party(DYING, STABLE)
            low = [
                q
                for q in self.party(UP)
                if self.pc(q)["hp"] <= self.r.heal_below * self.pc(q)["hp_max"]
            ]
            if down or low:
                self.heal(c, (down or low)[0])
                return
        dying = self.party(DYING)
        if dying and acts >= seeds.COST["first_aid"]:
            self.first_aid(c, dying[0])
            return
        if not seeds.grant(self, c, acts):  # R0-14, AP-37
            self.strikes(c, acts)

    def pc_turn(self, k):
        """Dying, the dying turn (R1-05: stabilised in it, up again for 1 PP); stable, up
        again for 1 PP (R1-05) and its tactic; up, A1-12's HP, slowed (R0-04), its tactic."""
        pc, r = self.pc(k), self.r
        if pc["cond"] == DYING:
            self.dying_turn(k)
            seeds.get_up(r, pc)
            return
        if not seeds.get_up(r, pc):
            if pc["cond"] != UP:
                return
            seeds.again(r, pc)
        acts = seeds.actions_left(r, pc)
        role = self.F.pcs[k].role
        if role == "cleric":
            self.cleric(k, acts)
        elif seeds.grant(self, k, acts):  # R0-14, AP-37
            pass
        elif role == "wizard":
            self.wizard(k, acts)
        else:
            self.strikes(k, acts)

    # -- the monsters' turns -------------------------------------------------------------------
    def area_effect(self, j):
        """AP-10: one damage roll at every conscious PC, each a basic Reflex (P-04) against
        the monster's spell DC; the PCs it knocks out fall in the party's order (AP-2)."""
        mo = self.F.monsters[j]
        self.tr["area_left"][j] -= 1
        base = dice_value(mo.area, self.d[self.r.monster_draw("marea", self.tr["fight"], j)])
        for k in self.party(UP):
            bonus = self.F.pcs[k].reflex + self.pen
            roll = int(self.d["psave"][j][k])
            deg = degree(roll, bonus, mo.spell_dc)
            dmg = basic_damage(deg, base)
            at = len(self.tr.get("log") or ())
            self.note(
                f"monster{j}", "area effect", target=self.name(k), roll=roll, bonus=bonus,
                dc=mo.spell_dc, degree=DEGREES[deg], damage=dmg, **self.state(k),
            )  # fmt: skip
            if dmg > 0:
                self.take_damage(k, dmg, crit=deg == CRIT_FAIL, dc=mo.spell_dc, by=j)
                self.log_state(at, k)
        self.check_defeat()

    def monster_target(self, j, a) -> int | None:
        """The PC monster ``j``'s ``a``-th strike goes to (AP-3, AP-6)."""
        r = self.r
        down, up = self.party(DYING, STABLE), self.party(UP)
        at_down = bool(down) and (
            r.target_downed == "always"
            or (
                r.target_downed == "sometimes"
                and happens(self.d["downed_u"][j][a], r.downed_chance)
            )
        )
        if at_down:
            if r.downed_pick == "random":
                return down[picked(self.d["down_tgt"][j][a], len(down))]
            return down[0]
        if not up:
            return None
        if r.monster_target == "random":
            return up[picked(self.d["mon_tgt"][j][a], len(up))]
        if r.monster_target == "weakest":
            return min(up, key=lambda q: (self.pc(q)["hp"], q))
        return up[0]

    def monster_turn(self, j):
        r, mo = self.r, self.F.monsters[j]
        if (
            r.area_on
            and self.tr["area_left"][j] > 0
            and happens(self.d["area_u"][j], self.lu.area_chance_of[j])
        ):
            self.area_effect(j)
            return
        if seeds.dying_effect(self, j):  # AP-35, A0-9
            return
        for a in range(r.attacks):  # P-02, P-03, R0-11
            if not self.fighting():
                return
            k = self.monster_target(j, a)
            if k is None:
                continue
            ac = strike_ac(self.F.pcs[k].ac, self.pc(k)["cond"] != UP)
            roll = int(self.d["matk"][j][a])
            bonus = mo.attack - map_penalty(self.lu.map, a)
            deg = degree(roll, bonus, ac)
            dmg = 0
            if STRIKE_MULT[deg]:  # (a miss: its damage dice are not rolled)
                dice = self.d[r.monster_draw("mdmg", self.tr["fight"], j)][a]
                dmg = strike_damage(deg, dice_value(mo.damage, dice))
            at = len(self.tr.get("log") or ())
            self.note(
                f"monster{j}", "strike", target=self.name(k), roll=roll, bonus=bonus, dc=ac,
                degree=DEGREES[deg], damage=dmg, **self.state(k),
            )  # fmt: skip
            if dmg > 0:
                self.take_damage(k, dmg, crit=deg == CRIT_SUCCESS, dc=mo.recovery_dc, by=j)
                seeds.con_hit(r, self.F.pcs[k], self.pc(k))  # R1-12
                self.log_state(at, k)
                self.check_defeat()

    # -- a round -------------------------------------------------------------------------------
    def fight_round(self):
        """Every combatant's turn in the acting order (P-01). A PC knocked out moves to just
        before the monster whose turn it is (R0-03), so it does not act again this round;
        the next turn is the one after the turn in progress."""
        order = self.tr["order"]
        at = 0
        while at < len(order) and self.fighting():
            who, x = order[at]
            if who == "pc":
                self.pc_turn(x)
            elif self.tr["mhp"][x] > 0:
                self.monster_turn(x)
            order = self.tr["order"]  # (moved by a knock-out)
            at = order.index((who, x)) + 1

    def care_round(self):
        """AP-7: each conscious cleric heals the first PC at 0 HP (a heal left) or gives
        first aid to the first dying PC; then every dying PC takes its turn."""
        for c in range(len(self.tr["pcs"])):
            if self.F.pcs[c].role != "cleric" or self.pc(c)["cond"] != UP:
                continue
            down = self.party(DYING, STABLE)
            if self.pc(c)["heals"] > 0 and down:
                self.heal(c, down[0])
                continue
            dying = self.party(DYING)
            if dying:
                self.first_aid(c, dying[0])
        for k in self.party(DYING):
            self.dying_turn(k)

    def night(self):
        """AP-11: each stable PC's hourly checks (R1-06, R1-08, A1-6, R1-11), the best
        Medicine of the conscious PCs as the healer; the first hour with a result decides,
        else it wakes after 8 hours with 1 HP per level (R1-07; never above its maximum,
        R0-01)."""
        r = self.r
        meds = [self.F.pcs[q].medicine for q in self.party(UP)]
        meds = [m for m in meds if m is not None]
        healer = max(meds) if meds else None
        for k in self.party(STABLE):
            pc = self.pc(k)
            results = [
                hourly.hourly_result(
                    int(self.d["con"][k][h]),
                    int(self.d["med"][k][h]),
                    con=seeds.con_now(r, self.F.pcs[k], pc),  # (R1-12)
                    healer=healer,
                    check_penalty=self.pen,
                    natural=r.natural,
                    lethal=not pc["nonlethal"],
                )
                for h in range(hourly.WAKE_HOURS)
            ]
            result, hp, _ = hourly.wake_up(results, r.checks, r.level, pc["hp_max"])  # R1-07
            if result == hourly.DEAD:
                self.kill(k)
            else:
                pc.update(cond=UP, hp=hp, **seeds.wake_rest(r, self.F.pcs[k], pc, results))
