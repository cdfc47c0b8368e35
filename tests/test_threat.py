"""Measured threat (issue 21 item 4): bands, cut points, the lineup's band, the audit."""

import matplotlib
import numpy as np
import pytest

from simkit.analysis import threat
from simkit.analysis.sweep import sweep
from simkit.models.party import Party

matplotlib.use("Agg")
THREATS = ("trivial", "low", "moderate", "severe", "extreme")


# -- bands: exact ------------------------------------------------------------------------
def test_separated_benchmarks_give_one_band_each_cut_at_the_midpoints():
    b = threat.bands("any_death", [0, 40, 200, 500, 800], [1000] * 5)
    assert b.labels == THREATS
    assert b.cuts == pytest.approx((0.02, 0.12, 0.35, 0.65))
    assert b.p == pytest.approx((0.0, 0.04, 0.2, 0.5, 0.8))
    # below the first cut: the first band; at a cut: the band above; above the last: the last
    assert [b.band(p) for p in (0.0, 0.0199, 0.02, 0.34, 0.35, 0.9, 1.0)] == [
        "trivial",
        "trivial",
        "low",
        "moderate",
        "severe",
        "extreme",
        "extreme",
    ]


def test_benchmarks_not_apart_by_z_standard_errors_share_a_band():
    # 0, 1, 3 of 1000 differ by less than 1.96 se of the difference: one band
    b = threat.bands("defeat", [0, 1, 3, 30, 90], [1000] * 5)
    assert b.labels == ("trivial-low-moderate", "severe", "extreme")
    assert b.cuts == pytest.approx(((0.003 + 0.03) / 2, (0.03 + 0.09) / 2))
    assert b.band(0.0) == "trivial-low-moderate"
    # the threshold is z standard errors: 100 vs 130 of 1000 (diff 0.03, 1.96 se = 0.0285)
    se = np.hypot(np.sqrt(0.1 * 0.9 / 1000), np.sqrt(0.13 * 0.87 / 1000))
    assert 0.03 > 1.96 * se
    assert threat.bands("any_death", [0, 100, 130, 500, 900], [1000] * 5).labels == THREATS
    assert threat.bands("any_death", [0, 100, 130, 500, 900], [1000] * 5, z=3).labels == (
        "trivial",
        "low-moderate",
        "severe",
        "extreme",
    )


def test_a_higher_threat_that_is_safer_joins_the_band_below():
    b = threat.bands("any_death", [0, 300, 200, 500, 800], [1000] * 5)
    assert b.labels == ("trivial", "low-moderate", "severe", "extreme")
    # the cut below low-moderate uses its lowest member (0.2), the cut above its highest (0.3)
    assert b.cuts == pytest.approx((0.1, 0.4, 0.65))
    assert b.span("low-moderate") == (1, 2)


def test_a_benchmark_is_in_its_own_band_when_they_rise():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(10, 5000))
        c = np.sort(rng.integers(0, n + 1, size=5))
        b = threat.bands("any_death", c, [n] * 5)
        for t, p in zip(THREATS, c / n):
            assert t in b.band(p).split("-")


def test_shift_counts_threat_steps_from_budgeted():
    assert threat.shift("severe", "severe") == 0
    assert threat.shift("extreme", "moderate") == 2
    assert threat.shift("trivial-low", "severe") == -2
    assert threat.shift("low-moderate-severe", "moderate") == 0
    assert threat.shift("moderate", "beyond extreme") == -2  # counts as extreme
    assert threat.shift("extreme", "unrated") == 0


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: threat.bands("tpk", [0] * 5, [1] * 5), "measure must be one of any_death"),
        (lambda: threat.bands("defeat", [0] * 4, [1] * 4), "one value per threat (5)"),
        (lambda: threat.bands("defeat", [2] * 5, [1] * 5), "counts must be in [0, n]"),
        (lambda: threat.bands("defeat", [0] * 5, [1] * 5, z=-1), "z must be in [0, 10]"),
        (lambda: threat.measured_threat("party", 10, 1), "model must be a party model"),
        (lambda: threat.measured_threat(Party(), 0, 1), "n must be an integer in [1, "),
        (lambda: threat.measured_threat(Party(), 1.5, 1), "n must be an integer in [1, "),
        (
            lambda: threat.measured_threat(Party(), 10, 1, template="horde"),
            "template must be one of boss, boss_and_minions, pack; got 'horde'",
        ),
        (lambda: threat.budget_audit(10, 1, templates=("pack",)), "templates must include boss"),
    ],
)
def test_bad_input_is_one_line_naming_the_parameter(call, words):
    with pytest.raises(ValueError) as err:
        call()
    assert words in str(err.value) and "\n" not in str(err.value)


# -- measured_threat: the same runs as the sweep -----------------------------------------
@pytest.fixture(scope="module")
def boars():
    return threat.measured_threat(Party(level=2, monsters="boar,boar"), n=400, rng=7)


def test_measured_threat_runs_are_the_sweeps_points(boars):
    """Each run's seed is the sweep's for that point: the numbers equal the sweep's rows."""
    t = boars.table
    bench = sweep("party", {"threat": list(THREATS)}, 400, 7, fixed={"level": 2})
    mine = sweep("party", {"level": [2]}, 400, 7, fixed={"monsters": "boar,boar"})
    for m in ("any_death", "defeat"):
        got = t[(t["run"] == "benchmark") & (t["measure"] == m)]["count"].tolist()
        want = bench[bench["outcome"] == m].set_index("threat").loc[list(THREATS), "count"]
        assert got == want.tolist()
        lin = t[(t["run"] == "lineup") & (t["measure"] == m)].iloc[0]
        row = mine[mine["outcome"] == m].iloc[0]
        assert (lin["count"], lin["point_seed"]) == (row["count"], row["point_seed"])


def test_measured_threat_bands_and_sentence(boars):
    m = boars
    assert m.budgeted == "moderate"  # two level-2 boars vs level 2: 40 XP + 40 XP = 80
    t = m.table
    for measure, band, bb in (
        ("any_death", m.death, m.death_bands),
        ("defeat", m.defeat, m.defeat_bands),
    ):
        b = t[(t["run"] == "benchmark") & (t["measure"] == measure)]
        assert bb == threat.bands(measure, b["count"].to_numpy(), b["n"].to_numpy())
        lin = t[(t["run"] == "lineup") & (t["measure"] == measure)].iloc[0]
        assert band == bb.band(lin["p"]) == lin["band"]
    s = m.sentence()
    assert s.startswith("budgeted moderate; measured like ")
    assert f"like {m.death} by P(a PC dies) {100 * t['p'].iloc[0]:.1f}%" in s
    assert "at level 2 for 4 PCs (against the boss benchmarks)" in s


def test_a_budgets_own_lineup_reuses_its_benchmark_run():
    m = threat.measured_threat(Party(level=1, threat="severe"), n=300, rng=2)
    t = m.table.set_index(["run", "threat", "measure"])
    for measure in ("any_death", "defeat"):
        assert (
            t.loc[("lineup", "severe", measure), "count"]
            == (t.loc[("benchmark", "severe", measure), "count"])
        )
    assert "severe" in m.death.split("-") and m.budgeted == "severe"


# -- the audit ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def audit():
    import matplotlib.pyplot as plt

    df = threat.budget_audit(200, 5, levels=(1,), creatures=("boar", "barghest", "basilisk"))
    fig, axes, sentences = threat.budget_audit_figure(df)
    yield df, axes, sentences
    plt.close(fig)


def test_audit_table_rows_and_bands(audit):
    df, _, _ = audit
    built = df[df["lineup"] != "solo"]
    assert len(built.drop_duplicates(["lineup", "threat", "level"])) == 3 * 5
    solo = df[df["lineup"] == "solo"].drop_duplicates(["monsters", "level"])
    # boar (2): no party level 1 at +2..+4; barghest (4): level 1 is +3; basilisk (5): +4
    assert sorted(zip(solo["monsters"], solo["level_vs_party"])) == [
        ("barghest", 3),
        ("basilisk", 4),
    ]
    assert set(solo["budgeted"]) == {"severe", "extreme"}
    measured = df[df["outcome"].isin(["any_death", "defeat"])]
    assert (measured["measured"] != "").all() and measured["shift"].notna().all()
    assert (df.loc[~df["outcome"].isin(["any_death", "defeat"]), "measured"] == "").all()
    for (o, lvl), g in df[(df["lineup"] == "boss") & df["outcome"].isin(threat.MEASURES)].groupby(
        ["outcome", "level"]
    ):
        g = g.set_index("threat").loc[list(THREATS)]
        b = threat.bands(o, g["count"].to_numpy(), g["n"].to_numpy())
        rows = df[(df["outcome"] == o) & (df["level"] == lvl)]
        assert rows["measured"].tolist() == [b.band(p) for p in rows["p"]]


def test_audit_figure_says_what_each_panel_shows(audit):
    df, axes, sentences = audit
    assert len(axes) == 5 and len(sentences) == 5
    for ax, s in zip(axes, sentences):
        assert s.split()[0] in ax.get_title(loc="left").replace("\n", " ")
    d = df[(df["lineup"] == "boss") & (df["outcome"] == "any_death") & (df["threat"] == "severe")]
    p1 = d.loc[d["level"] == 1, "p"].iloc[0]
    assert sentences[0].startswith(f"boss: a PC dies in {threat._pct(p1)} of severe fights")
    solo = df[(df["lineup"] == "solo") & (df["outcome"] == "any_death")]
    assert sentences[4].startswith(f"{int((solo['shift'] > 0).sum())} of {len(solo)} solo")


def test_audit_cells_read_in_words(audit):
    """A heatmap cell is the measured threat in short words (``triv``... ``ext``, bands not
    told apart joined: ``triv–low``), at a readable size; no "L/TL" codes."""
    _, axes, _ = audit
    allowed = {"triv", "low", "mod", "sev", "ext"}
    for ax in axes[-2:]:
        cells = [t for t in ax.texts]
        assert cells
        for t in cells:
            assert set(t.get_text().split("\u2013")) <= allowed, t.get_text()
            assert t.get_fontsize() >= 8
