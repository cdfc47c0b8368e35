"""Parameters that several models take: one declaration each.

A parameter that appears in more than one model (``check_penalty``, ``dc``, ``pp_max``,
``con``...) is declared here once: its kind, range, unit, rule id and help. A model takes
it with :func:`shared`, choosing only its default and whether ``none`` is allowed (``none``
meaning a value derived from the character's level, for example). A chained model takes
its stages' parameters with ``params_from`` (:func:`simkit.core.params.take_declarations`).
``tests/test_declarations.py`` fails if one name has two declarations in the package.
"""

from __future__ import annotations

from typing import Any

from simkit.core.params import param
from simkit.rules.pf2e.creatures import BENCHMARKS
from simkit.rules.strike import MAP_CHOICES

__all__ = ["SHARED", "shared"]

_D = dict  # (readability of the table below)

#: name -> (default, declaration). Rule ids are those of docs/rules.md.
SHARED: dict[str, tuple[Any, dict[str, Any]]] = {
    # -- the character ---------------------------------------------------------------
    "level": (
        1,
        _D(
            kind="int",
            lo=1,
            hi=20,
            rule="R0-01",
            help="character level (HP, saves, PP and the hour-8 HP follow it)",
        ),
    ),
    "con": (
        0,
        _D(
            kind="int",
            lo=-10,
            hi=30,
            rule="R0-01, R1-06",
            help="Constitution modifier (HP per level; added to the hourly check)",
        ),
    ),
    "hp": (
        None,
        _D(
            kind="int",
            lo=0,
            hi=100000,
            rule="R0-01, R0-03",
            help="HP at the start (none = full HP; 0 = starts knocked out)",
        ),
    ),
    "hp_max": (
        None,
        _D(
            kind="int",
            lo=1,
            hi=100000,
            rule="R0-01, R0-13",
            help="maximum HP, also for massive damage (none = from the level, "
            "or no massive damage where no level applies)",
        ),
    ),
    "temp_hp": (
        0,
        _D(kind="int", lo=0, hi=100000, rule="R0-14", help="temporary HP at the start, lost first"),
    ),
    # -- PF2e's options on the dying track (P-13..P-16): the dying model's and the fights' --
    "toughness": (
        False,
        _D(
            kind="bool",
            rule="P-13",
            seed_neutral=True,
            help="PF2e Toughness: the recovery DC is 1 lower (flat check DC 9 + dying)",
        ),
    ),
    "diehard": (
        False,
        _D(
            kind="bool",
            rule="P-14",
            seed_neutral=True,
            help="PF2e Diehard: the dying value that kills is 1 higher (dying 5 with death_at=4)",
        ),
    ),
    "fortune": (
        "none",
        _D(
            kind="choice",
            choices=("none", "fortune", "misfortune"),
            rule="P-15",
            seed_neutral=True,
            help="recovery check rolled once, or twice keeping the higher (fortune) or the "
            "lower (misfortune) d20",
        ),
    ),
    "hero_use": (
        "recover",
        _D(
            kind="choice",
            choices=("recover", "reroll"),
            rule="P-16",
            seed_neutral=True,
            help="hero points: recover (R0-10 as hero_policy / hero_effect say) or reroll (one "
            "point rerolls a failed recovery check, the second result kept)",
        ),
    ),
    "massive_damage": (
        False,
        _D(
            kind="bool",
            rule="R0-13",
            help="seed-000 massive damage: one hit of 2 x max HP or more kills",
        ),
    ),
    "check_penalty": (
        0,
        _D(
            kind="int",
            lo=-50,
            hi=0,
            rule="R4-03",
            help="penalty (fatigue, hunger) added to every d20 check the model "
            "rolls; PF2e flat checks take none",
        ),
    ),
    "nonlethal": (
        False,
        _D(
            kind="bool",
            rule="R0-03, R1-11",
            help="nonlethal knock-out: stable at once, never dying or agonising",
        ),
    ),
    "heal_round": (
        None,
        _D(
            kind="int",
            lo=1,
            hi=100000,
            unit="round",
            rule="R0-04, R1-03",
            help="round at whose start healing brings the character to 1+ HP (none = no healing)",
        ),
    ),
    "max_rounds": (
        100,
        _D(
            kind="int",
            lo=1,
            hi=100000,
            unit="steps",
            help="horizon: tracks still going after this many steps are unresolved",
        ),
    ),
    # -- seed 000: the dying track -------------------------------------------------------
    "dc": (
        None,
        _D(
            kind="int",
            lo=1,
            hi=100,
            rule="R0-06",
            help="DC of the recovery check's source: recovery DC = dc + dying (seed 000; "
            "none = from monster_level, else 22); D&D: the death save's DC",
        ),
    ),
    "monster_level": (
        None,
        _D(
            kind="int",
            lo=0,
            hi=24,
            rule="R0-06",
            help="the monster's level: sets the DC (high DC of the level) and, "
            "in fights, its attack and damage",
        ),
    ),
    "monster_dc": (
        "table",
        _D(
            kind="choice",
            choices=("table", "skill"),
            rule="A0-5",
            help="monster DC reading: level DC + hard adjustment (table) or "
            "10 + High skill (skill)",
        ),
    ),
    "check": (
        "save",
        _D(
            kind="choice",
            choices=("save", "flat"),
            rule="A0-4",
            help="recovery check: Fortitude save vs dc + dying, or flat check DC 10 + dying",
        ),
    ),
    "wounded": (
        0,
        _D(kind="int", lo=0, hi=20, rule="A0-2", help="wounded value at the start (the knock-out)"),
    ),
    "wounded_rule": (
        False,
        _D(
            kind="bool",
            rule="A0-2",
            help="published wounded rule: gaining dying adds the wounded value; "
            "losing dying adds 1 wounded",
        ),
    ),
    "hero_points": (0, _D(kind="int", lo=0, hi=10, rule="R0-10", help="hero points available")),
    # -- seed 001: perseverance and the hourly checks ------------------------------------
    "pp": (
        3,
        _D(
            kind="int",
            lo=0,
            hi=100,
            rule="R1-01",
            help="perseverance points at the knock-out (none = pp_max)",
        ),
    ),
    "pp_max": (
        6,
        _D(
            kind="int",
            lo=1,
            hi=100,
            rule="R1-04",
            help="maximum perseverance points, sets the cost of stabilising "
            "(none = from the level)",
        ),
    ),
    "spend": (
        "last",
        _D(
            kind="policy",
            lo=1,
            hi=100000,
            choices=("never", "asap", "last"),
            rule="R1-04",
            help="when to spend PP to stabilise: never, asap, last (last chance), "
            "or after k agonising turns",
        ),
    ),
    "stabilize_cap": (
        3,
        _D(
            kind="int",
            lo=1,
            hi=100,
            rule="R1-04",
            help="most PP stabilising costs (a quarter of pp_max, min 1); none = no cap",
        ),
    ),
    "back_in_fight": (
        False,
        _D(
            kind="bool",
            rule="R1-05",
            help="once stabilised, spend 1 PP on its turn to regain 1 HP and fight again",
        ),
    ),
    "enough_pp": (
        1,
        _D(
            kind="int",
            lo=1,
            hi=100,
            rule="A1-3",
            help="PP a stabilised character needs to get back in the fight (1 = the PP it spends)",
        ),
    ),
    "zero_pp": (
        "at_once",
        _D(
            kind="choice",
            choices=("at_once", "end_of_turn"),
            rule="A1-1",
            help="knocked out with 0 PP: dies at once, or at the end of its first turn",
        ),
    ),
    "checks": (
        8,
        _D(
            kind="int",
            lo=7,
            hi=8,
            rule="A1-2",
            help="hourly checks before the automatic wake-up at hour 8: 8 (hours 1..8) or 7",
        ),
    ),
    "start_dying": (
        1,
        _D(
            kind="int",
            lo=1,
            hi=20,
            rule="R0-03",
            help="dying value of a character starting at hp=0 (2 = knocked out by a critical)",
        ),
    ),
    "death_at": (4, _D(kind="int", lo=1, hi=20, rule="R0-04", help="dying value that kills")),
    "long_term": (
        True,
        _D(
            kind="bool",
            rule="R1-06",
            help="seed 001: after the fight a stable PC makes hourly Constitution checks",
        ),
    ),
    "natural": (
        False,
        _D(
            kind="bool",
            rule="A1-6",
            help="natural 20 / natural 1 move the Constitution check's result one step",
        ),
    ),
    # -- fights (P-01..P-10, AP-1..AP-10) ---------------------------------------------------
    "benchmark": (
        "High",
        _D(
            kind="choice",
            choices=BENCHMARKS,
            rule="P-08",
            help="creature-building benchmark of attack, damage and spell DC",
        ),
    ),
    "attacks": (2, _D(kind="int", lo=1, hi=4, rule="P-02", help="strikes per monster turn")),
    "map": (
        "standard",
        _D(
            kind="choice",
            choices=MAP_CHOICES,
            rule="P-02",
            help="monsters' multiple attack penalty: -5/-10, -4/-8, or none",
        ),
    ),
    "trait": (
        "lethal",
        _D(
            kind="choice",
            choices=("lethal", "nonlethal", "death"),
            rule="R0-02, R0-12",
            help="trait of the enemies' damage",
        ),
    ),
    "target_downed": (
        "never",
        _D(
            kind="choice",
            choices=("never", "sometimes", "always"),
            rule="R0-09, AP-3",
            help="whether enemies attack a character at 0 HP",
        ),
    ),
    "downed_chance": (
        0.5,
        _D(
            kind="float",
            lo=0.0,
            hi=1.0,
            rule="R0-09, AP-3",
            help="with target_downed=sometimes: chance each strike targets a downed PC",
        ),
    ),
    "first_aid_dc": (
        15,
        _D(kind="int", lo=1, hi=100, rule="R1-02", help="DC of first aid"),
    ),
    # -- seed 004 ---------------------------------------------------------------------
    "height": (
        "6",
        _D(
            kind="heights",
            unit="m",
            rule="R4-07",
            help="fall height: one value (9), a list (6,8,10) or uniform:2-12",
        ),
    ),
    # -- D&D death saves (custom-track presets) -------------------------------------------
    "bonus": (
        0,
        _D(
            kind="int",
            lo=-20,
            hi=20,
            help="added to the d20 of the death save (not to the natural 1/20 rules)",
        ),
    ),
    "failures": (
        0,
        _D(
            kind="int",
            lo=0,
            hi=2,
            help="failed death saves at the start (since the last rest, or damage taken at 0 HP)",
        ),
    ),
}

_MISSING = object()


def shared(name: str, *, default: Any = _MISSING, optional: bool | None = None):
    """The dataclass field of shared parameter ``name`` (see :data:`SHARED`).

    Parameters
    ----------
    name : str
        A key of :data:`SHARED`.
    default : optional
        This model's default (the table's when omitted).
    optional : bool, optional
        Whether this model accepts ``none`` (default: only when its default is None).
    """
    base_default, decl = SHARED[name]
    value = base_default if default is _MISSING else default
    opt = (value is None) if optional is None else optional
    return param(value, optional=opt, **decl)
