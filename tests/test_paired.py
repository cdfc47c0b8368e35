"""Paired comparisons: positional streams, per-track outcomes, the paired interval."""

import numpy as np
import pytest

from simkit import Dying, simulate, solve
from simkit.analysis.compare import compare, variants
from simkit.analysis.paired import (
    independent_mean_test,
    joint_counts,
    paired_from_joint,
    paired_mean_test,
    paired_test,
)
from simkit.core.engine import TrackResult
from simkit.core.params import ParamError
from simkit.core.stats import norm_ppf, two_proportion_test
from simkit.core.streams import STREAM_SIZE, BlockRng, stream_generator
from simkit.models.presets import PRESETS, default_variants, preset_params

Z95 = norm_ppf(0.975)


def _gens(seed, k):
    return [stream_generator(seed, j) for j in range(k)]


@pytest.mark.parametrize("draw", ["below", "d20", "random", "integers", "below_out"])
def test_positional_draws_do_not_depend_on_the_other_tracks(draw):
    """After compaction a track gets the same draw as if every track were still active;
    the default mode hands the draws to the active tracks in order (it shifts)."""

    def call(rng, m):
        if draw == "below":
            return rng.below(20**3, size=(m, 2))
        if draw == "below_out":
            return rng.below(20, size=m, out=np.empty(m, dtype=np.int32))
        if draw == "d20":
            return rng.d20(size=m)
        if draw == "random":
            return rng.random(size=m)
        return rng.integers(0, 1000, size=m)

    counts = [300, 200]
    kept = np.array([1, 5, 299, 300, 450, 499])  # rows of the 500 tracks that stay
    for positional in (True, False):
        full, part = (
            BlockRng(_gens(9, 2), counts, positional),
            BlockRng(_gens(9, 2), counts, positional),
        )
        call(full, 500), call(part, 500)  # call 0: every track
        part.compact(kept)
        assert part.n_active == len(kept)
        a, b = call(full, 500)[kept], call(part, len(kept))
        assert np.array_equal(a, b) == positional


def test_positional_results_do_not_depend_on_block_size_or_workers():
    n = 2 * STREAM_SIZE + 123  # three streams
    model = Dying(hit_chance=0.3, crit_chance=0.05, hp_max=20)  # d20 and uniform draws
    a = simulate(model, n, 5, positional=True, keep_outcomes=True, block_size=STREAM_SIZE)
    b = simulate(model, n, 5, positional=True, keep_outcomes=True, block_size=2**20)
    c = simulate(model, n, 5, positional=True, keep_outcomes=True, block_size=1, workers=2)
    assert isinstance(a, TrackResult)
    for other in (b, c):
        assert np.array_equal(a.hist, other.hist)
        assert np.array_equal(a.track_outcomes, other.track_outcomes)
    # the per-track outcomes are the counts, track by track
    got = np.bincount(a.track_outcomes, minlength=len(a.outcomes))
    assert got.tolist() == [a.counts[o] for o in a.outcomes]
    # and the default mode's numbers are those of a run without keep_outcomes
    d = simulate(model, n, 5)
    e = simulate(model, n, 5, keep_outcomes=True)
    assert np.array_equal(d.hist, e.hist) and not np.array_equal(d.hist, a.hist)


def test_keep_outcomes_is_refused_for_a_chain():
    from simkit.models import make_model

    with pytest.raises(ParamError, match="keep_outcomes"):
        simulate(make_model("fall_dying"), 100, 1, keep_outcomes=True)


def _tango_ref(b, c, n, level=0.95):
    """Tango's score interval by a plain scan: every difference on a fine grid whose
    score statistic, with the restricted MLE maximised numerically, is within z of 0."""
    z = norm_ppf(0.5 + level / 2)
    keep = []
    qs = np.linspace(0, 1, 40_001)
    for delta in np.linspace(-1, 1, 2001):
        q = qs[(qs + delta >= 0) & (2 * qs + delta <= 1)]  # P(base only), P(new only)
        with np.errstate(divide="ignore", invalid="ignore"):
            ll = b * np.log(q + delta) + c * np.log(q) + (n - b - c) * np.log(1 - 2 * q - delta)
        ll = np.where(np.isnan(ll), -np.inf, ll)
        qh = q[np.argmax(ll)]
        var = n * (2 * qh + delta * (1 - delta))
        num = b - c - n * delta
        if (num == 0) or (var > 0 and abs(num) / np.sqrt(var) <= z):
            keep.append(delta)
    return min(keep), max(keep)


def test_paired_test_by_hand():
    # 100 pairs: 10 tracks in o under the variant only, 4 under the baseline only
    d, lo, hi, p = paired_test([10], [4], 100)
    assert d[0] == pytest.approx(0.06)
    # Tango's score interval, against a scan of the score statistic (W3)
    for b, c, n in [(10, 4, 100), (0, 0, 5), (3, 0, 5), (5, 0, 5), (1, 2, 20)]:
        _, lo, hi, _ = paired_test([b], [c], n)
        ref = _tango_ref(b, c, n)
        assert (lo[0], hi[0]) == pytest.approx(ref, abs=1.2e-3), (b, c, n)
    from simkit.core.stats import norm_sf

    assert p[0] == pytest.approx(2 * norm_sf(6 / np.sqrt(14)))


def test_paired_interval_does_not_collapse_without_discordant_tracks():
    """W3: no discordant track at n tracks is not a difference known to be 0: the
    interval is about +-z^2 / (n + z^2) (it was [0, 0]), and 0 is outside it exactly
    when McNemar's p < 0.05."""
    for n in (1, 5, 20, 1000):
        d, lo, hi, p = paired_test([0], [0], n)
        half = Z95**2 / (n + Z95**2)
        assert (d[0], p[0]) == (0.0, 1.0)
        assert (lo[0], hi[0]) == pytest.approx((-half, half), rel=1e-6)
    rs = np.random.default_rng(3)
    b, c = rs.integers(0, 40, 500), rs.integers(0, 40, 500)
    d, lo, hi, p = paired_test(b, c, 200)
    assert ((lo <= d) & (d <= hi) & (lo >= -1) & (hi <= 1)).all()
    assert np.array_equal((lo > 0) | (hi < 0), p < 0.05)


def test_joint_counts_by_hand():
    a = np.array([0, 0, 1, 1, 2])
    b = np.array([0, 1, 1, 2, 2])
    j = joint_counts(a, b, 3)
    assert j.tolist() == [[1, 1, 0], [0, 1, 1], [0, 0, 1]]
    rs = np.random.default_rng(5)  # one byte a track, as the runs keep them; every pair
    a, b = (rs.integers(0, 6, 5000).astype(np.int8) for _ in range(2))
    brute = np.zeros((6, 6), dtype=np.int64)
    np.add.at(brute, (a, b), 1)
    assert np.array_equal(joint_counts(a, b, 6), brute)
    assert np.array_equal(joint_counts(a, b, 6, np.bincount(a, minlength=6)), brute)
    diff, *_ = paired_from_joint(j)
    assert diff.tolist() == pytest.approx([-0.2, 0.0, 0.2])


def _seed_and_core(**kw):
    seed = Dying(save_bonus=21, monster_level=10, **kw)
    return seed, seed.replace(**preset_params("dying", "pf2e-core"))


@pytest.mark.parametrize("kw", [{}, {"hit_chance": 0.25, "crit_chance": 0.05}])
def test_paired_intervals_cover_the_exact_difference(kw):
    """R replicates of m tracks (one run of R*m tracks cut in groups: the tracks are
    independent): the paired interval covers the exact difference at its nominal rate, and
    is narrower than the independent one."""
    base, core = _seed_and_core(**kw)
    exact = solve(core)["dead"] - solve(base)["dead"]
    R, m = 1000, 1000
    a = simulate(base, R * m, 11, positional=True, keep_outcomes=True).track_outcomes
    b = simulate(core, R * m, 11, positional=True, keep_outcomes=True).track_outcomes
    dead = list(base.outcomes).index("dead")
    x = (a == dead).reshape(R, m)
    y = (b == dead).reshape(R, m)
    only_new = (y & ~x).sum(axis=1)
    only_base = (x & ~y).sum(axis=1)
    _, lo, hi, _ = paired_test(only_new, only_base, m)
    covered = np.mean((lo <= exact) & (exact <= hi))
    tol = 5 * np.sqrt(0.95 * 0.05 / R)  # 5 standard errors of a coverage share from R
    assert abs(covered - 0.95) <= tol, covered
    _, se_ind, _ = two_proportion_test(y.sum(axis=1), m, x.sum(axis=1), m)
    assert np.median(hi - lo) < np.median(2 * Z95 * se_ind)


def test_positional_pairing_is_tighter_than_index_pairing():
    """With damage while dying the variants end tracks at different steps: by track index
    on the default streams the later draws shift; positional streams keep them."""
    base, core = _seed_and_core(hit_chance=0.25, crit_chance=0.05)
    n = 200_000
    widths = {}
    dead = list(base.outcomes).index("dead")
    for positional in (False, True):
        a = simulate(base, n, 3, positional=positional, keep_outcomes=True).track_outcomes
        b = simulate(core, n, 3, positional=positional, keep_outcomes=True).track_outcomes
        _, lo, hi, _ = paired_from_joint(joint_counts(a, b, len(base.outcomes) + 1))
        widths[positional] = hi[dead] - lo[dead]
    assert widths[True] < widths[False]


def test_compare_paired_columns_and_the_joint_count():
    v = variants("dying")
    df = compare(v, {"level": [10]}, 20_000, 4, fixed={"level_diff": 0})
    assert df.attrs["paired"] is True
    core = df[df["variant"] == "pf2e-core"].set_index("outcome")
    base = df[df["variant"] == "seed"].set_index("outcome")
    assert (base["point_seed"].to_numpy() == core["point_seed"].to_numpy()).all()
    assert core["paired"].all()
    # the row's paired numbers are those of the two runs, track by track
    seed = int(core.loc["dead", "point_seed"])
    runs = [
        simulate(m, 20_000, seed, positional=True, keep_outcomes=True)
        for m in (
            Dying(save_bonus=21, monster_level=10),
            v["pf2e-core"].replace(save_bonus=21, monster_level=10),
        )
    ]
    d, lo, hi, p = paired_from_joint(
        joint_counts(runs[0].track_outcomes, runs[1].track_outcomes, 4)
    )
    assert core.loc["dead", "count"] == runs[1].counts["dead"]
    assert core.loc["dead", "diff"] == pytest.approx(d[1])
    assert (core.loc["dead", "diff_ci_low"], core.loc["dead", "diff_ci_high"]) == pytest.approx(
        (lo[1], hi[1])
    )
    assert core.loc["dead", "p_value"] == pytest.approx(p[1])
    d_ind, se, p_ind = two_proportion_test(core["count"], core["n"], base["count"], base["n"])
    np.testing.assert_allclose(core["p_value_independent"], p_ind)
    assert abs(core.loc["dead", "diff"] - core.loc["dead", "diff_exact"]) <= 5 * (hi[1] - lo[1]) / (
        2 * Z95
    )
    width = core["diff_ci_high"] - core["diff_ci_low"]
    width_ind = core["diff_independent_ci_high"] - core["diff_independent_ci_low"]
    assert width.loc["dead"] < width_ind.loc["dead"] / 1.5
    with pytest.raises(ParamError, match="paired"):
        compare(v, None, 100, 1, paired="yes")
    with pytest.raises(ParamError, match="independent"):
        compare(v, None, 100, 1, executor="dask")


def test_party_presets_and_ambiguities():
    from simkit.models import make_model

    assert make_model("party", "pf2e-core").rules == "pf2e-core"
    assert default_variants("party") == ["seed000", "pf2e-core", "seed001"]
    assert PRESETS["party"]["pf2e-core"] == {"rules": "pf2e-core"}
    assert default_variants("dying") == ["seed", "pf2e-core"]
    amb = variants("party", presets=(), ambiguities=["A0-5"])
    assert list(amb) == ["A0-5 monster_dc=table", "A0-5 monster_dc=skill"]
    every = variants("party", presets=(), ambiguities=True)
    ids = {name.split()[0] for name in every}
    # A1-x do nothing under seed000, A0-6 nothing without the increment and the wounded
    # rule, A0-1 (and A0-6) nothing when no enemy strikes a PC at 0 HP (target_downed=never)
    assert ids == {"A0-2", "A0-3", "A0-4", "A0-5", "A0-7"}
    seed001 = variants(make_model("party", rules="seed001"), presets=(), ambiguities=True)
    assert {name.split()[0] for name in seed001} == {"A1-1", "A1-2", "A1-5", "A1-6"}
    core = variants(make_model("party", rules="pf2e-core"), presets=(), ambiguities=True)
    assert {name.split()[0] for name in core} == {"A0-2", "A0-3", "A0-4", "A0-7"}
    hit = make_model("party", rules="pf2e-core", target_downed="always")
    struck = variants(hit, presets=(), ambiguities=True)
    assert {name.split()[0] for name in struck} == {"A0-1", "A0-2", "A0-3", "A0-4", "A0-6", "A0-7"}
    assert not any(i.startswith("AP") for i in ids)
    enc = {name.split()[0] for name in variants("encounter", presets=(), ambiguities=True)}
    assert {"A0-1", "A0-4", "A0-5"} <= enc and not any(i.startswith("A1") for i in enc)
    enc = variants(make_model("encounter", dying_rules="seed001"), presets=(), ambiguities=True)
    assert {"A1-1", "A1-3"} <= {name.split()[0] for name in enc}
    # the rule sets as presets of the encounter too; seed000 is the seed as written
    assert default_variants("encounter") == ["seed000", "pf2e-core", "seed001"]
    assert make_model("encounter", "seed000") == make_model("encounter", "seed")
    assert make_model("encounter", "seed001").dying_rules == "seed001"
    assert list(variants("party")) == ["seed000", "pf2e-core", "seed001"]  # as the CLI
    assert list(variants("dying")) == ["seed", "pf2e-core"]
    # an ambiguity inert here: refused, with why (the track's readings are the party's own
    # parameters since issue 31: check, on_damage, wounded_rule, hero_effect)
    with pytest.raises(ParamError, match="same numbers.*strike a PC at 0 HP.*target_downed"):
        variants("party", presets=(), ambiguities=["A0-1"])
    with pytest.raises(ParamError, match="same numbers.*on_damage=increment"):
        variants("party", presets=(), ambiguities=["A0-6"])


#: The readings of the fights' seed rules (issue 31 item 2): R1-05's A1-3 and A1-12, R1-12's
#: A1-4; inert at the party's defaults (back_in_fight and con_damage off). Issue 31 item 3's:
#: A0-9 (dying_effect off), A1-11 (no strike at a PC at 0 HP), A1-10 (after the fight only).
SEED_RULES = ("A1-3", "A1-4", "A1-12", "A0-9", "A1-10", "A1-11")


@pytest.mark.parametrize(
    "rules, ids",
    [
        ("seed000", ("A0-1", "A0-6", "A1-1", "A1-2", "A1-5", "A1-6", *SEED_RULES)),
        ("pf2e-core", ("A0-1", "A0-5", "A0-6", "A1-1", "A1-2", "A1-5", "A1-6", *SEED_RULES)),
        ("seed001", ("A0-1", "A0-2", "A0-3", "A0-4", "A0-5", "A0-6", "A0-7", *SEED_RULES)),
    ],
)
def test_the_ambiguities_left_out_are_inert_track_by_track(rules, ids):
    """What variants() leaves out as inert gives the same tracks under every reading (the
    same positional dice: every track's outcome and marks), in fights where PCs go down."""
    from simkit.analysis.compare import inert_ambiguities, model_ambiguities
    from simkit.models import make_model

    base = make_model("party", rules=rules, level=3, threat="severe", hero_points=1)
    assert set(inert_ambiguities(base)) == set(ids)
    entries = {a.id: a for a in model_ambiguities(type(base))}
    n = 1000
    ref = simulate(base, n, 12, positional=True, keep_outcomes=True)
    assert ref.counts["victory"] < 0.9 * n  # PCs go down, the dying rules are played
    kept = {"seed001": {"pe_damage": "hp_only"}}.get(rules, {"hero_policy": "never"})
    moved = simulate(base.replace(**kept), n, 12, positional=True, keep_outcomes=True)
    assert not np.array_equal(moved.track_marks["deaths"], ref.track_marks["deaths"])
    for aid in ids:
        for r in entries[aid].readings:
            try:
                varied = base.replace(**r.params)
            except ParamError as exc:  # the seed-000 track's options under seed001: refused
                assert rules == "seed001" and "agonising" in str(exc), (aid, exc)
                continue
            other = simulate(varied, n, 12, positional=True, keep_outcomes=True)
            assert np.array_equal(other.track_outcomes, ref.track_outcomes), (aid, r.label)
            for k, v in ref.track_marks.items():
                assert np.array_equal(other.track_marks[k], v), (aid, r.label, k)


def test_cli_compare_party_paired_and_independent(tmp_path, capsys):
    from simkit.cli.main import main

    out = tmp_path / "c.csv"
    assert main(["compare", "party", "-n", "300", "--seed", "1", "-o", str(out)]) == 0
    import pandas as pd

    df = pd.read_csv(out)
    assert list(dict.fromkeys(df["variant"])) == ["seed000", "pf2e-core", "seed001"]
    assert {"paired", "diff_independent", "p_value_independent"} <= set(df.columns)
    assert (
        main(["compare", "dying", "-n", "300", "--seed", "1", "--independent", "-o", str(out)]) == 0
    )
    assert "paired" not in pd.read_csv(out).columns
    assert (
        main(
            [
                "compare",
                "party",
                "--ambiguities",
                "A0-5",
                "--variants",
                "seed000",
                "-n",
                "200",
                "--seed",
                "2",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert set(pd.read_csv(out)["variant"]) == {
        "seed000",
        "A0-5 monster_dc=table",
        "A0-5 monster_dc=skill",
    }


def test_track_marks_are_the_marks_track_by_track():
    """Each track's marks (keep_outcomes=True) give the mark histograms of the run, by
    outcome, and every event's count; the same whatever the block size or workers."""
    from simkit.core.result import event_specs
    from simkit.models import make_model

    m = make_model("party", level=3, max_rounds=4)  # some tracks unresolved
    n = STREAM_SIZE + 500
    a = simulate(m, n, 8, positional=True, keep_outcomes=True)
    b = simulate(m, n, 8, positional=True, keep_outcomes=True, block_size=1, workers=2)
    assert a.track_marks is not None and set(a.track_marks) == set(m.marks)
    codes = a.track_outcomes
    assert a.counts["unresolved"] > 0
    for name, values in a.track_marks.items():
        assert np.array_equal(values, b.track_marks[name])
        assert not values[codes == len(m.outcomes)].any()  # unresolved: no mark
        h = a.marks[name]
        for i in range(len(m.outcomes)):
            got = np.bincount(values[codes == i].astype(np.intp), minlength=h.shape[1])
            assert np.array_equal(got[: h.shape[1]], h[i]) and not got[h.shape[1] :].any()
    for e in event_specs(m):
        held = e.of_tracks(m, codes, a.track_marks)
        assert np.count_nonzero(held) == a.event_count(e.name)
    assert simulate(Dying(), 100, 1, keep_outcomes=True).track_marks == {}


def test_paired_mean_test_by_hand():
    from scipy import stats

    x = np.array([0, 1, 2, 0, 1, 3], dtype=float)
    y = np.array([1, 1, 2, 0, 3, 3], dtype=float)
    d = y - x
    diff, lo, hi, p = paired_mean_test([d.sum()], [d @ d], len(d))
    assert diff[0] == pytest.approx(d.mean())
    # W3: the t interval (the normal one was too narrow at small n)
    t = stats.ttest_1samp(d, 0.0)
    ci = t.confidence_interval(0.95)
    assert (lo[0], hi[0]) == pytest.approx((ci.low, ci.high))
    assert p[0] == pytest.approx(t.pvalue)
    assert paired_mean_test([0.0], [0.0], 5)[3][0] == 1.0  # no track moved
    assert paired_mean_test([5.0], [5.0], 5)[3][0] < 0.05  # every track moved by 1
    # no track moved, or every track alike: not a point (it was [0, 0] and [1, 1])
    for s1, s2, n in [(0.0, 0.0, 5), (5.0, 5.0, 5), (0.0, 0.0, 1)]:
        diff, lo, hi, p = paired_mean_test([s1], [s2], n)
        half = Z95**2 / (n + Z95**2)
        assert (lo[0], hi[0]) == pytest.approx((diff[0] - half, diff[0] + half))
        assert (p[0] < 0.05) == (lo[0] > 0 or hi[0] < 0)
    from simkit.core.stats import norm_sf

    # MOVER: symmetric intervals give the Wald interval of independent means
    d_ind, lo, hi, p = independent_mean_test(2.0, 1.0, 3.0, 1.0, 0.5, 1.5)
    half = np.sqrt(1.0 + 0.25)
    assert (d_ind, lo, hi) == pytest.approx((1.0, 1.0 - half, 1.0 + half))
    assert p == pytest.approx(2 * norm_sf(Z95 / half))


def _party_pair(n, seed):
    from simkit.models import make_model

    party = make_model("party")
    v = {"seed000": party, "pf2e-core": party.replace(rules="pf2e-core")}
    df = compare(v, None, n, seed)
    runs = [
        simulate(m, n, int(df["point_seed"].iloc[0]), positional=True, keep_outcomes=True)
        for m in v.values()
    ]
    return df[df["variant"] == "pf2e-core"].set_index("outcome"), runs


def test_compare_pairs_events_and_means_track_by_track():
    from simkit.core.result import event_specs, mean_specs
    from simkit.models import make_model

    n = 4000
    core, (a, b) = _party_pair(n, 6)
    m = make_model("party")
    assert core["paired"].all()
    for e in event_specs(m):
        x = e.of_tracks(m, a.track_outcomes, a.track_marks)
        y = e.of_tracks(m, b.track_outcomes, b.track_marks)
        d, lo, hi, p = paired_test([np.sum(y & ~x)], [np.sum(x & ~y)], n)
        assert core.loc[e.name, "count"] == np.sum(y)
        assert (core.loc[e.name, "diff"], core.loc[e.name, "p_value"]) == pytest.approx(
            (d[0], p[0])
        )
        assert (core.loc[e.name, "diff_ci_low"], core.loc[e.name, "diff_ci_high"]) == pytest.approx(
            (lo[0], hi[0])
        )
    ua, ub = (r.track_outcomes == len(m.outcomes) for r in (a, b))
    for mean in mean_specs(m):
        d = mean.per_track(b.track_marks[mean.mark], ub) - mean.per_track(
            a.track_marks[mean.mark], ua
        )
        row = core.loc[mean.name]
        assert row["mean"] == pytest.approx(b[mean.name])
        assert row["diff"] == pytest.approx(d.mean())
        from scipy import stats

        half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)  # the t interval
        assert (row["diff_ci_low"], row["diff_ci_high"]) == pytest.approx(
            (d.mean() - half, d.mean() + half)
        )
        assert 0 <= row["p_value"] <= 1 and 0 <= row["p_value_independent"] <= 1
        assert row["diff_independent"] == pytest.approx(row["diff"])


def test_paired_events_are_narrower_and_mean_rows_have_their_numbers():
    """any_death, seed000 vs pf2e-core: the paired interval narrower than the
    independent one; a mean row's diff and p_value both filled, paired or not."""
    core, _ = _party_pair(6000, 2)
    width = core["diff_ci_high"] - core["diff_ci_low"]
    width_ind = core["diff_independent_ci_high"] - core["diff_independent_ci_low"]
    assert width["any_death"] < width_ind["any_death"] / 1.2
    assert width["expected_deaths"] < width_ind["expected_deaths"] / 1.2
    from simkit.models import make_model

    party = make_model("party")
    ind = compare(
        {"a": party, "b": party.replace(rules="pf2e-core")}, None, 2000, 3, paired=False
    ).set_index(["variant", "outcome"])
    row = ind.loc[("b", "expected_deaths")]
    assert row["diff"] == pytest.approx(row["mean"] - ind.loc[("a", "expected_deaths"), "mean"])
    assert row["diff_ci_low"] < row["diff"] < row["diff_ci_high"]
    assert 0 < row["p_value"] < 1
    assert np.isnan(ind.loc[("a", "expected_deaths"), "p_value"])


_M64 = (1 << 64) - 1


def _splitmix(z):
    """SplitMix64's finaliser (Python ints): the reference for the positional words."""
    z &= _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _reference_rows(rng, call, per, bits, limit):
    """Each active track's ``per`` words at call ``call`` of ``rng``, one by one from the
    definition (simkit.core.counter): word w = p * per + column of the track at position p
    is bits 16 * (w % 4).. of SplitMix64 output w // 4 keyed by the stream and the call (64
    bits: output w); a word at or above ``limit`` takes the first below it among the four
    words of output w keyed by round 1's key, then round 2's... (64 bits: the output)."""
    from simkit.core import counter

    golden, gamma, rounds = counter.GOLDEN, 0xD2B74407B1CE6E93, 0xD1B54A32D192ED03
    rows = []
    layout = rng._layout()
    for j, a, c in layout.segs:
        key = _splitmix(rng._keys[j] + (call + 1) * gamma)
        for p in layout.positions(a, c).tolist():
            row = []
            for col in range(per):
                w = p * per + col
                if bits == 16:
                    x = (_splitmix(key + (w // 4) * golden) >> (16 * (w % 4))) & 0xFFFF
                else:
                    x = _splitmix(key + w * golden)
                r = 0
                while limit is not None and x >= limit:
                    r += 1
                    y = _splitmix(_splitmix(key + r * rounds) + w * golden)
                    got = [y] if bits == 64 else [(y >> s) & 0xFFFF for s in (0, 16, 32, 48)]
                    x = next((c for c in got if c < limit), limit)
                row.append(x)
            rows.append(row)
    return rows


def test_positional_words_are_counter_based_track_by_track():
    """Every positional draw (below with and without rejection, d20, random, integers up
    to 64 bits) equals the definition computed word by word for each track's position,
    before any track leaves and through compactions to a dense and a sparse active set:
    both ways of computing the words (every output to the last active position, or each
    track's own) are used."""
    rs = np.random.default_rng(0)
    rng = BlockRng(_gens(7, 2), [401, 200], True)  # 401: a stream's words end mid-output
    kinds = set()
    for step in range(12):
        per = [1, 2, 3, 4, 8, 5][step % 6]
        shape = (rng.n_active,) if per == 1 else (rng.n_active, per)
        call = rng._call
        what = ["below", "d20", "random", "integers", "wide"][step % 5]
        if what == "below":
            width = int(rs.choice([20, 8000, 3, 46656, 65536, 256]))
            q = 65536 // width
            want = np.array(_reference_rows(rng, call, per, 16, q * width)) // q
            got = rng.below(width, shape)
        elif what == "d20":
            want = np.array(_reference_rows(rng, call, per, 16, 65520)) // 3276 + 1
            got = rng.d20(shape)
        elif what == "random":
            want = (
                np.array(_reference_rows(rng, call, per, 64, None), dtype=object) >> 11
            ) * 2.0**-53
            got = rng.random(shape)
        elif what == "integers":
            want = np.array(_reference_rows(rng, call, per, 16, 65000)) // 65 - 7
            got = rng.integers(-7, 993, size=shape)
        else:
            width = 10**12 + 39
            limit = (2**64 // width) * width
            want = np.array(_reference_rows(rng, call, per, 64, limit), dtype=object) % width
            got = rng.integers(0, width, size=shape)
        assert got.shape == shape
        assert np.array_equal(got.reshape(len(got), -1).astype(object), want), (step, what, per)
        kinds.add(rng._layout()._plan(per)[0])
        if step == 0:
            continue  # two calls on every track
        share = 0.9 if step % 3 else 0.1  # a dense or a sparse set of the tracks left
        kept = np.sort(
            rs.choice(rng.n_active, size=max(1, int(rng.n_active * share)), replace=False)
        )
        rng.compact(kept)
    assert kinds == {"dense", "sparse"}
    # many words redrawn at once (candidate by candidate) = a few at a time (several rounds)
    from simkit.core import counter

    v = rs.integers(0, 65536, 60_000).astype(np.uint16)
    bad = np.flatnonzero(v >= 46656)
    assert len(bad) > 4096
    seg = (bad >= 30_000).astype(np.intp)  # two streams
    index = bad.astype(np.uint64)
    keys = [counter.call_key(rng._keys[j], 5) for j in (0, 1)]
    whole, parts = v.copy(), v.copy()
    counter.redraw(whole, bad, seg, index, keys, 46656, 16)
    for cut in np.array_split(np.arange(len(bad)), 20):
        counter.redraw(parts, bad[cut], seg[cut], index[cut], keys, 46656, 16)
    assert np.array_equal(whole, parts) and whole.max() < 46656


def _coverage_cases():
    from simkit.models import make_model

    dying = make_model("dying")
    yield "dying", dying, dying.replace(**preset_params("dying", "pf2e-core"))
    party = make_model("party", party="fighter", lineup="boss", level=1, threat="severe")
    yield "party", party, party.replace(rules="seed001")


@pytest.mark.slow
@pytest.mark.parametrize("case", ["dying", "party"])
def test_paired_interval_coverage_at_every_n(case):
    """W3: 200 seeds at each n, through `paired_runs` as `compare` runs them: the 95%
    paired interval covers the exact difference of every outcome in at least 93% of
    them at n = 5, 20, 100 and 1000 (the Wald interval: 33%, 85%, 93.5% for dying;
    21%, 62%, 88.5% for the party), and the party's mean rounds too."""
    from simkit.analysis.paired import paired_runs

    name, base, other = next(c for c in _coverage_cases() if c[0] == case)
    sa, sb = solve(base), solve(other)
    exact = np.array([sb[o] - sa[o] for o in base.outcomes])
    assert np.abs(exact).max() > 0.04  # a real difference to cover
    k = len(exact)
    # the party's mean rounds (its t interval): exact from when the duel ends
    steps = np.arange(sa.hist.shape[1])
    rounds = float((sb.hist * steps).sum() - (sa.hist * steps).sum())
    for n in (5, 20, 100, 1000):
        covered = np.zeros(k)
        covered_mean = 0
        for seed in range(200):
            pt = paired_runs([base, other], n, 1000 + seed)[1]
            _, lo, hi, _ = paired_from_joint(pt.joint)
            covered += (lo[:k] <= exact + 1e-12) & (exact - 1e-12 <= hi[:k])
            if "rounds" in pt.events:
                _, lo_m, hi_m, _ = pt.events["rounds"]
                covered_mean += lo_m <= rounds <= hi_m
        assert (covered / 200 >= 0.93).all(), (name, n, covered / 200)
        if name == "party":  # (0.945-1.0; the normal interval at n = 5: 0.525)
            assert covered_mean / 200 >= 0.93, (n, covered_mean / 200)
