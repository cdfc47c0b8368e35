"""Seed-004 rule phases: each vectorised phase equals its scalar reference on the same draws,
and each exact distribution equals a brute-force enumeration written here."""

from itertools import product

import numpy as np
import pytest

from simkit.rules import fall as fl
from simkit.rules import fatigue_day as fd
from simkit.rules.guide import cell_guide, cell_of_draw
from simkit.rules.heights import parse_heights
from simkit.testing import replay_phase

# -- a fatigue day (R4-01..R4-06, A4-2, A4-3) ---------------------------------------------------

OPTIONS = [
    dict(),
    dict(separate=True, recovery="each", recovered_when="cleared"),
    dict(care="tended", exhaust_at=6, death_days=2),
    dict(care="rescue", separate=True, exhaust_at=4, death_days=1),
]


def test_cells_round_trip():
    assert fd.day_cell(True) == fd.RESCUE and fd.cell_events(fd.RESCUE)[0]
    for rest, eat, drink, tended in product((False, True), repeat=4):
        cell = fd.day_cell(False, rest, eat, drink, tended)
        assert 1 <= cell < fd.N_CELLS and fd.cell_events(cell) == (False, rest, eat, drink, tended)


@pytest.mark.parametrize("separate,care", [(False, "fed"), (True, "tended"), (True, "fed")])
def test_cell_pmf_equals_brute_force(separate, care):
    pr, ps, pf, pw, pc = 0.1, 0.3, 0.6, 0.45, 0.25
    pmf = fd.cell_pmf(pr, ps, pf, pw, pc, separate=separate, care=care)
    assert pmf.sum() == pytest.approx(1.0) and pmf[fd.RESCUE] == pr
    for rest, eat, drink, tended in product((False, True), repeat=4):
        # independent events; without separate counters drinking is eating (A4-2)
        p = (1 - pr) * (ps if rest else 1 - ps) * (pf if eat else 1 - pf)
        p *= (pw if drink else 1 - pw) if separate else float(drink == eat)
        pt = pc if care == "tended" else 0.0
        p *= pt if tended else 1 - pt
        assert pmf[fd.day_cell(False, rest, eat, drink, tended)] == pytest.approx(p, abs=1e-15)


def test_fatigue_day_by_rule_id():
    day = dict(rescued=False, rest=False, eat=False, drink=False)
    assert fd.fatigue_day(1, 1, 0, -1, **day) == (None, 2, 2, 0, -1)  # R4-01..R4-03: -4
    assert fd.fatigue_day(4, 5, 0, -1, **day) == (None, 5, 6, 0, 0)  # R4-04: -11 knocks out
    assert fd.fatigue_day(4, 5, 0, -1, **day, last=True)[0] == fd.EXHAUSTED
    assert fd.fatigue_day(5, 5, 0, 2, **day) == (fd.DEAD, 5, 5, 0, 3)  # R4-05: third day
    assert fd.fatigue_day(5, 5, 0, 2, **{**day, "eat": True}) == (
        None,
        5,
        5,
        0,
        0,
    )  # fed: clock reset
    assert fd.fatigue_day(5, 5, 0, 2, **{**day, "eat": True}, care="rescue")[0] == fd.DEAD  # A4-3
    meal_rest = dict(rescued=False, rest=True, eat=True, drink=True)
    assert fd.fatigue_day(3, 2, 0, -1, **meal_rest) == (None, 0, 0, 0, -1)  # R4-06
    assert fd.fatigue_day(3, 2, 0, -1, **{**day, "rest": True}) == (
        None,
        3,
        3,
        0,
        -1,
    )  # rest alone: both
    assert fd.fatigue_day(3, 2, 0, -1, **{**day, "rest": True}, recovery="each") == (
        None,
        0,
        3,
        0,
        -1,
    )
    assert fd.fatigue_day(1, 1, 1, -1, **{**day, "eat": True}, separate=True) == (
        None,
        2,
        1,
        2,
        -1,
    )  # A4-2
    assert (
        fd.fatigue_day(9, 9, 0, 1, rescued=True, rest=False, eat=False, drink=False)[0]
        == fd.RECOVERED
    )


@pytest.mark.parametrize("opts", OPTIONS)
def test_day_chain_table_is_the_reference(opts):
    start = (1, 2, 1 if opts.get("separate") else 0, -1)
    chain = fd.day_chain(start, **opts)
    assert chain.states[0] == start and len(set(chain.states)) == len(chain.states)
    for i, (s, f, w, c) in enumerate(chain.states):
        assert chain.penalty[i] == s + f + w
        for last, cell in product((False, True), range(fd.N_CELLS)):
            r, rest, eat, drink, tended = fd.cell_events(cell)
            out, *nxt = fd.fatigue_day(
                s,
                f,
                w,
                c,
                rescued=r,
                rest=rest,
                eat=eat,
                drink=drink,
                tended=tended,
                last=last,
                **opts,
            )
            want = out if out is not None else -1 - chain.index(tuple(nxt))
            assert chain.trans[int(last), i, cell] == want
            # the kernel's form of the same table
            k = chain.kernel[int(last)].take(chain.kernel_code(i) - cell)
            assert k == (out if out is not None else chain.kernel_code(chain.index(tuple(nxt))))


@pytest.mark.parametrize(
    "pmf",
    [
        fd.cell_pmf(0.05, 0.5, 0.3, 0.3),
        fd.cell_pmf(0.0, 0.25, 0.5, 0.5),  # dyadic: no cell edge splits a first word
        fd.cell_pmf(1.0, 0.5, 0.5, 0.5),  # a rescue day
        fd.cell_pmf(0.013, 0.71, 0.37, 0.59, 0.2, separate=True, care="tended"),
    ],
)
def test_day_phase_equals_the_reference_on_the_same_draws(pmf):
    chain = fd.day_chain((0, 0, 0, -1), separate=True, care="tended", recovery="each")
    n = 4000
    states = np.random.default_rng(1).integers(0, len(chain.states), size=n)
    code = np.array([chain.kernel_code(int(i)) for i in states], dtype=np.int32)
    split = fd.day_guide(pmf)[2]
    cum = np.concatenate(([0.0], np.cumsum(pmf)))

    def day(j, draws):
        assert len(draws) == (2 if split else 1) and all(d.high == 2**16 for d in draws)
        hi, lo = int(draws[0].value), int(draws[1].value) if split else 0
        cell = fd.cell_of_draw(hi, lo, pmf)
        x = ((hi << 16) | lo) / 2**32  # the cell's share of [0, 1)
        assert cum[cell] - 1e-9 <= x < cum[cell + 1] + 1e-9 and pmf[cell] > 0
        want = chain.trans[0, states[j], cell]
        return int(want) if want >= 0 else chain.kernel_code(-1 - int(want))

    replay_phase(lambda rng: fd.day_phase(code, rng, chain, pmf, last=False), day, 3)


def test_guide_edges_give_each_cell_its_share():
    pmf = fd.cell_pmf(0.05, 0.5, 0.3, 0.3)
    edges, guide, split = fd.day_guide(pmf)
    assert edges[0] == 0 and edges[-1] == 2**32 and split
    assert np.allclose(np.diff(edges) / 2**32, pmf, atol=2**-32)
    whole = guide >= 0
    assert whole.sum() >= 2**16 - (fd.N_CELLS - 1)  # at most one split run per inner edge
    assert fd.day_guide(list(pmf))[1] is guide  # cached on the probabilities


# -- a fall's damage band (R4-07, A4-1, R0-13, R0-14) -------------------------------------------

FALLS = [
    dict(hp=9, hp_max=9),
    dict(hp=6, hp_max=20, temp_hp=3, reading="example"),
    dict(hp=4, hp_max=5, massive_damage=True),
    dict(hp=30, hp_max=30, band_ko=3),
]


def test_fall_bands_and_dice_by_rule_id():
    assert [fl.band_of(h) for h in (0, 1.99, 2, 3.9, 4, 7.99, 8, 9.99, 10, 11.9, 12, 40)] == [
        0,
        0,
        1,
        1,
        2,
        3,
        4,
        4,
        5,
        5,
        6,
        6,
    ]
    assert [fl.fall_dice(b) for b in range(7)] == [0, 1, 2, 3, 4, 0, 0]
    assert fl.fall_dice(4, "example") == 3  # A4-1: the worked example's 8 m -> 3d6
    assert fl.fall_result(6, hp=50, hp_max=50) == (fl.DEAD, 0)  # 12 m+
    assert fl.fall_result(5, hp=50, hp_max=50, temp_hp=99) == (
        fl.KO,
        0,
    )  # 10-<12 m: temp HP do not help
    assert fl.fall_result(2, 9, hp=9, hp_max=9) == (fl.KO, 9)
    assert fl.fall_result(2, 9, hp=9, hp_max=9, temp_hp=1) == (fl.STANDING, 9)  # R0-14
    assert fl.fall_result(2, 10, hp=9, hp_max=5, massive_damage=True) == (fl.DEAD, 10)  # R0-13


@pytest.mark.parametrize("kw", FALLS)
def test_fall_cells_equal_brute_force(kw):
    heights = parse_heights("uniform:0-13")
    probs = heights.band_probabilities(fl.FALL_EDGES)
    want: dict = {}
    for band, pb in enumerate(probs):
        k = {1: 1, 2: 2, 3: 3, 4: 3 if kw.get("reading") == "example" else 4}.get(band, 0)
        for dice in product(range(1, 7), repeat=k):
            dmg = sum(dice)
            if band == 6:
                key = (fl.DEAD, 0, band)
            elif band == 5:
                key = (kw.get("band_ko", fl.KO), 0, band)
            elif k == 0:
                key = (fl.STANDING, 0, band)
            elif kw.get("massive_damage") and dmg >= 2 * kw["hp_max"]:
                key = (fl.DEAD, dmg, band)
            else:
                key = (fl.KO if dmg - kw.get("temp_hp", 0) >= kw["hp"] else fl.STANDING, dmg, band)
            want[key] = want.get(key, 0.0) + pb / 6**k
    got = {(c, d, b): p for p, c, d, b in fl.fall_cells(probs, **kw)}
    assert got.keys() == want.keys()
    for key, p in want.items():
        assert got[key] == pytest.approx(p, abs=1e-15)


@pytest.mark.parametrize("kw", FALLS)
def test_fall_table_is_the_reference(kw):
    codes, damage = fl.fall_table(**kw)
    for band in range(7):
        k = fl.fall_dice(band, kw.get("reading", "table"))
        for r in range(0, fl.DICE_WIDTH, 7):
            total = sum(r // 6**i % 6 + 1 for i in range(k))
            assert (
                codes[band * fl.DICE_WIDTH + r],
                damage[band * fl.DICE_WIDTH + r],
            ) == fl.fall_result(band, total, **kw)


@pytest.mark.parametrize("height", ["6", "3,9,11,15", "uniform:0-14", "1", "uniform:4.5-5.5"])
def test_fall_phase_equals_the_reference_on_the_same_draws(height):
    heights = parse_heights(height)
    kw = dict(hp=10, hp_max=10, temp_hp=2)
    probs = heights.band_probabilities(fl.FALL_EDGES)

    def fall(j, draws):
        draws = [int(d.value) for d in draws]
        if np.count_nonzero(probs) == 1:
            band = int(np.flatnonzero(probs)[0])
        elif heights.kind == "list":
            band = fl.band_of(heights.values[draws.pop(0)])
        else:  # a uniform range: the band takes its probability's share of the 32-bit draws
            hi = draws.pop(0)
            band = cell_of_draw(hi, draws.pop(0) if cell_guide(probs)[2] else 0, probs)
        dice = draws.pop(0) if draws else 0
        assert not draws
        total = sum(dice // 6**i % 6 + 1 for i in range(fl.fall_dice(band)))
        return (*fl.fall_result(band, total, **kw), band)

    replay_phase(lambda rng: fl.fall_phase(2000, rng, heights, **kw), fall, 8)


def test_twelve_metres_a4_4_moves_only_a_listed_12_m():
    from simkit.rules.fall import BAND_DEAD, BAND_KO, FALL_EDGES, band_of, twelve_metres
    from simkit.rules.heights import parse_heights

    h = parse_heights("11.5,12,12.0001,30")
    assert twelve_metres(h) is h and twelve_metres(h, "dead") is h
    ko = twelve_metres(h, "ko")
    bands = [band_of(v) for v in ko.values]
    assert bands == [band_of(v, "ko") for v in h.values] == [BAND_KO, BAND_KO, BAND_DEAD, BAND_DEAD]
    probs = ko.band_probabilities(FALL_EDGES)
    assert probs[BAND_KO] == 0.5 and probs[BAND_DEAD] == 0.5
    u = parse_heights("uniform:10-14")
    assert twelve_metres(u, "ko") is u
