"""The simkit command: verbs, formats, and one-line errors with status 2."""

import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from simkit.testing import run_cli as run


def test_models_lists_parameters_ranges_rules():
    code, out, _ = run("models", "dying")
    assert code == 0
    for word in ("dying", "save_bonus", "R0-06", "A0-1", "an integer in [1, 100]", "unresolved"):
        assert word in out
    code, out, _ = run("models", "dying", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    assert {"model", "name", "default", "allowed", "rule"} <= set(df.columns)


def test_run_csv_and_json_columns():
    code, out, _ = run("run", "dying", "-n", "2000", "--seed", "1", "--format", "csv")
    assert code == 0
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns) == ["outcome", "kind", "count", "n", "p", "ci_low", "ci_high", "exact"]
    assert list(df["outcome"]) == ["stable", "dead", "revived", "unresolved"]
    code, out, _ = run("run", "dying", "-n", "2000", "--seed", "1", "--format", "json")
    records = json.loads(out)
    assert records[0].keys() == {"outcome", "kind", "count", "n", "p", "ci_low", "ci_high", "exact"}
    assert records[1]["count"] == df["count"][1]


def test_exact_csv():
    code, out, _ = run("exact", "dying", "--set", "check=flat", "--format", "csv")
    assert code == 0
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns) == ["outcome", "kind", "p"]
    assert df["p"].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("sets", [[], ["--set", "check=flat"]])
def test_run_agrees_with_exact(sets):
    n = 200_000
    _, out, _ = run("run", "dying", "-n", str(n), "--seed", "3", "--format", "csv", *sets)
    mc = pd.read_csv(io.StringIO(out)).set_index("outcome")
    _, out, _ = run("exact", "dying", "--format", "csv", *sets)
    ex = pd.read_csv(io.StringIO(out)).set_index("outcome")
    for o in ex.index:
        p = ex.loc[o, "p"]
        se = max(p * (1 - p), 1 / n) ** 0.5 / n**0.5
        assert abs(mc.loc[o, "p"] - p) <= 5 * se


def test_output_file_written(tmp_path):
    target = tmp_path / "out.csv"
    code, out, _ = run(
        "run", "dying", "-n", "1000", "--seed", "1", "--format", "csv", "-o", str(target)
    )
    assert code == 0 and out == ""
    assert pd.read_csv(target).shape == (4, 8)
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["run", "nosuch"], "unknown model 'nosuch'"),
        (["run", "dying", "--set", "nosuch=1"], "--set nosuch: unknown parameter"),
        (["run", "dying", "--set", "dc"], "--set 'dc' is malformed"),
        (["run", "dying", "--set", "dc=0"], "dc must be an integer in [1, 100]"),
        (["run", "dying", "--set", "dc=twenty"], "dc must be an integer"),
        (["run", "dying", "--set", "check=roll"], "check must be one of save, flat"),
        (["run", "dying", "--set", "hit_chance=2"], "hit_chance must be a number in [0, 1]"),
        (["run", "dying", "--set", "crit=maybe"], "crit must be true or false"),
        (["run", "dying", "--set", "dc=20", "--set", "monster_level=3"], "exclusive"),
        (["run", "dying", "-n", "0"], "-n must be a positive integer"),
        (["run", "dying", "-n", "lots"], "-n must be a positive integer"),
        (["run", "dying", "--seed", "-1"], "--seed must be a non-negative integer"),
        (["run", "dying", "--format", "xml"], "invalid choice"),
        (["run", "dying", "--confidence", "1.5"], "--confidence must be in (0, 1)"),
        (["run", "dying", "--level", "0.9"], "--level is the character level: use --set level="),
        (["run", "dying", "--workers", "0"], "--workers must be"),
        (["run", "dying", "--preset", "nope"], "unknown preset 'nope'"),
        (["exact", "dying", "--set", "max_rounds=-1"], "max_rounds must be an integer"),
        (["models", "nosuch"], "unknown model 'nosuch'"),
        (["run", "dying", "-n", "1.5"], "-n must be a positive integer"),
        (["run", "dying", "-n", "1e14"], "-n must be a positive integer up to"),
        (["run", "dying", "-n", "99**99999999"], "-n must be a positive integer"),
        (["run", "dying", "--seed", "abc"], "--seed must be a non-negative integer"),
        (["run", "dying", "--set", "hit_damage=0d6"], "hit_damage"),
        (["run", "dying", "--set", "hit_damage=1000d1000"], "hit_damage"),
        (["run", "dying", "-o", ""], "-o: empty path"),
        (["models", "--format", "csv", "-o", "/nonexistent-dir/x.csv"], "does not exist"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_one_line_status_2(argv, needle):
    code, out, err = run(*argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert needle in lines[0]
    assert "Traceback" not in err


def test_unwritable_output_leaves_no_file(tmp_path):
    code, _, err = run("run", "dying", "-n", "100", "-o", str(tmp_path / "missing" / "x.csv"))
    assert code == 2 and "does not exist" in err
    code, _, err = run("run", "dying", "-n", "100", "-o", str(tmp_path))
    assert code == 2 and "is a directory" in err
    assert list(tmp_path.iterdir()) == []


def test_bad_input_before_output_keeps_old_file(tmp_path):
    target = tmp_path / "keep.csv"
    target.write_text("old\n")
    code, _, _ = run("run", "dying", "--set", "dc=0", "-o", str(target))
    assert code == 2
    assert target.read_text() == "old\n"


def test_console_script_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "simkit.cli.main", "exact", "dying", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["outcome"] == "stable"


def test_output_file_gets_normal_permissions(tmp_path):
    import os

    target = tmp_path / "perm.csv"
    code, _, _ = run("exact", "dying", "--format", "csv", "-o", str(target))
    assert code == 0
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_models_writes_its_table_to_a_file(tmp_path):
    target = tmp_path / "models.txt"
    code, out, _ = run("models", "dying", "-o", str(target))
    assert code == 0 and out == ""
    assert "save_bonus" in target.read_text()


def test_trailing_slash_is_refused(tmp_path):
    code, _, err = run("run", "dying", "-n", "100", "-o", str(tmp_path / "nodir") + "/")
    assert code == 2 and "names a directory" in err
    assert list(tmp_path.iterdir()) == []


def test_os_error_while_writing_is_one_line(tmp_path, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    code, out, err = run("exact", "dying", "-o", str(tmp_path / "x.csv"))
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"simkit: error: cannot write {tmp_path / 'x.csv'}: No space left on device"
    ]
    assert list(tmp_path.iterdir()) == []
