"""Local sweep pools start in the background (issue 13: 2 workers never slower than 1).

The parent process works while the pool starts; a pool that cannot start costs nothing
but a warning; starting workers early imports nothing heavy; no number ever changes.
"""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import simkit.analysis.sweep.run as run
from simkit.analysis.sweep import sweep

GRID = {"dc": [14, 18, 22, 26], "hit_chance": [0.0, 0.2]}
N = 2000


def test_the_parent_works_while_the_pool_starts(monkeypatch):
    """A pool that is slow to start: the parent has done tasks before it is up."""
    import threading

    up = threading.Event()
    parent_tasks = []
    real_run_points = run.run_points

    def counting(*args):
        if threading.current_thread() is threading.main_thread():
            parent_tasks.append(1)
            up.set()  # the pool comes up only after the parent's first task
        return real_run_points(*args)

    waited = []

    def slow_pool(n):
        waited.append(up.wait(5))  # False: the parent waited for the pool instead
        return ThreadPoolExecutor(n)

    monkeypatch.setattr(run, "run_points", counting)
    monkeypatch.setattr(run, "process_pool", slow_pool)
    a = sweep("dying", GRID, N, 3, workers=1)
    parent_tasks.clear()
    b = sweep("dying", GRID, N, 3, workers=2, chunk_size=1)
    assert waited == [True]  # the parent did a task before the pool was up
    assert parent_tasks
    assert a.equals(b)


def test_a_pool_that_cannot_start_leaves_the_work_to_the_parent(monkeypatch):
    def broken_pool(n):
        raise OSError("no processes here")

    monkeypatch.setattr(run, "process_pool", broken_pool)
    a = sweep("dying", GRID, N, 4, workers=1)
    with pytest.warns(RuntimeWarning, match="did not start"):
        b = sweep("dying", GRID, N, 4, workers=2, chunk_size=1)
    assert a.equals(b)


def test_real_workers_give_the_same_table():
    a = sweep("dying", GRID, N, 5, workers=1)
    b = sweep("dying", GRID, N, 5, workers=2, chunk_size=1)
    assert a.equals(b)


def test_starting_workers_early_imports_nothing_heavy():
    code = (
        "import sys; import simkit.analysis.sweep.workers as w; "
        "print(sorted(m for m in ('numpy', 'pandas', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_package_names_load_on_first_use():
    import simkit.analysis.sweep as pkg

    assert pkg.sweep is sweep
    assert pkg.STAT_COLUMNS[0] == "count"
    assert "sweep_csv" in dir(pkg)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pkg.nope  # noqa: B018
