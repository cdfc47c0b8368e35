"""Hostile input found by issue 30 ("Nothing lost, nothing silently wrong (3)").

Each case is refused in one line on stderr, exit status 2, nothing on stdout, with the
field or parameter named; through the Python API the same inputs raise
:class:`~simkit.core.params.ParamError` (a ``ValueError``).
"""

from __future__ import annotations

import pytest

from simkit.analysis.sweep import journal_path, sweep_csv
from simkit.core.params import ParamError
from simkit.testing import run_cli


def _refused(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2, (code, err)
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("simkit: error: "), err
    assert "Traceback" not in err
    assert len(err) <= 420, len(err)
    for w in words:
        assert w in err, (w, err)


# -- D1: --resume with nothing to resume ----------------------------------------------------

SWEEP = ("sweep", "dying", "--grid", "dc=14..15", "-n", "200")


def test_resume_without_a_journal_leaves_the_output_alone(tmp_path):
    out = tmp_path / "r.csv"
    code, _, err = run_cli(*SWEEP, "--seed", "5", "-o", out)
    assert code == 0, err
    before = out.read_bytes()
    code, o, err = run_cli(*SWEEP, "--resume", "-o", out)  # no --seed, no journal
    _refused(code, o, err, "--resume", "nothing to resume", "r.csv")
    assert out.read_bytes() == before
    assert not journal_path(out).exists()
    with pytest.raises(ParamError, match="nothing to resume"):
        sweep_csv(out, "dying", {"dc": [14, 15]}, 200, 5, resume=True)
    assert out.read_bytes() == before and not journal_path(out).exists()


# -- Foundry actor files: W1, T1, T2, T3, C5, C8 ------------------------------------------


def _actor() -> dict:
    import json
    from importlib import resources

    from simkit.rules.pf2e import foundry

    text = resources.files("simkit.rules.pf2e").joinpath(*foundry.BUNDLED).read_text("utf-8")
    return json.loads(text)[0]  # the animated broom: one strike, 1d4+... damage


def _with_damage(doc: dict, dice: str) -> dict:
    for it in doc["items"]:
        if it.get("type") == "melee":
            for roll in it["system"]["damageRolls"].values():
                roll["damage"] = dice
    return doc


def _actor_files(tmp_path) -> dict[str, tuple[object, tuple[str, ...]]]:
    """name -> (path, words its refusal must hold)."""
    import json
    import os

    files = {}
    neg = tmp_path / "neg.json"  # W1: a roll below 0, refused as when typed in
    neg.write_text(json.dumps(_with_damage(_actor(), "2d12-12")))
    files["neg"] = (neg, ("neg.json", "damageRolls", "below 0"))
    big = tmp_path / "big.json"  # T3: refused by the loader, not later by the engine
    big.write_text(json.dumps(_with_damage(_actor(), "999999d999999")))
    files["big"] = (big, ("big.json", "damageRolls", "dice count"))
    dig = tmp_path / "dig.json"  # T2 in a damage formula: a count of 5,000 digits
    dig.write_text(json.dumps(_with_damage(_actor(), "9" * 5000 + "d6")))
    files["dig"] = (dig, ("dig.json", "damageRolls", "more than 20 digits"))
    hp = tmp_path / "hp.json"  # T2: 5,000 digits
    doc = _actor()
    text = json.dumps(doc).replace(
        f'"max": {doc["system"]["attributes"]["hp"]["max"]}', '"max": ' + "9" * 5000, 1
    )
    assert "9" * 5000 in text
    hp.write_text(text)
    files["hp"] = (hp, ("hp.json", "hp.max", "5000 digits"))
    bomb = tmp_path / "bomb.json"  # T1: a nesting bomb
    bomb.write_text("[" * 100_000 + "]" * 100_000)
    files["bomb"] = (bomb, ("bomb.json", "nested too deep"))
    loop = tmp_path / "loop.json"  # C5: a symlink loop is not "no such file"
    os.symlink(tmp_path / "loop2.json", loop)
    os.symlink(loop, tmp_path / "loop2.json")
    files["loop"] = (loop, ("loop.json", "symbolic links"))
    return files


CASES = ["neg", "big", "dig", "hp", "bomb", "loop"]


@pytest.mark.parametrize("case", CASES)
def test_bad_actor_files_are_refused_in_one_line_everywhere(tmp_path, case):
    from simkit.models import make_model
    from simkit.rules.pf2e import foundry

    path, words = _actor_files(tmp_path)[case]
    with pytest.raises(foundry.ActorError) as err:  # a ValueError
        foundry.load(path)
    assert all(w in str(err.value) for w in words), str(err.value)
    with pytest.raises(ParamError, match="monsters"):
        make_model("party", monsters=f"@{path}")
    _refused(*run_cli("creatures", f"@{path}"), *words)
    run = ("-n", "50", "--seed", "1", "--set", "party=fighter", "--set", "level=1")
    _refused(*run_cli("run", "party", *run, "--set", f"monsters=@{path}"), "monsters", *words)
    _refused(*run_cli("run", "day", "-n", "20", "--set", f"plan=[@{path}]"), "plan", *words)
    _refused(*run_cli("sweep", "party", "-n", "20", "--grid", f"monsters=@{path}"), *words)
    toml = tmp_path / "run.toml"
    toml.write_text(f'model = "party"\n[set]\nmonsters = "@{path}"\n')
    _refused(*run_cli("run", "party", "-n", "20", "--config", toml), *words)


def test_a_file_of_many_actors_is_refused_for_its_count(tmp_path):
    """C5: the count is the problem, not the creature levels."""
    import json

    many = tmp_path / "many.json"
    many.write_text(json.dumps([_actor()] * 200))
    code, out, err = run_cli("run", "party", "-n", "10", "--set", f"monsters=@{many}")
    _refused(code, out, err, "1 to 12 creatures", "200")
    assert "creature levels" not in err


def test_a_long_actor_path_gives_a_short_line(tmp_path):
    """C8: a 3,000-character @path (too long a name) is cut short like other errors, and
    it is a file that cannot be read, not one that cannot be written."""
    long = "a" * 3000
    for argv in (
        ("creatures", f"@{long}"),
        ("run", "party", "-n", "10", "--set", f"monsters=@{long}"),
        ("run", "party", "-n", "10", "--set", f"monsters=@{long}.json"),
    ):
        code, out, err = run_cli(*argv)
        _refused(code, out, err, "cannot be read")
        assert "cannot write" not in err


# -- W2, C6: compare's variants --------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, words",
    [
        (("party", "--variants", "seed000,pf2e-core", "--set", "rules=seed001"), ("rules",)),
        (("day", "--variants", "seed000,pf2e-core", "--set", "rules=seed001"), ("rules",)),
        (
            ("party", "--variants", "seed000,pf2e-core", "--grid", "rules=seed000,seed001"),
            ("rules",),
        ),
        (("party", "--ambiguities", "A0-3", "--set", "hero_policy=never"), ("hero_policy",)),
        (("dying", "--variants", "seed,seed"), ("--variants", "seed", "more than once")),
    ],
)
def test_compare_refuses_what_would_relabel_or_drop_a_variant(tmp_path, argv, words):
    """W2: a setting that replaces what the variants differ in ran every variant with it
    under its own label (diff 0 [0, 0], p = 1); C6: a variant named twice vanished."""
    out = tmp_path / "c.csv"
    code, o, err = run_cli("compare", *argv, "-n", "20", "--seed", "1", "-o", out)
    _refused(code, o, err, *words)
    assert not out.exists()


def test_compare_api_refuses_the_same():
    from simkit.analysis.compare import compare, variants

    v = variants("party", ["seed000", "pf2e-core"])
    with pytest.raises(ParamError, match="fixed.*rules"):
        compare(v, None, 20, 1, fixed={"rules": "seed001"})
    with pytest.raises(ParamError, match="grid.*rules"):
        compare(v, {"rules": ["seed000", "seed001"]}, 20, 1)
    with pytest.raises(ParamError, match="presets.*more than once"):
        variants("dying", ["seed", "seed"])
    compare(v, None, 20, 1, fixed={"level": 3})  # what they share may be set


# -- T4: the Python API's own error type -----------------------------------------------------


def test_a_start_that_is_not_a_state_and_a_day_without_exact_are_param_errors():
    from simkit import simulate, solve
    from simkit.core.exact import ExactTooLarge, NoExactSolver, solve_many
    from simkit.models import make_model

    for name in ("day", "party"):
        with pytest.raises(ParamError, match="start.*FightStart.*list"):
            simulate(make_model(name), 3, 1, start=[1, 2, 3])
    day = make_model("day")
    for call in (lambda: solve(day), lambda: solve_many([day])):
        with pytest.raises(ParamError, match="day.*no exact solver") as err:
            call()
        assert isinstance(err.value, NotImplementedError)  # as before 0.4, for old callers
    assert issubclass(ExactTooLarge, NoExactSolver) and issubclass(NoExactSolver, ParamError)


# -- C1: a warning is one line -----------------------------------------------------------


def test_the_old_hp_name_warns_in_one_line():
    code, out, err = run_cli(
        "run", "party", "-n", "10", "--seed", "1", "--set", "party=fighter(hp=30)"
    )
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if "hp_max" in ln and "warning" in ln]
    assert lines == [
        "simkit: warning: party: fighter(hp=...) is the PC's maximum HP: write hp_max= "
        "(hp= will be removed in simkit 0.4; the fight's hp= is the starting HP)"
    ], err
    assert "FutureWarning" not in err and ".py" not in err


# -- C2: an empty output path ----------------------------------------------------------------


def test_an_empty_output_path_is_refused_by_every_verb(tmp_path):
    toml = tmp_path / "e.toml"
    toml.write_text('model = "dying"\nn = 10\noutput = ""\n[grid]\ndc = [14]\n')
    for argv, words in (
        (("sweep", "dying", "--grid", "dc=14", "-n", "10", "-o", ""), ("-o", "empty path")),
        (("compare", "dying", "-n", "10", "-o", ""), ("-o", "empty path")),
        (("sweep", "--config", toml), ("output", "empty path", "e.toml")),
        (("run", "dying", "-n", "10", "-o", ""), ("-o", "empty path")),
    ):
        _refused(*run_cli(*argv), *words)


# -- C7: a sweep file's paths ------------------------------------------------------------------


def test_a_sweep_file_reads_and_writes_relative_to_itself(tmp_path):
    """@FILE and output are relative to the TOML's folder (they were relative to the
    current folder), and its output does not replace a file simkit did not write without
    --force."""
    import json

    folder = tmp_path / "cfg"
    folder.mkdir()
    (folder / "beast.json").write_text(json.dumps(_actor()))
    toml = folder / "s.toml"
    body = (
        'model = "party"\nn = 20\nseed = 1\n'
        '[set]\nparty = "fighter"\nmonsters = "@beast.json"\n[grid]\nlevel = [1, 2]\n'
    )
    toml.write_text('output = "out.csv"\n' + body)
    code, _, err = run_cli("sweep", "--config", toml)  # run from the tests' folder
    assert code == 0, err
    first = (folder / "out.csv").read_bytes()
    assert b"beast.json" in first  # the actor file was found beside the TOML
    code, _, err = run_cli("sweep", "--config", toml)  # its own earlier output: replaced
    assert code == 0, err
    assert (folder / "out.csv").read_bytes() == first
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    toml.write_text('output = "../notes.txt"\n' + body)
    _refused(*run_cli("sweep", "--config", toml), "output", "notes.txt", "--force")
    assert notes.read_text() == "my notes\n"
    code, _, err = run_cli("sweep", "--config", toml, "--force")
    assert code == 0, err
    assert notes.read_bytes() == first


# -- C4: exact probabilities stay in [0, 1] ---------------------------------------------------


def test_exact_probabilities_stay_in_zero_one():
    """A sure victory summed to 1.0000000000000002 (a rogue, seed 001, level 5, against a
    level -1 creature of 1 HP): the probabilities and the cumulative table are clipped."""
    from simkit import solve
    from simkit.models import make_model

    res = solve(make_model("party", party="rogue", monsters="-1(hp=1)", level=5, rules="seed001"))
    p = res.probabilities
    assert all(0.0 <= v <= 1.0 for v in p.values()), p
    assert p["victory"] == pytest.approx(1.0, abs=1e-12)
    cdf = res.cdf()
    assert cdf.min() >= 0.0 and cdf.max() <= 1.0
    code, out, err = run_cli(
        "exact",
        "party",
        "--set",
        "party=rogue",
        "--set",
        "monsters=-1(hp=1)",
        "--set",
        "level=5",
        "--set",
        "rules=seed001",
        "--format",
        "csv",
    )
    assert code == 0, err
    head, *lines = out.splitlines()
    at_p = head.split(",").index("p")
    values = [float(line.split(",")[at_p]) for line in lines]
    assert values and all(0.0 <= v <= 1.0 for v in values), out


# -- C3: a killed final write's temporary file ---------------------------------------------


def test_a_sweep_removes_the_temporary_file_a_killed_write_left(tmp_path):
    """kill -9 during the final write left a hidden .NAME.XXXXXXXX.tmp; the resume (or the
    next sweep of that output, under the journal's lock) removes it, and nothing else."""
    from simkit.core.io import _tmp_prefix

    out = tmp_path / "k9_90.csv"
    stale = tmp_path / (_tmp_prefix(out) + "ab3_x9q1.tmp")
    other = tmp_path / ".k9_90.csv.notes.tmp"  # not a name atomic_write makes
    grid = {"dc": [14, 15, 16]}

    def stop(*_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # interrupted after its first point
        sweep_csv(out, "dying", grid, 200, 5, after_task=stop, chunk_size=1)
    assert journal_path(out).exists()
    stale.write_text("half a table")
    other.write_text("mine")
    sweep_csv(out, "dying", grid, 200, 5, resume=True, chunk_size=1)
    assert out.exists() and not stale.exists() and other.read_text() == "mine"
    stale.write_text("half a table")  # a fresh sweep of the same output too
    sweep_csv(out.with_name("other.csv"), "dying", grid, 200, 5)
    assert stale.exists()  # another output's sweep leaves it alone
    out.unlink()
    sweep_csv(out, "dying", grid, 200, 5)
    assert not stale.exists()


# -- N1: an interrupted Dask sweep is as quiet as a local one ------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "kill-9"])
def test_an_interrupted_dask_sweep_says_one_line(tmp_path, how):
    """Ctrl-C (SIGINT to the process group: the workers get it too), SIGTERM, kill -9 of a
    sweep on a local Dask cluster: one line (none after kill -9), no Dask warnings or
    worker tracebacks, no 'leaked semaphore' warning of the resource tracker; the journal
    holds the finished points for --resume."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    pytest.importorskip("distributed")
    from simkit.analysis.sweep import journal_points

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "d.csv"
    argv = [sys.executable, "-m", "simkit.cli.main", "sweep", "dying", "--grid", "dc=14..44"]
    argv += ["--grid", "hit_chance=0.1,0.3", "-n", "3e6", "--seed", "1"]
    argv += ["--executor", "dask", "--workers", "2", "-o", str(out)]
    proc = subprocess.Popen(
        argv,
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    jp = journal_path(out)
    t0 = time.monotonic()
    while journal_points(jp) < 1:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() - t0 < 240, "no point finished"
        time.sleep(0.05)
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGKILL)
    _, err = proc.communicate(timeout=120)  # (EOF: every process holding stderr is gone)
    lines = err.strip().splitlines()
    if how == "kill-9":
        assert proc.returncode == -signal.SIGKILL and lines == [], err
    else:
        assert proc.returncode == (130 if how == "ctrl-c" else 143), err
        word = "interrupted" if how == "ctrl-c" else "terminated"
        assert len(lines) == 1 and lines[0].startswith(f"simkit: {word}: "), err
        assert "rerun with --resume" in lines[0]
    assert journal_points(jp) >= 1
