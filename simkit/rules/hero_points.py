"""Hero points and the rises of dying (seed 000: R0-04, R0-08, R0-10; A0-3, A0-7).

A change of dying ends one of four ways: 0 or less, stable (R0-08); a rise that meets the
hero-point policy while a point is held, the point is spent (R0-10); the death value or
more, dead (R0-04); else the creature carries on dying at the new value.

When to spend (A0-3) is a policy: ``never``, ``immediately`` (at the knock-out),
``at_death`` (when dying would reach the death value), or an integer ``k`` (when dying
would rise to ``k`` or more). The effect (``hero_effect``): the seed's ``revive`` (back at
1 HP, conscious) or published PF2e's ``stabilize`` (all points spent, stable at 0 HP).

A0-7: a knock-out that itself reaches the death value while a point is held:
``hero_knockout="spend"`` (default: the point is spent "to avoid death") or ``"die"`` (the
knock-out kills before any turn, whatever the policy).

:func:`rise` is the scalar reference; :func:`rise_phase` the same over arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "CARRY_ON",
    "DEAD",
    "HERO",
    "HERO_EFFECT",
    "HERO_KNOCKOUT",
    "HERO_POINTS",
    "HERO_POLICY",
    "STABLE",
    "hero_threshold",
    "rise",
    "rise_phase",
    "spends_hero",
]

#: Results of :func:`rise`.
CARRY_ON, STABLE, HERO, DEAD = 0, 1, 2, 3

# -- the declarations every model with seed-000 hero points takes (issue 10 item 2) --------------
HERO_POINTS: dict[str, Any] = dict(
    default=0, kind="int", lo=0, hi=10, rule="R0-10", help="hero points available"
)
HERO_POLICY: dict[str, Any] = dict(
    default="at_death",
    kind="policy",
    choices=("never", "immediately", "at_death"),
    lo=1,
    hi=20,
    rule="A0-3",
    help="when to spend a hero point: never, immediately, at_death, or when dying would reach k",
)
HERO_EFFECT: dict[str, Any] = dict(
    default="revive",
    kind="choice",
    choices=("revive", "stabilize"),
    rule="R0-10",
    help="hero point: back to 1 HP (seed) or stable at 0 HP spending all (pf2e-core)",
)
HERO_KNOCKOUT: dict[str, Any] = dict(
    default="spend",
    kind="choice",
    choices=("spend", "die"),
    rule="A0-7",
    help="a knock-out that itself reaches death_at with a hero point held: "
    "spend it and survive, or die",
)


def hero_threshold(policy, hero_points: int, death_at: int) -> int | None:
    """Dying value at which a hero point is spent (A0-3): None = never, 0 = at the knock-out.

    ``policy`` is ``never``, ``immediately``, ``at_death`` (= ``death_at``) or an integer
    ``k``: spend when dying would rise to ``k`` or more.
    """
    if hero_points == 0 or policy == "never":
        return None
    if policy == "immediately":
        return 0
    if policy == "at_death":
        return death_at
    return int(policy)


def spends_hero(
    old: int,
    new: int,
    *,
    threshold: int | None,
    death_at: int,
    knockout: bool = False,
    hero_knockout: str = "spend",
) -> bool:
    """Whether dying rising from ``old`` to ``new`` spends a held hero point (R0-10; A0-3, A0-7).

    ``threshold`` is :func:`hero_threshold` for a creature holding a point, None when it
    holds none. ``knockout``: the rise is a knock-out (from not dying).
    """
    if threshold is None or new <= old or new < threshold:
        return False
    return not (knockout and hero_knockout == "die" and new >= death_at)


def rise(
    old: int,
    new: int,
    *,
    threshold: int | None,
    death_at: int,
    knockout: bool = False,
    hero_knockout: str = "spend",
) -> int:
    """What a change of dying from ``old`` to ``new`` does: the scalar reference.

    Returns :data:`STABLE` (``new <= 0``, R0-08), :data:`HERO` (a point is spent, R0-10),
    :data:`DEAD` (``new >= death_at``, R0-04) or :data:`CARRY_ON` (dying ``new``).
    """
    if new <= 0:
        return STABLE
    if spends_hero(
        old,
        new,
        threshold=threshold,
        death_at=death_at,
        knockout=knockout,
        hero_knockout=hero_knockout,
    ):
        return HERO
    if new >= death_at:
        return DEAD
    return CARRY_ON


def rise_phase(
    old: np.ndarray,
    new: np.ndarray,
    held: np.ndarray,
    *,
    threshold: int | None,
    death_at: int,
    knockout=False,
    hero_knockout: str = "spend",
) -> np.ndarray:
    """:func:`rise` over arrays (``held``: a point is held; ``knockout``: bool or array); int8."""
    old = np.asarray(old)
    new = np.asarray(new)
    out = np.where(new >= death_at, DEAD, CARRY_ON).astype(np.int8)
    if threshold is not None:
        spend = np.asarray(held, dtype=bool) & (new > old) & (new >= threshold)
        if hero_knockout == "die":
            spend &= ~(np.asarray(knockout, dtype=bool) & (new >= death_at))
        out[spend] = HERO
    out[new <= 0] = STABLE
    return out
