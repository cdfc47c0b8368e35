"""``lineup=bestiary`` (AP-19): real bundled creatures of the budget's levels, drawn per track."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simkit import simulate
from simkit.core.engine import DEFAULT_BLOCK
from simkit.core.params import ParamError
from simkit.core.streams import STREAM_SIZE, BlockRng, stream_generator
from simkit.models.party import Party
from simkit.rules.pf2e import bestiary, budget, foundry
from simkit.testing import run_cli


def _level_of(slug: str) -> int:
    return foundry.bundled(slug).level


def test_levels_covered_are_the_bundled_creatures_levels():
    levels = sorted({c.level for c in foundry.bestiary().values()})
    assert bestiary.levels_covered() == tuple(levels) == tuple(range(-1, 22))


@pytest.mark.parametrize("level", [1, 4, 5, 9, 14, 17])
@pytest.mark.parametrize("threat", ["low", "moderate", "severe"])
def test_draws_only_creatures_of_the_templates_levels(level, threat):
    rules = Party(level=level, threat=threat, lineup="bestiary")
    want = budget.lineup(bestiary.TEMPLATE, rules.budget_xp, level, rules.n_pcs).levels
    assert rules.fighters.lineup.levels == want
    fights = rules.lineup_rules
    assert len(fights) == rules.n_fights >= 1
    slugs = set()
    for fr in fights:
        names = fr.monsters.split(",")
        assert sorted(_level_of(s) for s in names) == sorted(want)
        assert tuple(m.level for m in fr.fighters.monsters) == tuple(_level_of(s) for s in names)
        slugs.update(names)
    # every bundled creature of those levels is among the draws
    assert slugs == {s for s, c in foundry.bestiary().items() if c.level in want}


def test_a_pack_of_real_creatures_has_the_multinomial_weights():
    combos = bestiary.combinations((2, 2, 2, 2))  # boar, crocodile
    assert [c.weight for c in combos] == [1, 4, 6, 4, 1]
    assert all(_level_of(s) == 2 for c in combos for s in c.slugs)


def test_the_draw_is_uniform_over_the_ordered_draws():
    n = 200_000
    keys = BlockRng([stream_generator(7, 0), stream_generator(7, 1)], [n // 2, n // 2])
    got = np.bincount(bestiary.draw(keys.track_keys(), (2, 2, 2, 2)), minlength=5)
    p = np.array([1, 4, 6, 4, 1]) / 16
    se = np.sqrt(n * p * (1 - p))
    assert np.all(np.abs(got - n * p) < 5 * se)


def test_a_tracks_lineup_depends_on_its_own_key_only():
    """The same stream drawn as one block, or with another stream beside it, or cut to its
    first tracks, gives each track the same lineup."""
    rules = Party(level=5, lineup="bestiary")
    g = [stream_generator(11, j) for j in range(3)]
    alone = bestiary.track_fights(rules, BlockRng([g[1]], [5000]))
    beside = bestiary.track_fights(rules, BlockRng(g, [300, 5000, 40]))
    short = bestiary.track_fights(rules, BlockRng([g[1]], [1000]))
    np.testing.assert_array_equal(alone, beside[300:5300])
    np.testing.assert_array_equal(alone[:1000], short)
    assert bestiary.track_fights(Party(level=5), BlockRng([g[1]], [10])) is None


def test_same_seed_same_numbers_whatever_the_block_size():
    rules = Party(level=2, lineup="bestiary")  # barghest or daeodon
    n = STREAM_SIZE + 321
    a = simulate(rules, n, rng=5, block_size=1)
    for kw in (dict(block_size=DEFAULT_BLOCK), dict(block_size=7, workers=2)):
        b = simulate(rules, n, rng=5, **kw)
        assert a.counts == b.counts, kw
        assert np.array_equal(a.hist, b.hist), kw
        for key in a.marks:
            assert np.array_equal(a.marks[key], b.marks[key]), (kw, key)
    # and the draw did mix both creatures in: not every track fought lineup 0
    one = simulate(Party(level=2, monsters=rules.lineup_rules[0].monsters), n, 5)
    assert one.counts != a.counts


def test_the_bestiary_is_the_mixture_of_its_creatures():
    """P(victory) and the mean rounds of the drawn lineup = the weights' mixture of each
    creature's own run (independent runs: 5 standard errors of the difference)."""
    n = 40_000
    rules = Party(level=5, lineup="bestiary")  # level 7: medusa, omen dragon
    mix = simulate(rules, n, rng=1)
    combos = bestiary.combinations(rules.fighters.lineup.levels)
    total = sum(c.weight for c in combos)
    p_mix = mix["victory"]
    p_parts, var_parts = 0.0, 0.0
    for k, c in enumerate(combos):
        one = simulate(Party(level=5, monsters=c.monsters), n, rng=100 + k)
        p = one["victory"]
        w = c.weight / total
        p_parts += w * p
        var_parts += w * w * p * (1 - p) / n
    var_mix = p_mix * (1 - p_mix) / n
    assert abs(p_mix - p_parts) < 5 * math.sqrt(var_mix + var_parts + 1e-12)


def test_outside_the_covered_levels_a_param_error_names_lineup_and_levels():
    with pytest.raises(ParamError) as err:
        Party(level=20, threat="severe", lineup="bestiary")  # a level-23 boss
    text = str(err.value)
    assert "lineup=bestiary" in text and "level 23" in text and "-1..21" in text


def test_describe_names_the_creatures_drawn():
    text = Party(level=5, lineup="bestiary").describe_lineup(notes=False)
    assert text.startswith("bestiary: 1 x level 7")
    assert "medusa (1 in 2)" in text and "omen-dragon-young (1 in 2)" in text


def test_explicit_monsters_win_over_the_bestiary_and_with_lineups_refuses_it():
    r = Party(level=5, lineup="bestiary", monsters="boar")
    assert r.n_fights == 1 and r.fighters.monsters[0].level == 2
    with pytest.raises(ParamError, match="lineup=bestiary draws its own lineups"):
        Party(level=5).with_lineups([{"threat": "low"}, {"lineup": "bestiary"}])


def test_cli_sets_the_bestiary_lineup():
    code, out, err = run_cli(
        "run", "party", "--set", "lineup=bestiary", "--set", "level=5", "-n", 2000
    )
    assert code == 0, err
    assert "medusa" in err and "bestiary" in err  # the lineup's line (stderr)


@pytest.mark.parametrize("kw", [dict(level=5), dict(level=3, threat="severe", rules="pf2e-core")])
def test_a_replayed_bestiary_track_is_the_runs_track(kw):
    """A replay (party_replay.replay) draws the track's creature from its key as the run did:
    its outcome and marks are those the run counted (300 tracks, both creatures met)."""
    from simkit.models.party_replay import replay

    rules = Party(**kw, lineup="bestiary", engine="loop")
    n = 300
    res = simulate(rules, n, 17, keep_outcomes=True)
    assert len(rules.lineup_rules) == 2  # two creatures of the level
    for t in range(n):
        frame = replay(rules, 17, t)
        assert frame.attrs["outcome"] == res.outcomes[res.track_outcomes[t]], t
        for m in rules.marks:
            assert frame.attrs[m] == res.track_marks[m][t], (t, m)
