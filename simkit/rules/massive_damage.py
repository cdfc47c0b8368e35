"""Damage to a creature's HP: temporary HP, massive damage (seed 000: R0-12..R0-14).

- R0-13: damage of at least twice the maximum HP in one hit kills at once (checked on the
  damage before temporary HP).
- R0-14: temporary HP are kept apart and lost first.
- R0-12: a death-trait effect that brings the creature to 0 HP kills at once (the
  caller's: it knows the trait).

:func:`take_damage` and :func:`is_massive` are written with numpy operations, so the same
code is the scalar reference (Python ints in) and the vectorised phase (arrays in);
:func:`massive_chance` is the exact probability, from the damage dice's PMF.
"""

from __future__ import annotations

import numpy as np

from simkit.rules.dice import Dice

__all__ = ["is_massive", "massive_chance", "take_damage"]


def is_massive(damage, hp_max: int):
    """Whether ``damage`` (one hit, before temporary HP) kills outright (R0-13)."""
    return damage >= 2 * hp_max


def take_damage(hp, tmp, damage):
    """``(hp, tmp)`` after ``damage`` (R0-14: temporary HP first; HP not below 0).

    Works on ints or arrays alike. The creature is at 0 HP (knocked out, R0-03) where
    the returned ``hp`` is 0.
    """
    soak = np.minimum(tmp, damage)
    return np.maximum(hp - (damage - soak), 0), tmp - soak


def massive_chance(dice: str, hp_max: int | None, multiplier: int = 1) -> float:
    """P(``multiplier`` x a roll of ``dice`` >= 2 x ``hp_max``) (R0-13); 0 without ``hp_max``."""
    if hp_max is None:
        return 0.0
    need = -(-2 * hp_max // multiplier)  # smallest roll r with multiplier * r >= 2 hp_max
    return float(Dice.parse(dice).cdf_at_least(need))
