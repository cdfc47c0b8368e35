"""Start-up time of the command line against importing numpy and pandas (issue 13). Not a test.

Each command is run as a fresh process, interleaved with the reference
``python -c "import numpy, pandas"`` round by round (a busy machine slows both alike), and
the best of ``--rounds`` rounds is kept for each. Printed: seconds, the ratio to the
reference, and the target beside it:

  - ``simkit --help``        <= 1.3x
  - ``simkit exact dying``   <= 1.6x

``python -X importtime -m simkit --help`` shows where the rest goes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

REFERENCE = [sys.executable, "-c", "import numpy, pandas"]
#: label -> (argv after ``python -m simkit``, target ratio)
CASES = {
    "simkit --help": (["--help"], 1.3),
    "simkit exact dying": (["exact", "dying"], 1.6),
}


def _run(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7, help="rounds; the best is kept (default 7)")
    args, _ = ap.parse_known_args(argv)
    for cmd in [REFERENCE] + [[sys.executable, "-m", "simkit", *a] for a, _ in CASES.values()]:
        _run(cmd)  # warm the file cache and the bytecode
    best_ref = float("inf")
    best = {label: float("inf") for label in CASES}
    for _ in range(args.rounds):
        for label, (cmd, _) in CASES.items():
            best_ref = min(best_ref, _run(REFERENCE))
            best[label] = min(best[label], _run([sys.executable, "-m", "simkit", *cmd]))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"start-up, best of {args.rounds} interleaved rounds (load average {load:.1f})")
    print(f"{'command':<28} {'seconds':>8} {'ratio':>7}  target")
    print(f"{'import numpy, pandas':<28} {best_ref:8.3f} {1.0:7.2f}  (reference)")
    for label, (_, target) in CASES.items():
        ratio = best[label] / best_ref
        print(
            f"{label:<28} {best[label]:8.3f} {ratio:7.2f}  <= {target:g}  "
            f"{'ok' if ratio <= target else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
