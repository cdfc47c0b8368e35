import numpy as np
import pytest

import simkit
from simkit import Dying, ParamError, simulate
from simkit.core.streams import STREAM_SIZE, BlockRng, resolve_seed, stream_generator


def test_workers_do_not_change_numbers():
    model = Dying(dc=22, save_bonus=8, hit_chance=0.2, crit_chance=0.05)
    n = 4 * STREAM_SIZE
    one = simulate(model, n, rng=5, block_size=STREAM_SIZE)
    two = simulate(model, n, rng=5, block_size=STREAM_SIZE, workers=2)
    assert (one.hist == two.hist).all()


def test_executor_argument_gives_same_numbers():
    from concurrent.futures import ThreadPoolExecutor

    model = Dying(dc=20, save_bonus=5)
    n = 3 * STREAM_SIZE
    with ThreadPoolExecutor(2) as ex:
        a = simulate(model, n, rng=9, block_size=STREAM_SIZE, executor=ex)
    b = simulate(model, n, rng=9)
    assert (a.hist == b.hist).all()


def test_generator_rng_is_recorded_as_replayable_seed():
    model = Dying()
    res = simulate(model, 10_000, rng=np.random.default_rng(3))
    again = simulate(model, 10_000, rng=res.seed)
    assert (res.hist == again.hist).all()
    assert resolve_seed(np.random.default_rng(3)) == res.seed


def test_different_seeds_differ():
    model = Dying()
    a = simulate(model, 50_000, rng=1)
    b = simulate(model, 50_000, rng=2)
    assert not (a.hist == b.hist).all()


def test_result_remembers_model_params_seed_n():
    model = Dying(dc=25)
    res = simulate(model, 1000, rng=4)
    assert res.model == model and res.n == 1000 and res.seed == 4
    assert res.params["dc"] == 25
    df = res.summary()
    assert list(df.columns) == ["outcome", "kind", "count", "n", "p", "ci_low", "ci_high", "exact"]
    assert df["count"].sum() == 1000
    assert (df["ci_low"] <= df["p"]).all() and (df["p"] <= df["ci_high"]).all()


def test_summary_level_widens_interval():
    res = simulate(Dying(), 5000, rng=1)
    narrow = res.summary(confidence=0.8)
    wide = res.summary(confidence=0.99)
    row = 1  # dead
    assert (
        wide["ci_low"][row] < narrow["ci_low"][row] < narrow["ci_high"][row] < wide["ci_high"][row]
    )


def test_horizon_leaves_unresolved():
    model = Dying(dc=15, save_bonus=5, max_rounds=1, death_at=10, start=5)
    res = simulate(model, 10_000, rng=1)
    exact = simkit.solve(model)
    assert res.counts["unresolved"] > 0
    assert exact["unresolved"] > 0.5


def test_survival_frame_is_monotone_and_complete():
    res = simulate(Dying(), 20_000, rng=3)
    s = res.survival()
    assert set(s["outcome"]) == {"stable", "dead", "revived", "active"}
    dead = s[s["outcome"] == "dead"]["p"].to_numpy()
    assert (np.diff(dead) >= 0).all()
    per_t = s.groupby("time")["p"].sum().to_numpy()
    assert np.allclose(per_t, 1.0)
    assert s.attrs["time_unit"] == "rounds"


@pytest.mark.parametrize("n", [0, -1, 1.5, "10", True])
def test_bad_n(n):
    with pytest.raises(ParamError, match="n must be an integer"):
        simulate(Dying(), n)


def test_bad_block_size_and_workers():
    with pytest.raises(ParamError, match="block_size"):
        simulate(Dying(), 10, block_size=0)
    with pytest.raises(ParamError, match="workers"):
        simulate(Dying(), 10, workers=0)


def test_bad_rng():
    with pytest.raises(TypeError, match="rng"):
        simulate(Dying(), 10, rng="seed")
    with pytest.raises(ValueError, match="rng"):
        simulate(Dying(), 10, rng=-3)


def test_block_rng_refuses_wrong_length_draws():
    brng = BlockRng([stream_generator(1, 0), stream_generator(1, 1)], [3, 4])
    assert brng.integers(0, 5, size=7).shape == (7,)
    assert brng.random(size=(7, 2)).shape == (7, 2)
    with pytest.raises(ValueError, match="one row per active track"):
        brng.integers(0, 5, size=6)


def test_block_rng_streams_are_per_stream():
    # the draw of stream 1 does not depend on stream 0 being present
    both = BlockRng([stream_generator(1, 0), stream_generator(1, 1)], [3, 4]).integers(
        0, 1000, size=7
    )
    alone = BlockRng([stream_generator(1, 1)], [4]).integers(0, 1000, size=4)
    assert (both[3:] == alone).all()


def test_large_n_memory_is_bounded():
    import tracemalloc

    model = Dying()
    tracemalloc.start()
    simulate(model, 4 * 2**18, rng=1, block_size=2**18)
    _, peak_small = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    simulate(model, 16 * 2**18, rng=1, block_size=2**18)
    _, peak_big = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak_big < 1.5 * peak_small + 2**20


def test_block_rng_below_is_uniform_and_per_stream():
    n = 400_000
    for width in (20, 400, 8000):
        x = BlockRng([stream_generator(3, 0)], [n]).below(width, size=n)
        assert x.min() == 0 and x.max() == width - 1
        counts = np.bincount(x, minlength=width)
        expected = n / width
        # chi-square statistic within 5 standard deviations of its mean (df = width - 1)
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert abs(chi2 - (width - 1)) < 5 * np.sqrt(2 * (width - 1))
    both = BlockRng([stream_generator(1, 0), stream_generator(1, 1)], [5, 6]).below(8000, size=11)
    alone = BlockRng([stream_generator(1, 1)], [6]).below(8000, size=6)
    assert (both[5:] == alone).all()
    with pytest.raises(ValueError, match="width"):
        BlockRng([stream_generator(1, 0)], [3]).below(0, size=3)


def test_executor_sees_a_bounded_number_of_blocks_in_flight():
    """Memory with an executor does not grow with n: few blocks are pending at once."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    class Counting(ThreadPoolExecutor):
        def __init__(self):
            super().__init__(2)
            self.pending = self.peak = 0
            self.lock = threading.Lock()

        def submit(self, fn, *args, **kwargs):
            with self.lock:
                self.pending += 1
                self.peak = max(self.peak, self.pending)
            fut = super().submit(fn, *args, **kwargs)
            fut.add_done_callback(lambda f: self._done())
            return fut

        def _done(self):
            with self.lock:
                self.pending -= 1

    model = Dying()
    n = 40 * STREAM_SIZE
    with Counting() as ex:
        res = simulate(model, n, rng=3, block_size=STREAM_SIZE, executor=ex)
    assert res.hist.sum() == n
    assert ex.peak <= 2 * max(1, __import__("os").cpu_count() or 1) + 1
    assert (res.hist == simulate(model, n, rng=3).hist).all()


def test_block_rng_below_takes_several_columns_per_track():
    """below(width, size=(m, k)): each stream draws its own rows, whatever the block."""
    counts = [5, 3]
    whole = BlockRng([stream_generator(9, j) for j in range(2)], counts).below(1280, size=(8, 2, 3))
    assert whole.shape == (8, 2, 3) and whole.dtype == np.uint16 and whole.max() < 1280
    alone = BlockRng([stream_generator(9, 1)], [3]).below(1280, size=(3, 2, 3))
    np.testing.assert_array_equal(whole[5:], alone)


def _marked_model(k: int, keep_field: bool):
    """A toy model: every track absorbs at step 1 (``k`` steps per call), outcome = its index % 2,
    absorbed at offset index % k; mark ``m`` = index % 3 (an array only with ``keep_field``)."""
    from dataclasses import dataclass
    from typing import ClassVar

    from simkit.core.model import Rules
    from simkit.core.params import param

    @dataclass(frozen=True, slots=True)
    class Toy(Rules):
        name: ClassVar[str] = "toy"
        outcomes: ClassVar[tuple[str, ...]] = ("a", "b")
        marks: ClassVar[tuple[str, ...]] = ("m", "z")
        max_rounds: int = param(10, kind="int", lo=1, hi=100, help="horizon")

        def init(self, n, rng):
            idx = np.arange(n)
            state = {"idx": idx, "z": np.zeros(n, np.int8)}
            if keep_field:
                state["m"] = (idx % 3).astype(np.int16)
            return state, np.full(n, -1, np.int8)

        def step(self, state, t, rng):
            idx = state["idx"]
            codes = (idx % 2 + 2 * (idx % k)).astype(np.int8)
            return (codes, k) if k > 1 else codes

    return Toy()


@pytest.mark.parametrize("k", [1, 3])
def test_marks_histogram_by_outcome_with_several_steps_per_call(k):
    n = 1200
    res = simulate(_marked_model(k, True), n, rng=0)
    idx = np.arange(n)
    for o in (0, 1):
        want = np.bincount(idx[idx % 2 == o] % 3, minlength=3)
        np.testing.assert_array_equal(res.marks["m"][o][:3], want)
        assert res.hist[o].sum() == (idx % 2 == o).sum()
    if k > 1:  # absorbed at steps 1..k by offset
        for off in range(k):
            assert res.hist[:, 1 + off].sum() == (idx % k == off).sum()


def test_a_mark_without_a_field_counts_zero():
    n = 600
    res = simulate(_marked_model(1, False), n, rng=0)
    assert res.marks["m"][:, 0].sum() == n and res.marks["m"].shape[1] == 1
