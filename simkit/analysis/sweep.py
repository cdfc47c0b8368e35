"""Sweeps: one question over a grid of parameters, as one tidy table.

``sweep(model, grid, n, rng)`` runs every grid point (:mod:`simkit.analysis.grid`) and returns
one row per grid point and outcome::

    <grid keys>, <fixed sweep keys>, <derived parameters>, outcome, count, n, p, ci_low,
    ci_high, exact, model, seed, point_seed, version, params

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
"""

from __future__ import annotations

import json
import math
import os
import sys
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.analysis.grid import Grid, make_grid, resolve_point, sweep_keys_for
from simkit.core.params import ParamError, shown, spec
from simkit.core.stats import check_level, proportion_ci
from simkit.core.streams import point_seed, resolve_seed

__all__ = [
    "RECORD_COLUMNS",
    "STAT_COLUMNS",
    "SweepPlan",
    "dask_worker_config",
    "plan_sweep",
    "process_pool",
    "run_plan",
    "sweep",
    "sweep_csv",
    "to_csv_text",
]

#: Statistic columns after the grid columns (a public contract).
STAT_COLUMNS = ("count", "n", "p", "ci_low", "ci_high", "exact")
#: Columns recording where each row comes from.
RECORD_COLUMNS = ("model", "seed", "point_seed", "version", "params")
EXECUTORS = ("local", "dask")
JOURNAL_FORMAT = 1


def _version() -> str:
    from simkit.core.version import __version__

    return __version__


@dataclass(frozen=True)
class SweepPlan:
    """Every point of a sweep, checked and built before anything runs."""

    model_name: str
    grid: Grid
    base: dict  # preset and model-instance values under the grid
    n: int | None  # None in exact-only mode
    seed: int | None
    mode: str  # "mc", "exact" or "survival"
    exact_survival: bool
    level: float
    points: list  # grid values of each point
    derived: list  # derived parameters of each point
    models: list  # rules of each point
    seeds: list  # point seed of each point (None in exact mode)
    keys: list  # journal key of each point

    @property
    def fixed_key_columns(self) -> list[str]:
        """Sweep keys held fixed (``fixed={"level": 5}``, ``--set level=5``): columns too."""
        params = spec(self.grid.model)
        return [k for k in self.grid.fixed if k not in params and k not in self.grid.axes]

    @property
    def derived_columns(self) -> list[str]:
        cols: list[str] = []
        for d in self.derived:
            for k in d:
                if k not in cols and k not in self.grid.axes:
                    cols.append(k)
        return cols

    def fingerprint(self) -> dict:
        """What must match for a journal to be resumed."""
        return {
            "model": self.model_name,
            "base": self.base,
            "fixed": self.grid.fixed,
            "axes": {k: list(v) for k, v in self.grid.axes.items()},
            "n": self.n,
            "seed": self.seed,
            "mode": self.mode,
            "level": self.level,
            "version": _version(),
        }


def _model_class_and_base(model, preset):
    from simkit.core.model import Rules
    from simkit.models import REGISTRY, get_model
    from simkit.models.presets import preset_params

    if isinstance(model, str):
        cls, base = get_model(model), {}
    elif isinstance(model, type) and issubclass(model, Rules):
        cls, base = model, {}
    elif isinstance(model, Rules):
        cls = type(model)
        defaults = {k: m["default"] for k, m in spec(cls).items()}
        base = {k: v for k, v in model.params().items() if v != defaults[k]}
    else:
        raise ParamError(
            f"model must be a model name ({', '.join(REGISTRY)}), a rules class or rules; "
            f"got {model!r}"
        )
    if preset:
        base = {**preset_params(cls.name, preset), **base}
    return cls, base


def _canon(values: dict) -> str:
    return json.dumps(values, sort_keys=True, default=str, separators=(",", ":"))


def plan_sweep(
    model,
    grid=None,
    n: int | None = 100_000,
    rng=None,
    *,
    fixed=None,
    preset=None,
    exact_only: bool = False,
    survival: bool = False,
    level: float = 0.95,
    max_points: int | None = None,
) -> SweepPlan:
    """Check a sweep and build the rules of every point (no simulation).

    Errors are :class:`~simkit.core.params.ParamError` with one line naming the key, or
    the point and the parameter, at fault.
    """
    from simkit.core.engine import check_n

    cls, base = _model_class_and_base(model, preset)
    g = grid if isinstance(grid, Grid) else make_grid(cls, grid or {}, fixed or {}, max_points)
    if isinstance(grid, Grid) and fixed:
        raise ParamError("give fixed values either in the Grid or as fixed=, not both")
    _check_axes_take_effect(cls, g, {**base, **g.fixed})
    level = float(check_level(level))
    if exact_only:
        if not _has_exact_cls(cls, base, g):
            raise ParamError(
                f"model {cls.name!r} has no exact solver: drop exact_only (--exact-only)"
            )
        n_ = seed = None
    else:
        n_ = check_n(n)
        seed = resolve_seed(rng)
    mode = "survival" if survival else ("exact" if exact_only else "mc")
    points: list[dict] = []
    derived: list[dict] = []
    models: list = []
    seeds: list[int | None] = []
    keys: list[str] = []
    pspec = spec(cls)
    defaults = {k: m["default"] for k, m in pspec.items()}
    cache = (pspec, sweep_keys_for(cls))
    for point in g.points():
        values = {**base, **g.fixed, **point}
        try:
            params, der = resolve_point(cls, values, cache)
            m = cls(**params)  # keys were checked by make_grid
        except ParamError as exc:
            where = ", ".join(f"{k}={v}" for k, v in point.items())
            raise ParamError(f"grid point {where}: {exc}" if where else str(exc)) from None
        points.append(point)
        derived.append(der)
        models.append(m)
        keys.append(_canon(point))
        if seed is not None:
            full = {k: getattr(m, k) for k in defaults}
            seeds.append(point_seed(seed, {"model": cls.name, **full}))
        else:
            seeds.append(None)
    return SweepPlan(
        cls.name,
        g,
        base,
        n_,
        seed,
        mode,
        bool(exact_only and survival),
        level,
        points,
        derived,
        models,
        seeds,
        keys,
    )


def _check_axes_take_effect(cls, g: Grid, given: dict) -> None:
    """A grid key that only sets parameters already given would change nothing: say so."""
    from simkit.analysis.grid import sweep_keys_for
    from simkit.core.params import spec

    params = spec(cls)
    keys = sweep_keys_for(cls)
    for name in g.axes:
        k = keys.get(name)
        if k is None or k.derive is None or k.adds:
            continue
        targets = [t for t in k.sets if t in params]
        if targets and all(t in given for t in targets):
            shown = ", ".join(f"{t}={given[t]!r}" for t in targets)
            raise ParamError(
                f"--grid {name}: it sets {', '.join(targets)}, which the model or --set already "
                f"gives ({shown}); drop that value to sweep {name}"
            )


def _has_exact_cls(cls, base, g) -> bool:
    has = cls.has_exact  # a bool, or a property of chains (it depends on their stages)
    if isinstance(has, bool):
        return has
    # a property (chains): ask one point
    first: dict = next(iter(g.points()), {})
    try:
        params, _ = resolve_point(cls, {**base, **g.fixed, **first})
        return bool(cls.from_params(**params).has_exact)
    except ParamError:
        return True  # the point's own error will be reported by the planner


# -- work units (run in workers: plain functions of picklable arguments) ----------------


def _outcome_names(model) -> tuple[str, ...]:
    return tuple(model.all_outcomes)


def run_points(
    mode: str, models: list, seeds: list, n: int | None, level: float, exact_survival: bool = False
) -> list[dict]:
    """Run some points; one JSON-serialisable record per point."""
    from simkit.core.engine import simulate
    from simkit.core.exact import solve_many

    records: list[dict] = []
    has = [bool(m.has_exact) for m in models]
    exacts = solve_many([m for m, h in zip(models, has) if h]) if any(has) else []
    it = iter(exacts)
    exact_of = [next(it) if h else None for h in has]
    for m, s, ex in zip(models, seeds, exact_of):
        names = _outcome_names(m)
        if mode == "exact":
            assert ex is not None, "exact mode: every point has an exact solver"
            probs = ex.probabilities
            records.append({"exact": [float(probs[o]) for o in names]})
        elif mode == "survival":
            if exact_survival:
                assert ex is not None, "exact survival: every point has an exact solver"
                frame = ex.survival()
            else:
                assert n is not None, "n is only None in exact-only mode"
                res = simulate(m, n, rng=s)
                frame = _survival_frame(res, ex, level)
            records.append({"frame": {c: frame[c].tolist() for c in frame.columns}})
        else:
            assert n is not None, "n is only None in exact-only mode"
            res = simulate(m, n, rng=s)
            counts = res.counts
            rec: dict[str, list] = {"counts": [int(counts[o]) for o in names]}
            if ex is not None:
                probs = ex.probabilities
                rec["exact"] = [float(probs[o]) for o in names]
            records.append(rec)
    return records


def _survival_frame(res, ex, level) -> pd.DataFrame:
    """A result's survival table with the exact answer already solved (``ex``, or None)."""
    return res.survival(level=level, exact=ex if ex is not None else False)


# -- executors ------------------------------------------------------------------------------


class _InProcess:
    """Runs tasks here, one at a time, as they are asked for (cheap to interrupt)."""

    def run(self, tasks, on_done):
        for i, args in tasks:
            on_done(i, run_points(*args))

    def close(self):
        pass


def _json_value(v):
    """Journal values json cannot write: missing values (pd.NA) and numpy scalars."""
    if v is pd.NA or v is None:
        return None
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"cannot write {type(v).__name__} to the sweep journal")


def process_pool(workers: int):
    """A local process pool whose workers start with simkit already imported.

    ``forkserver`` (``spawn`` where it does not exist), as the engine's pools; the
    forkserver preloads simkit once, so each worker starts in a fraction of a second
    instead of importing numpy, pandas and simkit again.
    """
    from simkit.core.engine import worker_pool

    return worker_pool(
        workers,
        ("simkit.analysis.sweep", "simkit.core.engine", "simkit.core.exact", "simkit.models"),
    )


def tasks_by_index(tasks: list, i: int):
    """The arguments of task ``i`` in a list of ``(index, args)`` pairs."""
    return next(args for j, args in tasks if j == i)


class _Pool:
    """A local process pool (or any concurrent.futures executor)."""

    def __init__(self, workers: int, executor=None):
        self.own = executor is None
        # our own pool: this process is one of the workers, so the pool has one process
        # fewer and the sweep starts at once, while the other workers are still starting
        # (2 workers are never slower than 1, even when starting them costs more than the
        # whole sweep)
        self.parent_works = self.own
        n_procs = max(1, workers - 1) if self.own else workers
        self.ex = executor if executor is not None else process_pool(n_procs)
        self.workers = workers
        self.aborted = False

    def run(self, tasks, on_done):
        tasks = list(tasks)
        pending: dict = {}
        pos = 0
        # keep the queue short: cheap to interrupt, and little work waits in a pool
        # whose processes have not started yet
        limit = max(2, 2 * self.workers) if not self.parent_works else max(1, self.workers - 1)
        try:
            while pos < len(tasks) or pending:
                while pos < len(tasks) and len(pending) < limit:
                    i, args = tasks[pos]
                    pending[self.ex.submit(run_points, *args)] = i
                    pos += 1
                if self.parent_works:
                    if pos < len(tasks):  # this process takes the next task itself
                        i, args = tasks[pos]
                        pos += 1
                        on_done(i, run_points(*args))
                    else:  # nothing left to hand out: take back what no worker has started
                        for fut in [f for f in pending if f.cancel()]:
                            i = pending.pop(fut)
                            on_done(i, run_points(*tasks_by_index(tasks, i)))
                    done = {f for f in pending if f.done()}
                    if not done and pos >= len(tasks) and pending:
                        done, _ = wait(pending, return_when=FIRST_COMPLETED)
                else:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = pending.pop(fut)
                    on_done(i, fut.result())
        except BaseException:
            self.aborted = True
            for fut in pending:
                fut.cancel()
            raise

    def close(self):
        if not self.own:
            return
        if self.aborted:  # Ctrl-C or an error: stop the workers now, their results are not wanted
            for proc in list(getattr(self.ex, "_processes", {}).values()):
                proc.terminate()
            self.ex.shutdown(wait=False, cancel_futures=True)
        else:
            self.ex.shutdown(wait=True, cancel_futures=True)


def dask_worker_config():
    """Dask settings for worker processes that run simkit kernels at full speed.

    Dask's nanny sets ``MALLOC_TRIM_THRESHOLD_=65536`` in its workers' environment;
    setting it at all turns off glibc's dynamic mmap threshold, so every temporary
    array of a kernel (a few hundred kB) is mmapped and unmapped again: the dying
    kernel ran about 2x slower (measured). Use this context when starting workers::

        with simkit.analysis.sweep.dask_worker_config():
            cluster = LocalCluster(...)

    The LocalCluster that ``executor="dask"`` starts uses it. For workers started
    elsewhere, set the same key to null in their Dask configuration (YAML:
    ``distributed: {nanny: {pre-spawn-environ: {MALLOC_TRIM_THRESHOLD_: null}}}``).
    """
    import dask

    return dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})


class _Dask:
    """A Dask client: given, connected to ``scheduler``, or on a fresh LocalCluster."""

    def __init__(self, workers: int, scheduler: str | None, client=None):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - the test extra installs dask
            raise ParamError(
                "--executor dask needs the dask extra: pip install 'simkit[dask]'"
            ) from None
        self.cluster = None
        self.own = client is None
        if client is not None:
            self.client = client
        elif scheduler:
            from simkit.analysis.grid import check_scheduler

            scheduler = check_scheduler(scheduler)
            try:
                self.client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise ParamError(
                    f"--scheduler {scheduler}: cannot connect ({shown(str(exc), 200)})"
                ) from None
        else:
            with dask_worker_config():
                self.cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
                )
            self.client = Client(self.cluster)

    def run(self, tasks, on_done):
        from dask.distributed import as_completed

        futures = {}
        for i, args in tasks:
            futures[self.client.submit(run_points, *args, pure=False)] = i
        try:
            for fut in as_completed(list(futures)):
                on_done(futures[fut], fut.result())
        except BaseException:
            self.client.cancel(list(futures))
            raise

    def close(self):
        if self.own:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()


def _make_executor(executor, workers, scheduler, client, n_tasks):
    if client is not None:
        return _Dask(workers, None, client)
    if executor not in EXECUTORS:
        if hasattr(executor, "submit"):
            return _Pool(workers, executor)
        raise ParamError(f"executor must be one of {', '.join(EXECUTORS)}; got {executor!r}")
    if executor == "dask":
        if scheduler is not None:
            from simkit.analysis.grid import check_scheduler

            check_scheduler(scheduler)
        return _Dask(workers, scheduler, None)
    if scheduler:
        raise ParamError("--scheduler needs --executor dask")
    if workers == 1 or n_tasks <= 1:
        return _InProcess()
    return _Pool(min(workers, n_tasks))


# -- journal --------------------------------------------------------------------------------


class SweepLocked(ParamError):
    """Another running sweep holds the lock on this output's journal."""


class Journal:
    """``FILE.partial``: a header line, then one JSON line per finished task, fsynced.

    Consistent at every instant: a point counts as saved (:attr:`saved`, the CLI's
    message) only once its line is on disk, and :meth:`discard` never deletes a
    journal that holds any line past its header, whatever was interrupted where. While
    the sweep runs, the journal is locked (``flock``): a second sweep of the same
    output is refused (:class:`SweepLocked`) instead of writing into it.
    """

    def __init__(self, path, fingerprint: dict, resume: bool):
        self.path = Path(path)
        self.done: dict[str, dict] = {}
        self.fh = None
        header = json.dumps(
            {"simkit_sweep_journal": JOURNAL_FORMAT, "sweep": fingerprint},
            sort_keys=True,
            default=str,
        )
        fd = self._open_locked()
        fresh = False
        try:
            size = os.fstat(fd).st_size
            holds_points = size > 0 and self._holds_points()
            if size > 0 and holds_points and not resume:
                raise ParamError(
                    f"{self.path} holds an interrupted sweep of this output: "
                    "rerun with --resume to continue it, or delete it to start over"
                )
            if size > 0 and (resume or holds_points):
                self._load(header)
                self.fh = os.fdopen(fd, "a", encoding="utf-8")
            else:  # new, empty, or only a header (a sweep killed before any point): start over
                fresh = True
                os.ftruncate(fd, 0)
                self.fh = os.fdopen(fd, "w", encoding="utf-8")
                self.fh.write(header + "\n")
                self._sync()
                _fsync_dir(self.path.parent)
        except BaseException:
            if fresh:  # interrupted while writing the header: no point saved, leave nothing behind
                self.path.unlink(missing_ok=True)
            if self.fh is None:
                os.close(fd)
            else:
                self.fh.close()
            raise
        self.header_size = self._first_line_size()  # bytes of the header line on disk

    def _open_locked(self) -> int:
        """Open (or create) the journal and take its lock; refuse when another sweep holds it."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no flock, no lock
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        for _ in range(10):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise SweepLocked(
                    f"{self.path} is in use: another sweep is writing this output now; "
                    "wait for it to finish (or stop it), or write to another -o FILE"
                ) from None
            except OSError:  # a file system without locks: go on unlocked
                return fd
            try:  # the holder may have finished and removed the file meanwhile: lock the new one
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)
        raise SweepLocked(
            f"{self.path}: could not lock the sweep journal (another sweep keeps replacing it)"
        )

    def _holds_points(self) -> bool:
        with self.path.open("rb") as fh:
            fh.readline()
            return bool(fh.read(1))

    def _first_line_size(self) -> int:
        with self.path.open("rb") as fh:
            return len(fh.readline())

    def _load(self, header: str) -> None:
        good = 0
        with self.path.open("rb") as fh:
            data = fh.read()
        lines = data.split(b"\n")
        first = lines[0].decode("utf-8", "replace") if lines else ""
        try:
            if json.loads(first) != json.loads(header):
                raise ValueError
        except ValueError:
            raise ParamError(
                f"{self.path} was written by a different sweep "
                "(model, grid, n, seed, mode or version differ): "
                "rerun the same command, or delete it to start over"
            ) from None
        good = len(lines[0]) + 1
        for line in lines[1:]:
            if not line.strip():
                break
            try:
                rec = json.loads(line)
                for key, r in zip(rec["keys"], rec["records"]):
                    self.done[key] = r
            except (ValueError, KeyError, TypeError):
                break  # a line cut short by a kill: drop it and what follows
            good += len(line) + 1
        if good < len(data):
            with self.path.open("r+b") as fh:
                fh.truncate(good)

    def add(self, keys: list[str], records: list[dict]) -> None:
        """Append one task's line and fsync it; only then are its points counted as saved."""
        line = json.dumps({"keys": keys, "records": records}, default=_json_value) + "\n"
        fh = self.fh
        assert fh is not None, "__init__ opens the journal or raises"
        fh.write(line)
        self._sync()
        self.done.update(zip(keys, records))

    @property
    def saved(self) -> int:
        """Points whose lines are on disk (read back from the file, so never more than there)."""
        return journal_points(self.path)

    def _sync(self):
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self):
        """Close (and unlock) the journal, keeping the file."""
        if self.fh is not None and not self.fh.closed:
            self.fh.close()

    def remove(self):
        """Delete the journal (the sweep is complete: its table is written)."""
        self.path.unlink(missing_ok=True)  # unlink while holding the lock, then release it
        self.close()

    def discard(self) -> bool:
        """After an interruption or error: delete the journal only if it holds no line past its
        header (nothing was saved); return whether the file is kept.

        Decided from the file on disk, not from memory, so an interruption between writing a line
        and recording it never loses that line.
        """
        try:
            self._sync()
        except (OSError, ValueError):
            pass
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            self.close()
            return False
        if size > self.header_size:
            self.close()
            return True
        self.remove()
        return False


def journal_points(path) -> int:
    """How many points the journal at ``path`` holds on disk (0 when there is none)."""
    try:
        with Path(path).open("rb") as fh:
            fh.readline()
            n = 0
            for line in fh:
                try:
                    n += len(json.loads(line)["keys"])
                except (ValueError, KeyError, TypeError):
                    break
            return n
    except OSError:
        return 0


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path if str(path) else ".", os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


# -- the sweep ------------------------------------------------------------------------------


def _chunks(indices: list[int], size: int) -> list[list[int]]:
    return [indices[i : i + size] for i in range(0, len(indices), size)]


def run_plan(
    plan: SweepPlan,
    *,
    executor="local",
    workers: int = 1,
    scheduler=None,
    client=None,
    journal: Journal | None = None,
    progress: bool = False,
    chunk_size: int | None = None,
    after_task=None,
) -> pd.DataFrame:
    """Run a planned sweep (skipping points already in ``journal``) and build its table."""
    done: dict[str, dict] = dict(journal.done) if journal is not None else {}
    todo = [i for i, k in enumerate(plan.keys) if k not in done]
    if (
        isinstance(workers, bool)
        or not isinstance(workers, (int, np.integer))
        or not 1 <= workers <= 1024
    ):
        raise ParamError(f"workers must be an integer in [1, 1024], got {workers!r}")
    if chunk_size is None:
        if plan.mode == "exact":
            chunk_size = 4096
        else:
            chunk_size = max(1, min(32, math.ceil(len(todo) / (4 * workers)))) if todo else 1
    if executor != "local" or workers > 1:
        from simkit.core.engine import check_sendable

        if todo:
            check_sendable(
                plan.models[todo[0]], "workers" if executor == "local" else f"executor={executor}"
            )
    chunks = _chunks(todo, int(chunk_size))
    tasks = [
        (
            c,
            (
                plan.mode,
                [plan.models[i] for i in c],
                [plan.seeds[i] for i in c],
                plan.n,
                plan.level,
                plan.exact_survival,
            ),
        )
        for c in chunks
    ]
    bar = None
    if progress:
        from tqdm.auto import tqdm  # a widget bar in Jupyter, text on a terminal

        bar = tqdm(
            total=len(plan.keys),
            initial=len(plan.keys) - len(todo),
            unit="pt",
            file=sys.stderr,
            desc=f"sweep {plan.model_name}",
            leave=False,
            dynamic_ncols=True,
        )

    def on_done(chunk, records):
        keys = [plan.keys[i] for i in chunk]
        if journal is not None:
            journal.add(keys, records)
        for k, r in zip(keys, records):
            done[k] = r
        if bar is not None:
            bar.update(len(chunk))
        if after_task is not None:
            after_task(len(done))

    if tasks:
        ex = _make_executor(executor, workers, scheduler, client, len(tasks))
        try:
            ex.run(
                list(zip(range(len(tasks)), [t[1] for t in tasks])),
                lambda j, recs: on_done(tasks[j][0], recs),
            )
        finally:
            ex.close()
            if bar is not None:
                bar.close()
    elif bar is not None:
        bar.close()
    return build_frame(plan, [done[k] for k in plan.keys])


def build_frame(plan: SweepPlan, records: list[dict]) -> pd.DataFrame:
    """The sweep's table from one record per point (in grid order)."""
    axes = list(plan.grid.axes)
    fcols = plan.fixed_key_columns
    dcols = plan.derived_columns
    version = _version()
    defaults = (
        {k: m["default"] for k, m in spec(type(plan.models[0])).items()} if plan.models else {}
    )
    params_json = [
        _canon({k: getattr(m, k) for k in defaults if getattr(m, k) != defaults[k]})
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
    names = [_outcome_names(m) for m in plan.models]
    n_out = np.array([len(x) for x in names], dtype=np.int64)
    cols: dict = {}
    for k in axes:
        cols[k] = _repeat([p[k] for p in plan.points], n_out)
    for k in fcols:
        cols[k] = _repeat([plan.grid.fixed[k]] * len(plan.points), n_out)
    for k in dcols:
        cols[k] = _repeat([d.get(k) for d in plan.derived], n_out)
    cols["outcome"] = [o for x in names for o in x]
    exact = np.array(
        [v for r, x in zip(records, names) for v in (r.get("exact") or [np.nan] * len(x))],
        dtype=np.float64,
    )
    if plan.mode == "exact":
        cols["count"] = pd.array([pd.NA] * len(exact), dtype="Int64")
        cols["n"] = pd.array([pd.NA] * len(exact), dtype="Int64")
        cols["p"] = exact
        cols["ci_low"] = exact
        cols["ci_high"] = exact
    else:
        count = np.array([c for r in records for c in r["counts"]], dtype=np.int64)
        n = np.full(len(count), plan.n, dtype=np.int64)
        low, high = proportion_ci(count, n, plan.level)
        cols.update(count=count, n=n, p=count / n, ci_low=low, ci_high=high)
    cols["exact"] = exact
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
    level: float = 0.95,
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
    level : float
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

    Returns
    -------
    pandas.DataFrame
        One row per point and outcome (see the module docs for the columns).
    """
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


def to_csv_text(df: pd.DataFrame) -> str:
    """The CSV text of a sweep table (the same bytes for the same table)."""
    return df.to_csv(index=False, lineterminator="\n")


def journal_path(output) -> Path:
    """The journal of a sweep written to ``output`` (beside a link's target)."""
    from simkit.core.io import output_target

    _, p = output_target(output)
    return p.with_name(p.name + ".partial")


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
    """:func:`sweep`, written to ``output`` atomically, resumable through a journal.

    While it runs, finished points are journalled in ``output + ".partial"``; the
    CSV appears (by rename) only when every point is done, and the journal is then
    removed. After an interruption, the same call with ``resume=True`` skips the
    journalled points. A journal left by another sweep, or present without
    ``resume``, is an error (nothing is overwritten silently).
    """
    from simkit.core.io import atomic_write, check_writable, output_target

    check_writable(output)
    run_kwargs = {
        k: kwargs.pop(k)
        for k in ("executor", "workers", "scheduler", "client", "progress", "chunk_size")
        if k in kwargs
    }
    plan = plan_sweep(model, grid, n, rng, **kwargs)
    kind, target = output_target(output)
    if kind != "replace":  # stdout, a device or a FIFO: nothing to resume, no journal beside it
        if resume:
            raise ParamError(f"resume needs a file to write (-o FILE.csv), not {output}")
        df = run_plan(plan, after_task=after_task, **run_kwargs)
        with atomic_write(output) as fh:
            fh.write(to_csv_text(df))
        return df
    journal = Journal(journal_path(target), plan.fingerprint(), resume)
    try:
        df = run_plan(plan, journal=journal, after_task=after_task, **run_kwargs)
        with atomic_write(output) as fh:
            fh.write(to_csv_text(df))
    except BaseException:
        journal.discard()  # kept if it holds any finished point (for --resume), else removed
        raise
    journal.remove()
    return df
