"""What each notebook's prose claims, as checks on the executed notebook's variables.

Each :class:`Claim` ties a piece of a markdown cell (its words, whitespace collapsed and
``**`` removed) to a Python expression that must be true in the kernel once every cell has
run. ``near(x, v, tol)`` is ``|x - v| <= tol``: a number written "31%" is checked to half a
point, "about 6%" a little wider. ``tests/test_notebooks.py`` runs the checks, fails when a
claim's sentence is gone from the notebook, and fails when the prose states a number
(a percentage, a decimal, "four in five", "seven times") outside every claim.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CLAIMS", "Claim"]


@dataclass(frozen=True)
class Claim:
    text: str  # words of one markdown cell
    check: str  # an expression over the notebook's variables, true when the words are


_NB01 = [
    Claim("About 31% of these characters die", "near(res['dead'], 0.31, 0.005)"),
    Claim("and 69% stabilise", "near(res['stable'], 0.69, 0.005)"),
    Claim(
        "the interval holds the exact value",
        "((res.summary()['ci_low'] <= res.summary()['exact'])"
        " & (res.summary()['exact'] <= res.summary()['ci_high'])).all()",
    ),
    Claim("Nobody is `revived`", "res['revived'] == 0"),
    Claim(
        "the fighter's save is +21 against the monster's DC 29",
        "seed.save_bonus == 21"
        " and __import__('simkit.rules.pf2e.levels').rules.pf2e.levels.monster_high_dc(10) == 29",
    ),
    Claim("in 30% of the rounds", "seed.hit_chance == 0.3"),
    Claim("As written, 18% die", "near(table.loc['dead', 'seed as written'], 0.18, 0.005)"),
    Claim("Under the published rules 39% die", "near(table.loc['dead', 'pf2e-core'], 0.39, 0.005)"),
    Claim(
        "(31% on its own, the third column)",
        "near(table.loc['dead', 'flat check (A0-4)'], 0.31, 0.005)",
    ),
    Claim(
        "27% on its own, the last column", "near(table.loc['dead', 'hits add (A0-1)'], 0.27, 0.005)"
    ),
    Claim(
        "The dashed red curve settles at 31%, the solid one at 18%",
        "near(flat[flat.outcome == 'dead'].p.iloc[-1], 0.31, 0.005)"
        " and near(saved[saved.outcome == 'dead'].p.iloc[-1], 0.18, 0.005)",
    ),
    Claim(
        "almost every track is over within ten rounds",
        "saved[(saved.outcome == 'active') & (saved.time == 10)].p.iloc[0] < 0.01",
    ),
    Claim(
        "+2 on the save buys back exactly what 2 points of DC cost",
        "(by_gap.max() - by_gap.min()).max() < 1e-12",
    ),
    Claim(
        "From a save 10 points under the DC, 31% of the knocked-out characters die",
        "near(by_gap.max()[10], 0.31, 0.005)",
    ),
    Claim(
        "it takes a gap of 12 points for nearly half to die (48%)",
        "near(by_gap.max()[12], 0.48, 0.005) and by_gap.max()[12] < 0.5",
    ),
    Claim("14 for more than half (63%)", "near(by_gap.max()[14], 0.63, 0.005)"),
    Claim(
        "from 20 to 28 points P(dead) stays at about 95%",
        "all(near(by_gap.max()[g], 0.95, 0.005) for g in range(20, 29, 2))",
    ),
    Claim("at 30 every one of them dies", "by_gap.min()[30] > 1 - 1e-9"),
    Claim(
        "the 31% of the first section",
        "near(solve(Dying(dc=22, save_bonus=12))['dead'], 0.31, 0.005)",
    ),
]

_NB02 = [
    Claim(
        "(ten rounds, the cleric healing up to three times",
        "whole.fight_rounds == 10 and whole.heals == 3",
    ),
    Claim("about 6% of the fighters are already dead", "near(res['dead'], 0.06, 0.005)"),
    Claim("about three in four are dying", "near(res['dying'], 0.75, 0.02)"),
    Claim("about one in five was never knocked out", "near(res['standing'], 0.2, 0.02)"),
    Claim(
        "every fighter is knocked out",
        "summary.set_index('quantity').loc['knocked out', 'p'] == 1",
    ),
    Claim(
        "about four in five die", "near(summary.set_index('quantity').loc['dead', 'p'], 0.8, 0.04)"
    ),
    Claim(
        "around round 10 on average",
        "near(summary.set_index('quantity').loc['rounds to death', 'mean'], 10, 0.5)",
    ),
    Claim(
        "long after the first knock-out (about round 3)",
        "near(summary.set_index('quantity').loc['rounds to knock-out', 'mean'], 3, 0.5)",
    ),
    Claim(
        "about seven times as often",
        "near(rows['pf2e-core']['p'] / rows['seed 000 as written']['p'], 7, 0.5)",
    ),
    Claim(
        "(about 42% against 6%)",
        "near(rows['pf2e-core']['p'], 0.42, 0.005)"
        " and near(rows['seed 000 as written']['p'], 0.06, 0.005)",
    ),
    Claim(
        "takes the seed to about 41%",
        "near(rows['seed 000, hits add to dying (A0-1 increment)']['p'], 0.41, 0.005)",
    ),
    Claim(
        "on its own *lowers* deaths here",
        "rows['seed 000, flat check (A0-4)']['p'] < rows['seed 000 as written']['p']",
    ),
    Claim("Under seed 001 nobody dies before the cleric", "rows['seed 001 (PP)']['p'] == 0"),
    Claim(
        "It stays under 1% up to a monster of the fighter's own level",
        "dead[dead.delta <= 0].p.max() < 0.01",
    ),
    Claim(
        "about 2.5% one level above, 6% two levels above (the question's level-7 monster)"
        " and 35% four above",
        "near(dead.set_index('delta').p[1], 0.025, 0.0025)"
        " and near(dead.set_index('delta').p[2], 0.06, 0.005)"
        " and near(dead.set_index('delta').p[4], 0.35, 0.01)",
    ),
    Claim(
        "About 6% die by round 3",
        "near(surv[(surv.outcome == 'dead') & (surv.time == 3)].p.iloc[0], 0.06, 0.01)",
    ),
    Claim(
        "the deaths climb to about 83%",
        "near(surv[surv.outcome == 'dead'].p.iloc[-1], 0.83, 0.01)",
    ),
    Claim(
        "`revived` only appears when the fight ends at round 10",
        "surv[(surv.outcome == 'revived') & (surv.time < 10)].p.max() == 0"
        " and surv[(surv.outcome == 'revived') & (surv.time == 10)].p.iloc[0] > 0",
    ),
]

_NB03 = [
    Claim('"I want 10% deaths at level 5"', "cal.target == 0.1 and cal.model.save_bonus == 12"),
    Claim("Calibrate the recovery DC to 10% deaths at level 5", "cal.target == 0.1"),
    Claim("No DC gives exactly 10%", "not (dead.p == 0.1).any()"),
    Claim("which is why 10% itself cannot be hit", "not (dead.p == 0.1).any()"),
    Claim("calibrated DC 18 just under the dashed 10% line", "cal.value == 18 and cal.p < 0.1"),
    Claim("To bring deaths down to about 30%, lower the DC", "solve(house)['dead'] > 0.3"),
    Claim(
        "DC 18 gives 9.1% and DC 19 gives 13.1%",
        "cal.value == 18 and near(cal.p, 0.091, 0.0005)"
        " and near(cal.to_frame().set_index('role').loc['upper', 'p'], 0.131, 0.0005)",
    ),
    Claim("The level-5 character's save (+12)", "cal.model.save_bonus == 12"),
    Claim(
        "in steps of 3 to 5 points per DC around the target",
        "all(3 <= round(100 * d) <= 5 for d in dead.set_index('dc').p.diff()[[18, 19, 20]])",
    ),
    Claim(
        "Even DC 20 kills far fewer than 99.9% of characters with save +12",
        "solve(Dying(save_bonus=12, dc=20))['dead'] < 0.5",
    ),
    Claim(
        "One hero point removes every death",
        "sens.set_index(['param', 'delta']).loc[('hero_points', 1), 'p'] == 0",
    ),
    Claim(
        "a knock-out at dying 2 (a critical) nearly doubles the deaths",
        "1.8 < sens.set_index(['param', 'delta']).loc[('start', 1), 'p'] / sens.p_base.iloc[0] < 2",
    ),
    Claim(
        "adds 17 points",
        "near(sens.set_index(['param', 'delta']).loc[('monster_level', 1), 'change'], 0.17, 0.005)",
    ),
    Claim(
        "moves P(dead) by 7 to 9 points",
        "all(7 <= round(100 * abs(sens.set_index(['param', 'delta']).loc[k, 'change'])) <= 9"
        " for k in [('save_bonus', 1), ('save_bonus', -1), ('check_penalty', -1)])",
    ),
    Claim(
        "A1-3, A0-7, A1-1, A1-13 and A4-4 reach 55-100%",
        "all(0.55 <= lvl5.set_index('ambiguity').spread[a] <= 1"
        " for a in ('A1-3', 'A0-7', 'A1-1', 'A1-13', 'A4-4'))",
    ),
    Claim(
        "In ordinary play the costly ones are A4-3 and A4-2",
        "set(lvl5[~lvl5.ambiguity.isin(['A1-3', 'A0-7', 'A1-1', 'A1-13', 'A4-4'])]"
        ".sort_values('spread').ambiguity.iloc[-6:])"
        " == {'A4-3', 'A4-2', 'A0-2', 'A1-9', 'A0-3', 'A1-5'}"
        " and lvl5.set_index('ambiguity').spread['A0-3']"
        " > lvl5.set_index('ambiguity').spread['A1-5']",
    ),
    Claim(
        "it moves a level-5 party's P(a PC dies) by 28 points",
        "near(lvl5.set_index('ambiguity').spread['A1-5'], 0.28, 0.005)"
        " and lvl5.set_index('ambiguity').model['A1-5'] == 'party'",
    ),
    Claim(
        "A1-2, A4-1, A0-4 and A4-5 make no difference for this level-5 character",
        "all(lvl5.set_index('ambiguity').spread[a] < 0.005"
        " for a in ('A1-2', 'A4-1', 'A0-4', 'A4-5'))",
    ),
    Claim(
        "about 41% stabilise, 40% die and 18% wake on a natural 20",
        "near(house_res['stable'], 0.41, 0.01) and near(house_res['dead'], 0.40, 0.01)"
        " and near(house_res['revived'], 0.18, 0.01)",
    ),
    Claim(
        "Monte Carlo share lies within 3 standard errors of the exact value",
        "(abs(house_res.summary().p - house_res.summary().exact)"
        " <= 3 * (house_res.summary().exact * (1 - house_res.summary().exact) / house_res.n) ** 0.5"
        ").all()",
    ),
    Claim(
        "every track ends within five saves",
        "house_res.survival().query(\"outcome == 'active' and time == 5\").p.iloc[0] == 0",
    ),
    Claim("DC 9 gives 33%", "near(solve(house.replace(dc=9))['dead'], 0.33, 0.005)"),
    Claim("(DC 8 gives 26%)", "near(solve(house.replace(dc=8))['dead'], 0.26, 0.005)"),
]

_NB04 = [
    Claim("threat for four PCs is 120 XP", "model.budget_xp == 120"),
    Claim(
        "one creature three levels above the party",
        "[m.level for m in model.fighters.monsters] == [8]",
    ),
    Claim("Here 85% of the fights are won with nobody dead", "near(res['victory'], 0.85, 0.005)"),
    Claim("7% are won with deaths", "near(res['victory_with_deaths'], 0.07, 0.005)"),
    Claim("and 8% are lost", "near(res['defeat'], 0.08, 0.005)"),
    Claim(
        "about one fight in seven kills someone (15%)",
        "near(res['any_death'], 0.15, 0.005) and near(1 / res['any_death'], 7, 0.5)",
    ),
    Claim(
        "The seed and the published rules kill about as often (15% and 14%)",
        "near(by_rules.loc['seed000', 'P(a PC dies)'], 0.15, 0.005)"
        " and near(by_rules.loc['pf2e-core', 'P(a PC dies)'], 0.14, 0.005)",
    ),
    Claim(
        "(14% defeats; under 1% die during the fight or after a won fight)",
        "near(by_rules.loc['pf2e-core', 'P(defeat)'], 0.14, 0.005)"
        " and by_rules.loc['pf2e-core', 'in the fight'] < 0.01"
        " and by_rules.loc['pf2e-core', 'after the fight'] < 0.01",
    ),
    Claim(
        "the seed loses fewer fights (8%) and kills 4% during the fight and 6% after a won one",
        "near(by_rules.loc['seed000', 'P(defeat)'], 0.08, 0.005)"
        " and near(by_rules.loc['seed000', 'in the fight'], 0.04, 0.005)"
        " and near(by_rules.loc['seed000', 'after the fight'], 0.06, 0.005)",
    ),
    Claim(
        "so the party is almost never defeated (under 1%)",
        "by_rules.loc['seed001', 'P(defeat)'] < 0.01",
    ),
    Claim(
        "still, 9% of the fights kill someone, nearly all in the hourly Constitution checks"
        " after the fight (8%)",
        "near(by_rules.loc['seed001', 'P(a PC dies)'], 0.09, 0.005)"
        " and near(by_rules.loc['seed001', 'after the fight'], 0.08, 0.005)",
    ),
    Claim(
        'Without stamina (`pe_damage="hp_only"`) seed 001 would kill 35%',
        "near(by_rules.loc['seed001, no stamina', 'P(a PC dies)'], 0.35, 0.005)",
    ),
    Claim("(for one PC: 40 XP, one creature of its own level)", "duel.budget_xp == 40"),
    Claim("loses 17% of its fights", "near(exact['defeat'], 0.17, 0.005)"),
    Claim("lies within 2 standard errors of the exact answer", "abs(z) < 2"),
]

_NB06 = [
    Claim(
        "7.8% at level 5, AP-20",
        "bench.area_uses_of == (10,) and near(bench.area_chance_of[0], 0.078, 0.0005)"
        " and mine.level == 5",
    ),
]

#: Notebook file name -> its claims.
CLAIMS: dict[str, list[Claim]] = {
    "01-quickstart.ipynb": _NB01,
    "02-balancing-an-encounter.ipynb": _NB02,
    "03-designing-a-house-rule.ipynb": _NB03,
    "04-balancing-a-party-encounter.ipynb": _NB04,
    "06-your-own-monster.ipynb": _NB06,
}
