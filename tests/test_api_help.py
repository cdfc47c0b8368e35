"""A Python API that helps (issue 22 item 6): near-name suggestions, model names wherever a
model is, short reprs and HTML tables of a model's parameters.

Exact checks only (no statistics): every test runs in well under a second.
"""

from __future__ import annotations

import html

import pytest

import simkit
from simkit.core.params import ParamError, parse_value, spec
from simkit.models import REGISTRY, Dying, make_model
from simkit.rules.pf2e import pcs

# -- the helper -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written, choices, meant",
    [
        ("leve", ("level", "level_diff", "monster_level"), "level"),
        ("rouge", tuple(pcs.ROLES), "rogue"),
        ("wizzard", tuple(pcs.ROLES), "wizard"),
        ("save_bonu", tuple(spec(Dying)), "save_bonus"),
        ("Save-Bonus", tuple(spec(Dying)), "save_bonus"),  # case and dash folded
    ],
)
def test_suggest_names_the_near_choice(written, choices, meant):
    from simkit.core.names import suggest

    assert suggest(written, choices) == f" (did you mean {meant!r}?)"


@pytest.mark.parametrize("written", ["zzzz", "rogue", "", None, 3])
def test_suggest_nothing_when_nothing_is_near(written):
    from simkit.core.names import suggest

    # far names, an exact match, and non-strings suggest nothing
    assert suggest(written, tuple(pcs.ROLES)) == ""


def test_unknown_lists_what_exists():
    from simkit.core.names import unknown

    msg = unknown("role", "rouge", pcs.ROLES)
    assert msg == ("unknown role 'rouge' (did you mean 'rogue'?); known: " + ", ".join(pcs.ROLES))
    assert unknown("x", "a", (), where="in nothing") == "unknown x 'a' in nothing; known: (none)"


# -- unknown parameters -----------------------------------------------------------------


def _one_line_listing(msg: str, names) -> None:
    assert "\n" not in msg
    assert msg.endswith("known: " + ", ".join(names))


@pytest.mark.parametrize(
    "build",
    [
        lambda: Dying(save_bonu=3),  # the dataclass __init__ (a bare TypeError before)
        lambda: Dying().replace(save_bonu=3),
        lambda: Dying.from_params(save_bonu=3),
        lambda: make_model("dying", save_bonu=3),
    ],
    ids=["constructor", "replace", "from_params", "make_model"],
)
def test_unknown_parameter_suggests_and_lists(build):
    with pytest.raises(ParamError) as err:
        build()
    msg = str(err.value)
    assert msg.startswith("unknown parameter 'save_bonu' for model 'dying'")
    assert "(did you mean 'save_bonus'?)" in msg
    _one_line_listing(msg, spec(Dying))


def test_constructor_refuses_a_class_attribute_as_a_keyword():
    # 'name' is a ClassVar, not a parameter: refused like any unknown name, listing them
    with pytest.raises(ParamError, match="unknown parameter 'name' for model 'dying'"):
        Dying(name="x")


def test_every_model_refuses_an_unknown_keyword_with_its_parameters():
    for cls in REGISTRY.values():
        with pytest.raises(ParamError) as err:
            cls(no_such_parameter=1)
        _one_line_listing(str(err.value), spec(cls))


# -- unknown choice values --------------------------------------------------------------


@pytest.mark.parametrize(
    "param, value, meant",
    [
        ("check", "flt", "flat"),  # a choice
        ("hero_policy", "at_deth", "at_death"),  # a policy (choices or an integer)
        ("on_damage", "Increment", "increment"),
    ],
)
def test_unknown_choice_suggests_the_near_one(param, value, meant):
    with pytest.raises(ParamError) as err:
        Dying(**{param: value})
    msg = str(err.value)
    assert msg.startswith(f"{param}={value!r} is not allowed: {param} must be one of ")
    assert msg.endswith(f" (did you mean {meant!r}?)")
    # the command line's parser says the same
    with pytest.raises(ParamError, match=rf"\(did you mean {meant!r}\?\)$"):
        parse_value(param, spec(Dying)[param], value)


def test_far_choice_suggests_nothing():
    with pytest.raises(ParamError) as err:
        Dying(check="zzzzzz")
    assert "did you mean" not in str(err.value)


# -- model names wherever a model is ----------------------------------------------------


def test_simulate_takes_a_model_name_or_class():
    by_rules = simkit.simulate(Dying(), 2_000, rng=7)
    for model in ("dying", Dying):
        res = simkit.simulate(model, 2_000, rng=7)
        assert res.counts == by_rules.counts
        assert res.model == Dying()


def test_solve_calibrate_sensitivity_take_a_name_or_class():
    dead = simkit.solve(Dying())["dead"]
    assert simkit.solve("dying")["dead"] == dead
    assert simkit.solve(Dying)["dead"] == dead
    # calibrate took names already; a class now too, with the same answer
    by_class = simkit.calibrate(Dying, "10%", "dc", lo=14, hi=20)
    assert by_class.value == simkit.calibrate("dying", "10%", "dc", lo=14, hi=20).value == 17
    a = simkit.sensitivity(Dying, params=["dc"])
    b = simkit.sensitivity("dying", params=["dc"])
    assert a.equals(b)


@pytest.mark.parametrize("bad", [42, None, object])
def test_simulate_refuses_what_is_not_a_model_in_one_line(bad):
    with pytest.raises(ParamError, match="^model must be a model's rules .* got "):
        simkit.simulate(bad, 10)


def test_top_level_attribute_suggests_the_near_name():
    with pytest.raises(AttributeError, match=r"'simulat' \(did you mean 'simulate'\?\)"):
        simkit.simulat  # noqa: B018


# -- reprs ------------------------------------------------------------------------------


def test_repr_is_short_and_names_only_the_changes():
    assert repr(Dying()) == "Dying()"
    m = Dying(save_bonus=3, check="flat", hit_damage="2d8+4")  # hit_damage is the default
    assert repr(m) == "Dying(save_bonus=3, check='flat')"
    assert eval(repr(m), {"Dying": Dying}) == m


def test_every_model_repr_is_its_class_at_the_defaults():
    for cls in REGISTRY.values():
        m = cls()
        assert repr(m) == f"{cls.__qualname__}()"
        first = next(iter(spec(cls)))
        # a changed parameter shows up (the default's value, changed to another allowed)
        changed = _another_value(spec(cls)[first])
        if changed is not None:
            assert repr(m.replace(**{first: changed})).startswith(f"{cls.__qualname__}({first}=")


def _another_value(meta):
    kind, d = meta["kind"], meta["default"]
    if kind == "bool":
        return not d
    if kind == "int" and isinstance(d, int):
        return d + 1 if meta["hi"] is None or d + 1 <= meta["hi"] else d - 1
    if kind == "choice":
        return next(c for c in meta["choices"] if c != d)
    return None


def test_repr_html_has_every_parameter_with_value_default_allowed_and_help():
    for cls in REGISTRY.values():
        page = cls()._repr_html_()
        for name, meta in spec(cls).items():
            assert f"<td>{html.escape(name)}</td>" in page, (cls.name, name)
            assert html.escape(meta["help"]) in page, (cls.name, name)
        for col in ("parameter", "value", "default", "allowed", "meaning"):
            assert f"<th>{col}</th>" in page


def test_repr_html_marks_the_changed_values():
    page = Dying(save_bonus=3)._repr_html_()
    assert "<td><b>save_bonus</b></td><td><b>3</b></td><td>11</td>" in page
    assert "<td>check</td><td>save</td><td>save</td><td>one of save, flat</td>" in page
    assert f"1 of {len(spec(Dying))} parameters changed" in page


# -- unknown names everywhere a name is looked up: the list, and the near one ----------------


@pytest.mark.parametrize(
    "call, meant",
    [
        (lambda: make_model("dyin"), "dying"),
        (lambda: make_model("party", party="wizzard,rogue"), "wizard"),
        (lambda: make_model("party", party="fighter,rouge"), "rogue"),
        (lambda: make_model("party", party="fighter(hpp=30)"), "hp"),
        (lambda: make_model("party", monsters="boarr,boar"), "boar"),
    ],
)
def test_unknown_model_role_key_or_creature_suggests_the_near_name(call, meant):
    with pytest.raises(ParamError, match=f"did you mean '{meant}'"):
        call()


def test_unknown_mark_event_or_exact_outcome_is_a_key_error_that_lists_them():
    res = simkit.simulate(make_model("encounter", healer_round=4), 200, rng=1)
    with pytest.raises(KeyError, match="unknown mark 'hpp'.*did you mean 'hp'.*known: "):
        res.marks_frame("hpp")
    with pytest.raises(KeyError, match="unknown event 'any_deat'.*known: "):
        simkit.simulate(make_model("party"), 200, rng=1).event_count("any_deat")
    with pytest.raises(KeyError, match="unknown outcome 'deadd'.*did you mean 'dead'.*stable"):
        simkit.solve(Dying())["deadd"]


def test_unknown_creature_on_the_command_line_suggests_the_near_one(capsys):
    from simkit.cli.main import main

    assert main(["creatures", "homunclus"]) == 2
    assert "did you mean 'homunculus'?" in capsys.readouterr().err


# -- progress ---------------------------------------------------------------------------------


def test_simulate_progress_bar_on_demand_silent_by_default_and_changes_no_number(
    capsys, monkeypatch
):
    import simkit.core.engine as engine

    monkeypatch.setattr(engine, "PROGRESS_DELAY", 0.0)
    quiet = simkit.simulate("dying", 200_000, rng=3, block_size=65_536)
    assert capsys.readouterr().err == ""  # outside a notebook: no bar unless asked
    shown = simkit.simulate("dying", 200_000, rng=3, block_size=65_536, progress=True)
    err = capsys.readouterr().err
    assert "simulate dying" in err and "track" in err
    assert shown.counts == quiet.counts
    simkit.simulate("dying", 1_000, rng=3, progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(ParamError, match="progress must be True, False or None"):
        simkit.simulate("dying", 10, progress="yes")


# -- confidence= (level= is the character's everywhere else) ---------------------------------


def test_confidence_names_the_interval_level_and_level_is_deprecated_there():
    res = simkit.simulate("dying", 20_000, rng=4)
    wide = res.summary(confidence=0.99).set_index("outcome")
    narrow = res.summary(confidence=0.8).set_index("outcome")
    assert (wide.ci_high - wide.ci_low).loc["dead"] > (narrow.ci_high - narrow.ci_low).loc["dead"]
    with pytest.warns(DeprecationWarning, match="call it confidence="):
        old = res.summary(level=0.99).set_index("outcome")
    assert old.equals(wide)  # the old name still means the same, for one release
    grid = {"dc": [20, 22]}
    new = simkit.sweep("dying", grid, 5_000, rng=1, confidence=0.9)
    with pytest.warns(DeprecationWarning, match="sweep: level= is the confidence level"):
        dep = simkit.sweep("dying", grid, 5_000, rng=1, level=0.9)
    assert new.equals(dep)
    call = res.survival
    call(confidence=0.9)
    with pytest.warns(DeprecationWarning):
        call(level=0.9)
    for tool in (  # since 0.4 level= is the character's level there, never a confidence
        lambda **kw: simkit.calibrate("dying", "10%", "dc", method="exact", **kw),
        lambda **kw: simkit.sensitivity("dying", params=["dc"], method="exact", **kw),
    ):
        tool(confidence=0.9)
        with pytest.raises(simkit.ParamError, match=r"level=0.9: level is the character's"):
            tool(level=0.9)
    with pytest.raises(ValueError, match=r"confidence must be a number in \(0, 1\), got 5"):
        res.summary(confidence=5)


def test_calibration_repr_is_one_short_line_and_its_html_a_table():
    cal = simkit.calibrate("dying", "10%", "dc", character_level=5)
    text = repr(cal)
    assert len(text) < 120 and "\n" not in text
    assert text.startswith("Calibration(dying: dc=18 gives dead=0.0911, target 0.1000, exact")
    page = cal._repr_html_()
    assert "<table" in page and html.escape(cal.message) in page
    for role in ("lower", "best", "upper"):
        assert f"<td>{role}</td>" in page
    far = simkit.calibrate("dying", "99.9%", "dc", lo=10, hi=20, character_level=5)
    assert repr(far).endswith(", not reachable)")


# -- starting HP and maximum HP cannot be confused ------------------------------------------


def test_hp_above_a_pcs_maximum_is_refused_naming_the_pc():
    with pytest.raises(ParamError, match=r"hp=100 is above the maximum HP of the wizard \(48 at"):
        make_model("party", level=5, hp=100)
    with pytest.raises(ParamError, match=r"maximum HP of the fighter \(40"):
        make_model("party", level=5, party="fighter(hp_max=40),wizard", hp=45)
    assert make_model("party", level=5, hp=30).hp == 30


def test_a_pcs_maximum_is_hp_max_and_its_old_name_warns():
    m = make_model("party", level=5, party="fighter(hp_max=80;ac=23)")
    assert m.party == "fighter(ac=23;hp_max=80)" and m.fighters.pcs[0].hp == 80
    with pytest.warns(FutureWarning, match=r"write hp_max="):
        old = make_model("party", level=5, party="fighter(hp=80;ac=23)")
    assert old == m  # the old name means what it meant, for one release
    with pytest.raises(ParamError, match="give hp_max only"):
        make_model("party", party="fighter(hp=80;hp_max=80)")
