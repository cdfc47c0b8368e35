"""Output files that are only ever complete or absent, and table formatting."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.core.params import ParamError

__all__ = ["atomic_write", "check_writable", "format_frame"]


def check_writable(path, name: str = "-o") -> Path:
    """Fail early, with one clear line, when ``path`` cannot be written."""
    if not str(path).strip():
        raise ParamError(f"{name}: empty path, give a file path")
    if str(path).endswith(("/", os.sep)):
        raise ParamError(f"{name} {path}: names a directory, give a file path")
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ParamError(f"{name} {path}: is a directory, give a file path")
    if not parent.is_dir():
        raise ParamError(f"{name} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ParamError(f"{name} {path}: directory {parent} is not writable")
    if p.exists() and not os.access(p, os.W_OK):
        raise ParamError(f"{name} {path}: file is not writable")
    return p


def _file_mode(path: Path) -> int:
    """The existing file's mode, else 0666 less the process umask."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", **kwargs):
    """Write to a temporary file beside ``path`` and rename it into place on success.

    On any error the temporary file is removed, so ``path`` is either the complete
    new file or whatever was there before, never a half-written file.
    """
    p = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent if str(p.parent) else ".")
    except OSError as exc:
        raise ParamError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(p))  # mkstemp makes 0600; give the mode a new file would get
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def format_frame(df: pd.DataFrame, fmt: str) -> str:
    """Render a frame as ``table`` (aligned text), ``csv`` or ``json`` (list of records)."""
    if fmt == "csv":
        return df.to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        records = [{k: _jsonable(v) for k, v in row.items()} for row in df.to_dict(orient="records")]
        return json.dumps(records, indent=1) + "\n"
    if fmt == "table":
        with pd.option_context("display.max_rows", 500, "display.width", 200, "display.max_columns", 50):
            return df.to_string(index=False, float_format=lambda x: f"{x:.6f}") + "\n"
    raise ParamError(f"--format must be one of table, csv, json; got {fmt!r}")
