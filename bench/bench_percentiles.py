"""What ``--percentiles`` adds to a run (issue 32: <= 5%). Not a test.

``simkit run party|day --percentiles`` keeps each track's end state (``keep_state=True``:
each PC's HP and resources left) and reads every mark's histogram; this times, in one
process, a plain run against the same run with ``keep_state=True`` and
``Result.percentiles()``, interleaved round by round (a busy machine slows both alike),
the best of ``--rounds`` kept for each, and prints the overhead.

    python bench/bench_percentiles.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import sys
import time

import simkit
from simkit.models import make_model

#: label -> (model, n)
CASES = {
    "party level 5 severe": (lambda: make_model("party", level=5, threat="severe"), 100_000),
    "day pf2e-core moderate, short_rest, moderate": (
        lambda: make_model(
            "day", level=5, rules="pf2e-core", plan="moderate, short_rest, moderate"
        ),
        20_000,
    ),
}
TARGET = 0.05


def _plain(model, n):
    t0 = time.perf_counter()
    simkit.simulate(model, n, rng=1)
    return time.perf_counter() - t0


def _with(model, n):
    t0 = time.perf_counter()
    simkit.simulate(model, n, rng=1, keep_state=True).percentiles()
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7, help="rounds; the best is kept")
    args = ap.parse_args(argv)
    worst = 0.0
    for label, (make, n) in CASES.items():
        model = make()
        _plain(model, n // 10)  # compile and warm, untimed
        _with(model, n // 10)
        plain, extra = [], []
        for _ in range(args.rounds):
            plain.append(_plain(model, n))
            extra.append(_with(model, n))
        over = min(extra) / min(plain) - 1
        worst = max(worst, over)
        print(
            f"{label:46} n={n:,}: plain {min(plain):.3f} s, with percentiles "
            f"{min(extra):.3f} s: {100 * over:+.1f}% (target <= {100 * TARGET:.0f}%)"
        )
    print("ok" if worst <= TARGET else f"over the target: {100 * worst:+.1f}%")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
