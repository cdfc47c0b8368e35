"""Creatures from Foundry VTT pf2e NPC actors: one JSON file, a folder, or a JSON list.

A Foundry "Export Data" of a pf2e NPC (and every record of the bundled sample bestiary,
:func:`bestiary`) is read into a :class:`Creature`: level, HP, AC, saves, Perception
(initiative), its strikes (items of type ``melee``), its spellcasting entries' spell DC
and an area ability. How a creature's numbers become the fight's (which strike, how many,
the area, the recharge) are the party model's readings AP-12..AP-15 of docs/rules.md:

- **AP-12** the strike a creature uses: the one with the highest expected damage per
  strike against the typical PC of its level (:func:`simkit.rules.pf2e.pcs.role`);
  its damage is the sum of the strike's ``damageRolls`` (persistent ones left out), one
  die size kept as dice and the other dice added as their mean (rounded down).
- **AP-13** how many: every strike of its turn is that strike (the fight's ``attacks``
  and ``map``); an ``agile`` trait or ``deadly`` / ``fatal`` is listed, not applied.
- **AP-14** the area ability: the first action (not a reaction, free action or passive)
  whose text carries a ``@Template``, a ``@Damage`` and a basic ``@Check``: its first
  damage roll, its DC (the PCs' save is Reflex in the fight: another save is listed).
- **AP-15** its uses: a recharge ``NdM rounds`` is a chance per round of
  ``2 / (M + 3)`` (one use, then 1dM rounds without: a cycle of ``1 + (M + 1) / 2``
  rounds on average), with no limit on uses; without a recharge, once.

What the fight does not model (reactions, persistent damage, regeneration and fast
healing, immunities / resistances / weaknesses, spells beyond the DC, other damaging
actions, the unused strikes, the per-creature area use) is :attr:`Creature.unmodelled`:
one line per creature (:meth:`Creature.note`), never silently dropped.

A malformed or partial actor (missing HP, no strike, a swarm, a strike without damage, a
string where a number belongs, not an NPC) raises :class:`ActorError`, one line naming
the file and the field; nothing half-read is returned.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from simkit.core.names import unknown
from simkit.rules.dice import CRIT_SUCCESS, SUCCESS, degree_pmf, parse_amount
from simkit.rules.pf2e import pcs

__all__ = [
    "ActorError",
    "Area",
    "Creature",
    "Strike",
    "bestiary",
    "bundled",
    "load",
    "read_actor",
    "recharge_chance",
]

#: Largest actor file read (a Foundry NPC export is some 10-100 KB).
MAX_BYTES = 64 * 2**20
#: Longest integer read (an actor's numbers have a few digits; Python refuses more than
#: 4,300 digits with a message that names no field).
MAX_DIGITS = 20
#: The bundled sample bestiary (Pathfinder Monster Core, ORC license: see its NOTICE.md).
BUNDLED = ("data", "foundry", "monster-core.json")

_DAMAGE = re.compile(r"@Damage\[((?:[^\[\]]|\[[^\[\]]*\])*)\]")
_PART = re.compile(r"\(?([^\[\],()]+)\)?\[([^\]]*)\]")
_CHECK = re.compile(r"@Check\[([^\]]*)\]")
_RECHARGE = re.compile(r"\b(\d{1,6})d(\d{1,6}) rounds\b")
_TERM = re.compile(r"\s*([+-])?\s*(?:(\d+)d(\d+)|(\d+))\s*")


class ActorError(ValueError):
    """A Foundry actor that cannot be read: ``"FILE: FIELD: what is wrong"``."""


class _Digits(int):
    """An integer of more than :data:`MAX_DIGITS` digits in an actor file, kept as its
    digit count (0 as an int, so nothing reads it as a number): :func:`_int` refuses it
    naming the field."""

    digits: int

    def __new__(cls, digits: int) -> _Digits:
        self = super().__new__(cls, 0)
        self.digits = digits
        return self

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("+-"))
    return _Digits(digits) if digits > MAX_DIGITS else int(text)


@dataclass(frozen=True, slots=True)
class Strike:
    """One strike item (type ``melee``; ranged strikes too)."""

    name: str
    attack: int  # system.bonus.value
    damage: str  # the fight's dice (AP-12): NdX+B
    mean: float  # exact mean of the summed damage rolls (persistent left out), HP
    traits: tuple[str, ...]
    persistent: tuple[str, ...]  # persistent damage rolls, not modelled


@dataclass(frozen=True, slots=True)
class Area:
    """An area ability (AP-14) and its uses (AP-15)."""

    name: str
    damage: str  # dice of its first damage roll
    save: str  # fortitude, reflex or will (basic)
    dc: int
    recharge: str | None  # e.g. "1d4 rounds"; None: once
    chance: float | None  # per round, from the recharge (AP-15); None: once
    uses: int  # 1 (once) or 10 (recharge: the party model's most)


@dataclass(frozen=True, slots=True)
class Creature:
    """A creature read from a Foundry pf2e NPC actor."""

    slug: str
    name: str
    source: str  # the file it was read from
    level: int
    hp: int
    ac: int
    fort: int
    reflex: int
    will: int
    perception: int
    strikes: tuple[Strike, ...]
    strike: Strike  # the one it uses (AP-12)
    spell_dc: int | None  # its highest spellcasting entry's DC; None: no entry
    area: Area | None
    unmodelled: tuple[str, ...]

    def values(self) -> dict[str, object]:
        """Its numbers as explicit lineup keys (:data:`simkit.rules.pf2e.creatures.MONSTER_FIELDS`):
        what ``7(hp=..;ac=..;attack=..;damage=..)`` would give. ``spell_dc`` is the DC of
        the PCs' save against its area (AP-14), else its spell DC, else the level's table;
        its area effect's uses (``area_uses``: 0 without an area ability, 1 once, 10 with a
        recharge) and, with a recharge, its chance a turn (``area_chance``, AP-15)."""
        out: dict[str, object] = dict(
            hp=self.hp,
            ac=self.ac,
            fort=self.fort,
            reflex=self.reflex,
            will=self.will,
            perception=self.perception,
            attack=self.strike.attack,
            damage=self.strike.damage,
            area=self.area.damage if self.area else "0",
            area_uses=self.area.uses if self.area else 0,  # AP-15: none, once, or a recharge
        )
        if self.area is not None and self.area.chance is not None:
            out["area_chance"] = self.area.chance
        dc = self.area.dc if self.area else self.spell_dc
        if dc is not None:
            out["spell_dc"] = dc
        return out

    def note(self) -> str:
        """One line: what the fight leaves out of this creature."""
        left = "; ".join(self.unmodelled) if self.unmodelled else "nothing"
        return f"{self.slug} (level {self.level}): not modelled: {left}"


def recharge_chance(sides: int) -> float:
    """Chance per round of a recharging ability (AP-15): after a use it is unavailable
    for 1d``sides`` rounds, a cycle of ``1 + (sides + 1) / 2`` rounds on average, so
    ``2 / (sides + 3)`` (1d4: 2/7)."""
    return 2.0 / (sides + 3)


# -- reading -----------------------------------------------------------------------------
#: Where an actor of an older pf2e system format keeps its Perception, and the one-line hint
#: a missing ``system.perception.mod`` then adds (docs/how-to/foundry-creature.md).
_OLDER_PERCEPTION = (
    "system.attributes.perception.value",
    "an actor of an older pf2e format: move its system.attributes.perception.value to "
    "system.perception.mod (or export it again from a current Foundry pf2e system)",
)


def _get(doc, path: str, where: str, hint: tuple[str, str] | None = None):
    """``doc``'s field at the dotted ``path``; missing: an :class:`ActorError` naming it, with
    ``hint[1]`` appended when the actor has ``hint[0]`` (an older format's location)."""
    node = doc
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            why = f" ({hint[1]})" if hint is not None and _has(doc, hint[0]) else ""
            raise ActorError(f"{where}: {path}: missing{why}")
        node = node[key]
    return node


def _has(doc, path: str) -> bool:
    node = doc
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def _int(doc, path: str, where: str, lo: int = -100, hi: int = 100_000, hint=None) -> int:
    v = _get(doc, path, where, hint)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ActorError(f"{where}: {path}: must be an integer, got {v!r:.40}")
    if isinstance(v, _Digits):
        raise ActorError(f"{where}: {path}: must be in [{lo}, {hi}], got {v!r}")
    if not lo <= v <= hi:
        raise ActorError(f"{where}: {path}: must be in [{lo}, {hi}], got {v}")
    return v


def _terms(formula: str, field: str, where: str) -> list[tuple[int, int]]:
    """``"(2d6+4)"`` -> ``[(2, 6), (4, 1)]``: (count, sides), a constant with sides 1."""
    text = formula.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    out, pos = [], 0
    while pos < len(text):
        m = _TERM.match(text, pos)
        if not m or m.end() == pos:
            raise ActorError(f"{where}: {field}: damage {formula!r:.40} is not NdX+B")
        if any(g is not None and len(g) > MAX_DIGITS for g in m.group(2, 3, 4)):
            raise ActorError(
                f"{where}: {field}: damage with a number of more than {MAX_DIGITS} digits"
            )
        sign = -1 if m.group(1) == "-" else 1
        if m.group(4) is not None:
            out.append((sign * int(m.group(4)), 1))
        else:
            count, sides = int(m.group(2)), int(m.group(3))
            if sign < 0 or count < 1 or sides < 2:
                raise ActorError(f"{where}: {field}: damage {formula!r:.40} is not NdX+B")
            out.append((count, sides))
        pos = m.end()
    if not out:
        raise ActorError(f"{where}: {field}: no damage")
    return out


def _fight_dice(terms: list[tuple[int, int]], field: str, where: str) -> tuple[str, float]:
    """:func:`_dice`, refused (:class:`ActorError` naming the field) where the fight's
    dice are outside what every engine takes: a roll below 0 (``2d12-12``: the Monte
    Carlo would heal on it while the exact duel floors it), or more than
    :data:`simkit.rules.dice.MAX_COUNT` dice, or dice of more sides than
    :data:`simkit.rules.dice.MAX_SIDES` (the same rule as dice typed in,
    :func:`simkit.rules.dice.parse_amount`)."""
    if any(c > 10**6 or s > 10**6 for c, s in terms):  # before any arithmetic on them
        raise ActorError(f"{where}: {field}: damage of more than a million dice or sides")
    dice, mean = _dice(terms)
    try:
        parse_amount(dice)
    except ValueError as exc:
        raise ActorError(f"{where}: {field}: damage {dice}: {exc}") from None
    return dice, mean


def _dice(terms: list[tuple[int, int]]) -> tuple[str, float]:
    """The fight's dice of a sum of terms (AP-12) and the sum's exact mean."""
    mean = sum(c * (s + 1) / 2 if s > 1 else c for c, s in terms)
    by_sides: dict[int, int] = {}
    const = 0
    for c, s in terms:
        if s == 1:
            const += c
        else:
            by_sides[s] = by_sides.get(s, 0) + c
    if not by_sides:
        return str(max(const, 0)), float(mean)
    keep = max(by_sides, key=lambda s: (by_sides[s] * (s + 1), s))  # the largest group
    extra = sum(c * (s + 1) for s, c in by_sides.items() if s != keep)  # twice their mean
    bonus = const + extra // 2
    text = f"{by_sides[keep]}d{keep}" + (f"{bonus:+d}" if bonus else "")
    return text, float(mean)


def _strike(item: dict, where: str) -> Strike:
    name = str(item.get("name") or item.get("_id") or "?")
    field = f"items[{name}].system"
    sysd = item.get("system")
    if not isinstance(sysd, dict):
        raise ActorError(f"{where}: items[{name}].system: missing")
    attack = _int(sysd, "bonus.value", f"{where}: items[{name}]", -20, 100)
    rolls = sysd.get("damageRolls")
    if not isinstance(rolls, dict):
        raise ActorError(f"{where}: {field}.damageRolls: missing")
    terms: list[tuple[int, int]] = []
    persistent = []
    for key, roll in rolls.items():
        f = f"{field}.damageRolls.{key}.damage"
        if not isinstance(roll, dict) or not isinstance(roll.get("damage"), str):
            raise ActorError(f"{where}: {f}: must be a dice formula")
        if roll.get("category") == "persistent":
            persistent.append(f"{roll['damage']} {roll.get('damageType', '')}".strip())
            continue
        terms += _terms(roll["damage"], f, where)
    if not terms:
        raise ActorError(f"{where}: {field}.damageRolls: no damage roll")
    dice, mean = _fight_dice(terms, f"{field}.damageRolls", where)
    traits = sysd.get("traits", {}).get("value", []) if isinstance(sysd.get("traits"), dict) else []
    return Strike(name, attack, dice, mean, tuple(str(t) for t in traits), tuple(persistent))


def _expected(s: Strike, level: int) -> float:
    """Expected damage of one strike at full bonus against the typical PC (AP-12)."""
    ac = pcs.role("fighter", min(max(level, 1), 20)).ac
    p = degree_pmf(s.attack, ac)
    return s.mean * (p[SUCCESS] + 2 * p[CRIT_SUCCESS])


def _check(text: str) -> dict[str, str]:
    out = {}
    for i, part in enumerate(text.split("|")):
        k, eq, v = part.partition(":")
        if not eq:
            k, v = ("type", k) if i == 0 else (k, "true")
        out[k.strip()] = v.strip()
    return out


def _damages(text: str) -> list[tuple[str, str]]:
    """``(formula, types)`` of each part of each @Damage token of ``text``."""
    out = []
    for tok in _DAMAGE.findall(text):
        for formula, types in _PART.findall(tok.split("|")[0]):
            out.append((formula.strip(), types))
    return out


def _area(item: dict, where: str) -> Area | None:
    text = item.get("system", {}).get("description", {}).get("value", "") or ""
    if "@Template" not in text:
        return None
    dmg = [(f, t) for f, t in _damages(text) if "persistent" not in t and "healing" not in t]
    basic = [c for c in map(_check, _CHECK.findall(text)) if c.get("basic") in ("true", "")]
    if not dmg or not basic:
        return None
    name = str(item.get("name", "?"))
    terms = _terms(dmg[0][0], f"items[{name}].system.description", where)
    dice, _ = _fight_dice(terms, f"items[{name}].system.description", where)
    save = basic[0].get("type", "")
    try:
        dc = int(basic[0].get("dc", ""))
    except ValueError:
        raise ActorError(f"{where}: items[{name}].system.description: @Check without a DC")
    m = _RECHARGE.search(text)
    if m:
        sides = int(m.group(2))
        return Area(name, dice, save, dc, m.group(0), recharge_chance(sides), 10)
    return Area(name, dice, save, dc, None, None, 1)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "creature"


def read_actor(doc, where: str, slug: str | None = None) -> Creature:
    """One actor record (a parsed JSON object) as a :class:`Creature`; ``where`` names it
    in errors (the file, and its index in a list)."""
    if not isinstance(doc, dict):
        raise ActorError(f"{where}: not a JSON object (an actor)")
    if doc.get("type") != "npc":
        raise ActorError(f"{where}: type: {doc.get('type')!r:.30} is not an NPC actor ('npc')")
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ActorError(f"{where}: name: missing")
    traits = _get(doc, "system.traits", where)
    tvals = traits.get("value", []) if isinstance(traits, dict) else []
    if "swarm" in tvals:
        raise ActorError(
            f"{where}: system.traits: a swarm (its damage is an area, not strikes) is not modelled"
        )
    level = _int(doc, "system.details.level.value", where, -1, 25)
    hp = _int(doc, "system.attributes.hp.max", where, 1, 100_000)
    ac = _int(doc, "system.attributes.ac.value", where, -10, 100)
    fort = _int(doc, "system.saves.fortitude.value", where, -10, 100)
    reflex = _int(doc, "system.saves.reflex.value", where, -10, 100)
    will = _int(doc, "system.saves.will.value", where, -10, 100)
    perception = _int(doc, "system.perception.mod", where, -10, 100, hint=_OLDER_PERCEPTION)
    items = doc.get("items", [])
    if not isinstance(items, list) or any(not isinstance(i, dict) for i in items):
        raise ActorError(f"{where}: items: must be a list of items")
    melee = [i for i in items if i.get("type") == "melee"]
    if not melee:
        raise ActorError(f"{where}: items: no strike (no item of type 'melee')")
    strikes, unmodelled = [], []
    for it in melee:
        try:
            strikes.append(_strike(it, where))
        except ActorError as exc:  # a damage-less strike beside others is listed
            if len(melee) == 1 or "no damage roll" not in str(exc):
                raise
            unmodelled.append(f"strike {it.get('name')} (no damage)")
    best = max(strikes, key=lambda s: (_expected(s, level), s.attack))
    dcs = []
    for it in items:
        if it.get("type") == "spellcastingEntry":
            nm = it.get("name", "?")
            dcs.append(_int(it, "system.spelldc.dc", f"{where}: items[{nm}]", 0, 100))
    spell_dc = max(dcs) if dcs else None
    area = None
    other = []
    for it in items:
        if it.get("type") != "action":
            continue
        kind = it.get("system", {}).get("actionType", {}).get("value")
        text = it.get("system", {}).get("description", {}).get("value", "") or ""
        if kind == "reaction":
            unmodelled.append(f"reaction {it.get('name')}")
            continue
        if kind != "action":
            continue
        found = _area(it, where) if area is None else None
        if found is not None:
            area = found
        elif _damages(text):
            other.append(str(it.get("name")))
    # what the fight leaves out (one line: Creature.note)
    if len(strikes) > 1:
        unmodelled.append("strikes " + ", ".join(s.name for s in strikes if s is not best))
    for t in best.traits:
        if t == "agile" or t.startswith(("deadly", "fatal")):
            unmodelled.append(f"{best.name} {t}")
    for s in strikes:
        for p in s.persistent:
            unmodelled.append(f"persistent {p} ({s.name})")
    if area is not None:
        if area.save != "reflex":
            unmodelled.append(f"{area.name} basic {area.save} (the fight rolls Reflex)")
        text = next(
            (i["system"]["description"]["value"] for i in items if i.get("name") == area.name),
            "",
        )
        for f, t in _damages(text):
            if "persistent" in t:
                unmodelled.append(f"persistent {f} ({area.name})")
    if other:
        unmodelled.append("actions " + ", ".join(other))
    hp_details = _get(doc, "system.attributes.hp", where).get("details") or ""
    if hp_details:
        unmodelled.append(f"HP: {hp_details}")
    attrs = _get(doc, "system.attributes", where)
    for key in ("immunities", "resistances", "weaknesses"):
        entries = attrs.get(key) or []
        if entries:
            shown = [
                f"{e.get('type')}" + (f" {e['value']}" if e.get("value") is not None else "")
                for e in entries
                if isinstance(e, dict)
            ]
            unmodelled.append(f"{key} " + ", ".join(shown))
    n_spells = sum(1 for i in items if i.get("type") == "spell")
    if n_spells:
        unmodelled.append(f"{n_spells} spells (only the DC)")
    return Creature(
        slug=slug or _slug(name),
        name=name,
        source=where,
        level=level,
        hp=hp,
        ac=ac,
        fort=fort,
        reflex=reflex,
        will=will,
        perception=perception,
        strikes=tuple(strikes),
        strike=best,
        spell_dc=spell_dc,
        area=area,
        unmodelled=tuple(unmodelled),
    )


def _records(doc, where: str, stem: str | None) -> list[Creature]:
    if isinstance(doc, list):
        out = []
        for k, rec in enumerate(doc):
            slug = rec.get("simkit", {}).get("slug") if isinstance(rec, dict) else None
            out.append(read_actor(rec, f"{where}[{k}]", slug))
        if not out:
            raise ActorError(f"{where}: an empty list (no actor)")
        return out
    return [read_actor(doc, where, stem)]


@lru_cache(maxsize=64)
def _load_file(path: str, _stamp: tuple[int, int]) -> tuple[Creature, ...]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ActorError(f"{path}: cannot be read: {exc.__class__.__name__}") from None
    try:
        doc = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise ActorError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:  # a nesting bomb: the parser recurses (an actor nests ~10 deep)
        raise ActorError(f"{path}: not an actor file: JSON nested too deep") from None
    except ValueError as exc:
        raise ActorError(f"{path}: not JSON ({str(exc)[:100]})") from None
    return tuple(_records(doc, path, _slug(Path(path).stem)))


def load(path: str | os.PathLike) -> tuple[Creature, ...]:
    """The creatures of a Foundry actor file (one actor or a JSON list of them) or of a
    folder's ``*.json`` files (sorted by name); raises :class:`ActorError` (one line)."""
    p = Path(path)
    try:
        is_dir = p.is_dir()
    except OSError as exc:  # a name too long (is_dir passes only 'no such file' and loops)
        why = exc.strerror or exc.__class__.__name__
        raise ActorError(f"{path}: cannot be read: {why}") from None
    if is_dir:
        files = sorted(p.glob("*.json"))
        if not files:
            raise ActorError(f"{path}: a folder without .json files")
        return tuple(c for f in files for c in load(f))
    try:
        st = p.stat()
    except FileNotFoundError:
        raise ActorError(f"{path}: no such file") from None
    except OSError as exc:  # a symlink loop, a name too long, a folder without access...
        why = exc.strerror or exc.__class__.__name__
        raise ActorError(f"{path}: cannot be read: {why}") from None
    if not stat.S_ISREG(st.st_mode):  # a FIFO or a device would block or never end
        raise ActorError(f"{path}: not a regular file")
    if st.st_size > MAX_BYTES:
        raise ActorError(f"{path}: {st.st_size} bytes, more than an actor file ({MAX_BYTES})")
    return _load_file(str(p), (st.st_mtime_ns, st.st_size))


@lru_cache(maxsize=1)
def bestiary() -> dict[str, Creature]:
    """The bundled sample bestiary (41 Pathfinder Monster Core creatures), by slug."""
    text = resources.files("simkit.rules.pf2e").joinpath(*BUNDLED).read_text(encoding="utf-8")
    return {c.slug: c for c in _records(json.loads(text), "/".join(BUNDLED), None)}


def bundled(name: str) -> Creature:
    """A bundled creature by its slug (case-insensitive); a KeyError naming the bundled
    slugs (and the near one meant) if none."""
    found = bestiary().get(name.lower())
    if found is None:
        raise KeyError(unknown("creature", name, bestiary(), where="in the bundled bestiary"))
    return found
