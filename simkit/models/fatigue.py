"""Seed 004: days without sleep, food or water (R4-01..R4-06, A4-2, A4-3).

One step is one day. A track is one character, lost (or besieged, or adrift) from
day 1 until it is rescued, dies, or the horizon ``max_days`` ends. Its state is the
counters of days without sleep ``s``, without food ``f`` (food and water together
by default, A4-2) and without water ``w`` (separate counters only), and, once
unconscious, the 3-day clock ``c``. The penalty to every check is ``-(s + f + w)``
(R4-01..R4-03).

Day ``t`` (1-based), in order:

1. **Rescue** at the start of the day: if ``t == rescue_day``, or with probability
   ``p_rescue``, rescuers reach the character (conscious or not): they give it a meal
   and a night's rest (R4-06), the track ends ``recovered``.
2. **Events** of the day, drawn independently: a night's rest in a calm place
   (``p_sleep``, or ``sleep_schedule``); eating and drinking (``p_food`` or
   ``food_schedule``; with separate counters, ``p_food`` is eating and ``p_water``
   drinking); with ``care="tended"``, a companion tends the character if it is
   unconscious (``p_care``). A schedule is a string of ``1``/``0``, one per day from
   day 1; past its end the probability applies. A *meal* is eating and drinking.
3. **A conscious character** (conscious at the start of the day) updates its
   counters at the end of the day (R4-01, R4-02): each need unmet that day adds 1
   to its counter. A day with a meal *and* a night's rest clears every counter
   (R4-06). Whether a need met alone resets its own counter is option
   ``recovery``: ``"both"`` (default, R4-06 as written: only a meal *and* a rest
   remove penalties; a need met alone only stops its counter from growing) or
   ``"each"`` (a rest resets the sleep counter, a meal the food counter). With
   ``recovered_when="cleared"`` a day on which a meal and a rest clear a penalty
   that was not 0 ends the track ``recovered``.
4. **Unconsciousness** (R4-04): if the total penalty is now -``exhaust_at`` (-10)
   or lower, the character falls unconscious at the end of the day (no HP
   deterioration: it is not dying). Its clock starts at 0 and its counters freeze.
5. **The 3-day clock** (R4-05), for a character unconscious at the start of the
   day: a day "with care or food" resets the clock to 0, any other day adds 1; at
   ``death_days`` (3) the character is ``dead`` at the end of that day. What counts
   is option ``care`` (A4-3): ``"fed"`` (default: being given food, a day with a
   meal event; companions feed it), ``"tended"`` (fed, or tended by a companion,
   ``p_care``), ``"rescue"`` (nothing but a rescue: no one feeds it). Under
   ``"fed"`` and ``"tended"`` a day with a meal and a night's rest wakes it with
   every penalty cleared (R4-06); under ``"rescue"`` only step 1 ends it.
6. **Horizon**: at the end of day ``max_days`` an unconscious, living character is
   ``exhausted``; a conscious one stays active and the engine reports it
   ``unresolved`` (alive, conscious, not rescued). So ``exhausted`` and
   ``unresolved`` are told apart inside the model, at the horizon.

A character falling unconscious at the end of day ``d`` without care dies at the
end of day ``d + 3``: two days without sleep and food reach -4 (R4-03); five reach
-10 (unconscious, end of day 5); death at the end of day 8.

The penalty distribution by day is observed (``observe``): ``Result.observed
["penalty"][t, k]`` counts tracks active after day ``t`` with penalty ``-k``;
:meth:`Fatigue.exact_penalty` is its exact counterpart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simkit.core.params import ParamError, param
from simkit.core.model import Rules

__all__ = ["Fatigue", "DEAD", "RECOVERED", "EXHAUSTED"]

DEAD, RECOVERED, EXHAUSTED = 0, 1, 2
# columns of the per-day uniform draws, shape (m, 5)
U_RESCUE, U_SLEEP, U_FOOD, U_WATER, U_CARE = range(5)


@dataclass(frozen=True, slots=True)
class Fatigue(Rules):
    """Seed-004 fatigue, hunger and thirst over days (R4-01..R4-06); one step = one day."""

    name: ClassVar[str] = "fatigue"
    time_unit: ClassVar[str] = "days"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "recovered", "exhausted")
    rule_ids: ClassVar[str] = "R4-01..R4-06; A4-2, A4-3"
    has_exact: ClassVar[bool] = True
    horizon_param: ClassVar[str] = "max_days"
    rolls_d20: ClassVar[bool] = False

    p_sleep: float = param(0.5, kind="float", lo=0.0, hi=1.0, rule="R4-01",
                           help="per-day probability of a night's rest in a calm place")
    p_food: float = param(0.3, kind="float", lo=0.0, hi=1.0, rule="R4-02",
                          help="per-day probability of eating and drinking (eating only with separate counters)")
    p_water: float | None = param(None, kind="float", lo=0.0, hi=1.0, optional=True, rule="A4-2",
                                  help="separate counters: per-day probability of drinking (none = p_food)")
    sleep_schedule: str | None = param(None, kind="schedule", optional=True, rule="R4-01",
                                       help="fixed nights of rest by day, e.g. 0001 (then p_sleep)")
    food_schedule: str | None = param(None, kind="schedule", optional=True, rule="R4-02",
                                      help="fixed meals by day, e.g. 0101 (then p_food)")
    water_schedule: str | None = param(None, kind="schedule", optional=True, rule="A4-2",
                                       help="separate counters: fixed drinks by day (then p_water)")
    food_water: str = param("together", kind="choice", choices=("together", "separate"), rule="A4-2",
                            help="one counter for food and water (together) or two counters (separate)")
    recovery: str = param("both", kind="choice", choices=("both", "each"), rule="R4-06",
                          help="penalties removed only by a meal and a rest (both) or each need resets its own")
    recovered_when: str = param("rescued", kind="choice", choices=("rescued", "cleared"), rule="R4-06",
                                help="track ends recovered when rescued, or also when a meal and rest clear a penalty")
    care: str = param("fed", kind="choice", choices=("fed", "tended", "rescue"), rule="A4-3",
                      help="what stops the 3-day clock of an unconscious character: food, food or care, rescue only")
    p_care: float = param(0.0, kind="float", lo=0.0, hi=1.0, rule="A4-3",
                          help="care=tended: per-day probability a companion tends the unconscious character")
    p_rescue: float = param(0.05, kind="float", lo=0.0, hi=1.0, help="per-day probability of a rescue")
    rescue_day: int | None = param(None, kind="int", lo=1, hi=100000, optional=True, unit="day",
                                   help="day at whose start rescuers arrive")
    start_sleep: int = param(0, kind="int", lo=0, hi=50, unit="days", rule="R4-01",
                             help="days already without sleep at day 0")
    start_food: int = param(0, kind="int", lo=0, hi=50, unit="days", rule="R4-02",
                            help="days already without food (and water, together) at day 0")
    start_water: int = param(0, kind="int", lo=0, hi=50, unit="days", rule="A4-2",
                             help="separate counters: days already without water at day 0")
    exhaust_at: int = param(10, kind="int", lo=1, hi=50, rule="R4-04",
                            help="total penalty (as a positive number) that knocks the character out")
    death_days: int = param(3, kind="int", lo=1, hi=100, unit="days", rule="R4-05",
                            help="days unconscious without care or food before death")
    max_days: int = param(30, kind="int", lo=1, hi=3650, unit="days", help="horizon")

    def validate(self) -> None:
        if self.food_water == "together":
            for name, bad in (("p_water", self.p_water is not None), ("water_schedule", self.water_schedule),
                              ("start_water", self.start_water)):
                if bad:
                    raise ParamError(f"{name}={getattr(self, name)!r} needs food_water=separate (A4-2)")
        if self.p_care and self.care != "tended":
            raise ParamError(f"p_care={self.p_care} needs care=tended (A4-3)")

    # -- the day's probabilities ---------------------------------------------------
    @property
    def separate(self) -> bool:
        return self.food_water == "separate"

    def day_probs(self, t: int) -> tuple[float, float, float, float]:
        """(P(rescue), P(rest), P(eat), P(drink)) on day ``t``, schedules applied."""

        def sched(text, p):
            if text is not None and t <= len(text):
                return 1.0 if text[t - 1] == "1" else 0.0
            return p

        pr = 1.0 if self.rescue_day == t else self.p_rescue
        ps = sched(self.sleep_schedule, self.p_sleep)
        pf = sched(self.food_schedule, self.p_food)
        if self.separate:
            pw = sched(self.water_schedule, self.p_food if self.p_water is None else self.p_water)
        else:
            pw = pf  # drinking is part of the one food-and-water event (A4-2)
        return pr, ps, pf, pw

    def initial_state(self) -> tuple[int, int, int, int]:
        """(s, f, w, c) at day 0; ``c = -1`` conscious, else the clock."""
        s, f, w = self.start_sleep, self.start_food, self.start_water if self.separate else 0
        return s, f, w, (0 if s + f + w >= self.exhaust_at else -1)

    # -- scalar reference (one track, plain Python) ----------------------------------
    def ref_day(self, s: int, f: int, w: int, c: int, t: int, u) -> tuple[int | None, int, int, int, int]:
        """Day ``t`` of one track from the five uniforms ``u`` (columns ``U_*``).

        Returns ``(outcome or None, s, f, w, c)``.
        """
        pr, ps, pf, pw = self.day_probs(t)
        if u[U_RESCUE] < pr:
            return RECOVERED, s, f, w, c
        sleep = u[U_SLEEP] < ps
        food = u[U_FOOD] < pf
        water = (u[U_WATER] < pw) if self.separate else food
        cared = self.care == "tended" and u[U_CARE] < self.p_care
        meal = food and water
        cleared = self.recovered_when == "cleared"
        if c < 0:
            before = s + f + w
            if sleep and meal:
                s = f = w = 0
                if cleared and before > 0:
                    return RECOVERED, s, f, w, c
            elif self.recovery == "both":
                s += not sleep
                f += not food
                w += self.separate and not water
            else:
                s = 0 if sleep else s + 1
                f = 0 if food else f + 1
                w = (0 if water else w + 1) if self.separate else 0
            if s + f + w >= self.exhaust_at:
                c = 0
        else:
            if self.care != "rescue" and sleep and meal:
                s = f = w = 0
                c = -1
                if cleared:
                    return RECOVERED, s, f, w, c
            elif self.care != "rescue" and (meal or cared):
                c = 0
            else:
                c += 1
                if c >= self.death_days:
                    return DEAD, s, f, w, c
        if t == self.horizon and c >= 0:
            return EXHAUSTED, s, f, w, c
        return None, s, f, w, c

    # -- vectorised kernel ---------------------------------------------------------------
    def init(self, n, rng):
        s, f, w, c = self.initial_state()
        state = {  # each (n,) int16
            "s": np.full(n, s, dtype=np.int16),  # days without sleep
            "f": np.full(n, f, dtype=np.int16),  # days without food (and water, together)
            "w": np.full(n, w, dtype=np.int16),  # days without water (separate counters)
            "c": np.full(n, c, dtype=np.int16),  # -1 conscious, else unconscious days without care
        }
        return state, np.full(n, -1, dtype=np.int8)

    def step(self, state, t, rng):
        s, f, w, c = state["s"], state["f"], state["w"], state["c"]
        m = len(s)
        u = rng.random(size=(m, 5))  # (m, 5): rescue, sleep, food, water, care
        pr, ps, pf, pw = self.day_probs(t)
        rescued = u[:, U_RESCUE] < pr
        sleep = u[:, U_SLEEP] < ps
        food = u[:, U_FOOD] < pf
        water = u[:, U_WATER] < pw if self.separate else food
        cared = u[:, U_CARE] < self.p_care if self.care == "tended" else np.zeros(m, dtype=bool)
        rest_meal = sleep & food & water
        awake = c < 0
        before = s + f + w

        # conscious: counters (R4-01, R4-02, R4-06)
        if self.recovery == "both":
            ns = np.where(rest_meal, 0, s + ~sleep)
            nf = np.where(rest_meal, 0, f + ~food)
            nw = np.where(rest_meal, 0, w + ~water) if self.separate else w
        else:
            ns = np.where(sleep, 0, s + 1)
            nf = np.where(food, 0, f + 1)
            nw = np.where(water, 0, w + 1) if self.separate else w
        ns, nf, nw = (x.astype(np.int16) for x in (ns, nf, nw))
        knocked = awake & (ns + nf + nw >= self.exhaust_at)  # R4-04

        # unconscious: the clock (R4-05, A4-3)
        helped = self.care != "rescue"
        wakes = ~awake & rest_meal if helped else np.zeros(m, dtype=bool)
        reset = ~awake & ~wakes & (food & water | cared) if helped else np.zeros(m, dtype=bool)
        ticking = ~awake & ~wakes & ~reset
        died = ticking & (c + 1 >= self.death_days)

        zero = np.int16(0)
        state["s"] = np.where(awake, ns, np.where(wakes, zero, s)).astype(np.int16)
        state["f"] = np.where(awake, nf, np.where(wakes, zero, f)).astype(np.int16)
        state["w"] = np.where(awake, nw, np.where(wakes, zero, w)).astype(np.int16)
        state["c"] = np.select([knocked, awake, wakes, reset], [0, -1, -1, 0], c + 1).astype(np.int16)

        codes = np.full(m, -1, dtype=np.int8)
        if t == self.horizon:
            codes[state["c"] >= 0] = EXHAUSTED
        if self.recovered_when == "cleared":
            codes[(awake & rest_meal & (before > 0)) | wakes] = RECOVERED
        codes[died] = DEAD
        codes[rescued] = RECOVERED
        return codes

    def observe(self, state, t):
        """Total penalty (as a positive number) of every active track after day ``t``."""
        return {"penalty": (state["s"] + state["f"] + state["w"]).astype(np.int64)}

    # -- exact chain (probabilities of the day's events; independent of the kernel) -----
    def exact_initial(self):
        return {self.initial_state(): 1.0}

    def exact_regime(self, t):
        return self.day_probs(t), t == self.horizon

    def exact_step(self, state, t):
        s, f, w, c = state
        pr, ps, pf, pw = self.day_probs(t)
        out: dict = {}

        def add(key, p):
            if p > 0:
                out[key] = out.get(key, 0.0) + p

        add("recovered", pr)
        last = t == self.horizon
        # joint law of (rest, eat, drink, tended) on a day without rescue
        p_drink = pw if self.separate else None
        p_tend = self.p_care if self.care == "tended" else 0.0
        for rest, p1 in ((True, ps), (False, 1 - ps)):
            for eat, p2 in ((True, pf), (False, 1 - pf)):
                drinks = ((True, p_drink), (False, 1 - p_drink)) if self.separate else ((eat, 1.0),)
                for drink, p3 in drinks:
                    for tend, p4 in ((True, p_tend), (False, 1 - p_tend)):
                        p = (1 - pr) * p1 * p2 * p3 * p4
                        if p <= 0:
                            continue
                        key = self._exact_next(s, f, w, c, rest, eat, drink, tend, last)
                        add(key, p)
        return out

    def _exact_next(self, s, f, w, c, rest, eat, drink, tend, last):
        """Where one day's events lead: an outcome name or the next (s, f, w, c)."""
        full = rest and eat and drink  # a meal and a night's rest (R4-06)
        if c == -1:  # conscious
            if full:
                if self.recovered_when == "cleared" and s + f + w > 0:
                    return "recovered"
                s2 = f2 = w2 = 0
            elif self.recovery == "each":
                s2 = 0 if rest else s + 1
                f2 = 0 if eat else f + 1
                w2 = (0 if drink else w + 1) if self.separate else 0
            else:
                s2 = s + (0 if rest else 1)
                f2 = f + (0 if eat else 1)
                w2 = w + (0 if drink else 1) if self.separate else 0
            if s2 + f2 + w2 < self.exhaust_at:
                return (s2, f2, w2, -1)
            return "exhausted" if last else (s2, f2, w2, 0)
        # unconscious
        if self.care in ("fed", "tended") and full:
            return "recovered" if self.recovered_when == "cleared" else (0, 0, 0, -1)
        fed = eat and drink
        if (self.care == "fed" and fed) or (self.care == "tended" and (fed or tend)):
            c2 = 0
        elif c + 1 >= self.death_days:
            return "dead"
        else:
            c2 = c + 1
        return "exhausted" if last else (s, f, w, c2)

    def exact_penalty(self) -> np.ndarray:
        """Exact counterpart of ``Result.observed["penalty"] / n``.

        Returns
        -------
        ndarray, shape (max_days + 1, max penalty + 1)
            ``[t, k]`` = P(the track is still active after day ``t`` with penalty -k).
        """
        from simkit.core.exact import build_chain

        chain = build_chain(self)
        pens = np.array([s + f + w for s, f, w, _ in chain.states], dtype=np.int64)
        width = int(pens.max()) + 1 if len(pens) else 1
        out = np.zeros((self.horizon + 1, width))
        v = chain.initial
        for t in range(self.horizon + 1):
            out[t] = np.bincount(pens, weights=v, minlength=width)
            if t == self.horizon:
                break
            Q, _ = chain.matrices[self.exact_regime(t + 1)]
            v = v @ Q
        return out
