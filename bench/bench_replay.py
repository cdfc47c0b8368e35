"""How long one replay takes (issue 32: a replay <= 0.5 s). Not a test.

Times :meth:`simkit.core.result.Result.replay` of one track, best of ``--rounds``: a party
fight (played again alone on the reference from its dice key: the run's ``n`` does not
matter) and a day on the loop, whose rests, road and falls draw from the track's stream
with its other tracks, so a replay re-runs that stream: up to
:data:`~simkit.core.streams.STREAM_SIZE` (65,536) days, the cost of a run of that many,
plus the track's fights on the reference. The day is timed in a run of 10,000 days (the
``simkit replay`` default ``-n``: a stream of 10,000) and of 100,000 (a track of the first,
full stream: about the time of a run of 65,536 days, over the target on a busy 2-core
machine).

    python bench/bench_replay.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import time

import simkit
from simkit.models.day import Day
from simkit.models.party import Party

PLAN = "moderate, short_rest, severe, long_rest, moderate"
DAY = Day(level=5, rules="pf2e-core", plan=PLAN, engine="loop")
#: (label, rules, the run's n, the track replayed: of the first stream)
CASES = [
    ("party level 5 severe", Party(level=5, threat="severe", engine="loop"), 100_000, 7),
    (f"day level 5 pf2e-core {PLAN!r}", DAY, 10_000, 1_000),
    (f"day level 5 pf2e-core {PLAN!r}", DAY, 100_000, 1_000),
]
TARGET = 0.5  # seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds; the best is kept")
    args = ap.parse_args(argv)
    worst = 0.0
    for label, rules, n, track in CASES:
        res = simkit.simulate(rules, n, 1, keep_outcomes=True)
        res.replay(track)  # compile and warm, untimed
        times = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            res.replay(track)
            times.append(time.perf_counter() - t0)
        worst = max(worst, min(times))
        print(f"{label:60} n={n:,} track {track}: {min(times):.3f} s (target <= {TARGET} s)")
    print("ok" if worst <= TARGET else f"over the target: {worst:.3f} s")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
