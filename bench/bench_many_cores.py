"""Many cores (issue 13): ``workers=16`` against one process, for ``dying`` and ``encounter``.

Targets: dying at n = 3.2e9 >= 12x, encounter >= 10x, on a 16-core machine. On a
machine with fewer cores the rows say so and measure nothing (CI and the 2-core
developer machines never need 16 cores). Numbers are identical whatever the worker
count; the script checks it on the encounter run.

    python bench/bench_many_cores.py [--workers 16] [--n-dying 3.2e9] [--n-encounter 4e7]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--n-dying", type=float, default=3.2e9)
    ap.add_argument("--n-encounter", type=float, default=4e7)
    args = ap.parse_args()
    cores = os.cpu_count() or 1
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
