"""The recovery check of a dying character (seed 000: R0-05..R0-07; A0-4).

At the start of each of its turns a dying creature makes a Fortitude save against the
recovery DC, i.e. the DC of the source that knocked it out + its current dying value
(R0-05, R0-06; fixed at the knock-out, R0-07, raised by a later source with a higher DC,
R0-09). Critical success: dying -2; success -1; failure +1; critical failure +2.
Published PF2e (A0-4, ``check="flat"``): a flat check DC 10 + dying, no modifier.

Options (issue 31):

- A0-8 (``dc_dying``): the dying value the DC adds is the current one (default, R0-06's
  "current") or the one at the knock-out (the DC "fixed" whole at the knock-out, R0-07).
- P-13 Toughness (``toughness``): the recovery DC is one lower (published PF2e: a flat
  check DC 9 + dying; the seed's save: the source's DC - 1 + dying).
- P-15 fortune / misfortune (``fortune``): the check is rolled twice and the higher
  (fortune) or lower (misfortune) natural d20 is kept (:func:`kept_roll`).

One rule, three forms (see ``brief/phases.md``):

- :func:`recovery_delta`: the scalar reference, one natural d20 in, the change of dying
  out. It is the rule.
- :func:`recovery_pmf`: the exact distribution of that change, by enumerating the 20
  equally likely rolls through the reference (cached).
- :func:`recovery_phase`: the vectorised phase, arrays of the active tracks in, the new
  dying values out, through a lookup table built by running the reference over every
  (margin, roll) pair (cached).

Only ``save_bonus + check_penalty - dc - dying`` (the margin) and the roll decide the
degree, and beyond :data:`MARGIN_LO` .. :data:`MARGIN_HI` the natural 1 / 20 alone
decide it, so the tables are keyed on the clipped margin.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from simkit.rules.dice import degree

__all__ = [
    "CHECK",
    "CHECK_PENALTY",
    "DEATH_AT",
    "DELTA",
    "MARGIN_HI",
    "MARGIN_LO",
    "FORTUNE",
    "check_margin",
    "clip_margin",
    "kept_roll",
    "delta_table",
    "recovery_delta",
    "recovery_phase",
    "recovery_pmf",
    "recovery_pmf2",
]

#: Change of dying by degree of success (R0-05): crit failure, failure, success, crit success.
DELTA = (+2, +1, -1, -2)
#: Margins (bonus - DC) at or below which every roll grades as at MARGIN_LO (a natural 20
#: lifts a critical failure to a failure), at or above which as at MARGIN_HI.
MARGIN_LO, MARGIN_HI = -30, 9

# -- the declarations every model with a seed-000 recovery check takes (issue 10 item 2) --------
CHECK: dict[str, Any] = dict(
    default="save",
    kind="choice",
    choices=("save", "flat"),
    rule="A0-4",
    help="recovery check: Fortitude save vs DC + dying, or flat check DC 10 + dying",
)
CHECK_PENALTY: dict[str, Any] = dict(
    default=0,
    kind="int",
    lo=-50,
    hi=0,
    rule="R4-03",
    help="fatigue/hunger penalty on the character's d20 checks (not on flat checks)",
)
DEATH_AT: dict[str, Any] = dict(
    default=4, kind="int", lo=1, hi=20, rule="R0-04", help="dying value that kills"
)


#: P-15: the recovery check rolled once (``none``), or twice keeping the higher (``fortune``)
#: or the lower (``misfortune``) natural d20 (Player Core, "Fortune and misfortune effects").
FORTUNE = ("none", "fortune", "misfortune")


def kept_roll(roll: int, roll2: int | None = None, fortune: str = "none") -> int:
    """The natural d20 a check keeps (P-15): ``roll``, or the higher / lower of two."""
    if fortune == "none" or roll2 is None:
        return roll
    return max(roll, roll2) if fortune == "fortune" else min(roll, roll2)


def clip_margin(margin) -> int:
    """``margin`` clipped to where it still changes a degree (same grading of every roll)."""
    return min(max(int(margin), MARGIN_LO), MARGIN_HI)


def check_margin(
    dying: int,
    *,
    check: str = "save",
    bonus: int = 0,
    dc: int = 0,
    dc_dying: int | None = None,
    toughness: bool = False,
) -> int:
    """The check's bonus minus its DC (R0-05, R0-06, A0-4): with the roll, all that decides it.

    A save: ``bonus - (dc + dying)``; a flat check: ``-(10 + dying)``. ``dc_dying`` (A0-8)
    replaces the current dying value in the DC (the value at the knock-out); ``toughness``
    (P-13) lowers the DC by 1.
    """
    d = dying if dc_dying is None else dc_dying
    t = int(bool(toughness))
    return -(10 - t) - d if check == "flat" else bonus - (dc - t) - d


def recovery_delta(
    roll: int,
    dying: int,
    *,
    check: str = "save",
    bonus: int = 0,
    dc: int = 0,
    dc_dying: int | None = None,
    toughness: bool = False,
) -> int:
    """Change of dying from one recovery check (R0-05, R0-06; A0-4): the scalar reference.

    Parameters
    ----------
    roll : int
        The natural d20, 1..20.
    dying : int
        The current dying value (>= 1).
    check : {"save", "flat"}
        A Fortitude save against ``dc + dying`` (the seed), or a flat check DC 10 +
        dying with no modifier (published PF2e, A0-4).
    bonus : int
        The save's modifier with its penalties (``save_bonus + check_penalty``);
        ignored by a flat check.
    dc : int
        The recovery DC before dying (the source's DC, R0-06); ignored by a flat check.
    dc_dying : int, optional
        A0-8: the dying value the DC adds; None (default) = the current ``dying``
        (R0-06's "current"), else the value at the knock-out (the DC fixed whole, R0-07).
    toughness : bool
        P-13 (PF2e Toughness): the DC is one lower (flat check DC 9 + dying).

    Returns
    -------
    int
        -2, -1, +1 or +2; the new dying value is ``dying + delta`` (0 or less: stable,
        R0-08).
    """
    m = check_margin(dying, check=check, bonus=bonus, dc=dc, dc_dying=dc_dying, toughness=toughness)
    return DELTA[degree(roll, m, 0)]


@lru_cache(maxsize=256)
def recovery_pmf(margin: int) -> tuple[tuple[int, float], ...]:
    """Exact distribution of the change of dying at a margin (:func:`check_margin`).

    ``((delta, p), ...)`` with p > 0, by enumerating the 20 natural rolls through
    :func:`recovery_delta`. Call it with :func:`clip_margin` applied for the best use
    of the cache (the result is the same).
    """
    counts: dict[int, int] = {}
    for roll in range(1, 21):
        d = recovery_delta(roll, 0, bonus=int(margin), dc=0)
        counts[d] = counts.get(d, 0) + 1
    return tuple((d, c / 20) for d, c in sorted(counts.items()))


@lru_cache(maxsize=256)
def recovery_pmf2(margin: int, fortune: str = "none") -> tuple[tuple[int, float], ...]:
    """:func:`recovery_pmf` for a check under P-15 ``fortune``: the 400 equally likely
    pairs of natural d20s through :func:`kept_roll` and :func:`recovery_delta`."""
    if fortune == "none":
        return recovery_pmf(margin)
    counts: dict[int, int] = {}
    for r1 in range(1, 21):
        for r2 in range(1, 21):
            d = recovery_delta(kept_roll(r1, r2, fortune), 0, bonus=int(margin), dc=0)
            counts[d] = counts.get(d, 0) + 1
    return tuple((d, c / 400) for d, c in sorted(counts.items()))


@lru_cache(maxsize=1)
def delta_table() -> np.ndarray:
    """``table[i, roll]``: change of dying at margin ``MARGIN_LO + i`` (int8, shape (40, 21)).

    Built from :func:`recovery_delta`; column 0 (no roll) is 0.
    """
    width = MARGIN_HI - MARGIN_LO + 1
    tab = np.zeros((width, 21), dtype=np.int8)
    for i in range(width):
        for roll in range(1, 21):
            tab[i, roll] = recovery_delta(roll, 0, bonus=MARGIN_LO + i, dc=0)
    tab.setflags(write=False)
    return tab


def recovery_phase(
    roll: np.ndarray,
    dying: np.ndarray,
    *,
    check: str = "save",
    bonus=0,
    dc=0,
    roll2: np.ndarray | None = None,
    fortune: str = "none",
    dc_dying=None,
    toughness: bool = False,
) -> np.ndarray:
    """New dying values of the tracks making a recovery check (the vectorised phase).

    ``roll`` (natural d20s), ``dying`` and ``dc`` (the recovery DC before dying, per track
    or one value) are arrays over the checking tracks. Returns ``dying + delta`` (int16;
    0 or less: stable). Same results as :func:`recovery_delta` on the same rolls.
    ``roll2`` (the second d20s) with ``fortune`` (P-15), ``dc_dying`` (A0-8: per track or
    one value; None = the current dying) and ``toughness`` (P-13) as in the reference.
    """
    dying = np.asarray(dying, dtype=np.int16)
    d = dying.astype(np.int32) if dc_dying is None else np.asarray(dc_dying, dtype=np.int32)
    t = int(bool(toughness))
    if check == "flat":
        margin = -(10 - t) - d
    else:
        margin = np.asarray(bonus, dtype=np.int32) - (np.asarray(dc, dtype=np.int32) - t) - d
    if fortune != "none" and roll2 is not None:
        pick = np.maximum if fortune == "fortune" else np.minimum
        roll = pick(np.asarray(roll), np.asarray(roll2))
    idx = (np.clip(margin, MARGIN_LO, MARGIN_HI) - MARGIN_LO).astype(np.intp) * 21
    idx += np.asarray(roll, dtype=np.intp)
    return dying + delta_table().ravel().take(idx)
