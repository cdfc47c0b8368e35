"""Ambiguities of the rules (docs/rules.md A0-1 ... A4-3) and the readings that express them.

A model declares the ambiguities its parameters carry as ``ambiguities`` (a ClassVar of
:class:`Ambiguity` entries): one source of truth for the ambiguity report
(:mod:`simkit.analysis.ambiguities`) and ``compare --ambiguities``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["Reading", "Ambiguity", "reading", "carried"]


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


def reading(label: str, params: dict[str, Any], default: bool = False) -> Reading:
    """Shorthand for :class:`Reading`."""
    return Reading(label, params, default)


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
        The registered model whose report row it is (the model that owns the rule).
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
    # any mapping is accepted; __post_init__ freezes it into a MappingProxyType
    setup: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    outcome: str = "dead"
    note: str = ""

    def __post_init__(self):
        if sum(r.default for r in self.readings) != 1:
            raise ValueError(f"ambiguity {self.id}: exactly one reading must be the default")
        object.__setattr__(self, "setup", MappingProxyType(dict(self.setup)))

    @property
    def default_reading(self) -> Reading:
        return next(r for r in self.readings if r.default)


def carried(params, *sources) -> tuple[Ambiguity, ...]:
    """The ambiguities of ``sources`` (models) whose readings set only names in ``params``.

    For a composite model (a chain, an encounter) that takes its stages' parameters.
    """
    names = set(params)
    out: list[Ambiguity] = []
    for source in sources:
        for a in source.ambiguities:
            if all(set(r.params) <= names for r in a.readings) and a not in out:
                out.append(a)
    return tuple(out)
