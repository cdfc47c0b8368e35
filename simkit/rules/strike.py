"""Strikes and basic saves (PF2e, P-02..P-04; degrees R0-05; R0-11) as one rule module.

- **Multiple attack penalty** (P-02): a creature's first strike of a turn is at its full
  bonus, the second at -5 (agile -4), the third and later at -10 (-8); ``map=none``
  removes it (:func:`map_penalty`).
- **Strike** (P-03): d20 + attack bonus against AC, graded as R0-05 (:func:`degree`); a
  success deals the damage rolled, a critical success twice that (a critical hit), a
  failure or critical failure nothing. Damage is never negative (a hit never heals).
- **Basic save** (P-04): the target rolls its save against the effect's DC; a critical
  success takes no damage, a success half (rounded down), a failure the full damage, a
  critical failure double.
- **R0-11**: a character at 0 HP is unconscious: -4 AC (condition) and off-guard (-2),
  so strikes against it are against AC - :data:`UNCONSCIOUS_AC`.

The scalar references (:func:`strike_damage`, :func:`basic_damage`) are the rules; the
exact distributions (:func:`strike_pmf`, :func:`basic_save_pmf`) count every d20 face and
dice sum through them; the vectorised form (:func:`roll_table`) runs them over every d20
face once, so a kernel grades a whole array of draws with one lookup. Every fight model
(``encounter``, ``party`` and the exact duels) calls these; none writes the rules again.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import numpy as np

from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, FAIL, SUCCESS, Dice, degree, degree_pmf

__all__ = [
    "BASIC_X2",
    "MAP_CHOICES",
    "MAP_STEPS",
    "STRIKE_MULT",
    "UNCONSCIOUS_AC",
    "basic_damage",
    "basic_save_pmf",
    "map_penalty",
    "pc_map",
    "roll_table",
    "strike_ac",
    "strike_damage",
    "strike_pmf",
]

#: Multiple attack penalty per step (P-02): the second strike takes one step, the third
#: and later two.
MAP_STEPS = {"standard": 5, "agile": 4, "none": 0}
MAP_CHOICES = tuple(MAP_STEPS)
#: R0-11: the AC a character at 0 HP loses (-4 unconscious, -2 off-guard).
UNCONSCIOUS_AC = 6
#: What a strike's degree does to its damage (P-03): miss 0, hit 1, critical hit 2.
STRIKE_MULT = {CRIT_FAIL: 0, FAIL: 0, SUCCESS: 1, CRIT_SUCCESS: 2}
#: Twice a basic save's damage multiplier (P-04), by the saver's degree: critical success
#: 0, success 1 (= half), failure 2 (= full), critical failure 4 (= double).
BASIC_X2 = {CRIT_FAIL: 4, FAIL: 2, SUCCESS: 1, CRIT_SUCCESS: 0}


def map_penalty(map_: str, a: int) -> int:
    """The multiple attack penalty of a turn's ``a``-th strike (0-based; P-02), as a
    positive number to subtract from the attack bonus."""
    try:
        step = MAP_STEPS[map_]
    except KeyError:
        raise ValueError(f"map must be one of {', '.join(MAP_CHOICES)}, got {map_!r}") from None
    return step * min(int(a), 2)


def pc_map(agile: bool) -> str:
    """The multiple attack penalty of a PC's weapon: ``agile`` or ``standard`` (P-02)."""
    return "agile" if agile else "standard"


def strike_ac(ac: int, down: bool) -> int:
    """The AC a strike is rolled against: ``ac``, or ``ac - 6`` at 0 HP (R0-11)."""
    return int(ac) - (UNCONSCIOUS_AC if down else 0)


def strike_damage(deg: int, rolled: int) -> int:
    """Damage a strike of degree ``deg`` deals with ``rolled`` on its dice (P-03): 0 on a
    miss, ``rolled`` on a hit, twice on a critical hit; never negative."""
    return max(int(rolled), 0) * STRIKE_MULT[deg]


def basic_damage(deg: int, rolled: int) -> int:
    """Damage taken on a basic save of degree ``deg`` against ``rolled`` (P-04): 0, half
    (rounded down), full or double; never negative."""
    return (max(int(rolled), 0) * BASIC_X2[deg]) >> 1


def _dice_pmf(text: str) -> list[tuple[int, float]]:
    values, probs = Dice.parse(text).pmf()
    return [(int(v), float(p)) for v, p in zip(values, probs) if p > 0]


def _graded_pmf(bonus: int, dc: int, dice: str, damage, flag: int):
    """``(damage(deg, rolled), deg == flag, p)`` over every degree and dice sum (merged)."""
    pd = degree_pmf(int(bonus), int(dc))
    out: dict[tuple[int, bool], float] = defaultdict(float)
    for v, q in _dice_pmf(dice):
        for deg in range(4):
            if pd[deg] > 0:
                out[(damage(deg, v), deg == flag)] += float(pd[deg]) * q
    return tuple((d, c, p) for (d, c), p in out.items() if p > 0)


@lru_cache(maxsize=1024)
def strike_pmf(bonus: int, ac: int, dice: str) -> tuple[tuple[int, bool, float], ...]:
    """Exact distribution of one strike: ``(damage, critical hit, p)`` (P-03, R0-05).

    ``bonus`` is the attack bonus after every penalty; ``ac`` the AC struck (R0-11
    applied by the caller, :func:`strike_ac`).
    """
    return _graded_pmf(bonus, ac, dice, strike_damage, CRIT_SUCCESS)


@lru_cache(maxsize=1024)
def basic_save_pmf(bonus: int, dc: int, dice: str) -> tuple[tuple[int, bool, float], ...]:
    """Exact distribution of a basic save: ``(damage, saver critically failed, p)`` (P-04)."""
    return _graded_pmf(bonus, dc, dice, basic_damage, CRIT_FAIL)


def roll_table(pairs, effect: dict[int, int]) -> np.ndarray:
    """``table[x * 20 + roll - 1]``: ``effect`` of the degree (R0-05) of a natural ``roll``
    with ``pairs[x] = (bonus, dc)``; int32, read-only.

    With ``effect=STRIKE_MULT`` it is a strike's damage multiplier, with ``BASIC_X2`` twice
    a basic save's: the vectorised form of :func:`strike_damage` / :func:`basic_damage`.
    """
    t = np.zeros((len(pairs), 20), dtype=np.int32)
    for x, (bonus, dc) in enumerate(pairs):
        for r in range(1, 21):
            t[x, r - 1] = effect[degree(r, int(bonus), int(dc))]
    t.setflags(write=False)
    return t.reshape(-1)
