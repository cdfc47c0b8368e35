"""Level-based numbers of an encounter: the monster's strikes and DCs, a typical PC.

Monster numbers come from Pathfinder 2e's GM Core "Building Creatures" tables, shipped
in ``simkit/rules/pf2e/data`` (see docs/pf2e-sources.md; taken from the
pathfinder2e_stats project, Apache License 2.0):

- ``creature-2-09-strike_attack.csv``: strike attack bonus by level (-1..24) at the
  Extreme/High/Moderate/Low benchmarks;
- ``creature-2-10-strike_damage_dice.csv``: strike damage as dice (e.g. ``2d10+9``);
- ``creature-2-11-spell_DC.csv``: spell DC (Extreme/High/Moderate);
- ``creature-2-07-HP.csv`` (HP ranges: the middle is used), ``creature-2-05-AC.csv``,
  ``creature-2-02-saving_throws.csv``, ``creature-2-03-perception.csv``,
  ``creature-2-12-area_damage_dice.csv``: the rest of a creature (:func:`monster`).

The typical PC is the fighter of :mod:`simkit.rules.pf2e.pcs`
(``pcs.role("fighter", level)``): its numbers have that one home.

The recovery DC a monster sets (R0-06) is :func:`simkit.rules.pf2e.levels.monster_high_dc`.

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
import io
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from simkit.core.numbers import is_ascii_int
from simkit.rules import overrides
from simkit.rules.pf2e import levels

__all__ = [
    "BENCHMARKS",
    "DEFENSES",
    "MONSTER_FIELDS",
    "explicit_monster",
    "Monster",
    "monster",
    "monster_ac",
    "monster_area_damage",
    "monster_hp",
    "monster_perception",
    "monster_save",
    "MONSTER_LEVELS",
    "monster_attack",
    "monster_damage",
    "monster_spell_dc",
]

BENCHMARKS = ("Extreme", "High", "Moderate", "Low")
DEFENSES = ("High", "Moderate", "Low")  # benchmarks of HP (table 2-7 has no Extreme)
MONSTER_LEVELS = (-1, 24)


@lru_cache(maxsize=None)
def _table(name: str) -> dict[int, dict[str, str]]:
    text = resources.files("simkit.rules.pf2e").joinpath("data", name).read_text(encoding="utf-8")
    with io.StringIO(text, newline="") as fh:
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


@lru_cache(maxsize=None)
def _hp_table() -> dict[int, dict[str, int]]:
    """``creature-2-07-HP.csv`` (two header rows: benchmark, then max/min): the middle of
    each benchmark's range, rounded down."""
    path = resources.files("simkit.rules.pf2e").joinpath("data", "creature-2-07-HP.csv")
    with io.StringIO(path.read_text(encoding="utf-8"), newline="") as fh:
        rows = list(csv.reader(fh))
    bench, mm = rows[0], rows[1]
    out: dict[int, dict[str, int]] = {}
    for r in rows[2:]:
        if not r or not is_ascii_int(r[0]):
            continue
        vals: dict[str, list[int]] = {}
        for b, kind, v in zip(bench[1:], mm[1:], r[1:]):
            vals.setdefault(b, []).append(int(v))
        out[int(r[0])] = {b: sum(v) // len(v) for b, v in vals.items()}
    return out


def monster_hp(level: int, benchmark: str = "Moderate") -> int:
    """Hit points of a creature of ``level`` (GM Core table 2-7): the middle of the range."""
    rows = _hp_table()
    if level not in rows:
        raise ValueError(
            f"monster level must be an integer in [{min(rows)}, {max(rows)}], got {level!r}"
        )
    if benchmark not in rows[level]:
        raise ValueError(f"benchmark must be one of {', '.join(rows[level])}; got {benchmark!r}")
    return rows[level][benchmark]


def monster_ac(level: int, benchmark: str = "Moderate") -> int:
    """Armour Class of a creature of ``level`` (GM Core table 2-5)."""
    return int(_lookup("creature-2-05-AC.csv", level, benchmark))


def monster_save(level: int, benchmark: str = "Moderate") -> int:
    """Saving throw modifier of a creature of ``level`` (GM Core table 2-2)."""
    return int(_lookup("creature-2-02-saving_throws.csv", level, benchmark))


def monster_perception(level: int, benchmark: str = "Moderate") -> int:
    """Perception (initiative) of a creature of ``level`` (GM Core table 2-3)."""
    return int(_lookup("creature-2-03-perception.csv", level, benchmark))


def monster_area_damage(level: int, use: str = "Limited") -> str:
    """Area damage dice of a creature of ``level`` (GM Core table 2-12): ``Limited`` (a
    limited-use effect) or ``Unlimited``."""
    return _lookup("creature-2-12-area_damage_dice.csv", level, use)


@dataclass(frozen=True, slots=True)
class Monster:
    """One creature's numbers (Building Creatures benchmarks, or explicit; ``name``: the
    creature a lineup named, :mod:`simkit.rules.pf2e.foundry`, else ``""``)."""

    level: int
    hp: int
    ac: int
    fort: int
    reflex: int
    will: int
    perception: int
    attack: int
    damage: str
    spell_dc: int
    area: str  # limited-use area damage (basic save)
    recovery_dc: int  # recovery DC its strikes set (R0-06, A0-5)
    name: str = ""  # a loaded creature's slug (e.g. "boar"); "" for one built by level
    #: its area effects (AP-10): uses and the chance a turn while it has one (None: the
    #: fight's ``area_uses`` / ``area_chance``; a loaded creature has its own, AP-15)
    area_uses: int | None = None
    area_chance: float | None = None


def monster(
    level: int, benchmark: str = "High", defense: str = "Moderate", monster_dc: str = "table"
) -> Monster:
    """A creature of ``level`` built from the tables: ``benchmark`` for its strikes and
    spell DC (tables 2-9, 2-10, 2-11), ``defense`` for HP, AC, saves and Perception
    (2-7, 2-5, 2-2, 2-3), the limited-use area damage of table 2-12, and the recovery DC
    of R0-06 (:func:`simkit.rules.pf2e.levels.monster_high_dc`, reading ``monster_dc``, A0-5).
    """
    return Monster(
        level=level,
        hp=monster_hp(level, defense),
        ac=monster_ac(level, defense),
        fort=monster_save(level, defense),
        reflex=monster_save(level, defense),
        will=monster_save(level, defense),
        perception=monster_perception(level, defense),
        attack=monster_attack(level, benchmark),
        damage=monster_damage(level, benchmark),
        spell_dc=monster_spell_dc(level, benchmark),
        area=monster_area_damage(level),
        recovery_dc=levels.monster_high_dc(max(level, 0), monster_dc),
    )


#: Benchmarks of each Building Creatures table (the column names of its CSV file).
SAVE_BENCHMARKS = ("Extreme", "High", "Moderate", "Low", "Terrible")  # tables 2-2, 2-3
SPELL_BENCHMARKS = ("Extreme", "High", "Moderate")  # table 2-11
AREA_USES = ("Unlimited", "Limited")  # table 2-12

#: How a statistic given by its benchmark is looked up: stat -> (table function, names).
_BY_BENCHMARK = {
    "hp": (lambda lvl, b: monster_hp(lvl, b), DEFENSES),
    "ac": (lambda lvl, b: monster_ac(lvl, b), BENCHMARKS),
    "fort": (lambda lvl, b: monster_save(lvl, b), SAVE_BENCHMARKS),
    "reflex": (lambda lvl, b: monster_save(lvl, b), SAVE_BENCHMARKS),
    "will": (lambda lvl, b: monster_save(lvl, b), SAVE_BENCHMARKS),
    "perception": (lambda lvl, b: monster_perception(lvl, b), SAVE_BENCHMARKS),
    "attack": (lambda lvl, b: monster_attack(lvl, b), BENCHMARKS),
    "damage": (lambda lvl, b: monster_damage(lvl, b), BENCHMARKS),
    "spell_dc": (lambda lvl, b: monster_spell_dc(lvl, b), SPELL_BENCHMARKS),
    "area": (lambda lvl, b: monster_area_damage(lvl, b), AREA_USES),
}

#: The numbers of a creature an explicit lineup may give, each a number (or dice) or the
#: benchmark of its table: ``7(hp=150;attack=18)``, ``7(ac=Extreme;hp=Low)`` (see
#: :mod:`simkit.rules.overrides`).
MONSTER_FIELDS: dict[str, overrides.Field] = {
    "hp": overrides.Field("int", 1, 100_000, DEFENSES),
    **{
        k: overrides.Field("int", -10, 100, _BY_BENCHMARK[k][1])
        for k in ("ac", "fort", "reflex", "will", "perception", "attack", "spell_dc")
    },
    "recovery_dc": overrides.Field("int", -10, 100),
    "damage": overrides.Field("dice", names=BENCHMARKS),
    "area": overrides.Field("dice", names=AREA_USES),
    "area_uses": overrides.Field("int", 0, 10),
    "area_chance": overrides.Field("float", 0, 1),
}


def explicit_monster(
    level: int, values: dict, benchmark: str = "High", defense: str = "Moderate",
    monster_dc: str = "table",
) -> Monster:  # fmt: skip
    """:func:`monster` with ``values`` replacing its numbers; a value that is a benchmark
    name (``"Extreme"``) is that benchmark's number in the statistic's table at ``level``;
    ``name`` (not a number) names the creature."""
    resolved = {
        k: _BY_BENCHMARK[k][0](level, v)
        if k in _BY_BENCHMARK and isinstance(v, str) and v in _BY_BENCHMARK[k][1]
        else v
        for k, v in values.items()
    }
    return overrides.apply(monster(level, benchmark, defense, monster_dc), resolved)
