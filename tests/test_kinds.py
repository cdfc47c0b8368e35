"""The ``kind`` column (issue 29, item 1): every tidy output says what each row is, and the
``p`` of the rows of kind ``outcome`` add up to 1 at every grid point and variant."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from simkit.core.result import KINDS, name_kinds
from simkit.models import make_model
from simkit.testing import run_cli

#: Each model with a grid of two points (a sweep and a compare run on it).
GRIDS = {"dying": "dc=18,22", "party": "level=3,5", "day": "level=3,5"}
N = {"dying": "2000", "party": "500", "day": "200"}


def _read(text: str, fmt: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text)) if fmt == "csv" else pd.DataFrame(json.loads(text))


def _check_sums(df: pd.DataFrame, model: str, groups: int) -> None:
    """Every row has a known kind matching its name; per point and variant the outcomes'
    ``p`` add up to 1 (1e-9), the events and means are not counted in it."""
    kinds = name_kinds(make_model(model))
    assert set(df["kind"]) <= set(KINDS)
    assert (df["kind"] == df["outcome"].map(kinds)).all()
    lead = list(df.columns[: list(df.columns).index("outcome")])
    out = df[df["kind"] == "outcome"]
    sums = out.groupby(lead)["p"].sum() if lead else pd.Series([out["p"].sum()])
    assert len(sums) == groups  # every grid point of every variant
    np.testing.assert_allclose(sums.to_numpy(dtype=float), 1.0, rtol=0, atol=1e-9)
    if (df["kind"] != "outcome").any():  # the events and means would break the sum
        assert (
            pd.to_numeric(df["p"], errors="coerce")
            .fillna(0)
            .groupby([df[c] for c in lead] or np.zeros(len(df)))
            .sum()
            .max()
            > 1.0 + 1e-9
        )
    means = df[df["kind"] == "mean"]
    assert means["p"].isna().all()
    if len(means):
        assert means["mean"].notna().all()
    assert (len(means) > 0) == (model != "dying")


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize("model", ["dying", "party", "day"])
@pytest.mark.parametrize("verb", ["run", "sweep", "compare"])
def test_outcomes_add_up_to_one_in_every_format(verb, model, fmt, tmp_path):
    args = [verb, model, "-n", N[model], "--seed", "3", "--format", fmt]
    if verb != "run":
        args += ["--grid", GRIDS[model]]
    if verb == "compare" and model == "day":
        args += ["--variants", "seed000,pf2e-core"]
    code, out, err = run_cli(*args)
    assert code == 0, err
    df = _read(out, fmt)
    variants = df["variant"].nunique() if "variant" in df else 1
    assert variants == {"run": 1, "sweep": 1}.get(verb, 3 if model == "party" else 2)
    _check_sums(df, model, (1 if verb == "run" else 2) * variants)
    target = tmp_path / f"out.{fmt}"  # -o writes the same rows
    code, _, err = run_cli(*args, "-o", target)
    assert code == 0, err
    pd.testing.assert_frame_equal(_read(target.read_text(), fmt), df)


def test_result_frames_by_kind():
    import simkit
    from simkit.models.party import Party

    res = simkit.simulate(Party(level=3), 2000, 5)
    s = res.summary()
    assert list(s.columns[:2]) == ["outcome", "kind"]
    outcomes = res.summary(kind="outcome")
    assert tuple(outcomes["outcome"]) == res.outcomes  # the names stay a tuple
    assert outcomes["p"].sum() == pytest.approx(1.0, abs=1e-12)
    assert set(res.events["kind"]) == {"event"} and "mean" not in res.events
    assert set(res.means["kind"]) == {"mean"} and "p" not in res.means
    assert len(outcomes) + len(res.events) + len(res.means) == len(s)
    # won: victory with or without deaths, an event
    assert res["won"] == pytest.approx(res["victory"] + res["victory_with_deaths"])
    assert res.event_count("won") == res.counts["victory"] + res.counts["victory_with_deaths"]
    html = res._repr_html_()  # Jupyter: the kinds, and no NaN or <NA> cells
    assert "<td>mean</td>" in html and "NaN" not in html and "&lt;NA&gt;" not in html
    with pytest.raises(ValueError, match="kind must be one of"):
        res.summary(kind="outcomes")
    dying = simkit.simulate(simkit.make_model("dying"), 1000, 1)
    assert set(dying.summary()["kind"]) == {"outcome"} and dying.events.empty
    assert list(simkit.solve(simkit.make_model("dying")).summary().columns) == [
        "outcome",
        "kind",
        "p",
    ]


def test_run_party_table_leads_with_the_headline_and_has_no_nan():
    code, out, _ = run_cli("run", "party", "-n", "500", "--seed", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["headline", "name"]
    assert [x.split()[-4] for x in lines[1:4]] == ["any_death", "defeat", "expected_deaths"]
    assert lines[1].startswith("P(a PC dies)") and lines[2].startswith("P(defeat)")
    blocks = out.split("\n\n")
    assert len(blocks) == 3  # headline, probabilities (outcomes first), means
    probs = blocks[1].splitlines()
    assert probs[1].startswith("victory (won, nobody died)")
    assert all(" mean " in x for x in blocks[2].splitlines()[1:])
    assert "NaN" not in out and "<NA>" not in out


def test_compare_table_orders_headline_then_variants():
    code, out, _ = run_cli("compare", "party", "-n", "300", "--seed", "1")
    assert code == 0 and "NaN" not in out and "<NA>" not in out
    rows = [x.split() for x in out.split("\n\n")[0].splitlines()[1:]]
    assert [r[1] for r in rows[:6]] == ["any_death"] * 3 + ["defeat"] * 3
    assert [r[0] for r in rows[:3]] == ["seed000", "pf2e-core", "seed001"]
    means = out.split("\n\n")[1].splitlines()
    assert means[1].split()[1] == "expected_deaths"


def test_a_wrapped_table_keeps_its_blocks_and_empty_cells(monkeypatch):
    monkeypatch.setenv("COLUMNS", "90")
    code, out, _ = run_cli("compare", "party", "-n", "300", "--seed", "1")
    assert code == 0 and "NaN" not in out and "<NA>" not in out
    assert max(len(x) for x in out.splitlines()) <= 90
    code, out, _ = run_cli("run", "party", "-n", "300", "--seed", "1")
    assert code == 0 and "NaN" not in out and "<NA>" not in out
