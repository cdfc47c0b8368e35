"""Stamina points (seed 001): the vectorised rules against their scalar references
(A1-5 damage to PE first, R1-09 PE back), on every small case."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simkit.rules.rest import (
    PE_DAMAGE,
    recover_pe,
    recover_pe_ref,
    split_damage,
    split_damage_ref,
)


@pytest.mark.parametrize("order", PE_DAMAGE)
def test_split_damage_is_its_scalar_reference(order):
    cases = np.array(list(itertools.product(range(13), range(7), range(9))))  # damage, pe, hp
    got = np.stack(split_damage(cases[:, 0], cases[:, 1], cases[:, 2], order), axis=1)
    want = [split_damage_ref(int(d), int(e), int(h), order) for d, e, h in cases]
    assert (got == np.array(want)).all()
    pe, hp, excess = got.T
    taken = (cases[:, 1] - pe) + (cases[:, 2] - hp) + excess
    assert (taken == cases[:, 0]).all()  # every point of damage goes somewhere
    if order == "hp_only":
        assert (pe == cases[:, 1]).all()
    else:  # HP fall only once the PE are gone
        assert ((hp == cases[:, 2]) | (pe == 0)).all()


@pytest.mark.parametrize("method", ["pp", "night"])
def test_recover_pe_is_its_scalar_reference(method):
    cases = [(e, m, p) for m in range(5) for e in range(m + 1) for p in range(3)]
    pe, pe_max, pp = (np.array(x) for x in zip(*cases))
    got = np.stack(recover_pe(pe, pe_max, pp, method), axis=1)
    want = [recover_pe_ref(e, m, p, method) for e, m, p in cases]
    assert (got == np.array(want)).all()
    assert (
        got[:, 0] == np.where((pe < pe_max) & (pp >= 1) | (method == "night"), pe_max, pe)
    ).all()
