"""Every example of the README, shell and Python, prints what the README says it prints.

The examples run in order in one scratch folder (those that write files leave them for
the next ones, a TOML block is written where its ``--config`` reads it); Python cells and
``>>>`` sessions share one namespace. ``docs/examples.py`` states the conventions, which
examples are only run or skipped, and how Monte Carlo numbers are compared (within 5
standard errors of the example's ``n``; exact numbers to their digits).
"""

import importlib.util
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


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
#: README examples whose shown output no longer matches the code (reported in issue 22;
#: the README's shrink moves them to the docs pages, where they are right): a part of the
#: source -> what is wrong. Strict: once one is fixed, its entry must go.
KNOWN_STALE = {
    'Agony(pp=4, spend="never"': "the marks frame is shown without its index",
    "rest_table([1, 5, 10]": "the frame is shown without its index",
    "con_damage(14, [0, 2, 4, 6]": "shown unwrapped, without its index",
    "encounter_summary(res)": "the cell prints one table; the sweep's table is not printed",
}


def _stale(e):
    return next((why for part, why in KNOWN_STALE.items() if part in e.source), None)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    return readme.run_all(ALL, tmp_path_factory.mktemp("readme"))


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


def _params():
    for e in EXAMPLES:
        why = _stale(e)
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        yield pytest.param(e, id=f"line{e.line + 1}", marks=marks)


@pytest.mark.parametrize("e", list(_params()))
def test_readme_example_output(e, outputs):
    why = ex.differs(e, outputs[(e.doc, e.line)])
    assert why is None, f"{e.where}: {e.command}: {why}"


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
