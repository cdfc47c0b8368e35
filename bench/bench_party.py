"""Encounters per second of the party model, and its per-track cost against ``encounter``.
Not a test.

The case: a level-5 party of four (fighter, rogue, cleric, wizard) against a moderate
lineup (``boss``, ``boss_and_minions`` and ``pack``), seed 000. Each is simulated in the
same process as the default ``encounter`` model, interleaved round by round, best of
``--rounds`` kept, timed by the process's **CPU time** (``time.process_time``: on a
shared machine, the time spent waiting for a core is left out; read the ratios, each
measured within one run). Printed: encounters/s on one core (target for the ``boss``
lineup: >= 300,000, set for 0.3's vectorised kernel) and the ratio

    (CPU seconds per party encounter) / (CPU seconds per track of encounter defaults)

(target <= 10 for every lineup). Then the cost of a fight started from a given state
(``start=``, and with ``keep_state``) over a fresh start (target: at most +5%), the cost
of a block mixing two fights (``Party.with_lineups``: tracks of the boss and of the pack
lineup alternating in one block) over the two fights run apart, two worker processes
against one (``workers=2``, wall time, target >= 1.7x; the load average is printed
beside it: with other work on a 2-core machine it cannot be met), the peak traced memory
at one block and at four blocks of tracks (bounded by the block, not by n), and the time
of the threat x level x rules report at 20,000 encounters a point with 2 local workers
(target: two minutes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import tracemalloc

from simkit import simulate
from simkit.models.encounter import Encounter
from simkit.models.party import Party

CASES = {
    "L5 party of four vs moderate boss": Party(level=5, threat="moderate", lineup="boss"),
    "L5 party of four vs moderate boss_and_minions": Party(
        level=5, threat="moderate", lineup="boss_and_minions"
    ),
    "L5 party of four vs moderate pack": Party(level=5, threat="moderate", lineup="pack"),
}
#: encounters/s on one core for the ``boss`` lineup (0.3's target, set for its kernel)
RATE_TARGET = 300_000
RATE_CASE = "L5 party of four vs moderate boss"
RATIO_TARGET = 10.0
START_TARGET = 0.05
WORKERS_TARGET = 1.7


def _cpu(fn) -> float:
    """CPU seconds of this process spent in ``fn()``."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _per_track(model, n: int, seed: int) -> float:
    return _cpu(lambda: simulate(model, n, rng=seed)) / n


def _load() -> str:
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=5e5, help="encounters per timing (default 5e5)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory row")
    ap.add_argument("--no-report", action="store_true", help="skip the report timing")
    ap.add_argument("--no-start", action="store_true", help="skip the start-state row")
    ap.add_argument("--no-lineups", action="store_true", help="skip the mixed-lineups row")
    ap.add_argument("--no-workers", action="store_true", help="skip the two-workers row")
    args, _ = ap.parse_known_args(argv)
    n = int(args.n)
    ref = Encounter()
    for model in (ref, *CASES.values()):
        simulate(model, 10_000, rng=0)  # warm tables, caches and imports
    best_ref = float("inf")
    best = {label: float("inf") for label in CASES}
    ratios: dict[str, list[float]] = {label: [] for label in CASES}
    for r in range(args.rounds):
        for label, model in CASES.items():  # (back to back: a paired ratio each round)
            t_ref = _per_track(ref, n, r)
            t = _per_track(model, n, r)
            best_ref, best[label] = min(best_ref, t_ref), min(best[label], t)
            ratios[label].append(t / t_ref)
    print(
        f"one core (pid {os.getpid()}), CPU time, n = {n:,} per timing, {args.rounds} "
        f"rounds: the best rate, the median of the paired ratios; {_load()}"
    )
    print(f"encounter defaults: {1 / best_ref:,.0f} tracks/s")
    for label, t in best.items():
        rate, ratio = 1 / t, statistics.median(ratios[label])
        target = ""
        if label == RATE_CASE:
            target = f" (target >= {RATE_TARGET:,}: {'met' if rate >= RATE_TARGET else 'NOT met'})"
        print(
            f"{label}: {rate:,.0f} encounters/s{target}; "
            f"x{ratio:.2f} encounter's per-track cost "
            f"(target <= {RATIO_TARGET:g}: {'met' if ratio <= RATIO_TARGET else 'NOT met'})"
        )
    if not args.no_start:
        _start(n, args.rounds)
    if not args.no_lineups:
        _lineups(n, args.rounds)
    if not args.no_workers:
        _workers(4 * n, args.rounds)
    if not args.no_memory:
        _memory()
    if not args.no_report:
        _report()
    return 0


def _start(n: int, rounds: int) -> None:
    """A fight started from a state (every PC at full HP, so the same fight) against the
    fresh start, interleaved (CPU time); and the fight that also keeps its end state. The
    start is made once, outside the timing (a day hands it on)."""
    model = CASES[RATE_CASE]
    start = model.fresh_start(n)
    labels = ("fresh", "start=", "start= + keep_state")
    extras: dict[str, list[float]] = {label: [] for label in labels[1:]}
    for r in range(rounds):
        t: dict[str, float] = {}
        for label in labels if r % 2 else labels[::-1]:  # (the order alternates)
            if label == "fresh":
                t[label] = _cpu(lambda: simulate(model, n, rng=r))
            else:
                keep = label != "start="
                t[label] = _cpu(lambda: simulate(model, n, rng=r, start=start, keep_state=keep))
        for label in extras:
            extras[label].append(t[label] / t["fresh"] - 1)
    for label, got in extras.items():
        extra = statistics.median(got)
        verdict = "met" if extra <= START_TARGET else "NOT met"
        print(
            f"{label}: {extra:+.1%} CPU time over a fresh start (median of {rounds} paired "
            f"rounds, {min(got):+.1%} .. {max(got):+.1%}; target <= +{START_TARGET:.0%}: {verdict})"
        )


def _lineups(n: int, rounds: int) -> None:
    """A block whose tracks alternate between two fights (boss, pack) against the two
    fights run apart (n / 2 tracks each), interleaved; best of ``rounds``."""
    import dataclasses

    import numpy as np

    boss = CASES[RATE_CASE]
    pack = CASES["L5 party of four vs moderate pack"]
    both = boss.with_lineups(({}, {"lineup": "pack"}))
    start = dataclasses.replace(both.fresh_start(n), fight=np.arange(n) % 2)
    simulate(both, 10_000, rng=0, start=start.rows(0, 10_000))  # warm its tables
    best = {"apart": float("inf"), "mixed": float("inf")}
    for r in range(rounds):
        t = _cpu(lambda: simulate(boss, n // 2, rng=r))
        t += _cpu(lambda: simulate(pack, n - n // 2, rng=r))
        best["apart"] = min(best["apart"], t)
        best["mixed"] = min(best["mixed"], _cpu(lambda: simulate(both, n, rng=r, start=start)))
    print(
        f"two lineups in one block (boss | pack, alternating): {n / best['mixed']:,.0f} "
        f"encounters/s; the two apart {n / best['apart']:,.0f}/s "
        f"(mixed x{best['mixed'] / best['apart']:.2f} the time; no target)"
    )


def _proc_cpu(pids) -> float:
    """CPU seconds (user + system) used so far by processes ``pids`` (Linux /proc; 0 else)."""
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0
    return total


def _workers(n: int, rounds: int) -> None:
    """The boss lineup with ``workers=2`` against one process (wall time: CPU time cannot
    show a speed-up), interleaved, best of ``rounds``; the pool is started before. Also
    the CPU time the two workers and this process spent (Linux), against one process's:
    on a machine whose cores are busy with other work the wall-time speed-up says little,
    the CPU split says whether the work itself is shared out."""
    from simkit.core.pools import shared_pool

    model = CASES[RATE_CASE]
    from simkit.core.streams import STREAM_SIZE

    simulate(model, 4 * STREAM_SIZE, rng=0, workers=2, block_size=STREAM_SIZE)  # both start
    pids = list(getattr(shared_pool(2), "_processes", {}))
    best = {1: float("inf"), 2: float("inf")}
    cpu = {1: float("inf"), 2: float("inf")}
    for r in range(rounds):
        for w in best:
            c0, t0, p0 = _proc_cpu(pids), time.perf_counter(), time.process_time()
            simulate(model, n, rng=r, workers=w)
            best[w] = min(best[w], time.perf_counter() - t0)
            cpu[w] = min(cpu[w], _proc_cpu(pids) - c0 + time.process_time() - p0)
    speed = best[1] / best[2]
    print(
        f"two workers: x{speed:.2f} one process's speed (wall, n = {n:,}; "
        f"target >= {WORKERS_TARGET:g}: {'met' if speed >= WORKERS_TARGET else 'NOT met'}; "
        f"{_load()}); CPU time, all processes: x{cpu[2] / cpu[1]:.2f} one process's"
    )


def _memory() -> None:
    """Peak traced memory of the default party at n = one block and at four blocks."""
    block = 2**18
    model = CASES[RATE_CASE]
    peaks = []
    for n in (block, 4 * block):
        tracemalloc.start()
        simulate(model, n, rng=1, block_size=block)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    ratio = peaks[1] / peaks[0]
    print(
        f"memory: peak {peaks[0] / 2**20:.0f} MB at n = {block:,} (one block), "
        f"{peaks[1] / 2**20:.0f} MB at n = {4 * block:,} (four): x{ratio:.2f} "
        f"(target: bounded by the block, not by n: {'met' if ratio < 1.25 else 'NOT met'})"
    )


def _report() -> None:
    """The threat x level x rules report at 20,000 encounters a point, 2 local workers."""
    from simkit.analysis.party_report import threat_by_level

    t0 = time.perf_counter()
    df = threat_by_level(n=20_000, rng=0, workers=2)
    dt = time.perf_counter() - t0
    points = len(df[df["outcome"] == "any_death"])
    print(
        f"report party_threat_by_level: {points} points x 20,000 encounters, 2 workers: "
        f"{dt:.1f} s (target <= 120 s: {'met' if dt <= 120 else 'NOT met'})"
    )


if __name__ == "__main__":
    raise SystemExit(main())
