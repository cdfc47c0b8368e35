"""``sweep`` and ``sweep_csv``: plan, run (journalled for CSV output) and tabulate."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simkit.analysis.sweep.journal import Journal, journal_path
from simkit.analysis.sweep.plan import plan_sweep
from simkit.analysis.sweep.run import run_plan
from simkit.analysis.sweep.table import to_csv_text
from simkit.core.params import ParamError
from simkit.core.stats import confidence_of


def sweep(
    model,
    grid=None,
    n: int | None = 100_000,
    rng=None,
    *,
    fixed=None,
    preset=None,
    exact_only: bool = False,
    survival: bool = False,
    confidence: float = 0.95,
    level: float | None = None,
    executor="local",
    workers: int = 1,
    scheduler: str | None = None,
    client=None,
    progress: bool = False,
    chunk_size: int | None = None,
    max_points: int | None = None,
) -> pd.DataFrame:
    """Outcome probabilities of ``model`` at every point of ``grid``, as a tidy table.

    Parameters
    ----------
    model : str, Rules class or Rules
        A registered model's name, its class, or rules whose non-default values are
        the base under the grid.
    grid : dict, Grid, or the path of a sweep TOML file
        Axes: key -> list, tuple, range, or ``"A..B"`` / ``"A..B:STEP"`` string. Keys
        are model parameters or sweep keys (``level``, ``level_diff``...; see
        :mod:`simkit.analysis.grid`). ``None`` or ``{}``: a single point.
    n : int
        Tracks per point (ignored with ``exact_only``).
    rng : None, int, SeedSequence or Generator
        The sweep's seed; each point's stream derives from it and the point's
        parameters.
    fixed : dict, optional
        Values held fixed (model parameters or sweep keys).
    preset : str, optional
        A named variant (e.g. ``"pf2e-core"``) under the fixed values and the grid.
    exact_only : bool
        No simulation: exact probabilities only (batched solves).
    survival : bool
        Per-step rows (P(absorbed in each outcome by step t), P(still active)).
    confidence : float
        Confidence level of ``ci_low``/``ci_high`` (Wilson).
    executor : {"local", "dask"} or a concurrent.futures.Executor
        Where points run; never changes a number.
    workers : int
        Local processes or LocalCluster workers (1 = in this process for ``local``).
    scheduler : str, optional
        Address of a Dask scheduler (``executor="dask"``).
    client : dask.distributed.Client, optional
        An existing Dask client (implies ``executor="dask"``).
    max_points : int, optional
        Refuse a grid of more points (default
        :data:`simkit.analysis.grid.MAX_POINTS`), counted before any point is built.
    progress : bool
        A progress bar (``tqdm.auto``: a widget in Jupyter, text on stderr elsewhere).
    level : float, optional
        Deprecated name of ``confidence`` (removed in 0.4; a warning).

    Returns
    -------
    pandas.DataFrame
        One row per point and outcome (see the module docs for the columns).
    """
    level = confidence_of(confidence, level, "sweep")
    if isinstance(grid, (str, Path)):  # a TOML file: its [grid], with its [set] under fixed
        from simkit.analysis.grid import load_config

        cfg = load_config(grid)
        name = model if isinstance(model, str) else getattr(model, "name", None)
        if cfg["model"] != name:
            raise ParamError(f"grid {grid}: the file is for model {cfg['model']!r}, not {name!r}")
        fixed = {**cfg.get("set", {}), **(fixed or {})}
        preset = preset or cfg.get("preset")
        grid = cfg.get("grid", {})
    plan = plan_sweep(
        model,
        grid,
        n,
        rng,
        fixed=fixed,
        preset=preset,
        exact_only=exact_only,
        survival=survival,
        level=level,
        max_points=max_points,
    )
    return run_plan(
        plan,
        executor=executor,
        workers=workers,
        scheduler=scheduler,
        client=client,
        progress=progress,
        chunk_size=chunk_size,
    )


def sweep_csv(
    output,
    model,
    grid=None,
    n: int | None = 100_000,
    rng=None,
    *,
    resume: bool = False,
    after_task=None,
    **kwargs,
) -> pd.DataFrame:
    """:func:`sweep`, written to ``output`` atomically, resumable through a journal
    (the same keywords: ``confidence=`` for the intervals' level).

    While it runs, finished points are journalled in ``output + ".partial"``; the
    CSV appears (by rename) only when every point is done, and the journal is then
    removed. After an interruption, the same call with ``resume=True`` skips the
    journalled points. A journal left by another sweep, or present without
    ``resume``, is an error (nothing is overwritten silently); so is ``resume=True``
    when ``output`` exists and no journal does (a fresh run would replace it). Without
    either, ``resume=True`` starts the sweep, journalled.
    """
    from simkit.core.io import atomic_write, check_writable, output_target, remove_stale_temps

    check_writable(output)
    run_kwargs = {
        k: kwargs.pop(k)
        for k in ("executor", "workers", "scheduler", "client", "progress", "chunk_size")
        if k in kwargs
    }
    if "confidence" in kwargs or "level" in kwargs:  # sweep's names for the interval's level
        kwargs["level"] = confidence_of(
            kwargs.pop("confidence", 0.95), kwargs.pop("level", None), "sweep_csv"
        )
    plan = plan_sweep(model, grid, n, rng, **kwargs)
    kind, target = output_target(output)
    if kind != "replace":  # stdout, a device or a FIFO: nothing to resume, no journal beside it
        if resume:
            raise ParamError(f"resume needs a file to write (-o FILE.csv), not {output}")
        df = run_plan(plan, after_task=after_task, **run_kwargs)
        with atomic_write(output) as fh:
            fh.write(to_csv_text(df))
        return df
    jp = journal_path(target)
    if resume and target.exists() and not (jp.exists() and jp.stat().st_size > 0):
        # a finished output and no journal: a fresh run (on a fresh seed, from the CLI)
        # would replace it
        raise ParamError(
            f"resume: nothing to resume: {output} is there and no journal ({jp.name}) holds "
            "an interrupted sweep of it; run without resume to replace it"
        )
    journal = Journal(jp, plan.fingerprint(), resume)
    remove_stale_temps(target)  # left by a sweep killed while writing it (we hold the lock)
    try:
        df = run_plan(plan, journal=journal, after_task=after_task, **run_kwargs)
        with atomic_write(output) as fh:
            fh.write(to_csv_text(df))
    except BaseException:
        journal.discard()  # kept if it holds any finished point (for --resume), else removed
        raise
    journal.remove()
    return df
