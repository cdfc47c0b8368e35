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

A rules object without these options (the encounter's shim) plays their defaults.
"""

from __future__ import annotations

import numpy as np

from simkit.fight import tables as t
from simkit.fight._jit import scalar
from simkit.rules import dying_damage, perseverance, rest

__all__ = ["agony_hit", "dying_drops", "dying_edge", "read_table", "wake_pe", "wake_pp"]

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
    head = [reading != "none", pe == 1, pp == 1, t.edge_of(chance) if chance else 0, hp == 0, cap]
    hit = np.zeros((cap + 1, 2), dtype=np.int64)
    for v in range(cap + 1):
        for crit in (0, 1):
            dead, left = perseverance.agony_hit(v, bool(crit), reading)
            hit[v, crit] = int(dead) * 4096 + left
    return np.concatenate([np.array(head, dtype=np.int64), hit.reshape(-1)])


@scalar
def _head(T, f):
    return T[T[t.O_READS] + f]


@scalar
def agony_hit(T, pp, crit):
    """A hit (``crit`` 1: critical) on an agonising PC with ``pp`` PP (A1-11): ``(dead, pp
    after)``; ``(0, pp)`` when the reading is ``none``."""
    if not _head(T, R_AGONY):
        return 0, pp
    cap = _head(T, R_CAP)
    code = T[T[t.O_READS] + N_HEAD + 2 * min(pp, cap) + crit]
    return code // 4096, code % 4096 + max(pp - cap, 0)


@scalar
def wake_pe(T):
    """Whether R1-07's wake-up gives every PE back (A1-10 ``all``)."""
    return _head(T, R_WAKE_PE)


@scalar
def wake_pp(T):
    """Whether R1-07's wake-up gives every PP back (A1-10 ``all`` with A1-7's ``night``)."""
    return _head(T, R_WAKE_PP)


@scalar
def dying_edge(T):
    """The 32-bit edge of a monster's dying effect a turn (AP-35); 0: none."""
    return _head(T, R_DYING_EDGE)


@scalar
def dying_drops(T):
    """Whether a PC the effect gives dying drops to 0 HP (A0-9 ``drop``)."""
    return _head(T, R_DYING_DROP)
