"""Labelled data (issue 29, item 7): results, sweeps and comparisons as xarray datasets,
``-o FILE.parquet``, and one line naming the extra to install where one is missing."""

from __future__ import annotations

import builtins

import numpy as np
import pandas as pd
import pytest

import simkit
from simkit.core.extras import MissingExtra
from simkit.testing import run_cli


def test_result_to_xarray_is_its_summary():
    pytest.importorskip("xarray")
    res = simkit.simulate("party", 1000, 3)
    ds = res.to_xarray()
    s = res.summary().set_index("outcome")
    assert list(ds.sizes) == ["name"] and list(ds["name"].values) == list(s.index)
    assert list(ds["kind"].values) == list(s["kind"])
    for var in ("p", "ci_low", "ci_high", "mean"):
        np.testing.assert_array_equal(ds[var].values, s[var].to_numpy(dtype=float))
    np.testing.assert_array_equal(
        ds["count"].values, pd.to_numeric(s["count"]).to_numpy(dtype=float)
    )
    outcomes = ds["p"].where(ds["kind"] == "outcome", drop=True)
    assert float(outcomes.sum()) == pytest.approx(1.0, abs=1e-12)
    assert ds.attrs["model"] == "party" and ds.attrs["n"] == 1000


def test_sweep_and_compare_to_xarray_have_grid_variant_and_name_dims():
    pytest.importorskip("xarray")
    from simkit.analysis.sweep import to_xarray

    df = simkit.sweep("dying", {"dc": [18, 22], "hit_chance": [0.0, 0.3]}, 2000, 1)
    ds = to_xarray(df)
    assert dict(ds.sizes) == {"dc": 2, "hit_chance": 2, "name": 4}
    row = df[(df.dc == 22) & (df.hit_chance == 0.3) & (df.outcome == "dead")].iloc[0]
    got = ds.sel(dc=22, hit_chance=0.3, name="dead")
    assert float(got["p"]) == row["p"] and float(got["exact"]) == row["exact"]
    sums = ds["p"].where(ds["kind"] == "outcome").sum("name")
    np.testing.assert_allclose(sums.values, 1.0, atol=1e-9)
    cmp = simkit.compare(
        {"a": "dying", "b": {"model": "dying", "level": 3}}, {"dc": [18, 22]}, 1000, 1
    )
    cx = to_xarray(cmp)
    assert list(cx.sizes) == ["dc", "variant", "name"]
    assert list(cx["variant"].values) == ["a", "b"] or set(cx["variant"].values) == {"a", "b"}
    one = cmp[(cmp.variant == "b") & (cmp.dc == 18) & (cmp.outcome == "dead")].iloc[0]
    assert float(cx.sel(dc=18, variant="b", name="dead")["diff"]) == pytest.approx(one["diff"])


@pytest.mark.parametrize("verb", ["run", "sweep", "compare"])
def test_output_parquet_is_the_csv_table(verb, tmp_path):
    pytest.importorskip("pyarrow")
    args = [verb, "party", "-n", "300", "--seed", "2"]
    if verb != "run":
        args += ["--grid", "level=3,4"]
    code, csv, err = run_cli(*args, "--format", "csv")
    assert code == 0, err
    target = tmp_path / "out.parquet"
    code, out, err = run_cli(*args, "-o", target)
    assert code == 0 and out == "", err
    got = pd.read_parquet(target)
    want = pd.read_csv(__import__("io").StringIO(csv))
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(
        got["p"].to_numpy(dtype=float), want["p"].to_numpy(dtype=float), equal_nan=True
    )
    assert (got["kind"] == want["kind"]).all()


def _without(monkeypatch, module: str) -> None:
    """Make ``import module`` fail, as where the extra is not installed."""
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == module or name.startswith(module + "."):
            raise ImportError(f"No module named {module!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    monkeypatch.delitem(__import__("sys").modules, module, raising=False)


def test_a_missing_extra_is_one_line_saying_what_to_install(monkeypatch, tmp_path):
    res = simkit.simulate("dying", 100, 1)
    _without(monkeypatch, "xarray")
    with pytest.raises(
        MissingExtra, match=r"needs the optional package xarray: pip install 'simkit\[xarray\]'"
    ):
        res.to_xarray()
    _without(monkeypatch, "pyarrow")
    code, out, err = run_cli("run", "dying", "-n", "100", "-o", tmp_path / "x.parquet")
    assert code == 2 and out == "" and not (tmp_path / "x.parquet").exists()
    assert err.count("\n") == 1 and "pip install 'simkit[parquet]'" in err


def test_exact_and_chain_results_to_xarray():
    pytest.importorskip("xarray")
    ex = simkit.solve("dying")
    ds = ex.to_xarray()
    assert list(ds["name"].values) == list(ex.probabilities)
    np.testing.assert_array_equal(ds["p"].values, list(ex.probabilities.values()))
    chain = simkit.simulate("agony", 1000, 1)
    cs = chain.to_xarray()
    assert list(cs["name"].values) == list(chain.counts)
    assert float(cs["p"].sum()) == pytest.approx(1.0, abs=1e-12)
    assert set(cs["kind"].values) == {"outcome"}
