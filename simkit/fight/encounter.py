"""The encounter on the fight loop: one PC against enemies that never fall (issue 28, item 3).

The encounter (:class:`simkit.models.encounter.Encounter`) is a configuration of the fight
loop: a party of one PC with no tactic of its own (its actions are not modelled), ``E``
enemies that never fall (1 HP each, never attacked), no defeat (``DEFEAT_OFF``: the enemies
fight on against a PC at 0 HP), and these tactics and ending rules, each a small function:

- :func:`healer_arrives` and :func:`healer_turn`: the healer arrives at the start of round
  ``healer_round`` or with ``healer_chance`` a round (``until="healer"``: the track ends
  there, with the PC's status); it acts first in the round: a heal for a PC at 0 HP, else
  first aid on a dying one, else (``heal_when="wounded"``) a heal for a conscious one at
  half HP or less. A heal and first aid are the loop's (:func:`simkit.fight.phases.heal`,
  :func:`~simkit.fight.phases.first_aid`): the healer's dice, heals and Medicine sit in
  the PC's own columns of the tables (``HEAL``, ``HEALS``, ``aid``).
- :func:`pc_turn`: the loop's dying turn (:func:`simkit.fight.phases.dying_turn`); under
  seed 001, R1-05's getting back up (:func:`back_up`).
- :func:`enemy_turn`: with ``effect_chance`` a turn, the effect (:func:`effect`: a basic
  save, ``target_downed`` at a PC at 0 HP), else the loop's monster turn (its strikes:
  :func:`simkit.fight.tactics.monster_turn`, no area effect left).
- :func:`end_of_round`: the fight ends after ``fight_rounds`` or with ``end_chance``;
  :func:`resolve`: once it is over, a conscious PC is safe (standing or revived) and a
  stable one is (stable, or under ``long_term`` its hourly checks at once: :func:`hours`).

The acting order is the loop's (:func:`simkit.fight.state.order`): enemies 1..E, the PC
first (``pc_first``) or last; a knock-out moves it (R0-03) through the loop's
:func:`~simkit.fight.phases.knock_out`. The encounter's own fields follow the loop's in a
track's row (:func:`ex`); its options are the int64 array ``C`` (``C_*``).
"""

from __future__ import annotations

import numpy as np

from simkit.fight import tables as t
from simkit.fight._jit import njit, prange, scalar
from simkit.fight.dice import chance, d20
from simkit.fight.loop import CARRIED, fresh
from simkit.fight.phases import dying_turn, first_aid, heal, knock_out, roll, take_damage
from simkit.fight.state import (
    AREA_LEFT,
    COND,
    CTR,
    DEAD,
    DYING,
    FIGHT,
    HEALS,
    HERO_SPENT,
    HP,
    HP_MAX,
    KEY,
    KNOCKOUTS,
    LOW,
    MHP,
    N_MON,
    N_PC,
    N_TRK,
    NONLETHAL,
    OUTCOME,
    PE,
    PE_MAX,
    PEN_IX,
    PHASE,
    PP,
    STABLE,
    STEP,
    TEMP,
    UP,
    WOUNDED,
    mon,
    order,
    pc,
)
from simkit.fight.tactics import monster_turn

__all__ = ["N_EX", "N_C", "run_encounters"]

#: The encounter's outcomes (``Encounter.outcomes``), by index.
STANDING, REVIVED, STABLE_OUT, DEAD_OUT, DYING_OUT = range(5)
#: The encounter's fields, after the loop's in a track's row (:func:`ex`): knocked out (the
#: ``knocked_out`` mark), the round of the first knock-out, the healer here, the enemies
#: still fighting, the hours of seed 001's long-term checks.
X_KO, X_KO_ROUND, X_HEALER, X_FIGHT, X_HOURS = range(5)
N_EX = 5
#: The encounter's options in ``C``.
(
    C_E,  # enemies
    C_HEALER_ROUND,  # -1: none
    C_HEALER_EDGE,  # healer_chance's edge (0: none)
    C_UNTIL_HEALER,
    C_FIGHT_ROUNDS,  # -1: none
    C_END_EDGE,
    C_HEAL_WOUNDED,
    C_AID,  # the healer gives first aid (a Medicine bonus)
    C_PC_FIRST,
    C_START_HP,
    C_START_PP,
    C_WOUNDED0,
    C_LONG_TERM,
    C_BACK,  # seed 001, R1-05: back in the fight
    C_NEED_LETHAL,  # PP it needs to get up after a lethal knock-out (A1-3)
    C_NEED_NONLETHAL,
    C_HOUR_HEALER,  # the hourly checks' healer index in the tables (0: none)
    C_AWAKE_HOURS,  # hours a night with no result takes (R1-07)
) = range(18)
N_C = 18
#: What a track hands back: outcome, end step, then the marks in ``Encounter.marks`` order.
OUT_OUTCOME, OUT_STEP, OUT_KO, OUT_KO_ROUND, OUT_HP, OUT_HERO, OUT_HEALER, OUT_HOURS = range(8)
N_OUT = 8
#: Where a start's and an end's ``pe`` column is in :data:`~simkit.fight.loop.CARRIED`: the
#: encounter's temporary HP (R0-14, the loop's ``TEMP``; it has no stamina points).
CARRIED_PE = CARRIED.index(PE)


@scalar
def ex(T, f):
    """Where the encounter's field ``f`` is in a track's row (after the loop's fields)."""
    P, M = T[t.H_P], T[t.H_M]
    return np.uint64(N_TRK + P * N_PC + M * N_MON + 2 * (P + M) + f)


# -- the healer -----------------------------------------------------------------------------
@scalar
def status(S, T):
    """The PC's status when the healer arrives (``until="healer"``)."""
    cond = S[pc(0, COND)]
    if cond == UP:
        return REVIVED if S[ex(T, X_KO)] else STANDING
    if cond == STABLE:
        return STABLE_OUT
    return DYING_OUT


@scalar
def healer_arrives(S, T, C, r):
    """Whether the healer arrives at the start of round ``r`` (it was not here)."""
    if C[C_HEALER_ROUND] >= 0:
        return r >= C[C_HEALER_ROUND]
    return C[C_HEALER_EDGE] > 0 and chance(S, C[C_HEALER_EDGE])


@scalar
def healer_turn(S, T, C):
    """The healer's turn, first in the round: heal a PC at 0 HP (a heal left), else first
    aid on a dying one (R1-02), else with ``heal_when="wounded"`` heal a conscious one at
    half HP or less. The healer's dice, heals and Medicine are the PC's columns."""
    cond = S[pc(0, COND)]
    if S[pc(0, HEALS)] > 0 and (cond == DYING or cond == STABLE):
        heal(S, T, 0, 0)
    elif C[C_AID] and cond == DYING:
        first_aid(S, T, 0, 0)
    elif C[C_HEAL_WOUNDED] and S[pc(0, HEALS)] > 0 and cond == UP and S[pc(0, HP)] <= S[pc(0, LOW)]:
        heal(S, T, 0, 0)


# -- the PC -----------------------------------------------------------------------------------
@scalar
def back_up(S, T, C):
    """R1-05, A1-3: a stable PC with the PP it needs spends 1 and gets up at 1 HP."""
    need = C[C_NEED_NONLETHAL] if S[pc(0, NONLETHAL)] else C[C_NEED_LETHAL]
    if S[pc(0, COND)] == STABLE and S[pc(0, PP)] >= need:
        S[pc(0, PP)] -= 1
        S[pc(0, HP)] = 1
        S[pc(0, COND)] = UP
        S[pc(0, NONLETHAL)] = 0


@scalar
def pc_turn(S, T, C):
    """The PC's turn: dying (or agonising), its turn at 0 HP; its other actions are not
    modelled."""
    if S[pc(0, COND)] == DYING:
        dying_turn(S, T, 0)
    if C[C_BACK]:
        back_up(S, T, C)


# -- the enemies ------------------------------------------------------------------------------
@scalar
def effect(S, T, j):
    """Enemy ``j``'s spell-like effect: a basic save (P-04) of the PC against its spell DC
    (the PC at 0 HP as ``target_downed`` says, AC-free)."""
    cond = S[pc(0, COND)]
    if cond == DEAD:
        return
    if cond != UP:
        how = t.opt(T, t.TARGET_DOWNED)
        if how == t.NEVER or (how == t.SOMETIMES and not chance(S, t.opt(T, t.DOWNED_EDGE))):
            return
    base = roll(S, T, t.monn(S, T, j, t.M_AREA))
    sdc = t.monn(S, T, j, t.M_SDC)
    d = t.deg(T, d20(S), t.pcn(S, T, 0, t.REFLEX) - sdc)
    dmg = (max(base, 0) * t.basic_x2(T, d)) >> 1
    if dmg > 0:
        take_damage(S, T, 0, dmg, 1 if d == 0 else 0, sdc, j)


@scalar
def enemy_turn(S, T, j):
    """Enemy ``j``'s turn: its effect (a chance a turn), else its strikes."""
    edge = t.monn(S, T, j, t.M_EDGE)
    if edge > 0 and chance(S, edge):
        effect(S, T, j)
    else:
        monster_turn(S, T, j)  # (no area effect left: its strikes)


# -- the round and the end -----------------------------------------------------------------------
@scalar
def hours(S, T, C):
    """Seed 001's hourly checks of a stable PC after the fight (R1-06..R1-08, A1-6, R1-11),
    resolved at once: the first hour with a result decides, else it wakes after the night
    (R1-07). Returns the outcome."""
    lethal = 0 if S[pc(0, NONLETHAL)] else 1
    healer = C[C_HOUR_HEALER] if S[ex(T, X_HEALER)] else 0
    for h in range(t.opt(T, t.NIGHT_CHECKS)):
        res = t.hour(S, T, 0, healer, lethal, d20(S), d20(S))
        if res != 1:
            S[ex(T, X_HOURS)] = h + 1
            if res == 0:
                S[pc(0, COND)] = DEAD
                S[pc(0, HP)] = 0
                return DEAD_OUT
            S[pc(0, COND)] = UP
            S[pc(0, HP)] = min(t.opt(T, t.AWAKE_HP), S[pc(0, HP_MAX)])
            return REVIVED
    S[ex(T, X_HOURS)] = C[C_AWAKE_HOURS]
    S[pc(0, COND)] = UP
    S[pc(0, HP)] = t.pcn(S, T, 0, t.NIGHT_HP0)
    return REVIVED


@scalar
def resolve(S, T, C):
    """Once the fight is over: the PC conscious is safe, stable too (or its hourly checks)."""
    if S[ex(T, X_FIGHT)]:
        return
    cond = S[pc(0, COND)]
    if cond == UP:
        S[OUTCOME] = REVIVED if S[ex(T, X_KO)] else STANDING
    elif cond == STABLE:
        S[OUTCOME] = hours(S, T, C) if C[C_LONG_TERM] else STABLE_OUT


@scalar
def note(S, T, r):
    """After a turn: the first knock-out's round (not a death trait's: it kills), and the
    PC's death ends the track."""
    if not S[ex(T, X_KO)] and S[KNOCKOUTS] > 0 and t.opt(T, t.TRAIT) != t.DEATH:
        S[ex(T, X_KO)] = 1
        S[ex(T, X_KO_ROUND)] = r
    if S[pc(0, COND)] == DEAD:
        S[OUTCOME] = DEAD_OUT
        return True
    return False


@scalar
def end_of_round(S, T, C, r):
    """The fight ends after ``fight_rounds`` rounds, or with ``end_chance``."""
    if not S[ex(T, X_FIGHT)]:
        return
    if C[C_FIGHT_ROUNDS] >= 0 and r >= C[C_FIGHT_ROUNDS]:
        S[ex(T, X_FIGHT)] = 0
    elif C[C_END_EDGE] > 0 and chance(S, C[C_END_EDGE]):
        S[ex(T, X_FIGHT)] = 0


@scalar
def quiet(S, T, C):
    """Whether nothing can happen to the PC until the fight ends after ``fight_rounds``:
    it is stable, no enemy aims at a PC at 0 HP, no healer is to come or able to act on
    it, it does not get up (R1-05) and the fight has no end chance (a fast-forward: the
    rounds in between draw nothing that decides anything)."""
    if S[pc(0, COND)] != STABLE or not S[ex(T, X_FIGHT)] or C[C_FIGHT_ROUNDS] < 0:
        return False
    if t.opt(T, t.TARGET_DOWNED) != t.NEVER or C[C_END_EDGE] or C[C_BACK]:
        return False
    if S[ex(T, X_HEALER)]:
        return S[pc(0, HEALS)] == 0
    return C[C_HEALER_ROUND] < 0 and C[C_HEALER_EDGE] == 0


@scalar
def play_round(S, T, C, r):
    """Round ``r``: the healer's arrival and turn, every turn in the acting order (the PC
    moved by a knock-out, R0-03), the end of the round; the outcome if the track ends."""
    P, M = T[t.H_P], T[t.H_M]
    if not S[ex(T, X_HEALER)] and healer_arrives(S, T, C, r):
        S[ex(T, X_HEALER)] = 1
        if C[C_UNTIL_HEALER]:
            S[OUTCOME] = status(S, T)
            return S[OUTCOME]
    if S[ex(T, X_HEALER)]:
        healer_turn(S, T, C)
    fight = S[ex(T, X_FIGHT)]
    at = 0
    while at < P + M:
        who = S[order(P, M, at)]
        if who < P:
            pc_turn(S, T, C)
        elif fight and S[mon(P, who - P, MHP)] > 0:
            enemy_turn(S, T, who - P)
        if note(S, T, r):
            return S[OUTCOME]
        if S[order(P, M, at)] != who:  # a knock-out moved the PC (R0-03): find who acted
            at = 0
            while S[order(P, M, at)] != who:
                at += 1
        at += 1
    end_of_round(S, T, C, r)
    resolve(S, T, C)
    return S[OUTCOME]


@scalar
def start(S, T, C, given):
    """Step 0 of a track whose PC is set (``given``: from a start, its temporary HP in the
    ``pe`` column; else fresh, at its numbers: ``hp``, ``pp``, ``wounded``, ``temp_hp``,
    R0-14, soaked only while conscious): the enemies at 1 HP, the acting order; fresh at
    ``hp=0``, knocked out before round 1 (dying ``start_dying``, the strikes' DC, first in
    the order); from a start, dead stays dead (R0-15) and at 0 HP it is stable, knocked out
    before round 1; with no enemy, resolved at once. The outcome if it ends there."""
    P, M = T[t.H_P], T[t.H_M]
    if not given:
        fresh(S, T)
        S[pc(0, HP)] = C[C_START_HP]
        S[pc(0, PP)] = C[C_START_PP]
        S[pc(0, WOUNDED)] = C[C_WOUNDED0]
        S[pc(0, PE_MAX)] = S[pc(0, TEMP)]  # (what an end hands on: pe <= pe_max)
    else:
        S[pc(0, TEMP)] = S[pc(0, PE)]
        S[pc(0, PE)] = 0
    for j in range(M):
        S[mon(P, j, MHP)] = t.monn(S, T, j, t.M_HP)
        S[mon(P, j, AREA_LEFT)] = 0
    S[PHASE] = FIGHT
    S[OUTCOME] = -1
    down = S[pc(0, HP)] == 0
    for a in range(P + M):
        S[order(P, M, a)] = a if C[C_PC_FIRST] or down else (a + 1) % (P + M)
    S[ex(T, X_FIGHT)] = 1 if C[C_E] > 0 else 0
    if given and down:
        if S[pc(0, COND)] == DEAD:
            S[OUTCOME] = DEAD_OUT
            return S[OUTCOME]
        S[ex(T, X_KO)] = 1
    elif down:
        knock_out(S, T, 0, 0, t.start_dc(S, T), -1, 1)
        if note(S, T, 0):
            return S[OUTCOME]
    resolve(S, T, C)
    return S[OUTCOME]


@scalar
def play(S, T, C, horizon):
    """The track's rounds from round 1 until it ends or ``horizon`` (in one compiled helper
    without reference counting, as the party's :func:`simkit.fight.loop.play`); a
    :func:`quiet` track goes to the end of the fight's last round at once."""
    for r in range(1, horizon + 1):
        S[STEP] = r
        if quiet(S, T, C):  # to the end of the fight's last round
            if C[C_FIGHT_ROUNDS] <= horizon:
                S[STEP] = C[C_FIGHT_ROUNDS]
                S[ex(T, X_FIGHT)] = 0
                resolve(S, T, C)
            else:
                S[STEP] = horizon
            return
        if play_round(S, T, C, r) >= 0:
            return


@njit(cache=True, parallel=True)
def run_encounters(keys, T, C, horizon, width, starts, given, pens, out, ends):
    """Every track of a block (``keys``: 63-bit dice keys) from its start to its end or
    ``horizon``. ``starts`` (n, 1, len(CARRIED)): the PC's fields at the start when
    ``given`` (else fresh); ``pens`` (n,) or (1,): each track's check-penalty index into
    the tables. ``out`` (n, N_OUT) (outcome -1: unresolved) and ``ends`` (n, 1,
    len(CARRIED)), the PC's fields at the end, are written."""
    n = keys.shape[0]
    chunk = 256
    for c in prange((n + chunk - 1) // chunk):
        S = np.zeros(width, dtype=np.int64)
        # a fresh start draws no die (unless its hourly checks end it at once): it is the
        # same row for every track but its key, made once a chunk and copied to each
        fresh_row = np.zeros(width, dtype=np.int64)
        copy = False
        if not given and pens.shape[0] == 1:
            fresh_row[PEN_IX] = pens[0]
            t.place(fresh_row, T)
            start(fresh_row, T, C, False)
            copy = fresh_row[CTR] == 0
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            if copy:
                S[:] = fresh_row
                S[KEY] = keys[i]
                first = S[OUTCOME]
            else:
                S[:] = 0
                S[KEY] = keys[i]
                S[PEN_IX] = pens[i if pens.shape[0] > 1 else 0]
                t.place(S, T)
                if given:
                    for f in range(len(CARRIED)):
                        S[pc(0, CARRIED[f])] = starts[i, 0, f]
                first = start(S, T, C, given)
            if first < 0:
                play(S, T, C, horizon)
            out[i, OUT_OUTCOME] = S[OUTCOME]
            out[i, OUT_STEP] = S[STEP]
            out[i, OUT_KO] = S[ex(T, X_KO)]
            out[i, OUT_KO_ROUND] = S[ex(T, X_KO_ROUND)]
            out[i, OUT_HP] = S[pc(0, HP)]
            out[i, OUT_HERO] = S[HERO_SPENT]
            out[i, OUT_HEALER] = S[ex(T, X_HEALER)]
            out[i, OUT_HOURS] = S[ex(T, X_HOURS)]
            for f in range(len(CARRIED)):
                ends[i, 0, f] = S[pc(0, CARRIED[f])]
            ends[i, 0, CARRIED_PE] = S[pc(0, TEMP)]  # (temporary HP, in ``pe``)
