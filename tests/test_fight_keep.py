"""A run that carries nothing on makes no end states (issue 28): the same numbers, less
written; the engine tells a model's init whether it will ask for ``carry``."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.core.engine import block_rng, run_tracks
from simkit.fight import block
from simkit.models import party_loop
from simkit.models.party import Party


def test_the_loop_without_end_states_gives_the_same_outcomes_and_marks():
    rules = Party(level=3, threat="severe")
    keys = np.random.default_rng(5).integers(1, 2**62, size=3000).astype(np.uint64)
    T = party_loop.packed(rules)
    out_kept, ends = block.run(T, keys, rules.horizon)
    out_plain, none = block.run(T, keys, rules.horizon, keep=False)
    assert none is None and ends.shape == (3000, rules.n_pcs, len(block.CARRIED))
    assert np.array_equal(out_kept, out_plain)
    assert block.bytes_per_track(4, keep=False) < block.bytes_per_track(4)


class _Spy(Party):
    """A party that records the ``keep`` its init is told."""

    told: list = []

    def init(self, n, rng, start=None, keep=True):
        _Spy.told.append(keep)
        return super().init(n, rng, start, keep)


@pytest.mark.parametrize("keep", [False, True])
def test_the_engine_tells_init_whether_it_will_carry(keep):
    _Spy.told = []
    rules = _Spy(level=2)
    tally = run_tracks(rules, 7, 0, 500, keep=keep)
    assert _Spy.told == [keep]
    assert bool(tally.final) == keep


def test_carry_without_end_states_says_why():
    rules = Party(level=2)
    state, _ = rules.init(50, block_rng(1, 0, 50)[0], keep=False)
    with pytest.raises(RuntimeError, match="keep=False"):
        rules.carry(state, np.arange(3))


def test_keep_state_still_hands_on_the_end_states():
    rules = Party(level=2)
    plain = simkit.simulate(rules, 2000, 3)
    kept = simkit.simulate(rules, 2000, 3, keep_state=True)
    assert np.array_equal(plain.hist, kept.hist)
    assert len(kept.final) == 2000
