"""A PC's grant of temporary HP in a fight, and what the PC gaining them keeps (R0-14,
AP-37), for one track's row ``S`` through the packed tables ``T``.

A PC with ``grant_temp_hp`` (a 2-action spell on an ally, like PF2e's *false vitality*
cast on another) and a grant left spends its turn's two modelled actions on it when its
tactic would strike or cast a damaging spell (a cleric's heal and first aid come first,
AP-5): it grants the conscious PC (itself included) on whom the grant adds the most
temporary HP under ``temp_keep`` (ties: the party's order), and only where it adds some.
The PC gaining them keeps what :func:`simkit.rules.temp_hp.kept_temp_ref` says.
"""

from __future__ import annotations

import numpy as np

from simkit.fight import tables as t
from simkit.fight._jit import hot, scalar
from simkit.fight.state import COND, GRANTS, TEMP, UP, pc
from simkit.fight.tables_tmp import GRANT, KEEP, N_TMP, USES
from simkit.rules.temp_hp import kept_temp_ref

__all__ = ["grant", "grant_target", "grants0", "kept"]

#: R0-14's keep rule: the rule's own scalar reference, compiled.
kept = scalar(kept_temp_ref)


@scalar
def tmp(T, k, f):
    """PC ``k``'s entry ``f`` (GRANT, USES, KEEP) of the grants' table."""
    return T[np.uint64(T[t.O_TMP] + k * N_TMP + f)]


@scalar
def grants0(T, k):
    """PC ``k``'s grants at a fight's start: its uses when it grants any, else 0."""
    return tmp(T, k, USES) if tmp(T, k, GRANT) > 0 else 0


@scalar
def grant_target(S, T, k):
    """The conscious PC on whom PC ``k``'s grant adds the most temporary HP under the keep
    rule (the first in the party's order on a tie); -1 if it adds none to anyone."""
    n = tmp(T, k, GRANT)
    best, most = -1, 0
    for q in range(T[t.H_P]):
        if S[pc(q, COND)] != UP:
            continue
        old = S[pc(q, TEMP)]
        gain = kept(old, n, tmp(T, q, KEEP)) - old
        if gain > most:
            best, most = q, gain
    return best


@hot
def grant(S, T, k, acts):
    """PC ``k``'s grant (R0-14, AP-37) with ``acts`` modelled actions: True if it spent the
    two of them on one (a grant left, a target it helps). (Inlined: most turns have no
    grant left, and end at the first test without a call.)"""
    if acts < 2 or S[pc(k, GRANTS)] <= 0:
        return False
    return give(S, T, k)


@scalar
def give(S, T, k):
    """PC ``k``'s grant to the PC it helps most, if any (True: given)."""
    q = grant_target(S, T, k)
    if q < 0:
        return False
    S[pc(k, GRANTS)] -= 1
    S[pc(q, TEMP)] = kept(S[pc(q, TEMP)], tmp(T, k, GRANT), tmp(T, q, KEEP))
    return True
