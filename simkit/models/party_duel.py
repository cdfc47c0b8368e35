"""Exact duels of the ``party`` model: one PC against one monster, no healer.

The fight is then a finite absorbing chain. A transient state is ``(pc_hp, hero, slots,
mhp, area, pc_first)``: the PC's HP and hero points, the wizard's spell slots left, the
monster's HP and area effects left, and whether the PC acts before the monster. The
dying state is transient within a round: with one PC, a knock-out leaves every PC at
0 HP, which is a defeat at once, unless the knock-out spends a hero point (R0-10,
``hero_policy``; :func:`simkit.rules.hero_points.rise`) and the PC is back at 1 HP
(seed 000's ``revive``; pf2e-core's ``stabilize`` leaves it at 0 HP: defeat; seed 001
spends none: its knock-out, agonising, is a defeat). A revived PC moved to just before
the monster (R0-03): it acts first from the next round on and skips its turn in this one.

Under seed 001 with ``pe_damage=pe_first`` (A1-5) damage takes the PC's stamina points
first (:func:`simkit.rules.rest.split_damage`); its HP stay whole while it has PE, so
``pc_hp`` is then its HP + PE (its HP are ``min(pc_hp, the HP it started with)``, the
rest its PE).

One step is one round, as in :class:`~simkit.models.party.Party`: the PC's turn (two
strikes at the multiple attack penalty, or the wizard's area spell / cantrip, basic
Reflex save) and the monster's turn (its limited area effect with probability
``area_chance`` while it has uses, else ``attacks`` strikes) in initiative order.
Everything is built from the same numbers (:mod:`simkit.rules.pf2e.pcs`,
:mod:`simkit.rules.pf2e.creatures`) and rules (``degree_pmf``, dice pmfs, R0-13 massive
damage, :func:`simkit.rules.hero_points.rise`) as the Monte Carlo kernel; the turns are
memoised on the few fields they depend on.

PF2e's Diehard and a hero point's reroll (P-14, P-16) change which knock-outs a point
undoes (the PC's own ``death_at`` and threshold, :meth:`Party.pf2e_of`); the other seed
rules and options of fights change nothing in a duel (AP-31, :func:`duel_supported`), nor
do A1-10 and A1-11 (AP-38). A monster's dying effect (AP-35, A0-9) is one more of its
turns (``effect_turn``: :func:`effect_saves`, :func:`effect_kept`, :func:`revives`); under
the wounded rule (A0-2) ``pc_hp`` is then ``(that, the wounded value)`` (:func:`wounds`),
as it is ``(that, the Constitution damage)`` under seed 001.

This chain, state by state, is the reference: :func:`simkit.solve` answers a duel on
the grid of :mod:`simkit.models.duel_grid` (the PC's side and the monster's pushed apart,
AP-30), which the tests hold to it on small duels. With temporary HP (R0-14) ``pc_hp`` is
HP + PE + temporary HP, taken in the reverse order; with Constitution damage (R1-12)
``pc_hp`` is ``(that, the damage)``, each strike that hurts adding ``con_damage`` and the
PE held to the lowered maximum (:func:`pe_caps`). With a PC's grant of temporary HP
(AP-37) the chain is the solver (:meth:`Party.exact_hist`; the grid refuses it):
``pc_hp`` is ``(HP + PE, mark, temporary HP, grants left)``, and the PC's turn is the grant
to itself whenever it has one and it adds temporary HP under ``temp_keep``. This
module also sizes a duel (:func:`duel_states`: the chain's states; :func:`duel_cells`:
the grid's cells, refused past :data:`DUEL_MAX_CELLS`) and says why a fight is not a
duel (:func:`duel_refusal`).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache, lru_cache

import numpy as np

from simkit.core.exact import ExactTooLarge
from simkit.models.downed_rule import EFFECTS, pc_table
from simkit.rules import hero_points, initiative, massive_damage
from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, FAIL, SUCCESS, degree_pmf
from simkit.rules.dying_damage import knockout_value, wounded_after_losing
from simkit.rules.rest import split_damage
from simkit.rules.strike import basic_save_pmf, map_penalty, pc_map, strike_pmf
from simkit.rules.temp_hp import kept_temp

__all__ = [
    "DUEL_MAX_CELLS",
    "DUEL_MAX_STATES",
    "GRANT_MAX_STATES",
    "check_size",
    "custom_down",
    "duel_cells",
    "duel_start_v",
    "duel_initial",
    "duel_refusal",
    "duel_states",
    "duel_step",
    "duel_supported",
    "start_hp",
]

#: Duels whose solver needs more float64 cells than this (:func:`duel_cells`) are refused
#: (the Monte Carlo answers them): 40M cells is 320 MB. Every class and rule set at level
#: 20 is far below it at the defaults (a seed-001 wizard: 18.1M chain states, under 2M
#: cells; :mod:`simkit.models.duel_grid` pushes the PC's side and the monster's apart,
#: AP-30).
DUEL_MAX_CELLS = 40_000_000
#: Duels with a PC's grant of temporary HP (AP-37, AP-31), solved state by state, are
#: refused past this bound on their states (:func:`duel_states`): about 10 s of CPU.
GRANT_MAX_STATES = 400_000
#: The former bound on the chain's states (kept for compatibility: the bound is now on the
#: solver's cells, :data:`DUEL_MAX_CELLS`).
DUEL_MAX_STATES = DUEL_MAX_CELLS


def duel_supported(r) -> bool:
    """Whether ``r`` is an exact duel: one non-healing PC, one monster, one lineup, not
    starting at 0 HP (any dying system: with one PC, a knock-out no hero point undoes is a
    defeat; a custom track at 0 HP too, unless its start revives at once: :func:`custom_down`;
    the PC's own track, AP-25, as the fight's: the same numbers and dice; a PC's grant of
    temporary HP, AP-37, is solved state by state: it is the PC's turn acting on its own HP,
    which the grid keeps apart, AP-30; refused past :data:`GRANT_MAX_STATES`).

    The seed rules of issue 31 (AP-21..AP-24) and PF2e's options (AP-26) are all solved
    (AP-31): temporary HP (R0-14) and Constitution damage (R1-12) on the grid; slowed
    (R0-04), back in the fight (R1-05, A1-12), Toughness (P-13) and fortune (P-15) change
    nothing in a duel (a lone PC's knock-out is a defeat at once unless a hero point undoes
    it then, waking it with dying 0); Diehard (P-14) and a hero point's reroll (P-16) change
    which knock-outs a point undoes. The readings of issue 31 item 3 too (AP-38): A1-10 and
    A1-11 change nothing, a monster's dying effect (AP-35, A0-9) is solved, but with slowed
    under ``keep_hp`` or with temporary HP or a grant under ``drop``."""
    return duel_refusal(r) is None


def duel_refusal(r) -> str | None:
    """Why ``r`` is not an exact duel, in a few words (None when it is one:
    :func:`duel_supported`)."""
    F = r.fighters
    if r.n_fights != 1:
        return f"a plan of {r.n_fights} lineups; a duel is one"
    if len(F.pcs) != 1:
        return f"{len(F.pcs)} PCs; a duel is one PC"
    if F.pcs[0].heal is not None:
        return "a PC who heals (a cleric); a duel's PC does not"
    if len(F.monsters) != 1:
        return f"{len(F.monsters)} monsters; a duel is one"
    if r.hp == 0:
        return "hp=0: the PC starts down"
    if custom_down(r) is False:
        return "a custom track at 0 HP whose start revives at once (dying=)"
    if getattr(r, "dying_effect", 0) and r.dying_above_0 == "keep_hp" and r.seed_rules["slowed"]:
        return "dying_effect with slowed=true (the PC's slowed turn after it, AP-38)"
    if getattr(r, "dying_effect", 0) and r.dying_above_0 == "drop" and (_temp_hp(r) or grants(r)):
        return "dying_effect=drop with temporary HP or a grant (kept through a revival, AP-38)"
    return None


def duel_start_v(r) -> int:
    """The PC's ``v`` at the start: its HP (:func:`start_hp`), plus its PE with
    ``pe_damage=pe_first`` (A1-5), plus its temporary HP (R0-14, AP-23)."""
    pc = r.fighters.pcs[0]
    return start_hp(r) + (pc.pe_max if r.pe_on else 0) + _temp_hp(r)


def _temp_hp(r) -> int:
    """The PC's temporary HP at a fresh start (R0-14; 0 for a rules object without them)."""
    own = getattr(r, "temp_hp_of", None)
    return int(own(0)) if own is not None else 0


def pe_caps(r) -> np.ndarray:
    """The PC's maximum PE after each Constitution damage, up to the last that changes it
    (R1-12, AP-24: the fight loop's own table, :func:`simkit.fight.tables_con.con_table`);
    ``[0]`` without PE, ``[pe_max]`` without Constitution damage."""
    from simkit.fight.tables_con import con_table

    if not r.pe_on:
        return np.zeros(1, dtype=np.int64)
    seeds = getattr(r, "seed_rules", {})
    if not seeds.get("con_damage"):
        return np.array([r.fighters.pcs[0].pe_max], dtype=np.int64)
    caps = con_table(r, seeds)[0] % 65536
    changed = np.flatnonzero(caps != caps[-1])
    return caps[: int(changed[-1]) + 2] if changed.size else caps[:1]


def wounds(r) -> int:
    """The wounded values (A0-2) a duel's PC can have that differ (AP-38), under the wounded
    rule: a dying effect kept at its HP (AP-35, A0-9 ``keep_hp``) raises it by 1 each time,
    and a knock-out's dying value, which decides whether a hero point undoes it (R0-10),
    adds it (a day's fight starts from the value the day carries); up to the PC's death
    value less 1 (from there on any failed save or knock-out reaches it, R0-04). 1
    otherwise (a revival at the knock-out adds none: the PC was not dying)."""
    if not r.dying_options.get("wounded_rule"):
        return 1
    kept = getattr(r, "dying_effect", 0) and r.dying_above_0 == "keep_hp"
    revived = r.dying_options.get("hero_effect") == "revive" and r.hero_points > 0
    return int(r.pf2e_of(0)["death_at"]) if kept or revived else 1


def effect_saves(r) -> tuple[float, tuple[tuple[bool, float], ...]]:
    """The PC's Fortitude save (R0-05, P-10) against the monster's dying effect (AP-35, at
    its spell DC): ``(P(a success: nothing), ((crit, p), ...))``, the failure (dying 1) and
    the critical failure (dying 2)."""
    pc, mo = r.fighters.pcs[0], r.fighters.monsters[0]
    pmf = degree_pmf(pc.fort + r.check_penalty, mo.spell_dc)
    return float(pmf[SUCCESS] + pmf[CRIT_SUCCESS]), (
        (False, float(pmf[FAIL])),
        (True, float(pmf[CRIT_FAIL])),
    )


def effect_kept(r, wounded: int, crit: bool) -> int | None:
    """A0-9 ``keep_hp`` (:func:`simkit.rules.dying_damage.dying_given`): the PC's wounded
    value after a failed save against the dying effect (dying gained and lost at once, A0-2),
    None when the value reaches its death value (R0-04, P-14: dead)."""
    wr = bool(r.dying_options.get("wounded_rule"))
    value = knockout_value(start=1, crit=crit, wounded=wounded, wounded_rule=wr)
    death_at = r.pf2e_of(0)["death_at"]
    if (
        hero_points.rise(0, value, threshold=None, death_at=death_at, knockout=True)
        == hero_points.DEAD
    ):
        return None
    return min(int(wounded_after_losing(wounded, wr)), wounds(r) - 1)


def revives(r, held: bool, crit: bool, wounded: int = 0) -> bool:
    """Whether a hero point undoes a knock-out at once (R0-10; dying 1, 2 on a critical, its
    wounded value added under the wounded rule, A0-2; ``hero_points.rise`` with the PC's own
    death_at and threshold, P-14, P-16: :meth:`Party.pf2e_of`); only on the rules set's own
    track with ``hero_effect=revive`` (seed 000), never on a custom one nor under a
    non-lethal trait; ``held``: the PC holds a point."""
    if r.dying_options.get("hero_effect") != "revive" or custom_down(r) or r.trait != "lethal":
        return False
    o = r.pf2e_of(0)
    value = knockout_value(
        start=1, crit=crit, wounded=wounded, wounded_rule=bool(r.dying_options.get("wounded_rule"))
    )
    res = hero_points.rise(
        0,
        value,
        threshold=o["threshold"] if held else None,
        death_at=o["death_at"],
        knockout=True,
        hero_knockout=r.hero_knockout,
    )
    return res == hero_points.HERO


def grants(r) -> int:
    """The temporary HP the duel's PC grants itself a turn (``grant_temp_hp``, AP-37, R0-14);
    0 for none. Such a duel is solved state by state (its turn acts on its own HP: the grid
    keeps the two sides apart, AP-30), its ``pc_hp`` ``(HP + PE, mark, temporary HP, grants
    left)``."""
    return int(getattr(r.fighters.pcs[0], "grant_temp_hp", 0) or 0)


def _cons(r) -> int:
    """The Constitution damage values a duel's PC can have (R1-12, AP-24) that differ; 1
    without it."""
    return len(pe_caps(r))


def _marks(r) -> int:
    """The values of the PC's mark, the state's second part besides ``v``: its Constitution
    damage (seed 001, :func:`_cons`) or its wounded value (seed 000, pf2e-core,
    :func:`wounds`); 1 without either."""
    return _cons(r) * wounds(r)


def duel_cells(r) -> int:
    """The float64 cells the grid solver holds at most (:mod:`simkit.models.duel_grid`):
    the largest of the PC's side, the monster's hit matrices ``(v, v)`` (one per strike
    and its area effect, per Constitution damage) and its turn ``(mhp, mhp)``."""
    pc, mo = r.fighters.pcs[0], r.fighters.monsters[0]
    n = max(duel_start_v(r), 1) + 1
    cons = _marks(r)
    side = 2 * (pc.slots + 1) * (r.hero_points + 1) ** 2 * cons * n
    side *= r.area_uses_of[0] + 1 if r.area_on else 1
    hits = r.attacks + (1 if r.area_on else 0) + (1 if getattr(r, "dying_effect", 0) else 0)
    return max(side, hits * cons * n * n, (mo.hp + 1) ** 2)


def check_size(r) -> None:
    """Refuse (:class:`~simkit.core.exact.ExactTooLarge`, one line with the chain's states
    and the solver's cells) a duel past :data:`DUEL_MAX_CELLS`."""
    if grants(r) and duel_states(r) > GRANT_MAX_STATES:  # (solved state by state, AP-31)
        raise ExactTooLarge(
            f"the exact duel with a grant of temporary HP has up to {duel_states(r)} states, "
            f"solved one by one (more than {GRANT_MAX_STATES}); use Monte Carlo "
            "(simkit run party ...)"
        )
    cells = duel_cells(r)
    if cells > DUEL_MAX_CELLS:
        raise ExactTooLarge(
            f"the exact duel has up to {duel_states(r)} states and needs {cells} cells "
            f"(more than {DUEL_MAX_CELLS}); use Monte Carlo (simkit run party ...)"
        )


def custom_down(r) -> bool | None:
    """A duel's knock-out under a custom track at 0 HP (the PC's own, ``fighter(dying=...)``,
    else the fight's ``dying``: :func:`simkit.models.downed_rule.pc_table`): None without
    one (the rules set's own track: a hero point may revive, R0-10); True when the knock-out
    leaves the PC down (the track's start is a state, dead or stable: every PC is down, a
    defeat; hero points belong to the seed-000 track and do nothing); False when the start
    revives at once (not solved)."""
    table = pc_table(r, 0, r.check_penalty)
    if table is None:
        return None
    return table.start != -1 - EFFECTS.index("revived")


def duel_states(r) -> int:
    """An upper bound on the duel's transient states (the chain's; with Constitution damage
    or the wounded value times its values, :func:`_marks`; with a grant of temporary HP times
    its amounts and its uses, :func:`grants`)."""
    pc, mo = r.fighters.pcs[0], r.fighters.monsters[0]
    hp = duel_start_v(r)  # (with PE: HP + PE; with temporary HP, those too)
    given = (grants(r) + 1) * (pc.grant_uses + 1) if grants(r) else 1
    return given * (
        _marks(r)
        * (max(hp, 1) + 1)
        * (mo.hp + 1)
        * (r.hero_points + 1)
        * (pc.slots + 1)
        * (r.area_uses_of[0] + 1 if r.area_on else 1)
        * 2
    )


def duel_initial(r, start: tuple[int, ...] | None = None) -> dict:
    """Full HP (or ``hp``), initiative by d20 + Perception (ties: the monster first).

    ``start``: the PC's ``(HP, hero points, slots)`` instead, or ``(HP, hero points, slots,
    wounded)`` (a fight continued from where the last step left it:
    :mod:`simkit.models.day_duel`; HP at least 1; not with PE)."""
    if not duel_supported(r):
        raise NotImplementedError(
            "party: exact only for duels (one non-cleric PC, one monster, not hp=0)"
        )
    if start is not None and r.pe_on:
        raise NotImplementedError("party: a duel from a given state has no PE (pe_damage)")
    check_size(r)
    pc, mo = r.fighters.pcs[0], r.fighters.monsters[0]
    first = float(initiative.pc_first_p(pc.perception, mo.perception, r.check_penalty))  # P-01
    hp = duel_start_v(r)  # (with PE: HP + PE; with temporary HP, those too)
    if grants(r):  # (a grant, AP-37: (HP + PE, mark, temporary HP, grants left))
        temp = _temp_hp(r)
        hp = (hp - temp, 0, temp, pc.grant_uses)  # type: ignore[assignment]
    elif _marks(r) > 1:  # (with Constitution damage or wounded: (that, its mark), R1-12, A0-2)
        hp = (hp, 0)  # type: ignore[assignment]
    out: dict = {}
    if start is None:
        pc_part: tuple = (hp, r.hero_points, pc.slots)
    else:  # (a 4th value: the PC's mark, its wounded value under the wounded rule, AP-38)
        h, he, s = start[:3]
        mark = start[3] if len(start) > 3 else 0
        pc_part = ((h, mark) if _marks(r) > 1 else h, he, s)
    base = pc_part + (mo.hp, r.area_uses_of[0])
    if first > 0:
        out[base + (True,)] = first
    if first < 1:
        out[base + (False,)] = 1 - first
    return out


def duel_step(r, state, t: int, ends: bool = False) -> dict:
    """One round from ``state``: {next state or outcome: p}. ``ends``: a victory is keyed
    ``("victory", hp, hero, slots)``, the PC's state at the end (a day carries it on)."""
    return dict(_round(r, state, ends))


def start_hp(r) -> int:
    """The PC's HP at the start: full, or ``hp`` when lower."""
    hp = r.fighters.pcs[0].hp
    return hp if r.hp is None else min(hp, r.hp)


@lru_cache(maxsize=64)
def _turns(r):
    """The memoised turns of duel ``r`` (a frozen rules object)."""
    pc, mo = r.fighters.pcs[0], r.fighters.monsters[0]
    hp_max = pc.hp
    pen = r.check_penalty  # P-10: on every d20 the PC rolls
    pc_strikes = [  # P-02, P-03
        strike_pmf(pc.attack + pen - map_penalty(pc_map(pc.agile), a), mo.ac, pc.damage)
        for a in range(2)
    ]
    mo_strikes = [
        strike_pmf(mo.attack - map_penalty(r.map, a), pc.ac, mo.damage) for a in range(r.attacks)
    ]
    area = basic_save_pmf(pc.reflex + pen, mo.spell_dc, mo.area) if r.area_on else ()  # P-04
    spell = basic_save_pmf(mo.reflex, pc.spell_dc, pc.area) if pc.area else ()
    cantrip = basic_save_pmf(mo.reflex, pc.spell_dc, pc.cantrip) if pc.cantrip else ()

    @cache
    def pc_turn(mhp: int, slot: bool) -> tuple[tuple[int, float], ...]:
        """Monster HP after the PC's turn (0 = dead): ((mhp, p), ...)."""
        dist = {mhp: 1.0}
        hits = ([spell] if slot else [cantrip]) if pc.area else pc_strikes
        for outcomes in hits:
            new: dict[int, float] = defaultdict(float)
            for h, p in dist.items():
                if h == 0:
                    new[0] += p
                    continue
                for d, _c, q in outcomes:
                    new[max(h - d, 0)] += p * q
            dist = new
        return tuple(dist.items())

    hp_start = start_hp(r)
    caps = pe_caps(r)  # the PE's maximum after each Constitution damage (R1-12)
    con = int(r.seed_rules["con_damage"]) if len(caps) > 1 else 0
    marked = _marks(r) > 1  # the state's v is (v, its Constitution damage or wounded value)
    granting = grants(r) > 0  # the state's v is (HP + PE, mark, temporary HP, grants left)

    def unpack(hp) -> tuple:
        """``(v, mark, temporary HP, grants left)`` of a state's ``pc_hp`` (without a grant,
        ``v`` holds the temporary HP too and the last two are None)."""
        if granting:
            return hp
        return (*hp, None, None) if marked else (hp, 0, None, None)

    def pack(v: int, c: int, temp, uses):
        """A state's ``pc_hp`` from its parts (:func:`unpack`)."""
        if granting:
            return (v, c, temp, uses)
        return (v, c) if marked else v

    ws = wounds(r)
    ko = {
        (h, c, w): revives(r, h, c, w)
        for h in (False, True)
        for c in (False, True)
        for w in range(ws)
    }

    def knocked(after: int, hero: int, crit: bool, p: float, new, lost, uses=None) -> None:
        """The PC knocked out (R0-03) with mark ``after`` (its wounded value when marked):
        back at 1 HP by a hero point (R0-10, :func:`revives`, moved before the monster), or
        a defeat (every PC down, AP-9)."""
        if ko[(hero > 0, bool(crit), after if ws > 1 else 0)]:  # (temporary HP: none left)
            new[(pack(1, after, 0, uses), hero - 1, True)] += p
        else:
            lost[0] += p

    def hit(hp, hero: int, moved: bool, d: int, crit: bool, p: float, new, lost, hurts) -> None:
        """The PC at ``hp`` (with PE: HP + PE; with temporary HP, those too; with
        Constitution damage, ``(that, its damage)``) takes ``d`` damage with probability
        ``p``; ``hurts``: a strike, whose damage also takes Constitution (R1-12)."""
        if d <= 0:
            new[(hp, hero, moved)] += p
            return
        if massive_damage.is_massive(d, hp_max):  # R0-13: the hit's whole damage
            lost[0] += p
            return
        hp, c, temp, uses = unpack(hp)
        after = min(c + con, len(caps) - 1) if hurts and con else c  # R1-12: con_hit after
        # the pool's parts: HP are whole while PE are left, PE whole while temporary HP are
        whole = min(hp, hp_start)
        pe = min(hp - whole, int(caps[c]) if r.pe_on else 0)
        if temp is None:
            temp = hp - whole - pe
        hp = whole
        soak = min(temp, d)  # R0-14: temporary HP first
        temp, d = temp - soak, d - soak
        if r.pe_on:  # A1-5: then the PE
            pe, hp_left, excess = (int(x) for x in split_damage(d, pe, hp, r.pe_damage))
            d = hp - hp_left + excess  # what the PE did not take
            pe = min(pe, int(caps[after]))  # R1-12: the PE held to the lowered maximum
        if hp - d > 0:
            v = hp - d + pe + (0 if granting else temp)
            new[(pack(v, after, temp, uses), hero, moved)] += p
            return
        knocked(after, hero, crit, p, new, lost, uses)  # (death: dead; nonlethal, custom: down)

    @cache
    def monster_turn(hp: int, hero: int, use_area: bool):
        """((hp, hero, moved, p), ...), p(defeat) after the monster's strikes or area effect."""
        dist: dict = {(hp, hero, False): 1.0}
        lost = [0.0]
        for outcomes in [area] if use_area else mo_strikes:
            new: dict = defaultdict(float)
            for (h, he, mv), p in dist.items():
                for d, c, q in outcomes:
                    hit(h, he, mv, d, c, p * q, new, lost, not use_area)
            dist = new
        return tuple((h, he, mv, p) for (h, he, mv), p in dist.items()), lost[0]

    nothing, fails = effect_saves(r) if getattr(r, "dying_effect", 0) else (1.0, ())

    @cache
    def effect_turn(hp, hero: int):
        """The monster's dying effect (AP-35, R0-12) on the PC at ``hp``: a Fortitude save,
        dying 1 (2 on a critical failure) read by A0-9 (``dying_above_0``, AP-38):
        ``keep_hp`` the PC keeps its HP, its wounded value raised (:func:`effect_kept`, dead at
        its death value); ``drop`` a knock-out at that value (:func:`revives`)."""
        new: dict = defaultdict(float)
        lost = [0.0]
        new[(hp, hero, False)] += nothing
        v, w, temp, uses = unpack(hp)
        for crit, q in fails:
            if r.dying_above_0 == "drop":  # (refused with temporary HP: none here)
                knocked(w, hero, crit, q, new, lost, uses)
                continue
            w2 = effect_kept(r, w, crit)
            if w2 is None:
                lost[0] += q
            else:
                new[(pack(v, w2, temp, uses), hero, False)] += q
        return tuple((h, he, mv, p) for (h, he, mv), p in new.items()), lost[0]

    amount, keep = grants(r), getattr(r, "temp_keep", "larger")

    def granted(hp):
        """The PC's grant to itself this turn (AP-37, R0-14: in place of its strikes or
        spell, while it has grants and they add temporary HP under ``temp_keep``,
        :func:`simkit.rules.temp_hp.kept_temp`): its ``pc_hp`` after, None when it acts."""
        if not granting:
            return None
        v, c, temp, uses = hp
        more = kept_temp(temp, amount, keep)
        if uses <= 0 or more <= temp:
            return None
        return (v, c, more, uses - 1)

    chance = r.area_chance_of[0] if r.area_on else 0.0  # the monster's area chance a turn
    return pc_turn, monster_turn, effect_turn, granted, chance


def _round(r, state, ends: bool = False):
    pc_turn, monster_turn, effect_turn, granted, chance = _turns(r)
    effect = float(getattr(r, "dying_effect", 0.0))  # AP-35: its chance, after the area's
    hp, hero, slots, mhp, area, first = state
    out: dict = defaultdict(float)

    def won(hp_, hero_):
        """The victory's key (the PC's state after its turn with ``ends``)."""
        return ("victory", hp_, hero_, max(slots - 1, 0)) if ends else "victory"

    def pc_then(hp_, hero_, area_, first_, p, moved):
        """The PC's turn (unless moved), then the end of the round."""
        if moved:
            out[(hp_, hero_, slots, mhp, area_, True)] += p
            return
        given = granted(hp_)
        if given is not None:  # AP-37: its turn on its own temporary HP
            out[(given, hero_, slots, mhp, area_, first_)] += p
            return
        for m2, q in pc_turn(mhp, slots > 0):
            if m2 == 0:
                out[won(hp_, hero_)] += p * q
            else:
                out[(hp_, hero_, max(slots - 1, 0), m2, area_, first_)] += p * q

    def monster(hp_, hero_, mhp_, slots_, p, then_pc: bool):
        branches = []
        plain = 1.0
        if chance > 0 and area > 0:
            branches.append(("area", chance, area - 1))
            plain = 1 - chance
        if effect > 0:
            branches.append(("effect", plain * effect, area))
        branches.append(("strikes", plain * (1 - effect), area))
        for use, pa, area_ in branches:
            if pa <= 0:
                continue
            if use == "effect":
                after, lost = effect_turn(hp_, hero_)
            else:
                after, lost = monster_turn(hp_, hero_, use == "area")
            out["defeat"] += p * pa * lost
            for h2, he2, mv, q in after:
                if then_pc:
                    pc_then(h2, he2, area_, first or mv, p * pa * q, mv)
                else:
                    out[(h2, he2, slots_, mhp_, area_, True if mv else first)] += p * pa * q

    given = granted(hp) if first else None
    if given is not None:  # AP-37: its turn on its own temporary HP, then the monster's
        monster(given, hero, mhp, slots, 1.0, then_pc=False)
    elif first:
        for m2, q in pc_turn(mhp, slots > 0):
            if m2 == 0:
                out[won(hp, hero)] += q
            else:
                monster(hp, hero, m2, max(slots - 1, 0), q, then_pc=False)
    else:
        monster(hp, hero, mhp, slots, 1.0, then_pc=True)
    return out
