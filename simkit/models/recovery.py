"""Seed 001: long-term recovery of a stable, unconscious character at 0 HP (R1-06..R1-08).

One step is one hour. The track starts (step 0) unconscious and stable at 0 HP.

Hour ``h`` (1-based), in this order
    1. The healer, if any (``healer`` = its Medicine bonus), makes a Medicine check
       ``d20 + healer + check_penalty >= 15`` before the Constitution check (R1-08).
    2. The Constitution check (R1-06, A1-6): ``d20 + con + check_penalty``, +2 after a
       successful Medicine check, and then a total under 10 counts as 10 (R1-08).
       Total >= 20: wakes with 1 HP (``awake``); 10..19: stays stable until the next
       hour; under 10: ``dead`` at once. A1-9, option ``healer_floor``: the floor of
       10 only after a successful Medicine check (``success``, default, as written) or
       whenever a healer tends (``always``). A1-6, option ``natural``: the text has no
       natural 20/1 rule (``false``, default); with ``true`` a natural 20 moves the
       result one step up (dead -> stays, stays -> awake) and a natural 1 one step
       down, as R0-05 does for degrees of success. With ``lethal=false`` (used by
       ``agony`` after a nonlethal knock-out) a result under 10 only keeps the
       character down.
    3. Hour 8 (R1-07): a character neither awake nor dead wakes up with 1 HP per
       character level (``rested``). A1-2, option ``checks``: with 8 (default) hour 8
       has its Constitution check (steps 1-2) before the wake-up; with 7 hours 1..7
       have checks and hour 8 only the wake-up.

The track always ends by hour 8, so the horizon is fixed at 8 hours and ``unresolved``
never happens. The mark ``hp`` records the HP on waking: 1 for ``awake``, ``level``
for ``rested``, 0 for ``dead`` (``Result.marks_frame("hp")``).

``check_penalty`` (seed 004's fatigue and hunger, R4-03, A1-6) is added to every d20
check of the model: the Constitution check and the healer's Medicine check.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.ambiguity import reading as _r
from simkit.core.model import Rules
from simkit.core.params import param
from simkit.rules import hourly
from simkit.rules.hourly import (
    HEALER_DC,
    WAKE_HOURS,
    hourly_odds,
    hourly_pmf,
    hourly_result,
    hourly_table,
)
from simkit.rules.parameters import shared
from simkit.rules.pf2e import levels

__all__ = ["Recovery", "HEALER_DC", "WAKE_HOURS", "hourly_odds"]

#: Hours packed into one draw when the hour has no healer's roll (20**3 = 8000 < 2**16).
PACK_HOURS = 3

DEAD, AWAKE, RESTED = 0, 1, 2


#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A1-2",
        "R1-06/R1-07",
        "recovery",
        "checks",
        "a Constitution check in the 8th hour before the automatic wake-up: 8 checks or 7",
        (_r("8 checks", {"checks": 8}, True), _r("7 checks", {"checks": 7})),
    ),
    Ambiguity(
        "A1-4",
        "R1-12",
        "recovery",
        "con",
        "ability damage: modifier from the damaged score, -1 modifier per point, or -1 per "
        "2 points (Constitution 14 after 3 points of damage)",
        (
            _r("score", {"con": 0}, True),
            _r("per point", {"con": -1}),
            _r("per 2 points", {"con": 1}),
        ),
    ),
    Ambiguity(
        "A1-6",
        "R1-06",
        "recovery",
        "natural",
        "the hourly Constitution check: no natural 20/1 rule (as written), or with it",
        (_r("no natural 20/1", {"natural": False}, True), _r("natural 20/1", {"natural": True})),
        setup={"healer": 5},
    ),
    Ambiguity(
        "A1-9",
        "R1-08",
        "recovery",
        "healer_floor",
        "the healer's floor of 10: only after a successful Medicine check, or whenever a "
        "healer tends (a healer with Medicine +5)",
        (
            _r("after success", {"healer_floor": "success"}, True),
            _r("always", {"healer_floor": "always"}),
        ),
        setup={"healer": 5},
    ),
)


@dataclass(frozen=True, slots=True)
class Recovery(Rules):
    """Seed-001 hourly Constitution checks of a stable character at 0 HP (R1-06..R1-08)."""

    name: ClassVar[str] = "recovery"
    time_unit: ClassVar[str] = "hours"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "awake", "rested")
    marks: ClassVar[tuple[str, ...]] = ("hp",)
    rule_ids: ClassVar[str] = "R1-06..R1-08; A1-2, A1-6, A1-9"
    headline_params: ClassVar[tuple[str, ...]] = ('con', 'healer', 'checks', 'level')
    active_label: ClassVar[str] = "still unconscious"
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = AMBIGUITIES
    has_exact: ClassVar[bool] = True

    con: int = shared("con")
    healer: int | None = param(
        None,
        kind="int",
        lo=-20,
        hi=60,
        optional=True,
        rule="R1-08",
        help="the healer's Medicine bonus, DC 15 each hour (none = no healer)",
    )
    checks: int = shared("checks")
    level: int = shared("level")
    natural: bool = shared("natural")
    lethal: bool = param(
        True,
        kind="bool",
        rule="R1-11",
        help="a check under 10 kills; false: it only keeps the character down "
        "(a nonlethal knock-out is 'sans danger de mort')",
    )
    check_penalty: int = shared("check_penalty")
    healer_floor: str = param(
        "success",
        kind="choice",
        choices=hourly.HEALER_FLOORS,
        rule="A1-9",
        seed_neutral=True,
        help="the healer's floor of 10 on the Constitution check: after a successful "
        "Medicine check only (as written), or whenever a healer tends",
    )

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A typical character of ``level``: the level and its Constitution modifier.

        Rules R1-06, R1-07.
        """
        return {"level": level, "con": levels.con_modifier(level)}

    @property
    def horizon(self) -> int:
        """The track always ends by hour 8 (R1-07)."""
        return WAKE_HOURS

    # -- scalar reference (one track, plain Python) ---------------------------------
    def ref_hour(self, t: int, heal_roll: int = 0, con_roll: int = 0):
        """One hour of one track: ``(outcome or None, hp)`` for the natural d20s given.

        The check itself is :func:`simkit.rules.hourly.hourly_result`; this adds which
        hours have one and the wake-up at hour 8 (R1-07, A1-2).
        """
        if t > self.checks:  # A1-2: hour 8 without a check
            return RESTED, self.level
        result = hourly_result(
            con_roll,
            heal_roll,
            con=self.con,
            healer=self.healer,
            check_penalty=self.check_penalty,
            natural=self.natural,
            lethal=self.lethal,
            floor=self.healer_floor,
        )
        if result == hourly.AWAKE:
            return AWAKE, 1
        if result == hourly.DEAD:
            return DEAD, 0
        if t >= WAKE_HOURS:
            return RESTED, self.level
        return None, 0

    # -- vectorised kernel -----------------------------------------------------------
    def hours_per_draw(self, t: int) -> int:
        """Hours the kernel resolves from one draw at hour ``t``: 3 without a healer, else 1."""
        return min(1 if self.healer is not None else PACK_HOURS, WAKE_HOURS - t + 1)

    def packed(self, t: int, k: int) -> np.ndarray:
        """Engine codes of hours ``t..t+k-1`` for every packed draw (int8, read-only, cached).

        Index ``r``: hour ``t + i`` with a check uses the digit ``r // w**i % w`` (``w``
        = 20, or 400 with a healer; see :func:`simkit.rules.hourly.hourly_table`); an
        hour without a check (A1-2) uses none. Value: ``-1`` still stable after the
        ``k`` hours, else ``outcome + 3 * offset`` for a track ending at hour
        ``t + offset``. Built from :meth:`ref_hour`'s rules via the hourly table.
        """
        table = hourly_table(
            con=self.con,
            healer=self.healer,
            check_penalty=self.check_penalty,
            natural=self.natural,
            lethal=self.lethal,
            floor=self.healer_floor,
        )
        return _packed(tuple(table.tolist()), self.checks, t, k)

    def init(self, n: int, rng):
        hp = np.zeros(n, dtype=np.int16)  # (n,) HP on waking
        return {"hp": hp}, np.broadcast_to(np.int8(-1), (n,))

    def step(self, state, t, rng):
        m = len(state["hp"])
        k = self.hours_per_draw(t)
        table = self.packed(t, k)
        if len(table) > 1:
            codes = table.take(rng.below(len(table), size=m))
        else:  # an hour without a check (A1-2): nothing drawn
            codes = np.full(m, table[0])
        state["hp"] = _hp_of_code(self.level, k).take(codes.astype(np.intp) + 1)
        return codes, k

    # -- exact chain ---------------------------------------------------------------------
    def exact_initial(self):
        return {("stable",): 1.0}

    def exact_regime(self, t):
        if t > self.checks:
            return "wake"
        return "last check" if t >= WAKE_HOURS else "check"

    def exact_step(self, state, t):
        regime = self.exact_regime(t)
        if regime == "wake":
            return {"rested": 1.0}
        dead, stay, awake = hourly_pmf(
            con=self.con,
            healer=self.healer,
            check_penalty=self.check_penalty,
            natural=self.natural,
            lethal=self.lethal,
            floor=self.healer_floor,
        )
        stays = "rested" if regime == "last check" else ("stable",)
        out = {"dead": dead, "awake": awake, stays: stay}
        return {k: v for k, v in out.items() if v > 0}


@lru_cache(maxsize=256)
def _packed(table: tuple[int, ...], checks: int, t: int, k: int) -> np.ndarray:
    code = np.full(1, -1, dtype=np.int64)  # (draws so far,) engine code after the hours done
    for i in range(k):
        hour = t + i
        if hour > checks:  # no check, no roll: every track still stable wakes (R1-07)
            code = np.where(code < 0, RESTED + 3 * i, code)
            continue
        result = np.asarray(table, dtype=np.int64)  # 0 dead, 1 stays, 2 awake
        after = np.select(
            [result == hourly.DEAD, result == hourly.AWAKE],
            [DEAD + 3 * i, AWAKE + 3 * i],
            RESTED + 3 * i if hour >= WAKE_HOURS else -1,
        )
        # new digit is the most significant: index = old + len(old) * roll
        code = np.where(code[None, :] < 0, after[:, None], code[None, :]).ravel()
    out = code.astype(np.int8)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def _hp_of_code(level: int, k: int) -> np.ndarray:
    """HP on waking by engine code + 1 (code -1: still stable, 0 HP)."""
    hp = np.zeros(3 * k + 1, dtype=np.int16)
    for i in range(k):
        hp[1 + AWAKE + 3 * i] = 1
        hp[1 + RESTED + 3 * i] = level
    hp.setflags(write=False)
    return hp
