"""A link checker for the built site: every internal link and anchor must resolve.

    python docs/links.py site/     # one line per broken link; exit 1 if any

Reads every ``.html`` file under the folder, takes each ``href`` and ``src`` that is not
external (``http:``, ``https:``, ``mailto:``, ``data:``, ``javascript:``), resolves it
against the page (a link starting with ``/`` against the site's root), and reports a
target file that does not exist or a ``#fragment`` that no ``id`` (or ``name``) of the
target page defines. ``tests/test_docs.py`` runs it over a fresh strict build.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

EXTERNAL = ("http", "https", "mailto", "data", "javascript", "ftp")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if v is None:
                continue
            if k in ("href", "src"):
                self.links.append(v)
            elif k == "id" or (k == "name" and tag == "a"):
                self.ids.add(v)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def broken_links(site: Path) -> list[str]:
    """``PAGE: LINK (why)`` for each broken internal link of the site under ``site``."""
    site = Path(site).resolve()
    pages = {p.resolve(): _parse(p) for p in site.rglob("*.html")}
    bad = []
    for path, page in sorted(pages.items()):
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme in EXTERNAL or parts.netloc:
                continue
            if not parts.path:
                target = path
            elif parts.path.startswith("/"):  # from the site's root (the 404 page's links)
                target = (site / unquote(parts.path).lstrip("/")).resolve()
            else:
                target = (path.parent / unquote(parts.path)).resolve()
            if parts.path.endswith("/") or target.is_dir():
                target = target / "index.html"
            rel = path.relative_to(site)
            if not target.exists():
                bad.append(f"{rel}: {link} (no such file)")
                continue
            frag = unquote(parts.fragment)
            if frag and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if frag not in ids:
                    bad.append(f"{rel}: {link} (no such anchor)")
    return bad


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    bad = broken_links(Path(argv[0] if argv else "site"))
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
