"""Temporary HP from one source at a time (seed 000: R0-14; the reading: AP-37).

R0-14: temporary HP are kept apart, lost first and cannot be healed; they come from one
source at a time: "on gaining new ones, the character keeps the old ones or takes the new
ones". The text leaves open who chooses; :data:`TEMP_KEEP` names the readings (the
``temp_keep`` option of the fights, docs/rules.md AP-37):

- ``larger`` (default): the character chooses, and keeps the larger amount (the old ones
  when they are at least the new ones; published PF2e says the same);
- ``old``: the old ones stay while any remain; the new ones are lost;
- ``new``: the new ones always replace the old ones.

A character holding none takes the new ones under every reading. Losing them to damage:
:func:`simkit.rules.massive_damage.take_damage`.
"""

from __future__ import annotations

__all__ = ["TEMP_KEEP", "kept_temp", "kept_temp_ref"]

#: The readings of "keep the old ones or take the new ones" (R0-14, AP-37), by index.
TEMP_KEEP = ("larger", "old", "new")


def kept_temp_ref(old: int, new: int, keep: int) -> int:
    """The temporary HP a character holds after gaining ``new`` while holding ``old``
    (HP, both >= 0), under reading ``keep`` (an index into :data:`TEMP_KEEP`; R0-14, AP-37).

    Plain integer code: the fight loop compiles it as it is (one home for the rule)."""
    if old <= 0:
        return new
    if keep == 0:  # larger: the character keeps the better amount
        return max(old, new)
    if keep == 1:  # old: the old source stays while it lasts
        return old
    return new  # new: the new source replaces the old


def kept_temp(old: int, new: int, keep: str = "larger") -> int:
    """:func:`kept_temp_ref` with the reading by name.

    Examples
    --------
    >>> kept_temp(3, 10), kept_temp(3, 10, "old"), kept_temp(12, 10, "new")
    (10, 3, 10)
    """
    if keep not in TEMP_KEEP:
        raise ValueError(f"keep must be one of {', '.join(TEMP_KEEP)}, got {keep!r}")
    if old < 0 or new < 0:
        raise ValueError(f"temporary HP must be >= 0, got old={old}, new={new}")
    return kept_temp_ref(int(old), int(new), TEMP_KEEP.index(keep))
