"""Seed 001 from knock-out to waking: ``perseverance`` (rounds), then ``recovery`` (hours).

A chained model (:mod:`simkit.core.chain`): a :class:`~simkit.models.perseverance.Perseverance`
track whose ``stable`` outcome (stabilised, unconscious at 0 HP) continues as a
:class:`~simkit.models.recovery.Recovery` track. The other outcomes of the agony end the
chain. Parameters are those of both models; ``check_penalty`` applies to both stages.

A reading docs/rules.md lists without an id: R1-11 says a nonlethal knock-out leaves the character
"unconscious but stabilised", and the seed's text adds "sans la mettre en danger de
mort" (without putting it in danger of death), while R1-06's hourly check kills on a
result under 10. ``nonlethal_recovery="safe"`` (default) follows the seed's sentence:
after a nonlethal knock-out the hourly checks cannot kill (a result under 10 keeps the
character down); ``"checks"`` applies R1-06 as written.

Outcomes (each track ends in exactly one; they sum to 1)

=================  =============================================================
``dead``           died: PP ran out while agonising, or an hourly check failed
``revived``        healed to 1+ HP while agonising (perseverance ``revived``)
``back``           spent PP to get back in the fight (perseverance ``back``)
``awake``          stabilised, then woke with 1 HP on a check of 20+
``rested``         stabilised, then woke at hour 8 with 1 HP per level
``unresolved``     still agonising after ``max_rounds`` rounds
=================  =============================================================

Where the deaths happen: ``stage_summary()`` of a result (Monte Carlo or exact) splits
every outcome by stage (``perseverance`` in rounds, ``stable->recovery`` in hours), with
probabilities over all tracks. The stage results
(``ChainResult.first`` in rounds, ``ChainResult.then["stable"]`` in hours, with the
HP on waking as the mark ``hp``) and ``ChainResult.survival()`` (columns ``stage`` and
``time_unit``) give each stage on its own time scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from simkit.core.ambiguity import carried
from simkit.core.chain import ChainRules
from simkit.core.params import param, spec
from simkit.models.perseverance import Perseverance
from simkit.models.recovery import Recovery
from simkit.rules.pf2e import levels

__all__ = ["Agony"]

_FINAL = {
    ("dead", None): "dead",
    ("revived", None): "revived",
    ("back", None): "back",
    ("unresolved", None): "unresolved",
    ("stable", "dead"): "dead",
    ("stable", "awake"): "awake",
    ("stable", "rested"): "rested",
    ("stable", "unresolved"): "unresolved",
}


@dataclass(frozen=True, slots=True)
class Agony(ChainRules):
    """Knock-out to waking: perseverance in rounds, then recovery in hours (R1-01..R1-08)."""

    name: ClassVar[str] = "agony"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "revived", "back", "awake", "rested")
    rule_ids: ClassVar[str] = "R1-01..R1-08, R1-11; A1-1..A1-3, A1-6; rounds then hours"
    headline_params: ClassVar[tuple[str, ...]] = ('pp', 'spend', 'medic_bonus', 'con', 'healer')
    active_label: ClassVar[str] = "still agonising"

    #: every parameter of both stages, declared there (``lethal`` follows ``nonlethal_recovery``)
    params_from: ClassVar = (
        (Perseverance, None),
        (Recovery, tuple(k for k in spec(Recovery) if k != "lethal")),
    )

    nonlethal_recovery: str = param(
        "safe",
        kind="choice",
        choices=("safe", "checks"),
        rule="R1-11",
        help="after a nonlethal knock-out: the hourly checks cannot kill "
        "(safe, 'sans danger de mort') or they can (checks)",
    )

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A typical character of ``level``: level, Constitution and PP (R1-04, R1-06)."""
        pp = levels.pp_max(level)
        return {"level": level, "con": levels.con_modifier(level), "pp_max": pp, "pp": pp}

    def validate(self) -> None:
        self.stages()  # cross-field checks of each stage (e.g. pp <= pp_max)

    def stages(self):
        first = Perseverance(**{k: getattr(self, k) for k in spec(Perseverance)})
        lethal = not (self.nonlethal and self.nonlethal_recovery == "safe")
        then = Recovery(
            **{k: getattr(self, k) for k in spec(Recovery) if k != "lethal"}, lethal=lethal
        )
        return first, {"stable": then}

    def final_outcome(self, first: str, second: str | None) -> str:
        return _FINAL[(first, second)]


Agony.ambiguities = carried(spec(Agony), Perseverance, Recovery)
