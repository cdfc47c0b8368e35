"""CLI sweep with 2 workers vs 1 (issue 13: on 2 cores, 2 workers must not be slower).

Times ``simkit sweep dying --grid dc=14..45 --grid hit_chance=0.1,0.3 -n 2e5`` end to
end as a designer runs it (worker start-up included), with ``--workers 1`` and
``--workers 2`` interleaved, best of several rounds, and checks both CSVs are identical.

    python bench/bench_cli_sweep.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

SIMKIT = [sys.executable, "-m", "simkit"]
ARGS = [
    "sweep",
    "dying",
    "--grid",
    "dc=14..45",
    "--grid",
    "hit_chance=0.1,0.3",
    "-n",
    "2e5",
    "--seed",
    "5",
]


def run(workers: int, out: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [*SIMKIT, *ARGS, "--workers", str(workers), "-o", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one, two = Path(tmp, "w1.csv"), Path(tmp, "w2.csv")
        best = {1: float("inf"), 2: float("inf")}
        for _ in range(args.rounds):
            for w, out in ((1, one), (2, two)):
                best[w] = min(best[w], run(w, out))
        same = filecmp.cmp(one, two, shallow=False)
    ratio = best[2] / best[1]
    load = os.getloadavg()[0]
    print(
        f"# CLI sweep, 64 points x 2e5 tracks, best of {args.rounds} interleaved rounds, "
        f"{os.cpu_count()} cores, load {load:.1f}, {date.today()}"
    )
    print(f"--workers 1                 {best[1]:6.2f} s")
    print(f"--workers 2                 {best[2]:6.2f} s")
    print(
        f"2 workers / 1 (time ratio)  {ratio:6.2f}   target <= 1.00 (not slower)  "
        f"{'ok' if ratio <= 1.0 else 'MISSED'}"
    )
    print(f"identical CSVs              {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
