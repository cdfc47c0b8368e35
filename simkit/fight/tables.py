"""Every number the fight loop reads, built from the rules' scalar references.

The loop (:mod:`simkit.fight.loop`) never grades a check or moves a dying value itself: it
reads tables made here by calling the rules' own scalar functions on every case it can
meet, so a rule has one home (its module in :mod:`simkit.rules`) and the loop only says
when it applies:

- ``deg[roll - 1, margin + MARGIN]``: the degree of success (R0-05,
  :func:`simkit.rules.dice.degree`) by natural d20 and bonus minus DC;
- ``rec[k, dc, dying, roll - 1]``: PC ``k``'s recovery check (R0-05..R0-07, A0-4,
  :func:`simkit.rules.recovery_check.recovery_delta`) by recovery DC (an index into
  ``dcs``), dying value and roll;
- ``rise[held, knockout, old, new]``: what dying moving from ``old`` to ``new`` does
  (R0-04, R0-08, R0-10, A0-3, A0-7, :func:`simkit.rules.hero_points.rise`);
- ``ko[start, crit, wounded]``, ``hit[dying, crit, wounded]``, ``wafter[wounded]``: the dying
  value of a knock-out and of a hit while dying, the wounded value after dying
  (R0-03, R0-09, A0-1, A0-2, A0-6, :mod:`simkit.rules.dying_damage`);
- ``aid[k, roll - 1]``: PC ``k``'s first aid (R1-02, AP-4, :mod:`simkit.rules.first_aid`);
- ``agony[k, pp, turn]``: seed 001's agonising turn (R1-01, R1-04,
  :func:`simkit.rules.perseverance.perseverance_round`); ``hour`` (an hourly check, R1-06)
  and ``con`` (Constitution damage, R1-12): :mod:`simkit.fight.tables_con`; the night's
  hours and HP from :func:`simkit.rules.hourly.wake_up` (R1-07);
- ``strike_x[deg]``, ``basic_x2[deg]``: a strike's and a basic save's damage multipliers
  (P-03, P-04, :mod:`simkit.rules.strike`); ``pmap``/``mmap``: the multiple attack
  penalties (P-02); the AC of a PC at 0 HP (R0-11) in ``pcn[:, AC_DOWN]``;
- ``tie``: the initiative ties (AP-1, :func:`simkit.rules.initiative.initiative_keys`);
- ``dice``/``sums``: each dice expression's sums (:func:`simkit.rules.dice.dice_table`);
- ``trk``: a designer's track at 0 HP in the rules set's place (``dying``, per PC, issue 31:
  :mod:`simkit.fight.tables_trk`, by check penalty and PC): the code after a turn with
  each face and after a hit, a state's index or ``-1 - effect`` (dead, stable, revived);
- ``reads``: A1-10, A1-11 and A0-9 with AP-35's effect (:mod:`simkit.fight.tables_read`).

The tables that hold a check's bonus (``pcn``, ``rec``, ``aid``, ``hour``) have one block a
check penalty present in the block (P-10; a track's ``PEN_IX``), and the monsters' tables
(``monn``, ``mmap``, ``fights``: each lineup's monsters and its start's DC) one block a
lineup, padded to the largest (a track's ``FIGHT_IX``); the readers below take the track's
row to pick its blocks. Picks draw below the least common multiple of their counts
(``PICK_P``, ``PICK_M``), as the party's plan does.

Dying values are clamped at ``V`` and wounded values at ``V`` in the lookups, past which
no rule changes its answer (both only rise towards death).

The rules object is read by its attributes (a :class:`simkit.models.party.Party`): this
module imports nothing from the models. The readers index ``T`` with unsigned numbers
(``np.uint64``), as the row's places are (:mod:`simkit.fight.state`): numba then leaves
out its negative-index wraparound.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from simkit.core.params import ParamError
from simkit.fight import tables_con, tables_pf2e, tables_read, tables_tmp, tables_trk
from simkit.fight._jit import scalar
from simkit.fight.dice import edge_of
from simkit.fight.state import CON_DAMAGE, FIGHT_IX, MMAP_AT, MONN_AT, PCN_AT, PEN_IX, pc
from simkit.fight.tables_con import night, night_hp_of
from simkit.fight.tables_pf2e import N_PF2
from simkit.rules import (
    dying_damage,
    dying_systems,
    first_aid,
    hero_points,
    hourly,
    initiative,
    perseverance,
    recovery_check,
)
from simkit.rules.dice import MAX_DICE_TABLE, Dice, degree, dice_table
from simkit.rules.massive_damage import is_massive
from simkit.rules.strike import BASIC_X2, STRIKE_MULT, map_penalty, pc_map, strike_ac

__all__ = ["Tables", "build", "edge_of", "pack", "supported"]

#: Margins (bonus - DC) beyond +-MARGIN grade every roll as at +-MARGIN.
MARGIN = 40
#: Roles: what a PC does on its turn (:mod:`simkit.fight.tactics`).
STRIKER, CLERIC, WIZARD = 0, 1, 2
# -- pcn columns (per PC) -----------------------------------------------------------------
(
    HP_MAX,
    AC,
    AC_DOWN,
    REFLEX,
    FORT,
    PERC,
    ATK,
    ROLE,
    SPELL_DC,
    HEALS0,
    SLOTS0,
    DMG,
    AREA,
    CANTRIP,
    HEAL,
    LOW,
    MASSIVE,
    HERO0,
    PP0,
    PE0,
    COST,
    HEALER,
    NIGHT_HP0,
    TEMP0,
) = range(24)
N_PCN = 24
# -- monn columns (per monster) -----------------------------------------------------------
M_HP, M_AC, M_REFLEX, M_PERC, M_ATK, M_RDC, M_SDC, M_DMG, M_AREA, M_USES, M_EDGE = range(11)
N_MONN = 11
# -- dice rows ----------------------------------------------------------------------------
D_COUNT, D_SIDES, D_BONUS, D_WIDTH, D_OFF = range(5)
# -- options ------------------------------------------------------------------------------
(
    ATTACKS,
    HERO_REVIVE,
    TRAIT,
    TARGET_DOWNED,
    DOWNED_EDGE,
    DOWNED_RANDOM,
    MONSTER_TARGET,
    PC_SPREAD,
    SLAIN,
    RETREAT_AT,
    MAX_ROUNDS,
    HP_CAP,
    START_DYING,
    START_DC,
    AREA_ON,
    V,
    WOUNDED_RULE,
    SEED001,
    ZERO_AT_ONCE,
    PE_FIRST,
    HOURLY,
    NIGHT_CHECKS,
    AWAKE_HP,
    PP_CAP,
    T_CAP,
    N_HEALERS,
    PICK_P,
    PICK_M,
    NIGHT_HOURS,
    CUSTOM,
    TRK_FACES,
    DEFEAT_OFF,
    SLOWED_ON,
    SLOWED_SPARE,
    BACK_ON,
    ENOUGH_PP,
    BACK_AGAIN,
    CON_DMG,
    CON_L,
    CON_CAP,
) = range(40)
N_OPT = 40
LETHAL, DEATH, NONLETHAL = 0, 1, 2
NEVER, SOMETIMES, ALWAYS = 0, 1, 2
T_RANDOM, T_WEAKEST, T_FOCUS = 0, 1, 2
#: rise codes (:mod:`simkit.rules.hero_points`)
R_STABLE, R_HERO, R_DEAD, R_CARRY = (
    hero_points.STABLE,
    hero_points.HERO,
    hero_points.DEAD,
    hero_points.CARRY_ON,
)

Tables = namedtuple(
    "Tables",
    [
        "pcn",  # (pens, P, N_PCN) int64: by check penalty (a track's PEN_IX), PC
        "pmap",  # (P, 2) int64
        "monn",  # (fights, M, N_MONN) int64: by lineup (a track's FIGHT_IX), slot
        "mmap",  # (fights, attacks) int64
        "fights",  # (fights, 2) int64: each lineup's monsters and its start's recovery DC
        "dice",  # (D, 5) int64
        "sums",  # (S,) int64
        "deg",  # (20, 2 MARGIN + 1) int64
        "strike_x",  # (4,) int64
        "basic_x2",  # (4,) int64
        "rec",  # (pens, P, n_dc, V + 1, 20) int64
        "dc_index",  # (max DC + 1,) int64: a DC's index in rec
        "rise",  # (P, 2, 2, V + 1, V + 1) int64: per PC (tables_pf2e)
        "ko",  # (2, 2, V + 1) int64: [a fight's knock-out / hp=0's start_dying, crit, wounded]
        "hit",  # (V + 1, 2, V + 1) int64
        "wafter",  # (V + 1,) int64
        "aid",  # (pens, P, 20) int64
        "tie",  # (P + M,) int64
        "agony",  # (P, PP_CAP + 1, T_CAP + 1) int64: (outcome + 1) * 4096 + PP after the turn
        "hour",  # (pens, P, loss, N_HEALERS, 2, 20, 20) int64: an hourly result (tables_con)
        "opt",  # (N_OPT,) int64
        "trk",  # a custom track at 0 HP (``dying``), by check penalty: see _trk
        "con",  # (P, damage) int64: Constitution damage (R1-12, tables_con)
        "pf2",  # (P, N_PF2) int64: PF2e's options per PC (P-15, P-16, tables_pf2e)
        "tmp",  # (P, 3) int64: temporary HP granted (R0-14, AP-37, tables_tmp)
        "reads",  # A1-10, A1-11, A0-9, AP-35 (tables_read)
    ],
)

#: Options the loop plays in this release, with the values it takes (the rest: a refusal).
_REFUSED: dict[str, tuple] = {}


def supported(rules) -> str | None:
    """None when the loop plays ``rules``, else one line saying what it does not play yet."""
    for name, bad in _REFUSED.items():
        if getattr(rules, name) in bad:
            return f"the compiled fight loop does not play {name}={getattr(rules, name)} yet"
    F = rules.fighters
    if not F.pcs:
        return "the compiled fight loop needs at least one PC"
    return None


class _Dice:
    """The dice expressions of a fight, each a row of ``dice`` and its sums in ``sums``."""

    def __init__(self):
        self.rows: list[tuple[int, int, int, int, int]] = []
        self.parts: list[np.ndarray] = []
        self.ids: dict[str, int] = {}
        self.size = 0

    def __call__(self, text) -> int:
        if not text:
            return -1
        if text not in self.ids:
            d = Dice.parse(text)
            width = d.sides**d.count if d.count else 0
            if d.count and width <= MAX_DICE_TABLE:
                self.parts.append(dice_table(text).astype(np.int64))
                self.rows.append((d.count, d.sides, d.bonus, width, self.size))
                self.size += width
            else:  # one draw a die
                self.rows.append((d.count, d.sides, d.bonus, 0, 0))
            self.ids[text] = len(self.rows) - 1
        return self.ids[text]


def _pick_width(most: int) -> int:
    """The width of a pick among at most ``most`` candidates: the least common multiple of
    1..most (every count divides it), or 0 past 65,536 (then a draw below the count)."""
    lcm = math.lcm(*range(1, max(most, 1) + 1))
    return lcm if lcm <= 2**16 else 0


def _massive_at(hp_max: int) -> int:
    """The least damage that kills outright (R0-13, :func:`is_massive`)."""
    lo, hi = 1, max(1, 4 * hp_max + 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if is_massive(mid, hp_max):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _pc_tables(rules, pen: int, healers, dcs, Vmax: int, opts, dice) -> dict:
    """The tables of the PCs that depend on the check penalty ``pen`` (P-10): their row of
    numbers, recovery checks, first aid and hourly checks."""
    F = rules.fighters
    P = len(F.pcs)
    pcn = np.zeros((P, N_PCN), dtype=np.int64)
    for k, p in enumerate(F.pcs):
        wizard = bool(p.area and p.cantrip)
        role = CLERIC if p.role == "cleric" else WIZARD if p.role == "wizard" else STRIKER
        if role == WIZARD and not wizard:
            role = STRIKER
        if role == CLERIC and not p.heal:
            role = STRIKER
        pcn[k] = (
            p.hp,
            strike_ac(p.ac, False),
            strike_ac(p.ac, True),  # R0-11
            p.reflex + pen,
            p.fort + pen,
            p.perception + pen,
            p.attack + pen,
            role,
            p.spell_dc or 0,
            p.heals,
            p.slots,
            dice(p.damage),
            dice(p.area) if wizard else -1,
            dice(p.cantrip) if wizard else -1,
            dice(p.heal),
            # "at or below heal_below of its max HP", for integer HP
            math.floor(rules.heal_below * p.hp),
            _massive_at(p.hp),
            rules.hero_points,
            p.pp_max,
            p.pe_max,
            rules.stabilize_cost(k),
            healers.index(p.medicine),
            night_hp_of(rules, p.hp),
            rules.temp_hp_of(k) if hasattr(rules, "temp_hp_of") else 0,  # R0-14
        )
    rec = np.zeros((P, len(dcs), Vmax + 1, 20), dtype=np.int64)
    tough = [bool(tables_pf2e.options(rules, k)["toughness"]) for k in range(P)]  # P-13
    aid = np.zeros((P, 20), dtype=np.int64)
    for k, p in enumerate(F.pcs):
        for i, dc in enumerate(dcs):
            for v in range(1, Vmax + 1):
                for r in range(1, 21):
                    rec[k, i, v, r - 1] = recovery_check.recovery_delta(
                        r, v, check=opts["check"], bonus=p.fort + pen, dc=dc, toughness=tough[k]
                    )
        if p.medicine is not None:
            aid[k] = [
                first_aid.first_aid_succeeds(
                    r,
                    bonus=p.medicine,
                    check_penalty=pen,
                    dc=rules.first_aid_dc,
                    natural=rules.first_aid_natural,
                )
                for r in range(1, 21)
            ]
    return {"pcn": pcn, "rec": rec, "aid": aid, "hour": tables_con.hour_table(rules, pen, healers)}


def build(rules, pens: tuple[int, ...] | None = None) -> Tables:
    """The tables of ``rules``' fight (a :class:`~simkit.models.party.Party`), for each of
    its lineups (a track's fight index) and each check penalty of ``pens`` (a track's
    penalty index; default: the rules' own); a :class:`~simkit.core.params.ParamError`
    for what the loop does not play."""
    why = supported(rules)
    if why is not None:
        raise ParamError(why)
    pens = (int(rules.check_penalty),) if pens is None else tuple(int(x) for x in pens)
    F = rules.fighters
    fights = rules.lineup_rules
    P = len(F.pcs)
    M = max(len(fr.fighters.monsters) for fr in fights)
    seed001 = not rules.seed000
    # (seed 001 has no seed-000 track options: its tables are built on the seed's, unused)
    opts = dying_systems.SEED000 if seed001 else rules.dying_options
    meds = sorted({p.medicine for p in F.pcs if p.medicine is not None})
    healers = [None, *meds]  # a night's healer: none, or one of the party's Medicine bonuses
    dice = _Dice()
    area_on = bool(rules.area_on)
    # each lineup's monsters, padded to the largest: an absent one has 0 HP (never acts,
    # never a target) and no area effect
    monn = np.zeros((len(fights), max(M, 1), N_MONN), dtype=np.int64)
    monn[:, :, M_DMG] = -1
    monn[:, :, M_AREA] = -1
    mmap = np.zeros((len(fights), max(rules.attacks, 1)), dtype=np.int64)
    fight_info = np.zeros((len(fights), 2), dtype=np.int64)  # (monsters, start DC)
    for f, fr in enumerate(fights):
        uses, chances = fr.area_uses_of, fr.area_chance_of
        for j, mo in enumerate(fr.fighters.monsters):
            monn[f, j] = (
                mo.hp,
                mo.ac,
                mo.reflex,
                mo.perception,
                mo.attack,
                mo.recovery_dc,
                mo.spell_dc,
                dice(mo.damage),
                dice(mo.area) if area_on else -1,
                uses[j] if area_on else 0,
                edge_of(chances[j]) if area_on else 0,
            )
        mmap[f, : rules.attacks] = [map_penalty(fr.map, a) for a in range(rules.attacks)]
        fight_info[f] = (len(fr.fighters.monsters), fr.start_dc)
    deg = np.array(
        [[degree(r, m, 0) for m in range(-MARGIN, MARGIN + 1)] for r in range(1, 21)],
        dtype=np.int64,
    )
    # dying values: clamped at V, past death and past the hero point's threshold
    thr = rules.threshold
    diehard = any(tables_pf2e.options(rules, k)["diehard"] for k in range(P))  # P-14
    Vmax = max(rules.death_at + int(diehard), thr or 0, rules.start_dying) + 4
    dcs = sorted(
        {int(mo.recovery_dc) for fr in fights for mo in fr.fighters.monsters}
        | {int(mo.spell_dc) for fr in fights for mo in fr.fighters.monsters}
        | {int(fr.start_dc) for fr in fights}
    )
    dc_index = np.zeros(max(dcs) + 1, dtype=np.int64)
    for i, dc in enumerate(dcs):
        dc_index[dc] = i
    by_pen = [_pc_tables(rules, pen, healers, dcs, Vmax, opts, dice) for pen in pens]
    rise = tables_pf2e.rise_table(rules, Vmax)  # per PC (P-14, P-16)
    wr = bool(opts["wounded_rule"])
    ko = np.array(
        [
            [
                [
                    min(
                        Vmax,
                        dying_damage.knockout_value(start=s, crit=c, wounded=w, wounded_rule=wr),
                    )
                    for w in range(Vmax + 1)
                ]
                for c in (False, True)
            ]
            for s in (1, rules.start_dying)
        ],
        dtype=np.int64,
    )
    hit = np.array(
        [
            [
                [
                    min(
                        Vmax,
                        dying_damage.hit_while_dying(
                            v,
                            c,
                            on_damage=opts["on_damage"],
                            wounded=w,
                            wounded_rule=wr,
                            wounded_adds=rules.wounded_adds,
                        ),
                    )
                    for w in range(Vmax + 1)
                ]
                for c in (False, True)
            ]
            for v in range(Vmax + 1)
        ],
        dtype=np.int64,
    )
    wafter = np.array(
        [min(Vmax, dying_damage.wounded_after_losing(w, wr)) for w in range(Vmax + 1)],
        dtype=np.int64,
    )
    # seed 001: the agonising turn by PP and turn (R1-01, R1-04)
    pp_cap = max([p.pp_max for p in F.pcs] + [1]) + 4
    spend = rules.spend
    t_cap = (int(spend) + 2) if isinstance(spend, int) or str(spend).isdigit() else 1
    agony = np.zeros((P, pp_cap + 1, t_cap + 1), dtype=np.int64)
    if seed001:
        codes = {None: 0, perseverance.STABLE: 1, perseverance.DEAD: 2}
        for k, p in enumerate(F.pcs):
            cost = rules.stabilize_cost(k)
            for pp in range(pp_cap + 1):
                for turn in range(1, t_cap + 1):
                    res, _, left = perseverance.perseverance_round(
                        perseverance.AGONISING, pp, turn, cost=cost, spend=spend
                    )
                    agony[k, pp, turn] = codes[res] * 4096 + left
    night_checks, awake_hp = night(rules)
    # the initiative's ties: the keys of zero rolls at zero Perception (AP-1)
    tie = initiative.initiative_keys(np.zeros((1, P + M)), [0] * P, [0] * M)[0].astype(np.int64)
    opt = np.zeros(N_OPT, dtype=np.int64)
    opt[ATTACKS] = rules.attacks
    opt[HERO_REVIVE] = opts["hero_effect"] == "revive"
    opt[TRAIT] = {"lethal": LETHAL, "death": DEATH, "nonlethal": NONLETHAL}[rules.trait]
    opt[TARGET_DOWNED] = {"never": NEVER, "sometimes": SOMETIMES, "always": ALWAYS}[
        rules.target_downed
    ]
    opt[DOWNED_EDGE] = edge_of(rules.downed_chance)
    opt[DOWNED_RANDOM] = rules.downed_pick == "random"
    opt[MONSTER_TARGET] = {"random": T_RANDOM, "weakest": T_WEAKEST, "focus": T_FOCUS}[
        rules.monster_target
    ]
    opt[PC_SPREAD] = rules.pc_target == "spread"
    opt[SLAIN] = rules.after_defeat == "slain"
    opt[RETREAT_AT] = -1 if rules.retreat_at is None else rules.retreat_at
    opt[MAX_ROUNDS] = rules.max_rounds
    opt[HP_CAP] = -1 if rules.hp is None else rules.hp
    opt[START_DYING] = rules.start_dying
    opt[AREA_ON] = area_on
    opt[V] = Vmax
    opt[WOUNDED_RULE] = wr
    opt[SEED001] = seed001
    opt[ZERO_AT_ONCE] = rules.zero_pp == "at_once"
    opt[PE_FIRST] = bool(rules.pe_on)
    opt[HOURLY] = bool(rules.hourly_on)
    opt[NIGHT_CHECKS] = night_checks
    opt[AWAKE_HP] = awake_hp
    opt[PP_CAP] = pp_cap
    opt[T_CAP] = t_cap
    opt[N_HEALERS] = len(healers)
    opt[PICK_P], opt[PICK_M] = _pick_width(P), _pick_width(M)
    opt[NIGHT_HOURS] = hourly.WAKE_HOURS
    trk, faces = tables_trk.trk_table(rules, pens)  # per PC (issue 31)
    opt[CUSTOM] = trk is not None
    opt[TRK_FACES] = faces
    seeds = getattr(rules, "seed_rules", {})  # R0-04, R0-10, R1-05, A1-3, A1-12 (issue 31)
    opt[SLOWED_ON] = seeds.get("slowed", False)
    opt[SLOWED_SPARE] = seeds.get("slowed_loses", "spare") == "spare"
    opt[BACK_ON] = seed001 and seeds.get("back_in_fight", False)
    opt[ENOUGH_PP], opt[BACK_AGAIN] = seeds.get("enough_pp", 1), seeds.get("back_again", False)
    con = tables_con.con_table(rules, seeds)  # R1-12, A1-4
    opt[CON_DMG] = seed001 and seeds.get("con_damage", 0)
    opt[CON_L], opt[CON_CAP] = by_pen[0]["hour"].shape[1], con.shape[1] - 1
    rows = np.array(dice.rows, dtype=np.int64).reshape(-1, 5)
    sums = np.concatenate(dice.parts) if dice.parts else np.zeros(1, dtype=np.int64)
    return Tables(
        pcn=np.stack([b["pcn"] for b in by_pen]),
        pmap=np.array(
            [[map_penalty(pc_map(p.agile), a) for a in range(2)] for p in F.pcs], dtype=np.int64
        ),
        monn=monn,
        mmap=mmap,
        fights=fight_info,
        dice=rows if len(rows) else np.zeros((1, 5), dtype=np.int64),
        sums=sums,
        deg=deg,
        strike_x=np.array([STRIKE_MULT[d] for d in range(4)], dtype=np.int64),
        basic_x2=np.array([BASIC_X2[d] for d in range(4)], dtype=np.int64),
        rec=np.stack([b["rec"] for b in by_pen]),
        dc_index=dc_index,
        rise=rise,
        ko=ko,
        hit=hit,
        wafter=wafter,
        aid=np.stack([b["aid"] for b in by_pen]),
        tie=tie,
        agony=agony,
        hour=np.stack([b["hour"] for b in by_pen]),
        opt=opt,
        trk=np.zeros(1, dtype=np.int64) if trk is None else trk,
        con=con,
        pf2=tables_pf2e.pf2_table(rules),
        tmp=tables_tmp.tmp_table(rules),
        reads=tables_read.read_table(rules),
    )


# -- the packed form the loop reads ----------------------------------------------------------
# One int64 array: a header (the sizes, then each table's offset), then the tables, flat in
# the order of ``Tables``' fields. One array a call keeps the loop's calls cheap.
H_P, H_M, H_V, H_NDC, H_NPEN, H_NFIGHT = range(6)
(
    O_PCN,
    O_PMAP,
    O_MONN,
    O_MMAP,
    O_FIGHTS,
    O_DICE,
    O_SUMS,
    O_DEG,
    O_STRX,
    O_BASX,
    O_REC,
    O_DCI,
    O_RISE,
    O_KO,
    O_HIT,
    O_WAFTER,
    O_AID,
    O_TIE,
    O_AGONY,
    O_HOUR,
    O_OPT,
    O_TRK,
    O_CON,
    O_PF2,
    O_TMP,
    O_READS,
) = range(6, 6 + len(Tables._fields))
N_HEAD = 6 + len(Tables._fields)


def pack(T: Tables) -> np.ndarray:
    """``T`` as the one read-only int64 array the loop reads (header, then the tables)."""
    head = np.zeros(N_HEAD, dtype=np.int64)
    head[H_P], head[H_M] = T.pcn.shape[1], T.monn.shape[1]
    head[H_V], head[H_NDC] = T.opt[V], T.rec.shape[2]
    head[H_NPEN], head[H_NFIGHT] = T.pcn.shape[0], T.monn.shape[0]
    parts, at = [head], N_HEAD
    for i, name in enumerate(Tables._fields):
        a = np.ascontiguousarray(getattr(T, name), dtype=np.int64).reshape(-1)
        head[6 + i] = at
        parts.append(a)
        at += len(a)
    flat = np.concatenate(parts)
    flat.setflags(write=False)
    return flat


@scalar
def pcn(S, T, k, f):
    """PC ``k``'s number ``f`` (HP_MAX, AC, ...) at track ``S``'s check penalty."""
    return T[np.uint64(S[PCN_AT] + k * N_PCN + f)]


@scalar
def place(S, T):
    """Where track ``S``'s PC numbers, monster numbers and monsters' multiple attack
    penalties start in the tables (its check penalty's and its lineup's), kept in its row
    for the readers."""
    S[PCN_AT] = T[O_PCN] + S[PEN_IX] * T[H_P] * N_PCN
    S[MONN_AT] = T[O_MONN] + S[FIGHT_IX] * T[H_M] * N_MONN
    S[MMAP_AT] = T[O_MMAP] + S[FIGHT_IX] * max(T[np.uint64(T[O_OPT] + ATTACKS)], 1)


@scalar
def pmap(T, k, a):
    """PC ``k``'s multiple attack penalty on its ``a``-th strike (P-02)."""
    return T[np.uint64(T[O_PMAP] + 2 * k + a)]


@scalar
def monn(S, T, j, f):
    """Monster ``j``'s number ``f`` (M_HP, M_AC, ...) in track ``S``'s lineup."""
    return T[np.uint64(S[MONN_AT] + j * N_MONN + f)]


@scalar
def mmap(S, T, a):
    """A monster's multiple attack penalty on its ``a``-th strike (P-02), in track ``S``'s
    lineup."""
    return T[np.uint64(S[MMAP_AT] + a)]


@scalar
def n_monsters(S, T):
    """How many monsters track ``S``'s lineup has (the rest of the slots are padding)."""
    return T[np.uint64(T[O_FIGHTS] + 2 * S[FIGHT_IX])]


@scalar
def start_dc(S, T):
    """The recovery DC of a PC of track ``S`` starting at 0 HP (``hp=0``)."""
    return T[np.uint64(T[O_FIGHTS] + 2 * S[FIGHT_IX] + 1)]


@scalar
def opt(T, o):
    """Option ``o`` (ATTACKS, TRAIT, ...)."""
    return T[np.uint64(T[O_OPT] + o)]


@scalar
def dice_row(T, d, f):
    """Field ``f`` (D_COUNT, D_SIDES, ...) of dice expression ``d``."""
    return T[np.uint64(T[O_DICE] + 5 * d + f)]


@scalar
def dice_sum(T, at):
    """The ``at``-th entry of the tables of sums."""
    return T[np.uint64(T[O_SUMS] + at)]


@scalar
def deg(T, natural, margin):
    """The degree of a check (R0-05): natural d20 ``natural``, bonus minus DC ``margin``."""
    m = min(max(margin, -MARGIN), MARGIN)
    return T[np.uint64(T[O_DEG] + (natural - 1) * (2 * MARGIN + 1) + m + MARGIN)]


@scalar
def strike_x(T, d):
    """A strike's damage multiplier at degree ``d`` (P-03)."""
    return T[np.uint64(T[O_STRX] + d)]


@scalar
def basic_x2(T, d):
    """Twice a basic save's damage multiplier at the saver's degree ``d`` (P-04)."""
    return T[np.uint64(T[O_BASX] + d)]


@scalar
def rec(S, T, k, dc, dying, natural):
    """PC ``k``'s recovery check (R0-05..R0-07): the change of dying at recovery DC ``dc``."""
    v1 = T[H_V] + 1
    i = T[np.uint64(T[O_DCI] + dc)]
    pk = S[PEN_IX] * T[H_P] + k
    return T[
        np.uint64(T[O_REC] + ((pk * T[H_NDC] + i) * v1 + min(dying, v1 - 1)) * 20 + natural - 1)
    ]


@scalar
def rise(T, k, held, knockout, old, new):
    """What PC ``k``'s dying going from ``old`` to ``new`` does (R_STABLE, R_HERO, R_DEAD,
    R_CARRY), at its own death value and hero threshold (P-14, P-16)."""
    v = T[H_V]
    at = (((k * 2 + held) * 2 + knockout) * (v + 1) + min(old, v)) * (v + 1) + min(max(new, 0), v)
    return T[np.uint64(T[O_RISE] + at)]


@scalar
def pf2(T, k, f):
    """PC ``k``'s PF2e option entry ``f`` (0 two d20s, 1 rerolls, 2 + i the kept d20s)."""
    return T[np.uint64(T[O_PF2] + k * N_PF2 + f)]


@scalar
def ko(T, start, crit, wounded):
    """The dying value of a knock-out (R0-03, A0-2); ``start`` 1: a fight begun at 0 HP."""
    v = T[H_V]
    return T[np.uint64(T[O_KO] + (start * 2 + crit) * (v + 1) + min(wounded, v))]


@scalar
def hit(T, dying, crit, wounded):
    """The dying value after a hit while dying (R0-09, A0-1, A0-6)."""
    v = T[H_V]
    return T[np.uint64(T[O_HIT] + (min(dying, v) * 2 + crit) * (v + 1) + min(wounded, v))]


@scalar
def wafter(T, wounded):
    """The wounded value after losing dying (A0-2)."""
    return T[np.uint64(T[O_WAFTER] + min(wounded, T[H_V]))]


@scalar
def aid(S, T, k, natural):
    """Whether PC ``k``'s first aid works on natural d20 ``natural`` (R1-02, AP-4)."""
    return T[np.uint64(T[O_AID] + (S[PEN_IX] * T[H_P] + k) * 20 + natural - 1)]


@scalar
def tie(T, c):
    """Combatant ``c``'s initiative tie-break (AP-1)."""
    return T[np.uint64(T[O_TIE] + c)]


@scalar
def agony(T, k, pp, turn):
    """PC ``k``'s agonising turn (R1-01, R1-04) with ``pp`` at its ``turn``-th turn:
    ``(outcome, pp after)``, outcome 0 agonising on, 1 stable, 2 dead."""
    cap, tcap = T[np.uint64(T[O_OPT] + PP_CAP)], T[np.uint64(T[O_OPT] + T_CAP)]
    code = T[np.uint64(T[O_AGONY] + (k * (cap + 1) + min(pp, cap)) * (tcap + 1) + min(turn, tcap))]
    return code // 4096, code % 4096 + max(pp - cap, 0)


@scalar
def hour(S, T, k, healer, lethal, con, med):
    """An hourly check of PC ``k`` (R1-06, R1-08): 0 dead, 1 stays, 2 awake."""
    nh = T[np.uint64(T[O_OPT] + N_HEALERS)]
    pkl = (S[PEN_IX] * T[H_P] + k) * T[np.uint64(T[O_OPT] + CON_L)] + con_loss(S, T, k)
    return T[
        np.uint64(T[O_HOUR] + (((pkl * nh + healer) * 2 + lethal) * 20 + con - 1) * 20 + med - 1)
    ]


@scalar
def con_of(S, T, k):
    """PC ``k``'s Constitution row (R1-12): ``loss * 65536 + max PE`` after its damage."""
    d = min(S[pc(k, CON_DAMAGE)], T[np.uint64(T[O_OPT] + CON_CAP)])
    return T[np.uint64(T[O_CON] + k * (T[np.uint64(T[O_OPT] + CON_CAP)] + 1) + d)]


@scalar
def con_loss(S, T, k):
    """PC ``k``'s Constitution modifier lost to its damage (the hourly table's index)."""
    return con_of(S, T, k) // 65536


@scalar
def custom(S, T, k):
    """Whether PC ``k`` follows a custom track at 0 HP (its own or the fight's ``dying``)."""
    if not T[np.uint64(T[O_OPT] + CUSTOM)]:
        return False
    return T[np.uint64(T[O_TRK] + 4 * (S[PEN_IX] * T[H_P] + k))] > 0


@scalar
def trk_face(S, T, k, draw):
    """PC ``k``'s face of its track from a ``trk`` draw (below ``TRK_FACES``)."""
    return draw % T[np.uint64(T[O_TRK] + 4 * (S[PEN_IX] * T[H_P] + k))]


@scalar
def trk_start(S, T, k):
    """The code a knock-out enters PC ``k``'s custom track at."""
    return T[np.uint64(T[O_TRK] + 4 * (S[PEN_IX] * T[H_P] + k) + 1)]


@scalar
def trk_turn(S, T, k, code, face):
    """PC ``k``'s custom track: the code after a turn of state ``code`` with face ``face``."""
    row = T[O_TRK] + 4 * (S[PEN_IX] * T[H_P] + k)
    at = T[np.uint64(row + 2)] + code * T[np.uint64(row)] + face
    return T[np.uint64(T[O_TRK] + at)]


@scalar
def trk_hit(S, T, k, code, crit):
    """PC ``k``'s custom track: the code after a hit (``crit`` 1: critical) in ``code``."""
    row = T[O_TRK] + 4 * (S[PEN_IX] * T[H_P] + k)
    return T[np.uint64(T[O_TRK] + T[np.uint64(row + 3)] + 2 * code + crit)]
