"""Calibrate a parameter to a target rate.

:func:`calibrate` answers "which DC gives 10% deaths?": the value of one numeric
parameter (a DC, a bonus, a PP max, the healer's arrival round...) that brings an
outcome's probability closest to a target, with the neighbouring values on either side
and whether the target can be reached at all in the parameter's allowed range. Exact
where the model has a solver, else Monte Carlo, every point on one seed (common random
numbers: the estimated curve is smooth).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

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
from simkit.core.numbers import ascii_number
from simkit.core.params import ParamError, allowed
from simkit.core.result import name_kinds
from simkit.core.tables import summary_html

__all__ = ["CALIBRATION_COLUMNS", "Calibration", "calibrate", "parse_probability"]

#: Columns of :meth:`Calibration.to_frame`.
CALIBRATION_COLUMNS = (
    "role",
    "param",
    "value",
    "outcome",
    "kind",
    "p",
    "ci_low",
    "ci_high",
    "target",
    "reachable",
    "method",
)


def parse_probability(text) -> float:
    """A probability written ``0.1``, ``10%`` or ``1e-3`` (ASCII digits, no underscores:
    :mod:`simkit.core.numbers`), or given as a number; raises :class:`ParamError`."""
    try:
        if isinstance(text, (int, float, np.integer, np.floating)) and not isinstance(text, bool):
            v = float(text)
        else:
            t = str(text).strip(" \t")
            v = ascii_number(t[:-1]) / 100 if t.endswith("%") else ascii_number(t)
    except ValueError:
        raise ParamError(f"target must be a probability like 0.1 or 10%, got {text!r}") from None
    if not 0.0 <= v <= 1.0 or math.isnan(v):
        raise ParamError(f"target must be a probability in [0, 1] (0%..100%), got {text!r}")
    return v


# -- calibrate ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Calibration:
    """What :func:`calibrate` found.

    Attributes
    ----------
    model : Rules
        The rules with the calibrated value set (ready for ``simulate``/``solve``).
    param, outcome : str
        The parameter varied and the outcome aimed at.
    target : float
        The probability aimed at.
    value : int or float
        The parameter value whose probability is closest to the target.
    p, ci_low, ci_high : float
        The probability achieved at ``value`` (``ci_*`` equal ``p`` when exact).
    reachable : bool
        Whether the target lies within the probabilities the range can produce.
    achievable : (float, float)
        Lowest and highest probability of ``outcome`` found over ``search_range``.
    lower, upper : (value, p) or None
        The neighbouring parameter values on either side of ``value`` and their
        probabilities (None at an end of the range).
    bracket : (value, value) or None
        Two adjacent values whose probabilities straddle the target (None when the
        target is not reachable).
    monotone : bool
        Whether the probability was monotone in the parameter over every evaluated
        point (all of the range when it was scanned).
    search_range : (lo, hi)
        The range searched.
    method : str
        ``"exact"`` or ``"mc"``.
    n, seed : int or None
        Tracks per Monte Carlo point and the seed they all used (None when exact).
    evaluations : tuple of (value, p, ci_low, ci_high)
        Every point evaluated, by value.
    skipped : tuple of (value, reason)
        Values of the range that other parameters rule out (e.g. a DC above the
        surge threshold of ``dnd4e``); left out of the search.
    """

    model: Any
    param: str
    outcome: str
    target: float
    value: int | float
    p: float
    ci_low: float
    ci_high: float
    reachable: bool
    achievable: tuple[float, float]
    lower: tuple | None
    upper: tuple | None
    bracket: tuple | None
    monotone: bool
    search_range: tuple
    method: str
    n: int | None = None
    seed: int | None = None
    evaluations: tuple = ()
    skipped: tuple = ()

    @property
    def message(self) -> str:
        """One sentence for a designer."""
        fmt = fmt_value
        name = self.param
        where = f"{name}={fmt(self.value)} gives {self.outcome}={self.p:.4f}"
        if self.method == "mc":
            where += (
                f" (95% CI {self.ci_low:.4f}..{self.ci_high:.4f}, n={self.n})" if self.n else ""
            )
        if not self.reachable:
            return (
                f"target {self.outcome}={self.target:.4f} is not reachable by varying {name} in "
                f"[{fmt(self.search_range[0])}, {fmt(self.search_range[1])}]: "
                f"{self.outcome} ranges over "
                f"[{self.achievable[0]:.4f}, {self.achievable[1]:.4f}]; closest: {where}"
            ) + self._skipped_note()
        sides = [
            f"{name}={fmt(pt[0])} gives {pt[1]:.4f}"
            for pt in (self.lower, self.upper)
            if pt is not None
        ]
        text = f"{where} (target {self.target:.4f})"
        if sides:
            text += "; " + ", ".join(sides)
        text += self._step_note()
        if not self.monotone:
            text += f"; note: {self.outcome} is not monotone in {name} over the points evaluated"
        return text + self._skipped_note()

    def _step_note(self) -> str:
        """When the probability is flat around the value found and jumps over the target
        at the next one (a step function: a budget buying the same creatures over a
        range), say so: no value gives the target."""
        plateau = any(pt is not None and pt[1] == self.p for pt in (self.lower, self.upper))
        if self.bracket is None or not plateau:
            return ""
        evals = {v: (p, lo, hi) for v, p, lo, hi in self.evaluations}
        a, b = self.bracket
        if a not in evals or b not in evals:
            return ""
        (pa, la, ha), (pb, lb, hb) = evals[a], evals[b]
        if la <= self.target <= ha or lb <= self.target <= hb:
            return ""
        return (
            f"; no value gives the target: {self.outcome} jumps from {pa:.4f} at "
            f"{self.param}={fmt_value(a)} to {pb:.4f} at {self.param}={fmt_value(b)}"
        )

    def _skipped_note(self) -> str:
        if not self.skipped:
            return ""
        return f"; {len(self.skipped)} value(s) of {self.param} skipped ({self.skipped[0][1]})"

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        """One short line: the model, the value found, what it gives and the target (the
        whole story is :attr:`message`; every point is :meth:`evaluations_frame`)."""
        reach = "" if self.reachable else ", not reachable"
        return (
            f"Calibration({self.model.name}: {self.param}={fmt_value(self.value)} gives "
            f"{self.outcome}={self.p:.4f}, target {self.target:.4f}, {self.method}{reach})"
        )

    def _repr_html_(self) -> str:
        """Jupyter: the message, then the lower / best / upper rows as a table."""
        from html import escape

        return summary_html(escape(self.message), self.to_frame())

    def to_frame(self) -> pd.DataFrame:
        """Rows ``lower``, ``best``, ``upper``: see :data:`CALIBRATION_COLUMNS`."""
        evals = {v: (p, lo, hi) for v, p, lo, hi in self.evaluations}
        rows = []
        for role, point in (
            ("lower", self.lower),
            ("best", (self.value, self.p)),
            ("upper", self.upper),
        ):
            if point is None:
                continue
            v = point[0]
            p, lo, hi = evals.get(v, (point[1], point[1], point[1]))
            rows.append(
                (
                    role,
                    self.param,
                    v,
                    self.outcome,
                    name_kinds(self.model).get(self.outcome, "outcome"),
                    p,
                    lo,
                    hi,
                    self.target,
                    self.reachable,
                    self.method,
                )
            )
        df = pd.DataFrame(rows, columns=list(CALIBRATION_COLUMNS))
        df.attrs.update(model=self.model.name, message=self.message, seed=self.seed, n=self.n)
        return df

    def evaluations_frame(self) -> pd.DataFrame:
        """Every point evaluated: ``value, p, ci_low, ci_high``."""
        return pd.DataFrame(list(self.evaluations), columns=["value", "p", "ci_low", "ci_high"])


def calibrate(
    model,
    target,
    vary: str,
    *,
    outcome: str = "dead",
    lo=None,
    hi=None,
    method: str = "auto",
    n: int = 100_000,
    rng=None,
    confidence: float = 0.95,
    scan_limit: int | None = None,
    grid: int = 41,
    xtol: float = 1e-6,
    character_level: int | None = None,
    **params,
) -> Calibration:
    """The value of ``vary`` that brings P(``outcome``) closest to ``target``.

    Parameters
    ----------
    model : Rules, str or dict
        The rules (every other parameter stays as given), a model name or a parameter
        dict (``{"model": "day", "fight": "severe"}``).
    target : float or str
        The probability aimed at: ``0.1`` or ``"10%"``.
    vary : str
        An integer or number parameter of the model (e.g. ``"dc"``, ``"save_bonus"``,
        ``"heal_round"``).
    outcome : str
        The outcome whose probability is aimed at (default ``"dead"``), or an event of
        the marks (the party's ``any_death``, ``tpk``, ``death:cleric``...: Monte Carlo).
    lo, hi : optional
        The range searched (default: the parameter's allowed range).
    method : {"auto", "exact", "mc"}
        ``auto``: the exact solver when the model has one, else Monte Carlo.
    n : int
        Monte Carlo tracks per evaluated value.
    rng : None, int or Generator
        Seed of the Monte Carlo points (all points use the same seed).
    confidence : float
        Confidence level of the Monte Carlo intervals.
    scan_limit : int, optional
        Integer parameters: scan every value when the range has at most this many
        (default 2001 exact, 41 Monte Carlo); beyond it, integer bisection, which
        assumes the probability is monotone (checked on the points it visits).
    grid : int
        Number parameters: points of the coarse grid scanned first (the exact root is
        then found with :func:`scipy.optimize.brentq` between the two grid points that
        straddle the target; Monte Carlo interpolates between them and checks there).
    xtol : float
        Absolute tolerance on a number parameter's root.
    character_level : int, optional
        Set the parameters of a typical character of this level (1..20) first
        (:func:`simkit.analysis.ambiguities.typical_character`: for ``dying``, its Fortitude
        save), so "10% deaths at level 5" is one call:
        ``calibrate("dying", "10%", "dc", character_level=5)``.
    **params
        Parameters of the model, or keys that derive some, as
        :func:`simkit.models.make_model` takes them: ``level=5`` is the character's
        level (the same derived values as ``--set level=5``: for ``dying`` its Fortitude
        save and HP), ``fight="severe"`` the day's fight, ``days_without_sleep=2``...
        (``level`` named the confidence level until 0.4: that is ``confidence``; a
        number in (0, 1) given as ``level`` is an error saying so).

    Returns
    -------
    Calibration
        With the value, the probability it gives, its neighbours, whether the target is
        reachable, and ``to_frame()``. An unreachable target is not an error: the
        result says so (``reachable=False``) and gives the closest achievable value.
    """
    level = confidence
    model = as_model(model, params)
    target = parse_probability(target)
    model = at_level(model, character_level, keep=(vary,))
    if vary == "dc" and getattr(model, "monster_level", None) is not None:
        # the DC varied replaces the one a monster's level set (``level`` sets monster_level
        # on dying, R0-06; dc and monster_level are exclusive)
        model = model.replace(monster_level=None)
    check_outcome(model, outcome)
    meta = numeric_param(model, vary)
    if is_event(model, outcome):  # an event of the marks: Monte Carlo only
        if method == "exact":
            raise ParamError(f"{outcome!r} is an event of the marks: use method='mc'")
        method = "mc"
    asked = method
    method = choose_method(model, method)
    level = confidence_level(level)
    n = check_n(n)
    lo, hi = _bracket(vary, meta, lo, hi)

    def run(method: str) -> Calibration:
        seed = None
        if method == "mc":
            from simkit.core.streams import resolve_seed

            seed = resolve_seed(rng)
        ev = Evaluator(model, method, n, seed, level)

        def f(x):
            return ev(**{vary: x})[outcome]

        if meta["kind"] == "int":
            limit = scan_limit if scan_limit is not None else (2001 if method == "exact" else 41)
            if not isinstance(limit, int) or limit < 2:
                raise ParamError(f"scan_limit must be an integer >= 2, got {scan_limit!r}")
            if hi - lo + 1 <= limit:
                points, skipped = {}, []
                for v in range(lo, hi + 1):
                    try:
                        points[v] = f(v)
                    except ParamError as exc:  # a value another parameter rules out
                        skipped.append((v, str(exc)))
                if not points:
                    raise ParamError(
                        f"no value of {vary} in [{lo}, {hi}] is allowed here: {skipped[0][1]}"
                    )
            else:
                points, skipped = _bisect_int(f, lo, hi, target), []
            return _result_int(
                model, vary, outcome, target, points, (lo, hi), method, n, seed, f, skipped
            )
        if not isinstance(grid, int) or grid < 3:
            raise ParamError(f"grid must be an integer >= 3, got {grid!r}")
        return _calibrate_float(
            model, vary, outcome, target, f, lo, hi, method, n, seed, grid, xtol
        )

    probe = None
    if method == "exact":  # are the values scanned (a bisection's ends) in the solver's reach?
        if meta["kind"] != "int":
            values = list(np.linspace(lo, hi, grid)) if isinstance(grid, int) and grid >= 3 else []
        else:
            limit = scan_limit if isinstance(scan_limit, int) else 2001
            values = list(range(lo, hi + 1)) if hi - lo + 1 <= limit else [lo, hi]
        probe = too_large(model, [{vary: v} for v in values])
    return exact_or_mc(asked, method, run, probe)


def _bracket(name: str, meta: dict, lo, hi):
    kind = meta["kind"]
    conv = int if kind == "int" else float
    out = []
    for label, v, default in (("lo", lo, meta["lo"]), ("hi", hi, meta["hi"])):
        if v is None:
            v = default
        if v is None:
            raise ParamError(
                f"{label}: {name} has no {'lower' if label == 'lo' else 'upper'} bound; "
                f"give {label}="
            )
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ParamError(f"{label}={v!r}: must be a number")
        if kind == "int" and float(v) != int(v):
            raise ParamError(f"{label}={v!r}: {name} is an integer parameter")
        v = conv(v)
        if (meta["lo"] is not None and v < meta["lo"]) or (
            meta["hi"] is not None and v > meta["hi"]
        ):
            raise ParamError(
                f"{label}={v!r} is outside the allowed range: {name} must be {allowed(meta)}"
            )
        out.append(v)
    if not out[0] < out[1]:
        raise ParamError(f"the range of {name} must have lo < hi, got lo={out[0]!r}, hi={out[1]!r}")
    return out[0], out[1]


def _bisect_int(f, lo: int, hi: int, target: float) -> dict:
    """Integer bisection for the adjacent pair straddling ``target`` (monotone assumed)."""
    points = {lo: f(lo), hi: f(hi)}
    p_lo, p_hi = points[lo][0], points[hi][0]
    if not min(p_lo, p_hi) <= target <= max(p_lo, p_hi):
        return points
    a, b = lo, hi
    while b - a > 1:
        mid = (a + b) // 2
        points[mid] = f(mid)
        if (points[mid][0] - target) * (p_lo - target) > 0:
            a = mid
        else:
            b = mid
    for v in (a - 1, a, b, b + 1):
        if lo <= v <= hi and v not in points:
            points[v] = f(v)
    return points


def _monotone(ps: list[float]) -> bool:
    d = np.diff(np.asarray(ps, dtype=np.float64))
    eps = 1e-12
    return bool((d >= -eps).all() or (d <= eps).all())


def _result_int(
    model, vary, outcome, target, points, rng_, method, n, seed, f, skipped
) -> Calibration:
    values = sorted(points)
    ps = [points[v][0] for v in values]
    lo_p, hi_p = min(ps), max(ps)
    reachable = lo_p <= target <= hi_p
    # best: closest to the target; ties (a plateau: a step function, e.g. a budget that buys
    # the same creatures) go to the value nearest the crossing, then to the smaller value
    pairs = [
        (a, b)
        for a, b in itertools.pairwise(values)
        if b == a + 1
        and min(points[a][0], points[b][0]) <= target <= max(points[a][0], points[b][0])
    ]
    closest = min(abs(points[v][0] - target) for v in values)
    tied = [v for v in values if abs(points[v][0] - target) == closest]

    def to_crossing(v) -> float:
        return min((min(abs(v - a), abs(v - b)) for a, b in pairs), default=0)

    best = min(tied, key=lambda v: (to_crossing(v), v))
    bracket = None
    if reachable and pairs:
        bracket = min(pairs, key=lambda ab: (min(abs(ab[0] - best), abs(ab[1] - best)), ab))
    ruled_out = {v for v, _ in skipped}
    lower = upper = None
    for side, v in (("lower", best - 1), ("upper", best + 1)):
        if not rng_[0] <= v <= rng_[1] or v in ruled_out:
            continue
        if v not in points:
            points[v] = f(v)
        if side == "lower":
            lower = (v, points[v][0])
        else:
            upper = (v, points[v][0])
    values = sorted(points)
    p, ci_lo, ci_hi = points[best]
    return Calibration(
        model=model.replace(**{vary: best}),
        param=vary,
        outcome=outcome,
        target=target,
        value=best,
        p=p,
        ci_low=ci_lo,
        ci_high=ci_hi,
        reachable=reachable,
        achievable=(lo_p, hi_p),
        lower=lower,
        upper=upper,
        bracket=bracket,
        monotone=_monotone([points[v][0] for v in values]),
        search_range=tuple(rng_),
        method=method,
        n=n if method == "mc" else None,
        seed=seed,
        evaluations=tuple((v, *points[v]) for v in values),
        skipped=tuple(skipped),
    )


def _calibrate_float(
    model, vary, outcome, target, f, lo, hi, method, n, seed, grid, xtol
) -> Calibration:
    xs = [float(x) for x in np.linspace(lo, hi, grid)]
    points = {x: f(x) for x in xs}
    ps = [points[x][0] for x in xs]
    lo_p, hi_p = min(ps), max(ps)
    reachable = lo_p <= target <= hi_p
    monotone = _monotone(ps)
    bracket = None
    if reachable:
        i_best = int(np.argmin([abs(p - target) for p in ps]))
        pairs = [
            i for i in range(grid - 1) if min(ps[i], ps[i + 1]) <= target <= max(ps[i], ps[i + 1])
        ]
        i = min(pairs, key=lambda j: min(abs(j - i_best), abs(j + 1 - i_best)))
        a, b = xs[i], xs[i + 1]
        bracket = (a, b)
        if ps[i] == target:
            x = a
        elif ps[i + 1] == target:
            x = b
        elif method == "exact":
            from scipy import optimize

            x = float(optimize.brentq(lambda v: f(v)[0] - target, a, b, xtol=xtol))
        else:  # Monte Carlo: interpolate on the common-random-number curve, then check there
            x = a + (b - a) * (target - ps[i]) / (ps[i + 1] - ps[i])
        points[x] = f(x)
        cands = [a, x, b]
    else:
        cands = xs
    best = min(cands, key=lambda v: (abs(points[v][0] - target), v))
    p, ci_lo, ci_hi = points[best]
    others = sorted(v for v in (bracket or ()) if v != best)
    if bracket is None:
        j = xs.index(best)
        others = [xs[k] for k in (j - 1, j + 1) if 0 <= k < grid]
    lower = next(((v, points[v][0]) for v in reversed(others) if v < best), None)
    upper = next(((v, points[v][0]) for v in others if v > best), None)
    values = sorted(points)
    return Calibration(
        model=model.replace(**{vary: best}),
        param=vary,
        outcome=outcome,
        target=target,
        value=best,
        p=p,
        ci_low=ci_lo,
        ci_high=ci_hi,
        reachable=reachable,
        achievable=(lo_p, hi_p),
        lower=lower,
        upper=upper,
        bracket=bracket,
        monotone=monotone,
        search_range=(lo, hi),
        method=method,
        n=n if method == "mc" else None,
        seed=seed,
        evaluations=tuple((v, *points[v]) for v in values),
    )
