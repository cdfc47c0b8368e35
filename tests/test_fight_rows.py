"""A day's fight reads its starts from, and writes its ends into, the block's own fields
(``party_loop.fight_into``, compiled: ``simkit.fight.rows``): the same as taking the rows
into a FightStart, playing ``fight_ends`` and putting the rows back (issue 28)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.models import party_loop
from simkit.models.fight_state import FightStart
from simkit.models.party import Party

BACK = ("hp", "hero", "slots", "heals", "pp", "pe", "wounded", "dead")


def _block(rules, n, rng):
    """A day's fields (n, P) of ``rules``' party: worn down at random, some PCs dead, at
    0 HP, or with another maximum HP; a check penalty and the fight per track."""
    fresh = rules.fresh_start(n)
    S = {k: np.array(getattr(fresh, k)) for k in ("hp", "hp_max", "hero", "slots", "heals")}
    S |= {k: np.array(getattr(fresh, k)) for k in ("pp", "pe", "pe_max", "wounded")}
    P = rules.n_pcs
    S["hp_max"] = S["hp_max"] + rng.integers(0, 2, size=(n, P)).astype(np.int32)
    S["hp"] = rng.integers(0, S["hp_max"] + 1).astype(np.int32)
    S["hero"] = rng.integers(0, 3, size=(n, P)).astype(np.int32)
    S["wounded"] = rng.integers(0, 3, size=(n, P)).astype(np.int32)
    S["slots"] = rng.integers(0, S["slots"] + 1).astype(np.int32)
    S["dead"] = rng.random((n, P)) < 0.1
    S["fight"] = np.zeros(n, dtype=np.int32)
    pen = rng.integers(0, 3, size=n).astype(np.int32)
    return S, pen


@pytest.mark.parametrize("rules", [Party(level=4), Party(level=6, rules="seed001")])
@pytest.mark.parametrize("share", [1.0, 0.6])
def test_fight_into_equals_the_fight_on_taken_rows(rules, share):
    rng = np.random.default_rng(7)
    n = 3000
    S, pen = _block(rules, n, rng)
    rows = np.flatnonzero(rng.random(n) < share)
    every = len(rows) == n
    keys = rng.integers(1, 2**62, size=n).astype(np.uint64)[rows]
    start = FightStart.trusted(
        **{k: S[k][rows] for k in (*BACK, "hp_max", "pe_max", "fight")},
        check_penalty=pen[rows],
    )
    want = party_loop.fight_ends(rules, keys, start)
    got_S = {k: v.copy() for k, v in S.items()}
    got = party_loop.fight_into(rules, keys, got_S, None if every else rows, pen)
    for k in ("outcome", "deaths_in_fight", "deaths_after_defeat", "deaths_after_fight"):
        assert np.array_equal(got[k], want[k]), k
    for k in BACK:
        assert np.array_equal(got_S[k][rows], want[k]), k
    others = np.setdiff1d(np.arange(n), rows)  # (the tracks not fighting: untouched)
    for k in S:
        assert np.array_equal(got_S[k][others], S[k][others]), k
    assert np.array_equal(got_S["hp_max"], S["hp_max"])


def test_a_fresh_fight_into_equals_the_fresh_fight():
    rules = Party(level=5)
    rng = np.random.default_rng(3)
    n = 2000
    S, pen = _block(rules, n, rng)
    keys = rng.integers(1, 2**62, size=n).astype(np.uint64)
    want = party_loop.fight_ends(rules, keys, None)
    got = party_loop.fight_into(rules, keys, S, None, None, fresh=True)
    assert np.array_equal(got["outcome"], want["outcome"])
    for k in BACK:
        assert np.array_equal(S[k], want[k]), k
    with pytest.raises(ValueError, match="every track"):
        party_loop.fight_into(rules, keys[:5], S, np.arange(5), pen, fresh=True)


def test_buffers_kept_from_fight_to_fight_change_nothing():
    rules = Party(level=4, threat="severe")
    rng = np.random.default_rng(9)
    n = 2500
    S, pen = _block(rules, n, rng)
    keys = rng.integers(1, 2**62, size=n).astype(np.uint64)
    work: dict = {}
    S_work = {k: v.copy() for k, v in S.items()}
    for share in (0.5, 1.0, 0.3):  # (smaller, larger, smaller again: the buffers reused)
        rows = np.flatnonzero(rng.random(n) < share)
        every = len(rows) == n
        args = (keys[rows], None if every else rows, pen)
        want = party_loop.fight_into(rules, args[0], S, args[1], pen)
        got = party_loop.fight_into(rules, args[0], S_work, args[1], pen, work=work)
        assert np.array_equal(got["outcome"], want["outcome"])
        for k in S:
            assert np.array_equal(S_work[k], S[k]), k
    assert set(work) == {"starts", "ends"}
