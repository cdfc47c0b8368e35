"""Observations (``Result.observed``): a model's ``observe_counts`` against its ``observe``.

The engine records, after every step, the histogram of each observed field over the
active tracks: from the values (``observe``) or, when the model defines it, from the
histogram the model counts itself (``observe_counts``). Both must give the same numbers.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from simkit import simulate
from simkit.core.model import Rules
from simkit.core.params import param
from simkit.core.streams import STREAM_SIZE, BlockRng, stream_generator
from simkit.models.fatigue import Fatigue
from simkit.rules import fatigue_day as fd

CONFIGS = [
    dict(),
    dict(p_sleep=0.3, p_food=0.2, p_rescue=0.0, max_days=25),
    dict(p_sleep=0.3, p_food=0.3, recovery="each", recovered_when="cleared", start_sleep=2),
    dict(food_water="separate", p_water=0.6, p_food=0.3, p_sleep=0.4, start_water=2, p_rescue=0.02),
    dict(care="tended", p_care=0.3, p_sleep=0.2, p_food=0.2, rescue_day=9, max_days=12),
    dict(care="rescue", p_sleep=0.4, p_food=0.5, start_sleep=7, exhaust_at=8, death_days=2),
    dict(sleep_schedule="0001", food_schedule="00", p_sleep=0.6, p_food=0.5, max_days=8),
    dict(start_sleep=12),  # unconscious from day 0
    dict(care="rescue", start_sleep=12, max_days=6),  # one penalty value only (12)
    # many penalty values (counted by one bincount of the slots), and int32 codes
    dict(exhaust_at=30, p_sleep=0.1, p_food=0.1, p_rescue=0.01, max_days=40),
    dict(food_water="separate", exhaust_at=20, p_sleep=0.1, p_food=0.1, p_water=0.2, max_days=30),
]


def test_fatigue_kernel_codes_are_in_penalty_order_and_fit_their_dtype():
    for params in CONFIGS:
        chain = Fatigue(**params).chain()
        codes = [chain.kernel_code(i) for i in range(len(chain.states))]
        assert sorted(codes, reverse=True) == [-1 - fd.N_CELLS * r for r in range(len(codes))]
        assert all(chain.state_of(c) == s for c, s in zip(codes, chain.states))
        by_code = chain.penalty[[chain.index(chain.state_of(c)) for c in sorted(codes)[::-1]]]
        assert (np.diff(by_code) >= 0).all()  # penalties ascending as the codes fall
        small = fd.N_CELLS * len(chain.states) <= 2**15
        assert chain.kernel.dtype == (np.int16 if small else np.int32)
    assert Fatigue(**CONFIGS[-1]).chain().kernel.dtype == np.int32


@pytest.mark.parametrize("max_cuts", [None, 0, 1000])  # as set; always a bincount; never
@pytest.mark.parametrize("params", CONFIGS)
def test_fatigue_observe_counts_is_the_histogram_of_observe_at_every_day(
    params, max_cuts, monkeypatch
):
    if max_cuts is not None:
        monkeypatch.setattr(fd, "MAX_CUTS", max_cuts)
    m = Fatigue(**params)
    n = 3000
    rng = BlockRng([stream_generator(4, 0)], [n])
    state, codes = m.init(n, rng)
    t = 0
    while True:
        values = m.observe(state, t)["penalty"]
        counts = m.observe_counts(state, t)["penalty"]
        assert counts.dtype == np.int64 and counts.sum() == len(values)
        want = np.bincount(values, minlength=len(counts))
        np.testing.assert_array_equal(counts, want, err_msg=f"day {t}")
        # without the bound on what t days can reach: the same
        np.testing.assert_array_equal(m.chain().penalty_counts(state["code"]), want)
        if t == m.horizon:
            break
        t += 1
        codes = m.step(state, t, rng)
        kept = np.flatnonzero(codes < 0)
        if not len(kept):
            break
        rng.compact(kept)
        state = {"code": state["code"].take(kept)}


@dataclass(frozen=True, slots=True)
class _ValuesOnly(Fatigue):
    """Fatigue observed through its values (the engine's own bincount)."""

    observe_counts: ClassVar[None] = None


@pytest.mark.parametrize("params", [CONFIGS[i] for i in (0, 3, 4, 7, 8, 10)])
def test_engine_records_the_same_numbers_from_counts_as_from_values(params):
    n = 2 * STREAM_SIZE + 77
    by_counts = simulate(Fatigue(**params), n, rng=3, block_size=STREAM_SIZE)
    by_values = simulate(_ValuesOnly(**params), n, rng=3, block_size=STREAM_SIZE)
    assert by_counts.observed.keys() == by_values.observed.keys() == {"penalty"}
    a, b = by_counts.observed["penalty"], by_values.observed["penalty"]
    assert a.dtype == b.dtype == np.int64 and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(by_counts.hist, by_values.hist)


def _toy(counts_fn):
    """Every track stays active for 3 steps; value ``v`` = track index % 4 (counts_fn: the
    model's observe_counts, or None for the values only)."""

    @dataclass(frozen=True, slots=True)
    class Toy(Rules):
        name: ClassVar[str] = "toy_observed"
        outcomes: ClassVar[tuple[str, ...]] = ("done",)
        observes: ClassVar[bool] = True
        max_rounds: int = param(3, kind="int", lo=1, hi=10, help="horizon")

        def init(self, n, rng):
            return {"v": np.arange(n) % 4}, np.full(n, -1, np.int8)

        def step(self, state, t, rng):
            return np.full(len(state["v"]), -1, np.int8)

        def observe(self, state, t):
            return {"v": state["v"]}

    if counts_fn is not None:
        Toy.observe_counts = counts_fn  # type: ignore[attr-defined]
    return Toy()


def test_observe_counts_trailing_zeros_are_dropped():
    def padded(self, state, t):
        return {"v": np.append(np.bincount(state["v"]), [0, 0, 0])}

    a = simulate(_toy(padded), 1000, rng=0).observed["v"]
    b = simulate(_toy(None), 1000, rng=0).observed["v"]
    assert a.shape == b.shape == (4, 4)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a[1], [250, 250, 250, 250])


@pytest.mark.parametrize(
    "bad",
    [
        np.array([3, -1]),  # negative
        np.array([[1, 2]]),  # not 1-D
        np.array([1.0, 2.0]),  # not integers
    ],
)
def test_observe_counts_that_are_not_a_histogram_are_refused(bad):
    def wrong(self, state, t):
        return {"v": bad}

    with pytest.raises(ValueError, match="observe_counts"):
        simulate(_toy(wrong), 100, rng=0)
