"""Designer tools: calibrate a parameter to a target rate, and sensitivity to every parameter.

:func:`calibrate` answers "which DC gives 10% deaths?": the value of one numeric
parameter (a DC, a bonus, a PP max, the healer's arrival round...) that brings an
outcome's probability closest to a target, with the neighbouring values on either side
and whether the target can be reached at all in the parameter's allowed range.

:func:`sensitivity` answers "which number matters?": the change of every outcome's
probability for one step up and one step down of every numeric parameter, as a tidy
table sorted by the size of the change.

Both use the exact solver (:func:`simkit.solve`) where the model has one, and Monte
Carlo (:func:`simkit.simulate`) with confidence intervals otherwise (or when asked
with ``method="mc"``). Monte Carlo points all use the same seed (common random
numbers), so neighbouring values are compared on the same dice and the estimated curve
is much smoother than with independent seeds. :func:`sensitivity` runs them on the
streams' positional mode and tests each change paired, track by track, against the base
(:mod:`simkit.analysis.paired`; ``paired=False``: the default streams and the interval of
two independent proportions).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from simkit.core.model import Rules
from simkit.core.numbers import ascii_number
from simkit.core.params import ParamError, allowed, spec
from simkit.core.result import Result
from simkit.core.stats import check_level, norm_ppf, proportion_ci

__all__ = [
    "calibrate",
    "Calibration",
    "sensitivity",
    "parse_probability",
    "CALIBRATION_COLUMNS",
    "SENSITIVITY_COLUMNS",
]

#: Columns of :meth:`Calibration.to_frame`.
CALIBRATION_COLUMNS = (
    "role",
    "param",
    "value",
    "outcome",
    "p",
    "ci_low",
    "ci_high",
    "target",
    "reachable",
    "method",
)
#: Columns of :func:`sensitivity`.
SENSITIVITY_COLUMNS = (
    "param",
    "delta",
    "base_value",
    "value",
    "outcome",
    "p_base",
    "p",
    "change",
    "ci_low",
    "ci_high",
    "method",
    "note",
    "p_value",
    "ci_low_independent",
    "ci_high_independent",
)

METHODS = ("auto", "exact", "mc")


# -- shared helpers -------------------------------------------------------------------------
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


def _as_model(model):
    if isinstance(model, str):
        from simkit.models import make_model

        return make_model(model)
    if not isinstance(model, Rules):
        raise ParamError(
            f"model must be a rules object (e.g. simkit.Dying()) or a model name, got {model!r}"
        )
    return model


def choose_method(model, method: str) -> str:
    if method not in METHODS:
        raise ParamError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if method == "auto":
        return "exact" if model.has_exact else "mc"
    if method == "exact" and not model.has_exact:
        raise ParamError(
            f"method='exact': model {model.name!r} has no exact solver; "
            "use Monte Carlo (method='mc', --method mc)"
        )
    return method


def _too_large(model, changes) -> str | None:
    """Why the exact solver refuses one of ``model.replace(**c)`` for ``c`` in ``changes``
    (:class:`~simkit.core.exact.ExactTooLarge` from its first states, e.g. a party duel past
    its state bound; microseconds each), or None. Values the model rules out are skipped."""
    from simkit.core.exact import ExactTooLarge

    for c in changes:
        try:
            m = model.replace(**c) if c else model
        except ParamError:
            continue
        if m.is_chain or m.has_exact_hist or not m.has_exact:
            continue
        try:
            m.exact_initial()
        except ExactTooLarge as exc:
            return str(exc)
    return None


def _exact_or_mc(asked: str, method: str, run, probe: str | None = None):
    """``run(method)``, every point by one method: where the exact solver refuses a chain as
    too large (:class:`~simkit.core.exact.ExactTooLarge`; ``probe``: the reason, found
    before solving anything), ``method="auto"`` runs with Monte Carlo instead and
    ``method="exact"`` is refused in one line."""
    from simkit.core.exact import ExactTooLarge

    if method == "exact" and probe is not None:
        if asked == "auto":
            return run("mc")
        raise ParamError(f"method='exact' (--method exact): {probe}")
    try:
        return run(method)
    except ExactTooLarge as exc:  # found only while solving (a chain enumerated too large)
        if method != "exact":  # pragma: no cover - Monte Carlo never solves
            raise
        if asked == "auto":
            return run("mc")
        raise ParamError(f"method='exact' (--method exact): {exc}") from None


def check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParamError(f"n must be a positive integer, got {n!r}")
    return int(n)


@dataclass
class Evaluator:
    """Outcome probabilities of model variants, exact or Monte Carlo (one seed for all).

    ``paired``: Monte Carlo on the streams' positional mode, each variant's per-track
    outcomes kept (:meth:`tracks`) for paired tests (:mod:`simkit.analysis.paired`).
    """

    model: Any
    method: str
    n: int
    seed: int | None
    level: float
    cache: dict = field(default_factory=dict)
    paired: bool = False
    track_cache: dict = field(default_factory=dict)

    def tracks(self, **changes):
        """Per-track outcome indices of ``model.replace(**changes)`` (over the model's
        outcomes then ``unresolved``), or None (exact, not paired, or a chain)."""
        self(**changes)
        return self.track_cache.get(tuple(sorted(changes.items())))

    def __call__(self, **changes) -> dict[str, tuple[float, float, float]]:
        """outcome -> (p, ci_low, ci_high) for ``model.replace(**changes)``."""
        key = tuple(sorted(changes.items()))
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        m = self.model.replace(**changes) if changes else self.model
        if self.method == "exact":
            from simkit.core.exact import solve

            res = {o: (p, p, p) for o, p in solve(m).probabilities.items()}
        else:
            from simkit.core.engine import simulate

            positional = self.paired and not m.is_chain
            result = simulate(
                m, self.n, rng=self.seed, positional=positional, keep_outcomes=positional
            )
            if positional:
                self.track_cache[key] = getattr(result, "track_outcomes")
            df = result.summary(level=self.level, exact=False)
            res = {
                r.outcome: (float(r.p), float(r.ci_low), float(r.ci_high)) for r in df.itertuples()
            }
            for event in m.events:  # P(mark >= minimum), with its interval
                assert isinstance(result, Result), "events belong to track models, not chains"
                c = result.event_count(event)
                low, high = proportion_ci(np.array([c]), self.n, self.level, "wilson")
                res[event] = (c / self.n, float(low[0]), float(high[0]))
        self.cache[key] = res
        return res


def _numeric(model, name: str, label: str = "vary") -> dict:
    known = spec(type(model))
    if name not in known:
        raise ParamError(
            f"{label}={name!r}: unknown parameter for model {model.name!r}; "
            f"known: {', '.join(known)}"
        )
    meta = known[name]
    if meta["kind"] not in ("int", "float"):
        numeric = [k for k, m in known.items() if m["kind"] in ("int", "float")]
        raise ParamError(
            f"{label}={name!r} is a {meta['kind']} parameter; an integer or a number is needed: "
            f"{', '.join(numeric)}"
        )
    return meta


def _at_level(model, character_level, keep=()):
    """``model`` with the parameters of a typical character of ``character_level``."""
    if character_level is None:
        return model
    if (
        not isinstance(character_level, (int, np.integer))
        or isinstance(character_level, bool)
        or not 1 <= character_level <= 20
    ):
        raise ParamError(f"character level must be an integer in [1, 20], got {character_level!r}")
    typical = type(model).typical_character(int(character_level))
    changes = {k: v for k, v in typical.items() if k not in keep}
    return model.replace(**changes) if changes else model


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
        fmt = _fmt_value
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
            f"{self.param}={_fmt_value(a)} to {pb:.4f} at {self.param}={_fmt_value(b)}"
        )

    def _skipped_note(self) -> str:
        if not self.skipped:
            return ""
        return f"; {len(self.skipped)} value(s) of {self.param} skipped ({self.skipped[0][1]})"

    def __str__(self) -> str:
        return self.message

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


def _fmt_value(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


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
    level: float = 0.95,
    scan_limit: int | None = None,
    grid: int = 41,
    xtol: float = 1e-6,
    character_level: int | None = None,
) -> Calibration:
    """The value of ``vary`` that brings P(``outcome``) closest to ``target``.

    Parameters
    ----------
    model : Rules or str
        The rules (every other parameter stays as given), or a model name.
    target : float or str
        The probability aimed at: ``0.1`` or ``"10%"``.
    vary : str
        An integer or number parameter of the model (e.g. ``"dc"``, ``"save_bonus"``,
        ``"heal_round"``).
    outcome : str
        The outcome whose probability is aimed at (default ``"dead"``).
    lo, hi : optional
        The range searched (default: the parameter's allowed range).
    method : {"auto", "exact", "mc"}
        ``auto``: the exact solver when the model has one, else Monte Carlo.
    n : int
        Monte Carlo tracks per evaluated value.
    rng : None, int or Generator
        Seed of the Monte Carlo points (all points use the same seed).
    level : float
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

    Returns
    -------
    Calibration
        With the value, the probability it gives, its neighbours, whether the target is
        reachable, and ``to_frame()``. An unreachable target is not an error: the
        result says so (``reachable=False``) and gives the closest achievable value.
    """
    model = _as_model(model)
    target = parse_probability(target)
    model = _at_level(model, character_level, keep=(vary,))
    known = (*model.outcomes, "unresolved", *model.events)
    if outcome not in known:
        raise ParamError(
            f"outcome={outcome!r} is not an outcome of model {model.name!r}; "
            f"outcomes: {', '.join(known)}"
        )
    meta = _numeric(model, vary)
    if outcome in model.events:  # an event of the marks: Monte Carlo only
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
        probe = _too_large(model, [{vary: v} for v in values])
    return _exact_or_mc(asked, method, run, probe)


def confidence_level(level) -> float:
    try:
        return check_level(level)
    except ValueError as exc:
        raise ParamError(str(exc)) from None


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
    level: float = 0.95,
    character_level: int | None = None,
    paired: bool = True,
) -> pd.DataFrame:
    """Change of each outcome's probability for one step up and down of each parameter.

    Parameters
    ----------
    model : Rules or str
        The rules at which to measure (the base point), or a model name.
    params : list of str, optional
        Parameters to move (default: every integer and number parameter).
    outcomes : list of str, optional
        Outcomes reported (default: all, ``unresolved`` included).
    steps : dict, optional
        Parameter -> step size. Default 1 for integers (the "+1 / -1" of a DC or a
        bonus), 1.0 for numbers, 0.05 for numbers whose allowed range is within a unit
        interval (probabilities such as ``hit_chance``).
    method : {"auto", "exact", "mc"}
    n : int
        Monte Carlo tracks per point (the base and every variant share one seed).
    rng : None, int or Generator
    level : float
        Confidence level of the Monte Carlo interval on ``change``: paired, the normal
        interval on the per-track differences against the base (the same positional
        streams; ``p_value`` McNemar's test); ``ci_low_independent`` /
        ``ci_high_independent`` the interval of two independent proportions, for
        reference (an event of the marks, or a chain, has only that one).
    character_level : int, optional
        Measure at a typical character of this level (as in :func:`calibrate`).
    paired : bool
        Monte Carlo on positional streams with paired intervals (default); ``False``:
        the default streams, ``ci_low`` / ``ci_high`` the independent interval.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SENSITIVITY_COLUMNS`: one row per parameter, direction and
        outcome; ``change = p - p_base``. Rows are sorted by ``|change|`` (largest
        first); a direction that leaves the allowed range or breaks a cross-parameter
        rule, or a parameter that is not set (``none``), gives one row with an empty
        ``outcome``, empty numbers and the reason in ``note``, at the end.
    """
    model = _at_level(_as_model(model), character_level)
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
            _numeric(model, p, "params")
    all_out = tuple(model.outcomes) + ("unresolved",)
    if outcomes is None:
        outcomes = list(all_out)
    else:
        outcomes = [outcomes] if isinstance(outcomes, str) else list(outcomes)
        for o in outcomes:
            if o not in all_out:
                raise ParamError(
                    f"outcome {o!r} is not an outcome of model {model.name!r}; "
                    f"outcomes: {', '.join(all_out)}"
                )
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
                        f"skipped: {name}={_fmt_value(v1)} is outside the allowed range "
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
                    from simkit.analysis.paired import joint_counts, paired_from_joint

                    k = len(all_out)
                    st = paired_from_joint(joint_counts(base_tracks, tracks, k), level)
                    by_track = {o: [float(x[i]) for x in st] for i, o in enumerate(all_out)}
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
        df = pd.DataFrame(rows, columns=list(SENSITIVITY_COLUMNS))
        for col in ("base_value", "value"):  # keep integers as integers next to skipped rows
            df[col] = pd.Series([r[col] for r in rows], dtype=object)
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
        probe = _too_large(model, moves)
    return _exact_or_mc(asked, method, run, probe)


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
