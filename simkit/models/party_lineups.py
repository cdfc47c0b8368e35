"""The party's lineups: the fighters' numbers of one lineup (:class:`Combatants`), several
lineups in one rules object (:meth:`Party.with_lineups`, :data:`LINEUP_PARAMS`, at most
:data:`MAX_LINEUPS`), and the monsters' dice as draw sources over (fight, slot) (the
names of the draw plan, :mod:`simkit.models.party_plan`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simkit.core.params import ParamError
from simkit.models.fight_state import MAX_FIGHTS
from simkit.rules.pf2e import bestiary, budget, creatures, pcs

__all__ = ["LINEUP_PARAMS", "MAX_LINEUPS", "Combatants", "lineup_rules", "with_lineups"]


@dataclass(frozen=True)
class Combatants:
    """The resolved numbers of a fight: one entry per PC / per monster."""

    pcs: tuple[pcs.PCStats, ...]
    monsters: tuple[creatures.Monster, ...]
    lineup: budget.Lineup


@lru_cache(maxsize=256)
def party_roles(party: str) -> tuple[str, ...]:
    """The roles of a party text (parsed once per text)."""
    return tuple(r for r, _ in pcs.party_members(party))


@lru_cache(maxsize=256)
def combatants(
    party, level, template, xp, benchmark, defense, monster_dc, explicit, edition="gm-core"
) -> Combatants:
    members = pcs.party_members(party)
    if explicit is not None:
        given = budget.lineup_members(explicit)
        levels = tuple(lvl for lvl, _ in given)  # (the text: the creatures' names and notes)
        lu = budget.explicit_lineup(levels, level, len(members), explicit, edition)
        values = [v for _, v in given]
    elif template == bestiary.NAME:  # real creatures, drawn per track (AP-19)
        lu, drawn = bestiary.lineup(xp, level, len(members), edition)
        values = list(drawn)
    else:
        lu = budget.lineup(template, xp, level, len(members), edition)
        values = [{} for _ in lu.levels]
    return Combatants(
        pcs=tuple(pcs.member(r, v, level) for r, v in members),
        monsters=tuple(
            creatures.explicit_monster(lvl, v, benchmark, defense, monster_dc)
            for lvl, v in zip(lu.levels, values)
        ),
        lineup=lu,
    )


#: The parameters one lineup of :meth:`Party.with_lineups` may set: what builds the monsters.
LINEUP_PARAMS = (
    "threat",
    "xp_budget",
    "lineup",
    "monsters",
    "budget",
    "benchmark",
    "defense",
    "monster_dc",
    "area_uses",
    "area_chance",
    "map",
)
#: The most lineups one rules object holds.
MAX_LINEUPS = MAX_FIGHTS


@dataclass(frozen=True)
class _Lineups:
    """Every lineup's monster dice as draw sources over (fight, slot), padded to the largest
    lineup: ``F`` fights, ``M`` slots (a padded slot is an absent monster). Flat tables are
    indexed ``f * M + j``."""

    rules: tuple  # (F,) the single-lineup rules of each fight (Party, lineups=())
    F: int
    M: int
    mdmg_src: np.ndarray  # intp (F * M,): the source (draw) of slot j's damage in fight f
    mdmg_texts: tuple  # dice of each damage source
    mdmg_slot: tuple  # slot of each damage source
    marea_src: np.ndarray  # intp (F * M,): the source of slot j's area damage in fight f
    marea_texts: tuple
    marea_slot: tuple


def _sources_of(texts: list[list[str | None]], M: int):
    """Draw sources of one kind of monster dice: per slot, one source per distinct dice
    text over the fights (with one lineup: source ``j`` is slot ``j``). Returns (source of
    each (fight, slot), flat; each source's text; each source's slot)."""
    src = np.zeros(len(texts) * M, dtype=np.intp)
    out_t: list[str] = []
    out_j: list[int] = []
    for j in range(M):
        seen: dict[str, int] = {}
        for f, row in enumerate(texts):
            t = row[j] if j < len(row) else None
            if t is None:
                continue
            if t not in seen:
                seen[t] = len(out_t)
                out_t.append(t)
                out_j.append(j)
            src[f * M + j] = seen[t]
        first = next(iter(seen.values()))
        for f, row in enumerate(texts):  # a padded slot: any source (never read)
            if j >= len(row) or row[j] is None:
                src[f * M + j] = first
    src.setflags(write=False)
    return src, tuple(out_t), tuple(out_j)


@lru_cache(maxsize=256)
def lineup_sources(rules) -> _Lineups:
    """The lineup tables of ``rules`` (one fight unless it has ``lineups``)."""
    fights = rules.lineup_rules
    mons = [fr.fighters.monsters for fr in fights]
    M = max(len(x) for x in mons)
    mdmg = _sources_of([[mo.damage for mo in ms] for ms in mons], M)
    marea = _sources_of([[mo.area for mo in ms] for ms in mons], M)
    return _Lineups(
        rules=fights,
        F=len(fights),
        M=M,
        mdmg_src=mdmg[0],
        mdmg_texts=mdmg[1],
        mdmg_slot=mdmg[2],
        marea_src=marea[0],
        marea_texts=marea[1],
        marea_slot=marea[2],
    )


@lru_cache(maxsize=256)
def lineup_rules(rules) -> tuple:
    """The rules of each fight index of ``rules`` (:attr:`Party.lineup_rules`)."""
    if not rules.lineups:
        return bestiary.lineup_rules(rules) if bestiary.applies(rules) else (rules,)
    base = dataclasses.replace(rules, lineups=())
    return tuple(dataclasses.replace(base, **dict(items)) for items in rules.lineups)


def with_lineups(rules, lineups):
    """:meth:`Party.with_lineups` (its docstring says what ``lineups`` holds)."""
    items = []
    base = dataclasses.replace(rules, lineups=())
    lineups = tuple(lineups)
    if not 1 <= len(lineups) <= MAX_LINEUPS:
        raise ParamError(f"lineups: give 1 to {MAX_LINEUPS} lineups, got {len(lineups)}")
    for f, lu in enumerate(lineups):
        given = {"monsters": lu} if isinstance(lu, str) else dict(lu)
        bad = [name for name in given if name not in LINEUP_PARAMS]
        if bad:
            raise ParamError(
                f"lineups[{f}]: {bad[0]!r} is not a lineup parameter; allowed: "
                + ", ".join(LINEUP_PARAMS)
            )
        if given.get("monsters") is not None:
            given.setdefault("xp_budget", None)
        elif "threat" in given or given.get("xp_budget") is not None:
            given.setdefault("monsters", None)
            given.setdefault("xp_budget", None)
        try:
            one = dataclasses.replace(base, **given)
        except ParamError as exc:
            raise ParamError(f"lineups[{f}]: {exc}") from None
        if bestiary.applies(one):
            raise ParamError(
                f"lineups[{f}]: lineup={bestiary.NAME} draws its own lineups; give "
                f"{', '.join(budget.LINEUPS)} or monsters"
            )
        items.append(tuple((name, getattr(one, name)) for name in LINEUP_PARAMS))
    first = dataclasses.replace(base, **dict(items[0]))
    return dataclasses.replace(first, lineups=tuple(items))


def check_lineups(rules) -> None:
    """Refuse ``rules.lineups`` not built by :meth:`Party.with_lineups`."""
    if not isinstance(rules.lineups, tuple) or not 1 <= len(rules.lineups) <= MAX_LINEUPS:
        raise ParamError(
            f"lineups must be a tuple of 1 to {MAX_LINEUPS} lineups (Party.with_lineups)"
        )
    own = dict(rules.lineups[0])
    for name, value in own.items():
        if name not in LINEUP_PARAMS or getattr(rules, name) != value:
            raise ParamError(
                f"lineups: the first lineup is the rules' own, {name}={value!r} is not "
                f"(build them with Party.with_lineups)"
            )
