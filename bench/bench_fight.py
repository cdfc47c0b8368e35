"""The compiled fight loop's rate (issue 28), against the party kernel it replaced.

The vectorised party kernel of 0.3 was retired: its rates are the recorded ones
(:data:`KERNEL_RECORDED`, fights a CPU second, one thread, from
docs/explanation/performance.md: 2026-12-05 on this project's 2-core machine at load 3-7),
so the loop/kernel ratio printed is against those figures (read it with the load in mind).
Medians of interleaved rounds, CPU time (``time.process_time``), one thread unless
``--threads``. The yardstick is the raw-word rate measured in the same run: numpy's
``random_raw`` 64-bit words a second, times 4 (16-bit words), over 124.5 (the 16-bit words
the kernel drew for a default moderate fight): encounters a second if drawing were all a
fight cost.

    python bench/bench_fight.py                 # the three cases, one thread
    python bench/bench_fight.py --threads 2     # also the loop on 2 threads vs 1 (wall time)

It also times a day of four moderate fights with short rests against one moderate fight,
both on the loop (target: at most 4.5x), and states the bytes a block keeps a track.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numba
import numpy as np

import simkit
from simkit.models.party import Party

CASES = {
    "moderate": dict(level=5),
    "severe boss": dict(level=5, threat="severe"),
    "pack of 12": dict(level=5, threat="severe", monsters=",".join(["1"] * 12)),
}
#: 16-bit words the kernel drew for a default moderate fight (issue 28's measurement).
WORDS_PER_FIGHT = 124.5
#: The retired kernel's fights a CPU second, one thread, per case: the recorded range
#: (docs/explanation/performance.md, 2026-12-05, load 3-7), low and high.
KERNEL_RECORDED = {
    "moderate": (302_000, 356_000),
    "severe boss": (190_000, 230_000),
    "pack of 12": (148_000, 175_000),
}


def yardstick(seconds: float = 0.5) -> float:
    """Encounters a second the raw words would allow (see the module's docstring)."""
    bg = np.random.PCG64(1)
    n, words = 2**20, 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        bg.random_raw(n)
        words += n
    return 4 * words / (time.process_time() - t0) / WORDS_PER_FIGHT


def rate(rules: Party, n: int, seed: int) -> float:
    """Fights a CPU second, one run of ``n``."""
    t0 = time.process_time()
    simkit.simulate(rules, n, seed)
    return n / (time.process_time() - t0)


def wall_rate(rules: Party, n: int, seed: int) -> float:
    t0 = time.perf_counter()
    simkit.simulate(rules, n, seed)
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200_000, help="fights a run (default 2e5)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (median)")
    ap.add_argument("--threads", type=int, default=0, help="also the loop on this many threads")
    args = ap.parse_args(argv)
    # the threads' pool started with every thread (started at one, numba's OpenMP layer
    # ran 2 threads no faster than one here), then one thread
    simkit.simulate(Party(**CASES["moderate"], engine="loop"), 4096, 1)
    numba.set_num_threads(1)
    for kw in CASES.values():  # compile and warm (not timed)
        simkit.simulate(Party(**kw, engine="loop"), 1000, 1)
    print(f"# {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}; n = {args.n:,}; one thread")
    print("# kernel/s: the retired kernel's recorded rates (docs/explanation/performance.md)")
    print(f"{'case':12} {'kernel/s':>17} {'loop/s':>10} {'loop/kernel':>13} {'% yardstick':>11}")
    for name, kw in CASES.items():
        l_rates, yards = [], []
        for r in range(args.rounds):
            yards.append(yardstick())
            l_rates.append(rate(Party(**kw, engine="loop"), args.n, r))
        lp, y = (statistics.median(x) for x in (l_rates, yards))
        lo, hi = KERNEL_RECORDED[name]
        print(
            f"{name:12} {lo:8,.0f}-{hi:,.0f} {lp:10,.0f} {lp / hi:5.2f}-{lp / lo:.2f}x "
            f"{100 * lp / y:10.1f}%"
        )
    print(f"# yardstick: {y:,.0f} encounters/s (raw words / {WORDS_PER_FIGHT})")
    from simkit.fight.block import bytes_per_track
    from simkit.models.day import Day

    plan = "moderate, short_rest, moderate, short_rest, moderate, short_rest, moderate"
    day, fight = Day(level=5, plan=plan, engine="loop"), Party(level=5, engine="loop")
    simkit.simulate(day, 1000, 1)
    ratios = [rate(fight, args.n, r) / rate(day, args.n, r) for r in range(args.rounds)]
    print(
        f"day of 4 moderate fights with short rests / one fight (loop, CPU): "
        f"{statistics.median(ratios):.2f}x (target <= 4.5x)"
    )
    print(
        f"# a block keeps {bytes_per_track(4, keep=False)} bytes a track (party of four; "
        f"{bytes_per_track(4)} with keep_state, and in a day's fights)"
    )
    if args.threads > 1:
        rules = Party(**CASES["moderate"], engine="loop")
        one, many = [], []
        for r in range(args.rounds):
            numba.set_num_threads(1)
            one.append(wall_rate(rules, 4 * args.n, r))
            numba.set_num_threads(args.threads)
            many.append(wall_rate(rules, 4 * args.n, r))
        print(
            f"loop, moderate, {args.threads} threads vs 1 (wall time, load "
            f"{os.getloadavg()[0]:.2f}): {statistics.median(m / o for m, o in zip(many, one)):.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
