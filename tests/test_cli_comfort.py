"""CLI comfort (issue 12, items 4-6): the model list, wrapping to the terminal, fixed sweep
keys as columns, --format on sweep and compare, plot --kind line, --marks, tqdm.auto bars."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from simkit.models import REGISTRY
from simkit.testing import run_cli as run
from simkit.testing import within_se


@pytest.fixture
def columns(monkeypatch):
    def set_width(n):
        monkeypatch.setenv("COLUMNS", str(n))

    monkeypatch.delenv("COLUMNS", raising=False)
    return set_width


# -- simkit models ---------------------------------------------------------------------------------
def test_models_lists_every_model_in_one_screen(columns):
    columns(100)
    code, out, _ = run("models")
    assert code == 0
    lines = out.rstrip("\n").splitlines()
    assert len(lines) <= 40 and max(map(len, lines)) <= 100
    assert lines[0].split() == ["model", "step", "exact", "description"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:] if ln and not ln.startswith(" ")}
    for name, cls in REGISTRY.items():
        assert name in rows, name
        assert rows[name][1] == cls.time_unit.rstrip("s")
        scope = getattr(cls, "exact_scope", None) or "no"  # where it has one (party: duels)
        assert rows[name][2] == ("yes" if cls().has_exact else scope)
    assert "save_bonus" not in out  # parameters are the detail's
    assert "simkit models NAME" in out and "docs/rules.md" in out


def test_models_name_gives_the_parameters_wrapped(columns):
    from simkit.core.params import spec

    for width in (60, 120):
        columns(width)
        code, out, _ = run("models", "dying")
        assert code == 0
        assert max(map(len, out.splitlines())) <= width
        words = out.split()
        for p in spec(REGISTRY["dying"]):
            assert p in words, p
        assert "level" in words and "level_diff" in words  # the keys that set parameters
    code, out, _ = run("models", "dying", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    assert set(df["name"]) == set(spec(REGISTRY["dying"]))


def test_models_csv_keeps_every_parameter_of_every_model():
    code, out, _ = run("models", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    assert set(df["model"]) == set(REGISTRY)


# -- wrapping --------------------------------------------------------------------------------------
def test_wrap_table_keeps_every_word_within_the_width():
    from simkit.cli.text import wrap_table

    df = pd.DataFrame(
        {
            "id": ["A0-1", "A0-2"],
            "p": [0.25, np.nan],
            "n": [10, 20],
            "readings": ["one two three four five six seven eight nine ten " * 3, "short"],
        }
    )
    for width in (30, 50, 200):
        text = wrap_table(df, width)
        assert max(map(len, text.splitlines())) <= width
        words, blocks = text.split(), text.count("\n\n") + 1
        assert words.count("A0-1") == blocks and words.count("A0-2") == blocks  # the key repeats
        said = df["readings"].str.split().sum()
        for w in set(said):
            assert words.count(w) == said.count(w), w  # wrapped, nothing lost
        for token in ("id", "p", "n", "readings", "0.250000", "NaN", "10", "20"):
            assert token in words
    assert wrap_table(df, 200).count("\n") == 3  # room enough: one line per row


def test_ambiguities_wrap_to_the_terminal_but_not_in_files(columns, tmp_path):
    from simkit.core.io import format_frame

    argv = (
        "ambiguities",
        "--levels",
        "5",
        "--seed",
        "1",
        "-n",
        "2000",
        "--id",
        "A0-3",
        "--id",
        "A4-3",
    )
    code, plain, _ = run(*argv)  # not a terminal, no COLUMNS: the full lines, as before
    assert code == 0 and max(map(len, plain.splitlines())) > 100
    columns(100)
    code, wrapped, _ = run(*argv)
    assert code == 0 and max(map(len, wrapped.splitlines())) <= 100
    assert sorted(wrapped.split()) != [] and set(plain.split()) <= set(wrapped.split()) | {""}
    target = tmp_path / "a.txt"
    assert run(*argv, "-o", target)[0] == 0
    assert target.read_text() == plain
    from simkit.analysis.ambiguities import ambiguity_report, side_by_side

    df = side_by_side(ambiguity_report(levels=(5,), n=2000, rng=1, ids=["A0-3", "A4-3"]))
    assert plain == format_frame(df, "table")


# -- fixed sweep keys as columns -------------------------------------------------------------------
def test_fixed_sweep_keys_are_columns():
    from simkit.analysis.sweep import sweep

    code, out, _ = run(
        "sweep",
        "dying",
        "--grid",
        "dc=18,22",
        "--set",
        "level=5",
        "--set",
        "pc_con=3",
        "--exact-only",
    )
    assert code == 0
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns[:5]) == ["dc", "level", "pc_con", "save_bonus", "hp_max"]
    assert set(df["level"]) == {5} and set(df["pc_con"]) == {3}
    api = sweep("dying", {"dc": [18]}, fixed={"level": 5, "hit_chance": 0.1}, exact_only=True)
    assert "level" in api and "hit_chance" not in api  # fixed parameters stay in params
    assert json.loads(api["params"].iloc[0])["hit_chance"] == 0.1
    surv = sweep("dying", {"dc": [18]}, fixed={"level": 5}, exact_only=True, survival=True)
    assert list(surv.columns[:4]) == ["dc", "level", "save_bonus", "hp_max"]
    assert api.attrs["fixed_keys"] == ["level"]


def test_a_fixed_level_changes_the_numbers_it_reports():
    lv = pd.read_csv(
        io.StringIO(run("sweep", "dying", "--grid", "dc=22", "--set", "level=1", "--exact-only")[1])
    )
    hi = pd.read_csv(
        io.StringIO(run("sweep", "dying", "--grid", "dc=22", "--set", "level=9", "--exact-only")[1])
    )
    dead = lambda d: float(d.loc[d["outcome"] == "dead", "p"].iloc[0])  # noqa: E731
    assert dead(lv) > dead(hi)


# -- --format on sweep and compare -----------------------------------------------------------------
@pytest.mark.parametrize("verb", ["sweep", "compare"])
def test_format_on_sweep_and_compare(verb, tmp_path):
    base = (verb, "dying", "--grid", "dc=18,22", "-n", "3000", "--seed", "2")
    code, csv, _ = run(*base, "--format", "csv")
    assert code == 0
    code, default, _ = run(*base)  # sweep: CSV; compare: a table for a person
    assert code == 0
    assert (default == csv) == (verb == "sweep")
    code, js, _ = run(*base, "--format", "json")
    assert code == 0
    a, b = pd.read_csv(io.StringIO(csv)), pd.DataFrame(json.loads(js))
    assert list(a.columns) == list(b.columns)
    np.testing.assert_allclose(a["p"], b["p"], rtol=0, atol=0)
    code, table, _ = run(*base, "--format", "table")
    assert code == 0 and table.splitlines()[0].split()[:2] == list(a.columns[:2])
    assert verb == "sweep" or default == table
    assert len(table.splitlines()) == len(a) + 1
    target = tmp_path / "out.json"
    assert run(*base, "--format", "json", "-o", target)[0] == 0
    assert json.loads(target.read_text()) == json.loads(js)
    assert run(*base, "--format", "xml")[0] == 2


def test_sweep_resume_needs_csv(tmp_path):
    code, out, err = run(
        "sweep",
        "dying",
        "--grid",
        "dc=18",
        "-n",
        "100",
        "--seed",
        "1",
        "--format",
        "json",
        "--resume",
        "-o",
        tmp_path / "x.json",
    )
    assert code == 2 and out == "" and "--resume" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


# -- plot --kind line ------------------------------------------------------------------------------
def test_line_chart_of_a_one_axis_sweep():
    from simkit.analysis import plots
    from simkit.analysis.sweep import sweep

    df = sweep("dying", {"level": [1, 3, 5, 7]}, 4000, 1, fixed={"dc": 22})
    ax = plots.sweep_lines(df, "level", outcomes=("dead", "stable"))
    labels = [ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert labels[:2] == ["P(dead)", "P(stable)"]
    bands = ax.collections
    assert len(bands) == 2  # one confidence band per outcome
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("exact" in t for t in texts) and any("interval" in t for t in texts)
    dead = ax.get_lines()[0]
    np.testing.assert_array_equal(dead.get_xdata(), [1, 3, 5, 7])
    expect = df[df["outcome"] == "dead"].sort_values("level")["p"].to_numpy()
    np.testing.assert_allclose(dead.get_ydata(), expect)
    assert ax.get_xlabel() == plots.label_for("level")
    plots.pyplot().close(ax.figure)


def test_plot_kind_line_from_the_cli(tmp_path):
    csv = tmp_path / "s.csv"
    assert (
        run(
            "sweep",
            "dying",
            "--grid",
            "level=1..6",
            "--set",
            "dc=22",
            "-n",
            "2000",
            "--seed",
            "1",
            "--quiet",
            "-o",
            csv,
        )[0]
        == 0
    )
    png = tmp_path / "s.png"
    code, _, err = run("plot", csv, "--kind", "line", "-o", png)  # x: the column that varies
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run("plot", csv, "--kind", "compare", "-o", tmp_path / "c.png")
    assert code == 2 and "--kind line" in err
    two = tmp_path / "t.csv"
    assert (
        run(
            "sweep", "dying", "--grid", "level=1,2", "--grid", "dc=18,22", "--exact-only", "-o", two
        )[0]
        == 0
    )
    code, _, err = run("plot", two, "--kind", "line", "-o", tmp_path / "t.png")
    assert code == 2 and "give --x KEY" in err
    assert (
        run(
            "plot",
            two,
            "--kind",
            "line",
            "--x",
            "level",
            "--where",
            "dc=22",
            "-o",
            tmp_path / "t.png",
        )[0]
        == 0
    )


# -- --marks ---------------------------------------------------------------------------------------
def test_run_marks_damage_agrees_with_exact():
    from simkit.models import make_model

    n = 20_000
    code, out, _ = run(
        "run",
        "fall",
        "--set",
        "height=9",
        "--set",
        "hp=12",
        "--marks",
        "damage",
        "-n",
        str(n),
        "--seed",
        "3",
        "--format",
        "csv",
    )
    assert code == 0
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns) == [
        "mark",
        "outcome",
        "value",
        "count",
        "n",
        "p",
        "ci_low",
        "ci_high",
        "exact",
    ]
    assert df["count"].sum() == n and df["p"].sum() == pytest.approx(1.0)
    assert (df["ci_low"] <= df["p"]).all() and (df["p"] <= df["ci_high"]).all()
    exact = make_model("fall", None, height=9, hp=12).exact_damage()
    by_value = df.groupby("value")["p"].sum()
    for v, p in exact.items():
        assert within_se(by_value.get(v, 0.0), p, n), v
    code, out, _ = run(
        "exact",
        "fall",
        "--set",
        "height=9",
        "--set",
        "hp=12",
        "--marks",
        "damage",
        "--format",
        "csv",
    )
    ex = pd.read_csv(io.StringIO(out))
    assert ex.groupby("value")["p"].sum().to_dict() == pytest.approx(exact)


def test_marks_of_other_models_and_errors():
    code, out, _ = run(
        "run", "perseverance", "--marks", "pp", "-n", "500", "--seed", "1", "--format", "csv"
    )
    assert code == 0 and set(pd.read_csv(io.StringIO(out))["mark"]) == {"pp"}
    for argv, needle in [
        (("run", "dying", "--marks", "damage"), "records no marks"),
        (("run", "fall", "--marks", "nope"), "its marks: damage, band"),
        (("run", "fall", "--marks", "damage", "--stages"), "give one of them"),
        (("exact", "perseverance", "--marks", "pp"), "no exact mark distributions"),
    ]:
        code, out, err = run(*argv)
        assert code == 2 and out == "" and needle in err and err.count("\n") == 1, argv


# -- progress bars ---------------------------------------------------------------------------------
def test_sweep_progress_uses_tqdm_auto(monkeypatch):
    import tqdm.auto

    from simkit.analysis.sweep import sweep

    made = []

    class Bar:
        def __init__(self, **kw):
            made.append(kw)
            self.n = kw.get("initial", 0)

        def update(self, k):
            self.n += k

        def close(self):
            made.append(("closed", self.n))

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    sweep("dying", {"dc": [18, 20, 22]}, exact_only=True, progress=True)
    assert made[0]["total"] == 3 and made[-1] == ("closed", 3)


def test_models_says_where_a_model_without_a_default_solver_has_one(capsys):
    """party has no exact solver at its defaults but its duels have one (issue 22)."""
    from simkit.cli.main import main
    from simkit.models.party import Party

    assert not Party().has_exact and Party(party="fighter", threat="extreme").has_exact
    assert main(["models"]) == 0
    row = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("party "))
    assert row.split()[2] == "duels"
