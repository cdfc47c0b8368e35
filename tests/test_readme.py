"""Every `$ simkit ...` example of the README prints what the README says it prints."""

import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "readme_examples", Path(__file__).resolve().parent.parent / "docs" / "readme_examples.py")
readme = importlib.util.module_from_spec(_spec)
sys.modules["readme_examples"] = readme  # dataclasses look their module up there
_spec.loader.exec_module(readme)

EXAMPLES = [e for e in readme.examples(readme.README.read_text().split("\n")) if e.checked]


def test_the_readme_has_checked_examples():
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: f"line{e.line + 1}")
def test_readme_example_output(ex):
    got = [x.rstrip() for x in readme.actual(ex)]
    assert got == [x.rstrip() for x in ex.expected], f"README.md:{ex.line + 1}: simkit {' '.join(ex.argv)}"
