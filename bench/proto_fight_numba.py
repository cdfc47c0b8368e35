"""Prototype (issue 18): the party fight as a per-track compiled loop. Not library code.

One encounter at a time, start to end, in a numba ``@njit(cache=True)`` loop; the tracks of
a block are spread over threads with ``prange`` (chunks of :data:`CHUNK` tracks). Every
track has its own xoshiro256** generator, seeded from eight 16-bit words drawn from the
track's own stream (:class:`simkit.core.streams.BlockRng` over the engine's streams of
65,536 tracks), so a track's numbers depend on the seed and its index only, never on the
block size or the thread count.

What it plays: the round of :mod:`simkit.models.party_ref` (read that first), for the
options of ``bench/bench_party.py``: ``rules=seed000`` with every default (a hero point
spent at death, R0-10; the monsters' area effect, ``area_chance`` / ``area_uses``; the
cleric's heals and first aid; the wizard's area spell and cantrip; the PCs' ``focus``
targets, the monsters' ``random`` ones; the multiple attack penalty; R0-03 as the kernel
reads it (a knocked-out PC moves to just before the monster, ``key + 0.5 - 0.01 k``, here
in integers: ``200 key + 100 - 2 k``); R0-11; R0-13; recovery checks; care after the
fight; ``after_defeat=slain``). The numbers (HP, AC, attacks, dice, DCs) are read from
``Party(...).fighters`` and handed to the loop in one int64 array (:func:`tables`). Any
other option is refused by :func:`tables` with a one-line error.

Draws: every random number is drawn where it is used (a d20, a die, a pick among the
conscious PCs), exactly uniform (Lemire's multiply-and-reject on 32-bit words, two per
64-bit output). A sum of dice with at most :data:`TABLE_MAX` outcomes is one integer read
through a table of sums (as the kernel does), else one draw per die.

Layout: the loop's helpers take three arrays: ``rs`` (the generator), ``cf`` (every number
of the fight, :func:`tables`) and ``st`` (one track's state, fixed offsets below). A first
version that passed a dozen small arrays to each helper ran 2-3x slower. Inlining the
helpers (``inline="always"``) gained nothing measurable for the leaf helpers (interleaved,
within 3%) and made the first compilation 1.5x (leaves) to 40x (every helper) longer, so
nothing is inlined by numba here.

Every helper has an explicit signature, so it is compiled once (or loaded from numba's
on-disk cache) when this module is imported.

Threads: :func:`play_block` spreads chunks of tracks over numba's threads with ``prange``;
:func:`play_block_threads` does the same with a Python thread pool over the ``nogil``
chunk loop (no parallel compilation to pay); both give the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

try:
    import numba
    from numba import njit, prange
except ImportError:  # (the bench says so in one line)
    numba = None

from simkit.core.streams import STREAM_SIZE, BlockRng, stream_generator
from simkit.models.party import OUTCOMES, Party
from simkit.rules import guide
from simkit.rules.dice import Dice

try:  # (moving to simkit.rules while this is written)
    from simkit.rules.strike import UNCONSCIOUS_AC
except ImportError:  # pragma: no cover
    from simkit.models.encounter import UNCONSCIOUS_AC

__all__ = [
    "CHUNK",
    "ProtoResult",
    "play_block",
    "play_block_threads",
    "run",
    "seed_words",
    "tables",
]

#: The multiple attack penalty's step by ``map`` (the kernel's MAP_STEPS).
MAP_STEPS = {"standard": 5, "agile": 4, "none": 0}
CHUNK = 256  # tracks per prange iteration (each allocates its scratch once)
TABLE_MAX = 4096  # a sum of dice with at most this many outcomes is read from a table
UNRESOLVED = len(OUTCOMES)  # code of a track still fighting at max_rounds
MAXP, MAXM = 8, 32  # most PCs / monsters the fixed layout holds

# -- cf: the fight's numbers (int64) -------------------------------------------------------------
# cf[0] P, cf[1] M, cf[2] first dice row, cf[3] first sum; options from cf[8]
C_P, C_M, C_DICE, C_SUMS = 0, 1, 2, 3
O_ATTACKS, O_MAPSTEP, O_AREA_USES, O_AREA_EDGE, O_THRESH, O_DEATH_AT = range(8, 14)
O_HKO_DIE, O_CP, O_FADC, O_MAXR, O_UNC_AC, O_HERO = range(14, 20)
# PC numbers: cf[C_PC + field * MAXP + k]
C_PC = 24
P_HP, P_AC, P_FORT, P_REFLEX, P_PERC, P_ATK, P_STEP, P_ROLE = range(8)
P_SDC, P_MED, P_HEALS, P_SLOTS, P_DMG, P_AREA, P_CANTRIP, P_HEAL, P_LOW = range(8, 17)
N_PCF = 17
ROLE_STRIKER, ROLE_CLERIC, ROLE_WIZARD = 0, 1, 2
# monster numbers: cf[C_MON + field * MAXM + j]
C_MON = C_PC + N_PCF * MAXP
M_HP, M_AC, M_REFLEX, M_PERC, M_ATK, M_RDC, M_SDC, M_DMG, M_AREA = range(9)
N_MF = 9
C_END = C_MON + N_MF * MAXM
# dice rows: cf[cf[C_DICE] + 5 * d + column]; sums: cf[cf[C_SUMS] + offset + w]
D_COUNT, D_SIDES, D_BONUS, D_WIDTH, D_OFF = range(5)

# -- st: one track's state (int64) -----------------------------------------------------------------
T_PHASE, T_OUT, T_DEATHS, T_KO, T_ROUNDS, T_DMASK, T_HERO, T_HEALS, T_MLEFT, T_MOVED = range(10)
T_STEP = 10
N_TS = 16
# PC state: st[S_BASE + field * MAXP + k]
S_BASE = N_TS
S_HP, S_COND, S_DYING, S_DCS, S_HERO, S_SLOTS, S_HEALS, S_MOVED = range(8)
N_PS = 8
MH_BASE = S_BASE + N_PS * MAXP  # monster HP: st[MH_BASE + j]
MA_BASE = MH_BASE + MAXM  # area effects left: st[MA_BASE + j]
KEY_BASE = MA_BASE + MAXM  # initiative keys (x200, integers): st[KEY_BASE + c]
ORD_BASE = KEY_BASE + MAXP + MAXM  # acting order: st[ORD_BASE + slot]
N_ST = ORD_BASE + MAXP + MAXM
UP, DYING, STABLE, DEAD = 0, 1, 2, 3
FIGHT, WON = 0, 1

# -- per-track results: res[i, column] (int16) ----------------------------------------------------
R_CODE, R_STEP, R_ROUNDS, R_DEATHS, R_KO, R_DMASK, R_HERO, R_HEALS = range(8)
N_RES = 8
MARK_COL = {
    "deaths": R_DEATHS,
    "knockouts": R_KO,
    "rounds": R_ROUNDS,
    "dead_mask": R_DMASK,
    "hero_spent": R_HERO,
    "heals_spent": R_HEALS,
}

SUPPORTED = {
    "rules": "seed000",
    "hp": None,
    "trait": "lethal",
    "target_downed": "never",
    "monster_target": "random",
    "pc_target": "focus",
    "after_defeat": "slain",
    "retreat_at": None,
}


def tables(r: Party) -> np.ndarray:
    """``cf``: every number of ``r``'s fight in one int64 array (layout above). A one-line
    ValueError for an option the prototype does not play."""
    for name, want in SUPPORTED.items():
        if getattr(r, name) != want:
            raise ValueError(f"prototype: {name}={getattr(r, name)!r} is not covered ({want!r})")
    F = r.fighters
    P, M = len(F.pcs), len(F.monsters)
    if not 1 <= P <= MAXP or not 1 <= M <= MAXM:
        raise ValueError(f"prototype: 1..{MAXP} PCs and 1..{MAXM} monsters, got {P} and {M}")
    dice: list[tuple[int, int, int, int, int]] = []
    parts: list[np.ndarray] = []
    ids: dict[str, int] = {}
    pos = 0

    def die(text) -> int:
        nonlocal pos
        if not text:
            return -1
        if text not in ids:
            d = Dice.parse(text)
            width = d.sides**d.count
            if d.count and width <= TABLE_MAX:
                w = np.arange(width)  # the base-``sides`` digits of w are the dice
                parts.append(sum(w // d.sides**i % d.sides + 1 for i in range(d.count)) + d.bonus)
                dice.append((d.count, d.sides, d.bonus, width, pos))
                pos += width
            else:
                dice.append((d.count, d.sides, d.bonus, 0, 0))
            ids[text] = len(dice) - 1
        return ids[text]

    head = np.zeros(C_END, dtype=np.int64)
    head[C_P], head[C_M] = P, M
    for k, p in enumerate(F.pcs):
        wizard = bool(p.area and p.cantrip)
        role = ROLE_CLERIC if p.role == "cleric" else ROLE_WIZARD if p.role == "wizard" else 0
        if role == ROLE_WIZARD and not wizard or role == ROLE_CLERIC and not p.heal:
            raise ValueError(f"prototype: PC {k} ({p.role}) lacks its spells")
        values = (
            p.hp,
            p.ac,
            p.fort,
            p.reflex,
            p.perception,
            p.attack,
            4 if p.agile else 5,
            role,
            p.spell_dc or 0,
            p.medicine if p.medicine is not None else 0,
            p.heals,
            p.slots,
            die(p.damage),
            die(p.area) if wizard else -1,
            die(p.cantrip) if wizard else -1,
            die(p.heal),
            # ``hp <= heal_below * max HP`` for an integer hp, as the kernel compares it
            math.floor(r.heal_below * p.hp),
        )
        for f, v in enumerate(values):
            head[C_PC + f * MAXP + k] = v
    for j, mo in enumerate(F.monsters):
        values = (
            mo.hp,
            mo.ac,
            mo.reflex,
            mo.perception,
            mo.attack,
            mo.recovery_dc,
            mo.spell_dc,
            die(mo.damage),
            die(mo.area),
        )
        for f, v in enumerate(values):
            head[C_MON + f * MAXM + j] = v
    # the area effect's chance: a 32-bit uniform below the kernel's cell edge (exact to 2**-32)
    edge = int(guide.cell_guide((r.area_chance, 1.0 - r.area_chance))[0][1]) if r.area_on else 0
    thr = r.threshold
    head[O_ATTACKS : O_HERO + 1] = (
        r.attacks,
        MAP_STEPS[r.map],
        r.area_uses if r.area_on else 0,
        edge,
        -1 if thr is None else thr,
        r.death_at,
        1 if r.hero_knockout == "die" else 0,
        r.check_penalty,
        r.first_aid_dc,
        r.max_rounds,
        UNCONSCIOUS_AC,
        r.hero_points,
    )
    head[C_DICE] = C_END
    head[C_SUMS] = C_END + 5 * len(dice)
    rows = np.array(dice, dtype=np.int64).reshape(-1)
    sums = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
    return np.concatenate((head, rows, sums))


def seed_words(seed: int, first_stream: int, n_tracks: int, prefix=()) -> np.ndarray:
    """(n_tracks, 2) uint64: each track's 128 seed bits, eight 16-bit words drawn from its
    own stream (the streams of :func:`simkit.core.engine.run_tracks`, from ``first_stream``)."""
    n_streams = math.ceil(n_tracks / STREAM_SIZE)
    counts = [STREAM_SIZE] * n_streams
    counts[-1] = n_tracks - STREAM_SIZE * (n_streams - 1)
    gens = [stream_generator(seed, first_stream + j, prefix) for j in range(n_streams)]
    words = BlockRng(gens, counts).below(65536, size=(n_tracks, 8))
    return np.ascontiguousarray(words).view(np.uint64)


# -- the compiled loop --------------------------------------------------------------------------

if numba is not None:
    _U32 = np.uint64(0xFFFFFFFF)
    _2_32 = np.uint64(1 << 32)
    _GOLDEN = np.uint64(0x9E3779B97F4A7C15)
    _SM1 = np.uint64(0xBF58476D1CE4E5B9)
    _SM2 = np.uint64(0x94D049BB133111EB)
    _ONE, _FIVE, _NINE = np.uint64(1), np.uint64(5), np.uint64(9)
    _R7, _L7, _R17, _R27, _R30, _R31, _R32 = (np.uint64(x) for x in (57, 7, 17, 27, 30, 31, 32))
    _L45, _R45 = np.uint64(45), np.uint64(19)
    # explicit signatures: one compilation per helper (call sites with a bool here and an int
    # there compiled some helpers three times), done at import or loaded from the cache
    _TURN = "void(uint64[::1], int64[::1], int64[::1], int64)"
    _PAIR = "void(uint64[::1], int64[::1], int64[::1], int64, int64)"

    @njit("UniTuple(uint64, 2)(uint64)", cache=True)
    def _splitmix(z):
        z = z + _GOLDEN
        x = (z ^ (z >> _R30)) * _SM1
        x = (x ^ (x >> _R27)) * _SM2
        return z, x ^ (x >> _R31)

    @njit("void(uint64[::1], uint64, uint64)", cache=True)
    def _seed(rs, w0, w1):
        """xoshiro256** state (rs[0:4]) from 128 seed bits; rs[5] = 0: no spare 32-bit word."""
        z, x0 = _splitmix(w0)
        z, x1 = _splitmix(z)
        z, x2 = _splitmix(w1)
        z, x3 = _splitmix(z)
        rs[0], rs[1], rs[2], rs[3] = x0, x1, x2, x3
        rs[5] = np.uint64(0)

    @njit("uint64(uint64[::1])", cache=True)
    def _next32(rs):
        """A 32-bit word (as uint64): each xoshiro256** output gives two."""
        if rs[5]:
            rs[5] = np.uint64(0)
            return rs[4]
        s0, s1, s2, s3 = rs[0], rs[1], rs[2], rs[3]
        x = s1 * _FIVE
        out = ((x << _L7) | (x >> _R7)) * _NINE
        t = s1 << _R17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << _L45) | (s3 >> _R45)
        rs[0], rs[1], rs[2], rs[3] = s0, s1, s2, s3
        rs[4] = out >> _R32
        rs[5] = _ONE
        return out & _U32

    @njit("int64(uint64[::1], int64)", cache=True)
    def _below(rs, n):
        """Exactly uniform integer in [0, n), 1 <= n <= 2**32 (Lemire: multiply, reject)."""
        nn = np.uint64(n)
        m = _next32(rs) * nn
        low = m & _U32
        if low < nn:
            t = (_2_32 - nn) % nn
            while low < t:
                m = _next32(rs) * nn
                low = m & _U32
        return np.int64(m >> _R32)

    @njit("int64(int64, int64, int64)", cache=True)
    def _degree(roll, bonus, dc):
        """Degree of success (R0-05): 0 critical failure .. 3 critical success."""
        total = roll + bonus
        if total >= dc + 10:
            d = 3
        elif total >= dc:
            d = 2
        elif total <= dc - 10:
            d = 0
        else:
            d = 1
        if roll == 20:
            d = min(d + 1, 3)
        elif roll == 1:
            d = max(d - 1, 0)
        return d

    @njit("int64(int64, int64)", cache=True)
    def _basic(deg, base):
        """A basic save's damage: critical success 0, success half, failure all, critical
        failure double."""
        if deg == 3:
            return 0
        if deg == 2:
            return base // 2
        if deg == 0:
            return 2 * base
        return base

    @njit("int64(uint64[::1], int64[::1], int64)", cache=True)
    def _roll(rs, cf, d):
        """One sum of dice ``d``: a table read, or one draw per die."""
        row = cf[C_DICE] + 5 * d
        width = cf[row + D_WIDTH]
        if width:
            return cf[cf[C_SUMS] + cf[row + D_OFF] + _below(rs, width)]
        total = cf[row + D_BONUS]
        sides = cf[row + D_SIDES]
        for _ in range(cf[row + D_COUNT]):
            total += _below(rs, sides) + 1
        return total

    @njit("void(int64[::1], int64)", cache=True)
    def _kill(st, k):
        """PC ``k`` dies (a dead PC stays dead, R0-15)."""
        if st[S_BASE + S_COND * MAXP + k] == DEAD:
            return
        st[S_BASE + S_COND * MAXP + k] = DEAD
        st[S_BASE + S_HP * MAXP + k] = 0
        st[S_BASE + S_DYING * MAXP + k] = 0
        st[T_DEATHS] += 1
        st[T_DMASK] |= 1 << k

    @njit("void(int64[::1], int64[::1], int64, int64, int64, boolean)", cache=True)
    def _rise(cf, st, k, old, new, knockout):
        """Dying of PC ``k`` goes from ``old`` to ``new`` (R0-04, R0-08, R0-10: hero_points.rise
        with seed000's revive)."""
        if new <= 0:  # stable (seed000: no wounded rule)
            st[S_BASE + S_COND * MAXP + k] = STABLE
            st[S_BASE + S_DYING * MAXP + k] = 0
            return
        death_at = cf[O_DEATH_AT]
        thr = cf[O_THRESH]
        if (
            st[S_BASE + S_HERO * MAXP + k] > 0
            and thr >= 0
            and new > old
            and new >= thr
            and not (knockout and cf[O_HKO_DIE] and new >= death_at)
        ):  # a hero point: back at 1 HP
            st[S_BASE + S_HERO * MAXP + k] -= 1
            st[T_HERO] += 1
            st[S_BASE + S_HP * MAXP + k] = 1
            st[S_BASE + S_COND * MAXP + k] = UP
            st[S_BASE + S_DYING * MAXP + k] = 0
        elif new >= death_at:
            _kill(st, k)
        else:
            st[S_BASE + S_COND * MAXP + k] = DYING
            st[S_BASE + S_DYING * MAXP + k] = new

    @njit("void(int64[::1], int64[::1], int64, int64, int64, boolean, int64)", cache=True)
    def _damage(cf, st, k, j, dmg, crit, src):
        """Damage ``dmg`` to PC ``k`` from monster ``j`` (R0-13, R0-03, R0-09, A0-1 ``max``)."""
        if dmg >= 2 * cf[C_PC + P_HP * MAXP + k]:  # R0-13
            _kill(st, k)
            return
        cond = st[S_BASE + S_COND * MAXP + k]
        if cond == DEAD:
            return
        if cond == UP:
            left = st[S_BASE + S_HP * MAXP + k] - dmg
            if left > 0:
                st[S_BASE + S_HP * MAXP + k] = left
                return
            # knocked out (R0-03): moves to just before monster j
            st[S_BASE + S_MOVED * MAXP + k] = 1
            st[T_MOVED] = 1
            st[KEY_BASE + k] = st[KEY_BASE + cf[C_P] + j] + 100 - 2 * k
        if cond == UP or cond == STABLE:  # a knock-out: dying 1 (+1 on a critical)
            st[S_BASE + S_HP * MAXP + k] = 0
            st[T_KO] += 1
            st[S_BASE + S_DCS * MAXP + k] = src
            _rise(cf, st, k, 0, 2 if crit else 1, True)
            return
        old = st[S_BASE + S_DYING * MAXP + k]  # dying: the higher of old and the new value
        dcs = S_BASE + S_DCS * MAXP + k
        st[dcs] = max(st[dcs], src)
        _rise(cf, st, k, old, max(old, 2 if crit else 1), False)

    @njit("void(int64[::1], int64, int64)", cache=True)
    def _hit_monster(st, j, dmg):
        """Monster ``j`` takes ``dmg``; the party wins when the last falls (R0-02)."""
        old = st[MH_BASE + j]
        left = max(old - dmg, 0)
        st[MH_BASE + j] = left
        if old > 0 and left == 0:
            st[T_MLEFT] -= 1
            if st[T_MLEFT] == 0:
                st[T_PHASE] = WON

    @njit(_TURN, cache=True)
    def _strikes(rs, cf, st, k):
        """Two strikes at the multiple attack penalty, each at the ``focus`` target (the
        living monster with the fewest HP, ties: the lower index)."""
        M = cf[C_M]
        for a in range(2):
            if st[T_PHASE] != FIGHT:
                return
            best, j = 1 << 62, 0
            for q in range(M):
                h = st[MH_BASE + q]
                if h > 0 and h < best:
                    best, j = h, q
            bonus = cf[C_PC + P_ATK * MAXP + k] - cf[C_PC + P_STEP * MAXP + k] * a
            deg = _degree(_below(rs, 20) + 1, bonus, cf[C_MON + M_AC * MAXM + j])
            if deg >= 2:
                dmg = _roll(rs, cf, cf[C_PC + P_DMG * MAXP + k])
                _hit_monster(st, j, 2 * dmg if deg == 3 else dmg)

    @njit(_TURN, cache=True)
    def _wizard(rs, cf, st, k):
        """The area spell at every living monster while a slot is left, else the cantrip at
        the focus target; basic Reflex saves against the spell DC."""
        M = cf[C_M]
        dc = cf[C_PC + P_SDC * MAXP + k]
        slots = S_BASE + S_SLOTS * MAXP + k
        if st[slots] > 0:
            st[slots] -= 1
            base = _roll(rs, cf, cf[C_PC + P_AREA * MAXP + k])
            for j in range(M):
                if st[MH_BASE + j] > 0:
                    roll = _below(rs, 20) + 1
                    dmg = _basic(_degree(roll, cf[C_MON + M_REFLEX * MAXM + j], dc), base)
                    if dmg > 0:
                        _hit_monster(st, j, dmg)
            return
        best, j = 1 << 62, -1
        for q in range(M):
            h = st[MH_BASE + q]
            if h > 0 and h < best:
                best, j = h, q
        if j < 0:
            return
        base = _roll(rs, cf, cf[C_PC + P_CANTRIP * MAXP + k])
        roll = _below(rs, 20) + 1
        dmg = _basic(_degree(roll, cf[C_MON + M_REFLEX * MAXM + j], dc), base)
        if dmg > 0:
            _hit_monster(st, j, dmg)

    @njit(_PAIR, cache=True)
    def _heal(rs, cf, st, c, k):
        """Cleric ``c`` heals PC ``k`` (R0-04): at 0 HP, back conscious, dying lost."""
        hp = S_BASE + S_HP * MAXP + k
        if st[S_BASE + S_COND * MAXP + k] != UP:
            st[S_BASE + S_COND * MAXP + k] = UP
            st[S_BASE + S_DYING * MAXP + k] = 0
            st[hp] = 0
        gain = _roll(rs, cf, cf[C_PC + P_HEAL * MAXP + c])
        st[hp] = min(cf[C_PC + P_HP * MAXP + k], st[hp] + gain)
        st[S_BASE + S_HEALS * MAXP + c] -= 1
        st[T_HEALS] += 1

    @njit(_PAIR, cache=True)
    def _aid_or_check(rs, cf, st, c, k):
        """``c >= 0``: cleric ``c``'s first aid on dying PC ``k`` (R1-02, Medicine >= DC);
        ``c < 0``: PC ``k``'s recovery check (R0-05..R0-07, Fortitude vs DC + dying)."""
        roll = _below(rs, 20) + 1
        if c >= 0:
            if roll + cf[C_PC + P_MED * MAXP + c] + cf[O_CP] >= cf[O_FADC]:
                st[S_BASE + S_COND * MAXP + k] = STABLE
                st[S_BASE + S_DYING * MAXP + k] = 0
            return
        old = st[S_BASE + S_DYING * MAXP + k]
        bonus = cf[C_PC + P_FORT * MAXP + k] + cf[O_CP]
        deg = _degree(roll, bonus, st[S_BASE + S_DCS * MAXP + k] + old)
        _rise(
            cf,
            st,
            k,
            old,
            old + (2 if deg == 0 else 1 if deg == 1 else -1 if deg == 2 else -2),
            False,
        )

    @njit("void(int64[::1], int64)", cache=True)
    def _check_defeat(st, P):
        """Every PC at 0 HP: defeat; the monsters kill the downed (after_defeat=slain)."""
        if st[T_PHASE] != FIGHT or st[T_OUT] >= 0:
            return
        for k in range(P):
            if st[S_BASE + S_COND * MAXP + k] == UP:
                return
        for k in range(P):
            _kill(st, k)
        st[T_OUT] = 3

    @njit(_TURN, cache=True)
    def _monster_turn(rs, cf, st, j):
        """Monster ``j``'s area effect (with its chance, while it has uses), else its strikes
        at random conscious PCs."""
        P = cf[C_P]
        if st[MA_BASE + j] > 0 and np.int64(_next32(rs)) < cf[O_AREA_EDGE]:
            st[MA_BASE + j] -= 1
            base = _roll(rs, cf, cf[C_MON + M_AREA * MAXM + j])
            sdc = cf[C_MON + M_SDC * MAXM + j]
            for k in range(P):
                if st[S_BASE + S_COND * MAXP + k] == UP:
                    roll = _below(rs, 20) + 1
                    deg = _degree(roll, cf[C_PC + P_REFLEX * MAXP + k] + cf[O_CP], sdc)
                    dmg = _basic(deg, base)
                    if dmg > 0:
                        _damage(cf, st, k, j, dmg, deg == 0, sdc)
            _check_defeat(st, P)
            return
        for a in range(cf[O_ATTACKS]):
            if st[T_OUT] >= 0 or st[T_PHASE] != FIGHT:
                return
            n_up = 0
            for q in range(P):
                if st[S_BASE + S_COND * MAXP + q] == UP:
                    n_up += 1
            if n_up == 0:
                continue
            pick = _below(rs, n_up)
            k = 0
            for q in range(P):
                if st[S_BASE + S_COND * MAXP + q] == UP:
                    if pick == 0:
                        k = q
                        break
                    pick -= 1
            # (the target is conscious: R0-11's -6 AC never applies without target_downed)
            bonus = cf[C_MON + M_ATK * MAXM + j] - cf[O_MAPSTEP] * min(a, 2)
            deg = _degree(_below(rs, 20) + 1, bonus, cf[C_PC + P_AC * MAXP + k])
            if deg >= 2:
                dmg = _roll(rs, cf, cf[C_MON + M_DMG * MAXM + j])
                rdc = cf[C_MON + M_RDC * MAXM + j]
                _damage(cf, st, k, j, 2 * dmg if deg == 3 else dmg, deg == 3, rdc)
                _check_defeat(st, P)

    @njit("void(int64[::1], int64)", cache=True)
    def _sort_order(st, C):
        """The acting order: combatants by decreasing key (insertion sort; C is small)."""
        for c in range(C):
            st[ORD_BASE + c] = c
        for a in range(1, C):
            c = st[ORD_BASE + a]
            b = a - 1
            while b >= 0 and st[KEY_BASE + st[ORD_BASE + b]] < st[KEY_BASE + c]:
                st[ORD_BASE + b + 1] = st[ORD_BASE + b]
                b -= 1
            st[ORD_BASE + b + 1] = c

    @njit("int64(uint64[::1], int64[::1], int64[::1])", cache=True)
    def _play(rs, cf, st):
        """One whole encounter on the scratch ``st``; its code (UNRESOLVED at max_rounds)."""
        P, M = cf[C_P], cf[C_M]
        C = P + M
        for f in range(N_TS):
            st[f] = 0
        st[T_OUT] = -1
        st[T_MLEFT] = M
        for k in range(P):
            st[S_BASE + S_HP * MAXP + k] = cf[C_PC + P_HP * MAXP + k]
            st[S_BASE + S_COND * MAXP + k] = UP
            st[S_BASE + S_DYING * MAXP + k] = 0
            st[S_BASE + S_DCS * MAXP + k] = 0
            st[S_BASE + S_HERO * MAXP + k] = cf[O_HERO]
            st[S_BASE + S_SLOTS * MAXP + k] = cf[C_PC + P_SLOTS * MAXP + k]
            st[S_BASE + S_HEALS * MAXP + k] = cf[C_PC + P_HEALS * MAXP + k]
            st[S_BASE + S_MOVED * MAXP + k] = 0
            # initiative (d20 + Perception; ties: monsters, then the lower index), x200
            total = _below(rs, 20) + 1 + cf[C_PC + P_PERC * MAXP + k]
            st[KEY_BASE + k] = 200 * (total * 256 + C - k)
        for j in range(M):
            st[MH_BASE + j] = cf[C_MON + M_HP * MAXM + j]
            st[MA_BASE + j] = cf[O_AREA_USES]
            total = _below(rs, 20) + 1 + cf[C_MON + M_PERC * MAXM + j]
            st[KEY_BASE + P + j] = 200 * (total * 256 + 64 + M - j)
        _sort_order(st, C)
        for t in range(cf[O_MAXR]):
            fighting = st[T_PHASE] == FIGHT
            for k in range(P):
                st[S_BASE + S_MOVED * MAXP + k] = 0
            if fighting:
                st[T_ROUNDS] += 1
                st[T_MOVED] = 0
                for s in range(C):
                    if st[T_OUT] >= 0 or st[T_PHASE] != FIGHT:
                        break
                    c = st[ORD_BASE + s]
                    if c >= P:
                        if st[MH_BASE + c - P] > 0:
                            _monster_turn(rs, cf, st, c - P)
                        continue
                    if st[S_BASE + S_MOVED * MAXP + c]:
                        continue
                    cond = st[S_BASE + S_COND * MAXP + c]
                    if cond == DYING:
                        _aid_or_check(rs, cf, st, -1, c)
                        continue
                    if cond != UP:
                        continue
                    role = cf[C_PC + P_ROLE * MAXP + c]
                    if role == ROLE_WIZARD:
                        _wizard(rs, cf, st, c)
                        continue
                    if role == ROLE_CLERIC:
                        down, low, dy = -1, -1, -1
                        for q in range(P):
                            cq = st[S_BASE + S_COND * MAXP + q]
                            if down < 0 and (cq == DYING or cq == STABLE):
                                down = q
                            if dy < 0 and cq == DYING:
                                dy = q
                            hp = st[S_BASE + S_HP * MAXP + q]
                            if low < 0 and cq == UP and hp <= cf[C_PC + P_LOW * MAXP + q]:
                                low = q
                        if st[S_BASE + S_HEALS * MAXP + c] > 0 and (down >= 0 or low >= 0):
                            _heal(rs, cf, st, c, down if down >= 0 else low)
                            continue
                        if dy >= 0:
                            _aid_or_check(rs, cf, st, c, dy)
                            continue
                    _strikes(rs, cf, st, c)
                if st[T_MOVED]:  # R0-03 moved someone: the new order from the next round
                    _sort_order(st, C)
            elif st[T_OUT] < 0:  # care after the fight, one round at a time
                for c in range(P):
                    if cf[C_PC + P_HEAL * MAXP + c] < 0 or st[S_BASE + S_COND * MAXP + c] != UP:
                        continue
                    down, dy = -1, -1
                    for q in range(P):
                        cq = st[S_BASE + S_COND * MAXP + q]
                        if down < 0 and (cq == DYING or cq == STABLE):
                            down = q
                        if dy < 0 and cq == DYING:
                            dy = q
                    if st[S_BASE + S_HEALS * MAXP + c] > 0 and down >= 0:
                        _heal(rs, cf, st, c, down)
                    elif dy >= 0:
                        _aid_or_check(rs, cf, st, c, dy)
                for k in range(P):
                    if st[S_BASE + S_COND * MAXP + k] == DYING:
                        _aid_or_check(rs, cf, st, -1, k)
            if st[T_OUT] < 0 and st[T_PHASE] != FIGHT:
                dying = False
                for k in range(P):
                    dying |= st[S_BASE + S_COND * MAXP + k] == DYING
                if not dying:  # (the fight was won: retreat is not played)
                    st[T_OUT] = 1 if st[T_DEATHS] else 0
            if st[T_OUT] >= 0:
                st[T_STEP] = t + 1
                return st[T_OUT]
        st[T_STEP] = cf[O_MAXR]
        return UNRESOLVED

    @njit("void(uint64[:, ::1], int64[::1], int16[:, ::1], int64, int64)", cache=True, nogil=True)
    def _play_chunk(words, cf, res, lo, hi):
        rs = np.zeros(6, dtype=np.uint64)
        st = np.zeros(N_ST, dtype=np.int64)
        for i in range(lo, hi):
            _seed(rs, words[i, 0], words[i, 1])
            res[i, R_CODE] = _play(rs, cf, st)
            res[i, R_STEP] = st[T_STEP]
            res[i, R_ROUNDS] = st[T_ROUNDS]
            res[i, R_DEATHS] = st[T_DEATHS]
            res[i, R_KO] = st[T_KO]
            res[i, R_DMASK] = st[T_DMASK]
            res[i, R_HERO] = st[T_HERO]
            res[i, R_HEALS] = st[T_HEALS]

    @njit("void(uint64[:, ::1], int64[::1], int16[:, ::1])", cache=True, parallel=True)
    def play_block(words, cf, res):
        """Every track of a block: ``words`` (m, 2) uint64 seeds in, ``res`` (m, N_RES) out."""
        m = words.shape[0]
        n_chunks = (m + CHUNK - 1) // CHUNK
        for ch in prange(n_chunks):
            _play_chunk(words, cf, res, ch * CHUNK, min(m, (ch + 1) * CHUNK))


def play_block_threads(words: np.ndarray, cf: np.ndarray, res: np.ndarray, threads: int) -> None:
    """:func:`play_block` over a pool of ``threads`` Python threads (the chunk loop releases
    the GIL); the same numbers."""
    m = len(words)
    if threads <= 1 or m <= CHUNK:
        _play_chunk(words, cf, res, 0, m)
        return
    from concurrent.futures import ThreadPoolExecutor

    step = -(-m // (threads * 4 * CHUNK)) * CHUNK  # four pieces a thread, whole chunks
    with ThreadPoolExecutor(threads) as ex:
        list(
            ex.map(lambda lo: _play_chunk(words, cf, res, lo, min(m, lo + step)), range(0, m, step))
        )


@dataclass
class ProtoResult:
    """Counts of a prototype run, shaped as the engine's tally."""

    n: int
    hist: np.ndarray  # (n_outcomes, max_rounds + 1) int64: ends by outcome and round
    marks: dict  # mark -> (n_outcomes, max value + 1) int64

    @property
    def counts(self) -> dict[str, int]:
        out = dict(zip(OUTCOMES, (int(x) for x in self.hist.sum(axis=1))))
        out["unresolved"] = self.n - sum(out.values())
        return out

    def any_death(self) -> int:
        return int(self.marks["deaths"][:, 1:].sum())


def _tally(res: np.ndarray, horizon: int) -> tuple[np.ndarray, dict]:
    """The engine's hist and marks of one block's results (unresolved tracks left out)."""
    n_out = len(OUTCOMES)
    code = res[:, R_CODE].astype(np.intp)
    done = code < n_out
    code_d = code[done]
    hist = np.bincount(
        code_d * (horizon + 1) + res[done, R_STEP], minlength=n_out * (horizon + 1)
    ).reshape(n_out, horizon + 1)
    marks = {}
    for name, col in MARK_COL.items():
        v = res[done, col].astype(np.intp)
        width = int(v.max()) + 1 if len(v) else 1
        marks[name] = np.bincount(code_d * width + v, minlength=n_out * width).reshape(n_out, width)
    return hist, marks


def _add(marks: dict, new: dict) -> None:
    for k, v in new.items():
        old = marks.get(k)
        if old is None:
            marks[k] = v
            continue
        if old.shape[1] < v.shape[1]:
            old, v = v, old
        old = old.copy()
        old[:, : v.shape[1]] += v
        marks[k] = old


def run(
    r: Party,
    n: int,
    seed: int,
    block_size: int = 2**20,
    cf: np.ndarray | None = None,
    pool: int | None = None,
):
    """``n`` encounters of ``r`` from ``seed`` through the compiled loop: a ProtoResult.

    Tracks go in blocks of whole streams, as the engine's (``block_size`` rounded up to
    whole streams); the numbers depend neither on ``block_size`` nor on the thread count.
    ``cf``: :func:`tables` of ``r``, when the caller has it. ``pool``: None for numba's
    ``prange`` threads (:func:`numba.set_num_threads`), else that many Python threads.
    """
    if numba is None:
        raise RuntimeError("numba is not installed")
    cf = tables(r) if cf is None else cf
    horizon = int(cf[O_MAXR])
    per_block = max(1, math.ceil(block_size / STREAM_SIZE))
    n_streams = math.ceil(n / STREAM_SIZE)
    hist = np.zeros((len(OUTCOMES), horizon + 1), dtype=np.int64)
    marks: dict = {}
    for first in range(0, n_streams, per_block):
        last = min(first + per_block, n_streams)
        m = min(n, last * STREAM_SIZE) - first * STREAM_SIZE
        words = seed_words(seed, first, m)
        res = np.empty((m, N_RES), dtype=np.int16)
        if pool is None:
            play_block(words, cf, res)
        else:
            play_block_threads(words, cf, res, pool)
        h, mk = _tally(res, horizon)
        hist += h
        _add(marks, mk)
    return ProtoResult(n=n, hist=hist, marks=marks)
