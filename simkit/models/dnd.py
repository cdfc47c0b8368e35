"""D&D death saving throws, written as custom tracks (:mod:`simkit.models.custom`).

Worked examples of "your own track": each class below is only a start state and a
transition on one d20; simkit builds the Monte Carlo kernel and the exact chain from
them. One step is one round (the dying character's turn).

``dnd5e`` (D&D 5th edition, Player's Handbook, "Death Saving Throws")
    Each turn a d20 (+ ``bonus``): a total of ``dc`` (10) or more is a success,
    anything else a failure. A natural 1 counts as two failures; a natural 20 regains
    1 hit point (``revived``). Third success: ``stable``; third failure: ``dead``.
    State: (successes, failures). ``failures`` / ``successes`` set the counts the
    character starts with (e.g. a failure from damage taken at 0 HP). In a fight
    (``Party(dying="dnd5e")``), damage at 0 HP is a failure, two on a critical hit.

``dnd4e`` (D&D 4th edition, Player's Handbook, "Death Saving Throws")
    Each turn a d20 (+ ``bonus``): lower than ``dc`` (10): a failed death saving
    throw; ``dc``..19: no change; 20 or higher (``surge_at``): spend a healing surge
    and regain hit points (``revived``; with ``surge=false`` no surge is left and
    nothing happens). Third failure before a rest: ``dead``. Failures never reset
    while dying. State: failures. Not a rule at 0 HP in a fight: it does not say what
    damage does while dying (4e's negative hit points are not modelled).

Example::

    >>> import simkit
    >>> from simkit.models.dnd import DnD5e
    >>> round(simkit.solve(DnD5e())["dead"], 4)
    0.4049
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from simkit.core.params import ParamError, param
from simkit.models.custom import CustomTrack
from simkit.rules.parameters import shared

__all__ = ["DnD5e", "DnD4e"]


@dataclass(frozen=True, slots=True)
class DnD5e(CustomTrack):
    """D&D 5e death saving throws (nat 1 = two failures, nat 20 = 1 HP); a custom track."""

    name: ClassVar[str] = "dnd5e"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("stable", "dead", "revived")
    rule_ids: ClassVar[str] = "D&D 5e PHB death saving throws"
    headline_params: ClassVar[tuple[str, ...]] = ('dc', 'bonus')
    active_label: ClassVar[str] = "still dying"
    dice: ClassVar[str] = "1d20"

    dc: int = shared("dc", default=10)
    bonus: int = shared("bonus")
    check_penalty: int = shared("check_penalty")
    successes: int = param(0, kind="int", lo=0, hi=2, help="successes at the start")
    failures: int = shared("failures")

    def start(self):
        return (self.successes, self.failures)

    def transition(self, state, roll):
        successes, failures = state
        if roll == 20:
            return "revived"
        if roll == 1:
            failures += 2
        elif roll + self.bonus + self.check_penalty >= self.dc:
            successes += 1
        else:
            failures += 1
        if failures >= 3:
            return "dead"
        if successes >= 3:
            return "stable"
        return (successes, failures)

    def on_hit(self, state, crit):
        """Damage at 0 hit points (PHB "Damage at 0 Hit Points"): one failure, two from a
        critical hit (what makes it a rule at 0 HP in a fight, :mod:`simkit.models.downed_rule`;
        the PHB's instant death from damage of the maximum HP is the fight's massive damage)."""
        successes, failures = state
        failures += 2 if crit else 1
        return "dead" if failures >= 3 else (successes, failures)


@dataclass(frozen=True, slots=True)
class DnD4e(CustomTrack):
    """D&D 4e death saving throws (3 failures dead, 20+ spends a healing surge); a custom track."""

    name: ClassVar[str] = "dnd4e"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "revived")
    rule_ids: ClassVar[str] = "D&D 4e PHB death saving throws"
    headline_params: ClassVar[tuple[str, ...]] = ('dc', 'bonus', 'surge')
    active_label: ClassVar[str] = "still dying"
    dice: ClassVar[str] = "1d20"

    dc: int = shared("dc", default=10)
    surge_at: int = param(
        20, kind="int", lo=2, hi=40, help="a total of this or more spends a healing surge"
    )
    bonus: int = shared("bonus")
    check_penalty: int = shared("check_penalty")
    surge: bool = param(
        True, kind="bool", help="a healing surge is left (else a high roll does nothing)"
    )
    failures: int = shared("failures")

    def validate(self) -> None:
        if self.surge_at < self.dc:
            raise ParamError(f"surge_at={self.surge_at} must be at least dc={self.dc}")

    def start(self):
        return self.failures

    def transition(self, failures, roll):
        total = roll + self.bonus + self.check_penalty
        if total < self.dc:
            return "dead" if failures + 1 >= 3 else failures + 1
        if total >= self.surge_at and self.surge:
            return "revived"
        return failures
