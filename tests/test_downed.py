"""The downed-PC component (simkit.models.downed) against the scalar rule references.

Every case is generated: each position of a small state holds one case, and the
component's vectorised answer at that position must be the scalar reference's
(recovery_check.recovery_delta, hero_points.rise, dying_damage.knockout_value /
hit_while_dying, perseverance.perseverance_round, hourly.hourly_result / wake_up), in
party's layout (P PCs per track, hero points held per PC) and encounter's (P = 1, hero
points spent per track).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simkit.models.downed import DYING, STABLE, UP, Downed
from simkit.rules import hero_points as hp_rule
from simkit.rules import hourly, perseverance
from simkit.rules.dying_damage import hit_while_dying, knockout_value
from simkit.rules.recovery_check import recovery_delta

DEATH_AT = 4


def _downed(P=1, **kw) -> Downed:
    base = dict(
        seed000=True,
        check="save",
        on_damage="max",
        wounded_rule=False,
        hero_effect="revive",
        wounded_adds="on_gain",
        hero_points=2,
        threshold=hp_rule.hero_threshold(2, 2, DEATH_AT),
        death_at=DEATH_AT,
        hero_knockout="spend",
        hero_held=True,
        trait="none",
        zero_pp="at_zero",
        spend="never",
        cost=(2,) * P,
        back_in_fight=False,
        enough_pp=1,
        checks=8,
        natural=False,
        level=5,
        con=(3,) * P,
    )
    base.update(kw)
    return Downed(**base)  # type: ignore[arg-type]


def _state(n: int, P: int, held: np.ndarray, hero_points: int, hero_held: bool) -> dict:
    """A state of ``n // P`` tracks of ``P`` PCs (``n`` positions), everyone dying 0."""
    m = n // P
    S = {
        "hp": np.zeros((m, P), dtype=np.int32),
        "cond": np.full((m, P), DYING, dtype=np.int8),
        "dying": np.zeros((m, P), dtype=np.int16),
        "wounded": np.zeros((m, P), dtype=np.int16),
        "dcs": np.zeros((m, P), dtype=np.int16),
        "pp": np.zeros((m, P), dtype=np.int16),
        "turns": np.zeros((m, P), dtype=np.int16),
        "nl": np.zeros((m, P), dtype=bool),
    }
    if hero_held:
        S["hero"] = held.reshape(m, P).astype(np.int8)
        S["hero_spent"] = np.zeros(m, dtype=np.int16)
    else:  # encounter: one PC per track, the points spent per track
        S["hero_spent"] = (hero_points - held).astype(np.int8)
    return S


def _flat(S, name):
    return S[name].reshape(-1)


def _expect_rise(dn: Downed, old, new, held, wounded, knockout=False):
    """(cond, dying, hp, held after, wounded after, died) of one rise, by the references."""
    res = hp_rule.rise(
        old,
        new,
        threshold=dn.threshold if held else None,
        death_at=dn.death_at,
        knockout=knockout,
        hero_knockout=dn.hero_knockout,
    )
    w1 = wounded + 1 if dn.wounded_rule else wounded
    if res == hp_rule.STABLE:
        return STABLE, 0, 0, held, w1, False
    if res == hp_rule.HERO:
        if dn.hero_effect == "revive":
            return UP, 0, 1, held - 1, w1, False
        return STABLE, 0, 0, 0, wounded, False
    if res == hp_rule.DEAD:
        return DYING, dn.death_at, 0, held, wounded, True
    return DYING, new, 0, held, wounded, False


def _check(dn, S, f, died, expected, hero_points):
    P = dn.P
    got_died = np.zeros(len(f), dtype=bool)
    got_died[np.searchsorted(f, died)] = True
    held = (
        _flat(S, "hero")
        if dn.hero_held
        else hero_points - np.repeat(S["hero_spent"].astype(int), P)
    )
    for x, (cond, dying, hp, h, w, dead) in enumerate(expected):
        case = (x, cond, dying, hp, h, w, dead)
        assert got_died[x] == dead, case
        if dead:
            continue
        got = (
            x,
            _flat(S, "cond")[x],
            _flat(S, "dying")[x],
            _flat(S, "hp")[x],
            held[x],
            _flat(S, "wounded")[x],
            False,
        )
        assert got == case


def _spent_ok(dn, S, held0, hero_points):
    """Party's layout: the track's hero_spent is the points its PCs spent."""
    if dn.hero_held:
        per_track = (held0 - _flat(S, "hero")).reshape(-1, dn.P).sum(axis=1)
        assert (S["hero_spent"] == per_track).all()


OPTIONS = list(
    itertools.product(
        ("save", "flat"),
        ("revive", "stabilize"),
        (False, True),  # wounded rule
        ((1, True), (3, True), (1, False)),  # (P, hero_held): party and encounter layouts
        (True, False),  # one DC (the turn table) or a DC per position
    )
)


@pytest.mark.parametrize("check,effect,wounded_rule,layout,one_dc", OPTIONS)
def test_recovery_turn_is_the_references(check, effect, wounded_rule, layout, one_dc):
    P, hero_held = layout
    dn = _downed(P, check=check, hero_effect=effect, wounded_rule=wounded_rule, hero_held=hero_held)
    bonus, dc = 7, 17
    cases = [
        (d, r, h, w)
        for d in range(1, DEATH_AT)
        for r in range(20)
        for h in (0, 1, 2)
        for w in ((0, 1) if wounded_rule else (0,))
    ]
    cases += cases[: (-len(cases)) % P]  # whole tracks
    n = len(cases)
    d, r, h, w = (np.array(c) for c in zip(*cases))
    S = _state(n, P, h, dn.hero_points, hero_held)
    _flat(S, "dying")[:] = d
    _flat(S, "wounded")[:] = w
    f = np.arange(n)
    dcs = dc if one_dc else np.full(n, dc)
    died = dn.recovery_turn(S, f, r.astype(np.uint16), bonus, dcs)
    expected = [
        _expect_rise(
            dn, dd, dd + recovery_delta(rr + 1, dd, check=check, bonus=bonus, dc=dc), hh, ww
        )
        for dd, rr, hh, ww in cases
    ]
    _check(dn, S, f, np.sort(died), expected, dn.hero_points)
    _spent_ok(dn, S, h, dn.hero_points)


@pytest.mark.parametrize(
    "on_damage,wounded_rule,adds",
    [
        ("max", False, "on_gain"),
        ("increment", True, "on_gain"),
        ("increment", True, "every_hit"),
        ("max", True, "on_gain"),
    ],
)
@pytest.mark.parametrize("layout", [(1, False), (2, True)])
def test_knockout_and_hit_down_are_the_references(on_damage, wounded_rule, adds, layout):
    P, hero_held = layout
    dn = _downed(
        P,
        on_damage=on_damage,
        wounded_rule=wounded_rule,
        wounded_adds=adds,
        hero_held=hero_held,
        hero_knockout="die",
    )
    # (state: 0 up, 1.. dying value, -1 stable; crit; held; wounded; source DC)
    cases = list(itertools.product((0, -1, 1, 2, 3), (False, True), (0, 1), (0, 1, 2), (14, 20)))
    cases += cases[: (-len(cases)) % P]
    n = len(cases)
    st, crit, h, w, sdc = (np.array(c) for c in zip(*cases))
    S = _state(n, P, h, dn.hero_points, hero_held)
    _flat(S, "cond")[:] = np.where(st == 0, UP, np.where(st < 0, STABLE, DYING))
    _flat(S, "dying")[:] = np.maximum(st, 0)
    _flat(S, "wounded")[:] = w
    _flat(S, "dcs")[:] = 16
    f = np.arange(n)
    up = st == 0
    died = list(dn.knockout(S, f[up], crit[up], sdc[up]))
    more, again = dn.hit_down(S, f[~up], crit[~up], sdc[~up])
    died += list(more)
    assert sorted(again) == list(f[st < 0])
    expected = []
    for s, c, hh, ww, dc in cases:
        if s <= 0:  # a knock-out (again, for a stable PC)
            gain = knockout_value(start=1, crit=bool(c), wounded=ww, wounded_rule=wounded_rule)
            exp = _expect_rise(dn, 0, gain, hh, ww, knockout=True)
        else:
            new = hit_while_dying(
                s,
                bool(c),
                on_damage=on_damage,
                wounded=ww,
                wounded_rule=wounded_rule,
                wounded_adds=adds,
            )
            exp = _expect_rise(dn, s, new, hh, ww)
        expected.append(exp)
    _check(dn, S, f, np.sort(died), expected, dn.hero_points)
    dcs = _flat(S, "dcs")
    alive = np.ones(n, dtype=bool)
    alive[died] = False
    want = np.where(st > 0, np.maximum(16, sdc), sdc)
    assert (dcs[alive] == want[alive]).all()  # R0-06: the source's DC, the higher one


@pytest.mark.parametrize("trait", ["death", "nonlethal"])
def test_traits_at_0_hp(trait):
    dn = _downed(2, trait=trait)
    S = _state(4, 2, np.zeros(4, dtype=int), 2, True)
    _flat(S, "cond")[:] = [UP, UP, STABLE, DYING]
    _flat(S, "dying")[:] = [0, 0, 0, 2]
    f = np.arange(4)
    died = dn.knockout(S, f[:2], np.zeros(2, dtype=bool), 15)
    more, again = dn.hit_down(S, f[2:], np.ones(2, dtype=bool), 15)
    if trait == "death":  # R0-12
        assert list(died) == [0, 1] and list(more) == [2, 3]
    else:  # R0-02, R1-11: stable, no danger of death; a hit while down does nothing
        assert len(died) == len(more) == len(again) == 0
        assert list(_flat(S, "cond")) == [STABLE, STABLE, STABLE, DYING]
        assert list(_flat(S, "nl")[:2]) == [True, True]
        assert _flat(S, "dying")[3] == 2


@pytest.mark.parametrize("spend", ["never", "asap", "last", 2])
@pytest.mark.parametrize("back,enough", [(False, 1), (True, 1), (True, 3)])
@pytest.mark.parametrize("layout", [(1, (3,)), (2, (2, 3))])
def test_agonising_turn_is_perseverance_round(spend, back, enough, layout):
    P, costs = layout
    dn = _downed(
        P,
        seed000=False,
        threshold=None,
        spend=spend,
        cost=costs,
        back_in_fight=back,
        enough_pp=enough,
    )
    # (PP, agonising turns taken, phase: 0 agonising / 1 stabilised by a nonlethal knock-out)
    cases = list(itertools.product(range(0, 9), range(4), (0, 1)))
    cases = [c for c in cases for _ in range(P)]  # each case at every PC (its own cost)
    n = len(cases)
    pp, turns, phase = (np.array(c) for c in zip(*cases))
    S = _state(n, P, np.zeros(n, dtype=int), 0, True)
    _flat(S, "pp")[:] = pp
    _flat(S, "turns")[:] = turns
    _flat(S, "cond")[:] = np.where(phase == 1, STABLE, DYING)
    _flat(S, "nl")[:] = phase == 1
    f = np.arange(n)
    died = set(dn.agonise(S, f).tolist())
    for x, (p, t, ph) in enumerate(cases):
        res, _, now = perseverance.perseverance_round(
            perseverance.STABILISED if ph else perseverance.AGONISING,
            p,
            t + 1,
            cost=costs[x % P],
            spend=spend,
            back_in_fight=back,
            enough_pp=enough,
        )
        case = (x, p, t, ph, res, now)
        assert (x in died) == (res == perseverance.DEAD), case
        assert _flat(S, "pp")[x] == now, case
        cond = {None: DYING, perseverance.STABLE: STABLE, perseverance.BACK: UP}.get(res)
        if res != perseverance.DEAD:
            assert _flat(S, "cond")[x] == cond, case
            assert _flat(S, "hp")[x] == (1 if res == perseverance.BACK else 0), case


@pytest.mark.parametrize("natural", [False, True])
@pytest.mark.parametrize("checks", [8, 3])
def test_hourly_is_the_references(natural, checks):
    P = 3
    dn = _downed(P, seed000=False, threshold=None, natural=natural, checks=checks, con=(4, 1, -1))
    rng = np.random.default_rng(18)
    n = 600
    S = _state(n, P, np.zeros(n, dtype=int), 0, True)
    _flat(S, "cond")[:] = STABLE
    _flat(S, "nl")[:] = rng.random(n) < 0.3
    f = np.flatnonzero(rng.random(n) < 0.8)
    con = rng.integers(1, 21, size=(len(f), hourly.WAKE_HOURS))
    med = rng.integers(1, 21, size=(len(f), hourly.WAKE_HOURS))
    healer = rng.choice([-1, 6, 12], size=len(f))
    pen = rng.choice([0, -2], size=len(f))
    hp_max = rng.choice([3, 40], size=len(f))
    nl = _flat(S, "nl")[f].copy()
    died, hours = dn.hourly(S, f, con, med, healer, pen, hp_max)
    for x, pos in enumerate(f):
        h = int(healer[x])
        results = [
            hourly.hourly_result(
                int(con[x, j]),
                int(med[x, j]),
                con=dn.con[pos % P],
                healer=h if h >= 0 else None,
                check_penalty=int(pen[x]),
                natural=natural,
                lethal=not nl[x],
            )
            for j in range(hourly.WAKE_HOURS)
        ]
        res, hp, hrs = hourly.wake_up(results, checks, dn.level, int(hp_max[x]))
        case = (x, results, res, hp, hrs)
        assert died[x] == (res == hourly.DEAD), case
        assert hours[x] == hrs, case
        assert _flat(S, "hp")[pos] == hp, case
        assert _flat(S, "cond")[pos] == (STABLE if res == hourly.DEAD else UP), case
    untouched = np.setdiff1d(np.arange(n), f)
    assert (_flat(S, "cond")[untouched] == STABLE).all()


@pytest.mark.parametrize("wounded_rule", [False, True])
def test_wake_and_stabilize(wounded_rule):
    dn = _downed(2, wounded_rule=wounded_rule)
    S = _state(4, 2, np.zeros(4, dtype=int), 2, True)
    _flat(S, "cond")[:] = [DYING, STABLE, DYING, STABLE]
    _flat(S, "dying")[:] = [2, 0, 1, 0]
    _flat(S, "nl")[:] = [False, True, False, False]
    dn.wake(S, np.array([0, 1]))  # R0-04, R1-03: dying lost (A0-2), the stable one too
    dn.stabilize(S, np.array([2]))  # R0-08 (first aid, R1-02)
    assert list(_flat(S, "cond")) == [UP, UP, STABLE, STABLE]
    assert list(_flat(S, "dying")) == [0, 0, 0, 0]
    assert list(_flat(S, "nl")) == [False, False, False, False]
    w = 1 if wounded_rule else 0
    assert list(_flat(S, "wounded")) == [w, 0, w, 0]  # only losing dying adds wounded
