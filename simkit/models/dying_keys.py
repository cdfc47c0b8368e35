"""``dying.KEY`` keys: the readings of a fight's rule at 0 HP by name (issue 31 item 1).

A model with a ``dying`` parameter (``party``, ``day``: the PCs' rule at 0 HP,
:mod:`simkit.models.downed_rule`) takes keys ``dying.KEY`` wherever it takes its
parameters: ``--set dying.check=flat`` on the command line, in a config file's ``[set]``,
``make_model("party", **{"dying.check": "flat"})``, ``simkit.as_rules(party,
**{"dying.death_at": 5})``, a sweep's fixed values. What a key sets depends on the rule:

- **the rules set's own track** (``dying`` none: seed 000's dying track, or PF2e's with
  ``rules=pf2e-core``): ``KEY`` is one of :data:`TRACK_KEYS`, the readings of the
  ``dying`` model that a fight's track plays: ``dying.check=flat`` (A0-4),
  ``dying.on_damage=increment`` (A0-1), ``dying.wounded_rule=true`` (A0-2),
  ``dying.hero_effect=stabilize`` (R0-10), ``dying.death_at=5`` (R0-04),
  ``dying.hero_policy``, ``dying.hero_points``, ``dying.hero_knockout``,
  ``dying.wounded_adds``, ``dying.monster_dc``. Each is the party's parameter of the same
  name (``dying.check=flat`` is ``check=flat``); ``check``, ``on_damage``,
  ``wounded_rule`` and ``hero_effect`` are none by default: the rules set's
  (:data:`simkit.rules.dying_systems.DYING_OPTIONS`), and the fight's ``dying_options``
  with those given in their place.
- **a custom track** (``dying=dnd5e``): ``KEY`` is a parameter of the track, merged into
  its spec (``dying=dnd5e`` with ``dying.bonus=2`` is ``dying=dnd5e(bonus=2)``; for a
  track object, ``track.replace(bonus=2)``).

Any other key is a one-line :class:`~simkit.core.params.ParamError` naming the allowed ones.
:func:`fold` turns the keys into parameters (called by
:func:`simkit.models.derive_params` and :func:`simkit.models.keys.resolve_point`).
"""

from __future__ import annotations

from typing import Any

from simkit.core.params import ParamError, check_value, parse_value, spec

__all__ = ["PREFIX", "TRACK_KEYS", "OPTION_KEYS", "fold", "has_keys", "is_key"]

PREFIX = "dying."

#: The readings of the rules set's own track that ``dying.KEY`` sets (the ``dying``
#: model's parameters of those names; each a parameter of the party).
TRACK_KEYS = (
    "check",
    "on_damage",
    "wounded_rule",
    "hero_effect",
    "death_at",
    "hero_points",
    "hero_policy",
    "hero_knockout",
    "wounded_adds",
    "monster_dc",
)
#: The ones a rules set chooses (:data:`simkit.rules.dying_systems.DYING_OPTIONS`): none
#: by default on the party, the rules set's.
OPTION_KEYS = ("check", "on_damage", "wounded_rule", "hero_effect")


def has_keys(model_cls) -> bool:
    """Whether ``model_cls`` takes ``dying.KEY`` keys (it has a ``dying`` rule at 0 HP)."""
    meta = spec(model_cls).get("dying")
    return meta is not None and meta["kind"] == "downed_rule"


def is_key(model_cls, key) -> bool:
    """Whether ``key`` is a ``dying.KEY`` key of ``model_cls`` (its name is checked by
    :func:`fold`)."""
    return isinstance(key, str) and key.startswith(PREFIX) and has_keys(model_cls)


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _value(name: str, meta: dict, value):
    return (
        parse_value(name, meta, value) if isinstance(value, str) else check_value(name, meta, value)
    )


def fold(model_cls, values: dict, base=None) -> dict:
    """``values`` with its ``dying.KEY`` keys turned into the parameters they set (see the
    module docs); the rule at 0 HP is ``values["dying"]``, else ``base.dying`` (rules the
    values apply to), else the model's default. The same dict when there are none."""
    dotted = {k: v for k, v in values.items() if isinstance(k, str) and k.startswith(PREFIX)}
    if not dotted:
        return values
    name = getattr(model_cls, "name", model_cls.__name__)
    if not has_keys(model_cls):
        raise ParamError(
            f"{next(iter(dotted))}: model {name!r} has no rule at 0 HP to set (dying.KEY keys "
            "are for party and day)"
        )
    out = {k: v for k, v in values.items() if k not in dotted}
    known = spec(model_cls)
    if "dying" in out:
        rule = out["dying"]
    elif base is not None:
        rule = getattr(base, "dying", None)
    else:
        rule = known["dying"]["default"]
    subs = {k[len(PREFIX) :]: v for k, v in dotted.items()}
    if rule is None:
        allowed = [k for k in TRACK_KEYS if k in known]
        for k, v in subs.items():
            if k not in allowed:
                raise ParamError(
                    f"dying.{k}: not a reading of the fight's dying track; allowed: "
                    + ", ".join(f"dying.{a}" for a in allowed)
                    + " (or a custom track's parameters, with dying=NAME)"
                )
            v = _value(f"dying.{k}", known[k], v)
            if k in out and out[k] != v:
                raise ParamError(f"dying.{k}={_text(v)} and {k}={_text(out[k])}: give one")
            out[k] = v
        return out
    out["dying"] = _on_track(rule, subs)
    return out


def _on_track(rule: Any, subs: dict):
    """A custom track ``rule`` (its spec text or the track) with parameters ``subs`` set."""
    from simkit.core.params import shown
    from simkit.models.downed_rule import canonical, spec_parts

    if isinstance(rule, str):
        track, given = spec_parts(rule)
        merged = {**given, **{k: _text(v) for k, v in subs.items()}}
        inner = ";".join(f"{k}={v}" for k, v in merged.items())
        text = f"{track}({inner})" if inner else track
        try:
            return canonical(text)
        except ValueError as exc:  # (a ParamError too: an unknown parameter, a bad value)
            raise ParamError(f"dying.{next(iter(subs))}: {exc}") from None
    fields = spec(type(rule))
    tname = getattr(rule, "name", type(rule).__name__)
    changes = {}
    for k, v in subs.items():
        if k not in fields:
            raise ParamError(
                f"dying.{k}: the track {tname} has no parameter {k!r}; it has "
                f"{', '.join(fields) or 'none'}"
            )
        changes[k] = _value(f"dying.{k}", fields[k], v)
    try:
        return rule.replace(**changes)
    except (ParamError, TypeError) as exc:
        raise ParamError(f"dying.{next(iter(subs))} on {shown(rule)}: {exc}") from None
