"""Hostile input found by issue 19 (items 2 and 4) and issue 18 (``map=none``).

- One number grammar (issue 19, item 4): other scripts' digits (Arabic-Indic ``٨٠``,
  fullwidth ``８０``) and underscores (``8_0``) are refused wherever a number is written:
  ``--set``, a party's and a lineup's explicit numbers, ``monsters=``, Fortitude
  schedules, fall heights, ``days_without_*``, TOML strings, ``make_model``, the flags
  (``--seed``, ``-n``, ``--workers``, ``--confidence``, ``--max-points``, ``--range``,
  ``--levels``, ``--target``), grid ranges (``level=1_0..1_1``) and ``COLUMNS``.
- Damage is never negative (issue 19, item 2): damage, area, cantrip and heal dice whose
  smallest roll is below 0 are refused in one line naming the key, before any engine runs
  (Monte Carlo healed on a negative hit while the exact duel ignored it).
- ``map=none`` is the choice ``none``, not ``None`` (issue 18).

Every refusal is one line on stderr, exit status 2, nothing on stdout.
"""

from __future__ import annotations

import csv
from importlib import resources

import pytest

from simkit.core.numbers import ascii_int, ascii_number, is_ascii_int
from simkit.core.params import ParamError, parse_value, spec
from simkit.models import REGISTRY, make_model
from simkit.rules.dice import Dice, parse_amount, parse_dice
from simkit.rules.heights import parse_heights
from simkit.rules.penalties import parse_fatigue_value
from simkit.rules.pf2e import budget, creatures, levels, pcs
from simkit.testing import run_cli

#: A fast party run: the refusal comes before any computing.
RUN = ("run", "party", "-n", "10", "--seed", "1")


def _refused(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2, (code, err)
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("simkit: error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in err, (w, err)


# -- one number grammar ----------------------------------------------------------------

BAD_INTS = ["8_0", "1_000", "٨٠", "８０", "٧", "²", "8.0", "1e3", "", " ", "+", "--1", "0x10"]


@pytest.mark.parametrize("text", BAD_INTS)
def test_ascii_int_refuses(text):
    assert not is_ascii_int(text)
    with pytest.raises(ValueError):
        ascii_int(text)


@pytest.mark.parametrize("text, value", [("7", 7), (" -10 ", -10), ("+3", 3), ("007", 7)])
def test_ascii_int_reads(text, value):
    assert ascii_int(text) == value and is_ascii_int(text)


@pytest.mark.parametrize(
    "text", ["0_5", "٠.٥", "０.５", "inf", "nan", "-inf", "1e999", "0x10", "1.5.2", ".", "e3", ""]
)
def test_ascii_number_refuses(text):
    with pytest.raises(ValueError):
        ascii_number(text)


@pytest.mark.parametrize(
    "text, value", [("0.5", 0.5), (".5", 0.5), ("5.", 5.0), ("-1e-3", -0.001), (" 2 ", 2.0)]
)
def test_ascii_number_reads(text, value):
    assert ascii_number(text) == value


@pytest.mark.parametrize(
    "item, words",
    [
        ("hp=8_0", ["hp=", "integer"]),
        ("check_penalty=-1_0", ["check_penalty=", "integer"]),
        ("level=1_0", ["level=", "[1, 20]"]),
        ("area_chance=0_5", ["area_chance=", "number"]),
        ("days_without_sleep=٣", ["days_without_sleep=", "[0, 50]"]),
        ("days_without_sleep=1_0", ["days_without_sleep=", "[0, 50]"]),
        ("party=fighter(hp_max=٨٠)", ["party: fighter: hp_max must be an integer in [1, 10000]"]),
        ("party=fighter(hp_max=８０)", ["party: fighter: hp_max must be an integer in [1, 10000]"]),
        ("party=fighter(hp_max=8_0)", ["party: fighter: hp_max must be an integer in [1, 10000]"]),
        ("party=fighter(ac=2_3),rogue", ["party: fighter: ac must be an integer"]),
        ("monsters=٧", ["monsters must be creature levels in [-1, 24]"]),
        ("monsters=1_0", ["monsters must be creature levels in [-1, 24]"]),
        ("monsters=７,5", ["monsters must be creature levels in [-1, 24]"]),
        ("monsters=7(attack=１８)", ["monsters: level 7: attack must be an integer in [-10, 100]"]),
        ("monsters=7(hp=1_50)", ["monsters: level 7: hp must be an integer in [1, 100000]"]),
    ],
)
def test_set_numbers_are_ascii_digits(item, words):
    """Issue 19, item 4: each of these ran (as 80, 10, 7, 18...) before."""
    _refused(*run_cli(*RUN, "--set", item), *words)


def test_fall_height_is_ascii_digits():
    for text in ("٩", "9_0", "uniform:2-1_2", "6,٨"):
        with pytest.raises(ValueError):
            parse_heights(text)
    _refused(*run_cli("run", "fall", "-n", "10", "--seed", "1", "--set", "height=٩"), "height=")
    assert str(parse_heights("6,8.5")) == "6,8.5"


def test_fortitude_schedule_and_fatigue_are_ascii_digits():
    for text in ("expert@٩", "expert@1_0", "trained@1,expert@²"):
        with pytest.raises(ValueError, match="Fortitude schedule"):
            levels.parse_schedule(text)
    assert levels.parse_schedule("trained@1, expert@9") == ((1, "trained"), (9, "expert"))
    with pytest.raises(ParamError, match=r"days_without_food.*\[0, 50\]"):
        parse_fatigue_value("days_without_food", "٢")


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"party": "fighter(hp_max=٨٠)"}, "hp_max must be an integer"),
        ({"party": "rogue(perception=1_2)"}, "perception must be an integer"),
        ({"monsters": "٧"}, "creature levels"),
        ({"monsters": "7(attack=１８)"}, "attack must be an integer"),
        ({"area_chance": "٠.٥"}, "area_chance must be a number in [0, 1]"),
        ({"area_chance": "0_5"}, "area_chance='0_5'"),
        ({"area_chance": b"0.5"}, "area_chance must be a number"),
    ],
)
def test_make_model_numbers_are_ascii_digits(kwargs, words):
    with pytest.raises(ParamError) as info:
        make_model("party", **kwargs)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_lineup_members_refuse_other_digits():
    for text in ("٧", "1_0", "7,٥", "7(hp=١٥٠)"):
        with pytest.raises(ValueError):
            budget.lineup_members(text)
    assert budget.lineup_members(" 7 , -1") == ((7, {}), (-1, {}))


def _toml_sweep(tmp_path, set_lines: str):
    cfg = tmp_path / "party.toml"
    cfg.write_text(f'model = "party"\nn = 20\nseed = 1\n[set]\n{set_lines}', encoding="utf-8")
    return run_cli("sweep", "--config", cfg, "-o", tmp_path / "out.csv")


@pytest.mark.parametrize(
    "line, words",
    [
        ('party = "fighter(hp_max=٨٠)"\n', "hp_max must be an integer"),
        ('monsters = "1_0"\n', "creature levels"),
        ('hp = "8_0"\n', "hp="),
        ('monsters = "7(attack=１８)"\n', "attack must be an integer"),
    ],
)
def test_toml_numbers_are_ascii_digits(tmp_path, line, words):
    _refused(*_toml_sweep(tmp_path, line), words)
    assert not (tmp_path / "out.csv").exists()


# -- flags, grid ranges, targets (issue 19, item 4) -------------------------------------

SWEEP = ("sweep", "dying", "-n", "10", "--seed", "1")
CAL = ("calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "-n", "10", "--seed", "1")


@pytest.mark.parametrize(
    "argv, words",
    [
        (("run", "party", "-n", "10", "--seed", "1_0"), ["argument --seed:", "integer"]),
        (("run", "party", "-n", "10", "--seed", "٣"), ["argument --seed:", "integer"]),
        ((*RUN, "--workers", "0_1"), ["argument --workers:", "'0_1'"]),
        ((*RUN, "--workers", "٢"), ["argument --workers:"]),
        ((*RUN, "--confidence", "0_9"), ["argument --confidence:", "'0_9'"]),
        (("run", "party", "-n", "1_0", "--seed", "1"), ["argument -n:", "'1_0'"]),
        (("run", "party", "-n", "1_0e3", "--seed", "1"), ["argument -n:"]),
        (("run", "party", "-n", "10**1_0", "--seed", "1"), ["argument -n:"]),
        ((*SWEEP, "--grid", "dc=14,15", "--workers", "0_2"), ["argument --workers:"]),
        ((*SWEEP, "--grid", "dc=14,15", "--max-points", "1_0"), ["argument --max-points:"]),
        ((*CAL, "--character-level", "1_0"), ["argument --character-level:"]),
        ((*CAL, "--range", "1_0..2_0"), ["argument --range:", "LO..HI"]),
        ((*CAL, "--range", "١٠..20"), ["argument --range:", "LO..HI"]),
        (("ambiguities", "--levels", "1_0", "-n", "10"), ["argument --levels:"]),
        (("ambiguities", "--levels", "1..٥", "-n", "10"), ["argument --levels:"]),
        (
            ("calibrate", "dying", "--target", "dead=1_0%", "--vary", "dc", "-n", "10"),
            ["--target 'dead=1_0%'", "probability"],
        ),
        (
            ("calibrate", "dying", "--target", "dead=٣٠%", "--vary", "dc", "-n", "10"),
            ["--target 'dead=٣٠%'", "probability"],
        ),
        (
            (
                "calibrate", "party", "--target", "any_death=1_0%", "--vary", "hp",
                "-n", "10", "--seed", "1",
            ),
            ["--target 'any_death=1_0%'", "probability"],
        ),
        ((*CAL, "--set", "save_bonus=1_0"), ["save_bonus="]),
    ],
)  # fmt: skip
def test_flag_numbers_are_ascii_digits(argv, words):
    """Issue 19, item 4: ``--seed 1_0`` ran with seed 10, ``--workers 0_1`` with 1 worker,
    ``-n 1_0`` with 10 tracks, ``--confidence 0_9`` read 9.0, ``--target dead=1_0%`` 10%
    (``--seed ٣`` and ``--workers ٢`` were refused already)."""
    _refused(*run_cli(*argv), *words)


@pytest.mark.parametrize(
    "axis, words",
    [
        ("level=1_0..1_1", "grid level=1_0..1_1: a range"),
        ("dc=1_4..20:2", "grid dc=1_4..20:2: a range"),
        ("dc=14..2_0", "grid dc=14..2_0: a range"),
        ("dc=14..20:0_2", "grid dc=14..20:0_2: a range"),
        ("dc=١٤..20", "grid dc=١٤..20: a range"),
        ("dc=14..２０", "grid dc=14..２０: a range"),
        ("dc=١٤,15", "dc='١٤'"),
        ("dc=1_4,15", "dc='1_4'"),
        ("level=٣,4", "level="),
    ],
)
def test_grid_numbers_are_ascii_digits(tmp_path, axis, words):
    """``--grid level=1_0..1_1`` swept levels 10 and 11 before."""
    _refused(*run_cli(*SWEEP, "--grid", axis, "-o", tmp_path / "g.csv"), words)
    assert not (tmp_path / "g.csv").exists()


def test_toml_grid_range_is_ascii_digits(tmp_path):
    cfg = tmp_path / "dying.toml"
    cfg.write_text('model = "dying"\nn = 10\nseed = 1\n[grid]\ndc = "1_4..1_6"\n', "utf-8")
    _refused(*run_cli("sweep", "--config", cfg, "-o", tmp_path / "out.csv"), "grid dc=")
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("verb", ["run", "exact", "sweep"])
@pytest.mark.parametrize("value", ['"0_9"', '"0.9"', "1.5", "true"])
def test_toml_confidence_is_a_number(tmp_path, verb, value):
    """``confidence = "0_9"`` (or 1.5) in the TOML file of ``run --config`` was a
    ``ValueError`` traceback (the command line's check ran before the file was read)."""
    cfg = tmp_path / "dying.toml"
    grid = "[grid]\ndc = [14, 15]\n" if verb == "sweep" else ""
    cfg.write_text(f'model = "dying"\nn = 10\nseed = 1\nconfidence = {value}\n{grid}', "utf-8")
    out = ("-o", tmp_path / "out.csv")
    _refused(*run_cli(verb, "--config", cfg, *out), "--config", "confidence must be a number")
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("text", ["1_0", "1_0e3", "1e1_0", "10**1_0", "٣", "1e٣", "\u00a0100"])
def test_parse_count_refuses(text):
    import argparse

    from simkit.cli.main import parse_count

    with pytest.raises(argparse.ArgumentTypeError, match="-n must be a positive integer"):
        parse_count(text)


@pytest.mark.parametrize(
    "text, value", [("1e5", 10**5), ("2e6", 2 * 10**6), ("10**6", 10**6), (" 100 ", 100)]
)
def test_parse_count_reads(text, value):
    from simkit.cli.main import parse_count

    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["1_0%", "0_1", "٣٠%", "٠.١", "inf", "nan%"])
def test_parse_probability_refuses(text):
    from simkit.analysis.design import parse_probability

    with pytest.raises(ParamError, match="target must be a probability"):
        parse_probability(text)


@pytest.mark.parametrize("columns, width", [("²", None), ("٨٠", None), ("1_20", None), ("80", 80)])
def test_columns_is_ascii_digits(monkeypatch, columns, width):
    """``COLUMNS=²`` was a traceback (``'²'.isdigit()``, then ``int('²')``), ``٨٠`` 80."""
    from simkit.cli.text import term_width

    monkeypatch.setenv("COLUMNS", columns)
    assert term_width() == width


# -- damage is never negative ----------------------------------------------------------


def test_parse_amount_bound_is_zero():
    assert str(parse_amount("1d4-1")) == "1d4-1" and parse_amount("0").min == 0
    with pytest.raises(ValueError, match=r"dice must not roll below 0 \(minimum -99\)"):
        parse_amount("1d4-100")
    with pytest.raises(ValueError, match=r"minimum -1"):
        parse_amount(Dice(0, 1, -1))
    assert parse_dice("1d20-10").min == -9  # other sums of dice (custom tracks) may go below


@pytest.mark.parametrize(
    "argv, words",
    [
        (
            (*RUN, "--set", "party=fighter(damage=1d1-1)", "--set", "monsters=1(damage=2d6-7)"),
            ["damage=2d6-7 is not allowed: dice must not roll below 0 (minimum -5)"],
        ),
        (
            (*RUN, "--set", "party=fighter(damage=1d4-100)"),
            ["damage=1d4-100 is not allowed: dice must not roll below 0 (minimum -99)"],
        ),
        (
            (
                "exact", "party", "--set", "level=1", "--set", "party=fighter(damage=1d4-100)",
                "--set", "threat=extreme",
            ),
            ["damage=1d4-100 is not allowed: dice must not roll below 0 (minimum -99)"],
        ),
        (
            ("run", "encounter", "-n", "10", "--seed", "1", "--set", "damage=1d4-100"),
            ["damage='1d4-100' is not allowed: dice must not roll below 0 (minimum -99)"],
        ),
        (
            ("run", "dying", "-n", "10", "--seed", "1", "--set", "hit_damage=2d8-20"),
            ["hit_damage='2d8-20' is not allowed: dice must not roll below 0 (minimum -18)"],
        ),
    ],
)  # fmt: skip
def test_negative_damage_is_refused_on_the_command_line(argv, words):
    """Issue 19, item 2: the first ran (MC and the exact duel disagreeing), the third grew
    to 4.1 GB before."""
    _refused(*run_cli(*argv), *words)


def _dice_params():
    return [
        (name, key) for name, cls in REGISTRY.items()
        for key, meta in spec(cls).items() if meta["kind"] == "dice"
    ]  # fmt: skip


@pytest.mark.parametrize("model, key", _dice_params())
def test_every_dice_parameter_refuses_negative_rolls(model, key):
    with pytest.raises(ParamError, match=rf"^{key}='1d6-7' is not allowed: .*minimum -6\)$"):
        make_model(model, **{key: "1d6-7"})
    assert getattr(make_model(model, **{key: "2d6-1"}), key) == "2d6-1"


#: Every explicit dice number, with a role or a creature that may give it.
EXPLICIT_DICE = [
    ("party", f"{next((r for r, k in pcs.ROLE_ONLY.items() if key in k), 'fighter')}"
     f"({key}=2d4-3)", key)
    for key, field in pcs.PC_FIELDS.items() if field.kind == "dice"
] + [
    ("monsters", f"5({key}=2d4-3)", key)
    for key, field in creatures.MONSTER_FIELDS.items() if field.kind == "dice"
]  # fmt: skip


@pytest.mark.parametrize("param, text, key", EXPLICIT_DICE)
def test_every_explicit_dice_number_refuses_negative_rolls(param, text, key):
    with pytest.raises(ParamError, match=rf"{key}=2d4-3 is not allowed: .*minimum -1\)"):
        make_model("party", **{param: text})
    make_model("party", **{param: text.replace("2d4-3", "2d4-2")})  # minimum 0 is fine


def test_package_dice_never_roll_below_zero():
    """Every default and table dice of the package rolls at least 0: the bound refuses no
    built-in number (tables of creatures and PCs, the heal spell, model defaults)."""
    seen = 0
    for level in range(creatures.MONSTER_LEVELS[0], creatures.MONSTER_LEVELS[1] + 1):
        for bench in creatures.BENCHMARKS:
            assert parse_dice(creatures.monster_damage(level, bench)).min >= 0, (level, bench)
            seen += 1
        for use in creatures.AREA_USES:
            assert parse_dice(creatures.monster_area_damage(level, use)).min >= 0, (level, use)
            seen += 1
    for level in range(levels.PC_LEVEL_RANGE[0], levels.PC_LEVEL_RANGE[1] + 1):
        assert parse_dice(pcs.heal_dice(level)).min >= 0
        for role in pcs.ROLES:
            stats = pcs.role(role, level)
            for key in ("damage", "area", "cantrip", "heal"):
                if getattr(stats, key) is not None:
                    assert parse_dice(getattr(stats, key)).min >= 0, (role, level, key)
                    seen += 1
    for cls in REGISTRY.values():
        for key, meta in spec(cls).items():
            if meta["kind"] == "dice" and meta["default"] is not None:
                assert parse_dice(meta["default"]).min >= 0, (cls.name, key)
                seen += 1
    # 26 creature levels x 6 columns; 20 PC levels x (4 roles' damage, the wizard's area
    # and cantrip, the cleric's heal); one model default (dying's hit_damage)
    assert seen == 26 * 6 + 20 * (4 + 2 + 1) + 1
    # and every cell of the shipped tables that is a sum of dice (the two tables of dice)
    seen = 0
    data = resources.files("simkit.rules.pf2e").joinpath("data")
    for path in data.iterdir():
        if path.name.endswith(".csv"):
            for row in csv.reader(path.read_text(encoding="utf-8").splitlines()):
                for cell in row:
                    if "d" in cell and cell[:1].isdigit():
                        assert parse_dice(cell).min >= 0, (path.name, cell)
                        seen += 1
    assert seen == 26 * (len(creatures.BENCHMARKS) + len(creatures.AREA_USES))


# -- map=none (issue 18) ---------------------------------------------------------------


@pytest.mark.parametrize("model", ["party", "encounter"])
def test_map_none_is_the_choice_none(model):
    meta = spec(REGISTRY[model])["map"]
    assert parse_value("map", meta, "none") == "none"
    assert parse_value("map", meta, " none ") == "none"
    code, out, err = run_cli("run", model, "-n", "10", "--seed", "1", "--set", "map=none")
    assert code == 0, err
    assert make_model(model, map="none").map == "none"


def test_map_none_in_toml_and_grid(tmp_path):
    code, out, err = _toml_sweep(tmp_path, 'map = "none"\n')
    assert code == 0, err
    assert "map" in (tmp_path / "out.csv").read_text()
    code, out, err = run_cli(
        "sweep", "party", "--grid", "map=standard,none", "-n", "20", "--seed", "1",
        "-o", tmp_path / "g.csv",
    )  # fmt: skip
    assert code == 0, err


def test_none_still_means_none_where_it_is_no_choice():
    meta = spec(REGISTRY["party"])["hp"]
    assert meta["optional"] and parse_value("hp", meta, "none") is None
    with pytest.raises(ParamError, match="map='null'"):
        parse_value("map", spec(REGISTRY["party"])["map"], "null")


def test_plot_where_numbers_are_ascii_digits():
    """``plot --where level=1_0`` used to match level 10 (float("1_0") is 10)."""
    import pandas as pd

    from simkit.analysis.plots import _filter

    df = pd.DataFrame({"level": [1, 10], "p": [0.1, 0.2]})
    assert list(_filter(df, {"level": "10"})["p"]) == [0.2]
    assert list(_filter(df, {"level": "10.0"})["p"]) == [0.2]
    with pytest.raises(ValueError, match="no such rows"):
        _filter(df, {"level": "1_0"})


def test_run_takes_workers_from_its_config(tmp_path):
    """``workers =`` in a run's TOML was ignored (the command line's default won)."""
    from simkit.cli.main import apply_config, build_parser

    cfg = tmp_path / "w.toml"
    cfg.write_text('model = "dying"\nn = 1000\nseed = 1\nworkers = 2\n')
    parser = build_parser()
    for argv, want in (
        (["run", "--config", str(cfg)], 2),
        (["run", "--config", str(cfg), "--workers", "1"], 1),
        (["run", "dying"], 1),
    ):
        args = parser.parse_args(argv)
        apply_config(args)
        assert args.workers == want, argv
