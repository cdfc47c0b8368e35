"""The ``simkit`` command.

Verbs: ``models``, ``run``, ``exact`` (and those listed in ``EXTRA_COMMANDS``, each a
module with ``configure(subparsers)`` and a ``run(args)`` set as the parser default).
Bad input exits with status 2 and one line on stderr naming the parameter and what is
allowed; output files are written atomically (complete or absent).
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from simkit.cli.levels import (
    add_confidence_arg,
    add_level_hint,
    check_confidence,
    derive,
    level_keys,
    not_for_model,
    parse_level_key,
    show_derived,
)
from simkit.core.extras import MissingExtra
from simkit.core.numbers import ascii_int, ascii_number
from simkit.core.params import ParamError, parse_value, shown, spec
from simkit.rules.penalties import FATIGUE_KEYS, parse_fatigue_value

__all__ = ["main", "build_parser", "cap_workers", "parse_sets", "model_from_args"]

#: Modules adding verbs: each defines ``configure(subparsers)``.
EXTRA_COMMANDS: list[str] = [
    "simkit.cli.sweep",
    "simkit.cli.design",
    "simkit.cli.creatures",
    "simkit.cli.threat",
    "simkit.cli.replay",
]


class UsageError(Exception):
    """Bad command line: exit status 2, one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2, no usage dump
        raise UsageError(message)

    def _get_value(self, action, arg_string):
        # int() and float() take other scripts' digits ('１') and underscores ('0_1'): a
        # number on the command line is read by simkit.core.numbers, as everywhere else
        read = {int: ascii_int, float: ascii_number}.get(action.type)
        if read is None:
            return super()._get_value(action, arg_string)
        try:
            return read(arg_string)
        except ValueError:
            what = "an integer" if action.type is int else "a number"
            raise argparse.ArgumentError(
                action,
                f"must be {what} in ASCII digits (no underscores), got {shown(arg_string)}",
            ) from None


def parse_count(text: str, flag: str = "-n") -> int:
    """``-n`` (or ``flag``): an integer, also written ``1e6`` or ``10**6``, in ASCII digits
    (:mod:`simkit.core.numbers`: no underscores, ``1_000`` is refused)."""
    t = text
    try:
        if "**" in t:
            a, b = (ascii_int(x) for x in t.split("**"))
            if b < 0 or (abs(a) > 1 and b > 64):  # not an integer, or far past any allowed n
                raise ValueError
            v = a**b
        elif "e" in t.lower():
            f = ascii_number(t)
            if not f.is_integer():
                raise ValueError
            v = int(f)
        else:
            v = ascii_int(t)
    except (ValueError, OverflowError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(
            f"{flag} must be a positive integer (e.g. 100000 or 1e6), got {shown(text)}"
        )
    from simkit.core.limits import MAX_N

    if not 1 <= v <= MAX_N:
        raise argparse.ArgumentTypeError(
            f"{flag} must be a positive integer up to {MAX_N:.0e} (e.g. 100000 or 1e6), "
            f"got {shown(text)}"
        )
    return v


def count_parser(flag: str):
    """:func:`parse_count` for another option (its messages name ``flag``)."""

    def parse(text: str) -> int:
        return parse_count(text, flag)

    parse.__name__ = f"parse_count({flag})"
    return parse


def cap_workers(workers: int, points: int | None = None, *, remote: bool = False) -> int:
    """``--workers`` given: at most the CPUs this process may use and the points to run
    (more processes would only cost memory and start-up time; the numbers are the same);
    a cut is said in one line on stderr. ``remote``: workers of a Dask scheduler elsewhere,
    not capped."""
    from simkit.analysis.sweep.workers import available_cpus

    if remote:
        return workers
    cpus = available_cpus()
    cap = min(cpus, points) if points is not None else cpus
    cap = max(1, cap)
    if workers <= cap:
        return workers
    why = f"{cpus} CPU{'s' if cpus != 1 else ''} available"
    if points is not None and points < cpus:
        why = f"{points} point{'s' if points != 1 else ''} to run, {why}"
    print(f"simkit: note: --workers {workers}: using {cap} ({why})", file=sys.stderr)
    return cap


def parse_seed(text: str) -> int:
    """``--seed``: a non-negative integer in ASCII digits (no underscores)."""
    try:
        v = ascii_int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--seed must be a non-negative integer, got {shown(text)}"
        )
    if v < 0:
        raise argparse.ArgumentTypeError(
            f"--seed must be a non-negative integer, got {shown(text)}"
        )
    return v


def parse_sets(model_cls, sets: list[str] | None) -> dict:
    """``["key=value", ...]`` -> validated values for ``model_cls``.

    Its parameters, ``days_without_*`` (for :func:`simkit.models.make_model`) and the
    level keys (``level``, ``level_diff``...: :mod:`simkit.cli.levels`), which
    :func:`model_from_args` turns into parameters.
    """
    from simkit.models.dying_keys import is_key

    known = spec(model_cls)
    out: dict = {}
    for item in sets or []:
        if "=" not in item:
            raise ParamError(f"--set {item!r} is malformed: write --set KEY=VALUE")
        key, value = item.split("=", 1)
        key = key.strip()
        if key in out:
            raise ParamError(f"--set {key} given twice: give each parameter once")
        if is_key(model_cls, key):  # dying.KEY: what it sets depends on dying= (fold)
            out[key] = value.strip()
            continue
        if key not in known and key in FATIGUE_KEYS and "check_penalty" in known:
            out[key] = parse_fatigue_value(key, value)  # -> check_penalty in make_model
            continue
        if key not in known and key in level_keys(
            model_cls
        ):  # level, level_diff...: see cli.levels
            out[key] = parse_level_key(model_cls, key, value)
            continue
        if key not in known and (err := not_for_model(model_cls, key)) is not None:
            raise err
        if key not in known:
            from simkit.core.names import suggest

            near = suggest(key, [*known, *level_keys(model_cls)])
            raise ParamError(
                f"--set {key}: unknown parameter for model {model_cls.name!r}{near}; "
                f"known: {', '.join(known)}"
            )
        out[key] = parse_value(key, known[key], value)
    return out


def _toml_text(value) -> str:
    """A TOML value as ``--set`` would spell it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_toml_text(v) for v in value)
    return str(value)


def apply_config(args) -> None:
    """``--config FILE.toml`` of run and exact: the model, preset, n, seed, confidence and
    the ``[set]`` table of a sweep file (no ``[grid]``: that is ``simkit sweep``).
    Command-line values win."""
    path = getattr(args, "config", None)
    if path is None:
        if args.model is None:
            raise ParamError("give a model name (see `simkit models`) or --config FILE.toml")
        if getattr(args, "confidence", 0.95) is None:
            args.confidence = 0.95
        _default_workers(args)
        return
    from simkit.analysis.grid import load_config

    cfg = load_config(path)
    if cfg.get("grid"):
        raise ParamError(f"--config {path}: a [grid] is a sweep: use simkit sweep --config")
    for key in ("output", "exact_only", "survival", "resume", "executor", "scheduler"):
        if key in cfg:
            raise ParamError(f"--config {path}: {key} belongs to simkit sweep, not {args.command}")
    if args.model is not None and args.model != cfg["model"]:
        raise ParamError(f"--config {path} is for model {cfg['model']!r}, not {args.model!r}")
    args.model = cfg["model"]
    if getattr(args, "preset", None) is None:
        args.preset = cfg.get("preset")
    given = {item.split("=", 1)[0].strip() for item in args.set or [] if "=" in item}
    from_file = [f"{k}={_toml_text(v)}" for k, v in cfg.get("set", {}).items() if k not in given]
    args.set = from_file + list(args.set or [])
    for key in ("n", "seed", "confidence", "workers"):
        if key in cfg and hasattr(args, key) and getattr(args, key) is None:
            setattr(args, key, cfg[key])
    if getattr(args, "confidence", 0.95) is None:
        args.confidence = 0.95
    _default_workers(args)


def _default_workers(args) -> None:
    """``run``'s ``--workers``: the command line's, else the config file's, else 1."""
    if hasattr(args, "workers") and args.workers is None:
        args.workers = 1


def model_from_args(args):
    from simkit.models import get_model, make_model

    apply_config(args)
    cls = get_model(args.model)
    preset = getattr(args, "preset", None)
    params, derived, keys = derive(cls, parse_sets(cls, args.set), preset)
    show_derived(cls, keys, derived)
    return make_model(args.model, preset, **params)


def add_model_args(p, config: bool = False):
    if config:
        p.add_argument("model", nargs="?", default=None, help="model name (or give --config)")
        p.add_argument(
            "--config",
            default=None,
            metavar="FILE.toml",
            help="read the model, preset, n, seed and [set] values from a TOML file "
            "(the sweep layout, without [grid]); command-line values win",
        )
    else:
        p.add_argument("model", help="model name (see `simkit models`)")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="set a parameter, or level=N (the character level: sets what follows from it, "
        "shown on stderr) (repeatable)",
    )
    p.add_argument("--preset", default=None, help="a named rule variant, e.g. pf2e-core")


def _add_marks_arg(p) -> None:
    p.add_argument(
        "--marks",
        action="append",
        default=None,
        metavar="MARK",
        help="distribution of a mark when tracks end, e.g. a fall's damage (repeatable; "
        "see the model's marks)",
    )


def add_output_args(p, default="table"):
    p.add_argument(
        "--format", default=default, choices=("table", "csv", "json"), help="output format"
    )
    p.add_argument(
        "-o",
        "--output",
        default=None,
        help="write to FILE instead of stdout (FILE.parquet: Parquet, needs pyarrow)",
    )


def emit(df, args) -> None:
    """Print or atomically write a frame in the requested format (a table on a terminal
    wraps to its width: :mod:`simkit.cli.text`); ``-o FILE.parquet`` writes Parquet."""
    from simkit.cli.text import format_output
    from simkit.core.io import is_parquet, write_parquet

    if is_parquet(args.output):  # -o FILE.parquet: the frame itself, whatever --format
        write_parquet(df, args.output)
        return
    _emit_text(format_output(df, args.format, args.output), args)


def _emit_text(text: str, args) -> None:
    from simkit.core.io import STDOUT, atomic_write

    # -o FILE: atomic (a link's target replaced); a device or FIFO written directly; - stdout
    with atomic_write(args.output or STDOUT) as fh:
        fh.write(text)


def _cmd_models(args) -> int:
    import pandas as pd

    prepare_output(args)
    from simkit.cli.listing import event_list, name_kinds_of
    from simkit.core.params import describe
    from simkit.models import REGISTRY

    rows = []
    for name, cls in REGISTRY.items():
        if args.model and name != args.model:
            continue
        events = " ".join(event_list(cls)) if args.format != "table" else ""
        kinds = (  # every name of its results with its kind: victory:outcome any_death:event
            " ".join(f"{n}:{k}" for k, names, _ in name_kinds_of(cls, False) for n in names)
            if args.format != "table"
            else ""
        )
        for r in describe(cls):
            rows.append(
                dict(
                    model=name,
                    time_unit=cls.time_unit,
                    outcomes=" ".join(cls.outcomes),
                    events=events,
                    kinds=kinds,
                    **r,
                )
            )
    if args.model and not rows:
        from simkit.models import get_model

        get_model(args.model)
    df = pd.DataFrame(rows)
    if args.format == "table":  # a one-screen list, or one model's detail (simkit.cli.listing)
        from simkit.cli.listing import model_detail, models_list
        from simkit.cli.text import PROSE_WIDTH, term_width

        width = (
            PROSE_WIDTH
            if args.output not in (None, "-")
            else (term_width(PROSE_WIDTH) or PROSE_WIDTH)
        )
        text = (
            model_detail(REGISTRY[args.model], width)
            if args.model
            else models_list(REGISTRY, width)
        )
        _emit_text(text, args)
        return 0
    emit(df, args)
    return 0


def _sweep_keys(cls) -> list[str]:
    """Grid keys that are not parameters but set some (level, level_diff, days_without_*...)."""
    from simkit.analysis.grid import describe_keys

    return [r["name"] for r in describe_keys(cls)]


def prepare_output(args):
    if args.output is not None:
        from simkit.core.io import check_writable, is_parquet

        check_writable(args.output)
        if is_parquet(args.output):  # said before anything runs
            from simkit.core.extras import need

            need("pyarrow", f"-o {args.output}")


def _cmd_run(args) -> int:
    from simkit.core.engine import simulate

    model = model_from_args(args)
    prepare_output(args)
    marks = None
    if args.marks:  # checked before simulating
        from simkit.cli.marks import check_marks, marks_frame

        if args.stages:
            raise ParamError("--marks and --stages: give one of them")
        marks = check_marks(model, args.marks)
    q = None
    if args.percentiles is not None:  # checked before simulating
        if args.marks or args.stages:
            raise ParamError("--percentiles, --marks and --stages: give one of them")
        q = _parse_percentiles(args.percentiles)
    n = 100_000 if args.n is None else args.n
    workers = cap_workers(args.workers)
    if workers > 1:  # worker processes that leave nothing on the terminal when interrupted
        from simkit.analysis.sweep.workers import start_early

        start_early()
    keep = q is not None and hasattr(model, "carry")  # the end states: HP left per PC
    res = simulate(model, n, rng=args.seed, workers=workers, keep_state=keep)
    notes = []
    if args.seed is None:  # fresh entropy: say how to replay the run
        notes.append(f"seed {res.seed} (replay with --seed {res.seed})")
    if model.name == "party":  # the lineup used and the designer's odds
        from simkit.analysis.party_report import run_notes

        notes += run_notes(res, args.confidence)
    elif model.name == "day":  # the designer's odds, and death by step
        from simkit.analysis.day_report import run_notes as day_notes

        notes += day_notes(res, args.confidence)
    if getattr(model, "monsters", None):  # loaded creatures: what the fight leaves out
        from simkit.rules.pf2e.budget import creature_notes

        notes += creature_notes(model.monsters)
    to_file = args.output not in (None, "-")
    if not to_file:  # before the table on a terminal
        _print_notes(notes)
    if q is not None:
        from simkit.core.percentiles import percentiles

        df = percentiles(res, q)
        if df.empty:
            raise ParamError(
                f"--percentiles: model {model.name!r} keeps no mark, time or end state to "
                "read percentiles from (a chain: see --stages)"
            )
    elif marks:
        df = marks_frame(res, marks, args.confidence, exact=not args.no_exact)
    elif args.stages:
        _need_chain(model)
        df = res.stage_summary(confidence=args.confidence)
    else:
        df = res.summary(confidence=args.confidence, exact=not args.no_exact)
    emit(df, args)
    if to_file:  # once the file is written: a write error is the only line
        _print_notes(notes)
    if model.name == "party" and not args.no_threat:  # the last line: how it plays
        _print_notes([_measured_line(model, n, res.seed)])
    return 0


def _parse_percentiles(text: str) -> tuple[float, ...]:
    """``--percentiles 10,50,90`` -> quantiles (0.1, 0.5, 0.9): percents in (0, 100)."""
    try:
        qs = tuple(float(ascii_number(x.strip())) / 100 for x in text.split(","))
    except (TypeError, ValueError):
        qs = ()
    if not qs or not all(0 < x < 1 for x in qs) or len(set(qs)) != len(qs):
        raise ParamError(
            f"--percentiles {text!r} is not allowed: give distinct percents in (0, 100), "
            "e.g. 10,50,90"
        )
    return qs


def _measured_line(model, n: int, seed: int) -> str:
    """``run party``'s last line: the lineup's measured threat
    (:func:`simkit.analysis.threat.measured_threat`, as ``simkit threat`` gives it, at
    ``min(n, THREAT_N)`` fights a run on the run's seed)."""
    from simkit.analysis.threat import THREAT_N, measured_threat

    k = min(int(n), THREAT_N)
    m = measured_threat(model, n=k, rng=seed)
    return f"measured: {m.sentence()}; {k:,} fights a run (simkit threat)"


def _print_notes(notes: list[str]) -> None:
    for line in notes:
        print(f"simkit: {line}", file=sys.stderr)


def _need_chain(model) -> None:
    if not model.is_chain:
        raise ParamError(f"--stages: model {model.name!r} is not a chain of stages")


def _cmd_exact(args) -> int:
    from simkit.core.exact import solve

    model = model_from_args(args)
    prepare_output(args)
    if args.marks:
        from simkit.cli.marks import check_marks, exact_marks_frame

        if args.stages:
            raise ParamError("--marks and --stages: give one of them")
        emit(exact_marks_frame(model, check_marks(model, args.marks)), args)
        return 0
    if not model.has_exact:
        why = getattr(model, "exact_refusal", None)  # (a model that says why: its duels)
        why = f" ({why})" if why else ""
        raise ParamError(
            f"model {model.name!r} has no exact solver{why}; use `simkit run {model.name}`"
        )
    try:
        ex = solve(model)
    except NotImplementedError as exc:  # e.g. a chain with too many states
        raise ParamError(str(exc)) from None
    if args.stages:
        _need_chain(model)
        emit(ex.stage_summary(), args)
    else:
        emit(ex.summary(), args)
    return 0


def build_parser() -> argparse.ArgumentParser:
    from simkit.core.version import __version__

    parser = _Parser(
        prog="simkit", description="How deadly are your rules? Monte Carlo and exact odds."
    )
    parser.add_argument("--version", action="version", version=f"simkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("models", help="list models with parameters, defaults, ranges and rule ids")
    p.add_argument("model", nargs="?", default=None, help="only this model")
    add_output_args(p)
    p.set_defaults(func=_cmd_models)

    p = sub.add_parser("run", help="Monte Carlo summary of a model")
    add_model_args(p, config=True)
    p.add_argument("-n", type=parse_count, default=None, help="number of tracks (default 100000)")
    p.add_argument(
        "--seed", type=parse_seed, default=None, help="random seed (default: fresh entropy)"
    )
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default 1)")
    add_confidence_arg(p, default=None)
    p.add_argument("--no-exact", action="store_true", help="omit the exact column")
    p.add_argument(
        "--stages",
        action="store_true",
        help="chains: each stage's outcomes (e.g. where deaths happen)",
    )
    p.add_argument(
        "--percentiles",
        nargs="?",
        const="10,50,90",
        default=None,
        metavar="P,P,...",
        help="print how swingy the run is instead of the table: percentiles (default "
        "10,50,90) of rounds, deaths, resources spent (the marks) and, for party and day, "
        "each PC's HP and resources left (Result.percentiles)",
    )
    p.add_argument(
        "--no-threat",
        action="store_true",
        help="party: leave out the last line, the measured threat (five benchmark runs of "
        "at most 20,000 fights)",
    )
    _add_marks_arg(p)
    add_output_args(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("exact", help="exact outcome probabilities of a model")
    add_model_args(p, config=True)
    p.add_argument(
        "--stages",
        action="store_true",
        help="chains: each stage's outcomes (e.g. where deaths happen)",
    )
    add_level_hint(p)
    _add_marks_arg(p)
    add_output_args(p)
    p.set_defaults(func=_cmd_exact)

    for mod in EXTRA_COMMANDS:
        import_module(mod).configure(sub)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is (a sweep keeps its journal), exit status 143."""


def _on_sigterm(signum, frame):
    raise Terminated()


def _one_line(text: object, limit: int = 400) -> str:
    """An error message as one short line (a long list of values abbreviated)."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    return f"{text[: limit - 120]} ... {text[-100:]}"


def _quiet_stdout() -> None:
    """After a closed pipe: send what is left of stdout to /dev/null (no error at exit)."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # captured or already closed
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``simkit`` console script."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        old_term = signal.signal(signal.SIGTERM, _on_sigterm)  # SIGTERM as Ctrl-C
        try:
            return _main(argv)
        finally:
            signal.signal(signal.SIGTERM, old_term)
    return _main(argv)


def _main(argv: list[str] | None) -> int:
    import warnings

    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        """A warning as one line, once (an old name, ...), not Python's two lines with
        the library's file path."""
        text = _one_line(message)
        if text not in shown:
            shown.add(text)
            print(f"simkit: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("always", FutureWarning)  # the user's own words: always said
        warnings.showwarning = show
        return _run(argv)


def _run(argv: list[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        check_confidence(getattr(args, "confidence", None))
        if getattr(args, "workers", None) is not None and not 1 <= args.workers <= 1024:
            raise ParamError(f"--workers must be an integer in [1, 1024], got {args.workers}")
        return int(args.func(args) or 0)
    except (UsageError, ParamError, MissingExtra) as exc:
        print(f"simkit: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `simkit ... | head -1`: end quietly, as other Unix tools do
        _quiet_stdout()
        return 0
    except OSError as exc:  # e.g. a disk that fills up while writing, a closed stdout
        name = getattr(exc, "filename", None)
        where = " standard output" if name == "-" else (f" {name}" if name else "")
        what = f"cannot write{where}: {exc.strerror or exc}"
        print(f"simkit: error: {_one_line(what)}", file=sys.stderr)  # a long path cut short
        return 2
    except Terminated:
        print("simkit: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("simkit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    # run the canonical module's main: verb modules import simkit.cli.main, not __main__
    from simkit.cli.main import main as _main

    sys.exit(_main(None))
