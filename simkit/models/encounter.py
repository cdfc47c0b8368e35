"""An encounter: one character's fight from full HP to safety, death or the horizon.

One step is one round. Each track is one player character (PC) against ``enemies``
identical enemies, with an optional healer ally. The PC's own attacks are not
modelled (the enemies never fall); the fight ends after ``fight_rounds`` rounds or,
each round, with probability ``end_chance``.

Round structure (round ``t``, 1-based)
--------------------------------------
1. **Healer arrival.** The healer arrives at the start of round ``healer_round`` (or,
   not yet here, at the start of each round with probability ``healer_chance``).
   With ``until="healer"`` the track ends here, before the healer acts: the outcome
   is the PC's status when help arrives (``standing``, ``revived``, ``stable``,
   ``dying`` or, earlier, ``dead``).
2. **Healer's turn** (first in the round once it is here). PC at 0 HP and a heal left
   (``heals``): heals ``heal_dice`` HP (R0-04, R1-03: conscious, dying lost). Else,
   PC dying (seed 000) or agonising (seed 001) and ``medicine`` set: first aid, d20 +
   ``medicine`` + ``check_penalty`` >= ``first_aid_dc`` (15, R1-02; a plain check, no
   natural 20/1, as in ``perseverance``): stable at 0 HP. Else, with
   ``heal_when="wounded"``, a conscious PC at half HP or
   less gets a heal.
3. **Initiative order.** The enemies act in order 1..E; the PC's turn sits at a slot
   ``pos``: just before enemy ``pos + 1`` (``pos = E``: after the last enemy). It
   starts first (``initiative="pc_first"``, ``pos = 0``) or last
   (``"enemies_first"``). **Knock-out (R0-03)**: knocked out by enemy ``j``, the PC
   moves to just before enemy ``j`` (``pos = j - 1``): the enemies after ``j`` this
   round and before ``j`` next round act (and may hit it) before its first recovery
   check, which comes just before enemy ``j``'s next turn. Damage while unconscious
   does not move it (R0-09). The same order is kept under seed 001.
4. **PC's turn.** Seed 000 (``dying_rules="seed000"``), dying: the recovery check at
   the start of its turn (R0-05, R0-06, ``check``, A0-4), hero points (R0-10,
   ``hero_policy``, A0-3), death at ``death_at`` (R0-04). Seed 001, as the
   ``perseverance`` model: agonising, it spends the stabilisation cost (a quarter of
   ``pp_max``, min 1, max ``stabilize_cap``, R1-04) when ``spend`` says so (``asap``;
   ``last``: when its PP equal the cost; ``k``: after k agonising turns or at its last
   chance); then, stable with ``back_in_fight``, it spends 1 PP to get up at 1 HP
   (R1-05; ``enough_pp`` PP needed after a lethal knock-out, A1-3; 1 after a
   nonlethal one); still agonising, it loses 1 PP at the end of its turn and dies at
   0 PP (R1-01). A conscious PC's actions are not modelled.
5. **Enemy's turn** (while the fight lasts). With probability ``effect_chance`` one
   spell-like effect (a basic save of the PC's ``effect_save`` against
   ``effect_dc``: critical success no damage, success half, failure full, critical
   failure double), else ``attacks`` strikes at ``attack_bonus`` with the multiple
   attack penalty ``map`` against the PC's AC (AC - 6 when unconscious: R0-11's -4
   and off-guard -2); a critical hit (R0-05 degrees) doubles the damage. Each action
   at a PC at 0 HP is made with probability 0 / ``downed_chance`` / 1
   (``target_downed`` = never / sometimes / always); the other actions go elsewhere.
6. **End of round.** The fight ends after round ``fight_rounds`` or with probability
   ``end_chance``. Once it is over, the track ends when the PC is conscious
   (``standing`` if never knocked out, else ``revived``) or at 0 HP and not dying
   (``stable``; under seed 001 with ``long_term`` the hourly Constitution checks of
   R1-06..R1-08 are then resolved at once: ``revived`` or ``dead``, with the hours
   taken in the ``hours`` mark). A dying PC carries on (checks, healer) until it
   ends.

The PC at 0 HP is kept by :class:`simkit.models.downed.Downed` (its one-PC case, the
component ``party`` uses for its PCs); this model keeps only the track's DEAD outcome and
its marks. Every rule is a phase of :mod:`simkit.rules`, shared with the track models:
the recovery check (``recovery_check``), damage while dying (``dying_damage``, A0-1, A0-2, A0-6
``wounded_adds``), hero points (``hero_points``, A0-3, A0-7 ``hero_knockout``), massive
damage and temporary HP (``massive_damage``) and the hourly Constitution check
(``hourly``: DC-15 Medicine of a tending healer, ``natural`` for A1-6, no danger of death
after a nonlethal knock-out). A strike is one draw when ``20 x`` its damage outcomes fit
in 16 bits (:attr:`Encounter.strike_width`), and the state keeps only the fields a
configuration uses (:meth:`Encounter.fields`; a mark with no field is 0).

Damage (every hit)
------------------
Massive damage first: a hit of at least 2 x ``hp_max`` (before temporary HP) kills
(R0-13). A conscious PC loses temporary HP first (R0-14), then HP; at 0 HP it is
knocked out (R0-03): by a ``death`` trait effect, dead (R0-12); ``nonlethal``,
unconscious and stable, no dying (R0-02, R0-03, R1-11); lethal, dying 1 (2 on the
attacker's critical success or the PC's critical failure; + wounded with the wounded
rule, A0-2), recovery DC = the source's DC (``dc``: the monster's high DC, R0-06;
``effect_dc`` for effects), or agonising under seed 001 (dead at once at 0 PP,
``zero_pp``, A1-1). A PC at 0 HP hit again (R0-09): death trait, dead; nonlethal,
nothing; lethal, seed 000: a dying PC's dying becomes the knock-out value if higher
(``on_damage="max"``, A0-1 as written) or rises by 1 (2 on a critical,
``"increment"``), and the recovery DC rises to the new source's if higher; a stable
PC is knocked out again (dying 1/2 + wounded, the new source's DC). Seed 001 (silent
on it): a stable PC starts agonising again, an agonising one carries on.

A PC that starts at ``hp=0`` was knocked out by enemy 1 before round 1 (``pos = 0``)
with dying ``start_dying`` (seed 000), or agonising with ``pp`` PP (seed 001).

Level-based defaults (:mod:`simkit.rules.pf2e.creatures`): ``level`` gives the PC's HP, AC,
saves and PP (a typical fighter); ``monster_level`` (default: ``level``) and
``benchmark`` give the enemies' attack bonus, damage, spell DC, and the recovery DC
(:func:`simkit.rules.pf2e.levels.monster_high_dc`, A0-5). So ``level=5, monster_level=7`` is a
complete question.

Marks (histogrammed at absorption): ``knocked_out`` (0/1), ``ko_round`` (round of
the first knock-out, 0 if none or before round 1), ``hp`` (HP left), ``hero_spent``,
``healer`` (1 if the healer was there), ``hours`` (seed 001 long-term hours). The
designer's summary and the level sweep are in :mod:`simkit.analysis.encounter_report`;
the scalar reference of the kernel in :mod:`simkit.models.encounter_ref`. With
``engine="loop"`` the compiled fight loop plays it (:mod:`simkit.models.encounter_loop`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from simkit.core.model import Rules
from simkit.core.params import ParamError, param
from simkit.models.downed import DYING as DOWN_DYING
from simkit.models.downed import STABLE as DOWN_STABLE
from simkit.models.downed import UP, Downed
from simkit.rules import dying_systems
from simkit.rules.dice import (
    CRIT_FAIL,
    CRIT_SUCCESS,
    MAX_DICE_TABLE,
    SUCCESS,
    Dice,
    degree_table,
    degrees,
    dice_draw,
    dice_table,
    dice_values,
)
from simkit.rules.dying_damage import (
    WOUNDED_ADDS,
)
from simkit.rules.first_aid import first_aid_lookup
from simkit.rules.hero_points import (
    HERO_EFFECT,
    HERO_KNOCKOUT,
    HERO_POLICY,
    hero_threshold,
)
from simkit.rules.hourly import WAKE_HOURS as HOURS
from simkit.rules.massive_damage import is_massive, take_damage
from simkit.rules.parameters import shared
from simkit.rules.perseverance import stabilize_cost as pp_stabilize_cost
from simkit.rules.pf2e import creatures, pcs
from simkit.rules.pf2e.levels import monster_high_dc
from simkit.rules.strike import BASIC_X2, STRIKE_MULT, map_penalty, strike_ac

__all__ = ["OUTCOMES", "Encounter"]

OUTCOMES = ("standing", "revived", "stable", "dead", "dying")
STANDING, REVIVED, STABLE, DEAD, DYING = range(5)
# values of the ``cond`` state field: UP, DOWN_DYING, DOWN_STABLE (the downed-PC component's)
DELTA = np.array([2, 1, -1, -2], dtype=np.int16)  # degree -> change of dying (R0-05)


@lru_cache(maxsize=256)
def _strike_degrees(bonus: int, ac: int, penalties: tuple[int, ...]) -> np.ndarray:
    """Degree of each strike (R0-05) by [strike, PC down, natural roll]: int8 (A, 2, 21)."""
    return np.array(
        [
            [degree_table(bonus - p, strike_ac(ac, down)) for down in (False, True)]
            for p in penalties
        ]
    )


@dataclass(frozen=True, slots=True)
class Encounter(Rules):
    """One PC against enemies, from full HP to safe, dead or the horizon; one step = one round."""

    name: ClassVar[str] = "encounter"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = OUTCOMES
    marks: ClassVar[tuple[str, ...]] = (
        "knocked_out",
        "ko_round",
        "hp",
        "hero_spent",
        "healer",
        "hours",
    )
    rule_ids: ClassVar[str] = "R0-01..R0-14, R1-01..R1-08, R1-11; A0-1..A0-7, A1-1..A1-3, A1-6"
    headline_params: ClassVar[tuple[str, ...]] = (
        'level',
        'monster_level',
        'enemies',
        'target_downed',
        'healer_round',
        'hero_points',
        'fight_rounds',
    )
    active_label: ClassVar[str] = "still in the fight"
    #: the same four overrides for the encounter's seed-000 dying track
    presets: ClassVar[dict[str, dict[str, Any]]] = {
        "seed": {},
        "pf2e-core": dying_systems.options("pf2e-core"),
    }

    # -- the character -------------------------------------------------------------
    level: int = shared("level", default=5)
    hp_max: int | None = shared("hp_max")
    hp: int | None = shared("hp")
    temp_hp: int = shared("temp_hp")
    ac: int | None = param(
        None, kind="int", lo=0, hi=80, optional=True, help="Armour Class; default by level"
    )
    fort: int | None = param(
        None,
        kind="int",
        lo=-20,
        hi=80,
        optional=True,
        rule="R0-05",
        help="Fortitude save (also the recovery check); default by level",
    )
    reflex: int | None = param(
        None, kind="int", lo=-20, hi=80, optional=True, help="Reflex save; default by level"
    )
    will: int | None = param(
        None, kind="int", lo=-20, hi=80, optional=True, help="Will save; default by level"
    )
    check_penalty: int = shared("check_penalty")
    hero_points: int = shared("hero_points", default=1)
    hero_policy: str | int = param(**HERO_POLICY)
    hero_effect: str = param(**HERO_EFFECT)
    hero_knockout: str = param(**HERO_KNOCKOUT)
    # -- dying: which system, and each system's options ----------------------------------
    dying_rules: str = param(
        "seed000",
        kind="choice",
        choices=("seed000", "seed001"),
        help="at 0 HP: seed 000 dying, or seed 001 perseverance then hourly recovery",
    )
    start_dying: int = shared("start_dying")
    wounded: int = shared("wounded")
    wounded_rule: bool = shared("wounded_rule")
    check: str = shared("check")
    death_at: int = shared("death_at")
    on_damage: str = param(
        "max",
        kind="choice",
        choices=("max", "increment"),
        rule="A0-1",
        help="damage while dying: keep the higher dying value, or add 1 (2 on a crit)",
    )
    wounded_adds: str = param(**WOUNDED_ADDS)
    dying: Any = param(
        None,
        kind="downed_rule",
        optional=True,
        seed_neutral=True,
        help="the PCs' rule at 0 HP: none = the rules set's own track; a custom track "
        "(dnd5e, dnd5e(dc=12;bonus=2), or a track object in Python) in its place "
        "(simkit.models.downed_rule says what a fight needs from it)",
    )
    pp_max: int | None = shared("pp_max", default=None)
    pp: int | None = shared("pp", default=None)
    spend: str | int = shared("spend")
    stabilize_cap: int | None = shared("stabilize_cap", optional=True)
    back_in_fight: bool = shared("back_in_fight")
    enough_pp: int = shared("enough_pp")
    zero_pp: str = shared("zero_pp")
    long_term: bool = shared("long_term")
    checks: int = shared("checks")
    con: int | None = shared("con", default=None)
    natural: bool = shared("natural")
    # -- the enemies ------------------------------------------------------------------
    monster_level: int | None = shared("monster_level")
    benchmark: str = shared("benchmark")
    enemies: int = param(1, kind="int", lo=0, hi=8, help="number of enemies (0: no fight)")
    attack_bonus: int | None = param(
        None,
        kind="int",
        lo=-10,
        hi=80,
        optional=True,
        help="strike attack bonus; default by monster_level",
    )
    damage: str | None = param(
        None, kind="dice", optional=True, help="strike damage dice; default by monster_level"
    )
    attacks: int = shared("attacks")
    map: str = shared("map")
    trait: str = shared("trait")
    dc: int | None = shared("dc")
    monster_dc: str = shared("monster_dc")
    effect_chance: float = param(
        0.0,
        kind="float",
        lo=0.0,
        hi=1.0,
        help="per enemy turn: probability of a spell-like effect instead of strikes",
    )
    effect_dc: int | None = param(
        None,
        kind="int",
        lo=1,
        hi=100,
        optional=True,
        rule="R0-06",
        help="DC of the spell-like effect; default: spell DC by monster_level",
    )
    effect_damage: str | None = param(
        None,
        kind="dice",
        optional=True,
        help="damage of the effect (basic save); default: the strike damage",
    )
    effect_save: str = param(
        "reflex", kind="choice", choices=("fort", "reflex", "will"), help="save against the effect"
    )
    target_downed: str = shared("target_downed")
    downed_chance: float = shared("downed_chance")
    # -- the healer -------------------------------------------------------------------
    healer_round: int | None = param(
        None,
        kind="int",
        lo=1,
        hi=100000,
        optional=True,
        unit="round",
        help="round at whose start the healer arrives (none: never)",
    )
    healer_chance: float = param(
        0.0,
        kind="float",
        lo=0.0,
        hi=1.0,
        help="per-round chance that the healer arrives (instead of healer_round)",
    )
    heal_dice: str | None = param(
        None,
        kind="dice",
        optional=True,
        rule="R0-04, R1-03",
        help="HP of one heal; default: a cleric's heal spell of the level",
    )
    heals: int = param(3, kind="int", lo=0, hi=100, help="heals the healer can cast")
    heal_when: str = param(
        "downed",
        kind="choice",
        choices=("downed", "wounded"),
        help="heal only a downed PC, or also a conscious one at half HP or less",
    )
    medicine: int | None = param(
        None,
        kind="int",
        lo=-10,
        hi=80,
        optional=True,
        rule="R1-02, R1-08",
        help="healer's Medicine bonus for first aid (none: no first aid)",
    )
    first_aid_dc: int = shared("first_aid_dc")
    # -- the encounter ----------------------------------------------------------------
    initiative: str = param(
        "pc_first",
        kind="choice",
        choices=("pc_first", "enemies_first"),
        rule="R0-03",
        help="the PC's place in the initiative order at the start",
    )
    fight_rounds: int | None = param(
        10,
        kind="int",
        lo=1,
        hi=100000,
        optional=True,
        unit="rounds",
        help="rounds the enemies fight (none: until end_chance)",
    )
    end_chance: float = param(
        0.0, kind="float", lo=0.0, hi=1.0, help="per-round chance the fight ends"
    )
    until: str = param(
        "safe",
        kind="choice",
        choices=("safe", "healer"),
        help="run to safety/death, or stop when the healer arrives",
    )
    max_rounds: int = shared("max_rounds")
    #: How the Monte Carlo plays the encounter: ``kernel`` (the vectorised kernel, the
    #: default) or ``loop`` (the compiled fight loop of :mod:`simkit.fight`, issue 28: its
    #: own dice, the same rules; :mod:`simkit.models.encounter_loop`). Not a parameter of
    #: the command line.
    engine: str = "kernel"

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A PC of ``level`` (its HP, AC, saves and PP follow the level)."""
        return {"level": level}

    @classmethod
    def typical_opponent(cls, level: int) -> dict[str, Any]:
        """Monsters of the same level (attack, damage and DCs follow it)."""
        return {"monster_level": level}

    def validate(self) -> None:
        if self.engine not in ("kernel", "loop"):
            raise ParamError(f"engine must be 'kernel' or 'loop', got {self.engine!r}")
        if self.dying is not None:
            from simkit.models.downed_rule import fight_needs, resolve

            why = fight_needs(resolve(self.dying))
            if why is None and self.engine != "loop":
                why = (
                    "dying=: the encounter's kernel plays only its own tracks; "
                    "Encounter(..., engine='loop') plays a custom track"
                )
            if why is None and not self.seed000:
                why = (
                    "dying= replaces the seed-000 dying track; dying_rules=seed001 keeps "
                    "its own (agonising, R1-01)"
                )
            if why is not None:
                raise ParamError(why)
        if self.engine == "loop":
            from simkit.models.encounter_loop import supported

            why = supported(self)
            if why is not None:
                raise ParamError(f"engine='loop': {why}")
        if self.hp is not None and self.hp > self.max_hp:
            raise ParamError(
                f"hp={self.hp} is not allowed: hp must be at most hp_max ({self.max_hp})"
            )
        if self.pp is not None and self.pp > self.max_pp:
            raise ParamError(
                f"pp={self.pp} is not allowed: pp must be at most pp_max ({self.max_pp})"
            )
        if self.wounded and not self.wounded_rule:
            raise ParamError(f"wounded={self.wounded} needs wounded_rule=true (A0-2)")
        if self.healer_round is not None and self.healer_chance > 0:
            raise ParamError("healer_round and healer_chance are exclusive: give one of them")
        if self.until == "healer" and not self.healer_possible:
            raise ParamError("until=healer needs a healer: set healer_round or healer_chance")
        if Dice.parse(self.heal).min < 1:
            raise ParamError(
                f"heal_dice={self.heal_dice!r} is not allowed: a heal must give at least 1 HP"
            )

    # -- resolved numbers (level-based defaults) -----------------------------------------
    @property
    def typical(self) -> pcs.PCStats:
        """The typical PC of the level: the fighter of :func:`simkit.rules.pf2e.pcs.role`."""
        return pcs.role("fighter", self.level)

    @property
    def max_hp(self) -> int:
        return self.hp_max if self.hp_max is not None else self.typical.hp

    @property
    def start_hp(self) -> int:
        return self.max_hp if self.hp is None else self.hp

    @property
    def armor(self) -> int:
        return self.ac if self.ac is not None else self.typical.ac

    def save(self, which: str) -> int:
        """The PC's save bonus (``fort``, ``reflex``, ``will``), with ``check_penalty``."""
        value = getattr(self, which)
        return (
            value if value is not None else getattr(self.typical, which)
        ) + self.check_penalty

    @property
    def mlevel(self) -> int:
        """The enemies' level."""
        return self.monster_level if self.monster_level is not None else min(self.level, 24)

    @property
    def strike_bonus(self) -> int:
        return (
            self.attack_bonus
            if self.attack_bonus is not None
            else creatures.monster_attack(self.mlevel, self.benchmark)
        )

    @property
    def strike_dice(self) -> str:
        return (
            self.damage
            if self.damage is not None
            else creatures.monster_damage(self.mlevel, self.benchmark)
        )

    @property
    def strike_dc(self) -> int:
        """Recovery DC set by a strike (R0-06)."""
        return self.dc if self.dc is not None else monster_high_dc(self.mlevel, self.monster_dc)

    @property
    def spell_dc(self) -> int:
        return (
            self.effect_dc
            if self.effect_dc is not None
            else creatures.monster_spell_dc(self.mlevel, self.benchmark)
        )

    @property
    def effect_dice(self) -> str:
        return self.effect_damage if self.effect_damage is not None else self.strike_dice

    @property
    def heal(self) -> str:
        return self.heal_dice if self.heal_dice is not None else pcs.heal_dice(self.level)

    @property
    def max_pp(self) -> int:
        return self.pp_max if self.pp_max is not None else self.typical.pp_max

    @property
    def start_pp(self) -> int:
        return self.max_pp if self.pp is None else self.pp

    @property
    def stabilize_cost(self) -> int:
        """PP spent to stabilise (R1-04): a quarter of the max, at least 1, at most the cap."""
        return int(pp_stabilize_cost(self.max_pp, self.stabilize_cap))

    @property
    def con_mod(self) -> int:
        return self.con if self.con is not None else self.typical.con

    @property
    def healer_possible(self) -> bool:
        return self.healer_round is not None or self.healer_chance > 0

    @property
    def seed000(self) -> bool:
        return self.dying_rules == "seed000"

    @property
    def threshold(self) -> int | None:
        """Dying value that triggers a hero point (0 = at the knock-out); None = never."""
        if not self.seed000:
            return None
        return hero_threshold(self.hero_policy, self.hero_points, self.death_at)

    @property
    def long_term_on(self) -> bool:
        return not self.seed000 and self.long_term

    def strike_penalty(self, a: int) -> int:
        """Multiple attack penalty of the ``a``-th strike of a turn (0-based)."""
        return map_penalty(self.map, a)

    # -- random draws: one fixed plan per rules object --------------------------------
    @property
    def strike_width(self) -> int:
        """Width of the one integer drawn per strike (d20 and damage dice), or 0 for two draws.

        With ``L = sides ** count`` damage outcomes and ``20 * L <= 65536``, a strike is one
        uniform integer ``r`` in ``[0, 20 L)``: natural roll ``r % 20 + 1``, damage dice
        the base-``sides`` digits of ``r // 20`` (exact, and one table lookup).
        """
        kind = dice_draw(self.strike_dice)
        if kind.startswith("below:") and 20 * int(kind[6:]) <= MAX_DICE_TABLE:
            return 20 * int(kind[6:])
        return 0

    def draw_plan(
        self, initial: bool = False, t: int | None = None
    ) -> list[tuple[str, str, tuple[int, ...]]]:
        """(name, kind, trailing shape) of every array drawn in round ``t`` (or at step 0).

        The plan depends on the rules and the round alone, never on the tracks' states,
        so a track's draws do not depend on the other tracks of its block; a round draws
        only what it can use (no strikes once the fight is over, no healer's rolls before
        it can be there). ``t=None``: every array any round draws. Kinds: ``d20``,
        ``random`` (a uniform float), ``below:L`` (a uniform integer in ``[0, L)``; the
        recovery check's ``check_roll`` is ``below:20``, natural roll = value + 1).
        """
        E, A = self.enemies, self.attacks
        plan: list[tuple[str, str, tuple[int, ...]]] = []
        if not initial:
            if self.healer_chance > 0:
                plan.append(("arrive", "random", ()))
            if self.healer_possible and (
                t is None or self.healer_round is None or t >= self.healer_round
            ):
                plan.append(("heal_u", dice_draw(self.heal), ()))
                if self.medicine is not None:
                    plan.append(("aid_roll", "d20", ()))
            if self.seed000:
                plan.append(("check_roll", "below:20", ()))
            if E and (t is None or self.fighting(t)):
                if self.target_downed == "sometimes":
                    plan.append(("target_u", "random", (E, A)))
                if self.strike_width:  # one contiguous array per strike: strike{e}_{a}
                    plan += [
                        (f"strike{e}_{a}", f"below:{self.strike_width}", ())
                        for e in range(E)
                        for a in range(A)
                    ]
                else:
                    plan += [
                        ("atk_roll", "d20", (E, A)),
                        ("dmg_u", dice_draw(self.strike_dice), (E, A)),
                    ]
                if self.effect_chance > 0:
                    plan += [
                        ("eff_u", "random", (E,)),
                        ("save_roll", "d20", (E,)),
                        ("eff_dmg_u", dice_draw(self.effect_dice), (E,)),
                    ]
                if self.end_chance > 0:
                    plan.append(("end_u", "random", ()))
        if self.long_term_on and (not initial or E == 0):
            plan.append(("con_roll", "d20", (HOURS,)))
            if self.medicine is not None and self.healer_possible:
                plan.append(("med_roll", "d20", (HOURS,)))
        return plan

    def _draw(
        self, rng, m: int, initial: bool = False, t: int | None = None
    ) -> dict[str, np.ndarray]:
        out = {}
        for name, kind, shape in self.draw_plan(initial, t):
            size = (m,) + shape
            if kind == "d20":
                out[name] = rng.d20(size=size)
            elif kind == "random":
                out[name] = rng.random(size=size)
            else:  # below:L
                out[name] = rng.below(int(kind[6:]), size=size)
        return out

    # -- the state: only the fields these rules use ------------------------------------------
    def fields(self) -> tuple[str, ...]:
        """State fields of this configuration (marks it never changes are left out: 0)."""
        f = ["hp", "cond", "knocked_out", "ko_round"]
        if self.enemies > 1 or (self.enemies and self.initiative != "pc_first"):
            f.append("pos")  # (one enemy and the PC first: every slot is 0)
        if self.temp_hp:
            f.append("tmp")
        if self.seed000:
            f.append("dying")
            if self.dcs_vary:
                f.append("dcs")
            if self.wounded_rule:
                f.append("wounded")
            if self.hero_points:
                f.append("hero_spent")  # (points held: hero_points - hero_spent)
        else:
            f += ["pp", "turns"]
        if self.trait == "nonlethal":
            f.append("nl")
        if self.healer_possible:
            f += ["healer", "heals"]
        if self.enemies and self.end_chance > 0:
            f.append("fight")
        if self.long_term_on:
            f.append("hours")
        return tuple(f)

    @property
    def dcs_vary(self) -> bool:
        """Whether tracks' recovery DCs can differ (effects with another DC than strikes)."""
        return self.effect_chance > 0 and self.spell_dc != self.strike_dc

    def fighting(self, t: int) -> bool:
        """Whether the enemies still fight in round ``t`` (before ``end_chance``)."""
        return bool(self.enemies) and (self.fight_rounds is None or t <= self.fight_rounds)

    # -- Monte Carlo kernel ---------------------------------------------------------------
    def init(self, n: int, rng, start=None):
        """State arrays of shape (n,) at full HP (or knocked out with ``hp=0``); with
        ``engine="loop"``, a block played from ``start`` (a one-PC
        :class:`~simkit.models.fight_state.FightStart`) or fresh."""
        if self.engine == "loop":
            from simkit.models.encounter_loop import init as loop_init

            return loop_init(self, n, rng, start)
        start = {
            "hp": (self.start_hp, np.int32),
            "tmp": (self.temp_hp, np.int32),
            "cond": (UP, np.int8),
            "dying": (0, np.int16),
            "wounded": (self.wounded, np.int16),
            "dcs": (self.strike_dc, np.int16),
            "pos": (0 if self.initiative == "pc_first" else self.enemies, np.int8),
            "hero_spent": (0, np.int8),
            "pp": (self.start_pp, np.int16),
            "turns": (0, np.int16),
            "nl": (False, bool),
            "healer": (False, bool),
            "heals": (self.heals, np.int16),
            "fight": (self.enemies > 0, bool),
            "knocked_out": (0, np.int8),
            "ko_round": (0, np.int16 if self.max_rounds < 2**15 else np.int32),
            "hours": (0, np.int8),
        }
        S = {f: np.full(n, start[f][0], dtype=start[f][1]) for f in self.fields()}
        code = np.full(n, -1, dtype=np.int8)
        D = self._draw(rng, n, initial=True)
        if self.start_hp == 0:
            idx = np.arange(n)
            if self.trait == "death":
                code[:] = DEAD
            else:
                self._knockout(
                    S,
                    code,
                    idx,
                    np.zeros(n, dtype=bool),
                    self.strike_dc,
                    0,
                    0,
                    dying=self.start_dying,
                )
        self._resolve(S, D, code, self.fighting(1), 0)
        return S, code

    @property
    def carry(self):
        """What ended tracks hand to a next fight (``keep_state``): with ``engine="loop"``
        only (the kernel has none, so ``start=``/``keep_state`` are refused)."""
        if self.engine != "loop":
            raise AttributeError("carry")
        from simkit.models.encounter_loop import carry as loop_carry

        return lambda state, rows: loop_carry(self, state, rows)

    def step(self, state, t, rng):
        """One round of the active tracks (see the module docstring for the order)."""
        if self.engine == "loop":
            from simkit.models.encounter_loop import step as loop_step

            return loop_step(self, state, t, rng)
        S = state
        m = len(S["hp"])
        D = self._draw(rng, m, t=t)
        code = np.full(m, -1, dtype=np.int8)
        # 1. healer arrival
        if self.healer_possible:
            before = S["healer"].copy() if self.until == "healer" else None
            if self.healer_round is not None and t >= self.healer_round:
                S["healer"][:] = True
            if self.healer_chance > 0:
                S["healer"] |= D["arrive"] < self.healer_chance
            if before is not None:
                arrived = S["healer"] & ~before
                code[arrived] = self._status(S, arrived)
            # 2. healer's turn (no healer's rolls drawn: it cannot be there yet)
            if "heal_u" in D:
                self._healer_turn(S, D, code)
        # 3-5. the PC and the enemies in initiative order
        fight = self.fighting(t)
        for s in range(self.enemies + 1):
            if (
                s < self.enemies or s == 0 or self.initiative != "pc_first"
            ):  # slot E: where it starts
                self._pc_turn(S, D, code, s)
            if s < self.enemies and fight:
                self._enemy_turn(S, D, code, s, t)
        # 6. end of round
        fight = self.fighting(t + 1)
        if self.enemies and self.end_chance > 0:
            if not fight:
                S["fight"][:] = False
            if "end_u" in D:  # (not drawn once the fight is over: fight_rounds passed)
                S["fight"] &= D["end_u"] >= self.end_chance
        self._resolve(S, D, code, fight, t)
        return code

    # -- pieces of a round ------------------------------------------------------------------
    def _status(self, S, mask):
        """Outcome code of the PC's status where ``mask`` (used by ``until="healer"``)."""
        cond = S["cond"][mask]
        return np.select(
            [cond == UP, cond == DOWN_STABLE],
            [np.where(S["knocked_out"][mask] > 0, REVIVED, STANDING), STABLE],
            DYING,
        ).astype(np.int8)

    def _resolve(self, S, D, code, fight: bool, t: int):
        """Tracks that end now: the fight is over and the PC is conscious or stable."""
        if "fight" in S:
            fin = (code < 0) & ~S["fight"]
        elif fight:
            return
        else:
            fin = code < 0
        cond = S["cond"]
        up = fin & (cond == UP)
        code[up] = np.where(S["knocked_out"][up] > 0, REVIVED, STANDING)
        st = np.flatnonzero(fin & (cond == DOWN_STABLE))
        if not len(st):
            return
        if not self.long_term_on:
            code[st] = STABLE
            return
        # seed 001, R1-06..R1-08: hourly Constitution checks (rules.hourly), first decisive wins
        healer = med = None
        if "med_roll" in D:  # (drawn only with a healer's Medicine)
            healer = np.where(S["healer"][st], int(self.medicine or 0), -1)
            med = D["med_roll"][st]
        died, hours = _downed(self).hourly(
            S, st, D["con_roll"][st], med, healer, self.check_penalty, self.max_hp
        )  # R1-07 (R0-01: at most max HP)
        code[st] = np.where(died, DEAD, REVIVED)
        S["hours"][st] = hours

    def _healer_turn(self, S, D, code):
        here = (code < 0) & S["healer"]
        cond = S["cond"]
        amount = dice_values(self.heal, D["heal_u"])
        can_heal = here & (S["heals"] > 0)
        heal_down = can_heal & (cond != UP)
        i = np.flatnonzero(heal_down)
        if len(i):
            _downed(self).wake(S, i)  # conscious, dying lost (A0-2)
            S["hp"][i] = np.minimum(self.max_hp, amount[i])
            S["heals"][i] -= 1
        if self.medicine is not None:
            aid = here & ~heal_down & (cond == DOWN_DYING)
            ok = aid & first_aid_lookup(  # R1-02 (rules/first_aid)
                D["aid_roll"],
                bonus=self.medicine,
                check_penalty=self.check_penalty,
                dc=self.first_aid_dc,
            )
            _downed(self).stabilize(S, np.flatnonzero(ok))
        if self.heal_when == "wounded":
            top = np.flatnonzero(
                can_heal & ~heal_down & (cond == UP) & (2 * S["hp"] <= self.max_hp)
            )
            S["hp"][top] = np.minimum(self.max_hp, S["hp"][top] + amount[top])
            S["heals"][top] -= 1

    def _pc_turn(self, S, D, code, s):
        cond = S["cond"]
        dn = np.flatnonzero(cond == DOWN_DYING) if self.seed000 else np.flatnonzero(cond != UP)
        if not len(dn):
            return
        if s or self.until == "healer" or not self.seed000:  # (before slot 0 no track has ended)
            dn = dn[code.take(dn) < 0]
        i = dn[S["pos"].take(dn) == s] if "pos" in S else dn
        if not len(i):
            return
        downed = _downed(self)
        if self.seed000:  # the recovery check (R0-05..R0-07, A0-4), R0-10, R0-04
            # one recovery DC for every track (no ``dcs``): the whole turn is one lookup
            dc = S["dcs"][i] if "dcs" in S else self.strike_dc
            died = downed.recovery_turn(S, i, D["check_roll"].take(i), self.save("fort"), dc)
            code[died] = DEAD
            return
        # seed 001: spend PP to stabilise (R1-04), get back up (R1-05), lose 1 PP (R1-01)
        code[downed.agonise(S, i)] = DEAD

    def _knockout(self, S, code, i, crit, src_dc, enemy, t, move=True, dying=1):
        """Tracks ``i`` are knocked out (R0-03; R1-01, R1-11): status, DC, initiative."""
        if not len(i):
            return
        if move and "pos" in S:
            S["pos"][i] = enemy
        ko = S["knocked_out"]
        first = i[ko[i] == 0]
        S["ko_round"][first] = t
        ko[i] = 1
        code[_downed(self).knockout(S, i, crit, src_dc, start=dying)] = DEAD  # R0-03, A0-2

    def _damage(self, S, code, i, dmg, crit, src_dc, enemy, t):
        """Damage ``dmg`` (> 0) to tracks ``i`` (R0-13, R0-14, R0-03, R0-09, R0-12)."""
        if not len(i):
            return
        massive = is_massive(dmg, self.max_hp)
        if massive.any():
            dead = i[massive]
            code[dead] = DEAD
            S["hp"][dead] = 0
            if "tmp" in S:
                S["tmp"][dead] = 0
            keep = ~massive
            i, dmg, crit = i[keep], dmg[keep], crit[keep]
        up = S["cond"][i] == UP
        all_up = up.all()
        # conscious: temporary HP first, then HP; knocked out at 0 (simkit.rules.massive_damage)
        iu, du, cu = (i, dmg, crit) if all_up else (i[up], dmg[up], crit[up])
        if "tmp" in S:
            hp, S["tmp"][iu] = take_damage(S["hp"][iu], S["tmp"][iu], du)
        else:
            hp = np.maximum(S["hp"][iu] - du, 0)
        S["hp"][iu] = hp
        ko = hp == 0
        if ko.any():
            if self.trait == "death":  # R0-12
                code[iu[ko]] = DEAD
            else:
                self._knockout(S, code, iu[ko], cu[ko], src_dc, enemy, t)
        if all_up:
            return
        # unconscious (R0-09): same effects as a knock-out, initiative unchanged
        died, _ = _downed(self).hit_down(S, i[~up], crit[~up], src_dc)
        code[died] = DEAD

    def _enemy_turn(self, S, D, code, e, t):
        acting = code < 0
        if "fight" in S:
            acting &= S["fight"]
        if self.effect_chance > 0:
            effect = D["eff_u"][:, e] < self.effect_chance
            aim0 = self._aims(S, D, e, 0)
            self._effect(S, D, code, acting & effect, aim0, e, t)
            acting &= ~effect
        width = self.strike_width
        if width:
            dmg_tab, crit_tab = _strike_tables(
                self.strike_bonus,
                self.armor,
                tuple(self.strike_penalty(a) for a in range(self.attacks)),
                self.strike_dice,
            )
        else:
            table = _strike_degrees(
                self.strike_bonus,
                self.armor,
                tuple(self.strike_penalty(a) for a in range(self.attacks)),
            )
        cond = S["cond"]
        pool = None  # tracks whose turn is played strike by strike (None: all acting ones)
        if width:
            # conscious tracks that stay conscious through the whole turn: one lookup of every
            # strike's damage, then the sum (temporary HP soak the sum as they soak each hit)
            # (computed over every track, used for the acting conscious ones)
            up = cond == UP
            ok = acting & up
            massive = int(dmg_tab.max(initial=0)) >= 2 * self.max_hp
            total = None
            for a in range(self.attacks):
                dmg = dmg_tab[a].take(D[f"strike{e}_{a}"])
                total = dmg if total is None else total + dmg
                if massive:  # a massive hit: strike by strike
                    ok &= dmg < 2 * self.max_hp
            hp = S["hp"]
            if "tmp" in S:
                ok &= total < hp + S["tmp"]
                j = np.flatnonzero(ok)
                hp[j], S["tmp"][j] = take_damage(hp[j], S["tmp"][j], total[j])
            else:
                ok &= total < hp
                hp -= total * ok
            pool = np.flatnonzero(
                (acting & ~ok) if self.target_downed != "never" else (acting & up & ~ok)
            )
        for a in range(self.attacks):
            if pool is None:
                up = cond == UP
                if self.target_downed == "never":
                    tgt = acting & up
                elif self.target_downed == "always":
                    tgt = acting.copy()
                else:
                    tgt = acting & (up | (D["target_u"][:, e, a] < self.downed_chance))
                if a:
                    tgt &= code < 0
                i = np.flatnonzero(tgt)
            else:
                i = pool[code.take(pool) < 0] if a else pool
                if self.target_downed == "never":
                    i = i[cond.take(i) == UP]
                elif self.target_downed == "sometimes":
                    i = i[
                        (cond.take(i) == UP) | (D["target_u"][:, e, a].take(i) < self.downed_chance)
                    ]
            if not len(i):
                continue
            if width:
                idx = D[f"strike{e}_{a}"].take(i).astype(np.intp)
                if self.target_downed != "never":
                    idx += (cond.take(i) != UP) * width
                dmg = dmg_tab[a].take(idx)
                hit = dmg > 0
                i, dmg, crit = i[hit], dmg[hit], crit_tab[a].take(idx[hit])
            else:
                down = cond.take(i) != UP
                deg = table[a].ravel().take(down * 21 + D["atk_roll"][:, e, a].take(i))
                hit = deg >= SUCCESS
                i, crit = i[hit], deg[hit] == CRIT_SUCCESS
                dmg = dice_values(self.strike_dice, D["dmg_u"][:, e, a].take(i))
                dmg[crit] *= 2
                keep = dmg > 0
                i, dmg, crit = i[keep], dmg[keep], crit[keep]
            self._damage(S, code, i, dmg, crit, self.strike_dc, e, t)

    def _aims(self, S, D, e, a):
        if self.target_downed == "sometimes":
            return D["target_u"][:, e, a] < self.downed_chance
        return np.full(len(S["hp"]), self.target_downed == "always")

    def _effect(self, S, D, code, acting, aim, e, t):
        down = S["cond"] != UP
        i = np.flatnonzero(acting & (~down | aim))
        deg = degrees(D["save_roll"][i, e], self.save(self.effect_save), self.spell_dc)
        base = dice_values(self.effect_dice, D["eff_dmg_u"][i, e])
        dmg = (np.maximum(base, 0) * _BASIC_X2.take(deg)) >> 1  # P-04 (rules/strike)
        keep = dmg > 0
        self._damage(S, code, i[keep], dmg[keep], (deg == CRIT_FAIL)[keep], self.spell_dc, e, t)


@lru_cache(maxsize=256)
def _downed(rules: Encounter) -> Downed:
    """The downed-PC machinery of ``rules`` (its one PC: ``P = 1``)."""
    return Downed(
        seed000=rules.seed000,
        check=rules.check,
        on_damage=rules.on_damage,
        wounded_rule=rules.wounded_rule,
        hero_effect=rules.hero_effect,
        wounded_adds=rules.wounded_adds,
        hero_points=rules.hero_points,
        threshold=rules.threshold,
        death_at=rules.death_at,
        hero_knockout=rules.hero_knockout,
        hero_held=False,
        trait=rules.trait,
        zero_pp=rules.zero_pp,
        spend=rules.spend,
        cost=(rules.stabilize_cost,),
        back_in_fight=rules.back_in_fight,
        enough_pp=rules.enough_pp,
        checks=rules.checks,
        natural=rules.natural,
        level=rules.level,
        con=(rules.con_mod,),
    )


#: The strike and basic-save multipliers of rules/strike, indexed by degree (R0-05).
_STRIKE_MULT = np.array([STRIKE_MULT[d] for d in range(4)], dtype=np.int32)
_BASIC_X2 = np.array([BASIC_X2[d] for d in range(4)], dtype=np.int32)


@lru_cache(maxsize=256)
def _strike_tables(
    bonus: int, ac: int, penalties: tuple[int, ...], dice: str
) -> tuple[np.ndarray, np.ndarray]:
    """Damage dealt and critical flag of one strike by [strike, PC down * W + r] (W = 20 L).

    ``r`` is the strike's draw (see :attr:`Encounter.strike_width`): natural roll ``r % 20
    + 1``, damage dice from ``r // 20``. Damage is 0 on a miss (and never negative), doubled
    on a critical hit (R0-05 degrees; AC - 6 against a PC at 0 HP, R0-11).
    """
    values = dice_table(dice).astype(np.int32)
    L = len(values)
    r = np.arange(20 * L)
    roll, base = r % 20 + 1, values[r // 20]
    dmg = np.zeros((len(penalties), 2 * 20 * L), dtype=np.int32)
    crit = np.zeros((len(penalties), 2 * 20 * L), dtype=bool)
    for a, p in enumerate(penalties):
        for down in (0, 1):
            deg = degree_table(bonus - p, strike_ac(ac, bool(down)))[roll]  # R0-11
            d = np.maximum(base, 0) * _STRIKE_MULT.take(deg)  # P-03 (rules/strike)
            dmg[a, down * 20 * L : (down + 1) * 20 * L] = d
            crit[a, down * 20 * L : (down + 1) * 20 * L] = deg == CRIT_SUCCESS
    if (
        int(dmg.max(initial=0)) * len(penalties) < 2**15
    ):  # a turn's total fits: half the memory traffic
        dmg = dmg.astype(np.int16)
    dmg.setflags(write=False)
    crit.setflags(write=False)
    return dmg, crit
