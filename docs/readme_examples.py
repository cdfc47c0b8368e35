"""The README's examples, shell and Python: find them, run them, check or rewrite their output.

    python docs/readme_examples.py          # rewrite every checked example's output in README.md
    python docs/readme_examples.py --check  # exit 1 if an output differs beyond its tolerance
    python docs/readme_examples.py --strict # exit 1 if an output differs at all (text)
    python docs/readme_examples.py --match 'compare dying'   # rewrite only those (repeatable)

The README alone, through :mod:`examples` (``docs/examples.py``), which holds the
conventions (``$ simkit ...`` lines and their output; ```` ```python ```` cells followed by
a ```` ```text ```` output block; ``>>>`` sessions), how Monte Carlo numbers are compared
(within 5 standard errors of the example's ``n``), and runs the documentation pages' examples
too. ``tests/test_readme.py`` runs the check.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from examples import README, Example, differs, run_all  # noqa: E402
from examples import examples as _examples  # noqa: E402
from examples import main as _main  # noqa: E402

__all__ = ["README", "Example", "differs", "examples", "run_all", "main"]


def examples(lines: list[str] | None = None) -> list[Example]:
    """The README's examples (of ``lines``, by default the README as it is on disk)."""
    return _examples(README.read_text().split("\n") if lines is None else lines, README)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return _main([*argv, str(README)])


if __name__ == "__main__":
    sys.exit(main())
