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

__all__ = [
    "Rules",
    "Dying",
    "REGISTRY",
    "as_rules",
    "derive_params",
    "get_model",
    "make_model",
    "register",
]

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

    Besides the model's parameters, every key the command line's ``--set`` derives
    parameters from works here, with the same derived values (:func:`derive_params`):
    ``level`` (the character's level: ``make_model("dying", level=3)`` sets its
    Fortitude save and HP as ``--set level=3`` does), ``level_diff``, ``monster_level``,
    the ``pc_*`` keys, and ``days_without_sleep``, ``days_without_food`` and
    ``days_without_water`` (added to ``check_penalty`` by every model that has one:
    :func:`simkit.rules.penalties.apply_fatigue`). A value given explicitly wins over a
    derived one.
    """
    from simkit.models.presets import preset_params
    from simkit.rules.penalties import apply_fatigue

    cls = get_model(name)
    base = preset_params(name, preset) if preset else {}
    values, _ = derive_params(cls, {**base, **params})
    # days_without_sleep/food/water -> check_penalty (seed 004, R4-01..R4-03)
    return cls.from_params(**apply_fatigue(cls, values))


def as_rules(model, **params) -> Rules:
    """A model's rules from anything that names one, with ``params`` applied.

    ``model``: rules (``simkit.Dying()``), a rules class (its defaults), a registered
    name (``"dying"``) or a parameter dict naming its model (``{"model": "day",
    "preset": None, "fight": "severe", "level": 3}``, the layout of a sweep file's
    values). ``params`` (and the dict's other keys) are parameters or keys that derive
    some (``level=5``: :func:`derive_params`), applied as :func:`make_model` applies them
    (to rules: ``rules.replace``). Anything else is a one-line :class:`ParamError`.
    """
    from simkit.core.params import shown

    if isinstance(model, dict):
        d = dict(model)
        name = d.pop("model", None)
        if not isinstance(name, str):
            raise ParamError(
                f"a parameter dict names its model: {{'model': 'dying', ...}}; got {shown(model)}"
            )
        preset = d.pop("preset", None)
        return make_model(name, preset, **{**d, **params})
    if isinstance(model, str):
        return make_model(model, **params)
    if isinstance(model, type) and issubclass(model, Rules):
        model = model()
    if not isinstance(model, Rules):
        raise ParamError(
            "model must be a model's rules (e.g. simkit.Dying()), a rules class, a model name "
            f"(simkit.REGISTRY) or a parameter dict ({{'model': 'dying', 'level': 3}}); got "
            f"{shown(model)}"
        )
    if not params:
        return model
    from simkit.rules.penalties import FATIGUE_KEYS, apply_fatigue

    values, _ = derive_params(type(model), params, base=model)
    if any(k in values for k in FATIGUE_KEYS) and "check_penalty" not in values:
        values["check_penalty"] = getattr(model, "check_penalty", 0)  # the penalty adds to it
    return model.replace(**apply_fatigue(type(model), values))


def derive_params(model_cls, values: dict, base=None) -> tuple[dict, dict]:
    """``values`` with the keys that are not parameters of ``model_cls`` but set some
    (``level``, ``level_diff``, ``monster_level``, ``pc_*``: :mod:`simkit.models.keys`)
    turned into the parameters they set; ``days_without_*`` are kept (for
    :func:`simkit.rules.penalties.apply_fatigue`). Returns ``(values, derived)``,
    ``derived`` the parameters set from the keys (explicit values win). A key's value is
    checked (range, kind) with a message naming it. ``dying.KEY`` keys (``party``, ``day``)
    become the parameters they set (:func:`simkit.models.dying_keys.fold`; ``base``: the
    rules they apply to, whose ``dying`` they read when ``values`` has none).
    """
    from simkit.core.params import spec
    from simkit.models.dying_keys import fold
    from simkit.models.keys import check_key, resolve_point, sweep_keys_for
    from simkit.rules.penalties import FATIGUE_KEYS

    values = fold(model_cls, values, base)

    lk = {k: v for k, v in sweep_keys_for(model_cls).items() if k not in FATIGUE_KEYS}
    keys = {k: check_key(k, lk[k].meta, v) for k, v in values.items() if k in lk}
    if not keys:
        return dict(values), {}
    known = spec(model_cls)
    plain = {k: v for k, v in values.items() if k not in lk}
    given = {k: v for k, v in plain.items() if k in known}
    _, derived = resolve_point(model_cls, {**given, **keys})
    return {**plain, **derived}, derived
