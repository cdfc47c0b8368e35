"""The fight loop's table of the last readings of the seeds (issue 31 item 3: A1-10, A1-11,
A0-9 and the effect that raises it, AP-35), with its readers.

Built from the rules' scalar references, as every table of :mod:`simkit.fight.tables`. One
flat int64 array:

- a header: ``[R_AGONY]`` whether a hit on an agonising PC does anything (A1-11 other than
  ``none``); ``[R_WAKE_PE]``, ``[R_WAKE_PP]`` whether R1-07's wake-up gives every PE, every
  PP back (A1-10, :func:`simkit.rules.rest.wake_rest`, probed); ``[R_DYING_EDGE]`` the
  32-bit edge of a monster's dying effect a turn (AP-35, 0: none); ``[R_DYING_DROP]``
  whether a PC it gives dying drops to 0 HP (A0-9,
  :func:`simkit.rules.dying_damage.dying_given`, probed); ``[R_CAP]`` the PP past which
  the hit table is clamped;
- ``hit[pp, crit]`` (pp 0 .. ``R_CAP``): a hit on an agonising PC with ``pp`` PP
  (:func:`simkit.rules.perseverance.agony_hit`), ``dead * 4096 + pp after``.

A rules object without these options (the encounter's shim) plays their defaults. The
loop reads it through :mod:`simkit.fight.reads`.
"""

from __future__ import annotations

import numpy as np

from simkit.fight.dice import edge_of
from simkit.rules import dying_damage, perseverance, rest

__all__ = ["N_HEAD", "read_table"]

R_AGONY, R_WAKE_PE, R_WAKE_PP, R_DYING_EDGE, R_DYING_DROP, R_CAP = range(6)
N_HEAD = 6


def read_table(rules) -> np.ndarray:
    """The table (see the module's docstring) of ``rules`` (a :class:`~simkit.models.party.
    Party`; a rules object without the options: their defaults)."""
    reading = getattr(rules, "agony_damage", "none")
    wake = getattr(rules, "wake_restores", "hp")
    pe, pp = rest.wake_rest(0, 1, 0, 1, wake, getattr(rules, "wake_pp_back", "night"))
    chance = float(getattr(rules, "dying_effect", 0.0) or 0.0)
    hp = dying_damage.dying_given(1, 1, getattr(rules, "dying_above_0", "keep_hp"))[0]
    cap = max([p.pp_max for p in rules.fighters.pcs] + [1]) + 4
    head = [reading != "none", pe == 1, pp == 1, edge_of(chance) if chance else 0, hp == 0, cap]
    hit = np.zeros((cap + 1, 2), dtype=np.int64)
    for v in range(cap + 1):
        for crit in (0, 1):
            dead, left = perseverance.agony_hit(v, bool(crit), reading)
            hit[v, crit] = int(dead) * 4096 + left
    return np.concatenate([np.array(head, dtype=np.int64), hit.reshape(-1)])
