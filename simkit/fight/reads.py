"""The fight loop's readers of the table of the seeds' last readings (A1-10, A1-11, A0-9 and
AP-35's effect; built by :mod:`simkit.fight.tables_read`, held at ``T[O_READS]``)."""

from __future__ import annotations

import numpy as np

from simkit.fight import tables as t
from simkit.fight._jit import scalar
from simkit.fight.tables_read import (
    N_HEAD,
    R_AGONY,
    R_CAP,
    R_DYING_DROP,
    R_DYING_EDGE,
    R_WAKE_PE,
    R_WAKE_PP,
)

__all__ = ["agony_hit", "dying_drops", "dying_edge", "wake_pe", "wake_pp"]


@scalar
def _head(T, f):
    return T[np.uint64(T[t.O_READS] + f)]


@scalar
def agony_hit(T, pp, crit):
    """A hit (``crit`` 1: critical) on an agonising PC with ``pp`` PP (A1-11): ``(dead, pp
    after)``; ``(0, pp)`` when the reading is ``none``."""
    if not _head(T, R_AGONY):
        return 0, pp
    cap = _head(T, R_CAP)
    code = T[np.uint64(T[t.O_READS] + N_HEAD + 2 * min(pp, cap) + crit)]
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
