"""Worker processes for ``simulate(..., workers=k)`` and the sweeps: the pool a process keeps
for its next call, local pools that start by forkserver (or spawn), and each worker's watch
on the process that made it (a ``kill -9`` of a sweep leaves no worker computing for nobody).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

__all__ = ["discard_shared_pool", "parent_gone", "shared_pool", "stop_now", "worker_pool"]


#: The worker pool that ``simulate(..., workers=k)`` keeps for its next call (one at a time).
_SHARED: dict[int, ProcessPoolExecutor] = {}


def shared_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, started once and reused by later ``simulate`` calls
    of this process (worker start-up is paid once, not per call). A call for another size
    replaces it; it is shut down at exit, or at once after an error or an interrupt."""
    pool = _SHARED.get(workers)
    if pool is None or getattr(pool, "_broken", False):
        discard_shared_pool()
        if not _SHARED_EXIT:
            import atexit

            atexit.register(discard_shared_pool, wait=True)
            _SHARED_EXIT.append(True)
        pool = _SHARED[workers] = worker_pool(workers)
    return pool


_SHARED_EXIT: list[bool] = []


def discard_shared_pool(wait: bool = False) -> None:
    """Stop the kept pool (its workers are terminated unless ``wait``)."""
    for size in list(_SHARED):
        pool = _SHARED.pop(size)
        if wait:
            pool.shutdown(wait=True, cancel_futures=True)
        else:
            stop_now(pool)


def stop_now(pool: ProcessPoolExecutor, timeout: float = 5.0) -> None:
    """Stop ``pool`` at once (Ctrl-C, an error): its workers terminated, its queued tasks
    cancelled, then a wait (at most ``timeout`` s) for its manager thread to see them gone.

    Without that wait, the interpreter's exit can wake the manager thread through a pipe
    the thread is closing at the same moment: CPython then prints "Exception ignored ...
    OSError: [Errno 9] Bad file descriptor" (a race in ``concurrent.futures``), a second
    line after the one a Ctrl-C of a sweep should print. (The thread is taken before the
    shutdown: ``shutdown(wait=False)`` drops the pool's reference to it.)"""
    manager = getattr(pool, "_executor_manager_thread", None)
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None and manager.is_alive():
        manager.join(timeout)


def worker_pool(workers: int, preload: tuple[str, ...] = ()) -> ProcessPoolExecutor:
    """Local worker processes (forkserver where available, else spawn).

    Each worker watches the process that started it and exits when that one is gone,
    so a ``kill -9`` of a sweep does not leave workers computing for nobody.
    """
    import multiprocessing
    from multiprocessing.context import BaseContext

    ctx: BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        server = multiprocessing.get_context("forkserver")
        if preload:
            server.set_forkserver_preload(list(preload))
        ctx = server
    else:  # pragma: no cover - Windows
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_watch_parent, initargs=(os.getpid(),)
    )


def parent_gone(pid: int, ppid: int) -> bool:
    """Whether process ``pid`` (the pool's owner) is gone, as seen from a worker whose
    parent was ``ppid``.

    Gone: it no longer exists, it is a zombie (killed but not yet reaped: ``os.kill(pid, 0)``
    still succeeds on a zombie, so that alone is not enough), or this worker's parent changed
    (the forkserver or the owner died and the worker was re-parented).
    """
    if os.getppid() != ppid:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, owned by someone else (a reused pid): not ours any more
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):  # no /proc (macOS): the checks above decide
        return False
    return state in (b"Z", b"X", b"x")


def _watch_parent(pid: int, every: float = 0.5) -> None:
    """In a worker: exit at once when process ``pid`` (the one that made the pool) is gone,
    zombie or not (:func:`parent_gone`)."""
    import threading
    import time

    ppid = os.getppid()

    def loop():
        while True:
            time.sleep(every)
            if parent_gone(pid, ppid):
                os._exit(1)

    threading.Thread(target=loop, name="simkit-parent-watch", daemon=True).start()
