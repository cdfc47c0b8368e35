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


def trk_table(rules, pens) -> tuple[np.ndarray | None, int]:
    """The custom tracks of ``rules``' PCs as one flat table (None when no PC has one), and
    the width of the ``trk`` draw (:func:`simkit.models.downed_rule.faces_width`)."""
    from simkit.models.downed_rule import pc_value, table_at

    P = len(rules.fighters.pcs)
    values = [pc_value(rules, k) for k in range(P)]
    if all(v is None for v in values):
        return None, 0
    own = getattr(rules, "downed_table", None)  # the fight's (a shim's) own reader
    head = np.zeros(4 * len(pens) * P, dtype=np.int64)
    parts, at, widths = [head], len(head), []
    for p, pen in enumerate(pens):
        for k, value in enumerate(values):
            if value is None:
                continue
            shared = value is getattr(rules, "dying", None) and own is not None
            ft = own(pen) if shared and own is not None else table_at(value, pen)
            assert ft is not None  # (value is not None)
            row = 4 * (p * P + k)
            head[row : row + 4] = (len(ft.rolls), ft.start, at, at + ft.next.size)
            parts += [ft.next.reshape(-1), ft.hit.reshape(-1)]
            at += ft.next.size + ft.hit.size
            widths.append(len(ft.rolls))
    return np.concatenate(parts), int(np.lcm.reduce(widths))
