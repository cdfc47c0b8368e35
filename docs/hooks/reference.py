"""MkDocs hook: the pages generated from the code at build time, and the notebooks.

- ``reference/models.md``: every registered model (``simkit.models.REGISTRY``) with its
  step, rule ids, outcomes, events, marks, presets and every declared parameter
  (default, allowed values, unit, rule id, meaning), read from the declarations
  (:func:`simkit.core.params.describe`), as ``simkit models NAME`` prints them;
- ``reference/cli.md``: the ``simkit`` command, each verb's ``--help`` from its argparse
  parser (:func:`simkit.cli.main.build_parser`);
- ``tutorials/*.ipynb``: the notebooks of ``notebooks/`` (all of them, in the nav by their
  first heading), rendered by mkdocs-jupyter
  (executed when ``SIMKIT_DOCS_EXECUTE=true``, as ``python3 tasks.py docs`` sets it).

The nav's Explanation section also takes every page at the top of ``docs/`` that
``mkdocs.yml`` does not name (by its first heading).

Nothing is written into ``docs/``: the pages exist only in the build.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent.parent
NOTEBOOKS = ROOT / "notebooks"
WIDTH = "100"  # argparse help width, fixed so that the page does not depend on the terminal


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def models_page() -> str:
    from simkit.cli.listing import has_exact, summary_line
    from simkit.core.params import describe
    from simkit.models import REGISTRY

    out = [
        "# Models",
        "",
        "Generated at build time from the declarations (`simkit.models.REGISTRY` and each",
        "model's declared parameters); `simkit models NAME` prints the same. The rule ids",
        "(R0-05, A0-1...) are stated in [the rules](../rules.md). Every track that is still",
        "going at the horizon ends `unresolved`.",
        "",
        "| model | step | exact solver | description |",
        "|---|---|---|---|",
    ]
    for name, cls in REGISTRY.items():
        out.append(
            f"| [`{name}`](#{name}) | {cls.time_unit.rstrip('s')} "
            f"| {has_exact(cls)} | {_cell(summary_line(cls))} |"
        )
    for name, cls in REGISTRY.items():
        out += ["", f"## {name}", "", _cell(summary_line(cls)), ""]
        out.append(f"- **class**: `{cls.__module__}.{cls.__qualname__}`")
        out.append(f"- **step**: one {cls.time_unit.rstrip('s')}")
        out.append(f"- **rules**: {cls.rule_ids or '-'}")
        out.append(f"- **exact solver**: {has_exact(cls)}")
        outcomes = tuple(cls.outcomes) + ("unresolved",)
        out.append(f"- **outcomes**: {', '.join(f'`{o}`' for o in outcomes)}")
        events = getattr(cls, "events", {}) or {}
        if events:
            shown = ", ".join(f"`{e}` (mark `{m}` at least {k})" for e, (m, k) in events.items())
            out.append(f"- **events**: {shown}")
        else:
            out.append("- **events**: none")
        marks = tuple(getattr(cls, "marks", ()))
        out.append(
            "- **marks** (values recorded when a track ends, `--marks MARK`): "
            + (", ".join(f"`{m}`" for m in marks) if marks else "none")
        )
        presets = tuple(getattr(cls, "presets", {}) or {})
        out.append("- **presets**: " + (", ".join(f"`{p}`" for p in presets) or "none"))
        ambs = [a.id for a in getattr(cls, "ambiguities", ())]
        if ambs:
            out.append(f"- **ambiguities**: {', '.join(ambs)}")
        out += [
            "",
            "| parameter | default | allowed | unit | rule | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for r in describe(cls):
            out.append(
                f"| `{r['name']}` | {_cell(r['default'])} | {_cell(r['allowed'])} "
                f"| {_cell(r['unit'] or '')} | {_cell(r['rule'] or '')} | {_cell(r['help'])} |"
            )
    return "\n".join(out) + "\n"


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def cli_page() -> str:
    from simkit.cli.main import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = build_parser()
        out = [
            "# Command line",
            "",
            "Generated at build time from the `simkit` command's parser",
            "(`simkit.cli.main.build_parser`): each verb's `simkit VERB --help`.",
            "",
            "```text",
            parser.format_help().rstrip(),
            "```",
        ]
        for verb, sub in _subparsers(parser).items():
            out += ["", f"## simkit {verb}", "", "```text", sub.format_help().rstrip(), "```"]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(out) + "\n"


def _title(nb: Path) -> str:
    """A notebook's first heading, else its file name."""
    import json

    for cell in json.loads(nb.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return nb.stem


def _page_title(page: Path) -> str:
    for line in page.read_text().splitlines():
        if line.startswith("# "):
            return line[2:].strip().strip("`")
    return page.stem


def _nav_paths(items) -> set:
    out: set = set()
    for item in items or []:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            out |= _nav_paths(value)
        else:
            out.add(value)
    return out


def on_config(config):
    # the Tutorials section lists every notebook of notebooks/, in file order, and the
    # Explanation section ends with every page at the top of docs/ that the nav does not
    # name (an engineer's new explanation page): neither needs an edit of mkdocs.yml.
    # A page in a section folder (how-to/...) left out of the nav still fails the build.
    tutorials = [{_title(nb): f"tutorials/{nb.name}"} for nb in sorted(NOTEBOOKS.glob("*.ipynb"))]
    listed = _nav_paths(config["nav"])
    docs_dir = Path(config["docs_dir"])
    extra = [
        {_page_title(p): p.name} for p in sorted(docs_dir.glob("*.md")) if p.name not in listed
    ]
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and "Tutorials" in entry:
            entry["Tutorials"] = tutorials
        if isinstance(entry, dict) and "Explanation" in entry:
            entry["Explanation"] = [*entry["Explanation"], *extra]
    return config


@event_priority(100)  # before mkdocs-jupyter turns .ipynb files into pages
def on_files(files, config):
    for nb in sorted(NOTEBOOKS.glob("*.ipynb")):
        files.append(File.generated(config, f"tutorials/{nb.name}", abs_src_path=str(nb)))
    files.append(File.generated(config, "reference/models.md", content=models_page()))
    files.append(File.generated(config, "reference/cli.md", content=cli_page()))
    return files


def on_nav(nav, config, files):
    # mkdocs-jupyter wraps each notebook's File and reads ``abs_src_path`` from the wrapper,
    # which derives it from ``src_dir``: a notebook that lives outside docs/ (generated
    # above, src_dir None) gets its real path set on the wrapper here
    for f in files:
        inner = getattr(f, "file", None)
        if inner is not None and f.src_uri.startswith("tutorials/") and inner.abs_src_path:
            f.__dict__["abs_src_path"] = inner.abs_src_path
    return nav


_DOCS_LINK = re.compile(r'href="\.\./docs/([^"#]+)\.md(#[^"]*)?"')


def _fix_toc(items, ids: set) -> None:
    for item in items:
        if item.id not in ids:  # mkdocs-jupyter's slug drops a heading's code span
            longer = sorted(i for i in ids if i.startswith(item.id + "-"))
            if longer:
                item.id = longer[0]
        _fix_toc(item.children, ids)


def on_page_content(html, page, config, files):
    if not page.file.src_uri.startswith("tutorials/"):
        return html
    # a notebook links the docs as seen from notebooks/ (../docs/rules.md): on the site the
    # pages sit beside tutorials/ and end in .html
    html = _DOCS_LINK.sub(lambda m: f'href="../{m.group(1)}.html{m.group(2) or ""}"', html)
    _fix_toc(page.toc.items, set(re.findall(r'id="([^"]+)"', html)))
    return html
