"""Named rule variants ("presets"): parameter overrides of a model.

- ``seed`` (every model): the seed document as written, i.e. the defaults.
- ``pf2e-core`` (``dying``): Pathfinder 2e as published: flat recovery check DC 10 +
  dying (A0-4), damage while dying increments it (A0-1), the wounded rule on (A0-2),
  and the hero-point rescue spends all hero points to stabilise at 0 HP.
- ``pf2e-core`` (``encounter``): the same four overrides for the encounter's seed-000
  dying track.
"""

from __future__ import annotations

from simkit.core.params import ParamError

__all__ = ["PRESETS", "preset_params"]

PRESETS: dict[str, dict[str, dict]] = {
    "dying": {
        "seed": {},
        "pf2e-core": {
            "check": "flat",
            "on_damage": "increment",
            "wounded_rule": True,
            "hero_effect": "stabilize",
        },
    },
    "encounter": {
        "seed": {},
        "pf2e-core": {
            "check": "flat",
            "on_damage": "increment",
            "wounded_rule": True,
            "hero_effect": "stabilize",
        },
    },
}


def preset_params(model: str, preset: str) -> dict:
    """Overrides of ``preset`` for ``model``."""
    table = PRESETS.get(model, {"seed": {}})
    if preset not in table:
        raise ParamError(f"unknown preset {preset!r} for model {model!r}; known: {', '.join(table)}")
    return dict(table[preset])
