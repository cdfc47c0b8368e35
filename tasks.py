#!/usr/bin/env python3
"""The project's two commands, with nothing but Python 3.11+ (pip and venv) installed.

    python3 tasks.py report   # set up .venv, then regenerate the standard reports in reports/
    python3 tasks.py test     # set up .venv (with the test extra), then ruff, mypy and the tests
    python3 tasks.py docs     # set up .venv, then build the documentation site into site/
    python3 tasks.py bench    # every benchmark in bench/ (not tests), failures listed at the end

The first command installs from the package index (about 80 s); ``report`` takes about
2 minutes, ``test`` 4 to 5 minutes on 2 cores (pytest-xdist on every core, the tests marked
``slow`` included: ``-m "not slow"`` leaves them out; it builds the site
too: tests/test_docs.py), ``docs`` about a minute (strict: a warning is an error; the
notebooks are executed). Afterwards the
``simkit`` command is ``.venv/bin/simkit`` (or activate the environment:
``. .venv/bin/activate``).

The environment is created once in .venv and refreshed when pyproject.toml changes.
The Makefile's targets call this script.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".simkit-installed"


def run(*cmd) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT)


def install() -> None:
    """Create .venv and install simkit (editable) with its test extra, when needed."""
    pyproject = ROOT / "pyproject.toml"
    if STAMP.exists() and STAMP.stat().st_mtime >= pyproject.stat().st_mtime and PY.exists():
        return
    if not PY.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(PY, "-m", "pip", "install", "--quiet", "-e", ".[test]")
    STAMP.touch()
    print(f"simkit: the simkit command is {BIN / 'simkit'} (or activate: . {BIN / 'activate'})")


def docs_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment ``docs`` builds in: the notebooks executed, each kernel on Jupyter's
    inline backend (no ``MPLBACKEND``, even an inherited one: with ``Agg`` the plotting
    cells would have no image). tests/test_notebooks.py executes the notebooks in it."""
    env = {**(os.environ if base is None else base), "SIMKIT_DOCS_EXECUTE": "true"}
    env.pop("MPLBACKEND", None)
    env.setdefault("NO_MKDOCS_2_WARNING", "1")  # the theme's notice about its successor
    return env


def docs(rest: list[str]) -> None:
    """Build the site into site/ (mkdocs.yml; strict), the notebooks executed with their
    figures (:func:`docs_env`)."""
    env = docs_env()
    cmd = [str(PY), "-m", "mkdocs", "build", "--strict", "--site-dir", "site", *rest]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)


def bench(rest: list[str]) -> int:
    """Every bench/bench_*.py, one after the other, whatever fails; the failures at the end."""
    failed = []
    for script in sorted((ROOT / "bench").glob("bench_*.py")):
        try:
            run(PY, script, *rest)
        except subprocess.CalledProcessError as exc:
            failed.append(f"{script.name} (exit status {exc.returncode})")
    if failed:
        print("tasks.py bench: failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    verbs = {"install", "report", "test", "docs", "bench"}
    if len(argv) < 1 or argv[0] not in verbs:
        print(f"usage: python3 tasks.py {{{'|'.join(sorted(verbs))}}} [args...]", file=sys.stderr)
        return 2
    verb, rest = argv[0], argv[1:]
    try:
        install()
        if verb == "report":
            run(PY, "-m", "simkit.analysis.reports", *(rest or ["reports"]))
        elif verb == "test":
            run(PY, "-m", "ruff", "check", ".")  # lint (pyproject [tool.ruff])
            run(PY, "-m", "mypy", "simkit")  # types (pyproject [tool.mypy])
            # on every core, each test file on one worker (its module fixtures built once)
            run(PY, "-m", "pytest", "-q", "-n", "auto", "--dist", "loadfile", *rest)
        elif verb == "docs":
            docs(rest)
        elif verb == "bench":
            return bench(rest)
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
