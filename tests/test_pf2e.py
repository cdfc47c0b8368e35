"""PF2e numbers: one source for a typical PC, the roles, creatures, budgets and lineups."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from simkit.models.encounter import Encounter
from simkit.rules.pf2e import budget, creatures, levels, pcs

DATA = Path(__file__).resolve().parents[1] / "simkit" / "rules" / "pf2e" / "data"


def test_pp_is_settled_one_source():
    # R1-04's cost is a quarter of the max: the max follows the key ability, which takes
    # the boosts of levels 5/10/15/20 (+4 -> +5 at 10 -> +6 at 20, pc-ability_bonus.csv).
    assert [levels.pp_max(lvl) for lvl in (1, 10, 15, 20)] == [5, 10, 12, 16]
    assert [pcs.role("fighter", lvl).pp_max for lvl in range(1, 21)] == [
        levels.pp_max(lvl) for lvl in range(1, 21)
    ]
    assert [pcs.role(r, 15).pp_max for r in pcs.ROLES] == [12] * 4
    # the stabilisation cost of R1-04 (a quarter, min 1, max 3) at levels 1, 10, 15, 20
    assert [min(3, max(1, levels.pp_max(lvl) // 4)) for lvl in (1, 10, 15, 20)] == [1, 2, 3, 3]
    assert levels.pp_max(10, 4, boosts=False) == 9  # the old reading: a key that never rises
    assert levels.pp_max(1, -5) == 1


def test_key_ability_table_is_the_boost_rule():
    for start in (1, 2, 3, 4):
        col = [int(v) for v in _filled(DATA / "pc-ability_bonus.csv", f"boosts/{start}")]
        assert col == [levels.con_modifier(lvl, start) for lvl in range(1, 21)], start


def _filled(path, column):
    out, v = [], 0
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            v = int(row[column]) if row[column].strip() else v
            out.append(v)
    return out


def test_roles_follow_their_formulas():
    # HP = ancestry + (class HP + Con) x level (R0-01), written out by hand
    assert pcs.role("fighter", 1).hp == 8 + (10 + 2) * 1
    assert pcs.role("wizard", 5).hp == 8 + (6 + 2) * 5
    assert pcs.role("rogue", 10).hp == 8 + (8 + 3) * 10
    # strike: level + proficiency + ability + potency; fighter 5: 5 + 6 + 4 + 1
    assert pcs.role("fighter", 5).attack == 16
    assert pcs.role("fighter", 5).damage == "2d12+4"  # striking at 4
    assert pcs.role("rogue", 5).damage == "4d6+4"  # 2 weapon d6 + 2 sneak d6 + Dex (thief)
    assert pcs.role("wizard", 7).spell_dc == 10 + 7 + 4 + 4  # expert caster at 7
    assert pcs.role("wizard", 5).area == "6d6"
    assert pcs.role("cleric", 5).heal == "3d8+24" and pcs.role("cleric", 5).heals == 5
    # the fighter is the encounter's typical fighter
    for lvl in range(1, 21):
        f = pcs.role("fighter", lvl)
        e = Encounter(level=lvl)
        assert (f.hp, f.ac, f.fort, f.con, f.pp_max) == (
            e.max_hp,
            e.armor,
            e.save("fort"),
            e.con_mod,
            e.max_pp,
        )
    # every role, every level: sane and non-decreasing with level
    for r in pcs.ROLES:
        prev = None
        for lvl in range(1, 21):
            s = pcs.role(r, lvl)
            now = (s.hp, s.ac, s.fort, s.reflex, s.will, s.perception, s.attack)
            if prev:
                assert all(a >= b for a, b in zip(now, prev)), (r, lvl)
            prev = now
    with pytest.raises(ValueError, match="role"):
        pcs.role("bard", 1)
    with pytest.raises(ValueError, match="level"):
        pcs.role("fighter", 21)


def test_monster_numbers_from_tables():
    m = creatures.monster(5)
    assert (m.hp, m.ac, m.attack, m.damage) == ((78 + 72) // 2, 21, 15, "2d8+7")
    assert m.recovery_dc == levels.level_dc(5) + 2
    assert creatures.monster_area_damage(5) == "6d6"
    with pytest.raises(ValueError, match="level"):
        creatures.monster_hp(30)


def test_budget_and_lineups():
    assert [budget.xp_budget(t) for t in budget.THREATS] == [40, 60, 80, 120, 160]
    assert budget.xp_budget("severe", 5) == 150 and budget.xp_budget("moderate", 3) == 60
    assert budget.creature_xp(2) == 80
    assert budget.lineup("boss", 80, 5).levels == (7,)
    assert budget.lineup("boss", 120, 5).levels == (8,)
    assert budget.lineup("boss_and_minions", 120, 5).levels == (6, 3, 3, 3)
    for threat in budget.THREATS:  # a pack of four spends the whole budget for four PCs
        lu = budget.lineup("pack", budget.xp_budget(threat), 10)
        assert len(lu.levels) == 4 and lu.xp == budget.xp_budget(threat)
    for tpl in budget.LINEUPS:  # never over budget
        for b in range(0, 400, 7):
            lu = budget.lineup(tpl, b, 5)
            assert lu.xp <= b
            assert lu.xp == sum(budget.creature_xp(lvl - 5) for lvl in lu.levels)
    assert budget.lineup("boss", 80, 1).levels == (3,)
    assert "1 x level 7" in budget.lineup("boss", 80, 5).describe()
    with pytest.raises(ValueError, match="lineup"):
        budget.lineup("horde", 80, 5)


def test_lineup_xp_is_that_of_the_creatures_used():
    # A template may raise a level below the tables' -1 to -1 (party levels 1-2): the
    # lineup's XP, threat and description are then those of the creatures it holds, the
    # same as an explicit lineup of those levels (Table 10-2). 20 levels x 5 threats x 3
    # templates x 8 party sizes = 2,400 lineups; 34 of them were reported wrong before.
    # Both editions of the budget (P-06); GM Core's larger Low budgets for 5-8 PCs buy
    # creatures of a level above -1 in 4 more of them (23 over budget, the CRB's 27).
    for edition, n_over in (("crb", 27), ("gm-core", 23)):
        wrong, over = [], []
        for level in range(1, 21):
            for threat in budget.THREATS:
                for tpl in budget.LINEUPS:
                    for n in range(1, 9):
                        xp = budget.xp_budget(threat, n, edition)
                        lu = budget.lineup(tpl, xp, level, n, edition)
                        same = budget.explicit_lineup(lu.levels, level, n, edition=edition)
                        if (lu.xp, lu.threat) != (same.xp, same.threat):
                            wrong.append((level, threat, tpl, n, lu.xp, same.xp))
                        assert f"({lu.xp} of {lu.budget} XP, {lu.threat}" in lu.describe()
                        if lu.xp > lu.budget:
                            over.append((level, threat, tpl, n))
                            assert -1 in lu.levels and level <= 2
        assert wrong == []
        assert len(over) == n_over  # raised levels that cost more than the budget
    lu = budget.lineup("pack", 40, 1, 4)
    assert lu.levels == (-1,) * 4
    assert lu.xp == budget.explicit_lineup((-1,) * 4, 1).xp == 4 * 20  # level 1 + 2 = 20 XP
    assert lu.threat == "moderate"  # 80 XP for four PCs (Table 10-1)
    assert lu.describe() == (
        "pack: 4 x level -1 (80 of 40 XP, moderate; levels below -1 raised to -1)"
    )
    assert budget.lineup("boss", 80, 5).threat == "moderate"
    assert budget.explicit_lineup((12,), 5).threat == "unrated"  # beyond Table 10-2
    assert [budget.threat_of(x) for x in (0, 39, 40, 59, 60, 80, 120, 160, 161)] == [
        "trivial",
        "trivial",
        "trivial",
        "trivial",
        "low",
        "moderate",
        "severe",
        "extreme",
        "beyond extreme",
    ]
    assert budget.threat_of(90, 6, "crb") == "low" and budget.threat_of(89, 6, "crb") == "trivial"
    assert budget.threat_of(90, 6) == "trivial" and budget.threat_of(100, 6) == "low"  # GM Core


# The class advancement tables of Player Core (remaster; Foundry VTT pf2e system, ORC
# licence: packs/pf2e/classes/*.json and the class features they list), written out here
# independently of simkit.rules.pf2e.pcs: (level reached, rank, class feature). The cleric is
# a cloistered cleric (its weapon and spell columns); docs/pf2e-sources.md cites each step.
CLASS_TABLES = {
    "fighter": {
        "fort": ((1, "expert", ""), (9, "master", "Battle Hardened")),
        "reflex": ((1, "expert", ""), (15, "master", "Tempered Reflexes")),
        "will": ((1, "trained", ""), (3, "expert", "Bravery")),
        "perception": ((1, "expert", ""), (7, "master", "Battlefield Surveyor")),
    },
    "rogue": {
        "fort": ((1, "trained", ""), (9, "expert", "Rogue Resilience")),
        "reflex": (
            (1, "expert", ""),
            (7, "master", "Evasive Reflexes"),
            (13, "legendary", "Greater Rogue Reflexes"),
        ),
        "will": ((1, "expert", ""), (17, "master", "Agile Mind")),
        "perception": (
            (1, "expert", ""),
            (7, "master", "Perception Mastery"),
            (13, "legendary", "Perception Legend"),
        ),
    },
    "cleric": {
        "fort": ((1, "trained", ""), (3, "expert", "Second Doctrine (cloistered cleric)")),
        "reflex": ((1, "trained", ""), (11, "expert", "Reflex Expertise")),
        "will": ((1, "expert", ""), (9, "master", "Resolute Faith")),
        "perception": ((1, "trained", ""), (5, "expert", "Perception Expertise")),
    },
    "wizard": {
        "fort": ((1, "trained", ""), (9, "expert", "Magical Fortitude")),
        "reflex": ((1, "trained", ""), (5, "expert", "Reflex Expertise")),
        "will": ((1, "expert", ""), (17, "master", "Prodigious Will")),
        "perception": ((1, "trained", ""), (11, "expert", "Perception Expertise")),
    },
}
RANK_BONUS = {"trained": 2, "expert": 4, "master": 6, "legendary": 8}  # + level (Player Core)
BOOST_LEVELS = (5, 10, 15, 20)  # four attribute boosts each (Player Core, "Leveling Up")
# Each role's attributes: (modifier at level 1, the boost levels at which it takes a boost).
# Key attribute and Con take every boost; the other picks are simkit's typical builds.
BUILDS = {
    "fighter": {"str": (4, BOOST_LEVELS), "con": (2, BOOST_LEVELS), "dex": (1, (10,)),
                "wis": (1, (10,))},
    "rogue": {"dex": (4, BOOST_LEVELS), "con": (1, BOOST_LEVELS), "wis": (1, (10,))},
    "cleric": {"wis": (4, BOOST_LEVELS), "con": (1, BOOST_LEVELS), "str": (1, BOOST_LEVELS),
               "dex": (1, (10,))},
    "wizard": {"int": (4, BOOST_LEVELS), "con": (1, BOOST_LEVELS), "dex": (2, BOOST_LEVELS),
               "wis": (1, (10,))},
}  # fmt: skip
SAVE_POTENCY = ((8, 1), (14, 2), (20, 3))  # GM Core, Automatic Bonus Progression


def _attribute(start, boosted_at, level):
    # Player Core: a boost adds 1 to a modifier below +4; at +4 or more it is a partial
    # boost, and two partial boosts add 1.
    mod, partial = start, False
    for at in boosted_at:
        if at <= level:
            if mod < 4:
                mod += 1
            elif partial:
                mod, partial = mod + 1, False
            else:
                partial = True
    return mod


def _rank(steps, level):
    return [rank for at, rank, _ in steps if at <= level][-1]


def test_builds_spend_legal_boosts():
    for role, build in BUILDS.items():
        for at in BOOST_LEVELS:  # at most four boosts a boost level, one per attribute
            assert sum(at in when for _, when in build.values()) <= 4, (role, at)
    assert [_attribute(4, BOOST_LEVELS, lvl) for lvl in (1, 5, 10, 15, 20)] == [4, 4, 5, 5, 6]
    assert [_attribute(1, BOOST_LEVELS, lvl) for lvl in (1, 5, 10, 15, 20)] == [1, 2, 3, 4, 4]
    assert [_attribute(2, BOOST_LEVELS, lvl) for lvl in (1, 5, 10, 15, 20)] == [2, 3, 4, 4, 5]
    assert [_attribute(1, (10,), lvl) for lvl in (9, 10, 20)] == [1, 2, 2]


def test_saves_and_perception_follow_the_class_tables():
    # every role, level, save and Perception: level + rank bonus + attribute (+ save potency
    # for saves), from the tables above, never from pcs.py's schedules
    wrong = []
    for role, table in CLASS_TABLES.items():
        build = BUILDS[role]
        for level in range(1, 21):
            s = pcs.role(role, level)
            attr = {a: _attribute(start, when, level) for a, (start, when) in build.items()}
            key = next(iter(attr))  # the first attribute is the key one
            dex = attr.get("dex", attr[key])
            wis = attr.get("wis", attr[key])
            item = max([b for at, b in SAVE_POTENCY if at <= level], default=0)
            expected = {
                "fort": level + RANK_BONUS[_rank(table["fort"], level)] + attr["con"] + item,
                "reflex": level + RANK_BONUS[_rank(table["reflex"], level)] + dex + item,
                "will": level + RANK_BONUS[_rank(table["will"], level)] + wis + item,
                "perception": level + RANK_BONUS[_rank(table["perception"], level)] + wis,
            }
            for stat, want in expected.items():
                if getattr(s, stat) != want:
                    wrong.append((role, level, stat, getattr(s, stat), want))
            if s.con != attr["con"]:
                wrong.append((role, level, "con", s.con, attr["con"]))
    assert wrong == []
    # the cleric's Fortitude at 5: level 5 + expert 4 (Second Doctrine, 3) + Con 2 = +11
    assert pcs.role("cleric", 5).fort == 5 + 4 + 2 == 11
    assert pcs.role("cleric", 2).fort == 2 + 2 + 1  # trained until 3
    assert pcs.role("wizard", 7).will == 7 + 4 + 1  # Wis +1: expert until 17 (Prodigious Will)
    assert pcs.role("cleric", 17).will == 17 + 6 + 5 + 2  # master from 9, no legendary
