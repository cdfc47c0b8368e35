"""The registry of models: name -> rules class.

A new model is one module defining a :class:`~simkit.core.model.Rules` subclass,
plus one line in ``_MODULES`` below.
"""

from __future__ import annotations

from importlib import import_module

from simkit.core.params import ParamError
from simkit.core.model import Rules
from simkit.models.dying import Dying

__all__ = ["Rules", "Dying", "REGISTRY", "get_model", "make_model"]

# (module, class) of every registered model, in listing order.
_MODULES = [
    ("dying", "Dying"),
    ("perseverance", "Perseverance"),
    ("recovery", "Recovery"),
    ("agony", "Agony"),
    ("fatigue", "Fatigue"),
    ("fall", "Fall"),
    ("fall", "FallDying"),
    ("fall", "FallPerseverance"),
    ("encounter", "Encounter"),
    ("dnd", "DnD5e"),
    ("dnd", "DnD4e"),
]

REGISTRY: dict[str, type[Rules]] = {}
for _mod, _cls in _MODULES:
    _c = getattr(import_module(f".{_mod}", __name__), _cls)
    REGISTRY[_c.name] = _c


def get_model(name: str) -> type[Rules]:
    """The rules class registered as ``name``."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ParamError(f"unknown model {name!r}; known models: {', '.join(REGISTRY)}") from None


def make_model(name: str, preset: str | None = None, **params) -> Rules:
    """Build model ``name`` from a preset (optional) and keyword parameters.

    ``days_without_sleep``, ``days_without_food`` and ``days_without_water`` are
    accepted by every model with a ``check_penalty`` and added to it
    (:func:`simkit.rules.penalties.apply_fatigue`).
    """
    from simkit.rules.penalties import apply_fatigue
    from simkit.models.presets import preset_params

    cls = get_model(name)
    base = preset_params(name, preset) if preset else {}
    # days_without_sleep/food/water -> check_penalty (seed 004, R4-01..R4-03)
    return cls.from_params(**apply_fatigue(cls, {**base, **params}))
