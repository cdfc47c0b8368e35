"""The cost of every ambiguity of docs/rules.md: the headline odds under each reading.

:data:`AMBIGUITIES` lists every ambiguity of ``docs/rules.md`` (A0-1..A0-7,
A1-1..A1-13, A4-1..A4-5) with the model and parameter(s) that express it and its
readings (parameter overrides, the documented default first-class). Some readings only
matter in a situation (damage while dying needs an enemy that hits the downed
character; the 0-PP reading needs a character with 0 PP): each entry carries that
``setup``.

:func:`ambiguity_report` computes, for every entry whose model is registered, the
headline probability (``dead``) under each reading for a typical character at a few
levels (:func:`typical_params`), exact where the model has a solver, Monte Carlo with
intervals otherwise (every reading on the same positional streams; ``diff``,
``diff_ci_low``, ``diff_ci_high``, ``p_value``: the reading against the default one,
tested paired, track by track: :mod:`simkit.analysis.paired`). Entries whose model is
not registered are listed with the status ``model not available``; entries whose
parameters the model does not know are listed with an ``error: ...`` status.
:func:`side_by_side` turns the long table into one line per ambiguity and level, with
the spread between readings: which unclear sentence matters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from simkit.core.ambiguity import Ambiguity, Reading
from simkit.core.params import ParamError
from simkit.core.stats import confidence_of

__all__ = [
    "Ambiguity",
    "Reading",
    "AMBIGUITIES",
    "ambiguity_report",
    "side_by_side",
    "typical_character",
    "typical_params",
    "typical_fortitude",
    "REPORT_COLUMNS",
]

#: Columns of :func:`ambiguity_report`.
REPORT_COLUMNS = (
    "ambiguity",
    "rule",
    "model",
    "param",
    "level",
    "reading",
    "default",
    "outcome",
    "p",
    "ci_low",
    "ci_high",
    "method",
    "status",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "p_value",
)


def _reading(label, params, default=False) -> Reading:
    return Reading(label, params, default)


#: Ambiguities that no track model carries: the ``day`` model's (priced with it: A1-7, A1-8,
#: A1-10; its module declares none). A1-5 (damage to PE first), A1-11, A1-12 and A0-9 (issue
#: 31 item 3) are the party model's (:mod:`simkit.models.party_params`).
UNMODELLED: tuple[Ambiguity, ...] = (
    Ambiguity(
        "A1-7",
        "R1-09/R1-10",
        "day",
        "pp_back",
        "how PP come back within a day: in full after a night's rest, or never",
        (
            _reading("night", {"pp_back": "night"}, True),
            _reading("never", {"pp_back": "never"}),
        ),
        setup={"rules": "seed001", "fights": 2, "fight": "moderate", "between": "long_rest"},
        outcome="any_death",
    ),
    Ambiguity(
        "A1-8",
        "R1-09/R1-01/R1-04",
        "day",
        "pe_rest",
        "when a PC spends a PP for its stamina in a 10-minute rest: keeping its "
        "stabilisation reserve, whenever it has one, or never",
        (
            _reading("spare PP", {"pe_rest": "spare_pp"}, True),
            _reading("any PP", {"pe_rest": "any_pp"}),
            _reading("never", {"pe_rest": "never"}),
        ),
        setup={"rules": "seed001", "fights": 2, "fight": "moderate", "between": "short_rest"},
        outcome="any_death",
    ),
    Ambiguity(
        "A1-10",
        "R1-07",
        "day",
        "wake_restores",
        "the 8-hour wake-up 'as after a good night's rest': HP only, or PE and PP back too",
        (
            _reading("HP only", {"wake_restores": "hp"}, True),
            _reading("HP, PE and PP", {"wake_restores": "all"}),
        ),
        # the cleric's heals spent: the PCs down at a fight's end are left to the night
        setup={
            "rules": "seed001",
            "fights": 2,
            "fight": "severe",
            "between": "none",
            "party": "fighter,rogue,cleric(heals=0),wizard",
        },
        outcome="any_death",
    ),
)


def _registry() -> tuple[Ambiguity, ...]:
    """Every ambiguity: the registered models' own entries (``Model.ambiguities``), each id
    once, from the model that owns it, then :data:`UNMODELLED`; sorted by id."""
    from simkit.models import REGISTRY

    out: dict[str, Ambiguity] = {}
    for cls in REGISTRY.values():
        for a in cls.ambiguities:
            if a.model == cls.name:
                out.setdefault(a.id, a)
    for a in UNMODELLED:
        out.setdefault(a.id, a)
    return tuple(sorted(out.values(), key=lambda a: (a.id[:2], int(a.id.split("-")[1]))))


#: Every ambiguity of docs/rules.md, from the models that carry them (one source of truth).
AMBIGUITIES: tuple[Ambiguity, ...] = _registry()


# -- the typical character ------------------------------------------------------------------------
def typical_fortitude(level: int) -> int:
    """Fortitude modifier of a typical PF2e character of ``level`` (1..20).

    :func:`simkit.rules.pf2e.levels.fortitude_save` with its defaults: a fighter's schedule (expert
    from level 1, master from 9), Constitution +2 with the boosts of levels 5/10/15/20,
    resilient runes (+1 from level 8, +2 from 14, +3 from 20).
    """
    from simkit.rules.pf2e.levels import fortitude_save

    return fortitude_save(level)


def typical_character(model: str, level: int) -> dict[str, Any]:
    """Parameters describing a typical character of ``level`` (1..20) in ``model``.

    The model's own :meth:`~simkit.core.model.Rules.typical_character` (``dying``: its
    Fortitude save; ``recovery``, ``agony``: level and Constitution; ``perseverance``,
    ``agony``: PP max by level, all PP left; ``fall``, ``encounter``: the level; other
    models: nothing).
    """
    from simkit.models import get_model

    return get_model(model).typical_character(_check_character_level(level))


def _check_character_level(level) -> int:
    if not isinstance(level, (int, np.integer)) or isinstance(level, bool) or not 1 <= level <= 20:
        raise ParamError(f"character level must be an integer in [1, 20], got {level!r}")
    return int(level)


def typical_params(model: str, level: int) -> dict[str, Any]:
    """A typical character of ``level`` facing a monster of the same level.

    :func:`typical_character`, plus ``monster_level = level`` for ``dying`` (the
    recovery DC, R0-06) and ``encounter``, and ``level = level`` for a model with a
    ``level`` its typical character does not set (``fall_dying``, ``day``).
    """
    from simkit.core.params import spec
    from simkit.models import get_model

    cls = get_model(model)
    out = {**typical_character(model, level), **cls.typical_opponent(int(level))}
    if "level" in spec(cls) and "level" not in out:  # fall_dying, day: the character's level
        out["level"] = int(level)
    return out


# -- the report ------------------------------------------------------------------------------------
def _check_levels(levels) -> tuple[int, ...]:
    if isinstance(levels, (int, np.integer)) and not isinstance(levels, bool):
        levels = (levels,)
    try:
        out = tuple(levels)
    except TypeError:
        raise ParamError(f"levels must be a list of integers in [1, 20], got {levels!r}") from None
    if not out or not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 1 <= v <= 20 for v in out
    ):
        raise ParamError(f"levels must be a list of integers in [1, 20], got {levels!r}")
    return tuple(int(v) for v in out)


def ambiguity_report(
    levels=(1, 5, 10),
    n: int = 100_000,
    rng=None,
    *,
    ids=None,
    method: str = "auto",
    confidence: float = 0.95,
    level: float | None = None,
    paired: bool = True,
) -> pd.DataFrame:
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
    confidence : float
        Confidence level of the Monte Carlo intervals.
    paired : bool
        Monte Carlo readings on positional streams, ``diff`` tested paired against the
        default reading (default); ``False``: the default streams, the interval of two
        independent proportions.
    level : float, optional
        Deprecated name of ``confidence`` (removed in 0.4; a warning).

    Returns
    -------
    pandas.DataFrame
        Long format, columns :data:`REPORT_COLUMNS`: one row per ambiguity, level and
        reading. An ambiguity whose model is not registered gives one row with
        ``status = "model not available"``; one whose parameters the model rejects gives
        one row with ``status = "error: ..."``. ``status`` is ``"ok"`` otherwise.
    """
    level = confidence_of(confidence, level, "ambiguity_report")
    from simkit.analysis.evaluation import (
        Evaluator,
        check_n,
        check_outcome,
        choose_method,
        confidence_level,
        is_event,
    )
    from simkit.models import REGISTRY

    levels = _check_levels(levels)
    n = check_n(n)
    conf = confidence_level(level)
    entries = list(AMBIGUITIES)
    if ids is not None:
        ids = [ids] if isinstance(ids, str) else list(ids)
        known = {a.id for a in AMBIGUITIES}
        bad = [i for i in ids if i not in known]
        if bad:
            raise ParamError(
                f"unknown ambiguity {bad[0]!r}; known: {', '.join(a.id for a in AMBIGUITIES)}"
            )
        entries = [a for a in AMBIGUITIES if a.id in ids]
    seed = None
    rows = []

    def stub(a, status):
        return dict(
            ambiguity=a.id,
            rule=a.rule,
            model=a.model,
            param=a.param,
            level=None,
            reading=None,
            default=None,
            outcome=a.outcome,
            p=float("nan"),
            ci_low=float("nan"),
            ci_high=float("nan"),
            method=None,
            status=status,
            diff=float("nan"),
            diff_ci_low=float("nan"),
            diff_ci_high=float("nan"),
            p_value=float("nan"),
        )

    for a in entries:
        cls = REGISTRY.get(a.model)
        if cls is None:
            rows.append(stub(a, a.note or "model not available"))
            continue
        try:
            base = cls()
            how = choose_method(base, method)
            if how == "mc" and seed is None:
                from simkit.core.streams import resolve_seed

                seed = resolve_seed(rng)
            check_outcome(base, a.outcome)
            if is_event(base, a.outcome):  # an event of the marks: Monte Carlo only
                how = "mc"
                if seed is None:
                    from simkit.core.streams import resolve_seed

                    seed = resolve_seed(rng)
            ev = Evaluator(base, how, n, seed, conf, paired=bool(paired))
            got = []
            for lv in levels:
                dflt = {**typical_params(a.model, lv), **a.setup, **a.default_reading.params}
                p0 = ev(**dflt)[a.outcome][0]
                for rd in a.readings:
                    params = {**typical_params(a.model, lv), **a.setup, **rd.params}
                    p, lo, hi = ev(**params)[a.outcome]
                    d = _diff(ev, dflt, params, a.outcome, p - p0, n, p0, p, conf)
                    got.append(
                        dict(
                            ambiguity=a.id,
                            rule=a.rule,
                            model=a.model,
                            param=a.param,
                            level=lv,
                            reading=rd.label,
                            default=rd.default,
                            outcome=a.outcome,
                            p=p,
                            ci_low=lo,
                            ci_high=hi,
                            method=how,
                            status="ok",
                            diff=d[0],
                            diff_ci_low=d[1],
                            diff_ci_high=d[2],
                            p_value=d[3],
                        )
                    )
            rows += got
        except ParamError as exc:
            rows.append(stub(a, f"error: {exc}"))
    df = pd.DataFrame(rows, columns=list(REPORT_COLUMNS))
    df["level"] = df["level"].astype("Int64")
    df.attrs.update(levels=levels, seed=seed, n=n)
    return df


def _diff(ev, dflt, params, outcome, diff, n, p0, p1, level):
    """(diff, ci_low, ci_high, p_value) of a reading against the default: exact, paired
    from the per-track outcomes and marks, else the two-sample interval (a chain)."""

    if ev.method == "exact":
        return diff, diff, diff, float("nan")
    if params == dflt:  # the default reading against itself: 0 by definition, not estimated
        return 0.0, 0.0, 0.0, 1.0
    from simkit.analysis.paired import independent_test, paired_stats

    a, b = ev.tracks(**dflt), ev.tracks(**params)
    if a is not None and b is not None:
        got = paired_stats(a, b, level).get(outcome)
        if got is not None:
            return got
    st = independent_test(round(p1 * n), round(p0 * n), n, level)
    return tuple(float(np.asarray(x).reshape(-1)[0]) for x in st)


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
            out.append(
                dict(
                    ambiguity=aid,
                    rule=first["rule"],
                    model=first["model"],
                    level=None,
                    outcome=first["outcome"],
                    default=None,
                    p_default=float("nan"),
                    p_min=float("nan"),
                    p_max=float("nan"),
                    spread=float("nan"),
                    readings="",
                    status=first["status"],
                )
            )
            continue
        dflt = g[g["default"].astype(bool)].iloc[0]
        out.append(
            dict(
                ambiguity=aid,
                rule=first["rule"],
                model=first["model"],
                level=int(lv),
                outcome=first["outcome"],
                default=dflt["reading"],
                p_default=float(dflt["p"]),
                p_min=float(g["p"].min()),
                p_max=float(g["p"].max()),
                spread=float(g["p"].max() - g["p"].min()),
                readings=" | ".join(f"{r.reading} {100 * r.p:.2f}%" for r in g.itertuples()),
                status="ok",
            )
        )
    df = pd.DataFrame(
        out,
        columns=[
            "ambiguity",
            "rule",
            "model",
            "level",
            "outcome",
            "default",
            "p_default",
            "p_min",
            "p_max",
            "spread",
            "readings",
            "status",
        ],
    )
    df["level"] = df["level"].astype("Int64")
    return df
