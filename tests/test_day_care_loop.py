"""The day's care on the compiled fight loop (issue 28 item 3): PCs knocked out outside a
fight (a fall, a Treat Wounds critical failure) follow their rules at 0 HP with the party's
care (AP-7 with no monster).

The loop's care = the party's reference's care (:func:`simkit.models.party_replay.play`
with ``knocked``: the monsters gone, each knocked-out PC knocked out by
:func:`~simkit.models.party_ref.ref_knock_out`), track by track on the same dice. A day's
cares are held to the day's reference in ``tests/test_day_ref.py`` (``loop_vs_ref``) and,
for one PC, to the exact day duel in ``tests/test_day_duel.py`` (``falls_care``,
``care_cut``). When the care moved from the party kernel to the loop, a loop day's care
agreed with the kernel's within 5 SE (every outcome and mark mean, 60,000 days of falls
and Treat Wounds under seed000, pf2e-core and seed001).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from simkit.models import make_model
from simkit.models.party import Party
from simkit.models.party_loop import care_ends
from simkit.models.party_replay import play

CARES = [
    dict(level=3, party="fighter,cleric,wizard,rogue"),
    dict(level=1, rules="pf2e-core", party="cleric,fighter"),
    dict(level=6, rules="seed001", party="cleric,fighter,cleric"),
    dict(level=4, rules="seed001", zero_pp="at_once", party="fighter,wizard"),
    dict(level=5, start_dying=2, party="rogue,cleric"),
    dict(level=7, trait="nonlethal", party="cleric,rogue"),
    dict(level=2, rules="pf2e-core", hero_points=2, hero_policy="immediately"),
    dict(level=8, max_rounds=3, party="fighter,fighter"),
    dict(level=5, rules="seed001", long_term=True, party="cleric,wizard"),
]


def _care_start(rules: Party, n: int, seed: int):
    """``n`` tracks of ``rules``' PCs hurt, some dead or stable at 0 HP, wounded, and at least
    one knocked out on each track (n, P)."""
    g = np.random.default_rng(seed)
    start = rules.fresh_start(n)
    shape = start.hp.shape
    dead = g.random(shape) < 0.15
    stable = ~dead & (g.random(shape) < 0.2)
    knocked = ~dead & ~stable & (g.random(shape) < 0.5)
    first = np.flatnonzero(~(knocked | stable | dead).any(axis=1) | ~knocked.any(axis=1))
    knocked[first, 0], dead[first, 0], stable[first, 0] = True, False, False
    hp = (start.hp * g.uniform(0.1, 1.0, size=shape)).astype(np.int32) + 1
    hp = np.where(dead | stable | knocked, 0, hp)
    start = dataclasses.replace(
        start,
        hp=hp,
        dead=dead,
        wounded=g.integers(0, 3, size=shape),
        hero=g.integers(0, 3, size=shape),
        heals=g.integers(0, 2, size=shape),
        pp=g.integers(0, 4, size=shape),
        check_penalty=g.choice([0, -2, -6], size=n),
    )
    return start, knocked


@pytest.mark.parametrize("i", range(len(CARES)))
def test_the_loops_care_is_the_references_track_by_track(i):
    day = make_model("day", plan="fall(9)", **CARES[i])
    rules = day.care_rules()
    n = 120
    start, knocked = _care_start(rules, n, i)
    keys = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(i)
    end = care_ends(rules, keys, start, knocked)
    cond = {"dead": True}
    for t in range(n):
        tr = play(rules, int(keys[t]) >> 1, start=start.row(t), knocked=knocked[t].tolist())
        where = (CARES[i], t)
        want_out = 4 if tr["code"] < 0 else tr["code"]
        assert int(end["outcome"][t]) == want_out, where
        for c in ("deaths_in_fight", "deaths_after_defeat", "deaths_after_fight"):
            assert int(end[c][t]) == tr[c], (where, c)
        for k, pc in enumerate(tr["pcs"]):
            assert bool(end["dead"][t, k]) == cond.get(pc["cond"], False), (where, k)
            for f in ("hp", "hero", "slots", "heals", "pp", "pe", "wounded"):
                assert int(end[f][t, k]) == pc[f], (where, k, f, int(end[f][t, k]), pc[f])
    assert (end["outcome"] < 4).any()
