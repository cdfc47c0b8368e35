"""simkit.core.rows: the column-by-column row reductions equal numpy's."""

import numpy as np
import pytest

from simkit.core.rows import row_all, row_any, row_sum


@pytest.mark.parametrize("c", [1, 2, 5])
def test_row_reductions_equal_numpy(c):
    rng = np.random.default_rng(7)
    b = rng.random((50, c)) < 0.5
    i = rng.integers(-3, 9, size=(50, c), dtype=np.int32)
    assert np.array_equal(row_any(b), b.any(axis=1))
    assert np.array_equal(row_all(b), b.all(axis=1))
    assert np.array_equal(row_sum(b), b.sum(axis=1))
    assert np.array_equal(row_sum(i), i.sum(axis=1, dtype=np.int64))
    assert row_sum(i).dtype == np.int64
    before = b.copy()
    row_any(b)
    row_all(b)
    assert np.array_equal(b, before)  # the input is not written
