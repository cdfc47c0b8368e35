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
round ``p``. ``stabilize_cost`` is a quarter of ``pp_max`` rounded down, at least 1
and at most ``stabilize_cap`` (3 as written; none = no maximum) (R1-04).

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
from simkit.core.params import ParamError, param
from simkit.rules import levels
from simkit.rules.parameters import shared
from simkit.core.model import Rules

__all__ = ["Perseverance", "FIRST_AID_DC", "stabilize_cost"]

#: DC of the first-aid Medicine check (R1-02).
FIRST_AID_DC = 15

DEAD, STABLE, REVIVED, BACK = 0, 1, 2, 3
AGONISING, STABILISED = 0, 1  # phases of a transient track


def stabilize_cost(pp_max, cap: int | None = 3):
    """PP spent to stabilise (R1-04): a quarter of ``pp_max`` (floor), min 1, max ``cap``.

    Vectorised over ``pp_max``; ``cap=None`` removes the maximum.
    """
    cost = np.maximum(np.asarray(pp_max) // 4, 1)
    if cap is not None:
        cost = np.minimum(cost, cap)
    return cost if cost.ndim else int(cost)


#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity("A1-1", "R1-01", "perseverance", "zero_pp",
          "reaching 0 HP with 0 PP: dead at once, or at the end of its first turn",
          (_r("at once", {"zero_pp": "at_once"}, True), _r("end of turn", {"zero_pp": "end_of_turn"})),
          setup={"pp": 0, "medic_bonus": 5}),
    Ambiguity("A1-3", "R1-05", "perseverance", "enough_pp",
          "'enough PP' to get back in the fight: 1 PP, or a reserve the designer sets",
          (_r("1 PP", {"enough_pp": 1}, True), _r("reserve 3", {"enough_pp": 3})),
          setup={"back_in_fight": True, "spend": "asap", "pp": 4, "pp_max": 8}, outcome="back"),
)


@dataclass(frozen=True, slots=True)
class Perseverance(Rules):
    """Seed-001 agony at 0 HP: PP drain, first aid, healing, spending PP (R1-01..05, R1-11)."""

    name: ClassVar[str] = "perseverance"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "stable", "revived", "back")
    marks: ClassVar[tuple[str, ...]] = ("pp",)
    rule_ids: ClassVar[str] = "R1-01..R1-05, R1-11; A1-1, A1-3, A1-6"
    active_label: ClassVar[str] = "still agonising"
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = AMBIGUITIES
    has_exact: ClassVar[bool] = True

    pp: int = shared("pp")
    pp_max: int = shared("pp_max")
    medic_bonus: int | None = param(None, kind="int", lo=-20, hi=60, optional=True, rule="R1-02",
                                    help="the helper's Medicine bonus for first aid DC 15 (none = no helper)")
    medic_from: int = param(1, kind="int", lo=1, hi=100000, unit="round", rule="R1-02",
                            help="first round the helper tries first aid (before the character's turn)")
    heal_round: int | None = shared("heal_round")
    spend: str | int = shared("spend")
    stabilize_cap: int | None = shared("stabilize_cap", optional=True)
    back_in_fight: bool = shared("back_in_fight")
    enough_pp: int = shared("enough_pp")
    nonlethal: bool = shared("nonlethal")
    zero_pp: str = shared("zero_pp")
    check_penalty: int = shared("check_penalty")
    max_rounds: int = shared("max_rounds")

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A typical character of ``level``: its PP maximum, all PP left (R1-04)."""
        pp = levels.pp_max(level)
        return {"pp_max": pp, "pp": pp}

    def validate(self) -> None:
        if self.pp > self.pp_max:
            raise ParamError(f"pp={self.pp} is not allowed: pp must be at most pp_max={self.pp_max} (R1-04)")
        if self.enough_pp > self.pp_max:
            raise ParamError(
                f"enough_pp={self.enough_pp} is not allowed: enough_pp must be at most pp_max={self.pp_max} (A1-3)"
            )

    # -- derived numbers ---------------------------------------------------------
    @property
    def stabilize_cost(self) -> int:
        """PP spent to stabilise (R1-04)."""
        return stabilize_cost(self.pp_max, self.stabilize_cap)

    def medic_acts(self, t: int) -> bool:
        """Whether the helper makes a first-aid check in round ``t`` (R1-02)."""
        return self.medic_bonus is not None and t >= self.medic_from

    def _start(self) -> tuple[int | None, int, int]:
        """(outcome or None, phase, PP) at the knock-out, step 0."""
        if self.nonlethal:
            if self.back_in_fight and self.pp >= 1:
                return None, STABILISED, self.pp
            return STABLE, STABILISED, self.pp
        if self.pp == 0 and self.zero_pp == "at_once":
            return DEAD, AGONISING, 0
        return None, AGONISING, self.pp

    # -- scalar reference (one track, plain Python) ---------------------------------
    def ref_round(self, phase: int, pp: int, t: int, roll: int = 0):
        """One round of one track; ``roll`` is the helper's natural d20 (if it acts).

        Returns ``(outcome or None, phase, pp)``.
        """
        if self.heal_round == t:
            return REVIVED, phase, pp
        stabilised = phase == STABILISED
        need = 1 if stabilised else self.enough_pp  # only a nonlethal knock-out starts stabilised
        if not stabilised and self.medic_acts(t):
            if roll + self.medic_bonus + self.check_penalty >= FIRST_AID_DC:
                stabilised = True
        if not stabilised:
            cost = self.stabilize_cost
            pol = self.spend
            if pol == "never":
                wants = False
            elif pol == "asap":
                wants = True
            elif pol == "last":
                wants = pp <= cost
            else:
                wants = t > pol or pp <= cost
            if wants and pp >= cost:
                pp -= cost
                stabilised = True
        if stabilised:
            if self.back_in_fight and pp >= need:
                return BACK, STABILISED, pp - 1
            return STABLE, STABILISED, pp
        pp -= 1
        if pp <= 0:
            return DEAD, AGONISING, 0
        return None, AGONISING, pp

    # -- vectorised kernel -----------------------------------------------------------
    def init(self, n: int, rng):
        out, phase, pp = self._start()
        codes = np.full(n, -1 if out is None else out, dtype=np.int8)
        state = {
            "pp": np.full(n, pp, dtype=np.int16),  # (n,) PP left
            "phase": np.full(n, phase, dtype=np.int8),  # (n,) 0 agonising, 1 stabilised (nonlethal)
        }
        return state, codes

    def step(self, state, t, rng):
        pp = state["pp"]  # (m,) int16
        phase = state["phase"]  # (m,) int8
        m = len(pp)
        codes = np.full(m, -1, dtype=np.int8)
        if self.heal_round == t:
            codes[:] = REVIVED
            return codes
        agon = phase == AGONISING  # (m,) still losing PP before this round
        if self.medic_acts(t):
            roll = rng.d20(size=m)  # (m,) the helper's natural d20
            aided = agon & (roll.astype(np.int16) >= FIRST_AID_DC - self.medic_bonus - self.check_penalty)
        else:
            aided = np.zeros(m, dtype=bool)
        on_turn = agon & ~aided  # (m,) agonising at its own turn
        cost = self.stabilize_cost
        pol = self.spend
        if pol == "never":
            wants = np.zeros(m, dtype=bool)
        elif pol == "asap":
            wants = np.ones(m, dtype=bool)
        elif pol == "last":
            wants = pp <= cost
        else:
            wants = (pp <= cost) | (t > pol)
        spends = on_turn & wants & (pp >= cost)  # (m,) stabilises with its PP
        pp = np.where(spends, pp - cost, pp).astype(np.int16)
        stabilised = aided | spends | ~agon
        if self.back_in_fight:
            need = np.where(agon, self.enough_pp, 1)  # a nonlethal knock-out needs only 1 PP
            back = stabilised & (pp >= need)
            pp = np.where(back, pp - 1, pp).astype(np.int16)
            codes[back] = BACK
            codes[stabilised & ~back] = STABLE
        else:
            codes[stabilised] = STABLE
        drains = on_turn & ~spends  # (m,) lose 1 PP at the end of its turn
        pp = np.where(drains, np.maximum(pp - 1, 0), pp).astype(np.int16)
        codes[drains & (pp == 0)] = DEAD
        state["pp"] = pp
        return codes

    # -- exact chain (probabilities of each event, independent of the kernel) ----------
    def exact_initial(self):
        if self.nonlethal:
            if self.back_in_fight and self.pp >= 1:
                return {(STABILISED, self.pp): 1.0}
            return {"stable": 1.0}
        if self.pp == 0 and self.zero_pp == "at_once":
            return {"dead": 1.0}
        return {(AGONISING, self.pp): 1.0}

    def exact_regime(self, t):
        return (
            t == self.heal_round,
            self.medic_acts(t),
            isinstance(self.spend, int) and t > self.spend,
        )

    def _p_first_aid(self) -> float:
        """P(first aid succeeds): d20 + bonus + penalty >= 15, no natural-roll rule."""
        need = FIRST_AID_DC - self.medic_bonus - self.check_penalty  # lowest natural roll that works
        return min(20, max(0, 21 - need)) / 20.0

    def exact_step(self, state, t):
        phase, pp = state
        if t == self.heal_round:
            return {"revived": 1.0}
        out: dict = {}

        def add(key, p):
            if p > 0:
                out[key] = out.get(key, 0.0) + p

        def settle(left: int, reserve: int, p: float):
            # stabilised this turn with `left` PP: back in the fight or stable
            if self.back_in_fight and left >= reserve:
                add("back", p)
            else:
                add("stable", p)

        if phase == STABILISED:
            settle(pp, 1, 1.0)
            return out
        p_aid = self._p_first_aid() if self.medic_acts(t) else 0.0
        settle(pp, self.enough_pp, p_aid)
        rest = 1.0 - p_aid
        cost = self.stabilize_cost
        if self.spend == "never":
            spend_now = False
        elif self.spend == "asap":
            spend_now = pp >= cost
        elif self.spend == "last":
            spend_now = pp == cost
        else:
            spend_now = pp >= cost and (t > self.spend or pp == cost)
        if spend_now:
            settle(pp - cost, self.enough_pp, rest)
        elif pp <= 1:
            add("dead", rest)
        else:
            add((AGONISING, pp - 1), rest)
        return out
