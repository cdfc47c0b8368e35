"""Where ``-o`` writes: files replaced atomically, links followed, FIFOs and devices written
directly, ``-`` as stdout; write errors as one line; a closed pipe ends quietly.

No test touches the machine's real devices: a FIFO stands for a device, and a "full
device" is a file under a file-size limit (``RLIMIT_FSIZE``) in a child process.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simkit.core.io import atomic_write, check_writable, format_frame, output_target
from simkit.core.params import ParamError
from simkit.testing import run_cli

ROOT = Path(__file__).resolve().parents[1]
EXACT = ("exact", "dying", "--format", "csv")


def _child(*argv, preexec=None, stdout=subprocess.PIPE, code=None, timeout=120):
    """Run ``simkit ARGV`` (or python CODE) in a child process: (status, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = (
        [sys.executable, "-c", code]
        if code
        else [sys.executable, "-m", "simkit.cli.main", *map(str, argv)]
    )
    proc = subprocess.run(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec,
        timeout=timeout,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _expected_csv() -> str:
    code, out, err = run_cli(*EXACT)
    assert code == 0, err
    return out


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# -- links ---------------------------------------------------------------------------


def test_output_through_a_link_replaces_the_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "data" / "table.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, out, err = run_cli(*EXACT, "-o", link)
    assert (code, out, err) == (0, "", "")
    assert link.is_symlink() and os.readlink(link) == str(target)  # still the same link
    assert target.read_text() == _expected_csv()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the target's permissions kept
    assert _leftovers(target.parent) == [] and _leftovers(tmp_path) == []


def test_output_through_a_dangling_link_creates_its_target(tmp_path):
    target = tmp_path / "new.csv"
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, err = run_cli(*EXACT, "-o", link)
    assert code == 0, err
    assert link.is_symlink() and target.read_text() == _expected_csv()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # a new file's usual mode


def test_new_and_existing_files_get_the_usual_permissions(tmp_path):
    new = tmp_path / "new.csv"
    assert run_cli(*EXACT, "-o", new)[0] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask
    old = tmp_path / "old.csv"
    old.write_text("x")
    os.chmod(old, 0o600)
    inode = old.stat().st_ino
    assert run_cli(*EXACT, "-o", old)[0] == 0
    assert stat.S_IMODE(old.stat().st_mode) == 0o600
    assert old.stat().st_ino != inode  # replaced by rename (atomic), not rewritten in place


# -- FIFOs (standing for devices) ---------------------------------------------------------


def _read_fifo(path: Path, box: list) -> threading.Thread:
    def reader():
        with open(path, "rb") as fh:
            box.append(fh.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    return t


def test_output_to_a_fifo_is_written_directly_and_never_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert output_target(fifo)[0] == "direct"
    box: list = []
    t = _read_fifo(fifo, box)
    code, out, err = run_cli(*EXACT, "-o", fifo)
    t.join(30)
    assert (code, out, err) == (0, "", "")
    assert box == [_expected_csv().encode()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file


def test_a_link_to_a_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    box: list = []
    t = _read_fifo(fifo, box)
    assert run_cli(*EXACT, "-o", link)[0] == 0
    t.join(30)
    assert box == [_expected_csv().encode()]
    assert link.is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_fifo_whose_reader_leaves_ends_quietly(tmp_path):
    """A closed pipe (the reader went away) ends quietly with status 0, as `| head` does."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def reader():
        with open(fifo, "rb"):
            pass  # opens, then closes at once: the writer gets EPIPE

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    # a sweep's CSV is large enough (about 1 MB) to overflow the pipe's buffer
    code, _, err = _child(
        "sweep",
        "dying",
        "--grid",
        "dc=1..100",
        "--grid",
        "save_bonus=-20..40",
        "--exact-only",
        "-o",
        fifo,
    )
    t.join(30)
    assert (code, err) == (0, ""), err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# -- a full device, standard output -----------------------------------------------------------


def _limit_file_size(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_is_one_line_and_leaves_the_old_file(tmp_path):
    out = tmp_path / "t.csv"
    out.write_text("the old table\n")
    code, stdout, err = _child(
        "sweep",
        "dying",
        "--grid",
        "dc=10..40",
        "--exact-only",
        "-o",
        out,
        preexec=_limit_file_size(2000),
    )
    assert code != 0 and stdout == ""
    assert (
        len(err.strip().splitlines()) == 1 and "cannot write" in err and "Traceback" not in err
    ), err
    assert out.read_text() == "the old table\n"  # complete or absent: the old file stays
    assert _leftovers(tmp_path) == []


def test_a_full_device_is_one_line_and_is_not_replaced(tmp_path):
    """A device written directly (never replaced) that fills up: one line, non-zero."""
    dev = tmp_path / "fakedev"
    dev.write_text("")
    inode = dev.stat().st_ino
    code = (
        "import sys, pathlib, simkit.core.io as io\n"
        f"dev = pathlib.Path({str(dev)!r})\n"
        "real = io.output_target\n"
        "io.output_target = lambda p: ('direct', dev) if pathlib.Path(p) == dev else real(p)\n"
        "from simkit.cli.main import main\n"
        "sys.exit(main(['sweep', 'dying', '--grid', 'dc=10..40', '--exact-only', "
        f"'-o', {str(dev)!r}]))\n"
    )
    status, stdout, err = _child(code=code, preexec=_limit_file_size(1000))
    assert status != 0 and stdout == ""
    assert (
        len(err.strip().splitlines()) == 1 and "File too large" in err and "Traceback" not in err
    ), err
    assert dev.stat().st_ino == inode  # written in place, never replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fakedev"]


def test_dash_is_stdout_and_creates_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*EXACT, "-o", "-")
    assert (code, err) == (0, "") and out == _expected_csv()
    code, out, err = run_cli("sweep", "dying", "--grid", "dc=14,16", "--exact-only", "-o", "-")
    assert code == 0 and out.startswith("dc,") and err == ""
    assert list(tmp_path.iterdir()) == []


def test_closed_stdout_is_one_line_and_non_zero():
    code, _, err = _child("exact", "dying", preexec=lambda: os.close(1), stdout=None)
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [
        "simkit: error: cannot write standard output: standard output is closed"
    ]


def test_a_closed_pipe_ends_quietly_with_status_0():
    """`simkit ... | head -1`: the reader closed the pipe; no traceback, no message, status 0."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r, w = os.pipe()
    os.close(r)  # the reader is gone before anything is written
    proc = subprocess.run(
        [sys.executable, "-m", "simkit.cli.main", *EXACT],
        cwd=ROOT,
        env=env,
        stdout=w,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    os.close(w)
    assert (proc.returncode, proc.stderr) == (0, "")


# -- checks before anything runs, strict JSON ---------------------------------------------


def test_check_writable_accepts_dash_links_and_fifos(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "l"
    link.symlink_to(tmp_path / "missing.csv")
    for p in ("-", fifo, link):
        check_writable(p)
    with pytest.raises(ParamError, match="does not exist"):
        check_writable(tmp_path / "nodir" / "x.csv")
    with pytest.raises(ParamError, match="directory"):
        check_writable(tmp_path)


def test_atomic_write_error_leaves_nothing(tmp_path):
    out = tmp_path / "x.csv"
    with pytest.raises(RuntimeError), atomic_write(out) as fh:
        fh.write("half")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_json_is_strict_with_null_for_missing_values():
    df = pd.DataFrame(
        {
            "outcome": ["dead", "stable"],
            "p": [0.5, np.nan],
            "exact": [np.inf, 0.25],
            "count": pd.array([1, pd.NA], dtype="Int64"),
        }
    )

    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")

    rows = json.loads(format_frame(df, "json"), parse_constant=refuse)
    assert rows == [
        {"outcome": "dead", "p": 0.5, "exact": None, "count": 1},
        {"outcome": "stable", "p": None, "exact": 0.25, "count": None},
    ]


def test_run_json_without_exact_column_is_strict():
    code, out, err = run_cli("run", "fatigue", "-n", "2000", "--seed", "1", "--format", "json")
    assert code == 0, err
    json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in JSON output"))
