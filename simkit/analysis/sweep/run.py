"""Running a sweep's points: the work units and the executors (this process, local
processes, Dask)."""

from __future__ import annotations

import collections
import contextlib
import math
import os
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, wait

import numpy as np
import pandas as pd

from simkit.analysis.sweep.journal import Journal
from simkit.analysis.sweep.plan import EXECUTORS, SweepPlan, outcome_names
from simkit.analysis.sweep.table import build_frame
from simkit.core.params import ParamError, shown


def run_points(
    mode: str, models: list, seeds: list, n: int | None, level: float, exact_survival: bool = False
) -> list[dict]:
    """Run some points; one JSON-serialisable record per point."""
    from simkit.core.engine import simulate

    records: list[dict] = []
    exact_of = exact_answers(models)
    for m, s, ex in zip(models, seeds, exact_of):
        names = outcome_names(m)
        too_large = isinstance(ex, Exception)
        if mode == "exact" or (mode == "survival" and exact_survival):
            if ex is None or too_large:  # too large: the planner refuses first
                raise ParamError(f"{ex}; drop --exact-only (exact_only)")
        if mode == "exact":
            probs = ex.probabilities
            records.append({"exact": [float(probs[o]) for o in names]})
        elif mode == "survival":
            if exact_survival:
                frame = ex.survival()
            else:
                assert n is not None, "n is only None in exact-only mode"
                res = simulate(m, n, rng=s)
                frame = _survival_frame(res, None if too_large else ex, level)
            records.append({"frame": {c: frame[c].tolist() for c in frame.columns}})
        else:
            assert n is not None, "n is only None in exact-only mode"
            res = simulate(m, n, rng=s)
            counts = res.counts
            rec: dict[str, list] = {"counts": [int(counts[o]) for o in names]}
            if getattr(m, "events", None):  # the events of the marks: rows after the outcomes
                from simkit.core.result import events_table

                ev = events_table(res, level)
                is_event = ev["mean"].isna().to_numpy()
                rec["events"] = ev["outcome"][is_event].tolist()
                rec["event_counts"] = [int(c) for c in ev["count"][is_event]]
                rec["means"] = ev["outcome"][~is_event].tolist()  # mean, ci_low, ci_high
                rec["mean_values"] = (
                    ev.loc[~is_event, ["mean", "ci_low", "ci_high"]].to_numpy().tolist()
                )
            if ex is not None and not too_large:
                probs = ex.probabilities
                rec["exact"] = [float(probs[o]) for o in names]
            records.append(rec)
    return records


def exact_answers(models: list) -> list:
    """The exact answer of each model: None without an exact solver, the
    :class:`~simkit.core.exact.ExactTooLarge` raised for a chain too large (its ``exact``
    column is then empty, as in ``simkit run``). Solved in one batch
    (:func:`~simkit.core.exact.solve_many`); when a point is too large, the batch is solved
    again one point at a time."""
    from simkit.core.exact import ExactTooLarge, solve_many

    has = [bool(m.has_exact) for m in models]
    if not any(has):
        return [None] * len(models)
    try:
        exacts = solve_many([m for m, h in zip(models, has) if h])
    except ExactTooLarge:
        exacts = []
        for m, h in zip(models, has):
            if h:
                try:
                    exacts.append(solve_many([m])[0])
                except ExactTooLarge as exc:
                    exacts.append(exc)
    it = iter(exacts)
    return [next(it) if h else None for h in has]


def _survival_frame(res, ex, level) -> pd.DataFrame:
    """A result's survival table with the exact answer already solved (``ex``, or None)."""
    return res.survival(confidence=level, exact=ex if ex is not None else False)


class _InProcess:
    """Runs tasks here, one at a time, as they are asked for (cheap to interrupt).

    The exact answers of every task are solved first, in a few batches (one chain per
    distinct :meth:`exact_key`, :func:`simkit.core.exact.solve_ahead`): the tasks then
    find them cached.
    """

    def run(self, tasks, on_done):
        tasks = list(tasks)
        if any(args[0] != "exact" for _, args in tasks):  # exact mode: one batch already
            from simkit.core.exact import solve_ahead

            solve_ahead(m for _, args in tasks for m in args[1])
        for i, args in tasks:
            on_done(i, run_points(*args))

    def close(self):
        pass


def process_pool(workers: int):
    """A local process pool whose workers start with simkit already imported.

    ``forkserver`` (``spawn`` where it does not exist), as the engine's pools; the
    forkserver preloads what workers run (:data:`.workers.PRELOAD`) once, so each worker
    starts in milliseconds instead of importing numpy, pandas and simkit again. The
    forkserver itself may already be running (:func:`.workers.start_early`).
    """
    from simkit.analysis.sweep.workers import PRELOAD
    from simkit.core.pools import worker_pool

    return worker_pool(workers, PRELOAD)


def tasks_by_index(tasks: list, i: int):
    """The arguments of task ``i`` in a list of ``(index, args)`` pairs."""
    return next(args for j, args in tasks if j == i)


class _Pool:
    """A local process pool (or any concurrent.futures executor).

    Our own pool: this process is one of the workers, so the pool has one process fewer,
    and the pool starts in a thread (:meth:`_start`): its first worker can take a moment
    (the forkserver imports numpy, pandas and the models first, unless
    :func:`.workers.start_early` started it), and meanwhile this process takes tasks
    itself; the thread hands the waiting tasks to the workers the moment one is up. So 2
    workers are never slower than 1, even when starting them costs more than the whole
    sweep.

    The tasks not yet handed out, and the futures of those handed out, are shared by this
    thread, the starting one and the pool's own (under ``_lock``): a worker that finishes a
    task gets the next at once (a callback of its future), not when this process is done
    with its own task. Results are taken here, in order of completion.
    """

    def __init__(self, workers: int, executor=None):
        self.own = executor is None
        self.parent_works = self.own
        self.ex = executor  # set by the starting thread once a worker is up (our own pool)
        self.workers = workers
        self.aborted = False
        self._lock = threading.RLock()  # a callback may run inside submit's caller
        self._queue: collections.deque = collections.deque()  # (index, args) not handed out
        self._pending: dict = {}  # future -> task index
        self._starter: threading.Thread | None = None
        if self.own:
            from simkit.analysis.sweep.workers import start_early

            start_early()  # here, in the caller's thread: the helpers start quietly
            self._starter = threading.Thread(
                target=self._start, args=(max(1, workers - 1),), name="simkit-pool-start"
            )
            self._starter.start()

    def _start(self, n_procs: int) -> None:
        """In a thread: start the pool; once a worker has run a task, hand it work."""
        try:
            ex = process_pool(n_procs)
        except Exception as exc:  # pragma: no cover - no processes on this system
            _pool_failed(exc)
            return
        try:
            ex.submit(int).result()  # returns once a worker is up
        except Exception as exc:  # pragma: no cover - a worker died at start
            ex.shutdown(wait=False, cancel_futures=True)
            _pool_failed(exc)
            return
        with self._lock:
            self.ex = ex
            self._feed()  # this process may be in the middle of a task: do not wait for it

    def _limit(self) -> int:
        """How many tasks the pool may hold, running or queued."""
        if not self.parent_works:
            return max(2, 2 * self.workers)
        # one per worker, none queued: a finished task's callback hands out the next, and
        # what is not handed out stays for this process (a task in a process pool's queue
        # can no longer be taken back)
        return max(1, self.workers - 1)

    def _feed(self) -> None:
        """Hand tasks to the pool up to its limit (``_lock`` held)."""
        while self.ex is not None and not self.aborted and self._queue:
            if sum(not f.done() for f in self._pending) >= self._limit():
                break
            i, args = self._queue.popleft()
            fut = self.ex.submit(run_points, *args)
            self._pending[fut] = i
            fut.add_done_callback(self._refill)

    def _refill(self, fut) -> None:
        """A task finished (in the pool's thread): hand its worker the next one."""
        with self._lock:
            self._feed()

    def run(self, tasks, on_done):
        tasks = list(tasks)
        with self._lock:
            self._queue.extend(tasks)
        try:
            while True:
                mine: list = []
                with self._lock:
                    self._feed()
                    if self.parent_works:
                        if self._queue:  # this process takes the next task itself
                            mine.append(self._queue.popleft())
                        else:  # nothing left to hand out: take back what no worker started
                            for fut in [f for f in self._pending if f.cancel()]:
                                i = self._pending.pop(fut)
                                mine.append((i, tasks_by_index(tasks, i)))
                    pending = list(self._pending)
                if not mine and not pending:
                    break
                for i, args in mine:
                    on_done(i, run_points(*args))
                done = [f for f in pending if f.done()]
                if not done and not mine:
                    done = list(wait(pending, return_when=FIRST_COMPLETED)[0])
                with self._lock:
                    finished = [(self._pending.pop(f), f) for f in done]
                for i, fut in finished:
                    on_done(i, fut.result())
        except BaseException:
            with self._lock:
                self.aborted = True
                for fut in self._pending:
                    fut.cancel()
            raise

    def close(self):
        if not self.own:
            return
        if self._starter is not None:
            self._starter.join()  # the pool exists (or failed) before it is shut down
        if self.ex is None:
            return
        if self.aborted:  # Ctrl-C or an error: stop the workers now, their results are not wanted
            from simkit.core.pools import stop_now

            stop_now(self.ex)
        else:
            self.ex.shutdown(wait=True, cancel_futures=True)


def _pool_failed(exc: BaseException) -> None:
    """Worker processes could not start: this process does every task (nothing is lost)."""
    import warnings

    warnings.warn(
        f"sweep: worker processes did not start ({exc!r}); running in this process",
        RuntimeWarning,
        stacklevel=2,
    )


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


@contextlib.contextmanager
def _quiet_local_cluster():
    """While a LocalCluster starts its worker processes: they ignore Ctrl-C (SIGINT to
    the terminal's process group; this process stops them, having saved what it has),
    log only Dask's errors (not a warning per cancelled task), and the multiprocessing
    resource tracker, which still removes the cluster's semaphores after a ``kill -9``
    of this process, does it without a warning. Environment and handler are restored."""
    import signal
    from multiprocessing import resource_tracker

    env = {
        "DASK_LOGGING__DISTRIBUTED": "error",
        "PYTHONWARNINGS": ",".join(
            w for w in (os.environ.get("PYTHONWARNINGS"), _TRACKER_QUIET) if w
        ),
    }
    old_env = {k: os.environ.get(k) for k in env}
    main = threading.current_thread() is threading.main_thread()
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    os.environ.update(env)
    try:
        resource_tracker.ensure_running()  # (started with the warning filter, if not yet)
        yield
    finally:
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if main:
            signal.signal(signal.SIGINT, old_int)


#: The resource tracker's warning at its shutdown about semaphores it then removes.
_TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


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
            import logging

            self._log = logging.getLogger("distributed")
            self._log_level = self._log.level
            self._log.setLevel(logging.ERROR)  # the cluster's own warnings as it is stopped
            with dask_worker_config(), _quiet_local_cluster():
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
                self._log.setLevel(self._log_level)


def make_executor(executor, workers, scheduler, client, n_tasks):
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
        ex = make_executor(executor, workers, scheduler, client, len(tasks))
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
