"""The three dying systems a fight can use, each declared once.

- ``seed000``: seed 000 as written (R0-03..R0-10): the recovery check is a Fortitude save
  against the DC of the source (R0-05, R0-06), damage while dying keeps the higher
  dying value (A0-1 ``max``), no wounded rule (A0-2), a hero point revives at 1 HP
  (R0-10).
- ``pf2e-core``: the published PF2e rules: a flat check against DC 10 + dying (A0-4
  ``flat``), damage while dying adds 1 (2 on a critical; A0-1 ``increment``), the wounded
  condition (A0-2), a hero point stabilises at 0 HP (``hero_effect=stabilize``).
- ``seed001``: seed 001's agonising, perseverance points and hourly checks (R1-01..R1-08):
  none of the seed-000 options apply.

:data:`DYING_OPTIONS` holds the seed-000-track options of the first two (what
``dying --preset pf2e-core``, ``encounter --preset pf2e-core`` and ``party
rules=pf2e-core`` set); :data:`SYSTEMS` names all three.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

__all__ = ["DYING_OPTIONS", "PF2E_CORE", "SEED000", "SYSTEMS", "options"]

#: seed 000 as written: the seed-000 track's options.
SEED000: MappingProxyType[str, Any] = MappingProxyType(
    {"check": "save", "on_damage": "max", "wounded_rule": False, "hero_effect": "revive"}
)
#: The published PF2e dying rules, as options of the seed-000 track.
PF2E_CORE: MappingProxyType[str, Any] = MappingProxyType(
    {"check": "flat", "on_damage": "increment", "wounded_rule": True, "hero_effect": "stabilize"}
)
#: The options of each system on the seed-000 track (seed 001 has none: it is another track).
DYING_OPTIONS: MappingProxyType[str, MappingProxyType[str, Any]] = MappingProxyType(
    {"seed000": SEED000, "pf2e-core": PF2E_CORE, "seed001": MappingProxyType({})}
)
#: The dying systems, in the order they are offered.
SYSTEMS: tuple[str, ...] = tuple(DYING_OPTIONS)


def options(system: str) -> dict[str, Any]:
    """The seed-000-track options of ``system`` (a new dict; empty for ``seed001``)."""
    try:
        return dict(DYING_OPTIONS[system])
    except KeyError:
        raise ValueError(
            f"rules must be one of {', '.join(SYSTEMS)}, got {system!r}"
        ) from None
