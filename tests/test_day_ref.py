"""The day against its scalar reference (models/day_ref.py), track by track, on the compiled
fight loop's dice (``loop_vs_ref``)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.core import counter
from simkit.models import make_model
from simkit.models.day import CAUSES, PC_FIELDS
from simkit.models.day_plan import FightStep
from simkit.models.day_ref import Draws, ref_day
from simkit.models.party_replay import play


class _Recorder:
    """A random source for the day's kernel that records each track's draws: the kernel's
    ``source(mask, prefix)`` hook gives one per step (and per care), over the tracks of
    ``mask``; each draw's rows go to those tracks' logs with the stream ``prefix``."""

    def __init__(self, gen, ids, key, logs):
        self.gen, self.ids, self.key, self.logs = gen, ids, tuple(key), logs

    @property
    def n_active(self) -> int:
        return len(self.ids)

    def compact(self, kept) -> None:
        self.ids = self.ids[kept]

    def _keep(self, kind, x):
        assert len(x) == len(self.ids), (kind, x.shape, len(self.ids))
        for row, i in enumerate(self.ids.tolist()):
            self.logs[i].append((self.key, kind, x[row]))
        return x

    def below(self, width, size=None, out=None):
        x = self.gen.integers(0, width, size=size, dtype=np.uint16)
        if out is not None:
            out[...] = x
            x = out
        return self._keep("below", x)

    def d20(self, size=None):
        return self._keep("d20", self.gen.integers(1, 21, size=size, dtype=np.uint8))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return self._keep("integers", self.gen.integers(low, high, size, dtype, endpoint))

    def random(self, size=None, dtype=np.float64):
        return self._keep("random", self.gen.random(size=size, dtype=dtype))

    def track_keys(self):
        """Each track's dice key under this stream (a loop's fight or care): a function of
        the stream's prefix and the track, drawing nothing from the block."""
        return np.array([key_of(self.key, int(i)) for i in self.ids], dtype=np.uint64)


def key_of(prefix: tuple, track: int) -> int:
    """The dice key (64 bits) :meth:`_Recorder.track_keys` gives ``track`` under ``prefix``."""
    h = 0x243F6A8885A308D3
    for v in (len(prefix), *prefix, track):
        h = counter.mix64((h + (int(v) + 1) * counter.GOLDEN) & ((1 << 64) - 1))
    return h


def _play_keyed(track: int):
    """The day reference's fights and cares on the loop's dice for ``track``: the party's
    reference played by the dice contract's adapter from the key the day gave them."""

    def play_on(rules, prefix, start, knocked):
        key63 = key_of(tuple(prefix), track) >> 1
        tr = play(rules, key63, start=start, knocked=knocked)
        return tr

    return play_on


def loop_vs_ref(day, n: int, seed: int, start=None) -> dict:
    """``day`` on ``n`` tracks with recorded draws, each track replayed through the
    reference: the same outcome, step, marks, end state and observations. Returns the
    outcome counts. The non-fight draws are recorded from the block's streams; each
    fight's and care's dice are the loop's, by counter from the key the day gives the
    track under the step's stream, which the reference plays through the dice contract's
    adapter (:func:`simkit.models.party_replay.play`)."""
    logs: list[list] = [[] for _ in range(n)]
    gen = np.random.default_rng(seed)

    def source(mask, prefix):
        return _Recorder(gen, np.flatnonzero(mask), prefix, logs)

    tally = day.run_block(0, 0, n, start=start, keep=True, _source=source)
    ((ids, end),) = tally.final
    assert (ids == np.arange(n)).all()
    names = day.outcomes + ("unresolved",)
    obs: dict = {}
    counts: dict = {}
    for i in range(n):
        draws = Draws(logs[i], play=_play_keyed(i))
        where = f"{day!r}, track {i}"
        tr = ref_day(day, draws, None if start is None else start.row(i))
        assert draws.left() == 0, f"{where}: {draws.left()} draws left unused"
        assert names[end.outcome[i]] == tr["outcome"], (where, names[end.outcome[i]], tr)
        counts[tr["outcome"]] = counts.get(tr["outcome"], 0) + 1
        want = {
            "step": tr["step"],
            "first_death": tr["first_death"],
            "deaths": sum(pc["dead"] and not d for pc, d in zip(tr["pcs"], tr["dead0"])),
            **{c: tr[c] for c in CAUSES},
        }
        for k, v in want.items():
            assert getattr(end, k)[i] == v, (where, k, getattr(end, k)[i], v)
        for k, pc in enumerate(tr["pcs"]):
            assert bool(end.dead[i, k]) == pc["dead"], (where, "dead", k)
            kept = ("hp", "wounded") if pc["dead"] else ("hp", "hero", "slots", "heals", "pp")
            kept += ("pe",) * (not pc["dead"] and "pe" in pc)
            for f in kept + ("wounded",) * (not pc["dead"]):
                assert getattr(end, f)[i, k] == pc[f], (where, f, k, getattr(end, f)[i, k], pc[f])
        for t, values in tr["obs"]:
            for name, v in values.items():
                obs.setdefault(name, {}).setdefault(t, []).append(v)
    for name, by_step in obs.items():  # the observations: histograms of the tracks' values
        got = tally.observed[name]
        row = 1 if name in ("deaths", "rest_changed") else 0  # (row t; the rest: before t)
        want = np.zeros_like(got)
        for t, values in by_step.items():
            np.add.at(want[t - 1 + row], values, 1)
        assert np.array_equal(got, want), (day, name)
    assert set(tally.observed) == set(obs)
    fought = any(isinstance(day.steps[t - 1], FightStep) for t in obs["deaths"])
    assert fought == ({f"{q}:{day.pc_names[-1]}" for q in PC_FIELDS} <= set(obs))
    return counts


#: Every step kind of a plan (a fight by threat, with a template, by XP budget, by an
#: explicit lineup; every rest; the road; a fall of each kind).
KINDS = (
    "trivial",
    "trivial",
    "moderate",
    "severe(pack)",
    "low",
    "xp(60)",
    "xp(100, boss_and_minions)",
    "[{L}, {L}]",
    "[{L}(hp=30;attack=12)]",
    "short_rest",
    "short_rest",
    "long_rest",
    "bed_rest",
    "no_sleep",
    "no_food",
    "fall(5)",
    "fall(9)",
    "fall(11)",
    "fall(13, one)",
    "fall(7, one)",
    "fall(uniform:2-12)",
    "fall(uniform:6-11, one)",
)


def _configs(count: int, seed: int) -> list[dict]:
    """Generated days: every rule set and rest, plans of every step kind."""
    g = np.random.default_rng(seed)
    roles = ("fighter", "rogue", "cleric", "wizard")

    def pick(xs):
        return xs[int(g.integers(len(xs)))]

    out = []
    for j in range(count):
        level = int(g.integers(1, 21))
        size = int(g.integers(1, 5))
        party = [pick(roles) for _ in range(size)]
        if g.random() < 0.6 and "cleric" not in party:  # (the pf2e rest needs a medic)
            party[0] = "cleric"
        steps = [pick(KINDS) for _ in range(int(g.integers(4, 10)))]
        if not any("rest" in s or s.startswith("no_") for s in steps):
            steps.insert(1, pick(("short_rest", "long_rest", "no_sleep")))
        out.append(
            dict(
                plan=", ".join(steps).replace("{L}", str(max(level - 2, -1))),
                level=level,
                party=",".join(party),
                rules=pick(("seed000", "pf2e-core", "seed001")),
                rest_rules=pick(("auto", "seeds", "pf2e")),
                rest_when=pick((None, None, 0.5, 0.9)),
                hero_refresh=pick(("never", "long_rest")),
                after_death=pick(("continue", "end")),
                after_defeat=pick(("slain", "captured")),
                pp_back=pick(("night", "never")),
                pe_rest=pick(("spare_pp", "any_pp", "never")),
                hero_points=int(g.integers(0, 3)),
                max_rounds=pick((4, 100, 100)),
                trait=pick(("lethal", "lethal", "nonlethal")),
                wake_after=pick(("long_rest", "long_rest", "hour", "ten_minutes")),
            )
        )
    return out


#: A small set that covers every step kind, rule set and rest.
COVER = [
    dict(plan="moderate, short_rest, fall(9), no_sleep, no_food, xp(60), long_rest, fall(11)",
         level=3, rules="pf2e-core", rest_when=0.6),
    dict(plan="[3, 3], fall(13, one), short_rest, bed_rest, severe(pack), fall(uniform:2-12)",
         level=4, rules="seed001", rest_rules="pf2e", hero_refresh="long_rest"),
    dict(plan="fall(7, one), low, no_food, no_food, no_sleep, no_sleep, no_sleep, low, "
         "fall(uniform:6-11, one), long_rest, xp(100, boss_and_minions)",
         level=7, rules="seed000", after_death="end", party="fighter,cleric,cleric"),
    dict(plan="severe, short_rest, short_rest, [1(hp=30;attack=12)], long_rest, fall(5)",
         level=2, rules="seed001", pp_back="never", max_rounds=4),
    # PE for a PP in a short rest (R1-09, A1-8), and the short rests rest_when adds for it
    dict(plan="severe, short_rest, severe, moderate, fall(9), severe", level=5,
         rules="seed001", rest_when=0.9, pe_rest="any_pp"),
    dict(plan="severe, moderate, short_rest, severe, moderate", level=4, rules="seed001",
         rest_rules="pf2e", rest_when=0.8, party="fighter,cleric,wizard"),
    # the played short rest (AP-18): a longer budget, the ten-minute immunity, and once
    dict(plan="severe, short_rest, fall(9), short_rest(once), moderate, short_rest, low",
         level=6, rules="pf2e-core", short_rest_minutes=120, party="cleric,fighter,cleric"),
    dict(plan="severe(pack), short_rest, moderate, short_rest, severe", level=3,
         rest_rules="pf2e", treat_immunity="ten_minutes", short_rest_minutes=90),
    dict(plan="severe, short_rest, moderate, short_rest(once), severe, long_rest, severe",
         level=8, rules="pf2e-core", treat_immunity="per_healer", rest_when=0.7,
         party="cleric,fighter,cleric,wizard", short_rest_minutes=120),
    # R0-08's wake-up: at the end of a short rest, a night or a day on the road
    dict(plan="severe, short_rest, severe, short_rest(once), no_sleep, severe, fall(11)",
         level=3, wake_after="ten_minutes", party="fighter,rogue,wizard"),
    dict(plan="severe, short_rest(once), severe, short_rest, severe, long_rest, fall(11)",
         level=5, rules="pf2e-core", wake_after="hour", short_rest_minutes=30),
    # fatigue: exhausted at a fight (R4-04); woken by a night (R4-06); dead (R4-05)
    dict(plan=", ".join(["no_sleep"] * 5 + ["no_food"] * 5) + ", trivial", level=6,
         after_defeat="captured"),
    dict(plan=", ".join(["no_sleep"] * 5 + ["no_food"] * 5) + ", long_rest, trivial, "
         + ", ".join(["no_sleep"] * 5 + ["no_food"] * 8), level=6, rules="pf2e-core"),
]  # fmt: skip


def _given_start():
    from dataclasses import replace

    day = make_model("day", plan="short_rest, low, long_rest, moderate", level=5,
                     rules="pf2e-core", rest_when=0.8)  # fmt: skip
    n = 40
    start = day.fresh_start(n)
    g = np.random.default_rng(3)
    hp = (start.hp * g.uniform(0.2, 1.0, size=start.hp.shape)).astype(np.int32)
    dead = g.random(start.hp.shape) < 0.15
    start = replace(
        start,
        hp=np.where(dead, 0, np.minimum(hp, 4)),  # (a Treat Wounds' 1d8 can knock them out)
        dead=dead,
        wounded=g.integers(0, 2, size=start.hp.shape),
        check_penalty=g.choice([-2, -14], size=n),  # (-14: mostly critical failures)
    )
    return day, n, start


@pytest.mark.parametrize("params", COVER)
def test_loop_equals_reference_on_every_step_kind(params):
    counts = loop_vs_ref(make_model("day", **params), 40, 7)
    assert sum(counts.values()) == 40


def test_loop_equals_reference_from_a_given_start():
    """From hurt PCs (some dead, wounded, most crit-failing Treat Wounds): the care of a PC
    that Treat Wounds knocked out, in a short rest and in rest_when's, on the loop."""
    day, n, start = _given_start()
    loop_vs_ref(day, n, 4, start=start)


@pytest.mark.parametrize("params", _configs(6, 20261204))
def test_loop_equals_reference_on_generated_days(params):
    loop_vs_ref(make_model("day", **params), 25, 11)


@pytest.mark.slow
@pytest.mark.parametrize("params", _configs(60, 17))
def test_loop_equals_reference_on_generated_days_many(params):
    loop_vs_ref(make_model("day", **params), 60, 5)
