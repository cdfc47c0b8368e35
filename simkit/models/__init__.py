"""The registry of models: name -> rules class.

A new model is one module defining a :class:`~simkit.core.model.Rules` subclass,
plus one line in ``_MODULES`` below.
"""

from __future__ import annotations

from importlib import import_module

from simkit.core.model import Rules
from simkit.core.names import unknown
from simkit.core.params import ParamError, document
from simkit.models.dying import Dying

__all__ = ["Rules", "Dying", "REGISTRY", "get_model", "make_model", "register"]

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
    ("party", "Party"),
    ("day", "Day"),
    ("dnd", "DnD5e"),
    ("dnd", "DnD4e"),
]

REGISTRY: dict[str, type[Rules]] = {}


def register(cls: type[Rules]) -> type[Rules]:
    """Add a model class to the registry under ``cls.name`` (usable as a decorator).

    A registered model gets the CLI (``simkit run NAME``, ``exact``, ``sweep``,
    ``calibrate``...), sweeps, calibration and, with ``has_exact``, the exact solver.
    A name already taken by another class is refused.
    """
    if not (isinstance(cls, type) and issubclass(cls, Rules)) or not cls.name:
        raise ParamError(f"register: {cls!r} is not a Rules subclass with a name")
    if REGISTRY.get(cls.name, cls) is not cls:
        raise ParamError(
            f"register: the model name {cls.name!r} is already taken by "
            f"{REGISTRY[cls.name].__qualname__}"
        )
    REGISTRY[cls.name] = cls
    document(cls)  # help(Model) lists every parameter: meaning, default, range, rule id
    return cls


for _mod, _cls in _MODULES:
    register(getattr(import_module(f".{_mod}", __name__), _cls))


def get_model(name: str) -> type[Rules]:
    """The rules class registered as ``name``."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ParamError(unknown("model", name, REGISTRY)) from None


def make_model(name: str, preset: str | None = None, **params) -> Rules:
    """Build model ``name`` from a preset (optional) and keyword parameters.

    ``days_without_sleep``, ``days_without_food`` and ``days_without_water`` are
    accepted by every model with a ``check_penalty`` and added to it
    (:func:`simkit.rules.penalties.apply_fatigue`).
    """
    from simkit.models.presets import preset_params
    from simkit.rules.penalties import apply_fatigue

    cls = get_model(name)
    base = preset_params(name, preset) if preset else {}
    # days_without_sleep/food/water -> check_penalty (seed 004, R4-01..R4-03)
    return cls.from_params(**apply_fatigue(cls, {**base, **params}))
