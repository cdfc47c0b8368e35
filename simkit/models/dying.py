"""Seed 000: the dying track of a knocked-out character (R0-03..R0-10, R0-13).

One step is one round. Round ``t`` (1-based) of a dying character, in order:

1. Healing: if ``heal_round == t`` the healer reaches the character at the start of
   the round, before its recovery check: back to 1 HP, ``revived`` (R0-04). So with
   ``heal_round = h`` the character makes ``h - 1`` recovery checks.
2. Recovery check at the start of its turn (R0-05): a Fortitude save (``check="save"``)
   against the source's DC + current dying (R0-06), or a flat check DC 10 + dying
   (``check="flat"``, A0-4, no modifiers). Critical success -2, success -1, failure +1,
   critical failure +2. Dying 0: ``stable`` (R0-08). Dying >= ``death_at``: ``dead``
   (R0-04).
3. The enemy's turn, just after the character's (R0-03: its initiative moved just
   before the attacker's). With probability ``crit_chance`` the enemy lands a
   critical hit, with ``hit_chance`` a normal hit (R0-09): dying becomes the
   knock-out value (1, 2 on a critical, + wounded with the wounded rule) if higher
   (``on_damage="max"``, A0-1 as written) or rises by 1 (2 on a critical,
   ``"increment"``, published PF2e). A hit whose source has a higher DC
   (``hit_dc``) raises the recovery DC from then on (R0-09). With ``hp_max`` set, a
   hit dealing at least twice the maximum HP (``hit_damage``, doubled on a critical)
   kills outright (R0-13).

Hero points (R0-10, A0-3): the policy ``immediately`` spends one at the knock-out;
an integer ``k`` (or ``at_death`` = ``death_at``) spends one when dying would rise
to ``k`` or more, cancelling that rise. Seed as written (``hero_effect="revive"``):
back at 1 HP, ``revived``. Published PF2e (``"stabilize"``): all hero points are
spent, the character stays at 0 HP, unconscious, ``stable``. Either way the track
ends, so only whether the character has a hero point matters.

The knock-out itself (step 0, R0-03): nonlethal damage gives no dying (``stable``
at once); lethal damage gives dying ``start`` (+1 when ``crit``) + the wounded value
when the wounded rule is on (A0-2). A knock-out that itself reaches ``death_at``
while a hero point is held (A0-7): ``hero_knockout="spend"`` (default) spends it,
``"die"`` kills. With ``on_damage="increment"`` and the wounded rule, a hit while dying
adds the wounded value too only with ``wounded_adds="every_hit"`` (A0-6; default
``on_gain``: only at the knock-out).

Each rule is written once, as a phase of :mod:`simkit.rules` (``recovery_check``,
``dying_damage``, ``hero_points``, ``massive_damage``); the scalar reference below
composes them, the kernel's lookup tables are built by running that reference over
every (state, roll), cached on what they depend on (:func:`table_key`), and the exact
chain runs the same reference over the phases' probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.model import Rules
from simkit.core.packing import pack_steps
from simkit.core.params import ParamError, param
from simkit.models.dying_readings import AMBIGUITIES
from simkit.rules import dying_systems
from simkit.rules import hero_points as hp_rule
from simkit.rules.dice import Dice
from simkit.rules.dying_damage import WOUNDED_ADDS, hit_while_dying, knockout_value
from simkit.rules.hero_points import HERO_EFFECT, HERO_KNOCKOUT, HERO_POLICY, hero_threshold
from simkit.rules.massive_damage import is_massive, massive_chance
from simkit.rules.parameters import shared
from simkit.rules.pf2e import levels
from simkit.rules.pf2e.levels import monster_high_dc
from simkit.rules.recovery_check import (
    MARGIN_HI,
    MARGIN_LO,
    check_margin,
    kept_roll,
    recovery_delta,
    recovery_pmf2,
)

__all__ = ["DEFAULT_DC", "Dying", "build_tables", "canonical_rules", "hero_threshold", "table_key"]

#: Recovery base DC used when neither ``dc`` nor ``monster_level`` is given.
DEFAULT_DC = 22
#: A0-8: the dying value the recovery DC adds (R0-06 "current", R0-07 "fixed").
DC_DYING = ("current", "fixed")
#: P-16: what a hero point does on the dying track.
HERO_USE = ("recover", "reroll")

STABLE, DEAD, REVIVED = 0, 1, 2
NO_HIT, HIT, CRIT, MASSIVE = 0, 1, 2, 3




#: Pathfinder 2e as published (the ``pf2e-core`` preset): flat recovery check DC 10 + dying
#: (A0-4), damage while dying increments it (A0-1), the wounded rule (A0-2), and the
#: hero-point rescue spends all hero points to stabilise at 0 HP (R0-10).
PF2E_CORE: dict[str, Any] = dict(dying_systems.PF2E_CORE)


@dataclass(frozen=True, slots=True)
class Dying(Rules):
    """The seed-000 dying track (R0-03..R0-10, R0-13); one step = one round."""

    name: ClassVar[str] = "dying"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("stable", "dead", "revived")
    rule_ids: ClassVar[str] = "R0-03..R0-10, R0-13; A0-1..A0-8; P-13..P-16"
    headline_params: ClassVar[tuple[str, ...]] = ("save_bonus", "dc", "hit_chance", "hero_points")
    active_label: ClassVar[str] = "still dying"
    presets: ClassVar[dict[str, dict[str, Any]]] = {"seed": {}, "pf2e-core": PF2E_CORE}
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = AMBIGUITIES
    has_exact: ClassVar[bool] = True
    #: its draws at a step (how many, their widths) follow the horizon, ``heal_round``
    #: and the enemy's odds, never a track's state (:mod:`simkit.core.lockstep`)
    lockstep: ClassVar[bool] = True

    start: int = param(
        1, kind="int", lo=1, hi=20, rule="R0-03", help="dying value at the knock-out"
    )
    crit: bool = param(
        False, kind="bool", rule="R0-03", help="knocked out by a critical: dying +1 (dying 2)"
    )
    nonlethal: bool = shared("nonlethal")
    save_bonus: int = param(
        11, kind="int", lo=-20, hi=80, rule="R0-05", help="Fortitude save modifier"
    )
    dc: int | None = shared("dc")
    monster_level: int | None = shared("monster_level")
    monster_dc: str = shared("monster_dc")
    check: str = shared("check")
    death_at: int = param(4, kind="int", lo=1, hi=20, rule="R0-04", help="dying value that kills")
    on_damage: str = param(
        "max",
        kind="choice",
        choices=("max", "increment"),
        rule="A0-1",
        help="damage while dying: keep the higher dying value, or add 1 (2 on a crit)",
    )
    hit_chance: float = param(
        0.0,
        kind="float",
        lo=0.0,
        hi=1.0,
        rule="R0-09",
        help="per-round probability of a normal hit on the downed character",
    )
    crit_chance: float = param(
        0.0,
        kind="float",
        lo=0.0,
        hi=1.0,
        rule="R0-09",
        help="per-round probability of a critical hit on the downed character",
    )
    hit_dc: int | None = param(
        None,
        kind="int",
        lo=1,
        hi=100,
        optional=True,
        rule="R0-09",
        help="DC of the source of later hits (raises the recovery DC if higher)",
    )
    hp_max: int | None = shared("hp_max")
    hit_damage: str = param(
        "2d8+4",
        kind="dice",
        rule="R0-13",
        help="damage of a hit on the downed character (doubled on a critical)",
    )
    wounded: int = shared("wounded")
    wounded_rule: bool = shared("wounded_rule")
    hero_points: int = shared("hero_points")
    hero_policy: str | int = param(**HERO_POLICY)
    hero_effect: str = param(**HERO_EFFECT)
    hero_knockout: str = param(**HERO_KNOCKOUT)
    wounded_adds: str = param(**WOUNDED_ADDS)
    heal_round: int | None = shared("heal_round")
    check_penalty: int = shared("check_penalty")
    max_rounds: int = shared("max_rounds")
    dc_dying: str = param(
        "current",
        kind="choice",
        choices=DC_DYING,
        rule="A0-8",
        seed_neutral=True,
        help="the dying value the recovery DC adds: the current one at each check, or the "
        "one at the knock-out (the DC fixed whole then)",
    )
    # PF2e's options (P-13..P-16), declared once for the dying model and the fights
    toughness: bool = shared("toughness")
    diehard: bool = shared("diehard")
    fortune: str = shared("fortune")
    hero_use: str = shared("hero_use")

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A typical PF2e character of ``level``: its Fortitude save (R0-05, rules.levels)."""
        return {"save_bonus": levels.fortitude_save(level)}

    @classmethod
    def typical_opponent(cls, level: int) -> dict[str, Any]:
        """A monster of the same level: its high DC (R0-06)."""
        return {"monster_level": level}

    def validate(self) -> None:
        if self.dc is not None and self.monster_level is not None:
            raise ParamError("dc and monster_level are exclusive: give one of them (R0-06)")
        if self.hit_chance + self.crit_chance > 1.0 + 1e-12:
            raise ParamError(
                "hit_chance + crit_chance must be at most 1, "
                f"got {self.hit_chance} + {self.crit_chance}"
            )
        if self.wounded and not self.wounded_rule:
            raise ParamError(f"wounded={self.wounded} needs wounded_rule=true (A0-2)")
        if self.hero_use == "reroll" and self.fortune != "none":
            raise ParamError(
                f"hero_use=reroll and fortune={self.fortune} cannot combine: a hero point's "
                "reroll is itself a fortune effect (P-15, P-16); allowed: fortune=none"
            )

    # -- derived numbers ---------------------------------------------------------
    @property
    def base_dc(self) -> int:
        """Recovery DC before adding dying (R0-06)."""
        if self.dc is not None:
            return self.dc
        if self.monster_level is not None:
            return monster_high_dc(self.monster_level, self.monster_dc)
        return DEFAULT_DC

    @property
    def raised_dc(self) -> int:
        """Base DC after a hit from the ``hit_dc`` source (R0-09: the higher DC)."""
        return max(self.base_dc, self.hit_dc) if self.hit_dc is not None else self.base_dc

    @property
    def death_value(self) -> int:
        """The dying value that kills (R0-04): ``death_at``, 1 more with Diehard (P-14)."""
        return self.death_at + int(self.diehard)

    @property
    def threshold(self) -> int | None:
        """Dying value that triggers a hero point; None = never (or ``hero_use=reroll``);
        0 = at once."""
        if self.rerolls:
            return None
        return hero_threshold(self.hero_policy, self.hero_points, self.death_value)

    @property
    def rerolls(self) -> bool:
        """Whether hero points reroll failed recovery checks (P-16): ``hero_use=reroll`` with
        a point to spend (without one the track is the one of ``hero_use=recover``)."""
        return self.hero_use == "reroll" and self.hero_points > 0

    @property
    def roll_width(self) -> int:
        """Equally likely roll codes of one recovery check: 20 (one d20), or 400 (two d20s:
        fortune / misfortune, P-15, or a hero point's reroll, P-16)."""
        return 400 if self.fortune != "none" or self.rerolls else 20

    @property
    def hero_levels(self) -> int:
        """How many hero points a state tells apart: 1 (whether one is held: R0-10 spends
        them all at once), or ``hero_points`` (each reroll spends one, P-16)."""
        return self.hero_points if self.rerolls else 1

    @property
    def hero_start(self):
        """The state's hero field at the knock-out: held (bool), or the points (P-16)."""
        return self.hero_points if self.rerolls else self.hero_points > 0

    @property
    def dc_dying_value(self) -> int | None:
        """The dying value the recovery DC adds (A0-8): None = the current one, else the
        knock-out's."""
        return None if self.dc_dying == "current" else self.knockout_dying

    @property
    def knockout_dying(self) -> int:
        """Dying value gained at the knock-out (R0-03, A0-2)."""
        return knockout_value(
            start=self.start, crit=self.crit, wounded=self.wounded, wounded_rule=self.wounded_rule
        )

    @property
    def hero_outcome(self) -> int:
        return REVIVED if self.hero_effect == "revive" else STABLE

    def _massive_p(self) -> tuple[float, float]:
        """P(massive | normal hit), P(massive | critical hit) (R0-13)."""
        return massive_chance(self.hit_damage, self.hp_max, 1), massive_chance(
            self.hit_damage, self.hp_max, 2
        )

    # -- scalar reference (one track, plain Python): the rule phases of simkit.rules ----------
    def ref_knockout(self) -> tuple[int | None, int]:
        """(outcome or None, dying) at the knock-out, step 0 (R0-03, R0-10; A0-2, A0-3, A0-7)."""
        if self.nonlethal:
            return STABLE, 0
        d = self.knockout_dying
        res = hp_rule.rise(
            0,
            d,
            threshold=self.threshold,
            death_at=self.death_value,
            knockout=True,
            hero_knockout=self.hero_knockout,
        )
        if res == hp_rule.HERO:
            return self.hero_outcome, d
        if res == hp_rule.DEAD:
            return DEAD, d
        return None, d

    def ref_round(
        self,
        dying: int,
        hero: bool,
        raised: bool,
        t: int,
        roll: int,
        u: float = 1.0,
        u2: float = 0.0,
        roll2: int | None = None,
    ):
        """One round of one track (the scalar reference of the kernel).

        ``roll`` is the natural d20 of the recovery check (``roll2`` the second one:
        fortune / misfortune, P-15, or a hero point's reroll, P-16), ``u`` the uniform that
        decides the enemy's hit, ``u2`` the uniform of the damage quantile.
        Returns ``(outcome or None, dying, hero, raised)``.
        """
        if self.heal_round == t:
            return REVIVED, dying, hero, raised
        out, dying, hero, raised = self.ref_check(dying, hero, raised, roll, roll2)
        if out is not None:
            return out, dying, hero, raised
        if u < self.crit_chance:
            kind = CRIT
        elif u < self.crit_chance + self.hit_chance:
            kind = HIT
        else:
            kind = NO_HIT
        if kind != NO_HIT and self.hp_max is not None:
            dmg = int(Dice.parse(self.hit_damage).quantile(u2)) * (2 if kind == CRIT else 1)
            if is_massive(dmg, self.hp_max):
                kind = MASSIVE
        return self.ref_enemy(dying, hero, raised, kind)

    def ref_check(self, dying: int, hero, raised: bool, roll: int, roll2: int | None = None):
        """The recovery check of one track (R0-05, R0-06, A0-4, A0-8, P-13, P-15, P-16) for a
        natural ``roll`` (and ``roll2``, the second d20: kept by fortune / misfortune, or
        the reroll a hero point buys after a failure, whose result stands)."""
        base = self.raised_dc if raised else self.base_dc
        kw: dict[str, Any] = dict(
            check=self.check,
            bonus=self.save_bonus + self.check_penalty,
            dc=base,
            dc_dying=self.dc_dying_value,
            toughness=self.toughness,
        )
        delta = recovery_delta(kept_roll(roll, roll2, self.fortune), dying, **kw)
        if self.rerolls and hero and delta > 0 and roll2 is not None:
            delta = recovery_delta(roll2, dying, **kw)  # P-16: the second result stands
            hero -= 1
        return self._ref_rise(dying, dying + delta, hero, raised)

    def ref_enemy(self, dying: int, hero: bool, raised: bool, kind: int):
        """The enemy's turn on one dying track (R0-09, R0-13): ``kind`` 0 none, 1 hit, 2 crit,
        3 massive."""
        if kind == NO_HIT:
            return None, dying, hero, raised
        if kind == MASSIVE:
            return DEAD, dying, hero, raised
        if self.hit_dc is not None and self.hit_dc > self.base_dc:
            raised = True
        new = hit_while_dying(
            dying,
            kind == CRIT,
            on_damage=self.on_damage,
            wounded=self.wounded,
            wounded_rule=self.wounded_rule,
            wounded_adds=self.wounded_adds,
        )
        return self._ref_rise(dying, new, hero, raised)

    def _ref_rise(self, dying, new, hero, raised):
        res = hp_rule.rise(
            dying, new, threshold=self.threshold if hero else None, death_at=self.death_value
        )
        if res == hp_rule.CARRY_ON:
            return None, new, hero, raised
        if res == hp_rule.STABLE:
            return STABLE, 0, hero, raised
        if res == hp_rule.HERO:
            return self.hero_outcome, dying, hero, raised
        return DEAD, new, hero, raised

    # -- vectorised kernel -----------------------------------------------------------
    def _n_states(self) -> int:
        # dying 0..death_value-1 x hero (held, or 0..hero_points with rerolls) x raised
        return 2 * (self.hero_levels + 1) * self.death_value

    def _code(self, dying: int, hero, raised: bool) -> int:
        return (int(raised) * (self.hero_levels + 1) + int(hero)) * self.death_value + dying

    def _decode(self, s: int) -> tuple:
        dying = s % self.death_value
        hr = s // self.death_value
        h = hr % (self.hero_levels + 1)
        hero = h if self.rerolls else bool(h)
        return dying, hero, bool(hr // (self.hero_levels + 1))

    def _rolls(self, code: int) -> tuple[int, int | None]:
        """The natural d20s of a roll code 1..:attr:`roll_width` (two d20s: ``code - 1 =
        (roll - 1) * 20 + (roll2 - 1)``)."""
        if self.roll_width == 20:
            return code, None
        return (code - 1) // 20 + 1, (code - 1) % 20 + 1

    def _start_code(self) -> int:
        """State code at the knock-out (0 when the track ends at step 0)."""
        out, d = self.ref_knockout()
        return 0 if out is not None else self._code(d, self.hero_start, False)

    def tables(self) -> dict[str, np.ndarray]:
        """Lookup tables of the kernel, built from the scalar reference (cached).

        ``check[s * 21 + roll]`` and ``enemy[s * 4 + kind]`` give the next state code
        (>= 0) or ``-1 - outcome``; ``pack{k}[s * 20**k + r]`` gives the result of ``k``
        rounds of checks without enemy for ``r`` in ``0..20**k-1`` (roll i = ``r //
        20**i % 20 + 1``) in the engine's codes: ``-1 - state`` for a track still dying,
        else ``outcome + 3 * offset``. The tables depend only on :func:`table_key`, so
        a sweep over DCs and save bonuses builds one per distinct key (issue 13).
        """
        return _tables(table_key(self))

    def table_start(self) -> int:
        """Every track's engine code at the knock-out (step 0): ``-1 - state`` for a track
        dying, else its outcome (:meth:`ref_knockout`)."""
        out, _ = self.ref_knockout()
        return -1 - self._start_code() if out is None else out

    def table_step(self, t: int) -> tuple[np.ndarray, int] | None:
        """Step ``t`` as a table where it is one: ``(table, k)``, ``table[s, r]`` (int16,
        shape (states, width)) the engine's code after ``k`` rounds from state ``s`` with
        the draw ``r`` in ``0..width-1`` (``-1 - state`` for a track still dying, else
        ``outcome + 3 * offset``); width 1 when nothing is drawn (the healer arrives:
        every track revived, R0-13). None where the enemy still acts (a d20 and the
        enemy's roll a round: :meth:`step`'s general path). Only d20s decide otherwise:
        ``k`` rounds from one uniform draw in ``0..20**k - 1`` (exact: its ``k``
        base-20 digits are independent d20s), up to the horizon or the healer.

        The kernel's steps (:meth:`step`) and variants stepped together
        (:mod:`simkit.core.lockstep_tables`) read their tables here.
        """
        if self.heal_round == t:
            return _heal_table(self._n_states()), 1
        if self.hit_chance != 0.0 or self.crit_chance != 0.0:
            return None
        limit = self.horizon - t + 1
        if self.heal_round is not None and self.heal_round > t:
            limit = min(limit, self.heal_round - t)
        tabs = self.tables()
        k = min(max(int(name[4:]) for name in tabs if name.startswith("pack")), limit)
        return tabs[f"pack{k}"].reshape(-1, self.roll_width**k), k

    def init(self, n: int, rng):
        code = self.table_start()
        codes = np.broadcast_to(np.int8(-1 if code < 0 else code), (n,))
        return {"s": np.full(n, min(code, -1), dtype=np.int16)}, codes

    def step(self, state, t, rng):
        """Advance the active tracks.

        ``state["s"]`` (int16, one per track) holds ``-1 - state code``: the engine's
        own code for a track still active, so a table lookup yields the codes.
        """
        s = state["s"]
        m = len(s)
        ts = self.table_step(t)
        if ts is not None:
            table, k = ts
            width = table.shape[1]
            if width == 1:  # nothing drawn: every state's one code
                return table[:, 0].take(np.subtract(-1, s, dtype=np.intp)), k
            if t == 1:
                # every track is still in its knock-out state: one row of the table
                nxt = table[self._start_code()].take(rng.below(width, size=m))
            else:
                # state["s"] holds engine codes, -1 - state: index = state * width + r
                idx = np.multiply(s, -width, dtype=np.intp)
                idx -= width
                idx += rng.below(width, size=m)
                nxt = table.reshape(-1).take(idx)
            state["s"] = nxt
            return nxt, k
        tab = self.tables()
        # general path: one round, with the enemy's turn
        w = self.roll_width + 1  # roll codes 1..roll_width (a d20, or two)
        roll = rng.d20(size=m) if w == 21 else rng.below(w - 1, size=m) + 1
        u = rng.random(size=m)
        idx = np.multiply(s, -w, dtype=np.intp)
        idx += roll.astype(np.intp) - w
        c1 = tab["check"].take(idx)
        kind = np.where(
            u < self.crit_chance,
            CRIT,
            np.where(u < self.crit_chance + self.hit_chance, HIT, NO_HIT),
        ).astype(np.int32)
        if self.hp_max is not None:
            u2 = rng.random(size=m)
            dmg = Dice.parse(self.hit_damage).quantile(u2) * np.where(kind == CRIT, 2, 1)
            kind[(kind != NO_HIT) & is_massive(dmg, self.hp_max)] = MASSIVE
        alive = c1 >= 0
        c2 = c1.copy()
        c2[alive] = tab["enemy"].take(c1[alive].astype(np.intp) * 4 + kind[alive])
        codes = np.subtract(-1, c2, dtype=np.int16)
        state["s"] = codes
        return codes

    # -- exact chain: the same rule phases, as probabilities ------------------------------
    def _key(self, out, dying, hero, raised):
        return self.outcomes[out] if out is not None else (dying, hero, raised)

    def exact_initial(self):
        out, d = self.ref_knockout()
        return {self._key(out, d, self.hero_start, False): 1.0}

    def exact_key(self) -> tuple:
        """What the exact answer depends on: rules with equal keys have the same chain.

        :func:`table_key` (the check's clipped margins, death value, damage-while-dying
        and hero options; the chain's checks grade each roll as the tables do), with the
        knock-out's parameters, the enemy's chances, massive damage, healing and the
        horizon as given. :func:`simkit.core.exact.solve_many` caches answers on it, so a
        sweep over DCs and save bonuses solves one chain per distinct key (issue 13).
        """
        return (
            table_key(self),
            self.nonlethal,
            self.start,
            self.crit,
            self.wounded,
            self.wounded_rule,
            self.hero_points > 0,
            self.hero_knockout,
            self.hit_chance,
            self.crit_chance,
            self.hp_max,
            self.hit_damage if self.hp_max is not None else None,
            self.heal_round,
            self.max_rounds,
        )

    def exact_regime(self, t):
        return t == self.heal_round

    def exact_step(self, state, t):
        dying, hero, raised = state
        if t == self.heal_round:
            return {"revived": 1.0}
        out: dict = {}

        def add(key, p):
            out[key] = out.get(key, 0.0) + p

        base = self.raised_dc if raised else self.base_dc
        margin = check_margin(
            dying,
            check=self.check,
            bonus=self.save_bonus + self.check_penalty,
            dc=base,
            dc_dying=self.dc_dying_value,
            toughness=self.toughness,
        )
        after_check = []
        if self.rerolls and hero:  # P-16: every pair of d20s, through the reference
            for code in range(1, 401):
                res = self.ref_check(dying, hero, raised, *self._rolls(code))
                after_check.append((res, 1 / 400))
        else:
            for delta, p in recovery_pmf2(min(max(margin, MARGIN_LO), MARGIN_HI), self.fortune):
                after_check.append((self._ref_rise(dying, dying + delta, hero, raised), p))
        if self.hit_chance == 0 and self.crit_chance == 0:
            for (o, d, h, r), p in after_check:
                add(self._key(o, d, h, r), p)
            return out
        massive_hit, massive_crit = self._massive_p()
        p_none = 1.0 - self.hit_chance - self.crit_chance
        for (o, d, h, r), p in after_check:
            if o is not None:
                add(self.outcomes[o], p)
                continue
            if p_none > 0:
                add((d, h, r), p * p_none)
            for kind, chance, massive in (
                (HIT, self.hit_chance, massive_hit),
                (CRIT, self.crit_chance, massive_crit),
            ):
                if chance == 0:
                    continue
                if massive > 0:
                    add("dead", p * chance * massive)
                q = p * chance * (1.0 - massive)
                if q > 0:
                    add(self._key(*self.ref_enemy(d, h, r, kind)), q)
        return out


def table_key(rules: Dying) -> tuple:
    """What the kernel's tables depend on (issue 13 item 3).

    The check's kind, the save's margins (bonus - DC) before and after a raising hit,
    clipped to where they still change a roll's degree, the death value, the
    damage-while-dying options, and the hero-point policy and effect (only whether a
    point is held; the knock-out is not in the tables).
    """
    return _table_key(rules)


@lru_cache(maxsize=1024)
def _table_key(rules: Dying) -> tuple:
    dv = rules.death_value
    lo, hi = MARGIN_LO + 1, MARGIN_HI + dv - 1
    flat = rules.check == "flat"
    # Toughness (P-13) lowers a save's DC by 1: one more point of margin
    bonus = rules.save_bonus + rules.check_penalty + int(rules.toughness and not flat)
    m = 0 if flat else min(max(bonus - rules.base_dc, lo), hi)
    raises = rules.hit_dc is not None and rules.hit_dc > rules.base_dc
    rm = m if flat or not raises else min(max(bonus - rules.raised_dc, lo), hi)
    if raises and rm == m:  # both clipped (or a flat check): keep the raise visible, same gradings
        if m == hi or flat:
            m += 1
        else:
            rm -= 1
    w = rules.wounded if rules.wounded_rule else 0
    reroll = rules.rerolls
    policy = rules.hero_policy if rules.hero_points > 0 and not reroll else "never"
    adds = rules.wounded_adds if (w and rules.on_damage == "increment") else "on_gain"
    return (
        rules.check,
        m,
        rm,
        raises,
        dv,
        rules.on_damage,
        w,
        adds,
        policy,
        rules.hero_effect,
        rules.knockout_dying if rules.dc_dying == "fixed" else 0,  # A0-8
        bool(rules.toughness and flat),  # P-13 on a flat check
        rules.fortune,  # P-15
        rules.hero_points if reroll else 0,  # P-16: the points a track can reroll with
    )


def canonical_rules(key: tuple) -> Dying:
    """A :class:`Dying` whose tables are those of every rules object with this ``key``."""
    check, m, rm, raises, dv, on_damage, w, adds, policy, effect, ko, tough, fortune, rerolls = key
    start = max(ko - w, 1)  # A0-8 fixed: a knock-out of dying ko (0: the current value)
    return Dying(
        check=check,
        save_bonus=40 + m,
        dc=40,
        hit_dc=40 + m - rm if raises else None,
        death_at=min(dv, 20),
        diehard=dv > 20,
        on_damage=on_damage,
        wounded=w,
        wounded_rule=w > 0,
        wounded_adds=adds,
        hero_points=rerolls if rerolls else (0 if policy == "never" else 1),
        hero_policy=policy,
        hero_effect=effect,
        start=min(start, 20),
        crit=start > 20,
        dc_dying="fixed" if ko else "current",
        toughness=tough,
        fortune=fortune,
        hero_use="reroll" if rerolls else "recover",
    )


@lru_cache(maxsize=64)
def _heal_table(n_states: int) -> np.ndarray:
    """The healer's step (R0-13): every state's one code, revived (read-only)."""
    table = np.full((n_states, 1), REVIVED, dtype=np.int16)
    table.setflags(write=False)
    return table


@lru_cache(maxsize=256)
def _tables(key: tuple) -> dict[str, np.ndarray]:
    return build_tables(canonical_rules(key))


def build_tables(rules: Dying) -> dict[str, np.ndarray]:
    """The kernel's tables for ``rules``, from the scalar reference (uncached)."""
    S = rules._n_states()
    W = rules.roll_width
    check = np.full((S, W + 1), -1 - STABLE, dtype=np.int64)  # dying 0 / roll code 0: unused
    enemy = np.full((S, 4), -1 - STABLE, dtype=np.int64)
    for s in range(S):
        dying, hero, raised = rules._decode(s)
        if dying == 0:
            continue
        for code in range(1, W + 1):
            out, d, h, r = rules.ref_check(dying, hero, raised, *rules._rolls(code))
            check[s, code] = -1 - out if out is not None else rules._code(d, h, r)
        for kind in range(4):
            out, d, h, r = rules.ref_enemy(dying, hero, raised, kind)
            enemy[s, kind] = -1 - out if out is not None else rules._code(d, h, r)
    res = {"check": check.astype(np.int16).ravel(), "enemy": enemy.astype(np.int16).ravel()}
    # k rounds of checks without enemy (roll code = roll - 1), in the engine's codes
    for k, tab in pack_steps(check[:, 1:], len(rules.outcomes), 3).items():
        res[f"pack{k}"] = (-1 - tab).astype(np.int16)
    for v in res.values():
        v.setflags(write=False)
    return res
