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
from simkit.models.encounter_loop import run

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
print(json.dumps([run(Encounter(**kw), keys).tolist() for kw in json.loads(sys.argv[1])]))
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
