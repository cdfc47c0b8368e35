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
from simkit.models.downed_rule import EFFECTS, fight_needs, fight_table, resolve
from simkit.models.dying_keys import OPTION_KEYS
from simkit.models.fight_state import MAX_FIGHTS, FightStart
from simkit.rules import (
    dying_systems,
    guide,
    hero_points,
    hourly,
    perseverance,
)
from simkit.rules.dice import dice_draw
from simkit.rules.dying_damage import WOUNDED_ADDS
from simkit.rules.hero_points import HERO_EFFECT, HERO_KNOCKOUT, HERO_POLICY
from simkit.rules.parameters import SHARED, shared
from simkit.rules.pf2e import area_census, bestiary, budget, creatures, pcs
from simkit.rules.rest import PE_DAMAGE

__all__ = ["OUTCOMES", "RULES_SETS", "Combatants", "Party"]

OUTCOMES = ("victory", "victory_with_deaths", "retreat", "defeat")
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


@lru_cache(maxsize=256)
def _plan(rules) -> list:
    return rules._plan()


def faces(kind: str, raw: np.ndarray) -> np.ndarray:
    """What a draw of plan ``kind`` means, from the ``below`` integers drawn for it: a d20
    face 1..20 from ``[0, 20)``; any other kind is used as drawn."""
    return raw + np.uint16(1) if kind == "d20" else raw


def pick_draw(count: int) -> str:
    """How a uniform choice among at most ``count`` candidates is drawn: ``"below:L"`` with
    ``L`` the least common multiple of ``1..count`` (then ``w mod c`` is exactly uniform on
    ``c <= count`` candidates, see :func:`pick`); ``"random"`` (a uniform float) when ``L``
    would pass 65,536."""
    lcm = math.lcm(*range(1, max(count, 1) + 1))
    return f"below:{lcm}" if lcm <= 65536 else "random"


@dataclass(frozen=True, slots=True)
class Party(Rules):
    """A party of PCs against a lineup of monsters; one step = one round of the fight."""

    name: ClassVar[str] = "party"
    #: Replays one track of a loop run (:meth:`~simkit.core.model.Rules.replay_track`).
    replay_with: ClassVar[str | None] = "simkit.models.party_replay:replay"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = OUTCOMES
    #: The loop draws by counter (:mod:`simkit.fight`): variants run one after the other share
    #: their dice track by track, so none steps together on one draw (lockstep, 0.3's kernel).
    lockstep: ClassVar[bool] = False

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
    #: How the Monte Carlo plays the fight: ``loop`` only (the compiled per-track loop of
    #: :mod:`simkit.fight`, dice by counter; the vectorised kernel of 0.3 was retired, its
    #: figures kept as data in tests/data/kernel_0.3.json). Not a parameter of the command
    #: line; the exact solver ignores it.
    engine: str = "loop"

    def validate(self) -> None:
        if self.engine != "loop":
            raise ParamError(
                f"engine={self.engine!r}: the party plays on the compiled fight loop only "
                "(engine='loop'); the vectorised kernel of 0.3 was retired"
            )
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
            if why is None and not self.seed000:
                why = (
                    f"dying= replaces the dying track of seed000 or pf2e-core; rules={self.rules} "
                    "keeps its own (agonising, R1-01)"
                )
            if why is not None:
                raise ParamError(why)
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

        return not self.seed_rules_on and duel_supported(self)

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
        if self.dying is not None:  # a face of the designer's track (the loop only)
            out.append(("trk", f"below:{len(self.downed_track.faces()[0])}", (P,)))
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

    # -- Monte Carlo: the compiled fight loop ---------------------------------------------
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
        max HP, hero points, slots, heals, PP, PE, wounded, the dead, the check penalty), on
        the compiled fight loop (:mod:`simkit.models.party_loop`). A PC at 0 HP and alive in
        ``start`` begins stable; ``hp`` then does not apply."""
        from simkit.models.party_loop import init as loop_init

        return loop_init(self, n, rng, start)

    def carry(self, state, rows: np.ndarray) -> FightStart:
        """What tracks ``rows`` of ``state`` hand to a next fight (:class:`FightStart`)."""
        from simkit.models.party_loop import carry as loop_carry

        return loop_carry(self, state, rows)

    def step(self, state, t, rng):
        from simkit.models.party_loop import step as loop_step

        return loop_step(self, state, t, rng)


@lru_cache(maxsize=256)
def _lineup_rules(rules: Party) -> tuple[Party, ...]:
    if not rules.lineups:
        return bestiary.lineup_rules(rules) if bestiary.applies(rules) else (rules,)
    base = dataclasses.replace(rules, lineups=())
    return tuple(dataclasses.replace(base, **dict(items)) for items in rules.lineups)
