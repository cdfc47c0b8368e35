"""Sweep grids: axes of values, TOML files, and *sweep keys* derived from levels.

A grid is a mapping ``key -> values``; its points are the Cartesian product of the
axes (the last axis varies fastest). A key is either

- a **model parameter** (``dc``, ``save_bonus``, ``max_rounds``...), used as is; or
- a **sweep key** (:data:`SWEEP_KEYS`), not a parameter of the model, from which
  model parameters are *derived* with the numbers of :mod:`simkit.rules.pf2e.levels`:

  ``level`` (a PC's level, 1..20)
      sets, among ``save_bonus`` (Fortitude save, :func:`~simkit.rules.pf2e.levels.fortitude_save`),
      ``hp_max`` (:func:`~simkit.rules.pf2e.levels.pc_hp`), ``pp_max`` and ``pp`` (full
      perseverance points, :func:`~simkit.rules.pf2e.levels.pp_max`), those the model has.
  ``level_diff`` (monster level - PC level, -24..24)
      sets ``monster_level = level + level_diff`` (needs ``level``).
  ``monster_level`` (0..24), for a model that has ``dc`` but no ``monster_level``
      sets ``dc`` to the high DC for a monster of that level (R0-06).
  ``pc_fort``, ``pc_con``, ``pc_con_boosts``, ``pc_items``, ``pc_ancestry_hp``,
  ``pc_class_hp``, ``pc_key``
      the character those numbers describe (defaults: a fighter with Con +2 taking
      every Con boost, resilient runes, human 8 + fighter 10 HP, key ability +4).

A sweep key is used only when the model does not have a parameter of that name (the
``recovery`` model's own ``level`` stays its own). A parameter given explicitly, on
the grid or as a fixed value, wins over a derived one; the derived values used are
reported as columns of the sweep's table. Example: ``{"level": range(1, 21),
"level_diff": [-2, 0, 2]}`` on ``dying`` sweeps the Fortitude save and the
monster's DC together.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simkit.core.numbers import ascii_int
from simkit.core.params import ParamError, allowed, check_value, parse_value, shown, spec
from simkit.rules.pf2e import levels

__all__ = [
    "SWEEP_KEYS",
    "Grid",
    "SweepKey",
    "load_config",
    "make_grid",
    "parse_axis",
    "parse_grid_args",
    "MAX_POINTS",
    "check_grid_size",
    "check_scheduler",
    "resolve_point",
    "sweep_keys_for",
]


#: Most points a grid may have unless the caller raises the limit (``max_points=``,
#: ``--max-points``): checked from the axes' lengths before any point is built (a
#: 200,000-point exact grid took about 800 MB).
MAX_POINTS = 100_000


def check_grid_size(count: int, max_points: int | None = None, what: str = "the grid") -> None:
    """Refuse a grid of ``count`` points past ``max_points`` (default :data:`MAX_POINTS`)."""
    limit = MAX_POINTS if max_points is None else max_points
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ParamError(f"max_points must be a positive integer, got {limit!r}")
    if count > limit:
        raise ParamError(
            f"{what} has {count:,} points, more than the limit of {limit:,}: sweep fewer values, "
            f"or raise the limit with --max-points {count} (max_points={count})"
        )


def _meta(default, kind, help, lo=None, hi=None, choices=(), optional=False):
    return dict(
        default=default,
        kind=kind,
        help=help,
        lo=lo,
        hi=hi,
        choices=tuple(choices),
        optional=optional,
        unit="",
        rule="",
    )


@dataclass(frozen=True)
class SweepKey:
    """A grid key that is not a model parameter but sets some (see module docs)."""

    name: str
    meta: dict
    #: model parameters (or later sweep keys) it can set
    sets: tuple[str, ...] = ()
    #: point values -> {target: value}, for every target in ``sets``
    derive: Callable[[dict], dict] | None = None
    #: other keys it reads; an option has no ``sets``
    needs: tuple[str, ...] = ()
    #: its value combines with an explicit value of the target instead of yielding to it
    adds: bool = False


def _pc(values: dict) -> dict:
    opt = {k: values.get(k, SWEEP_KEYS[k].meta["default"]) for k in PC_OPTIONS}
    return opt


def _derive_level(values: dict) -> dict:
    lvl = values["level"]
    o = _pc(values)
    try:
        save = levels.fortitude_save(
            lvl, o["pc_fort"], o["pc_con"], o["pc_items"], o["pc_con_boosts"]
        )
    except ValueError as exc:
        raise ParamError(str(exc)) from None
    pp = levels.pp_max(lvl, o["pc_key"])
    return {
        "save_bonus": save,
        "hp_max": levels.pc_hp(
            lvl, o["pc_ancestry_hp"], o["pc_class_hp"], o["pc_con"], o["pc_con_boosts"]
        ),
        "pp_max": pp,
        "pp": pp,
    }


def _derive_level_diff(values: dict) -> dict:
    if "level" not in values:
        raise ParamError("level_diff needs level: give level on the grid or as a fixed value")
    return {"monster_level": values["level"] + values["level_diff"]}


def _derive_monster_level(values: dict) -> dict:
    try:
        return {"dc": levels.monster_high_dc(values["monster_level"])}
    except ValueError as exc:
        raise ParamError(str(exc)) from None


def _derive_fatigue(values: dict) -> dict:
    """days_without_* -> check_penalty (R4-01..R4-03), added to a check_penalty given."""
    from simkit.rules.penalties import FATIGUE_KEYS, penalty

    days = {k: values[k] for k in FATIGUE_KEYS if k in values}
    p = penalty(
        days.get("days_without_sleep", 0),
        days.get("days_without_food", 0),
        days.get("days_without_water"),
    )
    total = values.get("check_penalty", 0) + p
    if total < -50:
        given = ", ".join(f"{k}={v}" for k, v in days.items())
        raise ParamError(
            f"{given} give a check penalty of {total}; the allowed total is at least -50"
        )
    return {"check_penalty": total}


def _fatigue_key(name: str, help: str) -> SweepKey:
    return SweepKey(
        name,
        _meta(None, "int", help, 0, 100),
        sets=("check_penalty",),
        derive=_derive_fatigue,
        adds=True,
    )


PC_OPTIONS = (
    "pc_fort",
    "pc_con",
    "pc_con_boosts",
    "pc_items",
    "pc_ancestry_hp",
    "pc_class_hp",
    "pc_key",
)

#: Sweep keys, in the order they are derived.
SWEEP_KEYS: dict[str, SweepKey] = {
    k.name: k
    for k in (
        SweepKey(
            "level",
            _meta(None, "int", "PC level: sets save_bonus, hp_max, pp_max, pp", 1, 20),
            sets=("save_bonus", "hp_max", "pp_max", "pp"),
            derive=_derive_level,
            needs=PC_OPTIONS,
        ),
        SweepKey(
            "level_diff",
            _meta(None, "int", "monster level - PC level: sets monster_level", -24, 24),
            sets=("monster_level",),
            derive=_derive_level_diff,
            needs=("level",),
        ),
        SweepKey(
            "monster_level",
            _meta(None, "int", "monster level: sets dc to its high DC (R0-06)", 0, 24),
            sets=("dc",),
            derive=_derive_monster_level,
        ),
        _fatigue_key("days_without_sleep", "days without sleep: sets check_penalty (R4-01, R4-03)"),
        _fatigue_key(
            "days_without_food", "days without food (and water): sets check_penalty (R4-02)"
        ),
        _fatigue_key("days_without_water", "separate counters: days without water (A4-2)"),
        SweepKey(
            "pc_fort",
            _meta(
                "fighter",
                "schedule",
                "Fortitude rank schedule: fighter, barbarian, wizard or 'trained@1,expert@9'",
            ),
        ),
        SweepKey("pc_con", _meta(2, "int", "PC Constitution modifier at level 1", -5, 10)),
        SweepKey(
            "pc_con_boosts",
            _meta(True, "bool", "Constitution takes the boosts of levels 5/10/15/20"),
        ),
        SweepKey(
            "pc_items",
            _meta(
                "runes",
                "choice",
                "item bonus to saves: resilient runes (+1/8, +2/14, +3/20)",
                choices=tuple(levels.ITEM_SCHEDULES),
            ),
        ),
        SweepKey("pc_ancestry_hp", _meta(8, "int", "ancestry HP", 0, 100)),
        SweepKey("pc_class_hp", _meta(10, "int", "class HP per level", 0, 100)),
        SweepKey("pc_key", _meta(4, "int", "key ability modifier (PP max)", -5, 10)),
    )
}


def sweep_keys_for(model_cls) -> dict[str, SweepKey]:
    """The sweep keys that mean something for ``model_cls`` (in derivation order)."""
    params = spec(model_cls)
    out: dict[str, SweepKey] = {}
    reachable = set(params)
    # derivers in reverse order: a key is useful if one of its targets is reachable
    for name in reversed(list(SWEEP_KEYS)):
        k = SWEEP_KEYS[name]
        if k.derive is None or name in params:
            continue
        if any(t in reachable for t in k.sets):
            out[name] = k
            reachable.add(name)
    options = {
        n for k in out.values() for n in k.needs if n in SWEEP_KEYS and SWEEP_KEYS[n].derive is None
    }
    ordered = {n: SWEEP_KEYS[n] for n in SWEEP_KEYS if n in out or n in options}
    return ordered


def _known(model_cls) -> dict[str, dict]:
    """key -> metadata, for model parameters then sweep keys."""
    known = dict(spec(model_cls))
    for name, k in sweep_keys_for(model_cls).items():
        known[name] = k.meta
    return known


def _check(name: str, meta: dict, value):
    if meta["kind"] == "schedule":
        try:
            levels.parse_schedule(value)
        except (ValueError, TypeError) as exc:
            raise ParamError(f"{name}={value!r} is not allowed: {exc}") from None
        return value
    return check_value(name, meta, value)


def _parse(name: str, meta: dict, text: str):
    if meta["kind"] == "schedule":
        return _check(name, meta, text.strip())
    return parse_value(name, meta, text)


def _unknown(key: str, model_cls, where: str) -> ParamError:
    params = ", ".join(spec(model_cls))
    extra = ", ".join(sweep_keys_for(model_cls))
    more = f"; sweep keys: {extra}" if extra else ""
    return ParamError(
        f"{where} {key}: unknown key for model {model_cls.name!r}; parameters: {params}{more}"
    )


@dataclass(frozen=True)
class Grid:
    """Axes (key -> tuple of values, in order) and fixed values, checked for a model."""

    model: type
    axes: dict[str, tuple]
    fixed: dict[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        n = 1
        for v in self.axes.values():
            n *= len(v)
        return n

    def points(self):
        """Grid points (dicts key -> value), last axis fastest."""
        keys = list(self.axes)
        for combo in itertools.product(*self.axes.values()):
            yield dict(zip(keys, combo))


def _values_of(key: str, meta: dict, raw, max_points: int | None = None) -> tuple:
    """Python values of one axis: a list/tuple/range, an 'A..B[:S]' string or a scalar."""
    if isinstance(raw, str):
        return parse_axis(key, meta, raw, max_points)
    if isinstance(raw, range) or isinstance(raw, (list, tuple)):
        vals = tuple(raw)
    else:
        vals = (raw,)
    if not vals:
        raise ParamError(f"grid {key}: empty list of values")
    return tuple(_parse(key, meta, v) if isinstance(v, str) else _check(key, meta, v) for v in vals)


def parse_axis(key: str, meta: dict, text: str, max_points: int | None = None) -> tuple:
    """Values of ``KEY=...`` text: ``V1,V2,...`` or an integer range ``A..B`` / ``A..B:STEP``.

    Every number in ASCII digits, without underscores (:mod:`simkit.core.numbers`; a list's
    values through :func:`~simkit.core.params.parse_value`, the same grammar).

    A range's length is checked against ``max_points`` (:func:`check_grid_size`) before its
    values are built.
    """
    t = text.strip()
    if not t:
        raise ParamError(f"grid {key}: no values; write {key}=V1,V2,... or {key}=A..B")
    if ".." in t:
        lo, _, rest = t.partition("..")
        hi, _, step = rest.partition(":")
        try:  # ASCII digits, no underscores (simkit.core.numbers)
            a, b = ascii_int(lo), ascii_int(hi)
            s = ascii_int(step) if step else 1
        except ValueError:
            raise ParamError(
                f"grid {key}={text}: a range A..B[:STEP] needs integers; "
                "list other values with commas"
            ) from None
        if s <= 0:
            raise ParamError(f"grid {key}={text}: the step must be a positive integer")
        if a > b:
            raise ParamError(f"grid {key}={text}: empty range ({a} > {b}); write {key}={b}..{a}")
        values = range(a, b + 1, s)
        check_grid_size(len(values), max_points, f"grid {key}={text}")
        return tuple(_check(key, meta, v) for v in values)
    parts = [p for p in t.split(",")]
    check_grid_size(len(parts), max_points, f"grid {key}")
    if any(not p.strip() for p in parts):
        raise ParamError(f"grid {key}={text}: an empty value in the list")
    return tuple(_parse(key, meta, p) for p in parts)


def make_grid(
    model_cls, axes: dict | None = None, fixed: dict | None = None, max_points: int | None = None
) -> Grid:
    """Check axes and fixed values against ``model_cls`` and build a :class:`Grid`.

    ``axes`` maps keys to lists, tuples, ranges or ``"A..B"`` strings; ``fixed``
    maps keys to single values. Errors (:class:`ParamError`, one line) name the key.
    A grid of more than ``max_points`` points (default :data:`MAX_POINTS`) is refused,
    its size computed from the axes' lengths before any value or point is built.
    """
    known = _known(model_cls)
    if axes is not None and not isinstance(axes, dict):
        raise ParamError(f"grid must be a mapping of KEY -> values, got {type(axes).__name__}")
    if fixed is not None and not isinstance(fixed, dict):
        raise ParamError(f"fixed must be a mapping of KEY -> value, got {type(fixed).__name__}")
    total = 1
    for key, raw in (axes or {}).items():
        if not isinstance(key, str) or key not in known:
            raise _unknown(key, model_cls, "grid")
        if isinstance(raw, (list, tuple, range)):
            total *= max(1, len(raw))
    check_grid_size(total, max_points)
    out_axes: dict[str, tuple] = {}
    for key, raw in (axes or {}).items():
        out_axes[key] = _values_of(key, known[key], raw, max_points)
        if len(set(map(repr, out_axes[key]))) != len(out_axes[key]):
            raise ParamError(f"grid {key}: repeated values {shown(list(out_axes[key]))}")
    size = 1
    for values in out_axes.values():
        size *= len(values)
    check_grid_size(size, max_points)
    out_fixed = {}
    for key, value in (fixed or {}).items():
        if key not in known:
            raise _unknown(key, model_cls, "--set")
        if key in out_axes:
            raise ParamError(f"{key} is both on the grid and fixed (--set): give it once")
        out_fixed[key] = (
            _parse(key, known[key], value)
            if isinstance(value, str)
            else _check(key, known[key], value)
        )
    return Grid(model_cls, out_axes, out_fixed)


def parse_grid_args(model_cls, items: list[str], max_points: int | None = None) -> dict[str, tuple]:
    """``["KEY=V1,V2", "KEY=A..B", ...]`` (the CLI's ``--grid``) -> axes.

    Each axis holds at most ``max_points`` values.
    """
    known = _known(model_cls)
    axes: dict[str, tuple] = {}
    for item in items or []:
        if "=" not in item:
            raise ParamError(
                f"--grid {item!r} is malformed: write --grid KEY=V1,V2,... or KEY=A..B"
            )
        key, text = (s.strip() for s in item.split("=", 1))
        if key not in known:
            raise _unknown(key, model_cls, "--grid")
        if key in axes:
            raise ParamError(f"--grid {key} given twice: give all its values at once")
        axes[key] = parse_axis(key, known[key], text, max_points)
    return axes


def parse_fixed_args(model_cls, items: list[str]) -> dict:
    """``--set KEY=VALUE`` for a sweep: model parameters or sweep keys."""
    known = _known(model_cls)
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ParamError(f"--set {item!r} is malformed: write --set KEY=VALUE")
        key, text = (s.strip() for s in item.split("=", 1))
        if key not in known:
            raise _unknown(key, model_cls, "--set")
        if key in out:
            raise ParamError(f"--set {key} given twice: give each key once")
        out[key] = _parse(key, known[key], text)
    return out


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
    """
    cfg = _read_toml(path)
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


def check_scheduler(address, what: str = "--scheduler") -> str:
    """A Dask scheduler address, else one line.

    Accepted: ``HOST:PORT``, ``tcp://HOST:PORT``, ``[IPv6]:PORT``.
    """
    import re

    ok = isinstance(address, str) and len(address) <= 300 and address.isascii()
    if ok:
        m = re.fullmatch(
            r"(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?/?",
            address.strip(),
        )
        ok = m is not None and (m.group(3) is None or 1 <= int(m.group(3)) <= 65535)
        ok = ok or re.fullmatch(r"inproc://\S+", address.strip()) is not None
    if not ok:
        raise ParamError(
            f"{what} {shown(address)} is not a scheduler address: write HOST:PORT or "
            "tcp://HOST:PORT (an IPv6 host in brackets: [::1]:8786)"
        )
    return address.strip()


def resolve_point(model_cls, values: dict, _cache: tuple | None = None) -> tuple[dict, dict]:
    """Model parameters of one point, and the values derived from sweep keys.

    ``values`` holds the point's grid values and the fixed values. Returns
    ``(params, derived)``: ``params`` are keyword arguments for ``model_cls``;
    ``derived`` the parameters set by sweep keys (explicit values win).
    """
    params_spec, keys = (
        _cache if _cache is not None else (spec(model_cls), sweep_keys_for(model_cls))
    )
    values = dict(values)
    if "level_diff" in values and "level" not in values and "level" in params_spec:
        values["level"] = params_spec["level"]["default"]  # the model's own level (encounter)
    derived: dict = {}
    applied = set()  # derive functions already run (the days_without_* keys share one)
    for name, k in keys.items():
        if k.derive is None or name not in values or k.derive in applied:
            continue
        applied.add(k.derive)
        for target, v in k.derive(values).items():
            if target in values and not k.adds:
                continue  # given explicitly (or derived earlier): it wins
            if target in params_spec:
                values[target] = v
                derived[target] = v
            elif target in keys:
                meta = keys[target].meta
                values[target] = _check(target, meta, v)
    params = {k: v for k, v in values.items() if k in params_spec}
    for target in list(derived):
        derived[target] = params[target]
    return params, derived


def describe_keys(model_cls) -> list[dict]:
    """Rows describing the sweep keys available for ``model_cls``."""
    rows = []
    for name, k in sweep_keys_for(model_cls).items():
        m = k.meta
        text = "a Fortitude schedule" if m["kind"] == "schedule" else allowed(m)
        rows.append(dict(name=name, default=m["default"], allowed=text, help=m["help"]))
    return rows
