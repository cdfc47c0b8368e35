"""Block size and worker count never change a number, for every registered model.

Tracks come in fixed streams of ``STREAM_SIZE`` (docs/ARCHITECTURE.md, "Streams per
65,536 tracks"); a block is a run of whole streams, so a block size is rounded up to whole
streams and only sizes that split ``N`` differently can tell anything apart. ``N`` spans
two streams, the last one partial, run as two blocks of one stream, as one block, and as
one-stream blocks over two worker processes. Every outcome count, absorption histogram,
mark and observation must be equal, in every stage of a chain.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit import simulate
from simkit.core.engine import DEFAULT_BLOCK
from simkit.core.streams import STREAM_SIZE
from simkit.models import REGISTRY, make_model

N = STREAM_SIZE + 123

RUNS = {
    "one stream a block": dict(block_size=1),
    "one block": dict(block_size=DEFAULT_BLOCK),
    "two workers": dict(block_size=7, workers=2),
}

# Configurations beyond each model's defaults: the branches a default run never takes.
BRANCHES: list[tuple[str, dict]] = [
    ("dying", dict(dc=24, save_bonus=9)),
    ("dying", dict(hit_chance=0.2, crit_chance=0.05, hero_points=1, wounded_rule=True)),
    ("perseverance", dict(medic_bonus=2, spend="never", pp=5)),
    ("perseverance", dict(back_in_fight=True, spend="asap")),
    ("recovery", dict(healer=3, con=1)),
    ("recovery", dict(checks=7)),
    ("agony", dict(medic_bonus=4, healer=2)),
    ("fatigue", dict(food_water="separate", p_water=0.4, care="tended", p_care=0.3)),
    ("fall", dict(height="uniform:0-14", hp=9, temp_hp=2)),
    ("fall", dict(height="3,7,9,11")),
    ("fall_dying", dict(height="uniform:6-12")),
    (
        "encounter",
        dict(
            level=3, monster_level=5, target_downed="sometimes", healer_chance=0.2, fight_rounds=4
        ),
    ),
    ("encounter", dict(temp_hp=12, hp_max=20, damage="3d8+4", target_downed="always")),
    ("encounter", dict(enemies=3, attacks=3, map="agile", target_downed="sometimes")),
    ("encounter", dict(dying_rules="seed001", long_term=True, target_downed="always")),
    ("party", dict(rules="seed001")),
    ("party", dict(rules="pf2e-core")),
    ("party", dict(level=2, threat="severe", lineup="boss_and_minions", pc_target="spread")),
]

SLOW = {"party"}  # about a second a run of N tracks: its defaults only in a quick run


def _cases():
    for name in REGISTRY:
        yield pytest.param(name, {}, id=f"{name}-defaults")
    for k, (name, params) in enumerate(BRANCHES):
        marks = [pytest.mark.slow] if name in SLOW else []
        yield pytest.param(name, params, id=f"{name}-{k}", marks=marks)


def _stages(res, path="result"):
    """(where, Result) of every stage of a result: itself, or a chain's stages in order."""
    if hasattr(res, "first"):  # a chain: its first stage, then the stage after each outcome
        yield from _stages(res.first, f"{path}.first")
        for outcome, then in sorted(res.then.items()):
            yield from _stages(then, f"{path}.then[{outcome!r}]")
    else:
        yield path, res


def _assert_same(a, b, how):
    assert a.counts == b.counts, how
    sa, sb = list(_stages(a)), list(_stages(b))
    assert [w for w, _ in sa] == [w for w, _ in sb], how
    for (where, x), (_, y) in zip(sa, sb):
        assert x.n == y.n and np.array_equal(x.hist, y.hist), (how, where, "hist")
        for table in ("marks", "observed"):
            dx, dy = getattr(x, table), getattr(y, table)
            assert dx.keys() == dy.keys(), (how, where, table)
            for key in dx:
                assert np.array_equal(dx[key], dy[key]), (how, where, table, key)
    assert a.summary(exact=False).equals(b.summary(exact=False)), how


def test_every_branch_names_a_registered_model():
    assert {name for name, _ in BRANCHES} <= REGISTRY.keys()


@pytest.mark.parametrize("name, params", list(_cases()))
def test_block_size_and_workers_change_no_number(name, params):
    model = make_model(name, **params)
    runs = {how: simulate(model, N, rng=17, **kw) for how, kw in RUNS.items()}
    first, *others = runs.items()
    for how, res in others:
        _assert_same(first[1], res, f"{first[0]} vs {how}")


def test_a_fight_model_states_its_own_block_and_it_changes_no_number(monkeypatch):
    """The fight models' default block (FIGHT_BLOCK, fewer short-lived pages than
    DEFAULT_BLOCK): simulate uses it unless told otherwise, with the same numbers."""
    from simkit.core import engine

    used = []
    real = engine.run_blocks

    def spy(work, n, block_size, *args, **kwargs):
        used.append(block_size)
        return real(work, n, block_size, *args, **kwargs)

    monkeypatch.setattr(engine, "run_blocks", spy)
    for name in ("party", "encounter", "day"):
        model = make_model(name)
        assert type(model).block_size == engine.FIGHT_BLOCK
        used.clear()
        own = simulate(model, engine.FIGHT_BLOCK + 5, 11)  # (two blocks: one of 5 tracks)
        big = simulate(model, engine.FIGHT_BLOCK + 5, 11, block_size=DEFAULT_BLOCK)
        assert used == [engine.FIGHT_BLOCK, DEFAULT_BLOCK]
        assert np.array_equal(own.hist, big.hist)
    used.clear()
    simulate(make_model("dying"), 1000, 1)
    assert used == [DEFAULT_BLOCK]
