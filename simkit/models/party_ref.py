"""Scalar reference of the party kernel: one track, one round, plain Python.

Written apart from :mod:`simkit.models.party` from the round described in its docstring,
one action at a time, with the scalar references of the rule phases
(:func:`simkit.rules.recovery_check.recovery_delta`,
:func:`simkit.rules.dying_damage.hit_while_dying`, :func:`simkit.rules.hero_points.rise`,
:func:`simkit.rules.hourly.hourly_result`). Fed the same draws as the kernel (one row of
each array of :attr:`~simkit.models.party.Party.plan`), it must end every track the same
way with the same marks. Slow on purpose; not used by the engine.
"""

from __future__ import annotations

import numpy as np

from simkit.models.party import OUTCOMES, Party
from simkit.rules import (
    dying_damage,
    first_aid,
    guide,
    hero_points,
    hourly,
    initiative,
    massive_damage,
    perseverance,
    recovery_check,
)
from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, degree, dice_value
from simkit.rules.strike import basic_damage, map_penalty, pc_map, strike_ac, strike_damage

__all__ = ["new_track", "ref_init", "ref_round"]

UP, DYING, STABLE, DEAD = "up", "dying", "stable", "dead"


def _pick(draw, count: int) -> int:
    """The chosen one (0-based) among ``count``: ``w mod count`` for an integer draw made
    below a multiple of ``count``; ``floor(u * count)`` for a uniform float."""
    if isinstance(draw, (float, np.floating)):
        return min(int(float(draw) * count), count - 1)
    return int(draw) % count


def _happens(draw, p: float) -> bool:
    """A ``chance`` draw (two 16-bit words) falls in the event's cell of ``(p, 1 - p)``."""
    return guide.cell_of_draw(int(draw[0]), int(draw[1]), (p, 1.0 - p)) == 0


def new_track(r: Party, init_rolls) -> dict:
    """A track at the start; ``init_rolls``: the natural initiative d20s (PCs, then monsters)."""
    F = r.fighters
    P, M = len(F.pcs), len(F.monsters)
    order = initiative.initiative_order(  # P-01, AP-1; the PCs' rolls take the penalty
        [int(init_rolls[k]) + F.pcs[k].perception + r.check_penalty for k in range(P)],
        [int(init_rolls[P + j]) + F.monsters[j].perception for j in range(M)],
    )
    return {
        "pcs": [
            {
                "hp": p.hp,
                "cond": UP,
                "dying": 0,
                "wounded": 0,
                "dcs": 0,
                "hero": r.hero_points,
                "pp": p.pp_max,
                "turns": 0,
                "nl": False,
                "moved": False,
                "slots": p.slots,
                "heals": p.heals,
            }
            for p in F.pcs
        ],
        "mhp": [mo.hp for mo in F.monsters],
        "area": [r.area_uses] * M,
        "order": order,  # the acting order: ("pc", k) / ("monster", j), first first
        "phase": "fight" if M else "won",
        "deaths": 0,
        "knockouts": 0,
        "rounds": 0,
        "dead_mask": 0,
        "hero_spent": 0,
        "heals_spent": 0,
        "outcome": None,
    }


class _Track:
    """One track being played: the rules, its state and this round's draws."""

    def __init__(self, r: Party, tr: dict, d: dict):
        self.r, self.tr, self.d = r, tr, d
        self.F = r.fighters
        self.opts = r.dying_options

    # -- helpers ---------------------------------------------------------------------
    def over(self) -> bool:
        return self.tr["outcome"] is not None or self.tr["phase"] != "fight"

    def kill(self, k):
        pc = self.tr["pcs"][k]
        if pc["cond"] == DEAD:
            return
        pc.update(cond=DEAD, hp=0, dying=0)
        self.tr["deaths"] += 1
        self.tr["dead_mask"] |= 1 << k

    def stabilize(self, k):
        pc = self.tr["pcs"][k]
        if self.r.seed000:
            pc["wounded"] = dying_damage.wounded_after_losing(
                pc["wounded"], self.opts["wounded_rule"]
            )
        pc.update(cond=STABLE, dying=0)

    def rise(self, k, old, new, knockout):
        r, pc = self.r, self.tr["pcs"][k]
        res = hero_points.rise(
            old,
            new,
            threshold=r.threshold if pc["hero"] > 0 else None,
            death_at=r.death_at,
            knockout=knockout,
            hero_knockout=r.hero_knockout,
        )
        if res == hero_points.STABLE:
            self.stabilize(k)
        elif res == hero_points.HERO:
            if self.opts["hero_effect"] == "revive":
                pc["wounded"] = dying_damage.wounded_after_losing(
                    pc["wounded"], self.opts["wounded_rule"]
                )
                pc["hero"] -= 1
                self.tr["hero_spent"] += 1
                pc.update(hp=1, cond=UP)
            else:
                self.tr["hero_spent"] += pc["hero"]
                pc.update(hero=0, cond=STABLE)
            pc["dying"] = 0
        elif res == hero_points.DEAD:
            self.kill(k)
        else:
            pc.update(cond=DYING, dying=new)

    def knockout(self, k, crit, src, j, move, start=1):
        r, pc = self.r, self.tr["pcs"][k]
        pc["hp"] = 0
        self.tr["knockouts"] += 1
        if move:
            pc["moved"] = True
            self.tr["order"] = initiative.move_before(self.tr["order"], k, j)  # R0-03, AP-2
        if r.trait == "death":
            self.kill(k)
        elif r.trait == "nonlethal":
            pc.update(cond=STABLE, nl=True)
        elif r.seed000:
            pc["dcs"] = src
            gain = dying_damage.knockout_value(
                start=start,
                crit=crit,
                wounded=pc["wounded"],
                wounded_rule=self.opts["wounded_rule"],
            )
            self.rise(k, 0, gain, knockout=True)
        else:
            pc.update(cond=DYING, turns=0, nl=False)
            if r.zero_pp == "at_once" and pc["pp"] == 0:
                self.kill(k)

    def damage(self, k, j, dmg, crit, src):
        r, pc = self.r, self.tr["pcs"][k]
        if massive_damage.is_massive(dmg, self.F.pcs[k].hp):  # R0-13
            self.kill(k)
            return
        if pc["cond"] == DEAD:
            return
        if pc["cond"] == UP:
            left = pc["hp"] - dmg
            pc["hp"] = max(left, 0)
            if left <= 0:
                self.knockout(k, crit, src, j, move=True)
            return
        if r.trait == "death":
            self.kill(k)
        elif r.trait == "nonlethal":
            pass
        elif pc["cond"] == STABLE:
            self.knockout(k, crit, src, j, move=False)
        elif r.seed000:
            old = pc["dying"]
            new = dying_damage.hit_while_dying(
                old,
                crit,
                on_damage=self.opts["on_damage"],
                wounded=pc["wounded"],
                wounded_rule=self.opts["wounded_rule"],
                wounded_adds=r.wounded_adds,
            )
            pc["dcs"] = max(pc["dcs"], src)
            self.rise(k, old, new, knockout=False)

    def check_defeat(self):
        tr = self.tr
        if tr["phase"] != "fight" or tr["outcome"] is not None:
            return
        if all(pc["cond"] != UP for pc in tr["pcs"]):
            if self.r.after_defeat == "slain":
                for k in range(len(tr["pcs"])):
                    self.kill(k)
            tr["outcome"] = "defeat"

    def hit_monster(self, j, dmg):
        self.tr["mhp"][j] = max(self.tr["mhp"][j] - dmg, 0)
        if all(h == 0 for h in self.tr["mhp"]):
            self.tr["phase"] = "won"

    def heal(self, c, k):
        pc = self.tr["pcs"][k]
        if pc["cond"] != UP:
            if self.r.seed000 and pc["cond"] == DYING:
                pc["wounded"] = dying_damage.wounded_after_losing(
                    pc["wounded"], self.opts["wounded_rule"]
                )
            pc.update(cond=UP, dying=0, nl=False, hp=0)
        healed = dice_value(self.F.pcs[c].heal, self.d[f"heal{c}"])
        pc["hp"] = min(self.F.pcs[k].hp, pc["hp"] + healed)
        self.tr["pcs"][c]["heals"] -= 1
        self.tr["heals_spent"] += 1

    def first_aid(self, c, k):
        if first_aid.first_aid_succeeds(
            int(self.d["aid"][self.r.clerics.index(c)]),
            bonus=self.F.pcs[c].medicine,
            check_penalty=self.r.check_penalty,
            dc=self.r.first_aid_dc,
            natural=self.r.first_aid_natural,
        ):
            self.stabilize(k)

    # -- turns -----------------------------------------------------------------------
    def dying_turn(self, k):
        r, pc = self.r, self.tr["pcs"][k]
        if r.seed000:
            old = pc["dying"]
            delta = recovery_check.recovery_delta(
                int(self.d["check"][k]),
                old,
                check=self.opts["check"],
                bonus=self.F.pcs[k].fort + r.check_penalty,
                dc=pc["dcs"],
            )
            self.rise(k, old, old + delta, knockout=False)
            return
        pc["turns"] += 1
        res, _, pc["pp"] = perseverance.perseverance_round(
            perseverance.AGONISING, pc["pp"], pc["turns"], cost=r.stabilize_cost(k), spend=r.spend
        )
        if res == perseverance.STABLE:
            pc["cond"] = STABLE
        elif res == perseverance.DEAD:
            self.kill(k)

    def target(self, k, a) -> int | None:
        alive = [j for j, h in enumerate(self.tr["mhp"]) if h > 0]
        if not alive:
            return None
        if self.r.pc_target == "focus":
            return min(alive, key=lambda j: (self.tr["mhp"][j], j))
        return alive[_pick(self.d["pc_tgt"][k][a], len(alive))]

    def strikes(self, k):
        me = self.F.pcs[k]
        for a in range(2):
            if self.tr["phase"] != "fight":
                return
            j = self.target(k, a)
            deg = degree(  # P-02, P-03, P-10
                int(self.d["patk"][k][a]),
                me.attack + self.r.check_penalty - map_penalty(pc_map(me.agile), a),
                self.F.monsters[j].ac,
            )
            dmg = strike_damage(deg, dice_value(me.damage, self.d[f"dmg{k}"][a]))
            if dmg > 0:
                self.hit_monster(j, dmg)

    def wizard(self, k):
        me, pc = self.F.pcs[k], self.tr["pcs"][k]
        saves = self.d["msave"][self.r.wizards.index(k)]  # the monsters' Reflex d20s
        if pc["slots"] > 0:
            pc["slots"] -= 1
            base = dice_value(me.area, self.d[f"area{k}"])
            for j, mo in enumerate(self.F.monsters):
                if self.tr["mhp"][j] > 0:
                    dmg = basic_damage(degree(int(saves[j]), mo.reflex, me.spell_dc), base)
                    if dmg > 0:
                        self.hit_monster(j, dmg)
            return
        j = self.target(k, 0)
        if j is None:
            return
        base = dice_value(me.cantrip, self.d[f"cantrip{k}"])
        dmg = basic_damage(degree(int(saves[j]), self.F.monsters[j].reflex, me.spell_dc), base)
        if dmg > 0:
            self.hit_monster(j, dmg)

    def cleric(self, k):
        pcs_ = self.tr["pcs"]
        if pcs_[k]["heals"] > 0:
            downed = [q for q, pc in enumerate(pcs_) if pc["cond"] in (DYING, STABLE)]
            low = [
                q
                for q, pc in enumerate(pcs_)
                if pc["cond"] == UP and pc["hp"] <= self.r.heal_below * self.F.pcs[q].hp
            ]
            if downed or low:
                self.heal(k, (downed or low)[0])
                return
        dying = [q for q, pc in enumerate(pcs_) if pc["cond"] == DYING]
        if dying:
            self.first_aid(k, dying[0])
            return
        self.strikes(k)

    def pc_turn(self, k):
        pc = self.tr["pcs"][k]
        if pc["moved"]:
            return
        if pc["cond"] == DYING:
            self.dying_turn(k)
        elif pc["cond"] == UP:
            role = self.F.pcs[k].role
            if role == "cleric":
                self.cleric(k)
            elif role == "wizard":
                self.wizard(k)
            else:
                self.strikes(k)

    def monster_turn(self, j):
        r, tr, mo = self.r, self.tr, self.F.monsters[j]
        if r.area_on and tr["area"][j] > 0 and _happens(self.d["area_u"][j], r.area_chance):
            tr["area"][j] -= 1
            base = dice_value(mo.area, self.d[f"marea{j}"])
            for k, pc in enumerate(tr["pcs"]):
                if pc["cond"] == UP:
                    deg = degree(
                        int(self.d["psave"][j][k]),
                        self.F.pcs[k].reflex + r.check_penalty,
                        mo.spell_dc,
                    )
                    dmg = basic_damage(deg, base)
                    if dmg > 0:
                        self.damage(k, j, dmg, deg == CRIT_FAIL, mo.spell_dc)
            self.check_defeat()
            return
        for a in range(r.attacks):
            if self.over():
                return
            pcs_ = tr["pcs"]
            downed = [q for q, pc in enumerate(pcs_) if pc["cond"] in (DYING, STABLE)]
            up = [q for q, pc in enumerate(pcs_) if pc["cond"] == UP]
            aim_down = bool(downed) and (
                r.target_downed == "always"
                or (
                    r.target_downed == "sometimes"
                    and _happens(self.d["downed_u"][j][a], r.downed_chance)
                )
            )
            if aim_down and r.downed_pick == "random":  # AP-3
                k = downed[_pick(self.d["down_tgt"][j][a], len(downed))]
            elif aim_down:
                k = downed[0]
            elif not up:
                continue
            elif r.monster_target == "random":
                k = up[_pick(self.d["mon_tgt"][j][a], len(up))]
            elif r.monster_target == "weakest":
                k = min(up, key=lambda q: (pcs_[q]["hp"], q))
            else:
                k = up[0]
            ac = strike_ac(self.F.pcs[k].ac, pcs_[k]["cond"] != UP)  # R0-11
            deg = degree(int(self.d["matk"][j][a]), mo.attack - map_penalty(r.map, a), ac)
            dmg = strike_damage(deg, dice_value(mo.damage, self.d[f"mdmg{j}"][a]))
            if dmg > 0:
                self.damage(k, j, dmg, deg == CRIT_SUCCESS, mo.recovery_dc)
                self.check_defeat()

    def aftermath(self):
        pcs_ = self.tr["pcs"]
        for c, me in enumerate(self.F.pcs):
            if not me.heal or pcs_[c]["cond"] != UP:
                continue
            downed = [q for q, pc in enumerate(pcs_) if pc["cond"] in (DYING, STABLE)]
            if pcs_[c]["heals"] > 0 and downed:
                self.heal(c, downed[0])
                continue
            dying = [q for q, pc in enumerate(pcs_) if pc["cond"] == DYING]
            if dying:
                self.first_aid(c, dying[0])
        for k in range(len(pcs_)):
            if pcs_[k]["cond"] == DYING:
                self.dying_turn(k)

    def hourly(self):
        r, pcs_ = self.r, self.tr["pcs"]
        meds = [
            me.medicine
            for q, me in enumerate(self.F.pcs)
            if me.medicine is not None and pcs_[q]["cond"] == UP
        ]
        healer = max(meds) if meds else None
        for k, pc in enumerate(pcs_):
            if pc["cond"] != STABLE:
                continue
            results = [
                hourly.hourly_result(
                    int(self.d["con"][k][h]),
                    int(self.d["med"][k][h]),
                    con=self.F.pcs[k].con,
                    healer=healer,
                    check_penalty=r.check_penalty,
                    natural=r.natural,
                    lethal=not pc["nl"],
                )
                for h in range(hourly.WAKE_HOURS)
            ]
            result, hp, _ = hourly.wake_up(results, r.checks, r.level)  # R1-07
            if result == hourly.DEAD:
                self.kill(k)
            else:
                pc.update(cond=UP, hp=hp)


def ref_init(r: Party, tr: dict):
    """Step 0 of a track made by :func:`new_track` (the knock-outs of ``hp=0``): outcome or None."""
    if r.hp is not None:
        for k, pc in enumerate(tr["pcs"]):
            pc["hp"] = min(pc["hp"], r.hp)
    if r.hp == 0:
        T = _Track(r, tr, {})
        for k in range(len(tr["pcs"])):
            T.knockout(k, False, r.start_dc, None, move=False, start=r.start_dying)
        tr["knockouts"] = 0
        T.check_defeat()
    elif not tr["mhp"]:
        tr["outcome"] = "victory"
    return None if tr["outcome"] is None else OUTCOMES.index(tr["outcome"])


def ref_round(r: Party, tr: dict, d: dict):
    """Play round ``t`` on one track (``tr`` updated); return the outcome code or None."""
    T = _Track(r, tr, d)
    fighting = tr["phase"] == "fight"
    if fighting:
        tr["rounds"] += 1
    for pc in tr["pcs"]:
        pc["moved"] = False
    if fighting:
        for who, c in list(tr["order"]):  # this round's order; moves act from the next
            if T.over():
                continue
            if who == "pc":
                T.pc_turn(c)
            elif tr["mhp"][c] > 0:
                T.monster_turn(c)
        down = sum(pc["cond"] != UP for pc in tr["pcs"])
        if r.retreat_at is not None and not T.over() and down >= r.retreat_at:
            tr["phase"] = "fled"
    elif tr["outcome"] is None:
        T.aftermath()
    if (
        tr["outcome"] is None
        and tr["phase"] != "fight"
        and all(pc["cond"] != DYING for pc in tr["pcs"])
    ):
        if r.hourly_on:
            T.hourly()
        if tr["phase"] == "won":
            tr["outcome"] = "victory_with_deaths" if tr["deaths"] else "victory"
        else:
            tr["outcome"] = "retreat"
    return None if tr["outcome"] is None else OUTCOMES.index(tr["outcome"])
