"""The dying turn composed once (simkit.rules.dying_turn.turn_table, read by the exact day
duel) against the ``dying`` model's own composition of the same phases (Dying.ref_check):
every (hero point held, dying value, natural d20) of both checks (A0-4), several margins,
death values (R0-04, P-14) and hero policies (R0-10, A0-3)."""

from __future__ import annotations

import pytest

from simkit.models.dying import DEAD, REVIVED, STABLE, Dying
from simkit.rules.dying_turn import turn_table

#: turn_table's codes for the dying model's outcomes (a hero point: revived at 1 HP).
CODE = {STABLE: 0, REVIVED: -1, DEAD: -2}


@pytest.mark.parametrize("check", ["save", "flat"])
@pytest.mark.parametrize("margin", [-12, -4, 0, 3, 9])
@pytest.mark.parametrize("death_at", [3, 4, 5])
@pytest.mark.parametrize("policy", ["at_death", 2, "never"])
def test_turn_table_is_the_dying_models_check(check, margin, death_at, policy):
    rules = Dying(
        check=check,
        save_bonus=30 + margin,
        dc=30,
        death_at=death_at,
        hero_points=1,
        hero_policy=policy,
        hero_effect="revive",
    )
    tab = turn_table(check, margin, death_at, rules.threshold, "spend").reshape(2, death_at, 20)
    for held in (0, 1):
        for dying in range(1, death_at):
            for roll in range(1, 21):
                out, new, _, _ = rules.ref_check(dying, bool(held), False, roll)
                want = new if out is None else CODE[out]
                assert tab[held, dying, roll - 1] == want, (held, dying, roll)


def test_the_table_is_read_only():
    tab = turn_table("save", 0, 4, None, "spend")
    with pytest.raises(ValueError):
        tab[0] = 1
