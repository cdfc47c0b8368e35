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
when the wounded rule is on (A0-2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simkit.rules.dice import Dice, degree, degree_pmf
from simkit.rules.levels import monster_high_dc
from simkit.core.params import ParamError, param
from simkit.rules.parameters import shared
from simkit.core.model import Rules

__all__ = ["Dying", "DEFAULT_DC", "hero_threshold"]

#: Recovery base DC used when neither ``dc`` nor ``monster_level`` is given.
DEFAULT_DC = 22

DELTA = {0: +2, 1: +1, 2: -1, 3: -2}  # degree -> change of dying (R0-05)
STABLE, DEAD, REVIVED = 0, 1, 2
NO_HIT, HIT, CRIT, MASSIVE = 0, 1, 2, 3


def hero_threshold(policy, hero_points: int, death_at: int) -> int | None:
    """Dying value at which a hero point is spent (A0-3): None = never, 0 = at the knock-out.

    ``policy`` is ``never``, ``immediately``, ``at_death`` (= ``death_at``) or an integer
    ``k``: spend when dying would rise to ``k`` or more.
    """
    if hero_points == 0 or policy == "never":
        return None
    if policy == "immediately":
        return 0
    if policy == "at_death":
        return death_at
    return int(policy)


@dataclass(frozen=True, slots=True)
class Dying(Rules):
    """The seed-000 dying track (R0-03..R0-10, R0-13); one step = one round."""

    name: ClassVar[str] = "dying"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("stable", "dead", "revived")
    rule_ids: ClassVar[str] = "R0-03..R0-10, R0-13; A0-1..A0-5"
    has_exact: ClassVar[bool] = True

    start: int = param(1, kind="int", lo=1, hi=20, rule="R0-03", help="dying value at the knock-out")
    crit: bool = param(False, kind="bool", rule="R0-03", help="knocked out by a critical: dying +1 (dying 2)")
    nonlethal: bool = shared("nonlethal")
    save_bonus: int = param(11, kind="int", lo=-20, hi=80, rule="R0-05", help="Fortitude save modifier")
    dc: int | None = shared("dc")
    monster_level: int | None = shared("monster_level")
    monster_dc: str = shared("monster_dc")
    check: str = shared("check")
    death_at: int = param(4, kind="int", lo=1, hi=20, rule="R0-04", help="dying value that kills")
    on_damage: str = param("max", kind="choice", choices=("max", "increment"), rule="A0-1",
                           help="damage while dying: keep the higher dying value, or add 1 (2 on a crit)")
    hit_chance: float = param(0.0, kind="float", lo=0.0, hi=1.0, rule="R0-09",
                              help="per-round probability of a normal hit on the downed character")
    crit_chance: float = param(0.0, kind="float", lo=0.0, hi=1.0, rule="R0-09",
                               help="per-round probability of a critical hit on the downed character")
    hit_dc: int | None = param(None, kind="int", lo=1, hi=100, optional=True, rule="R0-09",
                               help="DC of the source of later hits (raises the recovery DC if higher)")
    hp_max: int | None = shared("hp_max")
    hit_damage: str = param("2d8+4", kind="dice", rule="R0-13",
                            help="damage of a hit on the downed character (doubled on a critical)")
    wounded: int = shared("wounded")
    wounded_rule: bool = shared("wounded_rule")
    hero_points: int = shared("hero_points")
    hero_policy: str | int = param(
        "at_death", kind="policy", choices=("never", "immediately", "at_death"), lo=1, hi=20, rule="A0-3",
        help="when to spend a hero point: never, immediately, at_death, or when dying would reach k",
    )
    hero_effect: str = param("revive", kind="choice", choices=("revive", "stabilize"), rule="R0-10",
                             help="hero point: back to 1 HP (seed) or stable at 0 HP spending all (pf2e-core)")
    heal_round: int | None = shared("heal_round")
    check_penalty: int = shared("check_penalty")
    max_rounds: int = shared("max_rounds")

    def validate(self) -> None:
        if self.dc is not None and self.monster_level is not None:
            raise ParamError("dc and monster_level are exclusive: give one of them (R0-06)")
        if self.hit_chance + self.crit_chance > 1.0 + 1e-12:
            raise ParamError(
                f"hit_chance + crit_chance must be at most 1, got {self.hit_chance} + {self.crit_chance}"
            )
        if self.wounded and not self.wounded_rule:
            raise ParamError(f"wounded={self.wounded} needs wounded_rule=true (A0-2)")

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
    def threshold(self) -> int | None:
        """Dying value that triggers a hero point; None = never; 0 = at once."""
        return hero_threshold(self.hero_policy, self.hero_points, self.death_at)

    @property
    def knockout_dying(self) -> int:
        """Dying value gained at the knock-out (R0-03, A0-2)."""
        return self.start + int(self.crit) + (self.wounded if self.wounded_rule else 0)

    @property
    def hero_outcome(self) -> int:
        return REVIVED if self.hero_effect == "revive" else STABLE

    def _massive_p(self) -> tuple[float, float]:
        """P(massive | normal hit), P(massive | critical hit) (R0-13)."""
        if self.hp_max is None:
            return 0.0, 0.0
        d = Dice.parse(self.hit_damage)
        return d.cdf_at_least(2 * self.hp_max), d.cdf_at_least(self.hp_max)  # 2x damage >= 2 hp_max

    # -- scalar reference (one track, plain Python) ---------------------------------
    def ref_knockout(self) -> tuple[int | None, int]:
        """(outcome or None, dying) at the knock-out, step 0."""
        if self.nonlethal:
            return STABLE, 0
        d = self.knockout_dying
        thr = self.threshold
        if thr is not None and d >= thr:
            return self.hero_outcome, d
        if d >= self.death_at:
            return DEAD, d
        return None, d

    def ref_round(self, dying: int, hero: bool, raised: bool, t: int, roll: int,
                  u: float = 1.0, u2: float = 0.0):
        """One round of one track (the scalar reference of the kernel).

        ``roll`` is the natural d20 of the recovery check, ``u`` the uniform that
        decides the enemy's hit, ``u2`` the uniform of the damage quantile.
        Returns ``(outcome or None, dying, hero, raised)``.
        """
        if self.heal_round == t:
            return REVIVED, dying, hero, raised
        out, dying, hero, raised = self.ref_check(dying, hero, raised, roll)
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
            if dmg >= 2 * self.hp_max:
                kind = MASSIVE
        return self.ref_enemy(dying, hero, raised, kind)

    def ref_check(self, dying: int, hero: bool, raised: bool, roll: int):
        """The recovery check of one track (R0-05, R0-06, A0-4) for a natural ``roll``."""
        if self.check == "save":
            base = self.raised_dc if raised else self.base_dc
            deg = degree(roll, self.save_bonus + self.check_penalty, base + dying)
        else:
            deg = degree(roll, 0, 10 + dying)
        new = dying + DELTA[deg]
        if new <= 0:
            return STABLE, 0, hero, raised
        return self._ref_rise(dying, new, hero, raised)

    def ref_enemy(self, dying: int, hero: bool, raised: bool, kind: int):
        """The enemy's turn on one dying track: ``kind`` 0 none, 1 hit, 2 crit, 3 massive."""
        if kind == NO_HIT:
            return None, dying, hero, raised
        if kind == MASSIVE:
            return DEAD, dying, hero, raised
        if self.hit_dc is not None and self.hit_dc > self.base_dc:
            raised = True
        gain = 2 if kind == CRIT else 1
        if self.on_damage == "max":
            new = max(dying, gain + (self.wounded if self.wounded_rule else 0))
        else:
            new = dying + gain
        return self._ref_rise(dying, new, hero, raised)

    def _ref_rise(self, dying, new, hero, raised):
        thr = self.threshold if hero else None
        if new > dying and thr is not None and new >= thr:
            return self.hero_outcome, dying, hero, raised
        if new >= self.death_at:
            return DEAD, new, hero, raised
        return None, new, hero, raised

    # -- vectorised kernel -----------------------------------------------------------
    def _n_states(self) -> int:
        return 4 * self.death_at  # dying 0..death_at-1 x hero x raised

    def _code(self, dying: int, hero: bool, raised: bool) -> int:
        return (int(raised) * 2 + int(hero)) * self.death_at + dying

    def _decode(self, s: int) -> tuple[int, bool, bool]:
        dying = s % self.death_at
        hr = s // self.death_at
        return dying, bool(hr % 2), bool(hr // 2)

    def tables(self) -> dict[str, np.ndarray]:
        """Lookup tables of the kernel, built from the scalar reference.

        ``check[s, roll]`` and ``enemy[s, kind]`` give the next state code (>= 0) or
        ``-1 - outcome``; ``pack[k][s, r]`` gives the result of ``k`` rounds of
        checks without enemy for ``r`` in ``0..20**k-1`` (roll i = ``r // 20**i % 20
        + 1``), as a state code or ``-1 - (outcome + 3 * offset)``.
        """
        return _tables(self)

    def init(self, n: int, rng):
        out, d = self.ref_knockout()
        codes = np.broadcast_to(np.int8(-1 if out is None else out), (n,))
        s0 = self._code(min(d, self.death_at - 1), self.hero_points > 0, False) if out is None else 0
        return {"s": np.full(n, -1 - s0, dtype=np.int16)}, codes

    def step(self, state, t, rng):
        """Advance the active tracks.

        ``state["s"]`` (int16, one per track) holds ``-1 - state code``: the engine's
        own code for a track still active, so a table lookup yields the codes.
        """
        tab = self.tables()
        s = state["s"]
        m = len(s)
        if self.heal_round == t:
            return np.full(m, REVIVED, dtype=np.int8)
        if self.hit_chance == 0.0 and self.crit_chance == 0.0:
            # Only d20s decide: k rounds from one uniform draw in 0..20**k-1 (exact:
            # the k base-20 digits are independent d20s), one table lookup.
            limit = self.horizon - t + 1
            if self.heal_round is not None and self.heal_round > t:
                limit = min(limit, self.heal_round - t)
            k = min(3, limit)
            width = 20**k
            if t == 1:
                # every track is still in its knock-out state: one row of the table
                nxt = tab[f"first{k}"].take(rng.below(width, size=m))
            else:
                # state["s"] holds engine codes, -1 - state: index = state * width + r
                idx = np.multiply(s, -width, dtype=np.intp)
                idx -= width
                idx += rng.below(width, size=m)
                nxt = tab[f"pack{k}"].take(idx)
            state["s"] = nxt
            return nxt, k
        # general path: one round, with the enemy's turn
        roll = rng.d20(size=m)
        u = rng.random(size=m)
        idx = np.multiply(s, -21, dtype=np.intp)
        idx += roll.astype(np.intp) - 21
        c1 = tab["check"].take(idx)
        kind = np.where(u < self.crit_chance, CRIT,
                        np.where(u < self.crit_chance + self.hit_chance, HIT, NO_HIT)).astype(np.int32)
        if self.hp_max is not None:
            u2 = rng.random(size=m)
            dmg = Dice.parse(self.hit_damage).quantile(u2) * np.where(kind == CRIT, 2, 1)
            kind[(kind != NO_HIT) & (dmg >= 2 * self.hp_max)] = MASSIVE
        alive = c1 >= 0
        c2 = c1.copy()
        c2[alive] = tab["enemy"].take(c1[alive].astype(np.intp) * 4 + kind[alive])
        codes = np.subtract(-1, c2, dtype=np.int16)
        state["s"] = codes
        return codes

    # -- exact chain (independent of the kernel: probabilities, not rolls) -------------
    def exact_initial(self):
        if self.nonlethal:
            return {"stable": 1.0}
        d = self.knockout_dying
        hero = self.hero_points > 0
        if hero and self.hero_policy == "immediately":
            return {"revived" if self.hero_effect == "revive" else "stable": 1.0}
        if hero and self.hero_policy != "never":
            k = self.death_at if self.hero_policy == "at_death" else int(self.hero_policy)
            if d >= k:
                return {"revived" if self.hero_effect == "revive" else "stable": 1.0}
        if d >= self.death_at:
            return {"dead": 1.0}
        return {(d, hero, False): 1.0}

    def exact_regime(self, t):
        return t == self.heal_round

    def exact_step(self, state, t):
        dying, hero, raised = state
        if t == self.heal_round:
            return {"revived": 1.0}
        rescue = "revived" if self.hero_effect == "revive" else "stable"
        trigger = None
        if hero and self.hero_policy not in ("never", "immediately"):
            trigger = self.death_at if self.hero_policy == "at_death" else int(self.hero_policy)

        def rise(old, new, p, out, raised_after):
            # dying rising from old to new: hero point, death, or carry on
            if trigger is not None and new >= trigger:
                out[rescue] = out.get(rescue, 0.0) + p
            elif new >= self.death_at:
                out["dead"] = out.get("dead", 0.0) + p
            else:
                key = (new, hero, raised_after)
                out[key] = out.get(key, 0.0) + p

        after_check: dict = {}
        if self.check == "flat":
            pmf = degree_pmf(0, 10 + dying)
        else:
            base = self.raised_dc if raised else self.base_dc
            pmf = degree_pmf(self.save_bonus + self.check_penalty, base + dying)
        for deg, p in enumerate(pmf):
            if p == 0:
                continue
            new = dying + {0: 2, 1: 1, 2: -1, 3: -2}[deg]
            if new <= 0:
                after_check["stable"] = after_check.get("stable", 0.0) + p
            elif new > dying:
                rise(dying, new, p, after_check, raised)
            else:
                after_check[(new, hero, raised)] = after_check.get((new, hero, raised), 0.0) + p
        if self.hit_chance == 0 and self.crit_chance == 0:
            return after_check
        out: dict = {}
        massive_hit, massive_crit = self._massive_p()
        raise_dc = self.hit_dc is not None and self.hit_dc > self.base_dc
        extra = self.wounded if self.wounded_rule else 0
        for key, p in after_check.items():
            if isinstance(key, str):
                out[key] = out.get(key, 0.0) + p
                continue
            d, _, r = key
            p_none = 1.0 - self.hit_chance - self.crit_chance
            if p_none > 0:
                out[key] = out.get(key, 0.0) + p * p_none
            for chance, gain, massive in ((self.hit_chance, 1, massive_hit), (self.crit_chance, 2, massive_crit)):
                if chance == 0:
                    continue
                if massive > 0:
                    out["dead"] = out.get("dead", 0.0) + p * chance * massive
                q = p * chance * (1.0 - massive)
                if q == 0:
                    continue
                new = max(d, gain + extra) if self.on_damage == "max" else d + gain
                r2 = r or raise_dc
                if new > d:
                    rise(d, new, q, out, r2)
                else:
                    out[(d, hero, r2)] = out.get((d, hero, r2), 0.0) + q
        return out


_TABLE_CACHE: dict = {}


def _tables(rules: Dying) -> dict[str, np.ndarray]:
    hit = _TABLE_CACHE.get(rules)
    if hit is not None:
        return hit
    S = rules._n_states()
    check = np.full((S, 21), -1 - STABLE, dtype=np.int64)  # dying 0 / roll 0: unused
    enemy = np.full((S, 4), -1 - STABLE, dtype=np.int64)
    for s in range(S):
        dying, hero, raised = rules._decode(s)
        if dying == 0:
            continue
        for roll in range(1, 21):
            out, d, h, r = rules.ref_check(dying, hero, raised, roll)
            check[s, roll] = -1 - out if out is not None else rules._code(d, h, r)
        for kind in range(4):
            out, d, h, r = rules.ref_enemy(dying, hero, raised, kind)
            enemy[s, kind] = -1 - out if out is not None else rules._code(d, h, r)
    res = {"check": check.astype(np.int16).ravel(), "enemy": enemy.astype(np.int16).ravel()}
    # k rounds of checks without enemy, r = sum (roll_i - 1) * 20**i over i < k
    prev = np.arange(S, dtype=np.int64)[:, None]  # (S, 20**(k-1)) after k-1 rounds
    for k in range(1, 4):
        r = np.arange(20**k)
        before = prev[:, r % 20 ** (k - 1)]  # (S, 20**k)
        roll_k = r // 20 ** (k - 1) % 20 + 1
        active = before >= 0
        stepped = check[np.where(active, before, 0), roll_k[None, :]]
        stepped = np.where(stepped < 0, stepped - (k - 1) * 3, stepped)
        prev = np.where(active, stepped, before)
        res[f"pack{k}"] = prev.astype(np.int16).ravel()
    # packed tables in engine codes: -1 - state for a track still dying, else
    # outcome + 3 * offset; plus the knock-out state's row (the first step of every track)
    out, d0 = rules.ref_knockout()
    s0 = rules._code(min(d0, rules.death_at - 1), rules.hero_points > 0, False) if out is None else 0
    for k in (1, 2, 3):
        packed = (-1 - res[f"pack{k}"].astype(np.int64)).astype(np.int16)
        packed.setflags(write=False)
        res[f"pack{k}"] = packed
        res[f"first{k}"] = packed.reshape(S, -1)[s0].copy()
    for v in res.values():
        v.setflags(write=False)
    if len(_TABLE_CACHE) > 256:
        _TABLE_CACHE.clear()
    _TABLE_CACHE[rules] = res
    return res
