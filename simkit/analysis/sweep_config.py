"""Sweep files: a sweep's settings in TOML (``simkit sweep --config FILE``,
``sweep(model, "FILE.toml")``), read with one-line errors and bounded in size and depth."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from simkit.analysis.scheduler import check_scheduler
from simkit.core.params import ParamError, shown

__all__ = [
    "CONFIG_KEYS",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_DEPTH",
    "is_simkit_output",
    "load_config",
]


#: The keys a sweep file may hold.
CONFIG_KEYS = {
    "model",
    "preset",
    "n",
    "seed",
    "output",
    "grid",
    "set",
    "exact_only",
    "survival",
    "executor",
    "scheduler",
    "workers",
    "confidence",
}


def load_config(path) -> dict:
    """Read a sweep TOML file (``tomllib``); one-line :class:`ParamError` when bad.

    Layout::

        model = "dying"          # required
        preset = "pf2e-core"     # optional
        n = 100000               # tracks per point
        seed = 1
        output = "dying.csv"     # optional if -o is given
        exact_only = false
        confidence = 0.95        # confidence level of ci_low/ci_high
        [set]                    # fixed values
        hit_chance = 0.1
        [grid]                   # axes: lists, or "A..B" / "A..B:STEP" strings
        dc = [14, 18, 22]
        level = "1..20"

    Relative paths in the file are relative to the file's folder, not to the current
    one: ``output`` and every ``@FILE`` (an actor file in ``monsters``, ``plan``...), so
    a sweep file means the same from wherever it is run.
    """
    cfg = _read_toml(path)
    _relative_to(cfg, Path(path).parent)
    if (
        "level" in cfg
    ):  # the character level is a [set] or [grid] key; the confidence level "confidence"
        raise ParamError(
            f"--config {path}: level is the character level: put it under [set] (level = 5) or "
            f"[grid]; the confidence level is confidence = 0.95"
        )
    unknown = set(cfg) - CONFIG_KEYS
    if unknown:
        raise ParamError(
            f"--config {path}: unknown key {sorted(unknown)[0]!r}; "
            f"known: {', '.join(sorted(CONFIG_KEYS))}"
        )
    if "model" not in cfg or not isinstance(cfg["model"], str):
        raise ParamError(f'--config {path}: needs model = "NAME"')
    for table in ("grid", "set"):
        if table in cfg and not isinstance(cfg[table], dict):
            raise ParamError(f"--config {path}: [{table}] must be a table of KEY = values")
    for key in ("exact_only", "survival", "resume", "quiet"):
        if key in cfg and not isinstance(cfg[key], bool):
            raise ParamError(f"--config {path}: {key} must be true or false, got {cfg[key]!r}")
    if "n" in cfg:
        n = cfg["n"]
        if isinstance(n, float) and n.is_integer():
            cfg["n"] = n = int(n)  # n = 1e5, as on the command line
        from simkit.core.limits import MAX_N

        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
            raise ParamError(
                f"--config {path}: n must be a positive integer up to {MAX_N:.0e}, got {shown(n)}"
            )
    if "seed" in cfg and (
        isinstance(cfg["seed"], bool) or not isinstance(cfg["seed"], int) or cfg["seed"] < 0
    ):
        raise ParamError(
            f"--config {path}: seed must be a non-negative integer, got {cfg['seed']!r}"
        )
    if "confidence" in cfg:  # checked here for run and exact too (a string: no number)
        c = cfg["confidence"]
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c < 1:
            raise ParamError(
                f"--config {path}: confidence must be a number in (0, 1) (e.g. 0.95), "
                f"got {shown(c)}"
            )
    for key in ("preset", "output", "executor", "scheduler"):
        if key in cfg and not isinstance(cfg[key], str):
            raise ParamError(f"--config {path}: {key} must be a string, got {shown(cfg[key])}")
    if "scheduler" in cfg:
        check_scheduler(cfg["scheduler"], f"--config {path}: scheduler")
    return cfg


#: Limits of a sweep TOML file: its size in bytes, and how deep values nest (a list of
#: values under [grid] is depth 3: the file, the table, the list).
MAX_CONFIG_BYTES = 1_000_000
MAX_CONFIG_DEPTH = 3


#: An ``@FILE`` at the start of a value or of an item of a list (``"boar,@my.json"``,
#: ``"[@a.json,boss]"``); not a Fortitude schedule's ``expert@9``.
_AT_FILE = re.compile(r"(^|[,\[\s;|])@([^,()\[\]\s;|]+)")


def _relative_to(cfg: dict, folder: Path) -> None:
    """Resolve ``output`` and the ``@FILE`` paths of ``[set]`` and ``[grid]`` against the
    sweep file's ``folder`` (absolute paths are kept)."""
    if str(folder) in ("", "."):
        return

    def move(text: str) -> str:
        return str(folder / text) if text and not Path(text).is_absolute() else text

    def at_files(value):
        if not isinstance(value, str) or "@" not in value:
            return value
        return _AT_FILE.sub(lambda m: m.group(1) + "@" + move(m.group(2)), value)

    if isinstance(cfg.get("output"), str) and cfg["output"] not in ("", "-"):
        cfg["output"] = move(cfg["output"])
    for table in ("set", "grid"):
        got = cfg.get(table)
        if isinstance(got, dict):
            for key, value in got.items():
                got[key] = (
                    [at_files(v) for v in value] if isinstance(value, list) else at_files(value)
                )


def is_simkit_output(path) -> bool:
    """Whether the file at ``path`` looks like a table simkit wrote (CSV, JSON or text:
    its first 64 KiB name the ``outcome`` and ``point_seed`` columns), or is empty."""
    try:
        with Path(path).open("rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False
    return not head or (b"outcome" in head and b"point_seed" in head)


def _read_toml(path) -> dict:
    """A TOML file as a dict, or one line (:class:`ParamError`): missing, too big, not UTF-8,
    malformed, or values nested deeper than a table of lists."""
    p = Path(path)
    where = f"--config {path}" if len(str(path)) <= 200 else f"--config {shown(str(path))}"
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ParamError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise ParamError(f"{where}: is a directory, give a TOML file") from None
    except OSError as exc:
        raise ParamError(f"{where}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ParamError(
            f"{where}: larger than {MAX_CONFIG_BYTES:,} bytes; a sweep file is a few lines"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParamError(f"{where}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    depth = _bracket_depth(text)
    if depth > MAX_CONFIG_DEPTH:
        raise ParamError(
            f"{where}: values nested {depth} deep; at most a list of values under "
            "[grid] or a value under [set]"
        )
    try:
        cfg = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParamError(f"{where}: malformed TOML: {shown(str(exc), 200)}") from None
    except RecursionError:  # pragma: no cover - caught by the depth check above
        raise ParamError(f"{where}: values nested too deep") from None
    for table in ("grid", "set"):
        if isinstance(cfg.get(table), dict) and isinstance(cfg[table].get("dying"), dict):
            # TOML reads dying.check = "flat" as a table: the dying.KEY keys
            # (simkit.models.dying_keys), in their place
            cfg[table] = {
                k2: v2
                for k, v in cfg[table].items()
                for k2, v2 in (
                    ((f"dying.{s}", w) for s, w in v.items()) if k == "dying" else ((k, v),)
                )
            }
        for key, value in (
            (cfg.get(table) or {}).items() if isinstance(cfg.get(table), dict) else ()
        ):
            values = value if isinstance(value, list) else [value]
            if table == "set" and isinstance(value, list):
                raise ParamError(
                    f"{where}: [set] {key} must be one value; lists of values go under [grid]"
                )
            for v in values:
                if isinstance(v, (dict, list)):
                    raise ParamError(
                        f"{where}: [{table}] {key}: values must be numbers, strings or "
                        "true/false, not tables or nested lists"
                    )
    for key, value in cfg.items():
        if key not in ("grid", "set") and isinstance(value, (dict, list)):
            raise ParamError(f"{where}: {key} must be a single value, not a table or a list")
    return cfg


def _bracket_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` in TOML values, outside strings and comments (1 + depth)."""
    depth = best = 0
    quote = None
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if quote:
            if c == "\\" and quote in ('"', '"""'):
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            i += 1
            continue
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            at_line_start = False
            continue
        if c == "\n":
            at_line_start = depth == 0
        elif c in "[{":
            if at_line_start and depth == 0 and c == "[":  # a [table] or [[array]] header
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            depth += 1
            best = max(best, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
        elif not c.isspace():
            at_line_start = False
        i += 1
    return best + 1
