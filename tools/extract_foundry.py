"""Make the bundled sample bestiary, ``simkit/rules/pf2e/data/foundry/monster-core.json``.

Reads the trimmed Foundry VTT pf2e actor records of ``shared/data/foundry-pf2e/
monster-core/`` (Pathfinder Monster Core, ORC license; its README lists the upstream
commit of every file) and keeps, per record, only what :mod:`simkit.rules.pf2e.foundry` reads,
in the same Foundry structure (so the package's loader reads the extract and an export
the same way). Each record gains a ``"simkit"`` key: its slug (the file's name), the
upstream path and commit. Records the loader refuses (the swarms) are left out and
listed. Run from the repository root::

    .venv/bin/python tools/extract_foundry.py [SOURCE_DIR]

The output is compact JSON, sorted by level then slug; the script is deterministic (the
same source gives the same bytes), so a re-run shows in ``git diff`` only what changed.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT.parent / "shared" / "data" / "foundry-pf2e" / "monster-core"
OUT = ROOT / "simkit" / "rules" / "pf2e" / "data" / "foundry" / "monster-core.json"
UPSTREAM = "https://github.com/foundryvtt/pf2e"


def _pick(d: dict, *keys: str) -> dict:
    return {k: d[k] for k in keys if k in d}


def _item(it: dict) -> dict | None:
    s = it.get("system", {})
    head = _pick(it, "_id", "name", "type")
    kind = it.get("type")
    if kind == "melee":
        sysd = _pick(s, "bonus", "damageRolls", "weaponType")
        sysd["traits"] = {"value": s.get("traits", {}).get("value", [])}
    elif kind == "spellcastingEntry":
        sysd = _pick(s, "spelldc", "tradition", "prepared")
    elif kind == "action":
        sysd = _pick(s, "actionType", "actions", "description")
        sysd["description"] = {"value": s.get("description", {}).get("value", "")}
    elif kind == "spell":
        sysd = {"location": s.get("location", {})}
    else:
        return None
    return {**head, "system": sysd}


def trim(doc: dict, slug: str, commit: str) -> dict:
    s = doc["system"]
    a = s["attributes"]
    attrs = {"ac": {"value": a["ac"]["value"]}, "hp": _pick(a["hp"], "max", "details")}
    attrs.update(_pick(a, "immunities", "resistances", "weaknesses"))
    return {
        "name": doc["name"],
        "type": doc["type"],
        "system": {
            "details": _pick(s["details"], "level", "publication"),
            "attributes": attrs,
            "saves": {k: {"value": v["value"]} for k, v in s["saves"].items()},
            "perception": {"mod": s["perception"]["mod"]},
            "traits": _pick(s["traits"], "value", "rarity", "size"),
        },
        "items": [t for t in map(_item, doc.get("items", [])) if t is not None],
        "simkit": {
            "slug": slug,
            "source": f"{UPSTREAM}/blob/{commit}/packs/pathfinder-monster-core/{slug}.json",
            "commit": commit,
        },
    }


def commits(readme: Path) -> dict[str, str]:
    """File stem -> upstream commit, from the source README's table."""
    out = {}
    for m in re.finditer(r"`([a-z0-9-]+)\.json` \| `([0-9a-f]{40})`", readme.read_text()):
        out[m.group(1)] = m.group(2)
    return out


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from simkit.rules.pf2e.foundry import ActorError, read_actor

    src = Path(argv[0]) if argv else SOURCE
    known = commits(src.parent / "README.md")
    records, left = [], []
    for path in sorted(src.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        rec = trim(doc, path.stem, known[path.stem])
        try:
            read_actor(rec, path.name, path.stem)
        except ActorError as exc:
            left.append(str(exc))
            continue
        records.append(rec)
    records.sort(key=lambda r: (r["system"]["details"]["level"]["value"], r["simkit"]["slug"]))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(records, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    OUT.write_text(text + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(records)} creatures, {len(text)} bytes")
    for line in left:
        print(f"left out: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
