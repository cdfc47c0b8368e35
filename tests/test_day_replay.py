"""A replayed day is the run's day (issue 32 item 4): its outcome and marks are those the
run counted for that track, its fights are the fights the day played (their end states are
the states the day carried on with, checked inside the replay; their deaths by cause add
up to the day's), and ``Result.replay`` gives the same frames."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.core.params import ParamError
from simkit.core.streams import STREAM_SIZE
from simkit.models.day import Day
from simkit.models.day_replay import COLUMNS, PICKS, pick_track, replay, replay_tracks

#: Days over the steps a replay records: fights, both rests (the played short rest and
#: rest_when's), the road and fatigue, falls and the care after them, seed001's PE.
CASES = [
    dict(plan="moderate, fall(9), short_rest, severe, long_rest, moderate", level=3,
         rules="pf2e-core"),
    dict(plan="moderate, short_rest, severe, no_sleep, no_food, moderate", level=5,
         rules="seed001"),
    dict(fights=3, fight="moderate", between="short_rest", level=4, rules="pf2e-core",
         rest_when=0.6, after_death="end"),
    dict(plan="low, no_sleep, no_sleep, no_food, moderate, fall(15, one), bed_rest, severe",
         level=2, after_defeat="captured"),
]  # fmt: skip
N = 250  # tracks a case: 1,000 in all


def _same_as_run(rules, frame, res, t):
    assert frame.attrs["outcome"] == res.outcomes[res.track_outcomes[t]], (t, frame.attrs)
    for m in rules.marks:
        assert frame.attrs[m] == res.track_marks[m][t], (t, m, frame.attrs)


def assert_days_replay(rules, n: int, seed: int):
    """Run ``n`` days of ``rules`` and replay each: its outcome and marks are the run's.
    Returns the run (its outcomes kept)."""
    res = simkit.simulate(rules, n, seed, keep_outcomes=True)
    for t, frame in enumerate(replay_tracks(rules, seed, range(n), n)):
        _same_as_run(rules, frame, res, t)
    return res


def _fights_add_up(rules, frame):
    """The replayed fights' deaths by cause are the day's, and with the replayed cares of a
    Treat Wounds critical failure its deaths after a fight; a day lost in a fight ends with
    that fight lost."""
    from simkit.models.day_plan import RestStep

    fights = frame.attrs["fights"]
    for cause in ("deaths_in_fight", "deaths_after_defeat"):
        assert sum(f[cause] for f in fights) == frame.attrs[cause], (cause, frame.attrs)
    cares = frame.attrs["cares"]
    rest = [c for c in cares if isinstance(rules.steps[c["step"] - 1], RestStep)]
    after = sum(f["deaths_after_fight"] for f in fights) + sum(c["deaths"] for c in rest)
    assert after == frame.attrs["deaths_after_fight"], frame.attrs
    fall = sum(c["deaths"] for c in cares if c not in rest)
    assert fall <= frame.attrs["deaths_on_road"], frame.attrs
    if frame.attrs["outcome"] in ("defeat", "retreat") and fights:
        last = fights[-1]
        if last["step"] == frame.attrs["step"]:
            assert last["outcome"] == frame.attrs["outcome"], frame.attrs


@pytest.mark.parametrize("i", range(len(CASES)))
def test_a_replayed_day_is_the_runs_day(i):
    rules = Day(**CASES[i], engine="loop")
    res = simkit.simulate(rules, N, 40 + i, keep_outcomes=True)
    frames = replay_tracks(rules, 40 + i, range(N), N)
    outcomes = set()
    for t, frame in enumerate(frames):
        _same_as_run(rules, frame, res, t)
        _fights_add_up(rules, frame)
        outcomes.add(frame.attrs["outcome"])
        assert list(frame.columns) == list(COLUMNS)
        last = frame[frame.actor == "party"].iloc[-1]
        assert last.step == frame.attrs["step"] and "the day ends" in last.note
    assert len(outcomes) >= 2  # (the cases are not all one outcome)
    for how in PICKS:
        if how == "first-death" and not (res.track_marks["deaths"] > 0).any():
            continue
        t = pick_track(res, how)
        _same_as_run(rules, replay(rules, 40 + i, t, N), res, t)


def test_the_log_tells_the_day():
    """Each step's party row and each PC's state; a fight's log rows as the party's
    replay gives them, and its summary; a care's log rows in its step."""
    rules = Day(**CASES[0], engine="loop")
    res = simkit.simulate(rules, 500, 3, keep_outcomes=True)
    t = pick_track(res, "first-death")
    frame = replay(rules, 3, t, 500)
    deaths = res.track_marks["deaths"]
    assert deaths[t] > 0 and not (deaths[:t] > 0).any()
    party = frame[frame.actor == "party"]
    assert list(party.step) == list(range(res.track_marks["step"][t] + 1))
    states = frame[frame.action == "state"]
    assert len(states) == len(party) * rules.n_pcs
    assert set(states.cond) <= {"up", "stable", "dead"}
    assert (states[states.step == party.step.max()].cond == "dead").sum() == deaths[t]
    fight_rows = frame[frame["round"].notna()]  # (a fight's, or a care's: its rounds)
    steps = {f["step"] for f in frame.attrs["fights"] + frame.attrs["cares"]}
    assert set(fight_rows.step) == steps
    assert len(fight_rows) and (fight_rows.action == "strike").any()


def test_tracks_beyond_the_first_stream():
    """A run of more than one stream: a track of the full first stream and of the last,
    shorter one (its draws are those of the stream's own tracks)."""
    rules = Day(plan="moderate, fall(9), short_rest, moderate", level=3, rules="pf2e-core",
                engine="loop")  # fmt: skip
    n = STREAM_SIZE + 60
    res = simkit.simulate(rules, n, 8, keep_outcomes=True)
    tracks = [0, 1, STREAM_SIZE - 1] + list(range(STREAM_SIZE, n))
    for t, frame in zip(tracks, replay_tracks(rules, 8, tracks, n)):
        _same_as_run(rules, frame, res, t)


def test_result_replay_and_refusals():
    from simkit.models.party import Party

    rules = Day(**CASES[1], engine="loop")
    res = simkit.simulate(rules, 300, 5, keep_outcomes=True)
    for t in (0, 123, 299):
        frame = res.replay(t)
        _same_as_run(rules, frame, res, t)
        assert frame.equals(replay(rules, 5, t, 300))
    party = Party(level=5, threat="severe", engine="loop")
    pres = simkit.simulate(party, 300, 5, keep_outcomes=True)
    frame = pres.replay(7)
    assert frame.attrs["outcome"] == pres.outcomes[pres.track_outcomes[7]]
    with pytest.raises(ParamError, match="n=300"):
        res.replay(300)
    with pytest.raises(ParamError, match="0 or more"):
        res.replay(-1)
    with pytest.raises(ParamError, match="engine='loop'"):
        Day(level=3, engine="kernel")
    with pytest.raises(ParamError, match="party and day"):
        simkit.simulate(simkit.models.make_model("dying"), 50, 1).replay(0)
    with pytest.raises(ParamError, match="worst-decile"):
        pick_track(res, "best")


def test_recording_changes_nothing():
    """The recorder reads the block only: a block run with one is the block run without."""
    from simkit.models.day_replay import _Recorder

    rules = Day(**CASES[0], engine="loop")
    plain = rules.run_block(9, 0, 400, keep_outcomes=True)
    rec = _Recorder(rules, [0, 17, 399])
    seen = rules.run_block(9, 0, 400, keep_outcomes=True, _record=rec)
    assert np.array_equal(plain.hist, seen.hist)
    assert np.array_equal(plain.outcome_of[0][1], seen.outcome_of[0][1])
    for m in rules.marks:
        assert np.array_equal(plain.marks_of[0][1][m], seen.marks_of[0][1][m])
    assert all(len(rec.states[p]) >= 2 for p in (0, 17, 399))


def test_simkit_replay_day():
    """``simkit replay day``: the picked day's outcome on stderr as the run counted it, the
    log (CSV reads back), and one-line refusals."""
    import io

    import pandas as pd

    from simkit.testing import run_cli

    argv = ["replay", "day", "--set", "level=3", "--set", "rules=pf2e-core", "--seed", "1"]
    argv += ["--set", "plan=moderate, fall(9), short_rest, severe"]
    code, out, err = run_cli(*argv, "--pick", "first-death", "-n", "1000")
    assert code == 0, err
    rules = Day(plan="moderate, fall(9), short_rest, severe", level=3, rules="pf2e-core",
                engine="loop")  # fmt: skip
    run = simkit.simulate(rules, 1000, 1, keep_outcomes=True)
    t = pick_track(run, "first-death")
    assert f"track {t} of the run of 1,000 days on seed 1: " in err
    assert run.outcomes[run.track_outcomes[t]] in err
    assert "state" in out and "NaN" not in out and "<NA>" not in out
    code, out, err = run_cli(*argv, "--track", str(t), "-n", "1000", "--format", "csv")
    assert code == 0, err
    log = pd.read_csv(io.StringIO(out))
    assert list(log.columns) == list(COLUMNS)
    assert log.step.max() == run.track_marks["step"][t]
    code, _, err = run_cli(*argv, "--track", "1000", "-n", "1000")
    assert code == 2 and err.count("\n") == 1 and "-n" in err


def test_a_positional_run_replays_positionally():
    """A run on the streams' positional mode (what ``compare`` pairs) is replayed with
    ``positional=True``; read as a default-mode run its days differ (the dice are not
    the same), which the comparison must be able to see."""
    rules = Day(**CASES[0], engine="loop")
    n = 200
    res = simkit.simulate(rules, n, 12, keep_outcomes=True, positional=True)
    frames = replay_tracks(rules, 12, range(n), n, positional=True)
    for t, frame in enumerate(frames):
        _same_as_run(rules, frame, res, t)
    plain = replay_tracks(rules, 12, range(n), n)
    differs = [
        t
        for t, f in enumerate(plain)
        if any(f.attrs[m] != res.track_marks[m][t] for m in rules.marks)
    ]
    assert differs  # (the default mode's draws are not the positional run's)
