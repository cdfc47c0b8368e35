"""The documentation site builds strictly, its links resolve, its examples print what they show.

One strict MkDocs build (mkdocs.yml: a warning is an error) into a scratch folder, the
notebooks rendered as stored (``tests/test_notebooks.py`` executes them); the link checker
``docs/links.py`` over the built site; every example of the site's pages run and compared
by ``docs/examples.py`` (Monte Carlo numbers within 5 standard errors of their ``n``).
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


ex = _load("examples")
links = _load("links")

PAGES = [p for p in ex.documents() if p != ex.README]
ALL = ex.collect(PAGES)
CHECKED = [e for e in ALL if e.checked]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "SIMKIT_DOCS_EXECUTE": "false",
        "MPLBACKEND": "Agg",
    }
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WARNING" not in done.stderr, done.stderr[-3000:]
    return out


def _text(path: Path) -> str:
    return re.sub(r"<[^>]+>", " ", path.read_text())


def test_the_site_builds_strictly_with_every_page(site):
    for p in PAGES:
        page = site / p.relative_to(DOCS).with_suffix(".html")
        assert page.exists(), page
    for p in ("rules", "ARCHITECTURE", "pf2e-sources", "reference/models", "reference/cli"):
        assert (site / f"{p}.html").exists(), p
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert (site / "tutorials" / nb.with_suffix(".html").name).exists(), nb.name


def test_no_broken_internal_link(site):
    assert links.broken_links(site) == []


def test_the_link_checker_finds_broken_links(tmp_path):
    (tmp_path / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html">b</a><a href="#top">top</a>'
        '<a href="b.html#nowhere">x</a><a href="missing.html">y</a><a href="https://e.org">e</a>'
    )
    (tmp_path / "b.html").write_text('<h1 id="here">B</h1><a href="a.html#top">a</a>')
    assert links.broken_links(tmp_path) == [
        "a.html: b.html#nowhere (no such anchor)",
        "a.html: missing.html (no such file)",
    ]


def test_the_reference_is_generated_from_the_declarations(site):
    from simkit.core.params import describe
    from simkit.models import REGISTRY

    text = _text(site / "reference" / "models.html")
    for name, cls in REGISTRY.items():
        section = text.split(f" {name} ", 1)
        assert len(section) == 2, name
        for row in describe(cls):
            assert row["name"] in text, (name, row["name"])
        for o in cls.outcomes:
            assert o in text, (name, o)
        for m in getattr(cls, "marks", ()):
            assert m in text, (name, m)
        for e in getattr(cls, "events", {}):
            assert e in text, (name, e)
    cli = _text(site / "reference" / "cli.html")
    for verb in ("models", "run", "exact", "sweep", "compare", "calibrate", "creatures"):
        assert f"simkit {verb}" in cli, verb
    api = _text(site / "reference" / "api.html")
    for name in ("simulate", "solve", "calibrate", "sweep", "track", "ParamError"):
        assert name in api, name


def test_the_pages_have_checked_examples():
    kinds = {e.kind for e in CHECKED}
    assert {"shell", "cell", "session"} <= kinds
    assert len(CHECKED) >= 40
    assert sum(e.skip for e in ALL) <= 3


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    return ex.run_all(ALL, tmp_path_factory.mktemp("pages"))


@pytest.mark.parametrize("e", CHECKED, ids=lambda e: e.where.replace("docs/", ""))
def test_page_example_output(e, outputs):
    why = ex.differs(e, outputs[(e.doc, e.line)])
    assert why is None, f"{e.where}: {e.command}: {why}"


def test_python_m_simkit_without_the_environment_says_what_to_run():
    # -S: no site-packages, as a bare python3 at the repository root (simkit found, numpy not)
    done = subprocess.run(
        [sys.executable, "-S", "-m", "simkit", "models"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "tasks.py install" in lines[0] and ".venv/bin/simkit" in lines[0]


def test_examples_script_help_and_unknown_options_rewrite_nothing(capsys, monkeypatch):
    """``docs/examples.py`` without arguments rewrites every example: ``--help`` and a
    mistyped option must not."""
    monkeypatch.setattr(ex, "collect", lambda *a, **k: pytest.fail("examples collected"))
    assert ex.main(["--help"]) == 0
    assert "--check" in capsys.readouterr().out
    assert ex.main(["--chek"]) == 2
    assert "unknown option '--chek'" in capsys.readouterr().err
    assert ex.main(["--match", "--weird-command-text", "--help"]) == 0


def test_the_home_page_lists_every_section_and_tutorial(site):
    """The home page's "Where to go": one bullet per section (none run into another's
    paragraph) and a link to every notebook."""
    html = (site / "index.html").read_text()
    where = html.split('id="where-to-go"', 1)[1].split("<h2", 1)[0]
    items = re.findall(r"<li>\s*<p><strong>([^<]+)</strong>", where)
    assert items == ["Tutorials", "How-to guides", "Reference", "Explanation"], items
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f'href="tutorials/{nb.with_suffix(".html").name}"' in where, nb.name
