"""The fight loop's table of the temporary HP a PC grants (R0-14, AP-37), per PC.

``tmp[k] = (grant, uses, keep)``: the temporary HP each of PC ``k``'s grants gives (its
``grant_temp_hp``; 0: it grants none), its grants a fight (``grant_uses``), and the reading
of "one source at a time" a PC gaining them follows (``temp_keep``: an index into
:data:`simkit.rules.temp_hp.TEMP_KEEP`, the same on every row). What a grant leaves the PC
holding is the rule's own :func:`simkit.rules.temp_hp.kept_temp_ref`, compiled by
:mod:`simkit.fight.grant`.
"""

from __future__ import annotations

import numpy as np

from simkit.rules.temp_hp import TEMP_KEEP

__all__ = ["GRANT", "KEEP", "N_TMP", "USES", "tmp_table"]

#: Columns of a PC's row.
GRANT, USES, KEEP = range(3)
N_TMP = 3


def tmp_table(rules) -> np.ndarray:
    """``(P, N_TMP)`` int64: each PC's grant, uses and the fight's ``temp_keep`` (a rules
    object without them, a one-PC shim's, grants none)."""
    keep = TEMP_KEEP.index(getattr(rules, "temp_keep", "larger"))
    rows = [
        (int(getattr(p, "grant_temp_hp", 0) or 0), int(getattr(p, "grant_uses", 1)), keep)
        for p in rules.fighters.pcs
    ]
    return np.array(rows, dtype=np.int64).reshape(-1, N_TMP)
