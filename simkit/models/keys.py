"""Sweep keys: grid keys that are not model parameters, and the parameters they derive.

A grid key (:mod:`simkit.analysis.grid`) is either a model parameter or a **sweep key**
(:data:`SWEEP_KEYS`), not a parameter of the model, from which model parameters are
*derived* with the numbers of :mod:`simkit.rules.pf2e.levels`:

``level`` (a PC's level, 1..20)
    sets, among ``save_bonus`` (Fortitude save, :func:`~simkit.rules.pf2e.levels.fortitude_save`),
    ``hp_max`` (:func:`~simkit.rules.pf2e.levels.pc_hp`), ``pp_max`` and ``pp`` (full
    perseverance points, :func:`~simkit.rules.pf2e.levels.pp_max`), those the model has;
    and, for a model with a ``monster_level`` (``dying``), ``monster_level = level``: the
    recovery DC of a creature of that level (R0-06), unless ``dc``, ``monster_level`` or
    ``level_diff`` is given (:func:`level_sets_dc`).
``level_diff`` (monster level - PC level, -24..24)
    sets ``monster_level = level + level_diff`` (needs ``level``).
``monster_level`` (0..24), for a model that has ``dc`` but no ``monster_level``
    sets ``dc`` to the high DC for a monster of that level (R0-06).
``days_without_sleep``, ``days_without_food``, ``days_without_water``
    add the fatigue and hunger check penalty to ``check_penalty`` (R4-01..R4-03, A4-2).
``pc_fort``, ``pc_con``, ``pc_con_boosts``, ``pc_items``, ``pc_ancestry_hp``,
``pc_class_hp``, ``pc_key``
    the character those numbers describe (defaults: a fighter with Con +2 taking
    every Con boost, resilient runes, human 8 + fighter 10 HP, key ability +4).

A sweep key is used only when the model does not have a parameter of that name (the
``recovery`` model's own ``level`` stays its own). A parameter given explicitly, on
the grid or as a fixed value, wins over a derived one (:func:`resolve_point`).

:class:`ModelKeys` (:func:`model_keys`) holds a model's declarations once: its
parameters and the sweep keys that mean something for it, each key's metadata, and
the checks of a value and of a name (an unknown one with its near name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from simkit.core.names import suggest
from simkit.core.params import ParamError, allowed, check_value, param_meta, parse_value, spec
from simkit.rules.pf2e import levels

__all__ = [
    "PC_OPTIONS",
    "SWEEP_KEYS",
    "ModelKeys",
    "SweepKey",
    "DC_GIVERS",
    "check_key",
    "level_sets_dc",
    "describe_keys",
    "model_keys",
    "parse_key",
    "resolve_point",
    "sweep_keys_for",
]


def _meta(default, kind, help, lo=None, hi=None, choices=(), optional=False):
    """A sweep key's declaration: :func:`simkit.core.params.param_meta` and its default."""
    return dict(
        default=default,
        **param_meta(kind=kind, help=help, lo=lo, hi=hi, choices=choices, optional=optional),
    )


@dataclass(frozen=True)
class SweepKey:
    """A grid key that is not a model parameter but sets some (see module docs)."""

    name: str
    meta: dict
    #: model parameters (or later sweep keys) it can set
    sets: tuple[str, ...] = ()
    #: point values -> {target: value}, for every target in ``sets``
    derive: Callable[[dict], dict] | None = None
    #: other keys it reads; an option has no ``sets``
    needs: tuple[str, ...] = ()
    #: its value combines with an explicit value of the target instead of yielding to it
    adds: bool = False


def _pc(values: dict) -> dict:
    opt = {k: values.get(k, SWEEP_KEYS[k].meta["default"]) for k in PC_OPTIONS}
    return opt


#: What makes the recovery DC explicit, so that ``level`` leaves it alone (:func:`level_sets_dc`).
DC_GIVERS = ("dc", "monster_level", "level_diff")


def level_sets_dc(values) -> bool:
    """Whether ``level`` sets the recovery DC (``monster_level = level``, R0-06) for a model
    with a ``monster_level``: when none of :data:`DC_GIVERS` is given (issue 31)."""
    return not any(k in values for k in DC_GIVERS)


def _derive_level(values: dict) -> dict:
    lvl = values["level"]
    o = _pc(values)
    try:
        save = levels.fortitude_save(
            lvl, o["pc_fort"], o["pc_con"], o["pc_items"], o["pc_con_boosts"]
        )
    except ValueError as exc:
        raise ParamError(str(exc)) from None
    pp = levels.pp_max(lvl, o["pc_key"])
    dc = {"monster_level": lvl} if level_sets_dc(values) else {}
    tough = lvl if values.get("toughness") is True else 0  # P-13: Toughness adds the level
    return {
        "save_bonus": save,
        "hp_max": levels.pc_hp(
            lvl, o["pc_ancestry_hp"], o["pc_class_hp"], o["pc_con"], o["pc_con_boosts"]
        )
        + tough,
        "pp_max": pp,
        "pp": pp,
        **dc,
    }


def _derive_level_diff(values: dict) -> dict:
    if "level" not in values:
        raise ParamError("level_diff needs level: give level on the grid or as a fixed value")
    return {"monster_level": values["level"] + values["level_diff"]}


def _derive_monster_level(values: dict) -> dict:
    try:
        return {"dc": levels.monster_high_dc(values["monster_level"])}
    except ValueError as exc:
        raise ParamError(str(exc)) from None


def _derive_fatigue(values: dict) -> dict:
    """days_without_* -> check_penalty (R4-01..R4-03), added to a check_penalty given."""
    from simkit.rules.penalties import FATIGUE_KEYS, penalty

    days = {k: values[k] for k in FATIGUE_KEYS if k in values}
    p = penalty(
        days.get("days_without_sleep", 0),
        days.get("days_without_food", 0),
        days.get("days_without_water"),
    )
    total = values.get("check_penalty", 0) + p
    if total < -50:
        given = ", ".join(f"{k}={v}" for k, v in days.items())
        raise ParamError(
            f"{given} give a check penalty of {total}; the allowed total is at least -50"
        )
    return {"check_penalty": total}


def _fatigue_key(name: str, help: str) -> SweepKey:
    return SweepKey(
        name,
        _meta(None, "int", help, 0, 100),
        sets=("check_penalty",),
        derive=_derive_fatigue,
        adds=True,
    )


PC_OPTIONS = (
    "pc_fort",
    "pc_con",
    "pc_con_boosts",
    "pc_items",
    "pc_ancestry_hp",
    "pc_class_hp",
    "pc_key",
)

#: Sweep keys, in the order they are derived.
SWEEP_KEYS: dict[str, SweepKey] = {
    k.name: k
    for k in (
        SweepKey(
            "level",
            _meta(
                None,
                "int",
                "PC level: sets save_bonus, hp_max, pp_max, pp; and monster_level (the "
                "recovery DC of a creature of that level) unless dc is given",
                1,
                20,
            ),
            sets=("monster_level", "save_bonus", "hp_max", "pp_max", "pp"),
            derive=_derive_level,
            needs=PC_OPTIONS,
        ),
        SweepKey(
            "level_diff",
            _meta(None, "int", "monster level - PC level: sets monster_level", -24, 24),
            sets=("monster_level",),
            derive=_derive_level_diff,
            needs=("level",),
        ),
        SweepKey(
            "monster_level",
            _meta(None, "int", "monster level: sets dc to its high DC (R0-06)", 0, 24),
            sets=("dc",),
            derive=_derive_monster_level,
        ),
        _fatigue_key("days_without_sleep", "days without sleep: sets check_penalty (R4-01, R4-03)"),
        _fatigue_key(
            "days_without_food", "days without food (and water): sets check_penalty (R4-02)"
        ),
        _fatigue_key("days_without_water", "separate counters: days without water (A4-2)"),
        SweepKey(
            "pc_fort",
            _meta(
                "fighter",
                "schedule",
                "Fortitude rank schedule: fighter, barbarian, wizard or 'trained@1,expert@9'",
            ),
        ),
        SweepKey("pc_con", _meta(2, "int", "PC Constitution modifier at level 1", -5, 10)),
        SweepKey(
            "pc_con_boosts",
            _meta(True, "bool", "Constitution takes the boosts of levels 5/10/15/20"),
        ),
        SweepKey(
            "pc_items",
            _meta(
                "runes",
                "choice",
                "item bonus to saves: resilient runes (+1/8, +2/14, +3/20)",
                choices=tuple(levels.ITEM_SCHEDULES),
            ),
        ),
        SweepKey("pc_ancestry_hp", _meta(8, "int", "ancestry HP", 0, 100)),
        SweepKey("pc_class_hp", _meta(10, "int", "class HP per level", 0, 100)),
        SweepKey("pc_key", _meta(4, "int", "key ability modifier (PP max)", -5, 10)),
    )
}


def sweep_keys_for(model_cls) -> dict[str, SweepKey]:
    """The sweep keys that mean something for ``model_cls`` (in derivation order)."""
    params = spec(model_cls)
    out: dict[str, SweepKey] = {}
    reachable = set(params)
    # derivers in reverse order: a key is useful if one of its targets is reachable
    for name in reversed(list(SWEEP_KEYS)):
        k = SWEEP_KEYS[name]
        if k.derive is None or name in params:
            continue
        if any(t in reachable for t in k.sets):
            out[name] = k
            reachable.add(name)
    options = {
        n for k in out.values() for n in k.needs if n in SWEEP_KEYS and SWEEP_KEYS[n].derive is None
    }
    ordered = {n: SWEEP_KEYS[n] for n in SWEEP_KEYS if n in out or n in options}
    return ordered


def check_key(name: str, meta: dict, value):
    """``value`` checked for key ``name`` (``meta``: its metadata): a sweep key's
    Fortitude schedule, else :func:`~simkit.core.params.check_value`."""
    if meta["kind"] == "schedule":
        try:
            levels.parse_schedule(value)
        except (ValueError, TypeError) as exc:
            raise ParamError(f"{name}={value!r} is not allowed: {exc}") from None
        return value
    return check_value(name, meta, value)


def parse_key(name: str, meta: dict, text: str):
    """The value written ``text`` for key ``name`` (as :func:`check_key`; numbers by
    :func:`~simkit.core.params.parse_value`)."""
    if meta["kind"] == "schedule":
        return check_key(name, meta, text.strip())
    return parse_value(name, meta, text)


@dataclass(frozen=True)
class ModelKeys:
    """A model's declarations, taken once for a grid: its parameters' metadata
    (``params``, :func:`~simkit.core.params.spec`), the sweep keys that mean something for
    it (``sweep_keys``, :func:`sweep_keys_for`) and every key's metadata (``known``:
    parameters first)."""

    model: Any  # the rules class
    params: dict
    sweep_keys: dict
    known: dict

    def check(self, name: str, value):
        """``value`` checked for key ``name`` (:func:`check_key`)."""
        return check_key(name, self.known[name], value)

    def parse(self, name: str, text: str):
        """The value written ``text`` for key ``name`` (:func:`parse_key`)."""
        return parse_key(name, self.known[name], text)

    def unknown(self, key, where: str) -> ParamError:
        """The one-line error for a key the model does not know: the near name meant, the
        parameters and the sweep keys."""
        params = ", ".join(self.params)
        extra = ", ".join(self.sweep_keys)
        more = f"; sweep keys: {extra}" if extra else ""
        return ParamError(
            f"{where} {key}: unknown key for model {self.model.name!r}"
            f"{suggest(key, self.known)}; parameters: {params}{more}"
        )


@lru_cache(maxsize=256)
def model_keys(model_cls) -> ModelKeys:
    """The :class:`ModelKeys` of ``model_cls`` (built once per class)."""
    params = spec(model_cls)
    keys = sweep_keys_for(model_cls)
    known = dict(params)
    for name, k in keys.items():
        known[name] = k.meta
    from simkit.models.dying_keys import PREFIX, TRACK_KEYS, has_keys

    if has_keys(model_cls):  # dying.check...: the party's own (a grid may sweep them)
        for name in TRACK_KEYS:
            if name in params:
                known[PREFIX + name] = params[name]
    return ModelKeys(model_cls, params, keys, known)


def resolve_point(model_cls, values: dict, _cache: tuple | None = None) -> tuple[dict, dict]:
    """Model parameters of one point, and the values derived from sweep keys.

    ``values`` holds the point's grid values and the fixed values. Returns
    ``(params, derived)``: ``params`` are keyword arguments for ``model_cls``;
    ``derived`` the parameters set by sweep keys (explicit values win).
    """
    if _cache is None:
        mk = model_keys(model_cls)
        params_spec, keys = mk.params, mk.sweep_keys
    else:  # (parameters' metadata, sweep keys), as :func:`simkit.analysis.sweep.plan_sweep` keeps
        params_spec, keys = _cache
    from simkit.models.dying_keys import fold

    values = dict(fold(model_cls, values))  # dying.KEY keys (party, day)
    if "level_diff" in values and "level" not in values and "level" in params_spec:
        values["level"] = params_spec["level"]["default"]  # the model's own level (encounter)
    derived: dict = {}
    applied = set()  # derive functions already run (the days_without_* keys share one)
    for name, k in keys.items():
        if k.derive is None or name not in values or k.derive in applied:
            continue
        applied.add(k.derive)
        for target, v in k.derive(values).items():
            if target in values and not k.adds:
                continue  # given explicitly (or derived earlier): it wins
            if target in params_spec:
                values[target] = v
                derived[target] = v
            elif target in keys:
                meta = keys[target].meta
                values[target] = check_key(target, meta, v)
    params = {k: v for k, v in values.items() if k in params_spec}
    for target in list(derived):
        derived[target] = params[target]
    return params, derived


def describe_keys(model_cls) -> list[dict]:
    """Rows describing the sweep keys available for ``model_cls``."""
    rows = []
    for name, k in sweep_keys_for(model_cls).items():
        m = k.meta
        text = "a Fortitude schedule" if m["kind"] == "schedule" else allowed(m)
        rows.append(dict(name=name, default=m["default"], allowed=text, help=m["help"]))
    return rows
