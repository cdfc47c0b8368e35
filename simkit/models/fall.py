"""Seed 004: falls by height (R4-07, A4-1), with seed-000 HP rules (R0-01, R0-13, R0-14).

One fall per track, resolved at step 0 (``time_unit = "falls"``, horizon 0). The
height is drawn from ``height`` (one value, a list, or a uniform range; see
:mod:`simkit.rules.heights`); its band gives the damage (R4-07):

======================  ========================================================
height                  effect
======================  ========================================================
under 2 m               none (``standing``)
2 m to under 4 m        1d6
4 m to under 6 m        2d6
6 m to under 8 m        3d6
8 m to under 10 m       4d6 (``reading="table"``, default) or 3d6
                        (``reading="example"``: the worked example's 8 m -> 3d6, A4-1)
10 m to under 12 m      HP drop to 0, unconscious, no HP deterioration (``ko``)
12 m or more            ``dead``
======================  ========================================================

Damage removes temporary HP first (R0-14), then HP; at 0 HP the faller is ``ko``
(knocked out), else ``standing``. With ``massive_damage=true`` (seed-000 rules,
R0-13) a fall dealing at least twice the faller's maximum HP kills outright (the raw
damage counts, temporary HP included). The 10-<12 m band is not damage: temporary HP
do not stop it, and it never kills by massive damage.

HP: the maximum HP are ``hp_max``, else those of ``level`` (R0-01): ``ancestry_hp +
(class_hp + con) * level`` (at least ``hp``); the faller has ``hp`` (current HP), else
its maximum. Massive damage (R0-13) is judged against the maximum, never the current HP.

A fall of exactly 12 m (A4-4, ``at_12m``): dead (default, the table's "12 m or more")
or knocked out (``ko``: the text's "between 10 and 12 m", death "beyond 12 m").

Marks: ``damage`` (the fall damage rolled, in HP; 0 when no dice are rolled: under
2 m, 10-<12 m, 12 m or more) and ``band`` (0 = under 2 m, 1..4 = dice bands, 5 =
10-<12 m, 6 = 12 m or more). :meth:`Fall.exact_marks` gives their exact distribution.

:class:`FallDying` chains a fall into the seed-000 ``dying`` track: a ``ko`` by
damage is a lethal knock-out (dying 1, R0-03); the 10-<12 m band's 0 HP does not
start dying (R4-07: no HP deterioration) and stays ``ko``. :class:`FallPerseverance`
does the same with seed 001's agonising track (``perseverance``, R1-01).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity, carried
from simkit.core.ambiguity import reading as _r
from simkit.core.chain import ChainRules
from simkit.core.model import Rules
from simkit.core.params import ParamError, param, spec
from simkit.models.dying import DEFAULT_DC, Dying
from simkit.models.perseverance import Perseverance
from simkit.rules.fall import (
    BAND_DEAD,
    BAND_KO,
    DEAD,
    FALL_EDGES,
    KO,
    STANDING,
    TWELVE_M,
    band_of,
    fall_cells,
    fall_dice,
    fall_phase,
    fall_result,
    twelve_metres,
)
from simkit.rules.heights import parse_heights
from simkit.rules.parameters import shared
from simkit.rules.pf2e.levels import monster_high_dc

__all__ = [
    "Fall",
    "FallDying",
    "FallPerseverance",
    "FALL_EDGES",
    "max_hp_at",
    "fall_dice",
    "band_of",
    "BAND_KO",
    "BAND_DEAD",
    "DEAD",
    "KO",
    "STANDING",
]  # the rule's names: simkit.rules.fall


#: A4-5's readings: the recovery DC after a fall (R0-06: a fall has no source DC).
FALL_DC = ("fixed", "level")


def max_hp_at(level: int, ancestry_hp: int, class_hp: int, con: int) -> int:
    """Maximum HP at ``level`` (R0-01): ancestry HP + (class HP + Con modifier) x level."""
    return ancestry_hp + (class_hp + con) * level


#: The ambiguities of docs/rules.md this model carries (the ambiguity report, compare).
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A4-1",
        "R4-07",
        "fall",
        "reading",
        "a fall of 8 m: 4d6 (the table, 1d6 per 2 m) or 3d6 (the worked example)",
        (_r("table", {"reading": "table"}, True), _r("example", {"reading": "example"})),
        setup={"height": 8},
        outcome="ko",
    ),
    Ambiguity(
        "A4-4",
        "R4-07",
        "fall",
        "at_12m",
        "a fall of exactly 12 m: dead (the table, 12 m or more) or knocked out (the text)",
        (_r("dead", {"at_12m": "dead"}, True), _r("knocked out", {"at_12m": "ko"})),
        setup={"height": 12},
    ),
)


@dataclass(frozen=True, slots=True)
class Fall(Rules):
    """Seed-004 fall damage by height (R4-07, A4-1), R0-13 massive damage, R0-14 temporary HP."""

    name: ClassVar[str] = "fall"
    time_unit: ClassVar[str] = "falls"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "ko", "standing")
    marks: ClassVar[tuple[str, ...]] = ("damage", "band")
    rule_ids: ClassVar[str] = "R4-07, R0-01, R0-13, R0-14; A4-1, A4-4"
    headline_params: ClassVar[tuple[str, ...]] = ('height', 'level', 'reading', 'massive_damage')
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = AMBIGUITIES
    has_exact: ClassVar[bool] = True
    has_exact_hist: ClassVar[bool] = True  # one step: exact_hist, no chain of states
    horizon_param: ClassVar[str] = ""
    rolls_d20: ClassVar[bool] = False
    #: Outcome code of the 10-<12 m band (``ko``; :class:`FallDying` tells it apart).
    _band_ko: ClassVar[int] = KO

    height: str = shared("height")
    reading: str = param(
        "table",
        kind="choice",
        choices=("table", "example"),
        rule="A4-1",
        help="8-<10 m: 4d6 (table) or 3d6 (the worked example)",
    )
    at_12m: str = param(
        "dead",
        kind="choice",
        choices=TWELVE_M,
        rule="A4-4",
        seed_neutral=True,
        help="a fall of exactly 12 m: dead (the table: 12 m or more) or ko (the text: "
        "between 10 and 12 m, death beyond 12 m)",
    )
    level: int = shared("level")
    ancestry_hp: int = param(8, kind="int", lo=0, hi=100, rule="R0-01", help="ancestry HP")
    class_hp: int = param(8, kind="int", lo=0, hi=100, rule="R0-01", help="class HP per level")
    con: int = shared("con", default=2)
    hp: int | None = shared("hp")
    hp_max: int | None = shared("hp_max")
    temp_hp: int = shared("temp_hp")
    massive_damage: bool = shared("massive_damage")

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """A faller of ``level`` (its HP follow the level, R0-01)."""
        return {"level": level}

    def validate(self) -> None:
        if self.hp == 0:
            raise ParamError(
                "hp=0 is not allowed for a fall: hp must be at least 1 (or none = full HP)"
            )
        if self.hp is not None and self.hp_max is not None and self.hp > self.hp_max:
            raise ParamError(f"hp={self.hp} must be at most hp_max={self.hp_max}")
        if self.hp_max is None and self.level_max_hp < 1 and (self.hp is None or self.hp < 1):
            raise ParamError(
                f"level={self.level}, ancestry_hp={self.ancestry_hp}, "
                f"class_hp={self.class_hp}, con={self.con} "
                f"give {self.max_hp} max HP: must be at least 1"
            )

    @property
    def horizon(self) -> int:
        return 0

    @property
    def heights(self):
        """The height distribution, a listed 12 m read as A4-4 ``at_12m`` says."""
        return twelve_metres(parse_heights(self.height), self.at_12m)

    @property
    def level_max_hp(self) -> int:
        """Maximum HP of a character of ``level`` (R0-01)."""
        return max_hp_at(self.level, self.ancestry_hp, self.class_hp, self.con)

    @property
    def max_hp(self) -> int:
        """Maximum HP (R0-01, judged by massive damage, R0-13): ``hp_max``, else from
        ``level`` (at least ``hp``: a character given more HP than its level's maximum has
        that many at most)."""
        if self.hp_max is not None:
            return self.hp_max
        if self.hp is not None:
            return max(self.hp, self.level_max_hp)
        return self.level_max_hp

    @property
    def current_hp(self) -> int:
        return self.hp if self.hp is not None else self.max_hp

    # -- scalar reference ----------------------------------------------------------
    def _rule(self) -> dict:
        """The faller's numbers, as :func:`simkit.rules.fall.fall_result` takes them."""
        return dict(
            hp=self.current_hp,
            hp_max=self.max_hp,
            temp_hp=self.temp_hp,
            massive_damage=self.massive_damage,
            reading=self.reading,
            band_ko=self._band_ko,
        )

    def ref_fall(self, band: int, rolls=()) -> tuple[int, int, int]:
        """One fall: ``(outcome code, damage, band)`` for a band of R4-07 and the natural d6s.

        ``rolls`` are natural d6s; the band's first :func:`fall_dice` of them count. The
        rule is :func:`simkit.rules.fall.fall_result`; :func:`band_of` gives a height's band.
        """
        k = fall_dice(band, self.reading)
        code, damage = fall_result(band, sum(rolls[:k]), **self._rule())
        return code, damage, band

    # -- vectorised kernel: the band, then one uniform integer for the dice, two lookups ----
    def init(self, n, rng):
        codes, damage, band = fall_phase(n, rng, self.heights, **self._rule())
        return {"damage": damage, "band": band}, codes  # (n,) damage rolled, band 0..6

    def step(self, state, t, rng):  # pragma: no cover - every track ends at step 0
        raise RuntimeError("a fall is resolved at step 0")

    # -- exact: every band, every combination of its d6s, through the same rule --------------
    def _exact_cells(self):
        """``(probability, outcome code, damage, band)`` over every case, exactly."""
        return fall_cells(self.heights.band_probabilities(FALL_EDGES), **self._rule())

    def exact_hist(self) -> np.ndarray:
        """Exact outcome probabilities, shape (n_outcomes, 1) (all at step 0)."""
        hist = np.zeros((len(self.outcomes), 1))
        for p, code, _, _ in self._exact_cells():
            hist[code, 0] += p
        return hist

    def exact_marks(self, name: str) -> np.ndarray:
        """Exact counterpart of ``Result.marks[name] / n``: shape (n_outcomes, max value + 1)."""
        if name not in self.marks:
            raise ParamError(f"mark {name!r} unknown; marks: {', '.join(self.marks)}")
        cells = list(self._exact_cells())
        col = 2 if name == "damage" else 3
        width = max(c[col] for c in cells) + 1
        out = np.zeros((len(self.outcomes), width))
        for c in cells:
            out[c[1], c[col]] += c[0]
        return out

    def exact_damage(self) -> dict[int, float]:
        """Exact distribution of the fall damage rolled (HP): {damage: probability}."""
        p = self.exact_marks("damage").sum(axis=0)
        return {int(d): float(p[d]) for d in np.flatnonzero(p)}


@dataclass(frozen=True, slots=True)
class _FallStage(Fall):
    """A fall whose 10-<12 m knock-out is its own outcome (first stage of the fall chains)."""

    name: ClassVar[str] = "fall"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "ko", "standing", "ko_not_dying")
    _band_ko: ClassVar[int] = 3


_FALL_PARAMS = (
    "height",
    "reading",
    "level",
    "ancestry_hp",
    "class_hp",
    "con",
    "hp",
    "hp_max",
    "temp_hp",
    "at_12m",
    "massive_damage",
)


def _final(first: str, second: str | None) -> str:
    if first == "ko_not_dying":
        return "ko"  # 10-<12 m: 0 HP, unconscious, no HP deterioration (R4-07)
    return first if second is None else second


@dataclass(frozen=True, slots=True)
class _FallChain(ChainRules):
    """The fall's parameters, shared by the chains that start with a fall."""

    params_from: ClassVar[tuple[tuple[type, tuple[str, ...]], ...]] = (
        (Fall, _FALL_PARAMS[:-1]),  # all but massive_damage
    )
    param_defaults: ClassVar[dict[str, Any]] = {"height": "9"}


@dataclass(frozen=True, slots=True)
class FallDying(_FallChain):
    """A fall (R4-07) whose lethal knock-out continues as the seed-000 dying track (R0-03..R0-10).

    Outcomes: ``dead`` (the fall, or the dying track), ``standing``, ``ko`` (the
    10-<12 m band: 0 HP, unconscious, not dying, R4-07), and the dying track's
    ``stable`` and ``revived``. A fall has no DC (R0-06): ``dc`` is the GM's, by
    default the dying model's 22 at every level (``fall_dc="fixed"``), or the high DC of a
    creature of the faller's ``level`` (``fall_dc="level"``, A4-5, as the ``day`` model
    reads it). ``massive_damage`` is on (seed-000 rules, R0-13).
    """

    name: ClassVar[str] = "fall_dying"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "standing", "ko", "stable", "revived")
    rule_ids: ClassVar[str] = "R4-07, R0-01, R0-03..R0-10, R0-13, R0-14; A4-1, A4-4, A4-5, A0-4"
    headline_params: ClassVar[tuple[str, ...]] = (
        'height',
        'level',
        'save_bonus',
        'dc',
        'massive_damage',
    )
    active_label: ClassVar[str] = "still dying"

    _DYING = (
        "save_bonus",
        "dc",
        "check",
        "check_penalty",
        "hero_points",
        "heal_round",
        "max_rounds",
        "dc_dying",  # A0-8
        "toughness",  # P-13..P-16: the PF2e options on the dying track
        "diehard",
        "fortune",
        "hero_use",
    )
    params_from: ClassVar = ((Fall, ("massive_damage",)), (Dying, _DYING))
    param_defaults: ClassVar = {"massive_damage": True}  # seed-000 rules (R0-13)

    fall_dc: str = param(
        "fixed",
        kind="choice",
        choices=FALL_DC,
        rule="A4-5",
        seed_neutral=True,
        help="recovery DC after a fall (no source DC): fixed (dc, default 22) or level "
        "(the high DC of a creature of the faller's level, R0-06)",
    )

    def validate(self) -> None:
        if self.fall_dc == "level" and getattr(self, "dc") is not None:
            raise ParamError("dc and fall_dc=level are exclusive: give one of them (A4-5)")
        self.stages()  # each stage validates its own parameters

    @property
    def recovery_dc(self) -> int:
        """The recovery DC before dying (R0-06, A4-5)."""
        dc = getattr(self, "dc")  # the fields of params_from (not seen by mypy)
        if self.fall_dc == "level":
            return monster_high_dc(getattr(self, "level"))
        return dc if dc is not None else DEFAULT_DC

    def stages(self):
        falling = {k: getattr(self, k) for k in _FALL_PARAMS}
        if getattr(self, "toughness") and falling["hp_max"] is None:
            # P-13: Toughness adds the level to the maximum HP the level gives (R0-01)
            lv = falling["level"]
            top = max_hp_at(lv, falling["ancestry_hp"], falling["class_hp"], falling["con"]) + lv
            falling["hp_max"] = max(top, falling["hp"] or 0)
        fall = _FallStage(**falling)
        given = {k: getattr(self, k) for k in self._DYING}
        given["dc"] = self.recovery_dc
        dying = Dying(start=1, **given)  # lethal knock-out (R0-03)
        return fall, {"ko": dying}

    def final_outcome(self, first: str, second: str | None) -> str:
        return _final(first, second)


@dataclass(frozen=True, slots=True)
class FallPerseverance(_FallChain):
    """A fall (R4-07) whose knock-out continues as the seed-001 agonising track (R1-01..R1-05).

    Outcomes: ``dead``, ``standing``, ``ko`` (the 10-<12 m band: 0 HP, unconscious,
    no HP deterioration, R4-07: not agonising), and the perseverance track's
    ``stable``, ``revived`` and ``back``. Seed 001 has no massive damage rule:
    ``massive_damage`` is off unless set.
    """

    name: ClassVar[str] = "fall_perseverance"
    time_unit: ClassVar[str] = "rounds"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "standing", "ko", "stable", "revived", "back")
    rule_ids: ClassVar[str] = "R4-07, R0-01, R0-14, R1-01..R1-05; A4-1, A1-1, A1-3"
    headline_params: ClassVar[tuple[str, ...]] = ('height', 'level', 'pp', 'spend', 'medic_bonus')
    active_label: ClassVar[str] = "still agonising"

    params_from: ClassVar = (
        (Fall, ("massive_damage",)),
        (Perseverance, tuple(k for k in spec(Perseverance) if k != "nonlethal")),
    )

    def validate(self) -> None:
        self.stages()

    def stages(self):
        fall = _FallStage(**{k: getattr(self, k) for k in _FALL_PARAMS})
        agony = Perseverance(
            **{k: getattr(self, k) for k in spec(Perseverance) if k != "nonlethal"}
        )
        return fall, {"ko": agony}

    def final_outcome(self, first: str, second: str | None) -> str:
        return _final(first, second)


FallDying.ambiguities = carried(spec(FallDying), Fall, Dying) + (
    Ambiguity(
        "A4-5",
        "R4-07/R0-06",
        "fall_dying",
        "fall_dc",
        "the recovery DC after a fall (no source DC): a fixed DC, or a creature of the "
        "faller's level",
        (_r("fixed 22", {"fall_dc": "fixed"}, True), _r("level", {"fall_dc": "level"})),
        setup={"height": "8", "hp": 5},
    ),
)
FallPerseverance.ambiguities = carried(spec(FallPerseverance), Fall, Perseverance)
