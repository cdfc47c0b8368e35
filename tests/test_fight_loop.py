"""The compiled fight loop (simkit.fight, issue 28) held to the vectorised party kernel it
replaced (in distribution, against the kernel's figures kept in tests/data/kernel_0.3.json:
they draw different dice), to the exact duels, to itself uncompiled, and to its own
reproducibility contract (numbers independent of the block size, the threads and the
other tracks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import simkit
from simkit.core.params import ParamError
from simkit.core.result import event_counts
from simkit.fight import block, tables
from simkit.models.party import Party

#: Generated configurations: every option the loop plays, over rule sets, levels, threats
#: and lineups (the slow test runs them all at n = 2e5; the quick one a few at 3e4).
CONFIGS = [
    dict(level=5, threat="severe"),
    dict(level=1, threat="moderate"),
    dict(level=3, threat="extreme", rules="pf2e-core"),
    dict(level=8, threat="severe", lineup="pack"),
    dict(level=12, threat="moderate", lineup="boss_and_minions", rules="pf2e-core"),
    dict(level=20, threat="severe"),
    dict(level=4, threat="severe", target_downed="always"),
    dict(level=4, threat="severe", target_downed="sometimes", downed_chance=0.4),
    dict(level=6, threat="extreme", target_downed="always", downed_pick="random"),
    dict(level=5, threat="severe", monster_target="weakest"),
    dict(level=5, threat="severe", monster_target="focus", rules="pf2e-core"),
    dict(level=7, threat="moderate", lineup="pack", pc_target="spread"),
    dict(level=5, threat="extreme", after_defeat="captured"),
    dict(level=5, threat="extreme", retreat_at=2),
    dict(level=2, threat="severe", hp=0, start_dying=2),
    dict(level=5, threat="moderate", hp=20),
    dict(level=5, threat="severe", trait="death"),
    dict(level=5, threat="severe", trait="nonlethal"),
    dict(level=5, threat="severe", hero_policy="immediately", hero_points=2),
    dict(level=5, threat="severe", hero_policy=3, rules="pf2e-core", hero_points=3),
    dict(level=5, threat="severe", hero_knockout="die", hero_policy="immediately"),
    dict(level=5, threat="severe", death_at=3),
    dict(level=5, threat="extreme", rules="pf2e-core", wounded_adds="every_hit"),
    dict(level=9, threat="severe", first_aid_natural=True, first_aid_dc=20),
    dict(level=5, threat="severe", map="agile", attacks=3),
    dict(level=5, threat="severe", map="none", attacks=1),
    dict(level=5, threat="severe", check_penalty=-2),
    dict(level=5, threat="severe", area_chance=0.6, area_uses=2),
    dict(level=5, threat="severe", area_uses=0),
    dict(level=10, threat="low", heal_below=0.8),
    dict(level=5, threat="severe", party="fighter,fighter,cleric"),
    dict(level=5, threat="moderate", party="wizard,rogue"),
    dict(level=3, threat="severe", party="fighter", lineup="boss"),
    dict(level=5, threat="severe", monsters="8,5,5"),
    dict(level=5, threat="severe", monster_dc="table", benchmark="Moderate"),
    dict(level=5, threat="severe", defense="High"),
    dict(level=15, threat="extreme", lineup="pack", rules="pf2e-core"),
    dict(level=5, threat="severe", budget="crb", xp_budget=140),
    dict(level=5, threat="severe", max_rounds=3),
    dict(level=5, threat="severe", party="fighter,rogue,cleric,wizard,fighter,cleric"),
    dict(level=11, threat="severe", target_downed="sometimes", rules="pf2e-core"),
    dict(level=5, threat="severe", rules="seed001"),
    dict(level=2, threat="extreme", rules="seed001", spend="asap", long_term=False),
    dict(level=7, threat="severe", rules="seed001", pe_damage="hp_only", zero_pp="end_of_turn"),
    dict(level=4, threat="severe", rules="seed001", spend=2, checks=7, natural=True),
    dict(level=6, threat="extreme", rules="seed001", trait="nonlethal", stabilize_cap=1),
    dict(level=3, threat="severe", rules="seed001", hp=0, target_downed="always"),
]
QUICK = [0, 3, 6, 12, 14, 22, 33, 38, 41, 44]


def _mean_var(counts: np.ndarray) -> tuple[float, float, int]:
    """Mean, variance and count of a mark's histogram (summed over outcomes)."""
    h = counts.sum(axis=0).astype(float)
    v = np.arange(len(h))
    n = h.sum()
    mean = (h * v).sum() / n
    return mean, (h * (v - mean) ** 2).sum() / n, int(n)


#: The vectorised kernel's figures of 0.3 (tests/data/make_kernel_figures.py): the loop
#: replaced it, and is held to what it gave on the same configurations.
def _kernel() -> dict:
    return json.loads((Path(__file__).parent / "data" / "kernel_0.3.json").read_text())


#: The benchmark's area effect when those figures were made (before AP-20's calibrated
#: default): the loop plays the same fights with it.
KERNEL_AREA = {"area_chance": 0.2, "area_uses": 1}


def outcome_gaps(want: dict, res, n: int, k: float = 5.0) -> list[str]:
    """The outcomes and events whose probabilities differ by more than ``k`` standard errors
    (of both samples) between a kernel's kept figures ``want`` (its ``n``: ``want["n"]``)
    and ``res`` (``n`` tracks)."""
    m = want["n"]
    got = {**res.probabilities, **{e: c / n for e, c in event_counts(res).items()}}
    ref = {**want["p"], **want["events"]}
    assert ref.keys() == got.keys()
    bad = []
    for name in ref:
        p, q = ref[name], got[name]
        se = np.sqrt(p * (1 - p) / m + q * (1 - q) / n)
        if abs(p - q) > k * max(se, 1 / n):
            bad.append(f"{name}: kernel {p:.5f} loop {q:.5f}")
    return bad


def _differ(want: dict, res, n: int, marks, k: float = 5.0) -> list[str]:
    """What differs by more than ``k`` standard errors between the kernel's figures
    ``want`` (its ``n``) and ``res`` (``n`` tracks): every outcome, every event and every
    mark's mean (dead_mask read through its events)."""
    bad = outcome_gaps(want, res, n, k)
    for mark in marks:  # (over the tracks that ended: the unresolved record none)
        a = want["marks"][mark]
        mb, vb, nb = _mean_var(res.marks[mark])
        se = np.sqrt(a["var"] / a["n"] + vb / nb)
        if abs(a["mean"] - mb) > k * max(se, 1 / min(a["n"], nb)):
            bad.append(f"mean {mark}: kernel {a['mean']:.5f} loop {mb:.5f}")
    return bad


def _agree(i: int, n: int, seed: int) -> list[str]:
    """Configuration ``i`` on the loop (``n`` tracks) against the kernel's figures."""
    want = _kernel()["party"][i]
    assert want["config"] == CONFIGS[i]
    res = simkit.simulate(Party(**{**KERNEL_AREA, **CONFIGS[i]}), n, seed)
    return _differ(want, res, n, [m for m in Party.marks if m != "dead_mask"])


@pytest.mark.parametrize("i", QUICK)
def test_loop_agrees_with_the_kernel_quick(i):
    assert _agree(i, 30_000, 100 + i) == []


@pytest.mark.slow
def test_loop_agrees_with_the_kernel_on_every_configuration():
    """Issue 28: at n = 2e5, every outcome, event and mark within 5 SE, 47 configurations."""
    assert len(CONFIGS) >= 40 and len(_kernel()["party"]) == len(CONFIGS)
    bad = {i: b for i in range(len(CONFIGS)) if (b := _agree(i, 200_000, 8 + i))}
    assert bad == {}


@pytest.mark.parametrize(
    "kw",
    [
        dict(level=1, party="fighter"),
        dict(level=4, party="rogue", rules="pf2e-core"),
        dict(level=2, party="wizard", threat="severe"),
        dict(level=3, party="fighter", target_downed="always", hero_points=0),
        dict(level=3, party="fighter", rules="seed001"),
        dict(level=2, party="rogue", rules="seed001", pe_damage="hp_only"),
    ],
)
def test_loop_agrees_with_the_exact_duel(kw):
    """One PC against one boss: Monte Carlo on the loop within 5 SE of the exact chain."""
    rules = Party(**kw, engine="loop")
    assert rules.has_exact
    exact = simkit.solve(rules).probabilities
    n = 40_000
    mc = simkit.simulate(rules, n, 11).probabilities
    for name, p in exact.items():
        se = np.sqrt(max(p * (1 - p), 1 / n) / n)
        assert abs(mc[name] - p) <= 5 * se, (name, mc[name], p)


def assert_blocks_and_threads_agree(rules) -> None:
    """Every track's outcome and marks are the same in one block or two, on every thread
    or one (the loop's dice by counter)."""
    n = 2**16 + 5_000  # two streams
    one = simkit.simulate(rules, n, 3, keep_outcomes=True)
    small = simkit.simulate(rules, n, 3, block_size=2**16, keep_outcomes=True)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        single = simkit.simulate(rules, n, 3, keep_outcomes=True)
    finally:
        numba.set_num_threads(threads)
    for other in (small, single):
        assert np.array_equal(one.track_outcomes, other.track_outcomes)
        for mark in rules.marks:
            assert np.array_equal(one.track_marks[mark], other.track_marks[mark])


def test_numbers_do_not_depend_on_blocks_threads_or_other_tracks():
    rules = Party(level=5, threat="severe", engine="loop")
    assert_blocks_and_threads_agree(rules)
    # a track played alone is the track played in its block
    T = tables.pack(tables.build(rules))
    keys = np.arange(1, 301, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    out, ends = block.run(T, keys, rules.max_rounds)
    for i in (0, 17, 299):
        out1, ends1 = block.run(T, keys[i : i + 1], rules.max_rounds)
        assert np.array_equal(out1[0], out[i]) and np.array_equal(ends1[0], ends[i])


_UNCOMPILED = """
import json, sys
import numpy as np
from simkit.fight import block, loop, tables
assert not hasattr(loop.play, "py_func"), "the loop must run uncompiled here"
from simkit.models.party import Party
out = []
for kw in json.loads(sys.argv[1]):
    rules = Party(**kw)
    T = tables.pack(tables.build(rules))
    keys = np.arange(1, 41, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    out.append([a.tolist() for a in block.run(T, keys, rules.max_rounds)])
print(json.dumps(out))
"""


def test_the_loop_compiled_is_the_loop_uncompiled():
    """Track by track on the same dice: the compiled loop and the same Python run as Python
    (``NUMBA_DISABLE_JIT=1``), over configurations that reach every tactic and phase."""
    kws = [CONFIGS[i] for i in (0, 2, 8, 11, 13, 14, 17, 22, 41, 44, 45, 46)]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    res = subprocess.run(
        [sys.executable, "-c", _UNCOMPILED, json.dumps(kws)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    slow = json.loads(res.stdout)
    for kw, (out_py, ends_py) in zip(kws, slow):
        rules = Party(**kw)
        T = tables.pack(tables.build(rules))
        keys = np.arange(1, 41, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        out, ends = block.run(T, keys, rules.max_rounds)
        assert out.tolist() == out_py and ends.tolist() == ends_py, kw


def test_keep_state_and_start_hand_a_fight_on():
    """A second fight from the first's end states (``keep_state``, ``start=``): track by
    track the scalar reference's from the same end states (0.3's kernel held it in
    distribution before it was retired)."""
    from test_party import loop_vs_ref

    fight = Party(level=5, threat="severe")
    first = simkit.simulate(fight, 300, 1, keep_state=True)
    loop_vs_ref(fight, 300, 2, state=first.final)


def test_what_the_loop_does_not_play_is_refused_in_one_line():
    with pytest.raises(ParamError, match="compiled fight loop only"):
        Party(engine="fast")
    with pytest.raises(ParamError, match="kernel of 0.3 was retired") as err:
        Party(engine="kernel")
    assert "\n" not in str(err.value)


def test_tables_come_from_the_rules_references():
    """The loop's degree table is rules.dice.degree, its recovery table
    rules.recovery_check.recovery_delta: spot checks of the packed reads."""
    from simkit.rules.dice import degree
    from simkit.rules.recovery_check import recovery_delta

    rules = Party(level=5, threat="severe")
    Tn = tables.build(rules)
    T = tables.pack(Tn)
    for natural in (1, 2, 10, 19, 20):
        for margin in (-45, -12, -1, 0, 9, 10, 45):
            assert tables.deg(T, natural, margin) == degree(natural, margin, 0)
    fort = rules.fighters.pcs[0].fort
    dc = rules.fighters.monsters[0].recovery_dc
    S = np.zeros(64, dtype=np.int64)  # a track's row: fight 0, penalty index 0
    for dying in (1, 2, 3):
        for natural in (1, 7, 20):
            assert tables.rec(S, T, 0, dc, dying, natural) == recovery_delta(
                natural, dying, bonus=fort, dc=dc
            )


@pytest.mark.parametrize("rules_set", ["seed000", "pf2e-core", "seed001"])
def test_several_lineups_and_penalties_in_one_block(rules_set):
    """Tracks of three lineups and two check penalties (P-10) in one block, from a start
    with wounds: each (lineup, penalty) group's outcomes as those of its lineup's own rules
    on the group's rows alone (an independent run), within 5 SE."""
    from dataclasses import fields

    from simkit.models.fight_state import FightStart

    n = 36_000
    lineups = [{"threat": "severe"}, {"threat": "low", "lineup": "pack"}, {"monsters": "7,5,5"}]
    base = Party(level=5, rules=rules_set)
    fresh = base.fresh_start(n)
    group = np.arange(n) % 6
    arrays = {f.name: np.asarray(getattr(fresh, f.name)) for f in fields(FightStart)}
    arrays["hp"] = np.maximum(1, arrays["hp"] - 9 * (group[:, None] % 2))
    arrays["fight"] = (group // 2).astype(np.int32)
    arrays["check_penalty"] = np.where(group % 2 == 1, -2, 0).astype(np.int32)
    start = FightStart(**arrays)
    rules = base.with_lineups(lineups)
    mixed = simkit.simulate(rules, n, 21, start=start, keep_outcomes=True).track_outcomes
    for g in range(6):
        at = group == g
        m = int(at.sum())
        alone = base.with_lineups([lineups[g // 2]])
        rows = FightStart(
            **{k: v[at] for k, v in arrays.items()} | {"fight": np.zeros(m, np.int32)}
        )
        own = simkit.simulate(alone, m, 22 + g, start=rows, keep_outcomes=True).track_outcomes
        for code in range(len(Party.outcomes)):
            a = np.mean(mixed[at] == code)
            b = np.mean(own == code)
            se = np.sqrt((a * (1 - a) + b * (1 - b)) / m)
            assert abs(a - b) <= 5 * max(se, 1 / m), (g, Party.outcomes[code], a, b)


DAY_PLANS = [
    dict(level=5, plan="moderate, short_rest, severe"),
    dict(level=3, plan="moderate, fall(9), moderate, long_rest, severe", rules="seed001"),
    dict(level=7, plan="severe, no_sleep, moderate", rules="pf2e-core"),
    dict(level=4, plan="low, low, short_rest, extreme", rules="pf2e-core", rest_when=0.5),
]


@pytest.mark.parametrize("i", range(len(DAY_PLANS)))
def test_the_day_on_the_loop_agrees_with_the_day_on_the_kernel(i):
    """The day's fights on the loop (fatigue penalties, falls, rests between them): every
    outcome, event and the mean deaths within 5 SE of the kernel's day (its figures)."""
    from simkit.models.day import Day

    want = _kernel()["day"][i]
    assert want["config"] == DAY_PLANS[i]
    n = 20_000
    res = simkit.simulate(Day(**{**KERNEL_AREA, **DAY_PLANS[i]}), n, 6)
    assert _differ(want, res, n, ["deaths"]) == []


def test_a_day_of_one_fight_is_the_party_on_the_loop():
    """Track by track, the same dice: a plan of one fight is exactly the party's run, in
    the default and the positional modes alike (the loop draws by counter in both)."""
    from simkit.models.day import Day

    n = 20_000
    rules = Party(level=5, threat="severe", engine="loop")
    party = simkit.simulate(rules, n, 4, keep_outcomes=True)
    for positional in (False, True):
        day = simkit.simulate(
            Day(level=5, plan="severe", engine="loop"),
            n,
            4,
            keep_outcomes=True,
            positional=positional,
        )
        names = {"survived": "victory", "survived_with_deaths": "victory_with_deaths"}
        as_party = [party.outcomes.index(names.get(o, o)) for o in day.outcomes]
        assert np.array_equal(np.take(as_party, day.track_outcomes), party.track_outcomes)
        assert np.array_equal(day.track_marks["deaths"], party.track_marks["deaths"])


def test_the_loops_marks_are_the_partys():
    """The loop's marks (simkit.fight.state.MARKS: it cannot import the model) are the
    party's, in its order, and its outcome indices the party's outcomes."""
    from simkit.fight import phases
    from simkit.fight.state import MARKS

    assert MARKS == Party.marks
    outs = (phases.VICTORY, phases.VICTORY_DEATHS, phases.RETREAT, phases.DEFEAT)
    assert tuple(Party.outcomes[i] for i in outs) == Party.outcomes
