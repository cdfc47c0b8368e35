"""Every notebook runs top to bottom in a fresh kernel, and is stored without outputs."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    cells = json.loads(path.read_text())["cells"]
    assert not any(c.get("outputs") for c in cells)
    assert not any(c.get("execution_count") for c in cells)


#: Notebooks that must show figures (inline, as a designer sees them in Jupyter).
WITH_FIGURES = {
    "01-quickstart.ipynb",
    "02-balancing-an-encounter.ipynb",
    "03-designing-a-house-rule.ipynb",
}


@pytest.mark.parametrize(
    "path", [p for p in NOTEBOOKS if p.name[:2] in ("01", "02", "03")], ids=lambda p: p.name
)
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

    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel uses Jupyter's inline backend

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError on any failing cell
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
    if path.name in WITH_FIGURES:
        images = [
            o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})
        ]
        assert images, f"{path.name} shows no figure"
