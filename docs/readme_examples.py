"""The README's `$ simkit ...` examples: find them, run them, check or rewrite their output.

    python docs/readme_examples.py          # rewrite every checked example's output in README.md
    python docs/readme_examples.py --check  # exit 1 if any output differs

An example is a line ``$ simkit ARGS`` inside a fenced block, followed by its output
(the lines up to the next ``$`` line or the end of the block). Examples that write
files (``-o``), read files (``--config``) or show an abridged output (``...``) are not
checked. ``tests/test_readme.py`` runs the check.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


@dataclass
class Example:
    line: int  # index of the "$ simkit" line
    end: int  # index one past the last output line
    argv: list
    expected: list

    @property
    def checked(self) -> bool:
        return bool(self.expected) and "-o" not in self.argv and "--config" not in self.argv \
            and not any("..." in x for x in self.expected)


def examples(lines: list[str]) -> list[Example]:
    out, fenced, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced
            i += 1
            continue
        if fenced and line.startswith("$ simkit "):
            cmd = line[2:].split("  #", 1)[0]
            j = i + 1
            while j < len(lines) and not lines[j].startswith("$ ") and not lines[j].startswith("```"):
                j += 1
            end = j
            while end > i + 1 and not lines[end - 1].strip():  # blank lines between examples
                end -= 1
            out.append(Example(i, end, shlex.split(cmd)[1:], lines[i + 1 : end]))
            i = j
            continue
        i += 1
    return out


def actual(ex: Example) -> list[str]:
    from simkit.testing import run_cli

    code, out, err = run_cli(*ex.argv)
    if code != 0:
        raise RuntimeError(f"README example failed: simkit {' '.join(ex.argv)}: {err.strip()}")
    return out.rstrip("\n").split("\n")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    lines = README.read_text().split("\n")
    exs = [e for e in examples(lines) if e.checked]
    if "--check" in argv:
        bad = [e for e in exs if [x.rstrip() for x in actual(e)] != [x.rstrip() for x in e.expected]]
        for e in bad:
            print(f"README.md:{e.line + 1}: output differs: simkit {' '.join(e.argv)}")
        return 1 if bad else 0
    for e in reversed(exs):  # from the end, so earlier line numbers stay valid
        lines[e.line + 1 : e.end] = actual(e)
    README.write_text("\n".join(lines))
    print(f"rewrote {len(exs)} examples in {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
