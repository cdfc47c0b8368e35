"""Tidy frames as labelled arrays (:mod:`xarray`): a result's summary, a sweep's or a
comparison's table as a :class:`xarray.Dataset` whose dimensions are the grid keys, the
variant (a comparison) and the name (outcome, event or mean), with ``kind`` a coordinate
along ``name``. xarray is optional (``pip install 'simkit[xarray]'``).
"""

from __future__ import annotations

import pandas as pd

from simkit.core.extras import need

__all__ = ["STAT_VARIABLES", "to_xarray"]

#: The statistics kept as data variables (where the frame has them), then any other
#: numeric column of a comparison (``diff``, ``p_value``...).
STAT_VARIABLES = ("count", "n", "p", "ci_low", "ci_high", "exact", "mean")

#: Columns that say where rows come from: attributes of the dataset, not variables.
_RECORD = ("model", "seed", "point_seed", "version", "params", "kind", "paired")


def to_xarray(frame: pd.DataFrame):
    """``frame`` (a tidy table with ``outcome`` and ``kind`` columns: ``summary()``, a
    sweep, a comparison) as an :class:`xarray.Dataset`.

    Dimensions: the grid keys (``frame.attrs["grid"]``, else the columns before
    ``variant`` / ``outcome`` that vary), ``variant`` where there is one, then ``name``
    (the ``outcome`` column). Data variables: :data:`STAT_VARIABLES` and the other numeric
    columns (``count`` as floats, NaN where missing). Coordinates: ``kind`` along
    ``name``; a derived column (``save_bonus`` of ``level``) along the grid keys.
    ``frame.attrs`` (model, seed, n, level...) become the dataset's attributes.
    """
    xr = need("xarray", "to_xarray()")
    if "outcome" not in frame or "kind" not in frame:
        raise ValueError("to_xarray: a tidy table with 'outcome' and 'kind' columns is needed")
    cols = list(frame.columns)
    lead = cols[: cols.index("outcome")]
    grid = [c for c in frame.attrs.get("grid", []) if c in lead]
    if not grid:  # a frame that does not say its grid: its leading columns that vary
        grid = [c for c in lead if c != "variant" and frame[c].nunique(dropna=False) > 1]
    dims = [*grid, *(["variant"] if "variant" in frame else []), "name"]
    d = frame.rename(columns={"outcome": "name"})
    values = [
        c
        for c in d.columns
        if c not in dims
        and c not in lead
        and c not in _RECORD
        and (c in STAT_VARIABLES or pd.api.types.is_numeric_dtype(d[c].dtype))
        and not pd.api.types.is_bool_dtype(d[c].dtype)
    ]
    data = d[dims + values].copy()
    for c in values:  # nullable integers (count) as floats: NaN where missing
        data[c] = pd.to_numeric(data[c], errors="coerce").astype("float64")
    ds = xr.Dataset.from_dataframe(data.set_index(dims))
    kinds = d.drop_duplicates("name").set_index("name")["kind"]
    ds = ds.assign_coords(kind=("name", kinds.reindex(ds["name"].values).to_numpy()))
    derived = [c for c in lead if c not in dims and c != "variant"]
    for c in derived:  # a column set by the grid keys: a coordinate along them
        per = d.drop_duplicates(grid).set_index(grid)[c] if grid else None
        if per is not None and per.index.is_unique:
            ds = ds.assign_coords({c: xr.DataArray.from_series(per)})
    ds.attrs.update(
        {k: v for k, v in frame.attrs.items() if isinstance(v, (str, int, float)) and k != "grid"}
    )
    return ds
