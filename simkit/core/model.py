"""The contract every model implements.

A model is a frozen dataclass of rules (fields declared with :func:`simkit.core.params.param`)
that also knows how to advance a block of tracks. It knows nothing of blocks, streams,
workers, CSV or plots.

Monte Carlo side (used by :func:`simkit.simulate`)
    ``init(n, rng) -> (state, codes)``
        ``state`` is a dict of arrays of shape ``(n,)`` (the per-track state);
        ``codes`` an int8 array of shape ``(n,)`` (a read-only broadcast is fine when
        every track starts alike): ``-1`` for a track that starts in the track, else
        the index in ``outcomes`` of the outcome it ends in at step 0.
    ``step(state, t, rng) -> codes`` or ``(codes, k)``
        Advance the active tracks through step ``t`` (1-based) and return their codes
        (integers: negative = still active, else the outcome index). May update ``state``
        arrays in place or replace them in the dict. A kernel may advance ``k`` steps
        at once (never past the horizon): then a code is ``outcome + len(outcomes) *
        offset`` for a track absorbed at step ``t + offset`` (``0 <= offset < k``).
        Draws must have one row per active track (see
        :class:`simkit.core.streams.BlockRng`).

Exact side (used by :func:`simkit.solve`), for Markov models
    ``exact_initial() -> {key: p}`` and ``exact_step(state, t) -> {key: p}``; a key
    that is a ``str`` is an outcome, anything else (a tuple) a transient state.
    ``exact_regime(t)`` returns a hashable: steps with equal regimes share their
    transitions (the default, ``None`` for every step, says the chain is homogeneous).
"""

from __future__ import annotations

import dataclasses
import html
import weakref
from importlib import import_module
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.names import unknown
from simkit.core.params import ParamError, allowed, check_value, spec, take_declarations

#: The runs whose tracks can be replayed (:meth:`Rules.replay_track`).
REPLAYABLE = "party and day, run with engine='loop'"

__all__ = ["Rules", "ParamError"]


@dataclasses.dataclass(frozen=True, slots=True)
class Rules:
    """Base class of every model's rules (frozen; a variant is :meth:`replace`)."""

    #: Name used by the registry and the CLI.
    name: ClassVar[str] = ""
    #: Time unit of one step ("rounds", "hours", "days", "falls").
    time_unit: ClassVar[str] = "rounds"
    #: Absorbing outcomes, in code order. ``unresolved`` is added by the engine.
    outcomes: ClassVar[tuple[str, ...]] = ()
    #: State fields whose value at absorption is histogrammed per outcome.
    marks: ClassVar[tuple[str, ...]] = ()
    #: Rule ids (docs/rules.md) implemented by the model.
    rule_ids: ClassVar[str] = ""
    #: Whether ``exact_initial``/``exact_step`` (or ``exact_hist``) are implemented.
    has_exact: ClassVar[bool] = False
    #: Whether the model gives its exact per-step distribution itself (``exact_hist``)
    #: instead of a chain of states (a one-step model such as a fall).
    has_exact_hist: ClassVar[bool] = False
    #: Whether the model is a chain of stages (:class:`simkit.core.chain.ChainRules`).
    is_chain: ClassVar[bool] = False
    #: Whether the kernel's draws at each step (the calls, their widths and shapes, and
    #: the steps taken) depend only on the model's parameters and the step, not on its
    #: tracks' states: variants that agree on those draws can then be stepped together on
    #: one draw per track (:mod:`simkit.core.lockstep`; paired comparisons).
    lockstep: ClassVar[bool] = False
    #: Whether ``observe`` reports state values of the active tracks at every step.
    observes: ClassVar[bool] = False
    #: The ambiguities of docs/rules.md this model's parameters carry
    #: (:class:`simkit.core.ambiguity.Ambiguity`): the ambiguity report and
    #: ``compare --ambiguities`` read them here.
    ambiguities: ClassVar[tuple[Ambiguity, ...]] = ()
    #: Events a designer asks about that are not outcomes: name -> (mark, minimum), the
    #: tracks whose mark is at least the minimum, over every outcome (the party's
    #: ``any_death`` is ``("deaths", 1)``). Calibration can target them (Monte Carlo).
    events: ClassVar[dict[str, tuple[str, int]]] = {}
    #: The parameters a designer changes first: a ``<model>_defaults`` chart's title names
    #: their defaults (none: the first few declared).
    headline_params: ClassVar[tuple[str, ...]] = ()
    #: How a chart names the tracks still going (the ``active`` row of a survival table).
    active_label: ClassVar[str] = "still in the track"
    #: Named rule variants: preset name -> parameter overrides (``seed`` = the defaults).
    presets: ClassVar[dict[str, dict[str, Any]]] = {"seed": {}}
    #: Name of the parameter holding the horizon.
    horizon_param: ClassVar[str] = "max_rounds"
    #: The function that replays one track of a run (``"module:function"``, called as
    #: ``function(rules, seed, track, n)``, named so that a model need not import the
    #: module that replays it), or None: the model has no replay.
    replay_with: ClassVar[str | None] = None

    def __new__(cls, *args: Any, **kwargs: Any):
        # an unknown keyword is a ParamError naming the near parameter (the dataclass
        # __init__ would raise a bare TypeError "unexpected keyword argument")
        if kwargs and not kwargs.keys() <= _init_names(cls):
            raise ParamError(_unknown_param(cls, kwargs))
        return object.__new__(cls)

    def __init_subclass__(cls) -> None:
        # (no zero-argument super() in a slotted dataclass: its class cell is stale)
        take_declarations(cls)  # a composite model's stage parameters (params_from)
        if "__repr__" not in cls.__dict__:  # the short repr, not the dataclass's own
            cls.__repr__ = _short_repr  # type: ignore[method-assign]

    def __post_init__(self) -> None:
        for fname, meta in spec(type(self)).items():
            value = check_value(fname, meta, getattr(self, fname))
            object.__setattr__(self, fname, value)
        self.validate()

    # -- hooks -----------------------------------------------------------------
    def validate(self) -> None:
        """Cross-field checks; raise :class:`ParamError` naming the parameters."""

    @property
    def horizon(self) -> int:
        """Last step simulated; tracks still active after it are ``unresolved``."""
        return int(getattr(self, self.horizon_param))

    def init(self, n: int, rng) -> tuple[dict[str, np.ndarray], np.ndarray]:
        raise NotImplementedError

    def replay_track(self, seed: int, track: int, n: int):
        """Track ``track`` of ``simulate(self, n, seed)`` played again, its log as a frame
        (:meth:`simkit.core.result.Result.replay`): the model's :attr:`replay_with`
        called as ``function(self, seed, track, n)`` (ParamError where it has none)."""
        if not self.replay_with:
            raise ParamError(f"replay: model {self.name!r} has no replay; replayable: {REPLAYABLE}")
        module, function = self.replay_with.split(":")
        return getattr(import_module(module), function)(self, seed, track, n)

    def step(self, state: dict[str, np.ndarray], t: int, rng) -> Any:
        raise NotImplementedError

    def exact_initial(self) -> dict:
        raise NotImplementedError(f"model {self.name!r} has no exact solver")

    def exact_step(self, state, t: int) -> dict:
        raise NotImplementedError(f"model {self.name!r} has no exact solver")

    def exact_regime(self, t: int):
        return None

    def exact_hist(self) -> np.ndarray:
        """Exact P(absorbed in outcome at step t), shape (n_outcomes, horizon + 1)
        (models with ``has_exact_hist``)."""
        raise NotImplementedError(f"model {self.name!r} has no exact_hist")

    def observe(self, state: dict[str, np.ndarray], t: int) -> dict[str, np.ndarray]:
        """Values of the active tracks to histogram after step ``t`` (models with
        ``observes``): field -> int array of shape (m,)."""
        return {}

    @classmethod
    def typical_character(cls, level: int) -> dict[str, Any]:
        """Parameters of a typical PF2e character of ``level`` (1..20) in this model
        (its save, Constitution, PP...), from :mod:`simkit.rules.pf2e.levels`; none by default."""
        return {}

    @classmethod
    def typical_opponent(cls, level: int) -> dict[str, Any]:
        """Parameters of a typical opponent of the same ``level`` (a monster's DC...)."""
        return {}

    # -- conveniences ------------------------------------------------------------
    def params(self) -> dict[str, Any]:
        """The declared parameters and their values."""
        return {k: getattr(self, k) for k in spec(type(self))}

    def replace(self, **changes) -> Rules:
        """A new rules object with some parameters changed (validated)."""
        if not changes.keys() <= spec(type(self)).keys():
            raise ParamError(_unknown_param(type(self), changes))
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_params(cls, **params) -> Rules:
        """Build from keyword parameters, rejecting unknown names clearly."""
        if not params.keys() <= spec(cls).keys():
            raise ParamError(_unknown_param(cls, params))
        return cls(**params)

    def __repr__(self) -> str:
        return _short_repr(self)

    def _repr_html_(self) -> str:
        """The parameters as a table (Jupyter): parameter, value, default, allowed, unit,
        rule id, meaning; the values that differ from their defaults in bold."""
        return _params_html(self)

    @property
    def all_outcomes(self) -> tuple[str, ...]:
        return tuple(self.outcomes) + ("unresolved",)


#: init-argument names of each class, with the fields they were read from.
_INIT_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _init_names(cls: type) -> frozenset[str]:
    """The keyword arguments the dataclass ``__init__`` of ``cls`` takes (cached)."""
    fields = getattr(cls, "__dataclass_fields__", None)
    hit = _INIT_NAMES.get(cls)
    if hit is not None and hit[0] is fields:
        return hit[1]
    names = frozenset(f.name for f in dataclasses.fields(cls) if f.init) if fields else frozenset()
    _INIT_NAMES[cls] = (fields, names)
    return names


def _unknown_param(cls: type, given) -> str:
    """One line naming the first unknown keyword of ``given``, the near parameter and the
    model's parameters."""
    known = list(spec(cls)) or sorted(_init_names(cls))
    bad = next(k for k in given if k not in known)
    model = getattr(cls, "name", "")
    where = f"for model {model!r}" if model else f"for {cls.__name__}"
    return unknown("parameter", bad, known, where=where)


def _is_default(rules: Rules, f: dataclasses.Field) -> bool:
    """Whether the field's value is its declared default (as validated: ``"2d8+4"``
    and its normal form are one value)."""
    if f.default is dataclasses.MISSING:
        return False
    value = getattr(rules, f.name)
    default = f.default
    if "kind" in f.metadata and default is not None:
        try:
            default = check_value(f.name, dict(f.metadata), default)
        except ParamError:
            return False
    try:
        return bool(type(value) is type(default) and value == default)
    except Exception:  # a value without a plain truth (an array): show it
        return False


def _short_repr(rules: Rules) -> str:
    """``Dying(save_bonus=3)``: the class and the parameters that differ from their
    defaults (``Dying()`` for the defaults); ``eval`` gives an equal object back."""
    parts = [
        f"{f.name}={getattr(rules, f.name)!r}"
        for f in dataclasses.fields(rules)
        if f.repr and not _is_default(rules, f)
    ]
    return f"{type(rules).__qualname__}({', '.join(parts)})"


def _params_html(rules: Rules) -> str:
    """An HTML table of ``rules``' declared parameters (see ``Rules._repr_html_``)."""
    e = html.escape
    fields = {f.name: f for f in dataclasses.fields(rules)}
    rows = []
    changed = 0
    for name, meta in spec(type(rules)).items():
        differs = not _is_default(rules, fields[name])
        changed += differs
        value = getattr(rules, name)
        cells = [
            name,
            "none" if value is None else str(value),
            "none" if meta["default"] is None else str(meta["default"]),
            allowed(meta),
            meta["unit"],
            meta["rule"],
            meta["help"],
        ]
        # a changed parameter's name and value in bold
        tds = "".join(
            f"<td><b>{e(c)}</b></td>" if differs and j < 2 else f"<td>{e(c)}</td>"
            for j, c in enumerate(cells)
        )
        rows.append(f"<tr>{tds}</tr>")
    head = "".join(
        f"<th>{c}</th>"
        for c in ("parameter", "value", "default", "allowed", "unit", "rule", "meaning")
    )
    outcomes = ", ".join(rules.all_outcomes)
    title = (
        f"<strong>{e(type(rules).__qualname__)}</strong> (model {e(repr(rules.name))}; "
        f"{changed} of {len(rows)} parameters changed; outcomes: {e(outcomes)}; "
        f"one step is one {e(rules.time_unit.rstrip('s'))})"
    )
    style = (
        "<style>.simkit-params td, .simkit-params th {text-align: left; padding: 2px 8px;"
        " vertical-align: top}</style>"
    )
    table = (
        f'<table class="simkit-params" border="0"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    return f"{style}<div>{title}{table}</div>"
