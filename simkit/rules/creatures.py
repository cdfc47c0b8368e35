"""Level-based numbers of an encounter: the monster's strikes and DCs, a typical PC.

Monster numbers come from Pathfinder 2e's GM Core "Building Creatures" tables, shipped
in ``simkit/data`` (copied from ``shared/data/pf2e``, which took them from the
pathfinder2e_stats project, Apache License 2.0):

- ``creature-2-09-strike_attack.csv``: strike attack bonus by level (-1..24) at the
  Extreme/High/Moderate/Low benchmarks;
- ``creature-2-10-strike_damage_dice.csv``: strike damage as dice (e.g. ``2d10+9``);
- ``creature-2-11-spell_DC.csv``: spell DC (Extreme/High/Moderate).

The recovery DC a monster sets (R0-06) is :func:`simkit.rules.levels.monster_high_dc`.

The player character is *a typical fighter*, a simplification written here from the
Pathfinder 2e class progression (not an official table; every number can be
overridden by a parameter of the ``encounter`` model):

- Constitution modifier +2 (levels 1-4), +3 (5-9), +4 (10-19), +5 (20);
- max HP (R0-01) = 8 (ancestry) + (10 (class) + Con) x level;
- AC = 10 + 5 (armour and Dex) + level + armour proficiency (trained +2, expert +4
  from 11, master +6 from 17) + armour potency (+1 from 5, +2 from 11, +3 from 18);
- saves = level + proficiency + ability + resilient item (+1 from 8, +2 from 14, +3
  from 20): Fortitude expert (+4), master (+6) from 9, with Con; Reflex expert, master
  from 15, with Dex +1 (+2 from 10); Will trained (+2), expert from 3, with Wis +1
  (+2 from 10);
- perseverance points for seed 001 (a Starfinder-resolve-like reading: no seed text
  gives a max) = max(1, level // 2) + key ability modifier (+4, +5 from 10, +6 at 20).

The healer is a cleric of the same level casting the two-action *heal* at its highest
rank r = ceil(level / 2) (at most 10): ``r d8 + 8 r`` HP.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources

__all__ = [
    "BENCHMARKS",
    "MONSTER_LEVELS",
    "PC_LEVELS",
    "monster_attack",
    "monster_damage",
    "monster_spell_dc",
    "pc_con",
    "pc_hp",
    "pc_ac",
    "pc_save",
    "pc_pp",
    "heal_dice",
]

BENCHMARKS = ("Extreme", "High", "Moderate", "Low")
MONSTER_LEVELS = (-1, 24)
PC_LEVELS = (1, 20)


@lru_cache(maxsize=None)
def _table(name: str) -> dict[int, dict[str, str]]:
    with resources.files("simkit.rules").joinpath("data", name).open(newline="") as fh:
        return {int(r["level"]): r for r in csv.DictReader(fh)}


def _lookup(name: str, level: int, benchmark: str) -> str:
    rows = _table(name)
    if level not in rows:
        lo, hi = min(rows), max(rows)
        raise ValueError(f"monster_level must be an integer in [{lo}, {hi}], got {level!r}")
    if benchmark not in rows[level]:
        allowed = ", ".join(k for k in rows[level] if k != "level")
        raise ValueError(f"benchmark must be one of {allowed}; got {benchmark!r}")
    return rows[level][benchmark]


def monster_attack(level: int, benchmark: str = "High") -> int:
    """Strike attack bonus of a creature of ``level`` (GM Core table 2-9)."""
    return int(_lookup("creature-2-09-strike_attack.csv", level, benchmark))


def monster_damage(level: int, benchmark: str = "High") -> str:
    """Strike damage dice of a creature of ``level`` (GM Core table 2-10), e.g. ``2d10+9``."""
    return _lookup("creature-2-10-strike_damage_dice.csv", level, benchmark)


def monster_spell_dc(level: int, benchmark: str = "High") -> int:
    """Spell DC of a creature of ``level`` (GM Core table 2-11; no Low column: Moderate)."""
    if benchmark == "Low":
        benchmark = "Moderate"
    return int(_lookup("creature-2-11-spell_DC.csv", level, benchmark))


def _check_level(level: int) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or not PC_LEVELS[0] <= level <= PC_LEVELS[1]:
        raise ValueError(f"level must be an integer in [{PC_LEVELS[0]}, {PC_LEVELS[1]}], got {level!r}")
    return level


def _step(level: int, schedule: tuple[tuple[int, int], ...]) -> int:
    """Value of a step schedule ((from_level, value), ...) at ``level``."""
    value = 0
    for start, v in schedule:
        if level >= start:
            value = v
    return value


def pc_con(level: int) -> int:
    """Constitution modifier of the typical fighter."""
    return _step(_check_level(level), ((1, 2), (5, 3), (10, 4), (20, 5)))


def pc_hp(level: int) -> int:
    """Max HP of the typical fighter (R0-01): 8 + (10 + Con) x level."""
    return 8 + (10 + pc_con(level)) * level


def _resilient(level: int) -> int:
    return _step(level, ((1, 0), (8, 1), (14, 2), (20, 3)))


def pc_ac(level: int) -> int:
    """Armour Class of the typical fighter."""
    _check_level(level)
    prof = _step(level, ((1, 2), (11, 4), (17, 6)))
    potency = _step(level, ((1, 0), (5, 1), (11, 2), (18, 3)))
    return 10 + 5 + level + prof + potency


def pc_save(level: int, save: str = "fort") -> int:
    """Saving throw bonus (``fort``, ``reflex``, ``will``) of the typical fighter."""
    _check_level(level)
    if save == "fort":
        prof, ability = _step(level, ((1, 4), (9, 6))), pc_con(level)
    elif save == "reflex":
        prof, ability = _step(level, ((1, 4), (15, 6))), _step(level, ((1, 1), (10, 2)))
    elif save == "will":
        prof, ability = _step(level, ((1, 2), (3, 4))), _step(level, ((1, 1), (10, 2)))
    else:
        raise ValueError(f"save must be one of fort, reflex, will; got {save!r}")
    return level + prof + ability + _resilient(level)


def pc_pp(level: int) -> int:
    """Max perseverance points (seed 001) of the typical fighter."""
    return max(1, _check_level(level) // 2) + _step(level, ((1, 4), (10, 5), (20, 6)))


def heal_dice(level: int) -> str:
    """Two-action *heal* of a cleric of ``level``: ``r d8 + 8 r``, r = ceil(level / 2) <= 10."""
    r = min(10, (_check_level(level) + 1) // 2)
    return f"{r}d8+{8 * r}"
