"""Benchmark of the dying model (issue: foundation). Not a test: run `make bench`.

Measures, in one run:
  (a) simulate() on the default dying model at n = 1e7 (tracks/s, one process);
  (b) a plain per-track Python loop of the same rule (tracks/s);
  (c) the raw rate of d20 draws, rng.integers(1, 21, size=10**7, dtype=np.uint16);
and prints the ratios, tracks/s x mean rolls per track / raw d20 rate, and the peak
traced memory of simulate() at n = 1e8.

Targets (issue 2): >= 100x the plain loop; rolls-rate ratio >= 0.5; peak <= 64 MB.
"""

from __future__ import annotations

import argparse
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=1e7)
    ap.add_argument("--memory-n", type=float, default=1e8)
    ap.add_argument("--loop-n", type=float, default=2e5)
    args = ap.parse_args(argv)
    n, n_mem, n_loop = int(args.n), int(args.memory_n), int(args.loop_n)
    model = Dying()
    simulate(model, 10**5, rng=0)  # warm tables and imports

    t_sim = best_of(lambda: simulate(model, n, rng=1))
    sim_rate = n / t_sim
    t_loop = best_of(lambda: plain_loop(model, n_loop, 1))  # best of 3, like simulate
    loop_rate = n_loop / t_loop
    rng = np.random.default_rng(0)
    t_raw = best_of(lambda: rng.integers(1, 21, size=10**7, dtype=np.uint16), repeat=5)
    raw_rate = 10**7 / t_raw
    exact = solve(model)
    active = 1.0 - exact.cdf().sum(axis=0)  # P(still dying after step t)
    mean_rolls = float(active[:-1].sum())  # one check per round started while dying

    tracemalloc.start()
    t0 = time.perf_counter()
    simulate(model, n_mem, rng=2)
    t_mem = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(f"simulate (dying defaults)   : {sim_rate / 1e6:8.1f} M tracks/s at n={n:.0e}")
    print(f"plain per-track Python loop : {loop_rate / 1e6:8.2f} M tracks/s at n={n_loop:.0e}")
    print(f"raw d20 draws (uint16)      : {raw_rate / 1e6:8.1f} M draws/s")
    print(f"mean rolls per track        : {mean_rolls:8.3f}")
    print(f"speed-up over the loop      : {sim_rate / loop_rate:8.1f} x   (target >= 100)")
    print(f"rolls rate / raw d20 rate   : {sim_rate * mean_rolls / raw_rate:8.3f}     (target >= 0.5)")
    print(f"peak traced memory, n={n_mem:.0e}: {peak / 2**20:6.1f} MB  (target <= 64), {t_mem:.1f} s")


if __name__ == "__main__":
    main()
