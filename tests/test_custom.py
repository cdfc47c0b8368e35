"""Custom tracks: the table-driven kernel, the exact chain, brute force, the presets."""

import io
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simkit
from simkit.cli.main import main
from simkit.models import REGISTRY, make_model
from simkit.models.custom import CustomTrack, TrackError, track
from simkit.models.dnd import DnD4e, DnD5e
from simkit.testing import replay, within_se


# -- independent answers -----------------------------------------------------------------
def brute_5e(dc=10, bonus=0, successes=0, failures=0):
    """P(stable, dead, revived) by enumerating d20 sequences (grouped by what a face does).

    Written from the rule text, not from the model: a face is 'nat1', 'nat20', 'success'
    (roll + bonus >= dc) or 'failure'; the sequences are enumerated depth first.
    """
    groups = {"nat1": 1, "nat20": 1, "success": 0, "failure": 0}
    for roll in range(2, 20):
        groups["success" if roll + bonus >= dc else "failure"] += 1
    probs = {"stable": Fraction(0), "dead": Fraction(0), "revived": Fraction(0)}

    def walk(s, f, weight):
        for face, count in groups.items():
            if not count:
                continue
            w = weight * Fraction(count, 20)
            if face == "nat20":
                probs["revived"] += w
                continue
            s2 = s + (face == "success")
            f2 = f + {"nat1": 2, "failure": 1, "success": 0}[face]
            if f2 >= 3:
                probs["dead"] += w
            elif s2 >= 3:
                probs["stable"] += w
            else:
                walk(s2, f2, w)

    walk(successes, failures, Fraction(1))
    return probs


def closed_form_4e(dc=10, surge_at=20, bonus=0, surge=True, failures=0):
    """P(dead) for 4e: only failures and surges end a round's 'nothing' loop."""
    p_fail = Fraction(sum(1 for r in range(1, 21) if r + bonus < dc), 20)
    p_surge = (
        Fraction(sum(1 for r in range(1, 21) if r + bonus >= surge_at and r + bonus >= dc), 20)
        if surge
        else 0
    )
    if p_fail == 0:
        return Fraction(0)
    return (p_fail / (p_fail + p_surge)) ** (3 - failures)


@pytest.mark.parametrize(
    "kw", [{}, {"bonus": 3}, {"dc": 15, "failures": 1}, {"successes": 2, "bonus": -2}]
)
def test_5e_exact_matches_brute_force(kw):
    want = brute_5e(**kw)
    got = simkit.solve(DnD5e(**kw)).probabilities
    for o, p in want.items():
        assert got[o] == pytest.approx(float(p), abs=1e-12), o
    assert got["unresolved"] == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(
    dc=st.integers(1, 30),
    bonus=st.integers(-20, 20),
    successes=st.integers(0, 2),
    failures=st.integers(0, 2),
)
def test_5e_exact_matches_brute_force_generated(dc, bonus, successes, failures):
    kw = dict(dc=dc, bonus=bonus, successes=successes, failures=failures)
    got = simkit.solve(DnD5e(**kw)).probabilities
    for o, p in brute_5e(**kw).items():
        assert got[o] == pytest.approx(float(p), abs=1e-12), (kw, o)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(
    dc=st.integers(1, 20),
    extra=st.integers(0, 20),
    bonus=st.integers(-20, 20),
    surge=st.booleans(),
    failures=st.integers(0, 2),
)
def test_4e_exact_matches_closed_form_generated(dc, extra, bonus, surge, failures):
    kw = dict(dc=dc, surge_at=max(2, dc + extra), bonus=bonus, surge=surge, failures=failures)
    got = simkit.solve(DnD4e(max_rounds=60, **kw))
    # independent: per round, fail with f, surge with s, else nothing; 60 rounds
    f = sum(1 for r in range(1, 21) if r + bonus < dc) / 20
    s = (
        sum(1 for r in range(1, 21) if r + bonus >= max(2, dc + extra) and r + bonus >= dc) / 20
        if surge
        else 0
    )
    alive = [0.0] * 3
    alive[failures] = 1.0
    dead = revived = 0.0
    for _ in range(60):
        dead += alive[2] * f
        revived += sum(alive) * s
        alive = [
            alive[0] * (1 - f - s),
            alive[1] * (1 - f - s) + alive[0] * f,
            alive[2] * (1 - f - s) + alive[1] * f,
        ]
    assert got["dead"] == pytest.approx(dead, abs=1e-12)
    assert got["revived"] == pytest.approx(revived, abs=1e-12)
    assert got["unresolved"] == pytest.approx(sum(alive), abs=1e-12)


def test_5e_headline_number():
    # the widely quoted 40.49% chance of dying from death saves alone
    assert float(brute_5e()["dead"]) == 0.404875
    assert simkit.solve(DnD5e())["dead"] == pytest.approx(0.404875, abs=1e-12)


@pytest.mark.parametrize(
    "kw", [{}, {"bonus": 4}, {"dc": 12, "surge_at": 18}, {"surge": False}, {"failures": 2}]
)
def test_4e_exact_matches_closed_form(kw):
    got = simkit.solve(DnD4e(**kw))
    assert got["dead"] == pytest.approx(float(closed_form_4e(**kw)), abs=1e-9)


@pytest.mark.parametrize(
    "model",
    [
        DnD5e(),
        DnD5e(bonus=2, failures=1),
        DnD5e(max_rounds=2),
        DnD4e(),
        DnD4e(surge=False, max_rounds=4),
        DnD4e(bonus=-3, dc=12),
    ],
    ids=repr,
)
def test_presets_monte_carlo_matches_exact(model):
    n = 200_000
    res = simulate_and_exact(model, n, seed=11)
    for o, (p_hat, p) in res.items():
        assert within_se(p_hat, p, n), (o, p_hat, p)


def simulate_and_exact(model, n, seed):
    mc = simkit.simulate(model, n, rng=seed)
    ex = simkit.solve(model).probabilities
    return {o: (mc[o], ex[o]) for o in mc.outcomes}


def test_survival_by_round_matches_exact():
    n = 200_000
    mc = simkit.simulate(DnD5e(), n, rng=5)
    ex = simkit.solve(DnD5e())
    got = mc.hist / n
    for i in range(got.shape[0]):
        for t in range(got.shape[1]):
            assert within_se(got[i, t], ex.hist[i, t], n), (i, t)


# -- the kernel against the rule, on the same draws -----------------------------------------
@pytest.mark.parametrize(
    "model", [DnD5e(), DnD5e(max_rounds=4, bonus=-1), DnD4e(max_rounds=7)], ids=repr
)
def test_kernel_replays_through_the_rule(model):
    """Decode every draw of the kernel into faces and replay them with transition()."""
    rolls, _ = model.faces()
    K = len(rolls)
    n_out = len(model.outcomes)

    def step(s, t, k, draws):
        ((kind, draw, high),) = draws
        assert kind == "integers" and high == K**k
        for j in range(k):
            s = model.transition(s, rolls[int(draw) // K**j % K])
            if isinstance(s, str):
                return model.outcomes.index(s) + n_out * j, s
        return None, s

    def same_state(state, row, s, t, code):
        if code is None:
            assert model.table().states[state["s"][row]] == s

    replay(model, 2000, 3, start=lambda draws: (None, model.start()), step=step, check=same_state)


# -- the notebook builder --------------------------------------------------------------------
def five_e_step(state, roll, rules):
    successes, failures = state
    if roll == 20:
        return "revived"
    failures += 2 if roll == 1 else int(roll + rules.bonus < 10)
    successes += int(roll != 1 and roll + rules.bonus >= 10)
    if failures >= 3:
        return "dead"
    if successes >= 3:
        return "stable"
    return successes, failures


def test_builder_track_equals_preset_and_changes_with_params():
    saves = track(
        "my5e",
        start=(0, 0),
        step=five_e_step,
        outcomes=("stable", "dead", "revived"),
        params={"bonus": 0},
    )
    assert isinstance(saves, CustomTrack) and saves.name == "my5e"
    assert "my5e" not in REGISTRY
    assert simkit.solve(saves).probabilities == pytest.approx(simkit.solve(DnD5e()).probabilities)
    better = saves.replace(bonus=2)
    assert simkit.solve(better)["dead"] == pytest.approx(
        float(brute_5e(bonus=2)["dead"]), abs=1e-12
    )
    n = 100_000
    mc = simkit.simulate(better, n, rng=1)
    assert within_se(mc["dead"], simkit.solve(better)["dead"], n)
    with pytest.raises(simkit.ParamError, match="bonus"):
        saves.replace(bonus=1.5)
    assert list(saves.table_frame().columns) == ["state", "roll", "p", "next"]


def test_builder_non_uniform_and_several_dice():
    # 2d6 each step: snake eyes kills, boxcars saves, otherwise go on (non-uniform faces)
    boxcars = track(
        "boxcars",
        start=0,
        dice="2d6",
        outcomes=("dead", "saved"),
        step=lambda s, r: "dead" if r == 2 else ("saved" if r == 12 else s),
        max_rounds=30,
    )
    ex = simkit.solve(boxcars)
    q = 1 - 2 / 36
    assert ex["dead"] == pytest.approx((1 - q**30) / 2, abs=1e-12)
    assert ex["unresolved"] == pytest.approx(q**30, abs=1e-12)
    assert not boxcars.table().uniform

    # a d20 and a d100 together: the d100 decides a hit (30%), three hits kill
    def hits(s, roll):
        d20, d100 = roll
        if d100 <= 30:
            return "dead" if s + 1 >= 3 else s + 1
        return "safe" if d20 == 20 else s

    pair = track("pair", start=0, dice=("1d20", "1d100"), outcomes=("dead", "safe"), step=hits)
    assert pair.table().n_faces == 2000
    p_dead = (0.3 / (0.3 + 0.7 * 0.05)) ** 3
    assert simkit.solve(pair)["dead"] == pytest.approx(p_dead, abs=1e-9)
    n = 100_000
    for model in (boxcars, pair):
        mc = simkit.simulate(model, n, rng=4)
        exact = simkit.solve(model).probabilities
        for o in mc.outcomes:
            assert within_se(mc[o], exact[o], n), (model.name, o)


def test_builder_start_in_an_outcome_and_callable_start():
    done = track("done", start="ok", step=lambda s, r: s, outcomes=("ok",))
    assert simkit.simulate(done, 100, rng=1).counts["ok"] == 100
    assert simkit.solve(done)["ok"] == 1.0
    late = track(
        "late",
        start=lambda rules: rules.first,
        step=lambda s, r, rules: "x" if s + 1 >= 3 else s + 1,
        outcomes=("x",),
        params={"first": 1},
    )
    ex = simkit.solve(late)
    assert ex.hist[0, 2] == pytest.approx(1.0)  # 1 -> 2 -> x at step 2
    assert simkit.solve(late.replace(first=2)).hist[0, 1] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(step=lambda s, r: "gone"), "outcome 'gone'"),
        (dict(step=lambda s, r: 1.5), "a state must be an int"),
        (dict(step=lambda s, r: s + 1, max_states=50), "more than 50"),
        (dict(outcomes=("dead", "unresolved")), "unresolved"),
        (dict(dice="3x7"), "dice"),
        (dict(params={"mood": "grim"}), "mood"),
        (dict(step="nope"), "step"),
    ],
)
def test_builder_rejects_bad_definitions(kwargs, match):
    base = dict(start=0, step=lambda s, r: "dead", outcomes=("dead",))
    base.update(kwargs)
    with pytest.raises(TrackError, match=match):
        model = track("bad", **base)
        simkit.solve(model)


# -- registry and CLI ---------------------------------------------------------------------------
def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_presets_are_registered_models():
    assert REGISTRY["dnd5e"] is DnD5e and REGISTRY["dnd4e"] is DnD4e
    assert make_model("dnd5e", bonus=1) == DnD5e(bonus=1)
    code, out, _ = run("models", "dnd5e")
    assert code == 0 and "bonus" in out and "revived" in out


def test_cli_run_and_exact_agree_for_dnd5e():
    n = 100_000
    code, out, _ = run("run", "dnd5e", "-n", str(n), "--seed", "2", "--format", "csv")
    assert code == 0
    mc = pd.read_csv(io.StringIO(out)).set_index("outcome")
    code, out, _ = run("exact", "dnd5e", "--format", "csv")
    assert code == 0
    ex = pd.read_csv(io.StringIO(out)).set_index("outcome")
    assert ex.loc["dead", "p"] == pytest.approx(0.404875)
    for o in ex.index:
        assert within_se(mc.loc[o, "p"], ex.loc[o, "p"], n)


@pytest.mark.parametrize(
    "argv",
    [
        ["exact", "dnd5e", "--set", "failures=3"],
        ["exact", "dnd4e", "--set", "surge_at=5", "--set", "dc=10"],
        ["run", "dnd4e", "--set", "bonus=x"],
    ],
)
def test_cli_bad_values_one_line(argv):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("simkit: error:")


def test_notebook_track_with_workers_is_a_clear_error():
    import simkit
    from simkit import ParamError

    def step(state, roll, rules):
        return "dead" if roll <= rules.x else ("stable" if roll == 20 else state)

    t = simkit.track(
        "nb", start=0, step=step, dice="1d20", outcomes=("stable", "dead"), params={"x": 1}
    )
    with pytest.raises(ParamError, match="cannot be sent to worker processes"):
        simkit.simulate(t, 200_000, rng=1, workers=2, block_size=2**16)
    with pytest.raises(ParamError, match="cannot be sent to worker processes"):
        simkit.sweep(t, {"x": [1, 2]}, 1000, 1, workers=2)
    assert simkit.simulate(t, 1000, rng=1).n == 1000  # in-process is fine
