"""The sweep, compare and plot verbs: CSVs, TOML configs, one-line errors, kill and resume."""

import io
import os
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from simkit.analysis.sweep import sweep
from simkit.cli.main import main

ROOT = Path(__file__).resolve().parents[1]



def _sigint_as_from_a_terminal() -> None:
    """In the child, before exec: Ctrl-C's default disposition, as a command typed at a
    terminal has it (a runner started in the background, ``cmd &``, leaves SIGINT ignored in
    its children, and Python then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_sweep_writes_the_api_table(tmp_path):
    out = tmp_path / "s.csv"
    code, stdout, err = run(
        "sweep",
        "dying",
        "--grid",
        "dc=14..22:4",
        "--grid",
        "level=1,5",
        "--set",
        "hit_chance=0.1",
        "-n",
        "5000",
        "--seed",
        "3",
        "-o",
        out,
    )
    # no progress bar when stderr is not a terminal; the one line says the DC is not the
    # level's (issue 31: dc is swept)
    assert (code, stdout) == (0, "")
    assert err == "simkit: sweep dying: the recovery DC does not follow level (dc swept)\n"
    df = pd.read_csv(out)
    api = sweep("dying", {"dc": [14, 18, 22], "level": [1, 5]}, 5000, 3, fixed={"hit_chance": 0.1})
    assert list(df.columns) == list(api.columns)
    assert list(df["count"]) == list(api["count"]) and list(df["point_seed"]) == list(
        api["point_seed"]
    )
    assert set(df["version"]) == set(api["version"]) and set(df["model"]) == {"dying"}


def test_sweep_from_toml_equals_command_line(tmp_path):
    cfg = tmp_path / "sweep.toml"
    cfg.write_text(
        'model = "dying"\nn = 4000\nseed = 8\nexact_only = false\n'
        '[set]\nhit_chance = 0.2\n[grid]\ndc = "14..20:3"\nheal_round = ["none", 3]\n'
    )
    code, _, err = run("sweep", "--config", cfg, "-o", tmp_path / "a.csv", "--quiet")
    assert code == 0, err
    code, _, err = run(
        "sweep",
        "dying",
        "--grid",
        "dc=14,17,20",
        "--grid",
        "heal_round=none,3",
        "--set",
        "hit_chance=0.2",
        "-n",
        "4000",
        "--seed",
        "8",
        "-o",
        tmp_path / "b.csv",
    )
    assert code == 0, err
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


@pytest.mark.parametrize(
    "args, words",
    [
        (["--grid", "bogus=1,2"], "--grid bogus: unknown key"),
        (["--grid", "dc=20..14"], "empty range (20 > 14)"),
        (["--grid", "dc="], "no values"),
        (["--grid", "dc=14,,16"], "empty value"),
        (["--grid", "dc"], "malformed"),
        (["--grid", "dc=1.5..3"], "needs integers"),
        (["--grid", "dc=14", "--grid", "dc=16"], "given twice"),
        (["--grid", "dc=14", "--set", "dc=16"], "both on the grid and fixed"),
        (["--grid", "save_bonus=1,200"], "save_bonus=200 is not allowed"),
        (["--grid", "level=0..3"], "level=0 is not allowed"),
        (["--set", "nope=1"], "--set nope: unknown key"),
    ],
)
def test_bad_grids_get_one_line(tmp_path, args, words):
    code, out, err = run("sweep", "dying", *args, "-n", "100", "-o", tmp_path / "x.csv")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("simkit: error:") and words in err, err
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize(
    "text, words",
    [
        ('model = "dying"\n[grid\ndc = [1]\n', "malformed TOML"),
        ('model = "dying"\n[grid]\ndc = []\n', "empty list"),
        ('model = "dying"\nbogus = 1\n', "unknown key 'bogus'"),
        ("[grid]\ndc = [14]\n", "needs model"),
        ('model = "dying"\nn = -5\n', "positive integer"),
    ],
)
def test_bad_toml_gets_one_line(tmp_path, text, words):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    code, _, err = run("sweep", "--config", cfg, "-o", tmp_path / "x.csv")
    assert code == 2 and err.count("\n") == 1 and words in err, err


def _cli(*argv, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(
        [sys.executable, "-m", "simkit.cli.main", *map(str, argv)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_as_from_a_terminal,
        **kw,
    )


SLOW = [
    "sweep",
    "dying",
    "--grid",
    "dc=14..45",
    "--grid",
    "hit_chance=0.1,0.3",
    "-n",
    "200000",
    "--seed",
    "5",
    "--workers",
    "1",
]


def _wait_for_journal(journal: Path, proc, lines: int = 2, timeout: float = 60.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if journal.exists() and journal.read_text().count("\n") >= lines:
            return
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        time.sleep(0.01)
    raise AssertionError("no journal")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_sweep_resumes_to_identical_csv(tmp_path, sig):
    out = tmp_path / "k.csv"
    journal = tmp_path / "k.csv.partial"
    proc = _cli(*SLOW, "-o", out)
    _wait_for_journal(journal, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130 and "rerun with --resume" in err, err
    assert not out.exists() and journal.exists()
    done = journal.read_text().count("\n") - 1
    assert 1 <= done < 4
    code, _, err = run(*SLOW[:-4], "--workers", "1", "-o", out)  # no --resume: refused
    assert code == 2 and "--resume" in err
    code, _, err = run(
        *[a for a in SLOW if a not in ("--seed", "5")], "--resume", "-o", out
    )  # journal's seed
    assert code == 0, err
    assert not journal.exists()
    ref = tmp_path / "ref.csv"
    code, _, _ = run(*SLOW, "-o", ref)
    assert out.read_bytes() == ref.read_bytes()


def test_exact_only_and_survival_and_compare_then_plots(tmp_path):
    code, _, err = run(
        "sweep",
        "dying",
        "--grid",
        "dc=14..30:4",
        "--grid",
        "level=1..20:4",
        "--exact-only",
        "-o",
        tmp_path / "e.csv",
    )
    assert code == 0, err
    e = pd.read_csv(tmp_path / "e.csv")
    assert e["count"].isna().all() and (e["p"] == e["exact"]).all()
    code, _, err = run(
        "plot",
        tmp_path / "e.csv",
        "--kind",
        "heatmap",
        "--x",
        "level",
        "--y",
        "dc",
        "-o",
        tmp_path / "h.png",
    )
    assert code == 0, err
    code, _, err = run(
        "sweep",
        "dying",
        "--grid",
        "dc=18,24",
        "--survival",
        "--set",
        "max_rounds=12",
        "-n",
        "3000",
        "--seed",
        "1",
        "-o",
        tmp_path / "s.csv",
    )
    assert code == 0, err
    code, _, err = run("plot", tmp_path / "s.csv", "--kind", "survival", "-o", tmp_path / "s.png")
    assert code == 0, err
    code, _, err = run(
        "compare",
        "dying",
        "--ambiguities",
        "A0-4",
        "--variants",
        "seed",
        "--grid",
        "dc=16,24",
        "-n",
        "3000",
        "--seed",
        "2",
        "-o",
        tmp_path / "c.csv",
    )
    assert code == 0, err
    c = pd.read_csv(tmp_path / "c.csv")
    assert list(dict.fromkeys(c["variant"])) == ["seed", "A0-4 check=save", "A0-4 check=flat"]
    code, _, err = run(
        "plot", tmp_path / "c.csv", "--kind", "compare", "--x", "dc", "-o", tmp_path / "c.png"
    )
    assert code == 0, err
    for name in ("h.png", "s.png", "c.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "args, words",
    [
        (["--kind", "heatmap", "--x", "level"], "needs --x KEY and --y KEY"),
        (["--kind", "heatmap", "--x", "level", "--y", "nope"], "no column 'nope'"),
        (["--kind", "survival"], "per-step rows"),
        (["--kind", "compare"], "'variant' column"),
        (["--kind", "pie"], "invalid choice"),
        (["--kind", "heatmap", "--x", "level", "--y", "dc", "--where", "level=99"], "no such rows"),
    ],
)
def test_bad_plots_get_one_line(tmp_path, args, words):
    csv = tmp_path / "e.csv"
    code, _, _ = run(
        "sweep", "dying", "--grid", "dc=14,20", "--grid", "level=1,5", "--exact-only", "-o", csv
    )
    assert code == 0
    code, _, err = run("plot", csv, *args, "-o", tmp_path / "x.png")
    assert code == 2 and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "x.png").exists()
    code, _, err = run(
        "plot", tmp_path / "missing.csv", "--kind", "heatmap", "-o", tmp_path / "x.png"
    )
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_only_on_a_terminal(tmp_path, quiet):
    pty = pytest.importorskip("pty")
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = _cli(
        "sweep",
        "dying",
        "--grid",
        "dc=14..30",
        "-n",
        "2000",
        "--seed",
        "1",
        "--workers",
        "1",
        "-o",
        tmp_path / "p.csv",
        *(["--quiet"] if quiet else []),
        stderr=slave,
    )
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    proc.communicate(timeout=60)
    os.close(master)
    assert proc.returncode == 0
    text = data.decode("utf-8", "replace")
    if quiet:
        assert text == ""
    else:
        assert "sweep dying:" in text and "/17 [" in text
