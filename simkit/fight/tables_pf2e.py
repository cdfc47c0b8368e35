"""The fight loop's tables of PF2e's options on the seed-000 track, per PC (issue 31 item 4).

Built from the rules' scalar references, as every table of :mod:`simkit.fight.tables`:

- ``rise[k, held, knockout, old, new]``: what PC ``k``'s dying moving from ``old`` to
  ``new`` does (R0-04, R0-08, R0-10, A0-3, A0-7, :func:`simkit.rules.hero_points.rise`),
  at its own ``death_at`` (P-14 Diehard: 1 more) and hero threshold (none when its hero
  points reroll, P-16);
- ``pf2[k]``: ``(two, rerolls, keep[400])``: whether its recovery check draws a second
  d20 (P-15 fortune / misfortune, P-16), whether a hero point rerolls a failed check
  (P-16), and the natural d20 kept of two (:func:`simkit.rules.recovery_check.kept_roll`,
  at ``20 (r1 - 1) + r2 - 1``).

Toughness (P-13) is in the recovery table ``rec`` itself (its ``toughness``). Each PC's
options: :func:`simkit.models.downed_rule.pf2e_of` (its own, else the fight's).
"""

from __future__ import annotations

import numpy as np

from simkit.rules import hero_points
from simkit.rules.recovery_check import kept_roll

__all__ = ["N_PF2", "options", "pf2_table", "rise_table"]

#: Entries of a PC's ``pf2`` row.
N_PF2 = 2 + 400


def options(rules, k: int) -> dict:
    """PC ``k``'s PF2e options (``rules.pf2e_of(k)``:
    :func:`simkit.models.downed_rule.pf2e_of`); a rules object without them (a one-PC
    shim's) plays none."""
    own = getattr(rules, "pf2e_of", None)
    if own is not None:
        return own(k)
    return dict(
        toughness=False,
        diehard=False,
        fortune="none",
        hero_use="recover",
        rerolls=False,
        two=False,
        death_at=rules.death_at,
        threshold=rules.threshold,
    )


def rise_table(rules, Vmax: int) -> np.ndarray:
    """``rise[k, held, knockout, old, new]`` (see the module's docstring)."""
    P = len(rules.fighters.pcs)
    rise = np.zeros((P, 2, 2, Vmax + 1, Vmax + 1), dtype=np.int64)
    for k in range(P):
        o = options(rules, k)
        for held in (0, 1):
            for knockout in (0, 1):
                for old in range(Vmax + 1):
                    for new in range(Vmax + 1):
                        rise[k, held, knockout, old, new] = hero_points.rise(
                            old,
                            new,
                            threshold=o["threshold"] if held else None,
                            death_at=o["death_at"],
                            knockout=bool(knockout),
                            hero_knockout=rules.hero_knockout,
                        )
    return rise


def pf2_table(rules) -> np.ndarray:
    """``pf2[k]`` (see the module's docstring)."""
    P = len(rules.fighters.pcs)
    pf2 = np.zeros((P, N_PF2), dtype=np.int64)
    for k in range(P):
        o = options(rules, k)
        pf2[k, 0], pf2[k, 1] = o["two"], o["rerolls"]
        pf2[k, 2:] = [kept_roll(r1, r2, o["fortune"]) for r1 in range(1, 21) for r2 in range(1, 21)]
    return pf2
