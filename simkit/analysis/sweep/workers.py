"""Worker processes of a local sweep, started early (issue 13: 2 workers never slower than 1).

A local pool's workers are forked by a forkserver that has already imported what a
worker runs (:data:`PRELOAD`), so each starts in milliseconds; the forkserver itself
costs those imports (numpy, pandas, the models: about half a second) before its first
worker exists, and a pool's first ``submit`` waits for it. :func:`start_early` starts the
forkserver at once, in its own process, so that its imports overlap this process's own
imports and planning (the ``sweep`` command calls it before importing pandas). Nothing
heavy is imported here: only the standard library.
"""

from __future__ import annotations

import contextlib
import multiprocessing

__all__ = ["PRELOAD", "available_cpus", "quiet_helpers", "start_early"]

#: Modules the forkserver imports once, before it forks workers (what ``run_points`` uses).
PRELOAD = (
    "simkit.analysis.sweep.run",
    "simkit.core.engine",
    "simkit.core.exact",
    "simkit.models",
)


def start_early() -> bool:
    """Start the forkserver of local sweep workers now, without waiting for it.

    Returns whether there is one (no forkserver on Windows: workers are spawned). A no-op
    when it already runs; the pool started later (:func:`simkit.analysis.sweep.run.process_pool`)
    uses it. Started quietly (:func:`quiet_helpers`): a Ctrl-C or a ``kill -9`` of this
    process leaves nothing on the terminal but this process's own line.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover
        return False
    from multiprocessing import forkserver, resource_tracker

    multiprocessing.get_context("forkserver").set_forkserver_preload(list(PRELOAD))
    with quiet_helpers():
        resource_tracker.ensure_running()
    with quiet_helpers():  # again: starting the tracker unblocks SIGINT (multiprocessing)
        forkserver.ensure_running()
    return True


#: The resource tracker's warnings ("resource_tracker: There appear to be 5 leaked
#: semaphore objects to clean up at shutdown", after a ``kill -9``: it cleans them up).
TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


@contextlib.contextmanager
def quiet_helpers():
    """Helper processes started inside (the forkserver, its workers, the resource tracker)
    take no SIGINT and do not warn about what a killed parent left for them to clean up.

    Ctrl-C (SIGINT to the whole process group) then reaches only this process, which stops
    the workers itself (no ``Process ForkServerProcess-1:`` traceback from an idle worker,
    none from a forkserver still importing); SIGTERM still ends them. SIGINT is blocked in
    this thread meanwhile: a blocked signal stays blocked through ``fork`` and ``exec``, so
    the helpers never receive it, while this process still does (another of its threads
    takes it, or this one once it is unblocked: nothing is lost). The tracker's warning
    filter comes with ``PYTHONWARNINGS``. Only in the main thread (elsewhere: no change).
    """
    import os
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):  # pragma: no cover - Windows, or a pool made in a thread
        yield
        return
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    old_env = os.environ.get("PYTHONWARNINGS")
    try:
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, (old_env, TRACKER_QUIET)))
        yield
    finally:
        if old_env is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = old_env
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, e.g. a container's or
    ``taskset``'s share), not the machine's count; at least 1."""
    import os

    count = getattr(os, "process_cpu_count", None)  # Python 3.13
    if count is not None:
        return max(1, count() or 1)
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)  # pragma: no cover - macOS, Windows
