"""A party fight from a given state, and its end state handed on (issue 18, item 3)."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.core.exact import solve
from simkit.core.params import ParamError
from simkit.core.streams import STREAM_SIZE
from simkit.models.fight_state import CARRIED, FightStart
from simkit.models.party import Party
from simkit.testing import standard_error, within_se


def _same(a, b) -> bool:
    return (a.hist == b.hist).all() and all((a.marks[k] == b.marks[k]).all() for k in a.marks)


def test_the_fresh_start_is_the_default_start():
    r = Party(level=3)
    n = 20_000
    assert _same(simkit.simulate(r, n, 1), simkit.simulate(r, n, 1, start=r.fresh_start(n)))


def test_a_start_at_hp_is_the_model_with_that_hp():
    n = 20_000
    for hp, rules in ((10, "seed000"), (4, "pf2e-core"), (7, "seed001")):
        given = Party(level=3, hp=hp, rules=rules)
        plain = Party(level=3, rules=rules)
        assert _same(
            simkit.simulate(given, n, 4), simkit.simulate(plain, n, 4, start=given.fresh_start(n))
        )


def test_a_duel_from_a_state_agrees_with_the_exact_duel_of_those_numbers():
    """Monte Carlo from a start (HP 9, one hero point, penalty -2) against the exact duel
    whose parameters are those numbers (5 standard errors)."""
    base = Party(party="fighter", level=2, hero_points=0)
    pc = base.fighters.pcs[0]
    n = 40_000
    start = FightStart.full(
        n,
        hp=[9],
        hp_max=[pc.hp],
        hero=1,
        slots=[pc.slots],
        heals=[0],
        pp=[pc.pp_max],
        check_penalty=-2,
    )
    mc = simkit.simulate(base, n, 8, start=start).probabilities
    exact = solve(Party(party="fighter", level=2, hp=9, hero_points=1, check_penalty=-2))
    for outcome in base.outcomes:
        assert within_se(mc[outcome], exact[outcome], n), (outcome, mc[outcome], exact[outcome])


def test_the_end_state_is_in_track_order_whatever_the_blocks_and_workers():
    r = Party(level=4, party="fighter,cleric,wizard")
    n = STREAM_SIZE + 300
    a = simkit.simulate(r, n, 5, keep_state=True)
    b = simkit.simulate(r, n, 5, keep_state=True, block_size=1, workers=2)
    assert len(a.final) == n
    for name in (*CARRIED, "check_penalty"):
        assert (getattr(a.final, name) == getattr(b.final, name)).all(), name
    deaths = sum(k * c for k, c in enumerate(a.marks["deaths"].sum(axis=0)))
    assert a.final.dead.sum() == deaths  # every death of the fight is in the end state
    assert (a.final.hp <= a.final.hp_max).all()
    spent = sum(k * c for k, c in enumerate(a.marks["heals_spent"].sum(axis=0)))
    assert r.fresh_start(n).heals.sum() - a.final.heals.sum() == spent


def test_a_second_fight_continues_from_the_first():
    """The end state of one fight starts the next: the dead stay dead, the resources spent
    stay spent, and a second fight is deadlier than a fresh one."""
    r = Party(level=5, threat="severe")
    n = 20_000
    first = simkit.simulate(r, n, 1, keep_state=True)
    second = simkit.simulate(r, n, 2, start=first.final, keep_state=True)
    assert (second.final.dead >= first.final.dead).all()
    assert (second.final.heals <= first.final.heals).all()
    assert (second.final.hero <= first.final.hero).all()
    p_fresh = simkit.simulate(r, n, 2).probabilities["defeat"]
    p_second = second.probabilities["defeat"]
    assert p_second - p_fresh > 5 * standard_error(max(p_fresh, p_second), n)


def test_each_track_has_its_own_check_penalty():
    """Half the tracks at penalty 0, half at -6: each half dies as often as a run whose
    every track has its penalty (5 standard errors of the difference), and the two halves
    differ."""
    n = 20_000
    party = dict(level=4, party="fighter,rogue,cleric")
    zero = Party(**party).fresh_start(n)
    pen = np.where(np.arange(n) < n // 2, 0, -6)
    carried = ("hp", "hp_max", "hero", "slots", "heals", "pp", "wounded", "dead")
    mixed = FightStart(**{f: getattr(zero, f) for f in carried}, check_penalty=pen)
    b = simkit.simulate(Party(**party), n, 3, start=mixed, keep_state=True).final
    assert (b.check_penalty == pen).all()

    def p_death(dead) -> float:
        return float(dead.any(axis=1).mean())

    halves = (p_death(b.dead[: n // 2]), p_death(b.dead[n // 2 :]))
    for half, c in zip(halves, (0, -6)):
        alone = simkit.simulate(Party(**party, check_penalty=c), n, 9, keep_state=True).final
        p = p_death(alone.dead)
        se = np.sqrt(half * (1 - half) / (n // 2) + p * (1 - p) / n)
        assert abs(half - p) < 5 * se, (c, half, p)
    se = np.sqrt(sum(h * (1 - h) / (n // 2) for h in halves))
    assert halves[1] - halves[0] > 5 * se, halves


def test_a_dead_pc_stays_dead_and_takes_no_part():
    r = Party(level=5, party="fighter,cleric")
    n = 5_000
    fresh = r.fresh_start(n)
    dead = np.zeros((n, 2), dtype=bool)
    dead[:, 1] = True  # the cleric is dead before the fight
    hp = fresh.hp.copy()
    hp[:, 1] = 0
    start = FightStart(
        hp=hp,
        hp_max=fresh.hp_max,
        hero=fresh.hero,
        slots=fresh.slots,
        heals=fresh.heals,
        pp=fresh.pp,
        wounded=fresh.wounded,
        dead=dead,
        check_penalty=fresh.check_penalty,
    )
    res = simkit.simulate(r, n, 6, start=start, keep_state=True)
    assert res.final.dead[:, 1].all()
    assert (res.final.heals[:, 1] == fresh.heals[:, 1]).all()  # a dead cleric heals no one
    assert res.marks["heals_spent"][:, 1:].sum() == 0


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(hp=np.full((3, 1), 99)), "hp must be at most hp_max"),
        (dict(hero=np.full((3, 1), -1)), "hero must be at least 0"),
        (dict(check_penalty=np.array([0, 1, 0])), r"check_penalty must be in \[-50, 0\]"),
        (dict(dead=np.zeros((3, 1))), "dead must be booleans"),
        (dict(slots=np.zeros((3, 2), dtype=int)), r"slots must have shape \(3, 1\)"),
        (dict(pe=np.full((3, 1), 4)), "pe must be at most pe_max"),
        (dict(pe=np.full((3, 1), -1), pe_max=np.zeros((3, 1), int)), "pe must be at least 0"),
        (dict(pe_max=np.full((3, 1), 2.5)), "pe_max must be integers"),
    ],
)
def test_a_bad_start_is_one_line_naming_the_field(change, message):
    good = dict(
        hp=np.full((3, 1), 5),
        hp_max=np.full((3, 1), 20),
        hero=np.zeros((3, 1), int),
        slots=np.zeros((3, 1), int),
        heals=np.zeros((3, 1), int),
        pp=np.zeros((3, 1), int),
        wounded=np.zeros((3, 1), int),
        dead=np.zeros((3, 1), bool),
        check_penalty=np.zeros(3, int),
    )
    with pytest.raises(ParamError, match=message):
        FightStart(**{**good, **change})


def test_a_start_of_the_wrong_size_or_model_is_refused():
    r = Party(level=3)
    with pytest.raises(ParamError, match="start must hold n=10 tracks, got 5"):
        simkit.simulate(r, 10, 1, start=r.fresh_start(5))
    with pytest.raises(ParamError, match="start must hold 10 tracks of 4 PCs"):
        simkit.simulate(r, 10, 1, start=Party(level=3, party="fighter").fresh_start(10))
    with pytest.raises(ParamError, match="does not start from or hand on a state"):
        simkit.simulate(simkit.models.REGISTRY["dying"](), 10, 1, keep_state=True)


@pytest.mark.parametrize(
    "params",
    [
        dict(level=5),
        dict(level=3, rules="pf2e-core", threat="severe", target_downed="always"),
        dict(level=8, rules="seed001", threat="extreme", lineup="pack"),
        dict(
            level=2,
            party="cleric,fighter",
            lineup="boss_and_minions",
            area_chance=1.0,
            downed_pick="random",
            first_aid_natural=True,
            retreat_at=1,
        ),
        dict(
            level=12,
            party="wizard,rogue,cleric",
            threat="extreme",
            hero_policy="immediately",
            monster_target="weakest",
            after_defeat="captured",
        ),
    ],
)
def test_loop_equals_reference_from_start_states(params):
    from test_party import _random_start, loop_vs_ref

    r = Party(**params)
    loop_vs_ref(r, 120, 17, state=_random_start(r, 120, 3))


def test_a_block_of_two_fights_gives_each_fight_what_it_gives_alone():
    """Tracks of fights A and B in one block (alternating) end, fight by fight, as runs of
    A alone and of B alone do: P(some PC dead), P(every PC up) and the mean HP left,
    within 5 standard errors of the difference (the draws differ: one block draws for
    both lineups)."""
    from dataclasses import replace

    n = 12_000
    r = Party(level=4, threat="severe")
    lineups = ({"threat": "severe"}, {"monsters": "boar,4,4", "map": "agile"})
    both = r.with_lineups(lineups)
    start = replace(both.fresh_start(2 * n), fight=np.arange(2 * n) % 2)
    mixed = simkit.simulate(both, 2 * n, 5, start=start, keep_state=True).final
    for f, rules in enumerate(both.lineup_rules):
        alone = simkit.simulate(rules, n, 6, keep_state=True).final
        got = mixed.take(np.flatnonzero(mixed.fight == f))
        assert len(got) == n
        for stat in (
            lambda s: s.dead.any(axis=1),
            lambda s: (s.hp > 0).all(axis=1),
            lambda s: s.hp.sum(axis=1) / s.hp_max.sum(axis=1),
        ):
            a, b = stat(got).astype(float), stat(alone).astype(float)
            se = np.sqrt(a.var() / n + b.var() / n + 2.0 / n**2)
            assert abs(a.mean() - b.mean()) <= 5 * se, (f, a.mean(), b.mean(), se)


def test_stamina_is_handed_on_and_left_out_is_none():
    """A finished seed-001 fight hands on each PC's PE and maximum; a second fight starts
    from them (PE spent stay spent); a start that leaves PE out gives the PCs none."""
    r = Party(level=5, threat="severe", rules="seed001")
    n = 4000
    first = simkit.simulate(r, n, 1, keep_state=True).final
    assert (first.pe_max == r.fresh_start(1).pe_max).all() and (first.pe < first.pe_max).any()
    second = simkit.simulate(r, n, 2, start=first, keep_state=True).final
    assert (second.pe <= first.pe).all()
    row = first.row(0)
    assert row["pe"] == list(first.pe[0]) and row["pe_max"] == list(first.pe_max[0])
    fresh = r.fresh_start(3)
    old = [f for f in (*CARRIED, "check_penalty") if f not in ("pe", "pe_max")]
    bare = FightStart(**{f: getattr(fresh, f) for f in old})  # a start from before PE
    assert (bare.pe == 0).all() and (bare.pe_max == 0).all()


def test_a_start_in_any_memory_order_gives_the_same_numbers():
    """A start built from Fortran-ordered arrays (a transposed table, say) plays exactly as
    the same start in C order: the kernel writes through flat views of its arrays."""
    r = Party(level=4, threat="severe", rules="pf2e-core")
    n = 3000
    from test_party import _random_start

    start = _random_start(r, n, 5)
    per_pc = {f: np.asfortranarray(getattr(start, f)) for f in CARRIED}
    fortran = FightStart(**per_pc, check_penalty=start.check_penalty, fight=start.fight)
    a = simkit.simulate(r, n, 3, start=start, keep_state=True)
    b = simkit.simulate(r, n, 3, start=fortran, keep_state=True)
    assert _same(a, b) and all((getattr(a.final, f) == getattr(b.final, f)).all() for f in CARRIED)


def test_a_trusted_start_is_read_only_and_leaves_its_arrays_alone():
    """Issue 28: ``FightStart.trusted`` hands read-only views (its caller's arrays, a
    kernel's own state, stay writable)."""
    import numpy as np
    import pytest

    from simkit.models.fight_state import FightStart

    hp = np.array([[5, 0]], dtype=np.int32)
    start = FightStart.trusted(
        hp=hp,
        hp_max=hp + 3,
        hero=hp * 0,
        slots=hp * 0,
        heals=hp * 0,
        pp=hp * 0,
        wounded=hp * 0,
        dead=hp < 0,
        check_penalty=np.zeros(1, dtype=np.int32),
    )
    with pytest.raises(ValueError, match="read-only"):
        start.hp[0, 0] = 1
    hp[0, 0] = 7  # the caller's array is still its own
    assert start.hp[0, 0] == 7 and hp.flags.writeable
