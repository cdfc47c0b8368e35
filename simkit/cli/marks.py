"""``--marks NAME``: a mark's distribution from the command line (``run``, ``exact``).

A *mark* is a state field's value when a track ends (a fall's ``damage``, the ``pp``
left by the perseverance track, ``hp`` after recovery...; the model's ``marks``).
``simkit run fall --marks damage`` prints one row per outcome and value::

    mark, outcome, value, count, n, p, ci_low, ci_high[, exact]

``p`` is over all tracks (the rows of all outcomes sum to 1), with its confidence
interval (``--confidence``); ``exact`` where the model computes the mark's exact
distribution (``fall``: :meth:`simkit.models.fall.Fall.exact_marks`). ``simkit exact
fall --marks damage`` prints ``mark, outcome, value, p`` from the exact distribution.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.core.params import ParamError

__all__ = ["check_marks", "exact_marks_frame", "marks_frame"]


def check_marks(model, names: list[str]) -> list[str]:
    """``names`` split at commas and checked against the model's marks (one-line error)."""
    wanted = [n.strip() for item in names for n in item.split(",") if n.strip()]
    known = tuple(getattr(model, "marks", ()))
    for n in wanted:
        if n not in known:
            have = f"its marks: {', '.join(known)}" if known else "it records no marks"
            raise ParamError(f"--marks {n}: not a mark of model {model.name!r}; {have}")
    if not wanted:
        raise ParamError("--marks: give a mark name, e.g. --marks damage")
    return wanted


def marks_frame(res, names: list[str], confidence: float, exact: bool = True) -> pd.DataFrame:
    """Monte Carlo distribution of each mark in ``names`` (rows: mark, outcome, value)."""
    from simkit.core.stats import proportion_ci

    frames = []
    has_exact = exact and hasattr(res.model, "exact_marks")
    for name in names:
        f = res.marks_frame(name)
        low, high = proportion_ci(f["count"].to_numpy(np.int64), res.n, confidence)
        f.insert(0, "mark", name)
        f.insert(4, "n", np.full(len(f), res.n, dtype=np.int64))
        f["ci_low"] = low
        f["ci_high"] = high
        if has_exact:
            table = res.model.exact_marks(name)
            idx = {o: i for i, o in enumerate(res.model.outcomes)}
            f["exact"] = [
                float(table[idx[o], v]) if v < table.shape[1] else 0.0
                for o, v in zip(f["outcome"], f["value"])
            ]
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def exact_marks_frame(model, names: list[str]) -> pd.DataFrame:
    """Exact distribution of each mark (rows with a non-zero probability)."""
    if not hasattr(model, "exact_marks"):
        raise ParamError(
            f"--marks: model {model.name!r} has no exact mark distributions; "
            f"use `simkit run {model.name} --marks ...`"
        )
    rows = []
    for name in names:
        table = model.exact_marks(name)
        for i, o in enumerate(model.outcomes):
            for v in np.flatnonzero(table[i]):
                rows.append((name, o, int(v), float(table[i, v])))
    return pd.DataFrame(rows, columns=["mark", "outcome", "value", "p"])
