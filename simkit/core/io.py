"""Output files that are only ever complete or absent, and table formatting.

What ``-o PATH`` does (:func:`atomic_write`):

- a regular file, or a path that does not exist yet: the text goes to a temporary file
  beside it (a hidden name short enough for the file system, whatever the length of the
  target's), which is renamed over it once complete (atomic: the path holds the old
  file or the complete new one, never half of one). An existing file keeps its owner and
  group where this process may set them (as ``cp -p`` does: root keeps both, another
  user keeps the group if it is one of theirs) and its mode, setuid, setgid and sticky
  bits included; not kept: ACLs, extended attributes, other hard links to the old file
  (they keep the old text). A new file gets ``0666`` less the umask;
- a symbolic link: it is followed, and its target is replaced as above (the link
  stays a link);
- anything else (a device such as ``/dev/null``, a FIFO, a socket): written directly,
  never replaced, never removed;
- ``-``: standard output.

:func:`check_writable` tries all this before anything is computed (a symbolic-link loop,
a name too long, a directory where no file can be created are refused in one line); a
write error after that (no space left, a closed standard output) is an :class:`OSError`;
the command line turns it into one line and a non-zero status.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import stat
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.core.params import ParamError

__all__ = [
    "STDOUT",
    "atomic_write",
    "check_writable",
    "format_frame",
    "is_parquet",
    "output_target",
    "remove_stale_temps",
    "write_parquet",
]

#: The output path that means standard output.
STDOUT = "-"


def output_target(path) -> tuple[str, Path]:
    """How ``path`` is written: ``("stdout", -)``, ``("direct", device)`` or ``("replace", file)``.

    A symbolic link is resolved first, so ``"replace"`` names the file that is
    replaced (the link's target), and a link to a device is written directly.
    """
    if str(path) == STDOUT:
        return "stdout", Path(STDOUT)
    p = Path(path)
    target = Path(os.path.realpath(p)) if p.is_symlink() else p
    try:
        mode = target.stat().st_mode
    except OSError:  # not there yet (or a dangling link): a new regular file
        return "replace", target
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return "replace", target
    return "direct", target


#: The longest file name assumed where the file system does not say (``NAME_MAX``, bytes).
NAME_MAX = 255


def name_max(directory: Path) -> int:
    """The longest file name (bytes) that ``directory``'s file system takes."""
    try:
        return int(os.pathconf(directory if str(directory) else ".", "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no pathconf
        return NAME_MAX


def short_name(name: str, room: int) -> str:
    """``name`` cut to at most ``room`` bytes in the file system's encoding (whole
    characters): the stem of a file written beside one with a long name."""
    raw = os.fsencode(name)
    if len(raw) <= room:
        return name
    return raw[: max(0, room)].decode(sys.getfilesystemencoding(), "ignore")


def _tmp_prefix(target: Path) -> str:
    """The temporary file's prefix: ``.NAME.`` (then 8 random characters and ``.tmp``),
    ``NAME`` cut so that the whole name fits the file system (a target of 255 bytes)."""
    parent = target.parent if str(target.parent) else Path(".")
    room = name_max(parent) - len(".") - len(".") - 8 - len(".tmp")
    return f".{short_name(target.name, room)}."


def remove_stale_temps(path) -> int:
    """Remove the temporary files that :func:`atomic_write` of ``path`` left behind when
    its process was killed (``kill -9`` during the final write): the hidden names
    ``.NAME.XXXXXXXX.tmp`` beside the target, nothing else. Only for a caller that holds
    the output exclusively (a sweep, under its journal's lock): another writer's temporary
    file would go too. Returns how many were removed."""
    import re

    kind, target = output_target(path)
    if kind != "replace":
        return 0
    parent = target.parent if str(target.parent) else Path(".")
    pattern = re.compile(re.escape(_tmp_prefix(target)) + r"[a-z0-9_]{8}\.tmp")
    removed = 0
    try:
        names = os.listdir(parent)
    except OSError:
        return 0
    for name in names:
        if pattern.fullmatch(name):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                os.unlink(parent / name)
                removed += 1
    return removed


def _refuse_os_error(name: str, path, exc: OSError, prefix: str | None = None) -> ParamError:
    """``-o PATH: reason`` (or ``PREFIX PATH: reason``) for an error found by checking."""
    import errno

    reason = {
        errno.ELOOP: "a loop of symbolic links",
        errno.ENAMETOOLONG: "the file name is too long for its file system",
    }.get(exc.errno or 0, exc.strerror or str(exc))
    return ParamError(f"{prefix or name} {path}: {reason}")


def check_writable(path, name: str = "-o") -> Path:
    """Fail early, with one clear line, when ``path`` cannot be written.

    Checked before anything is computed: a symbolic-link loop, a name too long, a
    missing or unwritable directory, and, for a file replaced atomically, that its
    temporary file can be created beside it (created and removed at once).
    """
    if not str(path).strip():
        raise ParamError(f"{name}: empty path, give a file path (or - for standard output)")
    if "\0" in str(path):
        raise ParamError(f"{name}: the path contains a NUL character")
    if str(path) == STDOUT:
        return Path(STDOUT)
    if str(path).endswith(("/", os.sep)):
        raise ParamError(f"{name} {path}: names a directory, give a file path")
    try:
        os.stat(path)  # follows links: a loop, a name too long, a directory not searchable
    except FileNotFoundError:
        pass  # a new file (or a dangling link: its target is created)
    except OSError as exc:
        raise _refuse_os_error(name, path, exc) from None
    kind, target = output_target(path)
    if kind == "direct":
        if not os.access(target, os.W_OK):
            raise ParamError(f"{name} {path}: not writable")
        return Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ParamError(f"{name} {path}: is a directory, give a file path")
    if not parent.is_dir():
        raise ParamError(f"{name} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ParamError(f"{name} {path}: directory {parent} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise ParamError(f"{name} {path}: file is not writable")
    try:  # what atomic_write will do first: a temporary file beside the target
        fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(target), suffix=".tmp", dir=parent)
    except OSError as exc:
        raise _refuse_os_error(name, path, exc, prefix="cannot write") from None
    os.close(fd)
    os.unlink(tmp)
    return Path(path)


def _new_file_mode() -> int:
    """The mode of a new file: 0666 less the process umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _keep_owner_and_mode(tmp: str, target: Path) -> None:
    """Give ``tmp`` the owner, group and mode (setuid/setgid/sticky included) of the file
    it replaces, as far as this process may; a new file's mode where there is none."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        os.chmod(tmp, _new_file_mode())  # mkstemp makes 0600
        return
    if (st.st_uid, st.st_gid) != _owner(tmp):
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:  # not root: the group, if it is one of ours
            with contextlib.suppress(OSError):
                os.chown(tmp, -1, st.st_gid)
    os.chmod(tmp, stat.S_IMODE(st.st_mode))  # after chown, which clears setuid/setgid


def _owner(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_uid, st.st_gid


def closed_stdout() -> OSError:
    """The error of writing to a standard output that was closed (``>&-``)."""
    import errno

    return OSError(errno.EBADF, "standard output is closed")


@contextlib.contextmanager
def _stdout(mode: str):
    out = sys.stdout
    if out is None:
        raise closed_stdout()
    if "b" in mode:
        buf = getattr(out, "buffer", None)
        if buf is None:  # a text stream without bytes (e.g. captured): bytes as latin-1 text
            yield _BytesToText(out)
        else:
            out.flush()
            yield buf
            buf.flush()
        return
    yield out
    out.flush()


class _BytesToText(io.RawIOBase):
    def __init__(self, text):
        self.text = text

    def writable(self):
        return True

    def write(self, b):
        self.text.write(bytes(b).decode("latin-1"))
        return len(b)


@contextlib.contextmanager
def _named_errors(path):
    """An OSError while writing (no space, broken pipe) names the output ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", **kwargs):
    """Write ``path`` so that it is either the complete new file or what was there before.

    A regular file (or a link's target) is written to a temporary file beside it and
    renamed into place on success; on any error the temporary file is removed. A
    device or FIFO is written directly (never replaced), ``-`` is standard output.
    See the module docs.
    """
    kind, target = output_target(path)
    if kind == "stdout":
        with _named_errors(STDOUT), _stdout(mode) as fh:
            yield fh
        return
    if kind == "direct":
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise ParamError(f"cannot write {path}: {exc.strerror or exc}") from None
        with _named_errors(path), os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        return
    parent = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(target), suffix=".tmp", dir=parent)
    except OSError as exc:
        raise ParamError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with _named_errors(path), os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _keep_owner_and_mode(tmp, target)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _jsonable(v):
    """A JSON value: numpy scalars as Python ones, NaN, infinities and missing values as null."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else None
    return v


def format_frame(df: pd.DataFrame, fmt: str) -> str:
    """Render a frame as ``table`` (aligned text), ``csv`` or ``json`` (list of records).

    JSON is strict (RFC 8259): a missing value or NaN is written ``null``.
    """
    if fmt == "csv":
        return df.to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        records = [
            {k: _jsonable(v) for k, v in row.items()} for row in df.to_dict(orient="records")
        ]
        return json.dumps(records, indent=1, allow_nan=False) + "\n"
    if fmt == "table":
        with pd.option_context(  # whole lines: never cut into column blocks at 200 columns
            "display.max_rows", 500, "display.expand_frame_repr", False, "display.max_columns", 50
        ):
            return df.to_string(index=False, float_format=lambda x: f"{x:.6f}") + "\n"
    raise ParamError(f"--format must be one of table, csv, json; got {fmt!r}")


def is_parquet(path) -> bool:
    """Whether ``-o path`` asks for Parquet (its name ends in ``.parquet``)."""
    return path is not None and str(path).lower().endswith(".parquet")


def write_parquet(df: pd.DataFrame, path) -> None:
    """Write ``df`` as a Parquet file at ``path``, atomically (:func:`atomic_write`).

    Needs pyarrow (``pip install 'simkit[parquet]'``; else one line saying so). Text
    columns holding other values too (a sensitivity's ``value``: numbers and None) are
    written as text; ``df.attrs`` are kept in the file's pandas metadata.
    """
    from simkit.core.extras import need

    need("pyarrow", f"-o {path}")
    if str(path) == STDOUT:
        raise ParamError("Parquet is binary: give -o FILE.parquet, not standard output")
    out = df.copy()
    for c in out.columns:
        col = out[c]
        if col.dtype == object and len({type(v) for v in col if v is not None}) > 1:
            out[c] = [None if v is None else str(v) for v in col]
    buf = io.BytesIO()
    out.to_parquet(buf, index=False)
    with atomic_write(path, "wb") as fh:
        fh.write(buf.getvalue())
