"""First aid on an agonising character (seed 001, R1-02; A1-6) as one rule phase.

Another character makes a Medicine check ``d20 + bonus + check_penalty >= dc`` (DC 15
in the seed); success stops the PP loss: the character stays unconscious but stable at
0 HP. Seed 001 has no natural 20/1 rule (A1-6): only the total counts. A fight may read
first aid as a PF2e check instead (``natural=True``, AP-4): a natural 20 raises the
degree of success one step and a natural 1 lowers it one step (R0-05), so a natural 1
fails unless its total reaches DC + 10, and a natural 20 succeeds if its total is above
DC - 10.

:func:`first_aid_succeeds` is the rule (scalar reference); :func:`first_aid_p` its
exact probability (counting the 20 natural rolls through the reference);
:func:`first_aid_table` the result of every natural roll (cached), which
:func:`first_aid_phase` indexes with one ``rng.below(20)`` per track and
:func:`first_aid_lookup` with natural rolls drawn elsewhere.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from simkit.rules.dice import SUCCESS, degree

__all__ = [
    "FIRST_AID_DC",
    "first_aid_succeeds",
    "first_aid_p",
    "first_aid_table",
    "first_aid_phase",
    "first_aid_lookup",
]

#: DC of the first-aid Medicine check (R1-02).
FIRST_AID_DC = 15


def first_aid_succeeds(
    roll: int,
    *,
    bonus: int,
    check_penalty: int = 0,
    dc: int = FIRST_AID_DC,
    natural: bool = False,
) -> bool:
    """Whether first aid works for the natural d20 ``roll`` (R1-02): the total ``roll +
    bonus + check_penalty`` reaches ``dc``; with ``natural`` (AP-4) the natural 20 / 1
    move the degree one step first (R0-05)."""
    return degree(int(roll), int(bonus) + int(check_penalty), int(dc), natural=natural) >= SUCCESS


@lru_cache(maxsize=512)
def _table(total: int, natural: bool) -> np.ndarray:
    out = np.array(
        [first_aid_succeeds(r, bonus=total, dc=0, natural=natural) for r in range(1, 21)],
        dtype=bool,
    )
    out.setflags(write=False)
    return out


def first_aid_table(
    *, bonus: int, check_penalty: int = 0, dc: int = FIRST_AID_DC, natural: bool = False
) -> np.ndarray:
    """``table[roll - 1]``: whether first aid works for each natural d20 (bool, 20, cached).

    Cached on ``bonus + check_penalty - dc`` and ``natural``, all it depends on.
    """
    return _table(int(bonus) + int(check_penalty) - int(dc), bool(natural))


def first_aid_p(
    *, bonus: int, check_penalty: int = 0, dc: int = FIRST_AID_DC, natural: bool = False
) -> float:
    """Exact probability that first aid works: the natural rolls that succeed, out of 20."""
    table = first_aid_table(bonus=bonus, check_penalty=check_penalty, dc=dc, natural=natural)
    return int(table.sum()) / 20


def first_aid_phase(
    m: int, rng, *, bonus: int, check_penalty: int = 0, dc: int = FIRST_AID_DC
) -> np.ndarray:
    """First aid for ``m`` tracks, bool of shape (m,).

    One ``rng.below(20)`` per track: the natural roll - 1.
    """
    return first_aid_table(bonus=bonus, check_penalty=check_penalty, dc=dc).take(
        rng.below(20, size=m)
    )


def first_aid_lookup(
    roll, *, bonus: int, check_penalty: int = 0, dc: int = FIRST_AID_DC, natural: bool = False
) -> np.ndarray:
    """First aid for natural d20s drawn elsewhere (any shape): bool, shape of ``roll``."""
    table = first_aid_table(bonus=bonus, check_penalty=check_penalty, dc=dc, natural=natural)
    return table[np.asarray(roll).astype(np.intp) - 1]
