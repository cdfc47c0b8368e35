"""Exact duels of the ``party`` model: one PC against one monster (placeholder)."""

from __future__ import annotations

__all__ = ["duel_initial", "duel_step", "duel_supported"]


def duel_supported(rules) -> bool:
    return False


def duel_initial(rules) -> dict:
    raise NotImplementedError("party: no exact solver for this lineup")


def duel_step(rules, state, t: int) -> dict:
    raise NotImplementedError("party: no exact solver for this lineup")
