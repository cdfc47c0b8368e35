"""The ``sweep``, ``compare`` and ``plot`` verbs of the ``simkit`` command.

::

    simkit sweep MODEL --grid KEY=V1,V2,... --grid KEY=A..B [--set KEY=VALUE ...]
                 [--preset NAME] [-n N] [--seed S] [--exact-only] [--survival]
                 [--executor local|dask] [--scheduler ADDRESS] [--workers W]
                 [--resume] [--quiet] -o FILE.csv
    simkit sweep --config sweep.toml [-o FILE.csv] [...]
    simkit compare MODEL [--variants seed,pf2e-core] [--ambiguities [A0-1,...]]
                   [--grid ...] -o FILE.csv
    simkit plot FILE.csv --kind survival|heatmap|compare [--x KEY] [--y KEY] [--outcome O]
                [--where KEY=VALUE] [--stage NAME] [--title TEXT] -o FILE.png

``sweep`` keeps a journal ``FILE.csv.partial`` while it runs and writes the CSV
atomically at the end; ``--resume`` continues an interrupted sweep (without
``--seed`` it reuses the journal's seed). A progress bar goes to stderr when stderr
is a terminal, unless ``--quiet``. ``plot --kind survival`` reads the per-step rows
of ``simkit sweep ... --survival`` (one curve per grid point); ``--kind heatmap`` a
sweep table; ``--kind compare`` the table of ``simkit compare``.
"""

from __future__ import annotations

import json
import os
import sys

from simkit.cli.levels import add_confidence_arg
from simkit.cli.main import UsageError, cap_workers, count_parser, parse_count, parse_seed
from simkit.core.params import ParamError, spec

__all__ = ["configure"]


def _progress(args) -> bool:
    return not args.quiet and sys.stderr.isatty()


def _add_run_args(p, *, sweep_verb: bool) -> None:
    p.add_argument(
        "--grid",
        action="append",
        metavar="KEY=V1,V2|A..B",
        help="an axis of the grid: a list or an integer range A..B[:STEP] (repeatable)",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="a fixed value: a parameter, or a sweep key such as level=5 (a column of the CSV) "
        "(repeatable)",
    )
    p.add_argument(
        "-n", type=parse_count, default=None, help="tracks per grid point (default 100000)"
    )
    p.add_argument(
        "--seed",
        type=parse_seed,
        default=None,
        help="seed of the sweep (default: fresh entropy; with --resume, the journal's)",
    )
    p.add_argument(
        "--exact-only",
        action="store_true",
        default=None,
        help="exact probabilities only (batched; models with an exact solver)",
    )
    p.add_argument(
        "--executor",
        choices=("local", "dask"),
        default=None,
        help="where points run (default local)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler address (default: a LocalCluster for the run)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes (local) or LocalCluster workers (default: 1 for small or exact-only "
        "sweeps, else the CPU count)",
    )
    add_confidence_arg(p, default=None)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--max-points",
        type=count_parser("--max-points"),
        default=None,
        metavar="N",
        help="refuse a grid of more points (default 100000), counted before it is built",
    )
    p.add_argument(
        "-o",
        "--output",
        default=None,
        help="the CSV to write (atomically); FILE.parquet: Parquet (needs pyarrow)",
    )
    p.add_argument(
        "--format",
        default=None,
        choices=("table", "csv", "json"),
        help="output format (default: sweep csv; compare a table on standard output, csv "
        "with -o; a table wraps to the terminal)",
    )


def configure(sub) -> None:
    """Add ``sweep``, ``compare`` and ``plot`` to the ``simkit`` parser."""
    p = sub.add_parser("sweep", help="outcome odds over a grid of parameters, as one CSV")
    p.add_argument("model", nargs="?", default=None, help="model name (or give --config)")
    p.add_argument(
        "--config", default=None, metavar="FILE.toml", help="read the sweep from a TOML file"
    )
    p.add_argument("--preset", default=None, help="a named rule variant, e.g. pf2e-core")
    p.add_argument(
        "--survival", action="store_true", default=None, help="per-step rows (survival curves)"
    )
    p.add_argument(
        "--resume", action="store_true", help="continue an interrupted sweep of the same -o FILE"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="let a --config file's output replace an existing file simkit did not write",
    )
    _add_run_args(p, sweep_verb=True)
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser(
        "compare", help="the same sweep under several rule variants, with differences"
    )
    p.add_argument("model", help="model name")
    p.add_argument(
        "--variants",
        default=None,
        help="presets to compare, comma-separated (default: every preset of the model, "
        "e.g. seed,pf2e-core; party: its dying systems seed000,pf2e-core,seed001)",
    )
    p.add_argument(
        "--ambiguities",
        nargs="?",
        const="all",
        default=None,
        metavar="IDS",
        help="add every reading of the ambiguities (all, or ids/parameters like A0-1,A0-4)",
    )
    p.add_argument(
        "--baseline", default=None, help="variant the others are compared with (default: the first)"
    )
    p.add_argument(
        "--independent",
        action="store_true",
        help="each variant on its own dice, the two-sample test (default: paired, the same "
        "dice track by track; docs/paired.md)",
    )
    _add_run_args(p, sweep_verb=False)
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("plot", help="a PNG from a sweep or compare CSV")
    p.add_argument("csv", help="a CSV written by simkit sweep or simkit compare")
    p.add_argument(
        "--kind",
        required=True,
        choices=("survival", "heatmap", "compare", "line"),
        help="what to draw (line: P(outcome) against one grid column --x, with its bands)",
    )
    p.add_argument("--x", default=None, help="grid column on the x axis (heatmap, compare)")
    p.add_argument("--y", default=None, help="grid column on the y axis (heatmap)")
    p.add_argument(
        "--outcome",
        action="append",
        default=None,
        help="outcome to show (repeatable for survival and line; default the model's: dead, "
        "a party's any_death; survival adds active)",
    )
    p.add_argument(
        "--value", default="p", choices=("p", "exact"), help="plot p (default) or the exact column"
    )
    p.add_argument(
        "--where",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="keep the rows where a column has this value (repeatable)",
    )
    p.add_argument("--stage", default=None, help="stage of a chained model (survival)")
    p.add_argument(
        "--title",
        default=None,
        help="figure title (default: the model, what is drawn, n and the fixed settings; "
        "'' for none)",
    )
    p.add_argument("-o", "--output", required=True, help="the PNG to write (atomically)")
    p.set_defaults(func=_cmd_plot)


# -- sweep --------------------------------------------------------------------------


def _table_text(df, args, output=None) -> str:
    """``df`` in ``--format`` (default csv); a table on a terminal wraps to its width."""
    from simkit.cli.text import format_output

    return format_output(df, args.format or "csv", output)


def _merged_settings(args) -> dict:
    """Command-line values over the TOML file's."""
    from simkit.analysis.grid import load_config

    cfg = load_config(args.config) if args.config else {}
    if args.model and cfg.get("model") and args.model != cfg["model"]:
        raise ParamError(
            f"model {args.model!r} on the command line but {cfg['model']!r} in {args.config}"
        )
    model = args.model or cfg.get("model")
    if not model:
        raise UsageError("give a MODEL or --config FILE.toml")
    out = {
        "model": model,
        "preset": args.preset if args.preset is not None else cfg.get("preset"),
        "n": args.n if args.n is not None else cfg.get("n", 100_000),
        "seed": args.seed if args.seed is not None else cfg.get("seed"),
        "output": args.output if args.output is not None else cfg.get("output"),
        "exact_only": bool(
            args.exact_only if args.exact_only is not None else cfg.get("exact_only", False)
        ),
        "survival": bool(
            args.survival if args.survival is not None else cfg.get("survival", False)
        ),
        "executor": args.executor or cfg.get("executor", "local"),
        "scheduler": args.scheduler or cfg.get("scheduler"),
        "workers": args.workers if args.workers is not None else cfg.get("workers"),
        "level": args.confidence if args.confidence is not None else cfg.get("confidence", 0.95),
        "grid": dict(cfg.get("grid", {})),
        "set": dict(cfg.get("set", {})),
    }
    for key in ("n", "seed", "workers"):
        v = out[key]
        if v is not None and (
            isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "seed" else 1)
        ):
            raise ParamError(f"{key} = {v!r} in {args.config}: must be a positive integer")
    if not isinstance(out["level"], (int, float)) or not 0 < out["level"] < 1:
        raise ParamError(f"confidence must be in (0, 1), got {out['level']!r}")
    return out


def _axes_and_fixed(cls, settings, args):
    from simkit.analysis.grid import parse_fixed_args, parse_grid_args

    axes = dict(settings["grid"])
    axes.update(parse_grid_args(cls, args.grid, getattr(args, "max_points", None)))
    fixed = dict(settings["set"])
    fixed.update(parse_fixed_args(cls, args.set))
    return axes, fixed


def level_dc_line(cls, axes: dict, fixed: dict, preset: str | None = None) -> str | None:
    """The stderr line of a sweep over ``level`` on a model with a ``monster_level``
    (``dying``): whether the recovery DC follows the level (a creature of that level,
    R0-06) or stays what was given (issue 31). None when it does not apply."""
    from simkit.analysis.grid import sweep_keys_for
    from simkit.models.keys import DC_GIVERS, level_sets_dc

    if "level" not in axes or "monster_level" not in spec(cls) or "level" in spec(cls):
        return None
    if "level" not in sweep_keys_for(cls):
        return None
    given = {**fixed, **axes}
    if preset:
        from simkit.models.presets import preset_params

        given = {**preset_params(cls.name, preset), **given}
    if level_sets_dc(given):
        return (
            f"simkit: sweep {cls.name}: level sets the recovery DC too (monster_level = level: "
            "the high DC of a creature of that level, R0-06); give dc to keep one DC"
        )
    which = next(k for k in DC_GIVERS if k in given)
    value = f"{which} swept" if which in axes else f"{which}={given[which]} given"
    return f"simkit: sweep {cls.name}: the recovery DC does not follow level ({value})"


#: Below this many tracks in all, a local sweep runs in this process (starting worker
#: processes would cost more than it saves).
SMALL_SWEEP = 10**7


def _default_workers(executor: str, exact_only: bool, tracks: int | None = None) -> int:
    from simkit.analysis.sweep.workers import available_cpus

    if executor == "local" and (exact_only or (tracks is not None and tracks < SMALL_SWEEP)):
        return 1
    return max(1, min(available_cpus(), 64))


def _grid_size(axes: dict) -> int:
    size = 1
    for v in axes.values():
        size *= len(v) if isinstance(v, (list, tuple, range)) else 1
    return size


def _points(axes: dict) -> int | None:
    """The grid's points, when every axis is already a list of values (else None)."""
    if all(isinstance(v, (list, tuple, range)) for v in axes.values()):
        return _grid_size(axes)
    return None


def _check_config_output(output: str, where: str, force: bool) -> None:
    """A sweep file's ``output`` (relative to the file) replaces an existing file only if
    simkit wrote it (an earlier sweep's table), or with ``--force``: a shared sweep file
    must not overwrite what its name happens to point at (``../../notes.txt``, a link)."""
    from simkit.analysis.sweep_config import is_simkit_output

    if force or output == "-" or not os.path.exists(output):
        return
    if not os.path.isfile(output):
        return  # a device or a FIFO: written, never replaced (check_writable said so)
    if not is_simkit_output(output):
        raise ParamError(
            f"{where} = {output}: an existing file that simkit did not write (no sweep "
            "table header); give -o FILE, or --force to replace it"
        )


def _journal_exists(output) -> bool:
    """Whether a journal (of any size but 0) lies beside ``output``."""
    from simkit.analysis.sweep import journal_path

    jp = journal_path(output)
    return jp.exists() and jp.stat().st_size > 0


def _journal_seed(output):
    from simkit.analysis.sweep import journal_path

    jp = journal_path(output)
    try:
        with jp.open(encoding="utf-8") as fh:
            return json.loads(fh.readline())["sweep"]["seed"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _start_workers_early(settings: dict, workers: int | None) -> None:
    """Start the forkserver of local workers now, before numpy and pandas are imported
    here: its own imports then overlap ours, and the pool's first worker is up as soon as
    the grid is planned (issue 13: 2 workers are never slower than 1)."""
    if workers is None or workers < 2 or settings["executor"] != "local":
        return
    if settings["exact_only"]:  # exact-only sweeps run in this process
        return
    from simkit.analysis.sweep.workers import start_early

    start_early()


def _cmd_sweep(args) -> int:
    s = _merged_settings(args)
    _start_workers_early(s, s["workers"])
    from simkit.analysis.sweep import journal_path, sweep, sweep_csv
    from simkit.core.io import check_writable
    from simkit.models import get_model

    for address in (args.scheduler, s["scheduler"]):  # an empty --scheduler '' too
        if address is not None:
            from simkit.analysis.grid import check_scheduler

            check_scheduler(address)
    cls = get_model(s["model"])
    axes, fixed = _axes_and_fixed(cls, s, args)
    line = level_dc_line(cls, axes, fixed, s["preset"])
    if line is not None:
        print(line, file=sys.stderr)
    if s["workers"]:
        workers = cap_workers(s["workers"], _points(axes), remote=bool(s["scheduler"]))
    else:
        workers = _default_workers(s["executor"], s["exact_only"], s["n"] * _grid_size(axes))
    _start_workers_early(s, workers)  # when the default chose several
    common = dict(
        fixed=fixed,
        preset=s["preset"],
        exact_only=s["exact_only"],
        survival=s["survival"],
        confidence=s["level"],
        executor=s["executor"],
        workers=workers,
        scheduler=s["scheduler"],
        progress=_progress(args),
        max_points=args.max_points,
    )
    if s["output"] is not None:  # "" (-o "" or output = ""): refused, not standard output
        where = "-o" if args.output is not None else f"--config {args.config}: output"
        check_writable(s["output"], where)
        if args.output is None:
            _check_config_output(s["output"], where, args.force)
    if not s["output"] or s["output"] == "-":
        if args.resume:
            raise ParamError("--resume needs -o FILE.csv (the journal lives beside it)")
        from simkit.core.io import STDOUT, atomic_write

        df = sweep(cls, axes, s["n"], s["seed"], **common)
        with atomic_write(STDOUT) as fh:
            fh.write(_table_text(df, args))
        return 0
    check_writable(s["output"])
    from simkit.core.io import is_parquet

    if is_parquet(s["output"]):  # Parquet: the table written whole at the end (no journal)
        if args.resume:
            raise ParamError("--resume continues a CSV sweep: write -o FILE.csv")
        from simkit.core.extras import need
        from simkit.core.io import write_parquet

        need("pyarrow", f"-o {s['output']}")  # before the sweep runs
        write_parquet(sweep(cls, axes, s["n"], s["seed"], **common), s["output"])
        return 0
    if (args.format or "csv") != "csv":  # table or json: written whole at the end (no journal)
        if args.resume:
            raise ParamError("--resume continues a CSV sweep: drop --format (or use --format csv)")
        from simkit.core.io import atomic_write

        df = sweep(cls, axes, s["n"], s["seed"], **common)
        with atomic_write(s["output"]) as fh:
            fh.write(_table_text(df, args, s["output"]))
        return 0
    seed = s["seed"]
    if args.resume and os.path.exists(s["output"]) and not _journal_exists(s["output"]):
        raise ParamError(  # (sweep_csv refuses it too; here in the flag's own words)
            f"--resume: nothing to resume: {s['output']} is there and no journal holds an "
            "interrupted sweep of it; run without --resume to replace it"
        )
    if seed is None and args.resume:
        seed = _journal_seed(s["output"])
    if seed is None and not s["exact_only"]:
        from simkit.core.streams import resolve_seed

        seed = resolve_seed(None)
    try:
        sweep_csv(s["output"], cls, axes, s["n"], seed, resume=args.resume, **common)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (simkit.cli.main.Terminated)
        from simkit.analysis.sweep import journal_points

        jp = journal_path(s["output"])
        saved = journal_points(jp) if jp.exists() else 0  # read back from the disk
        how = "terminated" if type(exc).__name__ == "Terminated" else "interrupted"
        if saved:
            print(
                f"simkit: {how}: {saved} points are saved in {jp}; "
                "rerun with --resume (the same command) to continue",
                file=sys.stderr,
            )
        else:
            print(
                f"simkit: {how} before any point was finished; nothing was saved", file=sys.stderr
            )
        return 143 if how == "terminated" else 130
    return 0


# -- compare -----------------------------------------------------------------------


def _cmd_compare(args) -> int:
    from simkit.analysis.compare import compare, variants
    from simkit.core.io import check_writable
    from simkit.models import get_model

    cls = get_model(args.model)
    from simkit.analysis.grid import parse_fixed_args, parse_grid_args

    axes = parse_grid_args(cls, args.grid, args.max_points)
    fixed = parse_fixed_args(cls, args.set)
    from simkit.models.presets import PRESETS, default_variants

    known = PRESETS.get(cls.name, {"seed": {}})
    given = args.variants if args.variants is not None else ",".join(default_variants(cls.name))
    presets = [v.strip() for v in given.split(",") if v.strip()]
    twice = sorted({p for p in presets if presets.count(p) > 1})
    if twice:  # one column a variant: a second of one name would vanish silently
        raise ParamError(f"--variants: {', '.join(twice)} given more than once")
    for p in presets:
        if p not in known:
            raise ParamError(
                f"--variants {p}: unknown preset for model {cls.name!r}; known: {', '.join(known)}"
            )
    amb = None
    if args.ambiguities:
        amb = (
            True
            if args.ambiguities == "all"
            else [a.strip() for a in args.ambiguities.split(",") if a.strip()]
        )
    try:  # the base of the ambiguities' readings: the model with the --set values
        from simkit.models.dying_keys import fold

        base = cls().replace(**fold(cls, fixed)) if fixed else cls
    except (ParamError, TypeError):
        base = cls
    if amb is True:
        from simkit.analysis.compare import inert_ambiguities

        for aid, why in inert_ambiguities(base).items():
            print(f"simkit: note: --ambiguities: {aid} left out: {why}", file=sys.stderr)
    vs = variants(base, presets, amb or False)
    if args.output is not None:  # -o "": refused, as run and exact do
        check_writable(args.output)
        from simkit.core.io import is_parquet

        if is_parquet(args.output):  # said before anything runs
            from simkit.core.extras import need

            need("pyarrow", f"-o {args.output}")
    exact_only = bool(args.exact_only)
    paired = not args.independent
    if paired and not exact_only and (args.executor or "local") != "local":
        raise ParamError(
            f"--executor {args.executor}: a paired comparison runs in this process "
            "(--workers spreads each run over local processes); add --independent for Dask"
        )
    if args.workers:
        workers = cap_workers(args.workers, _points(axes), remote=bool(args.scheduler))
    else:
        workers = _default_workers(
            args.executor or "local", exact_only, (args.n or 100_000) * _grid_size(axes) * len(vs)
        )
    df = compare(
        vs,
        axes,
        args.n or 100_000,
        args.seed,
        baseline=args.baseline,
        fixed=fixed,
        exact_only=exact_only,
        confidence=args.confidence or 0.95,
        executor=args.executor or "local",
        workers=workers,
        scheduler=args.scheduler,
        progress=_progress(args),
        max_points=args.max_points,
        paired=paired,
    )
    if args.format is None and not args.output:  # a person reading: the table
        args.format = "table"
    from simkit.core.io import is_parquet

    if is_parquet(args.output):
        from simkit.core.io import write_parquet

        write_parquet(df, args.output)
        return 0
    text = _table_text(df, args, args.output)
    if args.output:
        from simkit.core.io import atomic_write

        with atomic_write(args.output) as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


# -- plot --------------------------------------------------------------------------


def _where(items) -> dict:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ParamError(f"--where {item!r} is malformed: write --where KEY=VALUE")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _line_x(df, args) -> str:
    """``--x``, or the sweep's only grid column that varies."""
    if args.x:
        return args.x
    from simkit.analysis.sweep import RECORD_COLUMNS, STAT_COLUMNS

    lead = list(df.columns[: list(df.columns).index("outcome")]) if "outcome" in df else []
    lead = [
        c
        for c in lead
        if c not in STAT_COLUMNS + RECORD_COLUMNS
        and c not in ("variant", "stage", "time_unit", "time")
    ]
    varying = [c for c in lead if df[c].nunique(dropna=False) > 1]
    # the first that varies is the grid key; derived columns (save_bonus of level) follow it
    free = [
        c
        for c in varying[1:]
        if (df.groupby(varying[0], dropna=False)[c].nunique(dropna=False) > 1).any()
    ]
    if not varying or free:
        raise ValueError(
            f"--kind line: give --x KEY (the grid column on the x axis) and --where for the "
            f"others; columns that vary: {', '.join(varying) or 'none'}"
        )
    return varying[0]


def _cmd_plot(args) -> int:
    import pandas as pd

    from simkit.core.io import check_writable

    check_writable(args.output)
    try:
        df = pd.read_csv(args.csv)
    except FileNotFoundError:
        raise ParamError(f"{args.csv}: no such file") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ParamError(f"{args.csv}: not a CSV table ({str(exc).splitlines()[0]})") from None
    if "outcome" not in df:
        raise ParamError(
            f"{args.csv}: no outcome column: plot reads CSVs of simkit sweep or simkit compare"
        )
    from simkit.analysis import plots

    where = _where(args.where)
    outcome = args.outcome[0] if args.outcome else None  # None: the model's (plots.frames)
    title = args.title  # None: the chart's own (model, what is drawn, n, fixed settings)
    try:
        if args.kind == "survival":
            outcomes = tuple(args.outcome) if args.outcome else None
            if outcomes is None:
                outcomes = ("active", plots.default_outcome(df))
            ax = plots.survival_sweep(
                df, outcomes=outcomes, stage=args.stage, where=where, title=title
            )
        elif args.kind == "heatmap":
            if not args.x or not args.y:
                raise ParamError("--kind heatmap needs --x KEY and --y KEY (two grid columns)")
            ax = plots.heatmap(
                df, args.x, args.y, value=args.value, outcome=outcome, where=where, title=title
            )
        elif args.kind == "line":
            ax = plots.sweep_lines(
                df,
                _line_x(df, args),
                outcomes=tuple(args.outcome) if args.outcome else None,
                value=args.value,
                where=where,
                title=title,
            )
        else:
            if "variant" not in df:
                raise ValueError(
                    "--kind compare reads a CSV of simkit compare (a 'variant' column); for a "
                    "sweep along one grid column use --kind line --x KEY"
                )
            ax = plots.compare_chart(
                df, outcome=outcome, x=args.x, value=args.value, where=where, title=title
            )
    except ValueError as exc:
        raise ParamError(f"plot {args.csv}: {exc}") from None
    plots.save(ax, args.output)
    return 0
