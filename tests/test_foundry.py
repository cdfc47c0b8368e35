"""Creatures from Foundry VTT pf2e actors (simkit/rules/pf2e/foundry.py, issue 21 items 1-2).

- The loaded numbers equal the JSON's, for every bundled record: the test reads the JSON
  itself (plain ``json``, its own formula reader), independently of the loader; and the
  bundled extract equals the shared source records it was made from.
- A fight against loaded creatures equals, track by track, the same fight with the same
  numbers given explicitly (``2(hp=..;ac=..;attack=..;damage=..)``).
- Malformed or partial actor files are one line naming the file and the field; nothing
  half-loaded is used (the CLI writes no output file).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from simkit.core.engine import simulate
from simkit.models import make_model
from simkit.rules.pf2e import budget, foundry
from simkit.testing import run_cli

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "foundry-pf2e" / "monster-core"
BUNDLE = json.loads(
    resources.files("simkit.rules.pf2e")
    .joinpath("data", "foundry", "monster-core.json")
    .read_text()
)


def _mean(formula: str) -> Fraction:
    """Mean of a Foundry damage formula like ``(2d6+4)`` or ``3d12+11`` (written here)."""
    total = Fraction(0)
    for sign, count, sides, const in re.findall(r"([+-]?)(?:(\d+)d(\d+)|(\d+))", formula):
        v = Fraction(int(count) * (int(sides) + 1), 2) if count else Fraction(int(const))
        total += -v if sign == "-" else v
    return total


def _strikes(rec: dict) -> dict[str, tuple[int, Fraction]]:
    """Name -> (bonus, mean of the non-persistent damage rolls) of every strike with damage."""
    out = {}
    for it in rec["items"]:
        if it["type"] != "melee":
            continue
        rolls = [
            r for r in it["system"]["damageRolls"].values() if r.get("category") != "persistent"
        ]
        if rolls:
            out[it["name"]] = (
                it["system"]["bonus"]["value"],
                sum((_mean(r["damage"]) for r in rolls), Fraction(0)),
            )
    return out


@pytest.mark.parametrize("rec", BUNDLE, ids=[r["simkit"]["slug"] for r in BUNDLE])
def test_loaded_numbers_equal_the_json(rec):
    c = foundry.bundled(rec["simkit"]["slug"])
    s = rec["system"]
    assert c.name == rec["name"]
    assert c.level == s["details"]["level"]["value"]
    assert c.hp == s["attributes"]["hp"]["max"]
    assert c.ac == s["attributes"]["ac"]["value"]
    assert (c.fort, c.reflex, c.will) == tuple(
        s["saves"][k]["value"] for k in ("fortitude", "reflex", "will")
    )
    assert c.perception == s["perception"]["mod"]
    strikes = _strikes(rec)
    assert {x.name: (x.attack, Fraction(x.mean)) for x in c.strikes} == strikes
    # the strike used is one of them, its dice keep the summed rolls' mean within 1 HP
    # (AP-12: the other dice's mean rounded down) and never above it
    bonus, mean = strikes[c.strike.name]
    assert c.strike.attack == bonus
    assert mean - 1 < _mean(c.strike.damage) <= mean
    dcs = [
        it["system"]["spelldc"]["dc"] for it in rec["items"] if it["type"] == "spellcastingEntry"
    ]
    assert c.spell_dc == (max(dcs) if dcs else None)
    if c.area is not None:  # its text carries the damage and the basic save's DC
        text = next(it for it in rec["items"] if it["name"] == c.area.name)["system"]
        text = text["description"]["value"]
        assert "@Template" in text and f"dc:{c.area.dc}" in text and "basic" in text
        assert (c.area.recharge is None) == (re.search(r"\d+d\d+ rounds", text) is None)
    values = c.values()
    assert values["spell_dc" if (c.area or dcs) else "hp"] is not None
    assert c.note().startswith(f"{c.slug} (level {c.level}): not modelled: ")


def test_the_bundle_is_the_shared_records_less_the_swarms():
    if not SHARED.is_dir():
        pytest.skip("shared/data/foundry-pf2e is not here")
    by_slug = {r["simkit"]["slug"]: r for r in BUNDLE}
    swarms = []
    for path in sorted(SHARED.glob("*.json")):
        src = json.loads(path.read_text())
        if "swarm" in src["system"]["traits"]["value"]:
            swarms.append(path.stem)
            assert path.stem not in by_slug
            continue
        rec = by_slug.pop(path.stem)
        for key in ("name", "type"):
            assert rec[key] == src[key]
        s, t = rec["system"], src["system"]
        assert s["details"]["level"] == t["details"]["level"]
        assert s["attributes"]["hp"]["max"] == t["attributes"]["hp"]["max"]
        assert s["attributes"]["ac"]["value"] == t["attributes"]["ac"]["value"]
        assert s["perception"]["mod"] == t["perception"]["mod"]
        assert {k: v["value"] for k, v in s["saves"].items()} == {
            k: v["value"] for k, v in t["saves"].items()
        }
        assert _strikes(rec) == _strikes(src)
        assert rec["simkit"]["commit"] in (SHARED.parent / "README.md").read_text()
    assert not by_slug and swarms == ["army-ant-swarm", "centipede-swarm"]
    assert len(BUNDLE) == 39


def test_the_bundle_ships_its_notice():
    notice = (
        resources.files("simkit.rules.pf2e").joinpath("data", "foundry", "NOTICE.md").read_text()
    )
    assert "ORC" in notice and "Paizo" in notice and "Apache" in notice
    assert all(f"`{r['simkit']['slug']}`" in notice for r in BUNDLE)
    assert "data/foundry/*.json" in (ROOT / "pyproject.toml").read_text()


def test_a_recharge_is_a_chance_per_round():
    # AP-15: one use, then 1dM rounds without: the long-run share of rounds with a use
    for m in (4, 6):
        cycle = 1 + sum(Fraction(k, m) for k in range(1, m + 1))
        assert Fraction(foundry.recharge_chance(m)).limit_denominator(100) == 1 / cycle
    assert foundry.bundled("chimera").area.uses == 10
    assert foundry.bundled("arbiter").area.uses == 1


# -- the fight ---------------------------------------------------------------------------
def _explicit(slug: str) -> str:
    """The numbers of a bundled creature written out, from its JSON (not the loader)."""
    rec = next(r for r in BUNDLE if r["simkit"]["slug"] == slug)
    c = foundry.bundled(slug)  # only for the choices AP-12 / AP-14 / AP-15 made
    s = rec["system"]
    nums = dict(
        hp=s["attributes"]["hp"]["max"],
        ac=s["attributes"]["ac"]["value"],
        fort=s["saves"]["fortitude"]["value"],
        reflex=s["saves"]["reflex"]["value"],
        will=s["saves"]["will"]["value"],
        perception=s["perception"]["mod"],
        attack=_strikes(rec)[c.strike.name][0],
        damage=c.strike.damage,
        area=c.area.damage if c.area else "0",
        area_uses=c.area.uses if c.area else 0,
    )
    if c.area:
        nums["spell_dc"] = c.area.dc
        if c.area.chance is not None:
            nums["area_chance"] = repr(c.area.chance)
    body = ";".join(f"{k}={v}" for k, v in nums.items())
    return f"{s['details']['level']['value']}({body})"


def _fight(monsters: str, level: int, seed: int = 21):
    model = make_model("party", monsters=monsters, level=level)
    return simulate(model, 3000, rng=seed, keep_state=True)


@pytest.mark.parametrize(
    "named, level",
    [("boar,boar,crocodile", 1), ("air-scamp,arbiter", 1), ("chimera", 6)],
)
def test_a_fight_with_loaded_creatures_equals_the_explicit_numbers(named, level):
    explicit = ",".join(_explicit(s) for s in named.split(","))
    a, b = _fight(named, level), _fight(explicit, level)
    assert np.array_equal(a.hist, b.hist)
    assert a.marks.keys() == b.marks.keys()
    for k in a.marks:
        assert np.array_equal(np.asarray(a.marks[k]), np.asarray(b.marks[k])), k
    for f in dataclasses.fields(a.final):  # track by track: every track's end state
        assert np.array_equal(getattr(a.final, f.name), getattr(b.final, f.name)), f.name
    assert a.hist.sum() == 3000 and a.hist[:4].sum() == 3000  # every fight ended


def test_named_creatures_mix_with_levels_and_numbers():
    members = budget.lineup_members("boar(hp=50),5,crocodile(ac=Extreme)")
    assert [lvl for lvl, _ in members] == [2, 5, 2]
    assert members[0][1]["hp"] == 50 and members[0][1]["attack"] == 10
    assert members[1][1] == {}
    assert members[2][1]["ac"] == "Extreme"  # the benchmark, resolved at level 2
    assert budget.parse_levels(" Boar( hp = 50 ) ,5") == "Boar(hp=50),5"
    fighters = make_model("party", monsters="boar(hp=50),5", level=3).fighters
    assert fighters.monsters[0].hp == 50 and fighters.monsters[0].name == "boar"
    plain = make_model("party", monsters="5", level=3).fighters.monsters[0]
    assert fighters.monsters[1] == plain


def test_a_file_and_a_list_load(tmp_path):
    boar = next(r for r in BUNDLE if r["simkit"]["slug"] == "boar")
    one = tmp_path / "my-boar.json"
    one.write_text(json.dumps({k: v for k, v in boar.items() if k != "simkit"}))
    (tmp_path / "two.json").write_text(json.dumps([boar, boar]))
    assert [c.slug for c in foundry.load(one)] == ["my-boar"]
    assert len(foundry.load(tmp_path)) == 3
    members = budget.lineup_members(f"@{one}(hp=41),@{tmp_path / 'two.json'}")
    assert [v["hp"] for _, v in members] == [41, 40, 40]


def test_the_cli_notes_what_is_not_modelled(tmp_path):
    code, out, err = run_cli(
        "run", "party", "--set", "monsters=boar,crocodile", "--set", "level=1",
        "-n", "200", "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if "not modelled" in ln]
    assert lines == [f"simkit: {foundry.bundled(s).note()}" for s in ("boar", "crocodile")]
    assert "reaction Ferocity" in lines[0]


def test_simkit_creatures_lists_the_bestiary():
    code, out, err = run_cli("creatures", "--format", "csv")
    assert code == 0, err
    rows = out.strip().splitlines()
    assert rows[0].split(",")[:4] == ["name", "creature", "level", "hp"]
    assert len(rows) == 1 + 39
    code, out, err = run_cli("creatures", "boar", "--format", "json")
    assert code == 0 and json.loads(out)[0]["hp"] == 40 and "Ferocity" in err
    code, out, err = run_cli("creatures", "bor")
    assert code == 2 and err.count("\n") == 1 and "'bor'" in err


# -- malformed actors --------------------------------------------------------------------
def _boar() -> dict:
    rec = copy.deepcopy(next(r for r in BUNDLE if r["simkit"]["slug"] == "boar"))
    del rec["simkit"]
    return rec


def _no_hp(d):
    del d["system"]["attributes"]["hp"]["max"]


def _no_strike(d):
    d["items"] = [i for i in d["items"] if i["type"] != "melee"]


def _swarm(d):
    d["system"]["traits"]["value"].append("swarm")


def _no_damage(d):
    next(i for i in d["items"] if i["type"] == "melee")["system"]["damageRolls"] = {}


def _string_hp(d):
    d["system"]["attributes"]["hp"]["max"] = "40"


def _bad_dice(d):
    melee = next(i for i in d["items"] if i["type"] == "melee")
    next(iter(melee["system"]["damageRolls"].values()))["damage"] = "2d6+@str"


def _character(d):
    d["type"] = "character"


def _string_bonus(d):
    next(i for i in d["items"] if i["type"] == "melee")["system"]["bonus"]["value"] = "10"


def _older_perception(d):  # an older pf2e format: Perception under system.attributes
    d["system"]["attributes"]["perception"] = {"value": d["system"].pop("perception")["mod"]}


@pytest.mark.parametrize(
    "break_it, field",
    [
        (_no_hp, "system.attributes.hp.max: missing"),
        (_no_strike, "items: no strike"),
        (_swarm, "system.traits: a swarm"),
        (_no_damage, "items[Tusk].system.damageRolls: no damage roll"),
        (_string_hp, "system.attributes.hp.max: must be an integer, got '40'"),
        (_bad_dice, "items[Tusk].system.damageRolls."),
        (_character, "type: 'character' is not an NPC actor"),
        (_string_bonus, "items[Tusk]: bonus.value: must be an integer"),
        (_older_perception, "system.perception.mod: missing (an actor of an older pf2e format"),
    ],
)
def test_a_malformed_actor_is_one_line_naming_the_file_and_the_field(tmp_path, break_it, field):
    rec = _boar()
    break_it(rec)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    with pytest.raises(foundry.ActorError) as exc:
        foundry.load(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}: ") and field in msg and "\n" not in msg
    # in a list, the index; in a lineup, a ValueError; on the command line, one line and
    # no output file (nothing half-loaded is used)
    lst = tmp_path / "list.json"
    lst.write_text(json.dumps([_boar(), rec]))
    with pytest.raises(foundry.ActorError, match=re.escape(f"{lst}[1]: ")):
        foundry.load(lst)
    with pytest.raises(ValueError, match=re.escape(field)):
        budget.lineup_members(f"boar,@{path}")
    target = tmp_path / "out.csv"
    code, out, err = run_cli(
        "run", "party", "--set", f"monsters=@{lst}", "-n", "10", "--seed", "1",
        "-o", target,
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and field in err and str(lst) in err
    assert not target.exists() and out == ""


def test_not_json_and_no_file(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(foundry.ActorError, match=re.escape(f"{path}: not JSON")):
        foundry.load(path)
    with pytest.raises(foundry.ActorError, match="no such file"):
        foundry.load(tmp_path / "none.json")
    with pytest.raises(ValueError, match="bundled creatures"):
        budget.lineup_members("dragon")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(foundry.ActorError, match="not a regular file"):
        foundry.load(fifo)


def test_the_lineup_description_names_the_creatures_and_what_is_left_out():
    text = "boar,boar(hp=50),5,crocodile"
    levels = tuple(lvl for lvl, _ in budget.lineup_members(text))
    lu = budget.explicit_lineup(levels, 2, 4, text)
    assert lu.xp == 3 * 40 + 120 and lu.names == ("boar", "boar", "", "crocodile")
    desc = lu.describe()
    assert desc.startswith(
        "explicit: 1 x level 5 + 2 x boar (level 2) + 1 x crocodile (level 2) "
        "(240 XP: beyond extreme for 4 PCs); "
    )
    assert desc.count("not modelled") == 2 and "reaction Ferocity" in desc
    plain = budget.explicit_lineup((7, 5, 5), 5, 4, "7,5,5")
    assert plain.describe() == "explicit: 1 x level 7 + 2 x level 5 (160 XP: extreme for 4 PCs)"
    assert plain == budget.explicit_lineup((7, 5, 5), 5, 4)


def test_the_lineup_names_its_creatures_and_what_is_left_out():
    m = make_model("party", monsters="boar,boar,5", level=2)
    text = m.describe_lineup()
    assert text.startswith(
        "explicit: 1 x level 5 + 2 x boar (level 2) (200 XP: beyond extreme for 4 PCs)"
    )
    assert "boar (level 2): not modelled: reaction Ferocity" in text
    assert "not modelled" not in m.describe_lineup(notes=False)


# -- the how-to's minimal actor: complete, and every required field listed -----------------

HOWTO = ROOT / "docs" / "how-to" / "foundry-creature.md"


def _howto_actor() -> dict:
    """The ```json block of docs/how-to/foundry-creature.md (the one there is)."""
    (block,) = re.findall(r"```json\n(.*?)```", HOWTO.read_text(), re.S)
    return json.loads(block)


def _leaves(node, prefix=()):
    """Every path to a leaf of a JSON tree, lists indexed; a node of empty values
    (``"traits": {"value": []}``) is a leaf."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in items:
        inner = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        if any(not isinstance(x, dict | list) or x for x in inner):
            yield from _leaves(v, (*prefix, k))
        else:
            yield (*prefix, k)


def test_the_howto_actor_loads_and_fights(tmp_path):
    path = tmp_path / "bog-lurker.json"
    path.write_text(json.dumps(_howto_actor()))
    (c,) = foundry.load(path)
    assert (c.level, c.hp, c.ac, c.fort, c.reflex, c.will, c.perception) == (
        3, 50, 18, 11, 8, 7, 9,
    )  # fmt: skip
    assert (c.strike.attack, c.strike.damage, c.slug) == (12, "2d8+4", "bog-lurker")
    assert len(budget.lineup_members(f"@{path},3")) == 2


def test_the_howto_actor_is_minimal_and_lists_every_required_field(tmp_path):
    """Removing any field of the how-to's actor fails to load, naming a field that the
    how-to's table lists: nothing in the example is optional (but the strike's name, as the
    how-to says), nothing required is unlisted."""
    table = HOWTO.read_text().split("The required fields:", 1)[1].split("\n\n", 2)[1]
    assert "required but the strike's `name`" in HOWTO.read_text()
    tokens = re.findall(r"`([^`]+)`", table)  # the fields the table names
    actor = _howto_actor()
    for leaf in _leaves(actor):
        broken = copy.deepcopy(actor)
        node = broken
        for k in leaf[:-1]:
            node = node[k]
        del node[leaf[-1]]
        path = tmp_path / "x.json"
        path.write_text(json.dumps(broken))
        if leaf == ("items", 0, "name"):
            assert foundry.load(path)[0].strike.name == "?"
            continue
        with pytest.raises(foundry.ActorError) as exc:
            foundry.load(path)
        msg = str(exc.value)[len(f"{path}: ") :]
        named = re.match(r"(?:items\[\w+\]\.system\.|items\[\w+\]: )?([\w.]+)", msg).group(1)
        assert any(
            re.fullmatch(r"[\w.]*" + re.escape(t).replace(re.escape("<any key>"), r"\w+"), c)
            for t in tokens
            for c in (named, f"system.{named}")
        ), (leaf, msg)


def test_an_actor_without_the_older_location_gets_no_hint(tmp_path):
    rec = _howto_actor()
    del rec["system"]["perception"]
    path = tmp_path / "x.json"
    path.write_text(json.dumps(rec))
    with pytest.raises(foundry.ActorError, match=r"system\.perception\.mod: missing$"):
        foundry.load(path)
