"""docs/rules.md states every rule and ambiguity the code cites.

Nothing it cites points outside the repository.
"""

import re
import subprocess
from pathlib import Path

import pytest

from simkit.analysis.ambiguities import AMBIGUITIES
from simkit.core.params import spec
from simkit.models import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "rules.md").read_text()
#: The page's ids: the seeds' rules and ambiguities (R0-05, A0-1), the published PF2e
#: rules of the fights (P-01) and the party model's readings (AP-1).
_IDS = r"[RA][014]-\d+|P-\d{2}|AP-\d+"
ID = re.compile(rf"\b({_IDS})\b")
#: An id is defined where the page puts it in bold: **R0-05**.
DEFINED = set(re.findall(rf"\*\*({_IDS})\*\*", RULES))


def _cited_by_params() -> dict[str, set[str]]:
    cited: dict[str, set[str]] = {}
    for name, cls in REGISTRY.items():
        for key, meta in spec(cls).items():
            for rid in ID.findall(str(meta.get("rule") or "")):
                cited.setdefault(rid, set()).add(f"{name}.{key}")
    return cited


def test_the_page_defines_the_ids_of_every_seed():
    for prefix, last in (("R0-", 15), ("R1-", 12), ("R4-", 7), ("A0-", 7), ("A1-", 6), ("A4-", 3)):
        for i in range(1, last + 1):
            rid = f"{prefix}{i:02d}" if prefix.startswith("R") else f"{prefix}{i}"
            assert rid in DEFINED, f"docs/rules.md does not define {rid}"


def test_the_page_defines_the_fight_rules_and_the_party_readings():
    for rid in [f"P-{i:02d}" for i in range(1, 11)] + [f"AP-{i}" for i in range(1, 11)]:
        assert rid in DEFINED, f"docs/rules.md does not define {rid}"


def test_the_id_pattern_tells_the_kinds_apart():
    text = "R0-05, A0-1, P-01, AP-10; not HP-10, GP-01, XP-2 or P-1"
    assert ID.findall(text) == ["R0-05", "A0-1", "P-01", "AP-10"]


def test_every_id_the_source_cites_is_defined():
    """Every rule, ambiguity, fight-rule and reading id in simkit's .py files is on the page."""
    files = sorted((ROOT / "simkit").rglob("*.py"))
    cited: dict[str, set[str]] = {}
    for path in files:
        for rid in ID.findall(path.read_text()):
            cited.setdefault(rid, set()).add(str(path.relative_to(ROOT)))
    assert len(files) > 50 and {"R0-03", "R1-07", "A0-1"} <= set(cited)  # the scan reads them
    missing = {rid: sorted(where) for rid, where in cited.items() if rid not in DEFINED}
    assert not missing, f"cited in simkit/ but not defined in docs/rules.md: {missing}"


def _rows(prefix: str) -> list[list[str]]:
    """The cells of the page's table rows whose id starts with ``prefix`` (``AP-``)."""
    return [
        [c.strip() for c in line.strip("|").split("|")]
        for line in RULES.splitlines()
        if line.startswith(f"| **{prefix}")
    ]


def test_the_party_readings_name_the_party_defaults():
    """Each ``option=value`` of an AP row's default column is the party model's default."""
    known = spec(REGISTRY["party"])
    checked = 0
    for cells in _rows("AP-"):
        assert len(cells) == 4, cells[0]
        for key, value in re.findall(r"`(\w+)=([^`]+)`", cells[3]):
            named = re.search(rf"`{key}\b", cells[2])
            assert named, f"{cells[0]}: default {key} is not named among its readings"
            if key not in known:  # an option still to come (the test then checks it)
                continue
            assert str(known[key]["default"]).lower() == value.lower(), (
                f"{cells[0]}: {key}={value}, the model's default is {known[key]['default']!r}"
            )
            checked += 1
    assert checked >= 8


def test_every_rule_id_a_parameter_cites_is_defined():
    cited = _cited_by_params()
    assert len(cited) > 20  # the models do cite rules
    missing = {rid: sorted(where) for rid, where in cited.items() if rid not in DEFINED}
    assert not missing, f"cited but not in docs/rules.md: {missing}"


def test_every_ambiguity_and_its_rule_are_defined():
    for amb in AMBIGUITIES:
        assert amb.id in DEFINED, amb.id
        for rid in ID.findall(amb.rule):
            assert rid in DEFINED, f"{amb.id} cites {rid}"


@pytest.mark.parametrize("amb", AMBIGUITIES, ids=lambda a: a.id)
def test_the_default_reading_is_the_one_the_page_names(amb):
    """The page names the option and its default reading for each ambiguity of a track model."""
    row = next(line for line in RULES.splitlines() if line.startswith(f"| **{amb.id}**"))
    default = next(r for r in amb.readings if r.default)
    for key, value in default.params.items():
        if amb.model in REGISTRY and key in spec(REGISTRY[amb.model]) and key != "con":
            assert f"`{key}=" in row, f"{amb.id}: option {key} not named"
            assert str(value).lower() in row.lower().replace("`", ""), (
                f"{amb.id}: default {key}={value}"
            )


def test_nothing_points_outside_the_repository():
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    bad = []
    for f in files:
        if f in ("CHANGELOG.md", "tests/test_rules_doc.py") or not f.endswith(
            (".py", ".md", ".ipynb", ".toml", ".txt", ".cfg")
        ):
            continue
        path = ROOT / f
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        for pattern in ("../shared", "RULES.md"):
            if pattern in text:
                bad.append(f"{f}: {pattern}")
    assert not bad, bad


def test_the_readme_links_the_page():
    assert "(docs/rules.md)" in (ROOT / "README.md").read_text()


def test_where_designers_look_they_are_sent_to_the_page():
    """simkit models (list and detail), the package and the model docstrings name docs/rules.md."""
    import simkit
    from simkit.testing import run_cli

    for argv in (("models",), ("models", "dying")):
        code, out, _ = run_cli(*argv)
        assert code == 0 and "docs/rules.md" in out, argv
    assert "docs/rules.md" in (simkit.__doc__ or "")
    assert "docs/rules.md" in (simkit.Dying.__doc__ or "")


def test_every_table_row_has_its_header_columns():
    """A pipe inside a cell (even in backticks) would split it.

    Every row has the header's columns.
    """
    cols = None
    for n, line in enumerate(RULES.splitlines(), 1):
        if not line.startswith("|"):
            cols = None
            continue
        count = len(re.findall(r"(?<!\\)\|", line))
        cols = count if cols is None else cols
        assert count == cols, f"docs/rules.md:{n}: {count - 1} columns, the table has {cols - 1}"


def test_the_version_is_the_changelogs_first_release():
    """pyproject's version is the installed ``simkit.__version__`` (reinstall after a bump:
    ``pip install -e .``), and the CHANGELOG's first heading is that version's release."""
    import tomllib

    import simkit

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert simkit.__version__ == version, "reinstall: pip install --no-deps -e ."
    release = re.match(r"\d+(\.\d+)*", version).group(0)
    heading = next(
        line for line in (ROOT / "CHANGELOG.md").read_text().splitlines() if line.startswith("## ")
    )
    assert heading.split()[1] == release, (heading, version)
    assert ("unreleased" in heading) == (release != version), (heading, version)
