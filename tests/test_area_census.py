"""The benchmark's area effect calibrated on the bundled bestiary (AP-20)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simkit.models.party import Party
from simkit.rules.pf2e import area_census as ac
from simkit.rules.pf2e import foundry

DOC = Path(__file__).resolve().parents[1] / "docs" / "threat.md"


def test_the_census_reproduces_the_counts_it_was_calibrated_on():
    assert ac.census() == ac.CALIBRATED
    assert sum(b.creatures for b in ac.CALIBRATED) == len(foundry.bestiary()) == 39
    played = [c for c in foundry.bestiary().values() if c.area is not None]
    assert sum(b.played for b in ac.CALIBRATED) == len(played) == 12
    assert sum(b.recharge for b in ac.CALIBRATED) == sum(c.area.uses == 10 for c in played)


def test_the_bands_cover_every_creature_level():
    assert [ac.band_of(lvl) for lvl in (-1, 4, 5, 10, 11, 16, 17, 24)] == [0, 0, 1, 1, 2, 2, 3, 3]
    with pytest.raises(ValueError):
        ac.band_of(25)


@pytest.mark.parametrize("level", [-1, 2, 7, 12, 20, 24])
def test_the_default_is_the_bands_share_times_a_1d4_recharge(level):
    band = ac.CALIBRATED[ac.band_of(level)]
    assert ac.default_chance(level) == pytest.approx(band.played / band.creatures * 2 / 7)
    assert ac.default_chance(level, own_area=True) == pytest.approx(2 / 7)
    r = Party(level=min(max(1, level), 20), monsters=str(level))
    assert r.area_chance_of == (pytest.approx(ac.default_chance(level)),)
    assert r.area_uses_of == (ac.AREA_USES,) == (10,)


def test_a_given_chance_and_a_creatures_own_win_over_the_default():
    assert Party(level=5, area_chance=0.2).area_chance_of == (0.2,)
    chimera = Party(level=6, monsters="chimera")  # its own 1d4 recharge
    assert chimera.area_chance_of == (pytest.approx(2 / 7),)
    arbiter = Party(level=1, monsters="arbiter")  # its own area, once, no recharge
    assert arbiter.area_uses_of == (1,) and arbiter.area_chance_of == (pytest.approx(2 / 7),)


def test_the_benchmarks_dice_and_dc_are_the_bundled_areas():
    rows = ac.area_vs_tables()
    assert len(rows) == 12
    offsets = [r["dc"] - r["table_dc"] for r in rows]
    assert offsets.count(0) == 10 and set(offsets) == {0, 1, 2}
    assert all(0.75 <= r["mean_ratio"] <= 1.5 for r in rows)


def test_the_docs_table_shows_the_counts():
    text = DOC.read_text(encoding="utf-8")
    for b in ac.CALIBRATED:
        head = f"{b.lo}..{min(b.hi, 21)}"
        row = next(line for line in text.splitlines() if line.startswith(f"| {head} "))
        cells = [c.strip() for c in row.strip("|").split("|")]
        counts = [int(c) for c in cells[1:7]]
        assert counts == [b.creatures, b.template, b.damaging, b.played, b.recharge, b.once]
        assert cells[7] == f"{round(100 * b.share)}%"
        assert float(cells[8]) == pytest.approx(ac.default_chance(b.lo), abs=5e-4)
    assert re.search(r"\| all \| 39 \| 18 \| 17 \| 12 \| 11 \| 1 \|", text)
