"""Monte Carlo results: counts, per-step histograms, tidy summaries with intervals."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from simkit.core.model import Rules
from simkit.core.names import pc_names, unknown
from simkit.core.params import ParamError
from simkit.core.stats import confidence_of
from simkit.core.tables import result_summary, summary_html, survival_table

__all__ = [
    "EVENT_MEANS",
    "HEADLINE_READS",
    "KINDS",
    "NAME_READS",
    "Event",
    "Mean",
    "Result",
    "SUMMARY_COLUMNS",
    "event_counts",
    "event_names",
    "event_values",
    "event_specs",
    "events_table",
    "mean_ci",
    "mean_specs",
    "name_kinds",
    "pc_names",
]

#: Columns of :meth:`Result.summary` (a public contract, with ``exact`` when known).
SUMMARY_COLUMNS = ("outcome", "kind", "count", "n", "p", "ci_low", "ci_high")

#: The kinds of a tidy table's rows (its ``kind`` column). ``outcome``: how a track ends,
#: exclusive, so the ``p`` of the rows of this kind add up to 1 (``unresolved``
#: included); ``event``: a question about the marks (``any_death``, ``won``...), true of
#: some tracks, overlapping the outcomes and each other; ``mean``: the mean of a mark
#: over every track (``expected_deaths``), in column ``mean``, with no ``p``.
KINDS = ("outcome", "event", "mean")

#: How a name reads for a person (tables printed by the command, chart labels); the name
#: itself stays the same in every file and frame (``victory`` means won with nobody dead).
NAME_READS = {
    "victory": "won, nobody died",
    "victory_with_deaths": "won, with deaths",
    "won": "won, with or without deaths",
}

#: How the headline rows read (a model's ``headline``: ``simkit run party``'s first block).
HEADLINE_READS = {
    "any_death": "P(a PC dies)",
    "defeat": "P(defeat)",
    "expected_deaths": "expected deaths",
}

#: A mean's row name where it is not the mark's own name.
EVENT_MEANS = {"deaths": "expected_deaths"}


@dataclass(frozen=True, slots=True)
class Event:
    """A question about the marks that is not an outcome, asked of every track.

    ``kind="at_least"``: the track's ``mark`` is at least ``value`` when it ends;
    ``kind="bit"``: bit ``value`` of ``mark`` is set (``dead_mask``: PC ``value`` died);
    ``kind="outcomes"``: the track ended in one of ``of`` (the party's ``won``: victory
    with or without deaths; ``mark`` is empty). A track still going at the horizon
    (``unresolved``) records no mark: it counts as no event (no death).
    """

    name: str
    mark: str
    kind: str
    value: int
    of: tuple[str, ...] = ()

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Whether the event holds for each value of its mark (bool, the shape of
        ``values``: non-negative integers, a track's mark or a histogram's values)."""
        if self.kind == "bit":
            return (values >> self.value) & 1 == 1
        return values >= self.value

    def of_tracks(self, model, codes: np.ndarray, marks: dict | None) -> np.ndarray:
        """Whether the event holds for each track (bool, shape (n,)), from the tracks'
        outcome codes (``codes``: indices into ``model.outcomes``, ``unresolved`` past
        them) and their marks (``marks``: mark -> (n,) values)."""
        if self.kind == "outcomes":
            return np.isin(codes, [list(model.outcomes).index(o) for o in self.of])
        assert marks is not None, "events of the marks need the per-track marks"
        return self.holds(marks[self.mark])


@dataclass(frozen=True, slots=True)
class Mean:
    """The mean of a mark over every track, with ``upper`` its largest possible value
    (None: only ``>= 0``) and ``unresolved`` the value an unresolved track counts as."""

    name: str
    mark: str
    upper: float | None
    unresolved: float

    def per_track(self, values: np.ndarray, unresolved: np.ndarray) -> np.ndarray:
        """Each track's value (float64): its mark, or :attr:`unresolved` where the track
        is unresolved (``unresolved``: bool, one per track)."""
        return np.where(unresolved, self.unresolved, values.astype(np.float64))


def event_specs(model) -> tuple[Event, ...]:
    """The events a result of ``model`` (an instance) reports, in the order shown.

    Only a model that declares ``events`` has them: its declared ones (the party's
    ``any_death``) first; with a ``deaths`` mark and ``n_pcs``, ``deaths>=k`` for
    ``2 <= k < n_pcs`` and ``tpk`` (every PC dies); with ``dead_mask`` and ``roles``,
    ``death:<pc>`` for each PC (:func:`pc_names`); and ``death_<cause>`` (at least one
    death of that cause) for every mark ``deaths_<cause>`` (the party's ``in_fight``,
    ``after_defeat``, ``after_fight``); last, the model's ``outcome_events`` (a name ->
    the outcomes it joins: the party's ``won``).
    """
    declared = dict(getattr(model, "events", None) or {})
    if not declared:
        return ()
    marks = tuple(model.marks)
    out = [Event(name, mark, "at_least", int(lo)) for name, (mark, lo) in declared.items()]
    n_pcs = int(getattr(model, "n_pcs", 0) or 0)
    if "deaths" in marks and n_pcs:
        out += [Event(f"deaths>={k}", "deaths", "at_least", k) for k in range(2, n_pcs)]
        if n_pcs >= 2:
            out.append(Event("tpk", "deaths", "at_least", n_pcs))
    roles = getattr(model, "roles", None)
    if "dead_mask" in marks and roles:
        out += [Event(f"death:{pc}", "dead_mask", "bit", k) for k, pc in enumerate(pc_names(roles))]
    out += [Event("death_" + m[7:], m, "at_least", 1) for m in marks if m.startswith("deaths_")]
    for name, of in (getattr(model, "outcome_events", None) or {}).items():
        out.append(Event(name, "", "outcomes", 0, tuple(of)))
    return tuple(
        {e.name: e for e in reversed(out)}[name] for name in dict.fromkeys(e.name for e in out)
    )


def mean_specs(model) -> tuple[Mean, ...]:
    """The means a result of ``model`` reports (a model with ``events`` only).

    Every mark but ``dead_mask``: ``deaths`` as ``expected_deaths`` and each
    ``deaths_<cause>`` as ``expected_deaths_<cause>`` (at most ``n_pcs``; they add up
    to ``expected_deaths``). The mark named as the time unit (the party's ``rounds``)
    is at most the horizon, and an unresolved track counts as the horizon (it was cut
    off there); any other mark of an unresolved track counts as 0 (it records nothing:
    no death, no knock-out, nothing spent)."""
    if not getattr(model, "events", None):
        return ()
    out = []
    n_pcs = getattr(model, "n_pcs", None)
    for m in model.marks:
        if m == "dead_mask":
            continue
        if m.startswith("deaths_"):  # expected deaths by cause (they add up to deaths)
            out.append(Mean("expected_" + m, m, float(n_pcs) if n_pcs else None, 0.0))
        elif m == model.time_unit:
            out.append(Mean(m, m, float(model.horizon), float(model.horizon)))
        elif m == "deaths" and n_pcs:
            out.append(Mean(EVENT_MEANS[m], m, float(n_pcs), 0.0))
        else:
            out.append(Mean(EVENT_MEANS.get(m, m), m, None, 0.0))
    return tuple(out)


def event_names(model) -> tuple[str, ...]:
    """The names of ``model``'s events then means (what ``res[name]`` and calibrate's
    targets accept besides the outcomes)."""
    return tuple(e.name for e in event_specs(model)) + tuple(m.name for m in mean_specs(model))


def name_kinds(model) -> dict[str, str]:
    """Every name a result of ``model`` reports -> its kind (:data:`KINDS`): the outcomes
    and ``unresolved``, then the events, then the means (:func:`event_names`)."""
    out = {o: "outcome" for o in (*model.outcomes, "unresolved")}
    out.update({e.name: "event" for e in event_specs(model)})
    out.update({m.name: "mean" for m in mean_specs(model)})
    return out


def mean_ci(mean, var, n, level: float = 0.95, upper=None):
    """A score interval for the mean of a bounded count, inside its range, vectorised.

    The Wilson interval with the variance function of the range: for a value in
    ``[0, upper]`` (quasi-binomial) the roots ``mu`` of ``(mean - mu)^2 = z^2 phi
    mu (upper - mu) / n``, ``phi`` the sample's variance over ``mean (upper - mean)``
    (at most 1, the widest variance the range allows), the sample taken with ``z^2 /
    2`` more tracks at 0 and at ``upper`` (so that a mean made of a few tracks does not
    claim a small variance; a 0/1 value gives the Wilson interval exactly); with no
    upper bound (``upper`` None or ``inf``: quasi-Poisson) ``(mean - mu)^2 = z^2 phi mu
    / n``, ``phi = var / mean`` (1 where ``mean`` is 0). ``var`` is the sample's
    variance over ``n``. The roots lie in ``[0, upper]`` whatever the data: never below
    0 or above the largest possible value. ``upper`` may be an array (one per mean).

    Coverage (20,000 samples each, 95%): a death count on 0..4 at n = 50..1,000,
    0.949-0.971; quasi-Poisson 0.945-0.952 where a few percent of tracks are above 0,
    but 0.85-0.87 when only ~1% are and their values vary (a rare, over-dispersed
    count: bound it where a bound exists).
    """
    from simkit.core.stats import check_level, norm_ppf

    z2 = float(norm_ppf(0.5 + check_level(level) / 2)) ** 2
    mean, var, n = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (mean, var, n)))
    b = np.broadcast_to(np.inf if upper is None else np.asarray(upper, np.float64), mean.shape)
    bounded = np.isfinite(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        # quasi-Poisson, on the count's own scale
        phi = np.where(mean > 0, var / mean, 1.0)
        k = z2 * phi / n
        half = np.sqrt(k * mean + k**2 / 4)
        p_low, p_high = np.maximum(mean + k / 2 - half, 0.0), mean + k / 2 + half
        # quasi-binomial, on the scale of the range [0, 1]; phi from the sample with
        # z^2 / 2 more tracks at each end of the range (as Agresti-Coull add z^2 / 2
        # successes and failures), so that a few tracks above 0 do not claim a small
        # variance (0/1 values stay Wilson: phi = 1)
        y = mean / b
        na = n + z2
        ya = (mean * n + z2 / 2 * b) / na / b
        va = ((var + mean**2) * n + z2 / 2 * b**2) / na / b**2 - ya**2
        phi = np.clip(va / (ya * (1 - ya)), 0.0, 1.0)
        k = z2 * phi / n
        centre = (y + k / 2) / (1 + k)
        half = np.sqrt(k * y * (1 - y) + k**2 / 4) / (1 + k)
        b_low = np.where(y <= 0, 0.0, np.clip(centre - half, 0, 1)) * b
        b_high = np.where(y >= 1, 1.0, np.clip(centre + half, 0, 1)) * b
    return np.where(bounded, b_low, p_low), np.where(bounded, b_high, p_high)


def _event_counts(result, events) -> np.ndarray:
    """Tracks in each event (int64, one per event), from the result's mark histograms."""
    out = np.zeros(len(events), dtype=np.int64)
    totals: dict[str, np.ndarray] = {}
    for j, e in enumerate(events):
        if e.kind == "outcomes":
            counts_of = result.counts
            out[j] = sum(counts_of[o] for o in e.of)
            continue
        h = totals.get(e.mark)
        if h is None:
            counts = result.marks.get(e.mark)
            h = totals[e.mark] = (
                np.zeros(1, dtype=np.int64) if counts is None else counts.sum(axis=0)
            )
        out[j] = h[e.holds(np.arange(len(h)))].sum()
    return out


def event_counts(result) -> dict[str, int]:
    """Event name -> tracks in it (:func:`event_specs`; empty for a model without events)."""
    events = event_specs(result.model)
    return dict(zip((e.name for e in events), (int(c) for c in _event_counts(result, events))))


def _means(result, means, level: float):
    """(mean, ci_low, ci_high) arrays of ``means`` over every track of ``result``."""
    n, unresolved = result.n, result.counts["unresolved"]
    s1 = np.empty(len(means))
    s2 = np.empty(len(means))
    for j, m in enumerate(means):
        counts = result.marks.get(m.mark)
        h = np.zeros(1) if counts is None else counts.sum(axis=0).astype(np.float64)
        x = np.arange(len(h), dtype=np.float64)
        s1[j] = x @ h + unresolved * m.unresolved
        s2[j] = (x * x) @ h + unresolved * m.unresolved**2
    mu = s1 / n
    var = np.maximum(s2 / n - mu**2, 0.0)
    upper = [np.inf if m.upper is None else m.upper for m in means]
    low, high = mean_ci(mu, var, n, level, upper)
    return mu, low, high


def event_values(result, level: float = 0.95) -> dict[str, tuple[float, float, float]]:
    """Name -> (p or mean, ci_low, ci_high) of every event and mean, as
    :func:`events_table` gives them (Wilson intervals), without building a table."""
    from simkit.core.stats import proportion_ci

    events, means = event_specs(result.model), mean_specs(result.model)
    c = _event_counts(result, events)
    low, high = proportion_ci(c, result.n, level, "wilson")
    mu, mlow, mhigh = _means(result, means, level)
    out = {e.name: (c[j] / result.n, low[j], high[j]) for j, e in enumerate(events)}
    out.update({m.name: (mu[j], mlow[j], mhigh[j]) for j, m in enumerate(means)})
    return {k: (float(a), float(b), float(x)) for k, (a, b, x) in out.items()}


def events_table(result, level: float = 0.95, method: str = "wilson") -> pd.DataFrame:
    """The result's events and means: columns ``outcome, kind, count, n, p, ci_low,
    ci_high, mean`` (``kind``: ``event`` or ``mean``); an event's ``p`` over every track
    (the unresolved count as no event) with its interval
    (:func:`simkit.core.stats.proportion_ci`, ``method``), a mean's value in ``mean``
    with the interval of :func:`mean_ci` (``count`` and ``p`` empty)."""
    return _frame(result, level, method, None, outcomes=False)


def _frame(result, level, method, exact, outcomes: bool) -> pd.DataFrame:
    """Events, then the outcomes (``outcomes``: with ``exact``, a dict or None), then
    the means, in one table built at once."""
    from simkit.core.stats import proportion_ci

    events, means = event_specs(result.model), mean_specs(result.model)
    n = result.n
    counts = result.counts if outcomes else {}
    c = np.concatenate(
        [_event_counts(result, events), np.fromiter(counts.values(), np.int64, len(counts))]
    )
    low, high = proportion_ci(c, n, level, method)
    mu, mlow, mhigh = _means(result, means, level)
    k, m = len(c), len(means)
    nan = np.full(m, np.nan)
    cols = {
        "outcome": [e.name for e in events] + list(counts) + [x.name for x in means],
        "kind": ["event"] * len(events) + ["outcome"] * len(counts) + ["mean"] * m,
        "count": pd.arrays.IntegerArray(
            np.concatenate([c, np.zeros(m, np.int64)]), np.arange(k + m) >= k
        ),
        "n": np.full(k + m, n, dtype=np.int64),
        "p": np.concatenate([c / n, nan]),
        "ci_low": np.concatenate([low, mlow]),
        "ci_high": np.concatenate([high, mhigh]),
    }
    if exact is not None:
        cols["exact"] = np.concatenate(
            [np.full(len(events), np.nan), [exact[o] for o in counts], nan]
        )
    cols["mean"] = np.concatenate([np.full(k, np.nan), mu])
    df = pd.DataFrame(cols)
    df.attrs.update(model=result.model.name, seed=result.seed, n=n, level=level)
    return df


def _add_phases(df: pd.DataFrame, result) -> None:
    """The ``phase``, ``in_fight`` and ``in_care`` columns of a survival table (in place)."""
    T = result.hist.shape[1]
    r = result.marks[result.time_unit].sum(axis=0)  # tracks that fought r steps
    r = np.pad(r, (0, max(T + 1 - len(r), 0)))
    fought_at_least = np.cumsum(r[::-1])[::-1]  # [t] = tracks with r >= t
    unresolved = result.counts["unresolved"]
    t = np.arange(T)
    fighting = np.where(t > 0, fought_at_least[t] + unresolved, 0)  # during step t
    absorbed_before = np.concatenate([[0], np.cumsum(result.hist.sum(axis=0))[:-1]])
    active = np.where(t > 0, result.n - absorbed_before, 0)  # still going at step t's start
    caring = np.maximum(active - fighting, 0)
    phase = np.where(
        fighting > 0, np.where(caring > 0, "fight+care", "fight"), np.where(caring > 0, "care", "")
    )
    steps = df["time"].to_numpy()
    df["phase"] = phase[steps]
    df["in_fight"] = fighting[steps] / result.n
    df["in_care"] = caring[steps] / result.n


@dataclass(frozen=True)
class Result:
    """What :func:`simkit.simulate` returns.

    Attributes
    ----------
    model : Rules
        The rules simulated (with every parameter).
    n : int
        Number of tracks.
    seed : int
        The integer seed that replays the run (``simulate(model, n, rng=seed)``).
    hist : ndarray, shape (n_outcomes, horizon + 1), int64
        Tracks absorbed in each outcome at each step (row order ``model.outcomes``).
    marks : dict
        Field -> (n_outcomes, values) counts of that field's value at absorption.
    observed : dict
        Field -> (horizon + 1, values) counts over tracks still active after step t.
    """

    model: Rules
    n: int
    seed: int
    hist: np.ndarray
    marks: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)
    #: each track's end state, in track order, with ``simulate(..., keep_state=True)``
    final: object = None

    @property
    def outcomes(self) -> tuple[str, ...]:
        """The outcomes' names, ``unresolved`` last (the rows of ``hist``; their frame is
        ``summary(kind="outcome")``)."""
        return tuple(self.model.outcomes) + ("unresolved",)

    @property
    def params(self) -> dict:
        return self.model.params()

    @property
    def time_unit(self) -> str:
        return self.model.time_unit

    @property
    def counts(self) -> dict[str, int]:
        c = self.hist.sum(axis=1)
        out = dict(zip(self.model.outcomes, (int(x) for x in c)))
        out["unresolved"] = self.n - int(c.sum())
        return out

    def __getitem__(self, outcome: str) -> float:
        """Estimated probability of ``outcome`` or of an event (``res["any_death"]``); a
        mean's value for a mean's name (``res["expected_deaths"]``). An unknown name is a
        ``KeyError`` listing the names that exist (and the near one meant)."""
        counts = self.counts
        if outcome in counts:
            return counts[outcome] / self.n
        events = event_specs(self.model)
        for e in events:
            if e.name == outcome:
                return int(_event_counts(self, (e,))[0]) / self.n
        for m in mean_specs(self.model):
            if m.name == outcome:
                return float(_means(self, (m,), 0.95)[0][0])
        known = list(counts) + list(event_names(self.model))
        raise KeyError(
            unknown("outcome, event or mean", outcome, known, where=f"of model {self.model.name!r}")
        )

    @cached_property
    def exact(self):
        """The :class:`~simkit.core.exact.ExactResult` of the same model, or None."""
        from simkit.core.exact import solve_if_possible

        return solve_if_possible(self.model)

    def summary(
        self,
        confidence: float = 0.95,
        method: str = "wilson",
        exact: bool = True,
        events: bool = True,
        *,
        level: float | None = None,
        kind: str | None = None,
    ) -> pd.DataFrame:
        """One row per outcome: ``outcome, kind, count, n, p, ci_low, ci_high`` (+ ``exact``).

        ``kind`` (:data:`KINDS`) says what each row is: an ``outcome`` (exclusive: the
        ``p`` of these rows add up to 1), an ``event`` of the marks (overlapping) or a
        ``mean``. The argument ``kind`` keeps the rows of one kind
        (``summary(kind="outcome")``; :attr:`events` and :attr:`means` are the other two).

        ``confidence`` is the confidence level of the interval (``level=``, its old name,
        still works for one release, with a ``DeprecationWarning``; Wilson by default,
        ``method="clopper-pearson"`` for the exact interval). ``exact`` adds the exact
        probability when the model has an exact solver.

        A model that declares ``events`` (the party) leads with them, P(a PC dies)
        first, then its outcomes, then its means (column ``mean``, with a range-bound
        interval: :func:`events_table`); ``events=False`` gives the outcomes alone.
        """
        level = confidence_of(confidence, level, "summary")
        if kind is not None and kind not in KINDS:
            raise ParamError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        if not events or not getattr(self.model, "events", None):
            df = result_summary(self, level, method, exact)
        else:
            ex = self.exact if exact else None
            df = _frame(self, level, method, None if ex is None else ex.probabilities, True)
        if kind is None:
            return df
        out = df[df["kind"] == kind].reset_index(drop=True)
        if kind != "mean" and "mean" in out:
            out = out.drop(columns="mean")
        if kind != "outcome":
            out = out.drop(columns=[c for c in ("exact",) if c in out])
        if kind == "mean":
            out = out.drop(columns=["count", "p"])
        out.attrs.update(df.attrs)
        return out

    def to_xarray(self, confidence: float = 0.95):
        """The summary as an :class:`xarray.Dataset` over the dimension ``name`` (every
        outcome, event and mean), with ``kind`` a coordinate along it and the variables
        ``count, n, p, ci_low, ci_high`` (``exact``, ``mean`` where there are some):
        :func:`simkit.core.labelled.to_xarray`. Needs xarray (``pip install
        'simkit[xarray]'``; else one line saying so)."""
        from simkit.core.labelled import to_xarray

        return to_xarray(self.summary(confidence=confidence))

    @property
    def events(self) -> pd.DataFrame:
        """The events of the marks (``any_death``, ``won``...) as a frame: ``outcome, kind,
        count, n, p, ci_low, ci_high`` (95% Wilson intervals; no rows for a model without
        events). They overlap: their ``p`` need not add up to anything."""
        return self.summary(kind="event")

    @property
    def means(self) -> pd.DataFrame:
        """The means of the marks (``expected_deaths``...) as a frame: ``outcome, kind, n,
        ci_low, ci_high, mean`` (95% intervals; no rows for a model without means)."""
        return self.summary(kind="mean")

    @property
    def probabilities(self) -> dict[str, float]:
        """Estimated probability of each outcome (``count / n``), ``unresolved`` last."""
        return {o: c / self.n for o, c in self.counts.items()}

    def survival(
        self,
        confidence: float = 0.95,
        method: str = "wilson",
        exact=True,
        *,
        level: float | None = None,
    ) -> pd.DataFrame:
        """Per-step probabilities by outcome, with bands (:mod:`simkit.core.tables`).

        Long format with columns ``stage, time_unit, time, outcome, count, n, p, ci_low,
        ci_high, exact``: for each absorbing outcome, P(absorbed in it by the end of step
        ``time``); for ``active``, P(still in the track after step ``time``). Time is in
        the model's unit (``time_unit``, also ``df.attrs["time_unit"]``). ``exact``: True
        to add the exact answer when the model has one, False for none, or an
        :class:`~simkit.core.exact.ExactResult` already solved.

        A model whose steps go on after its fight (the party's care of the downed: its
        ``rounds`` mark counts the fight's rounds only) says which phase each step is
        in: ``phase`` (``fight``, ``care``, ``fight+care``: what the tracks were doing
        during step ``time``) and ``in_fight`` / ``in_care``, the share of all tracks
        fighting / in care during that step (from the ``rounds`` mark: a track that fought
        ``r`` rounds fought steps ``1..r``; an unresolved track is counted as fighting).
        """
        level = confidence_of(confidence, level, "survival")
        ex = self.exact if exact is True else (exact or None)
        df = survival_table(
            self.model.outcomes,
            stage=self.model.name,
            time_unit=self.time_unit,
            counts=np.cumsum(self.hist, axis=1),
            n=self.n,
            exact=None if ex is None else ex.cdf(),
            level=level,
            method=method,
        )
        df.attrs.update(model=self.model.name, time_unit=self.time_unit, seed=self.seed, n=self.n)
        if getattr(self.model, "events", None) and self.time_unit in self.marks:
            _add_phases(df, self)
        return df

    def stage_summary(
        self, confidence: float = 0.95, method: str = "wilson", *, level: float | None = None
    ) -> pd.DataFrame:
        """Outcomes by stage: one stage here (columns as :meth:`ChainResult.stage_summary`)."""
        level = confidence_of(confidence, level, "stage_summary")
        df = self.summary(level, method, exact=False, events=False)
        df.insert(0, "time_unit", self.time_unit)
        df.insert(0, "stage", self.model.name)
        return df

    def event_count(self, event: str) -> int:
        """Tracks in one of the model's events (:func:`event_specs`: the declared ones,
        ``deaths>=k``, ``tpk``, ``death:<pc>``, ``death_<cause>``)."""
        for e in event_specs(self.model):
            if e.name == event:
                return int(_event_counts(self, (e,))[0])
        names = [e.name for e in event_specs(self.model)]
        raise KeyError(unknown("event", event, names, where=f"of model {self.model.name!r}"))

    def percentiles(self, q=(0.1, 0.5, 0.9)) -> pd.DataFrame:
        """How swingy the run is: the percentiles ``q`` of every mark (rounds, deaths,
        resources spent...) and, where the run kept its end states (``keep_state=True``),
        of each PC's HP and resources left; a tidy frame ``quantity, source, n, mean,
        p10, p50, p90`` (:func:`simkit.core.percentiles.percentiles`)."""
        from simkit.core.percentiles import percentiles

        return percentiles(self, q)

    def replay(self, i: int) -> pd.DataFrame:
        """Track ``i`` of this run played again from the run's own dice: its log as a
        frame (the model's :meth:`~simkit.core.model.Rules.replay_track` on this run's
        ``seed`` and ``n``): a party fight's actions round by round
        (:func:`simkit.models.party_replay.replay`), or a day's steps, its fights' actions
        and the PCs' states between steps (:func:`simkit.models.day_replay.replay`). For a
        run on the streams' default mode from the model's own start (not ``positional``,
        not ``start=``).

        Raises
        ------
        ParamError
            A model or engine without replay (the party and the day on ``engine="loop"``
            have one), or ``i`` not a track of the run (0 <= i < n).
        """
        return self.model.replay_track(self.seed, i, self.n)

    def marks_frame(self, name: str) -> pd.DataFrame:
        """Distribution of a mark: columns ``outcome, value, count, p`` (p over all tracks).
        An unknown mark is a ``KeyError`` listing the model's marks (and the near one meant)."""
        if name not in self.marks:
            raise KeyError(unknown("mark", name, self.marks, where=f"of model {self.model.name!r}"))
        counts = self.marks[name]
        rows = []
        for i, o in enumerate(self.model.outcomes):
            for v in np.flatnonzero(counts[i]):
                rows.append((o, int(v), int(counts[i, v]), counts[i, v] / self.n))
        return pd.DataFrame(rows, columns=["outcome", "value", "count", "p"])

    def _repr_html_(self) -> str:
        return summary_html(
            f"{self.model.name}: {self.n:,} tracks, seed {self.seed} (95% intervals)",
            self.summary(),
        )

    def __repr__(self) -> str:
        ps = ", ".join(f"{o}={c / self.n:.4f}" for o, c in self.counts.items())
        return f"Result({self.model.name}, n={self.n}, seed={self.seed}: {ps})"
