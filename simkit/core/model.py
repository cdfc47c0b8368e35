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
from typing import Any, ClassVar

import numpy as np

from simkit.core.ambiguity import Ambiguity
from simkit.core.params import ParamError, check_value, spec, take_declarations

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

    def __init_subclass__(cls) -> None:
        # (no zero-argument super() in a slotted dataclass: its class cell is stale)
        take_declarations(cls)  # a composite model's stage parameters (params_from)

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
        unknown = set(changes) - set(spec(type(self)))
        if unknown:
            raise ParamError(
                f"unknown parameter {sorted(unknown)[0]!r} for model {self.name!r}; "
                f"known: {', '.join(spec(type(self)))}"
            )
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_params(cls, **params) -> Rules:
        """Build from keyword parameters, rejecting unknown names clearly."""
        known = spec(cls)
        unknown = set(params) - set(known)
        if unknown:
            raise ParamError(
                f"unknown parameter {sorted(unknown)[0]!r} for model {cls.name!r}; "
                f"known: {', '.join(known)}"
            )
        return cls(**params)

    @property
    def all_outcomes(self) -> tuple[str, ...]:
        return tuple(self.outcomes) + ("unresolved",)
