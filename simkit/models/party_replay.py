"""One party fight replayed from the compiled loop's dice, with its log (issue 32 item 4).

The compiled fight loop (:mod:`simkit.fight`) draws every die of a track from the track's
own key: so any one track of a run can be played again alone. This module plays it again
on the party's scalar reference (:mod:`simkit.models.party_ref`, written from the rules,
independent of the loop) and keeps the reference's log: round, actor, action, target, the
natural d20 with the bonus and the DC it met, the degree, the damage and the target's state
after. ``tests/test_fight_loop_ref.py`` holds the loop to this reference track by track on
the same dice, so the log is the fight the run counted.

The dice contract both sides keep (a named contract, not shared code): a track's ``c``-th
64-bit word is SplitMix64's finaliser of ``key + c * GOLDEN``; an integer below ``n`` is
Lemire's multiply-and-reject on a word's top 32 bits; a d20 is one below 20; a chance is
one 32-bit word against the cell edge; a pick is one integer below the plan's width, modulo
the count; a sum of dice is one integer below ``sides ** count`` (the dice as its
base-``sides`` digits) when that is at most 65,536, else one integer per die. The reference
reads a round's draws by name (:attr:`~simkit.models.party.Party.plan`); here each is drawn
when it is read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.core import counter
from simkit.core.params import ParamError
from simkit.core.streams import STREAM_SIZE, stream_generator
from simkit.models import party_ref
from simkit.models.party import OUTCOMES, Party
from simkit.rules.dice import Dice
from simkit.rules.pf2e import bestiary

__all__ = [
    "LOG_COLUMNS",
    "PICKS",
    "CounterDice",
    "LazyRound",
    "check_track",
    "fight_outcome",
    "log_frame",
    "other_pick",
    "pick_track",
    "play",
    "replay",
    "track_key",
]

#: The tracks :func:`pick_track` can pick.
PICKS = ("median", "worst-decile", "first-death")

_MASK = (1 << 64) - 1
_GOLDEN = counter.GOLDEN


def track_key(seed: int, track: int, bits: int = 63) -> int:
    """The dice key (63 bits; ``bits=64``: the key before the loop drops its last bit) of
    track ``track`` of a run on ``seed``: its stream's key and its position in the stream
    (:func:`simkit.core.counter.track_keys`)."""
    stream, pos = divmod(int(track), STREAM_SIZE)
    skey = counter.stream_key(stream_generator(int(seed), stream))
    return int(counter.track_keys([skey], [pos + 1])[pos]) >> (64 - bits)


def _bestiary_start(rules: Party, seed: int, track: int) -> dict | None:
    """The fresh start of a ``lineup=bestiary`` track, at the lineup its dice key drew
    (AP-19, :func:`simkit.rules.pf2e.bestiary.draw`); None for other rules."""
    if not bestiary.applies(rules):
        return None
    if rules.hp == 0:  # (a fresh start at 0 HP is not a given start's)
        raise ParamError("replay: lineup=bestiary with hp=0 is not replayed yet")
    key = np.array([track_key(seed, track, bits=64)], dtype=np.uint64)
    start = rules.fresh_start(1).row(0)
    start["fight"] = int(bestiary.draw(key, rules.fighters.lineup.levels)[0])
    return start


class CounterDice:
    """One track's draws by the loop's dice contract (see the module's docstring)."""

    def __init__(self, key63: int):
        self.key, self.c = int(key63), 0

    def word(self) -> int:
        z = (self.key + self.c * _GOLDEN) & _MASK
        self.c += 1
        return counter.mix64(z)

    def below(self, n: int) -> int:
        """An exactly uniform integer in ``[0, n)``."""
        m = (self.word() >> 32) * n
        if (m & 0xFFFFFFFF) < n:
            bias = ((1 << 32) - n) % n
            while (m & 0xFFFFFFFF) < bias:
                m = (self.word() >> 32) * n
        return m >> 32


class _Draw:
    """One draw of a round, made when the reference reads it (``int``, ``float``, or for a
    chance its two 16-bit halves); ``depth`` indices into the plan's shape come first."""

    def __init__(self, dice: CounterDice, kind: str, text: str | None, depth: int):
        self.dice, self.kind, self.text, self.depth = dice, kind, text, depth
        self.word: int | None = None

    def __getitem__(self, i):
        if self.depth:
            return _Draw(self.dice, self.kind, self.text, self.depth - 1)
        if self.kind != "chance":
            raise TypeError(f"a {self.kind} draw has no halves")
        if self.word is None:
            self.word = self.dice.below(1 << 32)
        return (self.word >> 16) if i == 0 else (self.word & 0xFFFF)

    def __int__(self) -> int:
        if self.kind == "d20":
            return self.dice.below(20) + 1
        if not self.kind.startswith("below:"):
            raise TypeError(f"a {self.kind} draw is not an integer")
        return self.dice.below(int(self.kind[6:]))

    def __float__(self) -> float:
        """A sum of dice too wide for one draw: one draw a die, handed to the reference as
        a uniform that its inverse CDF maps to that sum."""
        d = Dice.parse(self.text or "")
        total = d.bonus + sum(self.dice.below(d.sides) + 1 for _ in range(d.count))
        values, probs = d.pmf()
        cdf = np.cumsum(probs)
        at = int(np.searchsorted(values, total))
        lo = cdf[at - 1] if at else 0.0
        return float((lo + cdf[at]) / 2)


class LazyRound(dict):
    """A round's draws by name (the party's plan), each made when it is read."""

    def __init__(self, rules: Party, dice: CounterDice):
        super().__init__()
        F = rules.fighters
        texts: dict[str, str | None] = {}
        for k, p in enumerate(F.pcs):
            texts.update({f"dmg{k}": p.damage, f"area{k}": p.area})
            texts.update({f"cantrip{k}": p.cantrip, f"heal{k}": p.heal})
        for f, lu in enumerate(rules.lineup_rules):  # each lineup's monsters' dice, by draw
            for j, mo in enumerate(lu.fighters.monsters):
                texts[rules.monster_draw("mdmg", f, j)] = mo.damage
                texts[rules.monster_draw("marea", f, j)] = mo.area
        self.kinds = {name: (kind, len(shape)) for name, kind, shape in rules.plan}
        self.texts, self.dice = texts, dice

    def __getitem__(self, name):
        kind, depth = self.kinds[name]
        return _Draw(self.dice, kind, self.texts.get(name), depth)


def _check(rules) -> Party:
    if not isinstance(rules, Party):
        raise ParamError(f"replay: a party fight only, got model {getattr(rules, 'name', rules)!r}")
    if rules.n_fights > 1 and not bestiary.applies(rules):
        raise ParamError("replay: rules of one lineup only (with_lineups: not yet)")
    return rules


def play(
    rules: Party,
    key63: int,
    log: list | None = None,
    start: dict | None = None,
    knocked=None,
) -> dict:
    """One track of ``rules`` on the reference from its dice key: the track's dict (its
    outcome, marks and PCs at the end; ``log``, when given, is filled). ``start``: the
    track's start (a :meth:`~simkit.models.fight_state.FightStart.row`, as a day hands a
    fight its state); None: the party's fresh start. ``knocked`` (a bool a PC, with a
    ``start``): a care, as the day plays one for PCs knocked out outside a fight (AP-7
    with no monster): the monsters gone before round 1, each PC ``knocked`` out then
    (:func:`~simkit.models.party_ref.ref_knock_out`: dying ``start_dying`` at the recovery
    DC :attr:`~simkit.models.party.Party.start_dc`)."""
    if not isinstance(rules, Party):
        raise ParamError(f"replay: a party fight only, got model {getattr(rules, 'name', rules)!r}")
    dice = CounterDice(key63)
    # every combatant's initiative d20, an absent monster's slot too (several lineups)
    init = [dice.below(20) + 1 for _ in range(rules.n_pcs + rules.n_slots)]
    tr = party_ref.new_track(rules, init, start)
    if log is not None:
        tr["log"] = log
    if knocked is not None:
        tr["mhp"] = [0] * len(tr["mhp"])
        tr["area_left"] = [0] * len(tr["area_left"])
        tr["phase"] = party_ref.WON
        for k, ko in enumerate(knocked):
            if ko and tr["pcs"][k]["cond"] != party_ref.DEAD:
                tr["pcs"][k]["hp"] = 0
                party_ref.ref_knock_out(rules, tr, k, dc=rules.start_dc, start=rules.start_dying)
        tr["knockouts"] = 0
    code = party_ref.ref_init(rules, tr)
    step = 0
    while code is None and step < rules.max_rounds:
        step += 1
        code = party_ref.ref_round(rules, tr, LazyRound(rules, dice))
    tr["step"], tr["code"] = step, (-1 if code is None else code)
    return tr


#: The columns of a fight's log (:func:`replay`, :func:`log_frame`).
LOG_COLUMNS: tuple[str, ...] = ("round", "actor", "action", "target", "roll", "bonus", "dc")
LOG_COLUMNS += ("degree", "damage", "hp", "cond", "dying", "note")
#: The log's integer columns (nullable: a row without a roll has none).
INT_COLUMNS = ("roll", "bonus", "dc", "damage", "hp", "dying")


def log_frame(log: list, columns=LOG_COLUMNS, ints=INT_COLUMNS) -> pd.DataFrame:
    """The reference's log rows (dicts) as a frame of ``columns``, the columns ``ints``
    nullable integers (``Int64``)."""
    frame = pd.DataFrame(log, columns=list(columns))
    for c in ints:
        frame[c] = frame[c].astype("Int64")
    return frame


def fight_outcome(tr: dict) -> str:
    """How a played track ended: a name of the party's outcomes, or ``unresolved``."""
    return "unresolved" if tr["code"] < 0 else OUTCOMES[tr["code"]]


def check_track(track: int, n: int | None = None) -> int:
    """``track`` as a track number of a run of ``n`` tracks (ParamError otherwise)."""
    if isinstance(track, bool) or not isinstance(track, (int, np.integer)) or track < 0:
        raise ParamError(f"replay: track must be a track number, 0 or more, got {track!r}")
    if n is not None and track >= n:
        raise ParamError(f"replay: track must be below the run's n={n}, got {track}")
    return int(track)


def replay(rules: Party, seed: int, track: int, n: int | None = None) -> pd.DataFrame:
    """Track ``track`` of ``simulate(Party(..., engine="loop"), n, seed)`` played again, as
    a frame: one row an action (``round``, ``actor``, ``action``, ``target``, ``roll``,
    ``bonus``, ``dc``, ``degree``, ``damage``, the target's ``hp``, ``cond``, ``dying``,
    ``note``); ``attrs``: the track's ``outcome``, ``step`` and marks. ``n`` (optional:
    a fight's dice do not depend on it) checks that the track is one of the run's.

    Raises
    ------
    ParamError
        Rules not of the party, or a track not of the run.
    """
    rules = _check(rules)
    track = check_track(track, n)
    log: list = []
    tr = play(rules, track_key(seed, track), log, _bestiary_start(rules, seed, track))
    frame = log_frame(log)
    frame.attrs.update(
        outcome=fight_outcome(tr), step=tr["step"], **{m: tr[m] for m in rules.marks}
    )
    return frame


def pick_track(result, how: str) -> int:
    """A track of ``result`` (a run with ``keep_outcomes=True``) to replay: ``median`` the
    first track whose rounds are the median's, ``worst-decile`` the track at the edge of the
    worst tenth (most deaths, then most rounds), ``first-death`` the first track with a
    death."""
    marks = getattr(result, "track_marks", None)
    if not marks or "rounds" not in marks:
        raise ParamError("pick_track: a party run kept with keep_outcomes=True")
    rounds = np.asarray(marks["rounds"], dtype=np.int64)
    deaths = np.asarray(marks["deaths"], dtype=np.int64)
    if how == "median":
        return int(np.flatnonzero(rounds == int(np.sort(rounds)[(len(rounds) - 1) // 2]))[0])
    if how == "worst-decile":
        order = np.lexsort((-np.arange(len(rounds)), rounds, deaths))[::-1]
        return int(order[len(order) // 10])
    return other_pick(how, deaths)


def other_pick(how: str, deaths: np.ndarray) -> int:
    """The picks a party and a day share: ``first-death`` (the first track with a death,
    ``deaths`` (n,) each track's); any other ``how`` is refused in one line."""
    if how == "first-death":
        hit = np.flatnonzero(deaths > 0)
        if not len(hit):
            raise ParamError("pick_track: no track of this run has a death")
        return int(hit[0])
    raise ParamError(f"pick_track: how must be one of {', '.join(PICKS)}, got {how!r}")
