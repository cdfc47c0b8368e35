"""The README: short, true, and every example, shell and Python, prints what it shows.

The examples run in order in one scratch folder (those that write files leave them for
the next ones, a TOML block is written where its ``--config`` reads it); Python cells and
``>>>`` sessions share one namespace. ``docs/examples.py`` states the conventions, which
examples are only run or skipped, and how Monte Carlo numbers are compared (within 5
standard errors of the example's ``n``; exact numbers to their digits). The manual lives in
the documentation site (``docs/``, ``tests/test_docs.py``); the README is its front page.
"""

import importlib.util
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MAX_LINES = 200


def _load(name):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


ex = _load("examples")
readme = _load("readme_examples")

ALL = readme.examples()
EXAMPLES = [e for e in ALL if e.checked]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    return readme.run_all(ALL, tmp_path_factory.mktemp("readme"))


# -- what the README is ---------------------------------------------------------------------


def test_the_readme_is_short():
    """The front page, not the manual (issue 22): everything else is in the site's pages."""
    lines = README.read_text().split("\n")
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines, at most {MAX_LINES}"


def test_the_readme_gives_the_two_commands_and_where_simkit_is():
    text = " ".join(README.read_text().split())
    for command in ("python3 tasks.py report", "python3 tasks.py test", "python3 tasks.py docs"):
        assert command in text, command  # CI (.ci/run) runs the test command the README gives
    assert ".venv/bin/simkit" in text and ". .venv/bin/activate" in text
    # how long each takes (issue 22 item 8), as tasks.py's docstring says
    assert "package index" in text and "80 s" in text
    assert "about 2 minutes" in text and "4 to 5 minutes" in text
    makefile = (ROOT / "Makefile").read_text()
    for target in ("report", "test"):
        if re.search(rf"^{target}:", makefile, re.M):
            assert f"make {target}" in text, target


def test_the_readme_shows_a_dying_track_a_party_fight_and_a_sweep_with_its_plot():
    shell = [e.argv[:3] for e in EXAMPLES if e.kind == "shell" and e.program == "simkit"]
    assert ["simkit", "run", "dying"] in shell
    assert ["simkit", "run", "party"] in shell
    assert ["simkit", "sweep", "dying"] in shell and ["simkit", "plot"] in [a[:2] for a in shell]
    assert sum(e.kind == "cell" for e in EXAMPLES) >= 2  # Python, with its output compared


def _links(text):
    """Relative link and image targets of the markdown (not web addresses, not anchors)."""
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
            yield target.split("#")[0]


def test_every_link_and_picture_of_the_readme_is_in_the_repository():
    targets = list(_links(README.read_text()))
    assert any(t.endswith(".png") for t in targets)
    assert "docs/rules.md" in targets and "docs/index.md" in targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, missing


#: Pages that only the site renders: mkdocstrings directives, no text of their own.
SITE_ONLY = {"docs/reference/api.md"}


def test_the_readme_links_every_page_of_the_site_but_the_generated_ones():
    """A reader on GitHub follows the pages directly; the generated reference is built."""
    targets = set(_links(README.read_text()))
    pages = {str(p.relative_to(ROOT)) for p in DOCS.rglob("*.md")} - SITE_ONLY
    assert not pages - targets, sorted(pages - targets)


def test_the_readme_has_checked_examples():
    assert len(EXAMPLES) >= 3
    skipped = [e for e in ALL if e.skipped]
    assert all(
        e.skip
        or any(x.startswith("^C") for x in e.expected)
        or "--resume" in e.argv
        or any("..." in x for x in e.expected)
        for e in skipped
    )
    assert len(skipped) <= 3


def test_python_examples_are_found_and_checked():
    """Python cells with an output block and >>> sessions are checked, not only `$ simkit`."""
    kinds = {e.kind for e in EXAMPLES}
    assert "shell" in kinds
    if any(e.kind != "shell" for e in ALL):
        assert kinds & {"cell", "session"}


def test_run_only_examples_succeed(outputs):
    for e in ALL:
        if not e.skipped and not e.checked and e.kind == "shell":
            assert outputs.get((e.doc, e.line)), e.command  # ran and printed something


@pytest.mark.parametrize("e", EXAMPLES, ids=lambda e: f"line{e.line + 1}")
def test_readme_example_output(e, outputs):
    why = ex.differs(e, outputs[(e.doc, e.line)])
    assert why is None, f"{e.where}: {e.command}: {why}"


def test_a_changed_python_output_of_the_readme_fails(outputs):
    """Each Python cell's shown output, with one number changed, no longer passes."""
    cells = [e for e in EXAMPLES if e.kind == "cell" and e.expected]
    assert cells
    for e in cells:
        nums = [(i, m) for i, x in enumerate(e.expected) for m in re.finditer(r"\d[\d.]*", x)]
        i, last = next((i, m) for i, m in reversed(nums) if re.search("[1-9]", m.group()))
        line = e.expected[i]  # its last nonzero number's leading digit moves by 5 units
        lead = last.start() + re.search("[1-9]", last.group()).start()
        changed = line[:lead] + str((int(line[lead]) + 5) % 10) + line[lead + 1 :]
        wrong = replace(e, expected=[*e.expected[:i], changed, *e.expected[i + 1 :]])
        assert ex.differs(wrong, outputs[(e.doc, e.line)]) is not None, (e.where, changed)


# -- the checker itself can fail ---------------------------------------------------------


def _cell(source, expected, n_line=""):
    lines = ["```python", *source.split("\n"), "```", "```text", *expected, "```"]
    (e,) = ex.examples(lines, DOCS / "x.md")
    return e


def test_a_python_output_that_changes_fails():
    e = _cell("print('stable', 0.25)", ["stable 0.25"])
    assert ex.differs(e, ["stable 0.25"]) is None
    assert ex.differs(e, ["stable 0.26"]) is not None  # no n: exact to its digits
    assert ex.differs(e, ["dead 0.25"]) is not None  # text
    assert ex.differs(e, ["stable 0.25", "more"]) is not None  # lines


def test_monte_carlo_numbers_within_five_standard_errors():
    n = 10_000
    src = f"res = simulate(model, {n}, rng=1)\nres"
    e = _cell(src, ["Result(x, n=10000, seed=1: dead=0.4000, stable=0.6000)"])
    assert e.n == n
    se = (0.4 * 0.6 / n) ** 0.5
    ok = 0.4 + 4.9 * se
    far = 0.4 + 5.5 * se + 0.00005
    assert ex.differs(e, [f"Result(x, n=10000, seed=1: dead={ok:.4f}, stable=0.6000)"]) is None
    assert ex.differs(e, [f"Result(x, n=10000, seed=1: dead={far:.4f}, stable=0.6000)"])
    assert ex.differs(e, ["Result(x, n=10000, seed=2: dead=0.4000, stable=0.6000)"])  # a seed
    table = ["outcome count n p exact", "dead 4000 10000 0.4000 0.4000"]
    t = _cell(src, table)
    c = int(4000 + 4.9 * n * se)
    assert ex.differs(t, [table[0], f"dead {c} 10000 {c / n:.4f} 0.4000"]) is None
    assert ex.differs(t, [table[0], "dead 4000 10000 0.4000 0.4001"])  # exact: its digits
    c = int(4000 + 5.5 * n * se) + 1
    assert ex.differs(t, [table[0], f"dead {c} 10000 {c / n:.4f} 0.4000"])


def test_the_check_command_fails_on_a_changed_output(tmp_path, capsys):
    doc = tmp_path / "page.md"
    doc.write_text(
        "```python\nx = 2\nprint(x + 1)\n```\n```text\n3\n```\n\n```\n>>> x * 2\n4\n```\n"
    )
    assert ex.main(["--check", str(doc)]) == 0
    doc.write_text(doc.read_text().replace("\n3\n", "\n4\n"))
    assert ex.main(["--check", str(doc)]) == 1
    assert "page.md:2: output differs" in capsys.readouterr().out
    assert ex.main([str(doc)]) == 0  # rewrite
    assert "\n3\n" in doc.read_text()
    doc.write_text("```python\nraise ValueError('no')\n```\n")
    assert ex.main(["--check", str(doc)]) == 1
    assert "example failed" in capsys.readouterr().err
