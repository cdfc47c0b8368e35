"""The compiled fight loop = the party's scalar reference, track by track, on the same dice.

The reference (:mod:`simkit.models.party_ref`, written from the rules, independent of the
loop) reads a round's draws by name; :mod:`simkit.models.party_replay` draws them lazily, in
the order the reference reads them, from the loop's dice contract (a named contract both
sides keep, not shared code: its docstring states it). Every outcome, end step, mark and end
field must agree on every track; and a replayed track (its log) is the run's track.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.fight import block, tables
from simkit.fight.loop import CARRIED, OUT_MARK0, OUT_OUTCOME, OUT_STEP
from simkit.fight.state import COND, HEALS, HERO, HP, MARKS, PP, SLOTS, WOUNDED
from simkit.models.party import OUTCOMES, Party
from simkit.models.party_replay import play


def _reference_track(rules: Party, key63: int):
    """(outcome or -1, end step, marks, end fields by PC) of one track on the reference."""
    tr = play(rules, key63)
    cond_code = {"up": 0, "dying": 1, "stable": 2, "dead": 3}
    ends = [
        (p["hp"], cond_code[p["cond"]], p["hero"], p["slots"], p["heals"], p["wounded"], p["pp"])
        for p in tr["pcs"]
    ]
    return tr["code"], tr["step"], [tr[m] for m in MARKS], ends


def assert_loop_is_reference(rules: Party, n: int, salt: int, what=None) -> set[int]:
    """``n`` tracks of ``rules`` on the compiled loop (fresh starts, dice keys salted by
    ``salt``) and each again on the reference: the same outcome, end step, marks and end
    fields, track by track. Returns the outcome codes seen."""
    T = tables.pack(tables.build(rules))
    keys = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(
        salt
    )
    out, ends = block.run(T, keys, rules.max_rounds)
    fields = [CARRIED.index(f) for f in (HP, COND, HERO, SLOTS, HEALS, WOUNDED, PP)]
    seen = set()
    for t, key in enumerate(keys):
        ref = _reference_track(rules, int(key) >> 1)
        loop = (
            int(out[t, OUT_OUTCOME]),
            int(out[t, OUT_STEP]),
            [int(v) for v in out[t, OUT_MARK0:]],
            [tuple(int(ends[t, k, f]) for f in fields) for k in range(rules.n_pcs)],
        )
        assert loop == ref, (what or rules, t, OUTCOMES, loop, ref)
        seen.add(ref[0])
    return seen


CASES = [
    dict(level=5, threat="severe"),
    dict(level=1, threat="extreme", rules="pf2e-core"),
    dict(level=3, threat="severe", target_downed="sometimes", downed_chance=0.5),
    dict(level=6, threat="extreme", target_downed="always", downed_pick="random"),
    dict(level=7, threat="moderate", lineup="pack", pc_target="spread"),
    dict(level=5, threat="extreme", retreat_at=2, monster_target="weakest"),
    dict(level=2, threat="severe", hp=0, start_dying=2),
    dict(level=5, threat="severe", trait="nonlethal", after_defeat="captured"),
    dict(level=4, threat="severe", hero_policy="immediately", hero_points=2),
    dict(level=5, threat="extreme", rules="pf2e-core", wounded_adds="every_hit"),
    dict(level=9, threat="severe", first_aid_natural=True, check_penalty=-2),
    dict(level=5, threat="severe", rules="seed001"),
    dict(level=4, threat="extreme", rules="seed001", spend=2, natural=True, zero_pp="end_of_turn"),
    dict(level=3, threat="severe", rules="seed001", trait="nonlethal", pe_damage="hp_only"),
    dict(level=12, threat="severe", lineup="boss_and_minions", map="agile", attacks=3),
    dict(level=5, threat="severe", monsters="8,5,5", area_chance=0.5, area_uses=2),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_loop_is_the_reference_track_by_track(i):
    assert_loop_is_reference(Party(**CASES[i], engine="loop"), 150, i, CASES[i])


@pytest.mark.parametrize("kw", [CASES[0], CASES[1], CASES[11]])
def test_a_replayed_track_is_the_runs_track(kw):
    """Issue 32: a replay's outcome and marks are those the run counted for that track (200
    tracks of a run on the loop), and its log tells the fight."""
    import simkit
    from simkit.models.party_replay import replay

    rules = Party(**kw, engine="loop")
    n = 200
    res = simkit.simulate(rules, n, 17, keep_outcomes=True)
    for t in range(n):
        frame = replay(rules, 17, t)
        want = res.outcomes[res.track_outcomes[t]]
        assert frame.attrs["outcome"] == want, (t, frame.attrs, want)
        for m in rules.marks:
            assert frame.attrs[m] == res.track_marks[m][t], (t, m)
    assert set(frame["action"]) <= {
        "strike", "spell", "heal", "first aid", "recovery check", "agonising turn",
        "area effect", "dies",
    }  # fmt: skip
    assert (frame["round"] >= 0).all() and len(frame) > 0


def test_every_pick_replays_the_runs_track():
    import simkit
    from simkit.core.params import ParamError
    from simkit.models.party_replay import PICKS, pick_track, replay

    rules = Party(level=5, threat="severe", engine="loop")
    res = simkit.simulate(rules, 1_000, 3, keep_outcomes=True)
    deaths = res.track_marks["deaths"]
    for how in PICKS:
        t = pick_track(res, how)
        frame = replay(rules, 3, t)
        assert frame.attrs["outcome"] == res.outcomes[res.track_outcomes[t]]
        assert frame.attrs["deaths"] == deaths[t]
        if how == "first-death":
            assert deaths[t] > 0 and not (deaths[:t] > 0).any()
            assert "dies" in set(frame["action"])
        if how == "worst-decile":
            assert np.mean(deaths > deaths[t]) <= 0.1
    with pytest.raises(ParamError, match="median, worst-decile, first-death"):
        pick_track(res, "best")


def test_simkit_replay_prints_the_runs_track():
    """``simkit replay party``: the log of the track a pick finds (its outcome on stderr as
    the run counted it), CSV that reads back, and one-line refusals."""
    import io

    import pandas as pd

    import simkit
    from simkit.models.party_replay import pick_track
    from simkit.testing import run_cli

    argv = ["replay", "party", "--set", "level=5", "--set", "threat=severe", "--seed", "1"]
    code, out, err = run_cli(*argv, "--pick", "first-death", "-n", "2000")
    assert code == 0, err
    rules = Party(level=5, threat="severe", engine="loop")
    run = simkit.simulate(rules, 2000, 1, keep_outcomes=True)
    t = pick_track(run, "first-death")
    assert f"track {t} of the run on seed 1: {run.outcomes[run.track_outcomes[t]]}" in err
    assert "dies" in out and "NaN" not in out and "<NA>" not in out
    code, out, err = run_cli(*argv, "--track", str(t), "--format", "csv")
    assert code == 0, err
    log = pd.read_csv(io.StringIO(out))
    assert list(log.columns[:4]) == ["round", "actor", "action", "target"]
    assert (log.action == "dies").sum() == run.track_marks["deaths"][t]
    code, _, err = run_cli("replay", "dying", "--track", "1", "--seed", "1")
    assert code == 2 and err.count("\n") == 1 and "party or day" in err
    code, _, err = run_cli("replay", "party", "--track", "-1", "--seed", "1")
    assert code == 2 and "--track" in err
