"""A party encounter: PCs against monsters with hit points, one whole fight per track.

One step is one round. Every track is one fight of the same party (``party``: roles of
:mod:`simkit.rules.pf2e.pcs` at ``level``) against the same lineup (from the XP budget of
``threat`` or ``xp_budget`` by the ``lineup`` template, or ``monsters``; several lineups in
one block: :meth:`Party.with_lineups`, :mod:`simkit.models.party_lineups`). The compiled
fight loop plays it (:mod:`simkit.fight`, glue :mod:`simkit.models.party_loop`; dice by
counter); :mod:`simkit.models.party_ref` is the scalar reference, reading a round's draws by
the names of :attr:`Party.plan` (:mod:`simkit.models.party_plan`). One PC (not a cleric)
against one monster is solved exactly (:mod:`simkit.models.duel_grid`,
:mod:`simkit.models.party_duel`). The parameters' declarations are
:mod:`simkit.models.party_params`.

The round, the end, the outcomes and marks, the rules sets and the exact duels are told in
docs/explanation/models.md ("The ``party`` fight"). The vectorised kernel of 0.3 was
retired (its figures: tests/data/kernel_0.3.json).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.engine import FIGHT_BLOCK
from simkit.core.model import Rules
from simkit.core.params import param
from simkit.models.downed_rule import (
    EFFECTS,
    fight_table,
    pc_table,
    pc_track,
    resolve,
)
from simkit.models.downed_rule import (
    pf2e_of as _pf2e_of,
)
from simkit.models.dying_keys import OPTION_KEYS
from simkit.models.fight_state import FightStart
from simkit.models.party_lineups import (
    LINEUP_PARAMS,
    MAX_LINEUPS,
    Combatants,
    combatants,
    lineup_rules,
    lineup_sources,
    party_roles,
    with_lineups,
)
from simkit.models.party_params import AMBIGUITIES, PARAMS
from simkit.models.party_plan import faces, pick_draw, round_plan
from simkit.rules import dying_systems, hero_points, perseverance
from simkit.rules.dying_damage import WOUNDED_ADDS
from simkit.rules.hero_points import HERO_KNOCKOUT, HERO_POLICY
from simkit.rules.parameters import SHARED, shared
from simkit.rules.pf2e import area_census, bestiary, budget, creatures

#: (Combatants, LINEUP_PARAMS, MAX_LINEUPS: simkit.models.party_lineups; faces, pick_draw:
#: simkit.models.party_plan; importable from here as before)
__all__ = [
    "LINEUP_PARAMS",
    "MAX_LINEUPS",
    "OUTCOMES",
    "RULES_SETS",
    "Combatants",
    "Party",
    "faces",
    "pick_draw",
]

OUTCOMES = ("victory", "victory_with_deaths", "retreat", "defeat")
#: The dying systems (``rules``), declared once in :mod:`simkit.rules.dying_systems`.
RULES_SETS = dying_systems.DYING_OPTIONS


@dataclass(frozen=True, slots=True)
class Party(Rules):
    """A party of PCs against a lineup of monsters; one step = one round of the fight."""

    name: ClassVar[str] = "party"
    #: Tracks a block of the engine (:data:`simkit.core.engine.FIGHT_BLOCK`).
    block_size: ClassVar[int] = FIGHT_BLOCK
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
        "R0-01..R0-13, R1-01..R1-08, R1-11; A0-1..A0-5, A0-7, A0-9, A1-1, A1-2, A1-5, "
        "A1-10..A1-12; P-01..P-10; AP-1..AP-17, AP-33..AP-35"
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
    party: str = param(**PARAMS["party"])
    threat: str = param(**PARAMS["threat"])
    xp_budget: int | None = param(**PARAMS["xp_budget"])
    lineup: str = param(**PARAMS["lineup"])
    monsters: str | None = param(**PARAMS["monsters"])
    budget: str = param(**PARAMS["budget"])
    benchmark: str = shared("benchmark")
    defense: str = param(**PARAMS["defense"])
    rules: str = param(**PARAMS["rules"])
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
    pe_damage: str = param(**PARAMS["pe_damage"])
    slowed: bool = param(**PARAMS["slowed"])
    slowed_loses: str = param(**PARAMS["slowed_loses"])
    # PF2e's options on the seed-000/pf2e-core track (P-13..P-16, issue 31), as the dying
    # model's; per PC too (``fighter(toughness=true)``: :func:`downed_rule.pf2e_of`)
    toughness: bool = shared("toughness")
    diehard: bool = shared("diehard")
    fortune: str = shared("fortune")
    hero_use: str = shared("hero_use")
    # (seed_neutral: at their defaults, the seeds of sweeps and threat runs stay as before)
    temp_hp: int = param(0, seed_neutral=True, **SHARED["temp_hp"][1])
    temp_keep: str = param(**PARAMS["temp_keep"])
    back_in_fight: bool = param(False, seed_neutral=True, **SHARED["back_in_fight"][1])
    enough_pp: int = param(1, seed_neutral=True, **SHARED["enough_pp"][1])
    con_damage: int = param(**PARAMS["con_damage"])
    ability_reading: str = param(**PARAMS["ability_reading"])
    back_again: bool = param(**PARAMS["back_again"])
    # the last readings of the seeds (issue 31 item 3: A1-11, A1-10, AP-35 with A0-9)
    agony_damage: str = param(**PARAMS["agony_damage"])
    wake_restores: str = param(**PARAMS["wake_restores"])
    dying_effect: float = param(**PARAMS["dying_effect"])
    dying_above_0: str = param(**PARAMS["dying_above_0"])
    long_term: bool = shared("long_term")
    checks: int = shared("checks")
    attacks: int = shared("attacks")
    map: str = shared("map")
    trait: str = shared("trait")
    monster_dc: str = shared("monster_dc")
    target_downed: str = shared("target_downed")
    downed_chance: float = shared("downed_chance")
    downed_pick: str = param(**PARAMS["downed_pick"])
    first_aid_dc: int = shared("first_aid_dc")
    first_aid_natural: bool = param(**PARAMS["first_aid_natural"])
    area_chance: float | None = param(**PARAMS["area_chance"])
    area_uses: int = param(**PARAMS["area_uses"])
    pc_target: str = param(**PARAMS["pc_target"])
    monster_target: str = param(**PARAMS["monster_target"])
    heal_below: float = param(**PARAMS["heal_below"])
    after_defeat: str = param(**PARAMS["after_defeat"])
    retreat_at: int | None = param(**PARAMS["retreat_at"])
    max_rounds: int = shared("max_rounds")
    dying: Any = param(**PARAMS["dying"])
    # The rules set's own track's options (dying_systems.DYING_OPTIONS), one by one, declared
    # as the dying model's (one declaration a name): none = the rules set's (seed000: save,
    # max, false, revive; pf2e-core: flat, increment, true, stabilize); ``--set
    # dying.check=flat`` is ``check=flat`` (simkit.models.dying_keys). Seed-neutral: at none
    # a sweep point's seed is as before they were added.
    check: str | None = param(None, optional=True, seed_neutral=True, **SHARED["check"][1])
    on_damage: str | None = param(**PARAMS["on_damage"])
    wounded_rule: bool | None = param(**PARAMS["wounded_rule"])
    hero_effect: str | None = param(**PARAMS["hero_effect"])
    #: The lineups of the fights a block may hold (see :meth:`with_lineups`): per fight,
    #: ``(name, value)`` pairs of :data:`LINEUP_PARAMS`; the first is the rules' own.
    #: Empty: one fight, the rules' own lineup. Not a parameter of the command line.
    lineups: tuple = ()
    #: How the Monte Carlo plays the fight: ``loop`` only (the compiled per-track loop of
    #: :mod:`simkit.fight`, dice by counter; the vectorised kernel of 0.3 was retired, its
    #: figures kept as data in tests/data/kernel_0.3.json). Not a parameter of the command
    #: line; the exact solver ignores it.
    engine: str = "loop"
    #: A1-7's ``pp_back`` as ``wake_restores=all`` reads a night (a ``day`` sets its own);
    #: not a parameter of the command line.
    wake_pp_back: str = "night"

    def validate(self) -> None:
        from simkit.models.party_checks import check

        check(self)

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
        return with_lineups(self, lineups)

    @property
    def lineup_rules(self) -> tuple[Party, ...]:
        """The rules of each fight index: one rules object per lineup, without
        ``lineups`` (just ``(self,)`` for rules with one lineup)."""
        return lineup_rules(self)

    @property
    def n_fights(self) -> int:
        """How many lineups (fight indices) the rules hold."""
        return len(self.lineup_rules)

    @property
    def n_slots(self) -> int:
        """Monster slots of a round's draws (:attr:`plan`): the largest lineup's size."""
        return lineup_sources(self).M

    def monster_draw(self, kind: str, fight: int, j: int) -> str:
        """The plan name of the draw of monster ``j``'s dice in fight ``fight``: ``kind``
        ``"mdmg"`` (its strikes' damage) or ``"marea"`` (its area effect). With one lineup
        it is ``kind + str(j)``; with several, one draw serves every fight whose slot
        ``j`` rolls the same dice."""
        L = lineup_sources(self)
        src = L.mdmg_src if kind == "mdmg" else L.marea_src
        return f"{kind}{int(src[fight * L.M + j])}"

    # -- the fighters -----------------------------------------------------------------
    @property
    def roles(self) -> tuple[str, ...]:
        """The PCs' roles, in the party's order."""
        return party_roles(self.party)

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
        return combatants(
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

        return duel_supported(self)  # (the seed rules and PF2e's options too: AP-31)

    @property
    def beyond_duels(self) -> bool:
        """Whether the fight plays what the exact day duels do not: a PC's grant of temporary
        HP (AP-37: the party's duel solves it state by state, AP-31, the day's fights are on
        the grid); the other seed rules of issue 31, PF2e's options, a PC's own track at 0 HP
        and the readings of item 3 (:attr:`readings_on`: A1-10 and A1-11 change nothing in a
        duel, AP-33, AP-34; a dying effect is solved, AP-38, but with slowed or, under
        ``drop``, temporary HP) they play (AP-31,
        :func:`simkit.models.party_duel.duel_refusal`)."""
        return any(p.grant_temp_hp for p in self.fighters.pcs)

    @property
    def exact_refusal(self) -> str | None:
        """Why this fight has no exact solver, in a few words (None when it has one)."""
        from simkit.models.party_duel import duel_refusal

        return duel_refusal(self)

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
        """Whether a seed rule of issue 31 changes this fight (slowed, R1-05, temporary HP and
        a PC's grant of them, AP-37, Constitution damage): the loop and its reference play
        them; the exact duel too, but a grant (AP-31)."""
        s = self.seed_rules
        temp = any(self.temp_hp_of(k) or p.grant_temp_hp for k, p in enumerate(self.fighters.pcs))
        return bool(s["slowed"] or s["back_in_fight"] or s["con_damage"] or temp)

    @property
    def readings_on(self) -> bool:
        """Whether a reading of issue 31 item 3 other than its default is given (A1-10,
        A1-11, AP-35 with A0-9): the loop and its reference play them; the exact duel too
        (AP-38: A1-10 and A1-11 change nothing there, a dying effect is solved)."""
        return self.agony_damage != "none" or self.wake_restores != "hp" or self.dying_effect > 0

    def temp_hp_of(self, k: int) -> int:
        """PC ``k``'s temporary HP at a fresh start (R0-14): its own (``fighter(temp_hp=5)``)
        if given, else the party's ``temp_hp``."""
        own = self.fighters.pcs[k].temp_hp
        return int(own if own is not None else self.temp_hp)

    #: A duel is solved on its grid (:mod:`simkit.models.duel_grid`); ``exact_initial`` /
    #: ``exact_step`` stay as the state-by-state chain the tests hold the grid to.
    has_exact_hist: ClassVar[bool] = True

    def exact_hist(self) -> np.ndarray:
        """The duel's exact P(outcome at each round): on its grid, or with a PC's grant of
        temporary HP (AP-37) state by state (:mod:`simkit.models.party_duel`; refused past
        :data:`simkit.core.exact.MAX_STATES` reachable states)."""
        from simkit.models.duel_grid import duel_hist
        from simkit.models.party_duel import grants

        if grants(self):
            from simkit.core.exact import build_chain, propagate

            return propagate(self, build_chain(self)).hist
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
        return round_plan(self)

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

    #: :meth:`init` takes ``keep`` (the engine says whether it will ask for :meth:`carry`).
    init_keeps = True

    def init(self, n: int, rng, start: FightStart | None = None, keep: bool = True):
        """A block of ``n`` fresh fights, or of fights from ``start`` (its ``n`` rows: HP,
        max HP, hero points, slots, heals, PP, PE, wounded, the dead, the check penalty), on
        the compiled fight loop (:mod:`simkit.models.party_loop`). A PC at 0 HP and alive in
        ``start`` begins stable; ``hp`` then does not apply. ``keep`` False: no
        :meth:`carry` will follow, so the end states are not made."""
        from simkit.models.party_loop import init as loop_init

        return loop_init(self, n, rng, start, keep)

    def carry(self, state, rows: np.ndarray) -> FightStart:
        """What tracks ``rows`` of ``state`` hand to a next fight (:class:`FightStart`)."""
        from simkit.models.party_loop import carry as loop_carry

        return loop_carry(self, state, rows)

    def step(self, state, t, rng):
        from simkit.models.party_loop import step as loop_step

        return loop_step(self, state, t, rng)

    def absorb_counts(self, state, codes, n_codes):
        """The ended tracks' counts, compiled (the engine's hook)."""
        from simkit.models.party_loop import absorb_counts

        return absorb_counts(self, state, codes, n_codes)
