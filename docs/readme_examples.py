"""The README's `$ simkit ...` examples: find them, run them, check or rewrite their output.

    python docs/readme_examples.py          # rewrite every checked example's output in README.md
    python docs/readme_examples.py --check  # exit 1 if any output differs
    python docs/readme_examples.py --match 'compare dying'   # rewrite only those (repeatable)

An example is a line ``$ COMMAND`` inside a fenced block, followed by its output (the
lines up to the next ``$`` line or the end of the block). COMMAND is ``simkit ARGS``
(run in-process), or ``head``, ``cat`` or ``python -c ...`` (to show a file an example
wrote). All examples run in order in one scratch folder, so an example that writes a
file (``-o FILE``, a TOML's ``output``) leaves it for the ones after it; a fenced
```` ```toml ```` block is written there under the name the next ``--config NAME``
reads. Each example's output is checked, with three exceptions:

- an abridged output (a line with ``...``) and an interrupted run (``^C``, and the
  ``--resume`` that follows it) are not run;
- a ``simkit`` example shown without output and without ``-o`` (``simkit models``) is
  only run: it must succeed.

``tests/test_readme.py`` runs the check.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
#: Commands other than ``simkit`` an example may show.
SHELL = ("head", "cat", "python")


@dataclass
class Example:
    line: int  # index of the "$ ..." line
    end: int  # index one past the last output line
    argv: list
    expected: list
    files: dict = field(default_factory=dict)  # written into the scratch folder before it runs
    text: str = ""  # the command as the README shows it

    @property
    def program(self) -> str:
        return self.argv[0]

    @property
    def skipped(self) -> bool:
        """Not run: an abridged or interrupted output, or the resume of an interrupted run."""
        return (
            any("..." in x or x.startswith("^C") for x in self.expected) or "--resume" in self.argv
        )

    @property
    def checked(self) -> bool:
        """Run and its output compared (else only run, or skipped)."""
        if self.skipped:
            return False
        return (
            bool(self.expected)
            or self.program != "simkit"
            or "-o" in self.argv
            or "--config" in self.argv
        )

    @property
    def command(self) -> str:
        return self.text or shlex.join(self.argv)


def examples(lines: list[str]) -> list[Example]:
    out, fenced, lang, i = [], False, "", 0
    toml: list[str] = []
    block: list[str] = []
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            if fenced and lang == "toml":
                toml = block
            fenced = not fenced
            lang, block = (line[3:].strip(), []) if fenced else ("", [])
            i += 1
            continue
        if fenced and lang == "toml":
            block.append(line)
        elif fenced and line.startswith("$ "):
            cmd = line[2:].split("  #", 1)[0]
            argv = shlex.split(cmd)
            j = i + 1
            while (
                j < len(lines) and not lines[j].startswith("$ ") and not lines[j].startswith("```")
            ):
                j += 1
            end = j
            while end > i + 1 and not lines[end - 1].strip():  # blank lines between examples
                end -= 1
            if argv and argv[0] in ("simkit", *SHELL):
                files = {}
                if "--config" in argv and toml:
                    files[argv[argv.index("--config") + 1]] = "\n".join(toml) + "\n"
                out.append(Example(i, end, argv, lines[i + 1 : end], files, cmd))
            i = j
            continue
        i += 1
    return out


def _run(ex: Example, folder: Path) -> tuple[int, str, str]:
    for name, text in ex.files.items():
        (folder / name).write_text(text)
    if ex.program == "simkit":
        from simkit.testing import run_cli

        here = os.getcwd()
        os.chdir(folder)
        try:
            return run_cli(*ex.argv[1:])
        finally:
            os.chdir(here)
    argv = [sys.executable, *ex.argv[1:]] if ex.program == "python" else ex.argv
    done = subprocess.run(
        argv, cwd=folder, capture_output=True, text=True, timeout=300, check=False
    )
    return done.returncode, done.stdout, done.stderr


def run_all(exs: list[Example], folder: Path | None = None) -> dict[int, list[str]]:
    """Run every example not skipped, in order, in one scratch folder: line -> output lines."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="simkit-readme-") as tmp:
        where = Path(folder or tmp)
        for ex in exs:
            if ex.skipped:
                continue
            code, out, err = _run(ex, where)
            if code != 0:
                raise RuntimeError(
                    f"README.md:{ex.line + 1}: example failed: {ex.command}: {err.strip()}"
                )
            text = out.rstrip("\n")
            results[ex.line] = text.split("\n") if text else []
    return results


def actual(ex: Example) -> list[str]:
    """One example's output, run alone (with the examples before it that it may need)."""
    exs = examples(README.read_text().split("\n"))
    upto = [e for e in exs if e.line <= ex.line]
    return run_all(upto)[ex.line]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    lines = README.read_text().split("\n")
    exs = examples(lines)
    results = run_all(exs)
    checked = [e for e in exs if e.checked]
    if "--check" in argv:
        bad = [
            e
            for e in checked
            if [x.rstrip() for x in results[e.line]] != [x.rstrip() for x in e.expected]
        ]
        for e in bad:
            print(f"README.md:{e.line + 1}: output differs: {e.command}")
        return 1 if bad else 0
    match = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--match"]
    chosen = [e for e in checked if not match or any(m in e.command for m in match)]
    for e in reversed(chosen):  # from the end, so earlier line numbers stay valid
        lines[e.line + 1 : e.end] = [x.rstrip() for x in results[e.line]]
    README.write_text("\n".join(lines))
    print(
        f"rewrote {len(chosen)} of {len(checked)} checked examples in {README} "
        f"({len(exs) - len(checked)} run only or skipped)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
