"""Loading the bundled bestiary, and a named lineup against the same numbers written out.

Issue 21's targets: the bundled bestiary loads in at most 50 ms; a lineup of named
creatures costs the same as the same numbers given explicitly. Run from the repository
root::

    .venv/bin/python bench/bench_foundry.py [--repeat 20] [-n 100000]

Prints the load time (best and median of ``--repeat`` cold loads: every cache of
:mod:`simkit.rules.pf2e.foundry` cleared first; the JSON read from the package each time) and
the simulation time of ``simkit.simulate`` for ``monsters=boar,boar,crocodile`` against
the same numbers given explicitly, interleaved, CPU time of this process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _cold_load() -> float:
    from simkit.rules.pf2e import foundry

    foundry.bestiary.cache_clear()
    foundry._load_file.cache_clear()
    t = time.perf_counter()
    foundry.bestiary()
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("-n", type=int, default=100_000)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    import simkit  # noqa: F401
    from simkit.rules.pf2e import foundry

    print(f"import simkit: {time.perf_counter() - t0:.3f} s (not counted)")
    first = _cold_load()
    times = [_cold_load() for _ in range(args.repeat)]
    n = len(foundry.bestiary())
    print(
        f"bestiary ({n} creatures): first {first * 1e3:.1f} ms, best {min(times) * 1e3:.1f} ms, "
        f"median {statistics.median(times) * 1e3:.1f} ms (target <= 50 ms)"
    )

    from simkit.core.engine import simulate
    from simkit.models import make_model
    from simkit.rules.pf2e import budget

    named = "boar,boar,crocodile"
    explicit = ",".join(
        f"{lvl}(" + ";".join(f"{k}={v}" for k, v in vals.items() if k != "name") + ")"
        for lvl, vals in budget.lineup_members(named)
    )
    res = {}
    for _ in range(3):
        for label, monsters in (("named", named), ("explicit", explicit)):
            model = make_model("party", monsters=monsters, level=1)
            t = time.process_time()
            simulate(model, args.n, rng=1)
            res.setdefault(label, []).append(time.process_time() - t)
    a, b = min(res["named"]), min(res["explicit"])
    print(
        f"simulate n={args.n}: named {a:.3f} s, explicit {b:.3f} s (CPU, best of 3), "
        f"ratio {a / b:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
