"""Seed 001: long-term recovery of a stable, unconscious character at 0 HP (R1-06..R1-08).

One step is one hour. The track starts (step 0) unconscious and stable at 0 HP.

Hour ``h`` (1-based), in this order
    1. The healer, if any (``healer`` = its Medicine bonus), makes a Medicine check
       ``d20 + healer + check_penalty >= 15`` before the Constitution check (R1-08).
    2. The Constitution check (R1-06, A1-6): ``d20 + con + check_penalty``, +2 after a
       successful Medicine check, and then a total under 10 counts as 10 (R1-08).
       Total >= 20: wakes with 1 HP (``awake``); 10..19: stays stable until the next
       hour; under 10: ``dead`` at once. A1-6, option ``natural``: the text has no
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
from typing import ClassVar

import numpy as np

from simkit.core.params import param
from simkit.core.model import Rules

__all__ = ["Recovery", "HEALER_DC", "WAKE_HOURS", "hourly_odds"]

#: DC of the healer's Medicine check (R1-08).
HEALER_DC = 15
#: Hours after which a stable character wakes up on its own (R1-07).
WAKE_HOURS = 8
#: Constitution check thresholds (R1-06): wake at 20+, die under 10.
WAKE_AT, DIE_UNDER = 20, 10
#: Bonus and floor after a successful Medicine check (R1-08).
HEALER_BONUS, HEALER_FLOOR = 2, 10

DEAD, AWAKE, RESTED = 0, 1, 2


def hourly_odds(con, healer=None, check_penalty=0):
    """Exact odds of one hourly Constitution check (R1-06, R1-08), vectorised over ``con``.

    Parameters
    ----------
    con : int or array_like of int
        Constitution modifier.
    healer : int or None
        The healer's Medicine bonus (None = no healer).
    check_penalty : int
        Added to every d20 check (<= 0).

    Returns
    -------
    dict of ndarray
        ``dead``, ``stay`` and ``awake``: probabilities of each result of one check.
    """
    con = np.asarray(con, dtype=np.int64)
    rolls = np.arange(1, 21)

    def results(bonus, aided):
        total = rolls[None, :] + (con.reshape(-1, 1) + check_penalty + bonus)
        if aided:
            total = np.maximum(total, HEALER_FLOOR)
        dead = np.mean(total < DIE_UNDER, axis=1)
        awake = np.mean(total >= WAKE_AT, axis=1)
        return dead, awake

    dead, awake = results(0, False)
    if healer is not None:
        p_aid = np.mean(rolls + healer + check_penalty >= HEALER_DC)
        d2, a2 = results(HEALER_BONUS, True)
        dead = (1 - p_aid) * dead + p_aid * d2
        awake = (1 - p_aid) * awake + p_aid * a2
    shape = con.shape
    out = {"dead": dead.reshape(shape), "stay": (1 - dead - awake).reshape(shape), "awake": awake.reshape(shape)}
    return out


@dataclass(frozen=True, slots=True)
class Recovery(Rules):
    """Seed-001 hourly Constitution checks of a stable character at 0 HP (R1-06..R1-08)."""

    name: ClassVar[str] = "recovery"
    time_unit: ClassVar[str] = "hours"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "awake", "rested")
    marks: ClassVar[tuple[str, ...]] = ("hp",)
    rule_ids: ClassVar[str] = "R1-06..R1-08; A1-2, A1-6"
    has_exact: ClassVar[bool] = True

    con: int = param(0, kind="int", lo=-10, hi=30, rule="R1-06", help="Constitution modifier added to the hourly check")
    healer: int | None = param(None, kind="int", lo=-20, hi=60, optional=True, rule="R1-08",
                               help="the healer's Medicine bonus, DC 15 each hour (none = no healer)")
    checks: int = param(8, kind="int", lo=7, hi=8, rule="A1-2",
                        help="hourly checks before the automatic wake-up at hour 8: 8 (hours 1..8) or 7")
    level: int = param(1, kind="int", lo=1, hi=30, rule="R1-07", help="character level (HP regained at hour 8)")
    natural: bool = param(False, kind="bool", rule="A1-6",
                          help="natural 20 / natural 1 move the Constitution check's result one step")
    lethal: bool = param(True, kind="bool", rule="R1-11",
                         help="a check under 10 kills; false: it only keeps the character down "
                              "(a nonlethal knock-out is 'sans danger de mort')")
    check_penalty: int = param(0, kind="int", lo=-50, hi=0, rule="A1-6",
                               help="penalty added to every d20 check (Constitution and Medicine)")

    @property
    def horizon(self) -> int:
        """The track always ends by hour 8 (R1-07)."""
        return WAKE_HOURS

    # -- scalar reference (one track, plain Python) ---------------------------------
    def ref_hour(self, t: int, heal_roll: int = 0, con_roll: int = 0):
        """One hour of one track: ``(outcome or None, hp)`` for the natural d20s given."""
        if t > self.checks:  # A1-2: hour 8 without a check
            return RESTED, self.level
        total = con_roll + self.con + self.check_penalty
        if self.healer is not None and heal_roll + self.healer + self.check_penalty >= HEALER_DC:
            total = max(total + HEALER_BONUS, HEALER_FLOOR)
        result = (total >= DIE_UNDER) + (total >= WAKE_AT)  # 0 dies, 1 stays, 2 wakes
        if self.natural:
            result = min(result + 1, 2) if con_roll == 20 else (max(result - 1, 0) if con_roll == 1 else result)
        if not self.lethal:
            result = max(result, 1)
        if result == 2:
            return AWAKE, 1
        if result == 0:
            return DEAD, 0
        if t >= WAKE_HOURS:
            return RESTED, self.level
        return None, 0

    # -- vectorised kernel -----------------------------------------------------------
    def init(self, n: int, rng):
        return {"hp": np.zeros(n, dtype=np.int16)}, np.full(n, -1, dtype=np.int8)  # hp: (n,) HP on waking

    def step(self, state, t, rng):
        m = len(state["hp"])
        if t > self.checks:
            state["hp"] = np.full(m, self.level, dtype=np.int16)
            return np.full(m, RESTED, dtype=np.int8)
        if self.healer is not None:
            heal = rng.d20(size=m)  # (m,) the healer's natural d20
            aided = heal.astype(np.int16) >= HEALER_DC - self.healer - self.check_penalty
        con = rng.d20(size=m).astype(np.int16)  # (m,) natural d20 of the Constitution check
        total = con + np.int16(self.con + self.check_penalty)
        if self.healer is not None:
            total = np.where(aided, np.maximum(total + HEALER_BONUS, HEALER_FLOOR), total)
        result = (total >= DIE_UNDER).astype(np.int8) + (total >= WAKE_AT)  # (m,) 0 dies, 1 stays, 2 wakes
        if self.natural:
            result = np.clip(result + (con == 20) - (con == 1), 0, 2)
        if not self.lethal:
            result = np.maximum(result, 1)
        codes = np.full(m, -1, dtype=np.int8)
        codes[result == 0] = DEAD
        codes[result == 2] = AWAKE
        if t >= WAKE_HOURS:
            codes[codes < 0] = RESTED
        hp = np.zeros(m, dtype=np.int16)
        hp[codes == AWAKE] = 1
        hp[codes == RESTED] = self.level
        state["hp"] = hp
        return codes

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
        # P(result of the Constitution check), counting natural rolls
        def counts(bonus: int, floor: int | None) -> tuple[int, int, int]:
            dead = stay = awake = 0
            for r in range(1, 21):
                total = r + self.con + self.check_penalty + bonus
                if floor is not None and total < floor:
                    total = floor
                result = 0 if total < DIE_UNDER else (2 if total >= WAKE_AT else 1)
                if self.natural and r in (1, 20):  # A1-6 option: one step up or down
                    result = min(2, max(0, result + (1 if r == 20 else -1)))
                if not self.lethal:  # nonlethal knock-out: never dies of a check
                    result = max(result, 1)
                if result == 0:
                    dead += 1
                elif result == 2:
                    awake += 1
                else:
                    stay += 1
            return dead, stay, awake

        aid = 0  # natural rolls (of 20) for which the healer succeeds
        if self.healer is not None:
            aid = sum(r + self.healer + self.check_penalty >= HEALER_DC for r in range(1, 21))
        plain, helped = counts(0, None), counts(HEALER_BONUS, HEALER_FLOOR)
        # out of 400 equally likely (healer roll, Constitution roll) pairs
        dead, stay, awake = ((20 - aid) * a + aid * b for a, b in zip(plain, helped))
        out = {"dead": dead / 400, "awake": awake / 400}
        out["rested" if regime == "last check" else ("stable",)] = stay / 400
        return {k: v for k, v in out.items() if v > 0}
