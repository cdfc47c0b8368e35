"""A sweep's journal: finished tasks on disk, consistent at every instant, locked against
a second writer."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.core.params import ParamError

JOURNAL_FORMAT = 1


def _json_value(v):
    """Journal values json cannot write: missing values (pd.NA) and numpy scalars."""
    if v is pd.NA or v is None:
        return None
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"cannot write {type(v).__name__} to the sweep journal")


class SweepLocked(ParamError):
    """Another running sweep holds the lock on this output's journal."""


class Journal:
    """``FILE.partial``: a header line, then one JSON line per finished task, fsynced.

    Consistent at every instant: a point counts as saved (:attr:`saved`, the CLI's
    message) only once its line is on disk, and :meth:`discard` never deletes a
    journal that holds any line past its header, whatever was interrupted where. While
    the sweep runs, the journal is locked (``flock``): a second sweep of the same
    output is refused (:class:`SweepLocked`) instead of writing into it.
    """

    def __init__(self, path, fingerprint: dict, resume: bool):
        self.path = Path(path)
        self.done: dict[str, dict] = {}
        self.fh = None
        header = json.dumps(
            {"simkit_sweep_journal": JOURNAL_FORMAT, "sweep": fingerprint},
            sort_keys=True,
            default=str,
        )
        fd = self._open_locked()
        fresh = False
        try:
            size = os.fstat(fd).st_size
            holds_points = size > 0 and self._holds_points()
            if size > 0 and holds_points and not resume:
                raise ParamError(
                    f"{self.path} holds an interrupted sweep of this output: "
                    "rerun with --resume to continue it, or delete it to start over"
                )
            if size > 0 and (resume or holds_points):
                self._load(header)
                self.fh = os.fdopen(fd, "a", encoding="utf-8")
            else:  # new, empty, or only a header (a sweep killed before any point): start over
                fresh = True
                os.ftruncate(fd, 0)
                self.fh = os.fdopen(fd, "w", encoding="utf-8")
                self.fh.write(header + "\n")
                self._sync()
                _fsync_dir(self.path.parent)
        except BaseException:
            if fresh:  # interrupted while writing the header: no point saved, leave nothing behind
                self.path.unlink(missing_ok=True)
            if self.fh is None:
                os.close(fd)
            else:
                self.fh.close()
            raise
        self.header_size = self._first_line_size()  # bytes of the header line on disk

    def _open_locked(self) -> int:
        """Open (or create) the journal and take its lock; refuse when another sweep holds it."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no flock, no lock
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        for _ in range(10):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise SweepLocked(
                    f"{self.path} is in use: another sweep is writing this output now; "
                    "wait for it to finish (or stop it), or write to another -o FILE"
                ) from None
            except OSError:  # a file system without locks: go on unlocked
                return fd
            try:  # the holder may have finished and removed the file meanwhile: lock the new one
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)
        raise SweepLocked(
            f"{self.path}: could not lock the sweep journal (another sweep keeps replacing it)"
        )

    def _holds_points(self) -> bool:
        with self.path.open("rb") as fh:
            fh.readline()
            return bool(fh.read(1))

    def _first_line_size(self) -> int:
        with self.path.open("rb") as fh:
            return len(fh.readline())

    def _load(self, header: str) -> None:
        good = 0
        with self.path.open("rb") as fh:
            data = fh.read()
        lines = data.split(b"\n")
        first = lines[0].decode("utf-8", "replace") if lines else ""
        try:
            if json.loads(first) != json.loads(header):
                raise ValueError
        except ValueError:
            raise ParamError(
                f"{self.path} was written by a different sweep "
                "(model, grid, n, seed, mode or version differ): "
                "rerun the same command, or delete it to start over"
            ) from None
        good = len(lines[0]) + 1
        for line in lines[1:]:
            if not line.strip():
                break
            try:
                rec = json.loads(line)
                for key, r in zip(rec["keys"], rec["records"]):
                    self.done[key] = r
            except (ValueError, KeyError, TypeError):
                break  # a line cut short by a kill: drop it and what follows
            good += len(line) + 1
        if good < len(data):
            with self.path.open("r+b") as fh:
                fh.truncate(good)

    def add(self, keys: list[str], records: list[dict]) -> None:
        """Append one task's line and fsync it; only then are its points counted as saved."""
        line = json.dumps({"keys": keys, "records": records}, default=_json_value) + "\n"
        fh = self.fh
        assert fh is not None, "__init__ opens the journal or raises"
        fh.write(line)
        self._sync()
        self.done.update(zip(keys, records))

    @property
    def saved(self) -> int:
        """Points whose lines are on disk (read back from the file, so never more than there)."""
        return journal_points(self.path)

    def _sync(self):
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self):
        """Close (and unlock) the journal, keeping the file."""
        if self.fh is not None and not self.fh.closed:
            self.fh.close()

    def remove(self):
        """Delete the journal (the sweep is complete: its table is written)."""
        self.path.unlink(missing_ok=True)  # unlink while holding the lock, then release it
        self.close()

    def discard(self) -> bool:
        """After an interruption or error: delete the journal only if it holds no line past its
        header (nothing was saved); return whether the file is kept.

        Decided from the file on disk, not from memory, so an interruption between writing a line
        and recording it never loses that line.
        """
        try:
            self._sync()
        except (OSError, ValueError):
            pass
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            self.close()
            return False
        if size > self.header_size:
            self.close()
            return True
        self.remove()
        return False


def journal_points(path) -> int:
    """How many points the journal at ``path`` holds on disk (0 when there is none)."""
    try:
        with Path(path).open("rb") as fh:
            fh.readline()
            n = 0
            for line in fh:
                try:
                    n += len(json.loads(line)["keys"])
                except (ValueError, KeyError, TypeError):
                    break
            return n
    except OSError:
        return 0


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path if str(path) else ".", os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def journal_path(output) -> Path:
    """The journal of a sweep written to ``output`` (beside a link's target):
    ``NAME.partial``; for a name too long for that, ``NAME`` cut short and the first 12
    hex digits of its SHA-256 (``NAM~0123456789ab.partial``: still one per output)."""
    import hashlib

    from simkit.core.io import name_max, output_target, short_name

    _, p = output_target(output)
    room = name_max(p.parent if str(p.parent) else Path(".")) - len(".partial")
    if len(os.fsencode(p.name)) <= room:
        return p.with_name(p.name + ".partial")
    digest = hashlib.sha256(os.fsencode(p.name)).hexdigest()[:12]
    return p.with_name(f"{short_name(p.name, room - 13)}~{digest}.partial")
