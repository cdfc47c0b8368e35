"""Numbers by level (simkit.rules.pf2e.levels) and the sweep keys derived from them.

The sweep keys live in simkit.analysis.grid.
"""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from simkit import Dying
from simkit.analysis.grid import make_grid, resolve_point, sweep_keys_for
from simkit.core.model import Rules
from simkit.core.params import ParamError, param
from simkit.rules.pf2e.levels import (
    FORT_SCHEDULES,
    con_modifier,
    fort_rank,
    fortitude_save,
    item_bonus,
    level_dc,
    monster_high_dc,
    parse_schedule,
    pc_hp,
    pp_max,
    proficiency_bonus,
)

# R0-06: level-based DCs, level 0..25, as the rules text lists them.
R0_06 = [
    14,
    15,
    16,
    18,
    19,
    20,
    22,
    23,
    24,
    26,
    27,
    28,
    30,
    31,
    32,
    34,
    35,
    36,
    38,
    39,
    40,
    42,
    44,
    46,
    48,
    50,
]


def test_level_dcs_are_r0_06_and_high_adds_two():
    assert [level_dc(lvl) for lvl in range(26)] == R0_06
    assert [monster_high_dc(lvl) for lvl in range(25)] == [d + 2 for d in R0_06[:25]]
    with pytest.raises(ValueError, match="level"):
        level_dc(26)


def test_proficiency_adds_level_except_untrained():
    assert proficiency_bonus(5, "untrained") == 0
    assert [proficiency_bonus(5, r) for r in ("trained", "expert", "master", "legendary")] == [
        7,
        9,
        11,
        13,
    ]


def test_con_modifier_follows_boosts():
    # Con +2 (score 14): 16 at 5, 18 at 10, 19 at 15 (+1 above 18), 20 at 20.
    expected = {1: 2, 4: 2, 5: 3, 9: 3, 10: 4, 14: 4, 15: 4, 19: 4, 20: 5}
    assert {lvl: con_modifier(lvl, 2) for lvl in expected} == expected
    assert con_modifier(20, 4) == 6  # 18 -> 19 -> 20 -> 21 -> 22
    assert con_modifier(20, 2, boosts=False) == 2


def test_con_modifier_from_scores():
    for con in range(-1, 5):
        score = 10 + 2 * con
        for lvl in range(1, 21):
            s = score
            for b in (5, 10, 15, 20):
                if b <= lvl:
                    s += 2 if s < 18 else 1
            assert con_modifier(lvl, con) == (s - 10) // 2


def test_item_bonus_runes():
    assert [item_bonus(lvl) for lvl in (1, 7, 8, 13, 14, 19, 20)] == [0, 0, 1, 1, 2, 2, 3]
    assert item_bonus(20, "none") == 0


def test_fortitude_examples_and_formula():
    assert fortitude_save(1) == 1 + 4 + 2 + 0
    assert fortitude_save(9) == 9 + 6 + 3 + 1  # master at 9 (Juggernaut)
    assert fortitude_save(20) == 20 + 6 + 5 + 3
    for sched, ranks in FORT_SCHEDULES.items():
        for lvl in range(1, 21):
            rank = max(
                (r for at, r in ranks if at <= lvl),
                key=lambda r: ["trained", "expert", "master", "legendary"].index(r),
            )
            bonus = {"trained": 2, "expert": 4, "master": 6, "legendary": 8}[rank] + lvl
            assert fortitude_save(lvl, sched, 1, "none", False) == bonus + 1


def test_schedules_configurable():
    assert fort_rank(8, "wizard") == "trained" and fort_rank(9, "wizard") == "expert"
    assert fort_rank(13, "barbarian") == "legendary"
    assert parse_schedule("trained@1,expert@5,master@11") == (
        (1, "trained"),
        (5, "expert"),
        (11, "master"),
    )
    assert fortitude_save(5, "trained@1,expert@5", 0, "none", boosts=False) == 5 + 4
    assert fort_rank(3, [(4, "trained")]) == "untrained"
    for bad in ("expert", "expert@x", "wizardly", "expert@1,trained@5", "godlike@1", "expert@30"):
        with pytest.raises(ValueError):
            parse_schedule(bad)


def test_fort_schedules_are_the_party_roles():
    # the dying model's named Fortitude schedules and the party's roles are one reading of
    # the class tables (docs/pf2e-sources.md): same Fortitude at every level (Con from
    # level 1, boosted; resilient runes)
    from simkit.rules.pf2e import pcs

    for name, con in (("fighter", 2), ("wizard", 1)):
        assert [fortitude_save(lvl, name, con) for lvl in range(1, 21)] == [
            pcs.role(name, lvl).fort for lvl in range(1, 21)
        ], name
    # the cloistered cleric, written as a schedule: expert at 3 (Second Doctrine)
    assert [fortitude_save(lvl, "trained@1,expert@3", 1) for lvl in range(1, 21)] == [
        pcs.role("cleric", lvl).fort for lvl in range(1, 21)
    ]


def test_hp_and_pp():
    assert pc_hp(1) == 8 + 10 + 2
    assert pc_hp(5) == 8 + (10 + 3) * 5  # Con +3 from level 5, retroactive
    assert pc_hp(3, ancestry_hp=6, class_hp=6, con=0, extra=3) == 6 + 6 * 3 + 3
    assert [pp_max(lvl, 4) for lvl in (1, 2, 3, 10, 20)] == [
        5,
        5,
        5,
        10,
        16,
    ]  # key +4 boosted (R1-04)
    assert [pp_max(lvl, 4, boosts=False) for lvl in (1, 2, 3, 10, 20)] == [5, 5, 5, 9, 14]
    assert pp_max(1, -5) == 1  # never below 1
    with pytest.raises(ValueError, match="level"):
        pc_hp(0)


def test_level_key_sets_dying_save_and_hp():
    params, derived = resolve_point(Dying, {"level": 7, "pc_fort": "wizard", "pc_con": 1})
    assert params["save_bonus"] == fortitude_save(7, "wizard", 1) == 7 + 2 + 2 + 0
    assert params["hp_max"] == pc_hp(7, con=1)
    # (issue 31: the level also sets the recovery DC of a creature of that level)
    assert derived == {
        "save_bonus": params["save_bonus"],
        "hp_max": params["hp_max"],
        "monster_level": 7,
    }
    assert "pp_max" not in params  # dying has no PP


def test_explicit_values_win_and_level_diff():
    params, derived = resolve_point(Dying, {"level": 7, "save_bonus": 3, "level_diff": 2})
    assert params["save_bonus"] == 3 and "save_bonus" not in derived
    assert params["monster_level"] == 9
    with pytest.raises(ParamError, match="level_diff needs level"):
        resolve_point(Dying, {"level_diff": 2})


@dataclass(frozen=True, slots=True)
class OwnLevel(Rules):
    """A test model with its own ``level`` and a ``dc`` but no ``monster_level``."""

    name: ClassVar[str] = "own_level"
    outcomes: ClassVar[tuple[str, ...]] = ("dead",)
    level: int = param(1, kind="int", lo=1, hi=20, help="its own level")
    dc: int = param(15, kind="int", lo=1, hi=80, help="a DC")
    max_rounds: int = param(10, kind="int", lo=1, hi=100, help="horizon")


def test_sweep_keys_only_where_they_mean_something():
    keys = sweep_keys_for(OwnLevel)
    assert "level" not in keys  # the model's own parameter stays its own
    assert "monster_level" in keys and "level_diff" in keys
    params, _ = resolve_point(OwnLevel, {"level": 4, "level_diff": 3})
    assert params == {"level": 4, "dc": monster_high_dc(7)}
    assert "monster_level" not in sweep_keys_for(Dying)  # dying takes monster_level itself


def test_grid_checks_sweep_key_values():
    with pytest.raises(ParamError, match="level"):
        make_grid(Dying, {"level": [0, 1]})
    with pytest.raises(ParamError, match="pc_fort"):
        make_grid(Dying, {"level": [1]}, {"pc_fort": "bard@x"})
    with pytest.raises(ParamError, match="both on the grid and fixed"):
        make_grid(Dying, {"dc": [14]}, {"dc": 15})
