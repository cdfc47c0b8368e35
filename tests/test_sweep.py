"""Sweeps: rows equal single runs, seeds from parameters, exact batches, resume, executors."""

import json
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from test_chain import DyingTwice  # the chained stand-in model shared by the tests

from simkit import Dying, simulate, solve
from simkit.analysis.sweep import STAT_COLUMNS, journal_path, sweep, sweep_csv
from simkit.core.exact import solve_many
from simkit.core.params import ParamError, seed_params
from simkit.core.streams import point_seed

N = 20_000


def _replay(model, seed, n=N):
    ps = point_seed(seed, {"model": model.name, **seed_params(model)})
    return ps, simulate(model, n, rng=ps)


def test_rows_equal_single_simulate_calls():
    df = sweep("dying", {"dc": [14, 22], "hit_chance": [0.0, 0.3]}, N, 7, fixed={"save_bonus": 9})
    assert list(df.columns[:4]) == ["dc", "hit_chance", "outcome", "kind"]
    assert tuple(df.columns[4:10]) == STAT_COLUMNS
    assert list(df.columns[10:]) == ["model", "seed", "point_seed", "version", "params"]
    assert len(df) == 4 * 4
    for (dc, hc), rows in df.groupby(["dc", "hit_chance"], sort=False):
        model = Dying(dc=dc, hit_chance=hc, save_bonus=9)
        ps, res = _replay(model, 7)
        one = res.summary()
        assert (rows["point_seed"] == ps).all() and (rows["seed"] == 7).all()
        assert list(rows["outcome"]) == list(one["outcome"])
        assert list(rows["count"]) == list(one["count"])
        for c in ("p", "ci_low", "ci_high", "exact"):
            np.testing.assert_allclose(rows[c], one[c], rtol=1e-12, atol=1e-15)
        assert json.loads(rows["params"].iloc[0]) == {
            k: v
            for k, v in {"dc": dc, "hit_chance": hc, "save_bonus": 9}.items()
            if v != Dying().params()[k]
        }


def test_point_streams_depend_on_parameters_not_position():
    a = sweep("dying", {"dc": [14, 18]}, N, 3)
    b = sweep("dying", {"dc": [22, 18, 30, 14]}, N, 3)
    for dc in (14, 18):
        ra = a[a["dc"] == dc].reset_index(drop=True)
        rb = b[b["dc"] == dc].reset_index(drop=True)
        pd.testing.assert_frame_equal(ra, rb)
    # the same rules reached through `level` or through the raw save give the same numbers
    lv = sweep("dying", {"level": [5]}, N, 3, fixed={"dc": 24, "hp_max": None})
    raw = sweep("dying", {"save_bonus": [int(lv["save_bonus"].iloc[0])]}, N, 3, fixed={"dc": 24})
    assert (
        list(lv["count"]) == list(raw["count"])
        and lv["point_seed"].iloc[0] == raw["point_seed"].iloc[0]
    )
    assert list(lv.columns[:2]) == ["level", "save_bonus"]


def test_exact_column_for_every_point_and_exact_only_mode():
    grid = {"dc": range(14, 40, 3), "save_bonus": range(0, 30, 4), "heal_round": [None, 3]}
    ex = sweep("dying", grid, exact_only=True)
    assert len(ex) == 9 * 8 * 2 * 4
    assert ex["count"].isna().all() and ex["seed"].isna().all()
    assert (ex["p"] == ex["exact"]).all() and (ex["ci_low"] == ex["p"]).all()
    for (dc, sb, hr), rows in list(
        ex.groupby(["dc", "save_bonus", "heal_round"], dropna=False, sort=False)
    )[::17]:
        probs = solve(
            Dying(dc=dc, save_bonus=sb, heal_round=None if pd.isna(hr) else int(hr))
        ).probabilities
        np.testing.assert_allclose(
            rows["exact"], [probs[o] for o in rows["outcome"]], rtol=1e-12, atol=1e-15
        )
    g = ex.groupby(["dc", "save_bonus", "heal_round"], dropna=False)["exact"].sum()
    np.testing.assert_allclose(g, 1.0, atol=1e-12)


def test_solve_many_equals_solve_on_varied_models():
    models = [
        Dying(),
        Dying(dc=30, save_bonus=2, max_rounds=7),
        Dying(hit_chance=0.3, crit_chance=0.1, hero_points=1),
        Dying(check="flat", wounded_rule=True, wounded=2, on_damage="increment", hit_chance=0.2),
        Dying(heal_round=4, hit_dc=30, hit_chance=0.5),
        Dying(nonlethal=True),
        Dying(start=3, crit=True),
        Dying(
            hero_points=1,
            hero_policy=2,
            hero_effect="stabilize",
            hp_max=5,
            hit_chance=0.4,
            crit_chance=0.2,
        ),
    ]
    for m, b in zip(models, solve_many(models)):
        a = solve(m)
        np.testing.assert_allclose(b.hist, a.hist, rtol=1e-12, atol=1e-15)
        assert b.unresolved == pytest.approx(a.unresolved, abs=1e-15)


def test_chain_models_sweep_like_any_other():
    df = sweep(DyingTwice, {"dc": [16, 24]}, N, 11)
    for dc, rows in df.groupby("dc"):
        _, res = _replay(DyingTwice(dc=dc), 11)
        assert list(rows["count"]) == list(res.summary()["count"])
        probs = solve(DyingTwice(dc=dc)).probabilities
        np.testing.assert_allclose(
            rows["exact"], [probs[o] for o in rows["outcome"]], rtol=1e-12, atol=1e-15
        )
    ex = sweep(DyingTwice, {"dc": [16, 24]}, exact_only=True)
    np.testing.assert_allclose(ex["exact"], df["exact"], rtol=1e-12, atol=1e-15)
    surv = sweep(DyingTwice, {"dc": [16]}, N, 11, survival=True)
    assert set(surv["stage"]) == {"dying", "stable->dying"}
    assert {"rounds"} == set(surv["time_unit"])


def test_survival_rows_equal_result_survival():
    df = sweep("dying", {"dc": [18, 26]}, N, 5, survival=True, fixed={"max_rounds": 12})
    assert list(df.columns[:5]) == ["dc", "stage", "time_unit", "time", "outcome"]
    for dc, rows in df.groupby("dc"):
        _, res = _replay(Dying(dc=dc, max_rounds=12), 5)
        s = res.survival()
        assert list(rows["count"]) == list(s["count"])
        np.testing.assert_allclose(rows["exact"], s["exact"], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(rows["ci_high"], s["ci_high"], rtol=1e-12)


def test_bad_grids_name_the_key():
    with pytest.raises(ParamError, match="unknown key"):
        sweep("dying", {"bogus": [1]}, 100, 1)
    with pytest.raises(ParamError, match="empty range"):
        sweep("dying", {"dc": "20..14"}, 100, 1)
    with pytest.raises(ParamError, match="empty list"):
        sweep("dying", {"dc": []}, 100, 1)
    with pytest.raises(
        ParamError, match=r"grid point dc=14, monster_level=3: dc and monster_level"
    ):
        sweep("dying", {"dc": [14], "monster_level": [3]}, 100, 1)
    with pytest.raises(ParamError, match="save_bonus=99"):
        sweep("dying", {"save_bonus": [1, 99]}, 100, 1)


class Stop(Exception):
    pass


def _interrupted(tmp_path, name, k, **kw):
    out = tmp_path / name
    calls = []

    def boom(done):
        calls.append(done)
        if len(calls) == k:
            raise Stop

    with pytest.raises(Stop):
        sweep_csv(out, "dying", GRID, N, 21, after_task=boom, chunk_size=2, **kw)
    return out


GRID = {"dc": range(14, 30, 2), "hit_chance": [0.0, 0.2]}


def test_resume_after_failure_is_byte_identical(tmp_path):
    ref = tmp_path / "ref.csv"
    sweep_csv(ref, "dying", GRID, N, 21)
    assert not journal_path(ref).exists()
    out = _interrupted(tmp_path, "cut.csv", 3)
    assert not out.exists()  # complete or absent
    jp = journal_path(out)
    lines = jp.read_text().splitlines()
    assert len(lines) == 1 + 3  # header + 3 tasks of 2 points
    with pytest.raises(ParamError, match="--resume"):
        sweep_csv(out, "dying", GRID, N, 21)
    # a line cut short by a kill is dropped
    with jp.open("a") as fh:
        fh.write('{"keys": ["{\\"dc\\":2')
    seen = []
    sweep_csv(out, "dying", GRID, N, 21, resume=True, after_task=seen.append, chunk_size=2)
    assert seen[0] == 8  # 6 points were skipped
    assert out.read_bytes() == ref.read_bytes()
    assert not jp.exists()


def test_resume_refuses_another_sweeps_journal(tmp_path):
    out = _interrupted(tmp_path, "x.csv", 1)
    with pytest.raises(ParamError, match="different sweep"):
        sweep_csv(out, "dying", GRID, N + 1, 21, resume=True)


def test_local_processes_give_identical_frames():
    a = sweep("dying", {"dc": [14, 20, 26]}, N, 1)
    b = sweep("dying", {"dc": [14, 20, 26]}, N, 1, workers=2, chunk_size=1)
    pd.testing.assert_frame_equal(a, b)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_dask_gives_identical_frames(dask_client):
    grid = {"dc": [14, 20, 26], "hit_chance": [0.0, 0.25]}
    a = sweep("dying", grid, N, 9)
    b = sweep("dying", grid, N, 9, client=dask_client, chunk_size=1)
    pd.testing.assert_frame_equal(a, b)
    c = sweep("dying", grid, exact_only=True)
    d = sweep("dying", grid, exact_only=True, client=dask_client)
    pd.testing.assert_frame_equal(c, d)


@pytest.mark.slow
def test_dask_own_local_cluster_with_processes():
    a = sweep("dying", {"dc": [14, 26]}, N, 9)
    b = sweep("dying", {"dc": [14, 26]}, N, 9, executor="dask", workers=2)
    pd.testing.assert_frame_equal(a, b)


@dataclass(frozen=True, slots=True)
class NoExact(Dying):
    """The dying rules without their exact solver (a model that has none)."""

    name: ClassVar[str] = "no_exact"
    has_exact: ClassVar[bool] = False


def test_models_without_exact_solver():
    df = sweep(NoExact, {"dc": [14, 20]}, N, 2)
    assert df["exact"].isna().all()
    ref = sweep("dying", {"dc": [14, 20]}, N, 2)
    assert list(df["count"]) != [] and df["p"].between(0, 1).all()
    with pytest.raises(ParamError, match="no exact solver"):
        sweep(NoExact, {"dc": [14]}, exact_only=True)
    assert list(ref.columns) == list(df.columns)


def test_grid_key_whose_targets_are_all_given_is_refused():
    from simkit.models import make_model

    fight = make_model("encounter", level=5, monster_level=7)
    with pytest.raises(ParamError, match="--grid level_diff: it sets monster_level"):
        sweep(fight, {"level_diff": [0, 1]}, 1000, 1)
    # without the explicit monster_level the axis takes effect (the model's own level)
    df = sweep(fight.replace(monster_level=None), {"level_diff": [0, 1]}, 2000, 1)
    assert set(df["monster_level"]) == {5, 6}


@pytest.mark.parametrize(
    "argv, near",
    [
        (["sweep", "dying", "--set", "leve=5", "--grid", "dc=14,16"], "level"),
        (["sweep", "dying", "--grid", "lvel=1..3"], "level"),
        (["sweep", "dying", "--grid", "save_bonu=1,2"], "save_bonus"),
        (["compare", "dying", "--set", "level_dif=0", "--grid", "level=1,2"], "level_diff"),
        (["run", "dying", "--set", "leve=5"], "level"),
    ],
)
def test_an_unknown_key_names_the_near_one(argv, near, capsys):
    from simkit.cli.main import main

    assert main(argv + ["-n", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"(did you mean {near!r}?)" in err[0], err


def test_the_grid_takes_a_model_s_declarations_once(monkeypatch):
    """make_grid, the CLI's parsers and every point's resolution read the model's
    parameters once (model_keys), not per key or per value."""
    import simkit.models.keys as sk
    from simkit.analysis.grid import make_grid, parse_fixed_args, parse_grid_args, resolve_point
    from simkit.models.dying import Dying

    class Fresh(Dying):  # a class no grid has seen yet
        pass

    calls = []
    real = sk.spec
    monkeypatch.setattr(sk, "spec", lambda cls: calls.append(cls) or real(cls))
    g = make_grid(Fresh, {"level": range(1, 6), "dc": [14, 18, "22"]}, {"pc_con": 3})
    parse_grid_args(Fresh, ["level=1..3", "hit_chance=0.1,0.2"])
    parse_fixed_args(Fresh, ["level_diff=1", "dc=20"])
    for point in g.points():
        resolve_point(Fresh, {**g.fixed, **point})
    assert calls.count(Fresh) <= 2  # the parameters, and the sweep keys that reach them
    assert sk.model_keys(Fresh) is sk.model_keys(Fresh)


def test_an_option_at_its_default_does_not_reseed_a_sweep():
    # issue 31's options are declared seed_neutral: at their default they are not in a
    # point's seed (the sweeps made before them keep their numbers); set, they are
    m = Dying(dc=18)
    assert "fortune" not in seed_params(m) and "fortune" in m.params()
    assert seed_params(m.replace(fortune="fortune"))["fortune"] == "fortune"
    df = sweep("dying", {"fortune": ["none", "fortune"]}, 2000, 7, fixed={"dc": 18})
    seeds = df.drop_duplicates("fortune").set_index("fortune")["point_seed"]
    assert seeds["none"] == point_seed(7, {"model": "dying", **seed_params(m)})
    assert seeds["none"] != seeds["fortune"]
