"""Fall heights: one value, a list of equally likely values, or a uniform range (metres).

A height distribution is written as a string (the ``heights`` parameter kind of
:mod:`simkit.core.params`, so it travels through ``--set height=...``):

- ``"9"``: always 9 m;
- ``"6,8,10"``: each listed height equally likely (repeat a value to weight it);
- ``"uniform:2-12"``: uniform on [2 m, 12 m) (continuous).

Heights must be finite and non-negative (at most :data:`MAX_HEIGHT` m). Only the band
of a height matters to the fall rules (R4-07), so the exact side works with the
probability of each band (:meth:`Heights.band_probabilities`), and the fall phase
(:func:`simkit.rules.fall.band_draw`) draws the band itself: a listed height by one
uniform integer, a uniform range's band by its share of the 32-bit draws.
:meth:`Heights.sample` (a height from a uniform in [0, 1)) remains for notebooks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simkit.core.numbers import ascii_number
from simkit.core.params import register_kind

__all__ = ["Heights", "parse_heights", "MAX_HEIGHT"]

#: Largest height accepted, in metres.
MAX_HEIGHT = 100_000.0
_MAX_VALUES = 1000


def _num(text: str) -> float:
    x = ascii_number(text)  # ASCII digits only (float() takes '٩', '9_0')
    if math.isnan(x) or math.isinf(x) or x < 0 or x > MAX_HEIGHT:
        raise ValueError(text)
    return x


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


@dataclass(frozen=True, slots=True)
class Heights:
    """A distribution of fall heights in metres.

    ``kind`` is ``"list"`` (``values`` equally likely; one value is a fixed height)
    or ``"uniform"`` (``values = (low, high)``, uniform on [low, high)).
    """

    kind: str
    values: tuple[float, ...]

    def __str__(self) -> str:
        if self.kind == "uniform":
            return f"uniform:{_fmt(self.values[0])}-{_fmt(self.values[1])}"
        return ",".join(_fmt(v) for v in self.values)

    def sample(self, u: np.ndarray) -> np.ndarray:
        """Heights (float64, metres) for uniforms ``u`` in [0, 1), one per track."""
        u = np.asarray(u, dtype=np.float64)
        if self.kind == "uniform":
            lo, hi = self.values
            return lo + u * (hi - lo)
        vals = np.asarray(self.values, dtype=np.float64)
        idx = np.minimum((u * len(vals)).astype(np.int64), len(vals) - 1)
        return vals[idx]

    def sample_one(self, u: float) -> float:
        """Scalar :meth:`sample` (plain Python), for reference code."""
        if self.kind == "uniform":
            lo, hi = self.values
            return lo + u * (hi - lo)
        return self.values[min(int(u * len(self.values)), len(self.values) - 1)]

    def band_probabilities(self, edges: tuple[float, ...]) -> np.ndarray:
        """P(height in each band) for bands ``[-inf, e0), [e0, e1), ..., [e_last, inf)``.

        Returns an array of length ``len(edges) + 1`` summing to 1.
        """
        bounds = [-math.inf, *edges, math.inf]
        out = np.zeros(len(bounds) - 1)
        if self.kind == "uniform":
            lo, hi = self.values
            for i in range(len(out)):
                a, b = max(lo, bounds[i]), min(hi, bounds[i + 1])
                out[i] = max(0.0, b - a) / (hi - lo)
            return out
        for v in self.values:
            i = int(np.searchsorted(np.asarray(edges), v, side="right"))
            out[i] += 1.0 / len(self.values)
        return out


def parse_heights(value) -> Heights:
    """Parse a height distribution (see the module docstring); raise ``ValueError``.

    Also accepts a number or a list/tuple of numbers.
    """
    if isinstance(value, Heights):
        return value
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return Heights("list", (_num(str(float(value))),))
    if isinstance(value, (list, tuple)):
        if not 1 <= len(value) <= _MAX_VALUES:
            raise ValueError(value)
        return Heights("list", tuple(_num(str(float(v))) for v in value))
    if not isinstance(value, str):
        raise ValueError(value)
    text = value.strip().lower().replace(" ", "")
    if text.startswith("uniform:"):
        body = text[len("uniform:") :]
        parts = body.split("-")
        if len(parts) != 2:
            raise ValueError(value)
        lo, hi = _num(parts[0]), _num(parts[1])
        if not lo < hi:
            raise ValueError(value)
        return Heights("uniform", (lo, hi))
    parts = text.split(",")
    if not 1 <= len(parts) <= _MAX_VALUES or any(p == "" for p in parts):
        raise ValueError(value)
    return Heights("list", tuple(_num(p) for p in parts))


register_kind(
    "heights",
    lambda value: str(parse_heights(value)),
    "a height in metres >= 0 like '9', a list like '6,8,10' or 'uniform:2-12'",
)
