"""Every `$ simkit ...` example of the README prints what the README says it prints.

The examples run in order in one scratch folder (those that write files leave them for
the next ones, a TOML block is written where its ``--config`` reads it); see
docs/readme_examples.py for which are only run and which are skipped.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "readme_examples", Path(__file__).resolve().parent.parent / "docs" / "readme_examples.py"
)
readme = importlib.util.module_from_spec(_spec)
sys.modules["readme_examples"] = readme  # dataclasses look their module up there
_spec.loader.exec_module(readme)

ALL = readme.examples(readme.README.read_text().split("\n"))
EXAMPLES = [e for e in ALL if e.checked]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    return readme.run_all(ALL, tmp_path_factory.mktemp("readme"))


def test_the_readme_has_checked_examples():
    assert len(EXAMPLES) >= 30
    commands = [e.command for e in EXAMPLES]
    for needed in (
        "-o",
        "--config",
        "compare",
    ):  # the ones that write and read files are checked too
        assert any(needed in c for c in commands), needed
    skipped = [e for e in ALL if e.skipped]
    assert all(
        any(x.startswith("^C") for x in e.expected)
        or "--resume" in e.argv
        or any("..." in x for x in e.expected)
        for e in skipped
    )
    assert len(skipped) <= 3


def test_run_only_examples_succeed(outputs):
    for e in ALL:
        if not e.skipped and not e.checked:
            assert outputs.get(e.line), e.command  # ran and printed something


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: f"line{e.line + 1}")
def test_readme_example_output(ex, outputs):
    got = [x.rstrip() for x in outputs[ex.line]]
    assert got == [x.rstrip() for x in ex.expected], f"README.md:{ex.line + 1}: {ex.command}"
