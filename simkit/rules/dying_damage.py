"""Gaining dying: the knock-out and damage while dying (seed 000: R0-03, R0-09; A0-1, A0-2, A0-6).

Knocked out by lethal damage (R0-03) a creature gains dying 1, dying 2 when the source
was a critical success of the attacker or a critical failure of the victim. With the
published wounded rule (A0-2, ``wounded_rule``) the wounded value is added to the dying
gained, and losing dying adds 1 to wounded.

Damage while dying (R0-09) has "the same effects as being knocked out": the seed as
written keeps the higher of the current dying value and the knock-out value
(``on_damage="max"``, A0-1, wounded included with the wounded rule since that value is
the knock-out's); published PF2e adds 1, 2 on a critical (``"increment"``). With the
increment and the wounded rule, A0-6 asks whether the wounded value also adds to such a
hit: ``wounded_adds="on_gain"`` (default, published PF2e: only when the dying condition
is gained) or ``"every_hit"``.

The scalar references (:func:`knockout_value`, :func:`hit_while_dying`) are the rule;
:func:`hit_phase` is the same rule over arrays of tracks (no random draw: which tracks
are hit, and how, is decided by the caller's attack phase). The exact chains call the
scalar references on each state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "DYING_ABOVE_0",
    "ON_DAMAGE",
    "WOUNDED",
    "WOUNDED_ADDS",
    "WOUNDED_RULE",
    "dying_given",
    "hit_phase",
    "hit_while_dying",
    "knockout_phase",
    "knockout_value",
    "wounded_after_losing",
]

# -- the declarations every model with seed-000 dying takes (issue 10 item 2) --------------------
ON_DAMAGE: dict[str, Any] = dict(
    default="max",
    kind="choice",
    choices=("max", "increment"),
    rule="A0-1",
    help="damage while dying: keep the higher dying value, or add 1 (2 on a crit)",
)
WOUNDED: dict[str, Any] = dict(
    default=0,
    kind="int",
    lo=0,
    hi=20,
    rule="A0-2",
    help="wounded value at the knock-out (or start)",
)
WOUNDED_RULE: dict[str, Any] = dict(
    default=False,
    kind="bool",
    rule="A0-2",
    help="published wounded rule: gaining dying adds the wounded value; losing dying adds 1",
)
WOUNDED_ADDS: dict[str, Any] = dict(
    default="on_gain",
    kind="choice",
    choices=("on_gain", "every_hit"),
    rule="A0-6",
    help="with on_damage=increment and the wounded rule: wounded adds only at the knock-out "
    "(on_gain) or to every hit while dying (every_hit)",
)


#: A0-9 (R0-12 with R0-04): an effect gives dying directly to a creature above 0 HP: it keeps
#: its HP, so it loses dying at once (``keep_hp``, default: R0-04, 1 HP or more ends dying),
#: or it drops to 0 HP and follows the track (``drop``).
DYING_ABOVE_0 = ("keep_hp", "drop")


def dying_given(hp: int, value: int, reading: str = "keep_hp") -> tuple[int, int]:
    """``(hp, dying)`` of a creature at ``hp`` HP that an effect gives dying ``value``
    (R0-12) under A0-9's ``reading``: ``keep_hp`` its HP and dying 0 (above 0 HP, R0-04
    ends dying at once: what losing dying does still happens, the wounded value of A0-2),
    ``drop`` 0 HP and dying ``value`` (a knock-out at that value)."""
    if reading not in DYING_ABOVE_0:
        raise ValueError(f"reading={reading!r}: one of {', '.join(DYING_ABOVE_0)}")
    if reading == "drop" or hp <= 0:
        return 0, int(value)
    return int(hp), 0


def knockout_value(
    *, start: int = 1, crit: bool = False, wounded: int = 0, wounded_rule: bool = False
) -> int:
    """Dying gained at a lethal knock-out (R0-03; A0-2): ``start`` (+1 on a critical) + wounded."""
    return int(start) + int(bool(crit)) + (int(wounded) if wounded_rule else 0)


def knockout_phase(start, crit, wounded, wounded_rule: bool) -> np.ndarray:
    """:func:`knockout_value` over tracks: ``start`` + ``crit`` (bool) + the wounded value
    with the wounded rule (A0-2); int16 arrays (or numbers) broadcast."""
    gain = np.asarray(start, dtype=np.int16) + np.asarray(crit).astype(np.int16)
    if wounded_rule:
        gain = gain + np.asarray(wounded, dtype=np.int16)
    return gain.astype(np.int16)


def hit_while_dying(
    dying: int,
    crit: bool,
    *,
    on_damage: str = "max",
    wounded: int = 0,
    wounded_rule: bool = False,
    wounded_adds: str = "on_gain",
) -> int:
    """Dying value after a lethal hit on a dying creature (R0-09; A0-1, A0-2, A0-6): the reference.

    The new value may equal the old one (``max`` reading, a lower knock-out value); the
    caller then applies a rise (:func:`simkit.rules.hero_points.rise`).
    """
    gain = 2 if crit else 1
    w = int(wounded) if wounded_rule else 0
    if on_damage == "max":
        return max(int(dying), gain + w)
    return int(dying) + gain + (w if wounded_adds == "every_hit" else 0)


def hit_phase(
    dying: np.ndarray,
    crit: np.ndarray,
    wounded=0,
    *,
    on_damage: str = "max",
    wounded_rule: bool = False,
    wounded_adds: str = "on_gain",
) -> np.ndarray:
    """:func:`hit_while_dying` over arrays of hit tracks (``wounded``: per track or one); int16."""
    dying = np.asarray(dying, dtype=np.int16)
    gain = 1 + np.asarray(crit, dtype=np.int16)
    w = np.asarray(wounded, dtype=np.int16) if wounded_rule else np.int16(0)
    if on_damage == "max":
        return np.maximum(dying, gain + w)
    return dying + gain + (w if wounded_adds == "every_hit" else np.int16(0))


def wounded_after_losing(wounded, wounded_rule: bool):
    """Wounded value after losing the dying condition (A0-2: +1 with the wounded rule)."""
    return wounded + 1 if wounded_rule else wounded
