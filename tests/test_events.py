"""Events of the marks as rows (issue 23 item 1): each equals what the tracks give, their
intervals cover and stay inside their range, unresolved tracks count as no death."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import simkit
from simkit.core.result import Result, event_names, events_table, mean_ci, pc_names
from simkit.core.stats import proportion_ci
from simkit.models.party import Party

CAUSES = ("death_in_fight", "death_after_defeat", "death_after_fight")


@pytest.fixture(scope="module")
def kept():
    """A severe fight of a party with a repeated role, every track's end state kept."""
    model = Party(level=3, threat="severe", party="fighter,fighter,cleric", rules="seed000")
    return simkit.simulate(model, 3000, rng=23, keep_state=True)


def test_pc_names_index_repeated_roles():
    assert pc_names(("fighter", "fighter", "cleric")) == ("fighter1", "fighter2", "cleric")
    assert pc_names(("fighter", "rogue")) == ("fighter", "rogue")


def test_events_equal_the_tracks_end_states(kept):
    """Every death event counted track by track from ``keep_state``'s ``dead`` array."""
    res = kept
    assert res.counts["unresolved"] == 0  # (so every track's deaths are in its marks)
    dead = np.asarray(res.final.dead, dtype=bool)  # (n, P)
    deaths = dead.sum(axis=1)
    s = res.summary().set_index("outcome")
    expect = {
        "any_death": int((deaths >= 1).sum()),
        "deaths>=2": int((deaths >= 2).sum()),
        "tpk": int((deaths == 3).sum()),
        "death:fighter1": int(dead[:, 0].sum()),
        "death:fighter2": int(dead[:, 1].sum()),
        "death:cleric": int(dead[:, 2].sum()),
    }
    for name, count in expect.items():
        assert s.loc[name, "count"] == count, name
        assert res[name] == count / res.n
    assert 0 < expect["tpk"] < expect["any_death"] < res.n  # the check can tell them apart
    assert s.loc["expected_deaths", "mean"] == pytest.approx(deaths.mean())


def test_events_by_cause_equal_the_marks(kept):
    """Deaths by cause from the raw mark histograms, outcome row by outcome row."""
    res = kept
    s = res.summary().set_index("outcome")
    total = 0.0
    for ev in CAUSES:
        counts = res.marks["deaths" + ev[len("death") :]]  # (n_outcomes, values)
        tracks = sum(
            int(counts[o, v]) for o in range(counts.shape[0]) for v in range(1, counts.shape[1])
        )
        assert s.loc[ev, "count"] == tracks
        total += sum(
            v * int(counts[o, v]) for o in range(counts.shape[0]) for v in range(counts.shape[1])
        )
    assert total / res.n == pytest.approx(s.loc["expected_deaths", "mean"])  # causes add up
    assert s.loc[list(CAUSES), "count"].sum() >= s.loc["any_death", "count"]
    # slain after a defeat: every defeat, and only those, dies after a defeat
    assert s.loc["death_after_defeat", "count"] == res.counts["defeat"]


def test_table_leads_with_any_death_and_keeps_the_outcomes(kept):
    s = kept.summary()
    assert s["outcome"].iloc[0] == "any_death"
    outcomes = s[s["outcome"].isin(kept.outcomes)]
    assert list(outcomes["outcome"]) == list(kept.outcomes)
    assert outcomes["count"].sum() == kept.n
    assert list(kept.summary(events=False)["outcome"]) == list(kept.outcomes)
    assert set(event_names(kept.model)) == set(s["outcome"]) - set(kept.outcomes)


def test_unknown_name_lists_the_names_and_suggests(kept):
    with pytest.raises(KeyError, match=r"did you mean 'any_death'.*known: victory.*tpk"):
        kept["any_deth"]


def test_unresolved_tracks_count_as_no_death():
    """The issue's example: 83% unresolved after one round."""
    res = simkit.simulate(Party(max_rounds=1, monsters="24(hp=100000)"), 100, rng=1)
    s = res.summary().set_index("outcome")
    resolved = 1 - res["unresolved"]
    assert res["unresolved"] > 0.5
    assert s.loc["any_death", "p"] <= resolved + 1e-12  # (every resolved track may have one)
    assert s.loc["expected_deaths", "mean"] <= 4 * resolved + 1e-12
    assert 0 <= s.loc["expected_deaths", "ci_low"] <= s.loc["expected_deaths", "ci_high"] <= 4
    # rounds: an unresolved track counts as the horizon (1), an ended one its rounds
    h = res.marks["rounds"].sum(axis=0)
    rounds = (np.arange(len(h)) @ h + res.counts["unresolved"] * 1) / res.n
    assert s.loc["rounds", "mean"] == pytest.approx(rounds)
    assert 0 <= s.loc["rounds", "ci_low"] <= s.loc["rounds", "ci_high"] <= 1


def test_eight_clerics_interval_not_below_zero():
    res = simkit.simulate(Party(party=",".join(["cleric"] * 8)), 500, rng=3)
    s = res.summary().set_index("outcome")
    means = s[s["mean"].notna()]
    assert (means["ci_low"] >= 0).all() and (means["ci_low"] <= means["mean"]).all()
    assert s.loc["expected_deaths", "ci_high"] <= 8
    events = s[s["p"].notna()]
    assert ((events["ci_low"] >= 0) & (events["ci_high"] <= 1)).all()


def test_mean_ci_stays_in_its_range_and_is_wilson_on_zero_one():
    rng = np.random.default_rng(5)
    upper = rng.integers(1, 9, size=2000).astype(float)
    mean = rng.uniform(0, 1, size=2000) ** 3 * upper
    var = rng.uniform(0, 1, size=2000) * mean * (upper - mean)
    n = rng.integers(1, 500, size=2000)
    for up in (upper, None):
        low, high = mean_ci(mean, var, n, 0.95, up)
        assert (low >= 0).all() and (low <= mean + 1e-12).all() and (high >= mean - 1e-12).all()
        if up is not None:
            assert (high <= upper).all()
    # a 0/1 value: the Wilson interval of its count
    c = rng.integers(0, 101, size=50)
    p = c / 100
    low, high = mean_ci(p, p * (1 - p), 100, 0.9, 1)
    wl, wh = proportion_ci(c, 100, 0.9)
    np.testing.assert_allclose(low, wl, atol=1e-12)
    np.testing.assert_allclose(high, wh, atol=1e-12)


@pytest.mark.parametrize(
    "upper, probs, n",
    [
        (4, [0.8, 0.05, 0.02, 0.01, 0.12], 200),
        (None, [0.8, 0.05, 0.02, 0.01, 0.12], 200),
        (4, [0.5, 0.2, 0.1, 0.1, 0.1], 50),
        (None, [0.5, 0.2, 0.1, 0.1, 0.1], 50),
    ],
)
def test_mean_ci_covers_at_its_nominal_rate(upper, probs, n):
    """Coverage of the true mean over 4000 samples from a skewed death count (mostly
    none, sometimes everyone): within 5 standard errors of 95%."""
    values = np.arange(5.0)
    probs = np.array(probs)
    true = float(values @ probs)
    rng = np.random.default_rng(2311)
    reps = 4000
    h = rng.multinomial(n, probs, size=reps)  # (reps, 5)
    mean = h @ values / n
    var = h @ values**2 / n - mean**2
    low, high = mean_ci(mean, var, n, 0.95, upper)
    cover = float(((low <= true) & (true <= high)).mean())
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(cover - 0.95) < 5 * se, cover


def test_mean_ci_bounded_rare_deaths_do_not_undercover():
    """A rare death count (1% of tracks, one PC or all four): the few tracks above 0 do
    not make the bounded interval claim a small variance (at least 95% - 5 SE)."""
    values = np.arange(5.0)
    probs = np.array([0.99, 0.005, 0.0, 0.0, 0.005])
    rng = np.random.default_rng(2312)
    reps, n = 4000, 400
    h = rng.multinomial(n, probs, size=reps)
    mean = h @ values / n
    low, high = mean_ci(mean, h @ values**2 / n - mean**2, n, 0.95, 4)
    cover = float(((low <= values @ probs) & (values @ probs <= high)).mean())
    assert cover > 0.95 - 5 * np.sqrt(0.95 * 0.05 / reps), cover


def test_event_intervals_cover_at_their_nominal_rate():
    """Events read from synthetic mark histograms of known odds: each event's interval
    covers its true probability at the nominal 90%, within 5 standard errors."""
    model = Party(party="fighter,rogue,cleric")
    probs = np.array([0.7, 0.1, 0.05, 0.15])  # deaths 0..3
    true = {"any_death": 0.3, "deaths>=2": 0.2, "tpk": 0.15}
    rng = np.random.default_rng(77)
    reps, n = 600, 150
    hits = dict.fromkeys(true, 0)
    for h in rng.multinomial(n, probs, size=reps):
        marks = {"deaths": h[None, :].astype(np.int64)}
        res = Result(model, n, 0, np.zeros((len(model.outcomes), 1), np.int64), marks)
        t = events_table(res, 0.9).set_index("outcome")
        for name, p in true.items():
            hits[name] += int(t.loc[name, "ci_low"] <= p <= t.loc[name, "ci_high"])
    se = np.sqrt(0.9 * 0.1 / reps)
    for name, h in hits.items():
        assert abs(h / reps - 0.9) < 5 * se, (name, h / reps)


def test_sweep_rows_carry_the_events_and_means():
    """``sweep party``: every event and mean of a point, as ``simulate`` with the point's
    seed gives them (the rows ``any_death``... after the outcomes)."""
    df = simkit.sweep("party", {"threat": ["low", "severe"]}, n=400, rng=4)
    for _, point in df.groupby("threat"):
        seed = int(point["point_seed"].iloc[0])
        res = simkit.simulate(Party(threat=point["threat"].iloc[0]), 400, rng=seed)
        s = res.summary(exact=False).set_index("outcome")
        got = point.set_index("outcome")
        assert list(got.index[: len(res.outcomes)]) == list(res.outcomes)
        assert set(got.index) == set(s.index)
        for name in s.index:
            for col in ("count", "p", "ci_low", "ci_high", "mean"):
                a, b = got.loc[name, col], s.loc[name, col]
                assert (pd.isna(a) and pd.isna(b)) or a == pytest.approx(b), (name, col)


def test_models_lists_the_events():
    from simkit.testing import run_cli

    code, out, err = run_cli("models", "party")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "Names by kind" in flat and "tpk" in flat and "death:cleric" in flat
    assert "death_after_defeat" in flat and "expected_deaths" in flat
    # each name on the line of its kind
    kinds: dict = {}
    current = None
    for line in out.split("Names by kind", 1)[1].split("\n\n", 1)[0].split("\n    ")[1:]:
        words = line.split()
        if words and words[0] in ("outcome", "event", "mean"):
            current, words = words[0], words[1:]
        for w in words:
            kinds.setdefault(w.strip(",:"), current)
    assert kinds["victory"] == "outcome" and kinds["unresolved"] == "outcome"
    assert kinds["tpk"] == "event" and kinds["won"] == "event"
    assert kinds["expected_deaths"] == "mean"
    assert "victory (won, nobody died)" in flat
    code, out, err = run_cli("models", "party", "--format", "csv")
    assert code == 0 and "any_death deaths>=2" in out, err
    kinds = pd.read_csv(__import__("io").StringIO(out))["kinds"].iloc[0].split()
    assert "victory:outcome" in kinds and "won:event" in kinds
    assert "expected_deaths:mean" in kinds and "unresolved:outcome" in kinds


def test_survival_says_which_phase_a_step_is_in(kept):
    """Item 5 (part): the party's steps count its care after the fight; the survival
    table splits the tracks going during each step into fighting and in care."""
    d = kept.survival(exact=False)
    a = d[d["outcome"] == "active"].set_index("time")
    going = np.concatenate([[1.0], a["p"].to_numpy()[:-1]])  # going at a step's start
    np.testing.assert_allclose((a["in_fight"] + a["in_care"]).to_numpy()[1:], going[1:])
    h = kept.marks["rounds"].sum(axis=0)
    for t in (1, 3, 6):
        assert a.loc[t, "in_fight"] == pytest.approx(h[t:].sum() / kept.n)
    assert a.loc[1, "phase"] == "fight" and "care" in set(a["phase"])
    assert set(d["phase"]) <= {"", "fight", "care", "fight+care"}
    assert "phase" not in simkit.simulate(simkit.Dying(), 100, rng=1).survival().columns


def test_run_party_output_carries_the_events(tmp_path):
    """``run party -o FILE --format csv``: P(a PC dies) first, the events and means, the
    same numbers as ``summary()``; the issue's unresolved example through the CLI."""
    from simkit.testing import run_cli

    out = tmp_path / "o.csv"
    argv = ["run", "party", "-n", "100", "--seed", "1", "--set", "max_rounds=1"]
    argv += ["--set", "monsters=24(hp=100000)", "--format", "csv", "-o", str(out)]
    code, _, err = run_cli(*argv)
    assert code == 0, err
    df = pd.read_csv(out).set_index("outcome")
    assert df.index[0] == "any_death" and "tpk" in df.index and "expected_deaths" in df.index
    assert df.loc["any_death", "p"] <= 1 - df.loc["unresolved", "p"] + 1e-12
    assert 0 <= df.loc["expected_deaths", "ci_low"] <= df.loc["expected_deaths", "ci_high"] <= 4
    res = simkit.simulate(Party(max_rounds=1, monsters="24(hp=100000)"), 100, rng=1)
    assert df.loc["any_death", "count"] == res.event_count("any_death")
    assert "unresolved, counted as no death" in err


def test_level_changes_name_the_steps_from_the_tables():
    """The report's "what changes" column: a step that differs from the usual one is
    listed, with the numbers of ``pcs.role`` and of the lineup's creature."""
    from simkit.analysis.party_report import changes_text, level_changes
    from simkit.rules.pf2e import pcs

    d = level_changes(levels=range(7, 12))
    row = d[(d["level"] == 10) & (d["who"] == "fighter") & (d["stat"] == "attack")]
    a, b = pcs.role("fighter", 9).attack, pcs.role("fighter", 10).attack
    assert (int(row["before"].iloc[0]), int(row["after"].iloc[0])) == (a, b) == (20, 23)
    assert not ((d["who"] == "fighter") & (d["stat"] == "attack") & (d["level"] == 9)).any()
    boss = [Party(level=L, threat="severe").fighters.monsters[0] for L in (8, 9)]
    ac = d[(d["level"] == 9) & (d["stat"] == "ac") & d["who"].str.contains("creature")]
    assert list(ac[["before", "after"]].iloc[0]) == [boss[0].ac, boss[1].ac]
    assert [ln.split(":")[0] for ln in changes_text(d)] == ["7->8", "8->9", "9->10", "10->11"]


def test_unresolved_example_track_by_track():
    """The issue's example, track by track: a PC's death counts only on a track that
    ended (each track's outcome and end state kept)."""
    model = Party(max_rounds=1, monsters="24(hp=100000)")
    res = simkit.simulate(model, 100, rng=1, keep_state=True, keep_outcomes=True)
    ended = res.track_outcomes != res.outcomes.index("unresolved")
    dead = np.asarray(res.final.dead, dtype=bool) & ended[:, None]
    s = res.summary().set_index("outcome")
    assert s.loc["any_death", "count"] == dead.any(axis=1).sum()
    for k, pc in enumerate(pc_names(model.roles)):
        assert s.loc[f"death:{pc}", "count"] == dead[:, k].sum()
    assert s.loc["expected_deaths", "mean"] == pytest.approx(dead.sum(axis=1).mean())
