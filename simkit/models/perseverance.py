"""Seed 001: agonising at 0 HP, perseverance points and stabilising (R1-01..R1-05, R1-11).

One step is one round. The knock-out is step 0; the character has ``pp`` perseverance
points (PP) out of ``pp_max``.

Step 0, the knock-out
    * ``nonlethal``: unconscious but stabilised at once (R1-11): ``stable`` at step 0,
      unless ``back_in_fight`` is on and the character has at least 1 PP, in which
      case it waits, stabilised, for its first turn (R1-05: a nonlethal knock-out
      needs no PP reserve, only the 1 PP it spends).
    * lethal, 0 PP (A1-1): ``zero_pp="at_once"`` (default): ``dead`` at step 0;
      ``"end_of_turn"``: agonising with 0 PP, dying at the end of its first turn
      unless rescued before it.
    * otherwise agonising with ``pp`` PP (R1-01).

Round ``t`` (1-based), in this order
    1. Healing (R1-03): if ``heal_round == t`` healing reaches the character at the
       start of the round: 1 HP or more, conscious, ``revived``. With
       ``heal_round = h`` the character has taken ``h - 1`` turns.
    2. First aid (R1-02): if ``medic_bonus`` is set and ``t >= medic_from``, the
       helper, who acts before the character, makes a Medicine check
       ``d20 + medic_bonus + check_penalty >= 15`` (no natural 20/1 rule in seed
       001, see A1-6). Success: the PP loss stops, stabilised at 0 HP.
    3. The character's turn, if it is still agonising: the ``spend`` policy may spend
       ``stabilize_cost`` PP to stabilise (R1-04), when it has that many:
       ``never``; ``asap`` (at its first turn); ``last`` (at its last chance, i.e.
       when its PP equal the cost, so that the end-of-turn loss would leave it
       unable to pay); an integer ``k`` (after ``k`` turns of agony, i.e. at its turn
       in round ``k + 1``, or at its last chance if that comes first).
    4. Still on its turn, a stabilised character (by the helper in step 2, by its PP
       in step 3, or by a nonlethal knock-out) with ``back_in_fight`` on spends 1 PP
       to regain 1 HP and fight again (R1-05): ``back``. It needs ``enough_pp`` PP
       (A1-3; default 1, the PP it spends) after a lethal knock-out and 1 PP after a
       nonlethal one. Otherwise: ``stable`` (unconscious, 0 HP). Only 1 HP a turn may
       be regained this way; the track ends as soon as the character is back.
    5. End of its turn, if it is still agonising: it loses 1 PP (R1-01); PP at 0:
       ``dead``.

So a character with ``p`` PP, no help and ``spend="never"`` dies at the end of
round ``p``. ``stabilize_cost`` is a quarter of ``pp_max`` rounded down (``quarter``,
A1-13: ``down``, default, or ``up``), at least 1 and at most ``stabilize_cap`` (3 as
written; none = no maximum) (R1-04).

``check_penalty`` (seed 004's fatigue and hunger, R4-03) is added to every d20 check of
the model, i.e. the helper's Medicine check: the party shares the expedition's
conditions. The mark ``pp`` records the PP left at the end of the track.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.ambiguity import reading as _r
from simkit.core.model import Rules
from simkit.core.params import ParamError, param
from simkit.rules.first_aid import FIRST_AID_DC, first_aid_p, first_aid_succeeds, first_aid_table
from simkit.rules.parameters import shared
from simkit.rules.perseverance import (
    AGONISING,
    BACK,
    DEAD,
    QUARTER,
    REVIVED,
    STABILISED,
    STABLE,
    knockout,
    packed_rounds,
    perseverance_round,
    round_pmf,
    stabilize_cost,
)
from simkit.rules.pf2e import levels

__all__ = [
    "Perseverance",
    "FIRST_AID_DC",
    "stabilize_cost",
    # the rule's codes (simkit.rules.perseverance), kept here for the tests and notebooks
    "DEAD",
    "STABLE",
    "REVIVED",
    "BACK",
    "AGONISING",
    "STABILISED",
]

#: Rounds resolved by one kernel step: at most this many with a first-aid check (20**3 = 8000
#: packed rolls), at most :data:`MAX_PACK` in all.
AID_PACK, MAX_PACK = 3, 8


#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A1-1",
        "R1-01",
        "perseverance",
        "zero_pp",
        "reaching 0 HP with 0 PP: dead at once, or at the end of its first turn",
        (
            _r("at once", {"zero_pp": "at_once"}, True),
            _r("end of turn", {"zero_pp": "end_of_turn"}),
        ),
        setup={"pp": 0, "medic_bonus": 5},
    ),
    Ambiguity(
        "A1-3",
        "R1-05",
        "perseverance",
        "enough_pp",
        "'enough PP' to get back in the fight: 1 PP, or a reserve the designer sets",
        (_r("1 PP", {"enough_pp": 1}, True), _r("reserve 3", {"enough_pp": 3})),
        setup={"back_in_fight": True, "spend": "asap", "pp": 4, "pp_max": 8},
        outcome="back",
    ),
    Ambiguity(
        "A1-13",
        "R1-04",
        "perseverance",
        "quarter",
        "the PP to stabilise, a quarter of the maximum: rounded down or up (6 PP max, 1 "
        "left: 1 or 2 to pay)",
        (_r("down", {"quarter": "down"}, True), _r("up", {"quarter": "up"})),
        setup={"pp": 1, "pp_max": 6},
    ),
)


@dataclass(frozen=True, slots=True)
class Perseverance(Rules):
    """Seed-001 agony at 0 HP: PP drain, first aid, healing, spending PP (R1-01..05, R1-11)."""

    name: ClassVar[str] = "perseverance"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "stable", "revived", "back")
    marks: ClassVar[tuple[str, ...]] = ("pp",)
    rule_ids: ClassVar[str] = "R1-01..R1-05, R1-11; A1-1, A1-3, A1-6, A1-13"
    headline_params: ClassVar[tuple[str, ...]] = ('pp', 'pp_max', 'spend', 'medic_bonus')
    active_label: ClassVar[str] = "still agonising"
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = AMBIGUITIES
    has_exact: ClassVar[bool] = True

    pp: int = shared("pp")
    pp_max: int = shared("pp_max")
    medic_bonus: int | None = param(
        None,
        kind="int",
        lo=-20,
        hi=60,
        optional=True,
        rule="R1-02",
        help="the helper's Medicine bonus for first aid DC 15 (none = no helper)",
    )
    medic_from: int = param(
        1,
        kind="int",
        lo=1,
        hi=100000,
        unit="round",
        rule="R1-02",
        help="first round the helper tries first aid (before the character's turn)",
    )
    heal_round: int | None = shared("heal_round")
    spend: str | int = shared("spend")
    stabilize_cap: int | None = shared("stabilize_cap", optional=True)
    back_in_fight: bool = shared("back_in_fight")
    enough_pp: int = shared("enough_pp")
    nonlethal: bool = shared("nonlethal")
    zero_pp: str = shared("zero_pp")
    check_penalty: int = shared("check_penalty")
    max_rounds: int = shared("max_rounds")
    quarter: str = param(
        "down",
        kind="choice",
        choices=QUARTER,
        rule="A1-13",
        seed_neutral=True,
        help="the PP to stabilise, a quarter of pp_max: rounded down or up (R1-04)",
    )

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A typical character of ``level``: its PP maximum, all PP left (R1-04)."""
        pp = levels.pp_max(level)
        return {"pp_max": pp, "pp": pp}

    def validate(self) -> None:
        if self.pp > self.pp_max:
            raise ParamError(
                f"pp={self.pp} is not allowed: pp must be at most pp_max={self.pp_max} (R1-04)"
            )
        if self.enough_pp > self.pp_max:
            raise ParamError(
                f"enough_pp={self.enough_pp} is not allowed: "
                f"enough_pp must be at most pp_max={self.pp_max} (A1-3)"
            )

    # -- derived numbers ---------------------------------------------------------
    @property
    def stabilize_cost(self) -> int:
        """PP spent to stabilise (R1-04)."""
        return stabilize_cost(self.pp_max, self.stabilize_cap, self.quarter)

    def medic_acts(self, t: int) -> bool:
        """Whether the helper makes a first-aid check in round ``t`` (R1-02)."""
        return self.medic_bonus is not None and t >= self.medic_from

    def _start(self) -> tuple[int | None, int, int]:
        """(outcome or None, phase, PP) at the knock-out, step 0 (R1-01, R1-11, A1-1).

        The rule is :func:`simkit.rules.perseverance.knockout`.
        """
        return knockout(
            self.pp,
            nonlethal=self.nonlethal,
            back_in_fight=self.back_in_fight,
            zero_pp=self.zero_pp,
        )

    def _round_options(self) -> dict:
        return dict(
            cost=self.stabilize_cost,
            spend=self.spend,
            back_in_fight=self.back_in_fight,
            enough_pp=self.enough_pp,
        )

    # -- scalar reference (one track, plain Python) ---------------------------------
    def ref_round(self, phase: int, pp: int, t: int, roll: int = 0):
        """One round of one track; ``roll`` is the helper's natural d20 (if it acts).

        Returns ``(outcome or None, phase, pp)``. The rules are
        :func:`simkit.rules.perseverance.perseverance_round` and
        :func:`simkit.rules.first_aid.first_aid_succeeds`.
        """
        aided = (
            phase == AGONISING
            and self.medic_bonus is not None
            and self.medic_acts(t)
            and first_aid_succeeds(roll, bonus=self.medic_bonus, check_penalty=self.check_penalty)
        )
        return perseverance_round(
            phase, pp, t, healed=self.heal_round == t, aided=aided, **self._round_options()
        )

    # -- vectorised kernel: packed rounds, one draw and two lookups per step ----------------
    def _state(self, phase: int, pp: int) -> int:
        return phase * (self.pp_max + 1) + pp

    def pack(self, t: int) -> tuple[tuple[int, bool, bool], ...]:
        """The rounds ``(t, healed, helper acts)`` one kernel step resolves from round ``t``."""
        rounds = []
        aids = 0
        for u in range(t, min(self.horizon, t + MAX_PACK - 1) + 1):
            helper = self.medic_acts(u)
            if helper and aids == AID_PACK:
                break
            aids += helper
            rounds.append((u, self.heal_round == u, helper))
        return tuple(rounds)

    def tables(self, t: int) -> tuple[np.ndarray, np.ndarray, int]:
        """``(codes, pp, width)`` of the step at round ``t``.

        See :func:`simkit.rules.perseverance.packed_rounds`.
        """
        aid = None
        if self.medic_bonus is not None:
            table = first_aid_table(bonus=self.medic_bonus, check_penalty=self.check_penalty)
            aid = tuple(table.tolist())
        spend = self.spend
        rounds = self.pack(t)
        if isinstance(spend, int):  # only t > spend matters: key the cache on that
            rounds = tuple((spend + 1 if u > spend else 1, h, a) for u, h, a in rounds)
        else:
            rounds = tuple((1, h, a) for _, h, a in rounds)
        return packed_rounds(
            self.pp_max, self.stabilize_cost, spend, self.back_in_fight, self.enough_pp, aid, rounds
        )

    def init(self, n: int, rng):
        out, phase, pp = self._start()
        codes = np.broadcast_to(np.int8(-1 if out is None else out), (n,))
        state = {
            # (n,) -1 - state index, or an outcome
            "s": np.full(n, -1 - self._state(phase, pp), dtype=np.int16),
            "pp": np.full(n, pp, dtype=np.int16),  # (n,) PP left
        }
        return state, codes

    def step(self, state, t, rng):
        codes, pps, width = self.tables(t)
        k = len(self.pack(t))
        idx = np.multiply(state["s"], -width, dtype=np.intp)
        idx -= width
        if width > 1:
            idx += rng.below(width, size=len(idx))
        out = codes.take(idx)
        state["s"] = out
        state["pp"] = pps.take(idx)
        return out, k

    # -- exact chain (probabilities of each event, independent of the kernel) ----------
    def exact_initial(self):
        out, phase, pp = self._start()
        return {self.outcomes[out] if out is not None else (phase, pp): 1.0}

    def exact_regime(self, t):
        return (
            t == self.heal_round,
            self.medic_acts(t),
            isinstance(self.spend, int) and t > self.spend,
        )

    def _p_first_aid(self) -> float:
        """P(first aid succeeds): d20 + bonus + penalty >= 15, no natural-roll rule."""
        if self.medic_bonus is None:
            return 0.0
        return first_aid_p(bonus=self.medic_bonus, check_penalty=self.check_penalty)

    def exact_step(self, state, t):
        phase, pp = state
        p_aid = self._p_first_aid() if self.medic_acts(t) else 0.0
        out: dict = {}
        for (o, ph2, pp2), p in round_pmf(
            phase, pp, t, p_aid=p_aid, healed=self.heal_round == t, **self._round_options()
        ).items():
            key = self.outcomes[o] if o is not None else (ph2, pp2)
            out[key] = out.get(key, 0.0) + p
        return out
