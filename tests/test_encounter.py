"""The encounter model: damage rules on hand-made tracks of the scalar reference, the
compiled loop vs the scalar reference track by track on the same dice, degenerate
encounters vs the dying model's exact solver, a level-difference sweep, the CLI question."""

import io
import json

import numpy as np
import pytest

from simkit import Dying, ParamError, simulate, solve
from simkit.analysis.encounter_report import encounter_summary, level_sweep
from simkit.cli.main import main
from simkit.core.streams import STREAM_SIZE
from simkit.fight.loop import CARRIED
from simkit.fight.state import COND, HEALS, HERO, HP, PE, PP, WOUNDED
from simkit.fight.state import DEAD as C_DEAD
from simkit.fight.state import DYING as C_DYING
from simkit.fight.state import STABLE as C_STABLE
from simkit.fight.state import UP as C_UP
from simkit.models import encounter_ref as ref
from simkit.models import make_model
from simkit.models.encounter import (
    DEAD,
    DYING,
    REVIVED,
    STANDING,
    Encounter,
)
from simkit.models.encounter_loop import run as loop_run
from simkit.models.encounter_ref import new_track, play, ref_round
from simkit.models.perseverance import Perseverance
from simkit.testing import standard_error, within_se

MARKS = ("knocked_out", "ko_round", "hp", "hero_spent", "healer", "hours")


def _ref_cond(tr) -> int:
    """The reference track's condition in the loop's codes."""
    if tr["code"] == DEAD:
        return C_DEAD
    if not tr["down"]:
        return C_UP
    return C_DYING if tr["dying_now"] else C_STABLE


def assert_loop_is_reference(model: Encounter, n: int, salt: int) -> dict[int, int]:
    """``n`` tracks of ``model`` on the compiled loop (dice keys salted by ``salt``) and each
    again on the scalar reference from its dice key: the same outcome, end round, marks
    and end fields (HP, hero points, heals, wounded, PP, condition; temporary HP but for
    the dead), track by track. Returns the tracks that ended in a round (not at step 0),
    by outcome."""
    keys = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(salt)
    out, ends = loop_run(model, keys)
    fields = [CARRIED.index(f) for f in (HP, HERO, HEALS, WOUNDED, PP, COND)]
    seen = np.zeros(len(model.outcomes), dtype=int)
    for t, key in enumerate(keys):
        tr = play(model, int(key) >> 1)
        want = [tr["code"], tr["step"]] + [int(tr[m]) for m in MARKS]
        want += [tr["hp"], tr["hero"], tr["heals"], tr["wounded"], tr["pp"], _ref_cond(tr)]
        got = out[t].tolist() + [int(ends[t, 0, f]) for f in fields]
        if tr["code"] != DEAD:  # (temporary HP: what the PC holds while alive)
            want.append(tr["tmp"])
            got.append(int(ends[t, 0, CARRIED.index(PE)]))
        assert got == want, (model, t, got, want)
        if tr["code"] >= 0 and tr["step"] > 0:
            seen[tr["code"]] += 1
    return dict(enumerate(seen.tolist()))


BASE = dict(level=5, monster_level=7, fight_rounds=6, max_rounds=30)
CONFIGS = [
    dict(),
    dict(target_downed="always", healer_round=3),
    dict(
        target_downed="sometimes",
        downed_chance=0.4,
        enemies=3,
        attacks=3,
        map="agile",
        initiative="enemies_first",
    ),
    dict(
        target_downed="always",
        on_damage="increment",
        wounded_rule=True,
        wounded=1,
        hero_points=2,
        hero_policy=3,
    ),
    dict(
        target_downed="always",
        hero_effect="stabilize",
        hero_policy="immediately",
        hero_points=2,
        check="flat",
    ),
    dict(effect_chance=0.5, effect_save="fort", target_downed="always", enemies=2, effect_dc=30),
    dict(trait="nonlethal", target_downed="always", healer_chance=0.3, medicine=8, heals=1),
    dict(trait="death", temp_hp=15, attacks=1),
    dict(hp_max=12, damage="3d8+4", target_downed="always"),  # massive damage (R0-13) happens
    dict(
        heal_when="wounded", healer_round=2, heals=2, temp_hp=10, end_chance=0.2, fight_rounds=None
    ),
    dict(until="healer", healer_round=3, target_downed="always"),
    dict(hp=0, start_dying=2, target_downed="always", enemies=2, dc=30),
    dict(
        wounded_rule=True,
        target_downed="always",
        healer_chance=0.3,
        medicine=6,
        heals=2,
        check="flat",
    ),
    dict(dying_rules="seed001", target_downed="always"),
    dict(
        dying_rules="seed001",
        target_downed="sometimes",
        spend=2,
        back_in_fight=True,
        medicine=5,
        healer_chance=0.2,
        heals=1,
    ),
    dict(
        dying_rules="seed001",
        pp=0,
        zero_pp="end_of_turn",
        trait="nonlethal",
        back_in_fight=True,
        target_downed="always",
        long_term=True,
        checks=7,
        con=-1,
    ),
    dict(
        dying_rules="seed001",
        spend="never",
        hp=0,
        enemies=0,
        healer_round=4,
        medicine=2,
        heals=0,
        pp_max=3,
    ),
    dict(enemies=0, hp=0, hero_points=0, healer_round=2, check_penalty=-3),
    dict(
        dying_rules="seed001",
        trait="nonlethal",
        back_in_fight=True,
        enough_pp=50,
        target_downed="sometimes",
    ),
    dict(
        dying_rules="seed001", back_in_fight=True, enough_pp=3, pp_max=8, target_downed="sometimes"
    ),
    # the readings of A0-6, A0-7 and A1-6; strike dice too many for one draw (atk_roll + dmg_u)
    dict(
        target_downed="always",
        on_damage="increment",
        wounded_rule=True,
        wounded=2,
        wounded_adds="every_hit",
    ),
    dict(target_downed="always", death_at=2, hero_points=1, hero_knockout="die", damage="4d12+6"),
    dict(dying_rules="seed001", natural=True, con=9, healer_round=2, medicine=4, heals=0),
]


@pytest.mark.parametrize("i", range(len(CONFIGS)))
def test_loop_matches_scalar_reference_track_by_track(i):
    model = Encounter(**{**BASE, **CONFIGS[i]})
    seen = assert_loop_is_reference(model, 250, i)
    assert sum(seen.values()) > 0


def test_reference_configs_reach_the_rules_they_name():
    # the reference comparison is only worth something if the configs reach the outcomes
    seen = assert_loop_is_reference(Encounter(**{**BASE, **CONFIGS[8]}), 300, 101)
    assert seen[DEAD] > 0
    seen = assert_loop_is_reference(Encounter(**{**BASE, **CONFIGS[10]}), 300, 102)
    assert seen[DYING] > 0 and seen[STANDING] > 0


# -- damage rules on hand-made tracks -------------------------------------------------------


def _tracks(model, k, **fields):
    """``k`` tracks of the scalar reference at ``model``'s start with ``fields`` set (a
    list: one value a track)."""
    out = []
    for i in range(k):
        tr = new_track(model)
        for name, v in fields.items():
            tr[name] = v[i] if isinstance(v, list) else v
        out.append(tr)
    return out


def _hit(model, trs, dmg, crit=False, enemy=0, t=1, src_dc=None):
    """Damage ``dmg[i]`` to track ``i``: each track's code (DEAD, or -1 if it lives)."""
    crits = crit if isinstance(crit, list) else [crit] * len(dmg)
    codes = []
    for tr, d, c in zip(trs, dmg, crits):
        try:
            ref._hit(model, tr, d, c, src_dc or model.strike_dc, enemy, t)
            codes.append(-1)
        except ref._Dead:
            codes.append(DEAD)
    return codes


def _field(trs, name):
    return [tr[name] for tr in trs]


def _conds(trs):
    return ["up" if not tr["down"] else "dying" if tr["dying_now"] else "stable" for tr in trs]


def test_r0_14_temporary_hp_absorbed_first():
    m = Encounter(hp_max=40, temp_hp=10)
    trs = _tracks(m, 4)
    assert _hit(m, trs, [5, 10, 15, 50]) == [-1, -1, -1, -1]
    assert _field(trs, "tmp") == [5, 0, 0, 0]
    assert _field(trs, "hp") == [40, 40, 35, 0]
    assert _conds(trs) == ["up", "up", "up", "dying"]
    # at 0 HP temporary HP are kept (the kernel of 0.3's reading, the loop's): not soaked
    trs = _tracks(m, 1, hp=0, down=True, dying_now=True, dying=1)
    assert _hit(m, trs, [5]) == [-1] and _field(trs, "tmp") == [10]


def test_r0_13_massive_damage_at_exactly_twice_max_hp():
    m = Encounter(hp_max=20, temp_hp=30)
    trs = _tracks(m, 3)
    assert _hit(m, trs, [39, 40, 41]) == [-1, DEAD, DEAD]
    assert trs[0]["hp"] == 11 and trs[0]["tmp"] == 0  # 39: 30 temporary, then 9 HP
    # on a character already at 0 HP too
    trs = _tracks(m, 2, hp=0, tmp=0, down=True, dying_now=True, dying=1)
    assert _hit(m, trs, [39, 40]) == [-1, DEAD]


def test_r0_12_death_effect_at_0_hp():
    m = Encounter(hp_max=20, trait="death")
    trs = _tracks(m, 3)
    assert _hit(m, trs, [19, 20, 25]) == [-1, DEAD, DEAD]
    assert trs[0]["hp"] == 1 and not trs[0]["down"]
    trs = _tracks(m, 1, hp=0, down=True)
    assert _hit(m, trs, [1]) == [DEAD]
    # lethal damage to 0 HP knocks out instead (R0-03)
    lethal = Encounter(hp_max=20)
    trs = _tracks(lethal, 2)
    assert _hit(lethal, trs, [20, 20], crit=[False, True]) == [-1, -1]
    assert _field(trs, "dying") == [1, 2]


@pytest.mark.parametrize("rules", ["seed000", "seed001"])
def test_nonlethal_at_0_hp_is_stable_without_dying(rules):
    m = Encounter(hp_max=20, trait="nonlethal", dying_rules=rules)
    trs = _tracks(m, 2)
    assert _hit(m, trs, [20, 30], crit=[False, True]) == [-1, -1]
    assert _conds(trs) == ["stable", "stable"]  # R0-03, R1-11
    assert _field(trs, "dying") == [0, 0] and all(_field(trs, "nl"))
    # more nonlethal damage while unconscious changes nothing (R0-09)
    assert _hit(m, trs, [5, 5], crit=True) == [-1, -1]
    assert _conds(trs) == ["stable", "stable"]
    # the fight over, the track ends stable (seed 001 without long-term recovery)
    res = simulate(m.replace(hp=0, enemies=0, long_term=False), 1000, rng=1)
    assert res.counts["stable"] == 1000 and res.hist[2, 0] == 1000


def test_r0_09_damage_while_unconscious_both_readings():
    for reading, expected in (("max", [2, 2, 2]), ("increment", [3, 3, 4])):
        m = Encounter(hp_max=20, on_damage=reading, death_at=10)
        trs = _tracks(m, 3, hp=0, down=True, dying_now=True, dying=[1, 2, 2], dcs=20)
        _hit(m, trs, [5, 5, 5], crit=[True, False, True], src_dc=24, enemy=1)
        assert _field(trs, "dying") == expected, reading
        assert _field(trs, "dcs") == [24, 24, 24]  # the higher DC is used from then on
        assert _field(trs, "pos") == [0, 0, 0]  # initiative does not move
    # a stable character is knocked out again: dying 1 (2 on a critical), the new DC
    m = Encounter(hp_max=20)
    trs = _tracks(m, 2, hp=0, down=True, dcs=30)
    _hit(m, trs, [5, 5], crit=[False, True], src_dc=22, enemy=1)
    assert _field(trs, "dying") == [1, 2] and _field(trs, "dcs") == [22, 22]
    assert _field(trs, "pos") == [0, 0]


class ScriptedDice:
    """The reference's dice from a script: the d20s in order (a constant's dice draw none)."""

    def __init__(self, d20s):
        self.d20s = list(d20s)

    def d20(self):
        return self.d20s.pop(0)

    def chance(self, p):
        raise AssertionError("no chance in this script")

    def roll(self, text):
        from simkit.rules.dice import Dice

        d = Dice.parse(text)
        assert d.count == 0, text
        return d.bonus


def test_r0_03_initiative_moves_before_the_knocking_enemy():
    # three enemies, one strike each. Round 1: enemy 1 misses, enemy 2 knocks the PC
    # out (dying 1), enemy 3 hits the downed PC (increment: dying 2). Round 2: enemy 1
    # hits (dying 3), THEN the PC's recovery check (DC 10 + 3 = 13, total 12: failure,
    # dying 4; before enemy 1 it would have been DC 12, a success), then enemy 2 hits.
    m = Encounter(
        hp_max=10,
        ac=15,
        attack_bonus=5,
        damage="10",
        attacks=1,
        enemies=3,
        fort=0,
        dc=10,
        on_damage="increment",
        death_at=10,
        target_downed="always",
        hero_points=0,
    )
    hit, miss = 12, 2
    tr = new_track(m)
    assert tr["pos"] == 0  # pc_first
    d = ScriptedDice([miss, hit, hit])
    assert ref_round(m, tr, 1, d) is None and not d.d20s
    assert (tr["pos"], tr["dying"], tr["ko_round"]) == (1, 2, 1)
    d = ScriptedDice([hit, 12, hit, miss])  # enemy 1, the check, enemy 2, enemy 3
    assert ref_round(m, tr, 2, d) is None and not d.d20s
    assert tr["pos"] == 1  # damage while unconscious did not move it
    assert tr["dying"] == 5  # 3 after enemy 1, 4 after the failed check, 5 after enemy 2
    # and the loop plays as the reference on this encounter, track by track
    assert_loop_is_reference(m, 200, 7)


@pytest.mark.parametrize("text", ["2d10+9", "1d4", "3d8+24", "4d12+26", "7"])
def test_dice_draws_follow_the_exact_pmf(text):
    from simkit.rules.dice import Dice, dice_draw, dice_values

    values, probs = Dice.parse(text).pmf()
    kind = dice_draw(text)
    if kind == "random":  # constant: the inverse CDF
        assert (dice_values(text, np.array([0.0, 0.5, 0.999])) == values[0]).all()
        return
    every = dice_values(text, np.arange(int(kind[6:])))  # each draw once: the exact law
    counts = np.array([np.count_nonzero(every == v) for v in values])
    assert np.allclose(counts / len(every), probs)


def test_multiple_attack_penalty():
    assert [Encounter(attacks=4).strike_penalty(a) for a in range(4)] == [0, 5, 10, 10]
    assert [Encounter(map="agile").strike_penalty(a) for a in range(3)] == [0, 4, 8]
    assert [Encounter(map="none").strike_penalty(a) for a in range(3)] == [0, 0, 0]


def test_initiative_enemies_first_starts_last():
    m = Encounter(initiative="enemies_first", enemies=2)
    assert new_track(m)["pos"] == 2


def test_healer_heals_at_half_hp_or_less_with_heal_when_wounded():
    m = Encounter(hp_max=40, heal_when="wounded", healer_round=1, heal_dice="10", heals=5)
    trs = _tracks(m, 4, hp=[21, 20, 0, 5], healer=True)
    trs[2].update(down=True, dying_now=True, dying=1)
    for tr in trs:
        ref._healer(m, tr, ScriptedDice([]))
    assert _field(trs, "hp") == [21, 30, 10, 15]
    assert _conds(trs) == ["up"] * 4 and _field(trs, "heals") == [5, 4, 4, 4]
    downed_only = m.replace(heal_when="downed")
    trs = _tracks(downed_only, 1, hp=5, healer=True)
    ref._healer(downed_only, trs[0], ScriptedDice([]))
    assert trs[0]["hp"] == 5
    # the loop heals as the reference does
    assert_loop_is_reference(m.replace(hp_max=None, heal_dice=None, healer_round=2), 200, 8)


# -- degenerate encounters against the dying model's exact solver -----------------------------


def _agree_with_dying(
    enc, dying, n, seed, pairs=(("stable", "stable"), ("dead", "dead"), ("revived", "revived"))
):
    res = simulate(enc, n, rng=seed)
    exact = solve(dying)
    for eo, do in pairs:
        assert within_se(res[eo], exact[do], n), (eo, res[eo], exact[do])
    return res, exact


DEGENERATE = [
    (dict(), dict()),
    (dict(check="flat"), dict(check="flat")),
    (dict(start_dying=2, dc=26, fort=6), dict(start=2, dc=26, save_bonus=6)),
    (dict(hero_points=1, hero_policy=3), dict(hero_points=1, hero_policy=3)),
    (dict(hero_points=2, hero_effect="stabilize"), dict(hero_points=2, hero_effect="stabilize")),
    (dict(healer_round=3), dict(heal_round=3)),
    (
        dict(wounded_rule=True, wounded=1, death_at=5),
        dict(wounded_rule=True, wounded=1, death_at=5),
    ),
    (dict(check_penalty=-3, max_rounds=6), dict(check_penalty=-3, max_rounds=6)),
]


@pytest.mark.parametrize("enc_params,dying_params", DEGENERATE)
def test_starts_knocked_out_without_enemies_matches_dying_exact(enc_params, dying_params):
    # the same numbers on both sides: Fortitude +11, recovery DC 22, no hero point unless given
    enc = Encounter(**{**dict(hp=0, enemies=0, fort=11, dc=22, hero_points=0), **enc_params})
    dying = Dying(**{**dict(save_bonus=11, dc=22, hero_points=0), **dying_params})
    n = 40_000
    res, exact = _agree_with_dying(enc, dying, n, seed=11)
    # round by round: P(absorbed in each outcome by round t)
    cdf = exact.cdf()
    mc = np.cumsum(res.hist, axis=1) / n
    for eo in ("stable", "dead", "revived"):
        i, j = enc.outcomes.index(eo), dying.outcomes.index(eo)
        for t in range(min(enc.horizon, 12) + 1):
            assert within_se(mc[i, t], cdf[j, t], n), (eo, t)


def test_enemies_that_never_attack_the_downed_match_dying_exact():
    # knocked out at the start by the first of two enemies who never attack a downed
    # character: the dying track is the dying model's, whatever the fight does
    enc = Encounter(
        hp=0, enemies=2, target_downed="never", fight_rounds=3, fort=9, dc=24, hero_points=0
    )
    dying = Dying(save_bonus=9, dc=24)
    n = 40_000
    res, exact = _agree_with_dying(
        enc, dying, n, seed=12, pairs=(("dead", "dead"), ("stable", "stable"))
    )
    cdf_dead = exact.cdf()[dying.outcomes.index("dead")]
    mc_dead = np.cumsum(res.hist[enc.outcomes.index("dead")]) / n
    for t in range(13):
        assert within_se(mc_dead[t], cdf_dead[t], n), t
    # stable tracks wait for the end of the fight (round 3) before they end
    assert res.hist[enc.outcomes.index("stable"), :3].sum() == 0


PERSEVERANCE = [
    (dict(), dict()),
    (dict(spend="asap", pp=4, pp_max=8), dict(spend="asap", pp=4, pp_max=8)),
    (dict(spend=2, pp=5, pp_max=12), dict(spend=2, pp=5, pp_max=12)),
    (dict(spend="never", healer_round=3), dict(spend="never", heal_round=3)),
    (
        dict(spend="never", pp=5, healer_round=2, heals=0, medicine=3),
        dict(spend="never", pp=5, medic_from=2, medic_bonus=3),
    ),
    (
        dict(back_in_fight=True, enough_pp=2, pp=5, pp_max=8, healer_round=1, heals=0, medicine=0),
        dict(back_in_fight=True, enough_pp=2, pp=5, pp_max=8, medic_from=1, medic_bonus=0),
    ),
    (
        dict(pp=0, zero_pp="end_of_turn", healer_round=1, heals=0, medicine=5),
        dict(pp=0, zero_pp="end_of_turn", medic_bonus=5),
    ),
    (dict(trait="nonlethal"), dict(nonlethal=True)),
    (
        dict(spend="never", pp=6, healer_round=1, heals=0, medicine=6, check_penalty=-2),
        dict(spend="never", pp=6, medic_bonus=6, check_penalty=-2),
    ),
]


@pytest.mark.parametrize("enc_params,p_params", PERSEVERANCE)
def test_seed001_starts_knocked_out_without_enemies_matches_perseverance_exact(
    enc_params, p_params
):
    # the perseverance model's "back" (up again by spending PP) is the encounter's "revived"
    enc = Encounter(
        **{
            **dict(dying_rules="seed001", hp=0, enemies=0, long_term=False, pp=3, pp_max=6),
            **enc_params,
        }
    )
    per = Perseverance(**{**dict(pp=3, pp_max=6), **p_params})
    exact = solve(per)
    n = 40_000
    res = simulate(enc, n, rng=13)
    expected = {
        "dead": exact["dead"],
        "stable": exact["stable"],
        "revived": exact["revived"] + exact["back"],
    }
    for o, p in expected.items():
        assert within_se(res[o], p, n), (o, res[o], p)
    cdf = exact.cdf()
    mc = np.cumsum(res.hist, axis=1) / n
    dead_e, dead_p = enc.outcomes.index("dead"), per.outcomes.index("dead")
    for t in range(min(enc.horizon, 12) + 1):
        assert within_se(mc[dead_e, t], cdf[dead_p, t], n), t


@pytest.mark.parametrize("medic", [None, 4])
def test_seed001_long_term_matches_agony_exact(medic):
    # knocked out, no enemies: agonising, then (stable) the hourly checks; a medic who is
    # there from round 1 gives first aid and tends the character every hour (R1-08)
    from simkit.models.agony import Agony

    helper = dict(healer_round=1, heals=0, medicine=medic) if medic is not None else {}
    enc = Encounter(
        dying_rules="seed001",
        hp=0,
        enemies=0,
        pp=4,
        pp_max=8,
        spend="last",
        con=1,
        level=3,
        checks=7,
        **helper,
    )
    ag = Agony(
        pp=4, pp_max=8, spend="last", con=1, level=3, checks=7, medic_bonus=medic, healer=medic
    )
    exact = solve(ag).probabilities
    n = 40_000
    res = simulate(enc, n, rng=14)
    assert within_se(res["dead"], exact["dead"], n)
    woke = exact["revived"] + exact["back"] + exact["awake"] + exact["rested"]
    assert within_se(res["revived"], woke, n)
    assert res.counts["stable"] == 0


def test_no_enemies_from_full_hp_is_standing_at_once():
    res = simulate(Encounter(enemies=0), 2000, rng=3)
    assert res.counts["standing"] == 2000 and res.hist[0, 0] == 2000


# -- levels, sweeps, outputs -------------------------------------------------------------------


def test_level_based_defaults_make_a_complete_question():
    m = Encounter(level=5, monster_level=7)
    assert (m.max_hp, m.armor, m.save("fort")) == (73, 23, 12)
    assert (m.strike_bonus, m.strike_dice, m.strike_dc, m.spell_dc) == (18, "2d10+9", 25, 25)
    assert Encounter(level=5).mlevel == 5


def test_level_difference_sweep_is_monotone():
    model = Encounter(level=5, target_downed="always", fight_rounds=5, hero_points=0)
    n = 12_000
    df = level_sweep(model, range(-4, 5), n=n, rng=7)
    dead = df[df.outcome == "dead"].set_index("delta")["p"]
    assert list(dead.index) == list(range(-4, 5))
    for d in range(-4, 4):
        lo, hi = dead[d], dead[d + 1]
        se = np.hypot(standard_error(lo, n), standard_error(hi, n))
        assert hi >= lo - 5 * se, (d, lo, hi)
    assert dead[4] > dead[-4] + 5 * np.hypot(
        standard_error(dead[4], n), standard_error(dead[-4], n)
    )


def test_summary_agrees_with_the_marks():
    m = Encounter(
        level=3, monster_level=5, target_downed="sometimes", healer_chance=0.2, fight_rounds=4
    )
    a = simulate(m, STREAM_SIZE + 77, rng=4)  # (block size and workers: test_block_size.py)
    s = encounter_summary(a).set_index("quantity")
    assert s.loc["knocked out", "count"] == a.marks["knocked_out"][:, 1].sum()
    assert s.loc["dead", "p"] == pytest.approx(a["dead"])
    assert s.loc["dead before the healer", "count"] <= s.loc["dead", "count"]
    assert 1 <= s.loc["rounds to knock-out", "mean"] <= 4


def test_regression_pinned_value():
    res = simulate(
        Encounter(level=5, monster_level=7, target_downed="always", healer_round=3),
        20_000,
        rng=2026,
    )
    # pinned when the encounter moved to the compiled loop (0.4, its dice by counter); the
    # kernel of 0.3 gave revived 9064, stable 3528, dead 7408 (within 5 SE of these)
    assert res.counts == {
        "standing": 0,
        "revived": 9211,
        "stable": 3511,
        "dead": 7278,
        "dying": 0,
        "unresolved": 0,
    }


# -- seed 001 at 0 HP ---------------------------------------------------------------------------


def test_seed001_zero_pp_dies_at_once_or_at_end_of_turn():
    m = Encounter(dying_rules="seed001", hp=0, pp=0, enemies=0)
    assert simulate(m, 100, rng=1).hist[3, 0] == 100  # A1-1 default: dead at step 0
    late = simulate(m.replace(zero_pp="end_of_turn"), 100, rng=1)
    assert late.hist[3, 1] == 100


def test_seed001_agonising_loses_one_pp_per_turn_then_long_term():
    # never spend, no help: dead after exactly pp turns (R1-01)
    m = Encounter(dying_rules="seed001", hp=0, pp=3, pp_max=6, spend="never", enemies=0)
    res = simulate(m, 500, rng=2)
    assert res.hist[3, 3] == 500
    # spend at once: stable for 1 PP (a quarter of 6, at least 1), then the hourly checks:
    # Con +0: P(die) per hour = 9/20, P(wake) = 1/20, else again; 8 checks then rested
    m2 = m.replace(spend="asap", con=0)
    n = 40_000
    r2 = simulate(m2, n, rng=3)
    stay = 10 / 20
    p_dead = sum(stay**h * 9 / 20 for h in range(8))
    assert within_se(r2["dead"], p_dead, n)
    assert within_se(r2["revived"], 1 - p_dead, n)
    hours = r2.marks["hours"]
    # 8 hours: rested after 8 checks, or woke on the 8th
    assert within_se(hours[REVIVED, 8] / n, stay**8 + stay**7 / 20, n)
    assert within_se(hours[DEAD, 8] / n, stay**7 * 9 / 20, n) and hours[DEAD, 8] > 0
    # A1-2: with 7 checks nobody dies (or wakes on a check) in hour 8; all left are rested
    r7 = simulate(m2.replace(checks=7), n, rng=3)
    h7 = r7.marks["hours"]
    assert h7[DEAD, 8:].sum() == 0
    assert within_se(h7[REVIVED, 8] / n, stay**7, n)


def test_seed001_healer_first_aid_and_healing():
    m = Encounter(
        dying_rules="seed001", hp=0, pp=5, spend="never", enemies=0, healer_round=2, heals=1
    )
    res = simulate(m, 1000, rng=1)
    assert res.counts["revived"] == 1000 and res.hist[1, 2] == 1000  # healed in round 2 (R1-03)


# -- parameters, CLI -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(hp=80, hp_max=50), "hp=80 is not allowed: hp must be at most hp_max"),
        (dict(level=0), "level=0 is not allowed: level must be an integer in \\[1, 20\\]"),
        (dict(target_downed="often"), "target_downed must be one of never, sometimes, always"),
        (dict(healer_round=2, healer_chance=0.5), "exclusive"),
        (dict(until="healer"), "until=healer needs a healer"),
        (dict(dying_rules="seed002"), "dying_rules must be one of seed000, seed001"),
        (dict(wounded=1), "wounded_rule"),
        (dict(heal_dice="0"), "heal_dice"),
        (dict(damage="lots"), "damage"),
        (dict(monster_level=30), "monster_level"),
    ],
)
def test_invalid_parameters_name_themselves(kwargs, match):
    with pytest.raises(ParamError, match=match):
        Encounter(**kwargs)


def test_cli_answers_the_designer_question():
    argv = [
        "run",
        "encounter",
        "--set",
        "level=5",
        "--set",
        "monster_level=7",
        "--set",
        "target_downed=always",
        "--set",
        "healer_round=3",
        "--set",
        "until=healer",
        "-n",
        "3000",
        "--seed",
        "1",
        "--format",
        "json",
    ]
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        assert main(argv) == 0
    rows = {r["outcome"]: r for r in json.loads(out.getvalue())}
    assert set(rows) == {"standing", "revived", "stable", "dead", "dying", "unresolved"}
    assert sum(r["count"] for r in rows.values()) == 3000
    api = simulate(
        make_model(
            "encounter",
            level=5,
            monster_level=7,
            target_downed="always",
            healer_round=3,
            until="healer",
        ),
        3000,
        rng=1,
    )
    assert rows["dead"]["count"] == api.counts["dead"]


def test_pf2e_core_preset_for_encounters():
    m = make_model("encounter", "pf2e-core", level=5, monster_level=7)
    assert (m.check, m.on_damage, m.wounded_rule, m.hero_effect) == (
        "flat",
        "increment",
        True,
        "stabilize",
    )
    seed = make_model("encounter", "seed", level=5, monster_level=7)
    assert seed == Encounter(level=5, monster_level=7)


@pytest.mark.parametrize("medic", [None, 4])
def test_degenerate_encounter_with_natural_matches_recovery_and_agony_exact(medic):
    """Issue 10: at 0 HP with no enemies, an encounter is agony's track; one that stabilises at
    once (spend=asap) is then recovery's hourly checks. With natural=true (A1-6) the
    encounter's hourly check is the same rule phase (simkit.rules.hourly) as theirs."""
    from simkit.models.agony import Agony
    from simkit.models.recovery import Recovery

    common = dict(con=10, level=3, checks=8, natural=True, check_penalty=-1)  # a natural 1 kills
    helper = dict(healer_round=1, heals=0, medicine=medic) if medic is not None else {}
    enc = Encounter(
        dying_rules="seed001", hp=0, enemies=0, pp=4, pp_max=8, spend="asap", **common, **helper
    )
    rec = solve(Recovery(healer=medic, **common)).probabilities
    ag = solve(
        Agony(pp=4, pp_max=8, spend="asap", medic_bonus=medic, healer=medic, **common)
    ).probabilities
    plain = solve(Recovery(healer=medic, **{**common, "natural": False})).probabilities
    n = 60_000
    res = simulate(enc, n, rng=15)
    assert rec["dead"] == pytest.approx(ag["dead"], abs=1e-12)
    assert within_se(res["dead"], rec["dead"], n)
    assert within_se(res["revived"], 1.0 - rec["dead"], n)
    assert not within_se(res["dead"], plain["dead"], n)  # the option is honoured
    assert res.counts["stable"] == 0 and res.counts["dying"] == 0
