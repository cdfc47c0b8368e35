"""Player characters by level: the roles of a party (fighter, rogue, cleric, wizard).

Every number comes from a table shipped in ``simkit/rules/pf2e/data`` (copied from
``shared/data/pf2e``, the pathfinder2e_stats project, Apache License 2.0) or from a
literal whose source is named here and in ``docs/pf2e-sources.md``:

- key ability modifier by level: ``pc-ability_bonus.csv`` (column ``boosts/4``: +4 at
  level 1, +5 at 10, +6 at 20; no apex item). Other abilities follow the boost rule of
  :func:`simkit.rules.pf2e.levels.con_modifier` (+2 to a score under 18, else +1, at levels
  5, 10, 15, 20; the table's ``boosts/k`` columns are the same numbers);
- weapon proficiency: ``pc-weapon_proficiency.csv``; spell proficiency:
  ``pc-spell_proficiency.csv``; weapon specialization: ``pc-weapon_specialization.csv``;
  potency runes (item bonus to attack): ``pc-attack_item_bonus.csv``; striking runes
  (weapon damage dice): ``pc-weapon_dice.csv``;
- HP (R0-01) = ancestry HP (8, a human) + (class HP + Con) x level; class HP from the
  Core Rulebook / Player Core class entries (fighter 10, rogue 8, cleric 8, wizard 6);
- saves and Perception proficiency: the class advancement tables of Player Core (the
  cleric is a cloistered cleric: Fortitude expert at 3, Second Doctrine), each step with
  its class feature in ``docs/pf2e-sources.md`` and checked by ``tests/test_pf2e.py``;
  armour proficiency: the same tables (our reading, :data:`ROLES`); armour potency
  +1/+2/+3 at 5/11/18 and resilient runes +1/+2/+3 at 8/14/20 (GM Core, Automatic Bonus
  Progression);
- the fighter is exactly the typical fighter of the ``encounter`` model
  (:func:`simkit.rules.pf2e.creatures.pc_ac`, ``pc_save``, ``pc_hp`` call :func:`role` for it);
- spells (our derivation): the wizard's top-rank spell is a basic Reflex area spell of
  ``2r d6`` (r = top rank = ceil(level / 2), at most 10: *burning hands* 2d6 at rank 1,
  *fireball* 6d6 at rank 3, +2d6 per rank), ``slots`` of them per fight (2); then the
  *electric arc* cantrip (basic Reflex, ``(r + 1) d4``). The cleric's *heal* (two
  actions) is ``r d8 + 8 r`` (:func:`simkit.rules.pf2e.creatures.heal_dice`), divine font
  4 heals (5 from level 5, 6 from 15; Player Core cleric);
- Medicine (first aid, R1-02): trained (+2) + level + Wisdom for the cleric;
- perseverance points (seed 001): :func:`simkit.rules.pf2e.levels.pp_max` with key +4;
- stamina points (seed 001, A1-5): :func:`simkit.rules.rest.pe_max` (level x (class PE
  per level + Con)), the class PE per level being the class HP per level (our reading: in
  Starfinder, whose resolve points the seed follows, every class gains as many stamina
  points as hit points a level).

The rogue's sneak attack (1d6, 2d6 at 5, 3d6 at 11, 4d6 at 17) is added to every hit:
the party is assumed to flank (our simplification; the round does not track positions).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from functools import cache
from importlib import resources

from simkit.core.names import suggest, unknown
from simkit.core.params import register_kind
from simkit.rules import overrides
from simkit.rules.pf2e import levels
from simkit.rules.rest import pe_max as _pe_max_rule

__all__ = [
    "MAX_PARTY",
    "PC_FIELDS",
    "ROLES",
    "PCStats",
    "RoleSpec",
    "heal_dice",
    "key_ability",
    "member",
    "parse_party",
    "party_members",
    "progression",
    "role",
    "role_names",
]

ANCESTRY_HP = 8  # a human (Player Core)


@cache
def _rows(name: str) -> tuple[dict[str, str], ...]:
    text = resources.files("simkit.rules.pf2e").joinpath("data", name).read_text(encoding="utf-8")
    with io.StringIO(text, newline="") as fh:
        return tuple(csv.DictReader(fh))


@cache
def _filled(name: str, column: str) -> tuple[int, ...]:
    """Column ``column`` of progression table ``name`` by level 1..20, blanks carried down."""
    rows = _rows(name)
    if column not in rows[0]:
        raise ValueError(f"{name} has no column {column!r}")
    out, value = [], 0
    for r in rows:
        cell = r[column].strip()
        if cell:
            value = int(cell)
        out.append(value)
    return tuple(out)


def progression(name: str, column: str, level: int) -> int:
    """Value of a PC progression table (``pc-*.csv``) at ``level`` (1..20), blanks carried."""
    return _filled(name, column)[_level(level) - 1]


def _level(level) -> int:
    lo, hi = levels.PC_LEVEL_RANGE
    if isinstance(level, bool) or not hasattr(level, "__index__") or not lo <= int(level) <= hi:
        raise ValueError(f"level must be an integer in [{lo}, {hi}], got {level!r}")
    return int(level)


def key_ability(level: int) -> int:
    """Key ability modifier at ``level`` (``pc-ability_bonus.csv``, +4 at level 1)."""
    return progression("pc-ability_bonus.csv", "boosts/4", level)


def _ability(level: int, start: int) -> int:
    """Modifier of an ability that is ``start`` at level 1 and takes every boost."""
    if start == 4:
        return key_ability(level)
    return levels.con_modifier(level, start, boosts=True)


def _step(level: int, schedule: tuple[tuple[int, int], ...]) -> int:
    value = 0
    for start, v in schedule:
        if level >= start:
            value = v
    return value


ARMOUR_POTENCY = ((5, 1), (11, 2), (18, 3))  # GM Core, Automatic Bonus Progression
RESILIENT = ((8, 1), (14, 2), (20, 3))  # GM Core, Automatic Bonus Progression
SNEAK = ((1, 1), (5, 2), (11, 3), (17, 4))  # Player Core rogue: sneak attack dice (d6)
FONT = ((1, 4), (5, 5), (15, 6))  # Player Core cleric: divine font heals


@dataclass(frozen=True, slots=True)
class RoleSpec:
    """How a role's numbers are built (proficiency schedules are (level, bonus) pairs)."""

    class_hp: int
    con: int  # Con modifier at level 1 (boosted)
    dex: tuple[tuple[int, int], ...]  # Dex modifier by level (for AC and Reflex)
    wis: tuple[tuple[int, int], ...]  # Wis modifier by level (Will, Perception, Medicine)
    armour: tuple[tuple[int, int], ...]  # armour proficiency bonus
    armour_item: int  # armour's item bonus (full plate 6 with its Dex cap 0 = 5 in total here)
    dex_cap: int
    fort: tuple[tuple[int, int], ...]
    reflex: tuple[tuple[int, int], ...]
    will: tuple[tuple[int, int], ...]
    perception: tuple[tuple[int, int], ...]
    weapon_column: str  # column of pc-weapon_proficiency.csv
    spec_column: str  # column of pc-weapon_specialization.csv
    weapon_die: int  # faces of the weapon die (the rogue's must be 6: sneak attack adds d6s)
    strike_ability: int  # modifier at level 1 used to hit (4 = key ability)
    damage_ability: int  # modifier at level 1 added to damage (4 = key; 0 = none)
    agile: bool
    caster: str = ""  # "" / "arcane" (wizard: damaging spells) / "divine" (cleric: heals)
    spell_column: str = ""  # column of pc-spell_proficiency.csv
    sneak: bool = False


_FW = ((1, 1), (10, 2))  # +1, +2 from level 10 (the encounter's typical fighter)
#: The roles (Player Core class tables; see the module docstring and docs/pf2e-sources.md).
ROLES: dict[str, RoleSpec] = {
    "fighter": RoleSpec(
        class_hp=10,
        con=2,
        dex=_FW,
        wis=_FW,
        armour=((1, 2), (11, 4), (17, 6)),
        armour_item=5,
        dex_cap=0,
        fort=((1, 4), (9, 6)),  # Battle Hardened (9)
        reflex=((1, 4), (15, 6)),  # Tempered Reflexes (15)
        will=((1, 2), (3, 4)),  # Bravery (3)
        perception=((1, 4), (7, 6)),  # Battlefield Surveyor (7)
        weapon_column="fighter/martial/mastery",
        spec_column="fighter/mastery",
        weapon_die=12,
        strike_ability=4,
        damage_ability=4,
        agile=False,
    ),
    "rogue": RoleSpec(
        class_hp=8,
        con=1,
        dex=(),
        wis=_FW,
        armour=((1, 2), (13, 4), (19, 6)),
        armour_item=1,
        dex_cap=4,
        fort=((1, 2), (9, 4)),  # Rogue Resilience (9)
        reflex=((1, 4), (7, 6), (13, 8)),  # Evasive Reflexes (7), Greater Rogue Reflexes (13)
        will=((1, 4), (17, 6)),  # Agile Mind (17)
        perception=((1, 4), (7, 6), (13, 8)),  # Perception Mastery (7), Legend (13)
        weapon_column="$martial",
        spec_column="$martial",
        weapon_die=6,
        strike_ability=4,
        damage_ability=4,
        agile=True,
        sneak=True,
    ),
    "cleric": RoleSpec(
        class_hp=8,
        con=1,
        dex=_FW,
        wis=(),
        armour=((1, 2), (13, 4)),
        armour_item=1,
        dex_cap=4,
        fort=((1, 2), (3, 4)),  # cloistered cleric: Second Doctrine (3) expert
        reflex=((1, 2), (11, 4)),  # Reflex Expertise (11)
        will=((1, 4), (9, 6)),  # Resolute Faith (9) master; nothing later
        perception=((1, 2), (5, 4)),  # Perception Expertise (5)
        weapon_column="cleric/cloistered cleric",
        spec_column="cleric/cloistered cleric",
        weapon_die=6,
        strike_ability=1,
        damage_ability=1,
        agile=False,
        caster="divine",
        spell_column="cleric/cloistered cleric",
    ),
    "wizard": RoleSpec(
        class_hp=6,
        con=1,
        dex=((1, 2), (5, 3), (10, 4), (20, 5)),
        wis=_FW,
        armour=((1, 2), (13, 4)),
        armour_item=0,
        dex_cap=99,
        fort=((1, 2), (9, 4)),  # Magical Fortitude (9)
        reflex=((1, 2), (5, 4)),  # Reflex Expertise (5)
        will=((1, 4), (17, 6)),  # Prodigious Will (17) master; nothing at 7
        perception=((1, 2), (11, 4)),  # Perception Expertise (11)
        weapon_column="$spellcaster",
        spec_column="$spellcaster",
        weapon_die=4,
        strike_ability=2,
        damage_ability=0,
        agile=False,
        caster="arcane",
        spell_column="$spellcaster",
    ),
}


def heal_dice(level: int) -> str:
    """Two-action *heal* of a cleric of ``level``: ``r d8 + 8 r``, r = ceil(level / 2) <= 10
    (Player Core, *heal*: 1d8 + 8 per rank for the two-action version)."""
    r = min(10, (_level(level) + 1) // 2)
    return f"{r}d8+{8 * r}"


def role_names() -> tuple[str, ...]:
    """The role names, in :data:`ROLES` order."""
    return tuple(ROLES)


@dataclass(frozen=True, slots=True)
class PCStats:
    """One PC's numbers at one level (bonuses are d20 modifiers; dice are strings)."""

    role: str
    level: int
    hp: int
    ac: int
    fort: int
    reflex: int
    will: int
    perception: int
    attack: int  # strike attack bonus
    damage: str  # strike damage dice, e.g. "2d12+7"
    agile: bool
    strikes: int  # strikes per turn (the third action is not modelled)
    spell_dc: int | None  # class spell DC (casters), else None
    spell_attack: int | None
    area: str | None  # wizard: top-rank basic-Reflex area spell
    slots: int  # area spells per fight
    cantrip: str | None  # wizard: basic-Reflex cantrip
    heal: str | None  # cleric: one heal spell
    heals: int  # heals per fight
    medicine: int | None  # first aid bonus (R1-02), None = no first aid
    con: int  # Con modifier (hourly checks, R1-06)
    pp_max: int  # perseverance points (seed 001)
    pe_max: int  # stamina points (seed 001, A1-5): rules.rest.pe_max
    temp_hp: int | None = None  # temporary HP at a fresh start (R0-14); None: the fight's
    # temporary HP it grants an ally in a fight (R0-14, AP-37): each grant's HP (0: none)
    # and its grants a fight
    grant_temp_hp: int = 0
    grant_uses: int = 1
    # its own rule at 0 HP (issue 31): a custom track's name (``dying``), and the PF2e
    # options of the seed-000 track (P-13..P-16); None: the fight's
    dying: str | None = None
    toughness: bool | None = None
    diehard: bool | None = None
    fortune: str | None = None
    hero_use: str | None = None


def _dice(count: int, faces: int, bonus: int) -> str:
    return f"{count}d{faces}" + (f"+{bonus}" if bonus > 0 else "")


def role(name: str, level: int) -> PCStats:
    """The numbers of a PC of role ``name`` at ``level`` (1..20).

    Examples
    --------
    >>> role("fighter", 1).hp, role("fighter", 1).attack
    (20, 9)
    """
    if name not in ROLES:
        near = suggest(name, ROLES)
        raise ValueError(f"role must be one of {', '.join(ROLES)}; got {name!r}{near}")
    level = _level(level)
    s = ROLES[name]
    key = key_ability(level)
    con = _ability(level, s.con)
    dex = key if not s.dex else _step(level, s.dex)
    wis = key if not s.wis else _step(level, s.wis)
    resil = _step(level, RESILIENT)
    potency = progression("pc-attack_item_bonus.csv", "potency_rune", level)
    striking = progression("pc-weapon_dice.csv", "striking_rune", level)
    weapon = progression("pc-weapon_proficiency.csv", s.weapon_column, level)
    spec = progression("pc-weapon_specialization.csv", s.spec_column, level)
    strike_mod = _ability(level, s.strike_ability)
    dmg_mod = _ability(level, s.damage_ability) if s.damage_ability else 0
    damage = _dice(striking, s.weapon_die, dmg_mod + spec)
    if s.sneak:  # sneak attack d6s join the weapon's d6s (both double on a critical)
        damage = _dice(striking + _step(level, SNEAK), 6, dmg_mod + spec)
    if s.armour_item == 5 and s.dex_cap == 0:
        ac_base = 5  # the typical fighter: armour and Dex together (creatures.pc_ac)
    else:
        ac_base = s.armour_item + min(dex, s.dex_cap)
    ac = 10 + ac_base + level + _step(level, s.armour) + _step(level, ARMOUR_POTENCY)
    rank = min(10, (level + 1) // 2)
    spell_dc = spell_attack = None
    area = cantrip = heal = None
    slots = heals = 0
    medicine = None
    if s.caster:
        prof = progression("pc-spell_proficiency.csv", s.spell_column, level)
        spell_dc = 10 + level + prof + key
        spell_attack = spell_dc - 10
    if s.caster == "arcane":
        area, slots, cantrip = f"{2 * rank}d6", 2, f"{rank + 1}d4"
    if s.caster == "divine":
        heal, heals = heal_dice(level), _step(level, FONT)
        medicine = level + 2 + wis
    return PCStats(
        role=name,
        level=level,
        hp=ANCESTRY_HP + (s.class_hp + con) * level,
        ac=ac,
        fort=level + _step(level, s.fort) + con + resil,
        reflex=level + _step(level, s.reflex) + dex + resil,
        will=level + _step(level, s.will) + wis + resil,
        perception=level + _step(level, s.perception) + wis,
        attack=level + weapon + strike_mod + potency,
        damage=damage,
        agile=s.agile,
        strikes=2,
        spell_dc=spell_dc,
        spell_attack=spell_attack,
        area=area,
        slots=slots,
        cantrip=cantrip,
        heal=heal,
        heals=heals,
        medicine=medicine,
        con=con,
        pp_max=levels.pp_max(level, 4),
        pe_max=int(_pe_max_rule(level, s.class_hp, con)),
    )


MAX_PARTY = 8


#: The numbers of a PC a party may give explicitly: ``fighter(hp_max=80;ac=23)`` (see
#: :mod:`simkit.rules.overrides`). The role still decides what the PC does.
PC_FIELDS: dict[str, overrides.Field] = {
    "hp_max": overrides.Field("int", 1, 10_000),
    **{
        k: overrides.Field("int", -10, 100)
        for k in ("ac", "fort", "reflex", "will", "perception", "attack", "spell_dc", "medicine")
    },
    **{k: overrides.Field("dice") for k in ("damage", "area", "cantrip", "heal")},
    "agile": overrides.Field("bool"),
    "slots": overrides.Field("int", 0, 20),
    "heals": overrides.Field("int", 0, 20),
    "con": overrides.Field("int", -5, 10),
    "pp_max": overrides.Field("int", 0, 100),
    "pe_max": overrides.Field("int", 0, 10_000),
    "temp_hp": overrides.Field("int", 0, 10_000),
    "grant_temp_hp": overrides.Field("int", 0, 10_000),
    "grant_uses": overrides.Field("int", 1, 20),
    # the PC's own rule at 0 HP (issue 31): a custom track (the party checks the name) and
    # the seed-000 track's PF2e options (P-13..P-16)
    "dying": overrides.Field("spec"),
    "toughness": overrides.Field("bool"),
    "diehard": overrides.Field("bool"),
    "fortune": overrides.Field("choice", names=("none", "fortune", "misfortune")),
    "hero_use": overrides.Field("choice", names=("recover", "reroll")),
}


#: Old names of PC keys, still read for one release with a ``FutureWarning``: a PC's
#: ``hp`` was its maximum HP while the fight's ``hp`` is the starting HP.
OLD_PC_KEYS = {"hp": "hp_max"}

#: PC keys -> the :class:`PCStats` field they set (where the names differ).
_PC_STAT = {"hp_max": "hp"}

#: Numbers that only some roles use (what a PC does comes from its role).
ROLE_ONLY: dict[str, frozenset[str]] = {
    "wizard": frozenset({"spell_dc", "area", "cantrip", "slots"}),
    "cleric": frozenset({"spell_dc", "heal", "heals", "medicine"}),
}


def party_members(value) -> tuple[tuple[str, dict[str, object]], ...]:
    """The PCs of a party text: ``(role, explicit numbers)`` each; raises ValueError naming
    what is allowed."""
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    if not isinstance(value, str):
        raise TypeError(f"a party is a comma list of roles, got {value!r}")
    items = overrides.split_items(value, "party")
    if not 1 <= len(items) <= MAX_PARTY:
        raise ValueError(f"a party has 1 to {MAX_PARTY} PCs, got {len(items)}")
    out = []
    for name, body in items:
        if name not in ROLES:
            raise ValueError(unknown("role", name, ROLES))
        old = {k: PC_FIELDS[new] for k, new in OLD_PC_KEYS.items()}
        values = overrides.parse_pairs(body, {**PC_FIELDS, **old}, f"party: {name}")
        for key, new in OLD_PC_KEYS.items():
            if key not in values:
                continue
            if new in values:
                raise ValueError(f"party: {name}: give {new} only ({key} is its old name)")
            import warnings

            warnings.warn(
                f"party: {name}({key}=...) is the PC's maximum HP: write {new}= "
                f"({key}= will be removed in simkit 0.4; the fight's hp= is the starting HP)",
                FutureWarning,
                stacklevel=2,
            )
            values[new] = values.pop(key)
        for key in values:
            owner = [r for r, keys in ROLE_ONLY.items() if key in keys]
            if owner and name not in owner:
                raise ValueError(f"party: {key} is a number of the {' or '.join(owner)} only")
        out.append((name, values))
    return tuple(out)


def parse_party(value) -> str:
    """A party as a canonical comma list of roles (1..:data:`MAX_PARTY`), each with its
    explicit numbers if any, e.g. ``"fighter(ac=23;hp_max=80),rogue,cleric,wizard"``; raises
    ValueError naming what is allowed."""
    return ",".join(
        overrides.canonical(name, values, PC_FIELDS) for name, values in party_members(value)
    )


def member(name: str, values: dict[str, object], level: int) -> PCStats:
    """PC of role ``name`` at ``level`` (:func:`role`), with ``values`` replacing its
    numbers (``hp_max`` sets its maximum HP, :attr:`PCStats.hp`)."""
    return overrides.apply(role(name, level), {_PC_STAT.get(k, k): v for k, v in values.items()})


register_kind(
    "party",
    parse_party,
    f"a comma list of 1..{MAX_PARTY} roles among {', '.join(ROLES)}, each optionally with "
    "its numbers, e.g. fighter(hp_max=80;ac=23) or fighter(dying=dnd5e(bonus=2;dc=12))",
    show_reason=True,
)
