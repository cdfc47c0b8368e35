"""A sweep's table: the journalled records turned into one tidy DataFrame, and its CSV text.

Its rows: per grid point, the outcomes (``kind`` ``outcome``: their ``p`` add up to 1),
then the events of the marks (``event``) and the means (``mean``, in column ``mean``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.analysis.sweep.plan import SweepPlan, canonical, outcome_names, version_string
from simkit.core.params import spec
from simkit.core.stats import proportion_ci

#: Statistic columns after the grid columns (a public contract).
STAT_COLUMNS = ("count", "n", "p", "ci_low", "ci_high", "exact")


#: Columns recording where each row comes from.
RECORD_COLUMNS = ("model", "seed", "point_seed", "version", "params")


def build_frame(plan: SweepPlan, records: list[dict]) -> pd.DataFrame:
    """The sweep's table from one record per point (in grid order)."""
    axes = list(plan.grid.axes)
    fcols = plan.fixed_key_columns
    dcols = plan.derived_columns
    version = version_string()
    params_json = plan.params_json
    if len(params_json) != len(plan.models):  # a plan made without them
        defaults = (
            {k: m["default"] for k, m in spec(type(plan.models[0])).items()} if plan.models else {}
        )
        params_json = [
            canonical({k: getattr(m, k) for k in defaults if getattr(m, k) != defaults[k]})
            for m in plan.models
        ]
    if plan.mode == "survival":
        frames = []
        for i, rec in enumerate(records):
            f = pd.DataFrame(rec["frame"])
            lead = {
                **{k: plan.points[i][k] for k in axes},
                **{k: plan.grid.fixed[k] for k in fcols},
                **{k: plan.derived[i].get(k) for k in dcols},
            }
            for j, (k, v) in enumerate(lead.items()):
                f.insert(j, k, [v] * len(f))
            f["model"] = plan.model_name
            f["seed"] = plan.seed if plan.seed is not None else pd.NA
            f["point_seed"] = plan.seeds[i] if plan.seeds[i] is not None else pd.NA
            f["version"] = version
            f["params"] = params_json[i]
            frames.append(f)
        df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        if plan.n is None and not df.empty:
            for c in ("count", "n", "seed", "point_seed"):
                df[c] = df[c].astype("Int64")
        return df
    names = [outcome_names(m) for m in plan.models]
    if plan.mode != "exact":  # each point's events (any_death...) as rows after its outcomes
        names = [
            tuple(x) + tuple(r.get("events", ())) + tuple(r.get("means", ()))
            for x, r in zip(names, records)
        ]
    n_out = np.array([len(x) for x in names], dtype=np.int64)
    cols: dict = {}
    for k in axes:
        cols[k] = _repeat([p[k] for p in plan.points], n_out)
    for k in fcols:
        cols[k] = _repeat([plan.grid.fixed[k]] * len(plan.points), n_out)
    for k in dcols:
        cols[k] = _repeat([d.get(k) for d in plan.derived], n_out)
    cols["outcome"] = [o for x in names for o in x]
    cols["kind"] = (
        ["outcome"] * len(cols["outcome"])
        if plan.mode == "exact"
        else [
            k
            for r in records
            for k in ["outcome"] * len(r["counts"])
            + ["event"] * len(r.get("events", ()))
            + ["mean"] * len(r.get("means", ()))
        ]
    )
    exact = np.array(
        [
            v
            for r, x in zip(records, names)
            for v in (r.get("exact") or []) + [np.nan] * (len(x) - len(r.get("exact") or []))
        ],
        dtype=np.float64,
    )
    if plan.mode == "exact":
        cols["count"] = pd.array([pd.NA] * len(exact), dtype="Int64")
        cols["n"] = pd.array([pd.NA] * len(exact), dtype="Int64")
        cols["p"] = exact
        cols["ci_low"] = exact
        cols["ci_high"] = exact
    else:
        # per point: its outcomes' and events' counts, then its means (no count)
        count = np.array(
            [
                c
                for r in records
                for c in (*r["counts"], *r.get("event_counts", ()), *[0] * len(r.get("means", ())))
            ],
            dtype=np.int64,
        )
        is_mean = np.array(
            [
                v
                for r in records
                for v in [False] * (len(r["counts"]) + len(r.get("event_counts", ())))
                + [True] * len(r.get("means", ()))
            ],
            dtype=bool,
        )
        n = np.full(len(count), plan.n, dtype=np.int64)
        low, high = proportion_ci(count, n, plan.level)
        p = count / n
        mean = None
        if is_mean.any():  # a model with means (the party's expected_deaths...)
            values = np.array([v for r in records for v in r.get("mean_values", ())], np.float64)
            mean = np.full(len(count), np.nan)
            mean[is_mean] = values[:, 0]
            low[is_mean], high[is_mean], p[is_mean] = values[:, 1], values[:, 2], np.nan
            count = pd.arrays.IntegerArray(count, is_mean)
        cols.update(count=count, n=n, p=p, ci_low=low, ci_high=high)
    cols["exact"] = exact
    if plan.mode != "exact" and mean is not None:
        cols["mean"] = mean
    cols["model"] = plan.model_name
    if plan.seed is None:
        cols["seed"] = pd.array([pd.NA] * len(exact), dtype="Int64")
        cols["point_seed"] = pd.array([pd.NA] * len(exact), dtype="Int64")
    else:
        cols["seed"] = _repeat([plan.seed] * len(plan.seeds), n_out)
        cols["point_seed"] = _repeat(plan.seeds, n_out)
    cols["version"] = version
    cols["params"] = _repeat(params_json, n_out)
    df = pd.DataFrame(cols)
    df.attrs.update(
        model=plan.model_name,
        seed=plan.seed,
        n=plan.n,
        level=plan.level,
        grid=axes,
        fixed_keys=fcols,
        derived=dcols,
        mode=plan.mode,
    )
    return df


def _repeat(values: list, counts: np.ndarray) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    if all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and -(2**63) <= v < 2**63
        for v in values
    ):
        arr = arr.astype(np.int64)
    elif all(isinstance(v, (float, np.floating)) for v in values):
        arr = arr.astype(np.float64)
    return np.repeat(arr, counts)


def to_csv_text(df: pd.DataFrame) -> str:
    """The CSV text of a sweep table (the same bytes for the same table)."""
    return df.to_csv(index=False, lineterminator="\n")


def to_xarray(df: pd.DataFrame):
    """A sweep's (or a comparison's) table as an :class:`xarray.Dataset`: dimensions the
    grid keys, ``variant`` (a comparison) and ``name`` (outcome, event or mean, with
    ``kind`` a coordinate along it); the statistics as variables
    (:func:`simkit.core.labelled.to_xarray`). Needs xarray (``pip install
    'simkit[xarray]'``)."""
    from simkit.core.labelled import to_xarray as labelled

    return labelled(df)
