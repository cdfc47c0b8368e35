"""Numbers that change with level (Pathfinder 2e tables shipped in ``simkit/data``).

Sources (copied from ``shared/data/pf2e``, see its README):

- ``level-based-dcs.csv``: Core Rulebook Table 10-5, DCs by level 0..25.
- ``dc-adjustments.csv``: Core Rulebook Table 10-6 ("Hard" = +2).
- ``creature-2-03-skills.csv``: GM Core "Building Creatures", skill modifiers by
  level (-1..24), benchmarks Extreme/High/Moderate/Low/Terrible (from the
  pathfinder2e_stats project, Apache 2.0).
"""

from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources

__all__ = ["level_dc", "monster_high_dc", "LEVEL_RANGE", "MONSTER_LEVEL_RANGE"]

LEVEL_RANGE = (0, 25)
MONSTER_LEVEL_RANGE = (0, 24)
HARD_ADJUSTMENT = 2


@lru_cache(maxsize=None)
def _table(name: str) -> tuple[dict, ...]:
    with resources.files("simkit").joinpath("data", name).open(newline="") as fh:
        return tuple(csv.DictReader(fh))


def level_dc(level: int) -> int:
    """Level-based DC (Core Rulebook Table 10-5), level 0..25."""
    rows = {int(r["level"]): int(r["DC"]) for r in _table("level-based-dcs.csv")}
    if level not in rows:
        raise ValueError(f"level must be an integer in [{LEVEL_RANGE[0]}, {LEVEL_RANGE[1]}], got {level!r}")
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
