"""solve_many's cache of exact answers, keyed on what a chain depends on (issue 13 item 3).

Rules with equal ``exact_key()`` must build the very same chain (so sharing an answer is
sound), and a cached answer must be the one a fresh solve gives, bit for bit.
"""

import random

import numpy as np
import pytest

import simkit.core.exact as exact
from simkit import Dying

CHOICES = {
    "dc": [None, 5, 14, 20, 27, 40, 60],
    "save_bonus": [-20, 0, 5, 11, 20, 45, 80],
    "check_penalty": [0, -2, -30],
    "monster_level": [None, 1, 10],
    "check": ["save", "flat"],
    "death_at": [1, 2, 4, 6],
    "start": [1, 2],
    "crit": [False, True],
    "on_damage": ["max", "increment"],
    "hit_chance": [0.0, 0.2],
    "crit_chance": [0.0, 0.05],
    "hit_dc": [None, 10, 25, 50],
    "hp_max": [None, 6],
    "wounded": [0, 1, 2],
    "hero_points": [0, 1, 3],
    "hero_policy": ["never", "immediately", "at_death", 2],
    "hero_effect": ["revive", "stabilize"],
    "hero_knockout": ["spend", "die"],
    "wounded_adds": ["on_gain", "every_hit"],
    "heal_round": [None, 3],
    "max_rounds": [12, 100],
    "nonlethal": [False, False, False, True],
}


#: What the key reduces: a variant changes only these (many variants then share a key).
VARIED = {
    "dc": [None, 14, 20, 21, 27, 60],
    "save_bonus": [-20, 5, 11, 12, 45, 80],
    "check_penalty": [0, -1, -30],
    "monster_level": [None, 1, 10],
    "hit_dc": [None, 10, 25, 26, 50],
    "hero_points": [0, 1, 3],
    "hit_damage": ["2d8+4", "1d4"],
}


def random_rules(n: int, seed: int = 7, variants: int = 6) -> list[Dying]:
    """``n`` random rules: random bases, each with a few variants in :data:`VARIED`."""
    rnd = random.Random(seed)
    out: list[Dying] = []
    while len(out) < n:
        base = {k: rnd.choice(v) for k, v in CHOICES.items()}
        base["wounded_rule"] = base["wounded"] > 0 or rnd.random() < 0.3
        for _ in range(variants):
            p = {**base, **{k: rnd.choice(v) for k, v in VARIED.items() if rnd.random() < 0.5}}
            if p["dc"] is not None:
                p["monster_level"] = None
            out.append(Dying(**p))
    return out[:n]


def grid_rules() -> list[Dying]:
    """A DC x save-bonus sweep (many points share a margin), with and without a raise."""
    return [
        Dying(dc=dc, save_bonus=sb, hit_dc=hd, hit_chance=0.2)
        for dc in range(5, 60, 3)
        for sb in range(-5, 40, 4)
        for hd in (None, 30)
    ]


def same_chain(a: exact.Chain, b: exact.Chain) -> bool:
    return (
        a.states == b.states
        and a.schedule == b.schedule
        and np.array_equal(a.initial, b.initial)
        and np.array_equal(a.initial_absorbed, b.initial_absorbed)
        and list(a.matrices) == list(b.matrices)
        and all(
            np.array_equal(a.matrices[r][0], b.matrices[r][0])
            and np.array_equal(a.matrices[r][1], b.matrices[r][1])
            for r in a.matrices
        )
    )


@pytest.mark.parametrize("rules", [random_rules(600), grid_rules()], ids=["random", "grid"])
def test_equal_keys_build_the_same_chain(rules):
    by_key: dict = {}
    for m in rules:
        by_key.setdefault(m.exact_key(), []).append(m)
    assert len(by_key) < len(rules)  # the key does reduce
    for group in by_key.values():
        first = exact.build_chain(group[0])
        for m in group[1:]:
            assert same_chain(first, exact.build_chain(m)), (group[0], m)


def test_cached_answers_are_fresh_answers():
    rules = random_rules(300, seed=11) + grid_rules()
    fresh = []
    for m in rules:
        exact.clear_cache()
        fresh.append(exact.solve_many([m])[0])
    exact.clear_cache()
    cached = exact.solve_many(rules)
    again = exact.solve_many(rules[::-1])[::-1]  # every answer from the cache now
    for m, f, c, a in zip(rules, fresh, cached, again):
        assert c.model is m and a.model is m
        assert np.array_equal(f.hist, c.hist) and np.array_equal(f.hist, a.hist), m
        assert f.unresolved == c.unresolved == a.unresolved
        assert f.probabilities == c.probabilities


def test_cache_is_bounded_and_clearable(monkeypatch):
    exact.clear_cache()
    monkeypatch.setattr(exact, "ANSWER_CACHE_SIZE", 3)
    exact.solve_many([Dying(save_bonus=b) for b in range(0, 20, 2)])
    assert len(exact._ANSWERS) == 3
    exact.clear_cache()
    assert not exact._ANSWERS


def test_a_cached_answer_is_not_shared_mutable_state():
    exact.clear_cache()
    a, b = exact.solve_many([Dying(dc=20, save_bonus=9), Dying(dc=21, save_bonus=10)])
    a.hist[:] = 0.0
    assert b.hist.sum() > 0.99
    (c,) = exact.solve_many([Dying(dc=30, save_bonus=19)])
    assert c.hist.sum() > 0.99


def test_batch_composition_never_changes_an_exact_number():
    """Chains of different sizes in one batch (padded): the chunking of a sweep, hence its
    number of workers, must not move a single bit of the exact column (``unresolved``
    was summed over the padding once)."""
    from simkit.analysis.sweep import sweep

    grid = {"dc": [10, 22], "hit_chance": [0.1, 0.3], "hp_max": [5, 20], "hit_dc": [20, 30]}
    fixed = {"hero_points": 1, "death_at": 7}
    frames = []
    for chunk in (None, 1, 5):
        exact.clear_cache()
        frames.append(sweep("dying", grid, 100, 3, fixed=fixed, chunk_size=chunk))
    for df in frames[1:]:
        assert df["exact"].tolist() == frames[0]["exact"].tolist()


def test_a_subclass_is_not_cached_on_its_parents_key():
    """A house rule deriving from Dying may change the chain through its own parameters."""
    import dataclasses

    from simkit.core.params import param

    @dataclasses.dataclass(frozen=True, slots=True)
    class Harsh(Dying):
        extra: int = param(0, kind="int", lo=0, hi=3, help="dying added at the knock-out")

        def exact_initial(self):
            return {(min(self.knockout_dying + self.extra, self.death_at - 1), False, False): 1.0}

    exact.clear_cache()
    a, b = exact.solve_many([Harsh(extra=0), Harsh(extra=2)])
    assert a["dead"] < b["dead"]
    assert not exact._ANSWERS


def test_a_sweep_builds_one_chain_per_distinct_key(monkeypatch):
    """A DC x save-bonus sweep: one exact chain per distinct margin, not one per point."""
    from simkit.analysis.sweep import plan_sweep, sweep

    grid = {"dc": range(14, 30), "save_bonus": range(0, 12)}
    keys = {m.exact_key() for m in plan_sweep("dying", grid, 100, 1).models}
    built = []
    real = exact.build_chain
    monkeypatch.setattr(exact, "build_chain", lambda m: built.append(m) or real(m))
    exact.clear_cache()
    df = sweep("dying", grid, 100, 1)
    assert len(built) == len(keys) < 16 * 12
    assert df["exact"].notna().all()


def test_solve_ahead_caches_every_distinct_key(monkeypatch):
    rules = grid_rules()
    exact.clear_cache()
    exact.solve_ahead(rules, batch=7)
    fresh = []
    for m in rules[:40]:
        exact.clear_cache()
        fresh.append(exact.solve_many([m])[0])
    exact.clear_cache()
    exact.solve_ahead(rules, batch=7)
    monkeypatch.setattr(exact, "build_chain", lambda m: pytest.fail("not cached"))
    ahead = exact.solve_many(rules)
    for f, a in zip(fresh, ahead):
        assert np.array_equal(f.hist, a.hist) and f.unresolved == a.unresolved


def test_solve_ahead_leaves_errors_to_the_solve(monkeypatch):
    monkeypatch.setattr(exact, "MAX_STATES", 1)
    exact.clear_cache()
    exact.solve_ahead([Dying(death_at=6)])  # no error here
    with pytest.raises(exact.ExactTooLarge):
        exact.solve_many([Dying(death_at=6)])
