"""A day without sleep, food or water (seed 004, R4-01..R4-06; A4-2, A4-3) as one rule phase.

The day's *events* (a rescue, a night's rest, eating, drinking, a companion's care) are
one of :data:`N_CELLS` cells: cell 0 is a rescue at the start of the day; cell
``1 + (rest << 3 | eat << 2 | drink << 1 | tended)`` a day without rescue.

:func:`fatigue_day`
    The rule (scalar reference): one character's counters ``(s, f, w, c)`` and the
    day's events in, ``(outcome or None, s, f, w, c)`` out.
:func:`cell_pmf`
    The exact probability of each cell from the day's probabilities.
:func:`day_chain`
    Every state reachable from a start, numbered, and the transition table
    ``trans[last][state, cell]`` built by running :func:`fatigue_day` over every state
    and cell (cached on the options it depends on). The exact chain and the kernel both
    read it.
:func:`day_phase`
    The vectorised day: one 32-bit uniform integer per track picks the cell (a guide
    table on its top 16 bits, cached on the day's probabilities; exact comparisons for
    the few draws near a cell's edge), one lookup gives the next state or outcome.

The rule, for a character conscious at the start of the day (``c == -1``): each need
unmet adds 1 to its counter (R4-01, R4-02; one counter for food and water unless
``separate``, A4-2); a meal (eating and drinking) and a night's rest clear every
counter (R4-06); with ``recovery="each"`` a need met alone resets its own counter. With
``recovered_when="cleared"`` a day whose meal and rest clear a penalty that was not 0
ends the track ``recovered``. A total of ``exhaust_at`` or more knocks it out (R4-04):
clock ``c = 0``, counters frozen. Unconscious (``c >= 0``): with ``care`` ``fed`` or
``tended`` a meal and a rest wake it with every counter cleared; a meal (or, under
``tended``, a companion's care) resets the clock; any other day adds 1 and at
``death_days`` (3) it dies (R4-05, A4-3). On the last day (``last``) an unconscious
character still alive is ``exhausted``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from simkit.rules.guide import cell_guide, cell_of_draw, draw_cells

__all__ = [
    "DEAD",
    "RECOVERED",
    "EXHAUSTED",
    "N_CELLS",
    "RESCUE",
    "day_cell",
    "cell_events",
    "fatigue_day",
    "cell_pmf",
    "DayChain",
    "day_chain",
    "day_guide",
    "cell_of_draw",
    "day_phase",
]

#: Outcomes of a fatigue track (codes).
DEAD, RECOVERED, EXHAUSTED = 0, 1, 2
#: Number of event cells of a day, and the rescue's cell.
N_CELLS, RESCUE = 17, 0


def day_cell(
    rescued: bool, rest: bool = False, eat: bool = False, drink: bool = False, tended: bool = False
) -> int:
    """Cell of a day's events (0 = rescue)."""
    if rescued:
        return RESCUE
    return 1 + (int(rest) << 3 | int(eat) << 2 | int(drink) << 1 | int(tended))


def cell_events(cell: int) -> tuple[bool, bool, bool, bool, bool]:
    """``(rescued, rest, eat, drink, tended)`` of a cell."""
    if cell == RESCUE:
        return True, False, False, False, False
    b = cell - 1
    return False, bool(b & 8), bool(b & 4), bool(b & 2), bool(b & 1)


def fatigue_day(
    s: int,
    f: int,
    w: int,
    c: int,
    *,
    rescued: bool,
    rest: bool,
    eat: bool,
    drink: bool,
    tended: bool = False,
    last: bool = False,
    separate: bool = False,
    recovery: str = "both",
    recovered_when: str = "rescued",
    care: str = "fed",
    exhaust_at: int = 10,
    death_days: int = 3,
) -> tuple[int | None, int, int, int, int]:
    """One day of one character (R4-01..R4-06, A4-2, A4-3).

    Parameters
    ----------
    s, f, w : int
        Days without sleep, without food (and water unless ``separate``), without water.
    c : int
        -1 conscious; else days unconscious without care or food (the R4-05 clock).
    rescued, rest, eat, drink, tended : bool
        The day's events. Without ``separate`` drinking is part of eating (``drink`` is
        ignored); ``tended`` counts only under ``care="tended"``.
    last : bool
        The horizon's day: an unconscious character alive at its end is ``exhausted``.
    separate, recovery, recovered_when, care, exhaust_at, death_days
        The model's options (see :class:`simkit.models.fatigue.Fatigue`).

    Returns
    -------
    tuple
        ``(outcome or None, s, f, w, c)`` at the end of the day.
    """
    if rescued:  # a meal and a night's rest from the rescuers (R4-06)
        return RECOVERED, s, f, w, c
    if not separate:
        drink = eat  # one event for eating and drinking (A4-2)
    meal = eat and drink
    full = rest and meal
    if c < 0:  # conscious
        if full:
            if recovered_when == "cleared" and s + f + w > 0:
                return RECOVERED, 0, 0, 0, c
            s = f = w = 0
        elif recovery == "both":  # R4-06 as written: only a meal and a rest remove penalties
            s, f = s + (not rest), f + (not eat)
            w = w + (not drink) if separate else 0
        else:  # each need met resets its own counter
            s = 0 if rest else s + 1
            f = 0 if eat else f + 1
            w = (0 if drink else w + 1) if separate else 0
        if s + f + w >= exhaust_at:  # R4-04
            c = 0
    else:  # unconscious: the 3-day clock (R4-05, A4-3)
        helped = care != "rescue"
        if helped and full:
            if recovered_when == "cleared":
                return RECOVERED, 0, 0, 0, -1
            return None, 0, 0, 0, -1
        if helped and (meal or (care == "tended" and tended)):
            c = 0
        else:
            c += 1
            if c >= death_days:
                return DEAD, s, f, w, c
    if last and c >= 0:
        return EXHAUSTED, s, f, w, c
    return None, s, f, w, c


def cell_pmf(
    pr: float,
    ps: float,
    pf: float,
    pw: float,
    p_care: float = 0.0,
    *,
    separate: bool = False,
    care: str = "fed",
) -> np.ndarray:
    """Exact probability of each of the :data:`N_CELLS` cells (float64, sums to 1).

    ``pr`` rescue, ``ps`` rest, ``pf`` eating (and drinking, together), ``pw``
    drinking (``separate`` only), ``p_care`` a companion's care (``care="tended"``
    only); the events of a day without rescue are independent.
    """
    out = np.zeros(N_CELLS)
    out[RESCUE] = pr
    pt = p_care if care == "tended" else 0.0
    for cell in range(1, N_CELLS):
        _, rest, eat, drink, tended = cell_events(cell)
        p_drink = (pw if drink else 1 - pw) if separate else float(drink == eat)
        out[cell] = (
            (1 - pr)
            * (ps if rest else 1 - ps)
            * (pf if eat else 1 - pf)
            * p_drink
            * (pt if tended else 1 - pt)
        )
    return out


#: Up to this many comparisons (penalty values some state has, less one),
#: :meth:`DayChain.penalty_counts` counts the tracks at or under each value instead of
#: making one bincount of their slots (a comparison of int16 codes costs about a tenth
#: of a bincount).
MAX_CUTS = 12


@dataclass(frozen=True, eq=False)
class DayChain:
    """The states reachable from a start and the day's transition table.

    ``states[i]`` is ``(s, f, w, c)``; ``trans[last, i, cell]`` (int16) is where the day
    leads: ``-1 - j`` for state ``j``, else the outcome code (>= 0); ``penalty[i]`` the
    total penalty ``s + f + w`` of state ``i`` (as a positive number).

    The kernel's form (:func:`day_phase`): the states numbered in order of penalty
    (``order[r]`` is the state of *slot* ``r``: penalties ascending, ties in ``states``
    order), a track in slot ``r`` holds the engine code ``-1 - N_CELLS * r``
    (:meth:`kernel_code`; int16, or int32 for chains of more than ``2**15 // N_CELLS``
    states), so that ``code - cell`` is a negative index into ``kernel[last]`` (the table
    flattened and reversed), and ``kernel_penalty.take(code)`` its penalty: one
    subtraction and one lookup per track-day. In that order the tracks with penalty ``k``
    or less are those whose code is ``cuts[k]`` or more (:meth:`penalty_counts`).
    """

    states: tuple[tuple[int, int, int, int], ...]
    trans: np.ndarray  # (2, S, N_CELLS) int16
    penalty: np.ndarray  # (S,) int64
    order: np.ndarray  # (S,) int64: the state of each kernel slot (penalties ascending)
    slot: np.ndarray  # (S,) int64: the kernel slot of each state (order's inverse)
    kernel: np.ndarray  # (2, S * N_CELLS) int16/int32, reversed; codes -1 - N_CELLS * slot
    kernel_penalty: np.ndarray  # (S * N_CELLS,) int64, reversed
    cuts: np.ndarray  # (max penalty + 1,) int64: least code of a track with penalty <= k
    reach: np.ndarray  # (most days to a state + 1,) int64: largest penalty within t days

    def index(self, state: tuple[int, int, int, int]) -> int:
        return self.states.index(state)

    def kernel_code(self, i: int) -> int:
        """The kernel's engine code of a track in state ``i``."""
        return -1 - N_CELLS * int(self.slot[i])

    def state_of(self, code: int) -> tuple[int, int, int, int]:
        """The state of a track holding the kernel's engine ``code`` (< 0)."""
        return self.states[int(self.order[(-1 - int(code)) // N_CELLS])]

    def penalty_counts(self, code: np.ndarray, days: int | None = None) -> np.ndarray:
        """Histogram of the penalty of tracks holding the kernel codes ``code`` (< 0).

        Parameters
        ----------
        code : ndarray of int, shape (m,)
            Each track's kernel code (:meth:`kernel_code` of its state).
        days : int, optional
            Days since the tracks were at the start (state 0): no track can have a
            penalty above ``reach[days]``, so none is compared for.

        Returns
        -------
        ndarray of int64, shape (max penalty + 1,)
            ``[k]`` = tracks whose total penalty ``s + f + w`` is ``k``: the
            ``np.bincount`` of ``kernel_penalty.take(code)`` (with trailing zeros). Got
            from the number of tracks at or under each penalty value that some state
            has (``code >= cuts[k]``; all of them for the largest) when that takes at
            most :data:`MAX_CUTS` comparisons; else from one bincount of the slots
            (``-1 - code = N_CELLS * slot``), each slot's count added to its penalty.
        """
        out = np.zeros(len(self.cuts), dtype=np.int64)
        held = self._held[-1 if days is None else min(days, len(self.reach) - 1)]
        if len(held) - 1 <= MAX_CUTS:
            below = 0  # tracks with a smaller penalty
            for k, cut in held[:-1]:
                # (a Python int: compared in the codes' own dtype; cut >= 0: no state <= k)
                at_most = int(np.count_nonzero(code >= cut)) if cut < 0 else 0
                out[k] = at_most - below
                below = at_most
            out[held[-1][0]] = len(code) - below  # (every track is at or under the last)
            return out
        per_slot = np.bincount(np.invert(code, dtype=np.intp))[::N_CELLS]
        np.add.at(out, self.penalty.take(self.order[: len(per_slot)]), per_slot)
        return out

    @cached_property
    def _held(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """``[days]``: ``(k, cuts[k])`` of 0 and of each penalty value ``k`` that some
        state has, up to ``reach[days]``."""
        ks = np.flatnonzero(np.diff(self.cuts, prepend=self.cuts[0] + 1)).tolist()
        every = tuple((k, int(self.cuts[k])) for k in ks)
        return tuple(tuple(kc for kc in every if kc[0] <= top) for top in self.reach.tolist())


@lru_cache(maxsize=256)
def day_chain(
    start: tuple[int, int, int, int],
    *,
    separate: bool = False,
    recovery: str = "both",
    recovered_when: str = "rescued",
    care: str = "fed",
    exhaust_at: int = 10,
    death_days: int = 3,
) -> DayChain:
    """:class:`DayChain` of every state reachable from ``start`` (cached on its arguments)."""
    opts: dict[str, Any] = dict(
        separate=separate,
        recovery=recovery,
        recovered_when=recovered_when,
        care=care,
        exhaust_at=exhaust_at,
        death_days=death_days,
    )
    index = {start: 0}
    states = [start]
    depth = [0]  # the fewest days from the start to each state (breadth first)
    rows: list[list[list[int]]] = []
    i = 0
    while i < len(states):
        s, f, w, c = states[i]
        row = []
        for last in (False, True):
            codes = []
            for cell in range(N_CELLS):
                rescued, rest, eat, drink, tended = cell_events(cell)
                out, *nxt = fatigue_day(
                    s,
                    f,
                    w,
                    c,
                    rescued=rescued,
                    rest=rest,
                    eat=eat,
                    drink=drink,
                    tended=tended,
                    last=last,
                    **opts,
                )
                if out is not None:
                    codes.append(out)
                    continue
                key = (nxt[0], nxt[1], nxt[2], nxt[3])
                if key not in index:
                    index[key] = len(states)
                    states.append(key)
                    depth.append(depth[i] + 1)
                codes.append(-1 - index[key])
            row.append(codes)
        rows.append(row)
        i += 1
    if len(states) > 32000:
        raise ValueError(
            f"fatigue: {len(states)} reachable states, more than the kernel's int16 codes hold"
        )
    trans = np.array(rows, dtype=np.int16).transpose(1, 0, 2).copy()  # (2, S, N_CELLS)
    trans.setflags(write=False)
    penalty = np.array([s + f + w for s, f, w, _ in states], dtype=np.int64)
    # the kernel's slots: states in order of penalty (its histogram by comparisons)
    order = np.argsort(penalty, kind="stable").astype(np.int64)
    slot = np.empty(len(states), dtype=np.int64)
    slot[order] = np.arange(len(states))
    to = trans.astype(np.int64)[:, order, :]  # (2, S, N_CELLS), rows by slot
    lead = np.where(to < 0, -1 - N_CELLS * slot.take(np.maximum(-1 - to, 0)), to)  # codes
    dtype = np.int16 if N_CELLS * len(states) <= 2**15 else np.int32
    kernel = lead.reshape(2, -1)[:, ::-1].astype(dtype)
    by_slot = penalty.take(order)  # ascending
    kernel_penalty = np.repeat(by_slot, N_CELLS)[::-1].copy()
    # cuts[k]: the code of the last slot with penalty <= k (tracks at or under k: code >= it)
    last_slot = np.searchsorted(by_slot, np.arange(int(by_slot[-1]) + 1), side="right") - 1
    cuts = -1 - N_CELLS * last_slot.astype(np.int64)
    # reach[t]: the largest penalty of a state t days or fewer from the start
    reach = np.zeros(max(depth) + 1, dtype=np.int64)
    np.maximum.at(reach, depth, penalty)
    reach = np.maximum.accumulate(reach)
    for a in (penalty, order, slot, kernel, kernel_penalty, cuts, reach):
        a.setflags(write=False)
    return DayChain(
        states=tuple(states),
        trans=trans,
        penalty=penalty,
        order=order,
        slot=slot,
        kernel=kernel,
        kernel_penalty=kernel_penalty,
        cuts=cuts,
        reach=reach,
    )


def day_guide(pmf) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(edges, guide, split)`` of a day's cell probabilities.

    See :func:`simkit.rules.guide.cell_guide`.
    """
    return cell_guide(pmf)


def day_phase(code: np.ndarray, rng, chain: DayChain, pmf, last: bool = False) -> np.ndarray:
    """One day for the active tracks.

    Parameters
    ----------
    code : ndarray of int, shape (m,)
        Each track's kernel code (:meth:`DayChain.kernel_code` of its state).
    rng : BlockRng
        The block's random source: the day's cells come from
        :func:`simkit.rules.guide.draw_cells` (one or two 16-bit words per track).
    chain : DayChain
        From :func:`day_chain`.
    pmf : array_like, shape (N_CELLS,)
        The day's cell probabilities (:func:`cell_pmf`).
    last : bool
        Whether this is the horizon's day.

    Returns
    -------
    ndarray of the kernel's dtype (int16 or int32), shape (m,)
        The kernel codes after the day (negative: still active), or outcome codes.
    """
    # the cells in the codes' dtype, then code - cell in their place (-N_CELLS * S at the
    # least: it fits the kernel's dtype, chosen so)
    key = draw_cells(len(code), rng, pmf, dtype=np.promote_types(code.dtype, chain.kernel.dtype))
    np.subtract(code, key, out=key)
    return chain.kernel[int(last)].take(key)
