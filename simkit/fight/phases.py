"""What happens to a PC in a fight, one rule a function, for one track.

Each function reads and writes one track's row ``S`` (:mod:`simkit.fight.state`) through
the packed tables ``T`` (:mod:`simkit.fight.tables`), whose every number comes from the
rules' scalar references: the functions here only say when a rule applies. Rule ids as in
``docs/rules.md``.
"""

from __future__ import annotations

from simkit.fight import reads as tr
from simkit.fight import tables as t
from simkit.fight._jit import hot, scalar
from simkit.fight.dice import below, d20
from simkit.fight.state import (
    AGONY_T,
    BACK,
    CON_DAMAGE,
    COND,
    DC,
    DEAD,
    DEAD_MASK,
    DEATHS,
    DEATHS_AFTER_DEFEAT,
    DEATHS_AFTER_FIGHT,
    DEATHS_IN_FIGHT,
    DYING,
    DYING_V,
    FIGHT,
    HEALS,
    HEALS_SPENT,
    HERO,
    HERO_SPENT,
    HP,
    HP_MAX,
    KNOCKOUTS,
    MASSIVE,
    MHP,
    NIGHT_HP,
    NONLETHAL,
    OUTCOME,
    PE,
    PE_MAX,
    PHASE,
    PP,
    SLOWED,
    STABLE,
    TEMP,
    UP,
    WON,
    WOUNDED,
    mon,
    order,
    pc,
)
from simkit.rules.rest import split_damage_ref

__all__ = [
    "DEFEAT",
    "back_up",
    "con_hit",
    "RETREAT",
    "VICTORY",
    "VICTORY_DEATHS",
    "dying_given",
    "dying_turn",
    "first_aid",
    "heal",
    "hit_monster",
    "knock_out",
    "night",
    "roll",
    "take_damage",
    "wake_rest",
]

#: The party's outcomes (``Party.outcomes``), by index.
VICTORY, VICTORY_DEATHS, RETREAT, DEFEAT = 0, 1, 2, 3
#: A1-5's split of a hit between stamina and HP: the rule's own scalar reference, compiled.
split_damage = scalar(split_damage_ref)


@hot
def roll(S, T, d):
    """One sum of dice expression ``d``: a table of sums, or one draw a die."""
    width = t.dice_row(T, d, t.D_WIDTH)
    if width:
        return t.dice_sum(T, t.dice_row(T, d, t.D_OFF) + below(S, width))
    total = t.dice_row(T, d, t.D_BONUS)
    sides = t.dice_row(T, d, t.D_SIDES)
    for _ in range(t.dice_row(T, d, t.D_COUNT)):
        total += below(S, sides) + 1
    return total


# -- who is where -------------------------------------------------------------------------
@scalar
def fighting(S):
    """Whether the track's fight goes on (not won, fled or ended)."""
    return S[PHASE] == FIGHT and S[OUTCOME] < 0


@scalar
def first_with(S, T, a, b):
    """The first PC (party order) whose condition is ``a`` or ``b``; -1 if none."""
    for k in range(T[t.H_P]):
        c = S[pc(k, COND)]
        if c == a or c == b:
            return k
    return -1


@scalar
def count_with(S, T, a, b):
    """How many PCs have condition ``a`` or ``b``."""
    n = 0
    for k in range(T[t.H_P]):
        c = S[pc(k, COND)]
        if c == a or c == b:
            n += 1
    return n


@scalar
def nth_with(S, T, a, b, n):
    """The ``n``-th (0-based) PC whose condition is ``a`` or ``b``; -1 if none."""
    for k in range(T[t.H_P]):
        c = S[pc(k, COND)]
        if c == a or c == b:
            if n == 0:
                return k
            n -= 1
    return -1


# -- a PC's states ------------------------------------------------------------------------
@scalar
def kill(S, k, defeat):
    """PC ``k`` dies (R0-04, R0-12, R0-13): 0 HP, dead for good (R0-15); the death is
    counted by cause: slain at a defeat (AP-9), in the fight, or in the care after it."""
    if S[pc(k, COND)] == DEAD:
        return
    S[pc(k, COND)] = DEAD
    S[pc(k, HP)] = 0
    S[pc(k, DYING_V)] = 0
    S[DEATHS] += 1
    if defeat:
        S[DEATHS_AFTER_DEFEAT] += 1
    elif S[PHASE] == FIGHT:
        S[DEATHS_IN_FIGHT] += 1
    else:
        S[DEATHS_AFTER_FIGHT] += 1
    S[DEAD_MASK] |= 1 << k


@scalar
def leave_dying(S, T, k):
    """PC ``k`` loses the dying condition; its wounded value rises (A0-2; not under a
    custom track, whose state is its own)."""
    if S[pc(k, COND)] == DYING and not t.custom(S, T, k):
        S[pc(k, WOUNDED)] = t.wafter(T, S[pc(k, WOUNDED)])
    S[pc(k, DYING_V)] = 0


@scalar
def stabilize(S, T, k):
    """Stable at 0 HP, unconscious (R0-08, R1-02)."""
    leave_dying(S, T, k)
    S[pc(k, COND)] = STABLE


@scalar
def dying_to(S, T, k, old, new, knockout):
    """Dying of PC ``k`` goes from ``old`` to ``new``: stable (R0-08), a hero point (R0-10,
    A0-3, A0-7), dead (R0-04) or dying ``new``, as :func:`simkit.rules.hero_points.rise`."""
    res = t.rise(T, k, 1 if S[pc(k, HERO)] > 0 else 0, knockout, old, new)
    if res == t.R_STABLE:
        stabilize(S, T, k)
    elif res == t.R_HERO and t.opt(T, t.HERO_REVIVE):  # R0-10: back at 1 HP, conscious
        if t.opt(T, t.SLOWED_ON):  # slowed by the dying value it held (R0-04)
            S[pc(k, SLOWED)] = old
        leave_dying(S, T, k)
        S[pc(k, HERO)] -= 1
        S[HERO_SPENT] += 1
        S[pc(k, COND)] = UP
        S[pc(k, HP)] = 1
    elif res == t.R_HERO:  # pf2e-core: every point, stable at 0 HP, no wounded
        S[HERO_SPENT] += S[pc(k, HERO)]
        S[pc(k, HERO)] = 0
        S[pc(k, COND)] = STABLE
        S[pc(k, DYING_V)] = 0
    elif res == t.R_DEAD:
        kill(S, k, False)
    else:
        S[pc(k, COND)] = DYING
        S[pc(k, DYING_V)] = new


@scalar
def custom_to(S, T, k, code):
    """PC ``k`` on a custom track at 0 HP (``dying``, :mod:`simkit.models.downed_rule`)
    goes to ``code``: a state (dying on), or dead, stable, revived (1 HP, conscious)."""
    if code >= 0:
        S[pc(k, COND)] = DYING
        S[pc(k, DYING_V)] = code
    elif code == -1:
        kill(S, k, False)
    elif code == -2:
        stabilize(S, T, k)
    else:
        leave_dying(S, T, k)
        S[pc(k, COND)] = UP
        S[pc(k, HP)] = 1


@scalar
def move_before(S, T, k, j):
    """R0-03, AP-2: PC ``k`` knocked out by monster ``j`` moves to just before ``j`` in the
    acting order (so it does not act again this round)."""
    P, M = T[t.H_P], T[t.H_M]
    n = P + M
    w = 0
    for r in range(n):  # take k out
        c = S[order(P, M, r)]
        if c != k:
            S[order(P, M, w)] = c
            w += 1
    at = 0
    while S[order(P, M, at)] != P + j:
        at += 1
    for r in range(n - 1, at, -1):  # and in again, before j
        S[order(P, M, r)] = S[order(P, M, r - 1)]
    S[order(P, M, at)] = k


@scalar
def knock_out(S, T, k, crit, dc, by, start):
    """PC ``k`` falls to 0 HP (R0-02, R0-03, R0-12) from a source of recovery DC ``dc``;
    ``by``: the monster whose turn it is (the PC moves before it, R0-03), -1 for no move;
    ``start``: 0 a fight's knock-out (dying 1), 1 a fight begun at 0 HP (``start_dying``)."""
    S[pc(k, HP)] = 0
    S[pc(k, SLOWED)] = 0
    S[pc(k, BACK)] = 0
    S[KNOCKOUTS] += 1
    if by >= 0:
        move_before(S, T, k, by)
    trait = t.opt(T, t.TRAIT)
    if trait == t.DEATH:  # R0-12
        kill(S, k, False)
    elif trait == t.NONLETHAL:  # R0-02, R0-03, R1-11: unconscious, not dying
        S[pc(k, COND)] = STABLE
        S[pc(k, DYING_V)] = 0
        S[pc(k, NONLETHAL)] = 1
    elif t.custom(S, T, k):  # a designer's track: its start (issue 31; per PC)
        S[pc(k, NONLETHAL)] = 0
        custom_to(S, T, k, t.trk_start(S, T, k))
    elif t.opt(T, t.SEED001):  # agonising (R1-01); dead at once with no PP (A1-1)
        S[pc(k, COND)] = DYING
        S[pc(k, AGONY_T)] = 0
        S[pc(k, NONLETHAL)] = 0
        if t.opt(T, t.ZERO_AT_ONCE) and S[pc(k, PP)] == 0:
            kill(S, k, False)
    else:  # R0-03, R0-06, A0-2
        S[pc(k, DC)] = dc
        dying_to(S, T, k, 0, t.ko(T, start, crit, S[pc(k, WOUNDED)]), 1)


@scalar
def take_damage(S, T, k, dmg, crit, dc, by):
    """``dmg`` (> 0) HP of damage to PC ``k`` from monster ``by`` (R0-03, R0-09, R0-13);
    ``crit``: 1 for a critical (a strike's critical hit, a save's critical failure)."""
    cond = S[pc(k, COND)]
    if cond == DEAD:
        return
    if dmg >= S[pc(k, MASSIVE)]:  # R0-13: the hit's whole damage
        kill(S, k, False)
        return
    if cond == UP and S[pc(k, TEMP)] > 0:  # R0-14: temporary HP first
        soak = min(S[pc(k, TEMP)], dmg)
        S[pc(k, TEMP)] -= soak
        dmg -= soak
        if dmg == 0:
            return
    if t.opt(T, t.PE_FIRST):  # A1-5: stamina first; what the PE take does nothing more
        hp = S[pc(k, HP)]
        pe, hp_left, excess = split_damage(dmg, S[pc(k, PE)], hp, "pe_first")
        S[pc(k, PE)] = pe
        dmg = hp - hp_left + excess
        if dmg == 0:
            return
    if cond == UP:
        S[pc(k, HP)] = max(S[pc(k, HP)] - dmg, 0)
        if S[pc(k, HP)] == 0:
            knock_out(S, T, k, crit, dc, by, 0)
        return
    # at 0 HP: what a knock-out by that damage does, without a move (R0-09)
    trait = t.opt(T, t.TRAIT)
    if trait == t.DEATH:
        kill(S, k, False)
    elif trait == t.NONLETHAL:
        return
    elif cond == STABLE:
        knock_out(S, T, k, crit, dc, -1, 0)
    elif t.custom(S, T, k):  # a designer's track: its on_hit
        custom_to(S, T, k, t.trk_hit(S, T, k, S[pc(k, DYING_V)], crit))
    elif t.opt(T, t.SEED001):  # agonising: A1-11 (``none``: the damage changes nothing)
        dead, S[pc(k, PP)] = tr.agony_hit(T, S[pc(k, PP)], crit)
        if dead:
            kill(S, k, False)
    else:  # dying: A0-1, A0-2, A0-6; the higher DC (R0-09)
        old = S[pc(k, DYING_V)]
        S[pc(k, DC)] = max(S[pc(k, DC)], dc)
        dying_to(S, T, k, old, t.hit(T, old, crit, S[pc(k, WOUNDED)]), 0)


@scalar
def dying_given(S, T, k, crit, dc, by):
    """A0-9 (R0-12 with R0-04): an effect of monster ``by`` gives conscious PC ``k`` dying 1,
    2 on ``crit`` (its wounded value added, A0-2): ``drop``, a knock-out by it at recovery DC
    ``dc``; ``keep_hp``, it keeps its HP and loses dying at once (what losing dying does
    still happens: wounded, slowed), dead if the value reaches its death value (R0-04)."""
    if tr.dying_drops(T):
        knock_out(S, T, k, crit, dc, by, 0)
        return
    v = t.ko(T, 0, crit, S[pc(k, WOUNDED)])
    if t.rise(T, k, 0, 1, 0, v) == t.R_DEAD:
        kill(S, k, False)
        return
    if t.opt(T, t.SLOWED_ON):  # slowed by the dying value it held (R0-04)
        S[pc(k, SLOWED)] = v
    S[pc(k, COND)] = DYING  # (held for the instant it is lost: A0-2's wounded)
    leave_dying(S, T, k)
    S[pc(k, COND)] = UP


@hot
def check_defeat(S, T):
    """Every PC at 0 HP while the fight goes on: defeat; ``after_defeat=slain`` kills the
    downed (AP-9). A fight with ``DEFEAT_OFF`` (the encounter's, whose enemies fight on
    against a PC at 0 HP) has no defeat."""
    if not fighting(S) or first_with(S, T, UP, UP) >= 0 or t.opt(T, t.DEFEAT_OFF):
        return
    if t.opt(T, t.SLAIN):
        for k in range(T[t.H_P]):
            c = S[pc(k, COND)]
            if c == DYING or c == STABLE:
                kill(S, k, True)
    S[OUTCOME] = DEFEAT


# -- healing, first aid, the dying turn ---------------------------------------------------
@scalar
def heal(S, T, c, k):
    """Cleric ``c`` heals PC ``k`` (P-05; R0-01, R0-04): back at 1 HP or more, conscious
    and no longer dying."""
    hp = min(S[pc(k, HP)] + roll(S, T, t.pcn(S, T, c, t.HEAL)), S[pc(k, HP_MAX)])
    if S[pc(k, COND)] != UP and hp >= 1:  # (R1-03 too)
        if t.opt(T, t.SLOWED_ON):  # slowed by the dying value it held (R0-04)
            held = S[pc(k, COND)] == DYING and not t.custom(S, T, k)  # (not a track's code)
            S[pc(k, SLOWED)] = S[pc(k, DYING_V)] if held else 0
        leave_dying(S, T, k)
        S[pc(k, COND)] = UP
        S[pc(k, NONLETHAL)] = 0
    S[pc(k, HP)] = hp
    S[pc(c, HEALS)] -= 1
    S[HEALS_SPENT] += 1


@scalar
def first_aid(S, T, c, k):
    """Cleric ``c``'s first aid on dying PC ``k`` (R1-02, AP-4): stable on a success."""
    if t.aid(S, T, c, d20(S)):
        stabilize(S, T, k)


@scalar
def dying_turn(S, T, k):
    """A dying PC's turn: the recovery check (R0-05..R0-07, A0-4; P-13..P-16: its second
    d20 kept higher or lower, a hero point's reroll), then what the new value does
    (:func:`dying_to`); agonising (seed 001), its perseverance turn (R1-01, R1-04);
    on a custom track, a face of its dice and its transition."""
    if t.custom(S, T, k):
        face = t.trk_face(S, T, k, below(S, t.opt(T, t.TRK_FACES)))
        custom_to(S, T, k, t.trk_turn(S, T, k, S[pc(k, DYING_V)], face))
        return
    if t.opt(T, t.SEED001):
        S[pc(k, AGONY_T)] += 1
        res, S[pc(k, PP)] = t.agony(T, k, S[pc(k, PP)], S[pc(k, AGONY_T)])
        if res == 1:
            S[pc(k, COND)] = STABLE
        elif res == 2:
            kill(S, k, False)
        return
    old = S[pc(k, DYING_V)]
    roll = d20(S)
    roll2 = d20(S) if t.pf2(T, k, 0) else 0  # P-15, P-16: a second d20
    kept = t.pf2(T, k, 2 + 20 * (roll - 1) + roll2 - 1) if roll2 else roll
    delta = t.rec(S, T, k, S[pc(k, DC)], old, kept)
    if t.pf2(T, k, 1) and S[pc(k, HERO)] > 0 and delta > 0:  # P-16: the reroll stands
        delta = t.rec(S, T, k, S[pc(k, DC)], old, roll2)
        S[pc(k, HERO)] -= 1
        S[HERO_SPENT] += 1
    dying_to(S, T, k, old, old + delta, 0)


@scalar
def back_up(S, T, k):
    """R1-05, A1-3: stable PC ``k`` with ``enough_pp`` PP (1 after a nonlethal knock-out)
    spends 1 PP to be back at 1 HP, conscious; True if it did."""
    pp = S[pc(k, PP)]
    if pp >= t.opt(T, t.ENOUGH_PP) or (S[pc(k, NONLETHAL)] and pp >= 1):
        S[pc(k, PP)] = pp - 1
        S[pc(k, HP)] = 1
        S[pc(k, COND)] = UP
        S[pc(k, NONLETHAL)] = 0
        S[pc(k, BACK)] = 1
        return True
    return False


@scalar
def con_hit(S, T, k):
    """R1-12 (``con_damage``, seed 001): a monster's strike that hurt PC ``k`` also takes
    Constitution: its modifier falls (A1-4), and its maximum PE with it (PE kept up to it)."""
    n = t.opt(T, t.CON_DMG)
    if n == 0 or S[pc(k, COND)] == DEAD:
        return
    S[pc(k, CON_DAMAGE)] += n
    pe_max = t.con_of(S, T, k) % 65536
    S[pc(k, PE_MAX)] = pe_max
    S[pc(k, PE)] = min(S[pc(k, PE)], pe_max)


# -- the monsters -------------------------------------------------------------------------
@hot
def hit_monster(S, T, j, dmg):
    """``dmg`` to monster ``j``; at 0 HP it is dead (R0-02); none left: the party won."""
    P, M = T[t.H_P], T[t.H_M]
    hp = max(S[mon(P, j, MHP)] - dmg, 0)
    S[mon(P, j, MHP)] = hp
    if hp > 0:  # (it lives: no need to look at the others)
        return
    for x in range(M):
        if S[mon(P, x, MHP)] > 0:
            return
    S[PHASE] = WON


@scalar
def night(S, T):
    """AP-11: each stable PC's hourly checks (R1-06, R1-08, A1-6, R1-11), the best Medicine
    of the conscious PCs as the healer; the first hour with a result decides, else it wakes
    after the night (R1-07)."""
    P = T[t.H_P]
    healer = 0
    for q in range(P):
        if S[pc(q, COND)] == UP:
            healer = max(healer, t.pcn(S, T, q, t.HEALER))
    for k in range(P):
        if S[pc(k, COND)] != STABLE:
            continue
        lethal = 0 if S[pc(k, NONLETHAL)] else 1
        hp = S[pc(k, NIGHT_HP)]
        decided = False
        for h in range(t.opt(T, t.NIGHT_HOURS)):  # every hour's two d20s are drawn
            res = t.hour(S, T, k, healer, lethal, d20(S), d20(S))
            if decided or h >= t.opt(T, t.NIGHT_CHECKS) or res == 1:
                continue
            decided = True
            hp = -1 if res == 0 else t.opt(T, t.AWAKE_HP)
        if hp < 0:
            kill(S, k, False)
        else:
            S[pc(k, COND)] = UP
            S[pc(k, HP)] = hp
            if not decided:  # R1-07: after the night (A1-10)
                wake_rest(S, T, k)


@scalar
def wake_rest(S, T, k):
    """A1-10: PC ``k`` woken by R1-07 "as after a good night's rest" also gets every PE and
    every PP back under ``wake_restores=all`` (the PP as A1-7's ``pp_back`` reads a night)."""
    if tr.wake_pe(T):
        S[pc(k, PE)] = S[pc(k, PE_MAX)]
    if tr.wake_pp(T):
        S[pc(k, PP)] = max(S[pc(k, PP)], t.pcn(S, T, k, t.PP0))
