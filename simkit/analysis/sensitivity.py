"""Sensitivity to every parameter.

:func:`sensitivity` answers "which number matters?": the change of every outcome's
probability for one step up and one step down of every numeric parameter, as a tidy
table sorted by the size of the change. Exact where the model has a solver; Monte Carlo
otherwise, on the streams' positional mode, each change tested paired, track by track,
against the base (:mod:`simkit.analysis.paired`; ``paired=False``: the default streams
and the interval of two independent proportions).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simkit.analysis.evaluation import (
    Evaluator,
    as_model,
    at_level,
    check_n,
    check_outcome,
    choose_method,
    confidence_level,
    exact_or_mc,
    fmt_value,
    is_event,
    numeric_param,
    too_large,
)
from simkit.core.params import ParamError, allowed, spec
from simkit.core.result import name_kinds
from simkit.core.stats import norm_ppf

__all__ = ["MC_COLUMNS", "SENSITIVITY_COLUMNS", "sensitivity"]

#: Columns of :func:`sensitivity`.
SENSITIVITY_COLUMNS = (
    "param",
    "delta",
    "base_value",
    "value",
    "outcome",
    "kind",
    "p_base",
    "p",
    "change",
    "ci_low",
    "ci_high",
    "method",
    "note",
)
#: Columns after :data:`SENSITIVITY_COLUMNS` in Monte Carlo mode.
MC_COLUMNS = ("p_value", "ci_low_independent", "ci_high_independent")


# -- sensitivity -----------------------------------------------------------------------------------
def _default_step(meta: dict) -> float:
    if meta["kind"] == "int":
        return 1
    lo, hi = meta["lo"], meta["hi"]
    if lo is not None and hi is not None and hi - lo <= 1:
        return 0.05  # probabilities and other unit-range numbers
    return 1.0


def sensitivity(
    model,
    *,
    params=None,
    outcomes=None,
    steps: dict | None = None,
    method: str = "auto",
    n: int = 100_000,
    rng=None,
    confidence: float = 0.95,
    character_level: int | None = None,
    paired: bool = True,
    **model_params,
) -> pd.DataFrame:
    """Change of each outcome's probability for one step up and down of each parameter.

    Parameters
    ----------
    model : Rules, str or dict
        The rules at which to measure (the base point), a model name or a parameter dict.
    params : list of str, optional
        Parameters to move (default: every integer and number parameter).
    outcomes : list of str, optional
        Outcomes reported (default: all, ``unresolved`` included), or events of the
        marks (the party's ``any_death``, ``death:cleric``...; Monte Carlo, paired too).
    steps : dict, optional
        Parameter -> step size. Default 1 for integers (the "+1 / -1" of a DC or a
        bonus), 1.0 for numbers, 0.05 for numbers whose allowed range is within a unit
        interval (probabilities such as ``hit_chance``).
    method : {"auto", "exact", "mc"}
    n : int
        Monte Carlo tracks per point (the base and every variant share one seed).
    rng : None, int or Generator
    confidence : float
        Confidence level of the Monte Carlo interval on ``change``: paired, the normal
        interval on the per-track differences against the base (the same positional
        streams; ``p_value`` McNemar's test, for an event of the marks too);
        ``ci_low_independent`` / ``ci_high_independent`` the interval of two independent
        proportions, for reference (a chain has only that one).
    character_level : int, optional
        Measure at a typical character of this level (as in :func:`calibrate`).
    paired : bool
        Monte Carlo on positional streams with paired intervals (default); ``False``:
        the default streams, ``ci_low`` / ``ci_high`` the independent interval.
    **model_params
        Parameters of the model, or keys that derive some, as
        :func:`simkit.models.make_model` takes them: ``level=5`` is the character's
        level (the values ``--set level=5`` derives), ``fight="severe"``... (``level``
        named the confidence level until 0.4: that is ``confidence``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SENSITIVITY_COLUMNS` (then :data:`MC_COLUMNS` with Monte
        Carlo): one row per parameter, direction and
        outcome; ``change = p - p_base``. Rows are sorted by ``|change|`` (largest
        first); a direction that leaves the allowed range or breaks a cross-parameter
        rule, or a parameter that is not set (``none``), gives one row with an empty
        ``outcome``, empty numbers and the reason in ``note``, at the end.
    """
    level = confidence
    model = at_level(as_model(model, model_params), character_level)
    asked = method
    method = choose_method(model, method)
    level = confidence_level(level)
    n = check_n(n)
    known = spec(type(model))
    numeric = [k for k, m in known.items() if m["kind"] in ("int", "float")]
    if params is None:
        params = numeric
    else:
        params = [params] if isinstance(params, str) else list(params)
        for p in params:
            numeric_param(model, p, "params")
    all_out = tuple(model.outcomes) + ("unresolved",)
    if outcomes is None:
        outcomes = list(all_out)
    else:
        outcomes = [outcomes] if isinstance(outcomes, str) else list(outcomes)
        for o in outcomes:
            check_outcome(model, o)
    if any(is_event(model, o) for o in outcomes):  # an event of the marks: Monte Carlo only
        if method == "exact":
            raise ParamError(
                f"outcome={next(o for o in outcomes if is_event(model, o))!r} is an event of "
                "the marks: use method='mc' (--method mc)"
            )
        method = "mc"
    steps = dict(steps or {})
    for k, v in steps.items():
        if k not in params:
            raise ParamError(
                f"steps: {k!r} is not among the parameters moved ({', '.join(params)})"
            )
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            raise ParamError(f"steps: {k}={v!r} must be a positive number")

    def run(method: str) -> pd.DataFrame:
        seed = None
        if method == "mc":
            from simkit.core.streams import resolve_seed

            seed = resolve_seed(rng)
        ev = Evaluator(model, method, n, seed, level, paired=bool(paired))
        base = ev()
        base_tracks = ev.tracks()
        z = norm_ppf(0.5 + level / 2)
        rows = []
        for name in params:
            meta = known[name]
            v0 = getattr(model, name)
            step = steps.get(name, _default_step(meta))
            if meta["kind"] == "int" and float(step) != int(step):
                raise ParamError(
                    f"steps: {name}={step!r} must be an integer for an integer parameter"
                )
            for sign in (+1, -1):
                delta = sign * step
                if v0 is None:
                    rows += _skipped(
                        name, delta, v0, v0, outcomes, base, method, f"{name} is not set (none)"
                    )
                    continue
                v1 = v0 + delta
                if meta["kind"] == "int":
                    v1 = int(v1)
                else:
                    v1 = round(float(v1), 12)
                if (meta["lo"] is not None and v1 < meta["lo"]) or (
                    meta["hi"] is not None and v1 > meta["hi"]
                ):
                    rows += _skipped(
                        name,
                        delta,
                        v0,
                        v1,
                        outcomes,
                        base,
                        method,
                        f"skipped: {name}={fmt_value(v1)} is outside the allowed range "
                        f"({allowed(meta)})",
                    )
                    continue
                try:
                    res = ev(**{name: v1})
                except ParamError as exc:
                    rows += _skipped(name, delta, v0, v1, outcomes, base, method, f"skipped: {exc}")
                    continue
                tracks = ev.tracks(**{name: v1})
                by_track = None
                if base_tracks is not None and tracks is not None:
                    from simkit.analysis.paired import paired_stats

                    by_track = paired_stats(base_tracks, tracks, level)
                for o in outcomes:
                    p0, p1 = base[o][0], res[o][0]
                    change = p1 - p0
                    p_value = math.nan
                    if method == "exact":
                        lo_c = hi_c = lo_i = hi_i = change
                    else:
                        se = math.sqrt(p0 * (1 - p0) / n + p1 * (1 - p1) / n)
                        lo_i, hi_i = change - z * se, change + z * se
                        lo_c, hi_c = lo_i, hi_i
                        if by_track is not None and o in by_track:
                            _, lo_c, hi_c, p_value = by_track[o]
                    rows.append(
                        dict(
                            param=name,
                            delta=delta,
                            base_value=v0,
                            value=v1,
                            outcome=o,
                            p_base=p0,
                            p=p1,
                            change=change,
                            ci_low=lo_c,
                            ci_high=hi_c,
                            method=method,
                            note="",
                            p_value=p_value,
                            ci_low_independent=lo_i,
                            ci_high_independent=hi_i,
                        )
                    )
        cols = list(SENSITIVITY_COLUMNS) + (list(MC_COLUMNS) if method == "mc" else [])
        df = pd.DataFrame(rows, columns=cols)
        for col in ("base_value", "value"):  # keep integers as integers next to skipped rows
            df[col] = pd.Series([r[col] for r in rows], dtype=object)
        kinds = name_kinds(model)  # outcome or event (a skipped row: empty)
        df["kind"] = pd.Series([kinds.get(r["outcome"]) for r in rows], dtype=object)
        # largest |change| first; float noise (below 1e-12) counts as no change; skipped rows last
        size = df["change"].abs().to_numpy(dtype=np.float64)
        size = np.where(np.isnan(size), -1.0, np.where(size < 1e-12, 0.0, size))
        df = df.iloc[np.lexsort((np.arange(len(df)), -size))].reset_index(drop=True)
        df.attrs.update(
            model=model.name,
            method=method,
            seed=seed,
            n=n if method == "mc" else None,
            paired=bool(paired) and method == "mc",
        )
        return df

    probe = None
    if method == "exact":  # the base and every step in the solver's reach?
        moves: list[dict] = [{}]
        for name in params:
            v0, meta = getattr(model, name), known[name]
            step = steps.get(name, _default_step(meta))
            if v0 is not None:
                conv = int if meta["kind"] == "int" else float
                moves += [{name: conv(v0 + d)} for d in (step, -step)]
        probe = too_large(model, moves)
    return exact_or_mc(asked, method, run, probe)


def _skipped(name, delta, v0, v1, outcomes, base, method, note) -> list[dict]:
    """One row for a direction not evaluated (``outcome`` empty: it holds for all)."""
    return [
        dict(
            param=name,
            delta=delta,
            base_value=v0,
            value=v1,
            outcome=None,
            p_base=math.nan,
            p=math.nan,
            change=math.nan,
            ci_low=math.nan,
            ci_high=math.nan,
            method=method,
            note=note,
            p_value=math.nan,
            ci_low_independent=math.nan,
            ci_high_independent=math.nan,
        )
    ]
