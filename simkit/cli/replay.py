"""``simkit replay party|day``: one fight or one day of a run, played again with its log.

Registered in :data:`simkit.cli.main.EXTRA_COMMANDS`. Examples::

    simkit replay party --set level=5 --set threat=severe --pick first-death --seed 1
    simkit replay party --set level=4 --pick median -n 5e4 --seed 2 --format csv
    simkit replay party --set level=5 --track 17 --seed 1
    simkit replay day --set level=3 --set "plan=moderate, short_rest, severe" --pick worst-decile

The run is the party or the day on the compiled fight loop (``engine="loop"``), whose
every die of a fight comes from the track's own key: track ``--track K`` of the run on
``--seed`` (or the one ``--pick`` finds in the run of ``-n`` tracks: ``median``,
``worst-decile``, ``first-death``) is played again. A fight is played on the party's
scalar reference (:func:`simkit.models.party_replay.replay`), which the tests hold to the
loop track by track; its log: one row an action (round, actor, action, target, the
natural d20, the bonus and the DC it met, the degree, the damage, the target's HP,
condition and dying value after). A day (:func:`simkit.models.day_replay.replay`): its
rests, road and falls draw from the track's stream with the stream's other tracks, so the
day's log needs the run's ``-n`` too (with ``--track``); each step's fight log as the
party's, and each PC's state after each step.
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
        help="one fight (party) or one day (day) of a run played again, its log: round, actor, "
        "action, roll and DC, damage, conditions; a day's steps and the PCs' states between "
        "them (on the compiled fight loop)",
    )
    p.add_argument("model", help="the model: party or day")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="a parameter of the model, e.g. level=5 or threat=severe (repeatable)",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--track", type=int, help="the track's number in the run (0-based)")
    which.add_argument("--pick", choices=PICKS, help="the track a run of -n tracks picks")
    p.add_argument(
        "-n",
        type=count_parser("-n"),
        default=REPLAY_N,
        help=f"tracks of the run (default {REPLAY_N:,}): the one --pick looks in; a day's "
        "--track is of the run of -n days (its rests and falls draw with its stream's)",
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
    from simkit.models import day_replay, get_model, make_model, party_replay
    from simkit.models.day import Day
    from simkit.models.party import Party

    if args.model not in ("party", "day"):
        raise ParamError(f"replay: model must be party or day, got {args.model!r}")
    base = make_model(args.model, **parse_sets(get_model(args.model), args.set))
    assert isinstance(base, (Party, Day))
    rules = dataclasses.replace(base, engine="loop")
    prepare_output(args)
    seed = resolve_seed(args.seed)
    if args.track is not None:
        if args.track < 0:
            raise ParamError(f"--track must be a track number, 0 or more, got {args.track}")
        if args.model == "day" and args.track >= args.n:
            raise ParamError(f"--track must be below -n {args.n} (the run's), got {args.track}")
        track = args.track
    else:
        run = simulate(rules, args.n, seed, keep_outcomes=True)
        pick = day_replay.pick_track if args.model == "day" else party_replay.pick_track
        track = pick(run, args.pick)
    if isinstance(rules, Day):
        log = day_replay.replay(rules, seed, track, args.n)
        a = log.attrs
        first = f" (the first at step {a['first_death']})" if a["first_death"] else ""
        said = (
            f"simkit: track {track} of the run of {args.n:,} days on seed {seed}: "
            f"{a['outcome']} at step {a['step']}, {a['deaths']} deaths{first}"
        )
    else:
        log = party_replay.replay(rules, seed, track)
        a = log.attrs
        said = (
            f"simkit: track {track} of the run on seed {seed}: {a['outcome']} at step "
            f"{a['step']}, {a['rounds']} rounds, {a['deaths']} deaths, {a['knockouts']} "
            "knock-outs"
        )
    print(said, file=sys.stderr)
    if args.format == "table" and not args.output:
        shown = log.astype(object).where(log.notna(), "")
        empty = "(no action: the fight ended at once)"
        text = shown.to_string(index=False) if len(shown) else empty
        print(text)
        return 0
    emit(log.replace({np.nan: None}), args)
    return 0
