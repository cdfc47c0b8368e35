"""The fight loop's table of the custom tracks at 0 HP (``dying``, issue 31), per PC.

Built from :mod:`simkit.models.downed_rule`'s tables (each track's own ``start``,
``transition`` and ``on_hit``, called on every reachable state), as every table of
:mod:`simkit.fight.tables` is built from the rules' scalar references. A PC follows its own
track (``party="fighter(dying=dnd5e),cleric"``), else the fight's ``dying``, else the
rules set's track (no row here: faces 0).

One flat int64 array: per check penalty ``p`` and PC ``k``, at ``4 (p P + k)``, (faces,
start code, offset of next (S, K), offset of hit (S, 2)); then the arrays. A code is a
state's index or ``-1 - effect`` (dead, stable, revived).
"""

from __future__ import annotations

import numpy as np

__all__ = ["trk_table"]


def _table(rules, k: int, pen: int):
    """PC ``k``'s track as the loop reads it, or None: the rules' own reader per PC
    (``pc_downed_table``: :class:`~simkit.models.party.Party`), else the fight's
    (``downed_table``: one track for every PC, a one-PC shim's)."""
    per_pc = getattr(rules, "pc_downed_table", None)
    if per_pc is not None:
        return per_pc(k, pen)
    return rules.downed_table(pen) if getattr(rules, "dying", None) is not None else None


def trk_table(rules, pens) -> tuple[np.ndarray | None, int]:
    """The custom tracks of ``rules``' PCs as one flat table (None when no PC has one), and
    the width of the ``trk`` draw: the least common multiple of their face counts (one
    track: its count), each PC taking the draw modulo its own count."""
    P = len(rules.fighters.pcs)
    head = np.zeros(4 * len(pens) * P, dtype=np.int64)
    parts, at, widths = [head], len(head), []
    for p, pen in enumerate(pens):
        for k in range(P):
            ft = _table(rules, k, pen)
            if ft is None:
                continue
            row = 4 * (p * P + k)
            head[row : row + 4] = (len(ft.rolls), ft.start, at, at + ft.next.size)
            parts += [ft.next.reshape(-1), ft.hit.reshape(-1)]
            at += ft.next.size + ft.hit.size
            widths.append(len(ft.rolls))
    if not widths:
        return None, 0
    return np.concatenate(parts), int(np.lcm.reduce(widths))
