"""Real creatures beside the benchmark: the party's ``lineup="bestiary"`` (AP-19).

``lineup="bestiary"`` takes the creature levels the :data:`TEMPLATE` lineup (``boss``, of
:mod:`simkit.rules.pf2e.budget`) buys with the budget, and gives each track a real
creature of each such level, drawn from the bundled sample bestiary
(:func:`simkit.rules.pf2e.foundry.bestiary`, 39 Pathfinder Monster Core creatures).

- **Levels covered.** The bundled creatures cover every level from -1 to 21
  (:func:`levels_covered`; one or two creatures a level); a level without a bundled
  creature (22-24: a boss for a party of level 18 or more at some threats) is refused
  with a :class:`~simkit.core.params.ParamError` naming ``lineup`` and the covered levels,
  never replaced by a creature of another level (the XP and threat would silently change).
- **The lineups.** Every slot draws uniformly among the creatures of its level,
  independently. The distinct combinations (multisets of creatures) are the rules'
  lineups (``Party.with_lineups``' tables over (fight, slot), at most
  :data:`~simkit.models.party.MAX_LINEUPS`); :func:`combinations` lists them with their
  weights (the number of ordered draws that give each).
- **The draw.** A track's lineup is a function of its dice key alone
  (:meth:`simkit.core.streams.BlockRng.track_keys`: the seed, its stream, its position in
  the stream): an exactly uniform integer below the number of ordered draws from the
  SplitMix64 words of ``key ^`` :data:`SALT` (Lemire's multiply-and-reject, as
  :mod:`simkit.fight.dice`), so the draw does not depend on the block size, the workers,
  the engine (``kernel`` or ``loop``) or the other tracks, and it takes no word from the
  fight's own dice.

Each creature fights as a loaded creature of an explicit lineup (readings AP-12..AP-15:
its strike, HP, AC, saves, Perception and its own area effect; what is left out is listed
by :meth:`~simkit.rules.pf2e.foundry.Creature.note`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from functools import lru_cache

import numpy as np

from simkit.core import counter
from simkit.core.params import ParamError
from simkit.rules.pf2e import budget, foundry

__all__ = [
    "NAME",
    "SALT",
    "TEMPLATE",
    "Combination",
    "combinations",
    "draw",
    "levels_covered",
    "lineup",
    "note",
]

#: The ``lineup`` value that draws bundled creatures.
NAME = "bestiary"
#: The template whose levels the bestiary fills (one creature: the boss).
TEMPLATE = "boss"
#: What a track's dice key is mixed with before its lineup draw (a fixed odd constant:
#: changing it changes every bestiary number).
SALT = 0x6A09E667F3BCC909
_GOLDEN = np.uint64(counter.GOLDEN)


@dataclasses.dataclass(frozen=True)
class Combination:
    """One distinct draw of creatures: ``slugs`` (sorted by level, then name) and
    ``weight``, the number of ordered draws (one creature a slot) that give it."""

    slugs: tuple[str, ...]
    weight: int

    @property
    def monsters(self) -> str:
        """The explicit lineup of these creatures (``Party(monsters=...)``)."""
        return ",".join(self.slugs)


@lru_cache(maxsize=1)
def _by_level() -> dict[int, tuple[str, ...]]:
    out: dict[int, list[str]] = {}
    for slug, c in foundry.bestiary().items():
        out.setdefault(c.level, []).append(slug)
    return {lvl: tuple(sorted(v)) for lvl, v in sorted(out.items())}


def levels_covered() -> tuple[int, ...]:
    """The levels of the bundled creatures, sorted (-1..21, every one)."""
    return tuple(_by_level())


def _span(levels: tuple[int, ...]) -> str:
    """``"-1..21"`` for a run of levels, else a comma list."""
    if levels == tuple(range(levels[0], levels[-1] + 1)):
        return f"{levels[0]}..{levels[-1]}"
    return ", ".join(str(lvl) for lvl in levels)


def _choices(levels: tuple[int, ...]) -> tuple[tuple[str, ...], ...]:
    """The candidates of each slot; a ParamError for a level without a bundled creature."""
    table = _by_level()
    missing = sorted({lvl for lvl in levels if lvl not in table})
    if missing:
        which = ", ".join(str(lvl) for lvl in missing)
        raise ParamError(
            f"lineup={NAME}: no bundled creature of level {which} (the {TEMPLATE} template's "
            f"level{'s' if len(missing) > 1 else ''} for this party and budget); the bundled "
            f"bestiary covers levels {_span(levels_covered())}: lower the threat or the "
            f"level, or use lineup={TEMPLATE} (the benchmark creature)"
        )
    if not levels:
        raise ParamError(f"lineup={NAME}: the budget buys no creature (give a larger budget)")
    return tuple(table[lvl] for lvl in levels)


@lru_cache(maxsize=256)
def combinations(levels: tuple[int, ...]) -> tuple[Combination, ...]:
    """The distinct creature combinations for creature ``levels`` (one slot a level),
    each with its weight; ordered by first appearance among the ordered draws (slot 0's
    creature varies slowest, each slot's candidates by name)."""
    order: dict[tuple[str, ...], int] = {}
    for pick in itertools.product(*_choices(tuple(levels))):
        key = tuple(sorted(pick, key=lambda s: (-foundry.bundled(s).level, s)))
        order[key] = order.get(key, 0) + 1
    return tuple(Combination(k, w) for k, w in order.items())


def lineup(
    xp: int, party_level: int, n_pcs: int = 4, edition: str = "gm-core"
) -> tuple[budget.Lineup, tuple[dict[str, object], ...]]:
    """The bestiary's lineup for a budget: the :data:`TEMPLATE` lineup's levels (template
    named :data:`NAME`) and the numbers of its first combination's creatures (the rules'
    own fighters are fight 0's, as with ``Party.with_lineups``)."""
    lu = budget.lineup(TEMPLATE, xp, party_level, n_pcs, edition)
    first = combinations(lu.levels)[0]
    values = tuple({**foundry.bundled(s).values(), "name": s} for s in first.slugs)
    return dataclasses.replace(lu, template=NAME), values


def note(levels: tuple[int, ...]) -> str:
    """What a bestiary lineup draws, e.g. ``"drawn per track from the bundled bestiary:
    medusa (1 in 2), omen-dragon-young (1 in 2)"``."""
    combos = combinations(tuple(levels))
    total = sum(c.weight for c in combos)
    parts = []
    for c in combos:
        names = " + ".join(f"{n} x {s}" if n > 1 else s for s, n in Counter(c.slugs).items())
        parts.append(f"{names} ({c.weight} in {total})")
    return "drawn per track from the bundled bestiary: " + ", ".join(parts)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array (:func:`simkit.core.counter.mix64`)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _index(combos: tuple[Combination, ...]) -> np.ndarray:
    """(total,) int: the combination of each ordered draw (by cumulative weight)."""
    return np.repeat(np.arange(len(combos)), [c.weight for c in combos])


def draw(keys: np.ndarray, levels: tuple[int, ...]) -> np.ndarray:
    """(n,) int32: the lineup (index into :func:`combinations`) of each track of ``keys``
    (uint64 dice keys, :meth:`~simkit.core.streams.BlockRng.track_keys`): a function of
    each key alone, exactly uniform over the ordered draws (so each combination comes with
    probability weight / total)."""
    combos = combinations(tuple(levels))
    total = sum(c.weight for c in combos)
    keys = np.asarray(keys, dtype=np.uint64)
    out = np.zeros(len(keys), dtype=np.int64)
    if total == 1 or not len(keys):
        return out.astype(np.int32)
    n = np.uint64(total)
    base = keys ^ np.uint64(SALT)
    todo = np.arange(len(keys))
    bias = ((1 << 32) - total) % total
    c = 0
    with np.errstate(over="ignore"):  # uint64 products wrap by design
        while len(todo):
            z = base[todo] + np.uint64(c) * _GOLDEN
            w = _mix(z)
            m = (w >> np.uint64(32)) * n
            ok = (m & np.uint64(0xFFFFFFFF)) >= np.uint64(bias)
            out[todo[ok]] = (m[ok] >> np.uint64(32)).astype(np.int64)
            todo = todo[~ok]
            c += 1
    return _index(combos)[out].astype(np.int32)


def applies(rules) -> bool:
    """Whether party rules draw their lineup from the bestiary: ``lineup`` is
    :data:`NAME`, without explicit ``monsters`` and not one of ``with_lineups``' lineups."""
    return rules.lineup == NAME and rules.monsters is None and not rules.lineups


def lineup_rules(rules) -> tuple:
    """The rules of each of a bestiary lineup's fights: ``rules`` with the ``monsters`` of
    each combination (:func:`combinations` of its levels), in that order."""
    levels = rules.fighters.lineup.levels
    return tuple(
        dataclasses.replace(rules, monsters=c.monsters, xp_budget=None)
        for c in combinations(tuple(levels))
    )


def track_fights(rules, rng) -> np.ndarray | None:
    """(n,) int32: each fresh track's lineup for bestiary rules (:func:`draw` on the block's
    dice keys, ``rng.track_keys()``); None for other rules (every track fights lineup 0)."""
    if not applies(rules):
        return None
    return draw(rng.track_keys(), tuple(rules.fighters.lineup.levels))
