"""The fight engine, chosen by measurement (issue 18): the compiled per-track prototype
(``bench/proto_fight_numba.py``) against the vectorised party kernel. Not a test.

The cases are those of ``bench/bench_party.py``: the default level-5 party of four
(fighter, rogue, cleric, wizard) against the moderate ``boss``, ``boss_and_minions`` and
``pack`` lineups, seed 000, every default option. Sections (all by default):

``check``    outcome shares and P(any death) of the prototype against
             ``simkit.simulate(Party(...))`` at ``--n-check`` (default 2e5): z-scores of the
             difference of two independent estimates (target: |z| < 5); and the same
             numbers with 1 and 2 threads and two block sizes.
``speed``    encounters/s on one core, the prototype (``numba.set_num_threads(1)``) and the
             kernel interleaved case by case, best of ``--rounds``; the ratio (decision rule:
             adopt the compiled loop if it is at least 2.5x on one core); then the prototype
             with 2 threads against 1.
``env``      the same one-core comparison in a child process started with
             ``NUMBA_NUM_THREADS=1``.
``compile``  first compilation (an empty ``NUMBA_CACHE_DIR``) and a start from the cache,
             each in a fresh process; then a fresh ``python -c`` that imports and runs n =
             1e5 with the cache warm, against the same for the kernel.

The load average is printed beside each section: the machine is shared, so read the
ratios, each measured within one run.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

LINEUPS = ("boss", "boss_and_minions", "pack")
ADOPT_RATIO = 2.5


def _load() -> str:
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def _cases():
    from simkit.models.party import Party

    return {lu: Party(level=5, threat="moderate", lineup=lu) for lu in LINEUPS}


def _z(c1: int, n1: int, c2: int, n2: int) -> float:
    p1, p2 = c1 / n1, c2 / n2
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return 0.0 if se == 0 else (p1 - p2) / se


def _mark_z(a: dict, b: dict, name: str) -> tuple[float, float, float]:
    """(mean of mark ``name`` in a, in b, z of the difference), from the marks' histograms."""
    out = []
    for marks in (a, b):
        counts = marks[name].sum(axis=0)
        v = range(len(counts))
        n = counts.sum()
        mean = sum(c * x for c, x in zip(counts, v)) / n
        var = sum(c * (x - mean) ** 2 for c, x in zip(counts, v)) / n
        out.append((mean, var, n))
    (m1, v1, n1), (m2, v2, n2) = out
    se = math.sqrt(v1 / n1 + v2 / n2)
    return m1, m2, 0.0 if se == 0 else (m1 - m2) / se


def check(n: int, seed: int) -> bool:
    import numba
    import numpy as np
    import proto_fight_numba as pf

    from simkit import simulate
    from simkit.models.party import Party

    print(f"== check: prototype vs simkit.simulate, n = {n:,} each, seed {seed} ({_load()})")
    print("  (share prototype/kernel and z; |z| < 5 wanted; then the marks' means, for scale)")
    ok = True
    cases = [(f"moderate {lu}", m) for lu, m in _cases().items()]
    # harder fights with the same options, where deaths, hero points and care are common
    cases += [(f"extreme {lu}", Party(level=5, threat="extreme", lineup=lu)) for lu in LINEUPS]
    for label, model in cases:
        proto = pf.run(model, n, seed)
        kern = simulate(model, n, rng=seed)
        pc, kc = proto.counts, kern.counts
        rows = [(o, pc[o], kc[o]) for o in (*pf.OUTCOMES, "unresolved")]
        rows.append(("any_death", proto.any_death(), kern.event_count("any_death")))
        parts = []
        for name, a, b in rows:
            if name in ("retreat", "unresolved") and a == b == 0:
                continue
            z = _z(a, n, b, n)
            ok &= abs(z) < 5
            parts.append(f"{name} {a / n:.4f}/{b / n:.4f} z={z:+.2f}")
        print(f"  {label}: " + "; ".join(parts))
        parts = []
        for name in ("rounds", "knockouts", "hero_spent", "heals_spent"):
            m1, m2, z = _mark_z(proto.marks, kern.marks, name)
            parts.append(f"{name} {m1:.3f}/{m2:.3f} z={z:+.2f}")
        print("      means: " + "; ".join(parts))
    # the same numbers for any thread count and block size
    model = _cases()["boss_and_minions"]
    n_det = 3 * 2**16 + 12_345
    runs = {}
    for threads in (1, 2):
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        for block in (2**16, 2**18):
            runs[("prange", threads, block)] = pf.run(model, n_det, seed, block_size=block)
            runs[("pool", threads, block)] = pf.run(
                model, n_det, seed, block_size=block, pool=threads
            )
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    first = next(iter(runs.values()))
    same = all(
        np.array_equal(r.hist, first.hist)
        and all(np.array_equal(r.marks[k], first.marks[k]) for k in first.marks)
        for r in runs.values()
    )
    ok &= same
    print(
        f"  prange and a thread pool x 1 and 2 threads x blocks 2**16 and 2**18, "
        f"n = {n_det:,} (boss_and_minions): "
        f"{'the same hist and marks' if same else 'NUMBERS DIFFER'}"
        f" (max threads here: {numba.config.NUMBA_NUM_THREADS})"
    )
    print(f"  check: {'passed' if ok else 'FAILED'} (every |z| < 5, numbers independent)")
    return ok


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _time2(fn) -> tuple[float, float]:
    """(wall s, CPU s of this process) of ``fn()``: the CPU time leaves out the time the
    process waited for a core (the machine is shared)."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def speed(n: int, rounds: int, two_threads: bool = True, label: str = "") -> None:
    import numba
    import proto_fight_numba as pf

    from simkit import simulate

    cases = _cases()
    tabs = {lu: pf.tables(m) for lu, m in cases.items()}
    numba.set_num_threads(1)
    for lu, m in cases.items():  # warm: compile / load, tables, caches
        pf.run(m, 10_000, 0, cf=tabs[lu])
        simulate(m, 10_000, rng=0)
    print(f"== speed{label}: one core, n = {n:,} per timing, best of {rounds} ({_load()})")
    inf = (math.inf, math.inf)
    best_p = {lu: inf for lu in cases}
    best_k = {lu: inf for lu in cases}
    for r in range(rounds):
        for lu, m in cases.items():
            p = _time2(lambda: pf.run(m, n, r, cf=tabs[lu]))
            k = _time2(lambda: simulate(m, n, rng=r))
            best_p[lu] = tuple(map(min, best_p[lu], p))
            best_k[lu] = tuple(map(min, best_k[lu], k))
    for lu in cases:
        (pw, pc), (kw, kc) = best_p[lu], best_k[lu]
        adopt = min(kw / pw, kc / pc) >= ADOPT_RATIO
        print(
            f"  {lu}: wall: prototype {n / pw:,.0f} encounters/s, kernel {n / kw:,.0f}/s: "
            f"x{kw / pw:.2f}; CPU: {n / pc:,.0f}/s vs {n / kc:,.0f}/s: x{kc / pc:.2f} "
            f"(adopt at >= x{ADOPT_RATIO}: {'yes' if adopt else 'no'})"
        )
    print(f"  ({_load()})")
    if not two_threads:
        return
    if numba.config.NUMBA_NUM_THREADS < 2:
        print("  2 threads: not available (NUMBA_NUM_THREADS < 2)")
        return
    print(f"== prototype, 2 threads vs 1, n = {n:,}, best of {rounds} ({_load()})")
    ways = ("prange", "pool")
    best = {(lu, w, t): math.inf for lu in cases for w in ways for t in (1, 2)}
    for r in range(rounds):
        for lu, m in cases.items():
            for w in ways:
                for t in (1, 2):
                    numba.set_num_threads(t)
                    pool = None if w == "prange" else t
                    best[lu, w, t] = min(
                        best[lu, w, t],
                        _time(lambda: pf.run(m, n, r, cf=tabs[lu], pool=pool)),
                    )
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for lu in cases:
        parts = []
        for w in ways:
            one, two = best[lu, w, 1], best[lu, w, 2]
            parts.append(
                f"{w}: 1 thread {n / one:,.0f}/s, 2 threads {n / two:,.0f}/s, x{one / two:.2f}"
            )
        print(f"  {lu}: " + "; ".join(parts) + " (target >= x1.7)")
    print(f"  ({_load()})")


def env_one_thread(n: int, rounds: int) -> None:
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--only", "speed", "--no-two", "-n", str(n)]
    cmd += ["--rounds", str(rounds), "--label", " (child process, NUMBA_NUM_THREADS=1)"]
    subprocess.run(cmd, env=env, check=True)


_COMPILE = (
    "import sys, time; t0 = time.perf_counter(); sys.path.insert(0, {here!r}); "
    "import numpy as np; from simkit.models.party import Party; import numba; "
    "t1 = time.perf_counter(); import proto_fight_numba as pf; t2 = time.perf_counter(); "
    "pf.run(Party(level=5), 1, 0); t3 = time.perf_counter(); "
    "print(f'{{t1 - t0:.2f}} {{t2 - t1:.2f}} {{t3 - t2:.2f}}')"
)
_FRESH_PROTO = (
    "import sys; sys.path.insert(0, {here!r}); import proto_fight_numba as pf; "
    "from simkit.models.party import Party; pf.run(Party(level=5), 100_000, 0)"
)
_FRESH_KERNEL = (
    "import simkit; from simkit.models.party import Party; "
    "simkit.simulate(Party(level=5), 100_000, rng=0)"
)


def _child(code: str, env: dict) -> tuple[float, str, float]:
    """(wall s, stdout, CPU s) of ``python -c code`` in a fresh process."""
    import resource

    def cpu() -> float:
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    c0, t0 = cpu(), time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    )
    return time.perf_counter() - t0, out.stdout.strip(), cpu() - c0


def compile_times(rounds: int) -> None:
    print(f"== compile: fresh processes, the boss lineup ({_load()})")
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1")
        for label in ("empty cache", "from the cache", "from the cache"):
            wall, out, cpu = _child(_COMPILE.format(here=HERE), env)
            imp, comp, first = out.split()
            print(
                f"  {label}: process {wall:.1f} s wall, {cpu:.1f} s CPU (simkit and numba "
                f"imports {imp} s, the module's helpers compiled or loaded {comp} s, "
                f"first run {first} s)"
            )
        print(f"  fresh `python -c`, n = 1e5, one thread, best of {rounds} ({_load()})")
        best_p = best_k = math.inf
        for _ in range(rounds):
            best_p = min(best_p, _child(_FRESH_PROTO.format(here=HERE), env)[0])
            best_k = min(best_k, _child(_FRESH_KERNEL, env)[0])
        print(
            f"  prototype (cache warm) {best_p:.2f} s, kernel {best_k:.2f} s: "
            f"x{best_p / best_k:.2f} of the kernel's wall time (target <= x1.5)"
        )
        base = min(_child("import simkit.models.party", env)[0] for _ in range(rounds))
        print(f"  (for scale: `python -c 'import simkit.models.party'` {base:.2f} s)")
    print(f"  ({_load()})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=5e5, help="encounters per timing (default 5e5)")
    ap.add_argument("--n-check", type=float, default=2e5, help="encounters per check (2e5)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the check (default 0)")
    ap.add_argument(
        "--only", choices=("check", "speed", "env", "compile"), action="append", help="sections"
    )
    ap.add_argument("--no-two", action="store_true", help="skip the 2-thread timing")
    ap.add_argument("--label", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        import numba  # noqa: F401
    except ImportError:  # an optional measurement: skipped, not failed (tasks.py bench)
        print("bench_fight_engine: skipped: numba is not installed (pip install numba)")
        return 0
    import simkit

    print(
        f"simkit from {os.path.dirname(simkit.__file__)}; numba {numba.__version__}; "
        f"pid {os.getpid()}"
    )
    sections = args.only or ["check", "speed", "env", "compile"]
    ok = True
    if "check" in sections:
        ok = check(int(args.n_check), args.seed)
    if "speed" in sections:
        speed(int(args.n), args.rounds, two_threads=not args.no_two, label=args.label)
    if "env" in sections:
        env_one_thread(int(args.n), args.rounds)
    if "compile" in sections:
        compile_times(args.rounds)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
