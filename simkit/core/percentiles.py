"""How swingy a run is: percentiles of its marks and of its kept end states.

:func:`percentiles` (``Result.percentiles()``, ``simkit run --percentiles``) gives, for
every mark a model records when a track ends (the party's ``rounds``, ``deaths``,
``knockouts``, ``hero_spent``, ``heals_spent``...; a bit mask such as ``dead_mask`` is
left out), and, where the run kept each track's end state (``simulate(...,
keep_state=True)``), for each PC's HP and resources left at the end (``hp_left:<pc>``,
``hero_left:<pc>``, ``slots_left:<pc>``, ``heals_left:<pc>``; ``pp_left``, ``pe_left``
where the rules use them; a dead PC counts 0), the values at the given quantiles.

Quantiles are read from the inverse of the empirical distribution function (numpy's
``method="inverted_cdf"``): the smallest value ``v`` with at least ``q n`` of the tracks
at or below it, always a value some track had. A mark's percentiles come from its
histogram (no per-track value is stored: a mark costs nothing more); the end states'
from the kept arrays. Marks are recorded when a track ends, so their ``n`` leaves out the
``unresolved`` tracks; the end states hold every track.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from simkit.core.params import ParamError

__all__ = ["QUANTILES", "percentiles", "hist_quantiles", "END_FIELDS"]

#: The default quantiles: the 10th, 50th and 90th percentiles.
QUANTILES = (0.1, 0.5, 0.9)
#: The per-PC fields of a kept end state given as ``<field>_left:<pc>`` (where present).
END_FIELDS = ("hp", "hero", "slots", "heals", "pp", "pe")


def _check_q(q) -> tuple[float, ...]:
    try:
        qs = tuple(float(x) for x in np.atleast_1d(np.asarray(q, dtype=np.float64)))
    except (TypeError, ValueError):
        raise ParamError(f"q={q!r} is not allowed: q must be quantiles in (0, 1)") from None
    if not qs or not all(0.0 < x < 1.0 for x in qs) or len(set(qs)) != len(qs):
        raise ParamError(f"q={q!r} is not allowed: q must be distinct quantiles in (0, 1)")
    return qs


def _column(q: float) -> str:
    """``p10`` for 0.1, ``p2.5`` for 0.025."""
    return f"p{100 * q:.10g}"


def hist_quantiles(counts: np.ndarray, q: Sequence[float]) -> np.ndarray:
    """The quantiles ``q`` of the values ``0..len(counts) - 1`` counted by ``counts`` (a
    histogram; at least one count): the smallest value with a cumulative count of at
    least ``q n`` (numpy's ``inverted_cdf`` on the values themselves)."""
    counts = np.asarray(counts, dtype=np.int64)
    cum = np.cumsum(counts)
    total = cum[-1]
    return np.searchsorted(cum, total * np.asarray(q, dtype=np.float64), side="left")


def _uses(model, field: str) -> bool:
    """Whether the rules use a carried field: PP under seed 001 only, PE where the fights
    spend stamina (seed 001, ``pe_damage=pe_first``); the rest always."""
    party = getattr(model, "base_party", model)
    if field == "pp":
        return getattr(model, "rules", None) == "seed001"
    if field == "pe":
        return bool(getattr(party, "pe_on", False))
    return True


def _fresh(model):
    """The model's fresh start (one row), or None."""
    fresh_start = getattr(model, "fresh_start", None)
    return fresh_start(1) if callable(fresh_start) else None


def percentiles(result, q: Sequence[float] = QUANTILES) -> pd.DataFrame:
    """The run's percentiles as a tidy frame, one row per quantity.

    Parameters
    ----------
    result : simkit.core.result.Result
        A run; its end states too where it kept them (``keep_state=True``).
    q : sequence of float
        Quantiles in (0, 1) (default 0.1, 0.5, 0.9).

    Returns
    -------
    DataFrame
        Columns ``quantity`` (a mark's name, or ``<field>_left:<pc>``), ``source``
        (``mark``: recorded when each track ended; ``end state``: the kept end states),
        ``n`` (the tracks counted), ``mean``, then one column per quantile (``p10``,
        ``p50``, ``p90``).
    """
    qs = _check_q(q)
    cols = [_column(x) for x in qs]
    rows = []
    for name, hist in (getattr(result, "marks", None) or {}).items():
        if name.endswith("_mask"):  # a bit mask: no order to read
            continue
        counts = np.asarray(hist).sum(axis=0)
        n = int(counts.sum())
        if n == 0:
            continue
        mean = float((counts * np.arange(len(counts))).sum() / n)
        rows.append([name, "mark", n, mean, *hist_quantiles(counts, qs).tolist()])
    hist_ = getattr(result, "hist", None)  # no mark: the time the tracks ended, from hist
    if not rows and hist_ is not None and np.asarray(hist_).size:
        counts = np.asarray(hist_).sum(axis=0)
        n = int(counts.sum())
        if n:
            mean = float((counts * np.arange(len(counts))).sum() / n)
            unit = getattr(result.model, "time_unit", "steps")
            rows.append([f"time ({unit})", "time", n, mean, *hist_quantiles(counts, qs).tolist()])
    final = getattr(result, "final", None)
    if final is not None and hasattr(final, "hp"):
        from simkit.core.names import pc_names

        roles = getattr(result.model, "roles", None)
        dead = np.asarray(final.dead, dtype=bool) if hasattr(final, "dead") else None
        fresh = _fresh(result.model)
        for field in END_FIELDS:
            values = getattr(final, field, None)
            if values is None or np.ndim(values) != 2 or not np.asarray(values).size:
                continue
            values = np.asarray(values)
            if not _uses(result.model, field):
                continue
            names = pc_names(roles) if roles else tuple(str(k) for k in range(values.shape[1]))
            for k, pc in enumerate(names):
                if fresh is not None and not np.asarray(getattr(fresh, field))[0, k]:
                    continue  # (it has none: a fighter's spell slots)
                v = values[:, k].astype(np.int64)
                if dead is not None:
                    v = np.where(dead[:, k], 0, v)
                low = int(v.min())  # (a histogram: no sort; the same quantiles)
                counts = np.bincount(v - low)
                at = hist_quantiles(counts, qs) + low
                mean = float((counts * np.arange(len(counts))).sum() / len(v)) + low
                rows.append([f"{field}_left:{pc}", "end state", len(v), mean, *at.tolist()])
    df = pd.DataFrame(rows, columns=["quantity", "source", "n", "mean", *cols])
    for c in cols:
        df[c] = df[c].astype(np.int64)
    df.attrs.update(model=result.model.name, seed=result.seed, n=result.n, q=qs)
    return df
