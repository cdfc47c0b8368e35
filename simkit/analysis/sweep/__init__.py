"""Sweeps: one question over a grid of parameters, as one tidy table.

``sweep(model, grid, n, rng)`` runs every grid point (:mod:`simkit.analysis.grid`) and returns
one row per grid point and outcome::

    <grid keys>, <fixed sweep keys>, <derived parameters>, outcome, kind, count, n, p,
    ci_low, ci_high, exact, model, seed, point_seed, version, params

``kind`` says what a row is: ``outcome`` (exclusive: at each point their ``p`` add up
to 1), ``event`` (a question about the marks, overlapping) or ``mean`` (in column
``mean``, after ``exact``, with no ``p``). ``to_xarray(df)`` gives the table as an
``xarray.Dataset`` over the grid keys and ``name``.

A sweep key held fixed (``fixed={"level": 5}``, ``--set level=5``) is a column like a
grid key (fixed model parameters are in ``params``).
``exact`` is the exact probability (empty for a model without an exact solver);
``seed`` the sweep's seed; ``point_seed`` the seed of the point's own run, so that
``simulate(model, n, rng=point_seed)`` replays the row; ``params`` (JSON) the
point's parameters that differ from the model's defaults. A point's seed comes from
the sweep's seed and the point's full parameters (:func:`simkit.core.streams.point_seed`),
never from its position: adding points to a grid leaves the others unchanged, and a
point reached twice (``level=5`` or ``save_bonus=<the same value>``) gives the same
numbers.

Modes: Monte Carlo (default, with the exact column when the model has one);
``exact_only`` (no simulation: ``p`` is the exact probability, ``ci_low = ci_high =
p``, ``count``/``n``/``seed`` empty; the solves of the grid are batched, see
:func:`simkit.core.exact.solve_many`); ``survival`` (rows per step: ``stage, time_unit,
time`` before ``outcome``, as :meth:`simkit.Result.survival`).

Batch runs: :func:`sweep_csv` writes the table atomically (complete or absent) and
keeps a journal ``FILE.partial`` beside it while it runs: one JSON line per finished
task (a few points), flushed and fsynced, so that ``resume=True`` after Ctrl-C or
``kill -9`` skips the finished points; the final file is byte-identical to an
uninterrupted run's (the table is always built from the journalled integer counts and
exactly round-tripped floats). Executors: ``local`` (processes; ``workers=1`` runs in
this process) and ``dask`` (a scheduler address, a ``Client``, or a ``LocalCluster``
started for the sweep); the executor never changes a number.

The package: :mod:`.plan`, :mod:`.run`, :mod:`.journal`, :mod:`.table`, :mod:`.api`,
:mod:`.workers`. Its names are imported on first use (PEP 562), so that
``simkit.analysis.sweep.workers`` can start worker processes before this process imports
numpy and pandas.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simkit.analysis.sweep.api import sweep, sweep_csv
    from simkit.analysis.sweep.journal import (
        Journal,
        SweepLocked,
        journal_path,
        journal_points,
    )
    from simkit.analysis.sweep.plan import SweepPlan, plan_sweep
    from simkit.analysis.sweep.run import (
        dask_worker_config,
        process_pool,
        run_plan,
        run_points,
    )
    from simkit.analysis.sweep.table import (
        RECORD_COLUMNS,
        STAT_COLUMNS,
        build_frame,
        to_csv_text,
        to_xarray,
    )

#: Public name -> the module defining it.
_WHERE = {
    "sweep": "api",
    "sweep_csv": "api",
    "Journal": "journal",
    "SweepLocked": "journal",
    "journal_path": "journal",
    "journal_points": "journal",
    "SweepPlan": "plan",
    "plan_sweep": "plan",
    "dask_worker_config": "run",
    "process_pool": "run",
    "run_plan": "run",
    "run_points": "run",
    "RECORD_COLUMNS": "table",
    "STAT_COLUMNS": "table",
    "build_frame": "table",
    "to_csv_text": "table",
    "to_xarray": "table",
}

__all__ = [
    "RECORD_COLUMNS",
    "STAT_COLUMNS",
    "Journal",
    "SweepLocked",
    "SweepPlan",
    "build_frame",
    "dask_worker_config",
    "journal_path",
    "journal_points",
    "plan_sweep",
    "process_pool",
    "run_plan",
    "run_points",
    "sweep",
    "sweep_csv",
    "to_csv_text",
    "to_xarray",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{where}"), name)
    globals()[name] = value  # once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
