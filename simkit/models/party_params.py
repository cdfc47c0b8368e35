"""The party model's declarations: the parameters of :class:`~simkit.models.party.Party`
that take more than a line (``param(**PARAMS[name])``) and the ambiguities it carries."""

from __future__ import annotations

from typing import Any

from simkit.core.ambiguity import Ambiguity
from simkit.core.ambiguity import reading as _r
from simkit.rules import dying_damage, dying_systems, perseverance, rest
from simkit.rules.hero_points import HERO_EFFECT
from simkit.rules.parameters import SHARED
from simkit.rules.pf2e import area_census, bestiary, budget, creatures
from simkit.rules.rest import PE_DAMAGE
from simkit.rules.temp_hp import TEMP_KEEP

__all__ = ["AMBIGUITIES", "PARAMS"]

#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A1-5",
        "R1-10",
        "party",
        "pe_damage",
        "whether damage takes stamina points (PE) before hit points",
        (
            _r("PE first", {"pe_damage": "pe_first"}, True),
            _r("HP only", {"pe_damage": "hp_only"}),
        ),
        setup={"rules": "seed001", "threat": "severe"},
        outcome="any_death",
    ),
    # issue 31 item 3: the readings only a fight has a home for, each priced where it arises
    Ambiguity(
        "A1-11",
        "R1-01",
        "party",
        "agony_damage",
        "damage taken while agonising: nothing more, one PP lost a hit, or death on a critical",
        (
            _r("nothing", {"agony_damage": "none"}, True),
            _r("1 PP a hit", {"agony_damage": "pp"}),
            _r("dead on a critical", {"agony_damage": "crit_kills"}),
        ),
        setup={"rules": "seed001", "threat": "severe", "target_downed": "sometimes"},
        outcome="any_death",
    ),
    Ambiguity(
        "A1-12",
        "R1-05",
        "party",
        "back_again",
        "R1-05's 1 HP a turn for 1 PP: once per stabilisation, or on every later turn while "
        "PP last",
        (_r("once", {"back_again": False}, True), _r("every turn", {"back_again": True})),
        setup={"rules": "seed001", "threat": "severe", "back_in_fight": True, "spend": "asap"},
        outcome="any_death",
    ),
    Ambiguity(
        "A0-9",
        "R0-12/R0-04",
        "party",
        "dying_above_0",
        "an effect giving dying directly to a character above 0 HP: it keeps its HP (and so "
        "loses dying at once), or drops to 0 HP and follows the track",
        (
            _r("keeps HP", {"dying_above_0": "keep_hp"}, True),
            _r("drops to 0 HP", {"dying_above_0": "drop"}),
        ),
        # AP-35's effect as a recharging ability (1d4 rounds: 2/7 a turn, AP-15)
        setup={"threat": "severe", "dying_effect": 2 / 7},
        outcome="any_death",
    ),
    # The seed-000 track's wounded rule as the fight plays it (the dying model's A0-2 also
    # sets a wounded value at the start, which a fight starts at 0): ``compare party
    # --ambiguities A0-2``. A0-1, A0-3..A0-7 are the dying model's own entries, carried.
    Ambiguity(
        "A0-2",
        "R0-05",
        "party",
        "wounded_rule",
        "no wounded condition in the seed; published PF2e adds wounded to dying gained",
        (_r("no wounded", {"wounded_rule": False}, True), _r("wounded", {"wounded_rule": True})),
        setup={"threat": "severe"},
        outcome="any_death",
    ),
)
#: The party's parameters declared here, by name: what :func:`simkit.core.params.param`
#: takes (``default`` and its declaration).
PARAMS: dict[str, dict[str, Any]] = {
    "party": dict(
        default="fighter,rogue,cleric,wizard",
        kind="party",
        help="the PCs: a comma list of roles (fighter, rogue, cleric, wizard), each with "
        "explicit numbers if wanted: fighter(hp_max=80;ac=23); its own rule at 0 HP, with the "
        "track's parameters in parentheses: fighter(dying=dnd5e(bonus=2;dc=12)); its grant of "
        "temporary HP: cleric(grant_temp_hp=13;grant_uses=3)",
    ),
    "threat": dict(
        default="moderate",
        kind="choice",
        choices=budget.THREATS,
        help="PF2e threat: sets the XP budget for the party's size (the budget edition's table)",
    ),
    "xp_budget": dict(
        default=None,
        kind="int",
        lo=0,
        hi=2000,
        optional=True,
        unit="XP",
        help="XP budget of the lineup (none: from threat)",
    ),
    "lineup": dict(
        default="boss",
        kind="choice",
        choices=(*budget.LINEUPS, bestiary.NAME),
        rule="AP-19",
        help="how the budget becomes monsters: boss, boss_and_minions, pack (benchmark "
        "creatures), or bestiary (the boss's level, a real bundled creature drawn per track)",
    ),
    "monsters": dict(
        default=None,
        kind="levels",
        optional=True,
        help="explicit lineup: creature levels like 7,5,5, each with explicit numbers if "
        "wanted: 7(hp=150;attack=18) (none: from the budget)",
    ),
    "budget": dict(
        default="gm-core",
        kind="choice",
        choices=budget.EDITIONS,
        rule="P-06",
        help="the encounter budget's edition: gm-core (remaster: Low 20 XP per PC beyond "
        "four) or crb (Core Rulebook Table 10-1: Low 15); sets threat's budget and a "
        "lineup's threat",
    ),
    "defense": dict(
        default="Moderate",
        kind="choice",
        choices=creatures.DEFENSES,
        help="creature-building benchmark of the monsters' HP, AC, saves, Perception",
    ),
    "rules": dict(
        default="seed000",
        kind="choice",
        choices=dying_systems.SYSTEMS,
        help="dying system: seed000, pf2e-core (published PF2e), seed001 (perseverance)",
    ),
    "pe_damage": dict(
        default="pe_first",
        kind="choice",
        choices=PE_DAMAGE,
        rule="A1-5",
        help="seed001: damage takes the PCs' stamina points (PE) before their HP (pe_first), "
        "or HP only (hp_only: no PE)",
    ),
    "slowed": dict(
        default=False,
        seed_neutral=True,
        kind="bool",
        rule="R0-04",
        help="seed000: a PC back at 1 HP or more from dying (a heal, a hero point: R0-10) is "
        "slowed on its next turn by its dying value just before (slowed_loses says which "
        "actions it loses)",
    ),
    "slowed_loses": dict(
        default="spare",
        seed_neutral=True,
        kind="choice",
        choices=("spare", "strike"),
        rule="AP-21",
        help="the actions slowed takes of a PC's 3: first the spare third one the fight does "
        "not model (spare), or a strike at once (strike: the third is always spent)",
    ),
    "temp_keep": dict(
        default="larger",
        seed_neutral=True,
        kind="choice",
        choices=TEMP_KEEP,
        rule="R0-14, AP-37",
        help="temporary HP gained while some remain (a PC's grant_temp_hp): the PC keeps the "
        "larger amount (larger), the old ones (old) or takes the new ones (new)",
    ),
    "con_damage": dict(
        default=0,
        seed_neutral=True,
        kind="int",
        lo=0,
        hi=20,
        rule="R1-12",
        help="seed001: points of Constitution damage each monster strike that hurts a PC "
        "deals: its modifier falls (ability_reading), its maximum PE with it, and its "
        "hourly checks take the lower modifier",
    ),
    "ability_reading": dict(
        default="score",
        seed_neutral=True,
        kind="choice",
        choices=("score", "per_point", "per_two"),
        rule="A1-4",
        help="what ability damage does to the modifier: that of the damaged score (score), "
        "-1 a point (per_point) or -1 per 2 points (per_two)",
    ),
    "back_again": dict(
        default=False,
        seed_neutral=True,
        kind="bool",
        rule="A1-12",
        help="seed001 with back_in_fight: a PC up again by R1-05 spends 1 PP for 1 HP on each "
        "later turn while below its max HP and its PP are enough (false: once a stabilisation)",
    ),
    "agony_damage": dict(
        default="none",
        seed_neutral=True,
        kind="choice",
        choices=perseverance.AGONY_DAMAGE,
        rule="A1-11",
        help="seed001: a hit on an agonising PC does nothing more (none), takes 1 PP (pp: "
        "dead when its PP fall to 0, R1-01) or kills it on a critical (crit_kills)",
    ),
    "wake_restores": dict(
        default="hp",
        seed_neutral=True,
        kind="choice",
        choices=rest.WAKE_RESTORES,
        rule="A1-10",
        help="seed001: a stable PC that wakes after the night's 8 hours (R1-07) gets its HP "
        "only (hp), or also every PE and PP back as after a night's rest (all; the PP as "
        "a day's pp_back reads a night)",
    ),
    "dying_effect": dict(
        default=0.0,
        seed_neutral=True,
        kind="float",
        lo=0.0,
        hi=1.0,
        rule="AP-35",
        help="seed000/pf2e-core: per monster turn, the chance it uses an effect that gives "
        "dying directly (R0-12) to a conscious PC at random instead of its strikes: a "
        "Fortitude save against its spell DC, dying 1 on a failure, 2 on a critical failure",
    ),
    "dying_above_0": dict(
        default="keep_hp",
        seed_neutral=True,
        kind="choice",
        choices=dying_damage.DYING_ABOVE_0,
        rule="A0-9",
        help="a PC above 0 HP given dying by dying_effect keeps its HP and loses dying at once "
        "(keep_hp, R0-04), or drops to 0 HP and follows the track (drop)",
    ),
    "downed_pick": dict(
        default="first",
        kind="choice",
        choices=("first", "random"),
        rule="AP-3",
        help="a monster striking the downed strikes the first downed PC in the party's order, "
        "or one at random",
    ),
    "first_aid_natural": dict(
        default=False,
        kind="bool",
        rule="AP-4",
        help="first aid as a PF2e check: a natural 20 / 1 moves its degree one step "
        "(false: only the total counts, as A1-6)",
    ),
    "area_chance": dict(
        default=None,
        kind="float",
        lo=0.0,
        hi=1.0,
        optional=True,
        rule="AP-20",
        help="per monster turn: chance of its area effect while it has uses (none: "
        "calibrated on the bundled bestiary, by the creature's level band, docs/threat.md)",
    ),
    "area_uses": dict(
        default=area_census.AREA_USES,
        kind="int",
        lo=0,
        hi=10,
        rule="AP-20",
        help="area effects each monster can use in a fight (10: no limit, as a recharge)",
    ),
    "pc_target": dict(
        default="focus",
        kind="choice",
        choices=("focus", "spread"),
        help="PCs' targets: the weakest monster (focus) or one at random (spread)",
    ),
    "monster_target": dict(
        default="random",
        kind="choice",
        choices=("random", "weakest", "focus"),
        help="monsters' targets among conscious PCs: random, weakest, focus (first)",
    ),
    "heal_below": dict(
        default=0.5,
        kind="float",
        lo=0.0,
        hi=1.0,
        help="the cleric heals a conscious PC at or below this fraction of its max HP",
    ),
    "after_defeat": dict(
        default="slain",
        kind="choice",
        choices=("slain", "captured"),
        help="every PC down: the monsters kill them (slain) or take them (captured)",
    ),
    "retreat_at": dict(
        default=None,
        kind="int",
        lo=1,
        hi=8,
        optional=True,
        help="the party retreats at the end of a round with this many PCs down",
    ),
    "dying": dict(
        default=None,
        kind="downed_rule",
        optional=True,
        seed_neutral=True,
        help="the PCs' rule at 0 HP: none = the rules set's own track; a custom track "
        "(dnd5e, dnd5e(dc=12;bonus=2), or a track object in Python) in its place "
        "(simkit.models.downed_rule says what a fight needs from it)",
    ),
    "on_damage": dict(
        default=None,
        kind="choice",
        choices=("max", "increment"),
        rule="A0-1",
        help="damage while dying: keep the higher dying value, or add 1 (2 on a crit)",
        optional=True,
        seed_neutral=True,
    ),
    "wounded_rule": dict(
        default=None, optional=True, seed_neutral=True, **SHARED["wounded_rule"][1]
    ),
    "hero_effect": dict(
        default=None,
        optional=True,
        seed_neutral=True,
        **{k: v for k, v in HERO_EFFECT.items() if k != "default"},
    ),
}
