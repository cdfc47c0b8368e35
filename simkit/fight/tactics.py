"""What each combatant does on its turn: one small function a role (P-02..P-05, AP-3..AP-6,
AP-10), for one track's row ``S`` through the packed tables ``T``."""

from __future__ import annotations

from simkit.fight import reads as tr
from simkit.fight import tables as t
from simkit.fight._jit import hot, scalar
from simkit.fight.dice import chance, d20, pick
from simkit.fight.grant import grant
from simkit.fight.phases import (
    back_up,
    check_defeat,
    con_hit,
    count_with,
    dying_given,
    dying_turn,
    fighting,
    first_aid,
    first_with,
    heal,
    hit_monster,
    nth_with,
    roll,
    take_damage,
)
from simkit.fight.state import (
    AREA_LEFT,
    BACK,
    COND,
    DYING,
    HEALS,
    HP,
    HP_MAX,
    LOW,
    MHP,
    PP,
    SLOTS,
    SLOWED,
    STABLE,
    UP,
    mon,
    pc,
)

__all__ = ["monster_turn", "pc_turn"]

#: Strikes a PC makes in a turn (P-02: two; the third action is not modelled).
PC_STRIKES = 2
CRIT_FAIL, FAIL, CRIT_SUCCESS = 0, 1, 3
#: More HP than any monster has (the focus target's search starts above it).
_NO_HP = 1 << 62


# -- the PCs ------------------------------------------------------------------------------
@hot
def pc_target(S, T):
    """The monster a PC's strike or cantrip goes to (AP-6): ``focus`` the living one with
    the fewest HP (ties: the lower index), ``spread`` one at random; -1 if none lives."""
    P, M = T[t.H_P], T[t.H_M]
    best, fewest, alive = -1, _NO_HP, 0
    for j in range(M):  # (selects, not branches: the monsters' HP are the dice's)
        hp = S[mon(P, j, MHP)]
        live = hp > 0
        alive += live
        fewer = live & (hp < fewest)
        best = j if fewer else best
        fewest = hp if fewer else fewest
    if alive == 0 or not t.opt(T, t.PC_SPREAD):
        return best
    n = pick(S, t.opt(T, t.PICK_M), alive)
    for j in range(M):
        if S[mon(P, j, MHP)] > 0:
            if n == 0:
                return j
            n -= 1
    return -1


@hot
def strikes(S, T, k, n):
    """``n`` strikes (two, or fewer when slowed) at the multiple attack penalty (P-02, P-03)."""
    for a in range(n):
        if not fighting(S):
            return
        j = pc_target(S, T)
        if j < 0:
            return
        bonus = t.pcn(S, T, k, t.ATK) - t.pmap(T, k, a)
        mult = t.strike_x(T, t.deg(T, d20(S), bonus - t.monn(S, T, j, t.M_AC)))
        if mult:
            dmg = max(roll(S, T, t.pcn(S, T, k, t.DMG)), 0) * mult
            if dmg > 0:
                hit_monster(S, T, j, dmg)


@hot
def spell(S, T, k, j, base):
    """Monster ``j``'s basic Reflex against PC ``k``'s spell DC (P-04, P-05)."""
    d = t.deg(T, d20(S), t.monn(S, T, j, t.M_REFLEX) - t.pcn(S, T, k, t.SPELL_DC))
    dmg = (max(base, 0) * t.basic_x2(T, d)) >> 1
    if dmg > 0:
        hit_monster(S, T, j, dmg)


@scalar
def wizard(S, T, k, acts):
    """Its area spell at every living monster while a slot is left, else its cantrip (P-05);
    either takes 2 actions (none with fewer, R0-04)."""
    P = T[t.H_P]
    if acts < 2:
        return
    if S[pc(k, SLOTS)] > 0:
        S[pc(k, SLOTS)] -= 1
        base = roll(S, T, t.pcn(S, T, k, t.AREA))
        for j in range(T[t.H_M]):
            if S[mon(P, j, MHP)] > 0:
                spell(S, T, k, j, base)
        return
    j = pc_target(S, T)
    if j >= 0:
        spell(S, T, k, j, roll(S, T, t.pcn(S, T, k, t.CANTRIP)))


@scalar
def cleric(S, T, c, acts):
    """AP-5: heal the first PC at 0 HP, else the first conscious one at or below
    ``heal_below`` of its max HP; else first aid on the first dying PC; else strikes. A heal
    and first aid take 2 actions: with fewer (slowed, R0-04), the strikes it has left."""
    if acts < 2:
        strikes(S, T, c, acts)
        return
    if S[pc(c, HEALS)] > 0:
        k = first_with(S, T, DYING, STABLE)
        if k < 0:
            for q in range(T[t.H_P]):
                if S[pc(q, COND)] == UP and S[pc(q, HP)] <= S[pc(q, LOW)]:
                    k = q
                    break
        if k >= 0:
            heal(S, T, c, k)
            return
    k = first_with(S, T, DYING, DYING)
    if k >= 0:
        first_aid(S, T, c, k)
        return
    if not grant(S, T, c, acts):  # R0-14, AP-37: a grant of temporary HP first
        strikes(S, T, c, acts)


@scalar
def actions(S, T, k):
    """The modelled actions (strikes; a spell, a heal, first aid take 2) of PC ``k``'s turn:
    2, less its slowed value (R0-04, R0-10), which takes first the spare third action the
    fight does not model (``slowed_loses=spare``, AP-21) or a strike at once; the slowed
    value is spent."""
    s = S[pc(k, SLOWED)]
    S[pc(k, SLOWED)] = 0
    if t.opt(T, t.SLOWED_SPARE):
        return max(min(PC_STRIKES, 3 - s), 0)
    return max(PC_STRIKES - s, 0)


@hot
def pc_turn(S, T, k):
    """PC ``k``'s turn: dying, its recovery check; conscious, its role's tactic. Under
    seed 001 with ``back_in_fight`` (R1-05): stable at its turn's start, it gets up at 1 HP
    for 1 PP and acts; stabilised in its turn, it gets up and acts next turn; up again by
    R1-05 (``back_again``, A1-12), 1 PP for 1 HP on each later turn while below its max."""
    cond = S[pc(k, COND)]
    up_now = False
    if cond == STABLE and t.opt(T, t.BACK_ON):
        up_now = back_up(S, T, k)
        cond = S[pc(k, COND)]
    if cond == DYING:
        dying_turn(S, T, k)
        if S[pc(k, COND)] == STABLE and t.opt(T, t.BACK_ON):
            back_up(S, T, k)
    elif cond == UP:
        if (
            S[pc(k, BACK)]
            and not up_now
            and t.opt(T, t.BACK_AGAIN)
            and S[pc(k, HP)] < S[pc(k, HP_MAX)]
            and S[pc(k, PP)] >= t.opt(T, t.ENOUGH_PP)
        ):
            S[pc(k, PP)] -= 1
            S[pc(k, HP)] += 1
        acts = PC_STRIKES if S[pc(k, SLOWED)] == 0 else actions(S, T, k)
        role = t.pcn(S, T, k, t.ROLE)
        if role == t.CLERIC:
            cleric(S, T, k, acts)
        elif grant(S, T, k, acts):  # R0-14, AP-37: its grant instead of strikes or a spell
            pass
        elif role == t.WIZARD:
            wizard(S, T, k, acts)
        else:
            strikes(S, T, k, acts)


# -- the monsters -------------------------------------------------------------------------
@scalar
def area_effect(S, T, j):
    """AP-10: one damage roll at every conscious PC, each a basic Reflex (P-04) against the
    monster's spell DC; those it knocks out fall in the party's order (AP-2)."""
    S[mon(T[t.H_P], j, AREA_LEFT)] -= 1
    base = roll(S, T, t.monn(S, T, j, t.M_AREA))
    sdc = t.monn(S, T, j, t.M_SDC)
    for k in range(T[t.H_P]):
        if S[pc(k, COND)] != UP:
            continue
        d = t.deg(T, d20(S), t.pcn(S, T, k, t.REFLEX) - sdc)
        dmg = (max(base, 0) * t.basic_x2(T, d)) >> 1
        if dmg > 0:
            take_damage(S, T, k, dmg, 1 if d == CRIT_FAIL else 0, sdc, j)
    check_defeat(S, T)


@scalar
def dying_effect(S, T, j):
    """AP-35: monster ``j``'s effect that gives dying directly (R0-12) at a conscious PC at
    random: a Fortitude save against its spell DC, dying 1 on a failure, 2 on a critical
    failure, as A0-9 reads it (:func:`~simkit.fight.phases.dying_given`)."""
    up = count_with(S, T, UP, UP)
    if up == 0:
        return
    k = nth_with(S, T, UP, UP, pick(S, t.opt(T, t.PICK_P), up))
    sdc = t.monn(S, T, j, t.M_SDC)
    d = t.deg(T, d20(S), t.pcn(S, T, k, t.FORT) - sdc)
    if d <= FAIL:
        dying_given(S, T, k, 1 if d == CRIT_FAIL else 0, sdc, j)
        check_defeat(S, T)


@hot
def monster_target(S, T):
    """The PC a monster's strike goes to (AP-3, AP-6, R0-09): a downed PC when
    ``target_downed`` says so, else a conscious one per ``monster_target``; -1 if none."""
    down, up = 0, 0  # (count_with of the downed and of the conscious, in one pass)
    for q in range(T[t.H_P]):
        c = S[pc(q, COND)]
        if c == UP:
            up += 1
        elif c == DYING or c == STABLE:
            down += 1
    how = t.opt(T, t.TARGET_DOWNED)
    if down and (how == t.ALWAYS or (how == t.SOMETIMES and chance(S, t.opt(T, t.DOWNED_EDGE)))):
        if t.opt(T, t.DOWNED_RANDOM):
            return nth_with(S, T, DYING, STABLE, pick(S, t.opt(T, t.PICK_P), down))
        return first_with(S, T, DYING, STABLE)
    if up == 0:
        return -1
    who = t.opt(T, t.MONSTER_TARGET)
    if who == t.T_RANDOM:
        return nth_with(S, T, UP, UP, pick(S, t.opt(T, t.PICK_P), up))
    if who == t.T_WEAKEST:
        best = -1
        for q in range(T[t.H_P]):
            if S[pc(q, COND)] == UP and (best < 0 or S[pc(q, HP)] < S[pc(best, HP)]):
                best = q
        return best
    return first_with(S, T, UP, UP)


@hot
def monster_turn(S, T, j):
    """A monster's turn: its area effect (a chance a turn while it has one), else its
    dying effect (``dying_effect``, a chance a turn, AP-35), else its strikes at the
    multiple attack penalty (P-02, P-03), a downed PC's AC lowered (R0-11)."""
    if S[mon(T[t.H_P], j, AREA_LEFT)] > 0 and chance(S, t.monn(S, T, j, t.M_EDGE)):
        area_effect(S, T, j)
        return
    if tr.dying_edge(T) and chance(S, tr.dying_edge(T)):  # AP-35
        dying_effect(S, T, j)
        return
    for a in range(t.opt(T, t.ATTACKS)):
        if not fighting(S):
            return
        k = monster_target(S, T)
        if k < 0:
            continue
        ac = t.pcn(S, T, k, t.AC) if S[pc(k, COND)] == UP else t.pcn(S, T, k, t.AC_DOWN)
        d = t.deg(T, d20(S), t.monn(S, T, j, t.M_ATK) - t.mmap(S, T, a) - ac)
        mult = t.strike_x(T, d)
        if mult:
            dmg = max(roll(S, T, t.monn(S, T, j, t.M_DMG)), 0) * mult
            if dmg > 0:
                crit = 1 if d == CRIT_SUCCESS else 0
                take_damage(S, T, k, dmg, crit, t.monn(S, T, j, t.M_RDC), j)
                if t.opt(T, t.CON_DMG):
                    con_hit(S, T, k)  # R1-12
                check_defeat(S, T)
