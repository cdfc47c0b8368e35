"""Variants stepped together (issue 23): one draw per track and step for all of them,
each variant's numbers exactly those of its own positional run."""

import numpy as np
import pytest

from simkit import Dying, simulate
from simkit.analysis import paired as paired_mod
from simkit.analysis.compare import compare, variants
from simkit.analysis.paired import joint_counts
from simkit.core import lockstep, lockstep_tables
from simkit.core.engine import _outcome_of_codes
from simkit.core.lockstep import LockstepMismatch, simulate_lockstep
from simkit.core.lockstep_tables import extended, simulate_tables, steps_by_table
from simkit.core.streams import STREAM_SIZE
from simkit.models import make_model

N = 2 * STREAM_SIZE + 321  # three streams, the last one partial


def _same_run(a, b):
    assert np.array_equal(a.hist, b.hist)
    assert a.marks.keys() == b.marks.keys()
    for k in a.marks:
        assert np.array_equal(a.marks[k], b.marks[k]), k
    assert a.observed.keys() == b.observed.keys()
    for k in a.observed:
        assert np.array_equal(a.observed[k], b.observed[k]), k


def _dying_general(**kw):
    """Dying with the enemy acting: a d20 and uniforms a round (not a table)."""
    return Dying(hit_chance=0.3, crit_chance=0.05, hp_max=20, **kw)


@pytest.mark.parametrize(
    "models",
    [
        [_dying_general(), _dying_general(dc=18), _dying_general(hero_points=0)],
        [_dying_general(), _dying_general(hero_points=2)],
        [_dying_general(), _dying_general(death_at=3), _dying_general(check="flat")],
    ],
    ids=["dying-general", "dying-hero-points", "dying-readings"],
)
def test_lockstep_gives_each_variant_its_own_positional_run(models):
    n = N
    got = simulate_lockstep(models, n, 11)
    for m, res in zip(models, got):
        own = simulate(m, n, 11, positional=True, keep_outcomes=True)
        _same_run(res, own)
        assert np.array_equal(res.track_outcomes, own.track_outcomes)
        assert res.track_marks.keys() == own.track_marks.keys()
        for k in own.track_marks:
            assert np.array_equal(res.track_marks[k], own.track_marks[k]), k


def test_lockstep_refuses_variants_that_draw_differently():
    """A healer on round 2 under one variant: it draws nothing at step 2, the other draws
    its round: the mismatch is seen, never a wrong number."""
    with pytest.raises(LockstepMismatch):
        simulate_lockstep([_dying_general(), _dying_general(heal_round=2)], 2000, 1)
    with pytest.raises(LockstepMismatch):  # a kernel that does not say it steps by plan
        simulate_lockstep([make_model("fatigue"), make_model("fatigue")], 100, 1)
    # the party's fight loop draws by counter (its variants share dice track by track): the
    # vectorised kernel that stepped by plan was retired
    assert not make_model("party").lockstep
    with pytest.raises(LockstepMismatch, match="does not step by plan"):
        simulate_lockstep([make_model("party"), make_model("party", hero_points=2)], 100, 1)


TABLE_CASES = {
    "seed-vs-pf2e": lambda: list(variants("dying").values()),
    "three-dcs-unresolved": lambda: [Dying(max_rounds=4, dc=d) for d in (12, 15, 18)],
    "healer": lambda: [Dying(heal_round=3), Dying(heal_round=3, dc=25)],
    "healer-first-round": lambda: [Dying(heal_round=1), Dying(heal_round=1, dc=25)],
    "dead-at-knockout": lambda: [Dying(), Dying(death_at=1)],
}


@pytest.mark.parametrize("case", TABLE_CASES)
def test_tables_give_each_variant_its_own_run_and_the_joint_outcomes(case):
    models = TABLE_CASES[case]()
    assert steps_by_table(models)
    results, joint = simulate_tables(models, N, 5)
    own = [simulate(m, N, 5, positional=True, keep_outcomes=True) for m in models]
    k = len(models[0].outcomes) + 1
    for v, (res, mine) in enumerate(zip(results, own)):
        _same_run(res, mine)
        expected = joint_counts(own[0].track_outcomes, mine.track_outcomes, k)
        assert np.array_equal(joint[v], expected), (v, joint[v], expected)
    # the blocks and the workers change nothing
    again, joint2 = simulate_tables(models, N, 5, workers=2)
    assert np.array_equal(joint, joint2)
    for a, b in zip(results, again):
        _same_run(a, b)


def test_tables_refuse_variants_whose_tables_differ():
    with pytest.raises(LockstepMismatch):  # the healer: no draw at step 2 for one only
        simulate_tables([Dying(), Dying(heal_round=2)], 1000, 1)
    assert not steps_by_table([_dying_general()])  # the enemy acts: not a table


def test_extended_table_keeps_ended_tracks_ended():
    table = np.array([[-2, 0, 4], [-1, 1, 2]], dtype=np.int16)  # 2 states, 3 outcomes x k
    ext = extended(table, 3)
    S, done = 2, 2 + 3 * lockstep_tables.MAX_K
    assert ext.shape == (done + 3, 3)
    assert ext[0].tolist() == [1, S + 0, S + 4] and ext[1].tolist() == [0, S + 1, S + 2]
    assert (ext[S + 4] == done + 1).all() and (ext[done + 2] == done + 2).all()


@pytest.mark.parametrize("path", ["tables", "lockstep", "apart"])
def test_compare_is_the_same_whichever_way_the_variants_run(path, monkeypatch):
    """The tables, the kernels stepped together, and the variants one after the other
    give the same comparison, digit for digit."""
    cases = [
        (variants("dying"), {"level": [3, 10]}, {"level_diff": 0}),
        (
            {"a": _dying_general(), "b": _dying_general(dc=19)},
            None,
            None,
        ),
    ]
    calls = {"tables": 0, "lockstep": 0}

    def spy(name, fn):
        def wrapped(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(lockstep_tables, "simulate_tables", spy("tables", simulate_tables))
    monkeypatch.setattr(lockstep, "simulate_lockstep", spy("lockstep", simulate_lockstep))
    if path in ("lockstep", "apart"):
        monkeypatch.setattr(lockstep_tables, "steps_by_table", lambda models: False)
    if path == "apart":
        monkeypatch.setattr(lockstep, "simulate_lockstep", _refuse)
    for v, grid, fixed in cases:
        got = compare(v, grid, 20_000, 4, fixed=fixed)
        ref = _compare_apart(v, grid, fixed, monkeypatch)
        assert got.equals(ref)
    # the tables ran the dying track's two points, the kernels stepped together the rest
    assert calls == {
        "tables": {"tables": 2, "lockstep": 0, "apart": 0}[path],
        "lockstep": {"tables": 1, "lockstep": 3, "apart": 0}[path],
    }


def _refuse(*args, **kwargs):
    raise LockstepMismatch("refused by the test")


def _compare_apart(v, grid, fixed, monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(lockstep_tables, "steps_by_table", lambda models: False)
        mp.setattr(lockstep, "simulate_lockstep", _refuse)
        return compare(v, grid, 20_000, 4, fixed=fixed)


def test_paired_runs_falls_back_when_the_variants_draw_differently():
    """A healer on round 2 under one variant only: the variants run one after the other,
    each on its own positional run."""
    models = [Dying(), Dying(heal_round=2)]
    got = paired_mod.paired_runs(models, 5000, 3)
    for m, pt in zip(models, got):
        assert np.array_equal(pt.result.hist, simulate(m, 5000, 3, positional=True).hist)


@pytest.mark.parametrize(
    "model",
    [make_model("fatigue"), Dying(max_rounds=2), Dying(max_rounds=4, dc=25)],
    ids=["fatigue", "dying-2-rounds", "dying-4-rounds"],
)
def test_kept_outcomes_of_a_kernel_that_keeps_its_state_in_its_codes(model):
    """fatigue's and dying's codes hold ``-1 - state`` for a track still going: keeping
    each track's outcome maps every code below 0 to unresolved. Before, fatigue raised
    IndexError, and a dying track unresolved at the horizon was kept as another outcome
    (``max_rounds=2``: 3,269 'revived' of 20,000, none revived), so a paired compare
    miscounted its unresolved row."""
    res = simulate(model, 20_000, 1, positional=True, keep_outcomes=True)
    counts = np.bincount(res.track_outcomes, minlength=len(model.outcomes) + 1)
    assert counts.tolist() == [res.counts[o] for o in res.outcomes]
    assert res.counts["unresolved"] > 0 or model.name == "fatigue"


def test_compare_fatigue_is_paired():
    df = compare(variants("fatigue"), None, 4000, 2)
    assert df["paired"].all()


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_outcome_of_codes(k, dtype):
    rng = np.random.default_rng(k)
    n_out = 3
    low = -120 if dtype is np.int8 else -5000
    codes = rng.integers(low, n_out * k, 5000).astype(dtype)
    want = np.where(codes < 0, n_out, codes % n_out)
    for out_dtype in (np.int8, np.int16):
        out = np.empty(len(codes), dtype=out_dtype)
        _outcome_of_codes(codes, n_out, k, out)
        assert np.array_equal(out, want)
    same = codes.copy()
    _outcome_of_codes(same, n_out, k, same)
    assert np.array_equal(same, want)
