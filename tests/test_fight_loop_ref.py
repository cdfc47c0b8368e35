"""The compiled fight loop = the party's scalar reference, track by track, on the same dice.

The reference (:mod:`simkit.models.party_ref`, written from the rules, independent of the
loop) reads a round's draws by name; here they are drawn lazily, in the order the reference
reads them, from the loop's dice contract (a named contract both sides keep, not shared
code): a track's ``c``-th word is SplitMix64's finaliser of ``key + c * GOLDEN``; an integer
below ``n`` is Lemire's multiply-and-reject on the word's top 32 bits; a d20 is one below 20;
a chance is one 32-bit word against the cell edge; a pick is one integer below the plan's
width, taken modulo the count; a sum of dice is one integer below ``sides ** count`` (its
base-``sides`` digits are the dice) when that is at most 65,536, else one integer per die.
Every outcome, end step, mark and end field must agree on every track.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.fight import block, tables
from simkit.fight.loop import CARRIED, OUT_MARK0, OUT_OUTCOME, OUT_STEP
from simkit.fight.state import COND, HEALS, HERO, HP, MARKS, PP, SLOTS, WOUNDED
from simkit.models import party_ref
from simkit.models.party import OUTCOMES, Party
from simkit.rules.dice import Dice

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class CounterDice:
    """One track's draws by the loop's contract (see the module's docstring)."""

    def __init__(self, key63: int):
        self.key, self.c = key63, 0

    def word(self) -> int:
        z = (self.key + self.c * GOLDEN) & MASK
        self.c += 1
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        m = (self.word() >> 32) * n
        if (m & 0xFFFFFFFF) < n:
            bias = ((1 << 32) - n) % n
            while (m & 0xFFFFFFFF) < bias:
                m = (self.word() >> 32) * n
        return m >> 32


class _Draw:
    """One draw of a round, made when the reference reads it (``int``, ``float``, or for a
    chance its two 16-bit halves)."""

    def __init__(self, dice: CounterDice, kind: str, text: str | None, depth: int):
        self.dice, self.kind, self.text, self.depth = dice, kind, text, depth
        self.word: int | None = None

    def __getitem__(self, i):
        if self.depth:  # (an index into the plan's shape: the draw read is further in)
            return _Draw(self.dice, self.kind, self.text, self.depth - 1)
        assert self.kind == "chance", self.kind  # one 32-bit word: [0] high, [1] low half
        if self.word is None:
            self.word = self.dice.below(1 << 32)
        return (self.word >> 16) if i == 0 else (self.word & 0xFFFF)

    def __int__(self) -> int:
        if self.kind == "d20":
            return self.dice.below(20) + 1
        assert self.kind.startswith("below:"), self.kind
        return self.dice.below(int(self.kind[6:]))

    def __float__(self) -> float:
        """A sum of dice too wide for one draw: one draw a die, handed to the reference as
        a uniform that its inverse CDF maps to that sum."""
        d = Dice.parse(self.text)
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
        texts = {}
        for k, p in enumerate(F.pcs):
            texts.update(
                {
                    f"dmg{k}": p.damage,
                    f"area{k}": p.area,
                    f"cantrip{k}": p.cantrip,
                    f"heal{k}": p.heal,
                }
            )
        for j, mo in enumerate(F.monsters):
            texts.update({f"mdmg{j}": mo.damage, f"marea{j}": mo.area})
        self.kinds = {name: (kind, len(shape)) for name, kind, shape in rules.plan}
        self.texts, self.dice = texts, dice

    def __getitem__(self, name):
        kind, depth = self.kinds[name]
        return _Draw(self.dice, kind, self.texts.get(name), depth)


def _reference_track(rules: Party, key63: int):
    """(outcome or -1, end step, marks, end fields by PC) of one track on the reference."""
    F = rules.fighters
    dice = CounterDice(key63)
    init = [dice.below(20) + 1 for _ in range(len(F.pcs) + len(F.monsters))]
    tr = party_ref.new_track(rules, init)
    code = party_ref.ref_init(rules, tr)
    step = 0
    while code is None and step < rules.max_rounds:
        step += 1
        code = party_ref.ref_round(rules, tr, LazyRound(rules, dice))
    cond_code = {"up": 0, "dying": 1, "stable": 2, "dead": 3}
    ends = [
        (
            pc["hp"],
            cond_code[pc["cond"]],
            pc["hero"],
            pc["slots"],
            pc["heals"],
            pc["wounded"],
            pc["pp"],
        )
        for pc in tr["pcs"]
    ]
    return (-1 if code is None else code), step, [tr[m] for m in MARKS], ends


CASES = [
    dict(level=5, threat="severe"),
    dict(level=1, threat="extreme", rules="pf2e-core"),
    dict(level=3, threat="severe", target_downed="sometimes", downed_chance=0.5),
    dict(level=6, threat="extreme", target_downed="always", downed_pick="random"),
    dict(level=7, threat="moderate", lineup="pack", pc_target="spread"),
    dict(level=5, threat="extreme", retreat_at=2, monster_target="weakest"),
    dict(level=2, threat="severe", hp=0, start_dying=2),
    dict(level=5, threat="severe", trait="nonlethal", after_defeat="captured"),
    dict(level=4, threat="severe", hero_policy="immediately", hero_points=2),
    dict(level=5, threat="extreme", rules="pf2e-core", wounded_adds="every_hit"),
    dict(level=9, threat="severe", first_aid_natural=True, check_penalty=-2),
    dict(level=5, threat="severe", rules="seed001"),
    dict(level=4, threat="extreme", rules="seed001", spend=2, natural=True, zero_pp="end_of_turn"),
    dict(level=3, threat="severe", rules="seed001", trait="nonlethal", pe_damage="hp_only"),
    dict(level=12, threat="severe", lineup="boss_and_minions", map="agile", attacks=3),
    dict(level=5, threat="severe", monsters="8,5,5", area_chance=0.5, area_uses=2),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_loop_is_the_reference_track_by_track(i):
    rules = Party(**CASES[i], engine="loop")
    T = tables.pack(tables.build(rules))
    keys = (np.arange(1, 151, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(i)
    out, ends = block.run(T, keys, rules.max_rounds)
    fields = [CARRIED.index(f) for f in (HP, COND, HERO, SLOTS, HEALS, WOUNDED, PP)]
    for t, key in enumerate(keys):
        code, step, marks, pcs = _reference_track(rules, int(key) >> 1)
        loop = (
            int(out[t, OUT_OUTCOME]),
            int(out[t, OUT_STEP]),
            [int(v) for v in out[t, OUT_MARK0:]],
            [tuple(int(ends[t, k, f]) for f in fields) for k in range(rules.n_pcs)],
        )
        assert loop == (code, step, marks, pcs), (
            CASES[i],
            t,
            OUTCOMES,
            loop,
            (code, step, marks, pcs),
        )
