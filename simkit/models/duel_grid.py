"""Exact duels, fast: the PC's side and the monster's side pushed apart, joined each round.

The exact duel of :mod:`simkit.models.party_duel` (one PC, one monster, no healer) is a
chain over ``(pc_hp, hero, slots, mhp, area, pc_first)``: at level 20 up to 18 million
states. But its two halves never look at each other: the PC's turn moves only the
monster's HP and depends only on the PC's spell slots (which it spends one a turn), and
the monster's turn moves only the PC's side (HP, hero points, the monster's area uses)
and depends on nothing of the monster's HP. Given how many turns the PC has taken, the
monster's HP is independent of the PC's side. So the solver keeps

- **the monster's side** as one number sequence per slot count at the start:
  ``alive[k]``, P(the monster still stands after the PC's ``k`` turns), and ``killed[k]``,
  P(it falls on turn ``k``) (its HP pushed through the PC's turns, an ``(mhp + 1)``-square
  matrix a turn);
- **the PC's side** as a small dense array (float64)

  ``Y[first, slots0, skips, area, hero, con, v]``: ``first`` 1 when the PC acts first;
  ``slots0`` its spell slots at the start (a day's fights start from many);
  ``skips`` the turns it skipped (a hero point's revival while the monster acts first,
  R0-03: the PC moves before the monster and skips its turn), so that in round ``t`` it
  has had ``t - 1 - skips`` turns; ``area`` the monster's area uses left; ``hero`` its
  hero points; ``con`` its mark: its Constitution damage (R1-12, seed 001's
  ``con_damage``) or, under the wounded rule (A0-2), its wounded value (AP-38); ``v``
  its HP, plus its stamina points under seed 001 with ``pe_damage=pe_first`` (A1-5) and
  its temporary HP (R0-14), which damage takes in the order temporary HP, PE, HP;

and the duel's mass in a state is ``Y`` times the monster's ``alive``. A round: the PC's
turn multiplies by the monster's side (its victories: ``Y x killed``), the monster's turn
is a few ``(v, v)`` matrices applied along ``v`` (one per strike, one for the area
effect, one for a dying effect, AP-35), its defeats ``lost x alive``. A round costs about
``cells(Y) x v`` flops: a level-20 duel takes milliseconds. The rounds stop at
``max_rounds`` or once less than 1e-18 of the mass is still fighting (below float64's
rounding of the answers), as before. The matrices come from the same pmfs and rules as the
state-by-state chain (:func:`party_duel.duel_step`, the reference the tests hold this to),
and the answers of the former grid solver (the whole chain pushed on a grid) are pinned to
1e-12.

Rules: P-01 (initiative), P-02..P-04 (strikes, the multiple attack penalty, basic saves),
P-10 (the check penalty), R0-03 (a revived PC acts before the monster), R0-10 (a hero
point's revival), R0-13 (massive damage: the hit's whole damage), R0-14 (temporary HP
first, AP-23), A1-5 (stamina points next, seed 001), R1-12 (Constitution damage lowers the
PE's maximum, AP-24), P-14 and P-16 (Diehard, a hero point's reroll: which knock-outs a
hero point undoes, AP-26), R0-12 with A0-9 and A0-2 (a monster's dying effect, AP-35,
AP-38).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simkit.rules import initiative, massive_damage
from simkit.rules.rest import split_damage
from simkit.rules.strike import basic_save_pmf, map_penalty, pc_map, strike_pmf

__all__ = ["DuelGrid", "duel_grid", "duel_hist"]

#: A duel's rounds stop once less mass than this is still fighting.
NEGLIGIBLE = 1e-18


@dataclass(frozen=True)
class Hit:
    """One monster strike (or its area effect) on the PC's side.

    Attributes
    ----------
    miss : float
        P(no damage): nothing changes.
    hurt : ndarray, shape (cons, n, n)
        From each Constitution damage and ``v`` (row) to ``v`` after a hit the PC stands
        (column), the Constitution damage then ``up[con]``.
    revive, lost : ndarray, shape (2, cons, n)
        ``[held]``: P(knocked out and back at 1 HP by a hero point, R0-10) and P(defeat:
        massive damage, R0-13, or a knock-out no point undoes), without (0) and with (1)
        hero points.
    up : ndarray of int, shape (cons,)
        The Constitution damage after a hit that hurt (R1-12; the same without it).
    """

    miss: float
    hurt: np.ndarray
    revive: np.ndarray
    lost: np.ndarray
    up: np.ndarray

    def apply(self, X: np.ndarray, stay, moved) -> np.ndarray:
        """Add the hit on ``X[..., hero, con, v]`` to ``stay`` (hero points kept) and
        ``moved`` (a point spent on a revival); return P(defeat) ``[...]``."""
        if self.miss:
            stay += self.miss * X
        lead = X.shape[:-3]
        n = X.shape[-1]
        lost = np.zeros(lead)
        for h in range(X.shape[-3]):
            held = int(h > 0)
            for c in range(X.shape[-2]):
                x = X[..., h, c, :]
                rows = x.reshape(-1, n)
                held_v = np.flatnonzero(rows.any(axis=0))
                if not held_v.size:  # (most hero points and Constitution damages hold none)
                    continue
                up = self.up[c]
                lo, hi = int(held_v[0]), int(held_v[-1]) + 1  # (a hit never raises v)
                after = rows[:, lo:hi] @ self.hurt[c, lo:hi, :hi]
                stay[..., h, up, :hi] += after.reshape(lead + (hi,))
                lost += x @ self.lost[held, c]
                if held and self.revive[1, c].any():
                    moved[..., h - 1, up, 1] += x @ self.revive[1, c]
        return lost


@dataclass(frozen=True)
class DuelGrid:
    """A duel's two sides: the PC's turns on the monster's HP, the monster's on the PC's.

    Attributes
    ----------
    shape : tuple of int
        ``(slots, skips, areas, heroes, cons, n)`` of the PC's side (the module docstring),
        ``first`` apart.
    pc_slot, pc_plain : ndarray, shape (mhps, mhps)
        The PC's turn on the monster's HP with a slot left (its area spell) and without
        (cantrip or strikes): row = HP before, column = after (0: the monster is down).
    mhp : int
        The monster's HP at the start.
    strikes : tuple of Hit
        The monster's strikes, in order (P-02, P-03).
    area : Hit or None
        Its area effect (P-04, AP-10), None when it never uses one.
    chance : float
        The monster's chance of its area effect a turn while it has uses.
    effect : Hit or None
        Its dying effect (AP-35, AP-38), None when it has none.
    effect_p : float
        Its chance a turn, when it does not use its area effect.
    first : float
        P(the PC acts before the monster), P-01.
    start : tuple of int
        The duel's start ``(v, hero, slots, area)`` (grid indices).
    hp0 : int
        The PC's HP at the start (the part of ``v`` that is HP: ``min(v, hp0)``).
    """

    shape: tuple[int, ...]
    pc_slot: np.ndarray
    pc_plain: np.ndarray
    mhp: int
    strikes: tuple[Hit, ...]
    area: Hit | None
    chance: float
    effect: Hit | None
    effect_p: float
    first: float
    start: tuple[int, int, int, int]
    hp0: int

    def initial(self, starts: dict | None = None, mark: int = 0) -> np.ndarray:
        """The PC's side at the start: ``start`` (or ``starts``: ``{(hp, hero, slots):
        p}``), no turn skipped, its mark ``mark`` (no Constitution damage; a day's carried
        wounded value, AP-38), initiative by P-01; shape ``(2,) + shape``."""
        X = np.zeros((2,) + self.shape)
        v, hero, slots, area = self.start
        for (h, he, s), p in (starts or {(v, hero, slots): 1.0}).items():
            X[1, s, 0, area, he, mark, h] += p * self.first
            X[0, s, 0, area, he, mark, h] += p * (1 - self.first)
        return X

    def monster_side(self, turns: int) -> tuple[np.ndarray, np.ndarray]:
        """``(alive, killed)``, shape ``(slots, turns + 2)``: P(the monster stands after
        the PC's ``k`` turns) and P(it falls on turn ``k``), from each slot count."""
        side = _MonsterSide(self, turns)
        side.upto(turns + 1)
        return side.alive, side.killed

    def run(self, X: np.ndarray, rounds: int, ends: bool = False, marks: bool = False):
        """Push the PC's side ``X`` (from :meth:`initial`) through up to ``rounds``
        rounds.

        Returns ``(victory, defeat, rest, end)``: P(victory) and P(defeat) at each round
        (shape ``(rounds + 1,)``, round 0 empty), the mass still fighting at the end, and
        with ``ends`` the victories' end states ``[slots, hero, hp]`` summed over the
        rounds (a day carries them on; else None); with ``marks`` too, ``[slots, hero,
        mark, hp]`` (the wounded value a dying effect leaves, AP-38)."""
        slots, skips = self.shape[:2]
        side = _MonsterSide(self, rounds)  # (pushed as far as the rounds go, no further)
        alive, killed = side.alive, side.killed
        won = np.zeros(rounds + 1)
        lost = np.zeros(rounds + 1)
        end = np.zeros((slots,) + self.shape[3:]) if ends else None
        s0 = np.arange(slots)[:, None]

        def turns(t: int) -> np.ndarray:
            """The PC's turns before round ``t``, per (slots0, skips) (clipped at 0: a
            cell with more skips than rounds holds no mass)."""
            return np.maximum(t - 1 - np.arange(skips), 0)[None, :].repeat(slots, 0)

        rest = 1.0
        for t in range(1, rounds + 1):
            side.upto(t)
            k = turns(t)
            rest = _joined(X, alive[s0, k])
            if rest <= NEGLIGIBLE:
                break
            # the PC first: its turn (the monster's side), then the monster's
            win1 = X[1] * killed[s0, k + 1][..., None, None, None, None]
            stay1, moved1, l1 = self._monster(X[1])
            lost[t] += float((l1 * alive[s0, k + 1]).sum())
            # the monster first: a PC revived in its turn skips its own (R0-03)
            stay0, moved0, l0 = self._monster(X[0])
            lost[t] += float((l0 * alive[s0, k]).sum())
            win0 = stay0 * killed[s0, k + 1][..., None, None, None, None]
            won[t] = win1.sum() + win0.sum()
            if end is not None:
                self._ends(end, win1 + win0, k + 1)
            X = np.stack([stay0, stay1 + moved1])
            X[1, :, 1:] += moved0[:, :-1]  # (one more skip)
        else:
            side.upto(rounds)
            rest = _joined(X, alive[s0, turns(rounds + 1)])
        if end is not None and not marks:
            end = end.sum(axis=2)
        return won, lost, rest, end

    def _ends(self, end: np.ndarray, win: np.ndarray, k: np.ndarray) -> None:
        """Add the victories ``win[slots0, skips, area, hero, con, v]`` after the PC's
        ``k[slots0, skips]``-th turn to ``end[slots, hero, mark, hp]`` (its HP: the part of
        ``v`` that is HP, temporary HP are not handed on)."""
        per = win.sum(axis=2)  # (slots0, skips, hero, mark, v)
        hp = np.minimum(np.arange(per.shape[-1]), self.hp0)
        for s in range(per.shape[0]):
            for j in range(per.shape[1]):
                left = max(s - int(k[s, j]), 0)
                for h in range(per.shape[2]):
                    for m in range(per.shape[3]):
                        np.add.at(end[left, h, m], hp, per[s, j, h, m])

    def _monster(self, X: np.ndarray):
        """The monster's turn on ``X[slots0, skips, area, hero, con, v]``: ``(stay, moved,
        defeat[slots0, skips])``, the PC's hero points kept or spent on a revival."""
        stay = np.zeros_like(X)
        moved = np.zeros_like(X)
        if self.area is None or self.chance <= 0 or X.shape[2] == 1:
            lost = self._plain(X, stay, moved, 1.0)
        else:
            c = self.chance
            lost = self._plain(X[:, :, :1], stay[:, :, :1], moved[:, :, :1], 1.0)
            lost += self._plain(X[:, :, 1:], stay[:, :, 1:], moved[:, :, 1:], 1 - c)
            lost += _strikes((self.area,), X[:, :, 1:], stay[:, :, :-1], moved[:, :, :-1], c)
        return stay, moved, lost

    def _plain(self, X, stay, moved, w: float) -> np.ndarray:
        """``w`` times the monster's turn without its area effect: its dying effect with
        its chance (AP-35), else its strikes."""
        if self.effect is None:
            return _strikes(self.strikes, X, stay, moved, w)
        p = self.effect_p
        lost = _strikes(self.strikes, X, stay, moved, w * (1 - p))
        return lost + _strikes((self.effect,), X, stay, moved, w * p)


class _MonsterSide:
    """The monster's HP pushed through the PC's turns on demand, from each slot count at
    the start: ``alive[slots0, k]``, ``killed[slots0, k]`` (:meth:`DuelGrid.monster_side`)
    filled up to :meth:`upto`'s ``k`` (a duel over by round 30 of ``max_rounds=100000``
    pushes 30 turns)."""

    def __init__(self, grid: DuelGrid, turns: int):
        slots = grid.shape[0]
        self.grid = grid
        self.alive = np.zeros((slots, turns + 2))
        self.killed = np.zeros((slots, turns + 2))
        self.alive[:, 0] = 1.0
        self.m = np.zeros((slots, grid.pc_plain.shape[0]))  # the monster's HP, per slots0
        self.m[:, grid.mhp] = 1.0
        self.done = 0

    def upto(self, k: int) -> None:
        """Fill ``alive`` and ``killed`` up to turn ``k``."""
        g = self.grid
        for j in range(self.done + 1, k + 1):
            for s0 in range(len(self.m)):
                self.m[s0] = self.m[s0] @ (g.pc_slot if s0 - (j - 1) > 0 else g.pc_plain)
            self.killed[:, j] = self.m[:, 0]
            self.m[:, 0] = 0.0
            self.alive[:, j] = self.m.sum(axis=1)
        self.done = max(self.done, k)


def _joined(X: np.ndarray, alive: np.ndarray) -> float:
    """The duel's mass still fighting: the PC's side ``X[first, slots0, skips, ...]`` times
    the monster's ``alive[slots0, skips]``."""
    return float((X.sum(axis=(0, 3, 4, 5, 6)) * alive).sum())


def _strikes(hits, X, stay, moved, w: float) -> np.ndarray:
    """Add ``w`` times the hits ``hits`` one after the other on ``X`` to ``stay`` and
    ``moved`` (a PC revived stays revived: its later hits go to ``moved``); return the
    mass defeated ``[slots0, skips]``."""
    if w != 1.0:
        X = X * w
    cur_s, cur_m = X, np.zeros_like(X)
    lost = np.zeros(X.shape[:3])
    for hit in hits:
        new_s, new_m = np.zeros_like(X), np.zeros_like(X)
        lost += hit.apply(cur_s, new_s, new_m)
        if cur_m.any():
            lost += hit.apply(cur_m, new_m, new_m)
        cur_s, cur_m = new_s, new_m
    stay += cur_s
    moved += cur_m
    return lost.sum(axis=2)


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


@dataclass(frozen=True)
class _Pool:
    """How ``v`` splits into HP, PE and temporary HP (R0-14, A1-5, R1-12): ``hp0`` HP at
    the start, ``pe`` the stamina points' maximum after each Constitution damage (zeros
    without PE), ``con`` the damage a hurting strike adds (0: none)."""

    hp0: int
    pe: np.ndarray
    con: int

    def up(self) -> np.ndarray:
        """The Constitution damage after a hurting strike, from each (capped at the last
        value that changes the PE, :func:`party_duel.pe_caps`)."""
        cons = len(self.pe)
        return np.minimum(np.arange(cons) + self.con, cons - 1)

    def hit(self, v: np.ndarray, c: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
        """``d`` damage to the PC at ``v`` with Constitution damage ``c`` (arrays that
        broadcast): ``(v after, knocked out)``; after a hurting strike the PE are held to
        the new maximum."""
        hp = np.minimum(v, self.hp0)
        pe = np.minimum(v - hp, self.pe[c])
        temp = v - hp - pe
        soak = np.minimum(temp, d)  # R0-14: temporary HP first
        temp, rest = temp - soak, d - soak
        pe_after, hp_after, _ = split_damage(rest, pe, hp, "pe_first")  # A1-5: then PE
        down = hp_after <= 0
        if d > 0:
            pe_after = np.minimum(pe_after, self.pe[self.up()[c]])  # R1-12
        return hp_after + pe_after + temp, down


def _hit(r, outcomes, n: int, pool: _Pool, ko: dict, plain: bool) -> Hit:
    """One strike of the monster (or its area effect, ``plain``: no Constitution damage)
    on the PC's side of ``n`` values of ``v`` (:class:`Hit`); ``ko[(held, crit)]``: whether
    a hero point revives a knock-out (R0-10)."""
    hp_max = r.fighters.pcs[0].hp
    cons = len(pool.pe)
    v = np.arange(1, n)[None, :]  # (1, n - 1): every v but 0
    c = np.arange(cons)[:, None]  # (cons, 1): every Constitution damage
    cc, vv = np.broadcast_arrays(c, v)
    miss = 0.0
    hurt = np.zeros((cons, n, n))
    cells: list = []  # (flat indices into hurt, p) of each damage
    revive = np.zeros((2, cons, n))
    lost = np.zeros((2, cons, n))
    up = pool.up() if not plain else np.arange(cons)
    if plain:  # (the area effect deals no Constitution damage)
        pool = _Pool(pool.hp0, pool.pe, 0)
    # a hero point undoes the knock-out: [held, crit, mark] (R0-10; the wounded value, A0-2)
    ko_at = np.array([[[ko[(h, c_, m)] for m in range(cons)] for c_ in (0, 1)] for h in (0, 1)])
    for d, crit, q in outcomes:
        if d <= 0:
            miss += q
            continue
        if massive_damage.is_massive(d, hp_max):  # R0-13: the hit's whole damage
            lost[:, :, 1:] += q
            continue
        after, down = pool.hit(v, c, d)  # (cons, n - 1): every damage and v at once
        up_ = ~down
        cells.append(((cc[up_] * n + vv[up_]) * n + after[up_], q))
        cd, vd = cc[down], vv[down]
        for held in (0, 1):
            back = ko_at[held, int(crit), cd]
            revive[held, cd[back], vd[back]] += q
            lost[held, cd[~back], vd[~back]] += q
    if cells:  # (one pass over every hit that leaves the PC standing)
        at = np.concatenate([i for i, _ in cells])
        w = np.concatenate([np.full(len(i), q) for i, q in cells])
        hurt[...] = np.bincount(at, weights=w, minlength=cons * n * n).reshape(cons, n, n)
    return Hit(miss=miss, hurt=hurt, revive=revive, lost=lost, up=up)


def _revives(r, marks: int) -> dict:
    """``{(held, crit, mark): bool}``: whether a knock-out (dying 1, 2 on a critical, the
    wounded value ``mark`` added under the wounded rule when the grid's mark is the wounded
    value, A0-2) is undone by a hero point at once (:func:`party_duel.revives`)."""
    from simkit.models.party_duel import revives, wounds

    wounded = wounds(r) > 1
    return {
        (h, c, m): revives(r, bool(h), bool(c), m if wounded else 0)
        for h in (0, 1)
        for c in (0, 1)
        for m in range(marks)
    }


def _effect(r, n: int, marks: int, ko: dict) -> Hit | None:
    """The monster's dying effect (AP-35, R0-12, AP-38) on the PC's side as a :class:`Hit`:
    a Fortitude save, dying 1 (2 on a critical failure) read by A0-9: ``keep_hp`` the PC's
    ``v`` kept and its wounded value (the mark) raised, dead at its death value
    (:func:`party_duel.effect_kept`); ``drop`` a knock-out (R0-03, a hero point's revival
    by ``ko``); None without one."""
    from simkit.models.party_duel import effect_kept, effect_saves

    if not getattr(r, "dying_effect", 0):
        return None
    nothing, fails = effect_saves(r)
    hurt = np.zeros((marks, n, n))
    revive = np.zeros((2, marks, n))
    lost = np.zeros((2, marks, n))
    up = np.arange(marks)
    for crit, q in fails:
        for m in range(marks):
            if r.dying_above_0 == "drop":
                for held in (0, 1):
                    (revive if ko[(held, int(crit), m)] else lost)[held, m, 1:] += q
                continue
            kept = effect_kept(r, m, crit)
            if kept is None:
                lost[:, m, 1:] += q
            else:  # (every wounded value reached from ``m`` is the same: ``up[m]``)
                up[m] = kept
                hurt[m, np.arange(1, n), np.arange(1, n)] += q
    return Hit(miss=nothing, hurt=hurt, revive=revive, lost=lost, up=up)


def duel_grid(r, starts=()) -> DuelGrid:
    """The grid of duel ``r`` (:func:`party_duel.duel_supported`); ``starts``: the PC's
    ``(hp, hero, slots)`` it must hold besides the start (a day's carried states; the grid
    is as large as the largest of each, and at least the PC's own).
    Refused (:class:`~simkit.core.exact.ExactTooLarge`, the chain's states and the grid's
    cells) past :data:`party_duel.DUEL_MAX_CELLS` cells."""
    from simkit.models.party_duel import check_size

    check_size(r)
    pc = r.fighters.pcs[0]
    most = (pc.hp, r.hero_points, pc.slots)
    return _grid(r, tuple(max([m] + [s[i] for s in starts]) for i, m in enumerate(most)))


@lru_cache(maxsize=16)
def _grid(r, most: tuple[int, int, int]) -> DuelGrid:
    """The grid of ``r`` holding a PC of up to ``most`` (HP, hero points, slots)."""
    from simkit.models.party_duel import duel_start_v, pe_caps, start_hp

    pc, mo = r.fighters.pcs[0], r.fighters.monsters[0]
    v0 = duel_start_v(r)
    n = max(v0, most[0], 1) + 1
    from simkit.models.party_duel import wounds

    caps = pe_caps(r)
    marks = len(caps) * wounds(r)  # (Constitution damage, seed 001, or wounded, A0-2)
    ko = _revives(r, marks)
    revives = any(ko.values())
    heroes = most[1] + 1
    skips = heroes if revives else 1  # (turns skipped: one a revival)
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
    pe = caps if marks == len(caps) else np.zeros(marks, dtype=np.int64)  # (wounded: no PE)
    pool = _Pool(start_hp(r), pe, int(r.seed_rules["con_damage"]) if r.pe_on else 0)
    mo_strikes = tuple(
        _hit(r, strike_pmf(mo.attack - map_penalty(r.map, a), pc.ac, mo.damage), n, pool, ko, False)
        for a in range(r.attacks)
    )
    area = None
    if chance > 0:
        pmf = basic_save_pmf(pc.reflex + pen, mo.spell_dc, mo.area)
        area = _hit(r, pmf, n, pool, ko, True)
    first = float(initiative.pc_first_p(pc.perception, mo.perception, pen))  # P-01
    return DuelGrid(
        shape=(slots, skips, areas, heroes, len(pool.pe), n),
        pc_slot=_pc_matrix(with_slot, n_m),
        pc_plain=_pc_matrix(plain, n_m),
        mhp=mo.hp,
        strikes=mo_strikes,
        area=area,
        chance=chance,
        effect=_effect(r, n, marks, ko),
        effect_p=float(getattr(r, "dying_effect", 0.0)),
        first=first,
        start=(v0, r.hero_points, pc.slots, areas - 1),
        hp0=start_hp(r),
    )


def duel_hist(r) -> np.ndarray:
    """Exact P(the duel ends in each outcome at each round): shape (outcomes, max_rounds
    + 1), rows in ``r.outcomes`` order (``victory`` and ``defeat``; the rest 0; the mass
    still fighting at ``max_rounds`` is ``unresolved``)."""
    from simkit.models.party_duel import duel_supported, grants

    if not duel_supported(r):
        raise NotImplementedError(
            "party: exact only for duels (one non-cleric PC, one monster, not hp=0)"
        )
    if grants(r):
        raise NotImplementedError(
            "party: a grant of temporary HP (AP-37) acts on the PC's own side; the grid keeps "
            "the sides apart (AP-30): Party.exact_hist solves it state by state"
        )
    g = duel_grid(r)
    won, lost, _rest, _ = g.run(g.initial(), r.max_rounds)
    outcomes = list(r.outcomes)
    hist = np.zeros((len(outcomes), r.max_rounds + 1))
    hist[outcomes.index("victory")] = won
    hist[outcomes.index("defeat")] = lost
    return hist
