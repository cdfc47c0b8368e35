"""A fight model counts the tracks a call ends itself, compiled (the engine's
``absorb_counts`` hook, issue 28): the same histograms and marks as the engine's own
counts, to the last track; and the counts themselves against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.fight.block import ended_counts
from simkit.models.encounter import Encounter
from simkit.models.party import Party


class _EngineCounts(Party):
    """The party counted by the engine's own numpy path (no hook)."""

    absorb_counts = None  # type: ignore[assignment]


CASES = [
    dict(level=5),
    dict(level=3, threat="severe", max_rounds=3),  # unresolved tracks stay active
    dict(level=2, threat="severe", hp=0, start_dying=2),  # tracks that end at step 0
    dict(level=4, rules="seed001", threat="severe"),
    dict(level=6, rules="pf2e-core", lineup="pack", hero_points=2),
]


@pytest.mark.parametrize("kw", CASES)
def test_the_hook_counts_what_the_engine_counts(kw):
    n = 30_000
    hooked = simkit.simulate(Party(**kw), n, 11)
    plain = simkit.simulate(_EngineCounts(**kw), n, 11)
    assert np.array_equal(hooked.hist, plain.hist)
    assert set(hooked.marks) == set(plain.marks)
    for name in plain.marks:
        assert np.array_equal(hooked.marks[name], plain.marks[name]), name


def test_the_hook_with_a_start_and_end_states():
    rules = Party(level=3, threat="severe")
    start = rules.fresh_start(5000)
    hooked = simkit.simulate(rules, 5000, 2, start=start, keep_state=True)
    plain = simkit.simulate(_EngineCounts(level=3, threat="severe"), 5000, 2, start=start)
    assert np.array_equal(hooked.hist, plain.hist)
    for name in plain.marks:
        assert np.array_equal(hooked.marks[name], plain.marks[name]), name


@pytest.mark.parametrize("seed", range(5))
def test_ended_counts_equal_numpy(seed):
    rng = np.random.default_rng(seed)
    n, n_out, k = int(rng.integers(1, 500)), 4, int(rng.integers(1, 6))
    codes = rng.integers(-1, n_out * k, size=n)
    # (the last mark past the first guess at a width: counted again, wider)
    marks = rng.integers(0, [[1], [3], [40], [300 if seed % 2 else 60]], size=(4, n))
    marks = marks.astype(np.int32)
    per_code, counts, tops = ended_counts(codes, n_out, n_out * k, marks.T.copy().T)
    done = codes >= 0
    assert np.array_equal(per_code, np.bincount(codes[done], minlength=n_out * k))
    for m in range(4):
        v = marks[m, done]
        assert tops[m] == (v.max() if len(v) else 0)
        want = np.zeros((n_out, int(tops[m]) + 1), dtype=np.int64)
        np.add.at(want, (codes[done] % n_out, v), 1)
        assert np.array_equal(counts[m, :, : tops[m] + 1], want)
        assert not counts[m, :, tops[m] + 1 :].any()


def test_a_negative_mark_is_refused():
    with pytest.raises(ValueError, match="non-negative"):
        ended_counts(np.array([0, 1]), 4, 4, np.array([[1, -1]], dtype=np.int32))


class _EncounterEngineCounts(Encounter):
    absorb_counts = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    "kw",
    [
        dict(level=5),
        dict(level=3, dying_rules="seed001", long_term=True),
        dict(level=4, max_rounds=2),
    ],
)
def test_the_encounter_hook_counts_what_the_engine_counts(kw):
    hooked = simkit.simulate(Encounter(**kw), 20_000, 5)
    plain = simkit.simulate(_EncounterEngineCounts(**kw), 20_000, 5)
    assert np.array_equal(hooked.hist, plain.hist)
    for name in plain.marks:
        assert np.array_equal(hooked.marks[name], plain.marks[name]), name


@pytest.mark.parametrize("kw", CASES[:3])
def test_the_hook_with_each_tracks_outcome_kept(kw):
    """A paired comparison keeps each track's outcome and marks: the same with the hook."""
    n = 20_000
    opts = dict(positional=True, keep_outcomes=True)
    hooked = simkit.simulate(Party(**kw), n, 3, **opts)
    plain = simkit.simulate(_EngineCounts(**kw), n, 3, **opts)
    assert np.array_equal(hooked.hist, plain.hist)
    for name in plain.marks:
        assert np.array_equal(hooked.marks[name], plain.marks[name]), name
    assert np.array_equal(hooked.track_outcomes, plain.track_outcomes)
    assert hooked.track_marks is not None and plain.track_marks is not None
    for name, values in plain.track_marks.items():
        assert np.array_equal(hooked.track_marks[name], values), name
