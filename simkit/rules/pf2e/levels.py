"""Numbers that change with level (Pathfinder 2e tables shipped in ``simkit/data``).

These let a sweep go over ``level`` and ``monster_level`` (or the level difference)
instead of raw bonuses and DCs; see :mod:`simkit.analysis.grid` for how sweep keys map onto
model parameters.

Sources (tables shipped in ``simkit/rules/pf2e/data``, see docs/pf2e-sources.md; literals below
name their source):

- ``level-based-dcs.csv``: Core Rulebook Table 10-5, DCs by level 0..25.
- ``dc-adjustments.csv``: Core Rulebook Table 10-6 ("Hard" = +2).
- ``creature-2-03-skills.csv``: GM Core "Building Creatures", skill modifiers by
  level (-1..24), benchmarks Extreme/High/Moderate/Low/Terrible (from the
  pathfinder2e_stats project, Apache 2.0).
- Proficiency (Core Rulebook ch. 1 "Proficiency"): untrained +0; trained, expert,
  master, legendary add 2, 4, 6, 8 **plus the character's level**.
- Fortitude rank schedules (:data:`FORT_SCHEDULES`): the class tables of the Core
  Rulebook (fighter: expert at 1, master at 9 "Juggernaut"; barbarian: expert at 1,
  master at 7 "Juggernaut", legendary at 13 "Greater Juggernaut"; wizard: trained at
  1, expert at 9 "Magical Fortitude").
- Ability boosts at levels 5, 10, 15 and 20 (Core Rulebook ch. 1): +2 to a score
  below 18, +1 to a score of 18 or more; modifier = floor((score - 10) / 2). A
  higher Constitution modifier raises HP retroactively (Core Rulebook "Hit Points").
- Item bonus to saves (:data:`ITEM_SCHEDULES`): ``"runes"`` is the resilient rune
  progression, which the Gamemastery Guide's Automatic Bonus Progression states as
  "saving throw potency" +1 at level 8, +2 at 14, +3 at 20.
- PP max (seed 001): the seed gives no formula; it follows Starfinder's resolve
  points (A1-1, A1-5 say so), whose maximum is ``max(1, floor(level / 2))`` + the
  key ability modifier (Starfinder Core Rulebook, "Resolve Points").
"""

from __future__ import annotations

import csv
import io
from functools import cache
from importlib import resources

from simkit.core.numbers import ascii_int, is_ascii_int

__all__ = [
    "FORT_SCHEDULES",
    "ITEM_SCHEDULES",
    "LEVEL_RANGE",
    "MONSTER_LEVEL_RANGE",
    "PC_LEVEL_RANGE",
    "RANKS",
    "con_modifier",
    "creature_skill",
    "fort_rank",
    "fortitude_save",
    "item_bonus",
    "level_dc",
    "monster_high_dc",
    "parse_schedule",
    "pc_hp",
    "pp_max",
    "proficiency_bonus",
]

LEVEL_RANGE = (0, 25)
PC_LEVEL_RANGE = (1, 20)
MONSTER_LEVEL_RANGE = (0, 24)
HARD_ADJUSTMENT = 2

#: Proficiency rank -> bonus before adding the level (untrained adds no level).
RANKS = {"untrained": 0, "trained": 2, "expert": 4, "master": 6, "legendary": 8}

#: Named Fortitude schedules: (level reached, rank) pairs (Core Rulebook class tables).
FORT_SCHEDULES: dict[str, tuple[tuple[int, str], ...]] = {
    "fighter": ((1, "expert"), (9, "master")),
    "barbarian": ((1, "expert"), (7, "master"), (13, "legendary")),
    "wizard": ((1, "trained"), (9, "expert")),
}

#: Item bonus to saves by level: (level reached, bonus) pairs.
ITEM_SCHEDULES: dict[str, tuple[tuple[int, int], ...]] = {
    "none": (),
    "runes": ((8, 1), (14, 2), (20, 3)),
}

BOOST_LEVELS = (5, 10, 15, 20)


@cache
def _table(name: str) -> tuple[dict, ...]:
    text = resources.files("simkit.rules.pf2e").joinpath("data", name).read_text(encoding="utf-8")
    return tuple(csv.DictReader(io.StringIO(text, newline="")))


def _check_int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__") or not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    return int(value)


def level_dc(level: int) -> int:
    """Level-based DC (Core Rulebook Table 10-5), level 0..25."""
    rows = {int(r["level"]): int(r["DC"]) for r in _table("level-based-dcs.csv")}
    if isinstance(level, bool) or level not in rows:
        raise ValueError(
            f"level must be an integer in [{LEVEL_RANGE[0]}, {LEVEL_RANGE[1]}], got {level!r}"
        )
    return rows[level]


def _hard_adjustment() -> int:
    for r in _table("dc-adjustments.csv"):
        if r["difficulty"].strip().lower() == "hard":
            return int(r["adjustment"])
    return HARD_ADJUSTMENT


def creature_skill(level: int, benchmark: str = "High") -> int:
    """Creature skill modifier by level (-1..24) and benchmark (GM Core)."""
    for r in _table("creature-2-03-skills.csv"):
        if int(r["level"]) == level:
            return int(r[benchmark])
    raise ValueError(f"monster_level must be an integer in [-1, 24], got {level!r}")


def monster_high_dc(level: int, reading: str = "table") -> int:
    """Recovery DC set by a monster of ``level`` (R0-06, A0-5).

    ``reading="table"`` (default): level-based DC + the hard adjustment (+2).
    ``reading="skill"``: 10 + the creature's High skill modifier for its level.
    """
    if reading == "table":
        return level_dc(level) + _hard_adjustment()
    if reading == "skill":
        return 10 + creature_skill(level, "High")
    raise ValueError(f"monster_dc must be one of table, skill; got {reading!r}")


def proficiency_bonus(level: int, rank: str) -> int:
    """Proficiency bonus: the rank's bonus + level (untrained: 0, no level)."""
    level = _check_int("level", level, *PC_LEVEL_RANGE)
    if rank not in RANKS:
        raise ValueError(f"rank must be one of {', '.join(RANKS)}; got {rank!r}")
    return 0 if rank == "untrained" else RANKS[rank] + level


def parse_schedule(schedule) -> tuple[tuple[int, str], ...]:
    """A Fortitude rank schedule from a name of :data:`FORT_SCHEDULES`, a string
    ``"expert@1,master@9"`` or a sequence of ``(level, rank)`` pairs.

    Ranks must not go down as levels go up; before the first entry the rank is
    ``untrained``.
    """
    if isinstance(schedule, str):
        if schedule in FORT_SCHEDULES:
            return FORT_SCHEDULES[schedule]
        pairs: list[tuple[int, str]] = []
        ok = True
        for part in schedule.split(","):
            rank, sep, lvl = part.strip().partition("@")
            if not sep or not is_ascii_int(lvl):  # ASCII digits ('expert@٩' is not 9)
                ok = False
                break
            pairs.append((ascii_int(lvl), rank.strip()))
        if not ok:
            raise ValueError(
                f"Fortitude schedule {schedule!r} is not allowed: give one of "
                f"{', '.join(FORT_SCHEDULES)} or ranks like 'trained@1,expert@9'"
            )
        schedule = pairs
    out = tuple(sorted((int(at), str(rank)) for at, rank in schedule))
    prev = -1
    for at, rank in out:
        _check_int("schedule level", at, *PC_LEVEL_RANGE)
        if rank not in RANKS:
            raise ValueError(f"schedule rank must be one of {', '.join(RANKS)}; got {rank!r}")
        if RANKS[rank] < prev:
            raise ValueError(f"schedule ranks must not go down with level, got {schedule!r}")
        prev = RANKS[rank]
    return out


def fort_rank(level: int, schedule="fighter") -> str:
    """Fortitude proficiency rank at ``level`` under ``schedule``."""
    level = _check_int("level", level, *PC_LEVEL_RANGE)
    rank = "untrained"
    for lvl, r in parse_schedule(schedule):
        if lvl <= level:
            rank = r
    return rank


def con_modifier(level: int, con: int = 2, boosts: bool = True) -> int:
    """Constitution modifier at ``level`` for a character with ``con`` at level 1.

    With ``boosts`` Constitution takes the ability boost of levels 5, 10, 15 and 20
    (+2 to a score below 18, else +1); without, it stays ``con``.
    """
    level = _check_int("level", level, *PC_LEVEL_RANGE)
    con = _check_int("con", con, -5, 10)
    if not boosts:
        return con
    score = 10 + 2 * con
    for b in BOOST_LEVELS:
        if b <= level:
            score += 2 if score < 18 else 1
    return (score - 10) // 2


def item_bonus(level: int, items: str = "runes") -> int:
    """Item bonus to saving throws at ``level`` (:data:`ITEM_SCHEDULES`)."""
    level = _check_int("level", level, *PC_LEVEL_RANGE)
    if items not in ITEM_SCHEDULES:
        raise ValueError(f"items must be one of {', '.join(ITEM_SCHEDULES)}; got {items!r}")
    bonus = 0
    for lvl, b in ITEM_SCHEDULES[items]:
        if lvl <= level:
            bonus = b
    return bonus


def fortitude_save(
    level: int, schedule="fighter", con: int = 2, items: str = "runes", boosts: bool = True
) -> int:
    """A player character's Fortitude save modifier at ``level`` (1..20).

    ``level + rank bonus`` (proficiency, rank from ``schedule``) ``+ Constitution
    modifier`` (``con`` at level 1, raised by boosts) ``+ item bonus`` (``items``).
    Example: a level-1 fighter with Con +2 has 1 + 4 + 2 + 0 = +7; at level 20,
    20 + 6 + 5 + 3 = +34.
    """
    rank = fort_rank(level, schedule)
    return (
        proficiency_bonus(level, rank) + con_modifier(level, con, boosts) + item_bonus(level, items)
    )


def pc_hp(
    level: int,
    ancestry_hp: int = 8,
    class_hp: int = 10,
    con: int = 2,
    boosts: bool = True,
    extra: int = 0,
) -> int:
    """Maximum HP at ``level`` (R0-01): ancestry HP + (class HP + Con modifier) x level.

    ``extra`` adds other sources (e.g. a Toughness-like feat's HP at that level).
    Example: a level-1 human (8) fighter (10) with Con +2: 8 + 12 = 20 HP.
    """
    level = _check_int("level", level, *PC_LEVEL_RANGE)
    return (
        int(ancestry_hp) + (int(class_hp) + con_modifier(level, con, boosts)) * level + int(extra)
    )


def pp_max(level: int, key: int = 4, boosts: bool = True) -> int:
    """Seed 001 perseverance points at ``level``: ``max(1, level // 2) + key modifier``.

    ``key`` is the key ability modifier at level 1; with ``boosts`` it takes the
    ability boosts of levels 5, 10, 15 and 20 like :func:`con_modifier` (a key of +4 is
    +4, +5 from 10, +6 at 20: ``pc-ability_bonus.csv``), so a key +4 character has 5 PP
    at level 1, 10 at 10, 12 at 15 and 16 at 20; R1-04's stabilisation cost (a quarter,
    1..3) is then 1, 2, 3, 3. The seed gives no formula; this is the resolve-point rule
    the seed follows (Starfinder Core Rulebook, "Resolve Points": half the level, at
    least 1, + the key ability modifier). Never below 1. The one source of a typical
    PC's PP (:func:`simkit.rules.pf2e.creatures.pc_pp` and :mod:`simkit.rules.pf2e.pcs` call it).
    """
    level = _check_int("level", level, *PC_LEVEL_RANGE)
    key = _check_int("key", key, -5, 10)
    return max(1, max(1, level // 2) + con_modifier(level, key, boosts))
