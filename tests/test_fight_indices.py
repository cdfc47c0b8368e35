"""The loop indexes its row and its tables with unsigned numbers (issue 28, fifth stage):
numba wraps a signed index around when negative (a test and an addition before each read)
and leaves an unsigned one alone; the fight was 1.08-1.14x faster without the checks."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import simkit.fight
from simkit.fight import state

FIGHT = Path(simkit.fight.__file__).parent


def test_the_rows_places_are_unsigned():
    for place in (
        state.pc.py_func(1, state.HP),
        state.mon.py_func(4, 0, state.MHP),
        state.order.py_func(4, 2, 3),
        state.init_key.py_func(4, 2, 0),
    ):
        assert isinstance(place, np.uint64), type(place)


def _constant(node: ast.expr) -> bool:
    """A table header's place: a number, a constant's name (``H_P``) or ``t.H_P``."""
    if isinstance(node, ast.Constant):
        return True
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name.isupper()


def _unsigned(node: ast.expr) -> bool:
    f = node.func if isinstance(node, ast.Call) else None
    return isinstance(f, ast.Attribute) and f.attr == "uint64"


def test_every_computed_read_of_the_tables_is_unsigned():
    signed = []
    for path in sorted(FIGHT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Subscript) and getattr(node.value, "id", None) == "T":
                if not (_constant(node.slice) or _unsigned(node.slice)):
                    signed.append(f"{path.name}:{node.lineno}")
    assert not signed, f"signed computed reads of T (wrap them in np.uint64): {signed}"
