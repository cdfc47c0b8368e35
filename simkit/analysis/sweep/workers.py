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

import multiprocessing

__all__ = ["PRELOAD", "available_cpus", "start_early"]

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
    uses it.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover
        return False
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(list(PRELOAD))
    forkserver.ensure_running()
    return True


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
