"""The encounter on the compiled fight loop (issue 28, item 3): the compiled loop against
the same code run as Python, numbers that do not depend on the block or the threads, starts
and hand-ons, temporary HP at 0 HP. (The loop against the retired kernel's figures:
tests/test_encounter_kernel_figures.py; against the scalar reference, track by track:
tests/test_encounter.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
#: 0 HP, the end of the fight, ``until="healer"`` and seed 001's long-term checks (those the
#: loop was held to the kernel on, side by side, in 0.3).
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


def test_numbers_do_not_depend_on_blocks_or_threads():
    from test_fight_loop import assert_blocks_and_threads_agree

    rules = Encounter(level=5, healer_chance=0.2, effect_chance=0.3, engine="loop")
    assert_blocks_and_threads_agree(rules)
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


def test_the_kernel_is_refused_in_one_line():
    """AP-27: the vectorised kernel of 0.3 was retired in 0.4; ``engine`` takes ``loop``."""
    for engine in ("kernel", "fast"):
        with pytest.raises(ParamError, match="kernel of 0.3 was retired in 0.4") as err:
            Encounter(engine=engine)
        assert "\n" not in str(err.value) and f"engine={engine!r}" in str(err.value)
    assert Encounter().engine == "loop"


def test_temporary_hp_are_kept_while_the_pc_is_down():
    """R0-14 as the kernel of 0.3 read it: a PC knocked out with temporary HP keeps them,
    untouched by the hits while it is down; healed, they soak hits first again."""
    rules = Encounter(
        level=5, hp=0, temp_hp=7, target_downed="always", healer_round=5, hero_points=0
    )
    n = 4_000
    res = simkit.simulate(rules, n, 2, keep_state=True, keep_outcomes=True)
    pe = res.final.pe[:, 0]
    dead = res.track_outcomes == Encounter.outcomes.index("dead")
    never_healed = res.track_marks["healer"] == 0  # (dead before round 5)
    assert (dead & never_healed).sum() > 100
    assert (pe[dead & never_healed] == 7).all()
    up = res.track_marks["hp"] > 0
    assert up.any() and (pe[up] < 7).any() and (pe <= 7).all()
    # a start with temporary HP at 0 HP plays (no refusal) and keeps them while down
    alone = Encounter(level=5, temp_hp=7, target_downed="always", hero_points=0)
    start = _start(alone, 500, hp=0, pe=5, pe_max=5)
    again = simkit.simulate(alone, 500, 1, start=start, keep_state=True, keep_outcomes=True)
    assert (again.track_outcomes == Encounter.outcomes.index("dead")).sum() > 50
    assert (again.final.pe[:, 0] == 5).all()


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


def test_a_start_plays_as_the_encounter_at_those_numbers():
    """Tracks starting wounded at 20 HP and no hero point, half of them at check penalty -2
    (P-10): each half's outcomes within 5 SE of the encounter given those numbers."""
    base = dict(level=5, wounded_rule=True, healer_round=4, medicine=6, effect_chance=0.3)
    rules = Encounter(**base)
    n = 40_000
    pen = np.where(np.arange(n) % 2 == 0, 0, -2).astype(np.int32)
    start = _start(rules, n, hp=20, hero=0, wounded=1, check_penalty=pen)
    res = simkit.simulate(rules, n, 5, start=start, keep_outcomes=True)
    for p in (0, -2):
        fresh = simkit.simulate(
            Encounter(**base, hp=20, hero_points=0, wounded=1, check_penalty=p), n // 2, 6
        ).probabilities
        got = np.bincount(res.track_outcomes[pen == p], minlength=len(Encounter.outcomes) + 1)
        for o, name in enumerate(Encounter.outcomes):
            a, b = fresh[name], got[o] / (n // 2)
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
