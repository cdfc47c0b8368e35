"""``simkit replay party``: one fight of a run, played again with its log.

Registered in :data:`simkit.cli.main.EXTRA_COMMANDS`. Examples::

    simkit replay party --set level=5 --set threat=severe --pick first-death --seed 1
    simkit replay party --set level=4 --pick median -n 5e4 --seed 2 --format csv
    simkit replay party --set level=5 --track 17 --seed 1

The run is the party on the compiled fight loop (``Party(..., engine="loop")``), whose
every die of a track comes from the track's own key: track ``--track K`` of the run on
``--seed`` (or the one ``--pick`` finds in a run of ``-n`` fights: ``median``,
``worst-decile``, ``first-death``) is played again on the party's scalar reference
(:func:`simkit.models.party_replay.replay`), which the tests hold to the loop track by
track. The log: one row an action (round, actor, action, target, the natural d20, the bonus
and the DC it met, the degree, the damage, the target's HP, condition and dying value
after). The day is not replayed yet.
"""

from __future__ import annotations

__all__ = ["configure"]

#: Fights a run when ``--pick`` looks for its track.
REPLAY_N = 10_000


def configure(sub) -> None:
    from simkit.cli.main import add_output_args, count_parser, parse_seed
    from simkit.models.party_replay import PICKS

    p = sub.add_parser(
        "replay",
        help="one fight of a run played again, its log: round, actor, action, roll and DC, "
        "damage, conditions (party, on the compiled fight loop)",
    )
    p.add_argument("model", help="the model: party (the day is not replayed yet)")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="a party parameter, e.g. level=5 or threat=severe (repeatable)",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--track", type=int, help="the track's number in the run (0-based)")
    which.add_argument("--pick", choices=PICKS, help="the track a run of -n fights picks")
    p.add_argument(
        "-n",
        type=count_parser("-n"),
        default=REPLAY_N,
        help=f"fights of the run --pick looks in (default {REPLAY_N:,})",
    )
    p.add_argument("--seed", type=parse_seed, default=None, help="the run's seed (default: fresh)")
    add_output_args(p)
    p.set_defaults(func=_cmd_replay)


def _cmd_replay(args) -> int:
    import dataclasses
    import sys

    import numpy as np

    from simkit.cli.main import emit, parse_sets, prepare_output
    from simkit.core.engine import simulate
    from simkit.core.params import ParamError
    from simkit.core.streams import resolve_seed
    from simkit.models import get_model, make_model
    from simkit.models.party import Party
    from simkit.models.party_replay import pick_track, replay

    if args.model != "party":
        raise ParamError(f"replay: model must be party (the day is not replayed yet), got "
                         f"{args.model!r}")  # fmt: skip
    params = parse_sets(get_model("party"), args.set)
    base = make_model("party", **params)
    assert isinstance(base, Party)
    rules = dataclasses.replace(base, engine="loop")
    prepare_output(args)
    seed = resolve_seed(args.seed)
    if args.track is not None:
        if args.track < 0:
            raise ParamError(f"--track must be a track number, 0 or more, got {args.track}")
        track = args.track
    else:
        run = simulate(rules, args.n, seed, keep_outcomes=True)
        track = pick_track(run, args.pick)
    log = replay(rules, seed, track)
    a = log.attrs
    print(
        f"simkit: track {track} of the run on seed {seed}: {a['outcome']} at step {a['step']}, "
        f"{a['rounds']} rounds, {a['deaths']} deaths, {a['knockouts']} knock-outs",
        file=sys.stderr,
    )
    if args.format == "table" and not args.output:
        shown = log.astype(object).where(log.notna(), "")
        empty = "(no action: the fight ended at once)"
        text = shown.to_string(index=False) if len(shown) else empty
        print(text)
        return 0
    emit(log.replace({np.nan: None}), args)
    return 0
