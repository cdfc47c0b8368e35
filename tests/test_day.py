"""The adventuring day (models/day.py, models/day_plan.py): plan, fights in a row, rests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simkit import ParamError, simulate
from simkit.models import make_model
from simkit.models.day_plan import FallStep, FightStep, RestStep, parse_plan, plan_text
from simkit.testing import model_seed, run_cli

SEED = model_seed("day")


# -- the plan ---------------------------------------------------------------------------
def test_plan_parses_every_step_kind_and_writes_it_back():
    steps = parse_plan(
        "moderate, xp(80, pack), [7(hp=150;attack=18), 5, 5], short_rest, long_rest, "
        "bed_rest, no_sleep, no_food, fall(9), fall(uniform:2-12, one), severe(pack)"
    )
    assert len(steps) == 11
    assert steps[0] == FightStep(threat="moderate")
    assert steps[1] == FightStep(xp=80, lineup="pack")
    assert steps[2] == FightStep(monsters="7(attack=18;hp=150),5,5")
    assert steps[3] == RestStep("short_rest")
    assert steps[9] == FallStep("uniform:2-12", "one")
    assert parse_plan(plan_text(steps)) == steps


@pytest.mark.parametrize(
    "plan, names",
    [
        ("", "empty"),
        ("moderate,,low", "plan step 2"),
        ("moderate, moderat", "plan step 2 ('moderat')"),
        ("fall(-3)", "fall height '-3'"),
        ("fall(9, two)", "all or one"),
        ("[99]", "plan step 1"),
        ("[not_a_creature]", "not_a_creature"),
        ("xp(5000)", "[0, 2000]"),
        ("severe(crowd)", "boss, boss_and_minions, pack"),
    ],
)
def test_a_bad_plan_is_one_line_naming_the_step(plan, names):
    with pytest.raises(ParamError) as exc:
        make_model("day", plan=plan)
    msg = str(exc.value)
    assert "\n" not in msg and names in msg and msg.startswith("plan=")


def test_cli_runs_a_plan_and_refuses_a_bad_one(tmp_path):
    out = tmp_path / "day.csv"
    code, _, err = run_cli(
        "run", "day", "--set", "plan=low, short_rest, low", "-n", "300", "--seed", "1",
        "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert out.exists()
    bad = tmp_path / "bad.csv"
    code, _, err = run_cli("run", "day", "--set", "plan=low, nap", "-n", "300", "-o", str(bad))
    assert code != 0 and "plan step 2 ('nap')" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and not bad.exists()


def test_plan_and_fights_are_exclusive_and_fights_repeats():
    with pytest.raises(ParamError, match="exclusive"):
        make_model("day", plan="low", fights=2)
    day = make_model("day", fights=3, fight="severe", between="short_rest")
    assert day.plan_text == "severe, short_rest, severe, short_rest, severe"
    assert day.horizon == 5


# -- the checks of issue 20 ------------------------------------------------------------------
def test_one_fight_is_exactly_the_party():
    n = 1000
    for extra in ({}, {"rules": "pf2e-core", "level": 3}):
        day = simulate(make_model("day", plan="severe", **extra), n, SEED)
        party = simulate(make_model("party", threat="severe", **extra), n, SEED)
        names = dict(survived="victory", survived_with_deaths="victory_with_deaths")
        assert {names.get(k, k): v for k, v in day.counts.items()} == party.counts
        order = [party.outcomes.index(names.get(k, k)) for k in day.outcomes[:4]]
        for mark in ("deaths", "dead_mask"):
            assert np.array_equal(day.marks[mark], party.marks[mark][order])
        assert np.array_equal(day.hist[:, 1], party.hist[order].sum(axis=1))


@pytest.mark.slow
def test_fights_are_independent_when_every_rest_restores_everything(monkeypatch):
    """A test-only night's rest that brings every PC back to full (with the hero points,
    slots and heals a long rest gives back): P(no death and no defeat over K fights) is the
    single fight's P(victory) to the K (within 5 standard errors)."""
    import simkit.rules.pf2e.rest as pf2e_rest

    monkeypatch.setattr(pf2e_rest, "night_rest_hp", lambda hp, hp_max, *a, **k: hp_max)
    n, K = 4000, 3
    common = dict(level=3, rules="pf2e-core")
    day = simulate(
        make_model(
            "day", fights=K, fight="severe", between="long_rest", hero_refresh="long_rest", **common
        ),
        n,
        SEED,
    )
    party = simulate(make_model("party", threat="severe", **common), n, SEED + 1)
    p1 = party.counts["victory"] / n
    got = day.counts["survived"] / n
    se = math.sqrt((K * p1 ** (K - 1)) ** 2 * p1 * (1 - p1) / n + p1**K * (1 - p1**K) / n)
    assert abs(got - p1**K) <= 5 * se, (got, p1**K, se)
    assert p1**K < 0.9  # (the check has something to tell apart)


def _p_death(result) -> tuple[float, float]:
    n = result.n
    deaths = result.marks["deaths"].sum(axis=0)
    p = deaths[1:].sum() / n
    return p, math.sqrt(max(p * (1 - p), 1 / n) / n)


@pytest.mark.slow
def test_more_fights_never_safer_a_rest_never_deadlier():
    n = 3000
    common = dict(level=3, rules="pf2e-core")
    one = _p_death(simulate(make_model("day", plan="moderate", **common), n, SEED))
    three = _p_death(simulate(make_model("day", fights=3, between="short_rest", **common), n, SEED))
    assert three[0] >= one[0] - 5 * math.hypot(one[1], three[1])
    assert three[0] > one[0]
    tired = _p_death(simulate(make_model("day", plan="moderate, moderate", **common), n, SEED))
    rested = _p_death(
        simulate(make_model("day", plan="moderate, long_rest, moderate", **common), n, SEED)
    )
    assert rested[0] <= tired[0] + 5 * math.hypot(tired[1], rested[1])


def test_every_step_kind_runs_and_counts_add_up():
    plan = (
        "moderate, short_rest, low, fall(9), no_sleep, no_food, [3, 3], "
        "fall(uniform:2-12, one), long_rest, bed_rest, fall(11)"
    )
    for rules in ("seed000", "pf2e-core", "seed001"):
        day = make_model("day", plan=plan, level=3, rules=rules, rest_when=0.6)
        res = simulate(day, 200, SEED, keep_state=True)
        assert sum(res.counts.values()) == 200
        assert res.hist.shape == (4, day.horizon + 1)
        final = res.final
        assert len(final) == 200 and (final.hp[final.dead] == 0).all()
        assert (final.hp <= final.hp_max).all()


def test_a_fall_of_12_m_kills_and_ends_the_day():
    res = simulate(make_model("day", plan="fall(12), low"), 200, SEED)
    assert res.counts["defeat"] == 200
    assert (res.marks["deaths"].sum(axis=0)[4]) == 200
    assert (res.marks["step"][2, 1]) == 200  # ended at step 1


def test_after_death_end_stops_the_day():
    plan = "severe, severe, severe"
    on = simulate(make_model("day", plan=plan, level=3), 600, SEED)
    end = simulate(make_model("day", plan=plan, level=3, after_death="end"), 600, SEED)
    # with end, a day with deaths ends at the step of its first death
    k = end.outcomes.index("survived_with_deaths")
    first, step = end.marks["first_death"][k], end.marks["step"][k]
    width = max(len(first), len(step))
    assert np.array_equal(
        np.pad(first, (0, width - len(first))), np.pad(step, (0, width - len(step)))
    )
    assert first.sum() > 0
    # (a track that ended draws nothing later, so the others' draws differ: no equality)
    assert end.counts["survived_with_deaths"] > 0 and on.n == end.n


@pytest.mark.slow
def test_fatigue_reaches_the_fights_and_a_long_rest_clears_it():
    n = 1500
    base = simulate(make_model("day", plan="no_sleep, severe", level=3), n, SEED)
    tired = simulate(
        make_model("day", plan="no_sleep, no_food, no_sleep, no_food, severe", level=3), n, SEED
    )
    cleared = simulate(
        make_model("day", plan="no_sleep, no_food, no_sleep, no_food, long_rest, severe", level=3),
        n,
        SEED,
    )
    pb, pt = _p_death(base), _p_death(tired)
    assert pt[0] > pb[0] + 3 * math.hypot(pb[1], pt[1])  # -4 to every d20 hurts
    assert cleared.counts["defeat"] < tired.counts["defeat"]


@pytest.mark.slow
def test_block_size_changes_no_number_through_every_step_kind():
    from simkit.core.streams import STREAM_SIZE

    day = make_model(
        "day", plan="low, fall(9, one), short_rest, no_sleep, low, long_rest, fall(8)",
        rules="pf2e-core", rest_when=0.8, level=2,
    )  # fmt: skip
    n = STREAM_SIZE + 123
    a = simulate(day, n, SEED, block_size=1, keep_state=True)
    b = simulate(day, n, SEED, keep_state=True)
    assert a.counts == b.counts and np.array_equal(a.hist, b.hist)
    for name in day.marks:
        assert np.array_equal(a.marks[name], b.marks[name]), name
    for name in a.observed:
        assert np.array_equal(a.observed[name], b.observed[name]), name
    assert np.array_equal(a.final.hp, b.final.hp)


def test_death_by_step_is_the_cumulative_first_death():
    from simkit.models.day import death_by_step

    res = simulate(make_model("day", plan="severe, short_rest, severe", level=2), 400, SEED)
    curve = death_by_step(res)
    assert curve["step_text"].tolist() == ["severe", "short_rest", "severe"]
    assert (np.diff(curve["p"]) >= 0).all() and curve["p"].iloc[1] == curve["p"].iloc[0]
    deaths = res.marks["deaths"]
    assert curve["p"].iloc[-1] == deaths[:, 1:].sum() / res.n
    assert (curve["ci_low"] <= curve["p"]).all() and (curve["p"] <= curve["ci_high"]).all()


# -- paired (positional) streams ------------------------------------------------------------
def test_positional_streams_tie_each_tracks_draws_to_the_track():
    """On positional streams a track's dice do not depend on which other tracks are still
    going: a day lived through without a death under after_death=continue is the same day
    under after_death=end (whose other days stop at their first death); on the default
    streams the ended days shift the others' draws."""
    plan = "moderate, short_rest, low, fall(6, one), moderate"
    common = dict(plan=plan, level=3, rules="pf2e-core")
    share = {}
    for positional in (True, False):
        runs = [
            simulate(
                make_model("day", after_death=a, **common),
                1500,
                SEED,
                positional=positional,
                keep_outcomes=True,
            )
            for a in ("continue", "end")
        ]
        lived = runs[0].track_outcomes == 0  # survived, no death
        assert lived.sum() > 100
        share[positional] = (runs[1].track_outcomes[lived] == 0).mean()
        assert np.bincount(runs[0].track_outcomes, minlength=5)[:4].tolist() == [
            runs[0].counts[o] for o in runs[0].outcomes[:4]
        ]
    assert share[True] == 1.0 and share[False] < 0.9, share


def test_compare_day_pairs_its_variants():
    code, out, err = run_cli(
        "compare", "day", "--set", "plan=low, short_rest, low", "--set", "level=3",
        "-n", "400", "--seed", "2", "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    import io

    import pandas as pd

    df = pd.read_csv(io.StringIO(out))
    assert set(df["variant"]) >= {"seed000", "pf2e-core"} and (df["n"] == 400).all()
    outcomes = df[df["outcome"].isin(["survived", "defeat"]) & (df["variant"] != "seed000")]
    assert outcomes["paired"].all()  # the outcomes' differences are tested track by track
    events = df[df["outcome"].isin(["any_death", "expected_deaths"]) & (df["variant"] != "seed000")]
    assert len(events) == 4 and events["paired"].all()  # and the events' and means' too


def test_keep_outcomes_gives_each_days_marks():
    """simulate(day, keep_outcomes=True).track_marks: each track's marks as its end state
    has them (0 for an unresolved day), the same whatever the block size."""
    day = make_model("day", plan="moderate, short_rest, moderate", level=2, max_rounds=3)
    a = simulate(day, 700, SEED, keep_outcomes=True, keep_state=True, positional=True)
    b = simulate(day, 700, SEED, keep_outcomes=True, block_size=1, positional=True)
    unresolved = a.track_outcomes == len(day.outcomes)
    assert unresolved.any() and (~unresolved).any()
    assert set(a.track_marks) == set(day.marks)
    for name in day.marks:
        mine = np.where(unresolved, 0, np.asarray(getattr(a.final, name)))
        assert np.array_equal(a.track_marks[name], mine), name
        assert np.array_equal(b.track_marks[name], a.track_marks[name]), name


def test_compare_day_pairs_any_death_narrower_than_independent():
    """Two rest rules (or hero point refreshes) on one seed share a day's dice track by
    track: the paired any_death and expected_deaths intervals are narrower than the
    independent ones (measured at n = 3,000, level 3: x3.1 and x3.9 narrower)."""
    from simkit.analysis.compare import compare

    day = make_model("day", level=3, rules="pf2e-core")
    day = day.replace(plan="moderate, short_rest, moderate, long_rest, moderate")
    for key, a, b in (("rest_rules", "seeds", "pf2e"), ("hero_refresh", "never", "long_rest")):
        v = {a: day.replace(**{key: a}), b: day.replace(**{key: b})}
        row = compare(v, None, 3000, 5).set_index(["variant", "outcome"]).loc[b]
        width = row["diff_ci_high"] - row["diff_ci_low"]
        width_ind = row["diff_independent_ci_high"] - row["diff_independent_ci_low"]
        for name in ("any_death", "expected_deaths"):
            assert row.loc[name, "paired"], (key, name)
            assert width[name] < width_ind[name] / 1.5, (key, name, width[name], width_ind[name])


# -- events and marks --------------------------------------------------------------------------
EVERY_KIND = (
    "moderate, short_rest, low, fall(9), no_sleep, no_food, [3, 3], "
    "fall(uniform:2-12, one), long_rest, bed_rest, fall(11), severe"
)


def _mark_hist(final, name: str, n_out: int) -> np.ndarray:
    done = final.outcome < n_out
    values = np.asarray(getattr(final, name))[done].astype(np.int64)
    out = np.asarray(final.outcome)[done].astype(np.int64)
    width = int(values.max()) + 1 if values.size else 1
    return np.bincount(out * width + values, minlength=n_out * width).reshape(n_out, width)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    width = max(a.shape[1], b.shape[1])
    pad = [np.pad(x, ((0, 0), (0, width - x.shape[1]))) for x in (a, b)]
    return bool(np.array_equal(*pad))


@pytest.mark.parametrize(
    "params",
    [
        dict(rules="seed000", party="fighter,fighter,cleric", after_defeat="slain"),
        dict(rules="pf2e-core", rest_when=0.7, after_death="end"),
        dict(rules="seed001", after_defeat="captured", max_rounds=3),
    ],
)
def test_events_are_what_the_marks_give_track_by_track(params):
    day = make_model("day", plan=EVERY_KIND, level=3, **params)
    n = 2000 if "max_rounds" in params else 600  # (most days cut at max_rounds=3: more days)
    res = simulate(day, n, SEED, keep_state=True)
    f, n_out = res.final, len(day.outcomes)
    names = day.pc_names
    assert len(set(names)) == day.n_pcs
    if "fighter,fighter" in params.get("party", ""):
        assert names[:2] == ("fighter1", "fighter2")
    done = f.outcome < n_out  # (an unresolved day records no mark: in no event)
    # each track's marks from its end state
    assert (f.deaths == f.dead.sum(axis=1)).all()
    assert (f.dead_mask == (f.dead << np.arange(day.n_pcs)).sum(axis=1)).all()
    from simkit.models.day import CAUSES

    assert (sum(getattr(f, c) for c in CAUSES) == f.deaths).all()
    assert ((f.first_death > 0) == (f.deaths > 0)).all()
    assert ((f.first_death <= f.step) & (f.step >= 1) & (f.step <= day.horizon)).all()
    # the engine's marks are their histograms, and the events their counts
    for name in day.marks:
        assert _same(res.marks[name], _mark_hist(f, name, n_out)), name
    counts = {
        "any_death": (done & (f.deaths > 0)).sum(),
        "tpk": (done & (f.deaths == day.n_pcs)).sum(),
        **{f"death:{pc}": (done & f.dead[:, k]).sum() for k, pc in enumerate(names)},
        **{"death_" + c[7:]: (done & (getattr(f, c) > 0)).sum() for c in CAUSES},
    }
    for event, count in counts.items():
        assert res.event_count(event) == count, event
    # deaths per step (observed, over the days that played it) add up to the deaths
    per_step = res.observed["deaths"]
    assert (per_step * np.arange(per_step.shape[1])).sum() == f.deaths.sum()
    for t in range(1, day.horizon + 1):
        assert per_step[t].sum() == (f.step >= t).sum()
        assert per_step[t, 1:].sum() >= (f.first_death == t).sum()
        if isinstance(day.steps[t - 1], FightStep):
            assert res.observed[f"alive:{names[0]}"][t - 1].sum() == (f.step >= t).sum()
    assert counts["death_on_road"] > 0 and res.counts["unresolved"] + done.sum() == res.n


def test_day_summary_is_what_is_left_at_each_fights_start():
    from simkit.analysis.day_report import SUMMARY_COLUMNS, day_summary

    for rules, used, unused in (("pf2e-core", "hero", "pp"), ("seed001", "pp", "hero")):
        day = make_model(
            "day", plan="low, short_rest, moderate, long_rest, low", level=4, rules=rules
        )
        res = simulate(day, 500, SEED, keep_state=True)
        df = day_summary(res)
        assert tuple(df.columns) == SUMMARY_COLUMNS
        assert df["step"].unique().tolist() == [1, 3, 5]
        assert used in set(df["quantity"]) and unused not in set(df["quantity"])
        assert not ((df["pc"] == "fighter") & (df["quantity"] == "slots")).any()
        first = df[df["fight"] == 1]
        assert (first["mean"] == first["full"]).all()  # every day starts with everything
        for t in (1, 3, 5):
            going = df[(df["step"] == t) & (df["quantity"] == "going")].iloc[0]
            assert going["mean"] == (res.final.step >= t).mean()
            rows = df[(df["step"] == t) & (df["pc"] != "party")]
            assert (rows["n"] == (res.final.step >= t).sum()).all()
        ok = df["n"] > 0
        assert ((df["ci_low"] <= df["mean"]) & (df["mean"] <= df["ci_high"]))[ok].all()
        assert (df["ci_high"] <= df["full"])[ok].all()
        hp = df[(df["fight"] == 2) & (df["quantity"] == "hp")]
        assert (hp["mean"] < hp["full"]).all()  # a fight costs HP


def test_cli_run_day_prints_the_designers_notes():
    code, out, err = run_cli(
        "run", "day", "--set", "plan=low, short_rest, moderate", "--set", "level=4",
        "-n", "500", "--seed", "3",
    )  # fmt: skip
    assert code == 0, err
    notes = [x for x in err.splitlines() if x.startswith("simkit: note: ")]
    assert notes == [  # (seed000: the seeds' rest, one line for the rest that did nothing)
        "simkit: note: step 2 (short_rest) changed nothing in any of the 500 days that "
        "reached it: under the seeds' rest a short rest heals no HP (rest_rules=pf2e: Treat "
        "Wounds)"
    ]
    lines = [x for x in err.splitlines() if x.startswith("simkit: ") and x not in notes]
    assert "plan (3 steps): low, short_rest, moderate" in lines[0]
    assert lines[1].startswith("simkit: P(a PC dies) ")
    assert "1 low " in lines[2] and "3 moderate " in lines[2]
    res = simulate(make_model("day", plan="low, short_rest, moderate", level=4), 500, 3)
    p_any = f"{100 * res['any_death']:.2f}% ["  # the curve's last step is the day's
    assert (
        lines[1].startswith(f"simkit: P(a PC dies) {p_any}") and f"3 moderate {p_any}" in lines[2]
    )


def test_rest_when_says_in_one_line_where_it_adds_no_rest():
    seeds = make_model("day", plan="low, moderate", rest_when=0.5)
    assert "seeds' rest" in seeds.rest_when_note and "\n" not in seeds.rest_when_note
    no_medic = make_model("day", plan="low", rest_when=0.5, rest_rules="pf2e", party="fighter")
    assert "Medicine" in no_medic.rest_when_note
    assert make_model("day", plan="low", rest_when=0.5, rules="pf2e-core").rest_when_note is None
    assert make_model("day", plan="low").rest_when_note is None
    # it adds no rest indeed: the same numbers as without it
    a = simulate(seeds, 300, SEED)
    b = simulate(make_model("day", plan="low, moderate"), 300, SEED)
    assert a.counts == b.counts
    code, _, err = run_cli("run", "day", "--set", "plan=low", "--set", "rest_when=0.5", "-n", "50")
    assert code == 0 and f"simkit: note: {seeds.rest_when_note}" in err.splitlines()


def test_a_day_of_k_fights_is_the_first_k_fights_of_a_longer_day():
    """What day_fights_by_level reads: the first K fights of a day of 3 are, track by
    track, the day of K fights on the same seed."""
    from simkit.analysis.day_report import fights_by_level

    df = fights_by_level(300, 5, levels=(3,), rules=("pf2e-core",), fights=(1, 2, 3))
    for row in df.itertuples():
        day = make_model("day", fights=row.fights, between=row.between, level=3, rules="pf2e-core")
        assert simulate(day, 300, int(row.point_seed)).event_count("any_death") == row.count
    assert df["count"].iloc[-1] > df["count"].iloc[0]


def test_a_night_gives_back_the_stamina_points():
    """R1-09: PE back in full after a night's rest (seed 001's fights spend them, AP-17);
    a short rest with pe_rest=never gives none back."""
    for plan, pe_rest, full in (
        ("moderate, long_rest", "never", True),
        ("moderate, short_rest", "never", False),
    ):
        day = make_model("day", plan=plan, rules="seed001", level=3, pe_rest=pe_rest)
        f = simulate(day, 300, SEED, keep_state=True).final
        alive = ~f.dead
        assert ((f.pe == f.pe_max)[alive].all()) == full


@pytest.mark.parametrize("pe_rest", ["spare_pp", "any_pp"])
def test_a_short_rest_gives_stamina_for_a_pp(pe_rest):
    """R1-09 under A1-8: after the same fight (the same seed), a short rest leaves each
    living PC the PE and PP of rules.rest.pe_after_short_rest (keeping its stabilisation
    cost under spare_pp), a dead PC as it was; seed000 spends no PP on PE it does not use."""
    from simkit.rules.rest import pe_after_short_rest

    def end(pe_rest, rules="seed001"):
        day = make_model("day", plan="severe, short_rest", rules=rules, level=3, pe_rest=pe_rest)
        return day, simulate(day, 400, SEED, keep_state=True).final

    day, before = end("never")
    _, after = end(pe_rest)
    keep = np.array([day.base_party.stabilize_cost(k) for k in range(day.n_pcs)])
    pe, pp = pe_after_short_rest(before.pe, before.pe_max, before.pp, keep[None, :], pe_rest)
    alive = ~before.dead
    assert np.array_equal(after.dead, before.dead)
    assert np.array_equal(after.pe, np.where(alive, pe, before.pe))
    assert np.array_equal(after.pp, np.where(alive, pp, before.pp))
    spent = alive & (after.pp < before.pp)
    assert spent.sum() > 20 and (after.pe[spent] == after.pe_max[spent]).all()
    if pe_rest == "spare_pp":  # some kept their last PPs to stabilise
        assert (alive & (before.pe < before.pe_max) & ~spent).any()
    _, a000 = end(pe_rest, "seed000")
    _, b000 = end("never", "seed000")
    assert np.array_equal(a000.pp, b000.pp) and np.array_equal(a000.pe, b000.pe)


def test_rest_when_rests_for_stamina_under_seed001():
    """Under the seeds' rest a short rest helps a seed-001 party (a PP for its PE), so
    rest_when adds rests there: fewer deaths over two severe fights (level 5), none added
    with pe_rest=never (the note says so)."""
    n = 600
    plain = make_model("day", plan="severe, severe", rules="seed001", level=5)
    rests = plain.replace(rest_when=0.9)
    assert rests.rest_when_note is None
    assert "pe_rest" in rests.replace(pe_rest="never").rest_when_note
    died = [simulate(d, n, SEED).event_count("any_death") for d in (plain, rests)]
    p = sum(died) / (2 * n)
    se = math.sqrt(2 * p * (1 - p) / n)
    assert died[1] / n < died[0] / n - 5 * se, died


def test_a_stable_pc_wakes_after_the_time_wake_after_names():
    """R0-08 (``wake_after``): a PC stable at 0 HP after a fight wakes at 1 HP at the end of
    a short rest under ten_minutes (and hour, a 60-minute rest), not under hour after
    short_rest(once) (ten minutes), nor by default (long_rest: only a night's healing)."""
    import dataclasses

    import simkit
    from simkit.models import make_model

    def down(wake_after, plan):
        day = make_model("day", level=3, plan=plan, party="fighter,rogue,wizard")
        res = simkit.simulate(
            dataclasses.replace(day, wake_after=wake_after), 4000, 3, keep_state=True
        )
        end = res.final
        going = end.outcome <= 1  # (survived, with deaths)
        return int(((end.hp == 0) & ~end.dead)[going].sum())

    assert down("long_rest", "severe, short_rest") > 50
    assert down("ten_minutes", "severe, short_rest") == 0
    assert down("hour", "severe, short_rest") == 0
    assert down("hour", "severe, short_rest(once)") > 50
    assert down("ten_minutes", "severe, no_food") == 0
    assert make_model("day", party="fighter", plan="moderate, short_rest",
                      wake_after="hour").has_exact  # fmt: skip (AP-39)
