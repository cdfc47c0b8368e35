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

The Monte Carlo plays it on the compiled fight loop (:mod:`simkit.fight.encounter`, stated
as the loop's tables by :mod:`simkit.models.encounter_loop`: a party of one PC, enemies that
never fall, no defeat; dice by counter, so a track can be played again alone). Every rule
is a phase of the loop shared with the party: the recovery check, damage while dying (A0-1,
A0-2, A0-6 ``wounded_adds``), hero points (A0-3, A0-7 ``hero_knockout``), massive damage
and temporary HP (R0-13, R0-14: soaked only while conscious, kept while the PC is down),
first aid, heals and the hourly Constitution checks (``natural`` for A1-6, no danger of
death after a nonlethal knock-out). The vectorised kernel of 0.3 was retired in 0.4
(``engine="kernel"`` is refused; its figures: tests/data/encounter_kernel_0.3.json, AP-27).

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
the scalar reference, on the loop's dice, in :mod:`simkit.models.encounter_ref`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace
from typing import Any, ClassVar

from simkit.core.engine import FIGHT_BLOCK
from simkit.core.model import Rules
from simkit.core.params import ParamError, param
from simkit.models.downed_rule import PF2E_DEFAULTS, pf2e_of
from simkit.rules import dying_systems
from simkit.rules.dice import Dice
from simkit.rules.dying_damage import WOUNDED_ADDS
from simkit.rules.hero_points import HERO_EFFECT, HERO_KNOCKOUT, HERO_POLICY, hero_threshold
from simkit.rules.parameters import shared
from simkit.rules.perseverance import stabilize_cost as pp_stabilize_cost
from simkit.rules.pf2e import creatures, pcs
from simkit.rules.pf2e.levels import monster_high_dc
from simkit.rules.strike import map_penalty

__all__ = ["OUTCOMES", "Encounter"]

OUTCOMES = ("standing", "revived", "stable", "dead", "dying")
STANDING, REVIVED, STABLE, DEAD, DYING = range(5)


@dataclass(frozen=True, slots=True)
class Encounter(Rules):
    """One PC against enemies, from full HP to safe, dead or the horizon; one step = one round."""

    name: ClassVar[str] = "encounter"
    #: Tracks a block of the engine (:data:`simkit.core.engine.FIGHT_BLOCK`).
    block_size: ClassVar[int] = FIGHT_BLOCK
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
        "level",
        "monster_level",
        "enemies",
        "target_downed",
        "healer_round",
        "hero_points",
        "fight_rounds",
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
    # PF2e's options on the seed-000/pf2e-core track (P-13..P-16, AP-26, AP-29), the party's
    toughness: bool = shared("toughness")
    diehard: bool = shared("diehard")
    fortune: str = shared("fortune")
    hero_use: str = shared("hero_use")
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
    #: How the Monte Carlo plays the encounter: ``loop`` only (the compiled fight loop of
    #: :mod:`simkit.fight`, dice by counter, :mod:`simkit.models.encounter_loop`; the
    #: vectorised kernel of 0.3 was retired in 0.4, its figures kept as data in
    #: tests/data/encounter_kernel_0.3.json). Not a parameter of the command line.
    engine: str = "loop"

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A PC of ``level`` (its HP, AC, saves and PP follow the level)."""
        return {"level": level}

    @classmethod
    def typical_opponent(cls, level: int) -> dict[str, Any]:
        """Monsters of the same level (attack, damage and DCs follow it)."""
        return {"monster_level": level}

    def validate(self) -> None:
        if self.engine != "loop":
            raise ParamError(
                f"engine={self.engine!r}: the encounter plays on the compiled fight loop only "
                "(engine='loop'); the vectorised kernel of 0.3 was retired in 0.4"
            )
        if self.dying is not None:
            from simkit.models.downed_rule import fight_needs, resolve

            why = fight_needs(resolve(self.dying))
            if why is None and not self.seed000:
                why = (
                    "dying= replaces the seed-000 dying track; dying_rules=seed001 keeps "
                    "its own (agonising, R1-01)"
                )
            if why is not None:
                raise ParamError(why)
        if self.hero_use == "reroll" and self.fortune != "none":
            raise ParamError(
                f"hero_use=reroll and fortune={self.fortune} cannot combine: a hero point's "
                "reroll is itself a fortune effect (P-15, P-16)"
            )
        pf2e = [k for k, v in PF2E_DEFAULTS.items() if getattr(self, k) != v]
        if pf2e and not self.seed000:
            raise ParamError(
                f"{pf2e[0]}={getattr(self, pf2e[0])!r}: toughness, diehard, fortune and "
                "hero_use are options of the seed000/pf2e-core track; dying_rules=seed001 "
                "plays agonising (R1-01)"
            )
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
        return (value if value is not None else getattr(self.typical, which)) + self.check_penalty

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
    def pf2e(self) -> dict[str, Any]:
        """The PC's PF2e options (P-13..P-16) with what they give: its ``death_at`` (Diehard:
        1 more), hero ``threshold`` (None when its points reroll), ``rerolls`` and ``two``
        (a second d20 on its recovery check): the party's
        :func:`simkit.models.downed_rule.pf2e_of` for this one PC."""
        return _pf2e(self)

    @property
    def long_term_on(self) -> bool:
        return not self.seed000 and self.long_term

    def strike_penalty(self, a: int) -> int:
        """Multiple attack penalty of the ``a``-th strike of a turn (0-based)."""
        return map_penalty(self.map, a)

    # -- Monte Carlo: the compiled fight loop ----------------------------------------------
    def init(self, n: int, rng, start=None):
        """A block of ``n`` tracks played on the compiled fight loop, fresh or from ``start``
        (a one-PC :class:`~simkit.models.fight_state.FightStart`):
        :func:`simkit.models.encounter_loop.init`."""
        from simkit.models.encounter_loop import init as loop_init

        return loop_init(self, n, rng, start)

    def carry(self, state, rows):
        """What ended tracks hand to a next fight (``keep_state``):
        :func:`simkit.models.encounter_loop.carry`."""
        from simkit.models.encounter_loop import carry as loop_carry

        return loop_carry(self, state, rows)

    def step(self, state, t, rng):
        """The tracks still going, as the block's run ended them
        (:func:`simkit.models.encounter_loop.step`)."""
        from simkit.models.encounter_loop import step as loop_step

        return loop_step(self, state, t, rng)

    def absorb_counts(self, state, codes, n_codes):
        """The ended tracks' counts, compiled (the engine's hook,
        :func:`simkit.models.encounter_loop.absorb_counts`)."""
        from simkit.models.encounter_loop import absorb_counts

        return absorb_counts(self, state, codes, n_codes)


@lru_cache(maxsize=256)
def _pf2e(rules: Encounter) -> dict[str, Any]:
    one = SimpleNamespace(
        fighters=SimpleNamespace(pcs=[SimpleNamespace()]),
        hero_points=rules.hero_points,
        hero_policy=rules.hero_policy,
        death_at=rules.death_at,
        threshold=rules.threshold,
        **{k: getattr(rules, k) for k in PF2E_DEFAULTS},
    )
    return pf2e_of(one, 0)
