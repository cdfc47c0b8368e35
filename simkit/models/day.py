"""An adventuring day: the party carried through a plan of fights, rests, the road and falls.

One track is one party's day (or journey); one step is one step of the ``plan``
(:mod:`simkit.models.day_plan`). The party is the ``party`` model's (its parameters are
taken with ``params_from``: one declaration each); what carries from step to step is the
fight state :class:`~simkit.models.fight_state.FightStart` (per PC: HP, hero points,
slots, heals, PP, wounded, the dead; per track the check penalty), plus per track the
fatigue counters of seed 004 and per PC the hour of Treat Wounds immunity.

The steps, over every track of a block still going:

- **a fight** runs the party kernel (the step's party: the day's with the step's threat,
  budget or lineup) on the tracks still going, from their current state, as the engine
  plays a block, and takes the end states back in track order. The first fight step runs
  on the party's own streams (so a plan of one fight is exactly ``party`` with the same
  seed and ``n``), later steps under ``prefix + (step,)``. Every step draws for the
  tracks still going only; on positional streams (``simulate(..., positional=True)``,
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
- **the road**: ``no_sleep`` / ``no_food`` advance the fatigue counters by the rule of
  :func:`simkit.rules.fatigue_day.fatigue_day` (its table,
  :func:`~simkit.rules.fatigue_day.day_chain`): the penalty (R4-01..R4-03) is added to
  every d20 the PCs roll afterwards; at -10 the party is exhausted (R4-04), and after
  three such days without a meal dead (R4-05).
- **a fall** (R4-07, :mod:`simkit.rules.fall`; massive damage R0-13): 10 to 12 m leaves a
  PC at 0 HP, stable; damage to 0 HP knocks it out, and it follows the dying rules until
  treated (the party's care after a fight, AP-7, with no monster: the downed component),
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

import math
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import ClassVar

import numpy as np

from simkit.core.engine import Tally, compact_state
from simkit.core.model import Rules
from simkit.core.params import ParamError, param, spec
from simkit.core.result import pc_names
from simkit.core.rows import row_all as _row_all
from simkit.core.rows import row_any as _row_any
from simkit.core.rows import row_sum as _row_sum
from simkit.core.stats import confidence_of
from simkit.core.streams import STREAM_SIZE, BlockRng, stream_generator
from simkit.models.day_outcomes import CAUSES, DAY_MARKS, DAY_OUTCOMES, FIGHT_CAUSES, PC_FIELDS
from simkit.models.day_plan import (
    BETWEEN,
    MAX_EXTRA_RESTS,
    FallStep,
    FightStep,
    RestStep,
    RoadStep,
    parse_fight,
    parse_plan,
    plan_text,
    repeated_plan,
    road_cell,
    road_chain,
)
from simkit.models.fight_state import CARRIED, FightStart
from simkit.models.party import DEAD, WON, Party
from simkit.rules import fatigue_day
from simkit.rules.fall import BAND_DEAD, BAND_KO, DICE_WIDTH, band_draw, fall_table
from simkit.rules.heights import parse_heights
from simkit.rules.massive_damage import is_massive, take_damage
from simkit.rules.pf2e import rest as pf2e_rest
from simkit.rules.rest import PE_REST, PP_BACK, hp_after_rest, pe_after_short_rest, pp_after_rest

__all__ = ["CAUSES", "DAY_OUTCOMES", "PC_FIELDS", "Day", "DayEnd", "death_by_step"]

SURVIVED, WITH_DEATHS, DEFEAT, RETREAT = range(4)
UNRESOLVED = 4  # (not an outcome: the engine counts what no outcome holds)
#: A fight's end, as :class:`_Fight` reads it from the kernel's state.
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


@dataclass(frozen=True, eq=False)
class _CareStart(FightStart):
    """A start for the care after a fall: ``knocked`` (n, P) the PCs knocked out (R0-03)."""

    knocked: np.ndarray | None = None


class _Fight(Party):
    """The party kernel, handing back how each fight ended besides its state."""

    __slots__ = ()

    def ends(self, state, rows) -> dict[str, np.ndarray]:
        """What tracks ``rows`` of ``state`` hand back to the day (:data:`_ENDS`): the
        carried fields a fight can change, how it ended (``outcome`` (m,) int8: F_VICTORY...)
        and its deaths by cause (the party's marks)."""
        S = state

        def rows_of(a):  # (take along axis 0: a row index a[rows] is much slower)
            return a.take(rows, axis=0)

        cond = rows_of(S.cond)
        phase = rows_of(S.phase)
        out = {k: rows_of(S[k]) for k in _BACK if k != "dead"}
        out["dead"] = cond == DEAD
        out["outcome"] = np.where(
            phase == WON,
            np.where(rows_of(S.deaths) > 0, F_DEATHS, F_VICTORY),
            np.where(phase != 0, F_RETREAT, np.where(_row_all(cond != 0), F_DEFEAT, F_UNRESOLVED)),
        ).astype(np.int8)
        for c in FIGHT_CAUSES:
            out[c] = rows_of(S[c])
        return out


class _Care(_Fight):
    """The care of PCs knocked out outside a fight (AP-7 with no monster): the fight's
    monsters are gone before round 1, the knocked-out PCs dying (R0-03) or agonising."""

    __slots__ = ()
    kernel_takes_seed_rules = True  # (no fight turn: no slowed, R1-05 or temporary HP here)

    def init(self, n, rng, start=None):
        assert isinstance(start, _CareStart)
        down0 = ~start.dead & (start.hp == 0)
        lifted = {n_: getattr(start, n_) for n_ in _FIELDS}
        lifted["hp"] = np.where(down0 | start.knocked, 1, start.hp).astype(np.int32)
        lifted["hp_max"] = np.maximum(start.hp_max, 1)
        S, code = Party.init(self, n, rng, FightStart.trusted(**lifted))
        S.mhp[:] = 0
        S.mleft[:] = 0
        S.phase[:] = WON
        S.hp[down0 | start.knocked] = 0
        S.cond[down0 & ~start.knocked] = 2  # STABLE (a PC alive at 0 HP starts stable)
        code = np.where(_row_any(start.knocked), -1, F_VICTORY).astype(np.int8)
        i, k = np.nonzero(start.knocked)
        self._knockout(
            S,
            code,
            i,
            k,
            np.zeros(len(i), dtype=bool),
            np.full(len(i), self.start_dc, dtype=np.int16),
            None,
            move=False,
            start=self.start_dying,
        )
        S.knockouts[:] = 0
        code[code >= 0] = F_VICTORY
        return S, code


_FIELDS = tuple(f.name for f in fields(FightStart))
#: What a fight or a care hands back to the day: the carried fields a fight can change
#: (the maxima it cannot), how it ended and its deaths by cause.
_BACK = tuple(k for k in CARRIED if k not in ("hp_max", "pe_max"))
_ENDS = _BACK + ("outcome",) + FIGHT_CAUSES


@lru_cache(maxsize=256)
def _steps(day: Day):
    if day.plan is not None:
        return parse_plan(day.plan)
    return repeated_plan(day.fights, parse_fight(day.fight), day.between)


def _party_params(day: Day) -> dict:
    return {k: getattr(day, k) for k in spec(Party) if k not in _NOT_TAKEN}


@lru_cache(maxsize=256)
def _fight_party(day: Day, step: FightStep) -> _Fight:
    params = {**_party_params(day), **step.party_params(getattr(day, "lineup"))}
    return _Fight(**params, engine=day.engine)


@lru_cache(maxsize=64)
def _care_party(day: Day) -> _Care:
    # (the care is the kernel's downed component until the loop takes a knocked-out start)
    return _Care(**{**_party_params(day), "monsters": str(getattr(day, "level"))}, engine="kernel")


def _streams_source(seed: int, first_stream: int, n: int, positional: bool):
    """The random source of a block of ``n`` tracks from stream ``first_stream``:
    ``source(mask, prefix)`` is a :class:`BlockRng` over the tracks ``mask`` (n,) of the
    block, stream by stream under ``prefix``. Positional (``positional``): each track's
    draws are tied to its position in its stream, whichever other tracks draw
    (:mod:`simkit.core.streams`); the default mode draws rows for the tracks of ``mask``
    only, in order."""
    n_streams = math.ceil(n / STREAM_SIZE)
    counts = [STREAM_SIZE] * n_streams
    counts[-1] = n - STREAM_SIZE * (n_streams - 1)

    def source(mask: np.ndarray, prefix) -> BlockRng:
        gens = [stream_generator(seed, first_stream + j, prefix) for j in range(n_streams)]
        brng = BlockRng(gens, counts, positional=positional)
        if not mask.all():
            brng.compact(np.flatnonzero(mask))
        return brng

    return source


def _rested(S: dict, tracks: np.ndarray) -> None:
    """The wounded condition ends at full HP after a rest (A0-2's published rule, P-12)."""
    ends = (S["wounded"] != 0) & (S["hp"] == S["hp_max"]) & ~S["dead"]  # (n, P), every track
    if len(tracks) < len(ends):
        rested = np.zeros(len(ends), dtype=bool)
        rested[tracks] = True
        ends &= rested[:, None]
    np.putmask(S["wounded"], ends, 0)


def _rest_fields(B) -> list[np.ndarray]:
    """What a rest can change, copied for every track: each PC's HP, PE, PP, slots, heals,
    hero points, wounded and death ((n, P) each), and the track's fatigue state ((n,); a
    Treat Wounds immunity running down is time passing, not a change)."""
    S = B.S
    return [S[k].copy() for k in _REST_FIELDS if k in S] + [B.fat.copy()]


def _rest_changed(B, active: np.ndarray, was: list[np.ndarray]) -> np.ndarray:
    """(m,) bool: the tracks ``active`` whose :func:`_rest_fields` differ from ``was``
    (compared over every track, then the active ones taken: plain copies and compares are
    faster than a boolean index of each field)."""
    S = B.S
    now = [S[k] for k in _REST_FIELDS if k in S]
    changed = B.fat != was[-1]
    for a, b in zip(now, was[:-1]):
        changed |= _row_any(a != b)
    return changed[active]


#: The carried fields a rest can change (:func:`_rest_fields`).
_REST_FIELDS = ("hp", "pe", "pp", "slots", "heals", "hero", "wounded", "dead")


def _row_argmin(a: np.ndarray) -> np.ndarray:
    """Column of each row's smallest value of ``a`` (m, P), the first of equals (as
    ``argmin(axis=1)``, column by column: a short-axis reduction is slow)."""
    best, k = a[:, 0].copy(), np.zeros(len(a), dtype=np.intp)
    for c in range(1, a.shape[1]):
        lower = a[:, c] < best
        k[lower] = c
        np.minimum(best, a[:, c], out=best)
    return k


def _rows(a: np.ndarray, at) -> np.ndarray:
    """The rows ``at`` (an index array, or a slice: a view) of ``a`` (n, ...): taken along
    axis 0 (``a[rows]`` on a 2-D array is several times slower)."""
    return a[at] if isinstance(at, slice) else a.take(at, axis=0)


def _put_rows(a: np.ndarray, at, values: np.ndarray) -> None:
    """``a[at] = values`` for the rows ``at`` (an index array or a slice) of ``a`` (n, ...),
    C-contiguous: a 2-D array's rows written as one opaque item each (a row index
    assignment on a 2-D array is about ten times slower)."""
    if a.ndim == 2 and not isinstance(at, slice):
        row = np.dtype((np.void, a.shape[1] * a.itemsize))
        a.view(row).reshape(len(a))[at] = (
            np.ascontiguousarray(values, dtype=a.dtype).view(row).reshape(len(values))
        )
    else:
        a[at] = values


def _at(tracks: np.ndarray, n: int):
    """An index for the rows ``tracks`` (sorted) of ``n``: every row is a slice (a view,
    no fancy index)."""
    return slice(None) if len(tracks) == n else tracks


def _add_row(observed: dict, name: str, row: int, T: int, values: np.ndarray) -> None:
    """Add the histogram of ``values`` (non-negative ints) to row ``row`` of
    ``observed[name]``."""
    _add_counts(observed, name, row, T, np.bincount(values.astype(np.intp)))


def _add_columns(observed: dict, name: str, pcs, row: int, T: int, values: np.ndarray) -> None:
    """Row ``row`` of ``observed[f"{name}:{pc}"]`` for each column of ``values`` (m, P)
    (non-negative ints): one bincount for every column."""
    width = int(values.max()) + 1 if values.size else 1
    flat = values + np.arange(values.shape[1], dtype=np.int64) * width  # (m, P) codes
    counts = np.bincount(flat.reshape(-1), minlength=width * values.shape[1])
    for k, pc in enumerate(pcs):
        hist = counts[k * width : (k + 1) * width]
        top = np.flatnonzero(hist)
        _add_counts(observed, f"{name}:{pc}", row, T, hist[: top[-1] + 1 if len(top) else 0])


def _add_flags(observed: dict, name: str, pcs, row: int, T: int, flags: np.ndarray) -> None:
    """:func:`_add_columns` of bool ``flags`` (m, P): each column's histogram is its count
    of False and of True."""
    m = len(flags)
    for k, pc in enumerate(pcs):
        ones = int(np.count_nonzero(flags[:, k]))
        hist = np.array([m - ones, ones], dtype=np.int64)
        _add_counts(observed, f"{name}:{pc}", row, T, hist[: 2 if ones else (1 if m else 0)])


def _add_counts(observed: dict, name: str, row: int, T: int, counts: np.ndarray) -> None:
    """Add ``counts`` (a histogram) to row ``row`` of ``observed[name]`` ((T + 1, width)
    int64, widened when needed)."""
    obs = observed.get(name)
    if obs is None or obs.shape[1] < len(counts):
        grown = np.zeros((T + 1, max(len(counts), 0 if obs is None else obs.shape[1])), np.int64)
        if obs is not None:
            grown[:, : obs.shape[1]] = obs
        obs = observed[name] = grown
    obs[row, : len(counts)] += counts


def _bincount2(rows: np.ndarray, values: np.ndarray, n_rows: int) -> np.ndarray:
    width = int(values.max()) + 1 if values.size else 1
    flat = rows.astype(np.int64) * width + values.astype(np.int64)
    return np.bincount(flat, minlength=n_rows * width).reshape(n_rows, width)


@dataclass(frozen=True, slots=True)
class Day(Rules):
    """A party through a plan of fights, rests, days on the road and falls; one step = one
    step of the plan."""

    name: ClassVar[str] = "day"
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

    #: How the fights are played: ``loop`` (the compiled fight loop, :mod:`simkit.fight`,
    #: the default since 0.4.0: dice by counter; a plan of one fight is then exactly
    #: ``Party(...)``) or ``kernel`` (the party's vectorised kernel, kept for its tests
    #: until it is retired). Not a parameter of the command line. The care after a fall
    #: stays on the kernel's downed component.
    engine: str = "loop"

    def validate(self) -> None:
        if self.engine not in ("kernel", "loop"):
            raise ParamError(f"engine must be 'kernel' or 'loop', got {self.engine!r}")
        if getattr(self, "dying", None) is not None:
            raise ParamError(
                "dying= is not in the day yet: the care of a PC knocked out by a fall or a "
                "Treat Wounds still runs on the kernel's own tracks (give it to party)"
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
        exact day duel (:mod:`simkit.models.day_duel`)."""
        from simkit.models.day_duel import day_duel_supported

        return day_duel_supported(self)

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
        src = _source or _streams_source(seed, first_stream, n, bool(positional))
        B = _Block.new(self, first, n, src, prefix)
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
                self._observe(observed, B.S, active, t - 1, T, isinstance(step, FightStep))
            before = B.S["dead"].copy()
            if isinstance(step, FightStep):
                if self.rest_when is not None:
                    self._rest_when(B, active, t)
                own = first_fight
                first_fight = False
                self._fight(B, step, prefix if own else prefix + (t,), start is None and t == 1)
            elif isinstance(step, RestStep) and not watch:
                self._rest(B, step, active, t)
            elif isinstance(step, RestStep):
                was = _rest_fields(B)
                self._rest(B, step, active, t)
                changed = _rest_changed(B, active, was)  # (m,) bool
                _add_row(observed, "rest_changed", t, T, changed)
            elif isinstance(step, RoadStep):
                self._road(B, step.kind, active)
            elif isinstance(step, FallStep):
                self._fall(B, step, active, t)
            S, ended = B.S, B.ended
            died_k = _row_sum(S["dead"] & ~before)
            _add_row(observed, "deaths", t, T, died_k[active])  # deaths in step t
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
        marks = {k: _bincount2(out, values[k][done], n_out) for k in self.marks}
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

    def _observe(self, observed, S, active, row, T, fight):
        """Before step ``row + 1``, over the tracks still going: the party's totals, and at
        a fight each PC's (``<field>:<pc>``, :data:`PC_FIELDS`; a dead PC has 0 of each)."""
        every = bool(active.all())
        rows = None if every else np.flatnonzero(active)
        alive = ~(S["dead"] if every else S["dead"].take(rows, axis=0))  # (m, P)
        names = self.pc_names
        for name in PC_FIELDS:
            if name == "alive":
                if fight:  # (a 0/1 column's histogram: its count of 1s)
                    _add_flags(observed, name, names, row, T, alive)
                continue
            values = S[name] if every else S[name].take(rows, axis=0)
            if len(values) and not values.any():  # (PP and PE outside seed 001): all 0
                one = np.array([len(values)], dtype=np.int64)  # (every histogram: m zeros)
                _add_counts(observed, name, row, T, one)
                if fight:
                    for pc in names:
                        _add_counts(observed, f"{name}:{pc}", row, T, one)
                continue
            values = values * alive  # (m, P) int32: a dead PC has none
            _add_row(observed, name, row, T, _row_sum(values))
            if fight:
                _add_columns(observed, name, names, row, T, values)

    # -- the steps -----------------------------------------------------------------------
    def _penalty(self, B):
        """Each track's check penalty (n,): the start's plus the fatigue's (R4-03)."""
        chain = road_chain()
        return np.maximum(B.base_pen - chain.penalty.take(B.fat), -50).astype(np.int32)

    def _fight(self, B, step, prefix, fresh):
        """The fight ``step`` for every track still going, from its state, on the random
        streams under ``prefix`` (fresh: the party's own start, as ``party`` plays it)."""
        S, ended = B.S, B.ended
        party = _fight_party(self, step)
        exhausted = (ended < 0) & (np.asarray(road_chain().states, dtype=np.int64)[B.fat, 3] >= 0)
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
        if fresh and every:
            start = None
        else:
            pen = self._penalty(B)
            start = FightStart.trusted(
                **{k: _rows(pen if k == "check_penalty" else S[k], at) for k in _FIELDS}
            )
        if self.engine == "loop":  # each track's dice key under this step's prefix
            from simkit.models.party_loop import fight_ends  # (numba: only when asked)

            keys = B.src(np.ones(len(live), dtype=bool), prefix).track_keys()
            if B.record is not None:  # (a replay: each track's start and dice key)
                B.record("fight", -1, B, rows=rows, start=start, keys=keys)
            end = fight_ends(party, keys if every else keys[rows], start)
        else:
            end = _run_rows(party, B.src(live, prefix), start, len(rows))
        for k in _BACK:
            _put_rows(S[k], at, end[k])
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
        start = _CareStart.trusted(
            **{k: _rows(pen if k == "check_penalty" else S[k], rows) for k in _FIELDS},
            knocked=_rows(knocked, rows),
        )
        end = _run_rows(_care_party(self), B.src(mask, prefix), start, len(rows))
        B.ended[rows[end["outcome"] == F_UNRESOLVED]] = UNRESOLVED  # (a care cut at max_rounds)
        B.cause[cause][rows] += _row_sum(end["dead"] & ~_rows(S["dead"], rows))
        for k in _BACK:
            _put_rows(S[k], rows, end[k])

    def _medics(self) -> list[tuple[int, int]]:
        return [
            (c, p.medicine)
            for c, p in enumerate(self.base_party.fighters.pcs)
            if p.medicine is not None
        ]

    def _treat(self, B, tracks, rng):
        """One short rest of Treat Wounds (P-11) on ``tracks`` (the rng's tracks, in order):
        each conscious medic, in the party's order, treats the most hurt living PC (lowest
        HP fraction, ties the lower index) that no one treated this hour; the PCs knocked
        out by a critical failure are returned (n_tracks, P)."""
        S, tw_wait = B.S, B.tw_wait
        m, P = len(tracks), S["hp"].shape[1]
        at = _at(tracks, len(tw_wait))  # (every track: views, changed in place)
        pen = self._penalty(B)[at]
        hp, hp_max, dead = _rows(S["hp"], at), _rows(S["hp_max"], at), _rows(S["dead"], at)
        wait = _rows(tw_wait, at)  # (m, P, W)
        knocked = np.zeros((m, P), dtype=bool)
        rows = np.arange(m)
        for j, (c, medicine) in enumerate(self._medics()):
            w = j if wait.shape[2] > 1 else 0  # (per_healer: this medic's own counter)
            change = pf2e_rest.treat_wounds_phase(rng, m, medicine + pen)
            able = ~dead[:, c] & (hp[:, c] > 0)
            hurt = ~dead & (hp < hp_max) & (wait[:, :, w] == 0)
            frac = np.where(hurt, hp / hp_max, np.inf)
            k = _row_argmin(frac)
            go = able & hurt[rows, k]
            r, k = rows[go], k[go]
            was = hp[r, k]
            new = np.clip(was + change[go], 0, hp_max[r, k])
            hp[r, k] = new
            wait[r, k, w] = self.immune_rests
            healed = change[go] > 0
            S["wounded"][tracks[r[healed]], k[healed]] = 0
            ko = (new == 0) & (was > 0)
            knocked[r[ko], k[ko]] = True
        _put_rows(S["hp"], at, hp)
        _put_rows(tw_wait, at, np.maximum(wait.astype(np.int16) - 1, 0))
        return knocked

    def _treat_and_care(self, B, mask, prefix):
        """A short rest of Treat Wounds for the tracks ``mask`` on the streams under
        ``prefix``, then the care of the PCs it knocked out (under ``prefix + (1,)``)."""
        tracks = np.flatnonzero(mask)
        knocked = self._treat(B, tracks, B.src(mask, prefix))
        if knocked.any():
            full = np.zeros(B.S["hp"].shape, dtype=bool)
            full[tracks] = knocked
            self._care(B, full, prefix + (1,), "deaths_after_fight")

    def _rest(self, B, step, active, t):
        S = B.S
        kind = step.kind
        tracks = np.flatnonzero(active)
        at = _at(tracks, len(active))
        alive = ~S["dead"][at]
        if kind == "short_rest":
            if self.pe_rest_on:
                self._spend_pp_on_pe(B, tracks)
            if self.pf2e_rest and self._medics():
                self._short_rest(B, active, t, once=step.once)
        else:
            bed = kind == "bed_rest"
            hp, hp_max = S["hp"][at], S["hp_max"][at]
            if self.pf2e_rest:
                con = np.array([p.con for p in self.base_party.fighters.pcs])
                new = pf2e_rest.night_rest_hp(hp, hp_max, con[None, :], self.level, bed)
            else:
                new = hp_after_rest(hp, hp_max, self.level, rest="bed" if bed else "night")
            S["hp"][at] = np.where(alive, new, 0)
            F = self.base_party.fighters
            for name, full in (
                ("slots", [p.slots for p in F.pcs]),
                ("heals", [p.heals for p in F.pcs]),
            ):
                S[name][at] = np.where(alive, np.asarray(full)[None, :], S[name][at])
            if self.hero_refresh == "long_rest":
                kept = S["hero"][at]  # (a dead PC keeps its own, as in the reference)
                S["hero"][at] = np.where(alive, self.hero_points, kept)
            pp_max = np.array([p.pp_max for p in F.pcs])[None, :]
            pp = pp_after_rest(S["pp"][at], pp_max, "bed" if bed else "night", self.pp_back)
            S["pp"][at] = np.where(alive, pp, S["pp"][at])
            if "pe" in S:  # stamina back in full after a night (R1-09)
                S["pe"][at] = np.where(alive, S["pe_max"][at], S["pe"][at])
            B.tw_wait[at] = 0
            self._road(B, "rest", active)
        _rested(S, tracks)

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

    def _short_rest(self, B, active, t, once=False):
        """A short rest's Treat Wounds (P-11) for the tracks ``active``; each track's
        number of 10-minute rests (n,) int64 is returned.

        The first 10-minute rest is every track's (``short_rest(once)`` stops there: its
        draws, on the streams under ``prefix + (t,)``, are the played rest's first); the
        played rest (AP-18) then goes on, rest ``j`` on the streams under ``prefix + (t, 3,
        j)``, for the tracks where a Treat Wounds could still help within the budget
        (:meth:`treat_can_help`, ``short_rest_minutes``), so no PC is left below its max
        HP while one could. Time passes only in the rests played: a track that stops early
        counts fewer rests of immunity (``tw_wait``)."""
        used = active.astype(np.int64)
        self._treat_and_care(B, active, B.prefix + (t,))
        if once:
            return used
        R = self.short_rests
        going = active.copy()
        for j in range(1, R):
            going &= (B.ended < 0) & self.treat_can_help(B.S, B.tw_wait, R - j)
            if not going.any():
                break
            self._treat_and_care(B, going, B.prefix + (t, 3, j))
            used += going
        return used

    def _rest_when(self, B, active, t):
        """Short rests before the fight of step ``t`` while some living PC is below
        ``rest_when`` of its max HP (HP + PE when the fights use PE) and a short rest can
        help it: Treat Wounds can reach it (pf2e rest, a medic conscious) or it would spend
        a PP on its PE (R1-09, ``pe_rest``)."""
        treat = self.pf2e_rest and bool(self._medics())
        pe = self.pe_rest_on
        if not (treat or pe):
            return
        S = B.S
        for j in range(MAX_EXTRA_RESTS):
            if pe:
                low = S["hp"] + S["pe"] < self.rest_when * (S["hp_max"] + S["pe_max"])
            else:
                low = S["hp"] < self.rest_when * S["hp_max"]
            low &= ~S["dead"]  # (n, P) bool
            helps = np.zeros(low.shape, dtype=bool)  # (n, P): a short rest would help it
            if treat:
                for i, (c, _) in enumerate(self._medics()):
                    w = i if B.tw_wait.shape[2] > 1 else 0
                    conscious = ~S["dead"][:, c] & (S["hp"][:, c] > 0)  # (n,)
                    helps |= (B.tw_wait[:, :, w] == 0) & conscious[:, None]
            if pe:
                helps |= self._pe_after(S, slice(None))[0] > S["pe"]
            need = active & (B.ended < 0) & _row_any(low & helps)
            if not need.any():
                return
            tracks = np.flatnonzero(need)
            if pe:
                self._spend_pp_on_pe(B, tracks)
            if treat:
                self._treat_and_care(B, need, B.prefix + (t, 2, j))
            _rested(S, tracks)

    def _pe_after(self, S, at):
        """Each PC's ``(pe, pp)`` (m, P) after the PP it would spend on its PE in a short
        rest (R1-09 as ``pe_rest`` reads it, A1-8; keeping its stabilisation cost, R1-04),
        on the rows ``at``."""
        keep = [self.base_party.stabilize_cost(k) for k in range(S["pp"].shape[1])]
        return pe_after_short_rest(
            S["pe"][at], S["pe_max"][at], S["pp"][at], np.asarray(keep)[None, :], self.pe_rest
        )

    def _spend_pp_on_pe(self, B, tracks):
        """A short rest's stamina for the tracks ``tracks`` (sorted): each living PC whose
        PE are below the maximum spends 1 PP for them as ``pe_rest`` reads it (R1-09, A1-8)."""
        S = B.S
        at = _at(tracks, len(B.ended))
        pe, pp = self._pe_after(S, at)
        alive = ~S["dead"][at]
        S["pe"][at] = np.where(alive, pe, S["pe"][at])
        S["pp"][at] = np.where(alive, pp, S["pp"][at])

    def _road(self, B, kind, active):
        """A day on the road (R4-01, R4-02) or a night's sleep and a meal (R4-06)."""
        S, fat = B.S, B.fat
        chain = road_chain()
        tracks = np.flatnonzero(active)
        nxt = chain.trans[0].take(fat[tracks] * fatigue_day.N_CELLS + road_cell(kind))
        gone = nxt >= 0  # an outcome: dead (R4-05); the others end no day here
        dead = tracks[gone & (nxt == fatigue_day.DEAD)]
        B.cause["deaths_on_road"][dead] += _row_sum(~S["dead"][dead])
        S["dead"][dead] = True
        S["hp"][dead] = 0
        stay = tracks[~gone]
        fat[stay] = -1 - nxt[~gone].astype(np.int64)
        fat[tracks[gone]] = 0

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
        _, damage_tab = fall_table(hp=10**6, hp_max=10**6)  # the dice's damage by band
        damage = damage_tab.take(band * DICE_WIDTH + roll)
        hp, hp_max = S["hp"][tracks], S["hp_max"][tracks]
        killed = falls & ((band == BAND_DEAD) | is_massive(damage, hp_max))
        stable = falls & ~killed & (band == BAND_KO)
        hit = falls & ~killed & ~stable & (damage > 0)
        new = np.where(hit, take_damage(hp, 0, damage)[0], hp)
        new = np.where(stable | killed, 0, new)
        knocked = hit & (new == 0)
        S["hp"][tracks] = new
        B.cause["deaths_on_road"][tracks] += _row_sum(killed)
        S["dead"][tracks] |= killed
        if knocked.any():
            full = np.zeros(S["hp"].shape, dtype=bool)
            full[tracks] = knocked
            self._care(B, full, B.prefix + (t, 1), "deaths_on_road")


@dataclass(eq=False)
class _Block:
    """The state of one block of days (n tracks, P PCs), handed to every step."""

    S: dict  # the FightStart fields, writable: (n, P) per PC, (n,) per track
    src: object  # source(mask, prefix) -> the random source of those tracks
    prefix: tuple  # the block's stream prefix
    base_pen: np.ndarray  # (n,) int32: the start's check penalty (P-10)
    dead0: np.ndarray  # (n, P) bool: dead before the day
    ended: np.ndarray  # (n,) int8: the day's outcome, -1 still going
    end_step: np.ndarray  # (n,) int64: the step it ended at (0: not yet)
    first_death: np.ndarray  # (n,) int64: the step of the first death (0: none)
    fat: np.ndarray  # (n,) int64: fatigue state index (day_chain, R4-01..R4-06)
    tw_wait: np.ndarray  # (n, P, W) int8: short rests before Treat Wounds again (P-11,
    #   AP-18; W = 1, or one counter per medic under treat_immunity=per_healer)
    cause: dict  # CAUSES -> (n,) int64: the day's deaths by cause
    record: object = None  # a replay's recorder (Day.run_block's _record), or None

    @classmethod
    def new(cls, day: Day, first: FightStart, n: int, src, prefix) -> _Block:
        """A block of ``n`` days from ``first``: its ``n`` rows, or one row for every day."""
        P = first.n_pcs
        S = {}
        for k in _FIELDS:
            v = getattr(first, k)
            S[k] = np.empty((n,) + v.shape[1:], dtype=bool if k == "dead" else np.int32)
            S[k][...] = v  # (a copy: the block writes its own)
        return cls(
            S=S,
            src=src,
            prefix=tuple(prefix),
            base_pen=S["check_penalty"].copy(),
            dead0=S["dead"].copy(),
            ended=np.full(n, -1, dtype=np.int8),
            end_step=np.zeros(n, dtype=np.int64),
            first_death=np.zeros(n, dtype=np.int64),
            fat=np.zeros(n, dtype=np.int64),
            tw_wait=np.zeros((n, P, day.immunity_counters), dtype=np.int8),
            cause={c: np.zeros(n, dtype=np.int64) for c in CAUSES},
        )


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


def _run_rows(model: _Fight, brng, start: FightStart | None, n: int) -> dict[str, np.ndarray]:
    """``model``'s ``n`` tracks from ``start`` (None: the model's fresh start), one per
    active track of ``brng``, played to their end as the engine plays a block (init, then
    a step a round, compacting: :func:`simkit.core.engine.run_tracks` draws the same);
    their ends (:meth:`_Fight.ends`, each field (n, ...) in track order), written in place
    as the tracks end."""
    if start is None:
        state, codes = model.init(n, brng)
    else:
        state, codes = model.init(n, brng, start=start)
    codes = np.broadcast_to(codes, (n,))
    ids: np.ndarray | None = None  # (m,) each state row's track; None: row i is track i
    out: dict[str, np.ndarray] = {}
    t = 0
    while True:
        ended = codes >= 0
        kept = np.flatnonzero(~ended)
        cut = t >= model.horizon and len(kept) > 0  # unresolved (the fight, or its care)
        if len(kept) < len(codes) or cut:
            rows = np.arange(len(codes)) if cut else np.flatnonzero(ended)
            ends = model.ends(state, rows)
            if cut:
                ends["outcome"][kept] = F_UNRESOLVED
            at = rows if ids is None else ids.take(rows)
            for k, v in ends.items():
                if k not in out:
                    out[k] = np.empty((n,) + v.shape[1:], dtype=v.dtype)
                _put_rows(out[k], at, v)
        if not len(kept) or cut:
            break
        if len(kept) < len(codes):
            ids = kept if ids is None else ids.take(kept)
            brng.compact(kept)
            state = compact_state(state, kept, len(codes))
        t += 1
        codes = model.step(state, t, brng)
    return out
