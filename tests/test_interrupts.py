"""Interrupted sweeps: the journal is consistent at every instant, locked while a sweep
runs, SIGTERM acts as Ctrl-C, and pool workers exit when their parent is gone.

The race of issue 14 (an interrupt after a journal line is on disk but before it is
recorded in memory, which made the clean-up delete the journal) is made deterministic
here by injecting the interrupt at that exact place, at every task of a sweep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simkit.analysis.sweep import Journal, SweepLocked, journal_path, journal_points, sweep_csv
from simkit.core.params import ParamError
from simkit.core.pools import parent_gone
from simkit.testing import run_cli

ROOT = Path(__file__).resolve().parents[1]
GRID = {"dc": [14, 16, 18, 20, 22, 24], "hit_chance": [0.0, 0.2]}  # 12 points
N = 2000
SEED = 7
CHUNK = 2  # 6 tasks of 2 points


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> bytes:
    out = tmp_path_factory.mktemp("ref") / "ref.csv"
    sweep_csv(out, "dying", GRID, N, SEED, chunk_size=CHUNK)
    return out.read_bytes()


def _lines_on_disk(jp: Path) -> int:
    return jp.read_bytes().count(b"\n") - 1 if jp.exists() else 0


def _interrupt_at(monkeypatch, method: str, k: int, *, half: bool = False):
    """Make the k-th call of Journal.<method> raise KeyboardInterrupt after it did its work
    (or, for ``add`` with ``half``, after writing half of its line, unsynced)."""
    calls = [0]
    real = getattr(Journal, method)

    def patched(self, *args):
        calls[0] += 1
        if calls[0] == k and half:
            keys, records = args
            line = json.dumps({"keys": keys, "records": records})
            self.fh.write(line[: len(line) // 2])
            self.fh.flush()
            raise KeyboardInterrupt
        result = real(self, *args)
        if calls[0] == k:
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(Journal, method, patched)


@pytest.mark.parametrize("k", range(1, 8))  # the header's sync, then each of the 6 tasks' lines
def test_interrupt_between_writing_and_recording_keeps_every_line(
    tmp_path, monkeypatch, reference, k
):
    out = tmp_path / "s.csv"
    jp = journal_path(out)
    _interrupt_at(monkeypatch, "_sync", k)  # the line is on disk, Journal.done not yet updated
    with pytest.raises(KeyboardInterrupt):
        sweep_csv(out, "dying", GRID, N, SEED, chunk_size=CHUNK)
    monkeypatch.undo()
    assert not out.exists()
    lines = k - 1  # task lines fully on disk when the interrupt came
    if lines == 0:
        assert not jp.exists()  # nothing was saved: nothing is left behind
    else:
        assert _lines_on_disk(jp) == lines  # the clean-up never deletes a journal holding a line
        assert journal_points(jp) == CHUNK * lines
    done: list[int] = []
    sweep_csv(
        out, "dying", GRID, N, SEED, chunk_size=CHUNK, resume=lines > 0, after_task=done.append
    )
    assert out.read_bytes() == reference and not jp.exists()
    # the saved points were not run again (all 6 tasks saved: nothing left to run)
    assert done[:1] == ([CHUNK * (lines + 1)] if lines < 6 else [])


@pytest.mark.parametrize("k", [1, 3, 6])
def test_interrupt_in_the_middle_of_a_line_keeps_the_journal(tmp_path, monkeypatch, reference, k):
    out = tmp_path / "s.csv"
    jp = journal_path(out)
    _interrupt_at(monkeypatch, "add", k, half=True)
    with pytest.raises(KeyboardInterrupt):
        sweep_csv(out, "dying", GRID, N, SEED, chunk_size=CHUNK)
    monkeypatch.undo()
    assert jp.exists() and journal_points(jp) == CHUNK * (k - 1)  # the half line is not counted
    sweep_csv(out, "dying", GRID, N, SEED, chunk_size=CHUNK, resume=True)
    assert out.read_bytes() == reference and not jp.exists()


@pytest.mark.parametrize("k", [2, 4])
def test_cli_message_counts_the_points_on_disk(tmp_path, monkeypatch, k):
    out = tmp_path / "s.csv"
    _interrupt_at(monkeypatch, "_sync", k)
    code, _, err = run_cli(
        "sweep", "dying", "--grid", "dc=14..44:2", "-n", "1000", "--seed", "3", "-o", out
    )
    monkeypatch.undo()
    saved = journal_points(journal_path(out))
    assert code == 130 and saved >= 1
    expected = (
        f"simkit: interrupted: {saved} points are saved in {journal_path(out)}; "
        "rerun with --resume (the same command) to continue"
    )
    assert err.strip().splitlines() == [expected]


def test_interrupt_before_any_point_says_nothing_was_saved(tmp_path, monkeypatch):
    out = tmp_path / "s.csv"
    _interrupt_at(monkeypatch, "_sync", 1)
    code, _, err = run_cli(
        "sweep", "dying", "--grid", "dc=14..20", "-n", "1000", "--seed", "3", "-o", out
    )
    monkeypatch.undo()
    assert code == 130 and "nothing was saved" in err and "--resume" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_header_only_journal_is_started_over(tmp_path, reference):
    """A sweep killed before its first point leaves only a header: no --resume needed."""
    out = tmp_path / "s.csv"
    jp = journal_path(out)
    jp.write_text('{"simkit_sweep_journal": 1, "sweep": {}}\n')
    sweep_csv(out, "dying", GRID, N, SEED, chunk_size=CHUNK)
    assert out.read_bytes() == reference and not jp.exists()


# -- the lock -----------------------------------------------------------------------------


def test_a_second_writer_is_refused_while_a_sweep_runs(tmp_path):
    jp = tmp_path / "s.csv.partial"
    first = Journal(jp, {"a": 1}, resume=False)
    try:
        for resume in (False, True):
            with pytest.raises(SweepLocked, match="another sweep is writing this output now"):
                Journal(jp, {"a": 1}, resume=resume)
        first.add(["k"], [{"counts": [1]}])
        with pytest.raises(SweepLocked):
            Journal(jp, {"a": 1}, resume=True)
    finally:
        first.close()
    again = Journal(jp, {"a": 1}, resume=True)  # the lock is gone with the first sweep
    assert again.done == {"k": {"counts": [1]}}
    again.close()
    with pytest.raises(ParamError, match="--resume"):  # not running, holding points: resume it
        Journal(jp, {"a": 1}, resume=False)


def _cli(*argv, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "simkit.cli.main", *map(str, argv)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def _wait_for_lines(jp: Path, proc, lines: int = 1, timeout: float = 120.0) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if _lines_on_disk(jp) >= lines:
            return
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        time.sleep(0.005)
    raise AssertionError("no journal line")


BIG = [
    "sweep",
    "dying",
    "--grid",
    "dc=14..45",
    "--grid",
    "hit_chance=0.1,0.3",
    "--seed",
    "5",
    "--workers",
    "1",
    "-n",
    "300000",
]  # 64 points in 4 tasks


@pytest.fixture(scope="module")
def big_reference(tmp_path_factory) -> bytes:
    ref = tmp_path_factory.mktemp("big") / "ref.csv"
    code, _, err = run_cli(*BIG, "-o", ref)
    assert code == 0, err
    return ref.read_bytes()


def test_second_cli_sweep_on_one_output_is_refused_and_the_first_finishes(tmp_path):
    out = tmp_path / "k.csv"
    first = _cli(*BIG, "-o", out)
    _wait_for_lines(journal_path(out), first)
    code, _, err = run_cli(*BIG, "-o", out)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "another sweep is writing this output now" in err and "--resume" not in err, err
    code, _, err = run_cli(*BIG, "--resume", "-o", out)  # nor with --resume
    assert code == 2 and "another sweep is writing" in err
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert out.exists() and not journal_path(out).exists()


def test_sigterm_is_handled_as_ctrl_c(tmp_path, big_reference):
    out = tmp_path / "k.csv"
    jp = journal_path(out)
    proc = _cli(*BIG, "-o", out)
    _wait_for_lines(jp, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    saved = journal_points(jp)
    assert saved >= 1 and f"terminated: {saved} points are saved" in err and "Traceback" not in err
    assert not out.exists()
    code, _, err = run_cli(*BIG, "--resume", "-o", out)
    assert code == 0, err
    assert out.read_bytes() == big_reference


# -- kill and resume under CPU load -------------------------------------------------------------


def _burn(seconds: float) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", f"import time\nt=time.time()\nwhile time.time()-t<{seconds}: pass"]
    )


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_kill_and_resume_under_cpu_load(tmp_path, big_reference, sig):
    """Busy processes compete for the CPUs while the sweep runs, is killed, and resumes."""
    hogs = [_burn(60) for _ in range(max(2, os.cpu_count() or 1))]
    try:
        out = tmp_path / "k.csv"
        jp = journal_path(out)
        proc = _cli(*BIG, "-o", out)
        _wait_for_lines(jp, proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == (-signal.SIGKILL if sig == signal.SIGKILL else 130), err
        assert not out.exists() and jp.exists()
        lines = _lines_on_disk(jp)
        assert 1 <= lines and journal_points(jp) >= 1
        code, _, err = run_cli(*BIG, "--resume", "-o", out)
        assert code == 0, err
        assert not jp.exists()
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert out.read_bytes() == big_reference


# -- workers whose parent is gone ---------------------------------------------------------------

POOL_OWNER = """
import os, sys, time
from simkit.core.pools import worker_pool
ex = worker_pool(2)
futs = [ex.submit(time.sleep, 300) for _ in range(2)]
while len(ex._processes) < 2:
    time.sleep(0.05)
time.sleep(1.0)
print(" ".join(str(p) for p in ex._processes), flush=True)
time.sleep(300)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
def test_workers_exit_when_their_parent_is_killed_and_left_a_zombie():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    owner = subprocess.Popen(
        [sys.executable, "-c", POOL_OWNER], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        workers = [int(p) for p in owner.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(p) for p in workers)
        os.kill(owner.pid, signal.SIGKILL)  # not waited for: the owner stays a zombie
        t0 = time.monotonic()
        while any(_alive(p) for p in workers) and time.monotonic() - t0 < 20:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers), "workers outlived their killed parent"
        assert parent_gone(owner.pid, os.getppid())  # a zombie counts as gone
    finally:
        owner.kill()
        owner.wait()
        owner.stdout.close()


def test_parent_gone_is_false_for_a_live_parent():
    assert not parent_gone(os.getpid(), os.getppid())
    assert parent_gone(os.getpid(), os.getppid() + 1)  # re-parented


def test_stop_now_waits_for_the_pools_manager_thread():
    """After ``stop_now`` the pool's manager thread is gone, so the interpreter's exit
    cannot wake it through a pipe it is closing ("Bad file descriptor", a second stderr
    line after a sweep's Ctrl-C). ``shutdown(wait=False)`` drops the pool's reference to
    the thread: it must be taken before."""
    from simkit.core.pools import stop_now, worker_pool

    pool = worker_pool(1)
    assert pool.submit(abs, -3).result(timeout=60) == 3
    manager = pool._executor_manager_thread
    assert manager is not None and manager.is_alive()
    stop_now(pool)
    assert not manager.is_alive()
