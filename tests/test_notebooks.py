"""Every notebook runs top to bottom in a fresh kernel, is stored without outputs, and says
what its numbers say: each claim a sentence makes is checked in the executed kernel."""

import importlib.util
import json
import os
import re
from pathlib import Path

import pytest
from notebook_claims import CLAIMS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    cells = json.loads(path.read_text())["cells"]
    assert not any(c.get("outputs") for c in cells)
    assert not any(c.get("execution_count") for c in cells)


#: A code cell that draws: a simkit plot, a pyplot figure, a pandas ``.plot``, a report's
#: figure. Executed as the site executes it, such a cell must show an image.
DRAWS = re.compile(r"\bplots\.\w+\(|\bplt\.(?:subplots|figure|show)\(|\.plot\(|_figure\(")


def _site_env(monkeypatch) -> None:
    """This process's environment made the one ``tasks.py docs`` executes the notebooks in
    (``tasks.docs_env``: the kernel inherits it; conftest's ``MPLBACKEND=Agg`` removed)."""
    spec = importlib.util.spec_from_file_location("simkit_tasks", ROOT / "tasks.py")
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    env = tasks.docs_env(dict(os.environ))
    for k in set(os.environ) - set(env):
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)


def _cells_without_figure(cells) -> list[int]:
    """Indices of the executed code cells that draw (``DRAWS``) and show no image."""
    return [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "code"
        and DRAWS.search("".join(c["source"]))
        and not any("image/png" in o.get("data", {}) for o in c.get("outputs", []))
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_result_is_explained(path):
    """Each code cell is followed by a sentence saying what it shows; a notebook ends in words."""
    cells = json.loads(path.read_text())["cells"]
    for i, c in enumerate(cells):
        if c["cell_type"] == "code":
            assert i + 1 < len(cells) and cells[i + 1]["cell_type"] == "markdown", (
                f"{path.name}: code cell {i} is not followed by a sentence"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    _site_env(monkeypatch)  # as the site executes it: Jupyter's inline backend, figures shown

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    claims = CLAIMS.get(path.name, [])
    nb.cells.append(nbformat.v4.new_code_cell(_claims_cell([c.check for c in claims])))
    client.execute()  # raises CellExecutionError on any failing cell
    verdicts = _claim_verdicts(nb.cells.pop())
    wrong = [
        f"{c.text!r}: {c.check} -> {v}"
        for c, v in zip(claims, verdicts, strict=True)
        if v is not True
    ]
    assert not wrong, f"{path.name}: prose the numbers no longer support:\n" + "\n".join(wrong)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    raw = [
        o["data"]["text/plain"]
        for c in nb.cells
        for o in c.get("outputs", [])
        if "text/plain" in o.get("data", {})
        and "text/html" not in o["data"]
        and o["data"]["text/plain"].lstrip().startswith("{")
    ]
    assert not raw, f"{path.name} prints a raw dict: {raw[0][:80]}"
    blank = _cells_without_figure(nb.cells)
    assert not blank, f"{path.name}: code cells {blank} draw and show no figure"


# -- claims: each sentence's numbers, checked in the kernel that computed them ---------------

MARK = "SIMKIT-CLAIMS:"


def _claims_cell(checks: list[str]) -> str:
    """Code that evaluates each check in the notebook's namespace and prints the verdicts."""
    return (
        "import json as _json\n"
        "def _near(x, v, tol):\n"
        "    return abs(float(x) - v) <= tol\n"
        "_verdicts = []\n"
        f"for _check in {checks!r}:\n"
        "    try:\n"
        "        _verdicts.append(bool(eval(_check, {**globals(), 'near': _near})))\n"
        "    except Exception as _exc:  # a claim that cannot be evaluated is wrong\n"
        "        _verdicts.append(f'{type(_exc).__name__}: {_exc}')\n"
        f"print({MARK!r} + _json.dumps(_verdicts))\n"
    )


def _claim_verdicts(cell) -> list:
    text = "".join(o.get("text", "") for o in cell.get("outputs", []))
    line = next(ln for ln in text.splitlines() if ln.startswith(MARK))
    return json.loads(line[len(MARK) :])


def _prose(path) -> list[str]:
    """Each markdown cell's words, whitespace collapsed, emphasis marks removed."""
    cells = json.loads(path.read_text())["cells"]
    return [
        " ".join("".join(c["source"]).replace("**", "").split())
        for c in cells
        if c["cell_type"] == "markdown"
    ]


#: A number a sentence states: a percentage, a decimal, "four in five", "seven times".
NUMBER = re.compile(
    r"\d+(?:\.\d+)?%|\b\d+\.\d+\b"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten) (?:in|times)\b"
)


#: Numbers that are conventions, not results: the intervals' level, the charts' cut.
CONVENTION = re.compile(r"95% (?:Wilson )?intervals?|where 99\.9% of them")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_claim_is_in_the_prose(path):
    """A claim's words are in a markdown cell of its notebook (prose and check stay tied)."""
    prose = _prose(path)
    missing = [c.text for c in CLAIMS.get(path.name, []) if not any(c.text in p for p in prose)]
    assert not missing, f"{path.name}: claims whose sentence is gone: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_number_in_the_prose_is_claimed(path):
    """Each percentage, decimal or "N in M" of the prose sits inside a checked claim."""
    claims = [c.text for c in CLAIMS.get(path.name, [])]
    bare = []
    for p in _prose(path):
        spans = [
            (m.start(), m.start() + len(t)) for t in claims for m in re.finditer(re.escape(t), p)
        ]
        spans += [m.span() for m in CONVENTION.finditer(p)]
        for m in NUMBER.finditer(p):
            if not any(a <= m.start() and m.end() <= b for a, b in spans):
                bare.append(p[max(0, m.start() - 40) : m.end() + 10])
    assert not bare, f"{path.name}: numbers the tests do not check: {bare}"


def test_a_false_claim_fails():
    """The verdict cell reports a false or broken check as not True."""
    ns: dict = {}
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(_claims_cell(["1 + 1 == 2", "near(0.31, 0.5, 0.01)", "undefined_name > 0"]), ns)
    verdicts = _claim_verdicts({"outputs": [{"text": out.getvalue()}]})
    assert verdicts[0] is True and verdicts[1] is False
    assert verdicts[2].startswith("NameError")


def test_the_figure_check_fails_without_images(monkeypatch):
    """Every notebook draws; with ``MPLBACKEND=Agg`` (the site's old environment) a drawing
    cell has no image and is reported, and ``tasks.docs_env`` never passes that on."""
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        assert _cells_without_figure(cells), f"{path.name} draws nothing the check would see"
    monkeypatch.setenv("MPLBACKEND", "Agg")
    _site_env(monkeypatch)
    assert "MPLBACKEND" not in os.environ
