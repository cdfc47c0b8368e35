"""Initiative and the knocked-out PC's move in the order (P-01, AP-1; R0-03, AP-2).

- **Initiative** (P-01): once, at the start of a fight, every combatant rolls d20 +
  Perception (a PC's roll takes the check penalty, P-10); the higher total acts first.
  Ties (AP-1): monsters before PCs, then the lower index first. Each round the combatants
  act in that order.
- **The move** (R0-03, AP-2): a PC knocked out by a monster moves to just before that
  monster in the order. When one monster knocks out several PCs, each moves in turn to
  just before it, so the one knocked out later ends right before the monster. Damage
  while it is down does not move it (R0-09).

The scalar reference is the order itself, a list: :func:`initiative_order` and
:func:`move_before`. The vectorised form gives every combatant a sort key
(:func:`initiative_keys`: higher acts first) and moves a knocked-out PC by giving it a key
between the monster's and the next one above (:func:`move_keys`): the monster's key plus
``1 / (c + 2)``, where ``c`` counts the moves already made on that track, so every later
move lands closer to the monster. Keys of different combatants differ by at least 1
(ties are broken by integers) and a moved key lies strictly inside that gap, so the keys'
order is the list's. :func:`pc_first_p` is the exact chance a PC acts before a monster.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = [
    "initiative_keys",
    "initiative_order",
    "move_before",
    "move_keys",
    "pc_first_p",
]


def initiative_order(pc_totals, monster_totals) -> list[tuple[str, int]]:
    """The acting order (P-01, AP-1): ``("pc", k)`` and ``("monster", j)``, first to act
    first, from the initiative totals (d20 + Perception, with the PCs' check penalty)."""
    entries = [(int(t), 1, -k, ("pc", k)) for k, t in enumerate(pc_totals)]
    entries += [(int(t), 2, -j, ("monster", j)) for j, t in enumerate(monster_totals)]
    return [e[3] for e in sorted(entries, reverse=True)]


def move_before(order: list[tuple[str, int]], k: int, j: int) -> list[tuple[str, int]]:
    """R0-03, AP-2: PC ``k`` knocked out by monster ``j`` moves to just before ``j``."""
    out = [c for c in order if c != ("pc", k)]
    at = out.index(("monster", j))
    return out[:at] + [("pc", k)] + out[at:]


def initiative_keys(rolls: np.ndarray, pc_perception, monster_perception, check_penalty=0):
    """Sort keys (float64, higher acts first) from natural initiative d20s.

    ``rolls`` has shape (m, P + M): the PCs' rolls, then the monsters'; ``check_penalty``
    one number or one per track (m,). A key is ``total * 256 + tie`` with ``tie`` an
    integer below 256 that orders monsters before PCs, then the lower index first (AP-1).
    """
    P, M = len(pc_perception), len(monster_perception)
    perc = np.array(list(pc_perception) + list(monster_perception), dtype=np.float64)
    tie = np.array(
        [(P + M - k) for k in range(P)] + [64 + (M - j) for j in range(M)], dtype=np.float64
    )
    pen = np.asarray(check_penalty, dtype=np.float64)
    const = perc * 256 + tie  # (every number an integer below 2**53: the sums are exact)
    if not pen.ndim:
        const[:P] += float(pen) * 256
    keys = np.asarray(rolls).astype(np.float64)
    keys *= 256
    keys += const
    if pen.ndim:
        keys[:, :P] += pen[:, None] * 256
    return keys


def move_keys(
    keys: np.ndarray, moves: np.ndarray, i: np.ndarray, k: np.ndarray, col, distinct=False
):
    """R0-03, AP-2 over tracks: PCs ``k`` on tracks ``i`` knocked out by the monsters in
    columns ``col`` of ``keys`` (m, P + M) move to just before them, in the order given (a
    track may appear several times: the later entry moves later; ``distinct=True`` when
    the caller knows each track appears once). ``moves`` (m,) counts the moves made so far
    on each track; both arrays are updated in place."""
    if not len(i):
        return
    K = keys.shape[1]
    flat = keys.reshape(-1)  # (keys is C-contiguous: flat positions, faster than pairs)
    if distinct:
        c = moves.take(i)
        flat[i * K + k] = flat.take(i * K + col) + 1.0 / (c + 2.0)
        moves[i] = c + 1
        return
    order = np.argsort(i, kind="stable")
    si = i[order]
    start = np.r_[True, si[1:] != si[:-1]]
    first = np.flatnonzero(start)
    rank_sorted = np.arange(len(si)) - np.repeat(first, np.diff(np.r_[first, len(si)]))
    rank = np.empty(len(i), dtype=np.int64)
    rank[order] = rank_sorted
    c = moves.take(i).astype(np.float64) + rank
    flat[i * K + k] = flat.take(i * K + col) + 1.0 / (c + 2.0)
    np.add.at(moves, i, 1)


def pc_first_p(pc_perception: int, monster_perception: int, check_penalty: int = 0) -> Fraction:
    """Exact chance that a PC acts before a monster (P-01, ties to the monster, AP-1)."""
    pc = pc_perception + check_penalty
    wins = sum(a + pc > b + monster_perception for a in range(1, 21) for b in range(1, 21))
    return Fraction(wins, 400)
