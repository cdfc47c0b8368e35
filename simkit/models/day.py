"""An adventuring day: the party carried through a plan of fights, rests, the road and falls.

One track is one party's day (or journey); one step is one step of the ``plan``
(:mod:`simkit.models.day_plan`). The party is the ``party`` model's (its parameters are
taken with ``params_from``: one declaration each); what carries from step to step is the
fight state :class:`~simkit.models.fight_state.FightStart` (per PC: HP, hero points,
slots, heals, PP, wounded, the dead; per track the check penalty), plus per track the
fatigue counters of seed 004 and per PC the hour of Treat Wounds immunity.

The steps, over every track of a block still going:

- **a fight** runs the compiled fight loop (:mod:`simkit.fight`, through
  :func:`simkit.models.party_loop.fight_ends`; the step's party: the day's with the
  step's threat, budget or lineup) on the tracks still going, from their current state,
  and takes the end states back in track order. Each track draws the fight's dice by
  counter from its key under the step's streams: the first fight step's are the party's
  own (so a plan of one fight is exactly ``party`` with the same seed and ``n``), later
  steps' under ``prefix + (step,)``. The other steps draw from the block's streams, for
  the tracks still going only; on positional streams (``simulate(..., positional=True)``,
  what ``compare`` and ``sensitivity`` use) each track's draws are tied to the track, so
  two variants of a day share their dice track by track however their other days end.
  A lost fight (``defeat``) or a ``retreat`` ends the day; a fight still going at
  ``max_rounds`` ends it ``unresolved``. A party
  exhausted by fatigue (R4-04) at a fight cannot fight: a defeat (``after_defeat``).
- **a rest** (``rest_rules``): the seeds' (R1-09, R1-10, A1-7) or the published PF2e rest
  (P-11 Treat Wounds in a short rest, P-12 a night), see :mod:`simkit.rules.rest` and
  :mod:`simkit.rules.pf2e.rest`. The PF2e ``short_rest`` is played (AP-18): 10-minute
  rests of Treat Wounds until every living PC is at full HP or no Treat Wounds can help
  within ``short_rest_minutes``, each treated PC immune as ``treat_immunity`` reads it
  (:meth:`Day._short_rest`); ``short_rest(once)`` is one 10-minute rest. A
  ``long_rest`` or ``bed_rest`` also gives back the slots and heals, the hero points
  (``hero_refresh=long_rest``), the PP (A1-7 ``pp_back``), the stamina points (PE,
  R1-09: in full after a night, under either rest; used by the fights under seed 001,
  AP-17), and is a night's sleep and a meal for the fatigue counters
  (R4-06). In a short rest (under either rest, when the fights use PE: ``rules=seed001``,
  ``pe_damage=pe_first``) each living PC whose PE are below the maximum spends 1 PP to
  get them back (R1-09) as ``pe_rest`` reads it (A1-8: when it keeps its stabilisation
  cost in PP after, by default), at the rest's start (before Treat Wounds).
- **R0-08's wake-up** (``wake_after``): a PC stable at 0 HP wakes at 1 HP at the end of a
  step at least ``hour`` or ``ten_minutes`` long (a short rest lasts ``short_rest_minutes``,
  ``short_rest(once)`` ten minutes, a long or bed rest a night, a day on the road a day; a
  fight or a fall no time; time does not add up across steps); by default (``long_rest``)
  only a long or bed rest's healing wakes it, as before.
- **the road**: ``no_sleep`` / ``no_food`` advance the fatigue counters by the rule of
  :func:`simkit.rules.fatigue_day.fatigue_day` (its table,
  :func:`~simkit.rules.fatigue_day.day_chain`): the penalty (R4-01..R4-03) is added to
  every d20 the PCs roll afterwards; at -10 the party is exhausted (R4-04), and after
  three such days without a meal dead (R4-05).
- **a fall** (R4-07, :mod:`simkit.rules.fall`; massive damage R0-13): 10 to 12 m leaves a
  PC at 0 HP, stable; damage to 0 HP knocks it out, and it follows the dying rules until
  treated (the party's care after a fight, AP-7, with no monster: the loop's care,
  :func:`simkit.models.party_loop.care_ends`, as after a Treat Wounds critical failure),
  the recovery DC that of a creature of the party's level (R0-06).

Outcomes: ``survived`` (no PC died in the day), ``survived_with_deaths``, ``defeat`` (a
fight lost, or every PC dead), ``retreat`` (and ``unresolved``); the time axis is the
plan step at which the day ended (the plan's length for a day lived through). Marks:
``deaths``, ``step`` (the step reached), ``first_death`` (the step of the first death, 0
none), ``dead_mask`` (bit ``k``: PC ``k`` died), and the deaths by cause (:data:`CAUSES`,
adding up to ``deaths``): the fights' own three (``deaths_in_fight``,
``deaths_after_defeat``: slain at a defeat, also a party exhausted by fatigue;
``deaths_after_fight``: in the care after a fight, or after a Treat Wounds knock-out)
and ``deaths_on_road`` (a fall and the care after it, R4-07; fatigue, R4-05). The
events are the party's: ``any_death``, ``deaths>=k``, ``tpk``, ``death:<pc>`` (the PCs'
names: the role, ``fighter1``, ``fighter2`` when a role repeats), ``death_<cause>``.
Observations (``Result.observed``, over the days still going): before each step the
party's totals ``hp``, ``hero``, ``slots``, ``heals``, ``pp``; before each fight each
PC's ``hp:<pc>``, ``slots:<pc>``, ``heals:<pc>``, ``hero:<pc>``, ``pp:<pc>``,
``pe:<pc>`` (seed 001's stamina) and ``alive:<pc>`` (:data:`PC_FIELDS`, a dead PC has 0
of each); row ``t`` of ``deaths``: the deaths in step ``t`` (the deaths per step, over
the days that played it); row ``t`` of ``rest_changed`` at a rest: the days whose
rest changed something (HP, PE, PP, slots, heals, hero points, wounded, a death, the
fatigue counters), 0 / 1 (``simkit run day`` notes a rest that changed no day).
``simulate(..., keep_state=True)`` gives each track's end state, outcome and marks
(:class:`DayEnd`). The designer's summary: :func:`death_by_step`,
:func:`simkit.analysis.day_report.day_summary`. Exact answers for one PC who is not a
cleric, one monster a fight, under seed000 or pf2e-core: :mod:`simkit.models.day_duel`
(``simkit exact day``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import ClassVar

import numpy as np

from simkit.core.engine import FIGHT_BLOCK, Tally
from simkit.core.model import Rules
from simkit.core.params import ParamError, param, spec
from simkit.core.result import pc_names
from simkit.core.rows import row_all as _row_all
from simkit.core.rows import row_any as _row_any
from simkit.core.rows import row_sum as _row_sum
from simkit.core.stats import confidence_of
from simkit.core.streams import STREAM_SIZE
from simkit.models.day_block import (
    FIELDS,
    DayBlock,
    add_row,
    bincount2,
    observe,
    put_rows,
    rest_changed,
    rest_fields,
    streams_source,
    take_rows,
)
from simkit.models.day_outcomes import CAUSES, DAY_MARKS, DAY_OUTCOMES, FIGHT_CAUSES, PC_FIELDS
from simkit.models.day_plan import (
    BETWEEN,
    WAKE_AFTER,
    FallStep,
    FightStep,
    RestStep,
    RoadStep,
    fatigue_exhausted,
    fatigue_next,
    fatigue_penalty,
    parse_fight,
    parse_plan,
    plan_text,
    repeated_plan,
    woken,
)
from simkit.models.day_rest import rest, rest_when
from simkit.models.fight_state import CARRIED, FightStart
from simkit.models.party import Party
from simkit.rules import fall
from simkit.rules.fall import DICE_WIDTH, band_draw, fall_results
from simkit.rules.heights import parse_heights
from simkit.rules.pf2e import rest as pf2e_rest
from simkit.rules.rest import PE_REST, PP_BACK

__all__ = ["CAUSES", "DAY_OUTCOMES", "PC_FIELDS", "Day", "DayEnd", "death_by_step"]

SURVIVED, WITH_DEATHS, DEFEAT, RETREAT = range(4)
UNRESOLVED = 4  # (not an outcome: the engine counts what no outcome holds)
#: How a fight or a care ended (:func:`simkit.models.party_loop.fight_ends`' ``outcome``).
F_VICTORY, F_DEATHS, F_RETREAT, F_DEFEAT, F_UNRESOLVED = range(5)
#: The party parameters a day does not take: its plan says what each fight is.
_NOT_TAKEN = ("threat", "xp_budget", "monsters", "hp")


@dataclass(frozen=True, eq=False)
class DayEnd(FightStart):
    """Where each track's day left the party (``simulate(day, ..., keep_state=True)``'s
    ``result.final``): the :class:`~simkit.models.fight_state.FightStart` fields (a later
    day or fight can start from them) and each track's outcome and marks.

    Attributes
    ----------
    outcome : ndarray (n,) int
        The day's outcome, an index into ``result.outcomes`` (the last: ``unresolved``).
    deaths, step, first_death, dead_mask : ndarray (n,) int
        The marks: deaths in the day, the step it ended at, the step of the first death
        (0: none), bit ``k`` set when PC ``k`` died.
    deaths_in_fight, deaths_after_defeat, deaths_after_fight, deaths_on_road : ndarray (n,)
        The deaths by cause (:data:`CAUSES`; they add up to ``deaths``).

    An ``unresolved`` day's marks are here too (the engine's mark histograms, the events
    and the means leave them out: an unresolved track records no mark).
    """

    outcome: np.ndarray | None = None
    deaths: np.ndarray | None = None
    step: np.ndarray | None = None
    first_death: np.ndarray | None = None
    dead_mask: np.ndarray | None = None
    deaths_in_fight: np.ndarray | None = None
    deaths_after_defeat: np.ndarray | None = None
    deaths_after_fight: np.ndarray | None = None
    deaths_on_road: np.ndarray | None = None

    def take(self, rows) -> DayEnd:
        rows_of = {f.name: getattr(self, f.name)[rows] for f in fields(self)}
        return DayEnd.trusted(**rows_of)  # type: ignore[return-value]


#: What a fight or a care hands back to the day: the carried fields a fight can change
#: (the maxima it cannot; besides, how it ended and its deaths by cause).
_BACK = tuple(k for k in CARRIED if k not in ("hp_max", "pe_max"))


@lru_cache(maxsize=256)
def _steps(day: Day):
    if day.plan is not None:
        return parse_plan(day.plan)
    return repeated_plan(day.fights, parse_fight(day.fight), day.between)


def _party_params(day: Day) -> dict:
    # (wake_pp_back: A1-7's PP reading for A1-10's wake-up ``as after a night's rest``)
    own = {k: getattr(day, k) for k in spec(Party) if k not in _NOT_TAKEN}
    return {**own, "wake_pp_back": day.pp_back}


@lru_cache(maxsize=256)
def _fight_party(day: Day, step: FightStep) -> Party:
    return Party(**{**_party_params(day), **step.party_params(getattr(day, "lineup"))})


@lru_cache(maxsize=64)
def _care_rules(day: Day) -> Party:
    return day.care_rules()


@dataclass(frozen=True, slots=True)
class Day(Rules):
    """A party through a plan of fights, rests, days on the road and falls; one step = one
    step of the plan."""

    name: ClassVar[str] = "day"
    #: Tracks a block of the engine (:data:`simkit.core.engine.FIGHT_BLOCK`).
    block_size: ClassVar[int] = FIGHT_BLOCK
    #: Replays one track of a loop run (:meth:`~simkit.core.model.Rules.replay_track`).
    replay_with: ClassVar[str | None] = "simkit.models.day_replay:replay"
    time_unit: ClassVar[str] = "steps"
    outcomes: ClassVar[tuple[str, ...]] = DAY_OUTCOMES
    marks: ClassVar[tuple[str, ...]] = DAY_MARKS
    observes: ClassVar[bool] = True
    rule_ids: ClassVar[str] = (
        Party.rule_ids + "; R1-09, R1-10, A1-7, A1-8; R4-01..R4-07; P-11, P-12"
    )
    events: ClassVar[dict[str, tuple[str, int]]] = {"any_death": ("deaths", 1)}
    #: The rows a printed table leads with (``simkit run day``, ``compare``)
    headline: ClassVar[tuple[str, ...]] = ("any_death", "defeat", "expected_deaths")
    active_label: ClassVar[str] = "day still going"
    headline_params: ClassVar[tuple[str, ...]] = ("level", "plan", "fights", "party", "rules")
    params_from: ClassVar = ((Party, tuple(n for n in spec(Party) if n not in _NOT_TAKEN)),)

    plan: str | None = param(
        None,
        kind="plan",
        optional=True,
        help="the day: a comma list of steps (moderate, xp(80), [7,5,5], short_rest, "
        "long_rest, bed_rest, no_sleep, no_food, fall(9), fall(9, one)); none: fights "
        "equal fights",
    )
    fights: int = param(
        1, kind="int", lo=1, hi=50, help="without plan: this many equal fights (fight)"
    )
    fight: str = param("moderate", kind="fight", help="without plan: the fight repeated")
    between: str = param(
        "none",
        kind="choice",
        choices=BETWEEN,
        help="without plan: the step between two fights (a rest, a day on the road, none)",
    )
    hero_refresh: str = param(
        "never",
        kind="choice",
        choices=("never", "long_rest"),
        help="hero points back to hero_points at each long_rest / bed_rest, or never",
    )
    after_death: str = param(
        "continue",
        kind="choice",
        choices=("continue", "end"),
        help="after a PC dies the survivors go on (continue) or the day ends (end)",
    )
    rest_rules: str = param(
        "auto",
        kind="choice",
        choices=("auto", "seeds", "pf2e"),
        help="the rest: the seeds' (R1-09, R1-10) or the published PF2e (P-11, P-12); "
        "auto: pf2e under rules=pf2e-core, else seeds",
    )
    rest_when: float | None = param(
        None,
        kind="float",
        lo=0.0,
        hi=1.0,
        optional=True,
        help="before each fight, short rests while a living PC is below this fraction of its "
        "max HP (HP + PE when the fights use PE, seed001) and a short rest can help it "
        "(Treat Wounds under the pf2e rest; a PP for its PE under seed001, pe_rest); at most "
        "6; none where a short rest can help no one (run day says so)",
    )
    short_rest_minutes: int = param(
        60,
        kind="int",
        lo=10,
        hi=480,
        unit="minutes",
        rule="AP-18",
        help="the played short_rest under the pf2e rest: 10-minute rests of Treat Wounds until "
        "every living PC is at full HP or no Treat Wounds can help within this many minutes "
        "(a multiple of 10); short_rest(once) is one 10-minute rest",
    )
    treat_immunity: str = param(
        "hour",
        kind="choice",
        choices=("hour", "per_healer", "ten_minutes"),
        rule="AP-18",
        help="a PC treated with Treat Wounds is immune to it for an hour (hour, P-11 as "
        "published), to that healer's only for an hour (per_healer, the Remaster's wording) "
        "or for the 10-minute rest it was treated in (ten_minutes, as with the Continual "
        "Recovery feat)",
    )
    pe_rest: str = param(
        "spare_pp",
        kind="choice",
        choices=PE_REST,
        rule="A1-8",
        help="seed001: in a short rest a PC spends 1 PP to get its stamina (PE) back (R1-09) "
        "when it keeps its stabilisation cost in PP after (spare_pp), whenever it has one "
        "(any_pp), or never",
    )
    pp_back: str = param(
        "night",
        kind="choice",
        choices=PP_BACK,
        rule="A1-7",
        help="PP come back in full after a night's rest (night) or never within the day",
    )

    wake_after: str = param(
        "long_rest",
        kind="choice",
        choices=tuple(WAKE_AFTER),
        rule="R0-08",
        help="a PC stable at 0 HP wakes at 1 HP at the end of a step at least this long "
        "(hour, ten_minutes: a short rest lasts short_rest_minutes, short_rest(once) ten "
        "minutes, a long or bed rest a night, a day on the road a day; a fight or a fall no "
        "time; time does not add up across steps), or only by a long or bed rest's healing "
        "(long_rest)",
    )

    #: How the fights and the cares are played: ``loop``, the compiled fight loop
    #: (:mod:`simkit.fight`; dice by counter: a plan of one fight is exactly
    #: ``Party(...)``), the only engine of the day since the party's kernel left it. Not a
    #: parameter of the command line.
    engine: str = "loop"

    def validate(self) -> None:
        if self.engine != "loop":
            raise ParamError(
                f"engine={self.engine!r}: the day runs on the compiled fight loop only "
                "(engine='loop'); its party-kernel path was retired"
            )
        if getattr(self, "lineup", None) == "bestiary":  # AP-19: the party model only
            raise ParamError(
                "lineup=bestiary is not allowed in the day model yet (real creatures are "
                "drawn by the party model only); give boss, boss_and_minions or pack"
            )
        if self.short_rest_minutes % 10:
            raise ParamError(
                f"short_rest_minutes={self.short_rest_minutes!r} is not allowed: "
                "short_rest_minutes must be a multiple of 10 (10-minute rests) in [10, 480]"
            )
        if self.plan is not None and (self.fights != 1 or self.between != "none"):
            raise ParamError("plan and fights/between are exclusive: give one of them")
        try:
            for step in _steps(self):
                if isinstance(step, FightStep):
                    _fight_party(self, step)
        except ValueError as exc:
            raise ParamError(f"plan: {exc}") from None

    # -- the plan ----------------------------------------------------------------------
    @property
    def steps(self):
        """The plan's steps (frozen objects of :mod:`simkit.models.day_plan`)."""
        return _steps(self)

    @property
    def horizon(self) -> int:  # type: ignore[override]
        return len(self.steps)

    @property
    def plan_text(self) -> str:
        return plan_text(self.steps)

    @property
    def n_pcs(self) -> int:
        return self.base_party.n_pcs

    @property
    def roles(self) -> tuple[str, ...]:
        """The PCs' roles, in the party's order (events ``death:<pc>``)."""
        return self.base_party.roles

    @property
    def pc_names(self) -> tuple[str, ...]:
        """The PCs' names in events and observations (``fighter``, or ``fighter1``,
        ``fighter2`` when a role repeats: :func:`simkit.core.result.pc_names`)."""
        return pc_names(self.roles)

    @property
    def base_party(self) -> Party:
        """The party of the day's first fight (or of a moderate one): its PCs' numbers."""
        first = next((s for s in self.steps if isinstance(s, FightStep)), FightStep("moderate"))
        return _fight_party(self, first)

    def fight_rules(self, step: FightStep) -> Party:
        """The ``party`` rules of a fight step (the day's party with the step's threat,
        budget or lineup)."""
        return Party(**{**_party_params(self), **step.party_params(getattr(self, "lineup"))})

    def care_rules(self) -> Party:
        """The ``party`` rules of the care of a PC knocked out outside a fight (a fall, a
        Treat Wounds critical failure): a creature of the party's level (its recovery DC,
        R0-06), gone before the first round."""
        return Party(**{**_party_params(self), "monsters": str(getattr(self, "level"))})

    @property
    def rest_when_note(self) -> str | None:
        """One line saying why ``rest_when`` adds no rest to this day, or None. A short rest
        helps by Treat Wounds (the pf2e rest, a PC with Medicine: P-11) or by a PP spent on
        stamina (R1-09, A1-8: when the fights use PE, ``rules=seed001``, and ``pe_rest`` is
        not ``never``); with neither, no rest is added."""
        if self.rest_when is None or self.pe_rest_on:
            return None
        pe = (
            "and gives stamina (PE) back only under rules=seed001 with pe_damage=pe_first and "
            "pe_rest other than never (R1-09, A1-8)"
        )
        if not self.pf2e_rest:
            return (
                f"rest_when={self.rest_when:g} adds no rest under the seeds' rest: a short rest "
                f"heals no HP there {pe}; rest_rules=pf2e rests with Treat Wounds"
            )
        if not self._medics():
            party = getattr(self, "party")
            return (
                f"rest_when={self.rest_when:g} adds no rest: no PC of {party!r} has Medicine "
                f"to Treat Wounds (P-11), {pe}"
            )
        return None

    @property
    def pe_rest_on(self) -> bool:
        """Whether a short rest gives PE back for a PP (R1-09 under ``pe_rest``, A1-8): the
        fights use PE (``rules=seed001``, ``pe_damage=pe_first``) and ``pe_rest`` spends."""
        return self.base_party.pe_on and self.pe_rest != "never"

    @property
    def pf2e_rest(self) -> bool:
        if self.rest_rules == "auto":
            return getattr(self, "rules") == "pf2e-core"
        return self.rest_rules == "pf2e"

    def fresh_start(self, n: int) -> FightStart:
        return self.base_party.fresh_start(n)

    def carry(self, state: FightStart, rows) -> FightStart:
        return state.take(rows)

    # -- exact day duels (simkit.models.day_duel) --------------------------------------------
    has_exact_hist: ClassVar[bool] = True  # (where has_exact: the day's hist, no chain)
    exact_scope: ClassVar[str] = "duels"  # one PC (not a cleric), one monster a fight

    @property
    def has_exact(self) -> bool:  # type: ignore[override]
        """One PC who is not a cleric, one monster a fight, rules seed000 or pf2e-core: the
        exact day duel (:mod:`simkit.models.day_duel`); not with what it does not play: a
        PC's grant of temporary HP (AP-37: its fights are on the duel's grid), nor what its
        fights' duels refuse (:func:`simkit.models.day_duel.day_duel_refusal`)."""
        from simkit.models.day_duel import day_duel_supported

        return not self.base_party.beyond_duels and day_duel_supported(self)

    @property
    def exact_refusal(self) -> str | None:
        """Why this day has no exact solver, in a few words (None when it has one)."""
        from simkit.models.day_duel import day_duel_refusal

        return day_duel_refusal(self)

    def exact_hist(self) -> np.ndarray:
        from simkit.models.day_duel import day_duel_hist

        return day_duel_hist(self)

    # -- a block ---------------------------------------------------------------------------
    def run_block(
        self,
        seed,
        first_stream,
        n_tracks,
        prefix=(),
        start=None,
        keep=False,
        positional=False,
        keep_outcomes=False,
        _source=None,
        _record=None,
    ):
        """One block of days (see the module docstring); the engine's block hook.

        ``positional``: every step draws on the streams' positional mode (each track's
        draws tied to the track: two variants on one seed share their dice track by
        track); ``keep_outcomes``: each track's outcome index and marks (``Tally.outcome_of``,
        ``Tally.marks_of``: a paired ``compare`` pairs the events and means track by track).
        ``_source`` (tests): ``source(mask, prefix)`` giving the random source of the
        tracks ``mask`` under ``prefix`` (default: the block's streams). ``_record`` (a
        replay, :mod:`simkit.models.day_replay`): ``record(event, t, B, **info)`` is
        called with ``"start"`` before step 1, ``"step"`` after each step ``t`` and
        ``"fight"`` as each fight is handed its tracks (``rows``, ``start``, ``keys``); it
        reads the block, changes nothing and draws nothing (None: no call, no cost); a run
        with one keeps no observation (``Tally.observed``, which no replay reads).
        """
        n, steps, T = n_tracks, self.steps, len(self.steps)
        first = self.fresh_start(1) if start is None else start  # (fresh: one row, filled)
        src = _source or streams_source(seed, first_stream, n, bool(positional))
        B = DayBlock.new(self, first, n, src, prefix)
        watch = _record is None  # (a replay reads no observation: it skips them)
        if _record is not None:
            B.record = _record
            _record("start", 0, B)
        observed: dict[str, np.ndarray] = {}
        first_fight = True
        for t, step in enumerate(steps, 1):
            active = B.ended < 0
            if not active.any():
                break
            if watch:
                observe(observed, B.S, active, t - 1, T, isinstance(step, FightStep), self.pc_names)
            before = B.S["dead"].copy()
            if isinstance(step, FightStep):
                if self.rest_when is not None:
                    rest_when(self, B, active, t)
                own = first_fight
                first_fight = False
                self._fight(B, step, prefix if own else prefix + (t,), start is None and t == 1)
            elif isinstance(step, RestStep) and not watch:
                rest(self, B, step, active, t)
                self._wake(B, step, active)
            elif isinstance(step, RestStep):
                was = rest_fields(B)
                rest(self, B, step, active, t)
                self._wake(B, step, active)
                changed = rest_changed(B, active, was)  # (m,) bool
                add_row(observed, "rest_changed", t, T, changed)
            elif isinstance(step, RoadStep):
                self._road(B, step.kind, active)
                self._wake(B, step, active)
            elif isinstance(step, FallStep):
                self._fall(B, step, active, t)
            S, ended = B.S, B.ended
            died_k = _row_sum(S["dead"] & ~before)
            add_row(observed, "deaths", t, T, died_k[active])  # deaths in step t
            died = died_k > 0
            B.first_death[died & (B.first_death == 0)] = t
            still = ended < 0
            wiped = still & _row_all(S["dead"])
            ended[wiped] = DEFEAT
            if self.after_death == "end":
                ended[still & ~wiped & died] = WITH_DEATHS
            B.end_step[(ended >= 0) & (B.end_step == 0)] = t
            if _record is not None:
                _record("step", t, B)
        ended = B.ended
        going = ended < 0
        day_deaths = _row_sum(B.S["dead"] & ~B.dead0)
        ended[going] = np.where(day_deaths[going] > 0, WITH_DEATHS, SURVIVED)
        B.end_step[going] = T
        return self._tally(B, observed, keep, keep_outcomes, first_stream, n)

    def _tally(self, B, observed, keep, keep_outcomes, first_stream, n):
        S, ended, end_step = B.S, B.ended, B.end_step
        n_out = len(self.outcomes)
        T = len(self.steps)
        done = np.flatnonzero(ended < UNRESOLVED)
        out = ended[done].astype(np.int64)
        hist = np.zeros((n_out, T + 1), dtype=np.int64)
        np.add.at(hist, (out, end_step[done]), 1)
        new_dead = S["dead"] & ~B.dead0
        mask = _row_sum(new_dead.astype(np.int64) << np.arange(new_dead.shape[1]))
        values = {
            "deaths": _row_sum(new_dead),
            "step": end_step,
            "first_death": B.first_death,
            "dead_mask": mask,
            **B.cause,
        }
        marks = {k: bincount2(out, values[k][done], n_out) for k in self.marks}
        tally = Tally(hist=hist, marks=marks, observed=observed)
        first_id = first_stream * STREAM_SIZE
        if keep:
            ids = np.arange(first_id, first_id + n)
            tally.final.append((ids, DayEnd.trusted(**S, outcome=ended.copy(), **values)))
        if keep_outcomes:  # each track's outcome index (UNRESOLVED: unresolved) and marks
            tally.outcome_of.append((first_id, ended.astype(np.int8)))
            unresolved = ended == UNRESOLVED  # (n,) bool: it records no mark (0)
            tally.marks_of.append(
                (first_id, {k: np.where(unresolved, 0, values[k]) for k in self.marks})
            )
        return tally

    # -- the steps -----------------------------------------------------------------------
    def _penalty(self, B):
        """Each track's check penalty (n,): the start's plus the fatigue's (R4-03)."""
        return fatigue_penalty(B.base_pen, B.fat).astype(np.int32)

    def _fight(self, B, step, prefix, fresh):
        """The fight ``step`` for every track still going, from its state, on the random
        streams under ``prefix`` (fresh: the party's own start, as ``party`` plays it)."""
        S, ended = B.S, B.ended
        party = _fight_party(self, step)
        exhausted = (ended < 0) & fatigue_exhausted(B.fat)
        if exhausted.any():  # a party unconscious from fatigue cannot fight (R4-04)
            ended[exhausted] = DEFEAT
            if self.after_defeat == "slain":
                B.cause["deaths_after_defeat"][exhausted] += _row_sum(~S["dead"][exhausted])
                S["dead"][exhausted] = True
                S["hp"][exhausted] = 0
        live = ended < 0
        rows = np.flatnonzero(live)
        if not len(rows):
            return
        every = len(rows) == len(live)
        at = slice(None) if every else rows  # (every track: no copy, no fancy index)
        fresh = fresh and every
        pen = None if fresh else self._penalty(B)
        from simkit.models.party_loop import fight_into  # (numba: only when asked)

        keys = B.src(np.ones(len(live), dtype=bool), prefix).track_keys()  # under the step's
        if B.record is not None:  # (a replay: each track's start and dice key)
            start = None
            if not fresh:
                start = FightStart.trusted(
                    **{k: take_rows(pen if k == "check_penalty" else S[k], at) for k in FIELDS}
                )
            B.record("fight", -1, B, rows=rows, start=start, keys=keys)
        # the fight reads its tracks' fields from the block and writes them back (compiled)
        end = fight_into(
            party, keys if every else keys[rows], S, None if every else rows, pen, fresh, B.work
        )
        for c in FIGHT_CAUSES:
            B.cause[c][at] += end[c]
        o = end["outcome"]
        ended[rows[o == F_DEFEAT]] = DEFEAT
        ended[rows[o == F_RETREAT]] = RETREAT
        ended[rows[o == F_UNRESOLVED]] = UNRESOLVED

    def _care(self, B, knocked, prefix, cause):
        """PCs ``knocked`` (n, P) out outside a fight: the dying rules until treated (the
        tracks with one, on their streams under ``prefix``); its deaths count as ``cause``."""
        S = B.S
        mask = _row_any(knocked)
        rows = np.flatnonzero(mask)
        pen = self._penalty(B)
        from simkit.models.party_loop import care_ends  # (numba: only when asked)

        start = FightStart.trusted(
            **{k: take_rows(pen if k == "check_penalty" else S[k], rows) for k in FIELDS}
        )
        keys = B.src(np.ones(len(mask), dtype=bool), prefix).track_keys()[rows]
        ko = take_rows(knocked, rows)
        if B.record is not None:  # (a replay: each track's start, knocked and key)
            B.record("care", -1, B, rows=rows, start=start, keys=keys, knocked=ko)
        end = care_ends(_care_rules(self), keys, start, ko)
        B.ended[rows[end["outcome"] == F_UNRESOLVED]] = UNRESOLVED  # (a care cut at max_rounds)
        B.cause[cause][rows] += _row_sum(end["dead"] & ~take_rows(S["dead"], rows))
        for k in _BACK:
            put_rows(S[k], rows, end[k])

    def _medics(self) -> list[tuple[int, int]]:
        return [
            (c, p.medicine)
            for c, p in enumerate(self.base_party.fighters.pcs)
            if p.medicine is not None
        ]

    @property
    def has_medic(self) -> bool:
        """Whether a PC of the party has Medicine to Treat Wounds (P-11)."""
        return bool(self._medics())

    @property
    def short_rests(self) -> int:
        """The played short rest's budget in 10-minute rests (``short_rest_minutes // 10``)."""
        return self.short_rest_minutes // 10

    @property
    def immunity_counters(self) -> int:
        """Treat Wounds immunity counters per PC (AP-18): one (immune to every healer's), or
        one per medic under ``treat_immunity=per_healer`` (immune to that healer's only)."""
        return max(len(self._medics()), 1) if self.treat_immunity == "per_healer" else 1

    @property
    def immune_rests(self) -> int:
        """Short rests a PC treated with Treat Wounds waits before the next, counting the
        one it was treated in (P-11 as AP-18 reads it): six for ``treat_immunity=hour`` and
        ``per_healer`` (the hour), one for ``ten_minutes``."""
        if self.treat_immunity == "ten_minutes":
            return 1
        return pf2e_rest.TREAT_IMMUNE_RESTS + 1

    def treat_can_help(self, S, tw_wait, left: int) -> np.ndarray:
        """Which tracks (n,) bool a Treat Wounds could still help within ``left`` more
        10-minute rests (P-11, AP-18): a living PC below its max HP whose immunity ends
        within them (``tw_wait < left``: it waits ``tw_wait`` rests), and a medic alive and
        conscious (under ``per_healer``, a medic whose own immunity ends within them). ``S``
        is the block's carried fields (n, P), ``tw_wait`` (n, P, W)."""
        hurt = ~S["dead"] & (S["hp"] < S["hp_max"])  # (n, P)
        out = np.zeros(len(tw_wait), dtype=bool)
        for j, (c, _) in enumerate(self._medics()):
            w = j if tw_wait.shape[2] > 1 else 0
            conscious = ~S["dead"][:, c] & (S["hp"][:, c] > 0)
            out |= conscious & _row_any(hurt & (tw_wait[:, :, w] < left))
        return out

    def _road(self, B, kind, active):
        """A day on the road (R4-01, R4-02) or a night's sleep and a meal (R4-06)."""
        S = B.S
        tracks = np.flatnonzero(active)
        B.fat[tracks], died = fatigue_next(B.fat[tracks], kind)
        dead = tracks[died]
        B.cause["deaths_on_road"][dead] += _row_sum(~S["dead"][dead])
        S["dead"][dead] = True
        S["hp"][dead] = 0

    def _wake(self, B, step, active):
        """R0-08's natural wake-up (``wake_after``): at the end of a step at least that long,
        each PC stable at 0 HP on a day still going wakes at 1 HP."""
        if woken(self.wake_after, step, self.short_rest_minutes):
            S = B.S
            np.putmask(S["hp"], (active & (B.ended < 0))[:, None] & ~S["dead"] & (S["hp"] == 0), 1)

    def _fall(self, B, step, active, t):
        """Every living PC (or one at random) falls (R4-07, R0-13); see the docstring."""
        S = B.S
        tracks = np.flatnonzero(active)
        m, P = len(tracks), S["hp"].shape[1]
        rng = B.src(active, B.prefix + (t,))
        heights = parse_heights(step.height)
        band = np.broadcast_to(np.asarray(band_draw(m, rng, heights)), (m,))[:, None]
        roll = rng.below(DICE_WIDTH, size=(m, P)).astype(np.intp)
        alive = ~S["dead"][tracks]
        if step.who == "one":
            pick = rng.below(840, size=m).astype(np.int64)  # 840: every count 1..8 divides it
            n_alive = np.maximum(_row_sum(alive), 1)
            nth = pick % n_alive
            rank = np.cumsum(alive, axis=1) - 1
            falls = alive & (rank == nth[:, None])
        else:
            falls = alive
        hp, hp_max = S["hp"][tracks], S["hp_max"][tracks]
        code, damage = fall_results(
            band, roll, hp=hp, hp_max=hp_max, massive_damage=True, band_ko=fall.STABLE
        )
        killed = falls & (code == fall.DEAD)
        knocked = falls & (code == fall.KO)  # (the others at 10 to 12 m: stable at 0 HP)
        S["hp"][tracks] = np.where(falls, np.where(code == fall.STANDING, hp - damage, 0), hp)
        B.cause["deaths_on_road"][tracks] += _row_sum(killed)
        S["dead"][tracks] |= killed
        if knocked.any():
            full = np.zeros(S["hp"].shape, dtype=bool)
            full[tracks] = knocked
            self._care(B, full, B.prefix + (t, 1), "deaths_on_road")


def death_by_step(result, confidence: float = 0.95, *, level: float | None = None):
    """P(a PC has died by the end of each plan step), cumulative over the plan, with Wilson
    intervals: a DataFrame ``step, step_text, p, ci_low, ci_high`` (from the ``first_death``
    mark; an unresolved day counts as no death)."""
    level = confidence_of(confidence, level, "death_by_step")
    import pandas as pd

    from simkit.core.stats import proportion_ci

    first = result.marks["first_death"].sum(axis=0)
    T = result.model.horizon
    by = np.zeros(T + 1, dtype=np.int64)
    by[: min(len(first), T + 1)] = first[: T + 1]
    count = np.cumsum(by[1:])
    low, high = proportion_ci(count, result.n, level)
    return pd.DataFrame(
        {
            "step": np.arange(1, T + 1),
            "step_text": [s.text() for s in result.model.steps],
            "p": count / result.n,
            "ci_low": low,
            "ci_high": high,
        }
    )
