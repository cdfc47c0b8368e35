"""The adventuring day's plan: a comma list of steps, parsed into frozen step objects.

A plan is read left to right, one step a plan step (the ``day`` model's time unit):

- **a fight** (:class:`FightStep`): a PF2e threat (``trivial``, ``low``, ``moderate``,
  ``severe``, ``extreme``), an XP budget ``xp(N)`` (0..2000 XP), or an explicit lineup in
  brackets, ``[7(hp=150;attack=18), 5, 5]`` or ``[boar, 5]`` (the party model's
  ``monsters`` syntax). A threat or a budget takes the day's ``lineup`` template, or its
  own: ``severe(pack)``, ``xp(120, boss_and_minions)``.
- **a rest** (:class:`RestStep`): ``short_rest`` (the played short rest: 10-minute rests of
  Treat Wounds until every PC is healed or nothing more can help, within the day's
  ``short_rest_minutes``; under the seeds' rest one 10-minute rest), ``short_rest(once)``
  (one 10-minute rest: one Treat Wounds per medic), ``long_rest`` (a night: 8 hours of
  sleep and a meal), ``bed_rest`` (24 hours in bed, with meals).
- **the road** (:class:`RoadStep`, seed 004): ``no_sleep`` (a day without sleep, R4-01),
  ``no_food`` (a day without food and water, R4-02).
- **a fall** (:class:`FallStep`, R4-07): ``fall(H)`` every living PC falls ``H`` metres;
  ``fall(H, one)`` one living PC at random. ``H`` is a height in metres (0..100000) or a
  range ``uniform:A-B`` (one height per track).

What a road step is to seed 004's fatigue counters, read once here for the day's kernel,
its scalar reference and its exact duels: :data:`ROAD_EVENTS` (a day's rest, food and
water; a night's rest, ``long_rest`` or ``bed_rest``, is the event ``rest``),
:data:`FATIGUE_START` (the counters at the day's start) and :func:`road_chain`,
:func:`road_cell` (the rule's table and the event's cell in it).

Spaces are ignored; commas inside brackets or parentheses do not split steps. A bad step
is a :class:`ValueError` naming the step (its position and text) and what is allowed.
:func:`plan_text` writes a plan back in its canonical text (the ``plan`` parameter's
value, so two spellings of one plan are one sweep point).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simkit.core.params import register_kind
from simkit.models.fight_state import MIN_CHECK_PENALTY
from simkit.rules import fatigue_day
from simkit.rules.heights import parse_heights
from simkit.rules.pf2e import budget

__all__ = [
    "FightStep",
    "RestStep",
    "RoadStep",
    "FallStep",
    "Step",
    "REST_STEPS",
    "SHORT_ONCE",
    "ROAD_STEPS",
    "BETWEEN",
    "MAX_STEPS",
    "MAX_EXTRA_RESTS",
    "ROAD_EVENTS",
    "FATIGUE_START",
    "road_cell",
    "road_chain",
    "parse_plan",
    "parse_fight",
    "plan_text",
    "repeated_plan",
]

#: The rests (R1-09, R1-10; the published rest under ``rest_rules=pf2e``).
REST_STEPS = ("short_rest", "long_rest", "bed_rest")
#: The road's days (seed 004: R4-01, R4-02).
ROAD_STEPS = ("no_sleep", "no_food")
#: A short rest of one 10-minute rest (one Treat Wounds per medic), as a plan step.
SHORT_ONCE = "short_rest(once)"
#: What ``between`` may put between ``fights`` equal fights.
BETWEEN = ("none",) + REST_STEPS + (SHORT_ONCE,) + ROAD_STEPS
#: The longest plan, in steps.
MAX_STEPS = 200
#: At most this many short rests ``rest_when`` adds before one fight (an hour).
MAX_EXTRA_RESTS = 6
#: Each road step's day, and a night's rest (``rest``: a ``long_rest`` or ``bed_rest``, a
#: night's sleep and a meal), as seed 004's events ``(rest, eat, drink)`` of that day: a
#: day without sleep (R4-01) eats and drinks; a day without food and water (R4-02)
#: sleeps; a night's rest does all three, which clears the counters (R4-06). No rescue,
#: no companion tending.
ROAD_EVENTS = {
    "no_sleep": (False, True, True),
    "no_food": (True, False, False),
    "rest": (True, True, True),
}
#: The party's fatigue counters ``(s, f, w, c)`` at the start of a day (R4-01..R4-05):
#: none missed, conscious (``c = -1``).
FATIGUE_START = (0, 0, 0, -1)
#: The largest XP budget of a fight step (the party model's ``xp_budget`` range).
MAX_XP = 2000

ALLOWED = (
    "a fight (a threat: " + ", ".join(budget.THREATS) + ", optionally with a lineup template "
    "such as severe(pack); xp(N) with N in [0, 2000]; or an explicit lineup in brackets like "
    "[7(hp=150;attack=18), 5, 5]), a rest ("
    + ", ".join(REST_STEPS + (SHORT_ONCE,))
    + "), a day on the road ("
    + ", ".join(ROAD_STEPS)
    + ") or fall(H) / fall(H, one) with H a height in metres or uniform:A-B"
)


@dataclass(frozen=True, slots=True)
class FightStep:
    """A fight: exactly one of ``threat``, ``xp`` and ``monsters``; ``lineup`` the template
    of a threat or a budget (None: the day's)."""

    threat: str | None = None
    xp: int | None = None
    monsters: str | None = None  # the canonical explicit lineup (budget.parse_levels)
    lineup: str | None = None

    def text(self) -> str:
        if self.monsters is not None:
            return f"[{self.monsters}]"
        own = f", {self.lineup}" if self.lineup else ""
        if self.xp is not None:
            return f"xp({self.xp}{own})"
        return f"{self.threat}({self.lineup})" if self.lineup else str(self.threat)

    def party_params(self, lineup: str) -> dict:
        """The party model's parameters for this fight (``lineup``: the day's template)."""
        if self.monsters is not None:
            return {"monsters": self.monsters, "xp_budget": None}
        out: dict = {"monsters": None, "lineup": self.lineup or lineup}
        if self.xp is not None:
            out["xp_budget"] = self.xp
        else:
            out.update(threat=self.threat, xp_budget=None)
        return out


@dataclass(frozen=True, slots=True)
class RestStep:
    """A rest: ``short_rest``, ``long_rest`` or ``bed_rest``; ``once``: a short rest of one
    10-minute rest (``short_rest(once)``), not the played one."""

    kind: str
    once: bool = False

    def text(self) -> str:
        return SHORT_ONCE if self.once else self.kind


@dataclass(frozen=True, slots=True)
class RoadStep:
    """A day on the road: ``no_sleep`` or ``no_food`` (seed 004)."""

    kind: str

    def text(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True)
class FallStep:
    """A fall of ``height`` (canonical heights text, metres) for every living PC
    (``who="all"``) or one living PC at random (``"one"``)."""

    height: str
    who: str = "all"

    def text(self) -> str:
        return f"fall({self.height}, one)" if self.who == "one" else f"fall({self.height})"


Step = FightStep | RestStep | RoadStep | FallStep

_CALL = re.compile(r"^([a-z_]+)\((.*)\)$")


def _split(text: str) -> list[str]:
    """Top-level comma items (commas inside [] or () do not split)."""
    out, depth, start = [], 0, 0
    for pos, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"plan: unbalanced {ch!r} in {text!r}")
        elif ch == "," and depth == 0:
            out.append(text[start:pos])
            start = pos + 1
    if depth:
        raise ValueError(f"plan: unbalanced brackets in {text!r}")
    out.append(text[start:])
    return out


def _template(name: str, where: str) -> str:
    if name not in budget.LINEUPS:
        raise ValueError(
            f"{where}: lineup template {name!r} is not allowed: one of {', '.join(budget.LINEUPS)}"
        )
    return name


def _step(raw: str, where: str) -> Step:
    s = raw.replace(" ", "").replace("\t", "")
    low = s.lower()
    if low in REST_STEPS:
        return RestStep(low)
    if low == SHORT_ONCE:
        return RestStep("short_rest", once=True)
    if low in ROAD_STEPS:
        return RoadStep(low)
    if low in budget.THREATS:
        return FightStep(threat=low)
    if s.startswith("[") and s.endswith("]"):
        inner = raw.strip()[1:-1]
        if not inner.strip():
            raise ValueError(
                f"{where}: an explicit lineup names 1 to {budget.MAX_MONSTERS} creatures"
            )
        try:
            return FightStep(monsters=budget.parse_levels(inner))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    m = _CALL.match(low)
    if m:
        head, args = m.group(1), [a for a in m.group(2).split(",")]
        if head in budget.THREATS:
            if len(args) != 1:
                raise ValueError(f"{where}: a threat takes one lineup template, e.g. {head}(pack)")
            return FightStep(threat=head, lineup=_template(args[0], where))
        if head == "xp":
            if not 1 <= len(args) <= 2 or not args[0].isascii() or not args[0].isdigit():
                raise ValueError(
                    f"{where}: xp(N) or xp(N, TEMPLATE) with N an integer in [0, {MAX_XP}]"
                )
            xp = int(args[0])
            if xp > MAX_XP:
                raise ValueError(f"{where}: xp={xp} is not allowed: N must be in [0, {MAX_XP}]")
            lineup = _template(args[1], where) if len(args) == 2 else None
            return FightStep(xp=xp, lineup=lineup)
        if head == "fall":
            who = "all"
            if len(args) == 2:
                who = args[1]
                if who not in ("all", "one"):
                    raise ValueError(f"{where}: fall(H, WHO): WHO is all or one, got {who!r}")
            elif len(args) != 1:
                raise ValueError(f"{where}: fall(H) or fall(H, one)")
            try:
                if args[0].startswith("uniform:") or "," not in args[0]:
                    heights = parse_heights(args[0])
                else:
                    raise ValueError(args[0])
            except ValueError:
                raise ValueError(
                    f"{where}: fall height {args[0]!r} is not allowed: a height in metres in "
                    "[0, 100000] like 9, or uniform:A-B with 0 <= A < B <= 100000"
                ) from None
            return FallStep(str(heights), who)
    raise ValueError(f"{where} is not allowed: a step is {ALLOWED}")


def parse_plan(text) -> tuple[Step, ...]:
    """The steps of a plan text (see the module docstring); raises ValueError naming the
    step and what is allowed."""
    if isinstance(text, (list, tuple)) and all(
        isinstance(s, (FightStep, RestStep, RoadStep, FallStep)) for s in text
    ):
        steps = tuple(text)
    else:
        if not isinstance(text, str):
            raise ValueError(f"plan must be a comma list of steps, got {text!r}")
        parts = _split(text)
        found: list[Step] = []
        for i, raw in enumerate(parts, 1):
            if not raw.strip():
                if len(parts) == 1:
                    break
                raise ValueError(f"plan step {i} is empty: a step is {ALLOWED}")
            found.append(_step(raw, f"plan step {i} ({raw.strip()!r})"))
        steps = tuple(found)
    if not steps:
        raise ValueError(f"the plan is empty: give 1 to {MAX_STEPS} steps, each {ALLOWED}")
    if len(steps) > MAX_STEPS:
        raise ValueError(f"the plan has {len(steps)} steps: at most {MAX_STEPS}")
    return steps


def parse_fight(text) -> FightStep:
    """One fight step (the ``fight`` parameter)."""
    if isinstance(text, FightStep):
        return text
    steps = parse_plan(text)
    if len(steps) != 1 or not isinstance(steps[0], FightStep):
        raise ValueError(
            "fight must be one fight: a threat, xp(N) or an explicit lineup in brackets"
        )
    return steps[0]


def plan_text(steps) -> str:
    """The canonical text of a plan (its steps' texts, ``", "`` between)."""
    return ", ".join(s.text() for s in steps)


def repeated_plan(fights: int, fight: FightStep, between: str) -> tuple[Step, ...]:
    """``fights`` equal fights, ``between`` (a rest or a day on the road, or ``none``)
    between each two."""
    gap: tuple[Step, ...] = ()
    if between in REST_STEPS:
        gap = (RestStep(between),)
    elif between == SHORT_ONCE:
        gap = (RestStep("short_rest", once=True),)
    elif between in ROAD_STEPS:
        gap = (RoadStep(between),)
    out: list[Step] = [fight]
    for _ in range(fights - 1):
        out += [*gap, fight]
    return tuple(out)


def road_cell(kind: str) -> int:
    """The event cell of :func:`simkit.rules.fatigue_day.day_cell` of a road day ``kind``
    (``no_sleep``, ``no_food``) or a night's rest (``rest``): :data:`ROAD_EVENTS`."""
    rest, eat, drink = ROAD_EVENTS[kind]
    return fatigue_day.day_cell(False, rest=rest, eat=eat, drink=drink)


@lru_cache(maxsize=1)
def road_chain() -> fatigue_day.DayChain:
    """The fatigue rule's table from the day's start (:func:`fatigue_day.day_chain` of
    :data:`FATIGUE_START`): every state a party can reach, its penalty (R4-03) and its
    next state by event cell."""
    return fatigue_day.day_chain(FATIGUE_START)


#: R0-08's natural wake-up as ``wake_after`` reads it: the minutes a PC stable at 0 HP lies
#: unconscious before it wakes at 1 HP (None: only a long or bed rest's healing wakes it).
WAKE_AFTER: dict[str, int | None] = {"long_rest": None, "hour": 60, "ten_minutes": 10}
#: How long a night's rest and a day on the road last, in minutes (R0-08's wake-up).
NIGHT_MINUTES, ROAD_MINUTES = 8 * 60, 24 * 60


def step_minutes(step, short_rest_minutes: int) -> int:
    """How long a step lasts, as R0-08's wake-up counts it: a short rest its budget
    ``short_rest_minutes`` (``short_rest(once)``: one 10-minute rest), a long or bed rest a
    night, a day on the road a day; a fight or a fall no time."""
    if isinstance(step, RestStep):
        if step.kind != "short_rest":
            return NIGHT_MINUTES
        return 10 if step.once else int(short_rest_minutes)
    return ROAD_MINUTES if isinstance(step, RoadStep) else 0


def woken(wake_after: str, step, short_rest_minutes: int) -> bool:
    """Whether a PC stable at 0 HP wakes at 1 HP at the end of ``step`` (R0-08 as
    ``wake_after`` reads it: a step lasting at least that long; time does not add up
    across steps)."""
    need = WAKE_AFTER[wake_after]
    return need is not None and step_minutes(step, short_rest_minutes) >= need


def fatigue_penalty(base, fat):
    """The check penalty of the PCs' d20s (P-10) at fatigue state(s) ``fat`` (indices into
    :func:`road_chain`'s states): the start's ``base`` plus the fatigue's (R4-03), not
    below :data:`~simkit.models.fight_state.MIN_CHECK_PENALTY`. Ints or arrays."""
    return np.maximum(np.asarray(base) - road_chain().penalty.take(fat), MIN_CHECK_PENALTY)


def fatigue_exhausted(fat):
    """Whether the party at fatigue state(s) ``fat`` is unconscious from fatigue (R4-04: it
    cannot fight). Ints or arrays."""
    return _exhausted_at().take(fat)


@lru_cache(maxsize=1)
def _exhausted_at() -> np.ndarray:
    return np.asarray(road_chain().states, dtype=np.int64)[:, 3] >= 0


def fatigue_next(fat, kind: str):
    """The fatigue state after a day ``kind`` (a road step, or ``rest``: a night's sleep and
    a meal) from state(s) ``fat``: ``(state, dead)``, ``dead`` when the day kills (R4-05);
    a day ending in an outcome leaves state 0 (R4-01..R4-06, :func:`road_chain`). Ints or
    arrays."""
    nxt = road_chain().trans[0].take(np.asarray(fat) * fatigue_day.N_CELLS + road_cell(kind))
    gone = nxt >= 0  # an outcome: dead (R4-05); the others end no day here
    return np.where(gone, 0, -1 - nxt), gone & (nxt == fatigue_day.DEAD)


register_kind(
    "plan",
    lambda value: plan_text(parse_plan(value)),
    f"a comma list of 1 to {MAX_STEPS} steps, each {ALLOWED}",
    show_reason=True,
)
register_kind(
    "fight",
    lambda value: parse_fight(value).text(),
    "one fight: a threat (" + ", ".join(budget.THREATS) + "), xp(N) or an explicit lineup in "
    "brackets like [7(hp=150;attack=18), 5, 5]",
    show_reason=True,
)
