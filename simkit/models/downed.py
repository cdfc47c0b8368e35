"""A PC at 0 HP: the dying, agonising, stable and hourly machinery of a fight, written once.

Since 0.4 no model uses :class:`Downed`: the vectorised kernels of ``party`` and
``encounter`` that it served were retired (the fights play the compiled loop's phases,
:mod:`simkit.fight.phases`); its tests keep it, and the exact day duel reads
:func:`turn_table`.

:class:`Downed` is the bookkeeping of a downed PC, shared by the fight models: ``party``
(position ``i * P + k`` of its ``(m, P)`` arrays: PC ``k`` of track ``i``) and
``encounter`` (position ``i`` of its ``(m,)`` arrays: its one PC, ``P = 1``). It is built
from a rules object's dying options and acts on **flat positions** of per-(track, PC)
arrays; each method returns the positions where a PC died, and the model draws its own
consequences (``party``: ``deaths``, ``dead_mask``, condition DEAD; ``encounter``: the
track's DEAD outcome). Every rule is a phase of :mod:`simkit.rules`: the recovery check
(:mod:`~simkit.rules.recovery_check`, R0-05..R0-07, A0-4), damage while dying
(:mod:`~simkit.rules.dying_damage`, R0-03, R0-09, A0-1, A0-2, A0-6), hero points
(:mod:`~simkit.rules.hero_points`, R0-10, A0-3, A0-7), perseverance
(:mod:`~simkit.rules.perseverance`, R1-01, R1-04, R1-05, A1-1, A1-3) and the hourly
checks (:mod:`~simkit.rules.hourly`, R1-06..R1-08, R1-11, A1-2, A1-6).

The state ``S`` is a mapping of arrays by name (a model's state: ``S[name]`` is an array
whose flat view holds one entry per position; ``name in S`` tells whether the model
keeps the field). The fields read and written:

- ``hp`` (HP), ``cond`` (:data:`UP`, :data:`DYING` (also agonising), :data:`STABLE`;
  a model may add its own codes above these, e.g. party's DEAD);
- seed 000 / pf2e-core: ``dying``; ``wounded`` (with the wounded rule); ``dcs`` (the
  recovery DC, when the model keeps one per position); the hero points: ``hero`` (points
  held per position, ``hero_held=True``) or ``hero_spent`` (spent per track, held =
  ``hero_points - hero_spent``);
- seed 001: ``pp`` (perseverance points), ``turns`` (agonising turns taken);
- ``nl`` (knocked out by a nonlethal effect, R1-11), when the model keeps it;
- ``hero_spent``: hero points spent, per track (position ``f // P``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simkit.rules import hero_points as hp_rule
from simkit.rules import hourly
from simkit.rules.dying_damage import hit_phase, knockout_phase, wounded_after_losing
from simkit.rules.perseverance import wants_to_spend_phase
from simkit.rules.recovery_check import recovery_delta, recovery_phase

__all__ = ["DYING", "STABLE", "UP", "Downed", "turn_table"]

UP, DYING, STABLE = 0, 1, 2  # the ``cond`` codes the component reads and writes

_EMPTY = np.zeros(0, dtype=np.intp)


@lru_cache(maxsize=256)
def turn_table(
    check: str, margin: int, death_at: int, threshold: int | None, hero_knockout: str
) -> np.ndarray:
    """A dying PC's turn with one recovery DC: ``[held * 20 * death_at + dying * 20 + roll - 1]``.

    Built from the scalar references (:func:`simkit.rules.recovery_check.recovery_delta`,
    :func:`simkit.rules.hero_points.rise`); ``margin`` is the save's bonus minus the DC.
    Entry: the new dying value (>= 1, carry on), 0 stable, -1 a hero point, -2 dead (int16).
    """
    tab = np.zeros((2, death_at, 20), dtype=np.int16)
    codes = {hp_rule.STABLE: 0, hp_rule.HERO: -1, hp_rule.DEAD: -2}
    for held in (0, 1):
        for dying in range(1, death_at):
            for roll in range(1, 21):
                new = dying + recovery_delta(roll, dying, check=check, bonus=margin, dc=0)
                res = hp_rule.rise(
                    dying,
                    new,
                    threshold=threshold if held else None,
                    death_at=death_at,
                    hero_knockout=hero_knockout,
                )
                tab[held, dying, roll - 1] = new if res == hp_rule.CARRY_ON else codes[res]
    flat = tab.ravel()
    flat.setflags(write=False)
    return flat


def _flat(S, name: str) -> np.ndarray:
    """The flat view of field ``name`` (one entry per position)."""
    return S[name].reshape(-1)


@dataclass(frozen=True, slots=True)
class Downed:
    """How a fight treats its PCs at 0 HP (one per rules object; see the module docstring).

    Attributes
    ----------
    seed000 : bool
        Seed 000 / pf2e-core dying (else seed 001 agonising, R1-01).
    check, on_damage, wounded_rule, hero_effect, wounded_adds
        The seed-000 track's options (:mod:`simkit.rules.dying_systems`; A0-4, A0-1,
        A0-2, R0-10, A0-6).
    hero_points, threshold, death_at, hero_knockout
        Hero points at the start, the dying value that spends one (None: never;
        :func:`simkit.rules.hero_points.hero_threshold`), death (R0-04), A0-7.
    hero_held : bool
        The model keeps ``hero`` (points held per position) rather than only ``hero_spent``.
    trait : str
        ``none``, ``death`` (R0-12) or ``nonlethal`` (R0-02, R1-11).
    zero_pp, spend, cost, back_in_fight, enough_pp
        Seed 001: A1-1, the spending policy and the stabilisation cost of each PC (PP,
        R1-04), getting back up (R1-05, A1-3).
    checks, natural, level, con
        The hourly checks (R1-06..R1-08): hours with a check (A1-2), A1-6, the level
        (R1-07's HP) and each PC's Constitution modifier.
    """

    seed000: bool
    check: str
    on_damage: str
    wounded_rule: bool
    hero_effect: str
    wounded_adds: str
    hero_points: int
    threshold: int | None
    death_at: int
    hero_knockout: str
    hero_held: bool
    trait: str
    zero_pp: str
    spend: str | int
    cost: tuple[int, ...]  # (P,) PP each PC spends to stabilise (R1-04)
    back_in_fight: bool
    enough_pp: int
    checks: int
    natural: bool
    level: int
    con: tuple[int, ...]  # (P,) each PC's Constitution modifier

    @property
    def P(self) -> int:
        """PCs per track (positions ``i * P .. i * P + P - 1`` are track ``i``'s)."""
        return len(self.cost)

    @property
    def wounded_on(self) -> bool:
        """Whether losing dying adds 1 wounded (A0-2): seed 000 with the wounded rule."""
        return self.seed000 and self.wounded_rule

    def _track(self, f: np.ndarray) -> np.ndarray:
        return f if self.P == 1 else f // self.P

    def _held(self, S, f: np.ndarray):
        """Hero points held at positions ``f`` (an array, or 0 where the model keeps none)."""
        if self.hero_held:
            return _flat(S, "hero").take(f)
        if "hero_spent" in S:
            return self.hero_points - _flat(S, "hero_spent").take(f).astype(np.int16)
        return 0

    def _has_hero(self, S, f: np.ndarray):
        """Whether the PCs at ``f`` hold a hero point (bool array, or False)."""
        if self.hero_held:
            return _flat(S, "hero").take(f) > 0
        if "hero_spent" in S:
            return _flat(S, "hero_spent").take(f) < self.hero_points
        return False

    # -- seed 000 / pf2e-core -----------------------------------------------------------------
    def recovery_turn(self, S, f: np.ndarray, roll0: np.ndarray, bonus, dc) -> np.ndarray:
        """The dying PCs at ``f`` make their recovery check (R0-05..R0-08, A0-4; then R0-10,
        R0-04): ``roll0`` the d20 draws (face - 1), ``bonus`` the Fortitude (with the check
        penalty), ``dc`` the recovery DC (numbers, or one per position). One number each:
        the whole turn is one lookup (:func:`turn_table`). Returns the positions that died."""
        if not len(f):
            return _EMPTY
        old = _flat(S, "dying").take(f)
        if np.ndim(bonus) or np.ndim(dc):
            new = recovery_phase(roll0 + 1, old, check=self.check, bonus=bonus, dc=dc)
            return self.rise(S, f, old, new)
        idx = old.astype(np.intp) * 20 + roll0
        if self.threshold is not None:
            idx += self._has_hero(S, f) * (20 * self.death_at)
        res = turn_table(
            self.check, int(bonus) - int(dc), self.death_at, self.threshold, self.hero_knockout
        ).take(idx)
        _flat(S, "dying")[f] = np.maximum(res, 0)
        odd = np.flatnonzero(res <= 0)
        if not len(odd):
            return _EMPTY
        g, r = f.take(odd), res.take(odd)
        self.stabilize(S, g[r == 0])
        self._hero(S, g[r == -1])
        dead = g[r == -2]
        _flat(S, "dying")[dead] = self.death_at
        return dead

    def rise(self, S, f: np.ndarray, old, new, knockout=False) -> np.ndarray:
        """Dying at ``f`` goes from ``old`` to ``new`` (R0-04, R0-08, R0-10; A0-7): stable,
        a hero point, dead or dying ``new``. Returns the positions that died (left dying at
        ``death_at``)."""
        if not len(f):
            return _EMPTY
        res = hp_rule.rise_phase(
            old,
            new,
            self._has_hero(S, f),
            threshold=self.threshold,
            death_at=self.death_at,
            knockout=knockout,
            hero_knockout=self.hero_knockout,
        )
        cond, dying = _flat(S, "cond"), _flat(S, "dying")
        if (res == hp_rule.CARRY_ON).all():
            cond[f] = DYING
            dying[f] = new
            return _EMPTY
        self.stabilize(S, f[res == hp_rule.STABLE])
        self._hero(S, f[res == hp_rule.HERO])
        go = (res == hp_rule.CARRY_ON) | (res == hp_rule.DEAD)
        g = f[go]
        cond[g] = DYING
        dying[g] = np.minimum(np.asarray(new)[go], self.death_at)
        return f[res == hp_rule.DEAD]

    def _hero(self, S, f: np.ndarray) -> None:
        """Hero points spent at ``f`` (R0-10): ``revive`` one, back at 1 HP, conscious
        (dying lost: A0-2); ``stabilize`` all held, stable at 0 HP."""
        if not len(f):
            return
        if self.hero_effect == "revive":
            if self.wounded_on:
                w = _flat(S, "wounded")
                w[f] = wounded_after_losing(w.take(f), True)
            amount = np.ones(len(f), dtype=np.int16)
            _flat(S, "hp")[f] = 1
            _flat(S, "cond")[f] = UP
        else:
            amount = np.asarray(self._held(S, f), dtype=np.int16)
            _flat(S, "cond")[f] = STABLE
        if self.hero_held:
            h = _flat(S, "hero")
            h[f] = h.take(f) - amount
        spent = S["hero_spent"]
        if self.P == 1:
            spent[f] += amount.astype(spent.dtype)
        else:
            np.add.at(spent, f // self.P, amount.astype(spent.dtype))
        _flat(S, "dying")[f] = 0

    # -- any system -----------------------------------------------------------------------------
    def stabilize(self, S, f: np.ndarray) -> None:
        """The PCs at ``f`` become stable at 0 HP (R0-08, R1-02, R1-04; A0-2: wounded + 1)."""
        if self.wounded_on:
            w = _flat(S, "wounded")
            w[f] = wounded_after_losing(w.take(f), True)
        _flat(S, "cond")[f] = STABLE
        if self.seed000:
            _flat(S, "dying")[f] = 0

    def knockout(self, S, f: np.ndarray, crit, src_dc, start=1) -> np.ndarray:
        """The PCs at ``f`` fall to 0 HP (R0-03; R0-12, R0-02, R1-01, R1-11, A1-1): dead
        (death trait), stable (nonlethal), dying ``start`` (+1 on a critical, + wounded,
        A0-2) with recovery DC ``src_dc``, or agonising. Returns the positions that died."""
        if not len(f):
            return _EMPTY
        _flat(S, "hp")[f] = 0
        if self.trait == "death":
            return f
        if self.trait == "nonlethal":
            _flat(S, "cond")[f] = STABLE
            _flat(S, "nl")[f] = True
            return _EMPTY
        if self.seed000:
            if "dcs" in S:
                _flat(S, "dcs")[f] = src_dc
            wounded = _flat(S, "wounded").take(f) if self.wounded_on else 0
            gain = knockout_phase(start, crit, wounded, self.wounded_rule)
            return self.rise(S, f, np.zeros(len(f), dtype=np.int16), gain, knockout=True)
        _flat(S, "cond")[f] = DYING
        _flat(S, "turns")[f] = 0
        if "nl" in S:
            _flat(S, "nl")[f] = False
        if self.zero_pp == "at_once":
            return f[_flat(S, "pp").take(f) == 0]
        return _EMPTY

    def hit_down(self, S, f: np.ndarray, crit, src_dc) -> tuple[np.ndarray, np.ndarray]:
        """A lethal or other hit on the PCs at ``f``, already at 0 HP (R0-09; R0-12, A0-1,
        A0-2, A0-6): ``(died, again)``, the positions that died and those knocked out
        again (stable ones: a new knock-out, its initiative unchanged)."""
        if self.trait == "death":
            return f, _EMPTY
        if self.trait == "nonlethal":
            return _EMPTY, _EMPTY
        stable = _flat(S, "cond").take(f) == STABLE
        scalar = np.ndim(src_dc) == 0
        again = f[stable]
        died = self.knockout(S, again, crit[stable], src_dc if scalar else src_dc[stable])
        if not self.seed000:
            return died, again
        g, c = f[~stable], crit[~stable]
        if not len(g):
            return died, again
        old = _flat(S, "dying").take(g)
        new = hit_phase(
            old,
            c,
            _flat(S, "wounded").take(g) if self.wounded_on else 0,
            on_damage=self.on_damage,
            wounded_rule=self.wounded_rule,
            wounded_adds=self.wounded_adds,
        )
        if "dcs" in S:
            dcs = _flat(S, "dcs")
            dcs[g] = np.maximum(dcs.take(g), src_dc if scalar else src_dc[~stable])
        more = self.rise(S, f=g, old=old, new=new)
        return (np.concatenate((died, more)) if len(died) else more), again

    def wake(self, S, f: np.ndarray) -> None:
        """The PCs at ``f`` (at 0 HP, not dead) are healed to 1 HP or more (R0-04, R1-03):
        conscious, dying lost (A0-2: wounded + 1). The model sets the HP."""
        if self.wounded_on:
            was = f[_flat(S, "cond").take(f) == DYING]
            w = _flat(S, "wounded")
            w[was] = wounded_after_losing(w.take(was), True)
        _flat(S, "cond")[f] = UP
        if self.seed000:
            _flat(S, "dying")[f] = 0
        if "nl" in S:
            _flat(S, "nl")[f] = False

    # -- seed 001 -------------------------------------------------------------------------------
    def agonise(self, S, f: np.ndarray) -> np.ndarray:
        """The turn of the downed PCs at ``f`` under seed 001 (R1-01, R1-04, R1-05, A1-3):
        an agonising one spends its stabilisation cost when ``spend`` says so; a stable one
        (``back_in_fight``) spends 1 PP to get up at 1 HP; one still agonising loses 1 PP
        at the end of its turn and dies at 0. Returns the positions that died."""
        if not len(f):
            return _EMPTY
        cond, pp, turns = _flat(S, "cond"), _flat(S, "pp"), _flat(S, "turns")
        ag = cond.take(f) == DYING
        spends = np.zeros(len(f), dtype=bool)
        if self.spend != "never":  # R1-04 (rules/perseverance)
            cost = np.asarray(self.cost[0] if self.P == 1 else np.take(self.cost, f % self.P))
            p = pp.take(f)
            spends = ag & wants_to_spend_phase(self.spend, p, cost, turns.take(f) + 1)
            spends &= p >= cost
            g = f[spends]
            pp[g] -= cost if self.P == 1 else cost[spends]
            cond[g] = STABLE
        if self.back_in_fight:  # R1-05, A1-3
            p = pp.take(f)
            ok = p >= self.enough_pp
            if "nl" in S:
                ok |= _flat(S, "nl").take(f) & (p >= 1)
            g = f[(cond.take(f) == STABLE) & ok]
            pp[g] -= 1
            _flat(S, "hp")[g] = 1
            cond[g] = UP
            if "nl" in S:
                _flat(S, "nl")[g] = False
        g = f[ag & ~spends]  # end of turn: lose 1 PP, dead at 0 (R1-01)
        pp[g] = np.maximum(pp.take(g) - 1, 0)
        turns[g] += 1
        return g[pp.take(g) == 0]

    def hourly(
        self, S, f: np.ndarray, con_roll, med_roll=None, healer=None, check_penalty=0, hp_max=None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The hourly Constitution checks of the stable PCs at ``f`` (R1-06..R1-08, A1-2,
        A1-6; R1-11: no danger of death after a nonlethal knock-out), resolved at once, and
        the wake-up (R1-07, at most ``hp_max``). ``con_roll`` (n, 8) natural d20s;
        ``med_roll`` (n, 8) and ``healer`` (n,) the tending healer's Medicine (-1: none)
        where there is one; ``check_penalty`` a number or (n,). Sets the HP, and the awake
        conscious. Returns ``(died, hours)``: bool (n,) and int16 (n,)."""
        res = np.empty(np.shape(con_roll), dtype=np.int8)
        k = f % self.P if self.P > 1 else np.zeros(len(f), dtype=np.intp)
        heal = np.full(len(f), -1, dtype=np.int64) if healer is None else np.asarray(healer)
        pen = np.broadcast_to(np.asarray(check_penalty, dtype=np.int64), (len(f),))
        key = np.stack((k, heal, pen), axis=1)
        for g in np.unique(key, axis=0):
            sel = np.flatnonzero((key == g).all(axis=1))
            h = int(g[1])
            res[sel] = hourly.hourly_lookup(
                con_roll[sel],
                med_roll[sel] if h >= 0 else None,
                con=self.con[int(g[0])],
                healer=h if h >= 0 else None,
                check_penalty=int(g[2]),
                natural=self.natural,
                lethal=True,
            )
        if "nl" in S:  # a nonlethal knock-out is in no danger of death (R1-11)
            nl = _flat(S, "nl").take(f)
            res = np.where(nl[:, None] & (res == hourly.DEAD), hourly.STAYS, res)
        died, hp, hours = hourly.wake_up_phase(res, self.checks, self.level, hp_max)
        _flat(S, "hp")[f] = hp
        _flat(S, "cond")[f[~died]] = UP
        return died, hours
