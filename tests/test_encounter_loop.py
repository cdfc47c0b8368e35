"""The encounter on the compiled fight loop (issue 28, item 3): ``Encounter(engine="loop")``
against the encounter's vectorised kernel in distribution, the compiled loop against the
same code run as Python, and numbers that do not depend on the block or the threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

import simkit
from simkit.core.params import ParamError
from simkit.models.encounter import Encounter
from simkit.models.encounter_loop import run as _run
from simkit.models.fight_state import FightStart


def run(rules, keys):
    """The loop's ``out`` of ``keys`` (outcome, end step, marks), fresh."""
    return _run(rules, keys)[0]


#: Configurations over the dying rules, levels, the healer, effects, targeting of a PC at
#: 0 HP, the end of the fight, ``until="healer"`` and seed 001's long-term checks.
CONFIGS = [
    dict(),
    dict(level=1, monster_level=4, attacks=3),
    dict(level=10, monster_level=12, healer_round=3),
    dict(level=20, enemies=3, initiative="enemies_first"),
    dict(level=3, healer_round=2, heal_when="wounded", temp_hp=10),
    dict(level=5, healer_chance=0.2, medicine=10),
    dict(level=5, effect_chance=0.4, check_penalty=-2, effect_save="fort"),
    dict(level=7, effect_chance=0.5, target_downed="always", effect_dc=30),
    dict(level=5, target_downed="sometimes", downed_chance=0.3, on_damage="increment"),
    dict(level=4, until="healer", healer_round=4),
    dict(level=6, until="healer", healer_chance=0.15, hp=0, start_dying=2),
    dict(level=5, end_chance=0.2, fight_rounds=None, max_rounds=40),
    dict(level=5, end_chance=0.1, trait="nonlethal", hero_points=2, hero_policy="immediately"),
    dict(level=8, wounded_rule=True, wounded=1, hero_points=0, enemies=2, map="agile"),
    dict(level=5, **Encounter.presets["pf2e-core"], target_downed="always"),
    dict(level=5, trait="death", healer_round=5),
    dict(level=5, enemies=0, hp=0, healer_round=6, heals=0, medicine=5),
    dict(level=5, dying_rules="seed001"),
    dict(level=3, dying_rules="seed001", long_term=False, target_downed="always"),
    dict(level=9, dying_rules="seed001", long_term=True, healer_chance=0.3, medicine=6, heals=0),
    dict(level=4, dying_rules="seed001", back_in_fight=True, enough_pp=4, spend="asap"),
    dict(level=6, dying_rules="seed001", spend=2, trait="nonlethal", effect_chance=0.3),
    dict(level=5, dying_rules="seed001", natural=True, checks=7, healer_round=3, medicine=8),
    dict(level=2, dying_rules="seed001", hp=0, pp=2, target_downed="sometimes"),
    dict(level=5, target_downed="always", max_rounds=5),
]
QUICK = [0, 4, 7, 10, 12, 17, 19, 23]


def _mean_var(h: np.ndarray) -> tuple[float, float, float]:
    v = np.arange(len(h))
    n = h.sum()
    mean = (h * v).sum() / n
    return mean, (h * (v - mean) ** 2).sum() / n, n


def _agree(kw: dict, n: int, seed: int, k: float = 5.0) -> list[str]:
    """What differs by more than ``k`` standard errors between the kernel and the loop:
    every outcome, and every mark's mean over all tracks and within each outcome."""
    a = simkit.simulate(Encounter(**kw), n, seed)
    b = simkit.simulate(Encounter(**kw, engine="loop"), n, seed + 1)
    bad = []
    pa, pb = a.probabilities, b.probabilities
    assert pa.keys() == pb.keys()
    for name in pa:
        se = np.sqrt((pa[name] * (1 - pa[name]) + pb[name] * (1 - pb[name])) / n)
        if abs(pa[name] - pb[name]) > k * max(se, 1 / n):
            bad.append(f"{name}: kernel {pa[name]:.5f} loop {pb[name]:.5f}")
    for mark in Encounter.marks:
        ha, hb = a.marks[mark].astype(float), b.marks[mark].astype(float)
        w = max(ha.shape[1], hb.shape[1])
        ha = np.pad(ha, ((0, 0), (0, w - ha.shape[1])))
        hb = np.pad(hb, ((0, 0), (0, w - hb.shape[1])))
        rows = [("all", ha.sum(axis=0), hb.sum(axis=0))]
        rows += [(Encounter.outcomes[o], ha[o], hb[o]) for o in range(len(ha))]
        for where, x, y in rows:
            if min(x.sum(), y.sum()) < 100:
                continue
            ma, va, na = _mean_var(x)
            mb, vb, nb = _mean_var(y)
            se = np.sqrt(va / na + vb / nb)
            if abs(ma - mb) > k * max(se, 1 / min(na, nb)):
                bad.append(f"mean {mark} ({where}): kernel {ma:.5f} loop {mb:.5f}")
    return bad


@pytest.mark.parametrize("i", QUICK)
def test_loop_agrees_with_the_kernel_quick(i):
    assert _agree(CONFIGS[i], 20_000, 300 + i) == []


@pytest.mark.slow
def test_loop_agrees_with_the_kernel_on_every_configuration():
    """Issue 28, item 3: at n = 2e5, every outcome and mark within 5 SE."""
    assert len(CONFIGS) >= 12
    bad = {i: b for i, kw in enumerate(CONFIGS) if (b := _agree(kw, 200_000, 17 + i))}
    assert bad == {}


def test_numbers_do_not_depend_on_blocks_or_threads():
    rules = Encounter(level=5, healer_chance=0.2, effect_chance=0.3, engine="loop")
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
    # a track played alone is the track played in its block
    keys = np.arange(1, 301, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    out = run(rules, keys)
    for i in (0, 17, 299):
        assert np.array_equal(run(rules, keys[i : i + 1])[0], out[i])


_UNCOMPILED = """
import json, sys
import numpy as np
from simkit.fight import encounter
assert not hasattr(encounter.play_round, "py_func"), "the loop must run uncompiled here"
from simkit.models.encounter import Encounter
from simkit.models.encounter_loop import run
keys = np.arange(1, 41, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
print(json.dumps([run(Encounter(**kw), keys)[0].tolist() for kw in json.loads(sys.argv[1])]))
"""


def test_the_loop_compiled_is_the_loop_uncompiled():
    """Track by track on the same dice: the compiled encounter and the same Python run as
    Python (``NUMBA_DISABLE_JIT=1``)."""
    kws = [CONFIGS[i] for i in (4, 7, 10, 12, 19, 20)]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    res = subprocess.run(
        [sys.executable, "-c", _UNCOMPILED, json.dumps(kws)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    keys = np.arange(1, 41, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    for kw, out_py in zip(kws, json.loads(res.stdout)):
        assert run(Encounter(**kw), keys).tolist() == out_py, kw


def test_what_the_loop_does_not_play_is_refused_in_one_line():
    with pytest.raises(ParamError, match="engine must be 'kernel' or 'loop'"):
        Encounter(engine="fast")
    with pytest.raises(ParamError, match="temp_hp with hp=0"):
        Encounter(engine="loop", temp_hp=5, hp=0)


def test_the_party_keeps_its_defeat():
    """The encounter's ``DEFEAT_OFF`` is the encounter's: the party's tables leave it 0."""
    from simkit.fight import tables
    from simkit.models.encounter_loop import packed
    from simkit.models.party import Party

    assert tables.build(Party(level=5, engine="loop")).opt[tables.DEFEAT_OFF] == 0
    T, _ = packed(Encounter())
    assert T[T[tables.O_OPT] + tables.DEFEAT_OFF] == 1


def _start(rules: Encounter, n: int, **over) -> FightStart:
    """A one-PC start at ``rules``' own fresh numbers, with ``over`` in place."""
    over = dict(over)
    pen = over.pop("check_penalty", rules.check_penalty)
    cols = dict(
        hp=rules.start_hp,
        hp_max=rules.max_hp,
        hero=rules.hero_points,
        slots=0,
        heals=rules.heals,
        pp=rules.start_pp,
        wounded=rules.wounded,
        dead=False,
        pe=rules.temp_hp,
        pe_max=rules.temp_hp,
    )
    cols.update(over)
    arrays = {
        k: np.broadcast_to(np.asarray(v), (n, 1)).copy() if np.ndim(v) < 2 else v
        for k, v in cols.items()
    }
    arrays["check_penalty"] = np.broadcast_to(np.asarray(pen, dtype=np.int32), (n,)).copy()
    return FightStart(**arrays)


@pytest.mark.parametrize(
    "kw",
    [
        dict(level=5, healer_chance=0.2, effect_chance=0.3, temp_hp=8),
        dict(
            level=4,
            dying_rules="seed001",
            back_in_fight=True,
            spend="asap",
            medicine=5,
            healer_round=3,
            wounded_rule=False,
        ),
    ],
)
def test_a_start_at_the_fresh_numbers_is_the_fresh_run(kw):
    """Track by track on the same dice: a start holding the rules' own numbers plays as the
    fresh encounter."""
    rules = Encounter(**kw, engine="loop")
    n = 5_000
    fresh = simkit.simulate(rules, n, 4, keep_outcomes=True)
    given = simkit.simulate(rules, n, 4, start=_start(rules, n), keep_outcomes=True)
    assert np.array_equal(fresh.track_outcomes, given.track_outcomes)
    for mark in rules.marks:
        assert np.array_equal(fresh.track_marks[mark], given.track_marks[mark])


def test_a_start_plays_as_the_kernel_at_those_numbers():
    """Tracks starting wounded at 20 HP and no hero point, half of them at check penalty -2
    (P-10): each half's outcomes within 5 SE of the kernel's encounter at those numbers."""
    base = dict(level=5, wounded_rule=True, healer_round=4, medicine=6, effect_chance=0.3)
    rules = Encounter(**base, engine="loop")
    n = 40_000
    pen = np.where(np.arange(n) % 2 == 0, 0, -2).astype(np.int32)
    start = _start(rules, n, hp=20, hero=0, wounded=1, check_penalty=pen)
    res = simkit.simulate(rules, n, 5, start=start, keep_outcomes=True)
    for p in (0, -2):
        kernel = simkit.simulate(
            Encounter(**base, hp=20, hero_points=0, wounded=1, check_penalty=p), n // 2, 6
        ).probabilities
        got = np.bincount(res.track_outcomes[pen == p], minlength=len(Encounter.outcomes) + 1)
        for o, name in enumerate(Encounter.outcomes):
            a, b = kernel[name], got[o] / (n // 2)
            se = np.sqrt((a * (1 - a) + b * (1 - b)) / (n // 2))
            assert abs(a - b) <= 5 * max(se, 2 / n), (p, name, a, b)


def test_keep_state_hands_an_encounter_on():
    """A second encounter from the first's end: the dead stay dead (at step 0), the others
    start where they were left (HP, the healer's heals, hero points spent)."""
    rules = Encounter(level=5, healer_round=3, hero_points=2, engine="loop")
    n = 20_000
    first = simkit.simulate(rules, n, 1, keep_state=True, keep_outcomes=True)
    end = first.final
    assert len(end) == n and end.n_pcs == 1
    dead = first.track_outcomes == Encounter.outcomes.index("dead")
    assert np.array_equal(end.dead[:, 0], dead)
    assert (end.hp[dead] == 0).all() and (end.hp[~dead] >= 0).all()
    assert (end.heals <= rules.heals).all() and (end.heals < rules.heals).any()
    assert (end.hero[:, 0] == rules.hero_points - first.track_marks["hero_spent"]).all()
    second = simkit.simulate(rules, n, 2, start=end, keep_outcomes=True)
    assert (second.track_outcomes[dead] == Encounter.outcomes.index("dead")).all()
    assert second.probabilities["dead"] > first.probabilities["dead"]


def test_a_start_with_temporary_hp_at_0_hp_is_refused():
    rules = Encounter(temp_hp=5, engine="loop")
    start = _start(rules, 10, hp=0)
    with pytest.raises(ParamError, match="temporary HP"):
        simkit.simulate(rules, 10, 1, start=start)


def test_the_kernel_still_refuses_a_start():
    with pytest.raises(ParamError, match="does not start from or hand on a state"):
        simkit.simulate(Encounter(), 100, 1, keep_state=True)
