"""Benchmark of sweeps (issue: sweeps and reports). Not a test: run
`.venv/bin/python bench/bench_sweep.py` from the repository root.

Measures:
  (a) a 1,000-point sweep x 1e5 tracks of the dying model (dc 14..53 x save 0..24),
      end to end with 2 local worker processes (pool start-up included);
  (b) the same sweep with 1 and 2 workers, local processes and Dask (a LocalCluster of
      1 or 2 single-threaded worker processes), timed with the workers already started
      (the scaling), and the speed-up of 2 workers over 1;
  (c) a 10,000-point exact-only grid (dc 14..53 x save -5..44 x heal_round 5 values).

Targets (issue 5): (a) under 30 s on 2 cores; (b) 2 workers >= 1.6x one; (c) about 1 s.
Every run is checked to give the same table as the first.
"""

from __future__ import annotations

import argparse
import os
import time

import pandas as pd

from simkit.analysis.sweep import dask_worker_config, process_pool, sweep

GRID = {"dc": range(14, 54), "save_bonus": range(25)}  # 1,000 points
EXACT_GRID = {
    "dc": range(14, 54),
    "save_bonus": range(-5, 45),
    "heal_round": [None, 3, 5, 9, 20],
}  # 10,000


def timed(fn, repeat: int = 1):
    """(best wall time of ``repeat`` runs, last result)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=1e5, help="tracks per point (default 1e5)")
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask runs")
    ap.add_argument("--repeat", type=int, default=3, help="best of REPEAT runs in (b) (default 3)")
    args = ap.parse_args(argv)
    n = int(args.n)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"machine: {os.cpu_count()} CPUs; "
        f"grid of {len(GRID['dc']) * len(GRID['save_bonus'])} points x {n:.0e}"
    )
    sweep("dying", {"dc": [20]}, 1000, 0)  # warm imports

    t_a, ref = timed(lambda: sweep("dying", GRID, n, 1, workers=2))
    print(
        f"(a) 1,000 points x {n:.0e}, 2 local workers, end to end : {t_a:6.2f} s  (target < 30 s)"
    )

    rows = []
    for w in (1, 2):
        if w == 1:
            t, df = timed(lambda: sweep("dying", GRID, n, 1, workers=1), args.repeat)
        else:
            pool = process_pool(w)
            list(pool.map(abs, range(4 * w)))  # start the workers
            t, df = timed(
                lambda pool=pool, w=w: sweep("dying", GRID, n, 1, executor=pool, workers=w),
                args.repeat,
            )
            pool.shutdown()
        pd.testing.assert_frame_equal(df, ref)
        rows.append(("local", w, t))
    if not args.no_dask:
        from dask.distributed import Client, LocalCluster

        for w in (1, 2):
            with dask_worker_config():
                cl = LocalCluster(
                    n_workers=w, threads_per_worker=1, processes=True, dashboard_address=":0"
                )
            with cl, Client(cl) as client:
                client.wait_for_workers(w)
                sweep("dying", {"dc": [20]}, 1000, 0, client=client)  # warm the workers
                t, df = timed(
                    lambda client=client: sweep("dying", GRID, n, 1, client=client), args.repeat
                )
            pd.testing.assert_frame_equal(df, ref)
            rows.append(("dask", w, t))
    print(
        f"(b) best of {args.repeat}\n"
        "    executor  workers   seconds   speed-up vs 1 worker (target 2 workers >= 1.6x)"
    )
    base = {}
    for ex, w, t in rows:
        base.setdefault(ex, t)
        print(f"    {ex:<8}  {w:>7}   {t:7.2f}   {base[ex] / t:5.2f}x")
    print(f"load average after (b): {os.getloadavg()[0]:.2f}")

    sweep("dying", {"dc": [20]}, exact_only=True)
    best = float("inf")
    for _ in range(3):
        t, ex = timed(lambda: sweep("dying", EXACT_GRID, exact_only=True))
        best = min(best, t)
    print(
        f"(c) 10,000-point exact grid ({len(ex)} rows), best of 3   : {best:6.2f} s  (target ~1 s)"
    )


if __name__ == "__main__":
    main()
