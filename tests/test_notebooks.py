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
WITH_FIGURES = {"01-quickstart.ipynb", "02-balancing-an-encounter.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel uses Jupyter's inline backend

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on any failing cell
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    if path.name in WITH_FIGURES:
        images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        assert images, f"{path.name} shows no figure"
