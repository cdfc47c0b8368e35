"""The cost of every ambiguity of docs/rules.md: the headline odds under each reading.

:data:`AMBIGUITIES` lists every ambiguity of ``docs/rules.md`` (A0-1..A0-7,
A1-1..A1-6, A4-1..A4-3) with the model and parameter(s) that express it and its
readings (parameter overrides, the documented default first-class). Some readings only
matter in a situation (damage while dying needs an enemy that hits the downed
character; the 0-PP reading needs a character with 0 PP): each entry carries that
``setup``.

:func:`ambiguity_report` computes, for every entry whose model is registered, the
headline probability (``dead``) under each reading for a typical character at a few
levels (:func:`typical_params`), exact where the model has a solver, Monte Carlo with
intervals otherwise. Entries whose model is not registered are listed with the status
``model not available``; entries whose parameters the model does not know are listed
with an ``error: ...`` status. :func:`side_by_side` turns the long table into one line
per ambiguity and level, with the spread between readings: which unclear sentence
matters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from simkit.core.params import ParamError

__all__ = ["Ambiguity", "Reading", "AMBIGUITIES", "ambiguity_report", "side_by_side", "typical_character",
           "typical_params", "typical_fortitude", "REPORT_COLUMNS"]

#: Columns of :func:`ambiguity_report`.
REPORT_COLUMNS = ("ambiguity", "rule", "model", "param", "level", "reading", "default", "outcome", "p", "ci_low",
                  "ci_high", "method", "status")


@dataclass(frozen=True)
class Reading:
    """One reading of an ambiguous sentence: a label and the parameters that express it."""

    label: str
    params: MappingProxyType
    default: bool = False

    def __init__(self, label: str, params: dict, default: bool = False):
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "params", MappingProxyType(dict(params)))
        object.__setattr__(self, "default", default)


@dataclass(frozen=True)
class Ambiguity:
    """An ambiguity of docs/rules.md and how simkit expresses it.

    Attributes
    ----------
    id : str
        ``A0-1`` ... ``A4-3``.
    rule : str
        The rule(s) it is about (``R0-09``).
    model : str
        The registered model that carries the parameter.
    param : str
        The parameter whose values are the readings (some readings set others too).
    question : str
        The ambiguity in one line.
    readings : tuple of Reading
        Exactly one has ``default=True`` (the reading simkit uses unless told).
    setup : dict
        Parameters of the situation in which the readings differ.
    outcome : str
        The headline outcome reported.
    note : str
        For an ambiguity no track model carries: where simkit offers its readings
        (reported as the row's status).
    """

    id: str
    rule: str
    model: str
    param: str
    question: str
    readings: tuple
    setup: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    outcome: str = "dead"
    note: str = ""

    def __post_init__(self):
        if sum(r.default for r in self.readings) != 1:
            raise ValueError(f"ambiguity {self.id}: exactly one reading must be the default")
        object.__setattr__(self, "setup", MappingProxyType(dict(self.setup)))

    @property
    def default_reading(self) -> Reading:
        return next(r for r in self.readings if r.default)


def _r(label, params, default=False):
    return Reading(label, params, default)


# An enemy that keeps attacking the downed character (20% normal hits, 5% critical hits
# a round): the situation in which the damage-while-dying readings differ.
_HITS = {"hit_chance": 0.2, "crit_chance": 0.05}

#: Every ambiguity of docs/rules.md. Parameter names of models not yet in the registry are
#: the ones their issues announce; ``ambiguity_report`` flags any that do not match.
AMBIGUITIES: tuple[Ambiguity, ...] = (
    Ambiguity("A0-1", "R0-09", "dying", "on_damage",
              "damage while dying: keep the higher dying value, or add 1 (2 on a critical)",
              (_r("max", {"on_damage": "max"}, True), _r("increment", {"on_damage": "increment"})),
              setup=_HITS),
    Ambiguity("A0-2", "R0-05", "dying", "wounded_rule",
              "no wounded condition in the seed; published PF2e adds wounded to dying gained",
              (_r("no wounded", {"wounded_rule": False}, True),
               _r("wounded 1", {"wounded_rule": True, "wounded": 1})),
              setup=_HITS),
    Ambiguity("A0-3", "R0-10", "dying", "hero_policy",
              "when a character spends its hero point (one hero point)",
              (_r("never", {"hero_policy": "never"}), _r("immediately", {"hero_policy": "immediately"}),
               _r("at dying 3", {"hero_policy": 3}), _r("at death", {"hero_policy": "at_death"}, True)),
              setup={"hero_points": 1}),
    Ambiguity("A0-4", "R0-05/R0-06", "dying", "check",
              "recovery check: Fortitude save vs the source's DC + dying, or flat check DC 10 + dying",
              (_r("save", {"check": "save"}, True), _r("flat", {"check": "flat"}))),
    Ambiguity("A0-5", "R0-06", "dying", "monster_dc",
              "a monster's high DC: level DC + hard adjustment, or 10 + its High skill modifier",
              (_r("table", {"monster_dc": "table"}, True), _r("skill", {"monster_dc": "skill"}))),
    Ambiguity("A0-6", "A0-2/A0-1", "dying", "wounded_adds",
              "with the increment and the wounded rule: does wounded add to every hit while dying?",
              (_r("on gain", {"wounded_adds": "on_gain"}, True), _r("every hit", {"wounded_adds": "every_hit"})),
              setup={"check": "flat", "on_damage": "increment", "wounded_rule": True, "wounded": 1,
                     "hero_effect": "stabilize", "hit_chance": 0.3, "crit_chance": 0.1}),
    Ambiguity("A0-7", "R0-10/R0-04", "dying", "hero_knockout",
              "a knock-out reaching the death value with a hero point held: spend it, or die",
              (_r("spend", {"hero_knockout": "spend"}, True), _r("die", {"hero_knockout": "die"})),
              setup={"crit": True, "death_at": 2, "hero_points": 1}),
    Ambiguity("A1-1", "R1-01", "perseverance", "zero_pp",
              "reaching 0 HP with 0 PP: dead at once, or at the end of its first turn",
              (_r("at once", {"zero_pp": "at_once"}, True), _r("end of turn", {"zero_pp": "end_of_turn"})),
              setup={"pp": 0, "medic_bonus": 5}),
    Ambiguity("A1-2", "R1-06/R1-07", "recovery", "checks",
              "a Constitution check in the 8th hour before the automatic wake-up: 8 checks or 7",
              (_r("8 checks", {"checks": 8}, True), _r("7 checks", {"checks": 7}))),
    Ambiguity("A1-3", "R1-05", "perseverance", "enough_pp",
              "'enough PP' to get back in the fight: 1 PP, or a reserve the designer sets",
              (_r("1 PP", {"enough_pp": 1}, True), _r("reserve 3", {"enough_pp": 3})),
              setup={"back_in_fight": True, "spend": "asap", "pp": 4, "pp_max": 8}, outcome="back"),
    Ambiguity("A1-4", "R1-12", "recovery", "con",
              "ability damage: modifier from the damaged score, or -1 modifier per point "
              "(Constitution 14 after 4 points of damage)",
              (_r("score", {"con": 0}, True), _r("per point", {"con": -2}))),
    Ambiguity("A1-5", "R1-10", "rest", "reading",
              "whether damage takes stamina points (PE) before hit points",
              (_r("PE first", {"reading": "pe_first"}, True), _r("HP only", {"reading": "hp_only"})),
              note="no track model: simkit.rules.rest.split_damage(reading='pe_first'|'hp_only')"),
    Ambiguity("A1-6", "R1-06", "recovery", "natural",
              "the hourly Constitution check: no natural 20/1 rule (as written), or with it",
              (_r("no natural 20/1", {"natural": False}, True), _r("natural 20/1", {"natural": True})),
              setup={"healer": 5}),
    Ambiguity("A4-1", "R4-07", "fall", "reading",
              "a fall of 8 m: 4d6 (the table, 1d6 per 2 m) or 3d6 (the worked example)",
              (_r("table", {"reading": "table"}, True), _r("example", {"reading": "example"})),
              setup={"height": 8}, outcome="ko"),
    Ambiguity("A4-2", "R4-02", "fatigue", "food_water",
              "'without eating or drinking': one counter for food and water, or separate counters",
              (_r("one counter", {"food_water": "together"}, True), _r("separate", {"food_water": "separate"}))),
    Ambiguity("A4-3", "R4-05", "fatigue", "care",
              "what 'care' stops the 3-day clock of an unconscious character",
              (_r("food", {"care": "fed"}, True), _r("food or tending (50%/day)", {"care": "tended", "p_care": 0.5}),
               _r("rescue only", {"care": "rescue"}))),
)


# -- the typical character ------------------------------------------------------------------------
def typical_fortitude(level: int) -> int:
    """Fortitude modifier of a typical PF2e character of ``level`` (1..20).

    :func:`simkit.rules.levels.fortitude_save` with its defaults: a fighter's schedule (expert
    from level 1, master from 9), Constitution +2 with the boosts of levels 5/10/15/20,
    resilient runes (+1 from level 8, +2 from 14, +3 from 20).
    """
    from simkit.rules.levels import fortitude_save

    return fortitude_save(level)


def typical_character(model: str, level: int) -> dict[str, Any]:
    """Parameters describing a typical character of ``level`` (1..20) in ``model``.

    ``dying``: its Fortitude save (:func:`typical_fortitude`). ``recovery`` and
    ``agony``: ``level`` and its Constitution modifier (+2, raised by the boosts of
    levels 5/10/15/20); ``perseverance`` and ``agony``: PP max by level (all PP left);
    ``fall``, ``encounter``: ``level``. Other models: nothing. All from
    :mod:`simkit.rules.levels`.
    """
    if not isinstance(level, (int, np.integer)) or isinstance(level, bool) or not 1 <= level <= 20:
        raise ParamError(f"character level must be an integer in [1, 20], got {level!r}")
    level = int(level)
    from simkit.rules import levels

    out: dict[str, Any] = {}
    if model == "dying":
        out["save_bonus"] = typical_fortitude(level)
    if model in ("recovery", "agony", "fall", "encounter"):
        out["level"] = level
    if model in ("recovery", "agony"):
        out["con"] = levels.con_modifier(level)
    if model in ("perseverance", "agony"):
        out["pp_max"] = out["pp"] = levels.pp_max(level)
    return out


def typical_params(model: str, level: int) -> dict[str, Any]:
    """A typical character of ``level`` facing a monster of the same level.

    :func:`typical_character`, plus ``monster_level = level`` for ``dying`` (the
    recovery DC, R0-06) and ``encounter``.
    """
    out = typical_character(model, level)
    if model in ("dying", "encounter"):
        out["monster_level"] = level
    return out


# -- the report ---------------------------------------------------------------------------------------
def _check_levels(levels) -> tuple[int, ...]:
    if isinstance(levels, (int, np.integer)) and not isinstance(levels, bool):
        levels = (levels,)
    try:
        out = tuple(levels)
    except TypeError:
        raise ParamError(f"levels must be a list of integers in [1, 20], got {levels!r}") from None
    if not out or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 1 <= v <= 20
                          for v in out):
        raise ParamError(f"levels must be a list of integers in [1, 20], got {levels!r}")
    return tuple(int(v) for v in out)


def ambiguity_report(levels=(1, 5, 10), n: int = 100_000, rng=None, *, ids=None, method: str = "auto",
                     level: float = 0.95) -> pd.DataFrame:
    """The headline odds under every reading of every ambiguity, side by side.

    Parameters
    ----------
    levels : list of int
        Character levels (1..20) of the typical character (:func:`typical_params`).
    n : int
        Monte Carlo tracks per reading, for models without an exact solver.
    rng : None, int or Generator
        Seed of the Monte Carlo runs (one seed for every reading: common random numbers).
    ids : list of str, optional
        Only these ambiguities (e.g. ``["A0-1", "A0-4"]``).
    method : {"auto", "exact", "mc"}
    level : float
        Confidence level of the Monte Carlo intervals.

    Returns
    -------
    pandas.DataFrame
        Long format, columns :data:`REPORT_COLUMNS`: one row per ambiguity, level and
        reading. An ambiguity whose model is not registered gives one row with
        ``status = "model not available"``; one whose parameters the model rejects gives
        one row with ``status = "error: ..."``. ``status`` is ``"ok"`` otherwise.
    """
    from simkit.analysis.design import _check_n, _Evaluator, _level, _method
    from simkit.models import REGISTRY

    levels = _check_levels(levels)
    n = _check_n(n)
    conf = _level(level)
    entries = list(AMBIGUITIES)
    if ids is not None:
        ids = [ids] if isinstance(ids, str) else list(ids)
        known = {a.id for a in AMBIGUITIES}
        bad = [i for i in ids if i not in known]
        if bad:
            raise ParamError(f"unknown ambiguity {bad[0]!r}; known: {', '.join(a.id for a in AMBIGUITIES)}")
        entries = [a for a in AMBIGUITIES if a.id in ids]
    seed = None
    rows = []

    def stub(a, status):
        return dict(ambiguity=a.id, rule=a.rule, model=a.model, param=a.param, level=None, reading=None,
                    default=None, outcome=a.outcome, p=float("nan"), ci_low=float("nan"), ci_high=float("nan"),
                    method=None, status=status)

    for a in entries:
        cls = REGISTRY.get(a.model)
        if cls is None:
            rows.append(stub(a, a.note or "model not available"))
            continue
        try:
            base = cls()
            how = _method(base, method)
            if how == "mc" and seed is None:
                from simkit.core.streams import resolve_seed

                seed = resolve_seed(rng)
            if a.outcome not in tuple(cls.outcomes) + ("unresolved",):
                raise ParamError(f"model {a.model!r} has no outcome {a.outcome!r}")
            ev = _Evaluator(base, how, n, seed, conf)
            got = []
            for lv in levels:
                for rd in a.readings:
                    params = {**typical_params(a.model, lv), **a.setup, **rd.params}
                    p, lo, hi = ev(**params)[a.outcome]
                    got.append(dict(ambiguity=a.id, rule=a.rule, model=a.model, param=a.param, level=lv,
                                    reading=rd.label, default=rd.default, outcome=a.outcome, p=p, ci_low=lo,
                                    ci_high=hi, method=how, status="ok"))
            rows += got
        except ParamError as exc:
            rows.append(stub(a, f"error: {exc}"))
    df = pd.DataFrame(rows, columns=list(REPORT_COLUMNS))
    df["level"] = df["level"].astype("Int64")
    df.attrs.update(levels=levels, seed=seed, n=n)
    return df


def side_by_side(report: pd.DataFrame) -> pd.DataFrame:
    """One line per ambiguity and level: the default's odds, the others', the spread.

    Columns ``ambiguity, rule, model, level, outcome, default, p_default, p_min, p_max,
    spread, readings, status``; ``readings`` reads like ``"max 23.81% | increment
    30.95%"``. Sorted by ambiguity then level; unavailable entries keep their status.
    """
    out = []
    for (aid, lv), g in report.groupby(["ambiguity", "level"], sort=False, dropna=False):
        first = g.iloc[0]
        if first["status"] != "ok":
            out.append(dict(ambiguity=aid, rule=first["rule"], model=first["model"], level=None,
                            outcome=first["outcome"], default=None, p_default=float("nan"),
                            p_min=float("nan"), p_max=float("nan"), spread=float("nan"), readings="",
                            status=first["status"]))
            continue
        dflt = g[g["default"].astype(bool)].iloc[0]
        out.append(dict(ambiguity=aid, rule=first["rule"], model=first["model"], level=int(lv),
                        outcome=first["outcome"], default=dflt["reading"], p_default=float(dflt["p"]),
                        p_min=float(g["p"].min()), p_max=float(g["p"].max()),
                        spread=float(g["p"].max() - g["p"].min()),
                        readings=" | ".join(f"{r.reading} {100 * r.p:.2f}%" for r in g.itertuples()),
                        status="ok"))
    df = pd.DataFrame(out, columns=["ambiguity", "rule", "model", "level", "outcome", "default", "p_default",
                                    "p_min", "p_max", "spread", "readings", "status"])
    df["level"] = df["level"].astype("Int64")
    return df
