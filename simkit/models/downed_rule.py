"""A designer's rule at 0 HP inside a fight (issue 31 item 1): a custom track as a PC's
rule while down.

A fight (``party``, the day's fights) plays its rules set's own track at 0 HP by default
(seed 000's dying 1-4, PF2e's, seed 001's agonising). ``Party(..., dying=...)`` replaces
it by any table-driven track of :mod:`simkit.models.custom`: a registered one by name
(``"dnd5e"``, ``"dnd5e(dc=12;bonus=2)"``; on the command line ``--set dying=dnd5e``), or a
track object (``DnD5e(bonus=2)``, a notebook's :func:`~simkit.models.custom.track`).

What a fight needs from the rule, declared by the track (:func:`fight_needs` names what is
missing, in one line):

- **the knock-out**: the PC enters the track at ``start()`` (R0-03's moment: 0 HP);
- **its turn**: one roll of the track's dice and ``transition(state, roll)`` at the PC's
  initiative slot (where a dying PC makes its recovery check), in the fight and in the care
  after it;
- **damage while down**: ``on_hit(state, crit)`` -> the new state or an outcome (R0-09's
  moment; ``crit`` True for a critical hit); a track without it cannot be in a fight;
- **what its outcomes mean**: each outcome is ``dead`` (R0-04's moment), ``stable`` (at
  0 HP, unconscious, no more rolls, R0-08's moment) or ``revived`` (back at 1 HP and
  conscious), by name, or through the track's ``fight_outcomes`` dict (outcome ->
  one of those three);
- **healing** ends the track (any heal that leaves the PC at 1 HP or more: conscious), and
  a successful first aid makes it ``stable``; both as for the built-in tracks.

The fight's own rules stay: R0-03's move in the initiative, massive damage (R0-13), the
death trait and nonlethal damage (R0-12, R0-02), the care after the fight. Hero points and
the wounded condition belong to the seed-000 track and do nothing under a custom one. The
track's faces must be equally likely (one ``1d20``, or a tuple of dice): the loop draws a
face as one uniform integer.

:func:`fight_table` is what the compiled loop reads (plain integer arrays, built by calling
the track's own ``start``/``transition``/``on_hit`` on every reachable state: the track's
Monte Carlo table of :mod:`simkit.models.custom` is not used, so the two are independent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from simkit.core.params import ParamError, register_kind

__all__ = [
    "EFFECTS",
    "FightTable",
    "canonical",
    "fight_needs",
    "fight_table",
    "pc_table",
    "pf2e_of",
    "pc_track",
    "pc_value",
    "resolve",
    "spec_parts",
    "table_at",
]

#: What an outcome does in a fight, by code: dead, stable, revived.
EFFECTS = ("dead", "stable", "revived")
#: Most reachable states of a track in a fight.
MAX_STATES = 4096

_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$")


def _parse(text: str) -> tuple[str, dict[str, str]]:
    """``"name(a=1;b=2)"`` -> ``("name", {"a": "1", "b": "2"})``."""
    m = _SPEC.match(text)
    if m is None:
        raise ValueError(f"{text!r} is not a track name like dnd5e or dnd5e(dc=12;bonus=2)")
    name, body = m.group(1), m.group(2)
    params: dict[str, str] = {}
    for part in re.split(r"[;,]", body or ""):
        if not part.strip():
            continue
        if "=" not in part:
            raise ValueError(f"{part.strip()!r} in {text!r} is not name=value")
        k, v = part.split("=", 1)
        params[k.strip()] = v.strip()
    return name, params


def _custom_names() -> list[str]:
    from simkit.models import REGISTRY
    from simkit.models.custom import CustomTrack

    return [n for n, cls in REGISTRY.items() if issubclass(cls, CustomTrack)]


def _normalise(value: Any):
    """A ``dying`` value as the rules keep it: a track object as is, a name as its canonical
    text (``name`` or ``name(a=1;b=2)``, parameters sorted); ValueError if it names none."""
    from simkit.models.custom import CustomTrack

    if isinstance(value, CustomTrack):
        return value
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is neither a track name nor a custom track")
    name, params = _parse(value)
    names = _custom_names()
    if name not in names:
        raise ValueError(
            f"{name!r} is not a registered custom track; give one of {', '.join(names)} or "
            "a track object in Python (simkit.models.custom.track)"
        )
    resolve(value)  # its parameters are checked now, in one line
    inner = ";".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{name}({inner})" if inner else name


register_kind(
    "downed_rule",
    _normalise,
    "a custom track (a registered name such as dnd5e, with parameters as dnd5e(dc=12;bonus=2), "
    "or a track object in Python)",
    show_reason=True,
)


@lru_cache(maxsize=64)
def resolve(value):
    """The track object of a ``dying`` value (a name or a track), or None for None."""
    if value is None:
        return None
    if not isinstance(value, str):
        return value
    from simkit.core.params import parse_value, spec
    from simkit.models import get_model, make_model

    name, texts = _parse(value)
    fields = spec(get_model(name))
    params = {}
    for k, text in texts.items():
        if k not in fields:
            raise ParamError(f"{name} has no parameter {k!r}; it has {', '.join(fields)}")
        params[k] = parse_value(k, fields[k], text)
    return make_model(name, **params)


def _effect_of(track, outcome: str) -> int | None:
    mapping = getattr(track, "fight_outcomes", None) or {}
    meaning = mapping.get(outcome, outcome)
    return EFFECTS.index(meaning) if meaning in EFFECTS else None


def fight_needs(track) -> str | None:
    """None when ``track`` can be a PC's rule at 0 HP in a fight, else one line naming what
    it does not say."""
    name = getattr(track, "name", type(track).__name__)
    if not callable(getattr(track, "on_hit", None)):
        return (
            f"dying={name}: the track does not say what damage does to a PC at 0 HP "
            "(define on_hit(state, crit) -> new state or outcome)"
        )
    odd = [o for o in track.outcomes if _effect_of(track, o) is None]
    if odd:
        return (
            f"dying={name}: outcome {odd[0]!r} has no meaning in a fight (name it dead, "
            "stable or revived, or map it in fight_outcomes)"
        )
    _, probs = track.faces()
    if not np.allclose(probs, probs[0]):
        return (
            f"dying={name}: its dice's faces are not equally likely (a fight draws one face "
            "uniformly: roll a tuple of dice and add them in the transition)"
        )
    return None


@dataclass(frozen=True)
class FightTable:
    """A custom track as the fight loop reads it. Codes: a state's index (>= 0), or
    ``-1 - e`` for effect ``e`` of :data:`EFFECTS`."""

    states: tuple  # the reachable states, index = code
    rolls: tuple  # the faces, index = face code
    start: int  # the code a knock-out enters at
    next: np.ndarray  # (S, K) int64: code after a turn with face k
    hit: np.ndarray  # (S, 2) int64: code after a hit (normal, critical)


@lru_cache(maxsize=64)
def fight_table(track) -> FightTable:
    """Every state reachable from ``start()`` by a turn or a hit, breadth first, and where
    each goes (the track's own ``transition`` and ``on_hit``, called on each)."""
    why = fight_needs(track)
    if why is not None:
        raise ParamError(why)
    rolls, _ = track.faces()
    states: list = []
    index: dict = {}

    def code(value) -> int:
        value = track._normal(value, "a fight's state")
        if isinstance(value, str):
            effect = _effect_of(track, value)
            assert effect is not None  # (fight_needs checked every outcome)
            return -1 - effect
        if value not in index:
            if len(states) >= MAX_STATES:
                raise ParamError(
                    f"dying={track.name}: over {MAX_STATES} states reachable in a fight"
                )
            index[value] = len(states)
            states.append(value)
        return index[value]

    start = code(track.start())
    nxt: list[list[int]] = []
    hit: list[list[int]] = []
    i = 0
    while i < len(states):
        s = states[i]
        nxt.append([code(track.transition(s, roll)) for roll in rolls])
        hit.append([code(track.on_hit(s, crit)) for crit in (False, True)])
        i += 1
    S = max(len(states), 1)
    return FightTable(
        states=tuple(states),
        rolls=tuple(rolls),
        start=start,
        next=np.array(nxt, dtype=np.int64).reshape(S if states else 0, len(rolls)),
        hit=np.array(hit, dtype=np.int64).reshape(S if states else 0, 2),
    )


def table_at(value, pen: int) -> FightTable | None:
    """What the fight loop reads of a ``dying`` value (:func:`fight_table`) for PCs under
    check penalty ``pen`` (P-10: added to the track's ``check_penalty``, when it has one),
    or None for the rules set's own track (``value`` None)."""
    track = resolve(value)
    if track is None:
        return None
    if "check_penalty" in spec_of(track):
        track = track.replace(check_penalty=track.check_penalty + int(pen))
    return fight_table(track)


def spec_of(track) -> dict:
    """The declared parameters of ``track`` (:func:`simkit.core.params.spec`)."""
    from simkit.core.params import spec

    return spec(type(track))


def spec_parts(text: str) -> tuple[str, dict[str, str]]:
    """A track's spec text ``"name(a=1;b=2)"`` as ``("name", {"a": "1", "b": "2"})``
    (ValueError when malformed)."""
    return _parse(text)


def canonical(value):
    """A ``dying`` value as the rules keep it (a track object as is, a name as its sorted
    spec text); ValueError (a ParamError for a parameter) when it names no usable track."""
    return _normalise(value)


# -- per PC (issue 31 item 1: ``party="fighter(dying=dnd5e),cleric"``) ---------------------
def pc_value(rules, k: int):
    """PC ``k``'s rule at 0 HP: its own ``dying`` (``fighter(dying=dnd5e)``), else the
    fight's (``rules.dying``); None for the rules set's own track."""
    own = getattr(rules.fighters.pcs[k], "dying", None)
    return own if own is not None else getattr(rules, "dying", None)


def pc_track(rules, k: int):
    """PC ``k``'s custom track object (:func:`pc_value`, resolved), or None."""
    return resolve(pc_value(rules, k))


def pc_table(rules, k: int, pen: int) -> FightTable | None:
    """What the fight loop reads of PC ``k``'s track under check penalty ``pen``
    (:func:`table_at`), or None for the rules set's own track."""
    return table_at(pc_value(rules, k), pen)


def any_custom(rules) -> bool:
    """Whether some PC of ``rules`` follows a custom track at 0 HP."""
    return any(pc_value(rules, k) is not None for k in range(len(rules.fighters.pcs)))


def check_pcs(rules) -> str | None:
    """None when every PC's own track (``fighter(dying=NAME)``) names a custom track a fight
    can play, else one line saying what is wrong."""
    for k, p in enumerate(rules.fighters.pcs):
        own = getattr(p, "dying", None)
        if own is None:
            continue
        try:
            canonical(own)
        except (ValueError, ParamError) as exc:
            return f"party: {p.role}(dying={own}): {exc}"
        why = fight_needs(resolve(own))
        if why is not None:
            return f"party: {p.role}: {why}"
    return None


# -- the seed-000 track's PF2e options per PC (issue 31 item 4; P-13..P-16) ---------------
#: Each option and its value when neither the PC nor the fight gives one (the dying model's
#: defaults, :class:`simkit.models.dying.Dying`).
PF2E_DEFAULTS = {"toughness": False, "diehard": False, "fortune": "none", "hero_use": "recover"}


def pf2e_of(rules, k: int) -> dict:
    """PC ``k``'s PF2e options on the seed-000/pf2e-core track: its own
    (``fighter(toughness=true)``), else the fight's, else :data:`PF2E_DEFAULTS`; with
    ``death_at`` (1 more with Diehard, P-14), ``threshold`` (the hero point's, A0-3: None
    when the points reroll, P-16), ``rerolls`` (P-16 with a point to spend) and ``two``
    (whether its recovery check draws a second d20: P-15 or P-16)."""
    from simkit.rules.hero_points import hero_threshold

    p = rules.fighters.pcs[k]
    out: dict[str, Any] = {}
    for name, default in PF2E_DEFAULTS.items():
        own = getattr(p, name, None)
        out[name] = own if own is not None else getattr(rules, name, default)
    points = int(getattr(rules, "hero_points", 0))
    out["rerolls"] = out["hero_use"] == "reroll" and points > 0
    out["death_at"] = int(rules.death_at) + int(bool(out["diehard"]))
    if out["rerolls"]:
        out["threshold"] = None
    elif not out["diehard"]:
        out["threshold"] = rules.threshold  # (the fight's own: no default number moves)
    else:
        out["threshold"] = hero_threshold(rules.hero_policy, points, out["death_at"])
    out["two"] = out["fortune"] != "none" or out["rerolls"]
    return out


def pf2e_on(rules) -> bool:
    """Whether some PC plays a PF2e option other than the default (P-13..P-16)."""
    return any(
        pf2e_of(rules, k)[name] != default
        for k in range(len(rules.fighters.pcs))
        for name, default in PF2E_DEFAULTS.items()
    )


def check_pf2e(rules) -> str | None:
    """None when every PC's PF2e options can be played, else one line saying why not."""
    for k, p in enumerate(rules.fighters.pcs):
        o = pf2e_of(rules, k)
        if o["hero_use"] == "reroll" and o["fortune"] != "none":
            return (
                f"{p.role}: hero_use=reroll and fortune={o['fortune']} cannot combine: a hero "
                "point's reroll is itself a fortune effect (P-15, P-16)"
            )
    if pf2e_on(rules) and not rules.seed000:
        return (
            f"toughness, diehard, fortune and hero_use are options of the seed000/"
            f"pf2e-core track; rules={rules.rules} plays agonising (R1-01)"
        )
    return None
