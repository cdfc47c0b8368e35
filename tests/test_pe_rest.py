"""A1-8: PE in a short rest (simkit.rules.rest.pe_after_short_rest), its vectorised form
against its scalar reference on every small case, and what each reading does."""

import itertools

import numpy as np
import pytest

from simkit import ParamError
from simkit.rules.rest import PE_REST, pe_after_short_rest, pe_after_short_rest_ref


@pytest.mark.parametrize("reading", PE_REST)
def test_phase_equals_reference_on_every_small_case(reading):
    cases = [
        (pe, pe_max, pp, keep)
        for pe_max, pp, keep in itertools.product(range(4), range(5), range(4))
        for pe in range(pe_max + 1)
    ]
    pe, pe_max, pp, keep = (np.array(c) for c in zip(*cases))
    got_pe, got_pp = pe_after_short_rest(pe, pe_max, pp, keep, reading)
    want = [pe_after_short_rest_ref(*c, reading=reading) for c in cases]
    assert got_pe.tolist() == [w[0] for w in want]
    assert got_pp.tolist() == [w[1] for w in want]


def test_each_reading():
    # PE 2 of 10, 3 PP, a stabilisation cost of 2: spare_pp and any_pp spend (3 - 1 >= 2)
    assert pe_after_short_rest(2, 10, 3, 2, "spare_pp") == (10, 2)
    assert pe_after_short_rest(2, 10, 3, 2, "any_pp") == (10, 2)
    assert pe_after_short_rest(2, 10, 3, 2, "never") == (2, 3)
    # 2 PP and a cost of 2: only any_pp spends (it would keep 1 PP, less than the cost)
    assert pe_after_short_rest(2, 10, 2, 2, "spare_pp") == (2, 2)
    assert pe_after_short_rest(2, 10, 2, 2, "any_pp") == (10, 1)
    # full PE, or no PP: nothing spent
    assert pe_after_short_rest(10, 10, 5, 0, "any_pp") == (10, 5)
    assert pe_after_short_rest(0, 10, 0, 0, "any_pp") == (0, 0)


def test_bad_input_names_the_argument():
    with pytest.raises(ParamError, match="reading"):
        pe_after_short_rest(1, 2, 3, 0, "sometimes")
    with pytest.raises(ParamError, match="keep"):
        pe_after_short_rest(1, 2, 3, -1)
    with pytest.raises(ParamError, match="pe="):
        pe_after_short_rest(3, 2, 3)
