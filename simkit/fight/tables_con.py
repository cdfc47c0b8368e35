"""The fight loop's tables of the hourly checks and of Constitution damage (R1-06, R1-12),
and what a night with no hourly result gives (R1-07).

Built from the rules' scalar references, as every table of :mod:`simkit.fight.tables`:

- ``hour[k, loss, healer, lethal, con - 1, med - 1]``: PC ``k``'s hourly check (R1-06,
  R1-08, A1-6, :func:`simkit.rules.hourly.hourly_result`) with its Constitution modifier
  lowered by ``loss`` (0 .. :data:`LOSS_CAP`; a fight with no Constitution damage has
  loss 0 only);
- ``con[k, damage]`` (damage 0 .. :data:`DAMAGE_CAP`, clamped): the modifier lost to that
  much Constitution damage (R1-12 under A1-4's ``ability_reading``,
  :func:`simkit.rules.rest.modifier_loss`, the PC's score taken as ``10 + 2 x`` its
  modifier) and its maximum stamina points after it (:func:`simkit.rules.rest.pe_max`'s
  ``level x`` per modifier point: ``max(pe_max - level x loss, 0)``), packed
  ``min(loss, LOSS_CAP) * 65536 + pe_max`` (the loss as the hourly table's index).
"""

from __future__ import annotations

import numpy as np

from simkit.rules import hourly
from simkit.rules.rest import modifier_loss

__all__ = [
    "DAMAGE_CAP",
    "LOSS_CAP",
    "con_table",
    "hour_table",
    "night",
    "night_hp",
    "night_hp_of",
    "score_of",
]

#: Constitution damage counted (clamped in the lookups: more is as much).
DAMAGE_CAP = 200
#: A modifier loss past which no hourly check changes (clamped in the hourly table): with a
#: modifier of at most +10 (``party=fighter(con=10)``), d20 + Con + 2 stays under 10.
LOSS_CAP = 24


def score_of(con: int) -> int:
    """The Constitution score of a PC whose modifier is ``con`` (the even score)."""
    return 10 + 2 * int(con)


def con_table(rules, seeds: dict) -> np.ndarray:
    """``con[k, damage]`` (see the module) of ``seeds`` (``con_damage``, ``ability_reading``);
    one column when the fight deals none."""
    F = rules.fighters
    cap = DAMAGE_CAP if seeds.get("con_damage", 0) else 0
    reading = seeds.get("ability_reading", "score")
    out = np.zeros((len(F.pcs), cap + 1), dtype=np.int64)
    level = getattr(rules, "level", 0)
    for k, p in enumerate(F.pcs):
        for d in range(cap + 1):
            # (no damage, no loss: whatever the score, even one no PC has, as the
            # encounter's con down to -10 gives)
            loss = int(modifier_loss(score_of(p.con), d, reading)) if d else 0
            out[k, d] = min(loss, LOSS_CAP) * 65536 + max(p.pe_max - level * loss, 0)
    return out


def hour_table(rules, pen: int, healers) -> np.ndarray:
    """``hour[k, loss, healer, lethal, con - 1, med - 1]`` at check penalty ``pen`` (zeros
    under seed 000, which has no hourly check)."""
    F = rules.fighters
    L = LOSS_CAP if getattr(rules, "seed_rules", {}).get("con_damage", 0) else 0
    hour = np.zeros((len(F.pcs), L + 1, len(healers), 2, 20, 20), dtype=np.int64)
    if rules.seed000:
        return hour
    for k, p in enumerate(F.pcs):
        for loss in range(L + 1):
            for h, healer in enumerate(healers):
                for lethal in (0, 1):
                    for con in range(1, 21):
                        for med in range(1, 21):
                            hour[k, loss, h, lethal, con - 1, med - 1] = hourly.hourly_result(
                                con,
                                med,
                                con=p.con - loss,
                                healer=healer,
                                check_penalty=pen,
                                natural=rules.natural,
                                lethal=bool(lethal),
                            )
    return hour


# -- the night after a fight (AP-11: R1-06, R1-07, A1-2) ------------------------------------
def night_hp_of(rules, hp_max: int) -> int:
    """HP after a night whose hours give no result (R1-07, :func:`hourly.wake_up`)."""
    stays = [hourly.STAYS] * hourly.WAKE_HOURS
    return hourly.wake_up(stays, rules.checks, rules.level, hp_max)[1]


def night_hp(rules, hp_max: np.ndarray) -> np.ndarray:
    """:func:`night_hp_of` each maximum HP (a start's, per track)."""
    values = {int(h): night_hp_of(rules, int(h)) for h in np.unique(hp_max)}
    return np.vectorize(values.__getitem__, otypes=[np.int64])(hp_max)


def night(rules) -> tuple[int, int]:
    """(hours whose check counts, HP of a PC woken by a check) of a night (R1-06, R1-07,
    A1-2), read from :func:`hourly.wake_up`: the hours in which a decisive result decides."""
    counted = 0
    for h in range(hourly.WAKE_HOURS):
        probe = [hourly.STAYS] * h + [hourly.DEAD] + [hourly.STAYS] * (hourly.WAKE_HOURS - h - 1)
        if hourly.wake_up(probe, rules.checks, rules.level)[0] == hourly.DEAD:
            counted = h + 1
    awake = [hourly.AWAKE] + [hourly.STAYS] * (hourly.WAKE_HOURS - 1)
    return counted, hourly.wake_up(awake, max(rules.checks, 1), rules.level)[1]
