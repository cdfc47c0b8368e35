"""The readings of the seed-000 dying track (docs/rules.md A0-1..A0-8): each ambiguity the
``dying`` model carries, with its readings and the setup in which they differ (the
ambiguity report, ``compare --ambiguities``)."""

from __future__ import annotations

from simkit.core.ambiguity import Ambiguity
from simkit.core.ambiguity import reading as _r

__all__ = ["AMBIGUITIES"]

# An enemy that keeps attacking the downed character (20% normal hits, 5% critical hits
# a round): the situation in which the damage-while-dying readings differ.
_HITS = {"hit_chance": 0.2, "crit_chance": 0.05}

#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A0-1",
        "R0-09",
        "dying",
        "on_damage",
        "damage while dying: keep the higher dying value, or add 1 (2 on a critical)",
        (_r("max", {"on_damage": "max"}, True), _r("increment", {"on_damage": "increment"})),
        setup=_HITS,
    ),
    Ambiguity(
        "A0-2",
        "R0-05",
        "dying",
        "wounded_rule",
        "no wounded condition in the seed; published PF2e adds wounded to dying gained",
        (
            _r("no wounded", {"wounded_rule": False}, True),
            _r("wounded 1", {"wounded_rule": True, "wounded": 1}),
        ),
        setup=_HITS,
    ),
    Ambiguity(
        "A0-3",
        "R0-10",
        "dying",
        "hero_policy",
        "when a character spends its hero point (one hero point)",
        (
            _r("never", {"hero_policy": "never"}),
            _r("immediately", {"hero_policy": "immediately"}),
            _r("at dying 3", {"hero_policy": 3}),
            _r("at death", {"hero_policy": "at_death"}, True),
        ),
        setup={"hero_points": 1},
    ),
    Ambiguity(
        "A0-4",
        "R0-05/R0-06",
        "dying",
        "check",
        "recovery check: Fortitude save vs the source's DC + dying, or flat check DC 10 + dying",
        (_r("save", {"check": "save"}, True), _r("flat", {"check": "flat"})),
    ),
    Ambiguity(
        "A0-5",
        "R0-06",
        "dying",
        "monster_dc",
        "a monster's high DC: level DC + hard adjustment, or 10 + its High skill modifier",
        (_r("table", {"monster_dc": "table"}, True), _r("skill", {"monster_dc": "skill"})),
    ),
    Ambiguity(
        "A0-6",
        "A0-2/A0-1",
        "dying",
        "wounded_adds",
        "with the increment and the wounded rule: does wounded add to every hit while dying?",
        (
            _r("on gain", {"wounded_adds": "on_gain"}, True),
            _r("every hit", {"wounded_adds": "every_hit"}),
        ),
        setup={
            "check": "flat",
            "on_damage": "increment",
            "wounded_rule": True,
            "wounded": 1,
            "hero_effect": "stabilize",
            "hit_chance": 0.3,
            "crit_chance": 0.1,
        },
    ),
    Ambiguity(
        "A0-7",
        "R0-10/R0-04",
        "dying",
        "hero_knockout",
        "a knock-out reaching the death value with a hero point held: spend it, or die",
        (_r("spend", {"hero_knockout": "spend"}, True), _r("die", {"hero_knockout": "die"})),
        setup={"crit": True, "death_at": 2, "hero_points": 1},
    ),
    Ambiguity(
        "A0-8",
        "R0-06/R0-07",
        "dying",
        "dc_dying",
        "the recovery DC adds the current dying value at each check, or is fixed whole at "
        "the knock-out",
        (_r("current", {"dc_dying": "current"}, True), _r("fixed", {"dc_dying": "fixed"})),
    ),
)
