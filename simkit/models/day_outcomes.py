"""What an adventuring day reports: its outcomes, its deaths by cause and what it observes
of each PC.

The names the ``day`` kernel (:mod:`simkit.models.day`), its scalar reference
(:mod:`simkit.models.day_ref`) and the day's reports share: a name here is a public
contract (outcomes, marks, events ``death_<cause>``, observations ``<field>:<pc>``).
"""

from __future__ import annotations

__all__ = ["CAUSES", "DAY_MARKS", "DAY_OUTCOMES", "FIGHT_CAUSES", "PC_FIELDS"]

#: The day's outcomes, in order (the engine adds ``unresolved``: a fight, or the care of a
#: knocked-out PC, still going at ``max_rounds``).
DAY_OUTCOMES = ("survived", "survived_with_deaths", "defeat", "retreat")
#: The party's deaths by cause (its marks): in a fight, slain at a defeat, in the care
#: after a fight.
FIGHT_CAUSES = ("deaths_in_fight", "deaths_after_defeat", "deaths_after_fight")
#: The day's deaths by cause: the party's, then the road's (a fall, R4-07, and its care;
#: fatigue, R4-05). Marks ``deaths_<cause>``, adding up to ``deaths``.
CAUSES = FIGHT_CAUSES + ("deaths_on_road",)
#: The day's marks: deaths in the day, the step it ended at, the step of the first death
#: (0: none), bit ``k`` set when PC ``k`` died, and the deaths by cause.
DAY_MARKS = ("deaths", "step", "first_death", "dead_mask") + CAUSES
#: What each PC has at the start of each fight (observed: ``<field>:<pc>``; ``pe`` is its
#: stamina under seed 001, 0 elsewhere; a dead PC has 0 of each).
PC_FIELDS = ("hp", "slots", "heals", "hero", "pp", "pe", "alive")
