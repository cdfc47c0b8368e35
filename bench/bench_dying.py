"""Benchmark of the dying model (issues 2 and 13). Not a test: `python3 tasks.py bench`.

Measures, in one run, each figure best of several rounds, interleaved with its reference:
  (a) simulate() on the default dying model at n = 1e7 (tracks/s, one process), against
      (b) a plain per-track Python loop of the same rule, and (c) the raw rate of d20
      draws, rng.integers(1, 21, size=10**7, dtype=np.uint16);
  (d) the peak traced memory of simulate() at n = 1e8;
  (e) a sweep of 1,000 points (dc 14..53 x save_bonus 0..24) x 1e5 tracks in one process:
      the share of its time spent outside simulate() (table builds, the sweep's own
      work), against the same 1,000 simulate() calls with every table already built.

Each row prints the figure and its target (issue 2: >= 100x the loop, rolls-rate ratio
>= 0.5, peak <= 64 MB; issue 13: time outside simulation <= 20%).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np

from simkit import Dying, simulate, solve
from simkit.rules.dice import degree


def best_of(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def plain_loop(model: Dying, n: int, seed: int) -> dict:
    """The same rule, one track at a time in plain Python (the baseline)."""
    rng = np.random.default_rng(seed)
    rolls = rng.integers(1, 21, size=n * 4).tolist()  # refilled below if used up
    pos = 0
    out = {"stable": 0, "dead": 0}
    bonus, base = model.save_bonus, model.base_dc
    for _ in range(n):
        dying = model.knockout_dying
        while True:
            if pos == len(rolls):
                rolls, pos = rng.integers(1, 21, size=n).tolist(), 0
            d = degree(rolls[pos], bonus, base + dying)
            pos += 1
            dying += (2, 1, -1, -2)[d]
            if dying <= 0:
                out["stable"] += 1
                break
            if dying >= model.death_at:
                out["dead"] += 1
                break
    return out


def sweep_outside(n: int, rounds: int) -> tuple[float, float, int, float]:
    """(sweep seconds, its simulate() calls alone, table builds, seconds building them)."""
    from simkit.analysis.sweep import sweep
    from simkit.core.exact import clear_cache
    from simkit.models.dying import _table_key, _tables, table_key

    grid = {"dc": range(14, 54), "save_bonus": range(25)}
    models = [Dying(dc=dc, save_bonus=sb) for dc in grid["dc"] for sb in grid["save_bonus"]]
    best_sweep = best_sim = float("inf")
    builds = 0
    for r in range(rounds):
        # a fresh process: every table and exact answer is built by the sweep
        _tables.cache_clear()
        _table_key.cache_clear()
        clear_cache()
        t0 = time.perf_counter()
        sweep("dying", grid, n, r)
        best_sweep = min(best_sweep, time.perf_counter() - t0)
        builds = _tables.cache_info().misses
        t0 = time.perf_counter()
        for i, m in enumerate(models):  # tables warm: simulation alone
            simulate(m, n, rng=i)
        best_sim = min(best_sim, time.perf_counter() - t0)
    keys = {table_key(m) for m in models}
    _tables.cache_clear()
    t0 = time.perf_counter()
    for key in keys:
        _tables(key)
    return best_sweep, best_sim, builds, time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=1e7)
    ap.add_argument("--memory-n", type=float, default=1e8)
    ap.add_argument("--loop-n", type=float, default=2e5)
    ap.add_argument(
        "--sweep-n", type=float, default=1e5, help="tracks per sweep point (default 1e5)"
    )
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept (default 3)")
    args, _ = ap.parse_known_args(argv)
    n, n_mem, n_loop = int(args.n), int(args.memory_n), int(args.loop_n)
    model = Dying()
    simulate(model, 10**5, rng=0)  # warm tables and imports
    rng = np.random.default_rng(0)
    t_sim = t_loop = t_raw = float("inf")
    for r in range(args.rounds):  # interleaved: a busy machine slows all three alike
        t0 = time.perf_counter()
        simulate(model, n, rng=r + 1)
        t_sim = min(t_sim, time.perf_counter() - t0)
        t0 = time.perf_counter()
        plain_loop(model, n_loop, r + 1)
        t_loop = min(t_loop, time.perf_counter() - t0)
        t0 = time.perf_counter()
        rng.integers(1, 21, size=10**7, dtype=np.uint16)
        t_raw = min(t_raw, time.perf_counter() - t0)
    sim_rate, loop_rate, raw_rate = n / t_sim, n_loop / t_loop, 10**7 / t_raw
    exact = solve(model)
    active = 1.0 - exact.cdf().sum(axis=0)  # P(still dying after step t)
    mean_rolls = float(active[:-1].sum())  # one check per round started while dying

    tracemalloc.start()
    t0 = time.perf_counter()
    simulate(model, n_mem, rng=2)
    t_mem = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # the share is a small difference of two ~1 s figures: at least 5 rounds of each
    sweep_rounds = max(5, args.rounds)
    t_sweep, t_alone, builds, t_builds = sweep_outside(int(args.sweep_n), sweep_rounds)
    outside = max(0.0, 1.0 - t_alone / t_sweep)

    def row(label, value, fmt, target, ok):
        print(f"{label:<44} {value:{fmt}}  {target:<12} {'ok' if ok else 'MISSED'}")

    print(
        f"dying benchmark, best of {args.rounds} interleaved rounds "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    print(f"simulate (dying defaults), n={n:.0e}         : {sim_rate / 1e6:8.1f} M tracks/s")
    print(f"plain per-track Python loop, n={n_loop:.0e}      : {loop_rate / 1e6:8.2f} M tracks/s")
    print(f"raw d20 draws (uint16)                       : {raw_rate / 1e6:8.1f} M draws/s")
    print(f"mean rolls per track                         : {mean_rolls:8.3f}")
    row(
        "speed-up over the loop",
        sim_rate / loop_rate,
        "8.1f",
        ">= 100",
        sim_rate / loop_rate >= 100,
    )
    rr = sim_rate * mean_rolls / raw_rate
    row("rolls rate / raw d20 rate", rr, "8.3f", ">= 0.5", rr >= 0.5)
    row(
        f"peak traced memory, n={n_mem:.0e} (MB, {t_mem:.1f} s)",
        peak / 2**20,
        "8.1f",
        "<= 64",
        peak <= 64 * 2**20,
    )
    print(
        f"sweep 1,000 points x {args.sweep_n:.0e} (best of {sweep_rounds}): {t_sweep:.2f} s; "
        f"simulate() alone {t_alone:.2f} s; {builds} table builds ({t_builds:.3f} s); "
        "the rest is the sweep's own work (exact column, "
        "parameter checks, table)"
    )
    row("sweep: share of time building dying tables", t_builds / t_sweep, "8.1%", "(was 67%)", True)
    row("sweep: share of time outside simulation", outside, "8.1%", "<= 20%", outside <= 0.20)


if __name__ == "__main__":
    main()
