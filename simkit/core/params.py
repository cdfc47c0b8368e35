"""Declared parameters: one place for defaults, ranges, choices, units and rule ids.

A model's rules are a frozen dataclass whose fields are made with :func:`param`. The
field metadata drives validation (``__post_init__`` of :class:`~simkit.core.model.Rules`),
parsing of ``--set KEY=VALUE`` strings, the ``simkit models`` listing, and sweeps.

Kinds: ``int``, ``float``, ``bool``, ``choice`` (a string from ``choices``), ``dice``
(a string like ``"2d6+3"``), ``policy`` (a choice or an integer), ``heights`` (fall
heights in metres: ``"9"``, ``"6,8,10"`` or ``"uniform:2-12"``, see
:mod:`simkit.rules.heights`), ``schedule`` (a day-by-day string of ``1``/``0``, day 1 first,
e.g. ``"0001"``). Any kind may be ``optional`` (``None`` allowed, written ``none`` on
the command line); where ``none`` is one of a parameter's ``choices`` (``map=none``), the
text ``none`` is that choice.

Numbers written as text (``--set``, TOML strings) follow one grammar,
:mod:`simkit.core.numbers`: ASCII digits, no underscores.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from collections.abc import Callable
from typing import Any

from simkit.core.names import suggest, unknown
from simkit.core.numbers import ascii_int, ascii_number

__all__ = [
    "param",
    "param_meta",
    "same_as",
    "seed_params",
    "ParamError",
    "spec",
    "parse_value",
    "check_value",
    "describe",
    "register_kind",
    "take_declarations",
    "shown",
]


#: Longest day-by-day schedule (``schedule`` kind), in days.
_MAX_SCHEDULE = 3650


class ParamError(ValueError):
    """A bad parameter value; the message names the parameter and what is allowed."""


#: Kinds whose values are strings parsed by a rule module (``dice``, ``heights``):
#: kind -> (normalise(value) -> canonical string, raising ValueError; allowed text;
#: whether the parser's own message is shown). Registered by :func:`register_kind` so
#: that this core module never imports the rules layer.
_STRING_KINDS: dict[str, tuple[Callable[[Any], str], str, bool]] = {}


def register_kind(
    kind: str, normalise: Callable[[Any], str], text: str, *, show_reason: bool = False
) -> None:
    """Declare a string-valued parameter kind (called by the rules module that owns it)."""
    _STRING_KINDS[kind] = (normalise, text, show_reason)
    _NORMALISED.clear()


def param_meta(
    *,
    kind: str,
    help: str,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] = (),
    optional: bool = False,
    unit: str = "",
    rule: str = "",
    seed_neutral: bool = False,
) -> dict:
    """A parameter's declaration (kind, range, choices, unit, rule id, help) as a dict: the
    metadata of :func:`param`, and of keys that are not fields (sweep keys).

    ``seed_neutral``: at its default the parameter is left out of a sweep point's seed
    (:func:`seed_params`), so that an option added to a model later leaves the numbers of
    the sweeps made before it as they were.
    """
    extra = {"seed_neutral": True} if seed_neutral else {}
    return dict(
        **extra,
        kind=kind,
        help=help,
        lo=lo,
        hi=hi,
        choices=tuple(choices),
        optional=optional,
        unit=unit,
        rule=rule,
    )


def seed_params(model) -> dict[str, Any]:
    """The parameters a sweep point's seed is made of: every declared parameter of
    ``model`` but those declared ``seed_neutral`` that are at their default."""
    out = {}
    for k, meta in spec(type(model)).items():
        v = getattr(model, k)
        if meta.get("seed_neutral") and v == meta["default"]:
            continue
        out[k] = v
    return out


def param(default: Any, **declared):
    """A dataclass field carrying its own validation and documentation (the keywords of
    :func:`param_meta`)."""
    return dataclasses.field(default=default, metadata=param_meta(**declared))


def same_as(rules_cls, name: str, **changes):
    """A field declared like ``rules_cls``'s parameter ``name`` (for chains of models).

    Same metadata (kind, range, rule id, help); ``default=`` may be changed.
    """
    f = rules_cls.__dataclass_fields__.get(name)
    if f is None:
        raise TypeError(
            unknown("parameter", name, spec(rules_cls), where=f"of {rules_cls.__name__}")
        )
    return dataclasses.field(default=changes.get("default", f.default), metadata=f.metadata)


def take_declarations(cls: type) -> None:
    """Give ``cls`` the declared parameters its ``params_from`` names (before ``@dataclass``).

    A composite or chained model says which of its stages' parameters it takes::

        params_from: ClassVar = ((Perseverance, None), (Recovery, ("con", "healer")))
        param_defaults: ClassVar = {"height": "9"}

    ``None`` takes every declared parameter of that class. Each one is added as a field
    with the stage's own declaration (kind, range, rule id, help), so a parameter has one
    declaration wherever it appears; ``param_defaults`` may change a default. Fields the
    class declares itself, or inherits, are left alone. Called by ``Rules.__init_subclass__``,
    i.e. before the ``dataclass`` decorator reads the annotations.
    """
    sources = cls.__dict__.get("params_from")
    if not sources:
        return
    defaults = cls.__dict__.get("param_defaults", {})
    own = dict(cls.__dict__.get("__annotations__", {}))
    inherited = {f for klass in cls.__mro__[1:] for f in getattr(klass, "__dataclass_fields__", {})}
    taken: dict[str, str] = {}
    for source, names in sources:
        fields = source.__dataclass_fields__
        for name in names if names is not None else spec(source):
            if name in own or name in inherited or name in taken:
                continue
            f = fields[name]
            if "kind" not in f.metadata:
                raise TypeError(
                    f"{cls.__name__}: {source.__name__}.{name} is not a declared parameter"
                )
            default = defaults.get(name, f.default)
            setattr(cls, name, dataclasses.field(default=default, metadata=f.metadata))
            taken[name] = f.type if isinstance(f.type, str) else "object"
    extra = [k for k in defaults if k not in taken and k not in own]
    if extra:
        raise TypeError(
            f"{cls.__name__}.param_defaults: "
            + unknown("parameter", extra[0], taken, where="among the taken parameters")
        )
    # the stages' parameters first, in their order, then the class's own
    cls.__annotations__ = {**taken, **own}


def spec(rules_cls) -> dict[str, dict]:
    """Field name -> metadata (with ``default``), for every declared parameter.

    Read once per class (every rules object's validation asks for it, so a sweep of
    1,000 points would read the fields 1,000 times); the dict returned is the caller's
    own, the metadata dicts in it are shared and must not be changed.
    """
    fields = rules_cls.__dict__.get("__dataclass_fields__") if isinstance(rules_cls, type) else None
    hit = _SPECS.get(rules_cls) if fields is not None else None
    if hit is not None and hit[0] is fields:  # still the class's own fields (not re-decorated)
        return dict(hit[1])
    out = {}
    for f in dataclasses.fields(rules_cls):
        if "kind" in f.metadata:
            out[f.name] = dict(f.metadata, default=f.default)
    if fields is not None:
        _SPECS[rules_cls] = (fields, out)
        return dict(out)
    return out


#: :func:`spec` of each class, with the fields it was read from.
_SPECS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def allowed(meta: dict) -> str:
    """Human text of what a parameter accepts."""
    kind = meta["kind"]
    if kind == "choice":
        text = "one of " + ", ".join(meta["choices"])
    elif kind == "policy":
        text = (
            "one of "
            + ", ".join(meta["choices"])
            + f" or an integer in [{_fmt(meta['lo'])}, {_fmt(meta['hi'])}]"
        )
    elif kind == "bool":
        text = "true or false"
    elif kind in _STRING_KINDS:
        text = _STRING_KINDS[kind][1]
    elif kind == "schedule":
        text = "a string of 1 and 0 per day like '0001'"
    else:
        what = "an integer" if kind == "int" else "a number"
        text = f"{what} in [{_fmt(meta['lo'])}, {_fmt(meta['hi'])}]"
    if meta["optional"]:
        text += " or none"
    return text


def _fmt(x) -> str:
    if x is None:
        return "inf"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


#: Longest value shown in an error message; longer ones are abbreviated.
_SHOWN = 60


def shown(value: Any, limit: int = _SHOWN) -> str:
    """``repr(value)``, abbreviated in the middle past ``limit`` characters.

    Error lines stay short.
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    keep = max(8, (limit - 5) // 2)
    return f"{text[:keep]}...{text[-keep:]} ({len(text)} characters)"


#: Strings a string kind already accepted, normalised: (kind, text) -> canonical text (a
#: sweep builds its 1,000 points' rules with the same dice string; parsing it is pure).
_NORMALISED: dict[tuple[str, str], str] = {}


def check_value(name: str, meta: dict, value: Any) -> Any:
    """Validate (and normalise) one value; raise :class:`ParamError` naming ``name``."""
    kind = meta["kind"]
    # the common cases first, already normal (every rules object checks every field)
    t = type(value)
    if (t is int and kind in ("int", "policy")) or (t is float and kind == "float"):
        lo, hi = meta["lo"], meta["hi"]
        if (lo is None or value >= lo) and (hi is None or value <= hi):  # False for NaN
            if t is int or math.isfinite(value):
                return value
    elif t is bool and kind == "bool":
        return value
    elif t is str and kind == "choice" and value in meta["choices"]:
        return value

    given = value  # as the caller wrote it (the message shows it, not a conversion)

    def bad():
        return ParamError(
            f"{name}={shown(given)} is not allowed: {name} must be {allowed(meta)}"
            + _near(meta, given)
        )

    if value is None:
        if meta["optional"]:
            return None
        raise bad()
    if kind == "bool":
        if isinstance(value, (bool,)) or (isinstance(value, int) and value in (0, 1)):
            return bool(value)
        raise bad()
    if kind == "choice":
        if isinstance(value, str) and value in meta["choices"]:
            return value
        raise bad()
    if kind in _STRING_KINDS:
        known = _NORMALISED.get((kind, value)) if type(value) is str else None
        if known is not None:
            return known
        normalise, _, show_reason = _STRING_KINDS[kind]
        try:
            text = normalise(value)
        except (ValueError, TypeError) as exc:
            if show_reason:
                raise ParamError(f"{name}={shown(value)} is not allowed: {exc}") from None
            raise bad() from None
        if type(value) is str and len(value) <= _SHOWN:
            if len(_NORMALISED) >= 1024:
                _NORMALISED.clear()
            _NORMALISED[(kind, value)] = text
        return text
    if kind == "schedule":
        if (
            isinstance(value, str)
            and 1 <= len(value.strip()) <= _MAX_SCHEDULE
            and set(value.strip()) <= {"0", "1"}
        ):
            return value.strip()
        raise bad()
    if kind == "policy" and isinstance(value, str):
        if value in meta["choices"]:
            return value
        raise bad()
    if kind in ("int", "policy"):
        if isinstance(value, bool):
            raise bad()
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        elif hasattr(value, "__index__"):
            value = int(value.__index__())
        else:
            raise bad()
    elif kind == "float":
        if isinstance(value, (bool, bytes, bytearray)):
            raise bad()
        try:  # a string follows the one number grammar (float() takes '٠.٥', '0_5')
            value = ascii_number(value) if isinstance(value, str) else float(value)
        except (TypeError, ValueError, OverflowError):
            raise bad() from None
        if not math.isfinite(value):
            raise bad()
    lo, hi = meta["lo"], meta["hi"]
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise bad()
    return value


def _near(meta: dict, value: Any) -> str:
    """`` (did you mean 'x'?)`` for a string near one of a choice's (or policy's) choices."""
    if meta["kind"] in ("choice", "policy") and isinstance(value, str):
        return suggest(value.strip(), meta["choices"])
    return ""


def parse_value(name: str, meta: dict, text: str) -> Any:
    """Parse a command-line string for parameter ``name`` (then validate it)."""
    t = text.strip()
    kind = meta["kind"]
    if not t:
        raise ParamError(f"{name}= has no value: {name} must be {allowed(meta)}")
    if kind in ("choice", "policy") and t in meta["choices"]:
        return t  # a choice named "none" (map=none) is that choice, not None
    if t.lower() in ("none", "null"):
        if meta["optional"]:
            return None
        raise ParamError(f"{name}={shown(text)} is not allowed: {name} must be {allowed(meta)}")
    if kind in ("int", "float", "policy") and not t.isascii():  # no Unicode digits such as '１４'
        raise ParamError(
            f"{name}={shown(text)} is not allowed: {name} must be {allowed(meta)} (ASCII digits)"
        )
    try:
        if kind == "bool":
            low = t.lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            raise ValueError
        if kind in ("choice", "schedule") or kind in _STRING_KINDS:
            return check_value(name, meta, t)
        if kind in ("int", "policy"):  # ASCII digits only: no '8_0' (int() takes it)
            return check_value(name, meta, ascii_int(t))
        if kind == "float":
            return check_value(name, meta, ascii_number(t))
    except ParamError:
        raise
    except ValueError:
        pass
    raise ParamError(
        f"{name}={shown(text)} is not allowed: {name} must be {allowed(meta)}" + _near(meta, text)
    )


def numpydoc_parameters(rules_cls) -> str:
    """A numpydoc ``Parameters`` section generated from the declarations of ``rules_cls``:
    each parameter's kind, default, allowed values, unit, rule id and meaning."""
    lines = ["Parameters", "----------"]
    for name, meta in spec(rules_cls).items():
        kind = {
            "choice": "str",
            "policy": "str or int",
            "dice": "str",
            "heights": "str",
            "schedule": "str",
        }.get(meta["kind"], meta["kind"])
        default = "none" if meta["default"] is None else repr(meta["default"])
        lines.append(f"{name} : {kind}{' or None' if meta['optional'] else ''}, default {default}")
        text = meta["help"].rstrip(".")
        text = text[:1].upper() + text[1:] + "."
        extra = f" Allowed: {allowed(meta)}."
        if meta["unit"]:
            extra += f" Unit: {meta['unit']}."
        if meta["rule"]:
            extra += f" Rule {meta['rule']} (docs/rules.md)."
        lines.extend(_wrap("    ", text + extra))
    return "\n".join(lines)


def _wrap(indent: str, text: str, width: int = 88) -> list[str]:
    """Greedy word wrap (cheaper than textwrap at import time, for every model's docs)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(indent) + len(line) + 1 + len(word) > width:
            lines.append(indent + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(indent + line)
    return lines


def document(rules_cls) -> None:
    """Append the generated ``Parameters`` section (and outcomes) to the class docstring."""
    doc = (rules_cls.__doc__ or rules_cls.__name__).rstrip()
    if "\nParameters\n----------" in doc:
        return
    import inspect

    parts = [inspect.cleandoc(doc)]  # a summary over two lines stays one paragraph
    parts.append(numpydoc_parameters(rules_cls))
    outcomes = ", ".join(f"``{o}``" for o in (*rules_cls.outcomes, "unresolved"))
    parts.append(
        f"Notes\n-----\nOutcomes: {outcomes}. One step is one {rules_cls.time_unit.rstrip('s')}."
    )
    rules_cls.__doc__ = "\n\n".join(parts) + "\n"


def describe(rules_cls) -> list[dict]:
    """Rows describing each parameter: name, default, allowed, unit, rule, help."""
    rows = []
    for name, meta in spec(rules_cls).items():
        rows.append(
            dict(
                name=name,
                default="none" if meta["default"] is None else str(meta["default"]),
                allowed=allowed(meta),
                unit=meta["unit"],
                rule=meta["rule"],
                help=meta["help"],
            )
        )
    return rows
