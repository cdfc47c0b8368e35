"""The benchmark creature's area effect, calibrated on the bundled bestiary (AP-10, AP-20).

The party model's benchmark monster (a creature given by its level, the ``boss``,
``boss_and_minions`` and ``pack`` lineups) has an area effect whose chance a turn is
``area_chance`` and whose uses are ``area_uses``. Before 0.4 they were 20% a turn, once,
for every creature: the bundled creatures say most creatures have none. Their counts:

- :func:`census` reads the bundled Foundry actors (``monster-core.json``, 39 Monster Core
  creatures) and counts, by level band (:data:`BANDS`), the creatures, those with an
  action whose description holds a ``@Template[...]`` (an area), those whose area deals
  damage (a ``@Damage``), those whose area the fight plays (AP-14: damage and a basic
  ``@Check``), and of those, the ones that recharge (``1dM rounds``) and the once-only;
- :data:`CALIBRATED` is that table as it was when the default was set (a test holds
  :func:`census` to it);
- :func:`default_chance`: a benchmark monster's chance a turn (``area_chance`` none) is
  the share of the band's creatures whose area the fight plays, times
  :data:`RECHARGE_CHANCE` (2/7, the 1d4 recharge of 10 of the 12 played areas; AP-15):
  the bestiary's mean area uses per creature turn in that band; its uses are
  :data:`AREA_USES` (no limit within a fight, as a recharge). A monster that has its own
  area uses (a loaded creature, ``7(area_uses=1)``) but no chance of its own uses
  :data:`RECHARGE_CHANCE`.

The benchmark's area dice (GM Core table 2-12, limited use) and DC (table 2-11, High)
already match the bundled areas (:func:`area_vs_tables`: the same DC for 10 of the 12
played areas, +1 and +2 for the others; the dice's mean 0.8 to 1.5 times the table's),
so they are unchanged. ``docs/threat.md`` shows the counts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from simkit.rules.pf2e import creatures, foundry

__all__ = [
    "AREA_USES",
    "BANDS",
    "CALIBRATED",
    "RECHARGE_CHANCE",
    "BandCount",
    "area_vs_tables",
    "band_of",
    "census",
    "default_chance",
]

#: Level bands of the census (creature levels; the last one also holds 22-24, which the
#: bundled bestiary does not reach).
BANDS = ((-1, 4), (5, 10), (11, 16), (17, 24))
#: A played area's chance a turn when the creature has one (AP-15's 1d4 recharge: 2/7).
RECHARGE_CHANCE = foundry.recharge_chance(4)
#: The benchmark monster's area uses in a fight (``area_uses``'s default): no limit (the
#: party model's most, as a recharging area, AP-15).
AREA_USES = 10

_RECHARGE = re.compile(r"\b\d+d\d+ rounds\b")


@dataclass(frozen=True, slots=True)
class BandCount:
    """The bundled creatures of one level band and their areas (see the module)."""

    lo: int
    hi: int
    creatures: int
    template: int  # an action whose text holds @Template (any area)
    damaging: int  # ... that holds a @Damage too
    played: int  # ... the area the fight plays (AP-14: damage and a basic save)
    recharge: int  # played, with a recharge (1dM rounds)
    once: int  # played, without one

    @property
    def share(self) -> float:
        """Share of the band's creatures with a played area."""
        return self.played / self.creatures


#: The census the defaults were calibrated on (:func:`census` of the bundled bestiary).
CALIBRATED = (
    BandCount(-1, 4, creatures=11, template=2, damaging=2, played=2, recharge=1, once=1),
    BandCount(5, 10, creatures=11, template=5, damaging=5, played=3, recharge=3, once=0),
    BandCount(11, 16, creatures=9, template=6, damaging=5, played=3, recharge=3, once=0),
    BandCount(17, 24, creatures=8, template=5, damaging=5, played=4, recharge=4, once=0),
)


def band_of(level: int) -> int:
    """The index in :data:`BANDS` of a creature level (-1..24)."""
    for k, (lo, hi) in enumerate(BANDS):
        if lo <= level <= hi:
            return k
    raise ValueError(f"level must be in [{BANDS[0][0]}, {BANDS[-1][1]}], got {level!r}")


def _actions(actor: dict) -> list[str]:
    """The descriptions of an actor's actions (not reactions, free actions, passives)."""
    out = []
    for it in actor.get("items", []):
        sys_ = it.get("system", {})
        if it.get("type") != "action" or sys_.get("actionType", {}).get("value") != "action":
            continue
        out.append(sys_.get("description", {}).get("value", "") or "")
    return out


@lru_cache(maxsize=1)
def census() -> tuple[BandCount, ...]:
    """The counts of :data:`CALIBRATED`, read again from the bundled Foundry actors."""
    path = foundry.BUNDLED
    text = resources.files("simkit.rules.pf2e").joinpath(*path).read_text(encoding="utf-8")
    read = {c.name: c for c in foundry.bestiary().values()}
    rows = [[0] * 6 for _ in BANDS]
    for actor in json.loads(text):
        c = read[actor["name"]]
        row = rows[band_of(c.level)]
        areas = [t for t in _actions(actor) if "@Template[" in t]
        row[0] += 1
        row[1] += bool(areas)
        row[2] += any("@Damage[" in t for t in areas)
        if c.area is not None:
            row[3] += 1
            row[4] += c.area.recharge is not None
            row[5] += c.area.recharge is None
    return tuple(BandCount(lo, hi, *row) for (lo, hi), row in zip(BANDS, rows))


def default_chance(level: int, own_area: bool = False) -> float:
    """A monster's area chance a turn when neither it nor the fight gives one
    (``area_chance`` none): :data:`RECHARGE_CHANCE` for a creature with its own area
    (``own_area``), else its band's share of creatures with a played area times it."""
    if own_area:
        return RECHARGE_CHANCE
    return CALIBRATED[band_of(level)].share * RECHARGE_CHANCE


def area_vs_tables() -> list[dict[str, object]]:
    """Each bundled creature's played area against the benchmark of its level: ``slug,
    level, dice, table_dice`` (GM Core 2-12, limited use), ``mean_ratio`` (its dice's mean
    over the table's), ``dc, table_dc`` (2-11, High)."""
    from simkit.rules.dice import parse_amount

    out = []
    for c in sorted(foundry.bestiary().values(), key=lambda c: (c.level, c.slug)):
        if c.area is None:
            continue
        table = creatures.monster_area_damage(c.level)
        out.append(
            dict(
                slug=c.slug,
                level=c.level,
                dice=c.area.damage,
                table_dice=table,
                mean_ratio=parse_amount(c.area.damage).mean / parse_amount(table).mean,
                dc=c.area.dc,
                table_dc=creatures.monster_spell_dc(c.level, "High"),
            )
        )
    return out
