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

The penalty distribution by day is observed (``observe``; the engine records its
histogram, which ``observe_counts`` counts from the state codes): ``Result.observed
["penalty"][t, k]`` counts tracks active after day ``t`` with penalty ``-k``;
:meth:`Fatigue.exact_penalty` is its exact counterpart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.ambiguity import reading as _r
from simkit.core.model import Rules
from simkit.core.params import ParamError, param
from simkit.rules.fatigue_day import (
    DEAD,
    EXHAUSTED,
    RECOVERED,
    DayChain,
    cell_events,
    cell_pmf,
    day_chain,
    day_phase,
    fatigue_day,
)

__all__ = ["Fatigue", "DEAD", "RECOVERED", "EXHAUSTED"]

# the five uniforms of the scalar reference :meth:`Fatigue.ref_day`, in this order
U_RESCUE, U_SLEEP, U_FOOD, U_WATER, U_CARE = range(5)


#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A4-2",
        "R4-02",
        "fatigue",
        "food_water",
        "'without eating or drinking': one counter for food and water, or separate counters",
        (
            _r("one counter", {"food_water": "together"}, True),
            _r("separate", {"food_water": "separate"}),
        ),
    ),
    Ambiguity(
        "A4-3",
        "R4-05",
        "fatigue",
        "care",
        "what 'care' stops the 3-day clock of an unconscious character",
        (
            _r("food", {"care": "fed"}, True),
            _r("food or tending (50%/day)", {"care": "tended", "p_care": 0.5}),
            _r("rescue only", {"care": "rescue"}),
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class Fatigue(Rules):
    """Seed-004 fatigue, hunger and thirst over days (R4-01..R4-06); one step = one day."""

    name: ClassVar[str] = "fatigue"
    time_unit: ClassVar[str] = "days"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "recovered", "exhausted")
    rule_ids: ClassVar[str] = "R4-01..R4-06; A4-2, A4-3"
    headline_params: ClassVar[tuple[str, ...]] = ('p_sleep', 'p_food', 'p_rescue', 'care')
    active_label: ClassVar[str] = "still lost"
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = AMBIGUITIES
    has_exact: ClassVar[bool] = True
    observes: ClassVar[bool] = True  # the penalty by day (Result.observed)
    horizon_param: ClassVar[str] = "max_days"
    rolls_d20: ClassVar[bool] = False

    p_sleep: float = param(
        0.5,
        kind="float",
        lo=0.0,
        hi=1.0,
        rule="R4-01",
        help="per-day probability of a night's rest in a calm place",
    )
    p_food: float = param(
        0.3,
        kind="float",
        lo=0.0,
        hi=1.0,
        rule="R4-02",
        help="per-day probability of eating and drinking (eating only with separate counters)",
    )
    p_water: float | None = param(
        None,
        kind="float",
        lo=0.0,
        hi=1.0,
        optional=True,
        rule="A4-2",
        help="separate counters: per-day probability of drinking (none = p_food)",
    )
    sleep_schedule: str | None = param(
        None,
        kind="schedule",
        optional=True,
        rule="R4-01",
        help="fixed nights of rest by day, e.g. 0001 (then p_sleep)",
    )
    food_schedule: str | None = param(
        None,
        kind="schedule",
        optional=True,
        rule="R4-02",
        help="fixed meals by day, e.g. 0101 (then p_food)",
    )
    water_schedule: str | None = param(
        None,
        kind="schedule",
        optional=True,
        rule="A4-2",
        help="separate counters: fixed drinks by day (then p_water)",
    )
    food_water: str = param(
        "together",
        kind="choice",
        choices=("together", "separate"),
        rule="A4-2",
        help="one counter for food and water (together) or two counters (separate)",
    )
    recovery: str = param(
        "both",
        kind="choice",
        choices=("both", "each"),
        rule="R4-06",
        help="penalties removed only by a meal and a rest (both) or each need resets its own",
    )
    recovered_when: str = param(
        "rescued",
        kind="choice",
        choices=("rescued", "cleared"),
        rule="R4-06",
        help="track ends recovered when rescued, or also when a meal and rest clear a penalty",
    )
    care: str = param(
        "fed",
        kind="choice",
        choices=("fed", "tended", "rescue"),
        rule="A4-3",
        help="what stops the 3-day clock of an unconscious character: "
        "food, food or care, rescue only",
    )
    p_care: float = param(
        0.0,
        kind="float",
        lo=0.0,
        hi=1.0,
        rule="A4-3",
        help="care=tended: per-day probability a companion tends the unconscious character",
    )
    p_rescue: float = param(
        0.05, kind="float", lo=0.0, hi=1.0, help="per-day probability of a rescue"
    )
    rescue_day: int | None = param(
        None,
        kind="int",
        lo=1,
        hi=100000,
        optional=True,
        unit="day",
        help="day at whose start rescuers arrive",
    )
    start_sleep: int = param(
        0,
        kind="int",
        lo=0,
        hi=50,
        unit="days",
        rule="R4-01",
        help="days already without sleep at day 0",
    )
    start_food: int = param(
        0,
        kind="int",
        lo=0,
        hi=50,
        unit="days",
        rule="R4-02",
        help="days already without food (and water, together) at day 0",
    )
    start_water: int = param(
        0,
        kind="int",
        lo=0,
        hi=50,
        unit="days",
        rule="A4-2",
        help="separate counters: days already without water at day 0",
    )
    exhaust_at: int = param(
        10,
        kind="int",
        lo=1,
        hi=50,
        rule="R4-04",
        help="total penalty (as a positive number) that knocks the character out",
    )
    death_days: int = param(
        3,
        kind="int",
        lo=1,
        hi=100,
        unit="days",
        rule="R4-05",
        help="days unconscious without care or food before death",
    )
    max_days: int = param(30, kind="int", lo=1, hi=3650, unit="days", help="horizon")

    def validate(self) -> None:
        if self.food_water == "together":
            for name, bad in (
                ("p_water", self.p_water is not None),
                ("water_schedule", self.water_schedule),
                ("start_water", self.start_water),
            ):
                if bad:
                    raise ParamError(
                        f"{name}={getattr(self, name)!r} needs food_water=separate (A4-2)"
                    )
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

    def options(self) -> dict:
        """The options of the day's rule (:func:`simkit.rules.fatigue_day.fatigue_day`)."""
        return dict(
            separate=self.separate,
            recovery=self.recovery,
            recovered_when=self.recovered_when,
            care=self.care,
            exhaust_at=self.exhaust_at,
            death_days=self.death_days,
        )

    def cell_probs(self, t: int) -> np.ndarray:
        """Probability of each event cell of day ``t``.

        See :func:`simkit.rules.fatigue_day.cell_pmf`.
        """
        pr, ps, pf, pw = self.day_probs(t)
        return cell_pmf(pr, ps, pf, pw, self.p_care, separate=self.separate, care=self.care)

    def chain(self) -> DayChain:
        """Reachable states and the day's transition table (cached on what they depend on)."""
        return day_chain(self.initial_state(), **self.options())

    # -- scalar reference (one track, plain Python) ----------------------------------
    def ref_day(
        self, s: int, f: int, w: int, c: int, t: int, u
    ) -> tuple[int | None, int, int, int, int]:
        """Day ``t`` of one track from five uniforms ``u`` (columns ``U_*``): each event
        happens when its uniform is under its probability; the rule is
        :func:`simkit.rules.fatigue_day.fatigue_day`.

        Returns ``(outcome or None, s, f, w, c)``.
        """
        pr, ps, pf, pw = self.day_probs(t)
        return fatigue_day(
            s,
            f,
            w,
            c,
            rescued=u[U_RESCUE] < pr,
            rest=u[U_SLEEP] < ps,
            eat=u[U_FOOD] < pf,
            drink=u[U_WATER] < pw,
            tended=u[U_CARE] < self.p_care,
            last=t == self.horizon,
            **self.options(),
        )

    # -- vectorised kernel: one 32-bit uniform and one table lookup per track-day -----------
    def init(self, n, rng):
        # code: (n,) int16 (int32 for a large chain), the kernel code of the track's state
        # (DayChain.kernel_code; state 0 is the start)
        chain = self.chain()
        code = np.full(n, chain.kernel_code(0), dtype=chain.kernel.dtype)
        return {"code": code}, np.broadcast_to(np.int8(-1), (n,))

    def step(self, state, t, rng):
        codes = day_phase(
            state["code"], rng, self.chain(), self.cell_probs(t), last=t == self.horizon
        )
        state["code"] = codes
        return codes

    def observe(self, state, t):
        """Total penalty (as a positive number) of every active track after day ``t``."""
        return {"penalty": self.chain().kernel_penalty.take(state["code"])}

    def observe_counts(self, state, t):
        """The histogram of :meth:`observe` (what the engine records): ``[k]`` = active
        tracks with penalty -k after day ``t``, counted from their codes
        (:meth:`simkit.rules.fatigue_day.DayChain.penalty_counts`)."""
        return {"penalty": self.chain().penalty_counts(state["code"], days=t)}

    # -- exact chain: the same rule, weighted by each cell's probability ------------------
    def exact_initial(self):
        return {self.initial_state(): 1.0}

    def exact_regime(self, t):
        return self.day_probs(t), t == self.horizon

    def exact_step(self, state, t):
        s, f, w, c = state
        out: dict = {}
        last = t == self.horizon
        names = self.outcomes
        for cell, p in enumerate(self.cell_probs(t).tolist()):
            if p <= 0:
                continue
            rescued, rest, eat, drink, tended = cell_events(cell)
            o, *nxt = fatigue_day(
                s,
                f,
                w,
                c,
                rescued=rescued,
                rest=rest,
                eat=eat,
                drink=drink,
                tended=tended,
                last=last,
                **self.options(),
            )
            key = names[o] if o is not None else tuple(nxt)
            out[key] = out.get(key, 0.0) + p
        return out

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
