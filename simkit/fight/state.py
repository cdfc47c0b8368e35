"""A fight's state, one track at a time: one int64 row of named fields.

The loop (:mod:`simkit.fight.loop`) reads and writes one track through its row ``S``
(a 1-D int64 array; a block is ``(n, width)``), with the fields named here:

- the track's own fields at fixed places: ``PHASE`` (:class:`Phase`), ``OUTCOME`` (the
  outcome's index, -1 while going on), ``STEP`` (steps played), ``KEY`` (its dice key, 63
  bits), ``CTR`` (the next draw's index, :mod:`simkit.fight.dice`), ``FIGHT_IX`` (its
  lineup, an index into the tables' fights), ``PEN_IX`` (its check penalty, an index into
  the tables' penalties, P-10), ``PCN_AT``, ``MONN_AT`` and ``MMAP_AT`` (where its penalty's
  PC numbers, its lineup's monster numbers and their multiple attack penalties start in
  the tables: :func:`simkit.fight.tables.place`,
  one read a number instead of three and a product) and the marks,
  ``DEATHS`` .. ``DEATHS_AFTER_FIGHT`` (in :data:`MARKS` order);
- per PC ``k`` (party order), at :func:`pc` ``(k, field)``: ``HP`` (current hit points),
  ``COND`` (:class:`Cond`), ``DYING_V`` (seed 000's dying value), ``DC`` (the recovery DC
  before dying, R0-06), ``WOUNDED`` (A0-2), ``HERO`` (hero points held), ``SLOTS`` (area
  spells left), ``HEALS`` (heal spells left), ``HP_MAX`` (its maximum HP, R0-01) and what
  follows from it: ``MASSIVE`` (the least damage that kills outright, R0-13) and ``LOW``
  (the HP at or below which a cleric heals it, AP-5); under seed 001, ``PP``
  (perseverance points, R1-01), ``PE``/``PE_MAX`` (stamina points, A1-5), ``AGONY_T``
  (turns agonising since the knock-out, R1-04), ``NONLETHAL`` (down by nonlethal
  damage, R1-11) and ``NIGHT_HP`` (its HP after a night with no hourly result, R1-07);
  ``TEMP`` (temporary HP, R0-14), ``SLOWED`` (the slowed value its next turn takes,
  R0-04, R0-10), ``BACK`` (up again by R1-05 since its last knock-out, A1-12) and
  ``CON_DAMAGE`` (points of Constitution damage taken, R1-12), ``GRANTS`` (grants of
  temporary HP left this fight, R0-14, AP-37);
- per monster ``j``, at :func:`mon` ``(P, j, field)``: ``MHP`` (its HP; 0 = dead,
  R0-02), ``AREA_LEFT`` (area effects left, AP-10);
- the acting order, first to act first, at :func:`order` ``(P, M, a)``: PC ``k`` is ``k``,
  monster ``j`` is ``P + j`` (P-01, AP-1; R0-03 moves a knocked-out PC in it), and the
  initiative's sort keys after it, each combatant's in its own place (:func:`init_key`).

Every place is an unsigned number (``np.uint64``): numba wraps a signed index around when
it is negative (Python's ``a[-1]``), a test and an addition before every read, on the
chains of dependent reads a turn is made of; an unsigned index has none (the fight 1.08-1.14x
faster, the tables' readers alike: :mod:`simkit.fight.tables`).

:func:`width` is a row's length; 8 bytes a field: a party of four against one boss holds
896 bytes a track (:func:`bytes_per_track`).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from simkit.fight._jit import scalar

__all__ = [
    "Cond",
    "MARKS",
    "Phase",
    "bytes_per_track",
    "init_key",
    "mon",
    "order",
    "pc",
    "width",
]


class Cond(IntEnum):
    """A PC's condition (one vocabulary for every fight)."""

    UP = 0  #: conscious, above 0 HP
    DYING = 1  #: at 0 HP and dying (seed 000 / pf2e-core)
    STABLE = 2  #: at 0 HP, stable, unconscious (R0-08)
    DEAD = 3  #: dead for good (R0-15)


class Phase(IntEnum):
    """Where a track's fight is."""

    FIGHT = 0  #: the fight goes on
    WON = 1  #: every monster at 0 HP; the care after the fight (AP-7)
    FLED = 2  #: the party retreated (AP-8); the care after it


# numba reads plain integers: the same values, as module constants
UP, DYING, STABLE, DEAD = (int(c) for c in Cond)
FIGHT, WON, FLED = (int(p) for p in Phase)

# -- the track's fields --------------------------------------------------------------------
PHASE, OUTCOME, STEP, KEY, CTR, FIGHT_IX, PEN_IX, PCN_AT, MONN_AT, MMAP_AT = range(10)
#: The marks, in the model's order (``Party.marks``), at ``S[MARK0 + i]``.
MARKS = (
    "deaths",
    "knockouts",
    "rounds",
    "dead_mask",
    "hero_spent",
    "heals_spent",
    "deaths_in_fight",
    "deaths_after_defeat",
    "deaths_after_fight",
)
MARK0 = 10
(
    DEATHS,
    KNOCKOUTS,
    ROUNDS,
    DEAD_MASK,
    HERO_SPENT,
    HEALS_SPENT,
    DEATHS_IN_FIGHT,
    DEATHS_AFTER_DEFEAT,
    DEATHS_AFTER_FIGHT,
) = range(MARK0, MARK0 + len(MARKS))
N_TRK = MARK0 + len(MARKS)
# -- a PC's fields --------------------------------------------------------------------------
(
    HP,
    COND,
    DYING_V,
    DC,
    WOUNDED,
    HERO,
    SLOTS,
    HEALS,
    HP_MAX,
    MASSIVE,
    LOW,
    PP,
    PE,
    PE_MAX,
    AGONY_T,
    NONLETHAL,
    NIGHT_HP,
    TEMP,
    SLOWED,
    BACK,
    CON_DAMAGE,
    GRANTS,
) = range(22)
N_PC = 22
# -- a monster's fields ----------------------------------------------------------------------
MHP, AREA_LEFT = range(2)
N_MON = 2


@scalar
def pc(k, field):
    """Where PC ``k``'s ``field`` is in a track's row."""
    return np.uint64(N_TRK + k * N_PC + field)


@scalar
def mon(P, j, field):
    """Where monster ``j``'s ``field`` is (``P`` PCs)."""
    return np.uint64(N_TRK + P * N_PC + j * N_MON + field)


@scalar
def order(P, M, a):
    """Where the ``a``-th place of the acting order is (``P`` PCs, ``M`` monsters)."""
    return np.uint64(N_TRK + P * N_PC + M * N_MON + a)


@scalar
def init_key(P, M, a):
    """Where combatant ``a``'s initiative sort key is (the loop's ``roll_initiative``)."""
    return np.uint64(N_TRK + P * N_PC + M * N_MON + P + M + a)


def width(P: int, M: int) -> int:
    """A track's row length (int64 fields) with ``P`` PCs and ``M`` monsters."""
    return N_TRK + P * N_PC + M * N_MON + 2 * (P + M)


def bytes_per_track(P: int, M: int) -> int:
    """Bytes of state a track holds in a block."""
    return 8 * width(P, M)
