"""The compiled row counts (simkit.core.row_counts) equal their numpy forms."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.core.row_counts import alive_counts, field_counts, fields_counts, rows_differ_into


def _numpy_counts(values, dead, active):
    """The numpy form the day used: the active rows, a dead PC's value 0, the histogram of
    the row sums, and each column's histogram trimmed after its last non-zero count."""
    v = values[active] * ~dead[active]
    sums = np.bincount(v.sum(axis=1).astype(np.intp))
    cols = []
    for k in range(v.shape[1]):
        h = np.bincount(v[:, k], minlength=1)
        top = np.flatnonzero(h)
        cols.append(h[: top[-1] + 1 if len(top) else 0])
    return sums, cols


def _rows(active):
    every = bool(active.all())
    return (np.zeros(0, dtype=np.intp) if every else np.flatnonzero(active)), every


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("top", [0, 1, 3, 70])
def test_field_counts_equal_numpy(seed, top):
    rng = np.random.default_rng(seed)
    n, P = int(rng.integers(0, 400)), int(rng.integers(1, 7))
    values = rng.integers(0, top + 1, size=(n, P)).astype(np.int32)
    dead = rng.random((n, P)) < 0.2
    active = rng.random(n) < (1.0 if seed % 2 else 0.6)
    rows, every = _rows(active)
    sums, cols = field_counts(values, dead, rows, every, True)
    want_sums, want_cols = _numpy_counts(values, dead, active)
    assert np.array_equal(sums, want_sums)
    for k in range(P):
        top_k = np.flatnonzero(cols[k])
        got = cols[k, : top_k[-1] + 1 if len(top_k) else 0]
        assert np.array_equal(got, want_cols[k])
    # without the columns: the same sums, no column counted
    sums2, cols2 = field_counts(values, dead, rows, every, False)
    assert np.array_equal(sums2, want_sums) and not cols2.any()


def test_no_active_track_counts_nothing():
    values = np.ones((5, 3), dtype=np.int32)
    active = np.zeros(5, dtype=bool)
    sums, cols = field_counts(values, np.zeros((5, 3), bool), np.flatnonzero(active), False, True)
    assert len(sums) == 0 and not cols.any()


def test_a_negative_value_is_refused():
    values = np.array([[1, -2]], dtype=np.int32)
    with pytest.raises(ValueError, match="non-negative"):
        field_counts(values, np.zeros((1, 2), bool), np.zeros(0, np.intp), True, True)
    # a dead PC's value is not read
    sums, _ = field_counts(values, np.array([[False, True]]), np.zeros(0, np.intp), True, True)
    assert sums.tolist() == [0, 1]


@pytest.mark.parametrize("seed", range(4))
def test_alive_counts_and_rows_differ(seed):
    rng = np.random.default_rng(seed)
    n, P = 300, 4
    dead = rng.random((n, P)) < 0.3
    active = rng.random(n) < 0.7
    rows, every = _rows(active)
    assert np.array_equal(alive_counts(dead, rows, every), (~dead[active]).sum(axis=0))
    a = rng.integers(0, 3, size=(n, P)).astype(np.int32)
    b = a.copy()
    b[rng.random((n, P)) < 0.1] += 1
    out = rng.random(n) < 0.1
    want = out | (a != b).any(axis=1)
    rows_differ_into(a, b, out)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("seed", range(4))
def test_several_fields_in_one_pass_equal_each_alone(seed):
    rng = np.random.default_rng(seed)
    n, P = int(rng.integers(1, 300)), int(rng.integers(1, 6))
    fields = tuple(
        rng.integers(0, top + 1, size=(n, P)).astype(np.int32) for top in (0, 2, 9, 60)
    )
    dead = rng.random((n, P)) < 0.3
    active = rng.random(n) < (1.0 if seed % 2 else 0.5)
    rows, every = _rows(active)
    sums, cols = fields_counts(fields, dead, rows, every, True)
    assert sums.shape[0] == cols.shape[0] == len(fields)
    for f, values in enumerate(fields):
        want_sums, want_cols = _numpy_counts(values, dead, active)
        top = np.flatnonzero(sums[f])
        assert np.array_equal(sums[f, : top[-1] + 1 if len(top) else 0], want_sums)
        for k in range(P):
            top_k = np.flatnonzero(cols[f, k])
            assert np.array_equal(cols[f, k, : top_k[-1] + 1 if len(top_k) else 0], want_cols[k])
