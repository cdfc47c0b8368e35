"""Exact duels on a grid: the state distribution pushed forward one round at a time.

The exact duel of :mod:`simkit.models.party_duel` (one PC, one monster, no healer) has a
state ``(pc_hp, hero, slots, mhp, area, pc_first)``. At level 20 that is up to 830,000
states, and a round reaches hundreds of thousands of others from each (every total of
the PC's two strikes times every total of the monster's strikes): a transition matrix,
even sparse, would not fit. But a round is a product of two turns that each touch few
fields: the PC's turn moves only the monster's HP (and spends a slot), the monster's
turn only the PC's HP and hero points (a hero point's revival, R0-10, moves the PC to
act first: ``pc_first``). So the distribution is kept as a dense array

``X[first, area, slots, hero, hp, mhp]`` (float64; ``first`` 1: the PC acts first;
``area`` the monster's area uses left, one value when it never uses one; ``hp`` the PC's
HP, with PE under seed 001 its HP + PE; ``mhp`` the monster's HP)

and each turn is one small dense matrix applied along its axis (BLAS): the PC's turn an
``(mhp + 1, mhp + 1)`` matrix, the monster's turn ``(hp + 1, hp + 1)`` blocks, one per
(hero points before, after). The grid's cells are :func:`party_duel.duel_states`; a
round costs about ``4 * cells * (hp + mhp)`` flops; the rounds stop at ``max_rounds`` or
once less than 1e-18 of the mass is still fighting (below float64's rounding of the
answers). The matrices are built from the same pmfs and rules as the state-by-state
chain (:func:`party_duel.duel_step`, the reference the tests hold this to). Only the
occupied area uses, slots and hero points are pushed (they only decrease).

Rules: P-01 (initiative), P-02..P-04 (strikes, the multiple attack penalty, basic saves),
P-10 (the check penalty), R0-03 (a revived PC acts before the monster), R0-10 (a hero
point's revival), R0-13 (massive damage), A1-5 (stamina points first, seed 001).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simkit.core.exact import ExactTooLarge
from simkit.rules import hero_points, initiative, massive_damage
from simkit.rules.rest import split_damage
from simkit.rules.strike import basic_save_pmf, map_penalty, pc_map, strike_pmf

__all__ = ["DuelGrid", "duel_grid", "duel_hist"]

#: A duel's rounds stop once less mass than this is still fighting.
NEGLIGIBLE = 1e-18


@dataclass(frozen=True)
class DuelGrid:
    """The turns of one duel as matrices, and its grid's shape.

    Attributes
    ----------
    shape : tuple of int
        ``(2, areas, slots, heroes, hps, mhps)`` of the grid (see the module docstring).
    pc_slot, pc_plain : ndarray, shape (mhps, mhps)
        The PC's turn on the monster's HP with a slot left (its area spell) and without
        (cantrip or strikes): row = HP before, column = after (0: the monster is down).
    strikes, area : tuple of two dicts
        The monster's turn (its strikes; its area effect): ``(h, h2) -> (cols, BT)``, the
        HP after (a slice) and the transposed matrix ``(cols, hps)`` from hero points ``h``
        to ``h2 <= h`` (``h2 < h``: revived, R0-10, at 1 HP, the PC then acts first), and
        ``h -> (hps,)`` P(defeat) from each HP.
    chance : float
        The monster's chance of its area effect a turn while it has uses.
    first : float
        P(the PC acts before the monster), P-01.
    start : tuple of int
        The duel's start ``(hp, hero, slots, mhp, area)`` (grid indices; ``area`` 0 when
        the monster never uses its area effect).
    """

    shape: tuple[int, ...]
    pc_slot: np.ndarray
    pc_plain: np.ndarray
    strikes: tuple[dict, dict]
    area: tuple[dict, dict] | None
    chance: float
    first: float
    start: tuple[int, int, int, int, int]

    def initial(self, starts: dict | None = None) -> np.ndarray:
        """The grid at the start: the PC at ``start`` (or ``starts``: ``{(hp, hero, slots):
        p}``), the monster fresh, initiative by P-01."""
        X = np.zeros(self.shape)
        hp, hero, slots, mhp, area = self.start
        for (h, he, s), p in (starts or {(hp, hero, slots): 1.0}).items():
            X[1, area, s, he, h, mhp] += p * self.first
            X[0, area, s, he, h, mhp] += p * (1 - self.first)
        return X

    def run(self, X: np.ndarray, rounds: int, ends: bool = False):
        """Push ``X`` through up to ``rounds`` rounds (in place).

        Returns ``(victory, defeat, rest)``: P(victory) and P(defeat) at each round
        (shape ``(rounds + 1,)``, round 0 empty), the mass still fighting at the end; with
        ``ends`` also the victories' end states ``(slots, hero, hp)`` summed over the
        rounds (a day carries them on)."""
        won = np.zeros(rounds + 1)
        lost = np.zeros(rounds + 1)
        end = np.zeros(self.shape[2:5]) if ends else None
        for t in range(1, rounds + 1):
            if X.sum() <= NEGLIGIBLE:
                break
            Z = _occupied(X)  # (a view: area uses, slots, hero points only decrease)
            # the PC first: its turn, then the monster's
            y1, v1 = self._pc(Z[1])
            stay1, moved1, l1 = self._monster(y1)
            # the monster first: a revived PC skips its turn (R0-03)
            stay0, moved0, l0 = self._monster(Z[0])
            y0, v0 = self._pc(stay0)
            Z[1] = stay1 + moved1 + moved0
            Z[0] = y0
            won[t] = v1.sum() + v0.sum()
            lost[t] = l1 + l0
            if end is not None:
                s, h = v1.shape[1:3]
                end[:s, :h] += v1.sum(axis=0) + v0.sum(axis=0)
        return won, lost, float(X.sum()), end

    def _pc(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The PC's turn on ``X[area, slots, hero, hp, mhp]``: the grid after it (a slot
        spent) and the victories ``[area, slots, hero, hp]`` (the monster at 0 HP)."""
        Y = np.zeros_like(X)
        Y[:, 0] = X[:, 0] @ self.pc_plain
        if X.shape[1] > 1:  # a slot spent
            Y[:, :-1] += X[:, 1:] @ self.pc_slot
        won = Y[..., 0].copy()
        Y[..., 0] = 0.0
        return Y, won

    def _monster(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """The monster's turn on ``X[area, slots, hero, hp, mhp]``: ``(stay, moved,
        defeat)``, the PC's hero points unchanged or spent on a revival (R0-10)."""
        stay = np.zeros_like(X)
        moved = np.zeros_like(X)
        if self.area is None or self.chance <= 0 or X.shape[0] == 1:
            lost = _turn(self.strikes, X, stay, moved, 1.0)
            return stay, moved, lost
        lost = _turn(self.strikes, X[:1], stay[:1], moved[:1], 1.0)
        lost += _turn(self.strikes, X[1:], stay[1:], moved[1:], 1 - self.chance)
        lost += _turn(self.area, X[1:], stay[:-1], moved[:-1], self.chance)
        return stay, moved, lost


def _occupied(X: np.ndarray) -> np.ndarray:
    """The view of ``X`` up to the last area use, slot and hero point count with mass (a
    wizard's slots are spent in two rounds: the rest of the fight is a third as large)."""
    held = np.any(X.reshape(X.shape[:4] + (-1,)), axis=(0, 4))  # (areas, slots, heroes)
    if not held.any():
        return X
    last = [
        np.flatnonzero(np.any(held, axis=(1, 2))),
        np.flatnonzero(np.any(held, axis=(0, 2))),
        np.flatnonzero(np.any(held, axis=(0, 1))),
    ]
    cut = [int(i[-1]) + 1 for i in last]
    return X[:, : cut[0], : cut[1], : cut[2]]


def _turn(turn: tuple[dict, dict], X, stay, moved, w: float) -> float:
    """Add ``w`` times the monster turn ``turn`` of ``X[..., hero, hp, mhp]`` to ``stay``
    and ``moved``; return the mass defeated."""
    blocks, lost = turn
    out = 0.0
    for h in range(X.shape[-3]):
        x = X[..., h, :, :]
        if not x.any():
            continue
        if w != 1.0:
            x = x * w
        for h2 in range(h + 1):
            block = blocks.get((h, h2))
            if block is None:
                continue
            cols, BT = block
            target = stay if h2 == h else moved
            target[..., h2, cols, :] += np.matmul(BT, x)
        out += float(x.sum(axis=-1).sum(axis=tuple(range(x.ndim - 2))) @ lost[h])
    return out


# -- building the matrices --------------------------------------------------------------------
def _pc_matrix(pmfs, n: int) -> np.ndarray:
    """The PC's turn on the monster's HP ``0..n-1``: the strikes' pmfs one after the
    other, 0 HP kept (the monster is down)."""
    T = np.eye(n)
    h = np.arange(1, n)
    for outcomes in pmfs:
        S = np.zeros((n, n))
        S[0, 0] = 1.0
        for d, _c, q in outcomes:
            np.add.at(S, (h, np.maximum(h - d, 0)), q)
        T = T @ S
    return T


def _strike(r, outcomes, n: int, hp_start: int, held: bool):
    """One hit of the monster on the PC at HP ``0..n-1`` (with PE: HP + PE), hero points
    held or not: ``(A, revive, lost)``: ``A (n, n)`` HP before -> after, P(revived at 1
    HP, R0-10) and P(defeat) from each HP (:func:`party_duel._turns`'s ``hit``)."""
    hp_max = r.fighters.pcs[0].hp
    A = np.zeros((n, n))
    revive = np.zeros(n)
    lost = np.zeros(n)
    hp = np.arange(1, n)
    threshold = r.threshold if held else None
    lethal = r.trait == "lethal"
    # a hero point revives (R0-10) on the rules set's own track, not on a custom one
    revives = r.dying_options.get("hero_effect") == "revive" and r.dying is None
    for d, crit, q in outcomes:
        if d <= 0:
            A[hp, hp] += q
            continue
        if massive_damage.is_massive(d, hp_max):  # R0-13
            lost[hp] += q
            continue
        if r.pe_on:  # A1-5: the PE first
            h = np.minimum(hp, hp_start)
            pe, left, excess = (np.asarray(x) for x in split_damage(d, hp - h, h, r.pe_damage))
            new = h - (h - left + excess) + pe
            down = h - (h - left + excess) <= 0
        else:
            new = hp - d
            down = new <= 0
        up = ~down
        np.add.at(A, (hp[up], new[up]), q)
        if not down.any():
            continue
        res = hero_points.rise(
            0,
            1 + int(crit),
            threshold=threshold,
            death_at=r.death_at,
            knockout=True,
            hero_knockout=r.hero_knockout,
        )
        if lethal and res == hero_points.HERO and revives:
            revive[hp[down]] += q
        else:
            lost[hp[down]] += q
    return A, revive, lost


def _monster_turn(r, pmfs, n: int, heroes: int, hp_start: int):
    """The monster's turn (``pmfs``: its strikes or its area effect) as blocks ``(h, h2)``
    and P(defeat) per HP, from each count of hero points ``h``."""
    hits = {held: [_strike(r, o, n, hp_start, held) for o in pmfs] for held in (False, True)}
    blocks: dict = {}
    lost: dict = {}
    for h in range(heroes):
        cur = {h: np.eye(n)}
        out = np.zeros(n)
        for k in range(len(pmfs)):
            new: dict = {}
            for h2, M in cur.items():
                A, rev, lo = hits[h2 > 0][k]
                new[h2] = new.get(h2, 0) + M @ A
                out += M @ lo
                if h2 > 0 and rev.any():
                    col = np.zeros((n, n))
                    col[:, 1] = M @ rev
                    new[h2 - 1] = new.get(h2 - 1, 0) + col
            cur = new
        for h2, M in cur.items():  # (a revival's block reaches 1 HP, few columns)
            used = np.flatnonzero(M.any(axis=0))
            if used.size:
                cols = slice(int(used[0]), int(used[-1]) + 1)
                blocks[(h, h2)] = (cols, np.ascontiguousarray(M[:, cols].T))
        lost[h] = out
    return blocks, lost


def duel_grid(r, starts=()) -> DuelGrid:
    """The grid of duel ``r`` (:func:`party_duel.duel_supported`); ``starts``: the PC's
    ``(hp, hero, slots)`` it must hold besides the start (a day's carried states; the grid
    is as large as the largest of each, and at least the PC's own).
    Refused (:class:`~simkit.core.exact.ExactTooLarge`, the count and the limit) past
    :data:`party_duel.DUEL_MAX_STATES` cells."""
    from simkit.models.party_duel import DUEL_MAX_STATES, duel_states

    count = duel_states(r)
    if count > DUEL_MAX_STATES:
        raise ExactTooLarge(
            f"the exact duel has up to {count} states (more than {DUEL_MAX_STATES}); "
            "use Monte Carlo (simkit run party ...)"
        )
    pc = r.fighters.pcs[0]
    most = (pc.hp, r.hero_points, pc.slots)
    return _grid(r, tuple(max([m] + [s[i] for s in starts]) for i, m in enumerate(most)))


@lru_cache(maxsize=16)
def _grid(r, most: tuple[int, int, int]) -> DuelGrid:
    """The grid of ``r`` holding a PC of up to ``most`` (HP, hero points, slots)."""
    from simkit.models.party_duel import start_hp

    pc, mo = r.fighters.pcs[0], r.fighters.monsters[0]
    hp_start = start_hp(r)
    hp = hp_start + (pc.pe_max if r.pe_on else 0)
    n_hp = max(hp, most[0], 1) + 1
    heroes = most[1] + 1
    slots = most[2] + 1
    chance = r.area_chance_of[0] if r.area_on else 0.0
    areas = r.area_uses_of[0] + 1 if chance > 0 else 1
    pen = r.check_penalty  # P-10
    pc_strikes = [  # P-02, P-03
        strike_pmf(pc.attack + pen - map_penalty(pc_map(pc.agile), a), mo.ac, pc.damage)
        for a in range(2)
    ]
    if pc.area:
        spell = basic_save_pmf(mo.reflex, pc.spell_dc, pc.area)
        cantrip = basic_save_pmf(mo.reflex, pc.spell_dc, pc.cantrip) if pc.cantrip else ()
        with_slot, plain = [spell], [cantrip]
    else:
        with_slot = plain = pc_strikes
    n_m = mo.hp + 1
    mo_strikes = [
        strike_pmf(mo.attack - map_penalty(r.map, a), pc.ac, mo.damage) for a in range(r.attacks)
    ]
    area = None
    if chance > 0:
        area = _monster_turn(
            r, [basic_save_pmf(pc.reflex + pen, mo.spell_dc, mo.area)], n_hp, heroes, hp_start
        )
    first = float(initiative.pc_first_p(pc.perception, mo.perception, pen))  # P-01
    return DuelGrid(
        shape=(2, areas, slots, heroes, n_hp, n_m),
        pc_slot=_pc_matrix(with_slot, n_m),
        pc_plain=_pc_matrix(plain, n_m),
        strikes=_monster_turn(r, mo_strikes, n_hp, heroes, hp_start),
        area=area,
        chance=chance,
        first=first,
        start=(hp, r.hero_points, pc.slots, mo.hp, areas - 1),
    )


def duel_hist(r) -> np.ndarray:
    """Exact P(the duel ends in each outcome at each round): shape (outcomes, max_rounds
    + 1), rows in ``r.outcomes`` order (``victory`` and ``defeat``; the rest 0; the mass
    still fighting at ``max_rounds`` is ``unresolved``)."""
    from simkit.models.party_duel import duel_supported

    if not duel_supported(r):
        raise NotImplementedError(
            "party: exact only for duels (one non-cleric PC, one monster, not hp=0)"
        )
    g = duel_grid(r)
    won, lost, _rest, _ = g.run(g.initial(), r.max_rounds)
    outcomes = list(r.outcomes)
    hist = np.zeros((len(outcomes), r.max_rounds + 1))
    hist[outcomes.index("victory")] = won
    hist[outcomes.index("defeat")] = lost
    return hist
