"""``simkit threat``: is this lineup fair for my party? One screen.

Registered in :data:`simkit.cli.main.EXTRA_COMMANDS`. Examples::

    simkit threat medusa --level 4
    simkit threat 7 --level 4 --party fighter,cleric,wizard --format json
    simkit threat "boar,crocodile" --level 1 --set rules=pf2e-core
    simkit threat @my/actor.json --level 5 -n 5e4 --seed 2

The lineup is what ``simkit run party --set monsters=...`` takes (levels, bundled creature
names, ``@`` Foundry files); the party is ``--level`` and ``--party`` (roles), other party
parameters by ``--set``. The screen: the lineup's XP against the budgets, the budget's
threat in simkit's convention (the highest threat whose budget the XP reaches) and in
Foundry's (the lowest threat whose budget covers it), the measured threat
(:func:`simkit.analysis.threat.measured_threat`: "budgeted severe, measures like low"),
then P(a PC dies), P(defeat) and the expected deaths with their intervals. ``--format
csv`` / ``json``: the frame :func:`simkit.analysis.threat.threat_frame` only.
"""

from __future__ import annotations

__all__ = ["configure"]


def configure(sub) -> None:
    from simkit.analysis.threat import THREAT_N
    from simkit.cli.main import add_output_args, count_parser, parse_seed

    p = sub.add_parser(
        "threat",
        help="a lineup against a party on one screen: XP, the budget's threat (simkit's and "
        "Foundry's), the measured threat, P(a PC dies), P(defeat), expected deaths",
    )
    p.add_argument(
        "lineup",
        help="the monsters, as --set monsters= takes them: levels (7 or 7,5,5), bundled "
        "creature names (medusa; see `simkit creatures`), @FILE.json Foundry actors",
    )
    p.add_argument("--level", type=int, default=None, help="the party's level (1..20, default 5)")
    p.add_argument(
        "--party", default=None, help="the PCs' roles, e.g. fighter,rogue,cleric,wizard (default)"
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="another party parameter, e.g. rules=pf2e-core (repeatable; see `simkit models "
        "party`)",
    )
    p.add_argument(
        "-n",
        type=count_parser("-n"),
        default=THREAT_N,
        help=f"fights a run, six runs (default {THREAT_N:,})",
    )
    p.add_argument("--seed", type=parse_seed, default=None, help="random seed (default: fresh)")
    add_output_args(p)
    p.set_defaults(func=_cmd_threat)


def _cmd_threat(args) -> int:
    import sys

    from simkit.analysis.threat import measured_threat, threat_frame, threat_lines
    from simkit.cli.main import emit, parse_sets, prepare_output
    from simkit.cli.text import format_output
    from simkit.core.params import ParamError
    from simkit.models import get_model, make_model

    cls = get_model("party")
    params = parse_sets(cls, args.set)
    for key, value in (("monsters", args.lineup), ("level", args.level), ("party", args.party)):
        if key in params and value is not None:
            raise ParamError(f"{key}: give it once (not also as --set {key}=...)")
    params["monsters"] = args.lineup
    if args.level is not None:
        params["level"] = args.level
    if args.party is not None:
        params["party"] = args.party
    model = make_model("party", **params)
    prepare_output(args)
    m = measured_threat(model, n=args.n, rng=args.seed)
    frame = threat_frame(m)
    from simkit.rules.pf2e.budget import creature_notes

    for line in creature_notes(getattr(model, "monsters")):  # loaded: what the fight leaves out
        print(f"simkit: {line}", file=sys.stderr)
    if args.seed is None:
        print(f"simkit: seed {m.table.attrs['seed']} (replay with --seed "
              f"{m.table.attrs['seed']})", file=sys.stderr)  # fmt: skip
    if args.format != "table":
        emit(frame, args)
        return 0
    shown = frame[["name", "value", "ci_low", "ci_high", "measured"]].rename(
        columns={"name": "measure"}
    )
    table = format_output(shown, "table", args.output)
    text = "\n".join(threat_lines(m, frame)) + "\n\n" + table
    from simkit.core.io import STDOUT, atomic_write

    with atomic_write(args.output or STDOUT) as fh:
        fh.write(text)
    return 0
