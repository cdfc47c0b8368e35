"""PF2e numbers: one source for a typical PC, the roles, creatures, budgets and lineups."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from simkit.rules import budget, creatures, levels, pcs

DATA = Path(__file__).resolve().parents[1] / "simkit" / "rules" / "data"


def test_pp_is_settled_one_source():
    # R1-04's cost is a quarter of the max: the max follows the key ability, which takes
    # the boosts of levels 5/10/15/20 (+4 -> +5 at 10 -> +6 at 20, pc-ability_bonus.csv).
    assert [levels.pp_max(lvl) for lvl in (1, 10, 15, 20)] == [5, 10, 12, 16]
    assert [creatures.pc_pp(lvl) for lvl in range(1, 21)] == [
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
        assert (f.hp, f.ac, f.fort) == (
            creatures.pc_hp(lvl),
            creatures.pc_ac(lvl),
            creatures.pc_save(lvl),
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
