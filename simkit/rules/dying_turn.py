"""A dying PC's turn, composed once from the rules' phases (R0-05..R0-08, R0-10, A0-4):
its recovery check (:func:`simkit.rules.recovery_check.recovery_delta`) and what the new
dying value does (:func:`simkit.rules.hero_points.rise`: stable, a hero point, dead, or
carry on), as one table over (hero point held, dying value, natural d20).

The exact day duel reads it (:mod:`simkit.models.day_duel`); the ``dying`` model's tables
compose the same phases through its scalar reference (``Dying.ref_check``), and
``tests/test_dying_turn.py`` holds the two to each other.
"""

from __future__ import annotations

import numpy as np

from simkit.rules import hero_points as hp_rule
from simkit.rules.recovery_check import recovery_delta

__all__ = ["turn_table"]


def turn_table(
    check: str,
    margin: int,
    death_at: int,
    threshold: int | None,
    hero_knockout: str,
    toughness: bool = False,
) -> np.ndarray:
    """A dying PC's turn with one recovery DC: ``[held * 20 * death_at + dying * 20 + roll - 1]``.

    Built from the scalar references (:func:`simkit.rules.recovery_check.recovery_delta`,
    :func:`simkit.rules.hero_points.rise`); ``margin`` is the save's bonus minus the DC;
    ``toughness``: P-13, the DC one lower.
    Entry: the new dying value (>= 1, carry on), 0 stable, -1 a hero point, -2 dead (int16).
    """
    tab = np.zeros((2, death_at, 20), dtype=np.int16)
    codes = {hp_rule.STABLE: 0, hp_rule.HERO: -1, hp_rule.DEAD: -2}
    for held in (0, 1):
        for dying in range(1, death_at):
            for roll in range(1, 21):
                new = dying + recovery_delta(
                    roll, dying, check=check, bonus=margin, dc=0, toughness=toughness
                )
                res = hp_rule.rise(
                    dying,
                    new,
                    threshold=threshold if held else None,
                    death_at=death_at,
                    hero_knockout=hero_knockout,
                )
                tab[held, dying, roll - 1] = new if res == hp_rule.CARRY_ON else codes[res]
    flat = tab.ravel()
    flat.setflags(write=False)
    return flat
