"""CLI verbs of the designer tools: ``calibrate``, ``sensitivity``, ``ambiguities``.

Registered in :data:`simkit.cli.main.EXTRA_COMMANDS`. Examples::

    simkit calibrate dying --target dead=10% --vary dc --set level=5
    simkit calibrate dnd5e --target dead=25% --vary bonus
    simkit sensitivity dying --set dc=20 --outcome dead
    simkit ambiguities --levels 1,5,10
"""

from __future__ import annotations

import argparse
import sys

from simkit.core.numbers import ascii_int, ascii_number
from simkit.core.params import ParamError

__all__ = ["configure"]


def _range(text: str) -> tuple[float, float]:
    """``LO..HI`` (integers or numbers, in ASCII digits: :mod:`simkit.core.numbers`)."""
    parts = text.split("..")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(
            f"--range must look like LO..HI (e.g. 10..40), got {text!r}"
        )
    out = []
    for part in parts:
        try:
            v = ascii_number(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--range must look like LO..HI (e.g. 10..40), got {text!r}"
            ) from None
        out.append(int(v) if v.is_integer() and "." not in part else v)
    return out[0], out[1]


def _levels(text: str) -> tuple[int, ...]:
    """``1,5,10`` or ``1..5`` (ASCII digits: :mod:`simkit.core.numbers`)."""
    try:
        out = []
        for part in text.split(","):
            if ".." in part:
                a, b = part.split("..")
                out += list(range(ascii_int(a), ascii_int(b) + 1))
            else:
                out.append(ascii_int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--levels must look like 1,5,10 or 1..5, got {text!r}"
        ) from None
    return tuple(out)


def _target(text: str, model) -> tuple[str, float]:
    from simkit.analysis.design import parse_probability

    if "=" in text:
        outcome, p = text.split("=", 1)
        outcome = outcome.strip()
    else:
        outcome, p = "dead", text
        if "dead" not in model.outcomes:
            raise ParamError(
                f"--target {text!r}: name the outcome, e.g. --target {model.outcomes[0]}=10%"
            )
    from simkit.analysis.evaluation import check_outcome

    check_outcome(model, outcome, "--target")
    try:
        return outcome, parse_probability(p)
    except ParamError as exc:
        raise ParamError(f"--target {text!r}: {exc}") from None


def _model(args):
    """The model of the command line; ``--character-level L`` is ``--set level=L`` (deprecated)."""
    from simkit.cli.main import model_from_args

    if args.character_level is not None:
        given = [
            s.split("=", 1)[1].strip()
            for s in args.set or []
            if s.split("=", 1)[0].strip() == "level"
        ]
        if given and given[0] != str(args.character_level):
            raise ParamError(
                f"--character-level {args.character_level} and --set level={given[0]}: "
                f"give the character level once (--set level=L)"
            )
        if not given:
            args.set = [*(args.set or []), f"level={args.character_level}"]
    return model_from_args(args)


def _cmd_calibrate(args) -> int:
    from simkit.analysis.design import calibrate
    from simkit.cli.main import emit, prepare_output

    model = _model(args)
    outcome, target = _target(args.target, model)
    lo, hi = args.range if args.range else (None, None)
    prepare_output(args)
    cal = calibrate(
        model,
        target,
        args.vary,
        outcome=outcome,
        lo=lo,
        hi=hi,
        method=args.method,
        n=args.n,
        rng=args.seed,
        confidence=args.confidence,
    )
    emit(cal.to_frame(), args)
    if args.format == "table" and not args.output:
        sys.stdout.write(cal.message + "\n")
    elif not cal.reachable:
        print(f"simkit: note: {cal.message}", file=sys.stderr)
    if hasattr(model, "describe_lineup"):  # a fight: which creatures each value buys
        for point in (cal.lower, (cal.value, cal.p), cal.upper):
            if point is not None:
                there = model.replace(**{args.vary: point[0]})
                print(
                    f"simkit: {args.vary}={point[0]}: {there.describe_lineup()}",
                    file=sys.stderr,
                )
    return 0


def _cmd_sensitivity(args) -> int:
    from simkit.analysis.design import sensitivity
    from simkit.cli.main import emit, prepare_output

    model = _model(args)
    prepare_output(args)
    df = sensitivity(
        model,
        params=args.param,
        outcomes=args.outcome,
        method=args.method,
        n=args.n,
        rng=args.seed,
        confidence=args.confidence,
        paired=not args.independent,
    )
    emit(df, args)
    return 0


def _cmd_ambiguities(args) -> int:
    from simkit.analysis.ambiguities import ambiguity_report, side_by_side
    from simkit.cli.main import emit, prepare_output

    prepare_output(args)
    report = ambiguity_report(
        levels=args.levels,
        n=args.n,
        rng=args.seed,
        ids=args.id,
        method=args.method,
        paired=not args.independent,
    )
    emit(report if args.long else side_by_side(report), args)
    return 0


def independent_arg(p) -> None:
    """``--independent``: Monte Carlo on the default streams, independent intervals."""
    p.add_argument(
        "--independent",
        action="store_true",
        help="Monte Carlo differences as independent runs (default: paired, the same dice "
        "track by track; docs/paired.md)",
    )


def configure(sub) -> None:
    """Add the designer verbs to the ``simkit`` parser."""
    from simkit.cli.levels import add_confidence_arg
    from simkit.cli.main import add_model_args, add_output_args, parse_count, parse_seed

    def char_level(p):
        p.add_argument(
            "--character-level",
            type=int,
            default=None,
            metavar="L",
            help="deprecated: the same as --set level=L (the character level)",
        )

    def common(p, n_default=100_000):
        p.add_argument(
            "--method",
            default="auto",
            choices=("auto", "exact", "mc"),
            help="exact solver, Monte Carlo, or auto (exact when the model has one)",
        )
        p.add_argument(
            "-n",
            type=parse_count,
            default=n_default,
            help=f"Monte Carlo tracks per point (default {n_default})",
        )
        p.add_argument(
            "--seed", type=parse_seed, default=None, help="random seed of the Monte Carlo points"
        )

    def design_options(p, func):
        """The options calibrate and sensitivity share, and the verb's function."""
        common(p)
        char_level(p)
        add_confidence_arg(p)
        add_output_args(p)
        p.set_defaults(func=func)

    p = sub.add_parser(
        "calibrate", help="the parameter value that brings an outcome closest to a target"
    )
    add_model_args(p)
    p.add_argument(
        "--target",
        required=True,
        metavar="OUTCOME=P",
        help="outcome and probability aimed at, e.g. dead=10%% or dead=0.1",
    )
    p.add_argument(
        "--vary",
        required=True,
        metavar="PARAM",
        help="the integer or number parameter to calibrate",
    )
    p.add_argument(
        "--range",
        type=_range,
        default=None,
        metavar="LO..HI",
        help="values searched (default: the parameter's allowed range)",
    )
    design_options(p, _cmd_calibrate)

    p = sub.add_parser(
        "sensitivity", help="change of each outcome for +1/-1 on every numeric parameter"
    )
    add_model_args(p)
    p.add_argument(
        "--param",
        action="append",
        default=None,
        metavar="PARAM",
        help="only this parameter (repeatable; default: every integer and number parameter)",
    )
    p.add_argument(
        "--outcome",
        action="append",
        default=None,
        metavar="OUTCOME",
        help="only this outcome or event, e.g. any_death (repeatable; default: all outcomes)",
    )
    independent_arg(p)
    design_options(p, _cmd_sensitivity)

    p = sub.add_parser(
        "ambiguities", help="headline odds under each reading of every ambiguity (docs/rules.md)"
    )
    p.add_argument(
        "--levels",
        type=_levels,
        default=(1, 5, 10),
        metavar="L1,L2,...",
        help="levels of the typical character (default 1,5,10)",
    )
    p.add_argument(
        "--id", action="append", default=None, metavar="ID", help="only this ambiguity (repeatable)"
    )
    p.add_argument(
        "--long", action="store_true", help="one row per reading instead of one line per ambiguity"
    )
    independent_arg(p)
    common(p, n_default=50_000)
    add_output_args(p)
    p.set_defaults(func=_cmd_ambiguities)
