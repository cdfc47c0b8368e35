"""Fuzz: hundreds of generated bad inputs, each one line and exit 2 (or a clear exception).

From a fixed seed: bad command lines (run in-process), bad sweep TOML files and bad API
calls. Each invocation holds at least one element that is certainly wrong (an unknown
key, a value outside its declared range, a malformed number...), so every one must be
refused: exit status 2, exactly one line on stderr, nothing on stdout, no traceback,
and no file created. API calls must raise ``ParamError`` or ``TypeError`` with a short
one-line message.
"""

from __future__ import annotations

import math
import random
import signal
from pathlib import Path

import numpy as np
import pytest

import simkit
from simkit.core.params import ParamError, spec
from simkit.models import REGISTRY
from simkit.testing import run_cli

SEED = 20261130
N_CLI = 400
N_TOML = 80
N_API = 150
MAX_LINE = 500

#: Values wrong for any integer parameter.
BAD_INT_TEXT = [
    "",
    " ",
    "１４",
    "٣",
    "1e999",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "1.5",
    "9" * 5000,
    "abc",
    "1e5",
    "2147483648",
    "-9223372036854775809",
    "1_0_",
    "--1",
    "1,2",
    "none!",
    "\x00",
    "10**3",
    "½",
]
BAD_N = [
    "0",
    "-1",
    "0**-1",
    "1e20",
    "abc",
    "１０",
    "1.5",
    "",
    "10**100",
    "2**-1",
    "-0",
    "1e-3",
    "nan",
    "inf",
    "1" * 500,
    "0**0**0",
    "(1)",
    "1e13*10",
]
BAD_SEED = ["-1", "x", "１", "1.5", "", "1e3", "nan"]
BAD_WORKERS = ["0", "2000", "x", "-3", "1.5", "", "１", "٢"]
BAD_DICE = [
    "",
    "d",
    "1d",
    "d6",
    "0d6",
    "101d6",
    "1d0",
    "1d1001",
    "11d1000",
    "1d6+1000001",
    "1d6+1e20",
    "2147483648",
    "１d6",
    "1d6+",
    "1d6++1",
    "1d6 2",
    "1d6*2",
    "-1d6",
    "1d6+" + "9" * 4000,
    "nan",
]
BAD_GRID = [
    "dc=",
    "dc=1..",
    "dc=5..1",
    "dc=1..10:0",
    "dc=1..1000000000",
    "nokey=1",
    "dc=1,,2",
    "dc=1,1",
    "dc",
    "dc=1..10:-1",
    "dc=a..b",
    "dc=１..5",
    "=1",
    "dc=0",
    "dc=101",
    "dc=1,2,x",
]
BAD_SCHEDULER = [
    "foo:bar:baz",
    "a b",
    "x:99999",
    "tcp://",
    "::1:8786",
    "http://x:1",
    "",
    "é:1",
    "x" * 400,
]
BAD_FORMAT = ["xml", "", "CSV", "json5"]
JUNK_NAMES = ["", "nosuch", "DYING", "dying ", "../dying", "dy\x00ing", "ё", "x" * 300]



def _sigint_as_from_a_terminal() -> None:
    """In the child, before exec: Ctrl-C's default disposition, as a command typed at a
    terminal has it (a runner started in the background, ``cmd &``, leaves SIGINT ignored in
    its children, and Python then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

def _int_params(cls):
    return [(k, m) for k, m in spec(cls).items() if m["kind"] == "int"]


def _dice_params(cls):
    return [k for k, m in spec(cls).items() if m["kind"] == "dice"]


def _out_of_range(rnd, meta) -> list[str]:
    vals = []
    if meta["lo"] is not None:
        vals += [str(int(meta["lo"]) - 1), str(int(meta["lo"]) - 10 ** rnd.randint(1, 30))]
    if meta["hi"] is not None:
        vals += [str(int(meta["hi"]) + 1), str(int(meta["hi"]) + 10 ** rnd.randint(1, 30))]
    return vals


def _bad_invocation(rnd: random.Random, out: Path) -> list[str]:
    """One command line with at least one certainly bad element."""
    verb = rnd.choice(["run", "exact", "sweep", "run", "exact", "sweep", "models"])
    exact_models = [n for n, c in REGISTRY.items() if getattr(c, "has_exact", False) is True]
    model = rnd.choice(exact_models if verb in ("exact", "sweep") else list(REGISTRY))
    cls = REGISTRY[model]
    if verb == "models":
        return ["models", rnd.choice(JUNK_NAMES[1:])] + (
            ["-o", str(out)] if rnd.random() < 0.5 else []
        )
    args = [verb, model]
    if verb == "run":
        args += ["-n", "1000", "--seed", "1"]
    if verb == "sweep":
        args += ["--exact-only"]
    if rnd.random() < 0.5:
        args += ["-o", str(out)]
    kinds = ["value", "range", "unknown", "malformed", "model", "repeat", "format", "output"]
    kinds += {"run": ["n", "seed", "workers"], "sweep": ["grid", "scheduler", "n"], "exact": []}[
        verb
    ]
    if _dice_params(cls):
        kinds.append("dice")
    kind = rnd.choice(kinds)
    ints = _int_params(cls)
    if kind == "value" and ints:
        key, _ = rnd.choice(ints)
        args += ["--set", f"{key}={rnd.choice(BAD_INT_TEXT)}"]
    elif kind == "range" and ints:
        key, meta = rnd.choice(ints)
        args += ["--set", f"{key}={rnd.choice(_out_of_range(rnd, meta) or ['x'])}"]
    elif kind == "dice":
        args += ["--set", f"{rnd.choice(_dice_params(cls))}={rnd.choice(BAD_DICE)}"]
    elif kind == "unknown":
        args += ["--set", f"{rnd.choice(['nosuch', 'DC', 'dc ', 'x' * 200, 'é'])}=1"]
    elif kind == "malformed":
        args += [
            rnd.choice(["--set", "--set", "--nosuch", "-z"]),
            rnd.choice(["dc", "noequals", "", "=="]),
        ]
    elif kind == "model":
        args[1] = rnd.choice(JUNK_NAMES)
    elif kind == "repeat" and ints:
        key, meta = rnd.choice(ints)
        v = int(meta["default"]) if isinstance(meta["default"], int) else int(meta["lo"] or 1)
        args += ["--set", f"{key}={v}", "--set", f"{key}={v}"]
    elif kind == "format":
        args += ["--format", rnd.choice(BAD_FORMAT)]
    elif kind == "output":
        if "-o" in args:
            del args[args.index("-o") : args.index("-o") + 2]
        args += ["-o", str(out.parent) + "/" + rnd.choice(["nodir/x.csv", "nodir/", "", "x/"])]
    elif kind == "n":
        args += ["-n", rnd.choice(BAD_N)]
    elif kind == "seed":
        args += ["--seed", rnd.choice(BAD_SEED)]
    elif kind == "workers":
        args += ["--workers", rnd.choice(BAD_WORKERS)]
    elif kind == "grid":
        args += ["--grid", rnd.choice(BAD_GRID)]
    elif kind == "scheduler":
        args += ["--executor", "dask", "--scheduler", rnd.choice(BAD_SCHEDULER)]
    else:  # a model without integer parameters: an unknown key
        args += ["--set", "nosuch=1"]
    if verb == "sweep" and "--grid" not in args:
        args += ["--grid", "dc=14,16"] if "dc" in spec(cls) and kind != "repeat" else []
    if rnd.random() < 0.3:  # shuffle the options after the verb and model (argparse allows it)
        head, rest = args[:2], args[2:]
        pairs = (
            [rest[i : i + 2] for i in range(0, len(rest) - 1, 2)]
            if all(a.startswith("-") for a in rest[0::2]) and len(rest) % 2 == 0
            else [rest]
        )
        rnd.shuffle(pairs)
        args = head + [a for p in pairs for a in p]
    return args


def _assert_one_line(code, out, err, what):
    assert code == 2, (what, code, err[-300:])
    assert out == "", (what, out[:200])
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), (what, err[:500])
    assert lines[0].startswith("simkit: error: "), (what, lines[0][:200])
    assert "Traceback" not in err and len(lines[0]) <= MAX_LINE, (
        what,
        len(lines[0]),
        lines[0][:200],
    )


def test_fuzz_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rnd = random.Random(SEED)
    out = tmp_path / "out.csv"
    seen = set()
    for i in range(N_CLI):
        argv = _bad_invocation(rnd, out)
        seen.add(argv[0])
        code, stdout, err = run_cli(*argv)
        _assert_one_line(code, stdout, err, (i, argv if len(str(argv)) < 400 else str(argv)[:400]))
        assert list(tmp_path.iterdir()) == [], (i, argv[:8], list(tmp_path.iterdir()))
    assert seen == {"run", "exact", "sweep", "models"}


# -- TOML -----------------------------------------------------------------------------------


def _bad_toml(rnd: random.Random) -> bytes:
    good = 'model = "dying"\nn = 1000\nseed = 1\nexact_only = true\n[grid]\ndc = [14, 16]\n'
    choice = rnd.randrange(22)
    if choice == 0:
        return good.encode() + bytes([0xFF, 0xFE, 0x80]) + b"\n"  # not UTF-8
    if choice == 1:
        d = rnd.randint(50, 5000)
        return (good + "[set]\nx = " + "[" * d + "]" * d + "\n").encode()
    if choice == 2:
        d = rnd.randint(50, 3000)
        return (good + "[set]\nx = " + "{a=" * d + "1" + "}" * d + "\n").encode()
    if choice == 3:
        return good.replace("dc = [14, 16]", "dc = [[14], [16]]").encode()
    if choice == 4:
        return good.replace("dc = [14, 16]", "dc = {lo = 14}").encode()
    if choice == 5:
        return (
            (good + rnd.choice(["nosuch = 1\n", "[nosuch]\na = 1\n"]))
            .replace("[grid]\ndc = [14, 16]\n", "")
            .encode()
        )
    if choice == 6:
        v = rnd.choice(['"x"', "-1", "0", "1.5", "true", "1e99", "[1]"])
        return good.replace("n = 1000", f"n = {v}").encode()
    if choice == 7:
        v = rnd.choice(["-1", "1.5", '"s"', "false"])
        return good.replace("seed = 1", f"seed = {v}").encode()
    if choice == 8:
        return good.replace(
            'model = "dying"', rnd.choice(["model = 1", 'model = "nosuch"', "", "model = [1]"])
        ).encode()
    if choice == 9:
        return (
            good + f'scheduler = "{rnd.choice(BAD_SCHEDULER[:4])}"\nexecutor = "dask"\n'
        ).replace("[grid]\ndc = [14, 16]\n", "").encode() + b"[grid]\ndc = [14, 16]\n"
    if choice == 10:
        v = rnd.choice(["[0]", "[101]", '"1..1000000000"', "[]", '"x"', '"5..1"', "[14, 14]"])
        return good.replace("dc = [14, 16]", f"dc = {v}").encode()
    if choice == 11:
        v = rnd.choice(["1", '"yes"', "[]"])
        return good.replace("exact_only = true", f"exact_only = {v}").encode()
    if choice == 12:
        v = rnd.choice(["[14, 16]", '"x"', "0", "1e9", '"１４"'])
        return (good + "[set]\n" + f"dc = {v}\n").replace("[grid]\ndc = [14, 16]\n", "").encode()
    if choice == 13:
        return b'model = "dying"\n' + b"# " + b"x" * 1_100_000 + b"\n"  # too big
    if choice == 14:
        return bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 200)))  # binary junk
    if choice == 15:
        return good.replace(
            "[grid]", rnd.choice(["[grid", "grid]", "[[grid]]", "[grid]]"])
        ).encode()
    if choice == 16:
        return (good + "workers = " + rnd.choice(["0", "-1", '"2"', "1.5"]) + "\n").replace(
            "[grid]\ndc = [14, 16]\n", ""
        ).encode() + b"[grid]\ndc = [14, 16]\n"
    if choice == 17:
        return good.replace("[grid]\ndc = [14, 16]\n", "grid = 5\n").encode()
    if choice == 18:
        return b""
    if choice == 19:
        return ("\ufeff" + good).encode("utf-16")
    if choice == 20:
        return good.replace('model = "dying"', 'model = "dying"\nmodel = "dying"').encode()
    return good.replace("[grid]\ndc = [14, 16]\n", "[grid]\nnosuch = [1, 2]\n").encode()


def test_fuzz_toml_configs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rnd = random.Random(SEED + 1)
    cfg = tmp_path / "c.toml"
    for i in range(N_TOML):
        data = _bad_toml(rnd)
        cfg.write_bytes(data)
        code, out, err = run_cli("sweep", "--config", cfg, "-o", tmp_path / "out.csv")
        _assert_one_line(code, out, err, (i, data[:120]))
        assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"], (i, data[:120])


# -- API ------------------------------------------------------------------------------------


BAD_NUMBERS = [
    0,
    -1,
    1.5,
    "10",
    None,
    True,
    10**20,
    math.nan,
    math.inf,
    -math.inf,
    [1],
    np.float64("nan"),
    "１",
    b"1",
    complex(1, 1),
    object(),
]


def _api_calls(rnd: random.Random):
    dying = simkit.Dying()
    calls = []
    for _ in range(N_API):
        k = rnd.randrange(12)
        v = rnd.choice(BAD_NUMBERS)
        if k == 0:
            calls.append(("simulate n", lambda v=v: simkit.simulate(dying, v, rng=1)))
        elif k == 1:
            calls.append(
                ("simulate workers", lambda v=v: simkit.simulate(dying, 100, rng=1, workers=v))
            )
        elif k == 2:
            b = v if v != 10**20 else 0  # any positive integer is a block size
            calls.append(
                (
                    "simulate block_size",
                    lambda b=b: simkit.simulate(dying, 100, rng=1, block_size=b),
                )
            )
        elif k == 3:
            name = rnd.choice(list(REGISTRY))
            ints = _int_params(REGISTRY[name])
            if ints:
                key, meta = rnd.choice(ints)
                bad = rnd.choice(
                    _out_of_range(rnd, meta) + ["x", 1.5, math.nan, "１", [1]] or [None]
                )
                if isinstance(bad, str) and bad.isascii() and bad.lstrip("-").isdigit():
                    bad = int(bad)
                calls.append(
                    (
                        f"make_model {name} {key}",
                        lambda n=name, k=key, b=bad: simkit.make_model(n, **{k: b}),
                    )
                )
            else:
                calls.append(
                    ("make_model nosuch key", lambda n=name: simkit.make_model(n, nosuch=1))
                )
        elif k == 4:
            calls.append(("make_model name", lambda: simkit.make_model(rnd.choice(JUNK_NAMES))))
        elif k == 5:
            calls.append(
                (
                    "make_model preset",
                    lambda: simkit.make_model("dying", rnd.choice(["nosuch", "x" * 99, "Seed"])),
                )
            )
        elif k == 6:
            g = rnd.choice(
                [
                    {"dc": "1..1000000000"},
                    {"nosuch": [1]},
                    {"dc": []},
                    {"dc": [0]},
                    {"dc": [14, 14]},
                    {"dc": "5..1"},
                    5,
                    "x.toml",
                    {"dc": [[1]]},
                    {"dc": [math.nan]},
                ]
            )
            calls.append(
                (
                    f"sweep grid {str(g)[:40]}",
                    lambda g=g: simkit.sweep("dying", g, 100, 1, exact_only=True),
                )
            )
        elif k == 7:
            calls.append(("sweep n", lambda v=v: simkit.sweep("dying", {"dc": [14]}, v, 1)))
        elif k == 8:
            e = rnd.choice(["foo", "", None, 3])
            calls.append(
                (
                    f"sweep executor {e!r}",
                    lambda e=e: simkit.sweep("dying", {"dc": [14, 16]}, 100, 1, executor=e),
                )
            )
        elif k == 9:
            s = rnd.choice(BAD_SCHEDULER)
            calls.append(
                (
                    "sweep scheduler",
                    lambda s=s: simkit.sweep(
                        "dying", {"dc": [14, 16]}, 100, 1, executor="dask", scheduler=s
                    ),
                )
            )
        elif k == 10:
            mp = rnd.choice([0, -1, 1, 1.5, "x", True])
            calls.append(
                (
                    f"sweep max_points {mp!r}",
                    lambda mp=mp: simkit.sweep("dying", {"dc": [14, 16]}, 100, 1, max_points=mp),
                )
            )
        else:
            d = rnd.choice(BAD_DICE)
            calls.append(("make_model dice", lambda d=d: simkit.make_model("dying", hit_damage=d)))
    return calls


def test_fuzz_api_calls():
    rnd = random.Random(SEED + 2)
    for i, (what, call) in enumerate(_api_calls(rnd)):
        with pytest.raises((ParamError, TypeError)) as info:
            call()
        msg = str(info.value)
        assert msg and "\n" not in msg and len(msg) <= MAX_LINE, (i, what, msg[:300])


# -- the hand-picked cases of issue 14 ----------------------------------------------------------


@pytest.mark.parametrize(
    "argv, words",
    [
        (["run", "dying", "-n", "0**-1"], "-n must be a positive integer"),
        (["run", "dying", "-n", "2**-1"], "-n must be a positive integer"),
        (
            [
                "sweep",
                "dying",
                "--grid",
                "dc=14,16",
                "-n",
                "10",
                "--executor",
                "dask",
                "--scheduler",
                "foo:bar:baz",
            ],
            "'foo:bar:baz' is not a scheduler address",
        ),
        (
            ["sweep", "dying", "--grid", "dc=14,16", "--executor", "dask", "--scheduler", ""],
            "not a scheduler address",
        ),
        (["exact", "dying", "--set", "dc=１４"], "dc='１４' is not allowed"),
        (["exact", "dying", "--set", "dc="], "dc= has no value"),
        (["exact", "dying", "--set", "dc=14", "--set", "dc=15"], "--set dc given twice"),
        (
            ["sweep", "dying", "--exact-only", "--set", "dc=14", "--set", "dc=15"],
            "--set dc given twice",
        ),
        (
            [
                "run",
                "dying",
                "--set",
                "hit_chance=1",
                "--set",
                "hp_max=20",
                "--set",
                "hit_damage=2147483648",
            ],
            "hit_damage='2147483648' is not allowed: dice bonus must be in [-1000000, 1000000]",
        ),
        (["run", "dying", "--set", "hit_damage=1d6+1e20"], "hit_damage='1d6+1e20' is not allowed"),
        (["run", "encounter", "--set", "damage=1d6+3000000000"], "dice bonus must be in"),
        (["run", "dying", "--workers", "１"], "ASCII digits"),
        (
            ["sweep", "dying", "--grid", "dc=１..5", "--exact-only"],
            "a range A..B[:STEP] needs integers",
        ),
    ],
)
def test_issue_cases_are_one_line(tmp_path, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*argv)
    _assert_one_line(code, out, err, argv)
    assert words in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "data, words",
    [
        (
            b'model = "dying"\nscheduler = "foo:bar:baz"\nexecutor = "dask"\n',
            "scheduler 'foo:bar:baz' is not a",
        ),
        (b'model = "dying"\n[grid]\ndc = ' + b"[" * 3000 + b"]" * 3000 + b"\n", "nested"),
        (b'model = "dying"\n[set]\nx = ' + b"{a=" * 3000 + b"1" + b"}" * 3000 + b"\n", "nested"),
        (b'model = "dying"\n[grid]\ndc = {a = 1}\n', "not tables or nested lists"),
        (b'model = "d\xe9ying"\n', "not UTF-8"),
        (b'model = "dying"\nn = 1e99\n', "n must be a positive integer up to"),
    ],
)
def test_issue_toml_cases_are_one_line(tmp_path, monkeypatch, data, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_bytes(data)
    code, out, err = run_cli("sweep", "--config", "c.toml", "-o", "out.csv")
    _assert_one_line(code, out, err, data[:60])
    assert words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]


# -- the hostile cases of issue 19 --------------------------------------------------------------

#: A one-PC party: past its exact duel's state bound at level 5 (solved at once at level 1).
DUEL = ["--set", "party=fighter(hp_max=9000)"]  # at level 20: too large for the exact duel


def test_issue19_sweep_point_too_large_for_exact_gets_empty_exact(tmp_path, monkeypatch):
    """Item 1: a point whose exact duel is too large has an empty exact column, as in ``run``."""
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    # (the exact duel's bound is on its cells, which hp_max sets: a grid over the PC, AP-30)
    big = "fighter(hp_max=9000)"
    argv = ["sweep", "party", "--set", "level=20", "--grid", f"party=fighter,{big}"]
    code, out, err = run_cli(*argv, "-n", "50", "--seed", "1", "-o", "y.csv", "--quiet")
    assert (code, err) == (0, ""), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["y.csv"]  # no journal left
    df = pd.read_csv(tmp_path / "y.csv")
    df = df[df.outcome.isin(REGISTRY["party"]().all_outcomes)]  # (not the events' rows)
    assert df[df.party == "fighter"]["exact"].notna().all()
    assert df[df.party == big]["exact"].isna().all()
    assert (df.groupby("party")["count"].sum() == 50).all()
    api = simkit.sweep("party", {"party": "fighter(hp_max=9000)"}, 50, 1, fixed={"level": 20})
    api = api[api.outcome.isin(REGISTRY["party"]().all_outcomes)]
    assert api["exact"].isna().all() and api["count"].sum() == 50


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "party", *DUEL, "--grid", "level=1,20", "--exact-only", "-o", "y.csv"],
        ["compare", "party", *DUEL, "--set", "level=20", "--exact-only", "-o", "y.csv"],
    ],
)
def test_issue19_exact_only_too_large_is_one_line(tmp_path, monkeypatch, argv):
    """Item 1: ``--exact-only`` refuses a point too large for the exact solver in one line."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*argv)
    _assert_one_line(code, out, err, argv)
    assert "--exact-only" in err and "states" in err, err
    assert list(tmp_path.iterdir()) == []


def test_issue19_compare_and_sensitivity_fall_back_to_monte_carlo(tmp_path, monkeypatch):
    """Item 1: compare gets an empty exact column; sensitivity and calibrate (method auto)
    use Monte Carlo for a duel too large for the exact solver; ``--method exact`` is one line."""
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        "compare", "party", *DUEL, "--set", "level=20", "-n", "50", "--seed", "1", "-o", "c.csv"
    )
    assert (code, err) == (0, ""), err
    df = pd.read_csv(tmp_path / "c.csv")
    assert df["exact"].isna().all() and df.loc[df["p"].notna(), "count"].notna().all()
    sens = ["sensitivity", "party", *DUEL, "--set", "level=20", "--param", "hero_points"]
    code, out, err = run_cli(*sens, "-n", "50", "--seed", "1", "--format", "csv")
    assert code == 0, err
    assert set(pd.read_csv(__import__("io").StringIO(out))["method"]) == {"mc"}
    code, out, err = run_cli(*sens, "--method", "exact")
    _assert_one_line(code, out, err, sens)
    assert "states" in err, err
    cal = simkit.calibrate(
        simkit.make_model("party", party="fighter(hp_max=9000)", level=20),
        0.1,
        "hero_points",
        outcome="defeat",
        n=50,
        rng=1,
    )
    assert cal.method == "mc"


def test_issue19_no_fight_ends_prints_the_table(tmp_path, monkeypatch):
    """Item 3: when no track ends (no damage either way), ``run party`` prints its table
    (unresolved = 1) and the notes say there is no mean, instead of a ``KeyError``."""
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        "run", "party", "-n", "10", "--seed", "1", "--set", "party=fighter(damage=1d1-1)",
        "--set", "monsters=1(damage=1d1-1;area=1d1-1)", "--set", "max_rounds=5", "-o", "o.csv",
        "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    notes = [
        ln
        for ln in err.splitlines()
        if not ln.startswith(("simkit: warning:", "simkit: measured:"))
    ]  # (the 1-PC budget warning, and the last line: the measured threat)
    assert len(notes) == 2 and "no fight ended" in err, err
    assert err.splitlines()[-1].startswith("simkit: measured: ")
    df = pd.read_csv(tmp_path / "o.csv").set_index("outcome")
    assert df.loc["unresolved", "p"] == 1.0 and df["count"].sum() == 10


@pytest.mark.parametrize("verb", ["sweep", "compare"])
@pytest.mark.parametrize("value", ["0", "-1", "x", "1e99"])
def test_issue19_max_points_errors_name_max_points(tmp_path, monkeypatch, verb, value):
    """Item 8: a bad ``--max-points`` is reported as ``--max-points``, not as ``-n``."""
    monkeypatch.chdir(tmp_path)
    argv = [verb, "dying", "--grid", "dc=14,15", "--max-points", value]
    code, out, err = run_cli(*argv)
    _assert_one_line(code, out, err, argv)
    assert "--max-points must be a positive integer" in err and "-n " not in err, err


@pytest.mark.parametrize(
    "cpus, note",
    [
        (2, "simkit: note: --workers 64: using 2 (2 CPUs available)\n"),
        (8, "simkit: note: --workers 64: using 3 (3 points to run, 8 CPUs available)\n"),
    ],
)
def test_issue19_workers_capped_at_cpus_and_points(tmp_path, monkeypatch, cpus, note):
    """Item 7: ``--workers 64`` on a few CPUs (or for a few points) starts no more processes
    than can run at once, and says so in one line; the table is the one of ``--workers 1``."""
    import simkit.analysis.sweep.run as run_mod
    import simkit.analysis.sweep.workers as workers_mod

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(workers_mod, "available_cpus", lambda: cpus)
    seen: list[int] = []
    make = run_mod.make_executor

    def recording(executor, workers, *rest):
        seen.append(workers)
        return make(executor, workers, *rest)

    monkeypatch.setattr(run_mod, "make_executor", recording)
    argv = ["sweep", "dying", "--grid", "dc=14..16", "-n", "200", "--seed", "1", "--quiet"]
    code, out, err = run_cli(*argv, "--workers", "64", "-o", "w.csv")
    assert (code, err) == (0, note)
    assert seen == [min(cpus, 3)]
    assert run_cli(*argv, "--workers", "1", "-o", "one.csv")[0] == 0
    assert (tmp_path / "w.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    code, out, err = run_cli("run", "dying", "-n", "100", "--seed", "1", "--workers", "64")
    assert (
        code == 0 and err == f"simkit: note: --workers 64: using {cpus} ({cpus} CPUs available)\n"
    )


SWEEP_2 = ["sweep", "dying", "--grid", "dc=14,15", "-n", "100", "--seed", "1", "--quiet"]


def _loop(tmp_path) -> str:
    (tmp_path / "loopa").symlink_to("loopb")
    (tmp_path / "loopb").symlink_to("loopa")
    return "loopa"


@pytest.mark.parametrize("verb", ["sweep", "run", "run party", "compare"])
@pytest.mark.parametrize(
    "bad", [_loop, lambda p: "b" * 256, lambda p: "/proc/simkit-cannot-be-here.csv"]
)
def test_issue19_bad_output_paths_refused_before_computing(tmp_path, monkeypatch, verb, bad):
    """Item 5: a symbolic-link loop, a name too long and a directory where no file can be
    made are refused in one line before any computing (no journal, nothing left); for
    ``run party``, before its note lines."""
    import simkit.core.engine as engine

    monkeypatch.chdir(tmp_path)
    out_path = bad(tmp_path)
    if out_path.startswith("/proc") and not Path("/proc/self").exists():
        pytest.skip("no /proc")
    before = sorted(p.name for p in tmp_path.iterdir())

    def no_simulating(*a, **k):
        raise AssertionError("computed before checking -o")

    monkeypatch.setattr(engine, "simulate", no_simulating)
    argv = {
        "sweep": SWEEP_2,
        "run": ["run", "dying", "-n", "100", "--seed", "1"],
        "run party": ["run", "party", "-n", "10", "--seed", "1"],
        "compare": ["compare", "dying", "-n", "100", "--seed", "1"],
    }[verb]
    code, out, err = run_cli(*argv, "-o", out_path)
    _assert_one_line(code, out, err, (verb, out_path[:20]))
    assert err.startswith(("simkit: error: -o ", "simkit: error: cannot write ")), err
    assert out_path in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("length", [245, 250, 255])
def test_issue19_long_output_names_are_written(tmp_path, monkeypatch, length):
    """Item 5: a valid name of 245-255 bytes is written (its temporary file and a sweep's
    journal beside it get names short enough), and a sweep leaves no journal."""
    monkeypatch.chdir(tmp_path)
    name = "é" * ((length - 4) // 2) + "x" * ((length - 4) % 2) + ".csv"
    assert len(name.encode()) == length
    code, out, err = run_cli(*SWEEP_2, "-o", name)
    assert (code, err) == (0, ""), err
    code, out, err = run_cli("run", "dying", "-n", "100", "--seed", "1", "-o", name)
    assert (code, err) == (0, ""), err
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_issue19_replaced_output_keeps_owner_group_and_mode(tmp_path, monkeypatch):
    """Item 6: replacing ``-o FILE`` (or a link's target) keeps its owner, group and mode,
    setgid included (as root: any owner; otherwise our own)."""
    import os
    import stat

    monkeypatch.chdir(tmp_path)
    root = os.geteuid() == 0
    uid, gid = (1234, 2345) if root else (os.getuid(), os.getgid())
    mode = 0o2604 if root else 0o604
    for name in ("f.csv", "target.csv"):
        (tmp_path / name).write_text("old\n")
        os.chown(tmp_path / name, uid, gid)
        os.chmod(tmp_path / name, mode)
    (tmp_path / "link.csv").symlink_to("target.csv")
    for out_path in ("f.csv", "link.csv"):
        code, out, err = run_cli("run", "dying", "-n", "100", "--seed", "1", "-o", out_path)
        assert (code, err) == (0, ""), err
    assert (tmp_path / "link.csv").is_symlink()
    for name in ("f.csv", "target.csv"):
        st = os.stat(tmp_path / name)
        assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (uid, gid, mode), name
        assert (tmp_path / name).read_text() != "old\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_issue19_run_party_write_error_is_the_only_line(tmp_path, monkeypatch):
    """Item 5: a write error of ``run party -o`` (here: no space left) is its only stderr
    line, not one after the lineup and odds notes."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("run", "party", "-n", "10", "--seed", "1", "-o", "/dev/full")
    _assert_one_line(code, out, err, "/dev/full")
    assert "No space left" in err, err


def _session(sid: int) -> list[int]:
    """The processes of session ``sid`` (a sweep started in its own session, its helpers)."""
    pids = []
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(stat[3]) == sid and stat[0] not in (b"Z", b"X"):
            pids.append(int(d.name))
    return pids


def _importing(pid: int) -> bool:
    """Whether process ``pid`` is a forkserver that has loaded numpy (and is importing on)."""
    try:
        cmd = (Path("/proc") / str(pid) / "cmdline").read_bytes()
        return (
            b"forkserver" in cmd
            and b"_multiarray_umath" in (Path("/proc") / str(pid) / "maps").read_bytes()
        )
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("how", ["SIGINT to the group", "SIGINT to the helpers", "kill -9"])
def test_issue19_killed_or_interrupted_sweep_leaves_only_its_line(tmp_path, how):
    """Item 9: Ctrl-C (SIGINT to the whole process group) of a sweep with worker processes
    prints its one line (no worker traceback); the helpers take no SIGINT at all, even while
    the forkserver is still importing (the sweep goes on and ends as usual, silently: the
    group's Ctrl-C is this process's to handle); ``kill -9`` of the sweep prints nothing (no
    resource-tracker warning about leaked semaphores: the tracker still removes them).

    (SIGINT to the group while this process itself imports is not tested: CPython may
    report a KeyboardInterrupt raised in an import lock's weakref callback as "Exception
    ignored" and go on.)"""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "k.csv"
    jp = out.with_name("k.csv.partial")
    argv = ["sweep", "dying", "--grid", "dc=14..45", "--grid", "hit_chance=0.1,0.3", "--seed"]
    n = "20000" if how == "SIGINT to the helpers" else "1000000"  # that one runs to its end
    argv += ["5", "--workers", "2", "-n", n, "--quiet", "-o", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "simkit.cli.main", *argv],
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_sigint_as_from_a_terminal,
    )
    try:
        t0 = time.monotonic()  # main, resource tracker, forkserver, a worker; a point saved

        def ready() -> bool:
            if how == "SIGINT to the helpers":  # the forkserver is importing numpy, pandas...
                return any(_importing(pid) for pid in _session(proc.pid) if pid != proc.pid)
            saved = jp.exists() and jp.read_text().count("\n") > 1
            return saved and len(_session(proc.pid)) >= 4

        while not ready():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() - t0 < 120, "the sweep's workers did not start"
            time.sleep(0.01)
        if how == "kill -9":
            os.kill(proc.pid, signal.SIGKILL)
        elif how == "SIGINT to the helpers":
            for pid in _session(proc.pid):
                if pid != proc.pid:
                    os.kill(pid, signal.SIGINT)
        else:
            os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)  # until every helper holding stderr is gone
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    if how == "kill -9":
        assert proc.returncode == -signal.SIGKILL and err == "", err
    elif how == "SIGINT to the helpers":
        assert (proc.returncode, err) == (0, "") and out.exists() and not jp.exists()
    else:
        assert proc.returncode == 130, err
        assert err.count("\n") == 1 and err.startswith("simkit: interrupted"), err
