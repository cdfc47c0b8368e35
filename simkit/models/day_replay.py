"""One adventuring day replayed from a loop run, with its log (issue 32 item 4).

A day (on the compiled fight loop) draws each fight's and each care's dice by counter from
the track's key under the step's prefix, but its rests, the road and the falls draw from
block streams (:class:`~simkit.core.streams.BlockRng`):
what track ``K`` draws there depends on which other tracks of its stream
(:data:`~simkit.core.streams.STREAM_SIZE` tracks) are still going. So the day is replayed in
two parts:

1. **The steps.** The stream that holds track ``K`` is played again (the run's seed, the
   stream's own tracks: the streams are the engine's unit, whatever its block size, so the
   draws are the run's) by :meth:`~simkit.models.day.Day.run_block` with a recorder
   (``_record``, which reads the block and draws nothing): track ``K``'s state after every
   step (each PC's HP, condition, wounded, hero points, slots, heals, PP, PE; the check
   penalty of fatigue, R4-03) and, at each fight and each care, the start it was handed
   (a care's knocked-out PCs) and its dice key. The day's outcome and marks are those the
   re-run counted, the run's.
2. **The fights and the cares.** Each fight is played again on the party's scalar
   reference (:func:`simkit.models.party_replay.play`: the reference, independent of the
   loop, from the fight's start and dice key), whose log is the fight's, round by round;
   its end must be the state the day carried on with (checked: a RuntimeError otherwise).
   Each care (the PCs a fall or a Treat Wounds critical failure knocked out, AP-7 with no
   monster) is played again the same way (``play(..., knocked=)``), its log in its step.

``tests/test_day_replay.py`` holds the replayed days to the run (outcome and marks, every
pick) and the replayed fights to the day's.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from simkit.core.params import ParamError
from simkit.core.streams import STREAM_SIZE
from simkit.models.day import Day
from simkit.models.day_outcomes import DAY_OUTCOMES
from simkit.models.day_plan import FallStep, FightStep, RestStep
from simkit.models.fight_state import CARRIED
from simkit.models.party_replay import (
    INT_COLUMNS,
    LOG_COLUMNS,
    PICKS,
    check_track,
    fight_outcome,
    log_frame,
    other_pick,
    play,
)

__all__ = ["COLUMNS", "PICKS", "pick_track", "replay", "replay_tracks"]

#: The columns of a day's log: the step (``step``: 0 the start, then the plan's steps
#: from 1; ``plan``: its text), a fight's log (:data:`~simkit.models.party_replay.
#: LOG_COLUMNS`), and on a PC's state row its numbers after the step.
STATE_COLUMNS = ("hp_max", "wounded", "hero", "slots", "heals", "pp", "pe", "penalty")
COLUMNS = ("step", "plan") + LOG_COLUMNS + STATE_COLUMNS
_INTS = ("step", "round") + INT_COLUMNS + STATE_COLUMNS
#: A PC's fields compared between a replayed fight's end and the day's state after it.
_COMPARED = ("hp", "hero", "slots", "heals", "pp", "pe", "wounded", "dead")


def _check(rules) -> Day:
    if not isinstance(rules, Day):
        raise ParamError(f"replay: a day only, got model {getattr(rules, 'name', rules)!r}")
    return rules


class _Recorder:
    """``Day.run_block``'s ``_record`` for the block positions ``pos``: each one's state
    after every step and each fight's start and dice key (it reads, never writes)."""

    def __init__(self, day: Day, pos):
        self.day, self.pos, self.t = day, [int(p) for p in pos], 0
        self.states: dict[int, list] = {p: [] for p in self.pos}
        self.fights: dict[int, dict] = {p: {} for p in self.pos}
        self.cares: dict[int, dict] = {p: {} for p in self.pos}

    def __call__(self, event: str, t: int, B, **info) -> None:
        if event == "care":  # a care in step self.t + 1 (a fall's, or a Treat Wounds')
            rows, start, keys, knocked = info["rows"], info["start"], info["keys"], info["knocked"]
            for p in self.pos:
                i = int(np.searchsorted(rows, p))
                if i < len(rows) and rows[i] == p:
                    care = (start.row(i), knocked[i].tolist(), int(keys[i]) >> 1)
                    self.cares[p].setdefault(self.t + 1, []).append(care)
            return
        if event == "fight":  # the fight of step self.t + 1, handed its tracks
            rows, start, keys = info["rows"], info["start"], info["keys"]
            for p in self.pos:
                i = int(np.searchsorted(rows, p))
                if i < len(rows) and rows[i] == p:
                    row = None if start is None else start.row(i)
                    self.fights[p][self.t + 1] = (row, int(keys[p]) >> 1)
            return
        if event != "step" and event != "start":  # (a care: its states are the step's)
            return
        self.t = t
        pen = self.day._penalty(B)
        for p in self.pos:
            state = {k: B.S[k][p].tolist() for k in CARRIED}
            state.update(penalty=int(pen[p]), ended=int(B.ended[p]))
            self.states[p].append((t, state))


def _record(day: Day, seed: int, n: int, tracks, positional: bool):
    """Re-run each stream holding one of ``tracks`` (of a run of ``n`` on ``seed``): for
    each track, its recorder's states and fights, its outcome name and its marks."""
    out = {}
    for stream in sorted({t // STREAM_SIZE for t in tracks}):
        count = min(STREAM_SIZE, n - stream * STREAM_SIZE)
        pos = sorted(t - stream * STREAM_SIZE for t in tracks if t // STREAM_SIZE == stream)
        rec = _Recorder(day, pos)
        tally = day.run_block(
            seed, stream, count, (), positional=positional, keep_outcomes=True, _record=rec
        )
        (_, ended), (_, marks) = tally.outcome_of[0], tally.marks_of[0]
        names = DAY_OUTCOMES + ("unresolved",)
        for p in pos:
            out[stream * STREAM_SIZE + p] = (
                rec.states[p],
                rec.fights[p],
                rec.cares[p],
                names[int(ended[p])],
                {m: int(v[p]) for m, v in marks.items()},
            )
    return out


def _kind(step) -> str:
    if isinstance(step, FightStep):
        return "fight"
    if isinstance(step, FallStep):
        return "fall"
    if isinstance(step, RestStep):
        return step.text()
    return step.kind


def _state_rows(day: Day, t: int, text: str, state: dict) -> list[dict]:
    """One row a PC: its state after step ``t`` (between steps a PC is up, stable at 0
    HP or dead)."""
    rows = []
    for k, pc in enumerate(day.base_party.fighters.pcs):
        dead = state["dead"][k]
        hp = state["hp"][k]
        rows.append(
            {
                "step": t,
                "plan": text,
                "actor": f"{pc.role}{k}",
                "action": "state",
                "hp": hp,
                "cond": "dead" if dead else ("up" if hp > 0 else "stable"),
                **{c: state[c][k] for c in STATE_COLUMNS if c != "penalty"},
                "penalty": state["penalty"],
            }
        )
    return rows


def _party_hp(state: dict) -> int:
    return sum(hp for hp, dead in zip(state["hp"], state["dead"]) if not dead)


def _fight(day: Day, step, t: int, text: str, start, key63: int, after: dict):
    """The fight of step ``t`` played again on the reference from ``start`` (None: fresh)
    and its dice key: its log rows and its summary; its end must be ``after``."""
    rules = dataclasses.replace(day.fight_rules(step), engine="loop")
    log: list = []
    tr = play(rules, key63, log, start)
    for pc_end, k in zip(tr["pcs"], range(day.n_pcs)):
        got = {c: pc_end[c] for c in _COMPARED if c != "dead"}
        got["dead"] = pc_end["cond"] == "dead"
        want = {c: after[c][k] for c in _COMPARED}
        if got != want:
            raise RuntimeError(
                f"replay: the fight of step {t} ({text}) played again ends PC {k} as {got}, "
                f"the day carried on with {want}"
            )
    summary = {
        "step": t,
        "outcome": fight_outcome(tr),
        "rounds": tr["step"],
        **{m: tr[m] for m in rules.marks},
    }
    rows = [{"step": t, "plan": text, **row} for row in log]
    return rows, summary


def _care(day: Day, t: int, text: str, care) -> tuple[list[dict], dict]:
    """A care of step ``t`` played again on the reference from its start, its knocked-out
    PCs and its dice key: its log rows and its summary (its deaths, its rounds)."""
    start, knocked, key63 = care
    log: list = []
    tr = play(day.care_rules(), key63, log, start, knocked)
    summary = {
        "step": t,
        "knocked": sum(knocked),
        "outcome": "unresolved" if tr["code"] < 0 else "over",
        "rounds": tr["step"],
        "deaths": tr["deaths"],
    }
    return [{"step": t, "plan": text, **row} for row in log], summary


def _frame(day: Day, seed: int, track: int, n: int, recorded) -> pd.DataFrame:
    states, fights, cares, outcome, marks = recorded
    care_summaries = []
    steps = day.steps
    rows: list[dict] = []
    summaries = []
    prev: dict | None = None
    for t, state in states:
        if prev is not None and prev["ended"] >= 0:
            break  # (the block went on for its other tracks)
        text = "start" if t == 0 else steps[t - 1].text()
        kind = "start" if t == 0 else _kind(steps[t - 1])
        note = ""
        if t and isinstance(steps[t - 1], FightStep):
            if t in fights:
                start, key63 = fights[t]
                log, summary = _fight(day, steps[t - 1], t, text, start, key63, state)
                rows += log
                summaries.append(summary)
                d = summary["deaths"]
                note = f"{summary['outcome']} in {summary['rounds']} rounds, {d} death"
                note += "" if d == 1 else "s"
            else:
                note = "no fight: the party is unconscious from fatigue (R4-04)"
        elif t and prev is not None:
            for care in cares.get(t, ()):
                log, summary = _care(day, t, text, care)
                rows += log
                care_summaries.append(summary)
            hp0, hp1 = _party_hp(prev), _party_hp(state)
            note = f"party HP {hp0} -> {hp1}"
            for c in (s for s in care_summaries if s["step"] == t):
                note += f"; a care of {c['knocked']} PC(s) knocked out: {c['deaths']} died"
            if state["penalty"] != prev["penalty"]:
                note += f", check penalty {state['penalty']}"
        if state["ended"] >= 0 or t == len(steps):  # (a day lived through ends after)
            note += f"; the day ends: {outcome}"
        rows.append({"step": t, "plan": text, "actor": "party", "action": kind, "note": note})
        rows += _state_rows(day, t, text, state)
        prev = state
    frame = log_frame(rows, COLUMNS, _INTS)
    frame.attrs.update(track=track, seed=seed, n=n, outcome=outcome, **marks)
    frame.attrs["fights"] = summaries
    frame.attrs["cares"] = care_summaries
    return frame


def replay_tracks(
    rules: Day, seed: int, tracks, n: int, *, positional: bool = False
) -> list[pd.DataFrame]:
    """:func:`replay` of several tracks of one run, each stream re-run once."""
    rules = _check(rules)
    tracks = [check_track(t, n) for t in tracks]
    recorded = _record(rules, int(seed), int(n), tracks, bool(positional))
    return [_frame(rules, int(seed), t, int(n), recorded[t]) for t in tracks]


def replay(rules: Day, seed: int, track: int, n: int, *, positional: bool = False):
    """Track ``track`` of ``simulate(Day(..., engine="loop"), n, seed)`` played again: its
    day's log as a frame.

    Parameters
    ----------
    rules : Day
        The day's rules, on ``engine="loop"``.
    seed : int
        The run's seed.
    track : int
        The track (0-based, below ``n``).
    n : int
        The run's number of tracks: the rests, the road and the falls draw from the
        track's stream with the stream's other tracks (:data:`STREAM_SIZE` a stream, the
        last one holds what ``n`` leaves).
    positional : bool
        The run was ``simulate(..., positional=True)``.

    Returns
    -------
    DataFrame
        :data:`COLUMNS`. For each step (``step``, 0 the start, and ``plan``, the step's
        text): inside a fight its log as :func:`simkit.models.party_replay.replay` gives
        it (round, actor, action, target, the natural d20 with the bonus and the DC it
        met, the degree, the damage, the target's HP, condition and dying value), and so
        inside a rest or a fall the log of each care of PCs it knocked out; then a
        row ``actor="party"`` (``action``: the step's kind; ``note``: the fight's outcome
        and rounds, the party's HP before and after a rest or a fall and its cares'
        deaths, the day's end) and
        one ``action="state"`` row a PC: its HP, condition, ``hp_max``, ``wounded``,
        ``hero``, ``slots``, ``heals``, ``pp``, ``pe`` after the step and the party's check
        ``penalty`` (fatigue, R4-03). ``attrs``: the day's ``outcome`` and marks as the run
        counted them (``deaths``, ``step``, ``first_death``, ``dead_mask``, the deaths by
        cause), ``fights`` (each fight's step, outcome, rounds and the party's marks),
        ``cares`` (each care's step, PCs knocked out, ``outcome`` over or unresolved,
        rounds and deaths), ``track``, ``seed``, ``n``.

    Raises
    ------
    ParamError
        Rules not of a day on ``engine="loop"``, or a track not of the run.
    """
    return replay_tracks(rules, seed, [track], n, positional=positional)[0]


def pick_track(result, how: str) -> int:
    """A track of ``result`` (a day run with ``keep_outcomes=True``) to replay: ``median``
    the first track whose deaths are the median's and whose end step is the median among
    those, ``worst-decile`` the track at the edge of the worst tenth (most deaths, then the
    earliest first death), ``first-death`` the first track with a death."""
    marks = getattr(result, "track_marks", None)
    if not marks or "first_death" not in marks:
        raise ParamError("pick_track: a day run kept with keep_outcomes=True")
    deaths = np.asarray(marks["deaths"], dtype=np.int64)
    step = np.asarray(marks["step"], dtype=np.int64)
    first = np.asarray(marks["first_death"], dtype=np.int64)
    if how == "median":
        d = int(np.sort(deaths)[(len(deaths) - 1) // 2])
        s = np.sort(step[deaths == d])
        s_med = int(s[(len(s) - 1) // 2])
        return int(np.flatnonzero((deaths == d) & (step == s_med))[0])
    if how == "worst-decile":
        early = np.where(first > 0, -first, np.iinfo(np.int64).min)  # (an earlier death: worse)
        order = np.lexsort((-np.arange(len(deaths)), early, deaths))[::-1]
        return int(order[len(order) // 10])
    return other_pick(how, deaths)
