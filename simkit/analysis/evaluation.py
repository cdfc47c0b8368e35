"""What the designer tools share: one model's outcome probabilities over variants, exact or
Monte Carlo (:class:`Evaluator`), the method and argument checks, and the model at a
typical character's level. Used by :mod:`simkit.analysis.calibrate`,
:mod:`simkit.analysis.sensitivity` and :mod:`simkit.analysis.ambiguities`.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit.core.params import ParamError, spec
from simkit.core.result import Result, event_specs, event_values, mean_specs
from simkit.core.stats import check_level

__all__ = [
    "METHODS",
    "Evaluator",
    "as_model",
    "at_level",
    "check_n",
    "check_outcome",
    "choose_method",
    "confidence_level",
    "exact_or_mc",
    "fmt_value",
    "is_event",
    "numeric_param",
    "probability_names",
    "too_large",
]

METHODS = ("auto", "exact", "mc")


def as_model(model, params: dict | None = None):
    """The rules a designer tool works on: rules, a rules class, a model name or a
    parameter dict, with ``params`` (parameters, or keys that derive some: ``level=5``,
    ``fight="severe"``) applied as :func:`simkit.models.make_model` applies them
    (:func:`simkit.models.as_rules`)."""
    from simkit.models import as_rules

    params = dict(params or {})
    lv = params.get("level")
    if isinstance(lv, float) and 0 < lv < 1:  # the old name of the confidence level
        raise ParamError(
            f"level={lv!r}: level is the character's level (an integer, 1..20); the "
            f"intervals' confidence level is confidence={lv!r}"
        )
    return as_rules(model, **params)


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


def too_large(model, changes) -> str | None:
    """Why the exact solver refuses one of ``model.replace(**c)`` for ``c`` in ``changes``
    (:class:`~simkit.core.exact.ExactTooLarge` from its first states, e.g. a party duel past
    its state bound; microseconds each), or None. Values the model rules out are skipped."""
    from simkit.core.exact import ExactTooLarge

    for c in changes:
        try:
            m = model.replace(**c) if c else model
        except ParamError:
            continue
        if m.is_chain or not m.has_exact:
            continue
        try:
            m.exact_initial()  # (a party duel refuses past its bound; others with exact_hist: none)
        except ExactTooLarge as exc:
            return str(exc)
        except NotImplementedError:
            continue
    return None


def exact_or_mc(asked: str, method: str, run, probe: str | None = None):
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


def probability_names(model) -> tuple[str, ...]:
    """What a designer tool can aim at or report for ``model``: its outcomes,
    ``unresolved``, then its events of the marks (``any_death``, ``deaths>=k``, ``tpk``,
    ``death:<pc>``, ``death_<cause>``: :func:`simkit.core.result.event_specs`)."""
    return (*model.outcomes, "unresolved", *(e.name for e in event_specs(model)))


def check_outcome(model, name, label: str = "outcome") -> str:
    """``name`` if it is an outcome or an event of ``model`` (:func:`probability_names`);
    else a one-line :class:`ParamError` naming ``label``, listing the valid names and
    saying when ``name`` is a mean (``expected_deaths``: not a probability)."""
    known = probability_names(model)
    if name in known:
        return name
    from simkit.core.names import suggest

    if name in {m.name for m in mean_specs(model)}:
        why = f"{label}={name!r} is a mean of model {model.name!r}, not a probability"
    else:
        why = f"{label}={name!r} is not an outcome or event of model {model.name!r}"
    raise ParamError(f"{why}{suggest(str(name), known)}; outcomes and events: {', '.join(known)}")


def is_event(model, name: str) -> bool:
    """Whether ``name`` is an event of ``model``'s marks (Monte Carlo only)."""
    return name in {e.name for e in event_specs(model)}


def check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParamError(f"n must be a positive integer, got {n!r}")
    return int(n)


@dataclass
class Evaluator:
    """Outcome probabilities of model variants, exact or Monte Carlo (one seed for all).

    ``paired``: Monte Carlo on the streams' positional mode, each variant's per-track
    outcomes and marks kept (:meth:`tracks`; the :data:`KEEP_TRACKS` used last) for
    paired tests (:mod:`simkit.analysis.paired`).
    """

    model: Any
    method: str
    n: int
    seed: int | None
    level: float
    cache: dict = field(default_factory=dict)
    paired: bool = False
    track_cache: OrderedDict = field(default_factory=OrderedDict)
    evicted: set = field(default_factory=set)  # keys whose per-track values were dropped

    #: Variants whose per-track values are kept (the last used; a caller keeps its base).
    KEEP_TRACKS = 4

    def tracks(self, **changes):
        """The per-track values (:class:`~simkit.analysis.paired.TrackValues`: outcome
        indices over the model's outcomes then ``unresolved``, and marks) of
        ``model.replace(**changes)``, or None (exact, not paired, or a chain). Run again
        if it was evaluated long ago (the same numbers: the same seed)."""
        key = tuple(sorted(changes.items()))
        self(**changes)
        hit = self.track_cache.get(key)
        if hit is None and key in self.evicted:  # dropped from the track cache: run it again
            self.evicted.discard(key)
            del self.cache[key]
            self(**changes)
            hit = self.track_cache.get(key)
        if hit is not None:
            self.track_cache.move_to_end(key)
        return hit

    def __call__(self, **changes) -> dict[str, tuple[float, float, float]]:
        """name -> (p, ci_low, ci_high) for ``model.replace(**changes)``: every outcome,
        and with Monte Carlo every event of the marks (:func:`probability_names`)."""
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
                from simkit.analysis.paired import TrackValues

                self.track_cache[key] = TrackValues(result)
                while len(self.track_cache) > self.KEEP_TRACKS:
                    self.evicted.add(self.track_cache.popitem(last=False)[0])
            df = result.summary(confidence=self.level, exact=False, events=False)
            res = {
                r.outcome: (float(r.p), float(r.ci_low), float(r.ci_high)) for r in df.itertuples()
            }
            if getattr(m, "events", None):  # the events of the marks, with their intervals
                assert isinstance(result, Result), "events belong to track models, not chains"
                values = event_values(result, self.level)
                res.update({e.name: values[e.name] for e in event_specs(m)})
        self.cache[key] = res
        return res


def numeric_param(model, name: str, label: str = "vary") -> dict:
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


def at_level(model, character_level, keep=()):
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


def confidence_level(level) -> float:
    try:
        return check_level(level)
    except ValueError as exc:
        raise ParamError(str(exc)) from None


def fmt_value(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)
