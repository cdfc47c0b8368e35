"""``dying.KEY`` keys (issue 31 item 1): the fight's rule at 0 HP, read by name.

The rules set's own track takes the ``dying`` model's readings (``dying.check=flat``...: the
party's parameters of those names, none = the rules set's); a custom track takes its own
parameters (merged into its spec). The readings reach the loop and the reference alike, and
``compare party --ambiguities A0-4`` prices them.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_fight_loop_ref import assert_loop_is_reference

import simkit
from simkit.analysis.compare import variants
from simkit.core.params import ParamError
from simkit.models import as_rules, make_model
from simkit.models.day import Day
from simkit.models.dnd import DnD5e
from simkit.models.party import Party
from simkit.rules.dying_systems import PF2E_CORE, SEED000


def test_a_dying_key_sets_the_fights_reading():
    p = make_model("party", **{"dying.check": "flat", "dying.death_at": 5})
    assert (p.check, p.death_at) == ("flat", 5)
    assert p.dying_options == {**SEED000, "check": "flat"}
    assert Party().dying_options == SEED000  # none: the rules set's
    assert Party(rules="pf2e-core", check="save").dying_options == {**PF2E_CORE, "check": "save"}
    d = make_model("day", **{"dying.on_damage": "increment"})
    assert d.base_party.dying_options["on_damage"] == "increment"


def test_a_dying_key_sets_a_custom_tracks_parameter():
    assert make_model("party", dying="dnd5e", **{"dying.bonus": 2}).dying == "dnd5e(bonus=2)"
    base = Party(dying="dnd5e(dc=12)")
    assert as_rules(base, **{"dying.bonus": "2"}).dying == "dnd5e(bonus=2;dc=12)"
    assert as_rules(Party(dying=DnD5e()), **{"dying.bonus": 2}).dying == DnD5e(bonus=2)


@pytest.mark.parametrize(
    "values, words",
    [
        ({"dying.foo": 1}, r"dying.foo: not a reading .* allowed: dying.check, dying.on_damage"),
        ({"dying.check": "flatter"}, "dying.check"),
        ({"dying": "dnd5e", "dying.check": "flat"}, "dnd5e has no parameter 'check'"),
        ({"dying": "dnd5e", "check": "flat"}, "dnd5e is a custom track"),
        ({"rules": "seed001", "dying.check": "flat"}, "plays agonising"),
        ({"dying.check": "flat", "check": "save"}, "give one"),
    ],
)
def test_a_key_the_rule_does_not_have_is_refused_in_one_line(values, words):
    with pytest.raises(ParamError, match=words) as e:
        make_model("party", **values)
    assert "\n" not in str(e.value)


def test_a_model_without_a_rule_at_0_hp_refuses_dying_keys():
    with pytest.raises(ParamError, match="no rule at 0 HP"):
        make_model("dying", **{"dying.check": "flat"})


def test_the_rules_sets_options_one_by_one_are_the_rules_set():
    """seed000 with PF2e's four options given one by one is pf2e-core: the same dice."""
    a = simkit.simulate(Party(level=3, threat="severe", rules="pf2e-core"), 3000, 3,
                        keep_outcomes=True)  # fmt: skip
    b = simkit.simulate(Party(level=3, threat="severe", **PF2E_CORE), 3000, 3, keep_outcomes=True)
    assert np.array_equal(a.track_outcomes, b.track_outcomes)
    assert np.array_equal(a.track_marks["deaths"], b.track_marks["deaths"])


CASES = [
    dict(level=5, threat="severe", check="flat"),
    dict(level=3, threat="extreme", on_damage="increment", target_downed="always", death_at=5),
    dict(level=4, threat="severe", rules="pf2e-core", wounded_rule=False, hero_effect="revive"),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_the_readings_reach_the_loop_and_the_reference_alike(i):
    assert_loop_is_reference(Party(**CASES[i]), 150, i, CASES[i])


def test_compare_party_prices_the_dying_tracks_ambiguities():
    vs = variants(Party(rules="pf2e-core", target_downed="always"), [], ["A0-4", "A0-2", "A0-6"])
    assert vs["A0-4 check=save"].dying_options["check"] == "save"
    assert vs["A0-2 wounded_rule=false"].dying_options["wounded_rule"] is False
    assert "A0-6 wounded_adds=every_hit" in vs
    with pytest.raises(ParamError, match="dying=dnd5e at 0 HP"):
        variants(Party(dying="dnd5e"), [], ["A0-4"])
    with pytest.raises(ParamError, match="strike a PC at 0 HP .* target_downed=never"):
        variants(Party(), [], ["A0-1"])  # no enemy hits the downed: A0-1 cannot differ
    assert "A0-1 on_damage=increment" in variants(Party(target_downed="always"), [], ["A0-1"])


def test_the_command_line_takes_dying_keys(capsys):
    from simkit.cli.main import main

    args = ["-n", "1500", "--seed", "1", "--format", "csv"]
    assert main(["run", "party", "--set", "dying.check=flat", *args]) == 0
    flat = capsys.readouterr().out
    assert main(["run", "party", "--set", "check=flat", *args]) == 0
    assert capsys.readouterr().out == flat
    assert main(["run", "party", "--set", "dying=dnd5e", "--set", "dying.bonus=2", *args]) == 0
    a = capsys.readouterr().out
    assert main(["run", "party", "--set", "dying=dnd5e(bonus=2)", *args]) == 0
    assert capsys.readouterr().out == a
    assert main(["run", "day", "--set", "dying.death_at=5", "-n", "300", "--seed", "1"]) == 0
    assert main(["run", "party", "--set", "dying.nope=1", *args]) != 0
    assert "allowed: dying.check" in capsys.readouterr().err


def test_compare_party_ambiguities_a0_4_on_the_command_line(capsys):
    from simkit.cli.main import main

    args = ["compare", "party", "--variants", "seed000", "--ambiguities", "A0-4"]
    assert main([*args, "-n", "1500", "--seed", "2", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "A0-4 check=flat" in out and "any_death" in out


def test_the_day_takes_the_partys_readings():
    assert Day(check="flat").base_party.dying_options["check"] == "flat"


@pytest.mark.parametrize("i", range(len(CASES)))
def test_the_readings_replay_on_the_reference_track_by_track(i):
    from test_party import loop_vs_ref

    loop_vs_ref(Party(**CASES[i]), 60, 20 + i)


def test_a_sweep_takes_dying_keys_fixed_and_on_its_grid():
    g = simkit.sweep("party", {"dying.check": ["save", "flat"]}, n=200, rng=1,
                     fixed={"level": 1})  # fmt: skip
    assert set(g["dying.check"]) == {"save", "flat"}
    a = simkit.sweep("party", {"level": [1]}, n=200, rng=1,
                     fixed={"dying": "dnd5e", "dying.bonus": 3})  # fmt: skip
    b = simkit.sweep("party", {"level": [1]}, n=200, rng=1, fixed={"dying": "dnd5e(bonus=3)"})
    assert np.array_equal(a["p"].to_numpy(), b["p"].to_numpy(), equal_nan=True)


def test_a_config_file_takes_dying_keys_as_a_toml_table(tmp_path, capsys):
    from simkit.cli.main import main

    cfg = tmp_path / "c.toml"
    cfg.write_text('model = "party"\nn = 300\nseed = 1\n[set]\ndying.check = "flat"\n')
    assert main(["run", "--config", str(cfg), "--format", "csv"]) == 0
    a = capsys.readouterr().out
    assert main(["run", "party", "--set", "check=flat", "-n", "300", "--seed", "1",
                 "--format", "csv"]) == 0  # fmt: skip
    assert capsys.readouterr().out == a
