"""A block's starts and ends as a caller keeps them: one (n, P) array a field.

A day keeps its PCs' carried fields as one array a field over all its tracks
(:class:`simkit.models.day_block.DayBlock`), and plays a fight on the tracks still going.
:func:`gather` lays those tracks' fields out as the loop reads its starts ((len(CARRIED),
m, P), :func:`simkit.fight.block.run`), and :func:`scatter` writes the fields a fight
changes back from its ends: each one compiled pass over the tracks, where taking rows,
building the conditions and copying field by field took a dozen numpy passes a fight.
"""

from __future__ import annotations

from simkit.fight._jit import scalar
from simkit.fight.loop import CARRIED
from simkit.fight.state import (
    COND,
    DEAD,
    HEALS,
    HERO,
    HP,
    HP_MAX,
    LOW,
    MASSIVE,
    NIGHT_HP,
    PE,
    PE_MAX,
    PP,
    SLOTS,
    STABLE,
    UP,
    WOUNDED,
)

__all__ = ["gather", "scatter"]

# (each field's place in a start or an end: compile-time constants)
_HP, _HP_MAX, _MASSIVE, _LOW = (CARRIED.index(f) for f in (HP, HP_MAX, MASSIVE, LOW))
_HERO, _SLOTS, _HEALS, _WOUNDED = (CARRIED.index(f) for f in (HERO, SLOTS, HEALS, WOUNDED))
_COND, _PP, _PE, _PE_MAX = (CARRIED.index(f) for f in (COND, PP, PE, PE_MAX))
_NIGHT_HP = CARRIED.index(NIGHT_HP)


@scalar
def gather(rows, every, hp, hp_max, hero, slots, heals, wounded, pp, pe, pe_max, dead, by_max, out):
    """Write the starts of tracks ``rows`` (every track when ``every``) into ``out``
    ((len(CARRIED), m, P) int32, :data:`CARRIED` order): each field's (n, P) array taken
    at those rows; a dead PC at 0 HP and ``DEAD`` (R0-15), a living one at 0 HP ``STABLE``,
    else ``UP``; ``MASSIVE``, ``LOW`` and ``NIGHT_HP`` of its maximum HP from ``by_max``
    ((3, h + 1) int64: row 0 the massive damage, 1 the heal threshold, 2 the night's HP, at
    column ``hp_max``)."""
    m, P = out.shape[1], out.shape[2]
    for r in range(m):
        i = r if every else rows[r]
        for k in range(P):
            h, top = hp[i, k], hp_max[i, k]
            if dead[i, k]:
                h, cond = 0, DEAD
            elif h <= 0:
                cond = STABLE
            else:
                cond = UP
            out[_HP, r, k] = h
            out[_HP_MAX, r, k] = top
            out[_MASSIVE, r, k] = by_max[0, top]
            out[_LOW, r, k] = by_max[1, top]
            out[_HERO, r, k] = hero[i, k]
            out[_SLOTS, r, k] = slots[i, k]
            out[_HEALS, r, k] = heals[i, k]
            out[_WOUNDED, r, k] = wounded[i, k]
            out[_COND, r, k] = cond
            out[_PP, r, k] = pp[i, k]
            out[_PE, r, k] = pe[i, k]
            out[_PE_MAX, r, k] = pe_max[i, k]
            out[_NIGHT_HP, r, k] = by_max[2, top]


@scalar
def scatter(ends, rows, every, hp, hero, slots, heals, pp, pe, wounded, dead):
    """Write back what a fight changes from ``ends`` ((len(CARRIED), m, P), the loop's end
    states of tracks ``rows``, or of every track when ``every``) into the caller's (n, P)
    arrays at those rows: HP, hero points, slots, heals, PP, PE, wounded, and ``dead``
    (``COND`` is ``DEAD``)."""
    m, P = ends.shape[1], ends.shape[2]
    for r in range(m):
        i = r if every else rows[r]
        for k in range(P):
            hp[i, k] = ends[_HP, r, k]
            hero[i, k] = ends[_HERO, r, k]
            slots[i, k] = ends[_SLOTS, r, k]
            heals[i, k] = ends[_HEALS, r, k]
            pp[i, k] = ends[_PP, r, k]
            pe[i, k] = ends[_PE, r, k]
            wounded[i, k] = ends[_WOUNDED, r, k]
            dead[i, k] = ends[_COND, r, k] == DEAD
