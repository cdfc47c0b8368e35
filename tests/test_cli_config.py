"""run and exact read a TOML file (--config): the sweep layout without [grid]."""

from __future__ import annotations

import io

import pandas as pd

from simkit.testing import run_cli


def _toml(tmp_path, text: str):
    p = tmp_path / "q.toml"
    p.write_text(text)
    return str(p)


def _csv(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out)).set_index("outcome")


def test_run_and_exact_read_the_file_and_flags_win(tmp_path):
    path = _toml(tmp_path, 'model = "dying"\nn = 20000\nseed = 3\n[set]\ndc = 20\ncheck = "flat"\n')
    code, out, err = run_cli("run", "--config", path, "--format", "csv")
    assert code == 0, err
    direct = run_cli(
        "run",
        "dying",
        "--set",
        "dc=20",
        "--set",
        "check=flat",
        "-n",
        "20000",
        "--seed",
        "3",
        "--format",
        "csv",
    )[1]
    assert out == direct
    code, out, err = run_cli("exact", "--config", path, "--set", "check=save", "--format", "csv")
    assert code == 0, err
    want = run_cli("exact", "dying", "--set", "dc=20", "--format", "csv")[1]
    assert _csv(out)["p"].to_dict() == _csv(want)["p"].to_dict()


def test_a_party_and_lineup_from_a_file(tmp_path):
    path = _toml(
        tmp_path,
        'model = "party"\nn = 3000\nseed = 1\n[set]\nlevel = 3\n'
        'party = "fighter,cleric"\nmonsters = "4,2"\n',
    )
    code, out, err = run_cli("run", "--config", path, "--format", "csv")
    assert code == 0, err
    assert "party of 2 at level 3" in err and _csv(out)["n"].iloc[0] == 3000


def test_bad_files_are_one_line(tmp_path):
    cases = [
        ('model = "dying"\n[grid]\ndc = [10, 20]\n', "simkit sweep"),
        ('model = "dying"\n[set]\ndc = 1000\n', "dc"),
        ('model = "dying"\n[set]\nparty = "fighter"\n', "party"),
        ('model = "dying"\noutput = "x.csv"\n', "output"),
    ]
    for text, needle in cases:
        code, out, err = run_cli("run", "--config", _toml(tmp_path, text))
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (text, err)
        assert needle in err, (text, err)
    code, _, err = run_cli("run", "recovery", "--config", _toml(tmp_path, 'model = "dying"\n'))
    assert code == 2 and "is for model 'dying'" in err
    code, _, err = run_cli("run")
    assert code == 2 and "--config" in err
