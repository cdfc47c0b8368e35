"""A party encounter: PCs against monsters with hit points, one whole fight per track.

One step is one round. Every track is one fight of the same party (``party``: a comma
list of roles of :mod:`simkit.rules.pf2e.pcs` at ``level``) against the same lineup (built
from the XP budget of ``threat``, or ``xp_budget``, by the ``lineup`` template of
:mod:`simkit.rules.pf2e.budget`; creatures from :func:`simkit.rules.pf2e.creatures.monster`).
Arrays have shape ``(m, n_pcs)`` / ``(m, n_monsters)``: the kernel is vectorised over
tracks and combatants; :mod:`simkit.models.party_ref` is the scalar reference.

The round
---------
0. **Initiative** (once, at the start, P-01): every combatant rolls d20 + Perception;
   higher acts first; ties: monsters before PCs, then lower index first (AP-1). Each
   round the combatants act in that order. A PC knocked out by monster ``j`` moves to
   just before ``j`` (R0-03): it does not act again this round, and its next turn (its
   first recovery check) comes just before ``j``'s next turn; when ``j`` knocks out
   several PCs, the one knocked out later ends right before ``j`` (AP-2; an area effect's
   in the party's order). Damage while it is down does not move it (R0-09). The rules
   are :mod:`simkit.rules.initiative`; strikes and basic saves :mod:`simkit.rules.strike`.
1. **A PC's turn.** Dying (seed 000 / pf2e-core): the recovery check of
   :mod:`simkit.rules.recovery_check` (R0-05..R0-07), then what the new value does
   (:mod:`simkit.rules.hero_points`: stable at 0, a hero point spent per ``hero_policy``,
   dead at ``death_at``). Agonising (seed 001): spends the stabilisation cost when
   ``spend`` says so (R1-04), else loses 1 PP at the end of its turn, dead at 0 (R1-01).
   Conscious, by role:

   - ``cleric``: with heals left, heals (``heal`` dice) the first PC at 0 HP (not dead),
     else the first conscious PC at or below ``heal_below`` of its max HP (R0-04, R1-03:
     back at 1+ HP, conscious, dying lost); else first aid (Medicine vs
     ``first_aid_dc``, R1-02; ``first_aid_natural``: with the natural 20 / 1 rule, AP-4)
     on the first dying PC; else strikes (AP-5).
   - ``wizard``: with a slot left, its area spell at every living monster (basic Reflex
     save vs its spell DC); else its cantrip (basic Reflex) at the target of
     ``pc_target``.
   - ``fighter``, ``rogue`` (and a cleric with nothing better to do): two strikes at
     the multiple attack penalty (-5, agile -4), each at the target of ``pc_target``:
     ``focus`` = the living monster with the fewest HP (ties: the lower index),
     ``spread`` = a living monster at random. A natural-20 / +10 degree is a critical
     hit (double damage). A monster at 0 HP is dead (R0-02).
2. **A monster's turn.** With a limited-use area effect left (``area_uses``, or its own
   for a creature loaded from a stat block, AP-15), with probability ``area_chance`` (or its
   own recharge chance): the area damage of its level (table 2-12, one roll)
   against every conscious PC, each a basic Reflex save vs its spell DC (critical
   failure: a critical for the knock-out, R0-03). Else ``attacks`` strikes at ``map``,
   each at a PC: a downed PC (at 0 HP and not dead: the first in the party's order, or
   one at random with ``downed_pick=random``, AP-3) when ``target_downed``
   is ``always`` (or ``sometimes``, with probability ``downed_chance``; R0-09), else a
   conscious PC per ``monster_target``: ``random``, ``weakest`` (fewest HP), ``focus``
   (the first conscious PC in the party's order). AC of a PC at 0 HP: -6 (R0-11).
3. **Damage to a PC.** A hit of at least 2 x its max HP kills (R0-13,
   :mod:`simkit.rules.massive_damage`; the hit's whole damage, PE or not). Under seed 001
   with ``pe_damage=pe_first`` (A1-5, :func:`simkit.rules.rest.split_damage`) the PC's
   stamina points (PE) take the damage first and only the rest goes on (a hit the PE
   take whole does nothing more). Conscious: HP fall; at 0, knocked out (R0-03): a
   ``death`` trait kills (R0-12), ``nonlethal`` leaves it stable (R0-02, R1-11), else
   dying 1 (2 on a critical, + wounded under the wounded rule,
   :func:`simkit.rules.dying_damage.knockout_value`) with the recovery DC of the source
   (a strike: the monster's high DC, R0-06, A0-5; an area effect: its spell DC), or
   agonising under seed 001 (dead at once at 0 PP, ``zero_pp``, A1-1). At 0 HP
   (R0-09): a stable PC is knocked out again; a dying one's value changes per
   ``on_damage`` (:func:`simkit.rules.dying_damage.hit_while_dying`, A0-1) and the DC
   rises to the new source's if higher; an agonising one carries on.
4. **The end.** The fight ends when every monster is at 0 HP (the party wins), when
   every PC is at 0 HP (``defeat``: ``after_defeat=slain`` kills the downed PCs,
   ``captured`` leaves them alive), or at the end of a round in which ``retreat_at`` or
   more PCs are down (``retreat``). After a won fight (or a retreat) the downed PCs are
   treated, one round at a time: each conscious cleric heals a PC at 0 HP or gives
   first aid to a dying one; the dying make their checks until stable, healed or dead;
   under seed 001 (with ``long_term``) the stable PCs then make the hourly
   Constitution checks of :mod:`simkit.rules.hourly` (R1-06..R1-08; the best
   conscious cleric's Medicine as the healer), resolved at once.

``check_penalty`` (fatigue, hunger: R4-03, P-10) is added to every d20 a PC rolls: its
strikes, initiative, saves, recovery checks (not a flat check), Medicine and hourly
checks; not to its DCs (a spell DC is not a roll).

Lineups as data: :meth:`Party.with_lineups` gives rules with several lineups, and a
start's ``fight`` (:class:`~simkit.models.fight_state.FightStart`) picks each track's;
the kernel reads every monster's numbers from tables over (fight, slot), padded to the
largest lineup (an absent monster is at 0 HP: it never acts and is never a target), so
tracks of different fights share a block. One lineup gives the numbers of the rules
without it, draw for draw.

``hp`` (default: full) sets every PC's HP at the start; ``hp=0``: every PC starts
knocked out (dying ``start_dying``, recovery DC of the first monster's level; agonising
under seed 001), before round 1.

Outcomes: ``victory`` (no PC died), ``victory_with_deaths``, ``retreat``, ``defeat``
(and ``unresolved`` at ``max_rounds``). Marks: ``deaths``, ``knockouts``, ``rounds``
(rounds of fighting), ``dead_mask`` (bit ``k`` set when PC ``k`` died), ``hero_spent``,
``heals_spent``, and ``deaths`` by cause (they add up to it): ``deaths_in_fight`` (died
in the fight's rounds, before it was won, fled or lost; with ``hp=0`` and a monster,
at the start),
``deaths_after_defeat`` (killed because every PC was down, ``after_defeat=slain``),
``deaths_after_fight`` (died in the care after a won fight or a retreat: the dying
turns, the hourly checks).

``rules`` picks the dying system: ``seed000`` (as written), ``pf2e-core`` (published
PF2e: flat check, damage while dying increments, wounded, the hero point stabilises), or
``seed001`` (perseverance then the hourly checks). Not modelled: temporary HP,
slowed after waking, positions and movement, reactions, a PC's third action.

A PC at 0 HP (its dying or agonising turn, the knock-out, damage while down, waking,
first aid and the hourly checks) is kept by :class:`simkit.models.downed.Downed` over the
flat positions ``i * P + k`` of the ``(m, P)`` arrays, the component ``encounter`` uses
for its one PC; this model keeps only its own consequences of a death (``deaths``,
``dead_mask``, the DEAD condition) and of a knock-out (``knockouts``, R0-03's move).

Exact duels
-----------
One PC against one monster (``party`` of one role, ``lineup=boss``), with no healer
(the PC is not a cleric), is a finite absorbing chain over (PC HP (and PE under seed
001), monster HP, dying state): ``has_exact`` is then true and :func:`simkit.solve`
answers exactly, at every level (up to :data:`~simkit.models.party_duel.DUEL_MAX_STATES`
states: the distribution pushed forward round by round on a grid, each turn a matrix along
one axis, :mod:`simkit.models.duel_grid`; the state-by-state chain ``exact_initial`` /
``exact_step`` of :mod:`simkit.models.party_duel` is its reference). Under a custom track
at 0 HP (``dying=dnd5e``) too: a knock-out leaves the lone PC down (the track's start), a
defeat at once, and no hero point revives it (:func:`~simkit.models.party_duel.custom_down`;
a track whose start revives at once is left to the Monte Carlo).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.ambiguity import reading as _r
from simkit.core.model import Rules
from simkit.core.params import ParamError, param
from simkit.core.result import pc_names
from simkit.core.rows import row_all as _all
from simkit.core.rows import row_any as _any
from simkit.core.rows import row_sum as _count
from simkit.models.downed import DYING, STABLE, UP, Downed
from simkit.models.downed_rule import (
    EFFECTS,
    any_custom,
    check_pcs,
    check_pf2e,
    faces_width,
    fight_needs,
    fight_table,
    pc_table,
    pc_track,
    pf2e_on,
    resolve,
)
from simkit.models.downed_rule import (
    pf2e_of as _pf2e_of,
)
from simkit.models.dying_keys import OPTION_KEYS
from simkit.models.fight_state import MAX_FIGHTS, FightStart, FightState
from simkit.rules import (
    dying_systems,
    first_aid,
    guide,
    hero_points,
    hourly,
    initiative,
    massive_damage,
    perseverance,
)
from simkit.rules.dice import dice_draw, dice_values
from simkit.rules.dying_damage import WOUNDED_ADDS
from simkit.rules.hero_points import HERO_EFFECT, HERO_KNOCKOUT, HERO_POLICY
from simkit.rules.parameters import SHARED, shared
from simkit.rules.pf2e import area_census, bestiary, budget, creatures, pcs
from simkit.rules.rest import PE_DAMAGE, split_damage
from simkit.rules.strike import BASIC_X2, STRIKE_MULT, map_penalty, pc_map, roll_table, strike_ac

__all__ = ["OUTCOMES", "RULES_SETS", "Combatants", "Party"]

OUTCOMES = ("victory", "victory_with_deaths", "retreat", "defeat")
VICTORY, VICTORY_DEATHS, RETREAT, DEFEAT = range(4)
#: values of the ``cond`` state field: the downed-PC component's UP, DYING, STABLE, and DEAD
DEAD = 3
FIGHT, WON, FLED = 0, 1, 2  # values of the ``phase`` state field
#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A1-5",
        "R1-10",
        "party",
        "pe_damage",
        "whether damage takes stamina points (PE) before hit points",
        (
            _r("PE first", {"pe_damage": "pe_first"}, True),
            _r("HP only", {"pe_damage": "hp_only"}),
        ),
        setup={"rules": "seed001", "threat": "severe"},
        outcome="any_death",
    ),
    # The seed-000 track's wounded rule as the fight plays it (the dying model's A0-2 also
    # sets a wounded value at the start, which a fight starts at 0): ``compare party
    # --ambiguities A0-2``. A0-1, A0-3..A0-7 are the dying model's own entries, carried.
    Ambiguity(
        "A0-2",
        "R0-05",
        "party",
        "wounded_rule",
        "no wounded condition in the seed; published PF2e adds wounded to dying gained",
        (_r("no wounded", {"wounded_rule": False}, True), _r("wounded", {"wounded_rule": True})),
        setup={"threat": "severe"},
        outcome="any_death",
    ),
)
#: The dying systems (``rules``), declared once in :mod:`simkit.rules.dying_systems`.
RULES_SETS = dying_systems.DYING_OPTIONS
HOURS = hourly.WAKE_HOURS  # R1-07


@dataclass(frozen=True)
class Combatants:
    """The resolved numbers of a fight: one entry per PC / per monster."""

    pcs: tuple[pcs.PCStats, ...]
    monsters: tuple[creatures.Monster, ...]
    lineup: budget.Lineup


@lru_cache(maxsize=256)
def _roles(party: str) -> tuple[str, ...]:
    """The roles of a party text (parsed once per text: the kernel asks every round)."""
    return tuple(r for r, _ in pcs.party_members(party))


@lru_cache(maxsize=256)
def _combatants(
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
    """Every lineup's monsters as tables over (fight, slot), padded to the largest lineup:
    ``F`` fights, ``M`` slots. A padded slot is an absent monster: 0 HP (dead, never acts,
    never a target), no area effect. Flat tables are indexed ``f * M + j``."""

    rules: tuple  # (F,) the single-lineup rules of each fight (Party, lineups=())
    F: int
    M: int
    count: np.ndarray  # int8 (F,): monsters of each lineup
    hp: np.ndarray  # int32 (F, M): HP (0: absent)
    uses: np.ndarray  # int8 (F, M): area effects (AP-10, AP-15; 0: absent)
    perception: np.ndarray  # float64 (F, M): Perception (initiative, P-01)
    edges: np.ndarray  # int64 (F * M,): the area effect's chance a turn, as a chance edge
    rdc: np.ndarray  # int32 (F * M,): recovery DC its strikes set (R0-06)
    sdc: np.ndarray  # int32 (F * M,): spell DC (its area effect's basic save)
    start_dc: np.ndarray  # int16 (F,): recovery DC of a PC starting at hp=0
    mdmg_src: np.ndarray  # intp (F * M,): the source (draw) of slot j's damage in fight f
    mdmg_texts: tuple  # dice of each damage source
    mdmg_slot: tuple  # slot of each damage source
    marea_src: np.ndarray  # intp (F * M,): the source of slot j's area damage in fight f
    marea_texts: tuple
    marea_slot: tuple

    def monster(self, f: int, j: int):
        """Monster ``j`` of fight ``f`` (None: a padded slot)."""
        mons = self.rules[f].fighters.monsters
        return mons[j] if j < len(mons) else None


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
def _lineups(rules) -> _Lineups:
    """The lineup tables of ``rules`` (one fight unless it has ``lineups``)."""
    fights = rules.lineup_rules
    F = len(fights)
    mons = [fr.fighters.monsters for fr in fights]
    M = max(len(x) for x in mons)
    shape = (F, M)
    hp = np.zeros(shape, dtype=np.int32)
    uses = np.zeros(shape, dtype=np.int8)
    perc = np.zeros(shape, dtype=np.float64)
    edges = np.zeros(shape, dtype=np.int64)
    rdc = np.zeros(shape, dtype=np.int32)
    sdc = np.zeros(shape, dtype=np.int32)
    for f, (fr, ms) in enumerate(zip(fights, mons)):
        for j, mo in enumerate(ms):
            hp[f, j], perc[f, j] = mo.hp, mo.perception
            rdc[f, j], sdc[f, j] = mo.recovery_dc, mo.spell_dc
            uses[f, j] = fr.area_uses_of[j]
            p = fr.area_chance_of[j]
            edges[f, j] = int(guide.cell_guide((p, 1.0 - p))[0][1])
    mdmg = _sources_of([[mo.damage for mo in ms] for ms in mons], M)
    marea = _sources_of([[mo.area for mo in ms] for ms in mons], M)
    count = np.array([len(x) for x in mons], dtype=np.int8)
    start_dc = np.array([fr.start_dc for fr in fights], dtype=np.int16)
    flat: dict[str, np.ndarray] = {
        "edges": edges.reshape(-1),
        "rdc": rdc.reshape(-1),
        "sdc": sdc.reshape(-1),
    }
    tables: list[np.ndarray] = [hp, uses, perc, count, start_dc, *flat.values()]
    for a in tables:
        a.setflags(write=False)
    return _Lineups(
        rules=fights,
        F=F,
        M=M,
        count=count,
        hp=hp,
        uses=uses,
        perception=perc,
        **flat,
        start_dc=start_dc,
        mdmg_src=mdmg[0],
        mdmg_texts=mdmg[1],
        mdmg_slot=mdmg[2],
        marea_src=marea[0],
        marea_texts=marea[1],
        marea_slot=marea[2],
    )


@dataclass(frozen=True)
class _Bank:
    """The dice of one kind of roll, one source (combatant) each: how to read a sum.

    ``table`` (lazy: every source's draw is one integer below ``sides ** count``): the
    sums of every source end to end, source ``x``'s from ``offset[x]``; a sum is read only
    where a roll is used. ``table=None`` (a source drawn through a uniform): the sums are
    computed for every track when the round is drawn."""

    prefix: str  # plan name of source x's draw: prefix + str(x)
    texts: tuple[str | None, ...]  # dice of each source (None: it has none)
    shape: tuple[int, ...]  # trailing shape of each source's draw
    table: np.ndarray | None
    offset: np.ndarray


def _bank(prefix: str, texts: tuple[str | None, ...], shape: tuple[int, ...]) -> _Bank:
    if any(t is not None and dice_draw(t) == "random" for t in texts):
        return _Bank(prefix, texts, shape, None, np.zeros(len(texts), dtype=np.intp))
    parts, offset, pos = [np.zeros(1, dtype=np.int32)], [], 1  # entry 0: a source with none
    for t in texts:
        if t is None:
            offset.append(0)
            continue
        width = int(dice_draw(t)[len("below:") :])
        parts.append(dice_values(t, np.arange(width)).astype(np.int32))
        offset.append(pos)
        pos += width
    table = np.concatenate(parts)
    table.setflags(write=False)
    return _Bank(prefix, texts, shape, table, np.array(offset, dtype=np.intp))


@lru_cache(maxsize=256)
def _sources(rules) -> dict[str, _Bank]:
    """Every kind of dice roll of a round (see :meth:`Party._values`)."""
    F = rules.fighters
    wiz = set(rules.wizards)
    out = {
        "pdmg": _bank("dmg", tuple(p.damage for p in F.pcs), (2,)),
        "area": _bank("area", tuple(p.area if k in wiz else None for k, p in enumerate(F.pcs)), ()),
        "cantrip": _bank(
            "cantrip", tuple(p.cantrip if k in wiz else None for k, p in enumerate(F.pcs)), ()
        ),
        "heal": _bank("heal", tuple(p.heal or None for p in F.pcs), ()),
    }
    L = _lineups(rules)
    if L.M:
        out["mdmg"] = _bank("mdmg", L.mdmg_texts, (rules.attacks,))
        if rules.area_on:
            out["marea"] = _bank("marea", L.marea_texts, ())
    return out


class _Sums:
    """This round's dice sums: ``sums(key, i, x[, a])`` is the sum of source ``x``'s roll
    ``a`` on tracks ``i`` (int32), for ``key`` in :func:`_sources`. A sum is read only
    where a roll is used (a bank drawn through uniforms keeps its raw draws too)."""

    def __init__(self, banks: dict[str, _Bank], D: dict[str, np.ndarray], m: int):
        self.banks = banks
        self.stacks: dict[str, np.ndarray] = {}
        for key, b in banks.items():
            if b.table is not None:  # drawn side by side already (Party.draw)
                self.stacks[key] = D[key]
                continue
            out = np.zeros((m, len(b.texts)) + b.shape, dtype=np.float64)  # the raw draws
            for x, t in enumerate(b.texts):
                if t is not None:
                    out[:, x] = D[f"{b.prefix}{x}"]
            self.stacks[key] = out

    def __call__(self, key: str, i: np.ndarray, x: np.ndarray, a=None) -> np.ndarray:
        return self.at(key, _flat(self.stacks[key], i, x, a), x)

    def at(self, key: str, flat: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The sums at flat positions ``flat`` of the ``key`` stack, of sources ``x``."""
        raw = self.stacks[key].reshape(-1).take(flat)
        b = self.banks[key]
        if b.table is not None:
            return b.table.take(b.offset.take(x) + raw)
        out = np.zeros(len(raw), dtype=np.int32)
        for s, t in enumerate(b.texts):  # each source's dice, as :func:`dice_values` reads them
            if t is None:
                continue
            sel = np.flatnonzero(np.asarray(x) == s)
            r = raw.take(sel)
            out[sel] = dice_values(t, r if dice_draw(t) == "random" else r.astype(np.intp))
        return out


@dataclass(frozen=True)
class _Static:
    """Per-combatant numbers as arrays (built once per rules object)."""

    role: np.ndarray  # (P,) index in pcs.role_names()
    wslot: np.ndarray  # (P,) the PC's row in the ``msave`` draw (its place in rules.wizards)
    fort: np.ndarray


@lru_cache(maxsize=256)
def _static(rules) -> _Static:
    F = rules.fighters
    names = pcs.role_names()

    def a(values) -> np.ndarray:
        return np.array(values, dtype=np.int32)

    return _Static(
        role=a([names.index(p.role) for p in F.pcs]),
        wslot=a([rules.wizards.index(k) if k in rules.wizards else 0 for k in range(len(F.pcs))]),
        fort=a([p.fort for p in F.pcs]),
    )


_FIGHTER, _ROGUE, _CLERIC, _WIZARD = (
    pcs.role_names().index(r) for r in ("fighter", "rogue", "cleric", "wizard")
)


# -- row helpers: reductions over the few combatants of each track ----------------------------
# numpy reduces a short trailing axis slowly (a loop per row); these loop over the columns.


def _flat(a: np.ndarray, i: np.ndarray, k, c=None) -> np.ndarray:
    """Flat position of ``a[i, k]`` (or ``a[i, k, c]``) in a C-contiguous array ``a``."""
    flat = i * a.shape[1] + k
    if c is not None:
        flat = flat * a.shape[2] + c
    return flat


def _get(a: np.ndarray, i: np.ndarray, k, c=None) -> np.ndarray:
    """``a[i, k]`` (or ``a[i, k, c]``, ``c`` an int) of a C-contiguous array, by a flat take."""
    return a.reshape(-1).take(_flat(a, i, k, c))


def _first(m: np.ndarray) -> np.ndarray:
    """Column of the first True of each row of bool ``m`` (0 where none), like argmax."""
    out = np.zeros(len(m), dtype=np.int64)
    for c in range(m.shape[1] - 1, -1, -1):
        out[m[:, c]] = c
    return out


def _nth(m: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """Column of the ``pick``-th (0-based) True of each row of ``m`` (else the column count)."""
    out = np.full(len(m), m.shape[1], dtype=np.int64)
    seen = np.zeros(len(m), dtype=np.int64)
    for c in range(m.shape[1]):
        out[m[:, c] & (seen == pick)] = c
        seen += m[:, c]
    return out


def _weakest(hp: np.ndarray, i: np.ndarray) -> np.ndarray:
    """Column of the least positive ``hp[i]`` of each row (ties: the first; -1 if none).

    One int32 key per cell, ``(hp - 1) << s | column``, read column by column: a cell at
    0 HP gets a negative key, which the unsigned view makes the largest, so the least key
    is the target."""
    M = hp.shape[1]
    s = max(1, (M - 1).bit_length())
    flat = i * M
    best = np.full(len(i), np.iinfo(np.uint32).max, dtype=np.uint32)
    for c in range(M):
        key = hp.reshape(-1).take(flat + c) - np.int32(1)
        key <<= s
        key |= c
        np.minimum(best, key.view(np.uint32), out=best)
    out = (best & np.uint32((1 << s) - 1)).astype(np.intp)
    out[best >= np.uint32(1 << 31)] = -1
    return out


# -- bit masks of the PCs' conditions: one small integer per track -----------------------------
# Bit k of a mask is PC k. Targets among PCs are table lookups on the mask (P <= 8).


@lru_cache(maxsize=8)
def _cond_bits(k: int) -> np.ndarray:
    """``table[cond]``: PC ``k``'s bit in the conscious mask (low byte) and in the downed
    mask (high byte: dying or stable, not dead)."""
    t = np.zeros(4, dtype=np.uint16)
    t[UP] = 1 << k
    t[DYING] = t[STABLE] = 1 << (k + 8)
    t.setflags(write=False)
    return t


def _masks(cond: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(conscious, downed) PC bit masks (uint8) of tracks ``i``, from ``cond`` (n, P)."""
    P = cond.shape[1]
    flat = i * P
    both = np.zeros(len(i), dtype=np.uint16)
    for k in range(P):
        both |= _cond_bits(k).take(cond.reshape(-1).take(flat + k))
    return (both & 0xFF).astype(np.uint8), (both >> 8).astype(np.uint8)


@lru_cache(maxsize=8)
def _popcount_table(P: int) -> np.ndarray:
    t = np.array([bin(mask).count("1") for mask in range(1 << P)], dtype=np.int64)
    t.setflags(write=False)
    return t


@lru_cache(maxsize=8)
def _nth_bit_table(P: int) -> np.ndarray:
    """``table[mask * P + r]``: the column of the ``r``-th set bit of ``mask`` (P if none)."""
    t = np.full((1 << P, P), P, dtype=np.intp)
    for mask in range(1 << P):
        cols = [c for c in range(P) if mask >> c & 1]
        t[mask, : len(cols)] = cols
    t.setflags(write=False)
    return t.reshape(-1)


@lru_cache(maxsize=8)
def _first_bit_table(P: int) -> np.ndarray:
    """``table[mask]``: the column of the lowest set bit of ``mask`` (0 if none, like argmax)."""
    t = np.array([_nth_bit_table(P)[m * P] % P for m in range(1 << P)], dtype=np.intp)
    t.setflags(write=False)
    return t


@lru_cache(maxsize=8)
def _pick_table(P: int, L: int) -> np.ndarray:
    """``table[mask * L + w]``: the ``(w mod count)``-th set bit of ``mask`` (P if none);
    ``L`` is a multiple of every count (:func:`pick_draw`), so each is equally likely."""
    nth = _nth_bit_table(P).reshape(1 << P, P)
    t = np.full((1 << P, L), P, dtype=np.intp)
    w = np.arange(L)
    for mask in range(1, 1 << P):
        t[mask] = nth[mask].take(w % _popcount_table(P)[mask])
    t.setflags(write=False)
    return t.reshape(-1)


def _pick_bit(mask: np.ndarray, w: np.ndarray, P: int) -> np.ndarray:
    """The chosen set bit of each ``mask`` (a PC among those the mask holds) from a pick
    draw ``w`` (:func:`pick_draw` of ``P``): the ``(w mod count)``-th, or ``floor(u *
    count)``-th for a uniform float; ``P`` where the mask is empty."""
    if w.dtype.kind == "f":
        return _nth_bit_table(P).take(
            mask.astype(np.intp) * P + pick(w, _popcount_table(P).take(mask))
        )
    L = int(pick_draw(P)[len("below:") :])  # one lookup: (mask, w) -> the PC
    return _pick_table(P, L).take(mask.astype(np.intp) * L + w)


def _penalty(S, i: np.ndarray):
    """The check penalty (P-10) of tracks ``i``: one number when the block has one."""
    if len(S.pens) == 1:
        return S.pens[0]
    return np.asarray(S.pens, dtype=np.int32).take(S.pen_i.take(i))


def _argmin_where(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Column of the least ``v`` among the True cells of each row (ties: the first; 0 if none)."""
    out = np.zeros(len(m), dtype=np.int64)
    big = np.iinfo(np.int64).max
    best = np.full(len(m), big, dtype=np.int64)
    for c in range(m.shape[1]):
        vc = np.where(m[:, c], v[:, c].astype(np.int64), big)
        out[vc < best] = c
        np.minimum(best, vc, out=best)
    return out


@lru_cache(maxsize=256)
def _plan(rules) -> list:
    return rules._plan()


def faces(kind: str, raw: np.ndarray) -> np.ndarray:
    """What a draw of plan ``kind`` means, from the ``below`` integers drawn for it: a d20
    face 1..20 from ``[0, 20)``; any other kind is used as drawn."""
    return raw + np.uint16(1) if kind == "d20" else raw


def happens(hi: np.ndarray, lo: np.ndarray, p: float) -> np.ndarray:
    """Whether an event of probability ``p`` happens, from a ``chance`` draw: two 16-bit
    words ``(hi, lo)`` (its last axis), the 32-bit value ``hi << 16 | lo`` below the
    event's cell edge (:func:`simkit.rules.guide.cell_guide` of ``(p, 1 - p)``; exact to
    2**-32)."""
    edge = int(guide.cell_guide((p, 1.0 - p))[0][1])
    u = (hi.astype(np.int64) << 16) | lo
    return u < edge


def _happens_each(draw: np.ndarray, i: np.ndarray, j: np.ndarray, edges, at) -> np.ndarray:
    """:func:`happens` of a ``chance`` draw (m, M, 2) at tracks ``i``, monsters ``j``, each
    with its own chance: the edge ``edges[at]`` (``at``: the flat (fight, slot) of each)."""
    hi, lo = _get(draw, i, j, 0), _get(draw, i, j, 1)
    u = (hi.astype(np.int64) << 16) | lo
    if (edges == edges[0]).all():
        return u < edges[0]
    return u < edges.take(at)


def pick_draw(count: int) -> str:
    """How a uniform choice among at most ``count`` candidates is drawn: ``"below:L"`` with
    ``L`` the least common multiple of ``1..count`` (then ``w mod c`` is exactly uniform on
    ``c <= count`` candidates, see :func:`pick`); ``"random"`` (a uniform float) when ``L``
    would pass 65,536."""
    lcm = math.lcm(*range(1, max(count, 1) + 1))
    return f"below:{lcm}" if lcm <= 65536 else "random"


def pick(draw: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """Position (0-based) of the chosen one among ``cnt`` candidates, from a pick draw."""
    cnt = np.asarray(cnt, dtype=np.int64)
    if draw.dtype.kind == "f":
        return np.minimum((draw * cnt).astype(np.int64), np.maximum(cnt - 1, 0))
    return draw % np.maximum(cnt, 1)


@dataclass(frozen=True)
class _Rolls:
    """Every check of a fight as one lookup: ``table[case * 20 + d20 draw]``; ``f`` the
    track's fight (its lineup, of ``F``), ``j`` a monster slot of ``M``."""

    pc_strike: np.ndarray  # case ((((p * F + f) * P + k) * 2 + a) * M + j): PC k's a-th
    #                        strike at monster j, with the block's p-th check penalty
    pc_spell: np.ndarray  # case ((f * P + k) * M + j): monster j's basic Reflex vs PC k's
    #                       spell DC
    mon_strike: np.ndarray  # case ((((f * M + j) * A + a) * P + k) * 2 + down): at PC k
    #                         (down: at 0 HP)
    pc_save: np.ndarray  # case (((p * F + f) * M + j) * P + k): PC k's basic Reflex vs
    #                      monster j's spell DC, with the block's p-th check penalty


#: the numbers of an absent monster (a padded slot) in the roll tables: never looked up
_ABSENT = creatures.Monster(0, 0, 0, 0, 0, 0, 0, 0, "1", 0, "1", 0)


@lru_cache(maxsize=256)
def _rolls(rules, pens: tuple[int, ...]) -> _Rolls:
    """The fight's checks (P-02..P-04, R0-11) as lookups; the PCs' d20s take the check
    penalty (P-10): the tables that depend on it hold one block of cases per penalty of
    ``pens`` (a track's block: its ``pen_i``), and one block per fight."""
    F, A = rules.fighters, rules.attacks
    L = _lineups(rules)
    fights = [
        (fr, [L.monster(f, j) or _ABSENT for j in range(L.M)]) for f, fr in enumerate(L.rules)
    ]
    return _Rolls(
        pc_strike=roll_table(
            [
                (pc.attack + pen - map_penalty(pc_map(pc.agile), a), mo.ac)
                for pen in pens
                for _, mons in fights
                for pc in F.pcs
                for a in range(2)
                for mo in mons
            ],
            STRIKE_MULT,
        ),
        pc_spell=roll_table(
            [(mo.reflex, pc.spell_dc or 0) for _, mons in fights for pc in F.pcs for mo in mons],
            BASIC_X2,
        ),
        mon_strike=roll_table(
            [
                (mo.attack - map_penalty(fr.map, a), strike_ac(pc.ac, bool(down)))
                for fr, mons in fights
                for mo in mons
                for a in range(A)
                for pc in F.pcs
                for down in (0, 1)
            ],
            STRIKE_MULT,
        ),
        pc_save=roll_table(
            [
                (pc.reflex + pen, mo.spell_dc)
                for pen in pens
                for _, mons in fights
                for mo in mons
                for pc in F.pcs
            ],
            BASIC_X2,
        ),
    )


@dataclass(frozen=True, slots=True)
class Party(Rules):
    """A party of PCs against a lineup of monsters; one step = one round of the fight."""

    name: ClassVar[str] = "party"
    #: Replays one track of a loop run (:meth:`~simkit.core.model.Rules.replay_track`).
    replay_with: ClassVar[str | None] = "simkit.models.party_replay:replay"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = OUTCOMES
    #: a round's draws follow its plan (:meth:`draw`), never a track's state: variants on
    #: one plan step together on one draw (:mod:`simkit.core.lockstep`; bench_paired:
    #: 0.5-6.5% less than two runs keeping their outcomes, the draws are a fifth of a run)
    #: (with ``engine="loop"`` no: the loop draws by counter, so variants run one after the
    #: other share their dice track by track anyway; see :attr:`lockstep`)
    _LOCKSTEP: ClassVar[bool] = True

    @property
    def lockstep(self) -> bool:  # type: ignore[override]
        """Whether variants of these rules step together (the kernel: yes; the loop: no)."""
        return self.engine == "kernel"

    marks: ClassVar[tuple[str, ...]] = (
        "deaths",
        "knockouts",
        "rounds",
        "dead_mask",
        "hero_spent",
        "heals_spent",
        "deaths_in_fight",
        "deaths_after_defeat",
        "deaths_after_fight",
    )
    rule_ids: ClassVar[str] = (
        "R0-01..R0-13, R1-01..R1-08, R1-11; A0-1..A0-5, A0-7, A1-1, A1-2, A1-5; P-01..P-10; "
        "AP-1..AP-17"
    )
    #: P(at least one PC dies): ``calibrate party --target any_death=5%``
    events: ClassVar[dict[str, tuple[str, int]]] = {"any_death": ("deaths", 1)}
    #: The rows a printed table leads with (``simkit run party``, ``compare``)
    headline: ClassVar[tuple[str, ...]] = ("any_death", "defeat", "expected_deaths")
    #: P(the party won, with or without deaths): ``victory`` is "won, nobody died"
    outcome_events: ClassVar[dict[str, tuple[str, ...]]] = {
        "won": ("victory", "victory_with_deaths")
    }
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = AMBIGUITIES
    active_label: ClassVar[str] = "fight still going"
    #: Where the exact solver applies when it does not at the defaults (``simkit models``).
    exact_scope: ClassVar[str] = "duels"  # one PC (not a cleric) against one monster
    headline_params: ClassVar[tuple[str, ...]] = ("level", "threat", "party", "lineup", "rules")

    level: int = shared("level", default=5)
    party: str = param(
        "fighter,rogue,cleric,wizard",
        kind="party",
        help="the PCs: a comma list of roles (fighter, rogue, cleric, wizard), each with "
        "explicit numbers if wanted: fighter(hp=80;ac=23)",
    )
    threat: str = param(
        "moderate",
        kind="choice",
        choices=budget.THREATS,
        help="PF2e threat: sets the XP budget for the party's size (the budget edition's table)",
    )
    xp_budget: int | None = param(
        None,
        kind="int",
        lo=0,
        hi=2000,
        optional=True,
        unit="XP",
        help="XP budget of the lineup (none: from threat)",
    )
    lineup: str = param(
        "boss",
        kind="choice",
        choices=(*budget.LINEUPS, bestiary.NAME),
        rule="AP-19",
        help="how the budget becomes monsters: boss, boss_and_minions, pack (benchmark "
        "creatures), or bestiary (the boss's level, a real bundled creature drawn per track)",
    )
    monsters: str | None = param(
        None,
        kind="levels",
        optional=True,
        help="explicit lineup: creature levels like 7,5,5, each with explicit numbers if "
        "wanted: 7(hp=150;attack=18) (none: from the budget)",
    )
    budget: str = param(
        "gm-core",
        kind="choice",
        choices=budget.EDITIONS,
        rule="P-06",
        help="the encounter budget's edition: gm-core (remaster: Low 20 XP per PC beyond "
        "four) or crb (Core Rulebook Table 10-1: Low 15); sets threat's budget and a "
        "lineup's threat",
    )
    benchmark: str = shared("benchmark")
    defense: str = param(
        "Moderate",
        kind="choice",
        choices=creatures.DEFENSES,
        help="creature-building benchmark of the monsters' HP, AC, saves, Perception",
    )
    rules: str = param(
        "seed000",
        kind="choice",
        choices=dying_systems.SYSTEMS,
        help="dying system: seed000, pf2e-core (published PF2e), seed001 (perseverance)",
    )
    hp: int | None = shared("hp")
    start_dying: int = shared("start_dying")
    check_penalty: int = shared("check_penalty")
    hero_points: int = shared("hero_points", default=1)
    hero_policy: str | int = param(**HERO_POLICY)
    death_at: int = shared("death_at")
    hero_knockout: str = param(**HERO_KNOCKOUT)
    wounded_adds: str = param(**WOUNDED_ADDS)
    natural: bool = shared("natural")
    spend: str | int = shared("spend")
    stabilize_cap: int | None = shared("stabilize_cap", optional=True)
    zero_pp: str = shared("zero_pp")
    pe_damage: str = param(
        "pe_first",
        kind="choice",
        choices=PE_DAMAGE,
        rule="A1-5",
        help="seed001: damage takes the PCs' stamina points (PE) before their HP (pe_first), "
        "or HP only (hp_only: no PE)",
    )
    slowed: bool = param(
        False,
        seed_neutral=True,
        kind="bool",
        rule="R0-04",
        help="seed000: a PC back at 1 HP or more from dying (a heal, a hero point: R0-10) is "
        "slowed on its next turn by its dying value just before (slowed_loses says which "
        "actions it loses)",
    )
    slowed_loses: str = param(
        "spare",
        seed_neutral=True,
        kind="choice",
        choices=("spare", "strike"),
        rule="AP-21",
        help="the actions slowed takes of a PC's 3: first the spare third one the fight does "
        "not model (spare), or a strike at once (strike: the third is always spent)",
    )
    # PF2e's options on the seed-000/pf2e-core track (P-13..P-16, issue 31), as the dying
    # model's; per PC too (``fighter(toughness=true)``: :func:`downed_rule.pf2e_of`)
    toughness: bool = shared("toughness")
    diehard: bool = shared("diehard")
    fortune: str = shared("fortune")
    hero_use: str = shared("hero_use")
    # (seed_neutral: at their defaults, the seeds of sweeps and threat runs stay as before)
    temp_hp: int = param(0, seed_neutral=True, **SHARED["temp_hp"][1])
    back_in_fight: bool = param(False, seed_neutral=True, **SHARED["back_in_fight"][1])
    enough_pp: int = param(1, seed_neutral=True, **SHARED["enough_pp"][1])
    con_damage: int = param(
        0,
        seed_neutral=True,
        kind="int",
        lo=0,
        hi=20,
        rule="R1-12",
        help="seed001: points of Constitution damage each monster strike that hurts a PC "
        "deals: its modifier falls (ability_reading), its maximum PE with it, and its "
        "hourly checks take the lower modifier",
    )
    ability_reading: str = param(
        "score",
        seed_neutral=True,
        kind="choice",
        choices=("score", "per_point", "per_two"),
        rule="A1-4",
        help="what ability damage does to the modifier: that of the damaged score (score), "
        "-1 a point (per_point) or -1 per 2 points (per_two)",
    )
    back_again: bool = param(
        False,
        seed_neutral=True,
        kind="bool",
        rule="A1-12",
        help="seed001 with back_in_fight: a PC up again by R1-05 spends 1 PP for 1 HP on each "
        "later turn while below its max HP and its PP are enough (false: once a stabilisation)",
    )
    long_term: bool = shared("long_term")
    checks: int = shared("checks")
    attacks: int = shared("attacks")
    map: str = shared("map")
    trait: str = shared("trait")
    monster_dc: str = shared("monster_dc")
    target_downed: str = shared("target_downed")
    downed_chance: float = shared("downed_chance")
    downed_pick: str = param(
        "first",
        kind="choice",
        choices=("first", "random"),
        rule="AP-3",
        help="a monster striking the downed strikes the first downed PC in the party's order, "
        "or one at random",
    )
    first_aid_dc: int = shared("first_aid_dc")
    first_aid_natural: bool = param(
        False,
        kind="bool",
        rule="AP-4",
        help="first aid as a PF2e check: a natural 20 / 1 moves its degree one step "
        "(false: only the total counts, as A1-6)",
    )
    area_chance: float | None = param(
        None,
        kind="float",
        lo=0.0,
        hi=1.0,
        optional=True,
        rule="AP-20",
        help="per monster turn: chance of its area effect while it has uses (none: "
        "calibrated on the bundled bestiary, by the creature's level band, docs/threat.md)",
    )
    area_uses: int = param(
        area_census.AREA_USES,
        kind="int",
        lo=0,
        hi=10,
        rule="AP-20",
        help="area effects each monster can use in a fight (10: no limit, as a recharge)",
    )
    pc_target: str = param(
        "focus",
        kind="choice",
        choices=("focus", "spread"),
        help="PCs' targets: the weakest monster (focus) or one at random (spread)",
    )
    monster_target: str = param(
        "random",
        kind="choice",
        choices=("random", "weakest", "focus"),
        help="monsters' targets among conscious PCs: random, weakest, focus (first)",
    )
    heal_below: float = param(
        0.5,
        kind="float",
        lo=0.0,
        hi=1.0,
        help="the cleric heals a conscious PC at or below this fraction of its max HP",
    )
    after_defeat: str = param(
        "slain",
        kind="choice",
        choices=("slain", "captured"),
        help="every PC down: the monsters kill them (slain) or take them (captured)",
    )
    retreat_at: int | None = param(
        None,
        kind="int",
        lo=1,
        hi=8,
        optional=True,
        help="the party retreats at the end of a round with this many PCs down",
    )
    max_rounds: int = shared("max_rounds")
    dying: Any = param(
        None,
        kind="downed_rule",
        optional=True,
        seed_neutral=True,  # (a sweep point's seed is the one it had before this parameter)
        help="the PCs' rule at 0 HP: none = the rules set's own track; a custom track "
        "(dnd5e, dnd5e(dc=12;bonus=2), or a track object in Python) in its place "
        "(simkit.models.downed_rule says what a fight needs from it)",
    )
    # The rules set's own track's options (dying_systems.DYING_OPTIONS), one by one, declared
    # as the dying model's (one declaration a name): none = the rules set's (seed000: save,
    # max, false, revive; pf2e-core: flat, increment, true, stabilize); ``--set
    # dying.check=flat`` is ``check=flat`` (simkit.models.dying_keys). Seed-neutral: at none
    # a sweep point's seed is as before they were added.
    check: str | None = param(None, optional=True, seed_neutral=True, **SHARED["check"][1])
    on_damage: str | None = param(
        None,
        kind="choice",
        choices=("max", "increment"),
        rule="A0-1",
        help="damage while dying: keep the higher dying value, or add 1 (2 on a crit)",
        optional=True,
        seed_neutral=True,
    )
    wounded_rule: bool | None = param(
        None, optional=True, seed_neutral=True, **SHARED["wounded_rule"][1]
    )
    hero_effect: str | None = param(
        None,
        optional=True,
        seed_neutral=True,
        **{k: v for k, v in HERO_EFFECT.items() if k != "default"},
    )
    #: The lineups of the fights a block may hold (see :meth:`with_lineups`): per fight,
    #: ``(name, value)`` pairs of :data:`LINEUP_PARAMS`; the first is the rules' own.
    #: Empty: one fight, the rules' own lineup. Not a parameter of the command line.
    lineups: tuple = ()
    #: How the Monte Carlo plays the fight: ``loop`` (the compiled per-track loop of
    #: :mod:`simkit.fight`, the default since 0.4.0: dice by counter) or ``kernel`` (the
    #: vectorised kernel of 0.3, kept for its tests until it is retired). Not a parameter of
    #: the command line; the exact solver ignores it.
    engine: str = "loop"

    def validate(self) -> None:
        if self.engine not in ("kernel", "loop"):
            raise ParamError(f"engine must be 'kernel' or 'loop', got {self.engine!r}")
        given = [k for k in OPTION_KEYS if getattr(self, k) is not None]
        if given and (self.dying is not None or not self.seed000):
            raise ParamError(
                f"dying.{given[0]}={getattr(self, given[0])!r} is a reading of the seed000/"
                f"pf2e-core dying track; "
                + (
                    f"dying={getattr(self.downed_track, 'name', self.dying)} is a custom track "
                    "(set its own parameters: dying.KEY)"
                    if self.dying is not None
                    else f"rules={self.rules} plays agonising (R1-01)"
                )
            )
        if self.dying is not None:
            why = fight_needs(self.downed_track)
            if why is None and self.engine != "loop":
                why = "dying=: the kernel (engine='kernel') plays only the rules sets' own track"
            if why is None and not self.seed000:
                why = (
                    f"dying= replaces the dying track of seed000 or pf2e-core; rules={self.rules} "
                    "keeps its own (agonising, R1-01)"
                )
            if why is not None:
                raise ParamError(why)
        why = check_pcs(self)  # a PC's own track (``fighter(dying=dnd5e)``, issue 31)
        if why is None and any_custom(self) and self.dying is None:
            if self.engine != "loop":
                why = "a PC's dying=: the kernel (engine='kernel') plays only the rules set's track"
            elif not self.seed000:
                why = f"a PC's dying= replaces seed000/pf2e-core's track; rules={self.rules}"
        why = why or check_pf2e(self)  # PF2e's options per PC (P-13..P-16)
        if why is not None:
            raise ParamError(why)
        if self.engine == "kernel" and self.seed_rules_on:
            raise ParamError(
                "slowed, back_in_fight and temp_hp are played by the fight loop only "
                "(engine='loop')"
            )
        if self.engine == "loop":
            from simkit.fight.tables import supported

            why = supported(self)
            if why is not None:
                raise ParamError(f"engine='loop': {why}")
        if self.monsters is not None and self.xp_budget is not None:
            raise ParamError("monsters and xp_budget are exclusive: give one of them")
        if bestiary.applies(self):
            self.lineup_rules  # a level without a bundled creature: a ParamError (AP-19)
        if self.hp is not None:
            over = [
                (name, pc.hp)
                for name, pc in zip(pc_names(self.roles), self.fighters.pcs)
                if self.hp > pc.hp
            ]
            if over:
                name, most = min(over, key=lambda o: o[1])
                raise ParamError(
                    f"hp={self.hp} is above the maximum HP of the {name} ({most} at level "
                    f"{self.level}): hp is every PC's starting HP, at most each one's maximum "
                    f"(hp_max); give hp <= {most}, or each PC's HP in a start state (FightStart)"
                )
        if self.retreat_at is not None and self.retreat_at > self.n_pcs:
            raise ParamError(
                f"retreat_at={self.retreat_at} is not allowed: "
                f"at most the party's size ({self.n_pcs})"
            )
        if self.lineups:
            if not isinstance(self.lineups, tuple) or not 1 <= len(self.lineups) <= MAX_LINEUPS:
                raise ParamError(
                    f"lineups must be a tuple of 1 to {MAX_LINEUPS} lineups (Party.with_lineups)"
                )
            own = dict(self.lineups[0])
            for name, value in own.items():
                if name not in LINEUP_PARAMS or getattr(self, name) != value:
                    raise ParamError(
                        f"lineups: the first lineup is the rules' own, {name}={value!r} is not "
                        f"(build them with Party.with_lineups)"
                    )

    # -- several lineups in one block ---------------------------------------------------
    def with_lineups(self, lineups) -> Party:
        """These rules with several lineups, one per fight index (``FightStart.fight``).

        ``lineups``: a sequence of 1 to :data:`MAX_LINEUPS` lineups, each a mapping of
        :data:`LINEUP_PARAMS` (``{"threat": "severe", "lineup": "pack"}``,
        ``{"xp_budget": 120}``, ``{"monsters": "7,5,5"}``; what it leaves out is these
        rules') or a string (an explicit lineup: ``"7(hp=150),5"``). A lineup that names
        ``monsters`` drops the budget, one with ``threat`` or ``xp_budget`` drops
        ``monsters``. The result's own parameters are the first lineup's (its
        :attr:`fighters`, :meth:`describe_lineup` and exact duel are fight 0's); a track
        of ``start=`` with ``fight=f`` fights lineup ``f``, and tracks of different fights
        share a block. One lineup gives exactly the numbers of the rules with it.
        """
        items = []
        base = dataclasses.replace(self, lineups=())
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

    @property
    def lineup_rules(self) -> tuple[Party, ...]:
        """The rules of each fight index: one rules object per lineup, without
        ``lineups`` (just ``(self,)`` for rules with one lineup)."""
        return _lineup_rules(self)

    @property
    def n_fights(self) -> int:
        """How many lineups (fight indices) the rules hold."""
        return len(self.lineup_rules)

    @property
    def n_slots(self) -> int:
        """Monster slots of the kernel's arrays: the largest lineup's size."""
        return _lineups(self).M

    def monster_draw(self, kind: str, fight: int, j: int) -> str:
        """The plan name of the draw of monster ``j``'s dice in fight ``fight``: ``kind``
        ``"mdmg"`` (its strikes' damage) or ``"marea"`` (its area effect). With one lineup
        it is ``kind + str(j)``; with several, one draw serves every fight whose slot
        ``j`` rolls the same dice."""
        L = _lineups(self)
        src = L.mdmg_src if kind == "mdmg" else L.marea_src
        return f"{kind}{int(src[fight * L.M + j])}"

    # -- the fighters -----------------------------------------------------------------
    @property
    def roles(self) -> tuple[str, ...]:
        """The PCs' roles, in the party's order."""
        return _roles(self.party)

    @property
    def n_pcs(self) -> int:
        return len(self.roles)

    @classmethod
    def typical_character(cls, level: int) -> dict:
        """The default party at ``level`` (its PCs' numbers follow the level)."""
        return {"level": level}

    @property
    def budget_xp(self) -> int:
        """The lineup's XP budget: ``xp_budget``, else ``threat``'s for the party's size by
        the ``budget`` edition (P-06)."""
        return (
            self.xp_budget
            if self.xp_budget is not None
            else budget.xp_budget(self.threat, self.n_pcs, self.budget)
        )

    @property
    def fighters(self) -> Combatants:
        """The PCs' and monsters' numbers (cached on what they depend on)."""
        return _combatants(
            self.party,
            self.level,
            self.lineup,
            self.budget_xp,
            self.benchmark,
            self.defense,
            self.monster_dc,
            self.monsters,
            self.budget,
        )

    @property
    def start_dc(self) -> int:
        """Recovery DC of a PC starting at ``hp=0``: the first monster's, else a creature of
        the party's level (R0-06)."""
        F = self.fighters
        if F.monsters:
            return F.monsters[0].recovery_dc
        return creatures.monster(
            min(self.level, 24), self.benchmark, self.defense, self.monster_dc
        ).recovery_dc

    def describe_lineup(self, notes: bool = True) -> str:
        """The lineup used, e.g. ``"boss: 1 x level 7 (80 of 80 XP, moderate)"`` (and the
        explicit numbers given, if any); ``notes``: with what the fight leaves out of each
        loaded creature (AP-12..AP-15). Where the budget misbehaves, its warnings are
        ``self.fighters.lineup.warnings`` (:attr:`simkit.rules.pf2e.budget.Lineup.warnings`)."""
        text = self.fighters.lineup.describe(notes)
        if bestiary.applies(self):
            text += "; " + bestiary.note(self.fighters.lineup.levels)
        if self.monsters is not None and "(" in self.monsters:
            text += f"; given: {self.monsters}"
        return text

    @property
    def dying_options(self):
        """The options of the rules set's own track (A0-1, A0-2, A0-4, R0-10): the rules
        set's (:data:`~simkit.rules.dying_systems.DYING_OPTIONS`), those given
        (``check``... / ``dying.check``...: :mod:`simkit.models.dying_keys`) in their place."""
        own = dying_systems.DYING_OPTIONS[self.rules]
        given = {k: getattr(self, k) for k in OPTION_KEYS if getattr(self, k) is not None}
        return {**own, **given} if given else own

    @property
    def seed000(self) -> bool:
        return self.rules != "seed001"

    @property
    def downed_track(self):
        """The custom track the PCs follow at 0 HP (``dying``), or None for the rules set's
        own (:mod:`simkit.models.downed_rule`)."""
        return resolve(self.dying)

    def downed_table(self, pen: int):
        """What the fight loop reads of ``dying`` (:func:`downed_rule.fight_table`) for PCs
        under check penalty ``pen`` (P-10: the track's ``check_penalty`` is the fight's,
        when it has one), or None for the rules set's own track."""
        track = self.downed_track
        if track is None:
            return None
        if "check_penalty" in {f.name for f in dataclasses.fields(track)}:
            track = dataclasses.replace(track, check_penalty=track.check_penalty + int(pen))
        return fight_table(track)

    def pc_downed_track(self, k: int):
        """PC ``k``'s custom track at 0 HP (its own ``dying``, else the fight's), or None
        (:func:`downed_rule.pc_track`)."""
        return pc_track(self, k)

    def pc_downed_table(self, k: int, pen: int):
        """What the fight loop reads of PC ``k``'s track (:func:`downed_rule.pc_table`)."""
        return pc_table(self, k, pen)

    def pf2e_of(self, k: int) -> dict:
        """PC ``k``'s PF2e options on the dying track (:func:`downed_rule.pf2e_of`)."""
        return _pf2e_of(self, k)

    @property
    def downed_start_revives(self) -> bool:
        """Whether a knock-out on the custom track (``dying``) revives the PC at once (its
        start means ``revived``); False for the rules set's own track."""
        table = self.downed_table(self.check_penalty)
        return table is not None and table.start == -1 - EFFECTS.index("revived")

    @property
    def threshold(self) -> int | None:
        if not self.seed000:
            return None
        return hero_points.hero_threshold(self.hero_policy, self.hero_points, self.death_at)

    def stabilize_cost(self, k: int) -> int:
        """PP PC ``k`` spends to stabilise (R1-04, :func:`perseverance.stabilize_cost`)."""
        return int(perseverance.stabilize_cost(self.fighters.pcs[k].pp_max, self.stabilize_cap))

    @property
    def has_exact(self) -> bool:  # type: ignore[override]
        from simkit.models.party_duel import duel_supported

        own = any(getattr(p, "dying", None) is not None for p in self.fighters.pcs)
        own = own or pf2e_on(self)  # (the exact duel plays neither yet)
        return not self.seed_rules_on and not own and duel_supported(self)

    @property
    def seed_rules(self) -> dict:
        """The seed rules of issue 31 as the fight loop reads them (:mod:`simkit.fight.tables`):
        slowed after waking (R0-04, R0-10: seed000's own track only), back in the fight
        (R1-05, A1-3, A1-12: seed001 only), Constitution damage (R1-12, A1-4: seed001 only)."""
        return {
            "slowed": self.slowed and self.rules == "seed000" and self.dying is None,
            "slowed_loses": self.slowed_loses,
            "back_in_fight": self.back_in_fight and not self.seed000,
            "enough_pp": self.enough_pp,
            "back_again": self.back_again,
            "con_damage": self.con_damage if not self.seed000 else 0,
            "ability_reading": self.ability_reading,
        }

    @property
    def seed_rules_on(self) -> bool:
        """Whether a seed rule of issue 31 changes this fight (slowed, R1-05, temporary HP):
        the loop and its reference play them; the kernel and the exact duel do not."""
        s = self.seed_rules
        temp = any(self.temp_hp_of(k) for k in range(len(self.fighters.pcs)))
        return bool(s["slowed"] or s["back_in_fight"] or s["con_damage"] or temp)

    def temp_hp_of(self, k: int) -> int:
        """PC ``k``'s temporary HP at a fresh start (R0-14): its own (``fighter(temp_hp=5)``)
        if given, else the party's ``temp_hp``."""
        own = self.fighters.pcs[k].temp_hp
        return int(own if own is not None else self.temp_hp)

    #: A duel is solved on its grid (:mod:`simkit.models.duel_grid`); ``exact_initial`` /
    #: ``exact_step`` stay as the state-by-state chain the tests hold the grid to.
    has_exact_hist: ClassVar[bool] = True

    def exact_hist(self) -> np.ndarray:
        from simkit.models.duel_grid import duel_hist

        return duel_hist(self)

    def exact_initial(self) -> dict:
        from simkit.models.party_duel import duel_initial

        return duel_initial(self)

    def exact_step(self, state, t: int) -> dict:
        from simkit.models.party_duel import duel_step

        return duel_step(self, state, t)

    # -- random draws: one fixed plan per rules object --------------------------------------
    @property
    def plan(self) -> list[tuple[str, str, tuple[int, ...]]]:
        """(name, kind, trailing shape) of every array drawn in a round.

        Depends on the rules alone, never on the tracks' states.
        """
        return _plan(self)

    def _plan(self) -> list[tuple[str, str, tuple[int, ...]]]:
        P, M, A = self.n_pcs, self.n_slots, self.attacks
        F = self.fighters
        L = _lineups(self)
        out: list[tuple[str, str, tuple[int, ...]]] = [
            ("check", "d20", (P,)),
            ("patk", "d20", (P, 2)),
        ]
        for k, pc in enumerate(F.pcs):
            out.append((f"dmg{k}", dice_draw(pc.damage), (2,)))
            if pc.area and pc.cantrip:
                out += [
                    (f"area{k}", dice_draw(pc.area), ()),
                    (f"cantrip{k}", dice_draw(pc.cantrip), ()),
                ]
            if pc.heal:
                out.append((f"heal{k}", dice_draw(pc.heal), ()))
        if self.wizards:
            out.append(("msave", "d20", (len(self.wizards), M)))
        if self.clerics:
            out.append(("aid", "d20", (len(self.clerics),)))
        if self.pc_target == "spread":
            out.append(("pc_tgt", pick_draw(M), (P, 2)))
        if M:
            out += [("matk", "d20", (M, A))]
            for j in range(M):  # (one source a slot with one lineup)
                for x in (x for x, slot in enumerate(L.mdmg_slot) if slot == j):
                    out.append((f"mdmg{x}", dice_draw(L.mdmg_texts[x]), (A,)))
                if self.area_on:
                    for x in (x for x, slot in enumerate(L.marea_slot) if slot == j):
                        out.append((f"marea{x}", dice_draw(L.marea_texts[x]), ()))
            if self.area_on:
                out += [("area_u", "chance", (M,)), ("psave", "d20", (M, P))]
            if self.monster_target == "random":
                out.append(("mon_tgt", pick_draw(P), (M, A)))
            if self.target_downed == "sometimes":
                out.append(("downed_u", "chance", (M, A)))
            if self.target_downed != "never" and self.downed_pick == "random":
                out.append(("down_tgt", pick_draw(P), (M, A)))
        if self.hourly_on:
            out += [("con", "d20", (P, HOURS)), ("med", "d20", (P, HOURS))]
        if any(self.pf2e_of(k)["two"] for k in range(P)):  # P-15, P-16 (the loop only)
            out.append(("check2", "d20", (P,)))
        if any_custom(self):  # a face of the designer's tracks (the loop only; per PC)
            out.append(("trk", f"below:{faces_width(self)}", (P,)))
        return out

    @property
    def clerics(self) -> tuple[int, ...]:
        """Indices of the PCs who heal (the rows of the ``aid`` draw, in this order)."""
        return tuple(k for k, pc in enumerate(self.fighters.pcs) if pc.heal)

    @property
    def wizards(self) -> tuple[int, ...]:
        """Indices of the PCs who cast damaging spells (the rows of the ``msave`` draw)."""
        return tuple(k for k, pc in enumerate(self.fighters.pcs) if pc.area and pc.cantrip)

    @property
    def area_on(self) -> bool:
        """Whether some monster (of some lineup) can use an area effect (AP-10)."""
        if self.lineups:
            return any(fr.area_on for fr in self.lineup_rules)
        return any(u > 0 and c > 0 for u, c in zip(self.area_uses_of, self.area_chance_of))

    @property
    def area_uses_of(self) -> tuple[int, ...]:
        """Each monster's area effects (its own, AP-15, else ``area_uses``)."""
        return tuple(
            self.area_uses if mo.area_uses is None else mo.area_uses
            for mo in self.fighters.monsters
        )

    @property
    def area_chance_of(self) -> tuple[float, ...]:
        """Each monster's chance a turn of its area effect (its own, AP-15, else
        ``area_chance``, else calibrated on the bundled bestiary, AP-20)."""
        return tuple(
            mo.area_chance
            if mo.area_chance is not None
            else self.area_chance
            if self.area_chance is not None
            else area_census.default_chance(mo.level, own_area=mo.area_uses is not None)
            for mo in self.fighters.monsters
        )

    @property
    def hourly_on(self) -> bool:
        return not self.seed000 and self.long_term

    @property
    def pe_on(self) -> bool:
        """Whether damage takes the PCs' stamina points before their HP (seed 001, A1-5)."""
        return not self.seed000 and self.pe_damage == "pe_first"

    def draw(self, rng, m: int) -> dict[str, np.ndarray]:
        """One round's draws for ``m`` tracks (see :attr:`plan`), one call per entry, as
        drawn: a ``d20`` entry holds ``face - 1`` (0..19; :func:`faces` reads them). The
        dice of each kind of roll are drawn side by side into one array, ``D[key]`` for the
        keys of :func:`_sources` (see :class:`_Sums`)."""
        out: dict[str, np.ndarray] = {}
        banks = _sources(self)
        into: dict[str, np.ndarray] = {}
        for key, b in banks.items():
            if b.table is not None:
                out[key] = np.zeros((m, len(b.texts)) + b.shape, dtype=np.uint16)
                for x, t in enumerate(b.texts):
                    if t is not None:
                        into[f"{b.prefix}{x}"] = out[key][:, x]
        for name, kind, shape in self.plan:
            size = (m,) + shape
            if kind == "random":
                out[name] = rng.random(size=size)
                continue
            width = 65536 if kind == "chance" else 20 if kind == "d20" else int(kind[6:])
            if kind == "chance":
                size += (2,)
            dest = into.get(name)
            out[name] = rng.below(
                width, size, out=np.empty(size, dtype=np.uint16) if dest is None else dest
            )
        return out

    def init_draw(self, rng, m: int) -> np.ndarray:
        """Initiative d20s, shape (m, n_pcs + n_slots) (a padded slot's roll is unused)."""
        return rng.d20(size=(m, self.n_pcs + self.n_slots))

    def initiative_keys(self, rolls: np.ndarray, check_penalty=None, fight=None) -> np.ndarray:
        """Sort keys (higher acts first) from initiative rolls (P-01, AP-1; the PCs' rolls
        take the check penalty, P-10, one per track or ``check_penalty`` for all):
        :func:`simkit.rules.initiative.initiative_keys`; ``fight`` (m,): each track's
        lineup (its monsters' Perception; None: fight 0)."""
        F = self.fighters
        pen = self.check_penalty if check_penalty is None else check_penalty
        pcs_ = [p.perception for p in F.pcs]
        L = _lineups(self)
        if L.F == 1 or fight is None:
            mons = [mo.perception for mo in F.monsters] + [0] * (L.M - len(F.monsters))
            return initiative.initiative_keys(rolls, pcs_, mons, pen)
        keys = initiative.initiative_keys(rolls, pcs_, [0] * L.M, pen)
        keys[:, len(pcs_) :] += L.perception.take(np.asarray(fight), axis=0) * 256
        return keys

    # -- Monte Carlo kernel -------------------------------------------------------------------
    def fresh_start(self, n: int) -> FightStart:
        """Where a fight starts without ``start=``: every PC at its role's numbers (HP, or
        ``hp`` when lower), ``hero_points``, its slots, heals, PP and PE (full), unwounded
        and alive; every track at ``check_penalty``."""
        F = self.fighters
        hp_max = [p.hp for p in F.pcs]
        hp = hp_max if self.hp is None else [min(h, self.hp) for h in hp_max]
        return FightStart.full(
            n,
            hp=hp,
            hp_max=hp_max,
            hero=self.hero_points,
            slots=[p.slots for p in F.pcs],
            heals=[p.heals for p in F.pcs],
            pp=[p.pp_max for p in F.pcs],
            pe=[p.pe_max for p in F.pcs],
            pe_max=[p.pe_max for p in F.pcs],
            check_penalty=self.check_penalty,
        )

    def init(self, n: int, rng, start: FightStart | None = None):
        """A block of ``n`` fresh fights, or of fights from ``start`` (its ``n`` rows: HP,
        max HP, hero points, slots, heals, PP, PE, wounded, the dead, the check penalty). A PC
        at 0 HP and alive in ``start`` begins stable; ``hp`` then does not apply."""
        if self.engine == "loop":
            from simkit.models.party_loop import init as loop_init

            return loop_init(self, n, rng, start)
        F = self.fighters
        L = _lineups(self)
        P, M = len(F.pcs), L.M
        given = start is not None
        if start is None:  # the fresh start's one validated row, filled into every track
            one = _fresh_row(self)
            drawn = bestiary.track_fights(self, rng)  # (AP-19; None: fight 0)
            per_track: dict[str, object] = {"check_penalty": self.check_penalty, "fight": 0}
            if drawn is not None:
                per_track["fight"] = drawn

            def col(name, dtype):
                out = np.empty((n,) if name in per_track else (n, P), dtype=dtype)
                out[...] = per_track[name] if name in per_track else getattr(one, name)[0]
                return out

        elif len(start) != n or start.n_pcs != P:
            raise ParamError(
                f"start must hold {n} tracks of {P} PCs, got {len(start)} of {start.n_pcs}"
            )
        else:

            def col(name, dtype):
                return getattr(start, name).astype(dtype, order="C")

        fight, penalty = col("fight", np.int32), col("check_penalty", np.int32)
        if len(fight) and int(fight.max()) >= L.F:
            raise ParamError(
                f"start: fight must be in [0, {L.F - 1}] (the rules' lineups), "
                f"got {int(fight.max())}"
            )
        mleft = L.count.take(fight)
        hp, dead = col("hp", np.int32), col("dead", bool)
        if given:
            pens = tuple(int(v) for v in np.unique(penalty))
            cond = np.where(dead, DEAD, np.where(hp > 0, UP, STABLE)).astype(np.int8, order="C")
        else:  # (every track alike: the first row says it)
            pens = (self.check_penalty,)
            row = np.where(one.dead[0], DEAD, np.where(one.hp[0] > 0, UP, STABLE))
            cond = np.empty((n, P), dtype=np.int8)
            cond[...] = row
        S = FightState(
            hp=hp,
            hp_max=col("hp_max", np.int32),
            cond=cond,
            dying=np.zeros((n, P), dtype=np.int16),
            wounded=col("wounded", np.int16),
            dcs=np.zeros((n, P), dtype=np.int16),
            hero=col("hero", np.int8),
            pp=col("pp", np.int16),
            pe=col("pe", np.int32),
            pe_max=col("pe_max", np.int32),
            turns=np.zeros((n, P), dtype=np.int16),
            nl=np.zeros((n, P), dtype=bool),
            moved=np.zeros((n, P), dtype=bool),
            slots=col("slots", np.int8),
            heals=col("heals", np.int8),
            mhp=L.hp.take(fight, axis=0),
            area=L.uses.take(fight, axis=0),
            mleft=mleft,
            moves=np.zeros(n, dtype=np.int32),
            key=self.initiative_keys(self.init_draw(rng, n), penalty, fight),
            order=np.zeros((n, P + M), dtype=np.int8),
            phase=np.where(mleft > 0, FIGHT, WON).astype(np.int8),
            pen_i=np.searchsorted(pens, penalty).astype(np.int8),
            fight=fight.astype(np.int16),
            deaths=np.zeros(n, dtype=np.int16),
            knockouts=np.zeros(n, dtype=np.int16),
            rounds=np.zeros(n, dtype=np.int16),
            dead_mask=np.zeros(n, dtype=np.int32),
            hero_spent=np.zeros(n, dtype=np.int16),
            heals_spent=np.zeros(n, dtype=np.int16),
            deaths_in_fight=np.zeros(n, dtype=np.int16),
            deaths_after_defeat=np.zeros(n, dtype=np.int16),
            deaths_after_fight=np.zeros(n, dtype=np.int16),
            pens=pens,
        )
        # acting order (every key differs, see rules.initiative: any sort will do; the first
        # keys are integers below 2**31, and int32 sorts faster than float64)
        neg = S.key.astype(np.int32)
        np.negative(neg, out=neg)
        S.order = np.argsort(neg, axis=1).astype(np.int8)
        code = np.full(n, -1, dtype=np.int8)
        if self.hp == 0 and not given:  # every PC starts knocked out (R0-03)
            i = np.repeat(np.arange(n), P)
            k = np.tile(np.arange(P), n)
            self._knockout(
                S,
                code,
                i,
                k,
                np.zeros(len(i), dtype=bool),
                np.repeat(L.start_dc.take(fight), P).astype(np.int16),
                None,
                move=False,
                start=self.start_dying,
            )
            S.knockouts[:] = 0
            self._check_defeat(S, code, np.arange(n))
            up: np.ndarray | bool = _all(S.cond == UP)  # (a hero point may revive one)
        elif given:  # per track: every PC down or dead is a defeat
            up = _all(cond == UP)
            self._check_defeat(S, code, np.flatnonzero(~up))
        else:  # a fresh start: every PC up
            up = True
        code[(code < 0) & (mleft == 0) & up] = VICTORY  # no monster and every PC up: won now
        return S, code

    def carry(self, state: FightState, rows: np.ndarray) -> FightStart:
        """What tracks ``rows`` of ``state`` hand to a next fight (:class:`FightStart`)."""
        if self.engine == "loop":
            from simkit.models.party_loop import carry as loop_carry

            return loop_carry(self, state, rows)
        S = state

        def rows_of(a):  # (take along axis 0: a row index a[rows] is much slower)
            return a.take(rows, axis=0)

        return FightStart.trusted(
            hp=rows_of(S.hp),
            hp_max=rows_of(S.hp_max),
            hero=rows_of(S.hero),
            slots=rows_of(S.slots),
            heals=rows_of(S.heals),
            pp=rows_of(S.pp),
            pe=rows_of(S.pe),
            pe_max=rows_of(S.pe_max),
            wounded=rows_of(S.wounded),
            dead=rows_of(S.cond) == DEAD,
            check_penalty=rows_of(S.penalty),
            fight=rows_of(S.fight).astype(np.int32),
        )

    def step(self, state, t, rng):
        if self.engine == "loop":
            from simkit.models.party_loop import step as loop_step

            return loop_step(self, state, t, rng)
        S = state
        m = len(S["hp"])
        D = self.draw(rng, m)
        code = np.full(m, -1, dtype=np.int8)
        P, M = self.n_pcs, self.n_slots
        V = self._values(D, m)
        fighting = S["phase"] == FIGHT
        S["rounds"][fighting] += 1
        if S.any_moved:  # (else nobody's flag is set)
            S.moved[:] = False
            S.any_moved = False
        if fighting.any():
            order = S["order"]  # (m, P + M): combatants by initiative
            for s in range(P + M):
                actor = order[:, s]
                # one actor per track in a slot: a PC's turn never ends a track on which a
                # monster acts in the same slot, so one test of who is still fighting serves
                live = (code < 0) & (S["phase"] == FIGHT)
                is_pc = actor < P
                pc_i = np.flatnonzero(live & is_pc)
                mo_i = np.flatnonzero(live & ~is_pc)
                if len(pc_i):  # (indices as intp: int8 arithmetic would overflow)
                    self._pc_turns(S, D, V, code, pc_i, actor.take(pc_i).astype(np.intp), t)
                if len(mo_i):
                    j = actor.take(mo_i).astype(np.intp) - P
                    alive = _get(S["mhp"], mo_i, j) > 0
                    self._monster_turns(S, D, V, code, mo_i[alive], j[alive], t)
            if S.any_moved:  # R0-03 moved someone: a new order on those tracks
                moved = np.flatnonzero(_any(S["moved"]))
                S.order[moved] = np.argsort(-S.key.take(moved, axis=0), axis=1)
            # end of round: retreat
            if self.retreat_at is not None:
                down = _count(S["cond"] != UP)
                flee = (code < 0) & (S["phase"] == FIGHT) & (down >= self.retreat_at)
                S["phase"][flee] = FLED
        after = (code < 0) & (S["phase"] != FIGHT) & ~fighting
        i = np.flatnonzero(after)
        if len(i):
            self._aftermath(S, D, V, code, i)
        self._finish(S, D, code)
        return code

    def _values(self, D, m) -> _Sums:
        """This round's dice sums, by combatant, read where they are used."""
        return _Sums(_sources(self), D, m)

    # -- the PCs' turns -------------------------------------------------------------------------
    def _pc_turns(self, S, D, V, code, i, k, t):
        """PC ``k[n]`` acts on track ``i[n]`` (not if it moved in the order this round)."""
        f = i * S["cond"].shape[1] + k
        if S.any_moved:
            go = np.flatnonzero(~S["moved"].reshape(-1).take(f))
            i, k, f = i.take(go), k.take(go), f.take(go)
        cond = S["cond"].reshape(-1).take(f)
        up = cond == UP
        if not up.all():
            dy = cond == DYING
            if dy.any():
                self._dying_turn(S, D, code, i[dy], k[dy])
            i, k = i[up], k[up]
        role = _static(self).role[k]
        strike = (role == _FIGHTER) | (role == _ROGUE)
        cl = role == _CLERIC
        if cl.any():
            strike[np.flatnonzero(cl)] = self._cleric(S, D, V, code, i[cl], k[cl], t)
        wz = role == _WIZARD
        if wz.any():
            self._wizard(S, D, V, code, i[wz], k[wz], t)
        if strike.any():
            self._strikes(S, D, V, code, i[strike], k[strike])

    def _dying_turn(self, S, D, code, i, k):
        """Recovery check (seed 000) or agonising turn (seed 001) of PCs ``k`` on tracks ``i``
        (:class:`simkit.models.downed.Downed`)."""
        dn = _downed(self)
        f = i * S["cond"].shape[1] + k
        if self.seed000:
            fort = _static(self).fort[k] + _penalty(S, i)
            roll = D["check"].reshape(-1).take(f)
            died = dn.recovery_turn(S, f, roll, fort, S["dcs"].reshape(-1).take(f))
        else:
            died = dn.agonise(S, f)
        self._kill_at(S, code, died)

    def _kill_at(self, S, code, f):
        """The PCs at flat positions ``f`` (track * P + PC) die."""
        if len(f):
            P = S["cond"].shape[1]
            self._kill(S, code, f // P, f % P)

    def _kill(self, S, code, i, k, defeat=False):
        """PCs ``(i, k)`` die (pairs are distinct; a dead PC stays dead, R0-15).

        ``defeat``: killed because the party was defeated (``after_defeat=slain``); else
        the death counts in the fight (phase FIGHT) or after it (the care, the hourly
        checks)."""
        if not len(i):
            return
        P = S.cond.shape[1]
        alive = _get(S.cond, i, k) != DEAD
        i, k = i[alive], k[alive]
        f = i * P + k  # (flat positions: a pair index is slower)
        S.cond.reshape(-1)[f] = DEAD
        S.hp.reshape(-1)[f] = 0
        S.dying.reshape(-1)[f] = 0
        np.add.at(S["deaths"], i, 1)
        if defeat:
            np.add.at(S["deaths_after_defeat"], i, 1)
        else:
            in_fight = S["phase"].take(i) == FIGHT
            np.add.at(S["deaths_in_fight"], i[in_fight], 1)
            np.add.at(S["deaths_after_fight"], i[~in_fight], 1)
        np.bitwise_or.at(S["dead_mask"], i, np.left_shift(1, k.astype(np.int32)))

    def _heal(self, S, V, i, k, c):
        """Cleric ``c`` heals PC ``k`` on tracks ``i`` (each track once; R0-04, R1-03)."""
        P = S["hp"].shape[1]
        f = i * P + k  # flat positions of the healed PCs
        cond = S["cond"].reshape(-1).take(f)
        hp = S["hp"].reshape(-1)
        new = np.minimum(S.hp_max.reshape(-1).take(f), hp.take(f) + V("heal", i, c))
        wake = (cond != UP) & (new >= 1)  # back at 1 HP or more: conscious (a heal of 0 is not)
        _downed(self).wake(S, f[wake])  # conscious, dying lost (A0-2)
        hp[f] = new
        S["heals"].reshape(-1)[i * P + c] -= 1
        S["heals_spent"][i] += 1

    def _cleric(self, S, D, V, code, i, c, t):
        """Clerics ``c`` act on tracks ``i``; returns which of them still have to strike."""
        cond = S["cond"].take(i, axis=0)  # (n, P)
        has = _get(S.heals, i, c) > 0
        downed = (cond == DYING) | (cond == STABLE)
        hp_max = S.hp_max.take(i, axis=0)
        low = (cond == UP) & (S["hp"].take(i, axis=0) <= self.heal_below * hp_max)
        tgt_down = _any(downed)
        tgt_low = _any(low)
        target = np.where(tgt_down, _first(downed), _first(low))
        heal = has & (tgt_down | tgt_low)
        self._heal(S, V, i[heal], target[heal], c[heal])
        dying = cond == DYING
        aid = ~heal & _any(dying)
        a, b, cc = i[aid], _first(dying)[aid], c[aid]
        ok = np.zeros(len(a), dtype=bool)
        for col in self.clerics:
            sel = cc == col
            ok[sel] = self._first_aid(S, D, a[sel], col)
        _downed(self).stabilize(S, a[ok] * S["cond"].shape[1] + b[ok])
        return ~heal & ~aid

    def _first_aid(self, S, D, i, c) -> np.ndarray:
        """Whether cleric ``c``'s first aid works on tracks ``i`` (R1-02, rules/first_aid)."""
        roll = _get(D["aid"], i, self.clerics.index(c)) + 1
        out = np.zeros(len(i), dtype=bool)
        for p, pen in enumerate(S.pens):  # (one table per check penalty, P-10)
            sel = slice(None) if len(S.pens) == 1 else S.pen_i.take(i) == p
            out[sel] = first_aid.first_aid_lookup(
                roll[sel],
                bonus=self.fighters.pcs[c].medicine,
                check_penalty=pen,
                dc=self.first_aid_dc,
                natural=self.first_aid_natural,
            )
        return out

    def _targets(self, S, D, i, k, a):
        """Monster each PC ``k`` on tracks ``i`` aims its ``a``-th attack at (-1: none alive)."""
        if S["mhp"].shape[1] == 1:  # one monster: it, while it lives
            return np.where(_get(S.mhp, i, 0) > 0, 0, -1)
        if self.pc_target == "focus":
            return _weakest(S["mhp"], i)
        alive = S["mhp"].take(i, axis=0) > 0  # (n, M)
        cnt = _count(alive)
        tgt = _nth(alive, pick(_get(D["pc_tgt"], i, k, a), cnt))
        return np.where(cnt > 0, tgt, -1)

    def _hit_monster(self, S, code, i, j, dmg):
        """Damage ``dmg`` to monsters ``j`` on tracks ``i`` (each track once); the party wins
        a track where the last monster falls to 0 HP (R0-02)."""
        flat = i * S["mhp"].shape[1] + j
        old = S["mhp"].reshape(-1).take(flat)
        left = np.maximum(old - dmg, 0)
        S["mhp"].reshape(-1)[flat] = left
        fell = i[(left == 0) & (old > 0)]
        S["mleft"][fell] -= 1
        S["phase"][fell[S["mleft"][fell] == 0]] = WON

    def _strikes(self, S, D, V, code, i, k):
        """Two strikes (R0-05, multiple attack penalty) of PCs ``k`` on tracks ``i``."""
        P, M = S["hp"].shape[1], S["mhp"].shape[1]
        table, nf = _rolls(self, S.pens).pc_strike, self.n_fights
        j = self._targets(S, D, i, k, 0)
        for a in range(2):
            if a:  # (every track of ``i`` is fighting at the first strike)
                live = S["phase"].take(i) == FIGHT
                i, k, j = i[live], k[live], j[live]
                if self.pc_target == "focus":  # still the weakest, unless it fell
                    fell = np.flatnonzero(_get(S["mhp"], i, j) == 0)
                    j[fell] = self._targets(S, D, i.take(fell), k.take(fell), a)
                else:
                    j = self._targets(S, D, i, k, a)
            f = (i * P + k) * 2 + a  # (track, PC, strike) in patk and the pdmg stack
            case = (k * 2 + a) * M + j
            if nf > 1:  # the track's lineup
                case = case + S.fight.take(i).astype(np.intp) * (P * 2 * M)
            if len(S.pens) > 1:  # the track's check penalty (P-10)
                case = case + S.pen_i.take(i).astype(np.intp) * (nf * P * 2 * M)
            mult = table.take(case * 20 + D["patk"].reshape(-1).take(f))
            hit = np.flatnonzero(mult)
            dmg = V.at("pdmg", f.take(hit), k.take(hit)) * mult.take(hit)
            self._hit_monster(S, code, i.take(hit), j.take(hit), dmg)

    def _wizard(self, S, D, V, code, i, w, t):
        """Wizards ``w`` on tracks ``i`` cast their area spell, or their cantrip (basic
        Reflex saves)."""
        P, M = self.n_pcs, self.n_slots
        table, wslot = _rolls(self, S.pens).pc_spell, _static(self).wslot
        multi = self.n_fights > 1
        slot = _get(S["slots"], i, w) > 0
        a, ww = i[slot], w[slot]
        f = _flat(S.slots, a, ww)
        S.slots.reshape(-1)[f] = S.slots.reshape(-1).take(f) - 1
        base = V("area", a, ww)
        row = ww if not multi else S.fight.take(a).astype(np.intp) * P + ww  # (f * P + k)
        for j in range(M):
            roll = _get(D["msave"], a, wslot[ww], j)
            dmg = (base * table.take((row * M + j) * 20 + roll)) >> 1
            hit = (dmg > 0) & (_get(S["mhp"], a, j) > 0)
            self._hit_monster(S, code, a[hit], np.full(hit.sum(), j), dmg[hit])
        b, wb = i[~slot], w[~slot]
        j = self._targets(S, D, b, wb, 0)
        ok = j >= 0
        b, wb, j = b[ok], wb[ok], j[ok]
        roll = _get(D["msave"], b, wslot[wb], j)
        row = wb if not multi else S.fight.take(b).astype(np.intp) * P + wb
        dmg = (V("cantrip", b, wb) * table.take((row * M + j) * 20 + roll)) >> 1
        hit = dmg > 0
        self._hit_monster(S, code, b[hit], j[hit], dmg[hit])

    # -- the monsters' turns ----------------------------------------------------------------------
    def _monster_turns(self, S, D, V, code, i, j, t):
        """Monsters ``j`` (alive) act on tracks ``i`` (still fighting): an area effect, or
        strikes."""
        L = _lineups(self)
        multi = L.F > 1
        if self.area_on:
            has = np.flatnonzero(_get(S["area"], i, j) > 0)
            a, b = i.take(has), j.take(has)
            at = S.fight.take(a).astype(np.intp) * L.M + b if multi else b
            use = has[_happens_each(D["area_u"], a, b, L.edges, at)]
            if len(use):
                self._area(S, D, V, code, i.take(use), j.take(use), t)
                rest = np.ones(len(i), dtype=bool)
                rest[use] = False
                i, j = i[rest], j[rest]
        P, M, A = self.n_pcs, L.M, self.attacks
        table = _rolls(self, S.pens).mon_strike
        for a in range(self.attacks):
            if a:  # (the first strike: every track of ``i`` is still fighting)
                live = (code.take(i) < 0) & (S["phase"].take(i) == FIGHT)
                i, j = i[live], j[live]
            upm, downm = _masks(S["cond"], i)
            if self.monster_target == "random":
                tgt_up = _pick_bit(upm, D["mon_tgt"].reshape(-1).take((i * M + j) * A + a), P)
            elif self.monster_target == "weakest":
                up = S["cond"].take(i, axis=0) == UP
                tgt_up = _argmin_where(up, S["hp"].take(i, axis=0))
            else:
                tgt_up = _first_bit_table(P).take(upm)
            if self.target_downed == "never":  # then a live fight has a conscious PC
                k, down = tgt_up, 0
            else:
                aim_down = downm > 0
                if self.target_downed == "sometimes":
                    u = D["downed_u"].reshape(-1)  # (m, M, A, 2)
                    f = ((i * M + j) * A + a) * 2
                    aim_down &= happens(u.take(f), u.take(f + 1), self.downed_chance)
                if self.downed_pick == "random":  # AP-3
                    w = D["down_tgt"].reshape(-1).take((i * M + j) * A + a)
                    tgt_down = _pick_bit(downm, w, P)
                else:
                    tgt_down = _first_bit_table(P).take(downm)
                k = np.where(aim_down, tgt_down, tgt_up)
                ok = aim_down | (upm > 0)
                i, j, k = i[ok], j[ok], k[ok]
                down = _get(S["cond"], i, k) != UP  # AC -6 at 0 HP (R0-11)
            f = (i * M + j) * A + a  # (track, monster, strike) in matk (and the mdmg stack)
            fj = S.fight.take(i).astype(np.intp) * M + j if multi else j  # (fight, slot)
            case = ((fj * A + a) * P + k) * 2 + down
            mult = table.take(case * 20 + D["matk"].reshape(-1).take(f))
            hit = np.flatnonzero(mult)
            i_, k_, j_, mult = i.take(hit), k.take(hit), j.take(hit), mult.take(hit)
            if multi:  # the damage draw of the monster's source (one a slot and dice)
                fj_ = fj.take(hit)
                x = L.mdmg_src.take(fj_)
                dmg = V.at("mdmg", (i_ * len(L.mdmg_texts) + x) * A + a, x) * mult
            else:
                fj_ = j_
                dmg = V.at("mdmg", f.take(hit), j_) * mult
            fell = self._damage(S, code, i_, k_, j_, dmg, mult == 2, L.rdc.take(fj_))
            self._check_defeat(S, code, fell)

    def _area(self, S, D, V, code, i, j, t):
        """Monsters ``j`` on tracks ``i`` use their area effect: every conscious PC makes a
        basic Reflex save (a critical failure is a critical for the knock-out, R0-03)."""
        P = self.n_pcs
        L = _lineups(self)
        f = _flat(S.area, i, j)
        S.area.reshape(-1)[f] = S.area.reshape(-1).take(f) - 1
        table = _rolls(self, S.pens).pc_save
        block = 0
        fj = j
        if L.F > 1:  # the track's lineup; its monster's source of area dice
            fj = S.fight.take(i).astype(np.intp) * L.M + j
            block = fj * P - j * P
            base = V("marea", i, L.marea_src.take(fj))
        else:
            base = V("marea", i, j)
        if len(S.pens) > 1:  # the track's check penalty (P-10)
            block = block + S.pen_i.take(i).astype(np.intp) * (L.F * L.M * P)
        hits = []  # (tracks, PC, damage, critical failure) of each PC: one _damage call
        for k in range(P):
            mult = table.take((block + j * P + k) * 20 + _get(D["psave"], i, j, k))
            dmg = (base * mult) >> 1
            hit = np.flatnonzero((_get(S["cond"], i, k) == UP) & (dmg > 0))
            hits.append((hit, np.full(len(hit), k), dmg.take(hit), mult.take(hit) == 4))
        hit, kk, dmg, crit = (np.concatenate(x) for x in zip(*hits))
        jj = j.take(hit)  # (the PCs of one track are hit independently: any order is the same)
        sdc = L.sdc.take(fj.take(hit) if L.F > 1 else jj)
        self._damage(S, code, i.take(hit), kk, jj, dmg, crit, sdc, distinct=False)
        self._check_defeat(S, code, i)

    def _damage(self, S, code, i, k, j, dmg, crit, src_dc, distinct=True) -> np.ndarray:
        """Damage ``dmg`` to PCs ``(i, k)`` from monster ``j`` (R0-13, R0-03, R0-09, R0-12).

        Returns the tracks where a PC fell (the only ones that can have lost the fight)."""
        if not len(i):
            return i
        P = S["hp"].shape[1]
        cond = S["cond"].reshape(-1).take(i * P + k)  # (the pairs are distinct)
        massive = massive_damage.is_massive(dmg, S.hp_max.reshape(-1).take(i * P + k))
        fell = i[massive]
        if len(fell):
            self._kill(S, code, fell, k[massive])
        if self.pe_on:  # stamina first (A1-5): what the PE take does nothing more
            dmg = self._stamina(S, i * P + k, dmg, massive)
        up = np.flatnonzero(~massive & (cond == UP))  # conscious: HP fall (R0-03)
        a, b = i.take(up), k.take(up)
        f = a * P + b
        hp = S["hp"].reshape(-1)
        left = hp.take(f) - dmg.take(up)
        hp[f] = np.maximum(left, 0)
        ko = np.flatnonzero(left <= 0)
        if len(ko):
            u = up.take(ko)
            a, b = a.take(ko), b.take(ko)
            self._knockout(
                S, code, a, b, crit.take(u), src_dc.take(u), j.take(u), move=True, distinct=distinct
            )
            fell = np.concatenate((fell, a))
        down = ~massive & (cond != UP) & (cond != DEAD) & (dmg > 0)  # at 0 HP (R0-09)
        if not down.any():
            return fell
        f = i[down] * P + k[down]
        died, again = _downed(self).hit_down(S, f, crit[down], src_dc[down])
        if len(again):  # a stable PC knocked out again (its initiative unchanged)
            np.add.at(S["knockouts"], again // P, 1)
        self._kill_at(S, code, died)
        return fell

    def _stamina(self, S, f, dmg, massive):
        """Damage ``dmg`` at flat positions ``f`` (the PCs not killed by ``massive``) takes
        their PE first (A1-5, :func:`simkit.rules.rest.split_damage`); returns the damage
        left for their HP (0 where the PE took it all, and at ``massive``)."""
        pe = S.pe.reshape(-1)
        go = np.flatnonzero(~massive)
        g = f.take(go)
        hp = S.hp.reshape(-1).take(g)
        pe_left, hp_left, excess = split_damage(dmg.take(go), pe.take(g), hp, self.pe_damage)
        pe[g] = pe_left
        out = np.zeros(len(dmg), dtype=np.int64)
        out[go] = hp - hp_left + excess
        return out

    def _knockout(self, S, code, i, k, crit, src_dc, j, move, start=1, distinct=False):
        """PCs ``(i, k)`` fall to 0 HP (R0-03; R1-01, R1-11); ``j``: the monster (moves them).
        ``distinct``: each track appears once in ``i``."""
        if not len(i):
            return
        if distinct:
            S.knockouts[i] += 1
        else:
            np.add.at(S["knockouts"], i, 1)
        if move and j is not None:
            P = len(self.fighters.pcs)
            initiative.move_keys(S.key, S.moves, i, k, P + j, distinct=distinct)  # R0-03, AP-2
            S.moved.reshape(-1)[_flat(S.moved, i, k)] = True
            S.any_moved = True
        P = S["cond"].shape[1]
        died = _downed(self).knockout(S, i * P + k, crit, src_dc, start)  # R0-03, A0-2
        self._kill_at(S, code, died)

    def _check_defeat(self, S, code, i):
        """Tracks ``i`` whose PCs are all at 0 HP: defeat (``after_defeat``)."""
        # (``i`` holds each track once: one target per strike, one area per monster turn)
        lost = _all(S["cond"].take(i, axis=0) != UP) & (S["phase"][i] == FIGHT) & (code[i] < 0)
        i = i[lost]
        if not len(i):
            return
        if self.after_defeat == "slain":
            for k in range(len(self.fighters.pcs)):
                self._kill(S, code, i, np.full(len(i), k), defeat=True)
        code[i] = DEFEAT

    # -- after the fight ------------------------------------------------------------------------
    def _aftermath(self, S, D, V, code, i):
        """One round of care after a won fight or a retreat (tracks ``i``)."""
        F = self.fighters
        for c, pc in enumerate(F.pcs):
            if not pc.heal:
                continue
            here = i[(S["cond"][i, c] == UP)]
            cond = S["cond"].take(here, axis=0)
            downed = (cond == DYING) | (cond == STABLE)
            heal = (S["heals"][here, c] > 0) & _any(downed)
            self._heal(S, V, here[heal], _first(downed)[heal], np.full(heal.sum(), c))
            rest = here[~heal]
            dying = S["cond"].take(rest, axis=0) == DYING
            aid = _any(dying)
            a, b = rest[aid], _first(dying)[aid]
            ok = self._first_aid(S, D, a, c)
            _downed(self).stabilize(S, a[ok] * len(F.pcs) + b[ok])
        for k in range(len(F.pcs)):
            dy = i[S["cond"][i, k] == DYING]
            if len(dy):
                self._dying_turn(S, D, code, dy, np.full(len(dy), k))

    def _finish(self, S, D, code):
        """Tracks whose fight is over and whose PCs are all conscious, stable or dead end."""
        open_ = code < 0
        over = open_ & (S["phase"] != FIGHT) & ~_any(S["cond"] == DYING)
        i = np.flatnonzero(over)
        if len(i) and self.hourly_on:
            self._hourly(S, D, code, i)
        won = S["phase"][i] == WON
        code[i] = np.where(won, np.where(S["deaths"][i] > 0, VICTORY_DEATHS, VICTORY), RETREAT)

    def _hourly(self, S, D, code, i):
        """Seed 001 long-term care of the stable PCs at 0 HP (R1-06..R1-08, via
        :meth:`simkit.models.downed.Downed.hourly`; the best conscious cleric's Medicine
        tends them)."""
        F = self.fighters
        P = len(F.pcs)
        cond = S["cond"].take(i, axis=0)
        healer = np.full(len(i), -1, dtype=np.int32)
        for c, pc in enumerate(F.pcs):
            if pc.medicine is not None:
                healer = np.where((cond[:, c] == UP) & (pc.medicine > healer), pc.medicine, healer)
        r, k = np.nonzero(cond == STABLE)
        if not len(r):
            return
        a = i.take(r)
        f = a * P + k
        died, _ = _downed(self).hourly(
            S,
            f,
            D["con"].reshape(-1, HOURS).take(f, axis=0) + 1,
            D["med"].reshape(-1, HOURS).take(f, axis=0) + 1,
            healer.take(r),
            np.asarray(S.pens, dtype=np.int64).take(S.pen_i.take(a)),
            S.hp_max.reshape(-1).take(f),
        )
        self._kill_at(S, code, f[died])


@lru_cache(maxsize=256)
def _lineup_rules(rules: Party) -> tuple[Party, ...]:
    if not rules.lineups:
        return bestiary.lineup_rules(rules) if bestiary.applies(rules) else (rules,)
    base = dataclasses.replace(rules, lineups=())
    return tuple(dataclasses.replace(base, **dict(items)) for items in rules.lineups)


@lru_cache(maxsize=256)
def _fresh_row(rules: Party) -> FightStart:
    """One track of :meth:`Party.fresh_start`, validated (the kernel fills it in)."""
    return rules.fresh_start(1)


@lru_cache(maxsize=256)
def _downed(rules: Party) -> Downed:
    """The downed-PC machinery of ``rules`` (its dying system's options, per PC)."""
    opts = rules.dying_options
    F = rules.fighters
    return Downed(
        seed000=rules.seed000,
        check=opts.get("check", "save"),
        on_damage=opts.get("on_damage", "max"),
        wounded_rule=bool(opts.get("wounded_rule", False)),
        hero_effect=opts.get("hero_effect", "revive"),
        wounded_adds=rules.wounded_adds,
        hero_points=rules.hero_points,
        threshold=rules.threshold,
        death_at=rules.death_at,
        hero_knockout=rules.hero_knockout,
        hero_held=True,
        trait=rules.trait,
        zero_pp=rules.zero_pp,
        spend=rules.spend,
        cost=tuple(rules.stabilize_cost(k) for k in range(len(F.pcs))),
        back_in_fight=False,
        enough_pp=1,
        checks=rules.checks,
        natural=rules.natural,
        level=rules.level,
        con=tuple(int(p.con) for p in F.pcs),
    )
