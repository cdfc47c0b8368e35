"""The package's layers: imports run one way (cli -> analysis -> models -> fight -> rules ->
core), no module imports a private name from another, the import graph has no circles, and
the scalar references import nothing from the fight loop."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "simkit"
LAYERS = ["core", "rules", "fight", "models", "analysis", "cli"]


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(PKG.parent).with_suffix("")
        name = ".".join(rel.parts)
        out[name.removesuffix(".__init__")] = p
    return out


MODULES = _modules()


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names imported from it) for every import, lazy ones included."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names if a.name.startswith("simkit")]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import; the layers use absolute imports"
            if node.module and node.module.startswith("simkit"):
                found.append((node.module, [a.name for a in node.names]))
    return found


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return None  # simkit itself, simkit.testing, simkit.__main__: the top


def _target(module: str, names: list[str]) -> list[str]:
    """Modules named by ``from module import names`` (a submodule counts as itself)."""
    subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    return subs or [module]


@pytest.mark.parametrize("module", [m for m in MODULES if _layer(m) is not None])
def test_imports_only_lower_layers(module):
    own = _layer(module)
    for imported, names in _imports(MODULES[module]):
        for target in _target(imported, names):
            layer = _layer(target)
            assert layer is not None and layer <= own, (
                f"{module} ({LAYERS[own]}) imports {target}, a higher layer"
            )


@pytest.mark.parametrize("module", list(MODULES))
def test_no_private_name_from_another_module(module):
    for imported, names in _imports(MODULES[module]):
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private, f"{module} imports private {private} from {imported}"


def test_no_import_circles():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for m, path in MODULES.items():
        for imported, names in _imports(path):
            for t in _target(imported, names):
                if t in MODULES and t != m and not m.startswith(t + "."):
                    graph[m].add(t)
    # a package's __init__ re-exporting its children is not a circle
    for m in graph:
        graph[m] = {t for t in graph[m] if not t.startswith(m + ".")}
    seen: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        seen[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if seen.get(t) == 1:
                cycle = stack[stack.index(t) :] + [t]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if t not in seen:
                visit(t)
        stack.pop()
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            visit(m)


#: The models that may import another model, and which: a chain composes its stages'
#: models (agony, fall), a preset builds on custom tracks, a model's reference and exact
#: solver belong to it. A fight model takes its rules from simkit/rules, never from
#: another model (one rule, one home).
MODEL_IMPORTS_ALLOWED = {
    "simkit.models.agony": {"simkit.models.perseverance", "simkit.models.recovery"},
    "simkit.models.fall": {"simkit.models.dying", "simkit.models.perseverance"},
    "simkit.models.dnd": {"simkit.models.custom"},
    "simkit.models.dying": {"simkit.models.dying_readings"},  # its readings' declarations
    "simkit.models.party": {
        "simkit.models.party_lineups",  # its lineups' declarations and draw sources
        "simkit.models.party_params",  # its parameters' and ambiguities' declarations
        "simkit.models.party_checks",  # its parameters' checks together (validate)
        "simkit.models.party_plan",  # a round's named draws (the references' contract)
        "simkit.models.party_duel",
        "simkit.models.duel_grid",  # the duel's exact answer on its grid
        "simkit.models.fight_state",
        "simkit.models.party_loop",  # the compiled fight loop's glue (engine="loop")
        "simkit.models.downed_rule",  # a designer's track at 0 HP (dying=)
        "simkit.models.dying_keys",  # dying.KEY: the track's options by name
    },
    # dying.KEY on a custom track: its spec, merged
    "simkit.models.dying_keys": {"simkit.models.downed_rule"},
    # a grid's dying.check...: the party's own readings, by the dying model's names
    "simkit.models.keys": {"simkit.models.dying_keys"},
    "simkit.models.party_loop": {"simkit.models.fight_state"},
    "simkit.models.party_lineups": {"simkit.models.fight_state"},  # (MAX_FIGHTS)
    "simkit.models.party_plan": {"simkit.models.party_lineups"},
    "simkit.models.party_checks": {
        "simkit.models.downed_rule",
        "simkit.models.dying_keys",
        "simkit.models.party_lineups",
    },
    # a custom track as a fight's rule at 0 HP: the registry names the tracks
    "simkit.models.downed_rule": {"simkit.models", "simkit.models.custom"},
    # a replay plays a track on the party's reference (its log), from the loop's dice contract
    "simkit.models.party_replay": {
        "simkit.models",
        "simkit.models.party",
        "simkit.models.party_ref",
    },
    # a day's replay re-runs the day's stream with a recorder and plays its fights on the
    # party's replay
    "simkit.models.day_replay": {
        "simkit.models.day",
        "simkit.models.day_outcomes",
        "simkit.models.day_plan",
        "simkit.models.fight_state",
        "simkit.models.party_replay",
    },
    "simkit.models.encounter": {
        "simkit.models.encounter_loop",  # the compiled fight loop's glue (its only engine)
        "simkit.models.downed_rule",  # a designer's track at 0 HP (dying=, the loop)
    },
    # the encounter on the loop: its starts in the loop's order, as the party's
    "simkit.models.encounter_loop": {
        "simkit.models.fight_state",
        "simkit.models.party_loop",
        "simkit.models.downed_rule",  # a custom track at 0 HP as the loop's table
    },
    # the day composes the party's fights (its state, the compiled loop) over a plan
    "simkit.models.day": {
        "simkit.models.party",
        "simkit.models.party_loop",  # the day's fights and cares on the compiled loop
        "simkit.models.fight_state",
        "simkit.models.day_plan",
        "simkit.models.day_outcomes",
        "simkit.models.day_duel",
        "simkit.models.day_block",  # the block's state, rows and observations
        "simkit.models.day_rest",  # the rests on a block
    },
    "simkit.models.day_plan": {"simkit.models.fight_state"},  # (the check penalty's floor)
    "simkit.models.day_block": {"simkit.models.day_outcomes", "simkit.models.fight_state"},
    "simkit.models.day_rest": {"simkit.models.day_block", "simkit.models.day_plan"},
    # the exact day duel: the party's duels and care over the day's plan
    "simkit.models.day_duel": {
        "simkit.models.party",
        "simkit.models.downed_rule",  # (EFFECTS: a custom track's outcomes in the care)
        "simkit.models.party_duel",
        "simkit.models.duel_grid",
        "simkit.models.day_plan",
    },
    # the day's reference: the party's reference for its fights and care, the plan's and
    # the outcomes' declarations; never the kernel it checks (simkit.models.day)
    "simkit.models.day_ref": {
        "simkit.models.party",
        "simkit.models.party_ref",
        "simkit.models.fight_state",
        "simkit.models.day_plan",
        "simkit.models.day_outcomes",
    },
    "simkit.models.party_ref": {
        "simkit.models.party",
        "simkit.models.fight_state",
        "simkit.models.party_ref_seeds",  # the reference's seed rules (issue 31 item 2)
    },
    # a duel's custom track at 0 HP (the PC's own or the fight's)
    "simkit.models.party_duel": {"simkit.models.downed_rule"},
    # the exact duel on a grid: the chain's size and start (its reference)
    "simkit.models.duel_grid": {"simkit.models.party_duel"},
    # the encounter's reference reads the loop's dice contract (the replays' CounterDice)
    "simkit.models.encounter_ref": {"simkit.models.encounter", "simkit.models.party_replay"},
    "simkit.models.presets": {"simkit.models"},
    "simkit.models.custom": {"simkit.models.custom"},  # (its docstring's example)
}


def test_no_model_borrows_a_rule_from_another_model():
    for name, path in MODULES.items():
        if not name.startswith("simkit.models.") or name == "simkit.models":
            continue
        allowed = MODEL_IMPORTS_ALLOWED.get(name, set())
        for mod, _ in _imports(path):
            if mod.startswith("simkit.models") and mod != name:
                assert mod in allowed, f"{name} imports {mod}: take the rule from simkit.rules"
    for fight in ("simkit.models.party", "simkit.models.encounter", "simkit.models.party_duel"):
        models = {m for m, _ in _imports(MODULES[fight]) if m.startswith("simkit.models")}
        loop_glue = {"simkit.models.encounter_loop"}  # (the encounter's, as party_loop)
        assert models <= MODEL_IMPORTS_ALLOWED["simkit.models.party"] | loop_glue, (fight, models)


#: The rules modules that may read the PF2e tables: the fight's declarations (its
#: benchmark names) only. The seed phases never do.
READS_PF2E = {"simkit.rules.parameters"}


@pytest.mark.parametrize(
    "module",
    [m for m in MODULES if m.startswith("simkit.rules.") and not m.startswith("simkit.rules.pf2e")],
)
def test_seed_phases_do_not_read_the_pf2e_tables(module):
    reads = {
        t
        for imported, names in _imports(MODULES[module])
        for t in _target(imported, names)
        if t.startswith("simkit.rules.pf2e")
    }
    assert not reads or module in READS_PF2E, f"{module} imports {sorted(reads)}"


@pytest.mark.parametrize("module", [m for m in MODULES if m.endswith("_ref")])
def test_references_do_not_import_the_fight_loop(module):
    """A reference held to the loop must not share its code (issue 28)."""
    for imported, names in _imports(MODULES[module]):
        for target in _target(imported, names):
            assert not target.startswith("simkit.fight"), f"{module} imports {target}"


def test_the_fight_imports_only_core_and_rules():
    fight = [m for m in MODULES if m.startswith("simkit.fight")]
    assert fight, "simkit/fight/ is the fight loop's package"
    for m in fight:
        for imported, names in _imports(MODULES[m]):
            for target in _target(imported, names):
                assert target.split(".")[1] in ("core", "rules", "fight"), f"{m} imports {target}"


#: Small modules, one concept each (issue 28): none of simkit/ over 800 lines, and the
#: party model, once a 1,921-line kernel, at most 600.
MAX_LINES = 800
MAX_LINES_OF = {"simkit.models.party": 600}


def test_no_module_is_too_long():
    lines = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}
    long = {name: n for name, n in lines.items() if n > MAX_LINES_OF.get(name, MAX_LINES)}
    assert not long, f"modules over their length (lines): {long}"
    assert set(MAX_LINES_OF) <= set(lines)  # (a renamed module is not left unchecked)
