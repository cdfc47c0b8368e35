"""The contracts between layers, as :class:`typing.Protocol` classes.

Every model is a :class:`TrackModel` (a :class:`simkit.core.model.Rules` subclass meets
it); a chained model is also a :class:`ChainedModel`. What a model *can* do is declared
as class attributes, never probed: ``has_exact`` (an exact answer exists),
``has_exact_hist`` (the model gives its exact per-step distribution itself),
``is_chain`` (stages), ``observes`` (``observe`` reports state values per step).

Every result (Monte Carlo :class:`simkit.Result`, chained
:class:`simkit.core.chain.ChainResult`, exact :class:`simkit.ExactResult` and
:class:`simkit.core.chain.ChainExact`) is a :class:`ModelResult`: ``outcomes``,
``probabilities``, ``summary()``, ``survival()`` and ``stage_summary()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
import pandas as pd

__all__ = ["TrackModel", "ChainedModel", "ModelResult", "MonteCarloResult"]


@runtime_checkable
class TrackModel(Protocol):
    """A model of tracks: frozen rules that advance a block of tracks, step by step."""

    name: ClassVar[str]
    time_unit: ClassVar[str]
    outcomes: ClassVar[tuple[str, ...]]
    marks: ClassVar[tuple[str, ...]]
    rule_ids: ClassVar[str]
    has_exact: bool
    has_exact_hist: ClassVar[bool]
    is_chain: ClassVar[bool]
    observes: ClassVar[bool]

    @property
    def horizon(self) -> int: ...

    @property
    def all_outcomes(self) -> tuple[str, ...]: ...

    def params(self) -> dict[str, Any]: ...

    def replace(self, **changes: Any) -> Any: ...

    def init(self, n: int, rng: Any) -> tuple[dict[str, np.ndarray], np.ndarray]: ...

    def step(self, state: dict[str, np.ndarray], t: int, rng: Any) -> Any: ...

    def exact_initial(self) -> dict: ...

    def exact_step(self, state: Any, t: int) -> dict: ...

    def exact_regime(self, t: int) -> Any: ...

    def exact_hist(self) -> np.ndarray: ...

    def observe(self, state: dict[str, np.ndarray], t: int) -> dict[str, np.ndarray]: ...


@runtime_checkable
class ChainedModel(TrackModel, Protocol):
    """A model whose outcomes continue as other models (stages)."""

    def stages(self) -> tuple[Any, dict[str, Any]]: ...

    def final_outcome(self, first: str, second: str | None) -> str: ...

    def solve_stages(self, solve: Any) -> Any: ...

    def combine_stages(self, first: Any, then: dict) -> Any: ...


@runtime_checkable
class ModelResult(Protocol):
    """What ``simulate`` and ``solve`` return, for any model."""

    @property
    def outcomes(self) -> tuple[str, ...]: ...

    @property
    def probabilities(self) -> Mapping[str, float]: ...

    def __getitem__(self, outcome: str) -> float: ...

    def summary(self, *args: Any, **kwargs: Any) -> pd.DataFrame: ...

    def survival(self, *args: Any, **kwargs: Any) -> pd.DataFrame: ...

    def stage_summary(self, *args: Any, **kwargs: Any) -> pd.DataFrame: ...


@runtime_checkable
class MonteCarloResult(ModelResult, Protocol):
    """What ``simulate`` returns: a :class:`ModelResult` with its counts and seed."""

    @property
    def n(self) -> int: ...

    @property
    def seed(self) -> int: ...

    @property
    def counts(self) -> Mapping[str, int]: ...
