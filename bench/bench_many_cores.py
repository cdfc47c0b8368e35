"""Many cores: ``workers=16`` against one process, for ``dying`` and ``encounter`` (issue
13), and the compiled fight loop's threads against one thread for ``party`` and ``day``
(issue 28).

Targets: dying at n = 3.2e9 >= 12x, encounter >= 10x, the loop's party and day >= 12x, on a
16-core machine. Cores are counted by CPU affinity (``os.sched_getaffinity``: what this
process may use, not what the machine has). On fewer cores the rows say so and measure
nothing (CI and the 2-core developer machines never need 16 cores), except ``--threads N``
with N at most the cores here. Numbers are identical whatever the worker or thread count;
the script checks it.

    python bench/bench_many_cores.py [--workers 16] [--n-dying 3.2e9] [--n-encounter 4e7]
    python bench/bench_many_cores.py --threads 2 --n-party 2e6    # the loop on 2 threads
"""

from __future__ import annotations

import argparse
import os
import time
from datetime import date

from simkit import Dying, simulate
from simkit.models.encounter import Encounter


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def cores_here() -> int:
    """The cores this process may run on (CPU affinity), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1


def loop_threads(threads: int, n_party: int, n_day: int) -> None:
    """The compiled fight loop on ``threads`` threads against one, party and day (wall)."""
    import numba

    from simkit.models.day import Day
    from simkit.models.party import Party

    cores = cores_here()
    rows = (
        ("party loop", Party(level=5, engine="loop"), n_party),
        ("day loop", Day(level=5, plan="moderate, short_rest, moderate", engine="loop"), n_day),
    )
    target = 12.0 if threads >= 16 else 0.85 * threads
    if cores < threads:
        for name, _, n in rows:
            print(f"{name:<10} n={n:.1e}  not measured: {cores} cores here, needs {threads}")
        return
    load = os.getloadavg()[0]
    for name, model, n in rows:
        numba.set_num_threads(1)
        simulate(model, 10_000, rng=1)  # compiled and warm
        t1, r1 = timed(lambda m=model, n=n: simulate(m, n, rng=7))
        numba.set_num_threads(threads)
        tw, rw = timed(lambda m=model, n=n: simulate(m, n, rng=7))
        same = r1.counts == rw.counts
        speed = t1 / tw
        print(
            f"{name:<10} n={n:.1e}  1 thread {t1:7.2f} s  {threads} threads {tw:7.2f} s"
            f"  speed-up {speed:5.2f}x  target >= {target:.1f}x  "
            f"{'ok' if speed >= target else 'MISSED'}  identical counts: {'yes' if same else 'NO'}"
            f"  (load before: {load:.2f})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--n-dying", type=float, default=3.2e9)
    ap.add_argument("--n-encounter", type=float, default=4e7)
    ap.add_argument("--threads", type=int, default=0, help="the loop's threads (default: workers)")
    ap.add_argument("--n-party", type=float, default=2e7)
    ap.add_argument("--n-day", type=float, default=4e6)
    args = ap.parse_args()
    loop_threads(args.threads or args.workers, int(args.n_party), int(args.n_day))
    if args.threads:
        return
    cores = cores_here()
    print(f"# workers={args.workers} vs one process, {cores} cores, {date.today()}")
    rows = (
        ("dying", Dying(), int(args.n_dying), 12.0),
        ("encounter", Encounter(), int(args.n_encounter), 10.0),
    )
    if cores < args.workers:
        for name, _, n, target in rows:
            print(
                f"{name:<10} n={n:.1e}  not measured: {cores} cores here, needs {args.workers}"
                f"  (target >= {target:.0f}x)"
            )
        return
    for name, model, n, target in rows:
        simulate(model, 10_000, rng=1, workers=args.workers)  # pays the pool start once
        t1, r1 = timed(lambda m=model, n=n: simulate(m, n, rng=7))
        tw, rw = timed(lambda m=model, n=n: simulate(m, n, rng=7, workers=args.workers))
        same = r1.counts == rw.counts
        speed = t1 / tw
        print(
            f"{name:<10} n={n:.1e}  1 process {t1:7.2f} s  {args.workers} workers {tw:7.2f} s"
            f"  speed-up {speed:5.1f}x  target >= {target:.0f}x  "
            f"{'ok' if speed >= target else 'MISSED'}  identical counts: {'yes' if same else 'NO'}"
        )


if __name__ == "__main__":
    main()
