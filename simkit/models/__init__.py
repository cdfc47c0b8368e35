"""The registry of models: name -> rules class.

A new model is one module defining a :class:`~simkit.models.base.Rules` subclass,
plus one line in ``_MODULES`` below.
"""

from __future__ import annotations

from importlib import import_module

from ..params import ParamError
from .base import Rules
from .dying import Dying

__all__ = ["Rules", "Dying", "REGISTRY", "get_model", "make_model"]

# (module, class) of every registered model, in listing order.
_MODULES = [
    ("dying", "Dying"),
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
    """Build model ``name`` from a preset (optional) and keyword parameters."""
    from .presets import preset_params

    cls = get_model(name)
    base = preset_params(name, preset) if preset else {}
    return cls.from_params(**{**base, **params})
