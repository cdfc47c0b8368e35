"""Every example of the README and the documentation pages: find it, run it, check or rewrite it.

    python docs/examples.py --check            # exit 1 if an output differs beyond its tolerance
    python docs/examples.py --strict           # exit 1 if an output differs at all (text)
    python docs/examples.py                    # rewrite every checked example's output
    python docs/examples.py docs/how-to/x.md   # only these documents (repeatable)
    python docs/examples.py --match 'compare dying'   # rewrite only those commands

The conventions (also in docs/documentation.md):

- **Shell**: a line ``$ COMMAND`` inside a fenced block, followed by its output (the lines
  up to the next ``$`` line or the end of the block). COMMAND is ``simkit ARGS`` (run
  in-process), or ``head``, ``cat`` or ``python -c ...`` (to show a file an example wrote;
  ``python -c`` runs in-process too, in a fresh namespace).
  A fenced ```` ```toml ```` block is written into the scratch folder under the name the
  next ``--config NAME`` reads. A ``simkit`` example shown without output and without
  ``-o`` / ``--config`` is only run (it must succeed).
- **Python, as a cell**: a ```` ```python ```` block runs like a notebook cell (the value of
  its last line, if an expression, is shown as its ``repr``). If the very next fenced block
  is ```` ```text ```` (or has no language) and holds no ``$`` or ``>>>`` line, it is the
  cell's output (printed text, then that value), compared; otherwise the block is only run.
- **Python, as a session**: a fenced block whose lines start ``>>>`` (continuations ``...``)
  is a doctest-style session: each statement runs and its printed output (or the ``repr``
  of its value) is compared with the lines that follow it.
- Not run: an abridged output (a line with ``...`` in a shell or cell output), an
  interrupted run (``^C``, and the ``--resume`` that follows it), and a block right after
  the line ``<!-- examples: skip -->``.

All examples of one document run in order in one scratch folder (the current directory
of both shell and Python examples), and the Python examples of one document share one
namespace, as a notebook's cells do.

**How outputs are compared.** Line by line, token by token (runs of spaces are one space).
Text must be equal. A number must be equal to its printed digits, except a Monte Carlo
number of an example that says its sample size ``n`` (a table's ``n`` column, an ``n=N``
in the line, the command's ``-n N``, or in Python the literal ``n`` of a
``simulate``/``sweep``/``compare``/``calibrate`` call; a ``head``, ``cat`` or ``python
-c`` line takes the ``-n`` of the ``simkit`` line before it, whose file it shows): a
proportion (a number in [0, 1] written with a decimal point, in a
``p``/``ci_low``/``ci_high`` column, or outside a table, as in ``dead=0.4148``) may differ
by 5 standard errors, ``5 sqrt(p (1 - p) / n)`` (``p (1 - p)`` at least ``1/n``, as
``simkit.testing.standard_error``), plus half a unit of its last digit; a ``count`` by ``5
sqrt(n p (1 - p))`` plus 0.5; a difference of two proportions (a ``diff`` or ``change``
column) by ``5 / sqrt(n)`` (its standard deviation is at most ``1 / sqrt(n)``, however the
two are correlated). Everything else (an ``exact`` column, ``simkit exact``, ``solve``,
means, seeds) is compared to its digits. ``--strict`` compares the text.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The documents whose examples are run (README first, then the site's own pages).
DOCS = ROOT / "docs"
#: Commands other than ``simkit`` a shell example may show.
SHELL = ("head", "cat", "python")
SKIP_MARK = "<!-- examples: skip -->"
#: Output languages of a Python cell's output block.
OUTPUT_LANGS = ("", "text", "output")
#: Table columns whose Monte Carlo numbers get a tolerance (see the module docstring).
PROPORTION_COLUMNS = ("p", "ci_low", "ci_high")
COUNT_COLUMNS = ("count",)
#: Differences of two Monte Carlo proportions: sd(a - b) <= sd(a) + sd(b) <= 1/sqrt(n).
DIFF_COLUMNS = ("diff", "change")
SE = 5.0  # standard errors allowed


def documents() -> list[Path]:
    """README.md, then every markdown page of the site (docs/**/*.md, sorted)."""
    return [README, *sorted(DOCS.rglob("*.md"))]


@dataclass
class Example:
    doc: Path
    line: int  # index of the example's first line ("$ ...", ">>> ...", or the block's first line)
    out_start: int  # index of the first expected output line
    end: int  # index one past the last expected output line
    kind: str  # "shell", "cell" (a python block) or "session" (>>> statements)
    expected: list
    argv: list = field(default_factory=list)  # shell
    source: str = ""  # python
    files: dict = field(default_factory=dict)  # written into the scratch folder before it runs
    text: str = ""  # the command as the document shows it
    has_output: bool = True  # cell: an output block follows
    skip: bool = False  # marked <!-- examples: skip -->
    n_hint: int | None = None  # head/cat/python -c: the n of the simkit run before it

    @property
    def program(self) -> str:
        return self.argv[0] if self.argv else "python"

    @property
    def where(self) -> str:
        try:
            name = self.doc.relative_to(ROOT)
        except ValueError:
            name = self.doc
        return f"{name}:{self.line + 1}"

    @property
    def skipped(self) -> bool:
        """Not run: marked, an abridged or interrupted output, or an interrupted run's resume."""
        if self.skip:
            return True
        if self.kind == "session":
            return False
        return (
            any("..." in x or x.startswith("^C") for x in self.expected) or "--resume" in self.argv
        )

    @property
    def checked(self) -> bool:
        """Run and its output compared (else only run, or skipped)."""
        if self.skipped:
            return False
        if self.kind == "session":
            return True
        if self.kind == "cell":
            return self.has_output
        return (
            bool(self.expected)
            or self.program != "simkit"
            or "-o" in self.argv
            or "--config" in self.argv
        )

    @property
    def command(self) -> str:
        if self.kind != "shell":
            first = self.source.strip().splitlines()
            return first[0] if first else ""
        return self.text or shlex.join(self.argv)

    @property
    def n(self) -> int | None:
        """The Monte Carlo sample size the example states, if any (for tolerances)."""
        if self.kind == "shell":
            if self.program != "simkit":
                return self.n_hint
            if len(self.argv) < 2 or self.argv[1] == "exact":
                return None
            if "-n" in self.argv[:-1]:
                return _count(self.argv[self.argv.index("-n") + 1])
            return None
        return _python_n(self.source)


def _count(text: str) -> int | None:
    text = text.replace("_", "")
    try:
        if "**" in text:
            a, b = text.split("**")
            return int(a) ** int(b)
        return int(float(text))
    except ValueError:
        return None


def _python_n(source: str) -> int | None:
    """The smallest literal sample size of a simulate/sweep/compare/calibrate call."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name not in ("simulate", "sweep", "compare", "calibrate", "level_sweep", "sweep_csv"):
            continue
        cands = [k.value for k in node.keywords if k.arg == "n"]
        if name in ("simulate", "compare", "sweep") and len(node.args) >= (
            2 if name == "simulate" else 3
        ):
            cands.append(node.args[1 if name == "simulate" else 2])
        for c in cands:
            try:
                v = eval(compile(ast.Expression(c), "<n>", "eval"), {"__builtins__": {}})
            except Exception:
                continue
            if isinstance(v, int) and v > 0:
                found.append(v)
    return min(found) if found else None


# -- finding the examples ------------------------------------------------------------------


def _blocks(lines: list[str]) -> list[tuple[int, int, str, bool]]:
    """Fenced blocks: (index of the opening fence, of the closing fence, language, skip)."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            lang = lines[i][3:].strip()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            prev = next((x.strip() for x in reversed(lines[:i]) if x.strip()), "")
            out.append((i, j, lang, prev == SKIP_MARK))
            i = j + 1
        else:
            i += 1
    return out


def _is_output_block(lines, block) -> bool:
    a, b, lang, _ = block
    body = lines[a + 1 : b]
    return lang in OUTPUT_LANGS and not any(x.startswith(("$ ", ">>>")) for x in body)


def examples(lines: list[str], doc: Path = README) -> list[Example]:
    out: list[Example] = []
    toml: list[str] = []
    blocks = _blocks(lines)
    used_as_output: set[int] = set()
    last: Example | None = None  # the last simkit shell example (its n for what shows its file)
    for k, (a, b, lang, skip) in enumerate(blocks):
        if a in used_as_output:
            continue
        body = lines[a + 1 : b]
        if lang == "toml":
            toml = body
            continue
        if lang == "python" and not any(x.startswith(">>>") for x in body):
            nxt = blocks[k + 1] if k + 1 < len(blocks) else None
            between = lines[b + 1 : nxt[0]] if nxt else []
            if nxt and not any(x.strip() for x in between) and _is_output_block(lines, nxt):
                used_as_output.add(nxt[0])
                exp = lines[nxt[0] + 1 : nxt[1]]
                out.append(
                    Example(
                        doc,
                        a + 1,
                        nxt[0] + 1,
                        nxt[1],
                        "cell",
                        exp,
                        source="\n".join(body),
                        skip=skip,
                    )
                )
            else:
                out.append(
                    Example(
                        doc,
                        a + 1,
                        b,
                        b,
                        "cell",
                        [],
                        source="\n".join(body),
                        has_output=False,
                        skip=skip,
                    )
                )
            continue
        if any(x.startswith(">>>") for x in body):
            out += _session(lines, a + 1, b, doc, skip)
            continue
        i = a + 1
        while i < b:
            line = lines[i]
            if not line.startswith("$ "):
                i += 1
                continue
            cmd = line[2:].split("  #", 1)[0]
            argv = shlex.split(cmd)
            j = i + 1
            while j < b and not lines[j].startswith("$ "):
                j += 1
            end = j
            while end > i + 1 and not lines[end - 1].strip():  # blank lines between examples
                end -= 1
            if argv and argv[0] in ("simkit", *SHELL):
                files = {}
                if "--config" in argv and toml:
                    files[argv[argv.index("--config") + 1]] = "\n".join(toml) + "\n"
                out.append(
                    Example(
                        doc,
                        i,
                        i + 1,
                        end,
                        "shell",
                        lines[i + 1 : end],
                        argv=argv,
                        files=files,
                        text=cmd,
                        skip=skip,
                        n_hint=last.n if last is not None else None,
                    )
                )
                if argv[0] == "simkit":
                    last = out[-1]
            i = j
    return out


def _session(lines, start, stop, doc, skip) -> list[Example]:
    out, i = [], start
    while i < stop:
        if not lines[i].startswith(">>>"):
            i += 1
            continue
        src = [lines[i][4:]]
        j = i + 1
        while j < stop and lines[j].startswith("..."):
            src.append(lines[j][4:])
            j += 1
        k = j
        while k < stop and not lines[k].startswith(">>>") and lines[k].strip():
            k += 1
        out.append(Example(doc, i, j, k, "session", lines[j:k], source="\n".join(src), skip=skip))
        i = k
    return out


# -- running them ---------------------------------------------------------------------------


class ExampleError(RuntimeError):
    """An example that failed to run (its document and line are in the message)."""


def _run_shell(ex: Example, folder: Path) -> str:
    for name, text in ex.files.items():
        (folder / name).write_text(text)
    if ex.program == "simkit":
        from simkit.testing import run_cli

        with _cwd(folder):
            code, out, err = run_cli(*ex.argv[1:])
    elif ex.program == "python" and len(ex.argv) == 3 and ex.argv[1] == "-c":
        code, out, err = _python_c(ex.argv[2], folder)  # in-process: no interpreter start
    else:
        argv = [sys.executable, *ex.argv[1:]] if ex.program == "python" else ex.argv
        done = subprocess.run(
            argv, cwd=folder, capture_output=True, text=True, timeout=300, check=False
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    if code != 0:
        raise ExampleError(f"{ex.where}: example failed: {ex.command}: {err.strip()}")
    return out


def _python_c(code: str, folder: Path) -> tuple[int, str, str]:
    """``python -c CODE`` run in this process, in ``folder``: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = 0
    with _cwd(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:
            traceback.print_exc()
            status = 1
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _cwd(folder: Path):
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def _run_python(ex: Example, folder: Path, ns: dict) -> str:
    buf = io.StringIO()
    try:
        with _cwd(folder), contextlib.redirect_stdout(buf):
            if ex.kind == "session":
                code = compile(ex.source + "\n", ex.where, "single")
                exec(code, ns)  # sys.displayhook prints an expression's repr
            else:
                tree = ast.parse(ex.source, ex.where)
                last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
                if last is not None:
                    tree.body = tree.body[:-1]
                exec(compile(tree, ex.where, "exec"), ns)
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), ex.where, "eval"), ns)
                    if value is not None:
                        print(repr(value))
    except Exception as exc:
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        raise ExampleError(f"{ex.where}: example failed: {ex.command}: {tb}") from exc
    return buf.getvalue()


def run_all(exs: list[Example], folder: Path | None = None) -> dict[tuple, list[str]]:
    """Run every example not skipped, in order: (doc, line) -> output lines.

    Each document gets its own scratch folder (under ``folder`` if given) and namespace.
    """
    os.environ.setdefault("MPLBACKEND", "Agg")
    results: dict[tuple, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="simkit-examples-") as tmp:
        base = Path(folder or tmp)
        places: dict[Path, tuple[Path, dict]] = {}
        for ex in exs:
            if ex.skipped:
                continue
            if ex.doc not in places:
                where = base / f"{len(places):02d}-{ex.doc.stem}"
                where.mkdir(parents=True, exist_ok=True)
                places[ex.doc] = (where, {"__name__": "__main__"})
            where, ns = places[ex.doc]
            out = _run_shell(ex, where) if ex.kind == "shell" else _run_python(ex, where, ns)
            text = out.rstrip("\n")
            results[(ex.doc, ex.line)] = text.split("\n") if text else []
    return results


# -- comparing ------------------------------------------------------------------------------

_NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?%?")


def _number(tok: str) -> tuple[float, float] | None:
    """(value, half a unit of its last digit) of a number token, or None."""
    if not _NUM.fullmatch(tok):
        return None
    pct = tok.endswith("%")
    t = tok.rstrip("%")
    mant = re.split("[eE]", t)[0]
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    exp = int(re.split("[eE]", t)[1]) if re.search("[eE]", t) else 0
    scale = 0.01 if pct else 1.0
    return float(t) * scale, 0.5 * 10.0 ** (exp - decimals) * scale


def _proportion_ok(want: str, got: str, n: int) -> bool:
    a, b = _number(want), _number(got)
    if a is None or b is None or "." not in want.split("e")[0] or not 0 <= a[0] <= 1:
        return False
    p = a[0]  # the standard error of simkit.testing.standard_error: p (1 - p) at least 1/n
    return abs(a[0] - b[0]) <= SE * math.sqrt(max(p * (1 - p), 1 / n) / n) + a[1] + 1e-12


def _count_ok(want: str, got: str, n: int) -> bool:
    if not (want.isdigit() and got.isdigit()):
        return False
    p = int(want) / n
    return abs(int(want) - int(got)) <= SE * math.sqrt(n * max(p * (1 - p), 1 / n)) + 0.5


def _diff_ok(want: str, got: str, n: int) -> bool:
    a, b = _number(want), _number(got)
    if a is None or b is None:
        return False
    return abs(a[0] - b[0]) <= SE / math.sqrt(n) + a[1] + 1e-12


def _token_ok(want: str, got: str, col: str | None, n: int | None) -> bool:
    if want == got:
        return True
    if n is None:
        return False
    if col is not None:
        if col in PROPORTION_COLUMNS:
            return _proportion_ok(want, got, n)
        if col in COUNT_COLUMNS:
            return _count_ok(want, got, n)
        if col in DIFF_COLUMNS:
            return _diff_ok(want, got, n)
        return False
    # outside a table: proportions (dead=0.4148 in a Result's repr, a printed p) in place
    pw, pg = _NUM.split(want), _NUM.split(got)
    nw, ng = _NUM.findall(want), _NUM.findall(got)
    if pw != pg or len(nw) != len(ng):
        return False
    for i, (x, y) in enumerate(zip(nw, ng)):
        if x == y:
            continue
        if pw[i].endswith(("n=", "seed=")) or not _proportion_ok(x, y, n):
            return False
    return True


def differs(ex: Example, got: list[str], strict: bool = False) -> str | None:
    """Why ``got`` is not ``ex.expected`` (one line), or None if it matches."""
    want = [x.rstrip() for x in ex.expected]
    got = [x.rstrip() for x in got]
    if want == got:
        return None
    if strict:
        first = next(
            (i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got))
        )
        return f"line {first + 1} of the output differs"
    if len(want) != len(got):
        return f"{len(got)} output lines, the document shows {len(want)}"
    header: list[str] | None = None
    n = ex.n
    for i, (w, g) in enumerate(zip(want, got)):
        tw, tg = w.split(), g.split()
        if i == 0 and tw and all(_number(t) is None for t in tw):
            header = tw
        if tw == tg:
            continue
        if len(tw) != len(tg):
            return f"output line {i + 1}: {g.strip()!r}, the document shows {w.strip()!r}"
        cols = header if header is not None and len(header) == len(tw) and i > 0 else None
        row_n = n
        if cols is not None and "n" in cols and tg[cols.index("n")].isdigit():
            row_n = int(tg[cols.index("n")]) or n
        elif cols is None and re.search(r"\bn=(\d+)", w):  # a Result's repr says its n
            row_n = int(re.search(r"\bn=(\d+)", w).group(1)) or n
        for j, (a, b) in enumerate(zip(tw, tg)):
            if not _token_ok(a, b, cols[j] if cols else None, row_n):
                where = f" (column {cols[j]})" if cols else ""
                tol = "" if row_n else " (no sample size: compared to its digits)"
                return f"output line {i + 1}{where}: {b!r}, the document shows {a!r}{tol}"
    return None


# -- the command ---------------------------------------------------------------------------


def collect(paths: list[Path] | None = None) -> list[Example]:
    out = []
    for doc in paths or documents():
        out += examples(doc.read_text().split("\n"), doc)
    return out


#: The options ``main`` takes (``--match`` takes a value).
OPTIONS = ("--check", "--strict", "--match", "--help", "-h")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--help" in argv or "-h" in argv:  # (without arguments it rewrites every example)
        print(__doc__.split("\n\nThe conventions")[0])
        return 0
    unknown = [
        a for i, a in enumerate(argv) if a.startswith("-") and a not in OPTIONS
        and not (i and argv[i - 1] == "--match")
    ]  # fmt: skip
    if unknown:
        print(
            f"docs/examples.py: unknown option {unknown[0]!r}; options: "
            f"{', '.join(OPTIONS[:3])} (--help shows how each is used)",
            file=sys.stderr,
        )
        return 2
    strict, check = "--strict" in argv, "--check" in argv or "--strict" in argv
    match = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--match"]
    skip_next = {i + 1 for i, a in enumerate(argv) if a == "--match"}
    paths = [
        Path(a).resolve()
        for i, a in enumerate(argv)
        if not a.startswith("--") and i not in skip_next
    ]
    exs = collect(paths or None)
    try:
        results = run_all(exs)
    except ExampleError as exc:
        print(exc, file=sys.stderr)
        return 1
    checked = [e for e in exs if e.checked]
    if check:
        bad = 0
        for e in checked:
            why = differs(e, results[(e.doc, e.line)], strict)
            if why:
                bad += 1
                print(f"{e.where}: output differs: {e.command}: {why}")
        print(
            f"{len(checked) - bad} of {len(checked)} checked examples match "
            f"({len(exs) - len(checked)} run only or skipped)"
        )
        return 1 if bad else 0
    chosen = [e for e in checked if not match or any(m in e.command for m in match)]
    by_doc: dict[Path, list[Example]] = {}
    for e in chosen:
        by_doc.setdefault(e.doc, []).append(e)
    for doc, es in by_doc.items():
        lines = doc.read_text().split("\n")
        for e in sorted(es, key=lambda e: -e.line):  # from the end: earlier lines stay put
            lines[e.out_start : e.end] = [x.rstrip() for x in results[(e.doc, e.line)]]
        doc.write_text("\n".join(lines))
    print(
        f"rewrote {len(chosen)} of {len(checked)} checked examples in {len(by_doc)} documents "
        f"({len(exs) - len(checked)} run only or skipped)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
