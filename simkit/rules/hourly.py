"""The hourly Constitution check of a stable character at 0 HP (seed 001, R1-06..R1-08; A1-6).

One phase, written once (the convention of ``docs/ARCHITECTURE.md``: a scalar reference,
the exact distribution and the vectorised phase derived from it):

:func:`hourly_result`
    The rule, for one character and the natural d20s rolled. Returns :data:`DEAD` (0),
    :data:`STAYS` (1) or :data:`AWAKE` (2).
:func:`hourly_pmf`
    ``(P(dead), P(stays), P(awake))``, by counting the equally likely natural rolls
    through :func:`hourly_result` (cached).
:func:`hourly_table`, :func:`hourly_width`, :func:`hourly_phase`
    The vectorised phase: ``hourly_table(...)[r]`` is the result for the packed rolls
    ``r = (con_roll - 1) + 20 * (heal_roll - 1)`` (the healer's roll only with a
    healer), built by running :func:`hourly_result` over every ``r`` (cached);
    :func:`hourly_phase` draws one ``r`` per track with ``rng.below(width)``.
:func:`hourly_lookup`
    The same table for rolls drawn elsewhere (arrays of natural d20s in, results out),
    e.g. by a model that draws a whole night's rolls at once.
:func:`hourly_odds`
    The odds vectorised over ``con`` (notebooks, :func:`simkit.rules.rest.con_damage`).

The rule (one hour):

1. With a healer (``healer`` = its Medicine bonus), the healer makes a Medicine check
   ``d20 + healer + check_penalty >= 15`` before the Constitution check (R1-08).
2. The Constitution check: ``d20 + con + check_penalty`` (A1-6: check penalties of
   seed 004 apply), +2 after a successful Medicine check, and then a total under 10
   counts as 10 (R1-08). Total >= 20: wakes with 1 HP; 10..19: stays stable until
   the next hour; under 10: dies at once (R1-06).
3. A1-6, option ``natural``: the text has no natural 20/1 rule (``False``, default);
   with ``True`` a natural 20 moves the result one step up (dead -> stays,
   stays -> awake) and a natural 1 one step down, as R0-05 does for degrees of success.
4. ``lethal=False`` (a nonlethal knock-out, "sans danger de mort", R1-11): a result
   under 10 only keeps the character down (stays).
5. A1-9, option ``floor``: the floor of 10 comes only with a successful Medicine check
   (``"success"``, default, as written: "if the check succeeds ... moreover") or whenever
   a healer tends the character (``"always"``; the +2 still needs the success).

The night (R1-07, A1-2): :func:`wake_up` (scalar) and :func:`wake_up_phase` (vectorised)
read the hours in order, the first decisive one wins, else the character wakes up by
itself after :data:`WAKE_HOURS` hours with HP equal to its level; which hours have a
check (``checks``) is the model's option.

Example
-------
>>> hourly_pmf(con=0)
(0.45, 0.5, 0.05)
>>> hourly_result(17, con=3)  # 17 + 3 = 20: wakes
2
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = [
    "HEALER_DC",
    "WAKE_AT",
    "DIE_UNDER",
    "HEALER_BONUS",
    "HEALER_FLOOR",
    "HEALER_FLOORS",
    "DEAD",
    "STAYS",
    "AWAKE",
    "healer_succeeds",
    "hourly_result",
    "hourly_pmf",
    "hourly_width",
    "hourly_table",
    "hourly_phase",
    "hourly_lookup",
    "hourly_odds",
    "WAKE_HOURS",
    "wake_up",
    "slept_through",
    "wake_up_phase",
]

#: DC of the healer's Medicine check (R1-08).
HEALER_DC = 15
#: Constitution check thresholds (R1-06): wake at 20+, die under 10.
WAKE_AT, DIE_UNDER = 20, 10
#: Bonus and floor after a successful Medicine check (R1-08).
HEALER_BONUS, HEALER_FLOOR = 2, 10
#: Results of one hourly check.
DEAD, STAYS, AWAKE = 0, 1, 2
#: A1-9: when the healer's floor of 10 applies (R1-08).
HEALER_FLOORS = ("success", "always")


def healer_succeeds(heal_roll: int, healer: int | None, check_penalty: int = 0) -> bool:
    """Whether the healer's Medicine check succeeds (R1-08): ``d20 + healer + penalty >= 15``.

    ``heal_roll`` is the natural d20; no natural 20/1 rule (seed 001, A1-6).
    ``healer=None`` (no healer) never succeeds.
    """
    return healer is not None and heal_roll + healer + check_penalty >= HEALER_DC


def hourly_result(
    con_roll: int,
    heal_roll: int = 0,
    *,
    con: int,
    healer: int | None = None,
    check_penalty: int = 0,
    natural: bool = False,
    lethal: bool = True,
    floor: str = "success",
) -> int:
    """One hourly Constitution check (R1-06, R1-08, A1-6, A1-9) for the natural d20s given.

    Parameters
    ----------
    con_roll : int
        Natural d20 of the Constitution check, 1..20.
    heal_roll : int
        Natural d20 of the healer's Medicine check, 1..20 (ignored without a healer).
    con : int
        Constitution modifier.
    healer : int or None
        The healer's Medicine bonus (None = no healer).
    check_penalty : int
        Added to every d20 check (seed 004 fatigue and hunger, <= 0).
    natural : bool
        A1-6 option: a natural 20 / natural 1 moves the result one step.
    lethal : bool
        False: a result under 10 does not kill (nonlethal knock-out, R1-11).
    floor : {"success", "always"}
        A1-9: the healer's floor of 10 after a successful Medicine check only, or whenever
        a healer tends (the +2 needs the success either way).

    Returns
    -------
    int
        :data:`DEAD` (0), :data:`STAYS` (1) or :data:`AWAKE` (2).
    """
    total = con_roll + con + check_penalty
    if healer_succeeds(heal_roll, healer, check_penalty):
        total = max(total + HEALER_BONUS, HEALER_FLOOR)
    elif healer is not None and floor == "always":
        total = max(total, HEALER_FLOOR)
    result = DEAD if total < DIE_UNDER else (AWAKE if total >= WAKE_AT else STAYS)
    if natural and con_roll == 20:
        result = min(result + 1, AWAKE)
    elif natural and con_roll == 1:
        result = max(result - 1, DEAD)
    if not lethal:
        result = max(result, STAYS)
    return result


def _key(
    con: int,
    healer: int | None,
    check_penalty: int,
    natural: bool,
    lethal: bool,
    floor: str = "success",
) -> tuple:
    """What the check depends on: the two totals' bonuses and the options."""
    return (
        int(con) + int(check_penalty),
        None if healer is None else int(healer) + int(check_penalty),
        bool(natural),
        bool(lethal),
        "success" if healer is None else floor,
    )


def hourly_width(healer: int | None) -> int:
    """Number of equally likely packed rolls: 400 with a healer (two d20s), else 20."""
    return 20 if healer is None else 400


@lru_cache(maxsize=1024)
def _table(
    con_total: int, heal_total: int | None, natural: bool, lethal: bool, floor: str = "success"
) -> np.ndarray:
    width = hourly_width(heal_total)
    out = np.empty(width, dtype=np.int8)
    for r in range(width):
        out[r] = hourly_result(
            r % 20 + 1,
            r // 20 + 1,
            con=con_total,
            healer=heal_total,
            natural=natural,
            lethal=lethal,
            floor=floor,
        )
    out.setflags(write=False)
    return out


def hourly_table(
    *,
    con: int,
    healer: int | None = None,
    check_penalty: int = 0,
    natural: bool = False,
    lethal: bool = True,
    floor: str = "success",
) -> np.ndarray:
    """Result of the check for every packed roll (int8, read-only, cached).

    ``table[r]`` is :func:`hourly_result` for ``con_roll = r % 20 + 1`` and
    ``heal_roll = r // 20 + 1``; length :func:`hourly_width` (400 with a healer, 20
    without). Cached on ``(con + check_penalty, healer + check_penalty, natural,
    lethal, floor)``, all it depends on.
    """
    return _table(*_key(con, healer, check_penalty, natural, lethal, floor))


@lru_cache(maxsize=1024)
def _pmf(
    con_total: int, heal_total: int | None, natural: bool, lethal: bool, floor: str = "success"
) -> tuple[float, float, float]:
    counts = np.bincount(_table(con_total, heal_total, natural, lethal, floor), minlength=3)
    width = hourly_width(heal_total)
    return tuple(float(c) / width for c in counts)  # type: ignore[return-value]


def hourly_pmf(
    *,
    con: int,
    healer: int | None = None,
    check_penalty: int = 0,
    natural: bool = False,
    lethal: bool = True,
    floor: str = "success",
) -> tuple[float, float, float]:
    """Exact ``(P(dead), P(stays), P(awake))`` of one hourly check (R1-06, R1-08, A1-6, A1-9).

    Counts the equally likely natural rolls (20, or 400 with a healer) through
    :func:`hourly_result`; cached on what it depends on.
    """
    return _pmf(*_key(con, healer, check_penalty, natural, lethal, floor))


def hourly_phase(
    m: int,
    rng,
    *,
    con: int,
    healer: int | None = None,
    check_penalty: int = 0,
    natural: bool = False,
    lethal: bool = True,
    floor: str = "success",
) -> np.ndarray:
    """The check for ``m`` tracks: one draw ``rng.below(width, size=m)`` per track.

    ``rng`` is the block's :class:`simkit.core.streams.BlockRng` (``m`` = its active
    tracks). Returns the results, int8 of shape ``(m,)`` (0 dead, 1 stays, 2 awake).
    """
    table = hourly_table(
        con=con,
        healer=healer,
        check_penalty=check_penalty,
        natural=natural,
        lethal=lethal,
        floor=floor,
    )
    return table.take(rng.below(len(table), size=m))


def hourly_lookup(
    con_roll,
    heal_roll=None,
    *,
    con: int,
    healer: int | None = None,
    check_penalty: int = 0,
    natural: bool = False,
    lethal: bool = True,
    floor: str = "success",
) -> np.ndarray:
    """The check for natural rolls drawn elsewhere (arrays of any shape, broadcast).

    ``con_roll`` and ``heal_roll`` hold natural d20s (1..20); ``heal_roll`` is needed
    only with a healer. Returns int8 results of :func:`hourly_result`, shape of the
    broadcast rolls.
    """
    table = hourly_table(
        con=con,
        healer=healer,
        check_penalty=check_penalty,
        natural=natural,
        lethal=lethal,
        floor=floor,
    )
    idx = np.asarray(con_roll).astype(np.intp) - 1
    if healer is not None:
        if heal_roll is None:
            raise ValueError("hourly_lookup: heal_roll is needed with a healer")
        idx = idx + 20 * (np.asarray(heal_roll).astype(np.intp) - 1)
    return table[idx]


def hourly_odds(
    con,
    healer: int | None = None,
    check_penalty: int = 0,
    *,
    natural: bool = False,
    lethal: bool = True,
    floor: str = "success",
) -> dict[str, np.ndarray]:
    """Exact odds of one hourly check (R1-06, R1-08, A1-6), vectorised over ``con``.

    Parameters
    ----------
    con : int or array_like of int
        Constitution modifier(s).
    healer : int or None
        The healer's Medicine bonus (None = no healer).
    check_penalty : int
        Added to every d20 check (<= 0).
    natural, lethal : bool
        As in :func:`hourly_result`.

    Returns
    -------
    dict of ndarray
        ``dead``, ``stay`` and ``awake``: probabilities of each result, shaped like ``con``.
    """
    con = np.asarray(con, dtype=np.int64)
    pmfs = np.array(
        [
            hourly_pmf(
                con=int(c),
                healer=healer,
                check_penalty=check_penalty,
                natural=natural,
                lethal=lethal,
                floor=floor,
            )
            for c in con.ravel()
        ]
    ).reshape(con.shape + (3,))
    return {"dead": pmfs[..., DEAD], "stay": pmfs[..., STAYS], "awake": pmfs[..., AWAKE]}


# -- the night: the first decisive hour, else the wake-up after 8 hours (R1-07) ------------------
#: Hours after which a character still stable wakes up by itself (R1-07).
WAKE_HOURS = 8


def wake_up(results, checks: int, level: int, hp_max: int | None = None) -> tuple[int, int, int]:
    """A stable character's night (R1-06, R1-07): the first hour with a result decides.

    Parameters
    ----------
    results : sequence of int
        The hourly results (:func:`hourly_result`) of hours 1..:data:`WAKE_HOURS`, in order.
    checks : int
        How many of those hours have a check (A1-2); later hours are ignored.
    level : int
        The character's level: HP on waking up by itself after :data:`WAKE_HOURS` hours.
    hp_max : int, optional
        Its maximum HP, which no HP passes (R0-01).

    Returns
    -------
    (result, hp, hours)
        :data:`DEAD` or :data:`AWAKE`; the HP then (0 dead, 1 awake by a check, ``level``
        awake after the night, R1-07, at most ``hp_max``); and the hours it took.
    """
    night = int(level) if hp_max is None else min(int(level), int(hp_max))
    for h, res in enumerate(list(results)[: min(int(checks), WAKE_HOURS)]):
        if res == DEAD:
            return DEAD, 0, h + 1
        if res == AWAKE:
            return AWAKE, 1, h + 1
    return AWAKE, night, WAKE_HOURS


def slept_through(results, checks: int) -> bool:
    """Whether :func:`wake_up` wakes the character by R1-07 (no counted hour had a result:
    it wakes after :data:`WAKE_HOURS` hours, A1-10), rather than by a check."""
    return all(res == STAYS for res in list(results)[: min(int(checks), WAKE_HOURS)])


def wake_up_phase(
    results: np.ndarray, checks: int, level, hp_max=None
) -> tuple[np.ndarray, ...]:
    """:func:`wake_up` over tracks: ``results`` (n, :data:`WAKE_HOURS`) int -> ``(died``
    bool (n,), ``hp`` int32 (n,), ``hours`` int16 (n,))``; ``level`` and ``hp_max`` a
    number or (n,)."""
    if hp_max is not None:
        level = np.minimum(level, hp_max)
    res = np.asarray(results)
    decisive = (res != STAYS) & (np.arange(WAKE_HOURS) < checks)
    first = np.where(decisive.any(axis=1), decisive.argmax(axis=1), WAKE_HOURS)
    at = res[np.arange(len(res)), np.minimum(first, WAKE_HOURS - 1)]
    decided = first < WAKE_HOURS
    died = decided & (at == DEAD)
    hp = np.where(died, 0, np.where(decided, 1, level)).astype(np.int32)
    hours = np.where(decided, first + 1, WAKE_HOURS).astype(np.int16)
    return died, hp, hours
