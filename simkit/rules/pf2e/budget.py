"""Encounter budgets: XP by threat and party size, creature XP, lineup templates.

Sources (tables in ``simkit/rules/pf2e/data``, copied from ``shared/data/pf2e``):

- ``encounter-budget.csv``: Core Rulebook Table 10-1: XP budget of a party of four by
  threat (trivial 40, low 60, moderate 80, severe 120, extreme 160) and the adjustment
  per PC beyond (or short of) four (10, 15, 20, 30, 40).

Two editions of the encounter budget (``edition``, the party model's ``budget``, P-06):
``"gm-core"`` (the default; the remaster's GM Core, the same table except Low's
character adjustment, 20 XP per PC instead of 15) and ``"crb"`` (Core Rulebook Table
10-1 as written). ``docs/pf2e-sources.md`` names the sources.
- ``creature-xp.csv``: Core Rulebook Table 10-2: XP of one creature by its level minus
  the party's (-4: 10 ... +4: 160).

The lineup templates are our derivation (not PF2e tables): how a budget becomes a list
of creature levels.

- ``boss``: one creature, the highest level whose XP fits the budget (at most party
  level + 4); the XP left over is unused.
- ``boss_and_minions``: a boss of the highest level whose XP is at most half the
  budget, then minions of party level - 2 (20 XP) while the budget allows.
- ``pack``: creatures of one level, as many as the budget buys; the level is the one
  whose count is closest to the party size (ties: the higher level).

A template chooses level differences from Table 10-2; a level below the creature tables'
lowest (-1) is raised to -1 (party levels 1-2: a level-1 trivial pack is four level -1
creatures, not four level -3). The lineup's ``xp``, :meth:`Lineup.describe` and
:attr:`Lineup.threat` are those of the creatures used, so such a lineup can cost more
than its budget (that level-1 pack: 80 of 40 XP, a moderate threat).

Where the budget misbehaves, :attr:`Lineup.warnings` says so, one line each: a party
size whose budgets are out of order (GM Core, 1 PC: Low 0 XP below Trivial's 10; 2 PCs:
Low 20 XP, Trivial's), a creature more than 4 levels from the party's (beyond Table
10-2: its XP and threat are unrated), and a template that cannot spend its budget (the
XP it buys falls in a lower threat than the budget's: ``boss`` for 8 PCs at severe
spends 160 of 240 XP, a moderate threat).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from functools import cache
from importlib import resources

from simkit.core.names import suggest
from simkit.core.numbers import ascii_int, is_ascii_int
from simkit.core.params import register_kind
from simkit.rules import overrides
from simkit.rules.pf2e import creatures, foundry

__all__ = [
    "EDITIONS",
    "LINEUPS",
    "THREATS",
    "Lineup",
    "budget_warning",
    "creature_xp",
    "creature_notes",
    "explicit_lineup",
    "lineup",
    "lineup_creatures",
    "lineup_members",
    "parse_levels",
    "threat_of",
    "xp_budget",
    "foundry_threat_of",
]

THREATS = ("trivial", "low", "moderate", "severe", "extreme")
#: Editions of the encounter budget (P-06): the remaster's GM Core (default), the CRB's.
EDITIONS = ("gm-core", "crb")
#: GM Core's changes to Table 10-1's XP per PC beyond four (the rest is the CRB's).
GM_CORE_PER_PC = {"low": 20}
LINEUPS = ("boss", "boss_and_minions", "pack")
MONSTER_LEVELS = (-1, 24)  # levels of the creature tables
MINION = -2  # minions' level relative to the party (boss_and_minions)


@cache
def _rows(name: str) -> tuple[dict[str, str], ...]:
    text = resources.files("simkit.rules.pf2e").joinpath("data", name).read_text(encoding="utf-8")
    with io.StringIO(text, newline="") as fh:
        return tuple(csv.DictReader(fh))


@cache
def _xp_table() -> dict[int, int]:
    return {int(r["level_vs_party"]): int(r["xp"]) for r in _rows("creature-xp.csv")}


def _edition(edition: str) -> str:
    if edition not in EDITIONS:
        raise ValueError(f"budget must be one of {', '.join(EDITIONS)}; got {edition!r}")
    return edition


def xp_budget(threat: str, n_pcs: int = 4, edition: str = "gm-core") -> int:
    """XP budget of ``threat`` for a party of ``n_pcs`` (P-06: the XP for four PCs plus the
    per-PC adjustment times ``n_pcs - 4``; never below 0), by ``edition``: ``"gm-core"``
    (Low: 20 XP per PC) or ``"crb"`` (Table 10-1, Low: 15 XP per PC).

    Examples
    --------
    >>> xp_budget("low", 6), xp_budget("low", 6, "crb"), xp_budget("low", 1)
    (100, 90, 0)
    """
    _edition(edition)
    for r in _rows("encounter-budget.csv"):
        if r["threat"] == threat:
            base, per = int(r["xp_budget_4_pcs"]), int(r["xp_per_pc_beyond_4"])
            if edition == "gm-core":
                per = GM_CORE_PER_PC.get(threat, per)
            return max(0, base + per * (int(n_pcs) - 4))
    raise ValueError(f"threat must be one of {', '.join(THREATS)}; got {threat!r}")


def budget_warning(n_pcs: int, edition: str = "gm-core") -> str | None:
    """One line where the budgets of ``edition`` for ``n_pcs`` PCs are out of order (a
    threat's budget at or below the one before it, e.g. GM Core for 1 PC: Low 0 XP, below
    Trivial's 10), else None."""
    xp = [xp_budget(t, n_pcs, edition) for t in THREATS]
    for lower, higher, a, b in zip(THREATS, THREATS[1:], xp, xp[1:]):
        if b <= a:
            pcs = f"{n_pcs} PC" + ("" if n_pcs == 1 else "s")
            rel = "is below" if b < a else "equals"
            return (
                f"the {edition} budget for {pcs} is out of order: {higher.title()} "
                f"({b} XP) {rel} {lower.title()} ({a} XP), so those threats do not "
                "rank the fights"
            )
    return None


def threat_of(xp: int, n_pcs: int = 4, edition: str = "gm-core") -> str:
    """The threat of an encounter worth ``xp`` against ``n_pcs`` PCs (the budget of
    ``edition``, :func:`xp_budget`): the highest threat whose budget ``xp`` reaches
    (``"trivial"`` below the trivial budget), ``"beyond extreme"`` above the extreme
    budget, ``"unrated"`` for ``xp < 0`` (a creature beyond Table 10-2,
    :func:`explicit_lineup`).

    Examples
    --------
    >>> threat_of(80), threat_of(70), threat_of(80, 6), threat_of(200)
    ('moderate', 'low', 'trivial', 'beyond extreme')
    """
    xp = int(xp)
    if xp < 0:
        return "unrated"
    if xp > xp_budget(THREATS[-1], n_pcs, edition):
        return "beyond extreme"
    reached = [t for t in THREATS if xp_budget(t, n_pcs, edition) <= xp]
    return reached[-1] if reached else THREATS[0]


def foundry_threat_of(xp: int, n_pcs: int = 4, edition: str = "gm-core") -> str:
    """The threat Foundry VTT's encounter builder gives ``xp`` against ``n_pcs`` PCs: the
    lowest threat whose budget (:func:`xp_budget`) covers the XP (``xp <= budget``), where
    :func:`threat_of` (simkit's convention) gives the highest threat whose budget the XP
    reaches. The two agree at a budget exactly and differ in between: 88 XP for four PCs
    is ``"severe"`` here and ``"moderate"`` by :func:`threat_of`. ``"beyond extreme"``
    above the extreme budget, ``"unrated"`` for ``xp < 0``.

    Examples
    --------
    >>> foundry_threat_of(88), threat_of(88), foundry_threat_of(80), foundry_threat_of(20)
    ('severe', 'moderate', 'moderate', 'trivial')
    """
    xp = int(xp)
    if xp < 0:
        return "unrated"
    covers = [t for t in THREATS if xp <= xp_budget(t, n_pcs, edition)]
    return covers[0] if covers else "beyond extreme"


def creature_xp(level_diff: int) -> int:
    """XP of a creature ``level_diff`` levels above the party (Table 10-2, -4..+4)."""
    table = _xp_table()
    if level_diff not in table:
        raise ValueError(
            f"creature level - party level must be in [{min(table)}, {max(table)}], "
            f"got {level_diff!r}"
        )
    return table[level_diff]


@dataclass(frozen=True, slots=True)
class Lineup:
    """Creature levels chosen by a template for a budget (``levels`` is absolute)."""

    template: str
    budget: int
    levels: tuple[int, ...]
    xp: int  # XP of the creatures in ``levels`` (Table 10-2); -1 beyond it (explicit only)
    n_pcs: int = 4  # party size the threat is judged for
    #: explicit only: each creature's name where a lineup named it (``"boar"``), else ""
    names: tuple[str, ...] = ()
    #: explicit only: what the fight leaves out of each named creature, one line each
    notes: tuple[str, ...] = ()
    edition: str = "gm-core"  # the budget the threat is judged by (:data:`EDITIONS`)
    party_level: int | None = None  # the party's level (None: not known, no level check)

    @property
    def threat(self) -> str:
        """Threat of the creatures used against ``n_pcs`` PCs (:func:`threat_of`)."""
        return threat_of(self.xp, self.n_pcs, self.edition)

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line per way the budget misbehaves for this lineup: the budgets for
        ``n_pcs`` PCs out of order (:func:`budget_warning`), a creature more than 4 levels
        from the party's (beyond Table 10-2: XP and threat unrated), a template whose
        creatures fall in a lower threat than its budget (it cannot spend it)."""
        out = []
        order = budget_warning(self.n_pcs, self.edition)
        if order is not None:
            out.append(order)
        table = _xp_table()
        if self.party_level is not None:
            far = sorted({lvl for lvl in self.levels if lvl - self.party_level not in table})
            if far:
                which = ", ".join(f"level {lvl} ({lvl - self.party_level:+d})" for lvl in far)
                out.append(
                    f"{which} against a level-{self.party_level} party: beyond Table 10-2's "
                    f"{min(table):+d}..{max(table):+d} levels, so the lineup's XP and threat "
                    f"are unrated (clamped, it would count {self._clamped_xp()} XP)"
                )
        if self.template != "explicit":
            had, got = threat_of(self.budget, self.n_pcs, self.edition), self.threat
            if THREATS.index(got) < THREATS.index(had):
                out.append(
                    f"{self.template} cannot spend the budget: it spends {self.xp} of "
                    f"{self.budget} XP ({had} for {self.n_pcs} PCs), a {got} threat"
                )
        return tuple(out)

    def _clamped_xp(self) -> int:
        """XP of ``levels`` with each level difference clamped to Table 10-2's range."""
        table = _xp_table()
        lo, hi = min(table), max(table)
        assert self.party_level is not None
        return sum(table[min(max(lvl - self.party_level, lo), hi)] for lvl in self.levels)

    def describe(self, notes: bool = True) -> str:
        """The creatures, their XP, the budget and the threat they fall in, e.g. ``"boss:
        1 x level 7 (80 of 80 XP, moderate)"``, ``"explicit: 2 x level 5 (80 XP: moderate
        for 4 PCs)"``; ``notes``: with what the fight leaves out of each loaded creature.
        The warnings (:attr:`warnings`) are apart."""
        parts = []
        names = self.names or ("",) * len(self.levels)
        kinds = sorted(set(zip(self.levels, names)), key=lambda k: (-k[0], k[1]))
        for lvl, name in kinds:
            n = sum(1 for k in zip(self.levels, names) if k == (lvl, name))
            parts.append(f"{n} x {name} (level {lvl})" if name else f"{n} x level {lvl}")
        body = " + ".join(parts) if parts else "no creature"
        pcs = f"{self.n_pcs} PC" + ("" if self.n_pcs == 1 else "s")
        if self.template == "explicit":
            spent = f"{self.xp} XP" if self.xp >= 0 else "XP beyond Table 10-2"
            left = "".join(f"; {note}" for note in self.notes) if notes else ""
            return f"explicit: {body} ({spent}: {self.threat} for {pcs}){left}"
        if self.xp > self.budget:  # only where a level was raised to the tables' lowest
            lo = MONSTER_LEVELS[0]
            return (
                f"{self.template}: {body} ({self.xp} of {self.budget} XP, {self.threat}; "
                f"levels below {lo} raised to {lo})"
            )
        return f"{self.template}: {body} ({self.xp} of {self.budget} XP, {self.threat})"


def _clamp(level: int) -> int:
    return min(max(level, MONSTER_LEVELS[0]), MONSTER_LEVELS[1])


def lineup(
    template: str, budget: int, party_level: int, n_pcs: int = 4, edition: str = "gm-core"
) -> Lineup:
    """The creatures ``template`` buys with ``budget`` XP against a party of
    ``n_pcs`` at ``party_level`` (levels clamped to the tables' -1..24; ``xp`` is that of
    the clamped creatures, which may then exceed ``budget``); its threat is judged by the
    budget of ``edition`` (:func:`xp_budget`).

    Examples
    --------
    >>> lineup("boss", 80, 5).levels
    (7,)
    >>> lineup("pack", 80, 5).levels
    (3, 3, 3, 3)
    """
    table = _xp_table()
    diffs = sorted(table)
    budget = int(budget)
    rel: list[int] = []
    if template == "boss":
        fit = [d for d in diffs if table[d] <= budget]
        rel = [fit[-1]] if fit else []
    elif template == "boss_and_minions":
        fit = [d for d in diffs if table[d] <= budget // 2]
        rel = [fit[-1]] if fit else []
        left = budget - sum(table[d] for d in rel)
        rel += [MINION] * (left // table[MINION])
    elif template == "pack":
        best = None
        for d in diffs:
            count = budget // table[d]
            if count == 0:
                continue
            key = (abs(count - n_pcs), -d)
            if best is None or key < best[0]:
                best = (key, d, count)
        rel = [best[1]] * best[2] if best else []
    else:
        raise ValueError(f"lineup must be one of {', '.join(LINEUPS)}; got {template!r}")
    levels = tuple(_clamp(party_level + d) for d in rel)
    xp = sum(creature_xp(lvl - party_level) for lvl in levels)
    return Lineup(
        template, budget, levels, xp, n_pcs, edition=_edition(edition), party_level=party_level
    )


MAX_MONSTERS = 12
_ALLOWED = (
    f"creature levels in [{MONSTER_LEVELS[0]}, {MONSTER_LEVELS[1]}], bundled creatures "
    "(`simkit creatures`) or @FILE.json (Foundry VTT pf2e actors)"
)


def _named(head: str) -> tuple[foundry.Creature, ...] | None:
    """The creatures ``head`` names (a bundled slug, or ``@path``), None for a level."""
    if is_ascii_int(head):
        return None
    if head.startswith("@"):
        try:
            return foundry.load(head[1:])
        except foundry.ActorError as exc:
            raise ValueError(f"monsters: {exc}") from None
    try:
        return (foundry.bundled(head),)
    except KeyError:
        near = suggest(head, foundry.bestiary())
        raise ValueError(f"monsters must be {_ALLOWED}, got {head!r}{near}") from None


def lineup_creatures(value) -> tuple[foundry.Creature | None, ...]:
    """The loaded creature of each member of an explicit lineup (None for a member given
    by its level), in the order of :func:`lineup_members`."""
    out: list[foundry.Creature | None] = []
    for head, _ in overrides.split_items(_text(value), "monsters"):
        named = _named(head)
        out += [None] if named is None else list(named)
    return tuple(out)


def creature_notes(value) -> list[str]:
    """One line per distinct loaded creature of a lineup: what the fight leaves out of it
    (:meth:`simkit.rules.pf2e.foundry.Creature.note`)."""
    seen: dict[str, str] = {}
    for c in lineup_creatures(value):
        if c is not None:
            seen.setdefault(c.source, c.note())
    return list(seen.values())


def _text(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    if not isinstance(value, str):
        raise TypeError(f"monsters is a comma list of creature levels, got {value!r}")
    return value


def lineup_members(value) -> tuple[tuple[int, dict[str, object]], ...]:
    """The creatures of an explicit lineup: ``(level, explicit numbers)`` each, from a comma
    list like ``"7(hp=150;attack=18),5,5"`` or ``"boar(hp=50),crocodile,@my/actor.json"``
    (1..:data:`MAX_MONSTERS` creatures in levels -1..24, keys of
    :data:`simkit.rules.pf2e.creatures.MONSTER_FIELDS`); raises ValueError naming what is
    allowed.

    A creature by name (a bundled one, :func:`simkit.rules.pf2e.foundry.bestiary`) or by file
    (``@path``: one Foundry actor, a JSON list of them or a folder, each its own member)
    is its level and its numbers as explicit keys (:meth:`~simkit.rules.pf2e.foundry.Creature.
    values`, readings AP-12..AP-15) plus ``name``; the numbers given in parentheses
    replace them."""
    value = _text(value)
    items = overrides.split_items(value, "monsters")
    lo, hi = MONSTER_LEVELS
    members: list[tuple[int, dict[str, object]]] = []
    for head, body in items:
        named = _named(head)
        if named is None:
            lvl = ascii_int(head)  # ASCII digits (not '٧', '1_0'): _named refused those
            if not lo <= lvl <= hi:
                raise ValueError(
                    f"monsters must be 1 to {MAX_MONSTERS} creature levels in [{lo}, {hi}], "
                    f"got {value!r}"
                )
            what = f"monsters: level {lvl}"
            members.append((lvl, overrides.parse_pairs(body, creatures.MONSTER_FIELDS, what)))
            continue
        for c in named:
            if not lo <= c.level <= hi:
                raise ValueError(
                    f"monsters: {c.slug} ({c.source}) is level {c.level}: the creature "
                    f"tables cover levels [{lo}, {hi}]"
                )
            given = overrides.parse_pairs(body, creatures.MONSTER_FIELDS, f"monsters: {c.slug}")
            members.append((c.level, {**c.values(), "name": c.slug, **given}))
        if named is not None and len(members) > MAX_MONSTERS:  # a file of many actors
            raise ValueError(
                f"monsters: a lineup holds 1 to {MAX_MONSTERS} creatures; {head[:80]!r} "
                f"brings it to {len(members)} "
                f"({len(named)} creatures in that file or folder)"
            )
    if not 1 <= len(members) <= MAX_MONSTERS:
        raise ValueError(
            f"monsters must be 1 to {MAX_MONSTERS} creature levels in [{lo}, {hi}], got {value!r}"
        )
    return tuple(members)


def parse_levels(value) -> str:
    """Explicit creature levels as a canonical comma list, each with its explicit numbers
    if any, e.g. ``"7(attack=18;hp=150),5,5"`` (:func:`lineup_members`); a creature named
    (``boar``, ``@path.json``) keeps its name, with the numbers given."""
    value = _text(value)
    lineup_members(value)  # checked whole (a loaded creature's numbers too)
    out = []
    for head, body in overrides.split_items(value, "monsters"):
        if _named(head) is None:  # a level: its canonical digits
            head = str(ascii_int(head))
        values = overrides.parse_pairs(body, creatures.MONSTER_FIELDS, f"monsters: {head}")
        out.append(overrides.canonical(head, values, creatures.MONSTER_FIELDS))
    return ",".join(out)


def explicit_lineup(
    levels: tuple[int, ...],
    party_level: int,
    n_pcs: int = 4,
    monsters: str | None = None,
    edition: str = "gm-core",
) -> Lineup:
    """A lineup of the creatures given; ``xp`` is their XP (Table 10-2), -1 when a creature
    is more than 4 levels from the party's; its threat is judged for ``n_pcs`` PCs by the
    budget of ``edition`` (:func:`xp_budget`).

    With ``monsters`` (the lineup's text, whose members' levels are ``levels``), the
    creatures it names keep their names and what the fight leaves out of them
    (:func:`creature_notes`) for :meth:`Lineup.describe`, e.g. ``"explicit: 2 x boar
    (level 2) (160 XP: extreme for 4 PCs); boar (level 2): not modelled: reaction
    Ferocity; ..."``."""
    table = _xp_table()
    diffs = [lvl - party_level for lvl in levels]
    xp = sum(table[d] for d in diffs) if all(d in table for d in diffs) else -1
    names: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    if monsters is not None:
        found = lineup_creatures(monsters)
        if len(found) != len(levels):
            raise ValueError(
                f"monsters: {monsters!r} has {len(found)} creatures, not {len(levels)}"
            )
        if any(found):
            names = tuple(c.slug if c else "" for c in found)
            notes = tuple(creature_notes(monsters))
    return Lineup(
        "explicit", xp, tuple(levels), xp, n_pcs, names, notes, _edition(edition), party_level
    )


register_kind(
    "levels",
    parse_levels,
    f"a comma list of 1..{MAX_MONSTERS} creature levels in "
    f"[{MONSTER_LEVELS[0]}, {MONSTER_LEVELS[1]}], each optionally with its numbers, "
    "e.g. 7(hp=150;attack=18), or bundled creatures by name (boar, `simkit creatures`) "
    "or Foundry VTT actor files (@path.json), e.g. boar(hp=50),5",
    show_reason=True,
)
