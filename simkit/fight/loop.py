"""The fight loop: one track at a time, from the initiative to the end of the care.

Written once, per track, as scalar code; numba compiles it (``njit``, ``cache=True``) and
spreads a block's tracks over threads (``prange``). Each track's dice come from its own
key (:mod:`simkit.fight.dice`), so the numbers do not depend on the block, the threads or
the workers. A step is a round (the model's time unit): the rounds of fighting, then the
rounds of care after a won fight or a retreat (AP-7).

The round (P-01): every combatant acts in the acting order; a PC knocked out moves to just
before the monster whose turn it is (R0-03) and so does not act again this round; at the
end of the round the party retreats with ``retreat_at`` PCs down (AP-8). After the fight
each conscious cleric heals or gives first aid and the dying make their checks (AP-7)
until none is dying.
"""

from __future__ import annotations

import numpy as np

from simkit.fight import tables as t
from simkit.fight._jit import hot, njit, prange, scalar
from simkit.fight.dice import d20
from simkit.fight.grant import grants0
from simkit.fight.phases import (
    RETREAT,
    VICTORY,
    VICTORY_DEATHS,
    check_defeat,
    dying_turn,
    fighting,
    first_aid,
    first_with,
    heal,
    knock_out,
    night,
)
from simkit.fight.state import (
    AREA_LEFT,
    COND,
    DEAD,
    DEATHS,
    DYING,
    FIGHT,
    FIGHT_IX,
    FLED,
    GRANTS,
    HEALS,
    HERO,
    HP,
    HP_MAX,
    KEY,
    KNOCKOUTS,
    LOW,
    MARK0,
    MARKS,
    MASSIVE,
    MHP,
    NIGHT_HP,
    OUTCOME,
    PE,
    PE_MAX,
    PEN_IX,
    PHASE,
    PP,
    ROUNDS,
    SLOTS,
    STABLE,
    STEP,
    TEMP,
    UP,
    WON,
    WOUNDED,
    init_key,
    mon,
    order,
    pc,
)
from simkit.fight.tactics import monster_turn, pc_turn

__all__ = ["CARE", "CARRIED", "fresh", "play", "run_block", "start"]

#: Tracks a thread takes at a time.
CHUNK = 256
#: ``given`` of a care's start (:func:`start`): the PCs set, the monsters gone.
CARE = 2


@scalar
def victory(S):
    """The won outcome: with or without deaths."""
    return VICTORY_DEATHS if S[DEATHS] else VICTORY


@hot
def roll_initiative(S, T):
    """P-01, AP-1: every combatant's d20 + Perception (a PC's with its check penalty, P-10);
    higher acts first; ties as :func:`simkit.rules.initiative.initiative_keys` orders them,
    then the lower combatant first.

    Each combatant's sort key carries its number in its low bits (below ``span``, a power
    of two above the combatants' count), so no two are equal; a combatant's place in the
    order is how many keys are higher than its own (counted without a branch: a sort's
    comparisons of random keys are mispredicted)."""
    P, M = T[t.H_P], T[t.H_M]
    span = 1
    while span < P + M:
        span *= 2
    for c in range(P + M):
        perc = t.pcn(S, T, c, t.PERC) if c < P else t.monn(S, T, c - P, t.M_PERC)
        S[init_key(P, M, c)] = ((d20(S) + perc) * 256 + t.tie(T, c)) * span + (span - 1 - c)
    for c in range(P + M):
        key, higher = S[init_key(P, M, c)], 0
        for b in range(P + M):
            higher += S[init_key(P, M, b)] > key
        S[order(P, M, higher)] = c


@scalar
def fresh(S, T):
    """Every PC at its numbers: full HP, its spells, ``hero_points`` (the monsters are set
    by :func:`start`)."""
    for k in range(T[t.H_P]):
        S[pc(k, HP)] = t.pcn(S, T, k, t.HP_MAX)
        S[pc(k, HP_MAX)] = t.pcn(S, T, k, t.HP_MAX)
        S[pc(k, MASSIVE)] = t.pcn(S, T, k, t.MASSIVE)
        S[pc(k, LOW)] = t.pcn(S, T, k, t.LOW)
        S[pc(k, HERO)] = t.pcn(S, T, k, t.HERO0)
        S[pc(k, SLOTS)] = t.pcn(S, T, k, t.SLOTS0)
        S[pc(k, HEALS)] = t.pcn(S, T, k, t.HEALS0)
        S[pc(k, PP)] = t.pcn(S, T, k, t.PP0)
        S[pc(k, PE)] = t.pcn(S, T, k, t.PE0)
        S[pc(k, PE_MAX)] = t.pcn(S, T, k, t.PE0)
        S[pc(k, NIGHT_HP)] = t.pcn(S, T, k, t.NIGHT_HP0)
        S[pc(k, TEMP)] = t.pcn(S, T, k, t.TEMP0)  # R0-14
        S[pc(k, COND)] = UP


@scalar
def start(S, T, given):
    """Step 0 of a track whose PCs are set (:func:`fresh`, or a start's values with
    ``given``); its outcome if it ends there.

    Without a start, ``hp`` caps every PC's HP (R0-01) and ``hp=0`` knocks every PC out
    before round 1 (dying ``start_dying``, the recovery DC of the lineup's first monster;
    no move, not counted). With a monster and no PC conscious the fight is lost at once
    (AP-9); with no monster it is won, and ends now when every PC is conscious.

    ``given == CARE``: the care of PCs knocked out outside a fight (the day's, after a fall
    or a Treat Wounds critical failure; AP-7 with no monster): the lineup's monsters are
    gone before round 1 and each PC the start marks ``DYING`` is knocked out as ``hp=0``
    knocks one out (dying ``start_dying``, the lineup's recovery DC)."""
    P, M = T[t.H_P], T[t.H_M]
    care = given == CARE
    for j in range(M):
        S[mon(P, j, MHP)] = 0 if care else t.monn(S, T, j, t.M_HP)
        S[mon(P, j, AREA_LEFT)] = 0 if care else t.monn(S, T, j, t.M_USES)
    S[PHASE] = FIGHT if t.n_monsters(S, T) and not care else WON
    S[OUTCOME] = -1
    roll_initiative(S, T)
    for k in range(P):  # R0-14, AP-37: every fight's grants of temporary HP
        S[pc(k, GRANTS)] = grants0(T, k)
    if care:  # the start's PCs marked DYING are knocked out now, as hp=0 knocks them out
        for k in range(P):
            if S[pc(k, COND)] == DYING:
                S[pc(k, COND)] = UP
                knock_out(S, T, k, 0, t.start_dc(S, T), -1, 1)
        S[KNOCKOUTS] = 0
    cap = t.opt(T, t.HP_CAP)
    if cap >= 0 and not given:
        for k in range(P):
            S[pc(k, HP)] = min(S[pc(k, HP)], cap)
        if cap == 0:
            for k in range(P):
                knock_out(S, T, k, 0, t.start_dc(S, T), -1, 1)
            S[KNOCKOUTS] = 0
    check_defeat(S, T)
    if S[OUTCOME] < 0 and S[PHASE] == WON:
        if first_with(S, T, DYING, STABLE) < 0 and first_with(S, T, DEAD, DEAD) < 0:
            S[OUTCOME] = victory(S)
    return S[OUTCOME]


@hot
def fight_round(S, T):
    """Every combatant's turn in the acting order (P-01); the next turn is the one after
    the turn in progress, wherever a knock-out moved someone (R0-03)."""
    P, M = T[t.H_P], T[t.H_M]
    at = 0
    while at < P + M and fighting(S):
        who = S[order(P, M, at)]
        if who < P:
            pc_turn(S, T, who)
        elif S[mon(P, who - P, MHP)] > 0:
            monster_turn(S, T, who - P)
        if S[order(P, M, at)] != who:  # a knock-out moved it (R0-03): find it again
            at = 0
            while S[order(P, M, at)] != who:
                at += 1
        at += 1


@scalar
def care_round(S, T):
    """AP-7: each conscious cleric heals the first PC at 0 HP (a heal left) or gives first
    aid to the first dying PC; then every dying PC takes its turn (no R1-05 after the
    fight: it is a way back into one, AP-22)."""
    P = T[t.H_P]
    for c in range(P):
        if t.pcn(S, T, c, t.ROLE) != t.CLERIC or S[pc(c, COND)] != UP:
            continue
        k = first_with(S, T, DYING, STABLE)
        if S[pc(c, HEALS)] > 0 and k >= 0:
            heal(S, T, c, k)
            continue
        k = first_with(S, T, DYING, DYING)
        if k >= 0:
            first_aid(S, T, c, k)
    for k in range(P):
        if S[pc(k, COND)] == DYING:
            dying_turn(S, T, k)


@scalar
def play_round(S, T):
    """One step: a round of the fight, or of the care after it; the outcome if it ends."""
    if S[PHASE] == FIGHT:
        S[ROUNDS] += 1
        fight_round(S, T)
        retreat_at = t.opt(T, t.RETREAT_AT)
        if fighting(S) and retreat_at >= 0:  # AP-8: the end of the round
            down = 0
            for k in range(T[t.H_P]):
                if S[pc(k, COND)] != UP:
                    down += 1
            if down >= retreat_at:
                S[PHASE] = FLED
    elif S[OUTCOME] < 0:
        care_round(S, T)
    if S[OUTCOME] < 0 and S[PHASE] != FIGHT and first_with(S, T, DYING, DYING) < 0:
        if t.opt(T, t.HOURLY):  # AP-11: the night's hourly checks
            night(S, T)
        S[OUTCOME] = victory(S) if S[PHASE] == WON else RETREAT
    return S[OUTCOME]


@scalar
def play(S, T, horizon):
    """The track's rounds from step 1 until it ends or ``horizon`` (its outcome, or -1)."""
    for step in range(1, horizon + 1):
        S[STEP] = step
        if play_round(S, T) >= 0:
            return S[OUTCOME]
    return -1


#: A PC's fields a track takes from a start and hands on at its end (``keep_state``), in
#: this order in ``starts`` and ``ends`` (:func:`run_block`).
CARRIED = (HP, HP_MAX, MASSIVE, LOW, HERO, SLOTS, HEALS, WOUNDED, COND, PP, PE, PE_MAX, NIGHT_HP)
#: What a track hands back in ``out``: its outcome (-1: unresolved), the step it ended at
#: (0: at the start), then its marks in :data:`simkit.fight.state.MARKS` order.
OUT_OUTCOME, OUT_STEP, OUT_MARK0 = 0, 1, 2


@njit(cache=True, parallel=True)
def run_block(keys, T, horizon, width, starts, given, fights, pens, out, ends):
    """Every track of a block from its start to its end or ``horizon``.

    ``keys`` (n,) int64: the tracks' dice keys; ``starts`` (len(CARRIED), n, P): the PCs'
    fields at the start when ``given`` (else fresh: :func:`fresh`), field by field;
    ``fights`` and ``pens`` (n,) or (1,) for every track: each track's lineup and
    check-penalty indices into the tables; ``out`` (2 + marks, n) and ``ends``
    (len(CARRIED), n, P) are written (``ends`` of (len(CARRIED), 0, P): no end states,
    when nothing will be carried on: 52 bytes a PC not written). Threads take chunks of
    tracks, each track in one reused row of ``width`` fields (no per-track state is kept:
    the memory is the outputs')."""
    n = keys.shape[0]
    P = T[t.H_P]
    keep = ends.shape[1] == n  # (an empty ``ends``: no end state is asked for)
    # one penalty for every track and no start: every track's fresh row is the same (a
    # template, made once a chunk and copied)
    same = not given and pens.shape[0] == 1
    for c in prange((n + CHUNK - 1) // CHUNK):
        S = np.zeros(width, dtype=np.int64)
        fresh_row = np.zeros(width, dtype=np.int64)
        if same:
            fresh_row[PEN_IX] = pens[0]
            t.place(fresh_row, T)
            fresh(fresh_row, T)
        for i in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            # (element by element: a slice assignment takes a reference, an atomic
            # increment, a track)
            if same:
                for f in range(width):
                    S[f] = fresh_row[f]
            else:
                for f in range(width):
                    S[f] = 0
            S[KEY] = keys[i]
            S[FIGHT_IX] = fights[i if fights.shape[0] > 1 else 0]
            S[PEN_IX] = pens[i if pens.shape[0] > 1 else 0]
            t.place(S, T)
            if given:
                for k in range(P):
                    for f in range(len(CARRIED)):
                        S[pc(k, CARRIED[f])] = starts[f, i, k]
            elif not same:
                fresh(S, T)
            if start(S, T, given) < 0:
                play(S, T, horizon)
            out[OUT_OUTCOME, i] = S[OUTCOME]
            out[OUT_STEP, i] = S[STEP]
            for m in range(len(MARKS)):
                out[OUT_MARK0 + m, i] = S[MARK0 + m]
            if keep:
                for k in range(P):
                    for f in range(len(CARRIED)):
                        ends[f, i, k] = S[pc(k, CARRIED[f])]
