"""The published PF2e rest (P-11, P-12): Treat Wounds in a 10-minute rest, a night's rest.

Treat Wounds (P-11): a trained healer spends 10 minutes on one injured living creature
(itself if it likes) and rolls Medicine against DC 15: a critical success restores 4d8
HP, a success 2d8, a failure nothing, a critical failure deals 1d8 damage; the target is
then immune to Treat Wounds for an hour. Healing from it ends the wounded condition
(A0-2's published rule).

A night's rest (P-12): 8 hours of sleep restore Constitution modifier x level HP (at
least the level: the modifier counts as at least 1); a whole day in bed twice that. The
wounded condition ends when the character is at full HP after a rest (10 minutes or more).

The house's three forms:

:func:`treat_wounds` (scalar reference)
    The natural d20, the four d8s rolled, the healer's Medicine bonus and check penalty
    in; the HP change out (positive: healed; negative: damage).
:func:`treat_wounds_pmf` (exact)
    Every d20 face and every combination of the d8s the degree rolls, through the
    reference (cached).
:func:`treat_wounds_table`, :func:`treat_wounds_phase` (vectorised)
    The reference over every d20 face and every packed roll of four d8s (``8**4 = 4096``,
    cached on the bonus and DC); the phase draws one ``below(20)`` and one ``below(4096)``
    per row and reads the table.

:func:`night_rest_hp` is deterministic (numpy operations: the same code is the reference
and the phase).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, SUCCESS, degrees

__all__ = [
    "TREAT_DC",
    "TREAT_IMMUNE_RESTS",
    "D8_WIDTH",
    "treat_wounds",
    "treat_wounds_pmf",
    "treat_wounds_table",
    "treat_wounds_phase",
    "night_rest_hp",
]

#: Treat Wounds' DC (trained, P-11).
TREAT_DC = 15
#: Short rests (10 minutes each) before a treated PC can be treated again: the hour of
#: immunity is the rest it was treated in and the five after it (P-11).
TREAT_IMMUNE_RESTS = 5
#: Equally likely packed rolls of four d8s: d8 ``i`` of roll ``r`` is ``r // 8**i % 8 + 1``.
D8_WIDTH = 8**4


def treat_wounds(roll, d8s, *, medicine, dc: int = TREAT_DC, check_penalty=0):
    """One Treat Wounds (P-11): the HP change of the patient.

    Written with numpy operations, so the same code is the scalar reference (ints in, an
    int out) and builds the vectorised table (arrays in, broadcast).

    Parameters
    ----------
    roll : int or array_like
        The healer's natural d20, 1..20 (a PF2e check: a natural 20 / 1 moves the degree).
    d8s : sequence of four ints, or array_like of shape (4, ...)
        Four d8 results, 1..8; a degree reads the first one, two or four.
    medicine : int or array_like
        The healer's Medicine bonus.
    dc : int
        The DC (15, trained).
    check_penalty : int or array_like
        The healer's check penalty (<= 0, P-10; fatigue R4-03).

    Returns
    -------
    int or ndarray
        HP restored (critical success 4d8, success 2d8), 0 (failure) or minus the damage
        (critical failure 1d8).
    """
    d = np.asarray(d8s, dtype=np.int64)
    deg = degrees(roll, np.asarray(medicine) + np.asarray(check_penalty), dc)
    two, four = d[0] + d[1], d[0] + d[1] + d[2] + d[3]
    out = np.where(
        deg == CRIT_SUCCESS,
        four,
        np.where(deg == SUCCESS, two, np.where(deg == CRIT_FAIL, -d[0], 0)),
    )
    return int(out) if out.ndim == 0 else out.astype(np.int64)


#: The four d8s of every packed roll, shape (4, 4096).
_PACKED = np.array([np.arange(D8_WIDTH) // 8**i % 8 + 1 for i in range(4)], dtype=np.int64)
_PACKED.setflags(write=False)


@lru_cache(maxsize=64)
def _table(medicine: int, dc: int) -> np.ndarray:
    rolls = np.arange(1, 21)[:, None]
    out = treat_wounds(rolls, _PACKED[:, None, :], medicine=medicine, dc=dc)
    flat = np.asarray(out, dtype=np.int16).reshape(-1)
    flat.setflags(write=False)
    return flat


def treat_wounds_table(medicine: int, dc: int = TREAT_DC) -> np.ndarray:
    """The HP change of every (natural d20, packed d8 roll): index ``(roll - 1) * 4096 + r``
    (int16, read-only, cached). ``medicine`` includes the check penalty."""
    return _table(int(medicine), int(dc))


@lru_cache(maxsize=256)
def treat_wounds_pmf(
    medicine: int, dc: int = TREAT_DC, check_penalty: int = 0
) -> tuple[tuple[int, float], ...]:
    """Exact ``(HP change, probability)`` of one Treat Wounds, changes ascending: every d20
    face and every packed roll of four d8s (equally likely) through :func:`treat_wounds`."""
    values, counts = np.unique(_table(medicine + check_penalty, dc), return_counts=True)
    total = 20 * D8_WIDTH
    return tuple((int(v), int(c) / total) for v, c in zip(values, counts))


def treat_wounds_phase(rng, size, medicine, dc: int = TREAT_DC) -> np.ndarray:
    """Treat Wounds for every row of ``size`` ((m,) or (m, k), one row per active track):
    the HP change (int16 array of that shape).

    ``medicine`` (an int or an int array broadcast to ``size``: bonus plus check penalty)
    picks the table; draws one ``rng.below(20, size)`` and one ``rng.below(4096, size)``.
    """
    roll = rng.below(20, size=size).astype(np.intp)
    dice = rng.below(D8_WIDTH, size=size).astype(np.intp)
    idx = roll * D8_WIDTH + dice
    med = np.broadcast_to(np.asarray(medicine, dtype=np.int64), idx.shape)
    out = np.zeros(idx.shape, dtype=np.int16)
    for value in np.unique(med).tolist():
        here = med == value
        out[here] = treat_wounds_table(int(value), dc).take(idx[here])
    return out


def night_rest_hp(hp, hp_max, con, level, bed: bool = False):
    """HP after a night's rest (P-12): ``hp + max(con, 1) * level`` (twice that for a day in
    bed), at most ``hp_max``. Numbers or arrays (broadcast)."""
    gain = np.maximum(np.asarray(con), 1) * np.asarray(level) * (2 if bed else 1)
    return np.minimum(np.asarray(hp) + gain, np.asarray(hp_max))
