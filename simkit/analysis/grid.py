"""Sweep grids: axes of values checked against a model, and the grid's points.

A grid is a mapping ``key -> values``; its points are the Cartesian product of the
axes (the last axis varies fastest). A key is a **model parameter** (``dc``,
``save_bonus``, ``max_rounds``...), used as is, or a **sweep key** (``level``,
``level_diff``, ``monster_level``, ``days_without_*``, ``pc_*``:
:mod:`simkit.analysis.sweep_keys`), not a parameter of the model, from which model
parameters are derived; the derived values used are reported as columns of the sweep's
table. Example: ``{"level": range(1, 21), "level_diff": [-2, 0, 2]}`` on ``dying``
sweeps the Fortitude save and the monster's DC together.

The grid takes a model's declarations once (:func:`~simkit.analysis.sweep_keys.model_keys`:
its parameters, its sweep keys, each key's metadata) and checks every axis, value and
fixed value against them; an unknown key is one line with the near name meant
(``--set leve=5``: "did you mean 'level'?").

Also importable from here, as before (their homes are their own modules): the sweep
keys (:mod:`simkit.analysis.sweep_keys`: :data:`SWEEP_KEYS`, :class:`SweepKey`,
:func:`sweep_keys_for`, :func:`resolve_point`, :func:`describe_keys`), the sweep files
(:mod:`simkit.analysis.sweep_config`: :func:`load_config`) and the scheduler address
check (:mod:`simkit.analysis.scheduler`: :func:`check_scheduler`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from simkit.analysis.scheduler import check_scheduler
from simkit.analysis.sweep_config import (
    CONFIG_KEYS,
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    load_config,
)
from simkit.core.numbers import ascii_int
from simkit.core.params import ParamError, shown
from simkit.models.keys import (
    PC_OPTIONS,
    SWEEP_KEYS,
    ModelKeys,
    SweepKey,
    check_key,
    describe_keys,
    model_keys,
    parse_key,
    resolve_point,
    sweep_keys_for,
)

__all__ = [
    "SWEEP_KEYS",
    "Grid",
    "SweepKey",
    "load_config",
    "make_grid",
    "parse_axis",
    "parse_grid_args",
    "parse_fixed_args",
    "MAX_POINTS",
    "check_grid_size",
    "check_scheduler",
    "resolve_point",
    "sweep_keys_for",
    # also here as before, from their own modules
    "CONFIG_KEYS",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_DEPTH",
    "PC_OPTIONS",
    "ModelKeys",
    "describe_keys",
    "model_keys",
]

#: Most points a grid may have unless the caller raises the limit (``max_points=``,
#: ``--max-points``): checked from the axes' lengths before any point is built (a
#: 200,000-point exact grid took about 800 MB).
MAX_POINTS = 100_000


def check_grid_size(count: int, max_points: int | None = None, what: str = "the grid") -> None:
    """Refuse a grid of ``count`` points past ``max_points`` (default :data:`MAX_POINTS`)."""
    limit = MAX_POINTS if max_points is None else max_points
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ParamError(f"max_points must be a positive integer, got {limit!r}")
    if count > limit:
        raise ParamError(
            f"{what} has {count:,} points, more than the limit of {limit:,}: sweep fewer values, "
            f"or raise the limit with --max-points {count} (max_points={count})"
        )


@dataclass(frozen=True)
class Grid:
    """Axes (key -> tuple of values, in order) and fixed values, checked for a model."""

    model: type
    axes: dict[str, tuple]
    fixed: dict[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        n = 1
        for v in self.axes.values():
            n *= len(v)
        return n

    def points(self):
        """Grid points (dicts key -> value), last axis fastest."""
        keys = list(self.axes)
        for combo in itertools.product(*self.axes.values()):
            yield dict(zip(keys, combo))


def _values_of(mk: ModelKeys, key: str, raw, max_points: int | None = None) -> tuple:
    """Python values of one axis: a list/tuple/range, an 'A..B[:S]' string or a scalar."""
    if isinstance(raw, str):
        return parse_axis(key, mk.known[key], raw, max_points)
    if isinstance(raw, range) or isinstance(raw, (list, tuple)):
        vals = tuple(raw)
    else:
        vals = (raw,)
    if not vals:
        raise ParamError(f"grid {key}: empty list of values")
    return tuple(mk.parse(key, v) if isinstance(v, str) else mk.check(key, v) for v in vals)


def parse_axis(key: str, meta: dict, text: str, max_points: int | None = None) -> tuple:
    """Values of ``KEY=...`` text: ``V1,V2,...`` or an integer range ``A..B`` / ``A..B:STEP``.

    Every number in ASCII digits, without underscores (:mod:`simkit.core.numbers`; a list's
    values through :func:`~simkit.core.params.parse_value`, the same grammar).

    A range's length is checked against ``max_points`` (:func:`check_grid_size`) before its
    values are built.
    """
    t = text.strip()
    if not t:
        raise ParamError(f"grid {key}: no values; write {key}=V1,V2,... or {key}=A..B")
    if ".." in t:
        lo, _, rest = t.partition("..")
        hi, _, step = rest.partition(":")
        try:  # ASCII digits, no underscores (simkit.core.numbers)
            a, b = ascii_int(lo), ascii_int(hi)
            s = ascii_int(step) if step else 1
        except ValueError:
            raise ParamError(
                f"grid {key}={text}: a range A..B[:STEP] needs integers; "
                "list other values with commas"
            ) from None
        if s <= 0:
            raise ParamError(f"grid {key}={text}: the step must be a positive integer")
        if a > b:
            raise ParamError(f"grid {key}={text}: empty range ({a} > {b}); write {key}={b}..{a}")
        values = range(a, b + 1, s)
        check_grid_size(len(values), max_points, f"grid {key}={text}")
        return tuple(check_key(key, meta, v) for v in values)
    parts = [p for p in t.split(",")]
    check_grid_size(len(parts), max_points, f"grid {key}")
    if any(not p.strip() for p in parts):
        raise ParamError(f"grid {key}={text}: an empty value in the list")
    return tuple(parse_key(key, meta, p) for p in parts)


def make_grid(
    model_cls, axes: dict | None = None, fixed: dict | None = None, max_points: int | None = None
) -> Grid:
    """Check axes and fixed values against ``model_cls`` and build a :class:`Grid`.

    ``axes`` maps keys to lists, tuples, ranges or ``"A..B"`` strings; ``fixed``
    maps keys to single values. Errors (:class:`ParamError`, one line) name the key.
    A grid of more than ``max_points`` points (default :data:`MAX_POINTS`) is refused,
    its size computed from the axes' lengths before any value or point is built.
    """
    from simkit.models.dying_keys import is_key

    mk = model_keys(model_cls)
    known = mk.known
    if axes is not None and not isinstance(axes, dict):
        raise ParamError(f"grid must be a mapping of KEY -> values, got {type(axes).__name__}")
    if fixed is not None and not isinstance(fixed, dict):
        raise ParamError(f"fixed must be a mapping of KEY -> value, got {type(fixed).__name__}")
    total = 1
    for key, raw in (axes or {}).items():
        if not isinstance(key, str) or key not in known:
            raise mk.unknown(key, "grid")
        if isinstance(raw, (list, tuple, range)):
            total *= max(1, len(raw))
    check_grid_size(total, max_points)
    out_axes: dict[str, tuple] = {}
    for key, raw in (axes or {}).items():
        out_axes[key] = _values_of(mk, key, raw, max_points)
        if len(set(map(repr, out_axes[key]))) != len(out_axes[key]):
            raise ParamError(f"grid {key}: repeated values {shown(list(out_axes[key]))}")
    size = 1
    for values in out_axes.values():
        size *= len(values)
    check_grid_size(size, max_points)
    out_fixed = {}
    for key, value in (fixed or {}).items():
        if key not in known and is_key(model_cls, key):  # a custom track's: fold checks it
            out_fixed[key] = value
            continue
        if key not in known:
            raise mk.unknown(key, "--set")
        if key in out_axes:
            raise ParamError(f"{key} is both on the grid and fixed (--set): give it once")
        out_fixed[key] = mk.parse(key, value) if isinstance(value, str) else mk.check(key, value)
    return Grid(model_cls, out_axes, out_fixed)


def parse_grid_args(model_cls, items: list[str], max_points: int | None = None) -> dict[str, tuple]:
    """``["KEY=V1,V2", "KEY=A..B", ...]`` (the CLI's ``--grid``) -> axes.

    Each axis holds at most ``max_points`` values.
    """
    mk = model_keys(model_cls)
    axes: dict[str, tuple] = {}
    for item in items or []:
        if "=" not in item:
            raise ParamError(
                f"--grid {item!r} is malformed: write --grid KEY=V1,V2,... or KEY=A..B"
            )
        key, text = (s.strip() for s in item.split("=", 1))
        if key not in mk.known:
            raise mk.unknown(key, "--grid")
        if key in axes:
            raise ParamError(f"--grid {key} given twice: give all its values at once")
        axes[key] = parse_axis(key, mk.known[key], text, max_points)
    return axes


def parse_fixed_args(model_cls, items: list[str]) -> dict:
    """``--set KEY=VALUE`` for a sweep: model parameters or sweep keys, and ``dying.KEY``
    keys (kept as text: :func:`simkit.models.dying_keys.fold` reads them)."""
    from simkit.models.dying_keys import is_key
    mk = model_keys(model_cls)
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ParamError(f"--set {item!r} is malformed: write --set KEY=VALUE")
        key, text = (s.strip() for s in item.split("=", 1))
        if key in out:
            raise ParamError(f"--set {key} given twice: give each key once")
        if is_key(model_cls, key):  # dying.KEY: what it sets depends on dying= (fold)
            out[key] = text
            continue
        if key not in mk.known:
            raise mk.unknown(key, "--set")
        out[key] = mk.parse(key, text)
    return out
