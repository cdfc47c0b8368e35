"""The exact duels' answers pinned (issue 31, item 6): the values main's grid solver gave
on 2026-12-05 (commit 9245732), before the solver was rewritten for speed (AP-30). Each duel:
P(victory), P(defeat) and their first moments over the rounds (the sum of t x P(it ends at
round t)); each day: the outcomes' totals and the defeat's first moment over the plan's
steps. Held to 1e-12 (absolute): a rewrite may change the rounding, not the answers."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.models.day import Day
from simkit.models.party import Party

TOL = 1e-12

DUELS = [
    (
        {"party": "fighter", "level": 1},
        (0.9988842225645372, 0.0011157774354628592, 1.1612012073277385, 0.002829977993785802),
    ),
    (
        {"party": "fighter", "level": 2},
        (0.9983962081648157, 0.0016037918351845372, 1.4014020054520273, 0.0041971980662203175),
    ),
    (
        {"party": "fighter", "level": 3},
        (0.9995930653107405, 0.00040693468925973573, 1.4961469613430554, 0.0011811266696907321),
    ),
    (
        {"party": "fighter", "level": 4},
        (0.997319105626735, 0.0026808943732645318, 1.529043310160672, 0.007544460534558299),
    ),
    (
        {"party": "fighter", "level": 5},
        (0.9989959532373183, 0.0010040467626811992, 1.7348074805300882, 0.0027619874529265093),
    ),
    (
        {"party": "wizard", "level": 3, "rules": "seed001"},
        (0.9785900081777024, 0.02140999182229724, 2.4175545702129817, 0.09198181760807528),
    ),
    (
        {
            "party": "wizard",
            "level": 5,
            "rules": "seed000",
            "hero_points": 2,
            "area_chance": 0.3,
            "area_uses": 2,
        },
        (0.6403149821999556, 0.359685017800044, 2.0524844754232134, 1.3531259906719992),
    ),
    (
        {"party": "rogue", "level": 4, "rules": "pf2e-core", "hero_points": 3, "area_chance": 0.5},
        (0.9851870095029732, 0.014812990497026494, 1.8743553226093452, 0.04326374986861885),
    ),
    (
        {
            "party": "fighter",
            "level": 2,
            "rules": "seed001",
            "pe_damage": "hp_only",
            "trait": "nonlethal",
        },
        (0.9983962081648157, 0.0016037918351845372, 1.4014020054520273, 0.0041971980662203175),
    ),
    (
        {
            "party": "rogue",
            "level": 1,
            "hero_points": 3,
            "hero_policy": "at_death",
            "max_rounds": 6,
        },
        (0.9959835780416394, 0.004010483943006364, 1.1798665454592319, 0.010000665397196528),
    ),
    (
        {"party": "fighter", "level": 3, "dying": "dnd5e"},
        (0.9995930653107405, 0.00040693468925973573, 1.4961469613430554, 0.0011811266696907321),
    ),
    (
        {
            "party": "fighter",
            "level": 5,
            "threat": "severe",
            "hero_points": 1,
            "hero_policy": "immediately",
        },
        (0.9805429629531934, 0.019457037046804536, 2.4486141872478817, 0.07040906845302419),
    ),
    (
        {
            "party": "wizard",
            "level": 4,
            "rules": "seed001",
            "threat": "severe",
            "hp": 9,
            "area_chance": 0.4,
        },
        (0.05746540536372532, 0.9425345946362748, 0.19533557292780077, 2.840323700975115),
    ),
    (
        {
            "party": "fighter",
            "level": 3,
            "threat": "extreme",
            "rules": "pf2e-core",
            "hero_points": 2,
            "attacks": 3,
            "map": "agile",
        },
        (0.4098207152154551, 0.5901792847845457, 1.1220208854727334, 1.5341875017135598),
    ),
    # levels 12 and 20: computed by main's solver module (commit 9245732's duel_grid.py,
    # 3-10 s each) on the same rules objects
    (
        {"party": "fighter", "level": 20, "rules": "seed001"},
        (0.9996899261607797, 0.00031007383921388844, 5.030906248906048, 0.002487362355713975),
    ),
    (
        {"party": "rogue", "level": 20, "hero_points": 3, "threat": "severe"},
        (0.3154406537980316, 0.6845593462019637, 1.805124270314308, 3.443798887285339),
    ),
    (
        {"party": "wizard", "level": 12, "rules": "pf2e-core", "area_chance": 0.5},
        (0.04530426442701897, 0.9546957355729773, 0.23318535395233142, 4.243227297049536),
    ),
]

DAYS = [
    (
        {"level": 1, "party": "fighter", "plan": "severe"},
        ([0.9457893606034715, 0.0, 0.05421063939652836, 0.0], 0.05421063939652836),
    ),
    (
        {"level": 2, "party": "wizard", "plan": "severe,short_rest,moderate,long_rest,severe"},
        ([0.0007089468551175274, 0.0, 0.9992910531448822, 0.0], 1.3623722797309308),
    ),
]


@pytest.mark.parametrize(("params", "pinned"), DUELS)
def test_exact_duel_is_pinned(params, pinned):
    r = Party(**params)
    h = r.exact_hist()
    outcomes = list(r.outcomes)
    won, lost = h[outcomes.index("victory")], h[outcomes.index("defeat")]
    t = np.arange(h.shape[1])
    got = (won.sum(), lost.sum(), t @ won, t @ lost)
    np.testing.assert_allclose(got, pinned, rtol=0, atol=TOL)


@pytest.mark.parametrize(("params", "pinned"), DAYS)
def test_exact_day_duel_is_pinned(params, pinned):
    day = Day(**params)
    h = day.exact_hist()
    totals, moment = pinned
    np.testing.assert_allclose(h.sum(axis=1), totals, rtol=0, atol=TOL)
    t = np.arange(h.shape[1])
    assert abs(t @ h[list(day.outcomes).index("defeat")] - moment) <= TOL
