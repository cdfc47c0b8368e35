"""The party model: the fight loop vs the scalar reference, outcomes, parameters, monotonicity."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

import simkit
from simkit.core.params import ParamError
from simkit.models.fight_state import FightStart
from simkit.models.party import Party
from simkit.models.party_duel import DUEL_MAX_CELLS, duel_states
from simkit.testing import assert_agrees_with_exact, standard_error, within_se

#: The marks that split ``deaths`` by cause.
DEATH_CAUSES = ("deaths_in_fight", "deaths_after_defeat", "deaths_after_fight")


#: Every option of the party model, with the values the generated configurations draw
#: (the first is the default; ``party``, ``monsters`` and ``retreat_at`` are drawn apart).
#: A configuration forced to leave an option's default picks among the others.
OPTIONS: dict[str, tuple] = {
    "level": (5, 1, 2, 3, 4, 6, 8, 11, 14, 17, 20),
    "threat": ("moderate", "trivial", "low", "severe", "extreme"),
    "xp_budget": (None, 0, 30, 90),
    "lineup": ("boss", "boss_and_minions", "pack"),
    "budget": ("gm-core", "crb"),
    "benchmark": ("High", "Extreme", "Moderate", "Low"),
    "defense": ("Moderate", "High", "Low"),
    "rules": ("seed000", "pf2e-core", "seed001"),
    "hp": (None, 0, 5),
    "start_dying": (1, 2),
    "check_penalty": (0, -2, -5),
    "hero_points": (1, 0, 2),
    "hero_policy": ("at_death", "never", "immediately", 2),
    "death_at": (4, 2, 3, 6),
    "hero_knockout": ("spend", "die"),
    "wounded_adds": ("on_gain", "every_hit"),
    "natural": (False, True),
    "spend": ("last", "never", "asap", 1, 3),
    "stabilize_cap": (3, None, 1, 2),
    "zero_pp": ("at_once", "end_of_turn"),
    "pe_damage": ("pe_first", "hp_only"),
    "long_term": (True, False),
    "checks": (8, 7),
    "attacks": (2, 1, 3),
    "map": ("standard", "agile", "none"),
    "trait": ("lethal", "nonlethal", "death"),
    "monster_dc": ("table", "skill"),
    "target_downed": ("never", "sometimes", "always"),
    "downed_chance": (0.5, 0.0, 0.2, 0.9, 1.0),
    "downed_pick": ("first", "random"),
    "first_aid_dc": (15, 5, 10, 20, 30),
    "first_aid_natural": (False, True),
    "area_chance": (0.2, 0.0, 0.3, 1.0),
    "area_uses": (1, 0, 2),
    "pc_target": ("focus", "spread"),
    "monster_target": ("random", "weakest", "focus"),
    "heal_below": (0.5, 0.0, 1.0),
    "after_defeat": ("slain", "captured"),
    "max_rounds": (100, 3, 6),
}
#: Options drawn apart: the party (roles, explicit numbers), an explicit lineup, retreat.
DRAWN_APART = ("party", "monsters", "retreat_at")
#: Explicit numbers a generated PC may carry (a role's own), a creature too.
PC_NUMBERS = {
    "fighter": ("hp_max=30", "ac=19", "attack=14", "damage=2d8+4", "con=3", "pp_max=2", "pe_max=5"),
    "rogue": ("hp_max=25", "ac=20", "reflex=12", "damage=3d6+2", "agile=false"),
    "cleric": ("heals=1", "heal=2d8+8", "medicine=15", "hp_max=40", "fort=14"),
    "wizard": ("slots=1", "area=4d6", "cantrip=2d4", "spell_dc=21", "perception=12", "pe_max=0"),
}
MONSTER_NUMBERS = (
    "hp=40",
    "attack=15",
    "damage=2d6+3",
    "damage=1d4-1",  # (a hit may deal 0 damage)
    "ac=Extreme",
    "area=3d6",
    "spell_dc=20",
)


def _configs(count: int, seed: int) -> list[dict]:
    """Generated configurations drawing every option of the model (:data:`OPTIONS`, the
    party with explicit numbers per PC, an explicit lineup with its own numbers, retreat).
    Configuration ``c`` leaves the default of every option ``o`` with ``o = c (mod count)``
    and draws the others at random (the default half the time), so ``count`` consecutive
    configurations take each option away from its default at least once."""
    g = np.random.default_rng(seed)
    names = list(OPTIONS) + ["party", "retreat_at"]
    names.insert(names.index("xp_budget") + 1, "monsters")  # (exclusive: never forced together)

    def pick(xs):
        return xs[int(g.integers(len(xs)))]

    out = []
    for c in range(count):
        forced = {name for o, name in enumerate(names) if o % count == c % count}
        params = {  # (an option not forced keeps its default half the time)
            name: pick(values[1:] if name in forced else values[:1] * len(values) + values)
            for name, values in OPTIONS.items()
        }
        size = int(g.integers(1, 5))
        members = []
        for _ in range(size):
            role = pick(tuple(PC_NUMBERS))
            if "party" in forced or g.random() < 0.2:  # a PC with its own numbers
                role += f"({pick(PC_NUMBERS[role])})"
            members.append(role)
        params["party"] = ",".join(members)
        params["retreat_at"] = pick([1, size] if "retreat_at" in forced else [None, None, 1, size])
        params["monsters"] = None
        if "monsters" in forced or g.random() < 0.15:  # an explicit lineup (its own numbers)
            lv = max(-1, min(24, params["level"] + int(g.integers(-2, 3))))
            params["monsters"] = f"{lv}({pick(MONSTER_NUMBERS)}),{max(-1, lv - 2)}"
            params["xp_budget"] = None
        out.append(params)
    return out


def _random_start(r: Party, n: int, seed: int) -> FightStart:
    """Generated start states: HP anywhere in 0..max (max HP moved up or down), PE too,
    some PCs dead, resources partly spent, wounded, a check penalty per track, and each
    track's fight drawn among the rules' lineups."""
    g = np.random.default_rng(seed)
    fresh = r.fresh_start(n)
    P = fresh.n_pcs
    hp_max = np.maximum(1, fresh.hp_max + g.integers(-10, 11, size=(n, P)))
    hp = np.where(g.random((n, P)) < 0.2, 0, g.integers(0, hp_max + 1))
    dead = g.random((n, P)) < 0.1
    hp = np.where(dead, 0, hp)
    pe_max = np.maximum(0, fresh.pe_max + g.integers(-10, 11, size=(n, P)))
    return FightStart(
        hp=hp,
        hp_max=hp_max,
        hero=g.integers(0, 3, size=(n, P)),
        slots=g.integers(0, fresh.slots + 1),
        heals=g.integers(0, fresh.heals + 1),
        pp=g.integers(0, fresh.pp + 1),
        wounded=g.integers(0, 3, size=(n, P)),
        dead=dead,
        check_penalty=g.choice([0, -1, -4], size=n),
        fight=g.integers(0, r.n_fights, size=n),
        pe=np.where(g.random((n, P)) < 0.3, 0, g.integers(0, pe_max + 1)),
        pe_max=pe_max,
    )


#: How a generated case starts: ``(several fights in one block, from a given state)``;
#: case ``c`` is ``KINDS[c % 4]``, so any four consecutive cases hold every kind.
KINDS = ((False, False), (False, True), (True, False), (True, True))


def _case(params: dict, c: int, n: int) -> tuple[Party, FightStart | None]:
    """Case ``c``: the rules of ``params`` (with three more lineups when its kind has
    several fights) and its start (generated, or fresh with the tracks spread over the
    fights, or None)."""
    several, given = KINDS[c % len(KINDS)]
    r = Party(**params)
    if several:
        r = r.with_lineups([{}] + _lineups(3, c))
    if given:
        return r, _random_start(r, n, 100 + c)
    return r, (_mixed_start(r, n, c) if several else None)


def loop_vs_ref(model: Party, n: int, seed: int, state=None) -> None:
    """Play ``n`` tracks on the compiled loop (``engine="loop"``, from ``state`` when given)
    and each again on the scalar reference from its dice key (the loop's dice contract,
    :mod:`simkit.models.party_replay`): the same outcome, end step, marks and end fields."""
    from simkit.fight.loop import CARRIED, OUT_MARK0, OUT_OUTCOME, OUT_STEP
    from simkit.fight.state import COND, HEALS, HERO, HP, MARKS, PP, SLOTS, WOUNDED
    from simkit.models import party_loop
    from simkit.models.party_replay import play

    rules = replace(model, engine="loop")
    keys = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(seed)
    out, ends = party_loop._run(rules, keys, state)
    fields = [CARRIED.index(f) for f in (HP, COND, HERO, SLOTS, HEALS, WOUNDED, PP)]
    cond_code = {"up": 0, "dying": 1, "stable": 2, "dead": 3}
    for t in range(n):
        tr = play(rules, int(keys[t]) >> 1, start=None if state is None else state.row(t))
        ref = (
            tr["code"],
            tr["step"],
            [tr[m] for m in MARKS],
            [
                (p["hp"], cond_code[p["cond"]], p["hero"], p["slots"], p["heals"], p["wounded"],
                 p["pp"])
                for p in tr["pcs"]
            ],
        )  # fmt: skip
        loop = (
            int(out[t, OUT_OUTCOME]),
            int(out[t, OUT_STEP]),
            [int(v) for v in out[t, OUT_MARK0:]],
            [tuple(int(ends[t, k, f]) for f in fields) for k in range(rules.n_pcs)],
        )
        assert loop == ref, (model, t, loop, ref)


def _check_case(params: dict, c: int, n: int, seed: int) -> None:
    r, start = _case(params, c, n)
    loop_vs_ref(r, n, seed, state=start)
    if start is not None:  # each track hands on its fight
        res = simkit.simulate(r, n, 2, start=start, keep_state=True)
        assert (res.final.fight == start.fight).all()


@pytest.mark.parametrize("c, params", list(enumerate(_configs(12, 20261130))))
def test_loop_equals_scalar_reference(c, params):
    _check_case(params, c, 60, 11)


@pytest.mark.slow
@pytest.mark.parametrize("c, params", list(enumerate(_configs(60, 11))))
def test_loop_equals_scalar_reference_many(c, params):
    _check_case(params, c, 200, 5)


@pytest.mark.parametrize("count, seed", [(12, 20261130), (60, 11)])
def test_generated_configurations_leave_every_default(count, seed):
    """The generated cases take every option of the model away from its default, with
    every kind of start (fresh, given; one lineup, several)."""
    import dataclasses

    configs = _configs(count, seed)
    # (engine: how the Monte Carlo plays the fight, not a rule: tests/test_fight_loop.py;
    # dying: a designer's track, the loop only: tests/test_downed_rule.py; the rules set's
    # options one by one, none = the rules set's: tests/test_dying_keys.py)
    apart = {"lineups", "engine", "dying", "check", "on_damage", "wounded_rule", "hero_effect"}
    # the seed rules of issue 31 item 2, the loop only: tests/test_fight_seed_rules.py
    apart |= {"slowed", "slowed_loses", "temp_hp", "back_in_fight", "enough_pp", "back_again"}
    apart |= {"con_damage", "ability_reading", "temp_keep"}
    # PF2e's dying options (issue 31 item 4), the loop only: tests/test_fight_pf2e_options.py
    apart |= {"toughness", "diehard", "fortune", "hero_use"}
    # the last readings (issue 31 item 3: A1-10, A1-11, AP-35 / A0-9): tests/test_readings.py
    apart |= {"agony_damage", "wake_restores", "wake_pp_back", "dying_effect", "dying_above_0"}
    every = {f.name for f in dataclasses.fields(Party)} - apart
    assert every == set(OPTIONS) | set(DRAWN_APART), every ^ (set(OPTIONS) | set(DRAWN_APART))
    default = Party()
    for name in every:
        assert any(p[name] != getattr(default, name) for p in configs), name
    assert any("(" in p["party"] for p in configs) and any(p["monsters"] for p in configs)
    assert {KINDS[c % len(KINDS)] for c in range(count)} == set(KINDS)


def test_no_monster_and_every_knockout_revived_is_won_at_once():
    """``hp=0`` without a monster, a hero point spent at each knock-out
    (``hero_policy=immediately``): every PC is up again before round 1, so the fight is won
    at step 0 (AP-16), on the loop as in the reference (0.3's kernel used to wait a round:
    found by the generated configurations)."""
    r = Party(level=3, party="fighter,wizard", xp_budget=0, hp=0, hero_policy="immediately")
    loop_vs_ref(r, 40, 3)
    res = simkit.simulate(r, 1000, 1)
    assert res.hist[r.outcomes.index("victory"), 0] == 1000


def test_defaults_and_lineup_shown():
    m = Party()
    assert m.roles == ("fighter", "rogue", "cleric", "wizard")
    assert m.describe_lineup() == "boss: 1 x level 7 (80 of 80 XP, moderate)"
    assert (
        Party(level=5, threat="severe", lineup="pack").describe_lineup()
        == "pack: 4 x level 4 (120 of 120 XP, severe)"
    )
    assert Party(xp_budget=0).fighters.monsters == ()
    res = simkit.simulate(Party(xp_budget=0), 100, rng=1)
    assert res["victory"] == 1.0


def test_bad_parameters_name_what_is_allowed():
    with pytest.raises(ParamError, match="party"):
        Party(party="fighter,bard")
    with pytest.raises(ParamError, match="party"):
        Party(party="fighter," * 9)
    with pytest.raises(ParamError, match="threat"):
        Party(threat="deadly")
    with pytest.raises(ParamError, match="retreat_at"):
        Party(party="fighter,wizard", retreat_at=3)
    with pytest.raises(ParamError, match="rules"):
        Party(rules="dnd")


def test_outcomes_and_marks_are_consistent():
    m = Party(level=3, threat="extreme", rules="pf2e-core")
    res = simkit.simulate(m, 20000, rng=3)
    deaths = res.marks["deaths"]  # (outcome, value) counts
    i = {o: k for k, o in enumerate(res.outcomes)}
    assert deaths[i["victory"], 1:].sum() == 0  # a victory has no death
    assert deaths[i["victory_with_deaths"], 0] == 0
    assert deaths[i["defeat"], : m.n_pcs].sum() == 0  # slain: every PC dies
    mask = res.marks["dead_mask"]
    bits = np.array([(v).bit_count() for v in range(mask.shape[1])])
    assert (mask.sum(axis=0) * bits).sum() == (
        deaths.sum(axis=0) * np.arange(deaths.shape[1])
    ).sum()


def _mean(res, name: str) -> float:
    counts = res.marks[name].sum(axis=0)
    return float((counts * np.arange(len(counts))).sum() / counts.sum())


def test_deaths_by_cause_add_up_and_each_cause_is_its_own():
    n = 4000
    outcome = {o: k for k, o in enumerate(Party.outcomes)}
    # slain: a defeat kills every downed PC; a won fight's dying can still die in its care
    m = Party(level=3, party="fighter,rogue", threat="extreme", rules="seed000", hero_points=0)
    res = simkit.simulate(m, n, rng=5)
    mean = {name: _mean(res, name) for name in ("deaths",) + DEATH_CAUSES}
    assert mean["deaths"] == pytest.approx(sum(mean[c] for c in DEATH_CAUSES), abs=1e-12)
    assert min(mean.values()) > 0, mean  # every cause happens here
    defeat = res.marks["deaths_after_defeat"][outcome["defeat"]]
    assert defeat[0] < defeat.sum()  # the defeats kill ...
    won = outcome["victory_with_deaths"]
    assert res.marks["deaths_after_defeat"][won, 1:].sum() == 0  # ... only at a defeat
    assert res.marks["deaths_after_fight"][outcome["victory"], 1:].sum() == 0
    # captured: nobody is killed for the defeat; the same fights, the same deaths in them
    cap = simkit.simulate(replace(m, after_defeat="captured"), n, rng=5)
    assert cap.marks["deaths_after_defeat"][:, 1:].sum() == 0
    assert cap["defeat"] == res["defeat"]
    # seed001 with the hourly checks: deaths after a won fight
    s1 = simkit.simulate(Party(rules="seed001", long_term=True, threat="severe"), n, rng=5)
    assert _mean(s1, "deaths_after_fight") > 0


def _p_death(m: Party, n: int, seed: int) -> float:
    res = simkit.simulate(m, n, rng=seed)
    d = res.marks["deaths"].sum(axis=0)
    return 1 - d[0] / n


@pytest.mark.parametrize("rules", ["seed000", "pf2e-core", "seed001"])
def test_bigger_threat_never_lowers_death_odds(rules):
    n = 20000
    ps = [
        _p_death(Party(level=4, threat=t, rules=rules), n, 7)
        for t in ("trivial", "low", "moderate", "severe", "extreme")
    ]
    for a, b in itertools.pairwise(ps):
        assert b >= a - 5 * np.hypot(standard_error(a, n), standard_error(b, n)), ps


def test_a_healer_never_raises_death_odds():
    n = 20000
    with_healer = _p_death(
        Party(level=4, threat="severe", party="fighter,rogue,cleric,wizard"), n, 9
    )
    without = _p_death(Party(level=4, threat="severe", party="fighter,rogue,fighter,wizard"), n, 9)
    assert with_healer <= without + 5 * np.hypot(
        standard_error(with_healer, n), standard_error(without, n)
    )


@pytest.mark.parametrize(
    "rules, extra",
    [
        ("seed000", {}),
        ("seed000", {"hero_points": 1, "hero_policy": 2, "start_dying": 2}),
        ("pf2e-core", {"hero_points": 2}),
    ],
)
def test_down_pc_without_monsters_is_the_dying_model(rules, extra):
    """A PC starting at 0 HP, no monster: the seed-000 dying track, exact answer of ``dying``."""
    from simkit.core.exact import solve
    from simkit.models.dying import Dying
    from simkit.models.party import RULES_SETS

    m = Party(party="wizard", level=6, xp_budget=0, hp=0, rules=rules, **extra)
    opts = RULES_SETS[rules]
    d = Dying(
        start=m.start_dying,
        save_bonus=m.fighters.pcs[0].fort,
        dc=m.start_dc,
        check=opts["check"],
        on_damage=opts["on_damage"],
        wounded_rule=opts["wounded_rule"],
        hero_effect=opts["hero_effect"],
        hero_points=m.hero_points,
        hero_policy=m.hero_policy,
    )
    exact = solve(d)
    n = 40000
    res = simkit.simulate(m, n, rng=21)
    assert within_se(res["victory_with_deaths"], exact["dead"], n)
    assert within_se(res["victory"], exact["stable"] + exact["revived"], n)


@pytest.mark.parametrize("spend", ["last", "asap", 2])
def test_down_pc_without_monsters_is_the_agony_model(spend):
    """Seed 001: agonising then the hourly checks, exact answer of ``agony``."""
    from simkit.core.exact import solve
    from simkit.models.agony import Agony

    m = Party(party="fighter", level=3, xp_budget=0, hp=0, rules="seed001", spend=spend)
    pc = m.fighters.pcs[0]
    a = Agony(
        pp=pc.pp_max, pp_max=pc.pp_max, spend=spend, con=pc.con, level=m.level, checks=m.checks
    )
    exact = solve(a)
    n = 40000
    res = simkit.simulate(m, n, rng=22)
    assert within_se(res["victory_with_deaths"], exact["dead"], n)


def _duels(count: int, seed: int) -> list[dict]:
    """Generated small duels (one PC, one monster): levels 1..2, budgets up to party + 2."""
    g = np.random.default_rng(seed)

    def pick(xs):
        return xs[int(g.integers(len(xs)))]

    out = []
    while len(out) < count:
        params = {
            "level": pick((1, 2)),
            "party": pick(("fighter", "rogue", "wizard")),
            "lineup": "boss",
            "xp_budget": pick((20, 30, 40, 60, 80)),
            "rules": pick(("seed000", "pf2e-core")),
            "hero_points": pick((0, 1)),
            "hero_policy": pick(["immediately", "at_death", 2]),
            "trait": pick(("lethal", "lethal", "nonlethal", "death")),
            "area_chance": pick((0.0, 0.5)),
            "benchmark": pick(("High", "Moderate", "Extreme")),
            "attacks": pick((1, 2, 3)),
            "map": pick(("standard", "agile")),
            "max_rounds": pick((4, 100)),
            "hero_knockout": pick(("spend", "die")),
        }
        m = Party(**params)
        if duel_states(m) <= 8000:
            out.append(params)
    return out


def test_duels_have_exact_answers_others_refuse():
    assert Party(party="fighter", level=1).has_exact
    assert not Party().has_exact  # four PCs
    assert not Party(party="cleric", level=1).has_exact  # a healer
    assert Party(party="fighter", level=1, rules="seed001").has_exact  # (a knock-out: defeat)
    assert not Party(party="fighter", level=1, lineup="boss_and_minions", xp_budget=40).has_exact
    assert Party(party="fighter", level=1, lineup="pack", xp_budget=40).has_exact  # a pack of one
    from simkit.core.exact import ExactTooLarge, solve

    # refused before 0.4 (more than 20,000 states), exact now (the duel's grid)
    assert solve(Party(party="fighter", level=12, threat="extreme"))["defeat"] > 0
    big = Party(party="fighter(hp_max=9000)", level=20)
    with pytest.raises(ExactTooLarge, match=f"up to {duel_states(big)} states .*{DUEL_MAX_CELLS}"):
        solve(big)


@pytest.mark.parametrize("params", _duels(5, 3))
def test_monte_carlo_agrees_with_exact_duel(params):
    assert_agrees_with_exact(Party(**params), 20000, 31)


@pytest.mark.slow
@pytest.mark.parametrize("params", _duels(20, 4))
def test_monte_carlo_agrees_with_exact_duel_many(params):
    assert_agrees_with_exact(Party(**params), 200000, 32)


def test_exact_duel_bigger_threat_never_lowers_death():
    """Exact: a stronger boss never lowers P(the PC dies) (after_defeat=slain: defeat = death)."""
    from simkit.core.exact import solve

    ps = [
        solve(Party(party="fighter", level=1, xp_budget=b, hero_points=0))["defeat"]
        for b in (20, 30, 40, 60, 80)
    ]
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(ps)), ps
    assert ps[-1] > ps[0]


def test_cli_run_shows_lineup_and_designer_odds():
    from simkit.testing import run_cli

    code, out, err = run_cli(
        "run",
        "party",
        "--set",
        "level=5",
        "--set",
        "threat=severe",
        "--set",
        "party=fighter,rogue,cleric,wizard",
        "-n",
        "3000",
        "--seed",
        "1",
    )
    assert code == 0, err
    assert "victory_with_deaths" in out and "defeat" in out
    assert "lineup boss: 1 x level 8 (120 of 120 XP, severe)" in err
    assert "P(a PC dies)" in err
    code, out, err = run_cli(
        "exact", "party", "--set", "level=20", "--set", "party=fighter(hp_max=9000)"
    )
    assert code == 2 and "states" in err and len(err.strip().splitlines()) == 1
    code, out, err = run_cli("run", "party", "--set", "party=fighter,bard")
    assert code == 2 and "bard" in err and "fighter, rogue, cleric, wizard" in err


def test_designer_summary_matches_the_marks():
    from simkit.analysis.party_report import party_summary

    res = simkit.simulate(Party(level=3, threat="severe", rules="seed001"), 5000, rng=8)
    s = party_summary(res).set_index("quantity")
    assert s.loc["any_death", "p"] == pytest.approx(1 - s.loc["deaths=0", "p"])
    assert s.loc["victory", "count"] == s.loc["deaths=0", "count"]  # no retreat: no death = victory
    k = np.arange(5)
    assert s.loc["expected_deaths", "mean"] == pytest.approx(
        sum(k[i] * s.loc[f"deaths={i}", "p"] for i in k)
    )
    for q in ("any_death", "defeat", "expected_deaths"):
        assert (
            s.loc[q, "ci_low"]
            <= (s.loc[q, "p"] if q != "expected_deaths" else s.loc[q, "mean"])
            <= s.loc[q, "ci_high"]
        )


def test_threat_by_level_report_is_built():
    from simkit.analysis.party_report import threat_by_level, threat_by_level_figure

    df = threat_by_level(
        n=300, levels=(2, 6), threats=("low", "extreme"), rules=("seed000", "seed001")
    )
    dies = df[df["outcome"] == "any_death"]
    assert len(dies) == 2 * 2 * 2
    both = (
        df[df["outcome"].isin(["victory_with_deaths", "defeat"])]
        .groupby(["rules", "threat", "level"])["count"]
        .sum()
    )
    assert (
        dies.set_index(["rules", "threat", "level"])["count"].sort_index() == both.sort_index()
    ).all()
    _fig, axes = threat_by_level_figure(df)
    assert [a.get_title() for a in axes] == ["rules seed000", "rules seed001"]


def _sweep_toml(tmp_path, set_lines: str):
    """``simkit sweep --config`` of a party TOML file with these ``[set]`` lines."""
    from simkit.testing import run_cli

    cfg = tmp_path / "party.toml"
    cfg.write_text(f'model = "party"\nn = 2000\nseed = 1\n[set]\n{set_lines}')
    return run_cli("sweep", "--config", cfg)


def test_explicit_lineup_and_toml_config(tmp_path):

    m = Party(level=5, monsters="7,5,5")
    assert m.describe_lineup() == "explicit: 1 x level 7 + 2 x level 5 (160 XP: extreme for 4 PCs)"
    assert [mo.level for mo in m.fighters.monsters] == [7, 5, 5]
    assert (
        Party(level=1, monsters="12").describe_lineup()
        == "explicit: 1 x level 12 (XP beyond Table 10-2: unrated for 4 PCs)"
    )
    assert Party(party="rogue", level=1, monsters="1").has_exact
    with pytest.raises(ParamError, match="monsters"):
        Party(monsters="25")
    with pytest.raises(ParamError, match="exclusive"):
        Party(monsters="3", xp_budget=40)
    code, out, err = _sweep_toml(
        tmp_path, 'party = "fighter,fighter,cleric"\nmonsters = "6,4,4"\nrules = "pf2e-core"\n'
    )
    assert code == 0, err
    assert "victory_with_deaths" in out and '""monsters"":""6,4,4""' in out
    code, out, err = _sweep_toml(tmp_path, 'party = "fighter,bard"\n')
    assert code == 2 and "bard" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "level, monster", [pytest.param(3, 7, marks=pytest.mark.slow), (2, 6)]
)  # (3, 7): 9 s, the same check as (2, 6)
def test_one_pc_against_an_unkillable_monster_is_the_encounter_model(level, monster):
    """Degenerate case: one fighter against a monster it cannot kill within the horizon is
    ``encounter``'s PC against the same monster; P(defeat by round 3) (exact duel) equals
    encounter's P(knocked out in the 3 rounds of its fight)."""
    from simkit.core.exact import solve
    from simkit.models.encounter import Encounter

    duel = Party(
        party="fighter",
        level=level,
        monsters=str(monster),
        defense="High",
        hero_points=0,
        area_chance=0.0,
        area_uses=0,
        max_rounds=3,
    )
    pc, mo = duel.fighters.pcs[0], duel.fighters.monsters[0]
    assert 2 * Dice_max(mo.damage) < 2 * pc.hp  # no massive damage (R0-13): a fall is a knock-out
    exact = solve(duel)
    assert exact["victory"] < 1e-6  # the monster cannot fall in 3 rounds (or all but never)
    enc = Encounter(
        level=level, monster_level=monster, hero_points=0, fight_rounds=3, target_downed="never"
    )
    n = 40000
    res = simkit.simulate(enc, n, rng=41)
    ko = res.marks["knocked_out"].sum(axis=0)[1] / n
    assert within_se(ko, exact["defeat"], n)


def Dice_max(text: str) -> int:  # noqa: N802
    from simkit.rules.dice import Dice

    return Dice.parse(text).max


def test_explicit_numbers_per_pc_and_per_monster(tmp_path):
    """A PC or a creature may be given its own numbers: ``fighter(hp_max=80;ac=23)``,
    ``7(hp=150;attack=18)``; the rest come from the tables; bad keys or values are one
    line naming what is allowed."""
    from simkit.rules.pf2e import creatures, pcs

    m = Party(level=5, party="fighter( ac=23 , hp_max=80),cleric", monsters="7(hp=150;attack=18),5")
    assert m.party == "fighter(ac=23;hp_max=80),cleric"  # canonical: keys sorted
    assert m.monsters == "7(attack=18;hp=150),5"
    assert m.roles == ("fighter", "cleric")
    table = pcs.role("fighter", 5)
    pc = m.fighters.pcs[0]
    assert (pc.hp, pc.ac, pc.attack, pc.damage) == (80, 23, table.attack, table.damage)
    assert m.fighters.pcs[1] == pcs.role("cleric", 5)
    mo = m.fighters.monsters[0]
    built = creatures.monster(7, m.benchmark, m.defense, m.monster_dc)
    assert (mo.hp, mo.attack, mo.ac, mo.damage) == (150, 18, built.ac, built.damage)
    assert "given: 7(attack=18;hp=150),5" in m.describe_lineup()
    for bad, words in [
        ({"party": "fighter(hp_max=0)"}, "hp_max must be an integer in [1, 10000]"),
        ({"party": "fighter(speed=5)"}, "unknown key 'speed'"),
        ({"party": "fighter(heal=2d8)"}, "heal is a number of the cleric only"),
        ({"party": "rogue(damage=2x6)"}, "dice must look like"),
        ({"party": "wizard(slots=2"}, "unbalanced"),
        ({"monsters": "7(ac=500)"}, "ac must be an integer in [-10, 100]"),
        ({"monsters": "7(hp=10;hp=20)"}, "hp is given twice"),
    ]:
        with pytest.raises(ParamError) as err:
            Party(level=5, **bad)
        assert words in str(err.value) and "\n" not in str(err.value), (bad, err.value)

    # the numbers reach the fight: a tougher, harder-hitting party dies less
    weak = Party(level=5, party="fighter,fighter", threat="severe")
    tough = "fighter(hp_max=200;ac=30)"
    strong = Party(level=5, party=f"{tough},{tough}", threat="severe")
    n = 20_000
    pw = simkit.simulate(weak, n, rng=3).event_count("any_death") / n
    ps = simkit.simulate(strong, n, rng=3).event_count("any_death") / n
    assert ps < pw - 5 * standard_error(pw, n)

    code, out, err = _sweep_toml(
        tmp_path,
        'level = 3\nparty = "fighter(hp_max=60;ac=21),cleric(heals=1)"\nmonsters = "5(hp=90),3"\n',
    )
    assert code == 0, err
    assert "fighter(ac=21;hp_max=60)" in out and "5(hp=90)" in out
    code, out, err = _sweep_toml(tmp_path, 'party = "fighter(armor=3)"\n')
    assert code == 2 and "armor" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "party, monsters",
    [
        ("fighter(hp_max=60;ac=19),wizard(slots=1;area=4d6),cleric(heals=1)", "4(hp=40),3"),
        ("rogue(attack=14;damage=2d6+4),cleric(medicine=15)", "6(attack=17;damage=2d10+8)"),
    ],
)
def test_loop_equals_scalar_reference_with_explicit_numbers(party, monsters):
    loop_vs_ref(Party(level=4, party=party, monsters=monsters, target_downed="always"), 80, 2)


def test_exact_duel_with_explicit_numbers_agrees_with_monte_carlo():
    m = Party(level=2, party="fighter(hp_max=24;ac=17)", monsters="3(hp=30;attack=11)")
    assert m.has_exact
    assert_agrees_with_exact(m, 40_000, 7)


def test_calibrating_a_budget_finds_the_step_and_names_the_lineups():
    """The death odds of a boss fight are a step function of the XP budget (a budget buys
    the same creature over a range): calibrate reports the largest budget under the target,
    the jump, and the CLI names the lineup of each value."""
    from simkit.analysis.design import calibrate
    from simkit.testing import run_cli

    base = Party(level=5, area_chance=0.2, area_uses=1)  # the benchmark before AP-20
    cal = calibrate(base, "10%", "xp_budget", outcome="any_death", lo=60, hi=160, n=4000, rng=2)
    # a level-7 boss (80 XP) for budgets 80..119, a level-8 boss (120 XP) from 120
    assert (cal.value, cal.bracket) == (119, (119, 120))
    assert cal.lower is not None and cal.lower[1] == cal.p  # the plateau: the same fight
    assert cal.upper is not None and cal.upper[1] > 0.1 > cal.p
    assert "no value gives the target" in cal.message
    code, out, err = run_cli(
        "calibrate", "party", "--target", "any_death=10%", "--vary", "xp_budget",
        "--range", "60..160", "-n", "4000", "--seed", "2", "--set", "level=5",
        "--set", "area_chance=0.2", "--set", "area_uses=1",
    )  # fmt: skip
    assert code == 0, err
    assert "xp_budget=119: boss: 1 x level 7" in err and "xp_budget=120: boss: 1 x level 8" in err


def test_a_creature_takes_a_benchmark_per_statistic():
    """``7(ac=Extreme;hp=Low)``: each statistic of a creature at the benchmark named, from
    its Building Creatures table; the names are the tables' own columns."""
    import csv
    from importlib import resources

    from simkit.rules.pf2e import creatures

    m = Party(level=5, monsters="7(ac=extreme;hp=Low;attack=Moderate;damage=Low;will=Terrible),5")
    assert m.monsters == "7(ac=Extreme;attack=Moderate;damage=Low;hp=Low;will=Terrible),5"
    mo = m.fighters.monsters[0]
    assert (mo.ac, mo.hp, mo.attack, mo.damage, mo.will) == (
        creatures.monster_ac(7, "Extreme"),
        creatures.monster_hp(7, "Low"),
        creatures.monster_attack(7, "Moderate"),
        creatures.monster_damage(7, "Low"),
        creatures.monster_save(7, "Terrible"),
    )
    assert mo.reflex == creatures.monster(7, m.benchmark, m.defense).reflex  # the rest: as built
    data = resources.files("simkit.rules.pf2e").joinpath("data")

    def columns(name):
        head = next(csv.reader(data.joinpath(name).read_text(encoding="utf-8").splitlines()))
        return tuple(dict.fromkeys(head[1:]))

    fields = creatures.MONSTER_FIELDS
    assert fields["ac"].names == columns("creature-2-05-AC.csv")
    assert fields["will"].names == columns("creature-2-02-saving_throws.csv")
    assert fields["perception"].names == columns("creature-2-03-perception.csv")
    assert fields["attack"].names == columns("creature-2-09-strike_attack.csv")
    assert fields["damage"].names == columns("creature-2-10-strike_damage_dice.csv")
    assert fields["spell_dc"].names == columns("creature-2-11-spell_DC.csv")
    assert fields["hp"].names == columns("creature-2-07-HP.csv")
    assert fields["area"].names == columns("creature-2-12-area_damage_dice.csv")
    with pytest.raises(ParamError, match="or one of Extreme, High, Moderate, Low"):
        Party(monsters="7(ac=Huge)")


# -- several lineups in one block (Party.with_lineups, FightStart.fight) -----------------------
def _lineups(count: int, seed: int) -> list:
    """Generated lineups: a threat with a template, an XP budget, an explicit lineup (with
    numbers), a loaded creature, or none at all."""
    g = np.random.default_rng(seed)
    kinds = [
        {"threat": "severe", "lineup": "pack"},
        {"threat": "low", "lineup": "boss_and_minions", "area_chance": 1.0},
        {"xp_budget": 0},
        {"xp_budget": 90, "map": "agile"},
        {"monsters": "3(hp=40;attack=15;damage=2d6+3),1"},
        "boar,4",
        {"threat": "extreme", "defense": "Low", "area_uses": 2},
    ]
    return [kinds[int(x)] for x in g.choice(len(kinds), size=count, replace=False)]


def _mixed_start(r: Party, n: int, seed: int):
    """A fresh start whose tracks are spread over the fights of ``r`` at random."""
    fight = np.random.default_rng(seed).integers(0, r.n_fights, size=n)
    return replace(r.fresh_start(n), fight=fight)


@pytest.mark.parametrize(
    "params",
    [{}, {"threat": "severe", "lineup": "pack", "rules": "pf2e-core"}, {"monsters": "boar,5,5"}],
)
def test_one_lineup_gives_exactly_the_numbers_without_lineups(params):
    r = Party(level=4, **params)
    one = r.with_lineups([{}])
    assert one.n_fights == 1 and one.lineup_rules[0] == r
    a, b = simkit.simulate(r, 2000, 9), simkit.simulate(one, 2000, 9)
    assert (a.hist == b.hist).all()
    assert all((a.marks[name] == b.marks[name]).all() for name in a.marks)


def test_lineups_are_checked_in_one_line():
    r = Party()
    with pytest.raises(ParamError, match=r"lineups\[1\]: 'hp' is not a lineup parameter"):
        r.with_lineups([{}, {"hp": 3}])
    with pytest.raises(ParamError, match=r"lineups\[0\]: .*threat"):
        r.with_lineups([{"threat": "deadly"}])
    with pytest.raises(ParamError, match="give 1 to 64 lineups"):
        r.with_lineups([])
    with pytest.raises(ParamError, match="the first lineup is the rules' own"):
        replace(r.with_lineups(["7", "5"]), monsters="6")
    two = r.with_lineups(["7", "5,5"])
    with pytest.raises(ParamError, match=r"start: fight must be in \[0, 1\]"):
        simkit.simulate(two, 4, 1, start=replace(two.fresh_start(4), fight=[0, 1, 2, 0]))
    assert not two.has_exact and r.with_lineups([{"monsters": "7"}]).n_slots == 1


# -- stamina points under seed001 (A1-5, pe_damage) -------------------------------------------
def _counts(res) -> tuple:
    return res.hist.tobytes(), tuple(res.marks[k].tobytes() for k in sorted(res.marks))


@pytest.mark.parametrize("rules", ["seed000", "pf2e-core", "seed001"])
def test_stamina_changes_nothing_but_seed001_pe_first(rules):
    """The PCs' PE in a start change no number under seed000, pf2e-core, or seed001 with
    ``pe_damage=hp_only``: the same counts for a fixed seed with full PE or none; under
    seed001 with ``pe_first`` (the default) they do."""
    params = dict(level=5, threat="severe", party="fighter,cleric,wizard", rules=rules)
    n = 3000
    for r in (Party(**params), Party(**params, pe_damage="hp_only")):
        full = r.fresh_start(n)
        none = replace(full, pe=np.zeros_like(full.pe))
        a = simkit.simulate(r, n, 4, start=full)
        b = simkit.simulate(r, n, 4, start=none)
        inert = rules != "seed001" or r.pe_damage == "hp_only"
        assert (_counts(a) == _counts(b)) == inert, (rules, r.pe_damage)


def test_stamina_counts_pinned_for_the_other_dying_systems():
    """P(a PC dies) counts of a fixed seed, the fight without PE (seed000, pf2e-core, and
    seed001 with pe_damage=hp_only), pinned on the compiled loop's dice (0.4.0)."""
    got = {}
    for rules, extra in (("seed000", {}), ("pf2e-core", {}), ("seed001", {"pe_damage": "hp_only"})):
        old = {"area_chance": 0.2, "area_uses": 1}  # the benchmark's area before AP-20
        res = simkit.simulate(
            Party(level=5, threat="severe", rules=rules, **old, **extra), 20_000, 1
        )
        got[rules] = int(res.event_count("any_death"))
    assert got == {"seed000": 4224, "pf2e-core": 4373, "seed001": 8938}


def test_damage_takes_stamina_before_hp():
    """seed001, pe_first: after a fight a PC below its max HP has no PE left (the PE go
    first), and P(a PC dies) is lower than with hp_only (5 standard errors)."""
    r = Party(level=5, threat="severe", rules="seed001")
    n = 20_000
    first = simkit.simulate(r, n, 7, keep_state=True)
    f = first.final
    hurt = (f.hp < f.hp_max) & ~f.dead  # (massive damage kills whatever the PE: R0-13)
    assert (f.pe[hurt] == 0).all() and (f.pe <= f.pe_max).all()
    assert (f.pe < f.pe_max).any() and (f.pe_max == [[p.pe_max for p in r.fighters.pcs]]).all()
    only = simkit.simulate(replace(r, pe_damage="hp_only"), n, 7, keep_state=True)
    assert (only.final.pe == only.final.pe_max).all()  # untouched
    p1, p0 = (x.event_count("any_death") / n for x in (first, only))
    assert p0 - p1 > 5 * np.hypot(standard_error(p0, n), standard_error(p1, n)), (p1, p0)
    # explicit numbers: a PC's own maximum
    assert Party(party="fighter(pe_max=7)", rules="seed001").fighters.pcs[0].pe_max == 7


@pytest.mark.parametrize(
    "params",
    [
        dict(party="fighter(pe_max=5)", level=2, hp=10, area_chance=0.5, xp_budget=60),
        dict(party="rogue(pe_max=3)", level=1, xp_budget=60, pe_damage="hp_only"),
    ],
)
def test_seed001_duel_with_stamina_agrees_with_monte_carlo(params):
    """The exact duel under seed001 (a knock-out is a defeat; PE first, A1-5) against Monte
    Carlo, and the reading moves it."""
    r = Party(rules="seed001", **params)
    assert r.has_exact
    assert_agrees_with_exact(r, 20_000, 12)
    other = replace(r, pe_damage="hp_only" if r.pe_on else "pe_first")
    if r.fighters.pcs[0].pe_max:
        assert simkit.solve(other)["defeat"] != simkit.solve(r)["defeat"]


def test_a_hit_of_no_damage_does_nothing_to_a_downed_pc():
    """A strike that hits for 0 damage (``damage=1d2-1``) on a PC at 0 HP is no damage
    while down (R0-09): 0.3's kernel left it a hit (a dying value up, a stable PC knocked out
    again) where the reference did nothing; found by the generated configurations."""
    r = Party(level=3, party="fighter,rogue", monsters="5(damage=1d2-1)", target_downed="always")
    n = 60
    start = r.fresh_start(n)
    hp = start.hp.copy()
    hp[:, 0] = 0  # the fighter starts stable at 0 HP
    loop_vs_ref(r, n, 4, state=replace(start, hp=hp))
