"""The encounter's vectorised kernel's figures (0.3, ``Encounter(engine="kernel")``), kept
as data.

Issue 28, item 3: the compiled loop replaces the encounter's kernel as it replaced the
party's (tests/data/make_kernel_figures.py), and "every encounter number changes once":
tests/test_encounter_kernel_figures.py holds the loop to these figures (every outcome, the
mean round of each ending and every mark's mean over all tracks and within each outcome,
within 5 standard errors of both samples) on the same configurations, so the check
outlives the kernel. Kept as the record: the kernel was retired after it ran, so it runs
only on a commit that still has it (the JSON's ``"commit"``), from the repository root:

    git worktree add /tmp/k <commit>
    cd /tmp/k && python tests/data/make_encounter_kernel_figures.py
    # writes tests/data/encounter_kernel_0.3.json

Configuration ``i`` of :data:`CONFIGS` at n = 200,000 tracks, seed ``17 + i``: the 25 of
tests/test_encounter_loop.py (its ``CONFIGS`` of 0.3) and :data:`EXTRA`, which spans what
they leave out (temporary HP at 0 HP, which only the kernel played then, included).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import simkit  # noqa: E402
from simkit.core.result import event_counts  # noqa: E402
from simkit.models.encounter import Encounter  # noqa: E402

N = 200_000
PF2E = {"check": "flat", "on_damage": "increment", "wounded_rule": True, "hero_effect": "stabilize"}

#: tests/test_encounter_loop.py's CONFIGS (0.3): the kernel and the loop side by side.
LOOP_CONFIGS = [
    dict(),
    dict(level=1, monster_level=4, attacks=3),
    dict(level=10, monster_level=12, healer_round=3),
    dict(level=20, enemies=3, initiative="enemies_first"),
    dict(level=3, healer_round=2, heal_when="wounded", temp_hp=10),
    dict(level=5, healer_chance=0.2, medicine=10),
    dict(level=5, effect_chance=0.4, check_penalty=-2, effect_save="fort"),
    dict(level=7, effect_chance=0.5, target_downed="always", effect_dc=30),
    dict(level=5, target_downed="sometimes", downed_chance=0.3, on_damage="increment"),
    dict(level=4, until="healer", healer_round=4),
    dict(level=6, until="healer", healer_chance=0.15, hp=0, start_dying=2),
    dict(level=5, end_chance=0.2, fight_rounds=None, max_rounds=40),
    dict(level=5, end_chance=0.1, trait="nonlethal", hero_points=2, hero_policy="immediately"),
    dict(level=8, wounded_rule=True, wounded=1, hero_points=0, enemies=2, map="agile"),
    dict(level=5, **PF2E, target_downed="always"),
    dict(level=5, trait="death", healer_round=5),
    dict(level=5, enemies=0, hp=0, healer_round=6, heals=0, medicine=5),
    dict(level=5, dying_rules="seed001"),
    dict(level=3, dying_rules="seed001", long_term=False, target_downed="always"),
    dict(level=9, dying_rules="seed001", long_term=True, healer_chance=0.3, medicine=6, heals=0),
    dict(level=4, dying_rules="seed001", back_in_fight=True, enough_pp=4, spend="asap"),
    dict(level=6, dying_rules="seed001", spend=2, trait="nonlethal", effect_chance=0.3),
    dict(level=5, dying_rules="seed001", natural=True, checks=7, healer_round=3, medicine=8),
    dict(level=2, dying_rules="seed001", hp=0, pp=2, target_downed="sometimes"),
    dict(level=5, target_downed="always", max_rounds=5),
]

#: What those leave out: temporary HP at 0 HP (fresh knock-outs and hits while down, under
#: both systems), more levels, enemies, healer options, effects, target_downed, the end of
#: the fight, until=healer, start_dying, wounded, and the options of each dying system.
EXTRA = [
    dict(level=5, temp_hp=10, hp=0),
    dict(level=5, temp_hp=6, hp=0, start_dying=2, target_downed="always", healer_round=3),
    dict(level=3, temp_hp=8, hp=0, healer_round=2, heal_when="wounded", enemies=2),
    dict(level=4, temp_hp=5, hp=0, dying_rules="seed001", pp=3, target_downed="always"),
    dict(level=6, temp_hp=12, hp=0, until="healer", healer_chance=0.25, effect_chance=0.3),
    dict(level=7, temp_hp=15, hp=0, **PF2E, wounded=2, healer_round=4, medicine=9),
    dict(level=5, temp_hp=20, enemies=2, target_downed="sometimes", downed_chance=0.5),
    dict(level=1, enemies=4, monster_level=0, initiative="enemies_first", healer_round=2),
    dict(level=12, monster_level=14, benchmark="Extreme", effect_chance=0.25, monster_dc="skill"),
    dict(level=15, monster_level=13, benchmark="Moderate", map="none", attacks=2, heals=1),
    dict(level=5, **PF2E, wounded=1, hero_points=2, hero_policy=2, healer_chance=0.1),
    dict(level=5, hero_points=3, hero_knockout="die", death_at=3, target_downed="always"),
    dict(
        level=5,
        wounded_rule=True,
        wounded_adds="every_hit",
        on_damage="increment",
        target_downed="sometimes",
        downed_chance=0.4,
    ),  # fmt: skip
    dict(level=5, hp=0, start_dying=3, death_at=5, enemies=0, healer_chance=0.2, medicine=7),
    dict(level=5, hp=10, fight_rounds=3, end_chance=0.3, enemies=2),
    dict(
        level=5,
        fight_rounds=None,
        end_chance=0.05,
        max_rounds=200,
        effect_chance=0.2,
        effect_save="will",
        effect_damage="3d6",
    ),  # fmt: skip
    dict(level=5, until="healer", healer_round=2, initiative="enemies_first", enemies=2),
    dict(level=5, dying_rules="seed001", spend="never", zero_pp="end_of_turn", pp=1),
    dict(
        level=8,
        dying_rules="seed001",
        stabilize_cap=2,
        back_in_fight=True,
        enough_pp=2,
        healer_round=3,
        heal_when="wounded",
        enemies=2,
        con=4,
    ),  # fmt: skip
    dict(
        level=5,
        dying_rules="seed001",
        long_term=True,
        trait="nonlethal",
        end_chance=0.2,
        fight_rounds=None,
        max_rounds=60,
        medicine=4,
        healer_round=6,
    ),  # fmt: skip
    dict(
        level=10,
        damage="2d12+4",
        attack_bonus=22,
        ac=27,
        fort=18,
        hp_max=120,
        heal_dice="4d8",
        healer_round=3,
        heals=2,
    ),  # fmt: skip
]

CONFIGS = LOOP_CONFIGS + EXTRA


def _mean_var(h: np.ndarray) -> dict:
    h = np.asarray(h, dtype=float)
    v = np.arange(len(h))
    n = h.sum()
    if n == 0:
        return {"mean": 0.0, "var": 0.0, "n": 0}
    mean = (h * v).sum() / n
    return {"mean": mean, "var": (h * (v - mean) ** 2).sum() / n, "n": int(n)}


def figures(res) -> dict:
    """Each outcome's probability, each event's, the mean step of each ending, and every
    mark's mean, variance and count over all tracks (``all``) and within each outcome."""
    n = res.n
    outs = Encounter.outcomes
    marks = {}
    for mark in Encounter.marks:
        h = res.marks[mark]
        marks[mark] = {"all": _mean_var(h.sum(axis=0))}
        marks[mark].update({outs[o]: _mean_var(h[o]) for o in range(len(outs))})
    return {
        "n": n,
        "p": {k: float(v) for k, v in res.probabilities.items()},
        "events": {e: c / n for e, c in event_counts(res).items()},
        "rounds": {outs[o]: _mean_var(res.hist[o]) for o in range(len(outs))},
        "marks": marks,
    }


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE
    ).stdout.strip()
    rows = []
    for i, kw in enumerate(CONFIGS):
        res = simkit.simulate(Encounter(**kw, engine="kernel"), N, 17 + i)
        rows.append({"config": kw, "seed": 17 + i, **figures(res)})
        print(i, kw, flush=True)
    out = {"commit": commit, "engine": "kernel", "model": "encounter", "encounter": rows}
    (HERE / "encounter_kernel_0.3.json").write_text(
        json.dumps(out, indent=1, sort_keys=True) + "\n"
    )


if __name__ == "__main__":
    main()
