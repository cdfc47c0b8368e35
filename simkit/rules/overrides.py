"""Explicit numbers for one combatant: ``fighter(hp=80; ac=23)``, ``7(hp=150)``.

A party (``party="fighter(hp=80;ac=23),rogue"``) or an explicit lineup
(``monsters="7(hp=150;attack=18),5"``) is a comma list of items; an item is a head (a role,
a creature level) and optionally, in parentheses, ``key=value`` pairs separated by ``;``
that replace the numbers the tables give it (PF2e-typical numbers by level:
:mod:`simkit.rules.pf2e.pcs`, :mod:`simkit.rules.pf2e.creatures`). The same text works on the
command line (``--set party=...``) and in a TOML file's ``[set]`` table.

Each key has a kind and an allowed range (:data:`INT`, :data:`DICE`, :data:`BOOL`); the
canonical text lists the keys in alphabetical order, so two spellings of one party are one
parameter value (and one cache entry, one sweep point).
"""

from __future__ import annotations

import dataclasses
import re

from simkit.core.names import unknown
from simkit.core.numbers import ascii_int, ascii_number
from simkit.rules.dice import parse_amount, parse_dice

__all__ = ["Field", "apply", "canonical", "split_items"]

# (a value may hold one level of parentheses of its own: ``dying=dnd5e(bonus=2)``)
_ITEM = re.compile(r"\s*([^(),\s]+)\s*(?:\(((?:[^()]|\([^()]*\))*)\))?\s*$")
#: A track's spec (a ``spec`` field): a name, optionally with ``key=value`` parameters.
_SPEC = re.compile(r"([A-Za-z_][\w-]*)(?:\(([^()]*)\))?")
_KEY = re.compile(r"[A-Za-z_]\w*")


@dataclasses.dataclass(frozen=True)
class Field:
    """One overridable number: ``kind`` ``int`` (in ``[lo, hi]``, ASCII digits:
    :func:`simkit.core.numbers.ascii_int`), ``float`` (in ``[lo, hi]``,
    :func:`simkit.core.numbers.ascii_number`), ``dice`` (an amount of HP, never below 0:
    :func:`simkit.rules.dice.parse_amount`), ``bool``, ``word`` (a name its owner checks,
    e.g. a track at 0 HP), ``spec`` (a name with optional parameters in parentheses, its
    own text: ``dnd5e`` or ``dnd5e(bonus=2;dc=12)``, kept with its keys sorted; its owner
    checks the name and the values) or ``choice`` (one of ``names`` only); or one of
    ``names`` (a benchmark of a table, e.g. ``High``, resolved by the owner)."""

    kind: str
    lo: float = 0
    hi: float = 0
    names: tuple[str, ...] = ()

    def parse(self, key: str, raw: str, what: str):
        for name in self.names:
            if raw.lower() == name.lower():
                return name
        return self._parse(key, raw, what)

    def _parse(self, key: str, raw: str, what: str):
        named = f" or one of {', '.join(self.names)}" if self.names else ""
        if self.kind == "dice":  # an amount of HP (damage, area, cantrip, heal): >= 0
            try:
                dice = parse_dice(raw)
            except ValueError as exc:
                raise ValueError(f"{what}: {key}={raw}: {exc}{named}") from None
            try:
                return str(parse_amount(dice))
            except ValueError as exc:
                raise ValueError(f"{what}: {key}={raw} is not allowed: {exc}") from None
        if self.kind == "choice":  # one of ``names`` only (matched above)
            raise ValueError(f"{what}: {key} must be one of {', '.join(self.names)}, got {raw!r}")
        if self.kind == "spec":  # a name(key=value;...), checked by its owner
            return _spec(key, raw, what)
        if self.kind == "word":  # a name, checked by its owner (e.g. a track at 0 HP)
            if not re.fullmatch(r"[A-Za-z_][\w-]*", raw):
                raise ValueError(f"{what}: {key} must be a name such as dnd5e, got {raw!r}")
            return raw
        if self.kind == "bool":
            if raw.lower() in ("true", "1", "yes"):
                return True
            if raw.lower() in ("false", "0", "no"):
                return False
            raise ValueError(f"{what}: {key} must be true or false, got {raw!r}")
        if self.kind == "float":
            try:
                number = ascii_number(raw)
            except ValueError:
                number = None
            if number is None or not self.lo <= number <= self.hi:
                raise ValueError(
                    f"{what}: {key} must be a number in [{self.lo}, {self.hi}]{named}, got {raw!r}"
                )
            return number
        try:
            value = ascii_int(raw)  # ASCII digits only (int() takes '٨٠', '８０', '8_0')
        except ValueError:
            value = None
        if value is None or not self.lo <= value <= self.hi:
            raise ValueError(
                f"{what}: {key} must be an integer in [{self.lo}, {self.hi}]{named}, got {raw!r}"
            )
        return value

    def text(self, value) -> str:
        return ("true" if value else "false") if self.kind == "bool" else str(value)


def _spec(key: str, raw: str, what: str) -> str:
    """A ``spec`` field's text, its parameters sorted: ``"dnd5e(dc=12;bonus=2)"`` ->
    ``"dnd5e(bonus=2;dc=12)"`` (``,`` or ``;`` between them); ValueError in one line."""
    m = _SPEC.fullmatch(raw.strip())
    pairs = [p.partition("=") for p in re.split(r"[;,]", m.group(2) or "")] if m else []
    pairs = [(k.strip(), eq, v.strip()) for k, eq, v in pairs if (k + eq + v).strip()]
    if not m or any(not (eq and v and _KEY.fullmatch(k)) for k, eq, v in pairs):
        raise ValueError(
            f"{what}: {key} must be a name or a name with its parameters, such as dnd5e or "
            f"dnd5e(bonus=2;dc=12), got {raw!r}"
        )
    if len({k for k, _, _ in pairs}) < len(pairs):
        raise ValueError(f"{what}: {key}={raw}: a parameter is given twice")
    inner = ";".join(f"{k}={v}" for k, _, v in sorted(pairs))
    return f"{m.group(1)}({inner})" if inner else m.group(1)


def _split_top(body: str) -> list[str]:
    """``body`` split at the ``;`` outside parentheses (a ``spec`` value keeps its own)."""
    parts, depth, start = [], 0, 0
    for pos, ch in enumerate(body):
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            parts.append(body[start:pos])
            start = pos + 1
    return [*parts, body[start:]]


def split_items(text: str, what: str) -> list[tuple[str, str | None]]:
    """``"a(x=1;y=2),b"`` -> ``[("a", "x=1;y=2"), ("b", None)]``: commas inside
    parentheses do not split."""
    items, depth, start = [], 0, 0
    for pos, ch in enumerate(text + ","):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{what}: unbalanced ')' in {text!r}")
        elif ch == "," and depth == 0:
            part = text[start:pos]
            start = pos + 1
            if not part.strip():
                continue
            m = _ITEM.match(part.replace(",", ";") if "(" in part else part)
            if not m:
                raise ValueError(
                    f"{what}: {part.strip()!r} is not NAME or NAME(key=value; key=value)"
                )
            items.append((m.group(1), m.group(2)))
    if depth:
        raise ValueError(f"{what}: unbalanced '(' in {text!r}")
    return items


def parse_pairs(body: str | None, fields: dict[str, Field], what: str) -> dict[str, object]:
    """``"hp=80; ac=23"`` -> ``{"ac": 23, "hp": 80}``, each value checked by its field."""
    out: dict[str, object] = {}
    if body is None:
        return out
    for pair in _split_top(body):
        if not pair.strip():
            continue
        key, eq, raw = (s.strip() for s in pair.partition("="))
        if not eq or not raw:
            raise ValueError(f"{what}: {pair.strip()!r} must be key=value")
        if key not in fields:
            raise ValueError(f"{what}: {unknown('key', key, sorted(fields))}")
        if key in out:
            raise ValueError(f"{what}: {key} is given twice")
        out[key] = fields[key].parse(key, raw, what)
    return out


def canonical(head: str, values: dict[str, object], fields: dict[str, Field]) -> str:
    """The canonical text of one item: ``head`` or ``head(k1=v1;k2=v2)``, keys sorted."""
    if not values:
        return head
    body = ";".join(f"{k}={fields[k].text(values[k])}" for k in sorted(values))
    return f"{head}({body})"


def apply(stats, values: dict[str, object]):
    """``stats`` (a frozen dataclass) with ``values`` replacing its fields."""
    return dataclasses.replace(stats, **values) if values else stats
