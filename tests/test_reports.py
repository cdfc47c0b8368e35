"""Each standard report shows what it claims: outcomes, axis ranges, a legend for every mark.

The reports are built small (n per point below) and read back from the matplotlib
objects :func:`simkit.analysis.reports.build_reports` returns, before any PNG is written.
"""

import matplotlib
import numpy as np
import pytest

from simkit.analysis import reports
from simkit.models import REGISTRY

matplotlib.use("Agg")
N = 2000


@pytest.fixture(scope="module")
def built():
    """Every report's figure, kept open for the module's tests (one figure each)."""
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"figure.max_open_warning": 40}):
        out = {r.stem: r for r in reports.build_reports(N)}
        yield out
    plt.close("all")


def _legend(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def _ticks(labels):
    return [t.get_text().replace("\u2212", "-") for t in labels]


def test_every_registered_model_has_a_report(built):
    covered = {r.tables[""]["model"].iloc[0] for r in built.values()}
    assert set(REGISTRY) <= covered


def test_dying_dc_by_level(built):
    r = built["dying_dc_by_level"]
    ax = r.axes[0]
    assert ax.get_xlabel() == "character level" and ax.get_ylabel().startswith("DC of the source")
    assert _ticks(ax.get_xticklabels()) == [str(v) for v in range(1, 21)]
    assert _ticks(ax.get_yticklabels()) == [str(v) for v in range(44, 13, -2)]  # high DCs on top
    assert r.figure.axes[-1].get_ylabel() == "P(dead), Monte Carlo, n = 2,000 a cell"  # colour bar
    assert "defaults" in ax.get_title()
    assert {"dead", "stable"} <= set(r.tables[""]["outcome"])


def test_dying_dc_by_save(built):
    ax = built["dying_dc_by_save"].axes[0]
    assert ax.get_xlabel() == "Fortitude save modifier"
    assert _ticks(ax.get_xticklabels()) == [str(v) for v in range(0, 21, 2)]


def test_dying_survival_is_cut_where_the_curves_settled(built):
    r = built["dying_survival"]
    ax = r.axes[0]
    labels = _legend(ax)
    for dc in (18, 22, 26):
        assert f"DC {dc}: P(still dying)" in labels and f"DC {dc}: P(dead)" in labels
    assert "dots: exact (Markov chain)" in labels
    assert any(x.startswith("lines: Monte Carlo") for x in labels)
    assert any(x.startswith("shaded: 95% interval") for x in labels)
    df = r.tables[""]
    active = df[df["outcome"] == "active"]
    settled = max(int(g.loc[g["exact"] <= 1e-3, "time"].min()) for _, g in active.groupby("dc"))
    assert settled <= ax.get_xlim()[1] <= settled + 1.5
    assert ax.get_xlim()[1] < df["time"].max()  # the horizon (20 rounds) is not shown
    assert ax.get_ylim()[0] <= 0 and ax.get_ylim()[1] >= 1


def test_dying_seed_vs_pf2e_explains_the_diamonds(built):
    ax = built["dying_seed_vs_pf2e"].axes[0]
    labels = _legend(ax)
    assert labels[:2] == ["seed 000 as written", "pf2e-core"]
    assert "hollow diamonds: exact" in labels
    assert any(x.startswith("lines and small dots: Monte Carlo") for x in labels)
    lo, hi = ax.get_xlim()
    assert lo <= 1 and hi >= 20 and ax.get_ylim()[0] == 0


@pytest.mark.skipif("agony" not in REGISTRY, reason="no agony model")
def test_agony_con_by_healer(built):
    ax = built["agony_con_by_healer"].axes[0]
    assert ax.get_xlabel() == "Constitution modifier"
    assert "none" in _ticks(ax.get_yticklabels())  # no healer is a row, named
    assert "spend=last" in ax.get_title()  # the defaults under the grid are named


@pytest.mark.skipif("fall" not in REGISTRY, reason="no fall model")
def test_fall_height_by_level_shows_dead_and_knocked_out(built):
    r = built["fall_height_by_level"]
    assert len(r.axes) == 2  # levels with the same odds share a panel
    for ax in r.axes:
        xs = [t.get_position()[0] for t in ax.get_xticklabels()]
        assert xs == list(range(1, 14))  # every metre: an even height axis
        bars = {c.get_label(): [b.get_height() for b in c] for c in ax.containers}
        assert set(bars) == {"dead", "knocked out (0 HP)", "standing"}
        assert bars["dead"][11] == pytest.approx(1) and bars["dead"][12] == pytest.approx(
            1
        )  # 12 m, 13 m
        assert bars["knocked out (0 HP)"][9] == pytest.approx(1)  # 10 m: 0 HP
        totals = np.sum(list(bars.values()), axis=0)
        assert np.allclose(totals, 1)
    assert {"dead", "knocked out (0 HP)", "standing"} <= set(_legend(r.axes[0]))
    assert [ax.get_title() for ax in r.axes] == [
        "level 1 (18 HP)",
        "levels 2-20 (28-208 HP): the same odds",
    ]


@pytest.mark.skipif("fatigue" not in REGISTRY, reason="no fatigue model")
def test_fatigue_heatmap(built):
    (stem,) = [s for s in built if s.startswith("fatigue_") and s != "fatigue_survival"]
    ax = built[stem].axes[0]
    assert (
        built[stem].figure.axes[-1].get_ylabel() == f"P(dead), Monte Carlo, n = {N // 5:,} a cell"
    )
    assert "p_rescue=" in ax.get_title()


def _stage(surv):
    return next(s for s, g in surv.groupby("stage", sort=False) if g["time"].nunique() > 2)


@pytest.mark.skipif("perseverance" not in REGISTRY, reason="no perseverance model")
def test_perseverance_report_asks_how_good_the_helper_must_be(built):
    """At its defaults every track ends stable at round 3 (nothing random): the report is
    P(dead) by the helper's Medicine and the PP, the character never stabilising itself."""
    r = built["perseverance_medic_by_pp"]
    df = r.tables[""]
    dead = df[df["outcome"] == "dead"].pivot(index="pp", columns="medic_bonus", values="p")
    assert list(dead.index) == list(range(1, 7)) and list(dead.columns) == list(range(0, 13, 2))
    assert df["params"].str.contains('"spend":"never"').all()
    # more PP and a better helper never kill more (beyond noise: 5 SE of the quick n)
    se = 5 * (0.25 / (N // 5)) ** 0.5
    assert (dead.diff(axis=0).iloc[1:] <= se).all().all()
    assert (dead.diff(axis=1).iloc[:, 1:] <= se).all().all()
    assert dead.loc[1, 0] > 0.5 and dead.loc[6, 12] < 0.01
    assert "never spending PP" in r.axes[0].get_title()


DEFAULTS = [
    name
    for name in REGISTRY
    if name not in ("dying", "agony", "perseverance", "fall", "fatigue", "day")  # own reports
]


@pytest.mark.parametrize("name", DEFAULTS)
def test_defaults_report(built, name):
    """Bars of every outcome (exact: diamonds), curves cut at 99.9% absorbed, the defaults named."""
    r = built[f"{name}_defaults"]
    title = r.figure.get_suptitle()
    assert title.startswith(f"{name} at its defaults: ")
    for key in reports.DEFAULT_KEYS.get(name, ()):
        assert f"{key}=" in title
    bars = r.axes[0]
    summary = r.tables[""]
    shown = [t.get_text().replace("\n", " ") for t in bars.get_xticklabels()]  # wrapped
    final = summary["outcome"].isin([*REGISTRY[name].outcomes, "unresolved"])  # not events
    happened = summary.loc[(summary["p"] > 0) & final, "outcome"]
    from simkit.analysis.plots import outcome_label

    assert {outcome_label(o) for o in happened} <= set(shown)
    heights = [p.get_height() for p in bars.patches]
    assert sum(heights) == pytest.approx(1, abs=1e-9)
    labels = _legend(bars)
    assert labels[:2] == [f"bars: Monte Carlo, n = {N // 5:,} tracks", "whiskers: 95% interval"]
    assert ("hollow diamonds: exact" in labels) == bool(summary["exact"].notna().any())
    surv = r.tables["_survival"]
    runs_over_time = any(g["time"].nunique() > 2 for _, g in surv.groupby("stage"))
    assert len(r.axes) == (2 if runs_over_time else 1)  # a one-step model gets bars only
    if runs_over_time:
        curves = r.axes[1]
        staged = surv[(surv["outcome"] == "active") & (surv["stage"] == _stage(surv))]
        left = staged[["p", "exact"]].max(axis=1) if staged["exact"].notna().all() else staged["p"]
        done = staged.loc[left <= 1e-3, "time"]
        settled = int(done.min()) if len(done) else int(staged["time"].max())
        assert (
            settled <= curves.get_xlim()[1] <= max(settled, 2) + 1.5
        )  # cut where 99.9% have ended
        assert any(x.startswith("shaded: 95% interval") for x in _legend(curves))


def test_one_step_fall_is_bars_only(built):
    if "fall" not in REGISTRY:
        pytest.skip("no fall model")
    r = next(reports.build_reports(N, models=["fall"]))
    assert (
        r.stem == "fall_height_by_level"
    )  # the fall's own chart; fall_defaults only as a fallback
    d = reports.defaults_report("fall", N)
    assert len(d.axes) == 1 and d.axes[0].patches
    import matplotlib.pyplot as plt

    plt.close(r.figure)
    plt.close(d.figure)


def test_rebuilding_gives_the_same_tables(built):
    """Every number comes from reports.SEED: a second build writes the same CSV text."""
    from simkit.analysis.sweep import to_csv_text

    again = {r.stem: r for r in reports.build_reports(N, models=["fall", "perseverance"])}
    assert again  # something was rebuilt
    for stem, r in again.items():
        for suffix, df in r.tables.items():
            assert to_csv_text(df) == to_csv_text(built[stem].tables[suffix]), stem + suffix
    import matplotlib.pyplot as plt

    for r in again.values():
        plt.close(r.figure)


def test_party_budget_audit_says_what_each_panel_shows(built):
    """The budget audit: templates and solo creatures, a sentence per panel, its n named."""
    r = built["party_budget_audit"]
    df = r.tables[""]
    assert set(df["lineup"]) == {"boss", "boss_and_minions", "pack", "solo"}
    assert set(df["level"]) <= set(reports.QUICK_LEVELS)  # a quick build: fewer levels
    assert {"budgeted", "measured", "shift"} <= set(df.columns)
    assert len(r.axes) == 5
    for ax in r.axes:
        assert "\n" in ax.get_title(loc="left")  # a heading, then the panel's sentence
    assert r.figure.get_suptitle().endswith(f"(n = {3 * N // 100:,} fights a point)")


def test_day_fights_by_level_says_what_each_panel_shows(built):
    """The day report: a panel per rule set (and its zoom), a sentence each, n named."""
    r = built["day_fights_by_level"]
    df = r.tables[""]
    assert set(df["rules"]) == {"seed000", "pf2e-core", "seed001"}
    assert set(df["between"]) == {"none", "short_rest"} and set(df["outcome"]) == {"any_death"}
    assert len(r.axes) == 6
    for ax, rule in zip(r.axes[:3], ("seed000", "pf2e-core", "seed001")):
        title = ax.get_title(loc="left")
        assert title.startswith(f"rules {rule}\n") and "one day in ten" in " ".join(title.split())
    labels = [t.get_text() for t in r.figure.legends[0].get_texts()]
    assert "a short rest between fights" in labels
    assert f"95% interval (n = {N // 50:,} days a point)" in labels
    # more fights never make a day safer (each day of K fights is the start of a longer one)
    for _, d in df.groupby(["rules", "between", "level"]):
        assert (np.diff(d.sort_values("fights")["count"]) >= 0).all()


def test_reports_command_line_help_writes_nothing_and_a_bad_model_is_refused(tmp_path, monkeypatch):
    """`--help` is help, not a folder named --help; --model picks one model's reports."""
    from simkit.analysis.reports import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0 and not any(tmp_path.iterdir())
    with pytest.raises(SystemExit) as exc:
        main(["--model", "bogus"])
    assert exc.value.code == 2 and not any(tmp_path.iterdir())


#: The track models whose standard reports include survival curves of their own.
SURVIVAL = ("perseverance", "agony", "fatigue", "day")


@pytest.mark.parametrize("name", [m for m in SURVIVAL if m in REGISTRY])
def test_every_track_model_has_survival_curves(built, name):
    """perseverance, agony (its recovery stage, where its deaths are), fatigue and the day
    (by plan step) each have a ``<model>_survival`` report: curves over more than two steps,
    a line per grid point, their interval named in the legend."""
    r = built[f"{name}_survival"]
    df = r.tables[""]
    assert df["model"].eq(name).all()
    ax = r.axes[0]
    labels = _legend(ax) + [ax.get_legend().get_title().get_text()]
    assert any("95% interval" in x for x in labels)
    if name == "day":
        assert set(df["quantity"]) == {"any_death", "defeat"}
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        assert ticks[:3] == ["1\nmoderate", "2\nshort rest", "3\nlow"]
        for _, g in df.groupby(["rules", "quantity"]):
            assert g["step"].tolist() == list(range(1, 8))
            assert (g["p"].diff().dropna() >= 0).all()  # by the end of a step: cumulative
        return
    assert df["time"].nunique() > 2
    dead = df[df["outcome"] == "dead"]
    if name == "agony":
        assert ax.get_xlabel() == "time (hours)"
        dead = dead[dead["stage"] == "stable->recovery"]
        assert any(x.endswith("P(still unconscious)") for x in labels)
        # the title's claim: P(still unconscious) halves each hour, whatever the Constitution
        active = df[(df["stage"] == "stable->recovery") & (df["outcome"] == "active")]
        by_con = active.pivot(index="time", columns="con", values="exact")
        assert np.allclose(by_con.sub(by_con.iloc[:, 0], axis=0), 0, atol=1e-12)
        assert np.allclose(by_con.iloc[1:4, 0], [0.5, 0.25, 0.125])
        assert "halves each hour" in ax.get_title()
    assert dead["p"].max() > 0  # the chart shows deaths, not a flat 0


def test_the_reports_folder_holds_what_the_generator_writes(built):
    """Every file of reports/ is written by ``python3 tasks.py report`` (no stale file) and
    every report is there (its PNG and each CSV)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "reports"
    written = {f"{stem}.png" for stem in built}
    written |= {f"{stem}{suffix}.csv" for stem, r in built.items() for suffix in r.tables}
    assert sorted(p.name for p in folder.iterdir()) == sorted(written)


@pytest.mark.slow  # 11 s; the warning it caught: test_party_report's layout test
def test_every_report_is_written_without_a_warning(built, tmp_path):
    """``python3 tasks.py report`` prints no matplotlib warning (a tight_layout UserWarning
    came from party_threat_by_level): every report written here, warnings being errors."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for r in built.values():
            r.write(tmp_path)
    assert {p.name for p in tmp_path.glob("*.png")} == {f"{s}.png" for s in built}


def test_day_fights_by_level_captions_are_short(built):
    """Each panel's caption is a few short lines (was a paragraph), the full sentence kept
    for the docs."""
    r = built["day_fights_by_level"]
    for ax in r.axes[:3]:
        lines = ax.get_title(loc="left").split("\n")
        assert len(lines) <= 6 and max(len(x) for x in lines) <= 90, lines


@pytest.mark.skipif("agony" not in REGISTRY, reason="no agony model")
def test_agony_con_by_healer_names_first_aid_apart_from_the_healer(built):
    """The y axis is the healer of the hourly checks; the default without first aid in the
    agonising rounds (medic_bonus) is named as such, not as "no helper"."""
    title = " ".join(built["agony_con_by_healer"].axes[0].get_title().split())
    assert "healer of the hourly checks" in title
    assert "first aid in the agonising rounds: medic_bonus=none" in title
    assert "no helper" not in title


@pytest.mark.skipif("fall_dying" not in REGISTRY, reason="no fall_dying model")
def test_fall_dying_defaults_pairs_the_level_with_its_save(built):
    """A level-1 character falls with a level-1 fighter's Fortitude (+7), not the dying
    track's default save (+11, a level-5 fighter's)."""
    from simkit.rules.pf2e.levels import fortitude_save

    r = built["fall_dying_defaults"]
    save = fortitude_save(1)
    assert f"save_bonus={save} (a level-1 fighter's Fortitude" in r.figure.get_suptitle()
    for df in r.tables.values():
        assert df["params"].str.contains(f'"save_bonus":{save}').all()
